#!/usr/bin/env python3
"""ctl reference and the verdict in ctl show (issue 30): a team reference made from a real run by
`ctl reference add RUN-ID HOST` is read back by `ctl reference list` as
that product's range (lowest to highest per-iteration TFLOP/s, the run
as its source); the shipped file's published rows are listed with their
sources; a file in the XDG folder replaces the inventory's rows for its
key; a bad file is a one-line error; add refuses to overwrite without
--force and a host that is not in the run. ctl show of a run edited
into four same-product GPUs, one at half speed, leads with the verdict
(SLOW naming its peers and their median, ok for the others, one note for
the skipped rows) and exits 7 with --fail-on slow.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]


class Reference(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-reference-")
        cls.results = os.path.join(cls.tmp, "results")
        cls.hosts = os.path.join(cls.tmp, "hosts")
        cls.xdg = os.path.join(cls.tmp, "xdg")
        os.makedirs(cls.hosts)
        cls.env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8",
                       BENCHFLEET_RESULTS_DIR=cls.results,
                       BENCHFLEET_HOSTS_DIR=cls.hosts,
                       XDG_CONFIG_HOME=cls.xdg)
        r = cls.ctl("run", "local", "--size", "64", "--device", "cpu",
                    "--dtypes", "fp32", "--no-bandwidth", "--no-batching",
                    "--no-tui")
        if r.returncode != 0:
            raise RuntimeError("ctl run: %s" % r.stderr)
        cls.run_id = os.listdir(cls.results)[0]
        with open(os.path.join(cls.results, cls.run_id, "run.json")) as f:
            meta = json.load(f)
        name = meta["hosts"][0]["records_file"]
        with open(os.path.join(cls.results, cls.run_id, name)) as f:
            recs = [json.loads(x) for x in f if x.strip()]
        cls.cpu = [x for x in recs if x["type"] == "host"][0]["cpu_model"]
        cls.gemm = [x for x in recs if x["type"] == "gemm"][0]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def ctl(cls, *args):
        return subprocess.run([CTL, *args], capture_output=True, text=True,
                              timeout=300, env=cls.env)

    def test_1_add_and_read_back(self):
        # A loaded machine may mark the row unreliable (its spread):
        # --unreliable takes it either way.
        r = self.ctl("reference", "add", self.run_id, "local",
                     "--unreliable")
        self.assertEqual(r.returncode, 0, r.stderr)
        path = os.path.join(self.hosts, "references",
                            "run-%s.json" % self.run_id)
        self.assertEqual(r.stdout.strip(),
                         "wrote %s: 1 reference from run %s"
                         % (path, self.run_id))
        with open(path) as f:
            doc = json.load(f)
        src = "run:" + self.run_id
        self.assertEqual(doc["schema"], "benchfleet-references/1")
        self.assertEqual(doc["sources"][src]["hosts"], ["local"])
        self.assertIn("benchfleet agent", doc["sources"][src]["tool"])
        [row] = doc["references"]
        self.assertEqual((row["product"], row["dtype"], row["n"],
                          row["source"]), (self.cpu, "fp32", 64, src))
        # The range is the samples' lowest and highest TFLOP/s; the figure
        # the record's median.
        tf = [2 * 64 ** 3 / (ms * 1e-3) / 1e12
              for ms in self.gemm["samples_ms"]]
        lo, hi = row["samples"]
        self.assertAlmostEqual(lo, min(tf), delta=min(tf) * 1e-9)
        self.assertAlmostEqual(hi, max(tf), delta=max(tf) * 1e-9)
        self.assertAlmostEqual(row["tflops"], self.gemm["gflops"] / 1000,
                               delta=row["tflops"] * 1e-9)
        # Read back by ctl as a team reference.
        r = self.ctl("reference", "list", self.cpu)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(
            "%s fp32 n=64: %.4g-%.4g TFLOP/s, team reference %s (1 source: "
            "one source only)\n" % (self.cpu, lo, hi, self.run_id)),
            r.stdout)
        self.assertIn("  %s: %.4g-%.4g TFLOP/s" % (src, lo, hi), r.stdout)
        # Not twice without --force; --force replaces it.
        r = self.ctl("reference", "add", self.run_id, "--unreliable")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.strip(), "ctl: reference: %s: exists "
                         "(--force replaces it)" % path)
        r = self.ctl("reference", "add", self.run_id, "--force",
                     "--unreliable")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_2_xdg_replaces_and_bad_file(self):
        d = os.path.join(self.xdg, "benchfleet", "references")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "mine.json"), "w") as f:
            json.dump({"schema": "benchfleet-references/1",
                       "sources": {"lab": {"tool": "my bench"}},
                       "references": [{"product": self.cpu, "dtype": "fp32",
                                       "n": 64, "tflops": 0.5,
                                       "source": "lab"}]}, f)
        try:
            r = self.ctl("reference", "list", self.cpu)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("%s fp32 n=64: 0.5-0.5 TFLOP/s, published" %
                          self.cpu, r.stdout)
            self.assertNotIn("team reference", r.stdout)
            bad = os.path.join(d, "zz.json")
            with open(bad, "w") as f:
                f.write('{"schema": "benchfleet-references/1", '
                        '"thresholds": [{"peer_fraction": 2}]}')
            r = self.ctl("reference", "list")
            self.assertEqual(r.returncode, 2)
            self.assertEqual(r.stderr.strip(), "ctl: reference: %s: "
                             "thresholds[0]: a fraction is not in (0, 1]"
                             % bad)
        finally:
            shutil.rmtree(d)

    def test_3_published(self):
        r = self.ctl("reference", "list", "B200")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("NVIDIA B200 bf16 n=4096: 1410-1410 TFLOP/s, published "
                      "B200 results (1 source: one source only)", r.stdout)
        self.assertIn("https://github.com/pytorch/ao/issues/2427", r.stdout)
        r = self.ctl("reference", "list", "H200")
        self.assertIn("NVIDIA H200 bf16 best over sizes: 790 TFLOP/s "
                      "(listed, never compared", r.stdout)

    def test_5_schema(self):
        """The shipped file and a file ctl reference add writes are valid
        by docs/references.schema.json (python3-jsonschema)."""
        import jsonschema
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..")
        with open(os.path.join(root, "docs", "references.schema.json")) as f:
            schema = json.load(f)
        with open(os.path.join(root, "data", "references.json")) as f:
            jsonschema.validate(json.load(f), schema)
        to = os.path.join(self.tmp, "to")
        os.makedirs(to)
        r = self.ctl("reference", "add", self.run_id, "--to", to,
                     "--unreliable")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(to, "run-%s.json" % self.run_id)) as f:
            jsonschema.validate(json.load(f), schema)
        bad = {"schema": "benchfleet-references/1",
               "references": [{"product": "x", "dtype": "fp32", "n": 0,
                               "tflops": 1, "source": "s"}]}
        with self.assertRaises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)

    def test_6_show_verdict(self):
        """A copy of the real run whose host has 4 H100s: the real gemm
        record repeated on cuda:0..3 (cuda:3 twice as slow, its times
        doubled so the record stays consistent), plus an fp16 row per GPU
        skipped for one reason."""
        src = os.path.join(self.results, self.run_id)
        res = os.path.join(self.tmp, "fleet")
        rid = self.run_id[:-4] + "ffff"
        dst = os.path.join(res, rid)
        shutil.copytree(src, dst)
        with open(os.path.join(dst, "run.json")) as f:
            meta = json.load(f)
        meta["run_id"] = rid
        with open(os.path.join(dst, "run.json"), "w") as f:
            json.dump(meta, f)
        path = os.path.join(dst, meta["hosts"][0]["records_file"])
        with open(path) as f:
            recs = [json.loads(x) for x in f if x.strip()]
        out = []
        seq = 0
        for r in recs:
            if r["type"] == "host":
                r["gpus"] = [{"index": k, "name": "NVIDIA H100 80GB HBM3",
                              "memory_bytes": 85520809984}
                             for k in range(4)]
            if r["type"] == "gemm":
                for k in range(4):
                    g = json.loads(json.dumps(r))
                    g["device"] = "cuda:%d" % k
                    g["reliable"] = True
                    g["unreliable_reasons"] = []
                    f = 2.0 if k == 3 else 1.0 + 0.01 * k
                    g["samples_ms"] = [x * f for x in g["samples_ms"]]
                    for key in ("median_ms", "min_ms", "max_ms"):
                        g[key] *= f
                    g["gflops"] = 2 * g["n"] ** 3 / g["median_ms"] / 1e6
                    for key in ("fraction_of_peak", "peak_gflops",
                                "peak_bound_gflops", "fraction_of_roofline",
                                "roofline_gflops"):
                        g.pop(key, None)
                    g["seq"] = seq
                    seq += 1
                    out.append(g)
                    sk = {"schema": 1, "type": "gemm", "seq": seq,
                          "device": "cuda:%d" % k, "dtype": "fp16",
                          "n": g["n"], "status": "skipped",
                          "reason": "no fp16 here", "median_ms": None,
                          "gflops": None}
                    seq += 1
                    out.append(sk)
                continue
            r["seq"] = seq
            seq += 1
            out.append(r)
        with open(path, "w") as f:
            for r in out:
                f.write(json.dumps(r) + "\n")
        r = self.ctl("show", rid, "--results", res)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith("run " + rid), lines[0])
        self.assertNotIn("unreadable", r.stdout)
        by = {ln.split(":")[0] + ":" + ln.split(":")[1].split()[0]: ln
              for ln in lines[1:5]}
        slow = by["local cuda:3"]
        self.assertIn("local cuda:3 SLOW: fp32 n=64 ", slow)
        self.assertRegex(slow, r"0\.5[01] of its 3 peers \(median [0-9.]+ "
                         r"GFLOP/s; below 0\.90\): local cuda:0, local "
                         r"cuda:1, local cuda:2")
        for k in range(3):
            self.assertRegex(by["local cuda:%d" % k],
                             r"^local cuda:%d ok: fp32 n=64 .* of its 3 "
                             r"peers" % k)
        self.assertIn("cuda fp16: no fp16 here on local", lines[5])
        self.assertEqual(lines[6], "verdict: 4 devices: 3 ok, 1 slow")
        r = self.ctl("show", rid, "--results", res, "--fail-on", "slow")
        self.assertEqual(r.returncode, 7)
        self.assertEqual(r.stderr.strip(),
                         "ctl: show: 1 device slow (--fail-on slow)")
        r = self.ctl("show", rid, "--results", res, "--fail-on", "fast")
        self.assertEqual(r.returncode, 2)

    def test_4_errors(self):
        r = self.ctl("reference", "add", self.run_id, "nosuchhost")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no host 'nosuchhost'", r.stderr)
        r = self.ctl("reference", "frob")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.count("\n"), 1)


if __name__ == "__main__":
    unittest.main()
