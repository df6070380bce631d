#!/usr/bin/env python3
"""tools/install-deps installs by purpose (issue 22).

- `--list` (what README's first command installs: building and running)
  names none of the test suite's packages, and none of its packages
  ships a daemon (a systemd system unit or an init script, asked of dpkg for the
  packages installed here);
- `--list --test` is that list plus the suite's: cmocka, numpy,
  jsonschema, an sshd, tmux, chromium, clang, munge and Slurm,
  debootstrap and qemu-user-static;
- `--list --bench` adds bench/run's peers to the --test list;
- an unknown option is a usage error (exit 2) that changes nothing.
"""

import os
import subprocess
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "tools", "install-deps")

# The suite's own, from the list: none of them is needed to build
# or run benchfleet.
TEST_ONLY = {"libcmocka-dev", "python3-jsonschema", "python3-numpy",
             "openssh-server", "tmux", "chromium", "clang",
             "libclang-rt-14-dev", "munge", "slurmctld", "slurmd",
             "slurm-client", "debootstrap", "qemu-user-static",
             "binfmt-support", "ninja-build"}
BUILD = {"build-essential", "cmake", "pkg-config", "libcjson-dev",
         "libopenblas-dev", "libdnnl-dev", "libssh-dev", "libssl-dev",
         "libncurses-dev"}


def listing(*opts):
    p = subprocess.run([TOOL, "--list"] + list(opts), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


class InstallDeps(unittest.TestCase):
    def test_default_is_build_and_run(self):
        base = listing()
        self.assertEqual(len(base), len(set(base)), base)
        self.assertTrue(BUILD <= set(base), BUILD - set(base))
        self.assertFalse(TEST_ONLY & set(base), TEST_ONLY & set(base))

    def test_default_has_no_daemon(self):
        for pkg in listing():
            files = subprocess.run(["dpkg-query", "-L", pkg],
                                   capture_output=True, text=True,
                                   timeout=60)
            if files.returncode != 0:
                continue   # not installed here: nothing to ask
            # System services (a user's own units, such as
            # openssh-client's ssh-agent, start nothing on install).
            daemons = [f for f in files.stdout.splitlines()
                       if (f.endswith(".service") and "/systemd/system/" in f)
                       or f.startswith("/etc/init.d/")]
            self.assertEqual(daemons, [], pkg)

    def test_test_set(self):
        base, test = listing(), listing("--test")
        self.assertEqual(test[:len(base)], base)
        self.assertTrue(TEST_ONLY <= set(test), TEST_ONLY - set(test))
        bench = listing("--bench")
        self.assertTrue(set(test) <= set(bench))
        self.assertTrue({"pssh", "rsync", "python3-torch"} <= set(bench))

    def test_bad_option(self):
        p = subprocess.run([TOOL, "--frobnicate"], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, "")
        self.assertIn("usage: tools/install-deps [--test] [--bench] [--list]",
                      p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
