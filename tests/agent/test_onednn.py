#!/usr/bin/env python3
"""CPU bf16 and fp16 GEMMs where OpenBLAS has no cblas_sbgemm/shgemm
(issue 33): through oneDNN in an agent built with it, skipped with the
reason in one built without it.

    test_onednn.py WithOnednnTest      BF_AGENT: an agent built with oneDNN
    test_onednn.py WithoutOnednnTest   BF_SOURCE_DIR: the sources, built
                                       here agent-only with
                                       -DBF_WITH_ONEDNN=OFF

Which library a row should name is decided here from the OpenBLAS the
agent loads (its own sbgemm/shgemm flags in the host record say whether
OpenBLAS has them; then OpenBLAS is preferred), not taken from the row.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentlib  # noqa: E402
from agentlib import parse_records, run_agent  # noqa: E402

SYMBOL = {"bf16": "cblas_sbgemm", "fp16": "cblas_shgemm"}
FLAG = {"bf16": "sbgemm", "fp16": "shgemm"}


def run_16bit(agent=None, size=96):
    args = ["--device", "cpu", "--no-checks", "--dtypes", "bf16,fp16",
            "--sizes", str(size), "--cpu-warmup", "1", "--cpu-iters", "3"]
    if agent:
        r = subprocess.run([agent, *args], capture_output=True, text=True,
                           timeout=agentlib.TIMEOUT_S,
                           stdin=subprocess.DEVNULL)
    else:
        r = run_agent(*args)
    recs = parse_records(r.stdout)
    gemms = {g["dtype"]: g for g in recs if g["type"] == "gemm"}
    return r, recs[0], gemms


def needed_libs(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)


class WithOnednnTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.host, cls.gemms = run_16bit()

    def test_links_onednn(self):
        self.assertTrue(any(n.startswith("libdnnl.so")
                            for n in needed_libs(agentlib.AGENT)))

    def test_bf16_runs_and_passes_verification(self):
        g = self.gemms["bf16"]
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        self.assertEqual(g["status"], "pass", g)
        self.assertLessEqual(g["max_rel_error"], g["tolerance"])
        self.assertGreater(g["verified_elements"], 0)
        self.assertEqual(g["nonfinite_elements"], 0)
        self.assertEqual(g["c_dtype"], "fp32")
        self.assertGreater(g["gflops"], 0)
        # %peak divides by the CPU's bf16 peak, not its fp32 one.
        self.assertAlmostEqual(g["fraction_of_peak"],
                               g["gflops"] / g["peak_gflops"], delta=1e-12)
        self.assertIn("FLOP/cycle", g["peak_basis"])

    def test_record_names_library_and_kernel(self):
        for dt in ("bf16", "fp16"):
            g = self.gemms[dt]
            if g["status"] == "skipped":
                continue
            if self.host["openblas"][FLAG[dt]]:
                # An OpenBLAS with the kernel is preferred.
                self.assertTrue(g["library"].startswith("OpenBLAS "), g)
                continue
            # "oneDNN 2.6.3 (ISA avx512_core_bf16)"
            self.assertRegex(g["library"],
                             r"^oneDNN \d+\.\d+\.\d+ \(ISA [a-z0-9_]+\)$")
            # The implementation oneDNN chose, never its reference loops.
            m = re.match(r"^dnnl matmul (\S+), (bf16|f16) x \2 -> f32 "
                         r"\(f32 accumulate\)$", g["math_mode"])
            self.assertIsNotNone(m, g["math_mode"])
            self.assertFalse(m.group(1).startswith("ref"), m.group(1))
            self.assertIn("execute and stream wait", g["timing"])

    def test_fp16_runs_or_says_why_not(self):
        g = self.gemms["fp16"]
        if g["status"] == "pass":
            self.assertLessEqual(g["max_rel_error"], g["tolerance"])
            return
        # oneDNN 2.6 has no f16 matmul on a CPU without AVX512-FP16
        # kernels: both libraries' reasons, once.
        self.assertEqual(g["status"], "skipped", g)
        self.assertIn("has no cblas_shgemm", g["reason"])
        self.assertRegex(g["reason"], r"oneDNN \d+\.\d+\.\d+ .*f16")
        self.assertIsNone(g["gflops"])

    def test_records_validate(self):
        v = os.environ.get("BF_VALIDATE_RECORDS")
        if not v:
            self.skipTest("BF_VALIDATE_RECORDS is not set")
        r = subprocess.run([v], input=self.proc.stdout, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)


class WithoutOpenclTest(unittest.TestCase):
    """A host with libdnnl-dev but not OpenCL's development files (Debian
    12's libdnnl-dev only recommends ocl-icd-opencl-dev; tools/install-deps
    and many images install without recommends): the agent's configure
    finds oneDNN all the same. Debian's dnnl-config.cmake requires OpenCL,
    so find_package(dnnl) stopped the whole configure there ("Could NOT
    find OpenCL"); CMAKE_DISABLE_FIND_PACKAGE_OpenCL makes any OpenCL
    lookup fail here as it fails on such a host."""

    def test_configure_finds_onednn_without_opencl(self):
        src = os.environ.get("BF_SOURCE_DIR")
        if not src:
            self.skipTest("BF_SOURCE_DIR is not set")
        if not os.path.exists("/usr/include/oneapi/dnnl/dnnl_version.h"):
            self.skipTest("no libdnnl-dev on this machine")
        tmp = tempfile.mkdtemp(prefix="bf-no-opencl-")
        try:
            r = subprocess.run(
                ["cmake", "-S", src, "-B", os.path.join(tmp, "build"),
                 "-DCMAKE_BUILD_TYPE=Release", "-DBF_WITH_CUDA=OFF",
                 "-DBF_BUILD_CONTROLLER=OFF", "-DBF_BUILD_TESTS=OFF",
                 "-DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON"],
                capture_output=True, text=True, timeout=300)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])
        self.assertRegex(r.stdout, r"benchfleet: agent with oneDNN \d+\.\d+\.\d+ ")


class WithoutOnednnTest(unittest.TestCase):
    """An agent-only build with -DBF_WITH_ONEDNN=OFF, as a host without
    libdnnl-dev builds it: it builds, does not link oneDNN, and skips the
    16-bit rows OpenBLAS cannot run, naming both reasons."""

    @classmethod
    def setUpClass(cls):
        src = os.environ.get("BF_SOURCE_DIR")
        if not src:
            raise unittest.SkipTest("BF_SOURCE_DIR is not set")
        cls.tmp = tempfile.mkdtemp(prefix="bf-no-onednn-")
        build = os.path.join(cls.tmp, "build")
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ASAN_", "LSAN_", "UBSAN_"))}
        subprocess.run(["cmake", "-S", src, "-B", build, *gen,
                        "-DCMAKE_BUILD_TYPE=Release", "-DBF_WERROR=ON",
                        "-DBF_WITH_ONEDNN=OFF", "-DBF_WITH_CUDA=OFF",
                        "-DBF_BUILD_CONTROLLER=OFF", "-DBF_BUILD_TESTS=OFF"],
                       check=True, capture_output=True, text=True,
                       timeout=300, env=env)
        subprocess.run(["cmake", "--build", build, "--target", "agent",
                        "-j2"], check=True, capture_output=True, text=True,
                       timeout=600, env=env)
        cls.agent = os.path.join(build, "bin", "agent")
        cls.proc, cls.host, cls.gemms = run_16bit(cls.agent)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_does_not_link_onednn(self):
        self.assertFalse(any(n.startswith("libdnnl")
                             for n in needed_libs(self.agent)))

    def test_16bit_rows_skipped_with_reason(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        for dt in ("bf16", "fp16"):
            g = self.gemms[dt]
            if self.host["openblas"][FLAG[dt]]:
                self.assertEqual(g["status"], "pass", g)
                continue
            self.assertEqual(g["status"], "skipped", g)
            self.assertIsNone(g["gflops"])
            self.assertEqual(
                g["reason"],
                f"{dt}: this OpenBLAS (OpenBLAS "
                f"{self.host['openblas']['version']}) has no {SYMBOL[dt]}; "
                "oneDNN: not in this build (libdnnl-dev was not found when "
                "the agent was built)")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[1:], verbosity=2)
