#!/usr/bin/env python3
"""Black-box tests of `ctl where` against real OpenSSH servers.

`ctl where HOST` prints the path of the agent `ctl run` runs on HOST and
whether it is built there, asking the host with ctl run's own preflight.
The tests check that the answer is the path ctl run really uses: a
program put at that path (a script that leaves a mark, then execs the
agent beside ctl) is what the next `ctl run` runs, without a build; that
the directory's name is ctl run's logged cache key; that nothing is
uploaded or built; the inventory's workdir; `local`; and the errors.

Exits 77 (CTest: skipped) without ctl, root or sshd.
"""

import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from bfpaths import find_ctl  # noqa: E402
from sshhosts import SSHHosts  # noqa: E402

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_HOSTS_FAILED = 3

CTL = find_ctl()
AGENT = os.path.join(os.path.dirname(CTL), "agent") if CTL else None
TINY = ["--size", "64", "--iters", "3", "--warmup", "1", "--device", "cpu",
        "--no-bandwidth", "--no-batching"]
HASH = None  # set in main()


def agent_hash():
    out = subprocess.run([CTL, "--version"], capture_output=True, text=True,
                         timeout=10, check=True).stdout
    return re.search(r"agent sources ([0-9a-f]+)", out).group(1)


class WhereTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-where-")
        cls.hosts = SSHHosts(3, root=os.path.join(cls.tmp, "fixture"),
                             unknown={3})
        cls.hosts.start()

    @classmethod
    def tearDownClass(cls):
        cls.hosts.stop()
        subprocess.run(["rm", "-rf", cls.tmp])

    def ctl(self, *args, env=None, timeout=120):
        e = self.hosts.env()
        e.update(env or {})
        d = tempfile.mkdtemp(dir=self.tmp)
        return subprocess.run([CTL, *args], env=e, cwd=d, timeout=timeout,
                              capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)

    def where(self, *args, **kw):
        return self.ctl("where", *args, **kw)

    def lines(self, p):
        return [line.split("\t") for line in p.stdout.splitlines()]

    def test_path_is_where_ctl_run_looks(self):
        h = self.hosts
        cache = os.path.join(h.remote_home(1), ".cache", "benchfleet")
        p = self.where(h.alias(1))
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        self.assertEqual(p.stderr, "")
        ((name, path, state),) = self.lines(p)
        self.assertEqual(name, h.alias(1))
        self.assertEqual(state, "not-built")
        m = re.fullmatch(re.escape(cache) + r"/(%s-([0-9a-f]{16}))/build/"
                         r"bin/agent" % HASH, path)
        self.assertIsNotNone(m, path)
        # The preflight made the workdir (0700), nothing else: no upload,
        # no build.
        self.assertEqual(stat.S_IMODE(os.stat(cache).st_mode), 0o700)
        self.assertEqual(os.listdir(cache), [])

        # A program put there is what ctl run runs, as cached.
        mark = os.path.join(self.tmp, "ran-1")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho \"$@\" > '%s'\nexec '%s' \"$@\"\n"
                    % (mark, AGENT))
        os.chmod(path, 0o755)
        p = self.where(h.alias(1))
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        self.assertEqual(self.lines(p), [[h.alias(1), path, "built"]])
        res = os.path.join(self.tmp, "results-1")
        r = self.ctl("run", h.alias(1), "--no-tui", "--results", res, *TINY)
        self.assertEqual(r.returncode, EXIT_OK, r.stdout + r.stderr)
        self.assertTrue(os.path.exists(mark), r.stdout)
        with open(mark) as f:
            self.assertIn("--exit-on-hangup", f.read())
        self.assertRegex(r.stdout, r"(?m)^\[%s\] cache key %s .*: cached$"
                         % (h.alias(1), m.group(2)))
        self.assertNotRegex(r.stdout, r"(?m)^\[%s\] building" % h.alias(1))
        self.assertEqual(os.listdir(cache), [m.group(1)])

    def test_inventory_workdir_and_groups(self):
        h = self.hosts
        hosts_dir = os.path.join(self.tmp, "hosts")
        os.makedirs(hosts_dir)
        wd = os.path.join(h.remote_home(2), "bf work")
        with open(os.path.join(hosts_dir, "t.json"), "w") as f:
            json.dump({"hosts": {"box": {"ssh": h.alias(2),
                                         "workdir": wd}},
                       "groups": {"pair": ["box", "local"]}}, f)
        fake = os.path.join(self.tmp, "no-agent-here")
        p = self.where("pair", "--hosts-dir", hosts_dir,
                       env={"BENCHFLEET_AGENT": fake})
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        (box, local) = self.lines(p)
        self.assertEqual(box[0], "box")
        self.assertRegex(box[1], r"^%s/%s-[0-9a-f]{16}/build/bin/agent$"
                         % (re.escape(wd), HASH))
        self.assertEqual(box[2], "not-built")
        self.assertTrue(os.path.isdir(wd))
        self.assertEqual(local, ["local", fake, "not-built"])
        p = self.where("local")
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        self.assertEqual(self.lines(p), [["local", AGENT, "built"]])

    def test_a_failed_host_says_why_and_others_answer(self):
        h = self.hosts
        port = h.refusing_port()
        p = self.where("127.0.0.1:%d" % port, h.alias(2), h.alias(3))
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p.stderr)
        self.assertEqual([x[0] for x in self.lines(p)], [h.alias(2)])
        err = p.stderr.splitlines()
        self.assertEqual(len(err), 2, p.stderr)
        self.assertRegex(err[0], r"^ctl: where: 127\.0\.0\.1:%d: .*refused"
                         % port)
        self.assertRegex(err[1], r"^ctl: where: %s: .*SHA256:.*"
                         r"--accept-new-host-keys" % h.alias(3))
        # Nothing reached host 3's HOME without its key.
        self.assertFalse(os.path.exists(os.path.join(h.remote_home(3),
                                                     ".cache")))

    def test_usage_errors(self):
        hosts_dir = os.path.join(self.tmp, "hosts-slurm")
        os.makedirs(hosts_dir)
        with open(os.path.join(hosts_dir, "c.json"), "w") as f:
            json.dump({"groups": {"clu": {"kind": "slurm", "login": "local",
                                          "nodes": 1}}}, f)
        for args, msg in [
                ((), "no host given"),
                (("--bogus", "local"), "--bogus: unknown option"),
                (("--timeout", "0", "local"), "--timeout '0'"),
                (("me@",), "me@"),
                (("clu", "--hosts-dir", hosts_dir), "clu: a Slurm cluster"),
        ]:
            p = self.where(*args)
            self.assertEqual(p.returncode, EXIT_USAGE, (args, p.stderr))
            self.assertEqual(p.stdout, "", args)
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
            self.assertIn(msg, p.stderr)
        p = self.where("--help")
        self.assertEqual(p.returncode, EXIT_OK)
        self.assertIn("usage: ctl where HOST...", p.stdout)


def main():
    global HASH
    if not CTL or not os.access(CTL, os.X_OK) or not os.access(AGENT,
                                                               os.X_OK):
        print("skip: ctl/agent not built (set BF_CTL)")
        return 77
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK):
        print("skip: needs root and /usr/sbin/sshd")
        return 77
    HASH = agent_hash()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
