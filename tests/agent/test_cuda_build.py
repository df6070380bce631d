"""The agent as built with BF_WITH_CUDA=ON (CTest label "cuda-build",
registered only in such a build): it links the CUDA runtime and cuBLAS,
reports their versions, and on a machine without a usable GPU says so as
results: a skipped cuda device in the plan, a skipped device.available
check and skipped cuda gemm records, each with the reason, and exit 0.
Where nvidia-smi does find a GPU, the cuda records must pass instead.
"""

import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentlib  # noqa: E402
from agentlib import parse_records, run_agent  # noqa: E402

DTYPES = ["fp32", "fp16", "bf16", "tf32"]


class CudaBuildTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gpu = agentlib.nvidia_gpu_present()
        cls.proc = run_agent("--size", "64", "--device", "all", "--iters",
                             "2", "--warmup", "1", "--dtypes",
                             ",".join(DTYPES))
        cls.recs = parse_records(cls.proc.stdout)

    def test_links_cudart_and_cublas(self):
        out = subprocess.run(["readelf", "-d", agentlib.AGENT],
                             capture_output=True, text=True, check=True,
                             timeout=60).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)
        self.assertTrue(any(n.startswith("libcudart.so") for n in needed),
                        needed)
        self.assertTrue(any(n.startswith("libcublas.so") for n in needed),
                        needed)

    def test_host_record_names_cuda_versions(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        cuda = self.recs[0]["cuda"]
        self.assertRegex(cuda["runtime_version"], r"^\d+\.\d+$")
        self.assertRegex(cuda["cublas_version"], r"^\d+\.\d+\.\d+$")
        self.assertIn("NVIDIA_TF32_OVERRIDE", cuda)
        if self.gpu:
            self.assertEqual(cuda["status"], "pass")
            self.assertRegex(cuda["driver_version"], r"^\d+\.")
        else:
            self.assertEqual(cuda["status"], "skipped")
            self.assertTrue(cuda["reason"])
            self.assertEqual(self.recs[0]["gpus"], [])
            if cuda["driver_cuda_version"] is None:
                # No driver at all (cudaDriverGetVersion: 0): said so,
                # not as cudart's "insufficient driver", which reads as an
                # old one.
                self.assertEqual(cuda["reason"], "no NVIDIA driver "
                                 "installed (cudaErrorInsufficientDriver)")

    def test_cuda_results(self):
        cuda_checks = [r for r in self.recs if r["type"] == "check"
                       and r["device"].startswith("cuda")]
        cuda_gemms = [r for r in self.recs if r["type"] == "gemm"
                      and r["device"].startswith("cuda")]
        plan = self.recs[1]
        devices = {d["device"]: d for d in plan["devices"]}
        self.assertIn("cuda:0", devices)
        if self.gpu:
            self.assertEqual(devices["cuda:0"]["status"], "pass")
            self.assertTrue(cuda_checks)
            for r in cuda_checks + cuda_gemms:
                self.assertEqual(r["status"], "pass", r)
            return
        reason = self.recs[0]["cuda"]["reason"]
        self.assertEqual(devices["cuda:0"]["status"], "skipped")
        self.assertEqual(devices["cuda:0"]["reason"], reason)
        self.assertEqual(len(cuda_checks), 1)
        self.assertEqual(cuda_checks[0]["name"], "device.available")
        self.assertEqual(cuda_checks[0]["status"], "skipped")
        self.assertEqual(cuda_checks[0]["reason"], reason)
        self.assertEqual([g["dtype"] for g in cuda_gemms], DTYPES)
        for g in cuda_gemms:
            self.assertEqual(g["status"], "skipped")
            self.assertEqual(g["reason"], reason)
            self.assertIsNone(g["median_ms"])
            self.assertIsNone(g["gflops"])
        s = self.recs[-1]
        self.assertEqual(s["checks_skipped"], 1)
        self.assertEqual(s["checks_failed"], 0)
        self.assertEqual(s["exit_status"], 0)

    def test_cuda_only_without_gpu(self):
        if self.gpu:
            self.skipTest("a GPU is present")
        p = run_agent("--device", "cuda", "--size", "32", "--iters", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = parse_records(p.stdout)
        self.assertEqual([d["device"] for d in recs[1]["devices"]],
                         ["cuda:0"])
        gemms = [r for r in recs if r["type"] == "gemm"]
        self.assertEqual(len(gemms), 3)
        self.assertTrue(all(g["status"] == "skipped" for g in gemms))
        self.assertEqual(recs[-1]["gemm_skipped"], 3)


if __name__ == "__main__":
    unittest.main(verbosity=2)
