"""check_records.py must not pass a run that has no GPU in it: fed the
output of the agent on this (GPU-less or not) machine with the GPU left
out, or with the CUDA device skipped, it reports the problems and exits 1.
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "agent"))
import agentlib  # noqa: E402


def check(stdout, rc):
    with tempfile.NamedTemporaryFile("w", suffix=".ndjson") as f:
        f.write(stdout)
        f.flush()
        return subprocess.run([sys.executable,
                               os.path.join(HERE, "check_records.py"),
                               f.name, "--rc", str(rc)],
                              capture_output=True, text=True, timeout=120)


class CheckerTest(unittest.TestCase):
    def test_cpu_only_run_fails(self):
        p = agentlib.run_agent("--size", "64", "--device", "cpu",
                               "--iters", "2", "--warmup", "0")
        self.assertEqual(p.returncode, 0, p.stderr)
        r = check(p.stdout, p.returncode)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("gpu check: host: no GPU in the host record", r.stdout)
        self.assertIn("gpu check: FAILED", r.stdout)

    def test_skipped_cuda_device_fails(self):
        if agentlib.nvidia_gpu_present():
            self.skipTest("a GPU is present: the cuda device is not skipped")
        p = agentlib.run_agent("--size", "64", "--device", "all",
                               "--iters", "2", "--warmup", "0",
                               "--dtypes", "fp32")
        self.assertEqual(p.returncode, 0, p.stderr)
        r = check(p.stdout, p.returncode)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("gpu check: host: cuda status", r.stdout)
        self.assertIn("gpu check: plan: cuda:0 skipped", r.stdout)
        self.assertIn("gpu check: gemm cuda:0 fp32 n=64: skipped", r.stdout)

    def test_truncated_run_fails(self):
        p = agentlib.run_agent("--size", "64", "--device", "cpu",
                               "--iters", "2", "--warmup", "0")
        lines = p.stdout.splitlines(keepends=True)
        r = check("".join(lines[:-1]), 0)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("last record is not summary", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
