#!/usr/bin/env python3
"""ctl check local --drain / --resume on a real one-node Slurm on loopback
(issue 31; tests/lib/slurmcluster.py): the check is made slow or ok by a
team reference file, never by this machine's speed (the agent is a fake
that replays the records of one real run of the agent beside ctl, their
GEMM rows marked reliable), so no assertion depends on timing:

- slow (a reference 100 times what the run did), run as Slurm runs a
  HealthCheckProgram (SLURMD_NODENAME set): exit 7, the node drained with
  the check's line as its reason, seen in `sinfo -R`;
- ok (a reference at half): --resume returns the node benchfleet drained
  (idle again), and leaves a node drained for another reason drained;
- an ok check with --drain --resume leaves an idle node idle;
- as the cluster's Prolog (slurm.conf Prolog=, docs/health-checks.md): a
  job's start runs the slow check, which drains the node with its line;
- from the login host, `ctl check CLUSTER --drain` (one job through ctl
  run's srun path; the agent of a real deploy replaced by the replay)
  drains the slow node with its line; a host that is no cluster is
  refused.

Skips (77) without root, Slurm's daemons or a cgroup file system.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import keeplogs  # noqa: E402
from replay import AgentRun  # noqa: E402
from slurmcluster import SlurmCluster, missing  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurmcases import fake_workdir  # noqa: E402

CTL = os.environ.get("BF_CTL")
NODE = "bfnode1"
N = 64
TMP = None
CLUSTER = None
CPU = None
GFLOPS = None
EXIT_OK, EXIT_SLOW = 0, 7


def replayed_records():
    """A real run of the agent beside ctl, its GEMM rows reliable."""
    global CPU, GFLOPS
    run = AgentRun(os.path.join(os.path.dirname(CTL), "agent"), N)
    CPU, GFLOPS = run.cpu_model, run.gflops
    return run.lines


def path(*p):
    return os.path.join(TMP, *p)


def setUpModule():
    global TMP, CLUSTER
    TMP = tempfile.mkdtemp(prefix="bf-check-slurm-")
    os.chmod(TMP, 0o755)
    os.makedirs(path("hosts", "references"))
    with open(path("records.ndjson"), "w") as f:
        f.write("".join(l + "\n" for l in replayed_records()))
    with open(path("agent"), "w") as f:
        f.write('#!/bin/sh\ncase "$1" in --version) echo fake; exit 0;; '
                'esac\nexec cat %s\n' % path("records.ndjson"))
    os.chmod(path("agent"), 0o755)
    CLUSTER = SlurmCluster(root=path("cluster"),
                           extra_conf="Prolog=%s\n" % path("prolog.sh"))
    # The Prolog as docs/health-checks.md has it; Slurm gives a prolog
    # no SLURM_CONF, so the test cluster's is written in.
    with open(path("prolog.sh"), "w") as f:
        f.write("#!/bin/sh\nexport SLURM_CONF=%s BENCHFLEET_AGENT=%s\n"
                "[ -e %s ] || exit 0\n"
                "exec %s check local --drain --results %s --hosts-dir %s "
                ">>%s 2>&1\n" % (CLUSTER.conf, path("agent"),
                                 path("prolog-on"), CTL, path("results"),
                                 path("hosts"), path("prolog.log")))
    os.chmod(path("prolog.sh"), 0o755)
    CLUSTER.start()


def tearDownModule():
    if CLUSTER:
        CLUSTER.stop()


def reference(factor):
    with open(path("hosts", "references", "team.json"), "w") as f:
        json.dump({"schema": "benchfleet-references/1",
                   "sources": {"lab": {"tool": "test"}},
                   "references": [{"product": CPU, "dtype": "fp32", "n": N,
                                   "tflops": GFLOPS / 1000 * factor,
                                   "source": "lab"}]}, f)


def ctl_check(*args, env_extra=None):
    env = CLUSTER.env()
    env["BENCHFLEET_AGENT"] = path("agent")
    env.update(env_extra or {})
    return subprocess.run([CTL, "check", "local", "--results",
                           path("results"), "--hosts-dir", path("hosts")] +
                          list(args), cwd=TMP, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def slurm(*argv):
    return subprocess.run(list(argv), env=CLUSTER.env(), capture_output=True,
                          text=True, timeout=60)


def reasons():
    """sinfo -R: node -> reason."""
    r = slurm("sinfo", "-R", "-h", "-N", "-o", "%N|%E")
    return dict(l.split("|", 1) for l in r.stdout.splitlines() if "|" in l)


def state():
    """The node's state without sinfo's flag suffixes ("idle*": not
    responding for a moment, which says nothing of the drain)."""
    r = slurm("sinfo", "-h", "-N", "-n", NODE, "-o", "%T")
    return r.stdout.strip().rstrip("*~#!%$@^-")


def wait_for(what, ok, timeout_s=120):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if ok():
            return
        time.sleep(0.3)
    raise AssertionError("timed out waiting for " + what)


class CheckSlurm(unittest.TestCase):
    def tearDown(self):
        slurm("scontrol", "update", "NodeName=" + NODE, "State=RESUME")
        wait_for("node idle", lambda: state() == "idle")

    def slow_line(self, text):
        [line] = [l for l in text.splitlines()
                  if l.startswith("[local] benchfleet: cpu slow: fp32 ")]
        return line[len("[local] "):]

    def test_1_drain_then_resume(self):
        reference(100)
        p = ctl_check("--drain", env_extra={"SLURMD_NODENAME": NODE})
        self.assertEqual(p.returncode, EXIT_SLOW, p.stdout + p.stderr)
        line = self.slow_line(p.stdout)
        self.assertTrue(line.endswith("= 0.01 of its reference"), line)
        self.assertIn("drained %s: %s\n" % (NODE, line), p.stdout)
        self.assertEqual(reasons().get(NODE), line)
        self.assertIn("drain", state())
        reference(0.5)
        p = ctl_check("--resume", "--node", NODE)
        self.assertEqual(p.returncode, EXIT_OK, p.stdout + p.stderr)
        self.assertIn("resumed %s\n" % NODE, p.stdout)
        wait_for("node idle", lambda: state() == "idle")
        self.assertNotIn(NODE, reasons())

    def test_2_foreign_drain_kept(self):
        r = slurm("scontrol", "update", "NodeName=" + NODE, "State=DRAIN",
                  "Reason=maintenance by ops")
        self.assertEqual(r.returncode, 0, r.stderr)
        reference(0.5)
        p = ctl_check("--drain", "--resume", "--node", NODE)
        self.assertEqual(p.returncode, EXIT_OK, p.stdout + p.stderr)
        self.assertIn("not resumed %s: not drained by benchfleet\n" % NODE,
                      p.stdout)
        self.assertEqual(reasons().get(NODE), "maintenance by ops")

    def test_3_ok_leaves_idle(self):
        reference(0.5)
        p = ctl_check("--drain", "--resume", "--node", NODE)
        self.assertEqual(p.returncode, EXIT_OK, p.stdout + p.stderr)
        self.assertNotIn("\ndrained ", p.stdout)
        self.assertIn("not resumed", p.stdout)
        self.assertEqual(state(), "idle")
        self.assertNotIn(NODE, reasons())

    def test_5_cluster_drain(self):
        # A real deploy to the cluster's workdir first (the agent built on
        # the node), then a copy of it whose agent replays the records.
        work = path("work")
        hosts = path("hosts")
        with open(os.path.join(hosts, "cluster.json"), "w") as f:
            json.dump({"groups": {
                "tiny": {"kind": "slurm", "login": "local",
                         "partition": "debug", "nodes": 1,
                         "time": "00:20:00", "workdir": work},
                "fake": {"kind": "slurm", "login": "local",
                         "partition": "debug", "nodes": 1,
                         "time": "00:20:00", "workdir": path("work-fake")}}},
                      f)
        env = CLUSTER.env()
        env["HOME"] = path("home")
        r = subprocess.run([CTL, "run", "tiny", "--size", "32", "--device",
                            "cpu", "--dtypes", "fp32", "--no-tui",
                            "--hosts-dir", hosts, "--results",
                            path("res-deploy")], env=env, cwd=TMP,
                           capture_output=True, text=True, timeout=900,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        fake_workdir(work, path("work-fake"),
                     "exec cat %s\n" % path("records.ndjson"))
        reference(100)
        r = subprocess.run([CTL, "check", "fake", "--drain", "--hosts-dir",
                            hosts, "--results", path("results")], env=env,
                           cwd=TMP, capture_output=True, text=True,
                           timeout=900, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, EXIT_SLOW, r.stdout + r.stderr)
        [line] = [l for l in r.stdout.splitlines()
                  if l.startswith("[%s] benchfleet: cpu slow: " % NODE)]
        line = line[len("[%s] " % NODE):]
        self.assertIn("drained %s: %s\n" % (NODE, line), r.stdout)
        self.assertEqual(reasons().get(NODE), line)
        # A cluster whose login is another host, or no cluster: refused.
        r = subprocess.run([CTL, "check", "somehost", "--drain",
                            "--hosts-dir", hosts], env=env, cwd=TMP,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("is no Slurm cluster of the inventory", r.stderr)
        os.unlink(os.path.join(hosts, "cluster.json"))

    def test_4_prolog_drains(self):
        reference(100)
        open(path("prolog-on"), "w").close()
        try:
            r = subprocess.run(["srun", "-N1", "-w", NODE, "-t", "1", "true"],
                               env=CLUSTER.env(), capture_output=True,
                               text=True, timeout=300,
                               stdin=subprocess.DEVNULL)
        finally:
            os.unlink(path("prolog-on"))
        with open(path("prolog.log")) as f:
            log = f.read()
        line = self.slow_line(log)
        self.assertIn("drained %s: %s\n" % (NODE, line), log)
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        wait_for("the drain reason", lambda: NODE in reasons())
        self.assertIn(reasons()[NODE], (line, "Prolog error"))
        print("sinfo -R after the prolog: %r" % reasons()[NODE])


if __name__ == "__main__":
    why = missing()
    if why or not CTL:
        print("skipped: %s" % (why or "BF_CTL not set"))
        sys.exit(77)
    prog = unittest.main(exit=False, verbosity=2)
    ok = prog.result.wasSuccessful()
    keeplogs.finish(TMP, ok, "slurm.check")
    sys.exit(0 if ok else 1)
