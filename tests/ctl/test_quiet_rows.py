#!/usr/bin/env python3
"""Nothing shown that says nothing (issue 30): in ctl show (and ctl run's
final output, the same table), rows skipped on every host for one reason
are one note line above the table, and a host without a GPU has no cuda
rows; the archive keeps every record unchanged.

Archives made from one real `ctl run local` (its run.json and records),
edited:

- run "alone": host local, its CPU fp16 row skipped for one reason, and
  cuda:0 fp32/fp16 GEMM rows and a cuda:0 batching row skipped with no
  driver: neither the cpu fp16 row nor any cuda:0 row is in the table;
  one note line each says why; the records file is byte for byte as
  before.
- run "two": local as above plus host hb2, whose CPU fp16 was measured
  and whose cuda:0 fp32 was measured (its fp16 skipped): local's cpu fp16
  row stays (not skipped everywhere), local's cuda:0 rows go (nothing
  measured on that device of that host), hb2's cuda:0 rows stay.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]
NODRV = "no NVIDIA driver installed (cudaErrorInsufficientDriver)"
NOFP16 = "fp16: this BLAS has no fp16 GEMM"


class QuietRows(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-quiet-")
        cls.real = os.path.join(cls.tmp, "real")
        cls.results = os.path.join(cls.tmp, "results")
        cls.env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8",
                       XDG_CONFIG_HOME=os.path.join(cls.tmp, "xdg"),
                       BENCHFLEET_HOSTS_DIR=os.path.join(cls.tmp, "hosts"))
        os.makedirs(cls.env["BENCHFLEET_HOSTS_DIR"])
        r = subprocess.run(
            [CTL, "run", "local", "--size", "64", "--device", "cpu",
             "--dtypes", "fp32", "--no-bandwidth", "--no-tui",
             "--results", cls.real], capture_output=True, text=True,
            timeout=300, env=cls.env)
        if r.returncode != 0:
            raise RuntimeError("ctl run: %s" % r.stderr)
        cls.src = os.path.join(cls.real, os.listdir(cls.real)[0])
        with open(os.path.join(cls.src, "run.json")) as f:
            cls.meta = json.load(f)
        with open(os.path.join(cls.src,
                               cls.meta["hosts"][0]["records_file"])) as f:
            cls.recs = [json.loads(x) for x in f if x.strip()]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def host_records(self, fp16_measured, cuda_measured):
        """The real records with cpu fp16 and cuda:0 rows added."""
        out, seq = [], 0
        gemm = [r for r in self.recs if r["type"] == "gemm"][0]
        batch = [r for r in self.recs if r["type"] == "batching"]

        def skipped(device, dtype, why):
            return {"schema": 1, "type": "gemm", "device": device,
                    "dtype": dtype, "n": 64, "status": "skipped",
                    "reason": why, "median_ms": None, "gflops": None}

        for r in self.recs:
            if r["type"] == "host":
                r = json.loads(json.dumps(r))
                r["gpus"] = []
            if r["type"] == "summary":
                if fp16_measured:
                    g = json.loads(json.dumps(gemm))
                    g["dtype"] = "fp16"
                    out.append(g)
                else:
                    out.append(skipped("cpu", "fp16", NOFP16))
                if cuda_measured:
                    g = json.loads(json.dumps(gemm))
                    g["device"] = "cuda:0"
                    for key in ("fraction_of_peak", "peak_gflops",
                                "peak_bound_gflops"):
                        g.pop(key, None)
                    out.append(g)
                    out.append(skipped("cuda:0", "fp16", "no fp16 here"))
                else:
                    out.append(skipped("cuda:0", "fp32", NODRV))
                    out.append(skipped("cuda:0", "fp16", NODRV))
                    if batch:
                        b = json.loads(json.dumps(batch[0]))
                        b.update(device="cuda:0", dtype="fp16",
                                 status="skipped", reason=NODRV)
                        for key in ("single_ms", "batch_ms", "speedup"):
                            b[key] = None
                        out.append(b)
            out.append(r)
        for r in out:
            r["seq"] = seq
            seq += 1
        return out

    def make_run(self, rid, hosts):
        """Run rid with hosts [(name, records)]."""
        d = os.path.join(self.results, rid)
        os.makedirs(d)
        meta = json.loads(json.dumps(self.meta))
        meta["run_id"] = rid
        entry = meta["hosts"][0]
        meta["hosts"] = []
        for i, (name, recs) in enumerate(hosts):
            e = dict(entry, name=name, target=name,
                     records_file="%02d-%s.ndjson" % (i, name),
                     log_file="%02d-%s.log" % (i, name))
            meta["hosts"].append(e)
            with open(os.path.join(d, e["records_file"]), "w") as f:
                for r in recs:
                    f.write(json.dumps(r) + "\n")
            open(os.path.join(d, e["log_file"]), "w").close()
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump(meta, f)
        return d

    def show(self, rid):
        r = subprocess.run([CTL, "show", rid, "--results", self.results],
                           capture_output=True, text=True, timeout=300,
                           env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_alone(self):
        rid = "20990101T000000Z-a1a1"
        d = self.make_run(rid, [("local", self.host_records(False, False))])
        with open(os.path.join(d, "00-local.ndjson"), "rb") as f:
            before = f.read()
        out = self.show(rid)
        table = out[out.index("\nhost "):]
        self.assertRegex(table, r"(?m)^local\s+cpu\s+fp32\s+64\s")
        self.assertNotRegex(table, r"(?m)^local\s+cpu\s+fp16\s")
        self.assertNotIn("cuda", table)
        self.assertNotIn(NODRV, table)
        self.assertNotIn(NOFP16, table)
        head = out[:out.index("\nhost ")].splitlines()
        self.assertEqual(head.count("cpu fp16: %s on local" % NOFP16), 1,
                         out)
        self.assertEqual(head.count("cuda: %s on local" % NODRV), 1, out)
        # The archive keeps every record.
        with open(os.path.join(d, "00-local.ndjson"), "rb") as f:
            self.assertEqual(f.read(), before)
        kept = [json.loads(x) for x in before.decode().splitlines()]
        self.assertEqual(sorted((r["type"], r["device"], r["dtype"])
                                for r in kept if r.get("reason") == NODRV),
                         [("batching", "cuda:0", "fp16"),
                          ("gemm", "cuda:0", "fp16"),
                          ("gemm", "cuda:0", "fp32")])

    def test_two_hosts(self):
        rid = "20990101T000100Z-b2b2"
        self.make_run(rid, [("local", self.host_records(False, False)),
                            ("hb2", self.host_records(True, True))])
        out = self.show(rid)
        table = out[out.index("\nhost "):out.index("\nside by side")
                    if "\nside by side" in out else len(out)]
        # Skipped on one host only: the row stays, naming its note.
        self.assertRegex(table, r"(?m)^local\s+cpu\s+fp16\s+64\s.*skipped "
                         r"\[\d\]$")
        self.assertRegex(table, r"(?m)^hb2\s+cpu\s+fp16\s+64\s")
        # local has no GPU: no cuda row of local; hb2's stay.
        self.assertNotRegex(out, r"(?m)^local\s+cuda")
        self.assertRegex(table, r"(?m)^hb2\s+cuda:0\s+fp32\s+64\s")
        self.assertRegex(table, r"(?m)^hb2\s+cuda:0\s+fp16\s+64\s.*skipped")
        head = out[:out.index("\nhost ")]
        self.assertRegex(head, r"(?m)^cuda fp32, fp16: %s on local$"
                         % re.escape(NODRV))


if __name__ == "__main__":
    unittest.main()
