#!/usr/bin/env python3
"""tests/gpu/check.sh's logic that needs no GPU (issue 32).

checklib.sh's functions on their own: OpenBLAS found on "this machine"
or not (BF_SYSROOT makes an empty one); Debian packages unpacked into a
private root (a package built here with dpkg-deb, in the layout of
Debian's libopenblas-pthread-dev) and the CMake flags and library path
that use it; nvidia-smi dmon's output summarised (power mean and max,
SM clock range, per GPU); bench/gpu_vs_torch's exit 77 a SKIP with the
reason from its JSON, 124 a FAIL naming the limit.

And check.sh as a whole with a fake nvidia-smi on PATH (one GPU listed,
dmon printing a sample every 0.2 s until it is stopped) and the agent
this tree built (--agent; its GPU rows are skipped here, so the record
check fails, as it must): exit 1, dmon's samples summarised as taken
during the run, the torch step a SKIP (no GPU for it), every CPU row
printed with its verification margin and bandwidth, and every file it
wrote in the one archive.

Env: BF_AGENT (the agent), BF_VALIDATE_RECORDS (optional).
"""

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "checklib.sh")
CHECK = os.path.join(HERE, "check.sh")
AGENT = os.environ.get("BF_AGENT", "")

FAKE_SMI = r"""#!/bin/bash
case "$*" in
-L) echo "GPU 0: NVIDIA Fake H200 (UUID: GPU-0)";;
*compute_cap*) echo "9.0";;
-q*) echo "==============NVSMI LOG=============="; echo "Clocks"; echo "    SM : 1980 MHz";;
dmon*)
	echo "#Time        gpu    pwr  gtemp  mtemp   mclk   pclk"
	echo "#HH:MM:SS    Idx      W      C      C    MHz    MHz"
	i=0
	while :; do
		printf ' %s %6d %6d %6d %6d %6d %6d\n' "$(date +%H:%M:%S)" 0 $((300 + i % 2 * 100)) 40 35 3201 $((1900 + i % 3 * 40))
		i=$((i + 1))
		sleep 0.2
	done;;
*) exit 0;;
esac
"""

DMON = """#Time        gpu    pwr  gtemp  mtemp   mclk   pclk
#HH:MM:SS    Idx      W      C      C    MHz    MHz
 05:00:01      0    100     30     28   3201    345
 05:00:02      0    600     40     30   3201   1980
 05:00:03      0    500     45     31   3201   1755
 05:00:03      1     90     30     28   3201    345
"""


def sh(script, env=None, **kw):
    e = dict(os.environ, **(env or {}))
    return subprocess.run(["bash", "-c", ". %s; %s" % (LIB, script)],
                          env=e, capture_output=True, text=True,
                          timeout=120, **kw)


def fake_openblas_deb(d):
    """A .deb with Debian's libopenblas-pthread-dev layout (headers and
    the libopenblas.so link under openblas-pthread/)."""
    tree = os.path.join(d, "pkg")
    inc = os.path.join(tree, "usr/include/x86_64-linux-gnu/openblas-pthread")
    lib = os.path.join(tree, "usr/lib/x86_64-linux-gnu/openblas-pthread")
    os.makedirs(inc)
    os.makedirs(lib)
    os.makedirs(os.path.join(tree, "DEBIAN"))
    with open(os.path.join(inc, "cblas.h"), "w") as f:
        f.write("/* fake */\n")
    with open(os.path.join(lib, "libopenblas.so.0"), "w") as f:
        f.write("fake\n")
    os.symlink("libopenblas.so.0", os.path.join(lib, "libopenblas.so"))
    with open(os.path.join(tree, "DEBIAN", "control"), "w") as f:
        f.write("Package: fake-openblas\nVersion: 1\nArchitecture: all\n"
                "Maintainer: t <t@localhost>\nDescription: fake\n")
    debs = os.path.join(d, "debs")
    os.makedirs(debs)
    subprocess.run(["dpkg-deb", "-b", tree, os.path.join(debs, "f.deb")],
                   check=True, capture_output=True)
    return debs


class CheckLib(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bf-checklib-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_openblas_here(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        p = sh("bf_openblas_here", {"BF_SYSROOT": empty})
        self.assertEqual(p.stdout, "")
        inc = os.path.join(empty, "usr/include/x86_64-linux-gnu")
        lib = os.path.join(empty, "usr/lib/x86_64-linux-gnu")
        os.makedirs(inc)
        os.makedirs(lib)
        open(os.path.join(inc, "cblas.h"), "w").close()
        p = sh("bf_openblas_here", {"BF_SYSROOT": empty})
        self.assertEqual(p.stdout, "", "a header alone is no OpenBLAS")
        open(os.path.join(lib, "libopenblas.so"), "w").close()
        p = sh("bf_openblas_here", {"BF_SYSROOT": empty})
        self.assertEqual(p.stdout.strip(), "files %s %s"
                         % (inc, os.path.join(lib, "libopenblas.so")))

    @unittest.skipUnless(shutil.which("dpkg-deb"), "needs dpkg-deb")
    def test_unpack_into_private_root(self):
        debs = fake_openblas_deb(self.tmp)
        root = os.path.join(self.tmp, "root")
        p = subprocess.run(
            ["bash", "-c", '. "$0"; bf_unpack_debs "$1" "$2" && '
             'bf_openblas_flags "$2" && echo "libs=$(bf_private_libs "$2")"',
             LIB, debs, root], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], "unpacked 1 package(s) from %s into %s"
                         % (debs, root))
        inc = os.path.join(root, "usr/include/x86_64-linux-gnu/"
                                 "openblas-pthread")
        lib = os.path.join(root, "usr/lib/x86_64-linux-gnu/openblas-pthread")
        self.assertEqual(lines[1], "-DBF_OPENBLAS_INCLUDE_DIR=" + inc)
        self.assertEqual(lines[2], "-DBF_OPENBLAS_LIBRARY=" +
                         os.path.join(lib, "libopenblas.so"))
        self.assertTrue(lines[3].startswith("libs=" + lib), lines[3])
        # Nothing in / was touched: the root is private.
        self.assertFalse(os.path.exists("/usr/include/x86_64-linux-gnu/"
                                        "openblas-pthread/cblas.h.fake"))
        # No packages: refused.
        empty = os.path.join(self.tmp, "nodebs")
        os.makedirs(empty)
        p = subprocess.run(["bash", "-c", '. "$0"; bf_unpack_debs "$1" "$2"',
                            LIB, empty, root + "2"], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 1)

    def test_dmon_summary(self):
        f = os.path.join(self.tmp, "dmon.txt")
        with open(f, "w") as fh:
            fh.write(DMON)
        p = sh('bf_dmon_summary "%s" | sort' % f)
        self.assertEqual(p.stdout.splitlines(), [
            "gpu 0: 3 samples, power mean 400 W max 600 W, SM clock "
            "345-1980 MHz, memory clock 3201 MHz",
            "gpu 1: 1 samples, power mean 90 W max 90 W, SM clock 345-345 "
            "MHz, memory clock 3201 MHz"])
        with open(f, "w") as fh:
            fh.write("Failed to initialize NVML\n")
        self.assertEqual(sh('bf_dmon_summary "%s"' % f).stdout,
                         "no samples\n")

    def test_torch_step(self):
        j = os.path.join(self.tmp, "gpu.json")
        with open(j, "w") as fh:
            fh.write('{"status": "not run", "reason": "no torch with a '
                     'usable CUDA device"}')
        self.assertEqual(sh('bf_torch_step 77 "%s" 120' % j).stdout,
                         "SKIP torch: no torch with a usable CUDA device\n")
        self.assertEqual(sh('bf_torch_step 124 "%s" 120' % j).stdout,
                         "FAIL torch: bench/gpu_vs_torch ran past its 120 s "
                         "limit\n")
        self.assertEqual(sh('bf_torch_step 1 "%s" 120' % j).stdout,
                         "FAIL torch: bench/gpu_vs_torch exited 1\n")
        self.assertEqual(sh('bf_torch_step 0 "%s" 120' % j).stdout, "\n")


@unittest.skipUnless(AGENT, "needs BF_AGENT")
class CheckScript(unittest.TestCase):
    def test_whole_script_with_a_fake_gpu(self):
        tmp = tempfile.mkdtemp(prefix="bf-checksh-")
        self.addCleanup(shutil.rmtree, tmp, True)
        bin_ = os.path.join(tmp, "bin")
        os.makedirs(bin_)
        smi = os.path.join(bin_, "nvidia-smi")
        with open(smi, "w") as f:
            f.write(FAKE_SMI)
        os.chmod(smi, 0o755)
        out = os.path.join(tmp, "out")
        archive = os.path.join(tmp, "all.tar.gz")
        env = dict(os.environ, PATH=bin_ + ":" + os.environ["PATH"])
        args = [CHECK, "--agent", AGENT, "--sizes", "64", "--iters", "3",
                "--out", out, "--archive", archive, "--torch-timeout", "200"]
        p = subprocess.run(args, env=env, capture_output=True, text=True,
                           timeout=900, stdin=subprocess.DEVNULL)
        text = p.stdout + p.stderr
        # No GPU rows here: the record check fails, so the script does.
        self.assertEqual(p.returncode, 1, text)
        self.assertIn("gpu check: FAIL records", text)
        self.assertRegex(text, r"gpu check: PASS during the run \(nvidia-smi "
                               r"dmon\): gpu 0: \d+ samples, power mean \d+ W "
                               r"max (3|4)00 W, SM clock 19\d\d-19\d\d MHz")
        self.assertRegex(text, r"gpu check: SKIP torch: \S")
        self.assertRegex(text, r"gpu check: cpu +fp32 +n=64 .* margin "
                               r"[\d.]+x \(err .* bw \d+ GB/s")
        self.assertRegex(text, r"gpu check: archive %s: \d+ file\(s\)"
                         % archive)
        with tarfile.open(archive) as t:
            names = {os.path.relpath(n, "out") for n in t.getnames()}
        for want in ("summary.txt", "records.ndjson", "stderr.txt",
                     "dmon.txt", "nvidia-smi-q-before.txt",
                     "nvidia-smi-q-after.txt", "check_records.txt",
                     "gpu_vs_torch.log", "bench/gpu.json"):
            self.assertIn(want, names)
        # The archive holds every file under OUT.
        on_disk = {os.path.relpath(os.path.join(d, f), out)
                   for d, _, fs in os.walk(out) for f in fs}
        self.assertEqual(on_disk - names, set())
        with open(os.path.join(out, "summary.txt")) as f:
            summary = f.read()
        self.assertIn("SKIP torch:", summary)
        self.assertIn("FAIL records", summary)


if __name__ == "__main__":
    unittest.main(verbosity=2)
