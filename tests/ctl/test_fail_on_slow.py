#!/usr/bin/env python3
"""ctl run --fail-on slow (issue 30): exit 7 when a device's verdict is a
confident slow, as ctl show --fail-on slow.

No SSH: `ctl run local` with $BENCHFLEET_AGENT set to a script that
replays the records of a real run of the agent (the one beside ctl),
its GEMM marked reliable (or not), against a team reference file in the
inventory (hosts/references/) that makes the CPU slow (a range far above
it) or ok (a range below it). Checks the exit status, the one line on
stderr, and the verdict line that leads the final output:

- slow and reliable: 7 with --fail-on slow, 0 without;
- ok: 0 with --fail-on slow;
- slow but unreliable ("slow?"): 0, it is no confident slow;
- a failed check besides: 1, the failure says more than slow;
- --fail-on with anything but slow: 2, one line.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]
AGENT = os.path.join(os.path.dirname(CTL), "agent")
AGENT_ARGS = ["--size", "64", "--dtypes", "fp32", "--iters", "3",
              "--warmup", "1", "--device", "cpu", "--no-bandwidth",
              "--no-batching"]
REAL = None


def setUpModule():
    global REAL
    p = subprocess.run([AGENT] + AGENT_ARGS, capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        raise RuntimeError("agent: %s" % p.stderr)
    REAL = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]


class FailOnSlow(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bf-failslow-")
        self.hosts = os.path.join(self.tmp, "hosts")
        os.makedirs(os.path.join(self.hosts, "references"))
        self.cpu = [r for r in REAL if r["type"] == "host"][0]["cpu_model"]
        self.gemm = [r for r in REAL if r["type"] == "gemm"][0]

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def reference(self, tflops):
        """A team reference for this CPU at fp32 n=64 (the measured row's
        product, dtype and n)."""
        with open(os.path.join(self.hosts, "references", "team.json"),
                  "w") as f:
            json.dump({"schema": "benchfleet-references/1",
                       "sources": {"lab": {"tool": "a test"}},
                       "references": [{"product": self.cpu, "dtype": "fp32",
                                       "n": 64, "tflops": tflops,
                                       "source": "lab"}]}, f)

    def run_ctl(self, reliable=True, fail=False, extra=("--fail-on",
                                                        "slow")):
        recs = []
        for r in REAL:
            r = json.loads(json.dumps(r))
            if r["type"] == "gemm":
                r["reliable"] = reliable
                r["unreliable_reasons"] = [] if reliable else \
                    ["spread above 20% of the median"]
            if r["type"] == "check" and r["name"] == "add.elementwise" \
                    and fail:
                r["status"] = "fail"
                r["reason"] = "values differ"
            if r["type"] == "summary" and fail:
                r["checks_passed"] -= 1
                r["checks_failed"] = 1
                r["exit_status"] = 1
            recs.append(json.dumps(r))
        d = os.path.join(self.tmp, "fake")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "records.ndjson"), "w") as f:
            f.write("".join(x + "\n" for x in recs))
        agent = os.path.join(d, "agent")
        with open(agent, "w") as f:
            f.write('#!/bin/sh\ncat "%s/records.ndjson"\n' % d)
        os.chmod(agent, 0o755)
        env = dict(os.environ, BENCHFLEET_AGENT=agent, LANG="C.UTF-8",
                   LC_ALL="C.UTF-8", XDG_CONFIG_HOME=os.path.join(self.tmp,
                                                                  "xdg"))
        return subprocess.run(
            [CTL, "run", "local", "--no-tui", "--results",
             os.path.join(self.tmp, "res"), "--hosts-dir", self.hosts]
            + AGENT_ARGS + list(extra), cwd=self.tmp, env=env,
            capture_output=True, text=True, timeout=240,
            stdin=subprocess.DEVNULL)

    def verdict_line(self, p):
        lines = [x for x in p.stdout.splitlines()
                 if x.startswith("local cpu ")]
        self.assertTrue(lines, p.stdout)
        return lines[0]

    def test_slow_exits_7(self):
        # 1000 TFLOP/s: no CPU is near it at n=64.
        self.reference(1000)
        p = self.run_ctl()
        self.assertEqual(p.returncode, 7, p.stdout + p.stderr)
        self.assertEqual(p.stderr, "ctl: run: 1 device slow (--fail-on slow)\n")
        self.assertRegex(self.verdict_line(p),
                         r"^local cpu SLOW: fp32 n=64 .* of published .* results "
                         r"\(1000 TFLOP/s")
        self.assertIn("verdict: 1 device: 1 slow", p.stdout)
        # The same run without --fail-on: the verdict, exit 0.
        shutil.rmtree(os.path.join(self.tmp, "res"))
        p = self.run_ctl(extra=())
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stderr, "")
        self.assertTrue(self.verdict_line(p).startswith("local cpu SLOW: "))

    def test_ok_exits_0(self):
        # A range at half the measured figure: within it, ok.
        self.reference(self.gemm["gflops"] / 1000 / 2)
        p = self.run_ctl()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stderr, "")
        self.assertTrue(self.verdict_line(p).startswith("local cpu ok: "),
                        p.stdout)

    def test_unreliable_slow_is_not_confident(self):
        self.reference(1000)
        p = self.run_ctl(reliable=False)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(self.verdict_line(p).startswith("local cpu SLOW?: "),
                        p.stdout)

    def test_failed_record_says_more(self):
        self.reference(1000)
        p = self.run_ctl(fail=True)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertNotIn("--fail-on slow", p.stderr)

    def test_bad_value(self):
        p = self.run_ctl(extra=("--fail-on", "fast"))
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr,
                         "ctl: run: --fail-on: 'fast': want 'slow'\n")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "res")))


if __name__ == "__main__":
    unittest.main()
