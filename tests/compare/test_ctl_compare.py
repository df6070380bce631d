#!/usr/bin/env python3
"""Black-box tests of `ctl compare`, `ctl show` and `ctl list`.

Two real `ctl run local` runs (tiny sizes) make an archive; the commands
are checked on it, and on run directories made from its records with
samples changed by hand: a real 2x difference must get a ratio, identical
samples must get "~". Environment: BF_CTL (ctl binary), BF_AGENT (the agent
ctl run local starts).
"""
import csv
import io
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

CTL = os.environ.get("BF_CTL", "ctl")
AGENT = os.environ.get("BF_AGENT")


def ctl(*args, cwd=None):
    env = dict(os.environ)
    if AGENT:
        env["BENCHFLEET_AGENT"] = AGENT
    return subprocess.run([CTL, *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def ctl_to_full(*args):
    """ctl with its stdout on /dev/full: every write fails (ENOSPC)."""
    env = dict(os.environ)
    if AGENT:
        env["BENCHFLEET_AGENT"] = AGENT
    with open("/dev/full", "w") as full:
        return subprocess.run([CTL, *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=300, env=env)


def have_dev_full():
    return os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode)


def read_ndjson(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def write_ndjson(path, records):
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


class ArchiveTest(unittest.TestCase):
    """Runs ctl run local twice into a temporary results directory."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-ctl-compare-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.ids = []
        for _ in range(2):
            r = ctl("run", "local", "--bandwidth-mib", "8",
                    "--sizes", "64,128", "--iters", "5",
                    "--warmup", "1", "--no-tui", "--results", cls.results)
            if r.returncode not in (0, 1):
                raise AssertionError(f"ctl run failed: {r.returncode}\n"
                                     f"{r.stdout}\n{r.stderr}")
            m = re.search(r"^run (\S+):", r.stdout, re.M)
            cls.ids.append(m.group(1))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_dir(self, i):
        return os.path.join(self.results, self.ids[i])

    def host_file(self, i):
        return os.path.join(self.run_dir(i), "00-local.ndjson")

    def compare(self, *args, results=None):
        return ctl("compare", "--results", results or self.results, *args)

    def assert_one_line_error(self, r, code=2):
        self.assertEqual(r.returncode, code, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith("ctl: "), lines[0])

    # --- building archives by hand from the real records ---------------

    def make_run(self, results, run_id, records, status="complete",
                 host_status="done", cut_tail=None, host=None):
        """A run directory holding `records` for host local, run.json
        copied from the first real run (its host entry updated from
        host)."""
        d = os.path.join(results, run_id)
        os.makedirs(d)
        with open(os.path.join(self.run_dir(0), "run.json")) as f:
            doc = json.load(f)
        doc["run_id"] = run_id
        doc["status"] = status
        doc["hosts"][0]["status"] = host_status
        doc["hosts"][0].update(host or {})
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump(doc, f)
        path = os.path.join(d, "00-local.ndjson")
        write_ndjson(path, records)
        if cut_tail:
            with open(path, "a") as f:
                f.write(cut_tail)
        return d

    @staticmethod
    def with_samples(records, n, samples_ms):
        """The records with cpu fp32 n's samples replaced (and median_ms,
        gflops made to agree)."""
        out = json.loads(json.dumps(records))
        for r in out:
            if (r["type"] == "gemm" and r["device"] == "cpu" and
                    r["dtype"] == "fp32" and r["n"] == n):
                s = sorted(samples_ms)
                med = s[len(s) // 2]
                r.update(samples_ms=list(samples_ms), iters=len(samples_ms),
                         median_ms=med, min_ms=s[0], max_ms=s[-1],
                         gflops=2.0 * n ** 3 / med / 1e6)
        return out


class CompareTest(ArchiveTest):
    def test_last_two(self):
        r = self.compare("--last", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn(f"A  {self.ids[0]}  local", out)
        self.assertIn(f"B  {self.ids[1]}  local", out)
        self.assertRegex(out, r"device\s+dtype\s+n\s+A GFLOP/s \(spread\)\s+A %peak\s+"
                              r"A %roof\s+A ms\s+B GFLOP/s \(spread\)\s+B %peak\s+"
                              r"B %roof\s+B ms\s+B vs A")
        # One definition of spread, said once, the same as the agent's.
        self.assertIn("GFLOP/s: higher is better; the median, then (the spread): "
                      "(max - min) /\nmedian of the timed iterations' times", out)
        self.assertNotIn("±", out)
        self.assertIn("higher is better", out)
        self.assertIn("lower is better", out)
        # Each size's fp32 CPU row, in sweep order, with a verdict. The
        # agent takes max(3, iters/4) = 3 CPU samples at --iters 5: too
        # few for the U test to find anything, so ~.
        rows = re.findall(r"^cpu\s+fp32\s+(\d+)\s.*$", out, re.M)
        self.assertEqual(rows, ["64", "128"])
        # Each cell's spread is the agent's own (the record's spread, in
        # %), whichever table shows it.
        spreads = {}
        for i in (0, 1):
            for g in read_ndjson(self.host_file(i)):
                if g["type"] == "gemm" and g["device"] == "cpu" and \
                        g["dtype"] == "fp32":
                    spreads.setdefault(g["n"], []).append(100 * g["spread"])
        for line in re.findall(r"^cpu\s+fp32\s.*$", out, re.M):
            n = int(line.split()[2])
            shown = [float(x) for x in re.findall(r"\(([\d.]+)%\)", line)]
            self.assertEqual(len(shown), 2, line)
            for s, want in zip(shown, spreads[n]):
                self.assertAlmostEqual(s, want, delta=0.5 if want >= 1 else 0.05)
            self.assertTrue(line.rstrip().endswith(
                "~ (n=3+3: too few samples)"), line)
        self.assertIn("too few samples", out)

    def test_locale_changes_words_never_data(self):
        # Outside a UTF-8 locale the tables say chg% for Δ% and us for µs;
        # --json, --csv and --samples are byte for byte the same in any.
        def run(lang, *args):
            env = dict(os.environ, LANG=lang, LC_ALL=lang)
            if AGENT:
                env["BENCHFLEET_AGENT"] = AGENT
            r = subprocess.run([CTL, *args], capture_output=True, timeout=300,
                               env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout
        for fmt in ("--json", "--csv", "--samples", "--benchstat"):
            self.assertEqual(run("C", "compare", "--results", self.results, fmt),
                             run("C.UTF-8", "compare", "--results", self.results,
                                 fmt), fmt)
        plain = run("C", "show", "--results", self.results).decode()
        self.assertRegex(plain, r"(?m)^host\s+device\s+dtype\s+n\s+GFLOP/s\s+chg%\s")
        self.assertIn(" 20 calls us batch us speed-up us/row call us/row batch ", plain)
        self.assertNotIn("\u0394", plain)
        self.assertNotIn("\u00b5", plain)
        utf8 = run("C.UTF-8", "show", "--results", self.results).decode()
        self.assertRegex(utf8, r"(?m)^host\s+device\s+dtype\s+n\s+GFLOP/s\s+\u0394%\s")
        self.assertIn(" 20 calls \u00b5s batch \u00b5s ", utf8)

    def test_default_is_last_two(self):
        self.assertEqual(self.compare().stdout,
                         self.compare("--last", "2").stdout)

    def test_json(self):
        r = self.compare("--last", "2", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["alpha"], 0.05)
        self.assertEqual([c["run_id"] for c in doc["columns"]], self.ids)
        self.assertEqual(doc["better"], {"median_gflops": "higher",
                                         "median_ms": "lower"})
        cpu = [row for row in doc["rows"]
               if row["device"] == "cpu" and row["dtype"] == "fp32"]
        self.assertEqual([row["n"] for row in cpu], [64, 128])
        for row in cpu:
            a, b = row["cells"]
            self.assertEqual(a["status"], "pass")
            self.assertEqual(a["samples"], 3)
            self.assertGreater(a["median_gflops"], 0)
            self.assertIsNone(a["vs_first"])
            self.assertGreater(b["vs_first"]["ratio"], 0)
            self.assertFalse(b["vs_first"]["significant"])
            self.assertTrue(b["vs_first"]["too_few_samples"])
            self.assertEqual(b["vs_first"]["text"], "~")
        # Missing is null, never 0.
        for row in doc["rows"]:
            for cell in row["cells"]:
                if cell["status"] != "pass":
                    self.assertIsNone(cell["median_gflops"])
                    self.assertIsNone(cell["median_ms"])

    def test_json_numbers_exact(self):
        # A median that cJSON's own %.15g prints one unit in the last
        # place off (20.515435163508997 -> 20.515435163509) comes out of
        # --json bit for bit, as the agent wrote it.
        exact = 20.515435163508997
        self.assertNotEqual(float("%.15g" % exact), exact)
        recs = read_ndjson(self.host_file(0))
        for r in recs:
            if r["type"] == "bandwidth" and r["kind"] == "triad":
                r["median_gbps"] = exact
        results = os.path.join(tempfile.mkdtemp(dir=self.tmp), "results")
        for run_id in ("20990101T000000Z-0001", "20990101T000100Z-0002"):
            self.make_run(results, run_id, recs)
        r = self.compare("--last", "2", "--json", results=results)
        self.assertEqual(r.returncode, 0, r.stderr)
        bw = [b for b in json.loads(r.stdout)["bandwidth"]
              if (b["device"], b["kind"]) == ("cpu", "triad")]
        self.assertEqual(bw[0]["median_gbps"], [exact, exact])

    def test_roofline_and_bandwidth(self):
        # The roofline fraction of each cell is the median GFLOP/s shown
        # over the record's roofline; the bandwidth medians are the
        # records' own, side by side, with B's ratio to A.
        doc = json.loads(self.compare("--last", "2", "--json").stdout)
        recs = []
        for i in range(2):
            with open(self.host_file(i)) as f:
                recs.append([json.loads(line) for line in f])
        gemm = [{(g["device"], g["dtype"], g["n"]): g for g in rs
                 if g["type"] == "gemm"} for rs in recs]
        placed = 0
        for row in doc["rows"]:
            for c, cell in enumerate(row["cells"]):
                g = gemm[c][(row["device"], row["dtype"], row["n"])]
                if cell["status"] != "pass" or "roofline_gflops" not in g:
                    self.assertIsNone(cell["fraction_of_roofline"])
                    continue
                placed += 1
                self.assertEqual(cell["roofline_gflops"], g["roofline_gflops"])
                self.assertEqual(cell["bound"], g["bound"])
                self.assertAlmostEqual(cell["fraction_of_roofline"],
                                       cell["median_gflops"] /
                                       g["roofline_gflops"], places=9)
        self.assertGreater(placed, 0)
        triad = [[r for r in rs if r["type"] == "bandwidth" and
                  r["kind"] == "triad"][0] for rs in recs]
        bw = [b for b in doc["bandwidth"]
              if (b["device"], b["kind"]) == ("cpu", "triad")]
        self.assertEqual(len(bw), 1)
        self.assertEqual(bw[0]["median_gbps"],
                         [t["median_gbps"] for t in triad])
        self.assertIsNone(bw[0]["vs_first"][0])
        self.assertAlmostEqual(bw[0]["vs_first"][1], triad[1]["median_gbps"] /
                               triad[0]["median_gbps"])
        # Skipped kinds (no GPU here) are not compared.
        self.assertTrue(all(b["device"] == "cpu" for b in doc["bandwidth"]))
        out = self.compare("--last", "2").stdout
        self.assertIn("bandwidth (median GB/s", out)
        line = re.search(r"(?m)^cpu\s+triad\s.*$", out).group(0)
        a, b = triad[0]["median_gbps"], triad[1]["median_gbps"]
        self.assertEqual(line.split()[2:], ["%.1f" % a, "%.1f" % b,
                                            "%+.1f%%" % (100 * (b - a) / a)])
        rows = list(csv.DictReader(io.StringIO(
            self.compare("--last", "2", "--csv").stdout)))
        for x in rows:
            if x["status"] == "pass" and x["bound"] != "n/a":
                self.assertIn(x["bound"], ("memory", "compute"))
                self.assertGreater(float(x["fraction_of_roofline"]), 0)

    def test_csv(self):
        r = self.compare("--last", "2", "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        doc = json.loads(self.compare("--last", "2", "--json").stdout)
        self.assertEqual(len(rows), 2 * len(doc["rows"]))
        first = rows[0]
        self.assertEqual(first["column"], "A")
        self.assertEqual(first["run_id"], self.ids[0])
        self.assertEqual(first["vs_first"], "n/a")
        b = [x for x in rows if x["column"] == "B" and x["device"] == "cpu"
             and x["dtype"] == "fp32"]
        self.assertEqual([x["n"] for x in b], ["64", "128"])
        for x in b:
            self.assertEqual(x["vs_first"], "~")
            self.assertEqual(x["significant"], "no")
            float(x["median_gflops"])

    def test_by_run_id_prefix_host_and_file(self):
        whole = self.compare(self.ids[0], self.ids[1])
        self.assertEqual(whole.returncode, 0, whole.stderr)
        # A unique prefix names the run as well as its full id.
        prefix = self.ids[1][:-1]
        if not self.ids[0].startswith(prefix):
            self.assertEqual(self.compare(self.ids[0], prefix).stdout,
                             whole.stdout)
        # A host alone: its last two runs.
        r = self.compare("local")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(self.ids[0], r.stdout)
        self.assertIn(self.ids[1], r.stdout)
        # Two host files.
        r = self.compare(self.host_file(0), self.host_file(1))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("00-local.ndjson", r.stdout)
        self.assertRegex(r.stdout, r"(?m)^cpu\s+fp32\s+64\s")

    def test_errors(self):
        self.assert_one_line_error(self.compare("nosuchrun"))
        self.assert_one_line_error(self.compare(self.ids[0]))  # one column
        self.assert_one_line_error(self.compare("--json", "--csv"))
        self.assert_one_line_error(self.compare("--last", "0"))
        # The limit says why it is 26: one column per run, A to Z.
        r = self.compare("--last", "1000")
        self.assert_one_line_error(r)
        self.assertEqual(r.stderr, "ctl: --last '1000': expected an integer "
                         "from 1 to 26 (a column per run, at most 26: A to Z)\n")
        self.assert_one_line_error(self.compare("--last", "2", self.ids[0],
                                                self.ids[1]))
        self.assert_one_line_error(self.compare("--bogus"))
        self.assert_one_line_error(ctl("show", "--results", self.results,
                                       "nosuchrun"))
        self.assert_one_line_error(ctl("nosuchcommand"))

    def test_empty_results(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty, exist_ok=True)
        self.assert_one_line_error(self.compare(results=empty))
        self.assert_one_line_error(self.compare("--last", "2", results=empty))
        self.assert_one_line_error(ctl("show", "--results", empty))
        r = ctl("list", "--results", empty)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stdout, "")
        missing = os.path.join(self.tmp, "missing")
        self.assert_one_line_error(self.compare(results=missing))
        # No results directory yet: no runs, said in one line, exit 0.
        r = ctl("list", "--results", missing)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        self.assertEqual(r.stderr, "ctl: list: %s: no runs yet "
                         "(no such directory)\n" % missing)


class CraftedTest(ArchiveTest):
    """Run directories made from real records, samples set by hand."""

    def setUp(self):
        self.crafted = tempfile.mkdtemp(dir=self.tmp)
        self.records = read_ndjson(self.host_file(0))

    def test_real_difference_and_no_difference(self):
        base = [1.00, 1.02, 0.99, 1.01, 1.03]
        a = self.with_samples(self.records, 64, base)
        a = self.with_samples(a, 128, base)
        # Twice as fast at 64; exactly the same samples at 128.
        b = self.with_samples(self.records, 64, [x / 2 for x in base])
        b = self.with_samples(b, 128, base)
        self.make_run(self.crafted, "20990101T000000Z-0001", a)
        self.make_run(self.crafted, "20990101T000100Z-0002", b)
        r = self.compare("--last", "2", results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stderr)
        row64 = re.search(r"(?m)^cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        row128 = re.search(r"(?m)^cpu\s+fp32\s+128\s.*$", r.stdout).group(0)
        # Exact U test, 5 against 5, fully separated: p = 2/C(10,5).
        self.assertTrue(row64.endswith("2.00x (p=0.008 n=5+5)"), row64)
        self.assertTrue(row128.endswith("~ (p=1.000 n=5+5)"), row128)
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        cells = {row["n"]: row["cells"][1]["vs_first"] for row in doc["rows"]
                 if row["device"] == "cpu" and row["dtype"] == "fp32"}
        self.assertAlmostEqual(cells[64]["ratio"], 2.0, places=9)
        self.assertAlmostEqual(cells[64]["p"], 2 / 252, places=12)
        self.assertTrue(cells[64]["significant"])
        self.assertEqual(cells[128]["p"], 1.0)
        self.assertFalse(cells[128]["significant"])
        # Slower: a percentage within 0.5x..2x, negative.
        c = self.with_samples(self.records, 64, [x * 1.25 for x in base])
        self.make_run(self.crafted, "20990101T000200Z-0003", c)
        r = self.compare("20990101T000000Z", "20990101T000200Z",
                         results=self.crafted)
        row64 = re.search(r"(?m)^cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        self.assertIn("-20.0% (p=0.008 n=5+5)", row64)

    def test_provenance(self):
        b = json.loads(json.dumps(self.records))
        b[0]["openblas"]["threads"] = 1
        b[0]["agent"]["source_hash"] = "0123456789abcdef"
        self.make_run(self.crafted, "20990101T000000Z-0001", self.records)
        self.make_run(self.crafted, "20990101T000100Z-0002", b)
        r = self.compare(results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stderr)
        prov = r.stdout.split("provenance differences:\n", 1)[1]
        keys = [line.split()[0] for line in prov.splitlines() if line.strip()]
        self.assertEqual(keys, ["openblas.threads", "agent.source_hash"])
        self.assertRegex(prov, r"openblas\.threads\s+A \d+\s+B 1")
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        self.assertEqual([p["key"] for p in doc["provenance"]],
                         ["openblas.threads", "agent.source_hash"])
        # Identical provenance: no section.
        same = tempfile.mkdtemp(dir=self.tmp)
        self.make_run(same, "20990101T000000Z-0001", self.records)
        self.make_run(same, "20990101T000100Z-0002", self.records)
        self.assertNotIn("provenance", self.compare(results=same).stdout)

    def test_incomplete_run(self):
        # ctl died mid-run: run.json still "running", the host file cut
        # in the middle of a line, no summary.
        recs = [r for r in self.records if r["type"] != "summary"]
        recs = [r for r in recs
                if not (r["type"] == "gemm" and r["n"] == 128)]
        self.make_run(self.crafted, "20990101T000000Z-0001", self.records)
        self.make_run(self.crafted, "20990101T000100Z-0002", recs,
                      status="running", host_status="running",
                      cut_tail='{"schema":1,"type":"gemm","seq":40,"dev')
        r = ctl("show", "--results", self.crafted, "20990101T000100Z")
        self.assertEqual(r.returncode, 0, r.stderr)
        head = r.stdout.splitlines()[0]
        self.assertTrue(head.startswith("run 20990101T000100Z-0002"), head)
        self.assertIn("INCOMPLETE", head)
        self.assertIn("local: running", r.stdout)
        self.assertIn("partial line", r.stdout)
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+fp32\s+64\s")
        r = ctl("list", "--results", self.crafted)
        self.assertRegex(r.stdout, r"(?m)^20990101T000100Z-0002\s.*\sincomplete$")
        r = self.compare(results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("incomplete", r.stdout.splitlines()[1])
        row128 = re.search(r"(?m)^cpu\s+fp32\s+128\s.*$", r.stdout).group(0)
        self.assertTrue(row128.endswith("n/a"), row128)

    def test_host_skips_runs_it_did_not_complete(self):
        # Issue 13: `ctl compare HOST` takes the host's newest runs in
        # which it completed; the others are skipped, one line each.
        self.make_run(self.crafted, "20990101T000000Z-0001", self.records)
        self.make_run(self.crafted, "20990101T000100Z-0002", self.records)
        self.make_run(self.crafted, "20990101T000200Z-0003", self.records,
                      status="incomplete", host_status="failed")
        self.make_run(self.crafted, "20990101T000300Z-0004", self.records,
                      status="incomplete", host_status="interrupted")
        for d, why in (("20990101T000200Z-0003", "agent exited with status 4"),
                       ("20990101T000300Z-0004", "interrupted")):
            path = os.path.join(self.crafted, d, "run.json")
            with open(path) as f:
                doc = json.load(f)
            doc["hosts"][0]["reason"] = why
            with open(path, "w") as f:
                json.dump(doc, f)
        for cmd in ("compare", "report"):
            args = [cmd, "--results", self.crafted, "local"]
            if cmd == "report":
                args += ["-o", os.path.join(self.crafted, "r.html")]
            r = ctl(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr.splitlines()[:2], [
                "ctl: %s: warning: skipped run 20990101T000300Z-0004: "
                "local interrupted" % cmd,
                "ctl: %s: warning: skipped run 20990101T000200Z-0003: "
                "local failed: agent exited with status 4" % cmd])
            if cmd == "compare":
                head = r.stdout.splitlines()
                self.assertTrue(head[0].startswith("A  20990101T000000Z-0001"),
                                head[0])
                self.assertTrue(head[1].startswith("B  20990101T000100Z-0002"),
                                head[1])
        # Only runs the host did not complete: one line saying so.
        only = os.path.join(self.crafted, "only")
        os.makedirs(only)
        self.make_run(only, "20990101T000200Z-0003", self.records,
                      status="incomplete", host_status="failed")
        r = ctl("compare", "--results", only, "local")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.splitlines()[-1],
                         "ctl: compare: %s: no runs with host local "
                         "completed" % only)

    # --- issue 10: reliability, validity, same machine, repeats, env ----

    def gemm(self, records, n, device="cpu", dtype="fp32"):
        return [r for r in records if r["type"] == "gemm" and
                r["device"] == device and r["dtype"] == dtype and r["n"] == n]

    def test_one_sample_and_unreliable(self):
        a = self.with_samples(self.records, 64, [1.0])
        # The real records may carry their own verdict (a busy machine's
        # spread): only the crafted row is unreliable here.
        for g in a:
            if g["type"] == "gemm" and g["status"] == "pass":
                g.update(reliable=True, unreliable_reasons=[])
        for g in self.gemm(a, 64):
            g.update(reliable=False, unreliable_reasons=["one sample"])
        self.make_run(self.crafted, "20990101T000000Z-0001", a)
        self.make_run(self.crafted, "20990101T000100Z-0002", a)
        r = self.compare(results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stderr)
        row = re.search(r"(?m)^cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        # No confident ±0.0% from one sample; the agent's verdict shown.
        self.assertNotIn("±", row)
        self.assertIn("?1 (1 sample)", row)
        self.assertIn("~ (n=1+1: too few samples)", row)
        # The reason once, as a numbered note with its count of cells.
        self.assertIn("\n?1 unreliable: one sample: 2 cells\n", r.stdout)
        self.assertNotIn("?2", r.stdout)
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        cell = [row for row in doc["rows"] if row["device"] == "cpu" and
                row["dtype"] == "fp32" and row["n"] == 64][0]["cells"][0]
        self.assertIs(cell["reliable"], False)
        self.assertEqual(cell["unreliable_reasons"], ["one sample"])
        self.assertIsNone(cell["spread_pct"])
        rows = list(csv.DictReader(io.StringIO(
            self.compare("--csv", results=self.crafted).stdout)))
        x = [x for x in rows if x["device"] == "cpu" and x["dtype"] == "fp32"
             and x["n"] == "64"][0]
        self.assertEqual(x["reliable"], "no")
        self.assertEqual(x["spread_pct"], "n/a")

    def test_peak_everywhere(self):
        a = json.loads(json.dumps(self.records))
        for g in self.gemm(a, 64):
            g.update(peak_gflops=g["gflops"] * 4, fraction_of_peak=0.25)
        self.make_run(self.crafted, "20990101T000000Z-0001", a)
        self.make_run(self.crafted, "20990101T000100Z-0002", a)
        r = self.compare(results=self.crafted)
        row = re.search(r"(?m)^cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        self.assertRegex(row, r"\s25%\s")
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        cell = [row for row in doc["rows"] if row["device"] == "cpu" and
                row["dtype"] == "fp32" and row["n"] == 64][0]["cells"][1]
        self.assertAlmostEqual(cell["fraction_of_peak"], 0.25, places=6)
        rows = list(csv.DictReader(io.StringIO(
            self.compare("--csv", results=self.crafted).stdout)))
        x = [x for x in rows if x["device"] == "cpu" and x["dtype"] == "fp32"
             and x["n"] == "64"][0]
        self.assertAlmostEqual(float(x["fraction_of_peak"]), 0.25, places=6)
        r = ctl("show", "--results", self.crafted)
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+fp32\s+64\s+[\d.]+(?:\?[\d,]*)?\s+\S+\s+25%\s")

    def test_reference_and_peak_provenance(self):
        # A published reference at this n: A scores near it, B at about
        # half (below reference); B's agent also has another peak.
        a = json.loads(json.dumps(self.records))
        b = json.loads(json.dumps(self.records))
        src = "PyTorch torch.mm on test CPU, fp32 n=64: x TFLOP/s (test)"
        for g in self.gemm(a, 64):
            g.update(reference_gflops=g["gflops"] / 0.97, reference_source=src,
                     fraction_of_reference=0.97, below_reference=False)
        for g in self.gemm(b, 64):
            g.update(reference_gflops=g["gflops"] * 2, reference_source=src,
                     fraction_of_reference=0.5, below_reference=True,
                     peak_gflops=g["peak_gflops"] * 2, peak_method="table")
        self.make_run(self.crafted, "20990101T000000Z-0001", a)
        self.make_run(self.crafted, "20990101T000100Z-0002", b)
        r = self.compare(results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"A %peak\s+A vs ref\s+A %roof")
        row = re.search(r"(?m)^cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        self.assertRegex(row, r"\s(9[0-9]|10[0-4])%\s.*\s(4[5-9]|5[0-5])%!\s")
        self.assertRegex(r.stdout, r"(?m)^below reference: B cpu fp32 64: "
                                   r"\d+% of [\d.]+ GFLOP/s, PyTorch torch\.mm")
        self.assertNotRegex(r.stdout, r"(?m)^below reference: A ")
        # The peak and the reference changed: provenance, not speed.
        self.assertRegex(r.stdout, r"(?m)^  peak cpu fp32\s+A [\d.]+ GFLOP/s "
                                   r"\(\S+\)\s+B [\d.]+ GFLOP/s \(table\)")
        self.assertRegex(r.stdout, r"(?m)^  reference cpu fp32 n=64\s+A ")
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        cells = [row for row in doc["rows"] if row["device"] == "cpu" and
                 row["dtype"] == "fp32" and row["n"] == 64][0]["cells"]
        self.assertIs(cells[0]["below_reference"], False)
        self.assertIs(cells[1]["below_reference"], True)
        self.assertAlmostEqual(cells[1]["fraction_of_reference"], 0.5, delta=0.06)
        self.assertIn("peak cpu fp32", [p["key"] for p in doc["provenance"]])
        rows = list(csv.DictReader(io.StringIO(
            self.compare("--csv", results=self.crafted).stdout)))
        x = [x for x in rows if x["device"] == "cpu" and x["dtype"] == "fp32"
             and x["n"] == "64" and x["column"] == "B"][0]
        self.assertEqual(x["below_reference"], "yes")
        # ctl show: the cell marked, the legend says against what
        r = ctl("show", "--results", self.crafted)
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+fp32\s+64\s+[\d.]+(?:\?[\d,]*)?"
                                   r"\s+\S+\s+\S+\s+\d+%!\s")
        self.assertRegex(r.stdout, r"(?m)^! below reference \(1 row\): under 80% ")
        self.assertRegex(r.stdout, r"(?m)^  local cpu fp32 64: 50% of [\d.]+ "
                                   r"GFLOP/s, PyTorch torch\.mm")
        # Two runs of one agent: the same peak (within 5 %), no row.
        self.make_run(self.crafted, "20990101T000200Z-0003", a)
        r = self.compare("20990101T000000Z-0001", "20990101T000200Z-0003",
                         results=self.crafted)
        self.assertNotIn("peak cpu fp32", r.stdout)

    def steady(self, records, n, samples_ms):
        """with_samples, and the record's spread and reliability made
        to agree with the samples given (a real record's may not)."""
        out = self.with_samples(records, n, samples_ms)
        s = sorted(samples_ms)
        for g in self.gemm(out, n):
            g.update(spread=(s[-1] - s[0]) / s[len(s) // 2], reliable=True)
            g.pop("unreliable_reasons", None)
        return out

    def test_tied_three_and_three_is_no_regression(self):
        # 3 + 3 samples, each side all tied, B twice as slow: the normal
        # approximation (tie-corrected) gives p = 0.047 < 0.05, which no
        # exact test of 3 + 3 can (its smallest p is 2 / C(6, 3) = 0.1):
        # too few samples, so --fail-on-regression must not fire.
        sigma = math.sqrt(9 / 12 * (7 - 48 / 30))
        z = (9 - 4.5 - 0.5) / sigma
        self.assertLess(math.erfc(z / math.sqrt(2)), 0.05)
        a = self.steady(self.records, 64, [1.0, 1.0, 1.0])
        b = self.steady(self.records, 64, [2.0, 2.0, 2.0])
        self.make_run(self.crafted, "20990101T000000Z-0001", a)
        self.make_run(self.crafted, "20990101T000100Z-0002", b)
        r = self.compare("--fail-on-regression", "10", results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("regression", r.stderr)
        row = re.search(r"(?m)^cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        self.assertTrue(row.endswith("~ (n=3+3: too few samples)"), row)
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        d = [row["cells"][1]["vs_first"] for row in doc["rows"]
             if (row["device"], row["dtype"], row["n"]) ==
             ("cpu", "fp32", 64)][0]
        self.assertEqual(d["ratio"], 0.5)
        self.assertTrue(d["too_few_samples"])
        self.assertFalse(d["significant"])
        # One more sample a side (4 + 4, exact minimum p 0.029): the
        # same slowdown is found, and fails the run.
        a = self.steady(self.records, 64, [1.0, 1.0, 1.0, 1.0])
        b = self.steady(self.records, 64, [2.0, 2.0, 2.0, 2.0])
        self.make_run(self.crafted, "20990101T000200Z-0003", a)
        self.make_run(self.crafted, "20990101T000300Z-0004", b)
        r = self.compare("--fail-on-regression", "10", results=self.crafted)
        self.assertEqual(r.returncode, 5, r.stdout + r.stderr)
        self.assertIn("regression: ", r.stderr)

    def test_large_sizes(self):
        # 2 n^3 past 2^31 (n >= 1025): the agent's default n = 4096 and
        # 8192, whose GFLOP/s an int count would make negative. Every
        # figure shown is 2 n^3 / ms / 1e6 of the samples given.
        recs = json.loads(json.dumps(self.records))
        for g in recs:
            if g["type"] == "gemm" and g["device"] == "cpu" and \
                    g["dtype"] == "fp32" and g["n"] in (64, 128):
                g["n"] = {64: 4096, 128: 8192}[g["n"]]
        samples = {4096: [1000.0, 1010.0, 1020.0],
                   8192: [9000.0, 9090.0, 9180.0]}
        for n, ms in samples.items():
            recs = self.steady(recs, n, ms)
        self.make_run(self.crafted, "20990101T000000Z-0001", recs)
        self.make_run(self.crafted, "20990101T000100Z-0002", recs)
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        cells = {row["n"]: row["cells"] for row in doc["rows"]
                 if row["device"] == "cpu" and row["dtype"] == "fp32"}
        self.assertEqual(sorted(cells), [4096, 8192])
        for n, ms in samples.items():
            flops = 2.0 * n ** 3
            self.assertGreater(flops, 2 ** 31)
            for cell in cells[n]:
                self.assertEqual(cell["status"], "pass")
                self.assertAlmostEqual(cell["median_gflops"],
                                       flops / ms[1] / 1e6, delta=1e-9)
                self.assertAlmostEqual(cell["min_gflops"],
                                       flops / ms[2] / 1e6, delta=1e-9)
                self.assertAlmostEqual(cell["max_gflops"],
                                       flops / ms[0] / 1e6, delta=1e-9)
        # 137438953472 / 1010 ms = 136.1 GFLOP/s, 1099511627776 / 9090 ms
        # = 121.0, in the text table
        r = self.compare(results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stderr)
        for n, text in ((4096, "136"), (8192, "121")):
            row = re.search(r"(?m)^cpu\s+fp32\s+%d\s.*$" % n,
                            r.stdout).group(0)
            self.assertEqual(row.split()[3], text, row)
        # --samples gives each sample's ms back from its GFLOP/s
        r = self.compare("--samples", results=self.crafted)
        rows = [row for row in csv.DictReader(io.StringIO(r.stdout))
                if row["device"] == "cpu" and row["dtype"] == "fp32"]
        self.assertEqual(len(rows), 12)
        for row in rows:
            n = int(row["n"])
            ms = samples[n][int(row["sample"])]
            self.assertAlmostEqual(float(row["ms"]), ms, delta=ms * 1e-9)
            self.assertAlmostEqual(float(row["gflops"]),
                                   2.0 * n ** 3 / ms / 1e6, delta=1e-6)
        # ctl report: the same medians in its GFLOP/s section
        html = os.path.join(self.crafted, "r.html")
        r = ctl("report", "--results", self.crafted, "-o", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(html, encoding="utf-8") as f:
            h = f.read()
        for label in "AB":
            self.assertIn('<span class="v">%s 136</span>' % label, h)
            self.assertIn('<span class="v">%s 121</span>' % label, h)
        self.assertNotRegex(h, r'<span class="v">[AB] -\d')

    def test_invalid_gflops(self):
        # gflops that 2 n^3 / median_ms does not give: shown as invalid.
        b = json.loads(json.dumps(self.records))
        for g in self.gemm(b, 64):
            g["gflops"] = g["gflops"] * 2
        self.make_run(self.crafted, "20990101T000000Z-0001", self.records)
        self.make_run(self.crafted, "20990101T000100Z-0002", b)
        r = self.compare(results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stderr)
        row = re.search(r"(?m)^cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        self.assertRegex(row, r"\sinvalid\s+n/a\s+n/a\s+n/a\s+n/a$")
        self.assertIn("invalid (no GFLOP/s): gflops", r.stdout)
        r = ctl("show", "--results", self.crafted)
        row = re.search(r"(?m)^local\s+cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        self.assertRegex(row, r"^local\s+cpu\s+fp32\s+64\s+n/a\s")
        self.assertTrue(row.endswith(" FAIL [1]"), row)
        self.assertRegex(r.stdout, r"(?m)^\[1\] invalid: gflops \S+ disagrees with 2 n\^3 / "
                                   r"median_ms")

    def test_delta_only_on_the_same_machine(self):
        # Same settings, but the earlier run was another box behind the
        # same name: no Δ%, and the table says why.
        other = json.loads(json.dumps(self.records))
        other[0]["hostname"] = "elsewhere"
        self.make_run(self.crafted, "20990101T000000Z-0001", other)
        self.make_run(self.crafted, "20990101T000100Z-0002", self.records)
        r = ctl("show", "--results", self.crafted, "20990101T000100Z-0002")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+fp32\s+64\s+[\d.]+(?:\?[\d,]*)?\s+n/a\s")
        self.assertRegex(r.stdout, r"(?m)^(Δ|chg)% n/a for local: different machine "
                                   r"than run 20990101T000000Z-0001 \(hostname differs")
        # Other GPUs (UUIDs) under the same hostname: the same.
        gpus = json.loads(json.dumps(self.records))
        gpus[0]["gpus"] = [{"index": 0, "name": "NVIDIA H200",
                            "uuid": "GPU-0000-1111"}]
        self.make_run(self.crafted, "20990101T000200Z-0003", gpus)
        r = ctl("show", "--results", self.crafted, "20990101T000200Z-0003")
        self.assertIn("different machine than run 20990101T000100Z-0002 "
                      "(GPUs differ)", r.stdout)
        # The same machine again: Δ% against it.
        self.make_run(self.crafted, "20990101T000300Z-0004", self.records)
        r = ctl("show", "--results", self.crafted, "20990101T000300Z-0004")
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+fp32\s+64\s+[\d.]+(?:\?[\d,]*)?\s+"
                                   r"([+-][\d.]+%|0\.0%)\s")
        self.assertIn("local: vs run 20990101T000100Z-0002", r.stdout)

    def test_unknown_host_key_is_not_another_machine(self):
        # A remote host's run whose ctl was killed before run.json had
        # the host key: it cannot tell the machine, which ctl show says,
        # rather than "host key differs"; the known key still decides
        # between runs that both recorded one.
        key = {"target": "me@box", "host_key_fingerprint": "SHA256:aaaa"}
        killed = {"target": "me@box", "host_key_fingerprint": None,
                  "status": "running"}
        self.make_run(self.crafted, "20990101T000000Z-0001", self.records,
                      host=key)
        self.make_run(self.crafted, "20990101T000100Z-0002", self.records,
                      status="running", host=killed)
        r = ctl("show", "--results", self.crafted, "20990101T000100Z-0002")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("host key differs", r.stdout)
        self.assertRegex(r.stdout, r"(?m)^(Δ|chg)% n/a for local: cannot "
                                   r"tell whether run 20990101T000000Z-0001 "
                                   r"was the same machine: this run "
                                   r"recorded no host key$")
        # The other way round: a run with the key, the newest earlier
        # one without: that one is passed over for the one with the key.
        self.make_run(self.crafted, "20990101T000200Z-0003", self.records,
                      host=key)
        r = ctl("show", "--results", self.crafted, "20990101T000200Z-0003")
        self.assertIn("local: vs run 20990101T000000Z-0001", r.stdout)
        other = dict(key, host_key_fingerprint="SHA256:bbbb")
        self.make_run(self.crafted, "20990101T000300Z-0004", self.records,
                      host=other)
        r = ctl("show", "--results", self.crafted, "20990101T000300Z-0004")
        self.assertIn("different machine than run 20990101T000200Z-0003 "
                      "(host key differs)", r.stdout)

    def test_repeated_sizes(self):
        # --sizes 64,64: each occurrence is its own row, n#2 the second.
        recs = []
        for rec in self.records:
            recs.append(rec)
        extra = json.loads(json.dumps(self.gemm(self.records, 64)))
        for g in extra:
            g["samples_ms"] = [x * 2 for x in g["samples_ms"]]
            s = sorted(g["samples_ms"])
            g.update(median_ms=s[len(s) // 2], min_ms=s[0], max_ms=s[-1],
                     gflops=2.0 * 64 ** 3 / s[len(s) // 2] / 1e6)
        at = recs.index(self.gemm(recs, 128)[0])
        recs[at:at] = extra
        # As the agent numbers them: a repeated size is a new record with
        # its own seq (ctl ignores a seq it has seen, as a duplicate).
        recs = json.loads(json.dumps(recs))
        for i, rec in enumerate(recs):
            rec["seq"] = i
        self.make_run(self.crafted, "20990101T000000Z-0001", recs)
        self.make_run(self.crafted, "20990101T000100Z-0002", recs)
        r = self.compare(results=self.crafted)
        self.assertEqual(r.returncode, 0, r.stderr)
        ns = re.findall(r"(?m)^cpu\s+fp32\s+(\S+)\s", r.stdout)
        self.assertEqual(ns, ["64", "64#2", "128"])
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        occ = [(row["n"], row["occurrence"]) for row in doc["rows"]
               if row["device"] == "cpu" and row["dtype"] == "fp32"]
        self.assertEqual(occ, [(64, 1), (64, 2), (128, 1)])
        second = [row for row in doc["rows"] if row["device"] == "cpu" and
                  row["dtype"] == "fp32" and row["occurrence"] == 2][0]
        first = [row for row in doc["rows"] if row["device"] == "cpu" and
                 row["dtype"] == "fp32" and row["n"] == 64 and
                 row["occurrence"] == 1][0]
        self.assertAlmostEqual(first["cells"][0]["median_ms"] * 2,
                               second["cells"][0]["median_ms"], places=9)
        r = ctl("show", "--results", self.crafted)
        # The GEMM rows only: the batching lines follow the table.
        gemm_part = r.stdout.split("\nbatching (")[0]
        self.assertEqual(re.findall(r"(?m)^local\s+cpu\s+fp32\s+(\S+)\s", gemm_part),
                         ["64", "64#2", "128"])

    def test_env_and_gpu_provenance(self):
        b = json.loads(json.dumps(self.records))
        b[0].setdefault("env", {})["OMP_NUM_THREADS"] = "1"
        b[0]["env"]["LD_PRELOAD"] = "/opt/libfaster.so"
        # A core no run here replaces (this machine's OpenBLAS may well
        # have replaced Prescott itself, and then "Prescott" is no
        # difference).
        a_core = self.records[0]["openblas"].get("core_replaced")
        b[0]["openblas"]["core_replaced"] = "Atom"
        b[0]["gpus"] = [{"index": 0, "name": "NVIDIA H200", "uuid": "GPU-b"}]
        self.make_run(self.crafted, "20990101T000000Z-0001", self.records)
        self.make_run(self.crafted, "20990101T000100Z-0002", b)
        r = self.compare(results=self.crafted)
        prov = r.stdout.split("provenance differences:\n", 1)[1]
        keys = [line.split()[0] for line in prov.splitlines() if line.strip()]
        for key in ("env.OMP_NUM_THREADS", "env.LD_PRELOAD",
                    "openblas.core_replaced", "gpus.uuid"):
            self.assertIn(key, keys)
        self.assertRegex(prov, r"env\.LD_PRELOAD\s+A unset\s+B /opt/libfaster\.so")
        self.assertRegex(prov, r"gpus\.uuid\s+A none\s+B GPU-b")
        doc = json.loads(self.compare("--json", results=self.crafted).stdout)
        p = {x["key"]: x["values"] for x in doc["provenance"]}
        self.assertEqual(p["env.OMP_NUM_THREADS"][1], "1")
        self.assertEqual(p["openblas.core_replaced"], [a_core, "Atom"])


class ShowListTest(ArchiveTest):
    def test_show(self):
        r = ctl("show", "--results", self.results, self.ids[1])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith(f"run {self.ids[1]}  started "),
                        lines[0])
        self.assertIn("complete", lines[0])
        self.assertNotIn("INCOMPLETE", lines[0])
        # The live table's columns, in its order (ui_layout.c).
        self.assertRegex(r.stdout, r"(?m)^host\s+device\s+dtype\s+n\s+GFLOP/s\s+"
                                   r"(Δ|chg)%\s+%peak\s+vs ref\s+%roof\s+med ms\s+vs fp32\s+GPU/CPU\s+"
                                   r"peak MiB\s+GFLOP/J\s+ok/fail\s+state$")
        # GFLOP/s, Δ% against the first run (same machine, same settings),
        # %peak (the agent knows this CPU's peak, or says n/a), vs ref
        # (n/a: no published measurement of this CPU).
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+fp32\s+64\s+[\d.]+(?:\?[\d,]*)?\s+"
                                   r"([+-][\d.]+%|0\.0%)\s+([\d.]+%|n/a)\s+n/a\s+"
                                   r"([\d.]+% [MC]|n/a)\s+[\d.]+\s")
        # Under the table, as ctl run printed it: bandwidth and batching.
        self.assertRegex(r.stdout, r"(?m)^bandwidth \(median GB/s\)$")
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+triad\s+[\d.]+\s+pass$")
        self.assertRegex(r.stdout, r"(?m)^batching \(20 one-row calls")
        self.assertRegex(r.stdout, r"(?m)^host\s+device\s+dtype\s+20 calls (µs|us)\s+"
                                   r"batch (µs|us)\s+speed-up\s+(µs|us)/row call\s+"
                                   r"(µs|us)/row batch\s+state$")
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+fp32\s+[\d.e-]+\s+"
                                   r"[\d.e-]+\s+[\d.]+x\s+[\d.e-]+\s+[\d.e-]+\s+pass$")
        self.assertIn(f"local: vs run {self.ids[0]}, same machine and settings",
                      r.stdout)
        # A row skipped on every host for one reason is no row: one
        # note line above the table (the verdict's) gives the reason,
        # once (issue 30); the table's notes do not repeat it.
        self.assertNotRegex(r.stdout, r"(?m)^local\s+cpu\s+fp16\s")
        self.assertEqual(len(re.findall(
            r"(?m)^cpu fp16: fp16: this OpenBLAS \(OpenBLAS [\d.]+\) has no "
            r"cblas_shgemm(; fp16: oneDNN [^\n]*)? on local$", r.stdout)), 1)
        self.assertLess(r.stdout.index("\ncpu fp16: "),
                        r.stdout.index("\nhost "))
        self.assertNotRegex(r.stdout, r"(?m)^\[\d\] fp16: this OpenBLAS")
        # The default is the most recent run.
        self.assertEqual(ctl("show", "--results", self.results).stdout,
                         r.stdout)
        # A host file alone.
        r = ctl("show", self.host_file(0))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"(?m)^local\s+cpu\s+fp32\s+64\s")

    def test_list(self):
        r = ctl("list", "--results", self.results)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual([line.split()[0] for line in lines], self.ids)
        for line in lines:
            fields = line.split()
            self.assertRegex(fields[1], r"^\d{4}-\d\d-\d\dT")
            self.assertEqual(fields[2], "local")
            self.assertEqual(fields[3], "complete")
        r = ctl("list", "--results", self.results, "--last", "1")
        self.assertEqual([line.split()[0] for line in r.stdout.splitlines()],
                         self.ids[1:])

    def test_write_error_is_a_failure(self):
        # Output that cannot be written (a full disk) is one line on
        # stderr and exit 4, whichever command and however long the
        # output: a long one fails in the middle (stdio then keeps nothing
        # to flush), a short one only at the final flush.
        if not have_dev_full():
            self.skipTest("no /dev/full")
        res = ("--results", self.results)
        for args in (("compare", *res, "--json"), ("compare", *res),
                     ("compare", *res, "--csv"), ("compare", *res, "--samples"),
                     ("compare", *res, "--benchstat"), ("list", *res),
                     ("show", *res), ("show", *res, self.ids[0]),
                     ("compare", "--help"), ("--help",), ("--version",)):
            r = ctl_to_full(*args)
            self.assertEqual((r.returncode, r.stderr),
                             (4, "ctl: write error: stdout: "
                              "No space left on device\n"), args)
        # A command that failed already keeps its status.
        r = ctl_to_full("show", *res, "nosuchrun")
        self.assertEqual(r.returncode, 2, r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:])
