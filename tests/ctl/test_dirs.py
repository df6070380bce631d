#!/usr/bin/env python3
"""Where results/ and hosts/ are (issue 13), for every command, from any
directory: --results/--hosts-dir, else $BENCHFLEET_RESULTS_DIR and
$BENCHFLEET_HOSTS_DIR, else ./results (./hosts) when it exists, else the
benchfleet checkout at or above the current directory (hosts/ and
results/README.md), else the one ctl was built from. And `ctl list` with
no results directory: no runs, one line, exit 0.

ctl run local runs a fake agent ($BENCHFLEET_AGENT) that replays the real
agent's records, so that each run takes well under a second. Nothing is
written outside a temporary directory: every run here has a results
directory found in it.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]
AGENT = os.path.join(os.path.dirname(CTL), "agent")
AGENT_ARGS = ["--bandwidth-mib", "8",
              "--sizes", "32", "--dtypes", "fp32", "--iters", "2",
              "--warmup", "1", "--device", "cpu"]
ENV_KEYS = ("BENCHFLEET_RESULTS_DIR", "BENCHFLEET_HOSTS_DIR")


class Dirs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-dirs-")
        p = subprocess.run([AGENT] + AGENT_ARGS, capture_output=True,
                           text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError("agent: %s" % p.stderr)
        fake = os.path.join(cls.tmp, "fake")
        os.makedirs(fake)
        with open(os.path.join(fake, "records.ndjson"), "w") as f:
            f.write(p.stdout)
        cls.agent = os.path.join(fake, "agent")
        with open(cls.agent, "w") as f:
            f.write('#!/bin/sh\ncat "%s/records.ndjson"\n' % fake)
        os.chmod(cls.agent, 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.dir = tempfile.mkdtemp(dir=self.tmp)

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
        env["BENCHFLEET_AGENT"] = self.agent
        env.update(extra)
        return env

    def ctl(self, args, cwd, **env):
        return subprocess.run([CTL] + args, cwd=cwd, env=self.env(**env),
                              capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)

    def run_local(self, cwd, host="local", **env):
        p = self.ctl(["run", host, "--no-tui"] + AGENT_ARGS, cwd, **env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        m = re.search(r"^run (\S+): 1 host, results in (.+)$", p.stdout, re.M)
        self.assertIsNotNone(m, p.stdout)
        return m.group(1), m.group(2)

    def checkout(self):
        """A benchfleet checkout (hosts/, results/README.md) with a group
        `mine` of local in its inventory, and a directory two below it."""
        co = os.path.join(self.dir, "co")
        os.makedirs(os.path.join(co, "hosts"))
        os.makedirs(os.path.join(co, "results"))
        with open(os.path.join(co, "results", "README.md"), "w") as f:
            f.write("results\n")
        with open(os.path.join(co, "hosts", "lab.json"), "w") as f:
            json.dump({"groups": {"mine": ["local"]}}, f)
        deep = os.path.join(co, "build", "deeper")
        os.makedirs(deep)
        return co, deep

    def assert_reads(self, cwd, run_id, **env):
        """list, show, compare and report from cwd find run_id."""
        p = self.ctl(["list"], cwd, **env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([l.split()[0] for l in p.stdout.splitlines()],
                         [run_id])
        p = self.ctl(["show"], cwd, **env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("run %s " % run_id), p.stdout)
        p = self.ctl(["compare", "local", run_id], cwd, **env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(run_id, p.stdout)
        out = os.path.join(self.dir, "r.html")
        p = self.ctl(["report", run_id, "-o", out], cwd, **env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.getsize(out) > 0)

    def test_checkout_above_the_current_directory(self):
        co, deep = self.checkout()
        # hosts/ of the checkout: the group `mine` resolves.
        run_id, where = self.run_local(deep, host="mine")
        self.assertEqual(where, os.path.join(co, "results", run_id))
        self.assertTrue(os.path.isfile(os.path.join(where, "run.json")))
        self.assertFalse(os.path.exists(os.path.join(deep, "results")))
        self.assert_reads(deep, run_id)
        p = self.ctl(["--help"], deep)
        self.assertIn("From here: %s/results and %s/hosts." % (co, co),
                      p.stdout.replace("\n", " "))

    def test_current_directory_first(self):
        co, deep = self.checkout()
        os.makedirs(os.path.join(deep, "results"))
        run_id, where = self.run_local(deep)
        self.assertEqual(where, os.path.join("results", run_id))
        self.assertEqual(os.listdir(os.path.join(co, "results")),
                         ["README.md"])
        self.assert_reads(deep, run_id)

    def test_environment_variables(self):
        co, deep = self.checkout()
        res = os.path.join(self.dir, "elsewhere", "res")
        hosts = os.path.join(self.dir, "elsewhere", "inv")
        os.makedirs(hosts)
        with open(os.path.join(hosts, "x.json"), "w") as f:
            json.dump({"groups": {"theirs": ["local"]}}, f)
        env = {"BENCHFLEET_RESULTS_DIR": res, "BENCHFLEET_HOSTS_DIR": hosts}
        # They win over the checkout and over ./results.
        os.makedirs(os.path.join(deep, "results"))
        # (`theirs` is a group of the variable's hosts/ only: elsewhere it
        # would be an SSH target, and fail.)
        run_id, where = self.run_local(deep, host="theirs", **env)
        self.assertEqual(where, os.path.join(res, run_id))
        self.assert_reads(self.dir, run_id, **env)
        # A flag wins over the variable.
        p = self.ctl(["list", "--results", os.path.join(co, "results")],
                     self.dir, **env)
        self.assertEqual((p.returncode, p.stdout), (0, ""), p.stderr)

    def test_built_from_checkout_is_the_last_resort(self):
        # Outside any checkout, with no ./results: the checkout ctl was
        # built from (read only here: --help says which).
        p = self.ctl(["--help"], self.dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = re.search(r"From here: (\S+)/results and (\S+)/hosts\.",
                      p.stdout.replace("\n", " "))
        self.assertIsNotNone(m, p.stdout)
        self.assertEqual(m.group(1), m.group(2))
        self.assertTrue(os.path.isfile(os.path.join(m.group(1), "results",
                                                    "README.md")))
        self.assertTrue(os.path.isdir(os.path.join(m.group(1), "hosts")))

    def test_list_without_results_directory(self):
        missing = os.path.join(self.dir, "none")
        p = self.ctl(["list"], self.dir, BENCHFLEET_RESULTS_DIR=missing)
        self.assertEqual((p.returncode, p.stdout), (0, ""), p.stderr)
        self.assertEqual(p.stderr, "ctl: list: %s: no runs yet "
                         "(no such directory)\n" % missing)


if __name__ == "__main__":
    unittest.main()
