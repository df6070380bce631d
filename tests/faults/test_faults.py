#!/usr/bin/env python3
"""Fault injection: the agent must fail a wrong GEMM, never report its speed.

Each test preloads tests/faults/lying_sgemm.c (BF_LYING_SGEMM) into the
agent with one BF_FAULT mode and checks the CPU fp32 gemm record: status
"fail", a reason, and no GFLOP/s. A control run with the shim loaded but
no fault must pass, so the shim itself is shown to be harmless.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "agent"))
import agentlib  # noqa: E402

SHIM = os.environ.get("BF_LYING_SGEMM", "")


def run_with_fault(mode, *extra, size=192, call=None):
    if not SHIM:
        raise unittest.SkipTest("BF_LYING_SGEMM is not set")
    env = dict(os.environ)
    env["LD_PRELOAD"] = SHIM
    if mode:
        env["BF_FAULT"] = mode
    if call is not None:
        env["BF_FAULT_CALL"] = str(call)
    # Under ASan the runtime must come first among the preloaded
    # libraries; the shim comes first here on purpose.
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] += ":verify_asan_link_order=0"
    r = agentlib.run_agent("--device", "cpu", "--dtypes", "fp32",
                           "--sizes", str(size), "--no-checks",
                           "--cpu-warmup", "1", "--cpu-iters", "3",
                           *extra, env=env)
    recs = agentlib.parse_records(r.stdout)
    gemms = [x for x in recs if x["type"] == "gemm"]
    assert len(gemms) == 1, gemms
    return r, gemms[0]


class FaultTest(unittest.TestCase):
    def assert_failed(self, r, g, words):
        self.assertEqual(g["status"], "fail", g)
        self.assertIsNone(g["gflops"], "a failed row must show no GFLOP/s")
        self.assertIn(words, g["reason"])
        self.assertEqual(r.returncode, 1, r.stderr)

    def test_control_passes(self):
        r, g = run_with_fault("")
        self.assertEqual(g["status"], "pass", g)
        self.assertGreater(g["gflops"], 0)
        self.assertLessEqual(g["max_rel_error"], g["tolerance"])
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_computes_only_once(self):
        # Returns at once after its first call: C is poisoned before every
        # call, so the last timed call leaves NaN.
        r, g = run_with_fault("once")
        self.assert_failed(r, g, "non-finite elements")

    def test_dropped_product(self):
        for n in (192, 700):
            r, g = run_with_fault("drop", size=n)
            self.assert_failed(r, g, "above tolerance")

    def test_transposed_operand(self):
        r, g = run_with_fault("transpose")
        self.assert_failed(r, g, "above tolerance")

    def test_fp16_accumulation(self):
        r, g = run_with_fault("fp16acc", size=128)
        self.assert_failed(r, g, "above tolerance")

    def test_wrong_first_timed_call(self):
        # Call 1 is the warm-up, 2 the first timed call, 4 the last: only
        # the first timed output is wrong, and it is checked too.
        r, g = run_with_fault("off_call", call=2)
        self.assert_failed(r, g, "first timed iteration")
        r, g = run_with_fault("off_call", call=4)
        self.assert_failed(r, g, "above tolerance")

    def test_verify_seed_recorded_and_varies(self):
        seeds = {run_with_fault("", size=96)[1]["verify_seed"]
                 for _ in range(3)}
        self.assertEqual(len(seeds), 3, seeds)
        for s in seeds:
            self.assertTrue(agentlib.is_int(s) and 0 <= s < 2 ** 48)


if __name__ == "__main__":
    unittest.main(verbosity=2)
