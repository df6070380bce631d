#!/usr/bin/env python3
"""ctl run on a Slurm cluster whose login host is an SSH alias.

The same real one-node Slurm on loopback as test_ctl_slurm.py, reached
through a loopback sshd (tests/lib/sshhosts.py, alias "bflogin1") whose
sessions get SLURM_CONF in their environment, so srun and scancel run
there against the test cluster. ctl itself runs without SLURM_CONF: every
Slurm command goes over SSH. Covered: the deploy over SFTP into the login
host's ~ (the default workdir), the build and the run with srun there, the
per-node archive with the job id; a failing task; Ctrl-C, which scancels
the job over a connection of its own (the queue is empty after). No test
waits on a clock: each waits for a file to appear, with generous deadlines
only as a guard.
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
from sshhosts import SSHHosts  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurmcases import (ARGS, FaultCases, finish,  # noqa: E402
                        run_json)

CTL = os.environ.get("BF_CTL")
CLUSTER = None
HOSTS = None
TMP = None
LOGIN = "bflogin1"


def write_inventory(name, workdir=None, nodes=1):
    d = os.path.join(TMP, "hosts-" + name)
    os.makedirs(d, exist_ok=True)
    g = {"kind": "slurm", "login": LOGIN, "partition": "debug",
         "nodes": nodes, "time": "00:20:00"}
    if workdir:
        g["workdir"] = workdir
    with open(os.path.join(d, "cluster.json"), "w") as f:
        json.dump({"groups": {name: g}}, f)
    return d


def ctl(args, hosts_dir, results):
    env = HOSTS.env()                 # HOME with the alias, no ssh-agent
    env.pop("SLURM_CONF", None)       # only the login host may know it
    return subprocess.Popen([CTL, "run"] + args + ["--hosts-dir", hosts_dir,
                                                    "--results", results],
                            cwd=TMP, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)


class SlurmOverSSH(FaultCases, unittest.TestCase):
    # FaultCases' hooks: the login host is the sshd alias, and the deploy
    # made over SSH sits in its home.
    def cluster(self):
        return CLUSTER

    def tmp(self):
        return TMP

    def run_ctl(self, args, hosts_dir, results):
        return ctl(args, hosts_dir, results)

    def inventory(self, name, workdir):
        return write_inventory(name, workdir)

    def deployed_workdir(self):
        return os.path.join(HOSTS.remote_home(1), ".cache", "benchfleet-slurm")

    @classmethod
    def setUpClass(cls):
        cls.hosts = write_inventory("viassh")
        cls.res1 = os.path.join(TMP, "res-first")
        cls.rc, cls.out = finish(ctl(["viassh"] + ARGS, cls.hosts, cls.res1))

    def test_1_per_node_archive(self):
        self.assertEqual(self.rc, 0, self.out)
        d, meta = run_json(self.res1)
        self.assertEqual(meta["status"], "complete")
        self.assertEqual(len(meta["hosts"]), 1)
        h = meta["hosts"][0]
        self.assertEqual(h["name"], "bfnode1")
        self.assertEqual(h["target"], "slurm:viassh")
        self.assertEqual(h["status"], "done")
        self.assertTrue(h["slurm_job_id"].isdigit(), h)
        self.assertEqual(h["records_file"], "00-bfnode1.ndjson")
        with open(os.path.join(d, h["records_file"])) as f:
            recs = [json.loads(line) for line in f]
        self.assertEqual(recs[-1]["type"], "summary")
        self.assertEqual(h["records"], len(recs))
        # Deployed over SFTP into the login host's ~, built there.
        tree = glob.glob(os.path.join(HOSTS.remote_home(1), ".cache",
                                      "benchfleet-slurm", "*", ".bf-complete"))
        self.assertEqual(len(tree), 1, tree)
        self.assertTrue(glob.glob(os.path.join(os.path.dirname(tree[0]),
                                               "build-*", "bin", "agent")))
        with open(os.path.join(d, h["log_file"])) as f:
            log = f.read()
        self.assertIn("exec srun -N1 --ntasks-per-node=1", log)
        self.assertIn("[bfnode1] done", self.out)
        self.assertTrue(CLUSTER.wait_idle())


def main():
    global CLUSTER, HOSTS, TMP
    why = missing()
    if not why and not os.access("/usr/sbin/sshd", os.X_OK):
        why = "no /usr/sbin/sshd"
    if why or not CTL:
        print("skipped: slurm over ssh not available: %s"
              % (why or "BF_CTL unset"))
        return 77
    TMP = tempfile.mkdtemp(prefix="bf-slurmssh-test-")
    ok = False
    try:
        with SlurmCluster(root=os.path.join(TMP, "cluster")) as c, \
                SSHHosts(1, root=os.path.join(TMP, "ssh"), prefix="bflogin",
                         session_env={"SLURM_CONF": c.conf}) as h:
            CLUSTER, HOSTS = c, h
            prog = unittest.main(exit=False, verbosity=2)
            ok = prog.result.wasSuccessful()
    finally:
        keeplogs.finish(TMP, ok, "slurm.ctl_run_ssh")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
