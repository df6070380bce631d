"""Helpers for the black-box tests of the agent binary.

The agent under test is named by the BF_AGENT environment variable (CTest
sets it to the built binary). Records are parsed strictly: every line of
stdout must be one JSON object; NaN and Infinity, which are not JSON, are
refused.
"""

import json
import os
import struct
import subprocess
import unittest

AGENT = os.environ.get("BF_AGENT", "")
TIMEOUT_S = 600

SCHEMA_VERSION = 1

# shared/docs/seed-facts.md, "Tensor properties", keyed by the agent's
# check names. Kept here independently of agent/checks/check_tensor.c.
# name: (dtype, rank, shape, element bytes, total bytes)
SEED_TENSORS = {
    "props.scalar": ("fp32", 0, [], 4, 4),
    "props.vector": ("fp32", 1, [3], 4, 12),
    "props.zeros_2x3": ("fp32", 2, [2, 3], 4, 24),
    "props.zeros_2x3x4": ("fp32", 3, [2, 3, 4], 4, 96),
    "props.matrix_1024_fp32": ("fp32", 2, [1024, 1024], 4, 4_194_304),
    "props.matrix_1024_fp16": ("fp16", 2, [1024, 1024], 2, 2_097_152),
    "props.matrix_1024_bf16": ("bf16", 2, [1024, 1024], 2, 2_097_152),
    "props.image_batch_fp32": ("fp32", 4, [32, 3, 224, 224], 4, 19_267_584),
    "props.image_batch_bf16": ("bf16", 4, [32, 3, 224, 224], 2, 9_633_792),
    # int64 labels and int8 weights: the seed gives the element sizes.
    "props.labels_int64": ("int64", 1, None, 8, None),
    "props.weights_int8": ("int8", 2, None, 1, None),
}

# Float limits as torch.finfo reports them (seed facts), exact.
SEED_LIMITS = {
    "fp32": {"max": 3.4028234663852886e38, "eps": 1.1920928955078125e-07,
             "smallest_normal": 1.1754943508222875e-38},
    "fp16": {"max": 65504.0, "eps": 9.765625e-04,
             "smallest_normal": 6.103515625e-05},
    "bf16": {"max": 3.3895313892515355e38, "eps": 7.8125e-03,
             "smallest_normal": 2.0 ** -126},
}

# The fp32 inputs of the agent's round.fp16 / round.bf16 checks, in the
# agent's order. Their expected 16-bit patterns are computed below with
# Python's own IEEE conversions, not taken from the agent.
ROUND_INPUTS = [
    1.0, -2.0, 65504.0, 65519.0, 65520.0, 1.0 + 2.0 ** -11,
    1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 2.0 ** -24,
    2.0 ** -25, 2.0 ** -14, 2.0 ** -126, 3.4028234663852886e38,
    3.3895313892515355e38,
]


def fp32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def to_fp16_bits(x):
    """IEEE binary16 pattern of fp32 value x, round half to even. Python's
    'e' format rounds correctly but raises instead of giving infinity."""
    try:
        return struct.unpack("<H", struct.pack("<e", x))[0]
    except OverflowError:
        return 0xFC00 if x < 0 else 0x7C00


def to_bf16_bits(x):
    """bfloat16 pattern of fp32 value x (finite), round half to even on
    the 16 dropped bits."""
    u = fp32_bits(x)
    upper, lower = u >> 16, u & 0xFFFF
    if lower > 0x8000 or (lower == 0x8000 and upper & 1):
        upper += 1
    return upper


def _no_constants(name):
    raise ValueError(f"not JSON: {name}")


def parse_records(stdout):
    """Every line of stdout as a dict; raises on anything else."""
    assert stdout.endswith("\n"), "output does not end with a newline"
    records = []
    for i, line in enumerate(stdout.splitlines()):
        rec = json.loads(line, parse_constant=_no_constants)
        if not isinstance(rec, dict):
            raise ValueError(f"line {i + 1} is not a JSON object: {line!r}")
        records.append(rec)
    return records


def run_agent(*args, env=None, timeout=TIMEOUT_S):
    """Runs the agent; returns the CompletedProcess (text mode)."""
    if not AGENT:
        raise unittest.SkipTest("BF_AGENT is not set")
    return subprocess.run([AGENT, *args], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_int(v):
    return is_number(v) and float(v).is_integer()


def nvidia_gpu_present():
    """True when nvidia-smi runs and lists a GPU (independent of the
    agent's own detection)."""
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                           text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0 and "GPU" in r.stdout
