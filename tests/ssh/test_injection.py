#!/usr/bin/env python3
"""Canary commands in every inventory field and in the target syntax
(issue 21), against a real loopback sshd host with a real CUDA-capable
build toolchain (nvcc where /usr/local/cuda has it): ctl run must refuse
each value with exit 2 naming its field, or carry it to the host inert.
Either way no canary may fire, on the host or here.

A canary is a command that creates a file in this test's canary
directory; it is written in each form a shell or make would run:
$(...), backquotes, ';', '|', '&&', make's $(shell ...), a line break.
What ctl refused is checked first (nothing ran, nothing built); what it
accepted runs against the host, whose agent cache is seeded (so a run
costs seconds), and the canary directory must stay empty.

This is the case the tester found: an inventory workdir of
"~/wa$(touch pwned)" ran `touch pwned` on the host during the CUDA build,
because nvcc reads the source path again through a shell.

Exits 77 (skipped) without ctl, root or sshd.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import test_ctl_run as tcr  # noqa: E402

CTL = tcr.CTL
EXIT_USAGE = tcr.EXIT_USAGE
TINY = tcr.TINY


class InjectionTest(tcr.CtlTestCase):
    N_HOSTS = 1
    SEED = (1,)

    def setUp(self):
        super().setUp()
        self.canaries = os.path.join(self.tmp, "canaries")
        os.makedirs(self.canaries)

    def forms(self, tag):
        """Each way of writing "create canaries/<tag>-<n>"."""
        c = os.path.join(self.canaries, tag)
        return ["a$(touch %s-1)b" % c, "a`touch %s-2`b" % c,
                "a;touch %s-3;b" % c, "a|touch %s-4" % c,
                "a&&touch %s-5" % c, "a$(shell touch %s-6)b" % c,
                "a\ntouch %s-7\n" % c]

    def fired(self):
        return sorted(os.listdir(self.canaries))

    def ctl(self, args, hosts_obj=None, groups=None, timeout=120):
        hosts_dir = os.path.join(self.tmp, "hosts")
        shutil.rmtree(hosts_dir, ignore_errors=True)
        os.makedirs(hosts_dir)
        doc = {"hosts": hosts_obj or {}}
        if groups:
            doc["groups"] = groups
        with open(os.path.join(hosts_dir, "test.json"), "w") as f:
            json.dump(doc, f)
        shutil.rmtree(self.results, ignore_errors=True)
        return subprocess.run(
            [CTL, "run", "--no-tui", "--results", self.results,
             "--hosts-dir", hosts_dir] + TINY + args,
            capture_output=True, text=True, env=self.env(), cwd=self.cwd,
            timeout=timeout)

    def check(self, what, field, p, must_refuse=False):
        """Refused with exit 2 naming field (and nothing run), or run;
        no canary either way."""
        out = p.stdout + p.stderr
        self.assertEqual(self.fired(), [], "%s: canary fired; ctl said:\n%s"
                         % (what, out))
        if p.returncode == EXIT_USAGE:
            self.assertIn(field, p.stderr, what)
            self.assertEqual(p.stderr.count("\n"), 1, out)
            self.assertFalse(os.path.exists(self.results), what)
        else:
            self.assertFalse(must_refuse, "%s: not refused: %s" % (what,
                                                                  out))
            self.assertRegex(p.stdout, r"^run \S+: ", what)

    def test_workdir(self):
        """The tester's case: the CUDA build expanded the path again."""
        for v in (["~/wa$(touch %s/workdir)" % self.canaries,
                   "~/wa`touch %s/workdir2`" % self.canaries] +
                  self.forms("workdir")):
            with self.subTest(value=v):
                p = self.ctl(["h"], {"h": {"ssh": "bfhost1", "workdir": v}},
                             timeout=600)
                self.check("workdir %r" % v, "workdir", p,
                           must_refuse=True)

    def test_path_prepend(self):
        for v in self.forms("path"):
            with self.subTest(value=v):
                p = self.ctl(["h"], {"h": {"ssh": "bfhost1",
                                           "path_prepend": ["/opt/" + v]}})
                self.check("path_prepend %r" % v, "path_prepend", p,
                           must_refuse=True)

    def test_env(self):
        """Values of any variable (make expands '$' in all), of the ones
        the build reads as commands or flags, and names. The host's agent
        is cached (nothing is built there), so a canary in a build
        variable could not fire even if ctl let it through: every form
        in one of those must be refused, as must '$', '`' and a line
        break in any variable; BF_NOTE's ';', '|' and '&&' are inert."""
        for name in ("BF_NOTE", "CC", "CFLAGS", "NVCC_APPEND_FLAGS",
                     "MAKEFLAGS", "BASH_ENV", "CMAKE_C_FLAGS", "PATH",
                     "NVCC_PREPEND_FLAGS", "CMAKE_CUDA_FLAGS"):
            for v in self.forms("env-" + name):
                refuse = name != "BF_NOTE" or any(c in v for c in "$`\n")
                with self.subTest(name=name, value=v):
                    p = self.ctl(["h"], {"h": {"ssh": "bfhost1",
                                               "env": {name: v}}})
                    self.check("env %s=%r" % (name, v), "env: " + name, p,
                               must_refuse=refuse)
        for v in self.forms("envname"):
            with self.subTest(name=v):
                p = self.ctl(["h"], {"h": {"ssh": "bfhost1",
                                           "env": {v: "1"}}})
                self.check("env name %r" % v, "env", p, must_refuse=True)

    def test_ssh_target(self):
        for v in self.forms("ssh"):
            for target in (v, v + "@bfhost1", "bfhost1" + v,
                           "[%s]:22" % v):
                with self.subTest(target=target):
                    p = self.ctl(["h"], {"h": {"ssh": target}})
                    self.check("ssh %r" % target, "ssh", p)

    def test_names_description_groups(self):
        """Inventory names and free text never reach the host; the host
        runs (cached agent) and nothing fires."""
        forms = self.forms("name")
        hosts = {"h%d%s" % (i, v): {"ssh": "bfhost1",
                                    "description": self.forms("desc")[i]}
                 for i, v in enumerate(forms[:3])}
        p = self.ctl(["g" + forms[3]], hosts, {"g" + forms[3]:
                                                sorted(hosts)})
        self.check("names", "host", p)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_defaults(self):
        for key in ("sizes", "dtypes", "device"):
            for v in self.forms("defaults-" + key):
                with self.subTest(key=key, value=v):
                    p = self.ctl(["h"], {"h": {"ssh": "bfhost1",
                                               "defaults": {key: v}}})
                    self.check("defaults %s=%r" % (key, v), key, p,
                               must_refuse=True)

    def test_slurm_fields(self):
        """A cluster whose login host is the loopback host (it has no
        srun: the run fails there), each field a canary: the srun line
        gets them quoted, or the inventory refuses them."""
        for key in ("partition", "gres", "time", "account", "nodelist",
                    "workdir", "description", "login"):
            for v in self.forms("slurm-" + key)[:3]:
                with self.subTest(key=key, value=v):
                    g = {"kind": "slurm", "login": "bfhost1", "nodes": 1}
                    g[key] = v
                    p = self.ctl(["c"], groups={"c": g})
                    self.check("slurm %s=%r" % (key, v), key, p,
                               must_refuse=key in ("workdir", "login"))

    def test_target_syntax(self):
        """The command line's targets: [user@]host[:port], [address],
        and a cluster's NAME:node,node."""
        for v in self.forms("arg"):
            for target in (v, v + "@bfhost1", "bfhost1:22" + v,
                           "[%s]" % v, "[%s]:22" % v, "c:" + v,
                           "c:node1," + v):
                with self.subTest(target=target):
                    p = self.ctl([target], groups={"c": {
                        "kind": "slurm", "login": "bfhost1", "nodes": 2}})
                    self.check("target %r" % target, "", p,
                               must_refuse=True)


def main():
    if not CTL or not os.access(CTL, os.X_OK) or \
            not os.access(tcr.AGENT, os.X_OK):
        print("skip: ctl/agent not built (set BF_CTL)")
        return 77
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK):
        print("skip: needs root and /usr/sbin/sshd")
        return 77
    tcr.HASH = tcr.agent_hash()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
