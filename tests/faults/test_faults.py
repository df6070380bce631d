#!/usr/bin/env python3
"""Fault injection: the agent must fail a wrong GEMM, never report its speed,
and must skip a GEMM that does not fit under the process's memory limits.

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
        self.assertLess(g["gflops"], g["peak_gflops"])
        self.assertAlmostEqual(g["fraction_of_peak"],
                               g["gflops"] / g["peak_gflops"], delta=1e-12)
        self.assertLessEqual(g["max_rel_error"], g["tolerance"])
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_computes_only_once(self):
        # Returns at once after its first call: C is poisoned before every
        # call, so the last timed call leaves NaN.
        r, g = run_with_fault("once")
        self.assert_failed(r, g, "non-finite elements")

    def test_faster_than_peak(self):
        # Right numbers at an impossible speed (a cached C copied back):
        # above the CPU's theoretical peak, so fail and no GFLOP/s.
        # n = 4096: the copy (64 MiB) must beat 2n^3 / peak, about 0.24 s
        # here; even a loaded machine copies 64 MiB ten times faster.
        r, g = run_with_fault("cached", size=4096)
        self.assert_failed(r, g, "above the device's theoretical peak")
        self.assertGreater(g["peak_gflops"], 0)
        self.assertIn("cores x", g["peak_basis"])

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


DNNL_SHIM = os.environ.get("BF_LYING_DNNL", "")


class OnednnFaultTest(unittest.TestCase):
    """The CPU's bf16 GEMM through oneDNN (issue 33), with
    tests/faults/lying_dnnl.c (BF_LYING_DNNL) preloaded: a wrong result
    fails verification as a wrong sgemm does."""

    def run_bf16(self, mode, size=160):
        if not DNNL_SHIM:
            self.skipTest("BF_LYING_DNNL is not set (no oneDNN build)")
        env = dict(os.environ)
        env["LD_PRELOAD"] = DNNL_SHIM
        if mode:
            env["BF_FAULT"] = mode
        if "ASAN_OPTIONS" in env:
            env["ASAN_OPTIONS"] += ":verify_asan_link_order=0"
        r = agentlib.run_agent("--device", "cpu", "--dtypes", "bf16",
                               "--sizes", str(size), "--no-checks",
                               "--cpu-warmup", "1", "--cpu-iters", "3",
                               env=env)
        g = gemm_record(r)
        if g["status"] == "skipped" or \
                not g.get("library", "").startswith("oneDNN"):
            self.skipTest("bf16 does not run through oneDNN here: %s"
                          % (g.get("reason") or g.get("library")))
        return r, g

    def assert_failed(self, r, g, words):
        self.assertEqual(g["status"], "fail", g)
        self.assertIsNone(g["gflops"])
        self.assertIn(words, g["reason"])
        self.assertEqual(r.returncode, 1, r.stderr)

    def test_control_passes(self):
        r, g = self.run_bf16("")
        self.assertEqual(g["status"], "pass", g)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_scaled_result(self):
        r, g = self.run_bf16("scale")
        self.assert_failed(r, g, "above tolerance")

    def test_dropped_product(self):
        r, g = self.run_bf16("drop_k")
        self.assert_failed(r, g, "above tolerance")

    def test_computes_only_once(self):
        r, g = self.run_bf16("once")
        self.assert_failed(r, g, "non-finite elements")


def own_memory_cgroup():
    """The directory of this process's memory cgroup (v2, v2 in hybrid
    mode, or v1's memory controller), or None."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            num, ctrls, path = line.rstrip("\n").split(":", 2)
            if num == "0" and ctrls == "":
                for base in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                    d = base + path
                    if os.path.exists(os.path.join(d, "memory.max")) or \
                            os.path.exists(os.path.join(base,
                                                        "cgroup.controllers")):
                        if os.path.isdir(d):
                            return d, "memory.max"
            elif "memory" in ctrls.split(","):
                d = "/sys/fs/cgroup/memory" + path
                if os.path.isdir(d):
                    return d, "memory.limit_in_bytes"
    return None


def gemm_record(r):
    recs = agentlib.parse_records(r.stdout)
    gemms = [x for x in recs if x["type"] == "gemm"]
    assert len(gemms) == 1, gemms
    return gemms[0]


class MemoryFitTest(unittest.TestCase):
    """A GEMM that cannot fit under the process's limits is skipped with
    needed and free bytes, and the reason names the limit; nothing is
    allocated first (the agent would be killed or fail otherwise)."""

    ARGS = ("--device", "cpu", "--dtypes", "fp32", "--no-checks",
            "--cpu-warmup", "0", "--cpu-iters", "1")

    def check_skipped(self, g, limit_words):
        self.assertEqual(g["status"], "skipped", g)
        self.assertIn("does not fit", g["reason"])
        self.assertIn(limit_words, g["reason"])
        self.assertGreater(g["needed_bytes"], g["free_bytes"])
        self.assertIsNone(g["gflops"])

    def test_rlimit_as(self):
        if "ASAN_OPTIONS" in os.environ:
            self.skipTest("AddressSanitizer needs an unlimited address space")
        import resource

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        if not agentlib.AGENT:
            self.skipTest("BF_AGENT is not set")
        import subprocess
        r = subprocess.run([agentlib.AGENT, *self.ARGS, "--sizes", "12288"],
                           capture_output=True, text=True, timeout=300,
                           preexec_fn=limit, stdin=subprocess.DEVNULL)
        self.check_skipped(gemm_record(r), "RLIMIT_AS")

    def test_cgroup_limit(self):
        found = own_memory_cgroup()
        if not found or not agentlib.AGENT:
            self.skipTest("no memory cgroup to make a child in")
        parent, limit_file = found
        child = os.path.join(parent, "bf-fit-test-%d" % os.getpid())
        try:
            os.mkdir(child)
            with open(os.path.join(child, limit_file), "w") as f:
                f.write(str(160 << 20))
        except OSError as e:
            self.skipTest(f"cannot make a memory cgroup here: {e}")
        import subprocess

        def enter():
            with open(os.path.join(child, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
        try:
            r = subprocess.run([agentlib.AGENT, *self.ARGS, "--sizes",
                                "4096"], capture_output=True, text=True,
                               timeout=300, preexec_fn=enter,
                               stdin=subprocess.DEVNULL)
        finally:
            os.rmdir(child)
        self.check_skipped(gemm_record(r), "cgroup memory limit")


if __name__ == "__main__":
    unittest.main(verbosity=2)
