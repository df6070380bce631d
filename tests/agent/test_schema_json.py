#!/usr/bin/env python3
"""docs/schema.json, the records' JSON Schema, checked against the agent's
real output with python3-jsonschema (Debian's package), both ways: every
record of real runs (passing, skipped, failing, does-not-fit) validates,
and records with a wrong field do not, so the schema is not vacuous; every
key the agent writes is one the schema names. And it is ctl's reader's
schema: real records mutated field by field (deleted, null, another type,
numbers at and past every bound, strings no enum or pattern allows,
statuses swapped, an unknown key added) get the same answer from the JSON
Schema and from the reader (tests/agent/validate_records, bf_record_parse),
but for the two rules JSON Schema cannot say and the reader adds: a timed
sample array as long as the record's iters, and numbers a double holds.

Runs under whichever interpreter has jsonschema: this one, else Debian's
/usr/bin/python3 (where tools/install-deps --test puts python3-jsonschema).
"""

import copy
import json
import os
import re
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


# -- the JSON Schema and ctl's reader agree ------------------------------

VALIDATE = os.environ.get("BF_VALIDATE_RECORDS", "")
# Numbers at and past the schema's bounds (0, 1, 128, 255, 65536, 100000,
# 2^31 - 1, 2^48 - 1, 2^53 - 1 and one more), fractions, negatives.
NUMBERS = [-1, 0, 1, 0.5, 1.5, 128, 129, 255, 256, 65536, 65537, 100000,
           100001, 1048576, 1048577, 4194304, 4194305, 2**31 - 1, 2**31,
           2**48 - 1, 2**48, 2**53 - 1, 2**53, 1e300, -1e300]
STRINGS = ["", "fp8", "bogus", "cuda:x", "pass", "fail", "skipped"]
# Free-form values (any JSON by design): not mutated inside.
FREE = {"expected", "got", "before", "after"}
# The sample arrays and the iters they must match (schema.c).
SAMPLE_ARRAYS = ("samples_ms", "single_samples_ms", "batch_samples_ms")


def samples_match_iters(rec):
    """The rule that joins two fields, which JSON Schema cannot say: every
    timed sample array of a record as long as its iters."""
    if not isinstance(rec.get("iters"), (int, float)) or \
            isinstance(rec.get("iters"), bool):
        return True
    return all(len(rec[k]) == rec["iters"] for k in SAMPLE_ARRAYS
               if isinstance(rec.get(k), list))


def leaves(o, path=()):
    """(path, value) of every member and first array element under o."""
    if isinstance(o, dict):
        for k, v in o.items():
            yield path + (k,), v
            if k not in FREE:
                yield from leaves(v, path + (k,))
    elif isinstance(o, list) and o:
        yield path + (0,), o[0]
        yield from leaves(o[0], path + (0,))


def mutated(rec, path, value=None, delete=False, add=False):
    m = copy.deepcopy(rec)
    o = m
    for k in path[:-1]:
        o = o[k]
    if add:
        (o[path[-1]] if path else o)["not_a_known_key"] = 1
    elif delete:
        del o[path[-1]]
    else:
        o[path[-1]] = value
    return m


def mutations(rec):
    """(what, mutated record) for every field of rec."""
    yield "an unknown key", mutated(rec, (), add=True)
    for path, v in list(leaves(rec)):
        if path[0] in ("schema", "type"):
            continue
        name = "/".join(map(str, path))
        yield name + " deleted", mutated(rec, path, delete=True)
        yield name + " null", mutated(rec, path, None)
        if isinstance(v, bool):
            news = ["x", 1, not v]
        elif isinstance(v, (int, float)):
            news = NUMBERS + ["x", True]
        elif isinstance(v, str):
            news = STRINGS + [7]
        elif isinstance(v, list):
            news = [[], {}, "x"]
        elif v is None:
            news = [0, "x", [], {}, True]
        else:
            news = [[], "x"]
            yield name + " with an unknown key", mutated(rec, path, add=True)
        for new in news:
            if new != v or type(new) is not type(v):
                yield "%s = %r" % (name, new), mutated(rec, path, new)


def reader_refuses(lines):
    """The indexes of lines ctl's reader refuses, with its reasons."""
    if not VALIDATE:
        raise unittest.SkipTest("BF_VALIDATE_RECORDS is not set")
    p = subprocess.run([VALIDATE], input="".join(l + "\n" for l in lines),
                       capture_output=True, text=True, timeout=120)
    out = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^line (\d+): (.*)$", line)
        if m:
            out[int(m.group(1)) - 1] = m.group(2)
    return out


class ReaderAgreesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        runs = [records("--sizes", "48,80", "--device", "all",
                        "--bandwidth-mib", "8"),
                records("--sizes", "64", "--device", "cpu", "--no-checks",
                        "--cold-cache", "--dtypes", "fp32")]
        if SHIM:
            env = dict(os.environ, LD_PRELOAD=SHIM, BF_FAULT="transpose")
            if "ASAN_OPTIONS" in env:
                env["ASAN_OPTIONS"] += ":verify_asan_link_order=0"
            runs.append(records("--sizes", "64", "--device", "cpu",
                                "--no-checks", "--dtypes", "fp32", env=env))
        # One record of each kind (type, status, device, a check with
        # metrics): every field of each is mutated.
        cls.recs, seen = [], set()
        for run in runs:
            for r in run:
                key = (r["type"], r.get("status"), r.get("device"),
                       "metrics" in r, r.get("name", "")[:6] == "device")
                if key not in seen:
                    seen.add(key)
                    cls.recs.append(r)

    def test_real_records_pass_both(self):
        lines = [json.dumps(r) for r in self.recs]
        self.assertEqual(reader_refuses(lines), {})
        for r in self.recs:
            self.assertEqual(list(VALIDATOR.iter_errors(r)), [], r)

    def test_mutations_get_one_answer(self):
        cases = [(r["type"], what, m) for r in self.recs
                 for what, m in mutations(r)]
        refused = reader_refuses([json.dumps(m) for _, _, m in cases])
        differ, both_refuse = [], 0
        for i, (rtype, what, m) in enumerate(cases):
            schema_ok = VALIDATOR.is_valid(m)
            want_ok = schema_ok and samples_match_iters(m)
            ctl_ok = i not in refused
            both_refuse += not schema_ok and not ctl_ok
            if want_ok != ctl_ok:
                differ.append("%s record, %s: JSON Schema %s, ctl %s" % (
                    rtype, what, "accepts" if schema_ok else "refuses",
                    "accepts" if ctl_ok else "refuses: " + refused[i]))
        self.assertEqual(differ, [], "%d of %d mutations:\n%s" % (
            len(differ), len(cases), "\n".join(differ[:40])))
        # Not vacuous: a good part of the mutations are refused by both
        # (2067 of 4670 here), and the rules only ctl adds did refuse
        # some that the schema took.
        self.assertGreater(len(cases), 2000)
        self.assertGreater(both_refuse, len(cases) // 3)
        self.assertTrue(any(VALIDATOR.is_valid(m) and i in refused
                            for i, (_, _, m) in enumerate(cases)))

    def test_a_number_no_double_holds(self):
        # 1e400 is JSON; Python reads it as inf, which JSON Schema takes
        # for a number above 0; ctl's reader refuses it.
        gemm = next(r for r in self.recs if r["type"] == "gemm" and
                    r["status"] == "pass")
        line = json.dumps(gemm).replace('"max_rel_error": %s' % json.dumps(
            gemm["max_rel_error"]), '"max_rel_error": 1e400')
        self.assertIn("1e400", line)
        self.assertTrue(VALIDATOR.is_valid(json.loads(line)))
        why = reader_refuses([line])
        self.assertEqual(list(why), [0])
        self.assertIn('field "max_rel_error" is 1e400', why[0])


def undocumented_keys(rec, schema, defs, path=""):
    """Keys under rec that schema (resolved through $ref, allOf and
    if/then) does not name in its properties, nor admits through an
    additionalProperties schema; an object schema with neither is
    free-form (device_state's before and after)."""
    while isinstance(schema, dict) and "$ref" in schema:
        schema = defs[schema["$ref"].split("/")[-1]]
    if not isinstance(schema, dict):
        return []
    out = []
    if isinstance(rec, dict) and ("properties" in schema or
                                  "additionalProperties" in schema):
        props = dict(schema.get("properties", {}))
        for part in schema.get("allOf", []):
            props.update(part.get("then", {}).get("properties", {}))
        for k, v in rec.items():
            if k in props:
                out += undocumented_keys(v, props[k], defs, path + "." + k)
            elif isinstance(schema.get("additionalProperties"), dict):
                out += undocumented_keys(v, schema["additionalProperties"],
                                         defs, path + "." + k)
            else:
                out.append(path + "." + k)
    elif isinstance(rec, list) and "items" in schema:
        for v in rec:
            out += undocumented_keys(v, schema["items"], defs, path + "[]")
    return out


class DocumentedKeysTest(unittest.TestCase):
    def test_every_key_is_in_the_schema(self):
        # A reader ignores keys it does not know (the schema allows
        # them), so the agent's own keys are checked here: each is named.
        recs = records("--sizes", "48", "--device", "all",
                       "--bandwidth-mib", "8", "--cold-cache")
        defs = SCHEMA["$defs"]
        for r in recs:
            self.assertEqual(undocumented_keys(r, defs[r["type"]], defs),
                             [], r["type"])
        g = copy.deepcopy(next(r for r in recs if r["type"] == "gemm"))
        g["surprise"] = 1
        g.setdefault("device_state", {})["extra"] = 2
        self.assertEqual(sorted(undocumented_keys(g, defs["gemm"], defs)),
                         [".device_state.extra", ".surprise"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
