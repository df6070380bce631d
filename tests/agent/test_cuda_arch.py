"""Which GPU architectures configure chooses (cmake/cuda_architectures.cmake),
by configuring this checkout for real with a fake nvidia-smi first on
PATH: with GPUs visible, their compute capabilities as real code plus
PTX of the highest; a GPU this nvcc cannot build for (7.0 with CUDA 13)
named in the line, never a failed configure; with nvidia-smi failing or
listing no GPU, nvcc's own list from 7.5 up to 12.1 plus PTX. Needs nvcc
(CMAKE_CUDA_COMPILER, $BF_NVCC); exits 77 without it.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
NVCC = os.environ.get("BF_NVCC") or shutil.which("nvcc") or \
    "/usr/local/cuda/bin/nvcc"
LINE = re.compile(r"^-- benchfleet: CUDA architectures (\S+): (.*)$", re.M)


def nvcc_archs():
    out = subprocess.run([NVCC, "--list-gpu-arch"], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    return sorted({int(a) for a in re.findall(r"compute_(\d+)", out)})


class CudaArchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-cuda-arch-")
        cls.supported = nvcc_archs()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def configure(self, name, smi_body):
        """Configures ROOT in a build dir of its own with a fake
        nvidia-smi (smi_body: shell) first on PATH, or none at all when
        smi_body is None; returns (architectures, note)."""
        bindir = os.path.join(self.tmp, name + "-bin")
        os.makedirs(bindir)
        path = os.environ["PATH"]
        if smi_body is None:
            # Only directories without an nvidia-smi in them.
            path = ":".join(p for p in path.split(":") if p and not
                            os.path.exists(os.path.join(p, "nvidia-smi")))
        else:
            with open(os.path.join(bindir, "nvidia-smi"), "w") as f:
                f.write("#!/bin/sh\n" + smi_body)
            os.chmod(os.path.join(bindir, "nvidia-smi"), 0o755)
            path = bindir + ":" + path
        env = dict(os.environ, PATH=path)
        p = subprocess.run(
            ["cmake", "-S", ROOT, "-B", os.path.join(self.tmp, name),
             "-DBF_BUILD_CONTROLLER=OFF", "-DBF_BUILD_TESTS=OFF",
             "-DBF_WITH_CUDA=ON", "-DCMAKE_CUDA_COMPILER=" + NVCC],
            env=env, capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        m = LINE.search(p.stdout)
        self.assertIsNotNone(m, p.stdout)
        return m.group(1).split(";"), m.group(2)

    def fallback(self):
        real = [a for a in self.supported if 75 <= a <= 121]
        return ["%d-real" % a for a in real] + ["%d-virtual" % real[-1]]

    def test_h200(self):
        if 90 not in self.supported:
            self.skipTest("this nvcc has no sm_90")
        archs, note = self.configure("h200", "echo 9.0\n")
        self.assertEqual(archs, ["90-real", "90-virtual"])
        self.assertIn("compute capability 9.0", note)

    def test_mixed_node_and_unbuildable_gpu(self):
        if 70 in self.supported or 90 not in self.supported:
            self.skipTest("this nvcc still builds sm_70")
        archs, note = self.configure(
            "mixed", "echo 7.0; echo 9.0; echo 8.9; echo 9.0\n")
        self.assertEqual(archs, ["89-real", "90-real", "90-virtual"])
        self.assertIn("GPU 7.0 (needs CUDA 12.9 or older", note)
        # A V100 alone: nvcc's list, and the same line, not an abort.
        archs, note = self.configure("v100", "echo 7.0\n")
        self.assertEqual(archs, self.fallback())
        self.assertIn("needs CUDA 12.9 or older", note)

    def test_no_gpu(self):
        for name, body in (("failing", "echo 'NVIDIA-SMI has failed "
                            "because it could not communicate with the "
                            "NVIDIA driver.'; exit 9\n"),
                           ("none", 'echo "No devices were found"; exit 6\n'),
                           ("empty", "exit 0\n"),
                           ("absent", None)):
            with self.subTest(name):
                archs, note = self.configure(name, body)
                self.assertEqual(archs, self.fallback())
                self.assertTrue("nvidia-smi" in note, note)
        self.assertIn("75-real", self.fallback())


if __name__ == "__main__":
    if not os.access(NVCC, os.X_OK):
        print("no nvcc: skipped")
        sys.exit(77)
    unittest.main(verbosity=2)
