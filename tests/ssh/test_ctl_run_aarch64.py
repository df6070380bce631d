#!/usr/bin/env python3
"""`ctl run` on an aarch64 host, end to end (issue 9): deploy, remote build
under emulation, run, archive.

The host is an sshd inside a Debian 12 arm64 root run through
qemu-user-static (tests/lib/arm64root.py; the root is built by debootstrap
on the first run, minutes, and reused from /var/cache/benchfleet-aarch64,
or $BF_AARCH64_CACHE, after that). Beside it an x86_64 loopback host
(tests/lib/sshhosts.py) that shares nothing with it. One ctl run deploys
to both: each uploads and builds the agent for real (the aarch64 one with
gcc and CMake under qemu), under a cache key of its own; the host record
says aarch64 there; every check passes and every GEMM row passes or is
skipped by the library (fp16/bf16 where OpenBLAS lacks them), fp32
passing. A second run finds both builds cached: nothing uploaded, built
or renamed.

Exits 77 (CTest: skipped) only when the aarch64 host cannot be had here:
not root, no binfmt_misc or qemu-aarch64 entry, debootstrap or
qemu-user-static not installed, the Debian mirror unreachable. Prints the
times (root build, first deploy+build, cached run); asserts none.
"""

import os
import re
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import arm64root  # noqa: E402
import test_ctl_run as tcr  # noqa: E402
from sshhosts import SSHHosts  # noqa: E402

ARM = "bfarm1"
X86 = "bfx861"
# --size 64 as the issue asks; short timings (emulated GEMMs are slow).
ARGS = ["--size", "64", "--device", "cpu", "--iters", "3", "--warmup", "1"]
FIRST_RUN_TIMEOUT_S = 1800    # upload + CMake + gcc under qemu
CACHED_RUN_TIMEOUT_S = 600

ROOT_BUILD_S = None           # set in main(): None when reused


class Aarch64Test(tcr.CtlTestCase):
    arm = None
    x86 = None

    @classmethod
    def setUpClass(cls):
        cls.arm = arm64root.ChrootSSHHosts(1, ROOT, prefix="bfarm")
        cls.arm.start()
        try:
            cls.x86 = SSHHosts(1, prefix="bfx86").start()
        except BaseException:
            cls.arm.stop()
            raise
        cls.hosts = cls.x86      # CtlTestCase.env(): HOME outside the root

    @classmethod
    def tearDownClass(cls):
        for h in (cls.x86, cls.arm):
            if h:
                h.stop()

    def setUp(self):
        super().setUp()
        # One ssh config for both fixtures (each Host block names its own
        # UserKnownHostsFile and IdentityFile).
        self.ssh_config = os.path.join(self.tmp, "ssh_config")
        with open(self.ssh_config, "w") as f:
            for h in (self.arm, self.x86):
                with open(h.ssh_config) as g:
                    f.write(g.read() + "\n")
        self.hosts_dir = os.path.join(self.tmp, "hosts")
        # As in DeployTest: no CUDA build even where this machine has a
        # toolkit (the x86_64 host would find it).
        tcr.write_inventory(self.hosts_dir, {
            n: {"ssh": n, "env": {"CUDACXX": "/bin/false"}}
            for n in (ARM, X86)})

    def ctl(self, timeout):
        return self.run_ctl(["-F", self.ssh_config, "--hosts-dir",
                             self.hosts_dir] + ARGS + [ARM, X86],
                            timeout=timeout)

    def host_span(self, c, name, state="done"):
        """Seconds from ctl's start to the host's first line in state."""
        t = c.line_time(r"^\[%s\] %s" % (name, state))
        self.assertIsNotNone(t, c.stdout)
        return t

    def check_records(self, d, h, fingerprint, arch):
        recs = self.assert_host_complete(d, h, fingerprint)
        self.assertEqual(recs[0]["arch"], arch)
        gemm = [r for r in recs if r["type"] == "gemm"]
        self.assertTrue(gemm)
        for r in gemm:
            self.assertIn(r["status"], ("pass", "skipped"), r)
        self.assertEqual([r["status"] for r in gemm if r["dtype"] == "fp32"],
                         ["pass"])
        checks = [r for r in recs if r["type"] == "check"]
        self.assertTrue(checks)
        self.assertFalse([r for r in checks if r["status"] == "fail"])
        return recs

    def test_deploy_build_run_then_cached(self):
        fps = {ARM: self.arm.fingerprint(1), X86: self.x86.fingerprint(1)}
        fixture = {ARM: self.arm, X86: self.x86}

        c = self.ctl(FIRST_RUN_TIMEOUT_S)
        self.assertEqual(c.rc, tcr.EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assertEqual(run["status"], "complete")
        self.assertEqual([h["name"] for h in run["hosts"]], [ARM, X86])
        keys = {}
        for n, arch in ((ARM, "aarch64"), (X86, "x86_64")):
            self.assertIn("[%s] building" % n, c.stdout)
            self.check_records(d, hs[n], fps[n], arch)
            keys[n] = tcr.key_of(self.log(d, hs[n]))
            self.assertRegex(c.stdout, r"(?m)^\[%s\] cache key %s \(arch %s"
                             % (n, keys[n], arch))
            cache = tcr.cache_root(fixture[n], 1)
            self.assertEqual(os.listdir(cache), [tcr.HASH + "-" + keys[n]])
            agent = os.path.join(cache, tcr.HASH + "-" + keys[n], "build",
                                 "bin", "agent")
            with open(agent, "rb") as f:
                elf = f.read(20)
            # ELF e_machine: 183 (EM_AARCH64) and 62 (EM_X86_64).
            self.assertEqual(elf[:4], b"\x7fELF")
            self.assertEqual(int.from_bytes(elf[18:20], "little"),
                             183 if n == ARM else 62)
        # Same sources, another machine: another build under another key.
        self.assertNotEqual(keys[ARM], keys[X86])
        before = {n: tcr.snapshot(tcr.cache_root(fixture[n], 1))
                  for n in (ARM, X86)}

        c2 = self.ctl(CACHED_RUN_TIMEOUT_S)
        self.assertEqual(c2.rc, tcr.EXIT_OK, c2.stdout + c2.stderr)
        self.assertNotIn("building", c2.stdout)
        d2, run2, hs2 = self.archive(c2)
        self.assertNotEqual(d2, d)
        self.assertEqual(run2["status"], "complete")
        for n, arch in ((ARM, "aarch64"), (X86, "x86_64")):
            self.assertRegex(c2.stdout, r"(?m)^\[%s\] cache key %s .*: cached$"
                             % (n, keys[n]))
            self.check_records(d2, hs2[n], fps[n], arch)
            self.assertEqual(tcr.snapshot(tcr.cache_root(fixture[n], 1)),
                             before[n])

        print("\n  aarch64 root: %s\n"
              "  first run (upload + build + run): aarch64 %.1f s (running "
              "after %.1f s), x86_64 %.1f s (running after %.1f s), ctl "
              "%.1f s\n"
              "  cached run: aarch64 %.1f s, x86_64 %.1f s, ctl %.1f s"
              % ("built in %.0f s" % ROOT_BUILD_S if ROOT_BUILD_S is not None
                 else "reused from the cache",
                 self.host_span(c, ARM), self.host_span(c, ARM, "running"),
                 self.host_span(c, X86), self.host_span(c, X86, "running"),
                 c.elapsed,
                 self.host_span(c2, ARM), self.host_span(c2, X86),
                 c2.elapsed), file=sys.stderr)


ROOT = None


def main():
    global ROOT, ROOT_BUILD_S
    if not tcr.CTL or not os.access(tcr.CTL, os.X_OK):
        print("skip: ctl not built (set BF_CTL)")
        return 77
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK):
        print("skip: needs root and /usr/sbin/sshd")
        return 77
    why = arm64root.check()
    if why:
        print("skip: %s" % why)
        return 77
    t0 = time.monotonic()
    try:
        ROOT, ROOT_BUILD_S = arm64root.ensure_root()
    except arm64root.Unavailable as e:
        print("skip: %s" % e)
        return 77
    print("arm64 root %s (%s, %.0f s)" % (
        ROOT, "built" if ROOT_BUILD_S is not None else "reused",
        time.monotonic() - t0), file=sys.stderr)
    tcr.HASH = tcr.agent_hash()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
