#!/usr/bin/env python3
"""An installed benchfleet (issue 22): `cmake --install BUILD --prefix P`
into a temporary prefix, then what a user of P/bin/ctl sees.

- the files: ctl and agent in P/bin, man pages ctl(1) and agent(1) that
  man -l renders without a warning, bash and zsh completion, the docs;
- the installed ctl works from any directory: `ctl run local` (the agent
  beside it, P/bin/agent) archives under $XDG_DATA_HOME/benchfleet/results
  (default ~/.local/share/benchfleet/results, its parents made 0700) and
  says so; `ctl list` finds the run from elsewhere; the inventory is
  $XDG_CONFIG_HOME/benchfleet/hosts; ./results still wins where it exists;
  `ctl --help` says this ctl is installed (and the build tree's that it is
  not);
- the bash completion offers the commands, a command's options, and hosts
  from ~/.ssh/config (no patterns) and from the inventory (`ctl hosts`).
"""

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import keeplogs  # noqa: E402

BUILD = os.environ.get("BF_BUILD")
CMAKE = os.environ.get("BF_CMAKE", "cmake")
BUILD_CTL = os.environ.get("BF_CTL")
PREFIX = None
TMP = None
AGENT_ARGS = ["--size", "64", "--iters", "2", "--warmup", "1", "--device",
              "cpu", "--dtypes", "fp32", "--no-bandwidth", "--no-batching"]
STRIP = ("BENCHFLEET_RESULTS_DIR", "BENCHFLEET_HOSTS_DIR", "XDG_DATA_HOME",
         "XDG_CONFIG_HOME", "BENCHFLEET_AGENT")


class Installed(keeplogs.KeepOnFailure, unittest.TestCase):
    def setUp(self):
        self.tmp = self.keep_dir(tempfile.mkdtemp(prefix="bf-inst-",
                                                  dir=TMP))
        self.home = os.path.join(self.tmp, "home")
        self.cwd = os.path.join(self.tmp, "somewhere", "else")
        os.makedirs(self.home)
        os.makedirs(self.cwd)

    def env(self, **extra):
        e = {k: v for k, v in os.environ.items() if k not in STRIP}
        e["HOME"] = self.home
        e.pop("TERM", None)
        e.update(extra)
        return e

    def ctl(self, args, ctl=None, cwd=None, **env):
        return subprocess.run([ctl or os.path.join(PREFIX, "bin", "ctl")]
                              + args, cwd=cwd or self.cwd,
                              env=self.env(**env), capture_output=True,
                              text=True, timeout=300,
                              stdin=subprocess.DEVNULL)

    def run_local(self, *extra, **env):
        p = self.ctl(["run", "local", "--no-tui"] + AGENT_ARGS + list(extra),
                     **env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        m = re.search(r"^run (\S+): 1 host, results in (.+)$", p.stdout, re.M)
        self.assertIsNotNone(m, p.stdout)
        return m.group(1), m.group(2)

    def test_files(self):
        for rel in ("bin/ctl", "bin/agent"):
            self.assertTrue(os.access(os.path.join(PREFIX, rel), os.X_OK),
                            rel)
        for rel in ("share/man/man1/ctl.1.gz", "share/man/man1/agent.1.gz",
                    "share/bash-completion/completions/ctl",
                    "share/zsh/site-functions/_ctl",
                    "share/doc/benchfleet/README.md",
                    "share/doc/benchfleet/docs/archive.md",
                    "share/doc/benchfleet/docs/schema.json",
                    "share/doc/benchfleet/hosts/README.md",
                    "share/doc/benchfleet/hosts/examples/lab.json"):
            self.assertTrue(os.path.isfile(os.path.join(PREFIX, rel)), rel)
        # Nothing but what ctl needs: the agent's sources are inside it;
        # a CUDA build adds agent-cpu, run where the CUDA agent does not
        # start (issue 32).
        cuda = os.path.exists(os.path.join(os.environ.get("BF_BUILD", ""),
                                           "bin", "agent-cpu"))
        self.assertEqual(sorted(os.listdir(os.path.join(PREFIX, "bin"))),
                         ["agent", "agent-cpu", "ctl"] if cuda else
                         ["agent", "ctl"])
        p = self.ctl(["--version"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"^ctl \d+\.\d+\.\d+ \(agent sources "
                         r"[0-9a-f]{16}, schema \d+\)\n$")

    def test_man_pages_render(self):
        if not shutil.which("man"):
            self.skipTest("man is not installed (man-db)")
        for page, must in (("ctl.1.gz", ["ctl run", "ctl doctor",
                                         "ctl clean", "EXIT STATUS",
                                         "ENVIRONMENT", "FILES"]),
                           ("agent.1.gz", ["--iters", "EXIT STATUS"])):
            path = os.path.join(PREFIX, "share", "man", "man1", page)
            p = subprocess.run(["man", "--warnings", "-l", path],
                               capture_output=True, text=True, timeout=60,
                               env=dict(self.env(), MANWIDTH="80",
                                        LC_ALL="C.UTF-8", MANPAGER="cat",
                                        PAGER="cat"))
            self.assertEqual((p.returncode, p.stderr), (0, ""), page)
            for m in must:
                self.assertIn(m, p.stdout, page)
            with gzip.open(path, "rt") as f:
                src = f.read()
            with open(os.path.join(HERE, "..", "..", "docs", "man",
                                   page[:-3])) as f:
                self.assertEqual(src, f.read(), page)

    def test_run_local_from_anywhere(self):
        run_id, where = self.run_local()
        res = os.path.join(self.home, ".local", "share", "benchfleet",
                           "results")
        self.assertEqual(where, os.path.join(res, run_id))
        self.assertTrue(os.path.isfile(os.path.join(where, "run.json")))
        with open(os.path.join(where, "run.json")) as f:
            self.assertEqual(json.load(f)["status"], "complete")
        # The parents ctl made are 0700 (XDG Base Directory Specification).
        for d in (os.path.join(self.home, ".local"),
                  os.path.join(self.home, ".local", "share", "benchfleet")):
            self.assertEqual(os.stat(d).st_mode & 0o777, 0o700, d)
        self.assertFalse(os.path.exists(os.path.join(self.cwd, "results")))
        # Found again from another directory.
        other = os.path.join(self.tmp, "other")
        os.makedirs(other)
        p = self.ctl(["list"], cwd=other)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([l.split()[0] for l in p.stdout.splitlines()],
                         [run_id])
        p = self.ctl(["show", run_id], cwd=other)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("local", p.stdout)

    def test_help_says_installed(self):
        p = self.ctl(["--help"])
        self.assertEqual(p.returncode, 0, p.stderr)
        text = " ".join(p.stdout.split())
        self.assertIn("This ctl is installed.", text)
        self.assertIn("From here: %s/.local/share/benchfleet/results and "
                      "%s/.config/benchfleet/hosts." % (self.home, self.home),
                      text)
        p = self.ctl(["--help"], ctl=BUILD_CTL)
        self.assertIn("This ctl is run from its build tree.",
                      " ".join(p.stdout.split()))

    def test_xdg_variables_and_inventory(self):
        data = os.path.join(self.tmp, "data")
        conf = os.path.join(self.tmp, "conf")
        inv = os.path.join(conf, "benchfleet", "hosts")
        os.makedirs(inv)
        with open(os.path.join(inv, "mine.json"), "w") as f:
            json.dump({"groups": {"mine": ["local"]}}, f)
        env = {"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": conf}
        p = self.ctl(["hosts", "--names"], **env)
        self.assertEqual((p.returncode, p.stdout), (0, "local\nmine\n"),
                         p.stderr)
        p = self.ctl(["run", "mine", "--no-tui"] + AGENT_ARGS, **env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        m = re.search(r"results in (.+)$", p.stdout, re.M)
        self.assertTrue(m.group(1).startswith(
            os.path.join(data, "benchfleet", "results") + "/"), p.stdout)
        # A relative XDG value is ignored (the specification says so).
        p = self.ctl(["--help"], XDG_DATA_HOME="rel")
        self.assertIn("%s/.local/share/benchfleet/results" % self.home,
                      " ".join(p.stdout.split()))

    def test_dot_results_wins(self):
        os.makedirs(os.path.join(self.cwd, "results"))
        run_id, where = self.run_local()
        self.assertEqual(where, os.path.join("results", run_id))
        self.assertFalse(os.path.exists(os.path.join(self.home, ".local")))

    def test_bash_completion(self):
        if not shutil.which("bash"):
            self.skipTest("no bash")
        os.makedirs(os.path.join(self.home, ".ssh"))
        with open(os.path.join(self.home, ".ssh", "config"), "w") as f:
            f.write("Host spark box\n  User me\nHost *.lan !x\n"
                    "Include extra\n")
        with open(os.path.join(self.home, ".ssh", "extra"), "w") as f:
            f.write("host gpu1\n")
        inv = os.path.join(self.home, ".config", "benchfleet", "hosts")
        os.makedirs(inv)
        with open(os.path.join(inv, "lab.json"), "w") as f:
            json.dump({"hosts": {"ws": {"ssh": "me@ws.lan"}},
                       "groups": {"lab": ["ws", "local"]}}, f)
        comp = os.path.join(PREFIX, "share", "bash-completion",
                            "completions", "ctl")
        ctl = os.path.join(PREFIX, "bin", "ctl")

        def complete(*words):
            script = ('source "$1"; shift; COMP_WORDS=("$@"); '
                      'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ctl; '
                      'printf "%s\\n" "${COMPREPLY[@]}"')
            p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script,
                                "bash", comp, ctl] + list(words),
                               capture_output=True, text=True, timeout=60,
                               cwd=self.cwd, env=self.env())
            self.assertEqual(p.returncode, 0, p.stderr)
            return set(p.stdout.split())

        self.assertEqual(complete("r"),
                         {"run", "report", "resolve", "reference"})
        self.assertEqual(complete("run", "--ho"),
                         {"--host-timeout", "--hosts-dir"})
        self.assertEqual(complete("clean", "--d"), {"--dry-run"})
        hosts = complete("run", "")
        self.assertTrue({"spark", "box", "gpu1", "local", "ws", "lab"}
                        <= hosts, hosts)
        self.assertFalse({"*.lan", "!x"} & hosts, hosts)
        self.assertEqual(complete("doctor", "sp"), {"spark"})
        self.assertEqual(complete("run", "--device", ""), {"cpu", "cuda",
                                                           "all"})

    def test_zsh_completion_parses(self):
        if not shutil.which("zsh"):
            self.skipTest("zsh is not installed")
        p = subprocess.run(["zsh", "-n", os.path.join(
            PREFIX, "share", "zsh", "site-functions", "_ctl")],
            capture_output=True, text=True, timeout=60)
        self.assertEqual((p.returncode, p.stderr), (0, ""))


def main():
    global PREFIX, TMP
    if not BUILD or not BUILD_CTL:
        print("skip: BF_BUILD and BF_CTL unset (run through CTest)")
        return 77
    TMP = tempfile.mkdtemp(prefix="bf-install-")
    PREFIX = os.path.join(TMP, "prefix")
    p = subprocess.run([CMAKE, "--install", BUILD, "--prefix", PREFIX],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print(p.stdout + p.stderr)
        keeplogs.keep(TMP, "install.prefix")
        return 1
    prog = unittest.main(exit=False, verbosity=2)
    ok = prog.result.wasSuccessful()
    keeplogs.finish(TMP, ok, "install.prefix")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
