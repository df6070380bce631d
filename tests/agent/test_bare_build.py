#!/usr/bin/env python3
"""The agent builds where only a compiler, CMake and ninja are (issue 32).

An air-gapped GPU node may have nvcc, CMake and ninja and nothing else:
no make, no pkg-config, no cJSON, no OpenBLAS. This builds the agent from
this source tree as a host would (BF_BUILD_CONTROLLER=OFF), with a PATH
that holds every tool of this machine but make and pkg-config, and with
CMake's find_path/find_library kept out of /usr and /usr/local
(CMAKE_IGNORE_PREFIX_PATH; / too, for /bin/pkg-config), so that neither this machine's libcjson-dev
nor its libopenblas-dev is seen. Then it runs the agent and checks what
it says: the host record's cjson is the bundled copy (third_party/cjson,
Debian's 1.7.15), the CPU GEMM rows are skipped with the reason
"built without OpenBLAS", and the records still pass the reader ctl uses
(validate_records) and the tensor checks still pass (their small products
then run as plain loops).

Env: BF_VALIDATE_RECORDS (the reader), BF_SOURCE_DIR (the tree).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("BF_SOURCE_DIR", os.path.join(HERE, "..", ".."))
VALIDATE = os.environ.get("BF_VALIDATE_RECORDS", "")
HIDDEN = {"make", "gmake", "pkg-config", "pkgconf"}


def bare_path(d):
    """A folder of links to every program on PATH but make and
    pkg-config (x86_64-linux-gnu-pkgconf and the like too)."""
    os.makedirs(d)
    for p in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        if not os.path.isdir(p):
            continue
        for name in os.listdir(p):
            if (name in HIDDEN or "pkg-config" in name
                    or "pkgconf" in name):
                continue
            dst = os.path.join(d, name)
            src = os.path.join(p, name)
            if not os.path.exists(dst) and os.access(src, os.X_OK):
                os.symlink(src, dst)
    return d


class BareBuild(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bf-bare-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_builds_and_says_why(self):
        path = bare_path(os.path.join(self.tmp, "bin"))
        self.assertIsNone(shutil.which("make", path=path))
        self.assertIsNone(shutil.which("pkg-config", path=path))
        self.assertIsNotNone(shutil.which("ninja", path=path),
                             "ninja is needed here (tools/install-deps)")
        env = dict(os.environ, PATH=path)
        b = os.path.join(self.tmp, "build")
        cfg = subprocess.run(
            ["cmake", "-S", SRC, "-B", b, "-G", "Ninja",
             "-DCMAKE_BUILD_TYPE=Release", "-DBF_BUILD_CONTROLLER=OFF",
             "-DBF_BUILD_TESTS=OFF", "-DBF_WITH_CUDA=OFF",
             "-DCMAKE_IGNORE_PREFIX_PATH=/;/usr;/usr/local",
             "-DBF_WERROR=ON"],
            env=env, capture_output=True, text=True, timeout=300,
            stdin=subprocess.DEVNULL)
        self.assertEqual(cfg.returncode, 0, cfg.stdout + cfg.stderr)
        # What configure found, in its one-line summary.
        self.assertIn("openblas none: CPU GEMMs skipped", cfg.stdout)
        self.assertIn("cjson 1.7.15 (third_party) bundled", cfg.stdout)
        bld = subprocess.run(["cmake", "--build", b, "-j2"], env=env,
                             capture_output=True, text=True, timeout=900,
                             stdin=subprocess.DEVNULL)
        self.assertEqual(bld.returncode, 0, bld.stdout + bld.stderr)
        agent = os.path.join(b, "bin", "agent")
        # Linked against no cJSON or OpenBLAS library.
        ldd = subprocess.run(["ldd", agent], capture_output=True, text=True)
        self.assertNotIn("libcjson", ldd.stdout)
        self.assertNotIn("openblas", ldd.stdout)
        run = subprocess.run(
            [agent, "--size", "64", "--iters", "2", "--warmup", "1",
             "--device", "cpu", "--no-bandwidth"],
            capture_output=True, text=True, timeout=300,
            stdin=subprocess.DEVNULL)
        self.assertIn(run.returncode, (0,), run.stderr[-2000:])
        recs = [json.loads(line) for line in run.stdout.splitlines()]
        host = next(r for r in recs if r["type"] == "host")
        self.assertEqual(host["cjson"], {"version": "1.7.15",
                                         "source": "bundled"})
        self.assertIsNone(host["openblas"]["version"])
        gemms = [r for r in recs if r["type"] == "gemm"]
        self.assertEqual(sorted(g["dtype"] for g in gemms),
                         ["bf16", "fp16", "fp32"])
        for g in gemms:
            self.assertEqual(g["status"], "skipped", g)
            self.assertIn("agent built without OpenBLAS", g["reason"])
            self.assertIn("CPU GEMMs skipped", g["reason"])
        checks = [r for r in recs if r["type"] == "check"]
        self.assertTrue(checks)
        self.assertEqual([c["name"] for c in checks
                          if c.get("status") == "failed"], [])
        batching = [r for r in recs if r["type"] == "batching"]
        self.assertEqual(len(batching), 1)
        if VALIDATE:
            v = subprocess.run([VALIDATE], input=run.stdout,
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(v.returncode, 0, v.stdout + v.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
