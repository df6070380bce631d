"""check_records.py must not pass a run that has no GPU in it: fed the
output of the agent on this (GPU-less or not) machine with the GPU left
out, or with the CUDA device skipped, it reports the problems and exits 1.

And the issue-20 rules, on a synthetic run of an H200 (records built here
as the agent writes them): it passes as built; each rule broken on its
own fails with its line (%peak under 0.3 at n >= 4096, a math mode that
allows reduced-precision split-K reductions, a short warm-up, batches
after a failed CUDA Graph capture, implausible or missing energy); and
what an older GPU cannot do is accepted (a T4's tf32 skipped, its bf16
below fp32's speed; a V100 built with CUDA 13 skipped as "needs CUDA
12.9 or older" with its CPU rows checked).
"""

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "agent"))
sys.path.insert(0, HERE)
import agentlib  # noqa: E402
import check_records  # noqa: E402


def check(stdout, rc):
    with tempfile.NamedTemporaryFile("w", suffix=".ndjson") as f:
        f.write(stdout)
        f.flush()
        return subprocess.run([sys.executable,
                               os.path.join(HERE, "check_records.py"),
                               f.name, "--rc", str(rc)],
                              capture_output=True, text=True, timeout=120)


N = 4096
DTYPES = ["fp32", "tf32", "fp16", "bf16"]
# An H200 (132 SMs at 1.98 GHz): dense peaks from agent/peak.c's table.
PEAK = {"fp32": 67e3, "tf32": 535e3, "fp16": 1070e3, "bf16": 1070e3}
SPEED = {"fp32": 50e3, "tf32": 350e3, "fp16": 700e3, "bf16": 690e3}
MATH = "CUBLAS_COMPUTE_32F; CUBLAS_DEFAULT_MATH | " \
    "CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION"


def gemm(dev, dt, gflops, iters, peak=None):
    ms = 2 * N ** 3 / gflops / 1e6
    samples = [ms * 0.99, ms, ms * 1.01][:iters] + [ms] * (iters - 3)
    g = {"type": "gemm", "device": dev, "dtype": dt, "n": N,
         "status": "pass", "reason": None, "samples_ms": samples,
         "median_ms": ms, "min_ms": min(samples), "max_ms": max(samples),
         "gflops": 2 * N ** 3 / ms / 1e6, "nonfinite_elements": 0,
         "max_rel_error": 1e-6, "tolerance": 6.1e-5, "spread": 0.02,
         "reliable": True, "device_state": {"throttled": False}}
    if dev == "cpu":
        g.update(library="OpenBLAS 0.3.21", c_dtype="fp32")
        return g
    gemms = 100
    joules = gemms * 2 * N ** 3 / 1e9 / 1000.0  # 1000 GFLOP/J
    g.update(library="cuBLAS 13.1.0", c_dtype=dt, math_mode=MATH,
             bandwidth_gbps=4300.0,
             warmup_ms=201.5, warmup_calls=900,
             timing="CUDA events around each call",
             peak_gflops=peak, peak_method="product",
             peak_basis="132 SMs x ... x 1.98 GHz",
             fraction_of_peak=g["gflops"] / peak, bound="compute",
             energy={"source": "NVML nvmlDeviceGetTotalEnergyConsumption "
                               "(board)",
                     "joules": joules, "seconds": 0.6, "gemms": gemms,
                     "watts": joules / 0.6, "gflop_per_joule": 1000.0,
                     "reason": None})
    return g


def gpu_run(cc="9.0", name="NVIDIA H200"):
    """The records of an agent run on one GPU, consistent throughout."""
    gpu_checks = sorted(check_records.GPU_CHECKS)
    cpu_checks = sorted(check_records.CPU_CHECKS)
    recs = [{"type": "host",
             "cuda": {"status": "pass", "driver_version": "580.95.05",
                      "runtime_version": "13.0", "cublas_version": "13.1.0"},
             "gpus": [{"index": 0, "name": name, "compute_capability": cc,
                       "memory_bytes": 150e9, "sm_count": 132}],
             "options": {"iters": 20, "cpu_iters": 3}},
            {"type": "plan", "devices": [{"device": "cpu", "status": "pass"},
                                         {"device": "cuda:0",
                                          "status": "pass"}],
             "checks_total": len(cpu_checks) + len(gpu_checks),
             "gemm_total": 1 + len(DTYPES), "bandwidth_total": 6,
             "batching_total": 1}]
    for dev, names in (("cpu", cpu_checks), ("cuda:0", gpu_checks)):
        for c in names:
            rec = {"type": "check", "device": dev, "name": c,
                   "status": "pass"}
            if c == "transfer.h2d_d2h":
                rec["metrics"] = {k: 20.0 for k in (
                    "h2d_pageable_gbps", "d2h_pageable_gbps",
                    "h2d_pinned_gbps", "d2h_pinned_gbps")}
            elif c in ("round.fp16", "round.bf16"):
                conv = agentlib.to_fp16_bits if c == "round.fp16" \
                    else agentlib.to_bf16_bits
                rec["got"] = [conv(x) for x in agentlib.ROUND_INPUTS]
            recs.append(rec)
    recs.append({"type": "bandwidth", "device": "cpu", "kind": "triad",
                 "status": "pass", "median_gbps": 10.0})
    for k in ("d2d", "h2d_pageable", "d2h_pageable", "h2d_pinned",
              "d2h_pinned"):
        recs.append({"type": "bandwidth", "device": "cuda:0", "kind": k,
                     "status": "pass", "median_gbps": 50.0})
    recs.append(gemm("cpu", "fp32", 100.0, 3))
    for dt in DTYPES:
        recs.append(gemm("cuda:0", dt, SPEED[dt], 20, PEAK[dt]))
    recs.append({"type": "batching", "device": "cuda:0", "dtype": "fp16",
                 "status": "pass", "scores": [1, 2], "expected_scores": [1, 2]})
    recs.append({"type": "summary", "exit_status": 0, "ratios": [
        {"kind": "gpu_vs_cpu", "device": "cuda:0", "dtype": "fp32", "n": N,
         "value": SPEED["fp32"] / 100.0}]})
    return recs


def finish(recs):
    """Numbers the records and recounts the summary; NDJSON text."""
    s = recs[-1]
    for kind, typ in (("checks", "check"), ("gemm", "gemm")):
        for st, key in (("pass", "passed"), ("fail", "failed"),
                        ("skipped", "skipped")):
            s[f"{kind}_{key}"] = sum(r["type"] == typ and r["status"] == st
                                     for r in recs)
    for i, r in enumerate(recs):
        r["schema"], r["seq"] = agentlib.SCHEMA_VERSION, i
    return "".join(json.dumps(r) + "\n" for r in recs)


def find(recs, **kw):
    return next(r for r in recs if all(r.get(k) == v for k, v in kw.items()))


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


class GpuRulesTest(unittest.TestCase):
    def problems(self, recs):
        r = check(finish(recs), 0)
        return r.returncode, r.stdout

    def assert_fails_with(self, recs, text):
        rc, out = self.problems(recs)
        self.assertEqual(rc, 1, out)
        self.assertIn(text, out)

    def test_h200_run_passes_and_prints_each_row(self):
        rc, out = self.problems(gpu_run())
        self.assertEqual(rc, 0, out)
        self.assertIn("gpu check: passed", out)
        # With its verification margin (6.1e-5 / 1e-6) and bandwidth.
        self.assertRegex(out, r"gpu check: cuda:0  bf16  n=4096 .* 64% peak "
                              r"margin 61\.0x \(err 1\.00e-06 tol 6\.10e-05\) "
                              r"bw 4300 GB/s "
                              r"spread 0\.020 reliable True throttled False "
                              r"[\d.]+ J [\d.]+ W 1000\.0 GFLOP/J")

    def test_low_fraction_of_peak_fails(self):
        recs = gpu_run()
        g = find(recs, type="gemm", device="cuda:0", dtype="fp16")
        g["fraction_of_peak"] = 0.29
        self.assert_fails_with(recs, "gemm cuda:0 fp16 n=4096: 0.29 of peak,"
                                     " want >= 0.3")

    def test_derived_peak_is_not_gated(self):
        # A peak the product table does not give is an upper estimate:
        # a low fraction of it says nothing about the agent.
        recs = gpu_run()
        g = find(recs, type="gemm", device="cuda:0", dtype="fp16")
        g["fraction_of_peak"] = 0.29
        g["peak_method"] = "derived"
        rc, out = self.problems(recs)
        self.assertEqual(rc, 0, out)

    def test_reduced_precision_reduction_fails(self):
        recs = gpu_run()
        find(recs, type="gemm", device="cuda:0", dtype="bf16")["math_mode"] = \
            "CUBLAS_COMPUTE_32F; CUBLAS_DEFAULT_MATH"
        self.assert_fails_with(recs, "allows reduced-precision (split-K)")

    def test_short_warmup_fails(self):
        recs = gpu_run()
        find(recs, type="gemm", device="cuda:0", dtype="fp32")["warmup_ms"] = 3.0
        self.assert_fails_with(recs, "warm-up 3.0 ms, want >= 200")

    def test_batches_without_graph_fail(self):
        recs = gpu_run()
        find(recs, type="gemm", device="cuda:0", dtype="tf32")["timing"] = \
            "CUDA events around batches of 40 calls (CUDA Graph capture " \
            "failed: cudaErrorStreamCaptureInvalidated)"
        self.assert_fails_with(recs, "small-n batches are one CUDA Graph")

    def test_energy_rules(self):
        recs = gpu_run()
        e = find(recs, type="gemm", device="cuda:0", dtype="fp16")["energy"]
        e["watts"] = 5000.0
        self.assert_fails_with(recs, "5000.0 W is not plausible")
        recs = gpu_run()
        e = find(recs, type="gemm", device="cuda:0", dtype="fp16")["energy"]
        e["gflop_per_joule"] *= 2
        self.assert_fails_with(recs, "inconsistent")
        recs = gpu_run()
        e = find(recs, type="gemm", device="cuda:0", dtype="fp16")["energy"]
        e.update(joules=None, watts=None, gflop_per_joule=None,
                 reason="NVML not available (libnvidia-ml.so.1 not found)")
        self.assert_fails_with(recs, "energy unknown: NVML not available")
        # A GPU without the counter (NVML's "Not Supported") passes.
        e["reason"] = "nvmlDeviceGetTotalEnergyConsumption: Not Supported " \
            "(NVML error 3)"
        rc, out = self.problems(recs)
        self.assertEqual(rc, 0, out)
        self.assertIn("energy n/a (nvmlDeviceGetTotalEnergyConsumption", out)
        recs = gpu_run()
        del find(recs, type="gemm", device="cuda:0", dtype="fp32")["energy"]
        self.assert_fails_with(recs, "gemm cuda:0 fp32 n=4096: no energy")

    def test_fp8_rows(self):
        # An H200's FP8 row at n = 4096 (a bf16 C) passes, and its n =
        # 1001 row may be skipped for the multiple of 16 cuBLASLt needs.
        def with_fp8(c_dtype="bf16", reason=None, n=None):
            recs = gpu_run()
            g = gemm("cuda:0", "fp8", 1370e3, 20, 1979e3)
            g["c_dtype"] = c_dtype
            g["math_mode"] = "cublasLtMatmul CUDA_R_8F_E4M3 (TN); " + MATH
            recs.insert(-2, g)
            if reason:
                g.clear()
                g.update(type="gemm", device="cuda:0", dtype="fp8", n=n,
                         status="skipped", median_ms=None, gflops=None,
                         reason=reason)
            recs[1]["gemm_total"] += 1
            return recs
        rc, out = self.problems(with_fp8())
        self.assertEqual(rc, 0, out)
        self.assertIn("gpu check: cuda:0  fp8   n=4096", out)
        rc, out = self.problems(with_fp8(
            reason="fp8: cuBLASLt's FP8 kernels need n a multiple of 16 "
                   "(16-byte aligned columns), n = 1001", n=1001))
        self.assertEqual(rc, 0, out)
        # The same skip at n = 4096, or C in fp8, is a problem.
        self.assert_fails_with(with_fp8(reason="fp8: no", n=N),
                               "gemm cuda:0 fp8 n=4096: skipped")
        self.assert_fails_with(with_fp8(c_dtype="fp8"),
                               "gemm cuda:0 fp8 n=4096: C is fp8, want bf16")

    def test_t4_what_it_can_do(self):
        recs = gpu_run("7.5", "Tesla T4")
        g = find(recs, type="gemm", device="cuda:0", dtype="tf32")
        g.clear()
        g.update(type="gemm", device="cuda:0", dtype="tf32", n=N,
                 status="skipped", median_ms=None, gflops=None,
                 reason="tf32: needs compute capability 8.0, GPU has 7.x")
        bf = find(recs, type="gemm", device="cuda:0", dtype="bf16")
        bf.update(copy.deepcopy(gemm("cuda:0", "bf16", 30e3, 20, 67e3)))
        bf["fraction_of_peak"] = 0.1  # fp32 units: exempt
        rc, out = self.problems(recs)
        self.assertEqual(rc, 0, out)
        # The same skip on an H200 is a problem.
        recs = gpu_run()
        g = find(recs, type="gemm", device="cuda:0", dtype="tf32")
        g.update(status="skipped", reason="tf32: no", median_ms=None,
                 gflops=None)
        self.assert_fails_with(recs, "gemm cuda:0 tf32 n=4096: skipped")

    def test_v100_with_cuda13_is_one_line(self):
        recs = gpu_run("7.0", "Tesla V100-SXM2-16GB")
        why = ("Tesla V100-SXM2-16GB (compute capability 7.0) needs CUDA "
               "12.9 or older: this agent was built with CUDA 13.0, which "
               "has no sm_70 (CPU results only)")
        recs[1]["devices"][1].update(status="skipped", reason=why)
        keep = []
        for r in recs:
            if r.get("device") == "cuda:0" and r["type"] in (
                    "check", "bandwidth", "batching"):
                continue
            if r.get("device") == "cuda:0" and r["type"] == "gemm":
                r = {"type": "gemm", "device": "cuda:0", "dtype": r["dtype"],
                     "n": N, "status": "skipped", "reason": why,
                     "median_ms": None, "gflops": None}
            keep.append(r)
        keep.insert(2, {"type": "check", "device": "cuda:0",
                        "name": "device.available", "status": "skipped",
                        "reason": why})
        keep[1]["checks_total"] = 1 + len(check_records.CPU_CHECKS)
        keep[1]["bandwidth_total"] = 1
        keep[1]["batching_total"] = 0
        keep[-1]["ratios"] = []
        rc, out = self.problems(keep)
        self.assertEqual(rc, 0, out)
        self.assertIn("gpu check: cuda:0: " + why, out)
        self.assertIn("gpu check: cpu     fp32  n=4096", out)
        self.assertNotIn("gemm cuda:0", out)
        # Any other reason for a skipped GPU is a problem.
        keep[1]["devices"][1]["reason"] = "cudaErrorNoDevice"
        self.assert_fails_with(keep, "plan: cuda:0 skipped: cudaErrorNoDevice")


if __name__ == "__main__":
    unittest.main(verbosity=2)
