#!/usr/bin/env python3
"""docs/schema.json, the records' JSON Schema, checked against the agent's
real output with python3-jsonschema (Debian's package), both ways: every
record of real runs (passing, skipped, failing, does-not-fit) validates,
and records with a wrong field do not, so the schema is not vacuous.

Runs under whichever interpreter has jsonschema: this one, else Debian's
/usr/bin/python3 (where tools/install-deps --test puts python3-jsonschema).
"""

import copy
import json
import os
import resource
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import jsonschema
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    print("python3-jsonschema is not installed (tools/install-deps --test)")
    sys.exit(77)

sys.path.insert(0, HERE)
import agentlib  # noqa: E402

with open(os.path.join(ROOT, "docs", "schema.json")) as f:
    SCHEMA = json.load(f)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
SHIM = os.environ.get("BF_LYING_SGEMM", "")


def threads_waiting(pid):
    """Where each thread of pid waits (/proc/PID/task/*/wchan, the kernel
    function), for the message of an agent that hangs."""
    out = []
    task = "/proc/%d/task" % pid
    for tid in sorted(os.listdir(task)) if os.path.isdir(task) else []:
        try:
            with open(os.path.join(task, tid, "wchan")) as f:
                out.append("%s:%s" % (tid, f.read().strip() or "running"))
        except OSError:
            pass
    return " ".join(out)


def records(*args, env=None, preexec=None):
    if not agentlib.AGENT:
        raise unittest.SkipTest("BF_AGENT is not set")
    # A guard well under CTest's 300 s (a run here takes about 1 s), so
    # that a hang says which run and where its threads wait.
    p = subprocess.Popen([agentlib.AGENT, *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=preexec, stdin=subprocess.DEVNULL)
    try:
        out, _ = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        where = threads_waiting(p.pid)
        p.kill()
        out, err = p.communicate()
        raise AssertionError("agent %s hung for 120 s; threads: %s; last "
                             "record: %s; stderr: %s" % (
                                 " ".join(args), where,
                                 (out.splitlines() or ["none"])[-1][:200],
                                 err[-500:]))
    return agentlib.parse_records(out)


class SchemaJsonTest(unittest.TestCase):
    def assert_valid(self, recs):
        for rec in recs:
            errors = sorted(VALIDATOR.iter_errors(rec), key=str)
            self.assertEqual(errors, [], "%s record: %s" % (
                rec.get("type"), "; ".join(e.message for e in errors[:3])))

    def test_schema_is_valid_json_schema(self):
        jsonschema.Draft202012Validator.check_schema(SCHEMA)

    def test_full_run_validates(self):
        # Every type: host, plan, checks, float limits, gemm (pass on the
        # CPU, skipped on the absent GPU or 16-bit OpenBLAS), summary.
        recs = records("--sizes", "48,80", "--device", "all",
                       "--bandwidth-mib", "8")
        self.assertEqual({r["type"] for r in recs},
                         {"host", "plan", "check", "float_limits", "gemm",
                          "bandwidth", "batching", "summary"})
        self.assert_valid(recs)

    def test_cold_cache_and_failures_validate(self):
        self.assert_valid(records("--sizes", "64", "--device", "cpu",
                                  "--no-checks", "--cold-cache"))
        if SHIM:
            env = dict(os.environ, LD_PRELOAD=SHIM, BF_FAULT="transpose")
            if "ASAN_OPTIONS" in env:
                env["ASAN_OPTIONS"] += ":verify_asan_link_order=0"
            recs = records("--sizes", "64", "--device", "cpu", "--no-checks",
                           "--dtypes", "fp32", env=env)
            self.assertIn("fail", [r.get("status") for r in recs
                                   if r["type"] == "gemm"])
            self.assert_valid(recs)

    def test_does_not_fit_validates(self):
        if "ASAN_OPTIONS" in os.environ:
            self.skipTest("AddressSanitizer needs an unlimited address space")

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        recs = records("--sizes", "12288", "--device", "cpu", "--no-checks",
                       "--dtypes", "fp32", preexec=limit)
        g = [r for r in recs if r["type"] == "gemm"][0]
        self.assertIn("needed_bytes", g)
        self.assert_valid(recs)

    def test_wrong_records_are_refused(self):
        recs = records("--sizes", "32", "--device", "cpu", "--dtypes", "fp32")
        gemm = [r for r in recs if r["type"] == "gemm"][0]
        host = recs[0]
        bad = []
        g = copy.deepcopy(gemm)
        g["gflops"] = "fast"
        bad.append(g)
        g = copy.deepcopy(gemm)
        g["surprise"] = 1            # an undocumented key
        bad.append(g)
        g = copy.deepcopy(gemm)
        g["status"] = "fail"         # a failed row with GFLOP/s
        g["reason"] = "wrong"
        bad.append(g)
        g = copy.deepcopy(gemm)
        g["n"] = 1e300
        bad.append(g)
        g = copy.deepcopy(gemm)
        del g["median_ms"]
        bad.append(g)
        for samples in ([0.5, 0], [0.5, -1], [None]):   # no times
            g = copy.deepcopy(gemm)
            g["samples_ms"] = samples
            bad.append(g)
        g = copy.deepcopy(gemm)
        g["median_ms"] = 0
        bad.append(g)
        h = copy.deepcopy(host)
        h["type"] = "hots"
        bad.append(h)
        h = copy.deepcopy(host)
        h["schema"] = 2
        bad.append(h)
        g = copy.deepcopy(gemm)
        g["peak_method"] = "guess"   # not a method the agent uses
        bad.append(g)
        g = copy.deepcopy(gemm)
        g.update(reference_gflops=0, reference_source="x",
                 fraction_of_reference=None, below_reference=None)
        bad.append(g)
        g = copy.deepcopy(gemm)      # a failed row judged against its
        g.update(status="fail", reason="wrong", gflops=None,  # reference
                 reference_gflops=817.0, reference_source="seed",
                 fraction_of_reference=0.5, below_reference=True)
        bad.append(g)
        for rec in bad:
            self.assertFalse(VALIDATOR.is_valid(rec), rec)

    def test_peak_and_reference_fields(self):
        # The CPU's rated peak and bound with their basis; this machine's
        # CPU has no published reference, so a record of one is built
        # from it the way the agent writes one (agent/gemm.c).
        recs = records("--sizes", "32", "--device", "cpu", "--dtypes", "fp32",
                       "--no-checks")
        gemm = [r for r in recs if r["type"] == "gemm"][0]
        self.assertIn(gemm["peak_method"].split("+")[0],
                      ("probe", "table", "isa"))
        self.assertGreaterEqual(gemm["peak_bound_gflops"], gemm["peak_gflops"])
        self.assertIn("cores x", gemm["peak_bound_basis"])
        self.assertIn("peak_disagreement", gemm)
        self.assertNotIn("reference_gflops", gemm)
        g = copy.deepcopy(gemm)
        g.update(reference_gflops=817.0,
                 reference_source="PyTorch torch.matmul on the CPU on 10x "
                 "Cortex-A725 + 10x Cortex-X925, fp32 n=4096: 0.817 TFLOP/s",
                 fraction_of_reference=g["gflops"] / 817.0,
                 below_reference=g["gflops"] / 817.0 < 0.8)
        self.assert_valid([g])


if __name__ == "__main__":
    unittest.main(verbosity=2)
