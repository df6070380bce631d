#!/usr/bin/env python3
"""The verdict in ctl run's live table (issue 30), driven inside tmux.

One tmux server of its own (a socket in a temporary directory, no
configuration file) runs sh in a 160x30 pane; a `ctl run local ...` line
is typed into it with $BENCHFLEET_AGENT set to a script that replays the
records of a real run of the agent (the one beside ctl) edited into four
H100s, cuda:3 at half the speed of the others (its times doubled), and
then waits, before its summary record, until the test creates a file: so
the live table is on the screen, complete, for as long as the test reads
it, with no timing involved. Checked on the screen (capture-pane):

- each measured row's state carries its verdict so far: cuda:0..2
  "..., ok", cuda:3 "..., SLOW" (beside its 3 peers), the CPU alone of
  its product "..., unknown";
- the header sums the devices up: "verdict 1 SLOW, 3 ok";
- after the file is made, the run ends and its final output leads with
  the same verdict.

Exits 77 (CTest: skipped) without tmux or ctl.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from bfpaths import find_ctl  # noqa: E402
from tmuxpane import Pane  # noqa: E402

CTL = find_ctl()


class LiveVerdict(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bf-live-verdict-")
        self.pane = None

    def tearDown(self):
        if self.pane:
            self.pane.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fake_agent(self):
        agent = os.path.join(os.path.dirname(CTL), "agent")
        p = subprocess.run([agent, "--size", "64", "--dtypes", "fp32",
                            "--device", "cpu", "--iters", "3", "--warmup",
                            "1", "--no-bandwidth", "--no-batching"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
        out, seq = [], 0
        for r in recs:
            if r["type"] == "host":
                r["gpus"] = [{"index": k, "name": "NVIDIA H100 80GB HBM3",
                              "memory_bytes": 85520809984}
                             for k in range(4)]
            if r["type"] == "plan":
                r["devices"] += [{"device": "cuda:%d" % k, "status": "pass",
                                  "reason": None} for k in range(4)]
                r["gemm_total"] = 5
            if r["type"] == "summary":
                r["gemm_passed"] = 5
            if r["type"] == "gemm":
                r["reliable"] = True
                r["unreliable_reasons"] = []
                for k in range(4):
                    g = json.loads(json.dumps(r))
                    g["device"] = "cuda:%d" % k
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
            r["seq"] = seq
            seq += 1
            out.append(r)
        d = os.path.join(self.tmp, "fake")
        os.makedirs(d)
        with open(os.path.join(d, "head.ndjson"), "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in out[:-1]))
        with open(os.path.join(d, "tail.ndjson"), "w") as f:
            f.write(json.dumps(out[-1]) + "\n")
        path = os.path.join(d, "agent")
        with open(path, "w") as f:
            # The summary only once the test has read the screen.
            f.write('#!/bin/sh\nd=%s\ncat "$d/head.ndjson"\n'
                    'while [ ! -e "$d/go" ]; do sleep 0.1; done\n'
                    'cat "$d/tail.ndjson"\n' % d)
        os.chmod(path, 0o755)
        return path, d

    def test_marks_and_summary(self):
        agent, d = self.fake_agent()
        hosts = os.path.join(self.tmp, "hosts")
        os.makedirs(hosts)
        self.pane = Pane(self.tmp, 160, 30)
        self.pane.type_line(
            "BENCHFLEET_AGENT=%s XDG_CONFIG_HOME=%s/xdg %s run local "
            "--size 64 --dtypes fp32 --no-bandwidth --no-batching "
            "--results %s/res --hosts-dir %s; echo EXIT=$?"
            % (agent, self.tmp, CTL, self.tmp, hosts))
        screen = self.pane.wait_for(
            lambda s: re.search(r"(?m)^local\s+cuda:3\s+fp32\s.*, SLOW"
                                r"\s*$", s), 240, "cuda:3 marked SLOW")
        for k in range(3):
            self.assertRegex(screen, r"(?m)^local\s+cuda:%d\s+fp32\s.*"
                             r", ok\s*$" % k)
        self.assertIn("verdict 1 SLOW, 3 ok", screen.splitlines()[0])
        # The CPU alone of its product: unknown, said so.
        self.assertRegex(screen, r"(?m)^local\s+cpu\s+fp32\s.*"
                         r", unknown\??\s*$")
        open(os.path.join(d, "go"), "w").close()
        text = self.pane.wait_for(lambda s: re.search(r"(?m)^EXIT=\d+", s),
                                  240, "ctl to exit")
        self.assertRegex(text, r"(?m)^EXIT=0$")
        self.assertRegex(self.pane.scrollback(),
                         r"(?m)^local cuda:3 SLOW: fp32 n=64 .* of its 3 "
                         r"peers")


if __name__ == "__main__":
    if not shutil.which("tmux"):
        print("skipped: tmux not found")
        sys.exit(77)
    if not CTL:
        print("skipped: ctl not built (set BF_CTL)")
        sys.exit(77)
    unittest.main()
