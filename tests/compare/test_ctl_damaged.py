#!/usr/bin/env python3
"""Black-box tests of `ctl show`, `ctl list` and `ctl compare` on damaged
archives (issue 11): three real `ctl run local --size 64` runs, copied per
test and then damaged: run.json garbage or deleted, a FIFO or a symbolic
link as a host file, records with out-of-range numbers or timed samples
that are no times, a median that is no time, and escape sequences in what
the archive says. Nothing here waits for anything: a
reader that blocked on a FIFO would fail by the subprocess timeout, not
pass by it. Environment: BF_CTL (ctl binary), BF_AGENT (the agent ctl run
local starts).
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

CTL = os.environ.get("BF_CTL", "ctl")
AGENT = os.environ.get("BF_AGENT")
ESC = "\x1b"


def ctl(*args):
    env = dict(os.environ)
    if AGENT:
        env["BENCHFLEET_AGENT"] = AGENT
    return subprocess.run([CTL, *args], capture_output=True, timeout=120,
                          env=env)


class DamagedArchiveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-ctl-damaged-")
        cls.pristine = os.path.join(cls.tmp, "pristine")
        cls.ids = []
        for _ in range(3):
            r = ctl("run", "local", "--bandwidth-mib", "8",
                    "--size", "64", "--iters", "2",
                    "--warmup", "1", "--no-tui", "--results", cls.pristine)
            if r.returncode not in (0, 1):
                raise AssertionError(f"ctl run failed: {r.returncode}\n"
                                     f"{r.stdout}\n{r.stderr}")
            m = re.search(rb"^run (\S+):", r.stdout, re.M)
            cls.ids.append(m.group(1).decode())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.results = tempfile.mkdtemp(dir=self.tmp)
        os.rmdir(self.results)
        shutil.copytree(self.pristine, self.results, symlinks=True)

    def path(self, i, name=""):
        return os.path.join(self.results, self.ids[i], name)

    def ctl_in(self, cmd, *args):
        return ctl(cmd, "--results", self.results, *args)

    def warning_lines(self, r):
        return [ln for ln in r.stderr.decode().splitlines() if ln]

    # --- run.json ------------------------------------------------------

    def check_damaged_newest(self, why):
        # show: the newest good run, one warning line naming the bad one.
        r = self.ctl_in("show")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.decode().startswith(f"run {self.ids[1]} "),
                        r.stdout)
        w = self.warning_lines(r)
        self.assertEqual(len(w), 1, w)
        self.assertIn(self.ids[2], w[0])
        self.assertIn("run.json unreadable", w[0])
        self.assertIn(why, w[0])
        # compare: the last two good runs, the same one warning line.
        r = self.ctl_in("compare", "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        w = self.warning_lines(r)
        self.assertEqual(len(w), 1, w)
        self.assertIn(self.ids[2], w[0])
        self.assertIn(self.ids[0].encode(), r.stdout)
        self.assertIn(self.ids[1].encode(), r.stdout)
        # compare HOST, history HOST, report HOST: the same, named once
        # (before: passed over in silence).
        for args in (("compare", "local", "--csv"), ("history", "local"),
                     ("report", "local", "-o",
                      os.path.join(self.results, "r.html"))):
            r = self.ctl_in(*args)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            w = self.warning_lines(r)
            w = [ln for ln in w if not ln.startswith("report: ")]
            self.assertEqual(len(w), 1, (args, w))
            self.assertEqual(w[0], f"ctl: {args[0]}: warning: skipped run "
                             f"{self.ids[2]}: run.json unreadable (" +
                             w[0].split("run.json unreadable (", 1)[1])
            self.assertIn(why, w[0])
        # list: every run, the damaged one saying so, with its host file.
        r = self.ctl_in("list")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.decode().splitlines()
        self.assertEqual([ln.split()[0] for ln in lines], self.ids)
        self.assertRegex(lines[2], r"\blocal\s+damaged: run\.json unreadable \(")
        for ln in lines[:2]:
            self.assertIn("complete", ln)
        # show ID: the damaged run itself, from its host file.
        r = self.ctl_in("show", self.ids[2])
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout.decode()
        self.assertRegex(out.splitlines()[0], rf"^run {self.ids[2]} .*DAMAGED")
        # GFLOP/s right after n (the plain table's column order)
        self.assertRegex(out, r"(?m)^local\s+cpu\s+fp32\s+64\s+[\d.]+(?:\?[\d,]*)?\s")

    def test_garbage_run_json(self):
        with open(self.path(2, "run.json"), "wb") as f:
            f.write(b"{\"run_id\": \x00\xff garbage")
        self.check_damaged_newest("not a JSON object")

    def test_run_json_without_hosts(self):
        with open(self.path(2, "run.json"), "w") as f:
            json.dump({"run_id": self.ids[2], "status": "complete"}, f)
        self.check_damaged_newest("missing")

    def test_deleted_run_json(self):
        os.unlink(self.path(2, "run.json"))
        self.check_damaged_newest("No such file")

    def test_fifo_run_json(self):
        os.unlink(self.path(2, "run.json"))
        os.mkfifo(self.path(2, "run.json"))
        self.check_damaged_newest("not a regular file")

    # --- host files ----------------------------------------------------

    def check_host_file_refused(self, why):
        for args in (("show",), ("show", self.ids[2])):
            r = self.ctl_in(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout.decode(),
                             rf"(?m)^local: records not read: .*00-local\.ndjson: {why}")
        r = self.ctl_in("compare", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        json.loads(r.stdout)
        r = self.ctl_in("list")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_fifo_host_file(self):
        os.unlink(self.path(2, "00-local.ndjson"))
        os.mkfifo(self.path(2, "00-local.ndjson"))
        self.check_host_file_refused("not a regular file")

    def test_symlink_host_file(self):
        # A link out of the run directory, to a file that would read fine.
        outside = os.path.join(self.tmp, "outside.ndjson")
        shutil.copy(self.path(1, "00-local.ndjson"), outside)
        os.unlink(self.path(2, "00-local.ndjson"))
        os.symlink(outside, self.path(2, "00-local.ndjson"))
        self.check_host_file_refused("a symbolic link")

    def test_directory_host_file(self):
        os.unlink(self.path(2, "00-local.ndjson"))
        os.mkdir(self.path(2, "00-local.ndjson"))
        self.check_host_file_refused("not a regular file")

    def test_out_of_range_numbers(self):
        path = self.path(2, "00-local.ndjson")
        with open(path) as f:
            recs = [json.loads(ln) for ln in f]
        lines = []
        for r in recs:
            line = json.dumps(r)
            if r["type"] == "gemm":
                line = line.replace('"n": 64', '"n": 1e300')
            elif r["type"] == "plan":
                line = re.sub(r'"gemm_total": \d+', '"gemm_total": 1e300', line)
            lines.append(line)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        r = self.ctl_in("show", self.ids[2])
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout.decode()
        self.assertNotIn("2147483648", out)
        # No GEMM row (the batching lines under the table are no GEMM).
        self.assertNotRegex(out.split("\nbatching (")[0],
                            r"(?m)^local\s+cpu\s+fp32\s")
        nbad = sum(1 for r in recs if r["type"] in ("gemm", "plan"))
        self.assertIn(f"local: {nbad} unreadable lines skipped", out)

    def test_unreadable_line_is_named_by_every_reader(self):
        # A garbage line in the newest run's host file: compare, history
        # and report name it on stderr once, as show does on stdout.
        path = self.path(2, "00-local.ndjson")
        with open(path) as f:
            lines = f.read().splitlines(True)
        lines.insert(3, '{"type": "gemm", garbage\n')
        with open(path, "w") as f:
            f.writelines(lines)
        want = (f"warning: run {self.ids[2]}: local: 1 unreadable line "
                "skipped")
        for args in (("compare", "--csv"), ("compare", "local", "--csv"),
                     ("history", "local"),
                     ("report", "local", "-o",
                      os.path.join(self.results, "r.html"))):
            r = self.ctl_in(*args)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            w = [ln for ln in self.warning_lines(r)
                 if not ln.startswith("report: ")]
            self.assertEqual(w, [f"ctl: {args[0]}: {want}"], args)
        r = self.ctl_in("show")
        self.assertIn("local: 1 unreadable line skipped", r.stdout.decode())

    def edit_gemm(self, i, **fields):
        """Run i's first gemm record with fields set; the records' count."""
        path = self.path(i, "00-local.ndjson")
        with open(path) as f:
            recs = [json.loads(ln) for ln in f]
        g = next(r for r in recs if r["type"] == "gemm" and
                 r["status"] == "pass")
        g.update(fields)
        with open(path, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in recs))
        return g

    def test_samples_that_are_no_times(self):
        # A median of 0 ms from them: GFLOP/s of 5e-309 and inf ms once.
        g = self.edit_gemm(2, samples_ms=[1e308, 1e308, -1e308, 0, 0])
        for args in (("show",), ("show", self.ids[2])):
            r = self.ctl_in(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            out = r.stdout.decode()
            # Malformed, as any bad record: no row, counted.
            self.assertNotRegex(out.split("\nbatching (")[0],
                                r"(?m)^local\s+%s\s+%s\s+%d\s" %
                                (g["device"], g["dtype"], g["n"]))
            self.assertIn("local: 1 unreadable line skipped", out)
        for fmt in ((), ("--csv",), ("--json",), ("--samples",)):
            r = self.ctl_in("compare", self.ids[1], self.ids[2], *fmt)
            self.assertEqual(r.returncode, 0, r.stderr)
            out = r.stdout.decode()
            self.assertNotIn("e-309", out, fmt)
            self.assertNotIn("e+308", out, fmt)
            self.assertNotRegex(out, r"(?i)\binf\b", fmt)
        rows = list(csv.DictReader(io.StringIO(self.ctl_in(
            "compare", self.ids[1], self.ids[2], "--samples").stdout.decode())))
        self.assertTrue(rows)
        # The edited row's samples are left out (column B has none of
        # its dtype); other dtypes that pass in both runs (bf16 through
        # oneDNN where it is installed) keep both columns.
        mine = [x for x in rows if x["dtype"] == g["dtype"] and
                int(x["n"]) == g["n"] and x["device"] == g["device"]]
        self.assertTrue(mine)
        self.assertEqual({x["column"] for x in mine}, {"A"})

    def test_median_that_is_no_time(self):
        # docs/schema.json: a median_ms given is above 0. Malformed, as
        # samples that are no times: no row, counted.
        g = self.edit_gemm(2, median_ms=-1)
        r = self.ctl_in("show", self.ids[2])
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout.decode()
        self.assertNotRegex(out.split("\nbatching (")[0],
                            r"(?m)^local\s+%s\s+%s\s+%d\s" %
                            (g["device"], g["dtype"], g["n"]))
        self.assertIn("local: 1 unreadable line skipped", out)
        self.assertNotIn("nan", out)

    # --- escape sequences ------------------------------------------------

    def test_escape_sequences_never_reach_output(self):
        evil = ESC + "[2J" + ESC + "]0;owned" + "\x07" + "\x9b31m"
        d = self.path(2)
        with open(os.path.join(d, "run.json")) as f:
            doc = json.load(f)
        doc["tag"] = "tag" + evil
        doc["reason"] = "reason" + evil
        doc["status"] = "incomplete"
        doc["command_line"] = ["run", "local" + evil]
        doc["hosts"][0]["name"] = "local" + evil
        doc["hosts"][0]["reason"] = "host reason" + evil
        doc["hosts"][0]["status"] = "failed"
        doc["hosts"][0]["hostname"] = "vm" + evil
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump(doc, f)
        path = os.path.join(d, "00-local.ndjson")
        with open(path) as f:
            recs = [json.loads(ln) for ln in f]
        for r in recs:
            if r["type"] == "host":
                r["hostname"] = "vm" + evil
                r["os"] = "os" + evil
                r["openblas"]["version"] = "0.3" + evil
            if r["type"] in ("gemm", "check"):
                r["device"] = r["device"] + evil if r["status"] == "skipped" else r["device"]
                if r.get("reason") is not None or r["status"] != "pass":
                    r["reason"] = "why" + evil
            if r["type"] == "gemm" and r["status"] == "pass":
                r["library"] = "OpenBLAS" + evil
        with open(path, "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
        # A lone host file whose name carries one as well.
        lone = os.path.join(self.tmp, "00-x" + ESC + "[31m.ndjson")
        shutil.copy(path, lone)
        runs = [("show", self.ids[2]), ("show", lone), ("list",),
                ("compare", self.ids[0], self.ids[2]),
                ("compare", self.ids[0], self.ids[2], "--csv"),
                ("compare", self.ids[0], self.ids[2], "--json"),
                ("compare", self.ids[2], lone, "--csv"),
                ("compare",)]
        for args in runs:
            r = self.ctl_in(*args)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            for stream in (r.stdout, r.stderr):
                self.assertNotIn(b"\x1b", stream, args)
                self.assertNotIn(b"\x07", stream, args)
                self.assertNotIn("\x9b".encode(), stream, args)
        # What is left of them is still there, made harmless.
        out = self.ctl_in("list").stdout.decode()
        self.assertIn("tag?[2J?]0;owned??31m", out)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:])
