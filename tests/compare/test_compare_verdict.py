#!/usr/bin/env python3
"""The verdict in ctl compare --json and --csv (issue 30): every cell
carries its row's verdict in its own run (docs/verdict.md).

Two runs made from one real `ctl run local` (its run.json and records)
whose host gets 4 H100s: the real CPU GEMM record repeated on cuda:0..3,
plus an fp16 row per GPU skipped. In run A the four are about equal; in
run B cuda:3 takes twice as long (its times doubled, so the record stays
consistent). Checked: B's cuda:3 cell is `slow` at 0.50 of its 3 peers'
median (the other three GPUs of B), A's is `ok`, skipped cells have no
verdict (null, n/a), the CSV's verdict columns say the same, and a bad
reference file in the inventory is a one-line error with --json.
"""

import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]


class CompareVerdict(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-compare-verdict-")
        cls.real = os.path.join(cls.tmp, "real")
        cls.results = os.path.join(cls.tmp, "results")
        cls.hosts = os.path.join(cls.tmp, "hosts")
        os.makedirs(cls.hosts)
        cls.env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8",
                       XDG_CONFIG_HOME=os.path.join(cls.tmp, "xdg"))
        r = subprocess.run(
            [CTL, "run", "local", "--size", "64", "--device", "cpu",
             "--dtypes", "fp32", "--no-bandwidth", "--no-batching",
             "--no-tui", "--results", cls.real, "--hosts-dir", cls.hosts],
            capture_output=True, text=True, timeout=300, env=cls.env)
        if r.returncode != 0:
            raise RuntimeError("ctl run: %s" % r.stderr)
        src = os.path.join(cls.real, os.listdir(cls.real)[0])
        cls.ids = ["20990101T000000Z-aaaa", "20990101T000100Z-bbbb"]
        cls.gflops = {}
        for rid, slow in zip(cls.ids, (1.0, 2.0)):
            cls.gflops[rid] = cls.make_run(src, rid, slow)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def make_run(cls, src, rid, slow, names=None, results=None):
        """A copy of src as run rid with 4 GPUs (named names[k], else
        H100s), cuda:3's times x slow. Returns each GPU's GFLOP/s."""
        dst = os.path.join(results or cls.results, rid)
        shutil.copytree(src, dst)
        with open(os.path.join(dst, "run.json")) as f:
            meta = json.load(f)
        meta["run_id"] = rid
        with open(os.path.join(dst, "run.json"), "w") as f:
            json.dump(meta, f)
        path = os.path.join(dst, meta["hosts"][0]["records_file"])
        with open(path) as f:
            recs = [json.loads(x) for x in f if x.strip()]
        out, seq, gf = [], 0, {}
        for r in recs:
            if r["type"] == "host":
                r["gpus"] = [{"index": k,
                              "name": names[k] if names else
                              "NVIDIA H100 80GB HBM3",
                              "memory_bytes": 85520809984}
                             for k in range(4)]
            if r["type"] != "gemm":
                r["seq"] = seq
                seq += 1
                out.append(r)
                continue
            for k in range(4):
                g = json.loads(json.dumps(r))
                g["device"] = "cuda:%d" % k
                g["reliable"] = True
                g["unreliable_reasons"] = []
                f = slow if k == 3 else 1.0 + 0.01 * k
                g["samples_ms"] = [x * f for x in g["samples_ms"]]
                for key in ("median_ms", "min_ms", "max_ms"):
                    g[key] *= f
                g["gflops"] = 2 * g["n"] ** 3 / g["median_ms"] / 1e6
                gf["cuda:%d" % k] = g["gflops"]
                for key in ("fraction_of_peak", "peak_gflops",
                            "peak_bound_gflops", "fraction_of_roofline",
                            "roofline_gflops"):
                    g.pop(key, None)
                g["seq"] = seq
                seq += 1
                out.append(g)
                out.append({"schema": 1, "type": "gemm", "seq": seq,
                            "device": "cuda:%d" % k, "dtype": "fp16",
                            "n": g["n"], "status": "skipped",
                            "reason": "no fp16 here", "median_ms": None,
                            "gflops": None})
                seq += 1
        with open(path, "w") as f:
            for r in out:
                f.write(json.dumps(r) + "\n")
        return gf

    def compare(self, *args):
        return subprocess.run(
            [CTL, "compare", *self.ids, "--results", self.results,
             "--hosts-dir", self.hosts, *args],
            capture_output=True, text=True, timeout=300, env=self.env)

    def test_json(self):
        r = self.compare("--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        rows = {(x["device"], x["dtype"]): x for x in doc["rows"]}
        a, b = rows[("cuda:3", "fp32")]["cells"]
        self.assertEqual(a["verdict"]["kind"], "ok")
        self.assertEqual(b["verdict"]["kind"], "slow")
        self.assertIs(b["verdict"]["uncertain"], False)
        self.assertEqual(b["verdict"]["peers"], 3)
        gf = self.gflops[self.ids[1]]
        med = statistics.median(gf["cuda:%d" % k] for k in range(3))
        self.assertAlmostEqual(b["verdict"]["peer_median_gflops"], med,
                               delta=med * 1e-9)
        self.assertAlmostEqual(b["verdict"]["peer_ratio"],
                               gf["cuda:3"] / med, places=9)
        self.assertIn("of its 3 peers", b["verdict"]["reasons"])
        self.assertIn("local cuda:0, local cuda:1, local cuda:2",
                      b["verdict"]["reasons"])
        # No reference for this product at n=64: said missing, null.
        self.assertIsNone(b["verdict"]["reference_low_gflops"])
        self.assertIn("no published reference", b["verdict"]["missing"])
        for k in range(3):
            for cell in rows[("cuda:%d" % k, "fp32")]["cells"]:
                self.assertEqual(cell["verdict"]["kind"], "ok")
            for cell in rows[("cuda:%d" % k, "fp16")]["cells"]:
                self.assertEqual(cell["status"], "skipped")
                self.assertIsNone(cell["verdict"])

    def test_csv(self):
        r = self.compare("--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.splitlines()[0].endswith(
            ",below_reference,verdict,verdict_reasons,verdict_missing"))
        rows = {(x["device"], x["dtype"], x["column"]): x
                for x in csv.DictReader(io.StringIO(r.stdout))}
        self.assertEqual(rows[("cuda:3", "fp32", "A")]["verdict"], "ok")
        b = rows[("cuda:3", "fp32", "B")]
        self.assertEqual(b["verdict"], "slow")
        self.assertRegex(b["verdict_reasons"], r"^0\.(49|50|51) of its 3 "
                         r"peers \(median ")
        self.assertIn("no published reference", b["verdict_missing"])
        for col in "AB":
            x = rows[("cuda:0", "fp16", col)]
            self.assertEqual((x["verdict"], x["verdict_reasons"],
                              x["verdict_missing"]), ("n/a", "n/a", "n/a"))

    def test_long_names_are_whole_keys(self):
        # Issue 28: the peer key (product and memory) is never cut. Two
        # products whose 250-byte names differ only at the end are not
        # peers: cuda:3 (the other product, slow) has none, not three
        # as when the key was cut at 191 bytes, and each of the others
        # has two.
        long = [("X" * 249) + c for c in "AAAB"]
        res = os.path.join(self.tmp, "results-long")
        src = os.path.join(self.real, os.listdir(self.real)[0])
        ids = ["20990101T000200Z-cccc", "20990101T000300Z-dddd"]
        for rid, slow in zip(ids, (1.0, 2.0)):
            self.make_run(src, rid, slow, names=long, results=res)
        r = subprocess.run(
            [CTL, "compare", *ids, "--results", res, "--hosts-dir",
             self.hosts, "--json"],
            capture_output=True, text=True, timeout=300, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {(x["device"], x["dtype"]): x
                for x in json.loads(r.stdout)["rows"]}
        self.assertEqual(rows[("cuda:3", "fp32")]["cells"][1]["verdict"]
                         ["peers"], 0)
        self.assertEqual(rows[("cuda:0", "fp32")]["cells"][0]["verdict"]
                         ["peers"], 2)

    def test_bad_reference_file(self):
        d = os.path.join(self.hosts, "references")
        os.makedirs(d)
        bad = os.path.join(d, "bad.json")
        try:
            with open(bad, "w") as f:
                f.write("{")
            r = self.compare("--json")
            self.assertEqual(r.returncode, 2)
            self.assertEqual(r.stdout, "")
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertTrue(r.stderr.startswith("ctl: compare: %s: " % bad),
                            r.stderr)
            # The text table does not use the verdict: still printed.
            self.assertEqual(self.compare().returncode, 0)
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
