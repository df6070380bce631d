"""Black-box tests of the agent on the CPU: run the binary, parse every
line of its output, and check the records against the schema
(docs/schema.md), against each other (plan totals, summary counts,
statistics of the samples) and against exact values kept here (the seed
facts, IEEE 754 conversions done by Python).

Run by CTest, one test class per CTest test:
    BF_AGENT=build/bin/agent python3 tests/agent/test_agent.py RecordsTest
"""

import ctypes
import ctypes.util
import math
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentlib  # noqa: E402
from agentlib import (SCHEMA_VERSION, SEED_LIMITS, SEED_TENSORS, is_int,  # noqa: E402
                      is_number, parse_records, run_agent)

# Built with oneDNN (CMake sets it): the CPU's bf16/fp16 may run
# through it where OpenBLAS has no sbgemm/shgemm.
ONEDNN = os.environ.get("BF_AGENT_ONEDNN") == "1"
TYPES = {"host", "plan", "check", "float_limits", "gemm", "summary",
         "bandwidth", "batching"}
STATUSES = {"pass", "fail", "skipped"}

# Every check the agent runs on the CPU (the tensor checks, minus the two
# that need a second device) and the device-independent limit checks.
CPU_CHECKS = set(SEED_TENSORS) | {
    "add.elementwise", "broadcast.row", "broadcast.bias",
    "layer.matmul_relu", "relu.nonfinite", "error.shape_mismatch",
    "transfer.to_device", "round.fp16", "round.bf16",
    "gemm.seed_arithmetic",
}
LIMIT_CHECKS = {"float_limits.fp32", "float_limits.fp16", "float_limits.bf16"}


def openblas_has(symbol):
    """Whether the OpenBLAS the system loads exports symbol (asked of the
    library directly, not of the agent)."""
    name = ctypes.util.find_library("openblas") or "libopenblas.so.0"
    lib = ctypes.CDLL(name)
    return hasattr(lib, symbol)


def row_major_strides(shape):
    strides, s = [], 1
    for d in reversed(shape):
        strides.insert(0, s)
        s *= d
    return strides


def mlp_scores():
    """The batching model's scores, from the formulas of docs/schema.md
    (agent/workloads/mlp.h) with explicit biases, in exact integer arithmetic."""
    x = [[(r * (f + 2) + f) % 23 % 7 - 3 for f in range(30)]
         for r in range(20)]
    w1 = [[(f * f + 2 * j + f * j) % 3 - 1 for j in range(16)]
          for f in range(30)]
    b1 = [j % 4 - 1 for j in range(16)]
    w2 = [j % 3 - 1 for j in range(16)]
    scores = []
    for r in range(20):
        h = [max(0, sum(x[r][f] * w1[f][j] for f in range(30)) + b1[j])
             for j in range(16)]
        scores.append(sum(h[j] * w2[j] for j in range(16)) + 3)
    return scores


EXPECTED_SCORES = mlp_scores()


class RunChecks:
    """Assertions shared by every test that runs a full agent job."""

    def assertUlpEqual(self, got, want, ulps=1):
        self.assertLessEqual(abs(got - want), ulps * math.ulp(want),
                             f"{got!r} != {want!r} within {ulps} ulp")

    def check_run(self, proc, sizes, dtypes, iters, warmup, checks=True,
                  cpu_warmup=None):
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        recs = parse_records(proc.stdout)
        self.check_envelope(recs)
        host, plan, summary = recs[0], recs[1], recs[-1]
        self.check_host(host, sizes, dtypes, iters, warmup)
        body = recs[2:-1]
        check_recs = [r for r in body if r["type"] == "check"]
        gemm_recs = [r for r in body if r["type"] == "gemm"]
        limit_recs = [r for r in body if r["type"] == "float_limits"]
        bw_recs = [r for r in body if r["type"] == "bandwidth"]
        batch_recs = [r for r in body if r["type"] == "batching"]
        self.assertEqual(len(check_recs) + len(gemm_recs) + len(limit_recs) +
                         len(bw_recs) + len(batch_recs), len(body))
        # Bandwidth before the sweep (the roofline needs it), batching
        # after it; each counted in the plan.
        self.assertEqual(plan["bandwidth_total"], len(bw_recs))
        self.assertEqual(plan["batching_total"], len(batch_recs))
        types = [r["type"] for r in body]
        if bw_recs and gemm_recs:
            self.assertLess(types.index("bandwidth"), types.index("gemm"))
        if batch_recs and gemm_recs:
            self.assertGreater(types.index("batching"),
                               len(types) - 1 - types[::-1].index("gemm"))
        for b in bw_recs:
            self.check_bandwidth(b, host)
        for b in batch_recs:
            self.check_batching(b, host)
        # The plan announces exactly what follows.
        self.assertEqual([d["device"] for d in plan["devices"]], ["cpu"])
        self.assertEqual(plan["devices"][0]["status"], "pass")
        self.assertIsNone(plan["devices"][0]["reason"])
        self.assertEqual(plan["checks_total"], len(check_recs))
        self.assertEqual(plan["gemm_total"], len(gemm_recs))
        self.assertEqual(plan["gemm_total"], len(sizes) * len(dtypes))
        if checks:
            self.check_limits(limit_recs)
            self.check_checks(check_recs)
        else:
            self.assertEqual(check_recs, [])
            self.assertEqual(limit_recs, [])
        # Records come sizes outer, dtypes inner, in the order asked.
        self.assertEqual([(g["n"], g["dtype"]) for g in gemm_recs],
                         [(n, dt) for n in sizes for dt in dtypes])
        cpu_iters = host["options"]["cpu_iters"]
        # CPU warm-up: --cpu-warmup, else the --warmup given, else 1.
        self.assertEqual(host["options"]["cpu_warmup"],
                         warmup if cpu_warmup is None else cpu_warmup)
        for g in gemm_recs:
            self.check_gemm(g, host, cpu_iters,
                            host["options"]["cpu_warmup"])
        self.check_summary(summary, check_recs, gemm_recs, proc.returncode)
        return recs

    def check_envelope(self, recs):
        self.assertGreaterEqual(len(recs), 3)
        for i, r in enumerate(recs):
            self.assertIs(type(r["schema"]), int, r)
            self.assertEqual(r["schema"], SCHEMA_VERSION)
            self.assertIn(r["type"], TYPES)
            self.assertEqual(r["seq"], i, "seq must count from 0 by 1")
        self.assertEqual(recs[0]["type"], "host")
        self.assertEqual(recs[1]["type"], "plan")
        self.assertEqual(recs[-1]["type"], "summary")
        types = [r["type"] for r in recs]
        for t in ("host", "plan", "summary"):
            self.assertEqual(types.count(t), 1, t)

    def check_host(self, h, sizes, dtypes, iters, warmup):
        self.assertIsInstance(h["agent"]["version"], str)
        self.assertRegex(h["agent"]["source_hash"], r"^[0-9a-f]{16}$|^unknown$")
        for k in ("hostname", "os", "kernel", "arch", "cpu_model"):
            self.assertTrue(h[k] is None or (isinstance(h[k], str) and h[k]),
                            k)
        self.assertEqual(h["arch"], os.uname().machine)
        self.assertEqual(h["kernel"], os.uname().release)
        self.assertEqual(h["cpu_cores"], os.cpu_count())
        self.assertTrue(is_int(h["memory_bytes"]) and h["memory_bytes"] > 0)
        ob = h["openblas"]
        self.assertRegex(ob["version"], r"^\d+\.\d+\.\d+")
        self.assertTrue(is_int(ob["threads"]) and ob["threads"] >= 1)
        self.assertIsInstance(ob["core"], str)
        # Replaced only when OpenBLAS fell back to Prescott by itself.
        if ob["core_replaced"] is not None:
            self.assertEqual(ob["core_replaced"], "Prescott")
            self.assertIsNone(os.environ.get("OPENBLAS_CORETYPE"))
            self.assertIn(ob["core"], ("SkylakeX", "Haswell", "Sandybridge"))
        self.assertIn(ob["version"], ob["config"])
        self.assertEqual(ob["sbgemm"], openblas_has("cblas_sbgemm"))
        self.assertEqual(ob["shgemm"], openblas_has("cblas_shgemm"))
        for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                    "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
            self.assertEqual(ob["env"][var], os.environ.get(var))
        self.assertIn(h["cuda"]["status"], ("pass", "skipped"))
        self.assertIsInstance(h["gpus"], list)
        opts = h["options"]
        self.assertEqual(opts["sizes"], sizes)
        self.assertEqual(opts["dtypes"], dtypes)
        self.assertEqual(opts["iters"], iters)
        self.assertEqual(opts["warmup"], warmup)

    def check_limits(self, limit_recs):
        by_dtype = {r["dtype"]: r for r in limit_recs}
        self.assertEqual(set(by_dtype), {"fp32", "fp16", "bf16", "tf32"})
        formats = {"fp32": (32, 8, 23), "fp16": (16, 5, 10),
                   "bf16": (16, 8, 7), "tf32": (19, 8, 10)}
        for dt, (bits, e, m) in formats.items():
            r = by_dtype[dt]
            self.assertEqual((r["bits"], r["exponent_bits"],
                              r["mantissa_bits"]), (bits, e, m))
            bias = 2 ** (e - 1) - 1
            # cJSON prints 15 significant digits when they read back
            # within DBL_EPSILON, so a value not among the seed's exact
            # constants may come back one unit in the last place off.
            self.assertUlpEqual(r["smallest_subnormal"],
                                2.0 ** (1 - bias - m))
            if dt in SEED_LIMITS:
                for k, v in SEED_LIMITS[dt].items():
                    self.assertEqual(r[k], v, f"{dt} {k}")
            else:
                self.assertEqual(r["max"], (2 - 2.0 ** -10) * 2.0 ** 127)
                self.assertEqual(r["eps"], 2.0 ** -10)
                self.assertEqual(r["smallest_normal"], 2.0 ** -126)

    def check_checks(self, check_recs):
        names = [c["name"] for c in check_recs]
        self.assertEqual(len(names), len(set(names)), "a check ran twice")
        self.assertEqual(set(names), CPU_CHECKS | LIMIT_CHECKS)
        for c in check_recs:
            self.assertEqual(c["device"], "cpu")
            self.assertEqual(c["status"], "pass", c)
            self.assertIsNone(c["reason"])
            self.assertEqual(c["got"], c["expected"], c["name"])
            name = c["name"]
            if name in SEED_TENSORS:
                dtype, rank, shape, elem, total = SEED_TENSORS[name]
                exp = c["expected"]
                self.assertEqual(exp["dtype"], dtype)
                self.assertEqual(exp["rank"], rank)
                self.assertEqual(len(exp["shape"]), rank)
                if shape is not None:
                    self.assertEqual(exp["shape"], shape)
                self.assertEqual(exp["strides"], row_major_strides(exp["shape"]))
                self.assertEqual(exp["element_bytes"], elem)
                numel = 1
                for d in exp["shape"]:
                    numel *= d
                self.assertEqual(exp["total_bytes"], numel * elem)
                self.assertEqual(exp["elements"], numel)
                if name.startswith("props.image_batch"):
                    self.assertEqual(exp["elements"], 4_816_896)  # seed
                if total is not None:
                    self.assertEqual(exp["total_bytes"], total)
                self.assertEqual(exp["device"], "cpu")
                self.assertIs(exp["values_ok"], True)
            elif name in ("round.fp16", "round.bf16"):
                conv = (agentlib.to_fp16_bits if name == "round.fp16"
                        else agentlib.to_bf16_bits)
                self.assertEqual(c["expected"],
                                 [conv(x) for x in agentlib.ROUND_INPUTS])
            elif name.startswith("float_limits."):
                dt = name.split(".")[1]
                for k, v in SEED_LIMITS[dt].items():
                    self.assertEqual(c["expected"][k], v)
            elif name == "add.elementwise":
                self.assertEqual(c["expected"]["values"], [11, 22, 33])
            elif name == "broadcast.row":
                self.assertEqual(c["expected"]["values"], [2, 3, 4, 2, 3, 4])
                self.assertEqual(c["expected"]["row_view_strides"], [0, 1])
                self.assertIs(c["expected"]["row_copied"], False)
            elif name == "gemm.seed_arithmetic":
                # seed-facts.md: 2 n^3 FLOPs; 192 MiB fp32, 96 MiB fp16
                # of A, B and C at n = 4096
                self.assertEqual(c["expected"]["flops_n4096"], 2 * 4096 ** 3)
                self.assertEqual(c["expected"]["operand_bytes_fp32_n4096"],
                                 192 * 2 ** 20)
                self.assertEqual(c["expected"]["operand_bytes_fp16_n4096"],
                                 96 * 2 ** 20)
            elif name == "relu.nonfinite":
                self.assertIs(c["expected"]["nan_stays_nan"], True)
            elif name in ("broadcast.bias", "layer.matmul_relu"):
                self.assertEqual(c["expected"]["shape"], [64, 16])
                self.assertEqual(c["expected"]["max_abs_error"], 0)

    def check_gemm(self, g, host, cpu_iters, warmup):
        n, dt = g["n"], g["dtype"]
        self.assertEqual(g["device"], "cpu")
        if dt == "fp32" or (dt == "bf16" and host["openblas"]["sbgemm"]) or \
                (dt == "fp16" and host["openblas"]["shgemm"]):
            self.check_gemm_pass(g, cpu_iters, warmup)
            self.assertTrue(g["library"].startswith("OpenBLAS "), g)
            return
        # bf16/fp16 without OpenBLAS's kernel: through oneDNN in an
        # agent built with it (tests/agent/test_onednn.py checks those
        # rows in full), else skipped naming both libraries.
        if dt in ("bf16", "fp16") and ONEDNN and g["status"] == "pass":
            self.check_gemm_pass(g, cpu_iters, warmup)
            self.assertTrue(g["library"].startswith("oneDNN "), g)
            return
        self.assertEqual(g["status"], "skipped", g)
        self.assertIsNone(g["median_ms"])
        self.assertIsNone(g["gflops"])
        symbol = {"fp16": "cblas_shgemm", "bf16": "cblas_sbgemm"}.get(dt)
        if symbol:
            self.assertFalse(openblas_has(symbol))
            self.assertIn(symbol, g["reason"])
            self.assertIn(host["openblas"]["version"], g["reason"])
            self.assertIn("; %s: oneDNN " % dt if ONEDNN else
                          "; oneDNN: not in this build", g["reason"])
        else:
            self.assertEqual(dt, "tf32")
            self.assertIn("tf32", g["reason"])

    def check_gemm_pass(self, g, iters, warmup):
        n, dt = g["n"], g["dtype"]
        self.assertEqual(g["status"], "pass", g)
        self.assertIsNone(g["reason"])
        self.assertRegex(g["library"], r"^(OpenBLAS|oneDNN) ")
        self.assertIsInstance(g["math_mode"], str)
        self.assertEqual(g["iters"], iters)
        self.assertEqual(g["warmup"], warmup)
        s = g["samples_ms"]
        self.assertEqual(len(s), iters)
        self.assertTrue(all(is_number(x) and x > 0 for x in s), s)
        # An odd count's median is a sample, printed identically; an even
        # count's is the mean of two, computed by the agent from the
        # unprinted doubles.
        self.assertUlpEqual(g["median_ms"], statistics.median(s))
        self.assertEqual(g["min_ms"], min(s))
        self.assertEqual(g["max_ms"], max(s))
        want = 2 * n ** 3 / g["median_ms"] / 1e6  # GFLOP/s from ms
        self.assertLessEqual(abs(g["gflops"] - want), 1e-9 * want)
        self.assertEqual(g["nonfinite_elements"], 0)
        self.assertTrue(0 <= g["max_rel_error"] <= g["tolerance"], g)
        # The last C, and the first timed one's too when there were more
        # iterations: every element up to n = 64, else 32 x 32 sampled.
        per_output = n * n if n <= 64 else 32 * 32
        self.assertEqual(g["verified_elements"],
                         per_output * (2 if iters > 1 else 1))
        # 16 sqrt(n) 2^-24 (fp32 accumulation; agent/workloads/gemm.c)
        self.assertAlmostEqual(g["tolerance"], 16 * n ** 0.5 * 2.0 ** -24,
                               delta=1e-15)
        self.assertEqual(g["output_roundoff"], 2.0 ** -24)
        self.assertTrue(is_int(g["verify_seed"]) and
                        0 <= g["verify_seed"] < 2 ** 48, g)
        ebytes = {"fp32": 4, "fp16": 2, "bf16": 2}[dt]
        self.assertEqual(g["c_dtype"], "fp32")  # OpenBLAS writes fp32 C
        self.assertEqual(g["operand_bytes"], 2 * n * n * ebytes + 4 * n * n)
        self.assertTrue(g["peak_mib"] is None or g["peak_mib"] >= 0)
        if "bandwidth_kind" in g:
            self.check_roofline(g)

    def check_roofline(self, g):
        """The roofline of docs/schema.md: AI = 2 n^3 / operand bytes,
        bound min(peak, AI x bandwidth)."""
        n = g["n"]
        self.assertEqual(g["bandwidth_kind"], "triad")
        self.assertTrue(is_number(g["bandwidth_gbps"]) and
                        g["bandwidth_gbps"] > 0)
        ai = 2 * n ** 3 / g["operand_bytes"]
        self.assertLessEqual(abs(g["arithmetic_intensity"] - ai), 1e-12 * ai)
        if g["peak_gflops"] is None:
            self.assertIsNone(g["bound"])
            self.assertIsNone(g["roofline_gflops"])
            return
        mem = ai * g["bandwidth_gbps"]
        roof = min(g["peak_gflops"], mem)
        self.assertLessEqual(abs(g["roofline_gflops"] - roof), 1e-9 * roof)
        self.assertEqual(g["bound"],
                         "memory" if mem < g["peak_gflops"] else "compute")
        want = g["gflops"] / g["roofline_gflops"]
        self.assertLessEqual(abs(g["fraction_of_roofline"] - want),
                             1e-9 * want)

    def check_bandwidth(self, b, host):
        """A CPU triad record: every sample, the median, GB/s from the
        bytes counted (3 fp64 arrays) and the median."""
        self.assertEqual((b["device"], b["kind"]), ("cpu", "triad"))
        self.assertEqual(b["status"], "pass", b)
        self.assertIsNone(b["reason"])
        self.assertEqual(b["dtype"], "fp64")
        self.assertEqual(b["array_bytes"] % 64, 0)
        self.assertEqual(b["bytes"], 3 * b["array_bytes"])
        self.assertEqual(b["threads"], host["openblas"]["threads"])
        s = b["samples_ms"]
        self.assertEqual(len(s), b["iters"])
        self.assertEqual((b["warmup"], b["iters"]), (1, 10))  # fixed
        self.assertTrue(all(is_number(x) and x > 0 for x in s), s)
        self.assertUlpEqual(b["median_ms"], statistics.median(s))
        self.assertEqual((b["min_ms"], b["max_ms"]), (min(s), max(s)))
        want = b["bytes"] / b["median_ms"] / 1e6  # GB/s from ms
        self.assertLessEqual(abs(b["median_gbps"] - want), 1e-9 * want)
        self.assertIn("STREAM", b["counting"])

    def check_batching(self, b, host):
        """The CPU's batching record: the seed's shapes, exact scores,
        latency and throughput consistent with the samples."""
        self.assertEqual((b["device"], b["dtype"]), ("cpu", "fp32"))
        self.assertEqual(b["status"], "pass", b)
        self.assertIsNone(b["reason"])
        # seed-facts.md: 2,000 transactions/s gathered for 10 ms -> a
        # (20, 30) tensor; the lesson's layer (30, 16), relu.
        self.assertEqual(b["rows"], 2000 * 10 // 1000)
        self.assertEqual(b["features"], 30)
        self.assertEqual(b["layers"], [30, 16, 1])
        self.assertEqual(b["model"], "30-16-relu-1")
        self.assertTrue(b["library"].startswith("OpenBLAS "))
        self.assertEqual(b["math_mode"], "cblas_sgemm")
        self.assertEqual(b["expected_scores"], EXPECTED_SCORES)
        self.assertEqual(b["scores"], EXPECTED_SCORES)
        self.assertEqual((b["max_abs_diff"], b["max_abs_error"],
                          b["tolerance"]), (0, 0, 0))
        for key in ("single_samples_ms", "batch_samples_ms"):
            self.assertEqual(len(b[key]), b["iters"])
            self.assertTrue(all(is_number(x) and x > 0 for x in b[key]))
        self.assertUlpEqual(b["single_ms"],
                            statistics.median(b["single_samples_ms"]))
        self.assertUlpEqual(b["batch_ms"],
                            statistics.median(b["batch_samples_ms"]))
        self.assertUlpEqual(b["single_rows_per_s"], 1e3 / b["single_ms"], 4)
        self.assertUlpEqual(b["batch_rows_per_s"], 20e3 / b["batch_ms"], 4)
        self.assertUlpEqual(b["speedup"], b["batch_rows_per_s"] /
                            b["single_rows_per_s"], 8)

    def check_summary(self, s, check_recs, gemm_recs, rc):
        for kind, recs in (("checks", check_recs), ("gemm", gemm_recs)):
            for st, key in (("pass", "passed"), ("fail", "failed"),
                            ("skipped", "skipped")):
                self.assertEqual(s[f"{kind}_{key}"],
                                 sum(r["status"] == st for r in recs),
                                 f"{kind}_{key}")
        self.assertEqual(s["exit_status"], rc)
        # No GPU here: the only ratios are a passing CPU bf16/fp16 row's
        # speed against fp32 at its n (oneDNN's, or OpenBLAS's
        # sbgemm/shgemm), each the two rows' GFLOP/s divided.
        passed = {(r["dtype"], r["n"]): r for r in gemm_recs
                  if r["status"] == "pass"}
        want = [(dt, n) for (dt, n) in passed
                if dt in ("bf16", "fp16") and ("fp32", n) in passed]
        self.assertEqual(sorted((x["dtype"], x["n"]) for x in s["ratios"]),
                         sorted(want))
        for x in s["ratios"]:
            self.assertEqual((x["kind"], x["device"]), ("vs_fp32", "cpu"))
            self.assertAlmostEqual(
                x["value"], passed[(x["dtype"], x["n"])]["gflops"] /
                passed[("fp32", x["n"])]["gflops"], delta=1e-9 * x["value"])
        self.assertTrue(is_number(s["wall_ms"]) and s["wall_ms"] > 0)


class RecordsTest(unittest.TestCase, RunChecks):
    """One small CPU run, every record checked."""

    def test_cpu_run(self):
        p = run_agent("--size", "64", "--device", "cpu", "--iters", "3",
                      "--warmup", "1")
        recs = self.check_run(p, [64], ["fp32", "fp16", "bf16"], 3, 1)
        # cpu_iters default: min(iters, max(3, iters / 4)).
        self.assertEqual(recs[0]["options"]["cpu_iters"], 3)

    def test_cpu_warmup(self):
        """--cpu-warmup sets the CPU's untimed iterations alone."""
        p = run_agent("--size", "32", "--device", "cpu", "--iters", "3",
                      "--warmup", "4", "--cpu-warmup", "2", "--no-checks",
                      "--dtypes", "fp32")
        recs = self.check_run(p, [32], ["fp32"], 3, 4, checks=False,
                              cpu_warmup=2)
        g = [r for r in recs if r["type"] == "gemm"][0]
        self.assertEqual(g["warmup"], 2)

    def test_openblas_core_env(self):
        """A core the user forces is kept, and not reported as replaced."""
        p = run_agent("--size", "16", "--device", "cpu", "--no-checks",
                      "--dtypes", "fp32", "--iters", "1", "--warmup", "0",
                      env=dict(os.environ, OPENBLAS_CORETYPE="Haswell"))
        self.assertEqual(p.returncode, 0, p.stderr)
        ob = parse_records(p.stdout)[0]["openblas"]
        self.assertEqual(ob["core"], "Haswell")
        self.assertIsNone(ob["core_replaced"])
        self.assertEqual(ob["env"]["OPENBLAS_CORETYPE"], "Haswell")

    def test_fp8_skipped_with_reason(self):
        """fp8 runs only on a GPU of compute capability 8.9 or later: on
        the CPU, and on a GPU this machine cannot run, the row is skipped
        with the reason, and the reader accepts the records."""
        p = run_agent("--size", "32", "--device", "all", "--iters", "2",
                      "--warmup", "0", "--dtypes", "fp8", "--no-checks",
                      "--no-bandwidth", "--no-batching")
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = parse_records(p.stdout)
        gemms = [r for r in recs if r["type"] == "gemm"]
        cpu = [g for g in gemms if g["device"] == "cpu"]
        self.assertEqual(len(cpu), 1)
        self.assertEqual(cpu[0]["dtype"], "fp8")
        self.assertEqual(cpu[0]["status"], "skipped")
        self.assertIn("no FP8 GEMM", cpu[0]["reason"])
        for g in gemms:
            if g["device"] != "cpu" and g["status"] == "skipped":
                self.assertTrue(g["reason"])
        self.assertIn("CUDA_MODULE_LOADING", recs[0]["env"])
        validator = os.environ.get("BF_VALIDATE_RECORDS")
        if validator:
            v = subprocess.run([validator], input=p.stdout,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(v.returncode, 0, v.stdout + v.stderr)

    def test_validated_by_the_reader(self):
        """What the agent writes, ctl's reader (bf_schema_parse_record)
        accepts, line by line."""
        validator = os.environ.get("BF_VALIDATE_RECORDS")
        if not validator:
            self.skipTest("BF_VALIDATE_RECORDS is not set")
        p = run_agent("--size", "32", "--device", "all", "--iters", "2",
                      "--warmup", "0", "--dtypes", "fp32,fp16,bf16,tf32")
        self.assertEqual(p.returncode, 0, p.stderr)
        v = subprocess.run([validator], input=p.stdout, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertEqual(v.stdout.splitlines()[-1],
                         f"{len(p.stdout.splitlines())} records, 0 rejected")

    def test_reader_rejects_broken_output(self):
        """The validator is not a rubber stamp: a damaged line fails."""
        validator = os.environ.get("BF_VALIDATE_RECORDS")
        if not validator:
            self.skipTest("BF_VALIDATE_RECORDS is not set")
        p = run_agent("--size", "16", "--device", "cpu", "--iters", "1",
                      "--warmup", "0", "--no-checks")
        lines = p.stdout.splitlines()
        lines[1] = lines[1].replace('"schema":1', '"schema":2')
        v = subprocess.run([validator], input="\n".join(lines) + "\n",
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(v.returncode, 1)
        self.assertIn("line 2:", v.stdout)


class SweepTest(unittest.TestCase, RunChecks):
    """A --sizes sweep with every dtype, an even number of samples (the
    median is then the mean of the middle two) and sizes on both sides of
    the full-verification limit (64)."""

    def test_sweep(self):
        sizes, dtypes = [32, 64, 96], ["fp32", "fp16", "bf16", "tf32"]
        p = run_agent("--sizes", "32,64,96", "--dtypes", ",".join(dtypes),
                      "--device", "cpu", "--iters", "4", "--cpu-iters", "4",
                      "--warmup", "0", "--no-checks")
        recs = self.check_run(p, sizes, dtypes, 4, 0, checks=False)
        self.assertEqual(recs[1]["checks_total"], 0)
        for g in recs:
            if g["type"] == "gemm" and g["status"] == "pass":
                s = sorted(g["samples_ms"])
                self.assertUlpEqual(g["median_ms"], (s[1] + s[2]) / 2)
                # Not one of the samples, unless the middle two are equal
                # (sub-microsecond GEMMs often time alike).
                if s[1] != s[2]:
                    self.assertNotIn(g["median_ms"], g["samples_ms"])

    def test_seed_changes_inputs_not_results(self):
        """Another --seed gives other inputs (another error figure) and
        still passes verification."""
        errs = []
        for seed in ("1", "2"):
            p = run_agent("--size", "48", "--dtypes", "fp32", "--device",
                          "cpu", "--iters", "1", "--warmup", "0",
                          "--no-checks", "--seed", seed)
            self.assertEqual(p.returncode, 0, p.stderr)
            g = [r for r in parse_records(p.stdout) if r["type"] == "gemm"]
            self.assertEqual(g[0]["status"], "pass")
            errs.append(g[0]["max_rel_error"])
        self.assertNotEqual(errs[0], errs[1])

    def test_no_gemm(self):
        p = run_agent("--size", "64", "--device", "cpu", "--no-gemm")
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = parse_records(p.stdout)
        self.assertEqual(recs[1]["gemm_total"], 0)
        self.assertFalse([r for r in recs if r["type"] == "gemm"])
        self.assertEqual(recs[1]["checks_total"],
                         sum(r["type"] == "check" for r in recs))
        self.assertEqual(recs[-1]["checks_passed"], recs[1]["checks_total"])


class UsageTest(unittest.TestCase):
    """Bad arguments: exit status 2, nothing on stdout, and exactly two
    lines on stderr: "agent: <what>: <why>" naming the argument, then the
    hint "try 'agent --help'"."""

    # (arguments, the argument the message must name, the whole message)
    CASES = [
        (["--size", "0"], "--size",
         "--size '0': expected an integer from 1 to 65536"),
        (["--size", "-5"], "--size",
         "--size '-5': expected an integer from 1 to 65536"),
        (["--size", "abc"], "--size",
         "--size 'abc': expected an integer from 1 to 65536"),
        (["--size", "1.5"], "--size",
         "--size '1.5': expected an integer from 1 to 65536"),
        (["--sizes", "64,0"], "--sizes",
         "--sizes '0': expected an integer from 1 to 65536"),
        (["--dtypes", "fp4"], "--dtypes",
         "--dtypes 'fp4': unknown dtype 'fp4' (use fp32, fp16, bf16, tf32, fp8)"),
        (["--device", "tpu"], "--device",
         "--device 'tpu': expected cpu, cuda or all"),
        (["--iters", "0"], "--iters",
         "--iters '0': expected an integer from 1 to 100000"),
        (["--warmup", "x"], "--warmup",
         "--warmup 'x': expected an integer from 0 to 100000"),
        (["--size"], "--size", "--size: needs a value"),
        (["--bogus"], "--bogus", "--bogus: unknown option"),
        (["-q"], "-q", "-q: unknown option"),
        (["-qv"], "-q", "-q: unknown option"),
        (["--human=yes"], "--human", "--human=yes: takes no value"),
        (["--size", "64", "extra"], "extra", "'extra': unexpected argument"),
    ]

    def test_bad_arguments(self):
        for args, named, msg in self.CASES:
            with self.subTest(args=args):
                p = run_agent(*args, timeout=60)
                self.assertEqual(p.returncode, 2)
                self.assertEqual(p.stdout, "")
                self.assertEqual(p.stderr,
                                 f"agent: {msg}\ntry 'agent --help'\n")
                self.assertIn(named, p.stderr.splitlines()[0])

    def test_help_and_version(self):
        p = run_agent("--help", timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.startswith("usage: agent "))
        self.assertIn("--sizes", p.stdout)
        self.assertEqual(p.stderr, "")
        p = run_agent("--version", timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout,
                         r"^agent \d+\.\d+\.\d+ \(source \S+, schema 1\)\n$")

    def test_help_cpu_iterations_formula(self):
        """The CPU-iterations default that --help states is the one the
        agent takes: the formula is read from the help text and
        evaluated (integer division) for each --iters, against the
        host record's options.cpu_iters."""
        text = " ".join(run_agent("--help", timeout=60).stdout.split())
        m = re.search(r"CPU iterations ((?:min|max)\([^,]*(?:,[^()]*"
                      r"(?:\([^()]*\))?)*\)),", text)
        self.assertIsNotNone(m, text)
        formula = m.group(1)
        self.assertRegex(formula, r"^[a-z0-9(), /]+$")
        for iters in (1, 2, 3, 4, 12, 15, 16, 20, 100):
            with self.subTest(iters=iters):
                want = eval(formula.replace("/", "//"),   # noqa: S307
                            {"__builtins__": {}, "min": min, "max": max},
                            {"iters": iters})
                p = run_agent("--iters", str(iters), "--no-gemm",
                              "--no-checks", "--no-bandwidth",
                              "--no-batching", "--device", "cpu",
                              timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)
                host = parse_records(p.stdout)[0]
                self.assertEqual(host["options"]["cpu_iters"], want,
                                 "--help says %s" % formula)


class HumanTest(unittest.TestCase):
    """--human prints the same run as a readable report."""

    def test_human(self):
        p = run_agent("--size", "64", "--device", "cpu", "--iters", "2",
                      "--warmup", "0", "--human", "--bandwidth-mib", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertNotIn("{", out)
        for heading in ("=== host ===", "=== float limits ===",
                        "=== checks ===", "=== memory bandwidth", "=== GEMM",
                        "=== batching", "=== summary ==="):
            self.assertEqual(out.count(heading), 1, heading)
        # The limits as the seed printed them.
        self.assertIn("fp32  max=3.403e+38 eps=1.192e-07", out)
        self.assertIn("fp16  max=6.550e+04 eps=9.766e-04", out)
        self.assertIn("bf16  max=3.390e+38 eps=7.812e-03", out)
        self.assertRegex(out, r"ok +cpu +props\.image_batch_fp32 +rank=4 "
                              r"shape=\(32, 3, 224, 224\) dtype=fp32 "
                              r"elem=4B total=19267584B")
        self.assertRegex(out, r"props\.vector +rank=1 shape=\(3,\) ")
        self.assertRegex(out, r"props\.scalar +rank=0 shape=\(\) ")
        self.assertRegex(out, r"(?m)^device +dtype +n +median_ms +GFLOP/s "
                              r"+peak_MiB +FLOP/B +roofline +bound +%roof "
                              r"+%peak +vs_ref +check$")
        # n = 64 at fp32: 2 n^3 / (3 n^2 4 bytes) = 10.7 FLOP/B. This
        # CPU has no published reference: vs_ref n/a.
        m = re.search(r"(?m)^cpu +fp32 +64 +(\d+\.\d{3}) +(\d+\.\d) +\S+ "
                      r"+10\.7 +(\d+\.\d|n/a) +(compute|memory|n/a) +\S+ "
                      r"+(\d+\.\d) +n/a +pass$", out)
        self.assertIsNotNone(m, out)
        self.assertGreater(float(m.group(2)), 0)
        self.assertGreater(float(m.group(5)), 0)
        # Missing values print as n/a, never 0.
        # A 16-bit row the libraries here cannot run (fp16 on this CPU,
        # with or without oneDNN 2.6) prints n/a throughout.
        if re.search(r"(?m)^cpu +fp16 +64 .* skipped \(", out):
            self.assertRegex(out, r"(?m)^cpu +fp16 +64 +n/a +n/a +n/a +n/a "
                                  r"+n/a +n/a +n/a +n/a +n/a +skipped \(fp16: "
                                  r".*cblas_shgemm(; fp16: oneDNN .*|; oneDNN: "
                                  r"not in this build .*)?\)$")
        # Where %peak comes from: the rated peak's basis and the bound's.
        m = re.search(r"(?m)^cpu fp32: rated (\d+\.\d) GFLOP/s \((probe|table|isa)"
                      r"[a-z+]*\): \d+ .* cores? x \d+ FLOP/cycle \(.*\) x "
                      r"\d\.\d{3} GHz .*\n  bound (\d+\.\d) GFLOP/s: ", out)
        self.assertIsNotNone(m, out)
        self.assertGreaterEqual(float(m.group(3)), float(m.group(1)))
        self.assertEqual(out.count("=== peaks"), 1)
        self.assertRegex(out, r"(?m)^cpu +triad +1\.0 +\d+\.\d{3} +\d+\.\d "
                              r"+\d+ +pass$")
        m = re.search(r"(?m)^cpu +fp32 +(\d+\.\d{4}) +(\d+\.\d{4}) +(\d+) "
                      r"+(\d+) +(\d+\.\d) +pass$", out)
        self.assertIsNotNone(m, out)
        # fp32 passes; bf16 and fp16 pass or are skipped (the rows above).
        npass = 1 + len(re.findall(r"(?m)^cpu +(bf16|fp16) +64 .* pass$", out))
        self.assertRegex(out, r"(?m)^checks: 24 passed, 0 failed, 0 skipped; "
                              r"GEMM: %d passed, 0 failed, %d skipped$"
                              % (npass, 3 - npass))
        self.assertNotRegex(out, r"FAIL")


class StreamTest(unittest.TestCase):
    """Records are written and flushed one by one, not when the agent
    exits: through a pipe (where stdio would buffer), the host, plan,
    limit and check records can be read while a long GEMM is still
    running."""

    # all but gemm: the triad comes before it
    BEFORE_GEMM = 2 + 4 + len(CPU_CHECKS | LIMIT_CHECKS) + 1

    def start(self, *extra):
        if not agentlib.AGENT:
            self.skipTest("BF_AGENT is not set")
        # Many warm-up iterations of a large GEMM: minutes of work that
        # the test never waits for.
        return subprocess.Popen([agentlib.AGENT, "--size", "2048", "--device",
                                 "cpu", "--dtypes", "fp32", "--warmup", "1000",
                                 "--iters", "1", "--bandwidth-mib", "3",
                                 *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, bufsize=0)

    def read_lines(self, p, count, timeout=120):
        """Reads from the pipe's file descriptor (no buffering on this
        side) until count complete lines have arrived."""
        data = b""
        deadline = time.monotonic() + timeout
        fd = p.stdout.fileno()
        while data.count(b"\n") < count:
            left = deadline - time.monotonic()
            self.assertGreater(left, 0, "only %d lines" % data.count(b"\n"))
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                self.assertTrue(chunk, "stdout closed early")
                data += chunk
        return data.decode()

    def test_records_arrive_before_exit(self):
        p = self.start()
        try:
            text = self.read_lines(p, self.BEFORE_GEMM)
            # Everything before the GEMM has arrived; the agent is still
            # working on the GEMM.
            self.assertIsNone(p.poll(), "the agent had already exited")
            recs = parse_records(text)
            self.assertEqual(len(recs), self.BEFORE_GEMM)
            self.assertEqual(recs[0]["type"], "host")
            self.assertEqual(recs[1]["type"], "plan")
            self.assertEqual(recs[-1]["type"], "bandwidth")
            self.assertEqual(recs[1]["gemm_total"], 1)
        finally:
            p.kill()
            p.wait(timeout=60)
            p.stdout.close()
            p.stderr.close()

    def test_exit_on_hangup(self):
        """With --exit-on-hangup the agent stops, exit status 130, soon
        after the reader of its stdout goes away, even in the middle of a
        GEMM that writes nothing."""
        p = self.start("--exit-on-hangup")
        try:
            self.read_lines(p, self.BEFORE_GEMM)
            self.assertIsNone(p.poll())
            p.stdout.close()
            rc = p.wait(timeout=30)
            self.assertEqual(rc, 130)
            self.assertEqual(p.stderr.read().decode(),
                             "agent: stdout reader went away, stopping\n")
        finally:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=60)
            p.stderr.close()


class ColdCacheTest(unittest.TestCase):
    """--cold-cache flushes the caches before every timed call: recorded in
    the options (so a baseline with warm caches is not compared) and in
    each gemm record's timing; results still verified."""

    def test_cold_cache(self):
        r = run_agent("--device", "cpu", "--dtypes", "fp32", "--sizes", "96",
                      "--no-checks", "--cold-cache")
        self.assertEqual(r.returncode, 0, r.stderr)
        recs = agentlib.parse_records(r.stdout)
        host = recs[0]
        self.assertIs(host["options"]["cold_cache"], True)
        g = [x for x in recs if x["type"] == "gemm"][0]
        self.assertEqual(g["status"], "pass", g)
        self.assertIn("caches flushed before each", g["timing"])
        r = run_agent("--device", "cpu", "--dtypes", "fp32", "--sizes", "96",
                      "--no-checks")
        recs = agentlib.parse_records(r.stdout)
        self.assertNotIn("cold_cache", recs[0]["options"])
        g = [x for x in recs if x["type"] == "gemm"][0]
        self.assertNotIn("flushed", g["timing"])


class WorkloadsTest(unittest.TestCase, RunChecks):
    """Bandwidth, the roofline and the seed's batching case (issue 14),
    on small sizes: values and their arithmetic, never speeds."""

    def test_bandwidth_roofline_batching(self):
        p = run_agent("--size", "64", "--device", "cpu", "--iters", "3",
                      "--warmup", "1", "--dtypes", "fp32", "--no-checks",
                      "--bandwidth-mib", "3")
        recs = self.check_run(p, [64], ["fp32"], 3, 1, checks=False)
        bws = [r for r in recs if r["type"] == "bandwidth"]
        self.assertEqual(len(bws), 1)
        # 3 MiB over the triad's three arrays: 1 MiB each.
        self.assertEqual(bws[0]["array_bytes"], 2 ** 20)
        self.assertEqual(bws[0]["bytes"], 3 * 2 ** 20)
        g = [r for r in recs if r["type"] == "gemm"][0]
        self.assertEqual(g["bandwidth_gbps"], bws[0]["median_gbps"])
        self.assertEqual(g["arithmetic_intensity"], 2 * 64 ** 3 / (12 * 64 ** 2))
        self.assertEqual(len([r for r in recs if r["type"] == "batching"]), 1)
        s = recs[-1]
        self.assertEqual((s["bandwidth_passed"], s["bandwidth_failed"],
                          s["bandwidth_skipped"]), (1, 0, 0))
        self.assertEqual((s["batching_passed"], s["batching_failed"],
                          s["batching_skipped"]), (1, 0, 0))

    def test_off(self):
        """--no-bandwidth and --no-batching: no records, totals 0, and no
        roofline keys in the gemm records."""
        p = run_agent("--size", "32", "--device", "cpu", "--iters", "2",
                      "--dtypes", "fp32", "--no-checks", "--no-bandwidth",
                      "--no-batching")
        recs = self.check_run(p, [32], ["fp32"], 2, 5, checks=False,
                              cpu_warmup=1)
        self.assertEqual((recs[1]["bandwidth_total"],
                          recs[1]["batching_total"]), (0, 0))
        g = [r for r in recs if r["type"] == "gemm"][0]
        for k in ("bandwidth_kind", "bandwidth_gbps", "arithmetic_intensity",
                  "roofline_gflops", "bound", "fraction_of_roofline"):
            self.assertNotIn(k, g)

    def test_batching_only(self):
        p = run_agent("--device", "cpu", "--iters", "5", "--no-checks",
                      "--no-gemm", "--no-bandwidth")
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = parse_records(p.stdout)
        self.assertEqual([r["type"] for r in recs],
                         ["host", "plan", "batching", "summary"])
        self.assertEqual(recs[1]["batching_total"], 1)
        b = recs[2]
        self.check_batching(b, recs[0])
        self.assertEqual(b["iters"], 5)
        # The seed's scores are exact: the batch's rows equal the 20
        # one-row calls and the float64 reference.
        self.assertEqual(b["scores"], mlp_scores())

    def test_gpu_skipped_with_reason(self):
        """Without a GPU, cuda:0 gets its five bandwidth kinds and its
        fp16 batching record, each skipped with the device's reason."""
        if agentlib.nvidia_gpu_present():
            self.skipTest("a GPU is present")
        p = run_agent("--device", "all", "--size", "16", "--iters", "2",
                      "--dtypes", "fp32", "--no-checks", "--bandwidth-mib",
                      "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = parse_records(p.stdout)
        reason = recs[1]["devices"][1]["reason"]
        self.assertTrue(reason)
        gpu_bw = [r for r in recs if r["type"] == "bandwidth" and
                  r["device"] == "cuda:0"]
        self.assertEqual([r["kind"] for r in gpu_bw],
                         ["d2d", "h2d_pageable", "d2h_pageable", "h2d_pinned",
                          "d2h_pinned"])
        gpu_batch = [r for r in recs if r["type"] == "batching" and
                     r["device"] == "cuda:0"]
        self.assertEqual(len(gpu_batch), 1)
        self.assertEqual(gpu_batch[0]["dtype"], "fp16")
        for r in gpu_bw + gpu_batch:
            self.assertEqual(r["status"], "skipped")
            self.assertEqual(r["reason"], reason)
        self.assertIsNone(gpu_batch[0]["speedup"])
        self.assertTrue(all(r["median_gbps"] is None for r in gpu_bw))
        self.assertEqual(recs[1]["bandwidth_total"], 6)
        self.assertEqual(recs[1]["batching_total"], 2)
        self.assertEqual(recs[-1]["bandwidth_skipped"], 5)
        self.assertEqual(recs[-1]["batching_skipped"], 1)

    def test_bad_bandwidth_mib(self):
        p = run_agent("--bandwidth-mib", "0", timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr, "agent: --bandwidth-mib '0': expected an "
                         "integer from 1 to 65536\ntry 'agent --help'\n")


class DefaultRunTest(unittest.TestCase, RunChecks):
    """The agent with its defaults on the CPU (n = 4096, fp32/fp16/bf16,
    20 iterations: 5 on the CPU, 1 CPU warm-up): the job README's first
    command runs. Label "slow"."""

    def test_defaults(self):
        p = run_agent("--device", "cpu")
        recs = self.check_run(p, [4096], ["fp32", "fp16", "bf16"], 20, 5,
                              cpu_warmup=1)
        self.assertEqual(recs[0]["options"]["cpu_iters"], 5)


if __name__ == "__main__":
    unittest.main(verbosity=2)
