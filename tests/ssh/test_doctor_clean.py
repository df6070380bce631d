#!/usr/bin/env python3
"""ctl doctor and ctl clean against real OpenSSH servers on loopback
(issue 22).

doctor: a host with everything says what it has and `ready yes` (exit 0)
and changes nothing there (no workdir made); a host whose PATH holds no
compiler, make, CMake or pkg-config (an inventory "env") names each
missing piece and the command that installs it on this Debian host (no
sudo: the login is root), says no CUDA toolkit was found, and exits 3;
`ctl run` on that host fails with the same words. An unreachable host is
named with why (exit 3).

clean: after a deploy (seeded as test_ctl_run.py does), --dry-run lists
the build with its size and removes nothing; clean removes it and the
emptied workdir, a Slurm staging directory too; entries that are not of
ctl's forms (a file, a name with a shell command in it, a directory
named almost like ctl's) are counted and left, and a symbolic link named
like a build is removed as a link, its target kept; --keep-current keeps
this ctl's build and removes another version's; `local` has nothing.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import test_ctl_run as tcr  # noqa: E402
import keeplogs  # noqa: E402
from sshhosts import SSHHosts  # noqa: E402

# What a shell script of the preflight needs, and nothing of the build.
TOOLS = ("sh", "id", "ls", "mkdir", "chmod", "find", "rm", "uname", "head",
         "grep", "cut", "du", "cat", "sed", "tr", "sleep", "kill", "env",
         "rmdir", "printf", "true", "dirname")


def restricted_bin(d):
    os.makedirs(d)
    for t in TOOLS:
        p = shutil.which(t)
        if p:
            os.symlink(p, os.path.join(d, t))
    return d


class DoctorClean(keeplogs.KeepOnFailure, unittest.TestCase):
    hosts = None

    @classmethod
    def setUpClass(cls):
        cls.hosts = SSHHosts(2).start()

    @classmethod
    def tearDownClass(cls):
        cls.hosts.stop()

    def setUp(self):
        self.tmp = self.keep_dir(tempfile.mkdtemp(prefix="bf-doctor-"))
        self.inv = os.path.join(self.tmp, "hosts")
        self.bin = restricted_bin(os.path.join(self.tmp, "bin"))
        tcr.write_inventory(self.inv, {
            "bare": {"ssh": self.hosts.alias(2),
                     "env": {"PATH": self.bin}}})

    def ctl(self, *args):
        env = self.hosts.env()
        env.pop("BENCHFLEET_HOSTS_DIR", None)
        return subprocess.run([tcr.CTL] + list(args) +
                              ["--hosts-dir", self.inv], cwd=self.tmp,
                              env=env, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)

    def test_doctor_ready_changes_nothing(self):
        h1 = self.hosts.alias(1)
        cache = os.path.join(self.hosts.remote_home(1), ".cache")
        shutil.rmtree(cache, ignore_errors=True)
        p = self.ctl("doctor", h1)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(p.stdout.startswith("%s (%s, host key SHA256:"
                                            % (h1, h1)), p.stdout)
        for row in ("system", "arch", "compiler", "make", "ninja", "cmake",
                    "pkg-config", "cjson", "openblas", "onednn", "cuda", "gpus",
                    "workdir", "agent"):
            self.assertRegex(p.stdout, r"(?m)^  %s +\S" % re.escape(row))
        # oneDNN as this machine has it (the hosts are loopback sshds).
        if os.path.exists("/usr/include/oneapi/dnnl/dnnl_version.h"):
            self.assertRegex(p.stdout, r"(?m)^  onednn +oneDNN \d+\.\d+\.\d+ "
                             r"found: the agent runs the CPU's bf16/fp16")
        else:
            self.assertRegex(p.stdout, r"(?m)^  onednn +no oneDNN "
                             r"\(libdnnl-dev\): the agent is built without")
        self.assertRegex(p.stdout, r"(?m)^  ready +yes$")
        self.assertIn("~/.cache/benchfleet: not there yet", p.stdout)
        self.assertFalse(os.path.exists(cache))

    def test_doctor_names_what_is_missing(self):
        p = self.ctl("doctor", "bare")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        # pkg-config, cJSON and OpenBLAS are not needed (issue 32): only
        # the compiler, make or else ninja, and CMake are missing. This
        # machine's cJSON and OpenBLAS are found without pkg-config.
        want = ("no: lacks a C compiler (cc), make (or ninja), CMake 3.18 "
                "or newer; install with: apt-get install -y build-essential "
                "make cmake")
        self.assertIn("  ready       " + want, p.stdout)
        self.assertRegex(p.stdout, r"(?m)^  cuda +no CUDA toolkit")
        self.assertRegex(p.stdout, r"(?m)^  cmake +missing$")
        self.assertRegex(p.stdout, r"(?m)^  make +missing$")
        self.assertRegex(p.stdout, r"(?m)^  pkg-config +missing \(not needed")
        self.assertRegex(p.stdout, r"(?m)^  cjson +found \(the host's\)$")
        self.assertRegex(p.stdout, r"(?m)^  openblas +found$")
        # ctl run fails on it with the same words, the CUDA one after.
        res = os.path.join(self.tmp, "res")
        p = self.ctl("run", "bare", "--no-tui", "--results", res, *tcr.TINY)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        runs = os.listdir(res)
        with open(os.path.join(res, runs[0], "run.json")) as f:
            reason = json.load(f)["hosts"][0]["reason"]
        self.assertIn("host lacks a C compiler (cc), make (or ninja), CMake",
                      reason)
        self.assertIn("install with: apt-get install -y build-essential",
                      reason)
        self.assertIn("no CUDA toolkit (nvcc not in $CUDACXX, PATH or "
                      "/usr/local/cuda/bin): the agent is built for the CPU "
                      "only", reason)

    def test_no_make_no_pkgconfig_builds_with_ninja(self):
        """A host with every tool but make and pkg-config (issue 32):
        doctor says the build uses ninja and is ready; ctl run builds
        there with Ninja (build.ninja in the deploy) and runs."""
        nb = os.path.join(self.tmp, "nomake-bin")
        os.makedirs(nb)
        for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
            if not os.path.isdir(d):
                continue
            for name in os.listdir(d):
                if (name in ("make", "gmake") or "pkg-config" in name
                        or "pkgconf" in name):
                    continue
                dst, src = os.path.join(nb, name), os.path.join(d, name)
                if not os.path.exists(dst) and os.access(src, os.X_OK):
                    os.symlink(src, dst)
        tcr.write_inventory(self.inv, {
            "nomake": {"ssh": self.hosts.alias(2), "env": {"PATH": nb}}})
        p = self.ctl("doctor", "nomake")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"(?m)^  make +missing: the build uses "
                                   r"ninja$")
        self.assertRegex(p.stdout, r"(?m)^  ninja +\d+\.\d+")
        self.assertRegex(p.stdout, r"(?m)^  ready +yes$")
        res = os.path.join(self.tmp, "res")
        p = self.ctl("run", "nomake", "--no-tui", "--results", res,
                     *tcr.TINY)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        build = tcr.cache_dir(self.hosts, 2)
        self.assertTrue(os.path.exists(os.path.join(build, "build",
                                                    "build.ninja")))
        self.assertFalse(os.path.exists(os.path.join(build, "build",
                                                     "Makefile")))
        rec = os.path.join(res, os.listdir(res)[0])
        nd = [f for f in os.listdir(rec) if f.endswith(".ndjson")]
        with open(os.path.join(rec, nd[0])) as f:
            host = next(r for r in map(json.loads, f)
                        if r.get("type") == "host")
        # Found without pkg-config, in /usr/include and the library path.
        self.assertEqual(host["cjson"]["source"], "system")

    def test_doctor_unreachable(self):
        p = self.ctl("doctor", "127.0.0.1:1", "--timeout", "5")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertTrue(p.stdout.startswith("127.0.0.1:1: cannot connect: "),
                        p.stdout)

    def test_clean(self):
        i = 1
        h = self.hosts.alias(i)
        tcr.seed_agent(self.hosts, i)
        build = tcr.cache_dir(self.hosts, i)
        name = os.path.basename(build)
        root = tcr.cache_root(self.hosts, i)
        slurm = os.path.join(self.hosts.remote_home(i), ".cache",
                             "benchfleet-slurm")
        # Not ctl's: a file, a name with a command in it, a near miss.
        with open(os.path.join(root, "notes.txt"), "w") as f:
            f.write("mine\n")
        odd = name + ";touch pwned"
        os.makedirs(os.path.join(root, odd))
        os.makedirs(os.path.join(root, name[:-1] + "G"))
        # A link named like a build: removed as a link, its target kept.
        target = os.path.join(self.tmp, "precious")
        os.makedirs(target)
        link = "%s-%s" % (tcr.HASH, "f" * 16)
        os.symlink(target, os.path.join(root, link))
        os.makedirs(os.path.join(slurm, tcr.HASH + ".tmp-0000beef"))

        p = self.ctl("clean", h, "--dry-run")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"(?m)^%s: would remove ~/.cache/benchfleet/"
                         r"%s  \d+\.\d MiB$" % (re.escape(h), name))
        self.assertIn("~/.cache/benchfleet: 3 other entries, not ctl's, left",
                      p.stdout)
        self.assertIn("would remove ~/.cache/benchfleet-slurm/%s.tmp-0000beef"
                      % tcr.HASH, p.stdout)
        self.assertRegex(p.stdout, r"(?m)^%s: would remove 3 directories, "
                         r"\d+\.\d MiB$" % re.escape(h))
        self.assertTrue(os.path.isdir(build))

        p = self.ctl("clean", h)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"(?m)^%s: removed 3 directories, "
                         % re.escape(h))
        self.assertFalse(os.path.lexists(build))
        self.assertFalse(os.path.lexists(os.path.join(root, link)))
        self.assertTrue(os.path.isdir(target))
        self.assertEqual(sorted(os.listdir(root)),
                         sorted(["notes.txt", odd, name[:-1] + "G"]))
        self.assertFalse(os.path.exists(os.path.join(root, "pwned")))
        self.assertFalse(os.path.exists(slurm))   # emptied: removed
        p = self.ctl("clean", h)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("nothing of ctl's deployed", p.stdout)
        shutil.rmtree(root)

    def test_clean_keep_current(self):
        i = 2
        h = self.hosts.alias(i)
        tcr.seed_agent(self.hosts, i)
        build = tcr.cache_dir(self.hosts, i)
        old = os.path.join(tcr.cache_root(self.hosts, i),
                           "0" * 16 + "-" + "1" * 16)
        os.makedirs(os.path.join(old, "build", "bin"))
        p = self.ctl("clean", h, "--keep-current")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(os.path.isdir(build))
        self.assertFalse(os.path.exists(old))
        self.assertIn("removed 1 directory", p.stdout)
        shutil.rmtree(tcr.cache_root(self.hosts, i))

    def test_clean_local_and_usage(self):
        p = self.ctl("clean", "local")
        self.assertEqual((p.returncode, p.stdout), (0, "local: nothing "
                         "deployed (ctl run local runs the agent beside "
                         "ctl)\n"), p.stderr)
        p = self.ctl("clean")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no host given", p.stderr)
        p = self.ctl("clean", "x", "--frobnicate")
        self.assertEqual(p.returncode, 2)
        p = self.ctl("doctor", "x", "--timeout", "0")
        self.assertEqual(p.returncode, 2)


def main():
    if not tcr.CTL or os.geteuid() != 0 or \
            not os.access("/usr/sbin/sshd", os.X_OK):
        print("skip: needs ctl (BF_CTL), root and /usr/sbin/sshd")
        return 77
    tcr.HASH = tcr.agent_hash()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
