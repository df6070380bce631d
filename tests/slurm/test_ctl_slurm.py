#!/usr/bin/env python3
"""ctl run on a Slurm cluster, against a real one-node Slurm on loopback.

One cluster ("tiny", login host local) is run for real once: deploy, build
on the compute node, per-node archive named after SLURMD_NODENAME, job id
in run.json; a second run reuses the build. The fault cases run copies of
that deploy whose agent is replaced by a script: one that fails (the node
is failed, the run incomplete, exit 3) and one that blocks until ctl gets
SIGINT (exit 130, the job scancelled, nothing left in the queue). No test
waits on a clock: each waits for a file or a process to appear, with
generous deadlines only as a guard.
"""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import keeplogs  # noqa: E402
from slurmcluster import SlurmCluster, missing  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurmcases import (ARGS, FaultCases, finish,  # noqa: E402
                        run_json)

CTL = os.environ.get("BF_CTL")
CLUSTER = None
TMP = None


def write_inventory(name, workdir, nodes=1):
    d = os.path.join(TMP, "hosts-" + name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "cluster.json"), "w") as f:
        json.dump({"groups": {name: {
            "kind": "slurm", "login": "local", "partition": "debug",
            "nodes": nodes, "time": "00:20:00", "workdir": workdir}}}, f)
    return d


def ctl(args, hosts_dir, results, **kw):
    env = CLUSTER.env()
    env["HOME"] = os.path.join(TMP, "home")
    return subprocess.Popen([CTL, "run"] + args + ["--hosts-dir", hosts_dir,
                                                    "--results", results],
                            cwd=TMP, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, **kw)


class SlurmRun(FaultCases, unittest.TestCase):
    # FaultCases' hooks: a local login host, ctl with SLURM_CONF.
    def cluster(self):
        return CLUSTER

    def tmp(self):
        return TMP

    def run_ctl(self, args, hosts_dir, results):
        return ctl(args, hosts_dir, results)

    def inventory(self, name, workdir):
        return write_inventory(name, workdir)

    def deployed_workdir(self):
        return os.path.join(TMP, "work")

    @classmethod
    def setUpClass(cls):
        cls.hosts = write_inventory("tiny", os.path.join(TMP, "work"))
        cls.res1 = os.path.join(TMP, "res-first")
        cls.rc, cls.out = finish(ctl(["tiny"] + ARGS, cls.hosts, cls.res1))

    def test_1_per_node_archive(self):
        self.assertEqual(self.rc, 0, self.out)
        d, meta = run_json(self.res1)
        self.assertEqual(meta["status"], "complete")
        self.assertEqual(len(meta["hosts"]), 1)
        h = meta["hosts"][0]
        self.assertEqual(h["name"], "bfnode1")          # SLURMD_NODENAME
        self.assertEqual(h["target"], "slurm:tiny")
        self.assertEqual(h["status"], "done")
        self.assertTrue(h["slurm_job_id"].isdigit(), h)
        self.assertEqual(h["records_file"], "00-bfnode1.ndjson")
        with open(os.path.join(d, h["records_file"])) as f:
            recs = [json.loads(line) for line in f]
        self.assertEqual(recs[-1]["type"], "summary")
        self.assertEqual(h["records"], len(recs))
        # The host record is longer than srun's 1 KiB chunks: joined whole.
        with open(os.path.join(d, h["records_file"])) as f:
            self.assertGreater(max(len(line) for line in f), 1024)
        self.assertFalse(glob.glob(os.path.join(d, "*tiny*")))
        self.assertIn("[bfnode1] done", self.out)

    def test_2_second_run_reuses_the_build(self):
        res = os.path.join(TMP, "res-second")
        rc, out = finish(ctl(["tiny"] + ARGS, self.hosts, res))
        self.assertEqual(rc, 0, out)
        d, meta = run_json(res)
        with open(os.path.join(d, meta["hosts"][0]["log_file"])) as f:
            log = f.read()
        self.assertNotIn("@building", log)


def main():
    global CLUSTER, TMP
    why = missing()
    if why or not CTL:
        print("skipped: slurm not available: %s" % (why or "BF_CTL unset"))
        return 77
    TMP = tempfile.mkdtemp(prefix="bf-slurm-test-")
    os.makedirs(os.path.join(TMP, "home"))
    ok = False
    try:
        with SlurmCluster(root=os.path.join(TMP, "cluster")) as c:
            CLUSTER = c
            prog = unittest.main(exit=False, verbosity=2)
            ok = prog.result.wasSuccessful()
    finally:
        keeplogs.finish(TMP, ok, "slurm.ctl_run")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
