#!/usr/bin/env python3
"""ctl check over real SSH (issue 31; tests/lib/sshhosts.py: a loopback
sshd with a seeded agent cache, test_ctl_run.py's fixture), the deployed
agent replaced by a script, so that no assertion depends on this
machine's speed:

- an agent that never answers, with --budget 1: ctl stops it over SSH and
  prints "[bfhost1] benchfleet: unknown: budget exceeded (--budget 1 s):
  agent stopped", exit 8, the run archived with tag check;
- an agent replaying a real run's records (GEMM rows reliable) against a
  team reference 100 times its figure: exit 7 and the slow line.

Exits 77 without root, sshd or a built ctl.
"""

import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_ctl_run as tcr  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from replay import AgentRun  # noqa: E402

N = 64


class CheckSSH(tcr.CtlTestCase):
    N_HOSTS = 1
    SEED = (1,)

    def fake(self, script, lines=()):
        agent = tcr.cached_agent(self.hosts, 1)
        with open(os.path.join(os.path.dirname(agent), "records.ndjson"),
                  "w") as f:
            f.write("".join(l + "\n" for l in lines))
        with open(agent, "w") as f:
            f.write('#!/bin/sh\nd=$(dirname "$0")\n' + script)
        os.chmod(agent, 0o755)

    def check(self, *args):
        return subprocess.run(
            [tcr.CTL, "check", "--results", self.results] + list(args),
            env=self.env(), cwd=self.cwd, capture_output=True, text=True,
            timeout=300, stdin=subprocess.DEVNULL)

    def run_json(self):
        [rid] = os.listdir(self.results)
        with open(os.path.join(self.results, rid, "run.json")) as f:
            return json.load(f)

    def test_budget_over_ssh(self):
        self.fake("exec sleep 600\n")
        p = self.check("bfhost1", "--budget", "1")
        self.assertEqual(p.returncode, 8, p.stdout + p.stderr)
        self.assertIn("\n[bfhost1] benchfleet: unknown: budget exceeded "
                      "(--budget 1 s): agent stopped\n", p.stdout)
        run = self.run_json()
        self.assertEqual(run["tag"], "check")
        self.assertEqual(run["hosts"][0]["status"], "failed")

    def test_slow_over_ssh(self):
        run = AgentRun(tcr.AGENT, N)
        lines, cpu, gflops = run.lines, run.cpu_model, run.gflops
        hosts = os.path.join(self.tmp, "hosts")
        os.makedirs(os.path.join(hosts, "references"))
        with open(os.path.join(hosts, "references", "team.json"), "w") as f:
            json.dump({"schema": "benchfleet-references/1",
                       "sources": {"lab": {"tool": "test"}},
                       "references": [{"product": cpu, "dtype": "fp32",
                                       "n": N, "tflops": gflops / 10,
                                       "source": "lab"}]}, f)
        self.fake('cat "$d/records.ndjson"\n', lines)
        p = self.check("bfhost1", "--hosts-dir", hosts)
        self.assertEqual(p.returncode, 7, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"(?m)^\[bfhost1\] benchfleet: cpu slow: "
                         r"fp32 [0-9.]+ [GT]FLOP/s = 0\.01 of its reference$")


def main():
    if not tcr.CTL or not os.access(tcr.CTL, os.X_OK):
        print("skip: ctl not built (set BF_CTL)")
        return 77
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK):
        print("skip: needs root and /usr/sbin/sshd")
        return 77
    tcr.HASH = tcr.agent_hash()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
