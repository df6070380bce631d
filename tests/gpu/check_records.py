#!/usr/bin/env python3
"""Checks an agent run made on a machine with NVIDIA GPUs.

    check_records.py RECORDS.ndjson [--rc N] [--iters N]

RECORDS is the agent's stdout from
    agent --device all --sizes 1024,4096 --dtypes fp32,fp16,bf16,tf32,fp8
and --rc its exit status. Every problem found is printed on its own line
("gpu check: ..."); the exit status is 0 when there is none, 1 otherwise.

What must hold: every line is a schema-1 record, host first, summary last,
seq counting from 0; the host record names each GPU (name, compute
capability, memory, SM count) and the driver, runtime and cuBLAS
versions; every device in the plan is usable; every check passes on every
device, including transfer.h2d_d2h (with positive bandwidths) and
round.fp16 / round.bf16 (the GPU's own conversions against IEEE 754);
every cuda gemm record passes verification with consistent statistics;
GFLOP/s is plausible: above the CPU's at fp32, fp16/bf16/tf32 above the
GPU's fp32 at n >= 4096, and below 5 PFLOP/s (a run that forgot to
synchronise would time launches and report absurd figures); the summary's
counts and ratios match the records.

What the GPU can do is accepted: tf32 below compute capability 8.0 and
bf16 below 7.0 skipped with the reason; bf16 below 8.0 (cuBLAS on the
fp32 units) passing or skipped, and exempt from the speed rules; a GPU
this build cannot run (a V100 with CUDA 13: "needs CUDA 12.9 or older")
a skipped device with that one line, its CPU results checked as usual.

The issue-20 rules on every GPU row that passed: %peak at least
MIN_FRACTION_OF_PEAK at n >= 4096; cuBLAS's math mode disallowing
reduced-precision (split-K) reductions; a warm-up of at least 200 ms;
batches timed as one CUDA Graph launch (not back-to-back calls after a
failed capture); energy from NVML with joules, watts (1 W to 2 kW) and
GFLOP/J, or null only where the GPU has no counter (NVML's "Not
Supported"). Every row is printed with its spread, reliable, throttled
and energy.
"""

import argparse
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "agent"))
import agentlib  # noqa: E402

MAX_PLAUSIBLE_GFLOPS = 5e6
MIN_FRACTION_OF_PEAK = 0.3
MIN_WARMUP_MS = 200.0
UNBUILDABLE = "needs CUDA 12.9 or older"
CPU_CHECKS = set(agentlib.SEED_TENSORS) | {
    "add.elementwise", "broadcast.row", "broadcast.bias",
    "layer.matmul_relu", "relu.nonfinite", "error.shape_mismatch",
    "transfer.to_device", "round.fp16", "round.bf16",
}
GPU_CHECKS = CPU_CHECKS | {"error.device_mismatch", "transfer.h2d_d2h"}


class Checker:
    def __init__(self):
        self.problems = []
        self.notes = []
        self.rows = []
        self.unusable = set()
        self.cc = {}
        self.gflops = {}

    def expect(self, cond, msg):
        if not cond:
            self.problems.append(msg)
        return cond

    def run(self, text, rc, iters):
        try:
            recs = agentlib.parse_records(text)
        except (ValueError, AssertionError) as e:
            self.expect(False, f"output is not NDJSON records: {e}")
            return
        if not self.expect(len(recs) >= 3, "fewer than 3 records"):
            return
        self.expect(rc == 0, f"agent exit status {rc}, want 0")
        for i, r in enumerate(recs):
            self.expect(r.get("schema") == agentlib.SCHEMA_VERSION,
                        f"record {i}: schema {r.get('schema')!r}")
            self.expect(r.get("seq") == i, f"record {i}: seq {r.get('seq')!r}")
        self.expect(recs[0].get("type") == "host", "first record is not host")
        self.expect(recs[1].get("type") == "plan", "second record is not plan")
        self.expect(recs[-1].get("type") == "summary",
                    "last record is not summary (the run did not finish)")
        host, plan, summary = recs[0], recs[1], recs[-1]
        gpus = self.check_host(host)
        checks = [r for r in recs if r.get("type") == "check"]
        gemms = [r for r in recs if r.get("type") == "gemm"]
        self.check_plan(plan, gpus, checks, gemms)
        usable = [g for g in gpus if g not in self.unusable]
        self.check_checks([c for c in checks
                           if c.get("device") not in self.unusable], usable)
        self.check_gemms(gemms, host, iters)
        self.check_workloads([r for r in recs
                              if r.get("device") not in self.unusable],
                             usable, plan)
        self.check_summary(summary, checks, gemms, rc)

    def check_host(self, h):
        cuda = h.get("cuda") or {}
        self.expect(cuda.get("status") == "pass",
                    f"host: cuda status {cuda.get('status')!r}: "
                    f"{cuda.get('reason')}")
        for k in ("driver_version", "runtime_version", "cublas_version"):
            self.expect(isinstance(cuda.get(k), str) and cuda.get(k),
                        f"host: cuda {k} is {cuda.get(k)!r}")
        gpus = h.get("gpus") or []
        self.expect(gpus, "host: no GPU in the host record")
        for g in gpus:
            i = g.get("index")
            self.expect(isinstance(g.get("name"), str) and g["name"].strip(),
                        f"host: gpu {i} has no name")
            self.expect(re.match(r"^\d+\.\d+$",
                                 str(g.get("compute_capability"))),
                        f"host: gpu {i} compute capability "
                        f"{g.get('compute_capability')!r}")
            self.expect(agentlib.is_number(g.get("memory_bytes"))
                        and g["memory_bytes"] > 0,
                        f"host: gpu {i} memory {g.get('memory_bytes')!r}")
            self.expect(agentlib.is_int(g.get("sm_count"))
                        and g["sm_count"] > 0,
                        f"host: gpu {i} sm_count {g.get('sm_count')!r}")
        self.cc = {}
        for g in gpus:
            try:
                major, minor = str(g.get("compute_capability")).split(".")
                self.cc[f"cuda:{g.get('index')}"] = int(major) * 10 + int(minor)
            except ValueError:
                pass
        return [f"cuda:{g.get('index')}" for g in gpus]

    def check_workloads(self, recs, gpus, plan):
        """Issue 14 on the GPU: every bandwidth kind measured with a
        positive median, the fp16 batching case passing with the exact
        scores, and each passing GPU GEMM placed on its roofline."""
        bws = [r for r in recs if r.get("type") == "bandwidth"]
        bats = [r for r in recs if r.get("type") == "batching"]
        self.expect(plan.get("bandwidth_total", len(bws)) == len(bws),
                    f"plan: bandwidth_total {plan.get('bandwidth_total')}, "
                    f"{len(bws)} bandwidth records")
        self.expect(plan.get("batching_total", len(bats)) == len(bats),
                    f"plan: batching_total {plan.get('batching_total')}, "
                    f"{len(bats)} batching records")
        for dev in gpus:
            kinds = {b.get("kind"): b for b in bws if b.get("device") == dev}
            for k in ("d2d", "h2d_pageable", "d2h_pageable", "h2d_pinned",
                      "d2h_pinned"):
                b = kinds.get(k)
                self.expect(b is not None and b.get("status") == "pass" and
                            (b.get("median_gbps") or 0) > 0,
                            f"{dev} bandwidth {k}: {b and b.get('status')} "
                            f"{b and b.get('reason')}")
            for b in bats:
                if b.get("device") != dev:
                    continue
                self.expect(b.get("status") == "pass" and
                            b.get("scores") == b.get("expected_scores"),
                            f"{dev} batching {b.get('dtype')}: "
                            f"{b.get('status')} {b.get('reason')}")
        for g in recs:
            if g.get("type") == "gemm" and g.get("status") == "pass" and \
                    g.get("device") != "cpu":
                self.expect(g.get("bound") in ("compute", "memory") and
                            (g.get("peak_gflops") or 0) > 0,
                            f"{g.get('device')} {g.get('dtype')} "
                            f"n={g.get('n')}: no roofline "
                            f"({g.get('peak_basis')})")

    def check_plan(self, plan, gpus, checks, gemms):
        devices = [d.get("device") for d in plan.get("devices", [])]
        self.expect(devices == ["cpu"] + gpus,
                    f"plan: devices {devices}, want cpu and {gpus}")
        for d in plan.get("devices", []):
            if d.get("status") == "skipped" and d.get("device") in gpus \
                    and UNBUILDABLE in str(d.get("reason")):
                # One clear line; its rows are skipped, the CPU's checked.
                self.notes.append(f"{d['device']}: {d['reason']}")
                self.unusable.add(d["device"])
                continue
            self.expect(d.get("status") == "pass",
                        f"plan: {d.get('device')} {d.get('status')}: "
                        f"{d.get('reason')}")
        self.expect(plan.get("checks_total") == len(checks),
                    f"plan: checks_total {plan.get('checks_total')}, "
                    f"{len(checks)} check records")
        self.expect(plan.get("gemm_total") == len(gemms),
                    f"plan: gemm_total {plan.get('gemm_total')}, "
                    f"{len(gemms)} gemm records")

    def check_checks(self, checks, gpus):
        for c in checks:
            self.expect(c.get("status") == "pass",
                        f"check {c.get('device')} {c.get('name')}: "
                        f"{c.get('status')} ({c.get('reason')})")
        for dev in gpus:
            names = {c.get("name") for c in checks if c.get("device") == dev}
            missing = GPU_CHECKS - names
            self.expect(not missing, f"{dev}: checks missing: "
                                     f"{sorted(missing)}")
            for c in checks:
                if c.get("device") != dev:
                    continue
                if c.get("name") == "transfer.h2d_d2h":
                    m = c.get("metrics") or {}
                    for k in ("h2d_pageable_gbps", "d2h_pageable_gbps",
                              "h2d_pinned_gbps", "d2h_pinned_gbps"):
                        self.expect(agentlib.is_number(m.get(k))
                                    and m[k] > 0.1,
                                    f"{dev} transfer: {k} = {m.get(k)!r}")
                elif c.get("name") in ("round.fp16", "round.bf16"):
                    conv = (agentlib.to_fp16_bits
                            if c["name"] == "round.fp16"
                            else agentlib.to_bf16_bits)
                    want = [conv(x) for x in agentlib.ROUND_INPUTS]
                    self.expect(c.get("got") == want,
                                f"{dev} {c['name']}: got {c.get('got')}, "
                                f"IEEE 754 gives {want}")

    def check_gemms(self, gemms, host, iters):
        gflops = {}
        for g in gemms:
            dev, dt, n = g.get("device"), g.get("dtype"), g.get("n")
            tag = f"gemm {dev} {dt} n={n}"
            if dev == "cpu":
                if g.get("status") == "skipped":
                    self.expect(dt != "fp32", f"{tag}: skipped: "
                                              f"{g.get('reason')}")
                    continue
            elif g.get("status") == "skipped" and g.get("reason") and (
                    dev in self.unusable or self.can_skip(dev, dt) or
                    self.fp8_shape_skip(g)):
                continue
            if not self.expect(g.get("status") == "pass",
                               f"{tag}: {g.get('status')}: "
                               f"{g.get('reason')}"):
                continue
            s = g.get("samples_ms") or []
            want_iters = host["options"]["cpu_iters"] if dev == "cpu" \
                else (iters or host["options"]["iters"])
            self.expect(len(s) == want_iters,
                        f"{tag}: {len(s)} samples, want {want_iters}")
            self.expect(all(agentlib.is_number(x) and x > 0 for x in s),
                        f"{tag}: non-positive samples {s}")
            if not s:
                continue
            med = statistics.median(s)
            self.expect(abs(g["median_ms"] - med) <= 2 * math.ulp(med),
                        f"{tag}: median {g['median_ms']} vs samples {med}")
            self.expect(g.get("min_ms") == min(s) and g.get("max_ms") == max(s),
                        f"{tag}: min/max do not match the samples")
            want = 2 * n ** 3 / g["median_ms"] / 1e6
            self.expect(abs(g["gflops"] - want) <= 1e-9 * want,
                        f"{tag}: gflops {g['gflops']} vs 2n^3/median {want}")
            self.expect(g["gflops"] < MAX_PLAUSIBLE_GFLOPS,
                        f"{tag}: {g['gflops']:.0f} GFLOP/s is not plausible "
                        f"(timing without synchronisation?)")
            self.expect(g.get("nonfinite_elements") == 0,
                        f"{tag}: {g.get('nonfinite_elements')} NaN/Inf in C")
            self.expect(0 <= g.get("max_rel_error", math.inf)
                        <= g.get("tolerance", -1),
                        f"{tag}: error {g.get('max_rel_error')} above "
                        f"tolerance {g.get('tolerance')}")
            if dev != "cpu":
                self.expect(str(g.get("library", "")).startswith("cuBLAS "),
                            f"{tag}: library {g.get('library')!r}")
                # FP8 writes a bf16 C (cublasLtMatmul's D, the agent's
                # backend_cublas.c); every other dtype its own.
                want_c = "bf16" if dt == "fp8" else dt
                self.expect(g.get("c_dtype") == want_c,
                            f"{tag}: C is {g.get('c_dtype')}, want {want_c}")
                self.check_gpu_row(g, tag)
            self.rows.append(g)
            gflops[(dev, dt, n)] = g["gflops"]
        for (dev, dt, n), v in gflops.items():
            if dev == "cpu" or dt != "fp32" or n < 1024:
                continue
            cpu = gflops.get(("cpu", "fp32", n))
            if self.expect(cpu is not None, f"no cpu fp32 result at n={n}"):
                self.expect(v > cpu, f"{dev} fp32 n={n}: {v:.0f} GFLOP/s "
                                     f"not above the CPU's {cpu:.0f}")
            if n >= 4096:
                for low in ("fp16", "bf16", "tf32", "fp8"):
                    lv = gflops.get((dev, low, n))
                    if low == "bf16" and self.cc.get(dev, 100) < 80:
                        continue  # no bf16 tensor cores: fp32's rate
                    if lv is not None:
                        self.expect(lv > v, f"{dev} {low} n={n}: {lv:.0f} "
                                            f"GFLOP/s not above fp32's "
                                            f"{v:.0f}")
        self.gflops = gflops

    def can_skip(self, dev, dt):
        """Whether dtype dt may be skipped on GPU dev: tf32 below
        compute capability 8.0, bf16 below 8.0 (cuBLAS may lack it), fp8
        below 8.9."""
        cc = self.cc.get(dev)
        if dt == "fp8":  # FP8 tensor cores: compute capability 8.9 on
            return cc is not None and cc < 89
        return cc is not None and cc < 80 and dt in ("tf32", "bf16")

    @staticmethod
    def fp8_shape_skip(g):
        """An fp8 row skipped because n is not a multiple of 16: cuBLASLt's
        FP8 kernels need 16-byte aligned columns (cuBLAS Library,
        cublasLtMatmul), so check.sh's n = 1001 is skipped on every GPU,
        with that reason."""
        return (g.get("dtype") == "fp8" and isinstance(g.get("n"), int)
                and g["n"] % 16 != 0
                and "multiple of 16" in str(g.get("reason")))

    def check_gpu_row(self, g, tag):
        """The issue-20 rules on a GPU row that passed."""
        n, dt = g.get("n"), g.get("dtype")
        emulated = dt == "bf16" and self.cc.get(g.get("device"), 100) < 80
        frac = g.get("fraction_of_peak")
        # Only a product-table peak is a published figure to be held to;
        # a "derived" one is an upper estimate (agent/hardware/peak.c)
        # and a row under it says nothing about the agent.
        if n >= 4096 and not emulated and g.get("peak_method") == "product":
            self.expect(agentlib.is_number(frac)
                        and frac >= MIN_FRACTION_OF_PEAK,
                        f"{tag}: {frac if frac is None else round(frac, 3)}"
                        f" of peak, want >= {MIN_FRACTION_OF_PEAK} "
                        f"({g.get('peak_basis')})")
        self.expect("CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION"
                    in str(g.get("math_mode")),
                    f"{tag}: math mode {g.get('math_mode')!r} allows "
                    f"reduced-precision (split-K) reductions")
        self.expect(agentlib.is_number(g.get("warmup_ms"))
                    and g["warmup_ms"] >= MIN_WARMUP_MS,
                    f"{tag}: warm-up {g.get('warmup_ms')} ms, want >= "
                    f"{MIN_WARMUP_MS:.0f}")
        timing = str(g.get("timing"))
        self.expect("capture failed" not in timing and
                    ("batches" not in timing or "CUDA Graph" in timing),
                    f"{tag}: timing {timing!r}: small-n batches are one "
                    f"CUDA Graph launch")
        e = g.get("energy")
        if not self.expect(isinstance(e, dict), f"{tag}: no energy"):
            return
        if e.get("joules") is None:
            self.expect("Not Supported" in str(e.get("reason")),
                        f"{tag}: energy unknown: {e.get('reason')}")
            return
        w, gpj = e.get("watts"), e.get("gflop_per_joule")
        self.expect(agentlib.is_number(w) and 1 <= w <= 2000,
                    f"{tag}: {w} W is not plausible")
        self.expect(agentlib.is_number(gpj) and gpj > 0 and
                    e.get("seconds", 0) >= 0.5 and
                    abs(gpj - e["gemms"] * 2 * n ** 3 / 1e9 / e["joules"])
                    <= 1e-9 * gpj,
                    f"{tag}: energy {e} inconsistent")

    def print_rows(self, out=sys.stdout):
        """One line per passing row: GFLOP/s, %peak, verification margin
        (tolerance / largest relative error), the device's bandwidth,
        spread, reliable, throttled, energy."""
        def fmt(v, spec, unit=""):
            return "n/a" if not agentlib.is_number(v) else \
                format(v, spec) + unit
        for g in sorted(self.rows, key=lambda r: (r.get("device") != "cpu",
                                                  r.get("device"),
                                                  r.get("n"),
                                                  r.get("dtype"))):
            e = g.get("energy") or {}
            energy = (f"{fmt(e.get('joules'), '.2f', ' J')} "
                      f"{fmt(e.get('watts'), '.0f', ' W')} "
                      f"{fmt(e.get('gflop_per_joule'), '.1f', ' GFLOP/J')}"
                      if e.get("joules") is not None else
                      f"energy n/a ({e.get('reason', 'not recorded')})")
            frac = g.get("fraction_of_peak")
            # The verification margin: how many times the largest
            # relative error fits in the tolerance (>= 1 passes).
            err, tol = g.get("max_rel_error"), g.get("tolerance")
            margin = (tol / err if agentlib.is_number(err) and err > 0
                      and agentlib.is_number(tol) else
                      math.inf if err == 0 else None)
            print(f"gpu check: {g['device']:7} {g['dtype']:5} "
                  f"n={g['n']:<6} {g['gflops']:12.1f} GFLOP/s "
                  f"{fmt(frac * 100 if agentlib.is_number(frac) else None, '.0f', '%')} peak "
                  f"margin {'exact' if margin == math.inf else fmt(margin, '.1f', 'x')} "
                  f"(err {fmt(err, '.2e')} tol {fmt(tol, '.2e')}) "
                  f"bw {fmt(g.get('bandwidth_gbps'), '.0f', ' GB/s')} "
                  f"spread {fmt(g.get('spread'), '.3f')} "
                  f"reliable {g.get('reliable')} "
                  f"throttled {(g.get('device_state') or {}).get('throttled')} "
                  f"{energy}", file=out)

    def check_summary(self, s, checks, gemms, rc):
        for kind, recs in (("checks", checks), ("gemm", gemms)):
            for st, key in (("pass", "passed"), ("fail", "failed"),
                            ("skipped", "skipped")):
                n = sum(r.get("status") == st for r in recs)
                self.expect(s.get(f"{kind}_{key}") == n,
                            f"summary: {kind}_{key} {s.get(f'{kind}_{key}')}"
                            f", records say {n}")
        self.expect(s.get("exit_status") == rc,
                    f"summary: exit_status {s.get('exit_status')}, rc {rc}")
        for r in s.get("ratios", []):
            dev, dt, n = r.get("device"), r.get("dtype"), r.get("n")
            num = self.gflops.get((dev, dt, n))
            den = self.gflops.get(("cpu", "fp32", n)
                                  if r.get("kind") == "gpu_vs_cpu"
                                  else (dev, "fp32", n))
            if self.expect(num and den, f"summary: ratio {r} has no base"):
                self.expect(abs(r["value"] - num / den)
                            <= 1e-9 * (num / den),
                            f"summary: ratio {r} vs {num / den}")
        gpu_fp32 = [k for k in self.gflops if k[0] != "cpu" and k[1] == "fp32"]
        kinds = [(r.get("kind"), r.get("device"), r.get("n"))
                 for r in s.get("ratios", [])]
        for dev, _, n in gpu_fp32:
            if ("cpu", "fp32", n) in self.gflops:
                self.expect(("gpu_vs_cpu", dev, n) in kinds,
                            f"summary: no gpu_vs_cpu ratio for {dev} n={n}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records")
    ap.add_argument("--rc", type=int, default=0,
                    help="the agent's exit status")
    ap.add_argument("--iters", type=int, default=0,
                    help="timed GPU iterations asked for (default: the "
                         "host record's)")
    a = ap.parse_args()
    with open(a.records, encoding="utf-8") as f:
        text = f.read()
    c = Checker()
    c.run(text, a.rc, a.iters)
    for note in c.notes:
        print(f"gpu check: {note}")
    for p in c.problems:
        print(f"gpu check: {p}")
    c.print_rows()
    if c.problems:
        print(f"gpu check: FAILED: {len(c.problems)} problem(s)")
        return 1
    print("gpu check: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
