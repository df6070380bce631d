#!/usr/bin/env python3
"""Black-box tests of `ctl run` against real OpenSSH servers (issue 3).

Runs the ctl binary ($BF_CTL, the agent beside it) on hosts from
tests/lib/sshhosts.py on 127.0.0.1 and checks both what the user sees
(stdout, stderr, exit status) and what is archived (results/<run-id>/
run.json and NN-host.ndjson). Every run uses --no-tui, a temporary results
directory and a temporary working directory.

A host's agent cache is ~/.cache/benchfleet/<source hash>-<toolchain
key>/build/bin/agent on that host. Only DeployTest and the build failures
build there for real; the other tests seed the cache with a copy of the
agent built beside ctl (same sources, same hash), put there by ctl itself
with a fake cmake on the host's PATH that copies it (cmake is not part of
the toolchain key), which is what a host that ran benchfleet before looks
like, and keeps the file's run time modest on a 2-core machine.
FakeAgentTest puts a shell script there instead, replaying records from a
real run of the agent with a fault added.

Exits 77 (CTest: skipped) without ctl, root or sshd. Timing assertions
carry slack for a loaded 2-core machine.
"""

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from bfpaths import find_ctl  # noqa: E402
import keeplogs  # noqa: E402
from sshhosts import SSHHosts  # noqa: E402

# Exit statuses of ctl (common/schema.h)
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_HOSTS_FAILED = 3
EXIT_INTERRUPTED = 130

# How late a bounded event may be. A bound, not a speed: it tells "ended
# by the timeout" from "hung" or "ended by the 30 s default", and stays far
# above what a CI machine at load 10+ adds.
SLACK_S = 20.0
TINY = ["--size", "64", "--iters", "3", "--warmup", "1", "--device", "cpu",
        "--bandwidth-mib", "8"]
# Long enough to act on mid-run: after a quick n=64 GEMM (the "running 1/2"
# line), 100 timed GEMMs of n=2048 on the CPU, a minute or more on 2 cores.
# The tests stop it early.
LONG = ["--sizes", "64,2048", "--dtypes", "fp32", "--iters", "400",
        "--warmup", "1", "--device", "cpu", "--bandwidth-mib", "8"]


CTL = find_ctl()
AGENT = os.path.join(os.path.dirname(CTL), "agent") if CTL else None


def agent_hash():
    out = subprocess.run([CTL, "--version"], capture_output=True, text=True,
                         timeout=10, check=True).stdout
    m = re.search(r"agent sources ([0-9a-f]+)", out)
    if not m:
        raise RuntimeError("no agent hash in %r" % out)
    return m.group(1)


HASH = None          # set in main()


# -- hosts -----------------------------------------------------------------

def cache_root(hosts, i):
    return os.path.join(hosts.remote_home(i), ".cache", "benchfleet")


def cache_dirs(hosts, i):
    """Host i's deploy directories of these sources (staging excluded)."""
    root = cache_root(hosts, i)
    if not os.path.isdir(root):
        return []
    return sorted(os.path.join(root, d) for d in os.listdir(root)
                  if d.startswith(HASH + "-") and ".tmp-" not in d)


def cache_dir(hosts, i):
    """Host i's one deploy directory (seed_agents made it)."""
    dirs = cache_dirs(hosts, i)
    if len(dirs) != 1:
        raise AssertionError("host %d: deploy directories %r" % (i, dirs))
    return dirs[0]


def cached_agent(hosts, i):
    return os.path.join(cache_dir(hosts, i), "build", "bin", "agent")


def fake_bin(dirpath, name, body):
    """Writes an executable shell script dirpath/name."""
    os.makedirs(dirpath, exist_ok=True)
    path = os.path.join(dirpath, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def copy_cmake(dirpath, count_file=None):
    """A fake cmake that "builds" by copying the agent beside ctl, and
    appends a line to count_file for each build."""
    count = "echo build >> '%s'; " % count_file if count_file else ""
    return fake_bin(dirpath, "cmake",
                    'if [ "$1" = --build ]; then %smkdir -p "$2/bin" && '
                    'cp \'%s\' "$2/bin/agent"; fi\n' % (count, AGENT))


def key_of(log):
    """The toolchain key ctl logged for a host."""
    m = re.search(r"cache key ([0-9a-f]{16})", log)
    if not m:
        raise AssertionError("no cache key in log:\n" + log)
    return m.group(1)


def seed_agents(hosts, nums):
    """Gives hosts nums a cached agent, as a previous deploy would have:
    ctl deploys them with copy_cmake on their PATH, through an ssh config
    of its own that knows every host key (the fixture's known_hosts, which
    tests check, is not touched)."""
    d = tempfile.mkdtemp(prefix="bf-seed-", dir=hosts.root)
    kh = os.path.join(d, "known_hosts")
    with open(kh, "w") as f:
        f.write("".join(hosts.known_hosts_line(i) + "\n"
                        for i in range(1, hosts.n + 1)))
    with open(hosts.ssh_config) as f:
        cfg = f.read().replace(hosts.known_hosts, kh)
    with open(os.path.join(d, "config"), "w") as f:
        f.write(cfg)
    fake = os.path.join(d, "bin")
    copy_cmake(fake)
    write_inventory(os.path.join(d, "hosts"), {
        "seed%d" % i: {"ssh": hosts.alias(i), "path_prepend": [fake]}
        for i in nums})
    env = hosts.env()
    env.pop("BENCHFLEET_HOSTS_DIR", None)
    p = subprocess.run([CTL, "run", "--no-tui", "--results",
                        os.path.join(d, "results"), "-F",
                        os.path.join(d, "config"), "--hosts-dir",
                        os.path.join(d, "hosts")] + TINY +
                       ["seed%d" % i for i in nums], cwd=d, env=env,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError("seeding failed: %s%s" % (p.stdout, p.stderr))
    shutil.rmtree(d, ignore_errors=True)
    for i in nums:
        cache_dir(hosts, i)


def seed_agent(hosts, i):
    seed_agents(hosts, [i])


def agent_pids(hosts, i):
    """Processes running host i's cached agent. ctl execs it as
    ./build/bin/agent from the cache directory, so its command line does
    not hold the full path (pgrep -f would miss it); /proc/PID/exe does."""
    return pids_of(cached_agent(hosts, i))


def pids_of(path, marker=None):
    """Live processes whose executable is path; with marker, only those
    whose environment holds BF_TEST_MARKER=marker (started by this test's
    ctl: other suites may run the same binary at the same time)."""
    want = os.path.realpath(path)
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            exe = os.readlink("/proc/%s/exe" % name)
            with open("/proc/%s/stat" % name) as f:
                st = f.read().rsplit(")", 1)[1].split()[0]
            if exe == want and st != "Z" and marker is not None:
                with open("/proc/%s/environ" % name, "rb") as f:
                    if ("BF_TEST_MARKER=%s" % marker).encode() not in \
                            f.read().split(b"\0"):
                        continue
        except OSError:
            continue
        if exe == want and st != "Z":
            pids.append(int(name))
    return pids


def wait_until(pred, timeout, step=0.05):
    """Polls pred() until it is true or timeout seconds pass; returns its
    last value."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(step)


def snapshot(path):
    """(inode, mtime_ns) of path and of everything below it; path's own
    mtime is left out: run's preflight writes, runs and removes a probe
    file there (issue 28), which changes it and nothing else (a file
    left behind or removed is a key of its own)."""
    out = {}
    for d, dirs, files in os.walk(path):
        for n in [d] + [os.path.join(d, f) for f in files]:
            st = os.lstat(n)
            out[os.path.relpath(n, path)] = (
                st.st_ino, None if n == path else st.st_mtime_ns)
    return out


def write_inventory(dirpath, hosts_obj):
    os.makedirs(dirpath, exist_ok=True)
    with open(os.path.join(dirpath, "test.json"), "w") as f:
        json.dump({"hosts": hosts_obj}, f, indent=1)


# -- running ctl -------------------------------------------------------------

class Ctl:
    """`ctl run` as a child process; stdout lines are read as they arrive,
    each stamped with its arrival time (seconds since the start)."""

    def __init__(self, args, env, cwd):
        self.argv = [CTL, "run"] + args
        self.start = time.monotonic()
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, env=env,
                                     cwd=cwd, text=True)
        self.lines = []        # (t, line)
        self.ended = False     # stdout closed
        self.cond = threading.Condition()
        self.stderr = ""
        self._out = threading.Thread(target=self._read_out, daemon=True)
        self._err = threading.Thread(target=self._read_err, daemon=True)
        self._out.start()
        self._err.start()

    def _read_out(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append((time.monotonic() - self.start,
                                   line.rstrip("\n")))
                self.cond.notify_all()
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def _read_err(self):
        self.stderr = self.proc.stderr.read()

    def wait_line(self, pattern, timeout=30):
        """Waits until some stdout line (so far or to come) matches the
        regex; returns it."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for _, l in self.lines:
                    if re.search(pattern, l):
                        return l
                left = deadline - time.monotonic()
                if self.ended or left <= 0:
                    raise AssertionError(
                        "no line %r (%s); stdout:\n%s"
                        % (pattern, "ctl ended" if self.ended else
                           "waited %s s" % timeout, self.stdout))
                self.cond.wait(left)

    def finish(self, timeout=240):
        """Waits for the exit (killing ctl after timeout s); returns rc.
        The bound only stops a hung ctl: a run of five hosts under
        AddressSanitizer on a CI machine at load 10+ took over 60 s."""
        try:
            self.rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("ctl did not end within %s s; stdout:\n%s"
                                 % (timeout, self.stdout))
        finally:
            self._out.join(timeout=5)
            self._err.join(timeout=5)
            self.proc.stdout.close()
            self.proc.stderr.close()
        self.elapsed = time.monotonic() - self.start
        return self.rc

    def kill(self):
        """For cleanup after a failed assertion: ctl must not outlive it."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.finish(timeout=10)

    def line_time(self, pattern):
        for t, l in self.lines:
            if re.search(pattern, l):
                return t
        return None

    @property
    def stdout(self):
        return "\n".join(l for _, l in list(self.lines))


class CtlTestCase(keeplogs.KeepOnFailure, unittest.TestCase):
    """One fixture of N_HOSTS hosts per class (those in UNKNOWN left out
    of known_hosts, those in SEED with a cached agent), a temporary cwd and
    results directory per test, and helpers to run ctl and read its
    archive."""

    N_HOSTS = 0
    UNKNOWN = ()
    SEED = ()
    SSHD_EXTRA = {}    # SSHHosts(sshd_extra=...)
    SHARE_HOME = {}    # SSHHosts(share_home=...)
    hosts = None

    @classmethod
    def setUpClass(cls):
        if cls.N_HOSTS:
            cls.hosts = SSHHosts(cls.N_HOSTS, unknown=cls.UNKNOWN,
                                 sshd_extra=cls.SSHD_EXTRA,
                                 share_home=cls.SHARE_HOME).start()
            if cls.SEED:
                seed_agents(cls.hosts, cls.SEED)

    @classmethod
    def tearDownClass(cls):
        if cls.hosts:
            cls.hosts.stop()

    def setUp(self):
        # Removed after a passing test, kept (keeplogs) after a failing one.
        self.tmp = self.keep_dir(tempfile.mkdtemp(prefix="bf-ctlrun-"))
        self.cwd = os.path.join(self.tmp, "cwd")
        self.results = os.path.join(self.tmp, "results")
        os.makedirs(self.cwd)

    def env(self, agent=False):
        e = self.hosts.env(agent=agent)
        e.pop("BENCHFLEET_HOSTS_DIR", None)
        return e

    def start(self, args, env=None):
        return Ctl(["--no-tui", "--results", self.results] + args,
                   env or self.env(), self.cwd)

    def run_ctl(self, args, env=None, timeout=240):
        c = self.start(args, env)
        c.finish(timeout)
        return c

    def run_dirs(self):
        if not os.path.isdir(self.results):
            return []
        return sorted(os.path.join(self.results, d)
                      for d in os.listdir(self.results))

    def archive(self, c):
        """The run directory ctl named on its first line, its run.json,
        and its host objects by name. Host failures are reported on
        stdout; stderr stays empty (no sanitizer report either)."""
        self.assertEqual(c.stderr, "")
        m = re.match(r"run (\S+): \d+ hosts?, results in (.+)$",
                     c.lines[0][1] if c.lines else "")
        self.assertTrue(m, c.stdout)
        d = m.group(2)
        self.assertEqual(os.path.basename(d), m.group(1))
        self.assertIn(os.path.realpath(d),
                      [os.path.realpath(x) for x in self.run_dirs()])
        with open(os.path.join(d, "run.json")) as f:
            run = json.load(f)
        self.assertEqual(run["run_id"], m.group(1))
        self.assertIsNotNone(run["ended_at"])
        self.assertIn("run %s %s: " % (run["run_id"], run["status"]),
                      c.stdout)
        return d, run, {h["name"]: h for h in run["hosts"]}

    def records(self, d, h):
        """A host's archived records; checks each line is a record and
        that run.json counted them all."""
        with open(os.path.join(d, h["records_file"])) as f:
            text = f.read()
        self.assertTrue(text == "" or text.endswith("\n"))
        recs = [json.loads(l) for l in text.splitlines()]
        for r in recs:
            self.assertIsInstance(r, dict)
            self.assertEqual(r["schema"], 1)
        self.assertEqual(h["records"], len(recs))
        return recs

    def log(self, d, h):
        with open(os.path.join(d, h["log_file"])) as f:
            return f.read()

    def assert_host_complete(self, d, h, fingerprint=None):
        self.assertEqual(h["status"], "done", h)
        self.assertIsNone(h["reason"])
        self.assertEqual(h["complete_records"], "yes")
        self.assertEqual(h["agent_exit_status"], 0)
        self.assertEqual(h["agent_hash"], HASH)
        self.assertEqual(h["malformed_lines"], 0)
        self.assertGreater(h["gemm_total"], 0)
        self.assertEqual(h["gemm_done"], h["gemm_total"])
        if fingerprint:
            self.assertEqual(h["host_key_fingerprint"], fingerprint)
        recs = self.records(d, h)
        self.assertEqual(recs[0]["type"], "host")
        self.assertEqual(recs[-1]["type"], "summary")
        self.assertEqual([r["seq"] for r in recs], list(range(len(recs))))
        self.assertEqual(sum(r["type"] == "gemm" for r in recs),
                         h["gemm_total"])
        return recs

    def assert_host_failed(self, h, reason_part):
        self.assertEqual(h["status"], "failed", h)
        self.assertIn(reason_part, h["reason"] or "")
        self.assertEqual(h["complete_records"], "no")


# -- the tests ---------------------------------------------------------------

class UsageTest(CtlTestCase):
    """Bad command lines: one line on stderr starting "ctl: ", exit 2,
    nothing archived."""

    def ctl(self, args):
        p = subprocess.run([CTL, "run"] + args, capture_output=True,
                           text=True, cwd=self.cwd, timeout=30,
                           env=dict(os.environ, HOME=self.tmp))
        return p

    def test_usage_errors(self):
        cases = {
            "no host": ["--no-tui"],
            "iters 0": ["local", "--iters", "0"],
            "bad device": ["local", "--device", "foo"],
            "unknown option": ["local", "--frobnicate"],
            "missing value": ["local", "--timeout"],
            "two size options": ["local", "--size", "64", "--sizes", "64"],
        }
        for what, args in cases.items():
            with self.subTest(what):
                p = self.ctl(["--results", self.results] + args)
                self.assertEqual(p.returncode, EXIT_USAGE, p)
                lines = p.stderr.splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertTrue(lines[0].startswith("ctl: "), p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertFalse(os.path.exists(self.results))
        self.assertIn("'foo'", self.ctl(["x", "--device", "foo"]).stderr)
        self.assertIn("--frobnicate",
                      self.ctl(["x", "--frobnicate"]).stderr)

    def test_help(self):
        p = self.ctl(["--help"])
        self.assertEqual(p.returncode, EXIT_OK)
        self.assertTrue(p.stdout.startswith("usage: ctl run HOST..."))
        self.assertIn("--accept-new-host-keys", p.stdout)
        self.assertEqual(p.stderr, "")


class DeployTest(CtlTestCase):
    """Three fresh hosts: the first run uploads and builds the agent on
    each, the second finds it cached."""

    N_HOSTS = 3

    def test_deploy_then_cached_redeploy(self):
        # The hosts' build would find this machine's CUDA toolkit, and three
        # CUDA builds at once take minutes on 2 cores; CUDACXX=/bin/false
        # makes CMake find no CUDA compiler, so each builds the CPU agent
        # in seconds. Host names in the inventory are the ssh aliases.
        hosts_dir = os.path.join(self.tmp, "hosts")
        names = [self.hosts.alias(i) for i in (1, 2, 3)]
        # The defaults matter to the second run only, which leaves
        # --warmup out: "warmup": 0 must reach the agent as 0 (not as
        # "unset"), cpu_iters and cpu_warmup as given.
        write_inventory(hosts_dir, {
            n: {"ssh": n, "env": {"CUDACXX": "/bin/false"},
                "defaults": {"warmup": 0, "cpu_iters": 2, "cpu_warmup": 0}}
            for n in names})
        # The three are one machine (loopback): deployed at once all the
        # same, which is what this test times.
        args = TINY + ["--hosts-dir", hosts_dir,
                       "--concurrent-same-machine"] + names

        c = self.run_ctl(args, timeout=240)
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assertEqual(run["status"], "complete")
        self.assertIsNone(run["reason"])
        self.assertEqual([h["name"] for h in run["hosts"]], names)
        for i, n in enumerate(names, 1):
            self.assertIn("[%s] building" % n, c.stdout)
            self.assertIn("[%s] done" % n, c.stdout)
            # Progress on the long work: the sources' bytes, quarter by
            # quarter up to all of them, and the build's steps as make
            # counts them ("[ 45%]"), rising.
            up = re.findall(r"(?m)^\[%s\] upload (\d+)/(\d+) KiB$" % n,
                            c.stdout)
            self.assertEqual(len(up), 4, c.stdout)
            self.assertEqual(up[-1][0], up[-1][1])
            self.assertTrue(all(b == up[0][1] for _, b in up))
            steps = [int(x) for x in re.findall(
                r"(?m)^\[%s\] building (\d+)%%$" % n, c.stdout)]
            self.assertTrue(steps, c.stdout)
            self.assertEqual(steps, sorted(steps))
            self.assertTrue(all(0 < x <= 100 for x in steps), steps)
            self.assertEqual(hs[n]["target"], n)
            self.assertEqual(hs[n]["records_file"], "%02d-%s.ndjson"
                             % (i - 1, n))
            self.assert_host_complete(d, hs[n], self.hosts.fingerprint(i))
            self.assertTrue(os.access(cached_agent(self.hosts, i), os.X_OK))
            # Only the final directory, named by the sources' hash and
            # the toolchain key the log shows: no staging directory left.
            key = key_of(self.log(d, hs[n]))
            self.assertEqual(os.listdir(cache_root(self.hosts, i)),
                             [HASH + "-" + key])
            self.assertRegex(c.stdout, r"(?m)^\[%s\] cache key %s \(arch "
                             % (n, key))
            self.assertEqual(
                stat.S_IMODE(os.stat(cache_root(self.hosts, i)).st_mode),
                0o700)
        before = {i: snapshot(cache_root(self.hosts, i)) for i in (1, 2, 3)}

        no_warmup = [a for a in args if a not in ("--warmup", "1")]
        c2 = self.run_ctl(no_warmup, timeout=120)
        self.assertEqual(c2.rc, EXIT_OK, c2.stdout + c2.stderr)
        self.assertNotIn("building", c2.stdout)
        for n in names:
            self.assertRegex(c2.stdout, r"(?m)^\[%s\] cache key .*: cached$"
                             % n)
        d2, run2, hs2 = self.archive(c2)
        self.assertNotEqual(d2, d)
        self.assertEqual(run2["status"], "complete")
        for i, n in enumerate(names, 1):
            self.assert_host_complete(d2, hs2[n], self.hosts.fingerprint(i))
            opts = self.records(d2, hs2[n])[0]["options"]
            self.assertEqual((opts["warmup"], opts["cpu_iters"],
                              opts["cpu_warmup"], opts["iters"]),
                             (0, 2, 0, 3))
            # Nothing uploaded, built or renamed: same inodes and mtimes.
            self.assertEqual(snapshot(cache_root(self.hosts, i)), before[i])
        # The first run's archive is untouched by the second.
        self.assertEqual(len(self.run_dirs()), 2)
        print("\n  deploy+build of 3 hosts: %.1f s; cached re-run: %.1f s"
              % (c.elapsed, c2.elapsed), file=sys.stderr)


class UnreachableHostTest(CtlTestCase):
    """A refusing and a hung host are reported within --timeout while the
    other host completes."""

    N_HOSTS = 2
    SEED = (1, 2)

    TIMEOUT_S = 3

    def tearDown(self):
        self.hosts.resume(2)
        super().tearDown()

    def test_refused_and_hung_hosts(self):
        refusing = "root@127.0.0.1:%d" % self.hosts.refusing_port()
        self.hosts.hang(2)
        c = self.run_ctl(TINY + ["--timeout", str(self.TIMEOUT_S), "bfhost1",
                                 refusing, "bfhost2"], timeout=60)
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        self.assertLess(c.elapsed, self.TIMEOUT_S + SLACK_S)
        d, run, hs = self.archive(c)
        self.assertEqual(run["status"], "incomplete")
        self.assertEqual(run["reason"], "some hosts did not complete")
        self.assert_host_complete(d, hs["bfhost1"], self.hosts.fingerprint(1))

        h = hs[refusing]
        self.assert_host_failed(h, "refused")
        self.assertEqual(h["target"], refusing)
        self.assertIsNone(h["host_key_fingerprint"])
        self.assertEqual(self.records(d, h), [])
        t = c.line_time(r"^\[%s\] failed: .*refused" % re.escape(refusing))
        self.assertIsNotNone(t, c.stdout)
        self.assertLess(t, 2.0)   # refused at once, not after the timeout

        h = hs["bfhost2"]
        self.assert_host_failed(h, "no answer within 3 s")
        self.assertIsNone(h["host_key_fingerprint"])
        t = c.line_time(r"^\[bfhost2\] failed: ")
        self.assertIsNotNone(t, c.stdout)
        self.assertGreater(t, self.TIMEOUT_S - 0.5)
        self.assertLess(t, self.TIMEOUT_S + SLACK_S)

    def test_host_hanging_mid_run(self):
        c = self.start(LONG + ["--timeout", str(self.TIMEOUT_S), "bfhost2"])
        try:
            c.wait_line(r"^\[bfhost2\] running 1/", timeout=180)
            pids = agent_pids(self.hosts, 2)
            self.assertEqual(len(pids), 1)
            self.hosts.hang(2)
            hung_at = time.monotonic() - c.start
            c.finish(timeout=self.TIMEOUT_S + 30)
        finally:
            c.kill()
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        t = c.line_time(r"^\[bfhost2\] failed: ")
        self.assertIsNotNone(t, c.stdout)
        self.assertLess(t - hung_at, self.TIMEOUT_S + SLACK_S)
        d, run, hs = self.archive(c)
        h = hs["bfhost2"]
        self.assert_host_failed(h, "silent")
        self.assertGreater(len(self.records(d, h)), 0)
        # Once the host thaws, the agent finds ctl gone and stops.
        self.hosts.resume(2)
        gone = wait_until(lambda: not agent_pids(self.hosts, 2), 5)
        self.assertTrue(gone, "agent still running on the thawed host: %s"
                        % agent_pids(self.hosts, 2))


class HostKeyTest(CtlTestCase):
    """Host 1's key changes; host 2's key is not in known_hosts."""

    N_HOSTS = 2
    UNKNOWN = {2}

    def known_hosts(self):
        with open(self.hosts.known_hosts) as f:
            return f.read()

    def test_changed_host_key_is_refused(self):
        new_fp = self.hosts.change_host_key(1)
        before = self.known_hosts()
        for extra in ([], ["--accept-new-host-keys"]):
            with self.subTest(extra=extra):
                shutil.rmtree(self.results, ignore_errors=True)
                c = self.run_ctl(TINY + extra + ["bfhost1"])
                self.assertEqual(c.rc, EXIT_HOSTS_FAILED,
                                 c.stdout + c.stderr)
                line = [l for _, l in c.lines
                        if l.startswith("[bfhost1] failed: ")]
                self.assertEqual(len(line), 1, c.stdout)
                self.assertIn("changed", line[0])
                self.assertIn(self.hosts.known_hosts, line[0])
                self.assertIn(new_fp, line[0])
                d, run, hs = self.archive(c)
                h = hs["bfhost1"]
                self.assert_host_failed(h, self.hosts.known_hosts)
                self.assertIsNone(h["host_key_fingerprint"])
                self.assertEqual(self.records(d, h), [])
                self.assertEqual(run["status"], "incomplete")
                # Refused before anything ran: no cache, no new key.
                self.assertFalse(os.path.exists(
                    os.path.join(self.hosts.remote_home(1), ".cache")))
                self.assertEqual(self.known_hosts(), before)

    def test_unknown_host_key_needs_the_flag(self):
        before = self.known_hosts()
        fp = self.hosts.fingerprint(2)
        c = self.run_ctl(TINY + ["bfhost2"])
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        line = [l for _, l in c.lines if l.startswith("[bfhost2] failed: ")]
        self.assertEqual(len(line), 1, c.stdout)
        self.assertIn(fp, line[0])
        self.assertIn("--accept-new-host-keys", line[0])
        d, run, hs = self.archive(c)
        self.assert_host_failed(hs["bfhost2"], fp)
        self.assertIsNone(hs["bfhost2"]["host_key_fingerprint"])
        self.assertFalse(os.path.exists(
            os.path.join(self.hosts.remote_home(2), ".cache")))
        self.assertEqual(self.known_hosts(), before)

        seed_agent(self.hosts, 2)
        c = self.run_ctl(TINY + ["--accept-new-host-keys", "bfhost2"])
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assertEqual(run["status"], "complete")
        self.assert_host_complete(d, hs["bfhost2"], fp)
        self.assertIn(fp, self.log(d, hs["bfhost2"]))
        # One line added, as OpenSSH writes it.
        self.assertEqual(self.known_hosts(),
                         before + self.hosts.known_hosts_line(2) + "\n")


class AgentFailureTest(CtlTestCase):
    """The agent killed mid-run (host 1), a failing remote build (host 2,
    no cached agent)."""

    N_HOSTS = 2
    SEED = (1,)

    def test_agent_killed_mid_run(self):
        c = self.start(LONG + ["bfhost1"])
        try:
            c.wait_line(r"^\[bfhost1\] running 1/", timeout=180)
            pids = agent_pids(self.hosts, 1)
            self.assertEqual(len(pids), 1)
            os.kill(pids[0], signal.SIGKILL)
            killed_at = time.monotonic() - c.start
            c.finish(timeout=30)
        finally:
            c.kill()
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        t = c.line_time(r"^\[bfhost1\] failed: agent killed by signal KILL$")
        self.assertIsNotNone(t, c.stdout)
        self.assertLess(t - killed_at, SLACK_S)
        d, run, hs = self.archive(c)
        self.assertEqual(run["status"], "incomplete")
        self.assertEqual(run["reason"], "some hosts did not complete")
        h = hs["bfhost1"]
        self.assert_host_failed(h, "agent killed by signal KILL")
        self.assertEqual(h["host_key_fingerprint"], self.hosts.fingerprint(1))
        self.assertIsNone(h["agent_exit_status"])
        recs = self.records(d, h)
        # What arrived before the kill is archived: the host record, the
        # plan, the checks, the first GEMM; no summary.
        self.assertEqual(recs[0]["type"], "host")
        self.assertNotIn("summary", [r["type"] for r in recs])
        self.assertEqual(sum(r["type"] == "gemm" for r in recs),
                         h["gemm_done"])
        self.assertGreaterEqual(h["gemm_done"], 1)
        self.assertLess(h["gemm_done"], h["gemm_total"])

    def build_failure(self, name, output):
        """Runs host 2 (not seeded) as `name` with a fake cmake that prints
        output and fails; returns (ctl, host object, log)."""
        fake = os.path.join(self.tmp, "fakebin")
        fake_bin(fake, "cmake", "cat <<'EOF'\n%s\nEOF\nexit 1\n"
                 % "\n".join(output))
        hosts_dir = os.path.join(self.tmp, "hosts")
        write_inventory(hosts_dir, {name: {"ssh": "bfhost2",
                                           "path_prepend": [fake]}})
        self.assertEqual(cache_dirs(self.hosts, 2), [])
        c = self.run_ctl(TINY + ["--hosts-dir", hosts_dir, name])
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        self.assertIn("[%s] building" % name, c.stdout)
        d, run, hs = self.archive(c)
        h = hs[name]
        self.assertEqual(h["target"], "bfhost2")
        self.assertEqual(h["status"], "failed")
        self.assertEqual(h["host_key_fingerprint"], self.hosts.fingerprint(2))
        # The reason's lines indented under the progress line (blank
        # lines dropped); run.json keeps them as they are.
        shown = "\n    ".join(l for l in h["reason"].split("\n") if l)
        self.assertIn("[%s] failed: %s\n" % (name, shown), c.stdout)
        self.assertEqual(self.records(d, h), [])
        # Neither a final nor a staging directory is left on the host.
        self.assertEqual(os.listdir(cache_root(self.hosts, 2)), [])
        return c, h, self.log(d, h)

    def test_remote_build_failure_shows_the_log_tail(self):
        # A fake cmake that fails after long lines, as a compiler error in
        # a real build would: the last lines are the ones that matter.
        noise = ["/usr/bin/cc -DBF_X -I/a/long/include/path/%02d -O2 -g "
                 "-Wall -Wextra -c /src/agent/file_%02d.c -o file_%02d.o"
                 % (k, k, k) for k in range(30)]
        last = ["CMake Error at CMakeLists.txt:1: fake failure 4711",
                "-- Configuring incomplete, errors occurred!"]
        c, h, log = self.build_failure("badbuild", noise + last)
        # The cause first, then the tail of build.log, ending with its
        # last line, in whole lines, on stdout and in run.json alike.
        shown = h["reason"].split("\n")
        self.assertEqual(shown[0], "agent build failed on the host: "
                         "CMake Error at CMakeLists.txt:1: fake failure 4711")
        self.assertEqual(shown[1], "last lines of build.log:")
        self.assertEqual(shown[-2:], last)
        self.assertGreater(len(shown), 4)
        self.assertEqual(shown[2:], (noise + last)[-(len(shown) - 2):])
        # The whole output is in the host's log.
        for l in noise + last:
            self.assertIn("build: " + l + "\n", log)

    def test_configure_failure_names_the_missing_package(self):
        # What CMake prints when pkg-config finds no cJSON: the first
        # CMake Error says only "A required package was not found", and
        # "See also" names a file that went with the staging directory.
        out = ["-- The C compiler identification is GNU 12.2.0",
               "-- Checking for module 'libcjson'",
               "--   No package 'libcjson' found",
               "CMake Error at /usr/share/cmake-3.25/Modules/"
               "FindPkgConfig.cmake:607 (message):",
               "  A required package was not found",
               "Call Stack (most recent call first):",
               "  CMakeLists.txt:20 (pkg_check_modules)",
               "", "",
               "-- Configuring incomplete, errors occurred!",
               'See also "$PWD/build/CMakeFiles/CMakeOutput.log".']
        c, h, log = self.build_failure("nocjson", out)
        shown = h["reason"].split("\n")
        self.assertEqual(shown[0], "agent build failed on the host: "
                         "No package 'libcjson' found")
        self.assertNotIn("See also", h["reason"])
        self.assertEqual(shown[-1],
                         "-- Configuring incomplete, errors occurred!")
        self.assertIn("build: See also", log)

    def test_configure_failure_joins_the_cmake_message(self):
        out = ["-- The C compiler identification is unknown",
               "CMake Error at CMakeLists.txt:2 (project):",
               "  The CMAKE_C_COMPILER:", "", "    /nonexistent/cc", "",
               "  is not a full path to an existing compiler tool.", "",
               "-- Configuring incomplete, errors occurred!",
               'See also "$PWD/build/CMakeFiles/CMakeError.log".']
        c, h, log = self.build_failure("nocc", out)
        self.assertEqual(h["reason"].split("\n")[0],
                         "agent build failed on the host: CMake Error at "
                         "CMakeLists.txt:2 (project): The CMAKE_C_COMPILER:"
                         " /nonexistent/cc is not a full path to an "
                         "existing compiler tool.")


def pids_with_arg(word):
    """Live processes with word as one of their arguments."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                args = f.read().split(b"\0")
            with open("/proc/%s/stat" % name) as f:
                st = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if word.encode() in args and st != "Z":
            out.append(int(name))
    return out


def pids_in(path):
    """Live processes whose working directory is path or below it."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cwd = os.readlink("/proc/%s/cwd" % name)
        except OSError:
            continue
        if cwd == path or cwd.startswith(path + "/"):
            out.append(int(name))
    return out


class DeployKeyTest(CtlTestCase):
    """Three sshd's sharing one HOME (as over NFS), so one agent cache:
    the deploy directory is keyed by the toolchain as well as the
    sources, so hosts whose toolchains differ never run each other's
    agent, and a host with the same toolchain finds the build cached.
    Builds here are copy_cmake's (cmake is not in the key)."""

    N_HOSTS = 3
    SHARE_HOME = {2: 1, 3: 1}

    def test_toolchain_keys_separate_builds_in_a_shared_home(self):
        count = os.path.join(self.tmp, "builds")
        base = os.path.join(self.tmp, "base")
        copy_cmake(base, count)
        # Another machine and compiler: uname -m and cc --version differ.
        other = os.path.join(self.tmp, "other")
        fake_bin(other, "uname", 'if [ "$1" = -m ]; then echo aarch64; '
                 'else exec /bin/uname "$@"; fi\n')
        fake_bin(other, "cc", 'if [ "$1" = --version ]; then '
                 'echo "cc (Fake) 99.1"; exit 0; fi; exec /usr/bin/cc "$@"\n')
        # A host that gained the CUDA toolkit (nvcc on PATH).
        cuda = os.path.join(self.tmp, "cuda")
        fake_bin(cuda, "nvcc", 'echo "Cuda compilation tools, release '
                 '99.9, V99.9.1"\n')
        # The same toolchain on nodes with other GPUs: nvidia-smi lists
        # their compute capabilities (the CUDA code is built for them),
        # and a failing one (no GPU visible) prints its complaint.
        h200 = os.path.join(self.tmp, "h200")
        fake_bin(h200, "nvidia-smi", 'echo 9.0\n')
        t4 = os.path.join(self.tmp, "t4")
        fake_bin(t4, "nvidia-smi", 'echo 7.5\necho 7.5\n')
        nogpu = os.path.join(self.tmp, "nogpu")
        fake_bin(nogpu, "nvidia-smi", 'echo "No devices were found"; exit 6\n')
        no_cuda = {"CUDACXX": "/bin/false"}
        hosts_dir = os.path.join(self.tmp, "hosts")
        write_inventory(hosts_dir, {
            "plain": {"ssh": "bfhost1", "path_prepend": [base],
                      "env": no_cuda},
            "other": {"ssh": "bfhost2", "path_prepend": [other, base],
                      "env": no_cuda},
            "gpu": {"ssh": "bfhost3", "path_prepend": [cuda, base]},
            "h200": {"ssh": "bfhost1", "path_prepend": [h200, cuda, base]},
            "t4": {"ssh": "bfhost2", "path_prepend": [t4, cuda, base]},
            "nogpu": {"ssh": "bfhost3", "path_prepend": [nogpu, cuda, base]},
            "plain3": {"ssh": "bfhost3", "path_prepend": [base],
                       "env": no_cuda}})
        root = cache_root(self.hosts, 1)
        self.assertEqual(root, cache_root(self.hosts, 3))

        c = self.run_ctl(TINY + ["--hosts-dir", hosts_dir, "plain", "other",
                                 "gpu", "h200", "t4"], timeout=180)
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        keys = {}
        for n in ("plain", "other", "gpu", "h200", "t4"):
            self.assert_host_complete(d, hs[n])
            self.assertIn("[%s] building" % n, c.stdout)
            keys[n] = key_of(self.log(d, hs[n]))
        self.assertEqual(len(set(keys.values())), 5, keys)
        self.assertIn("arch aarch64, compiler cc (Fake) 99.1", self.log(d, hs["other"]))
        self.assertIn("nvcc Cuda compilation tools, release 99.9",
                      self.log(d, hs["gpu"]))
        self.assertIn("nvcc none", self.log(d, hs["plain"]))
        self.assertIn("gpus none)", self.log(d, hs["gpu"]))
        self.assertIn("gpus 9.0)", self.log(d, hs["h200"]))
        self.assertIn("gpus 7.5)", self.log(d, hs["t4"]))
        self.assertEqual(sorted(os.listdir(root)),
                         sorted(HASH + "-" + k for k in keys.values()))
        with open(count) as f:
            self.assertEqual(len(f.read().splitlines()), 5)

        # nvidia-smi failing is "no GPU": the key of the host without one.
        c = self.run_ctl(TINY + ["--hosts-dir", hosts_dir, "nogpu"])
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assertEqual(key_of(self.log(d, hs["nogpu"])), keys["gpu"])
        self.assertRegex(c.stdout, r"(?m)^\[nogpu\] cache key %s .*: cached$"
                         % keys["gpu"])

        # The same toolchain through another sshd (host 3), and again on
        # host 2: cached, nothing built.
        before = snapshot(root)
        c = self.run_ctl(TINY + ["--hosts-dir", hosts_dir, "plain3",
                                 "other"])
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        self.assertNotIn("building", c.stdout)
        d, run, hs = self.archive(c)
        self.assertEqual(key_of(self.log(d, hs["plain3"])), keys["plain"])
        self.assertEqual(key_of(self.log(d, hs["other"])), keys["other"])
        self.assertRegex(c.stdout, r"(?m)^\[plain3\] cache key %s .*: cached$"
                         % keys["plain"])
        with open(count) as f:
            self.assertEqual(len(f.read().splitlines()), 5)
        self.assertEqual(snapshot(root), before)


class WorkdirModeTest(CtlTestCase):
    """A workdir that group or others can write: refused, whoever owns
    it, and its mode never changed (issue 28: ctl changes the mode of no
    directory it did not make)."""

    N_HOSTS = 1
    SEED = (1,)

    def tearDown(self):
        os.chown(cache_root(self.hosts, 1), 0, 0)
        os.chmod(cache_root(self.hosts, 1), 0o700)
        super().tearDown()

    def mode(self):
        return stat.S_IMODE(os.stat(cache_root(self.hosts, 1)).st_mode)

    def test_own_group_writable_workdir_is_refused_unchanged(self):
        os.chmod(cache_root(self.hosts, 1), 0o777)
        c = self.run_ctl(TINY + ["bfhost1"])
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        h = hs["bfhost1"]
        self.assert_host_failed(h, "is writable by group or others, or is "
                                "no directory (mode and owner uid: "
                                "drwxrwxrwx 0)")
        self.assertIn("make it 0700 (chmod 0700)", h["reason"])
        self.assertEqual(self.mode(), 0o777)

    def test_foreign_writable_workdir_is_refused(self):
        os.chown(cache_root(self.hosts, 1), 65534, 65534)
        os.chmod(cache_root(self.hosts, 1), 0o775)
        c = self.run_ctl(TINY + ["bfhost1"])
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        h = hs["bfhost1"]
        self.assert_host_failed(h, "is writable by group or others, or is "
                                "no directory (mode and owner uid: "
                                "drwxrwxr-x 65534)")
        self.assertEqual(self.records(d, h), [])
        self.assertEqual(self.mode(), 0o775)


class DamagedCacheTest(CtlTestCase):
    """A cached agent that lost its exec bit (issue 21): it was taken for
    no build, every run built again (20 s with CUDA) and then failed with
    an empty "agent build failed; last lines of build.log:", since the
    new build could not replace the old directory. Builds here are the
    fake cmake's copies, counted."""

    N_HOSTS = 1
    SEED = (1,)

    def setUp(self):
        super().setUp()
        self.count = os.path.join(self.tmp, "builds")
        self.fake = os.path.join(self.tmp, "bin")
        self.hosts_dir = os.path.join(self.tmp, "hosts")
        write_inventory(self.hosts_dir, {
            "h1": {"ssh": "bfhost1", "path_prepend": [self.fake]}})

    def builds(self):
        if not os.path.exists(self.count):
            return 0
        with open(self.count) as f:
            return len(f.read().splitlines())

    def run_h1(self):
        return self.run_ctl(TINY + ["--hosts-dir", self.hosts_dir, "h1"])

    def test_agent_without_exec_bit_is_rebuilt_once(self):
        copy_cmake(self.fake, self.count)
        agent = cached_agent(self.hosts, 1)
        os.chmod(agent, 0o644)
        c = self.run_h1()
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        self.assertIn("/build/bin/agent is not executable (mode -rw-r--r--): "
                      "building it again", c.stdout)
        d, run, hs = self.archive(c)
        self.assert_host_complete(d, hs["h1"])
        self.assertEqual(self.builds(), 1)
        self.assertTrue(os.access(cached_agent(self.hosts, 1), os.X_OK))
        # Repaired: the next run is cached.
        c = self.run_h1()
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        self.assertRegex(c.stdout, r"\[h1\] cache key \S+ .*: cached")
        self.assertEqual(self.builds(), 1)

    def test_build_leaving_no_executable_agent_says_so(self):
        """A build that "succeeds" without an executable agent (here a
        cmake that writes it 0644): the reason says what is wrong."""
        fake_bin(self.fake, "cmake",
                 'if [ "$1" = --build ]; then echo build >> \'%s\'; '
                 'mkdir -p "$2/bin" && cp \'%s\' "$2/bin/agent" && '
                 'chmod 0644 "$2/bin/agent"; fi\n' % (self.count, AGENT))
        shutil.rmtree(cache_dir(self.hosts, 1))
        c = self.run_h1()
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assert_host_failed(hs["h1"], "agent build failed on the host: "
                                "the build ended well but left no "
                                "executable agent: -rw-r--r--")
        self.assertNotIn("last lines of build.log:\n", hs["h1"]["reason"])
        # The fixture's cache is back for the other test.
        seed_agent(self.hosts, 1)


class MaxSessionsTest(CtlTestCase):
    """An sshd that allows one channel at a time (MaxSessions 1): the whole
    deploy (preflight, SFTP upload, build) and the run, then a cached
    re-run."""

    N_HOSTS = 1
    SSHD_EXTRA = {1: ["MaxSessions 1"]}

    def test_deploy_and_run_with_one_session(self):
        fake = os.path.join(self.tmp, "bin")
        copy_cmake(fake)
        hosts_dir = os.path.join(self.tmp, "hosts")
        write_inventory(hosts_dir, {"one": {"ssh": "bfhost1",
                                            "path_prepend": [fake]}})
        for building in (True, False):
            c = self.run_ctl(TINY + ["--hosts-dir", hosts_dir, "one"])
            self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
            self.assertEqual("[one] building" in c.stdout, building,
                             c.stdout)
            d, run, hs = self.archive(c)
            self.assert_host_complete(d, hs["one"],
                                      self.hosts.fingerprint(1))


class BuildInterruptTest(CtlTestCase):
    """Ctrl-C while the remote build runs (a fake cmake that never ends):
    ctl exits 130 and nothing of the build is left on the host, although
    sshd does not deliver signals for root logins."""

    N_HOSTS = 1

    def test_sigint_during_build_stops_it(self):
        marker = "bf-slow-build-%d" % os.getpid()
        fake = os.path.join(self.tmp, "bin")
        # It answers --version, as a real cmake does (the preflight asks).
        fake_bin(fake, "cmake", 'case "$1" in --version) echo "cmake '
                 'version 3.25.1"; exit 0;; esac\n'
                 "exec sh -c 'while :; do sleep 1; done' %s\n" % marker)
        hosts_dir = os.path.join(self.tmp, "hosts")
        write_inventory(hosts_dir, {"slow": {"ssh": "bfhost1",
                                             "path_prepend": [fake]}})
        c = self.start(TINY + ["--hosts-dir", hosts_dir, "slow"])
        try:
            c.wait_line(r"^\[slow\] building", timeout=60)
            self.assertTrue(wait_until(lambda: pids_with_arg(marker), 60),
                            "the fake build never started")
            c.proc.send_signal(signal.SIGINT)
            c.finish(timeout=30)
        finally:
            c.kill()
        self.assertEqual(c.rc, EXIT_INTERRUPTED, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assertEqual(hs["slow"]["status"], "interrupted")
        root = cache_root(self.hosts, 1)
        gone = wait_until(lambda: not pids_with_arg(marker) and
                          not pids_in(root), 30)
        self.assertTrue(gone, "build processes left: %s %s"
                        % (pids_with_arg(marker), pids_in(root)))
        self.assertTrue(wait_until(lambda: os.listdir(root) == [], 30),
                        os.listdir(root))


class FakeAgentTest(CtlTestCase):
    """Host 1's cached agent is a shell script written by the test, which
    replays records from a real run of the agent with changes."""

    N_HOSTS = 1
    SEED = (1,)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        p = subprocess.run([AGENT] + TINY, capture_output=True, text=True,
                           timeout=120)
        if p.returncode != 0:
            raise RuntimeError("agent: %s" % p.stderr)
        cls.real = p.stdout.splitlines()

    def fake_agent(self, lines, script):
        """Installs the fake agent: lines go to records.ndjson beside it,
        script is its body ($d is its directory)."""
        agent = cached_agent(self.hosts, 1)
        os.makedirs(os.path.dirname(agent), mode=0o700, exist_ok=True)
        with open(os.path.join(os.path.dirname(agent), "records.ndjson"),
                  "w") as f:
            f.write("".join(l + "\n" for l in lines))
        with open(agent, "w") as f:
            f.write("#!/bin/sh\nd=$(dirname \"$0\")\n" + script)
        os.chmod(agent, 0o755)

    def test_malformed_line_is_counted_and_the_run_goes_on(self):
        real = self.real
        self.assertGreater(len(real), 4)
        self.fake_agent(real, "head -n 3 \"$d/records.ndjson\"\n"
                              "echo 'this is {not a record'\n"
                              "tail -n +4 \"$d/records.ndjson\"\n")
        c = self.run_ctl(TINY + ["bfhost1"])
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        self.assertRegex(c.stdout, r"(?m)^\[bfhost1\] malformed line 4: ")
        self.assertIn("[bfhost1] done", c.stdout)
        d, run, hs = self.archive(c)
        self.assertEqual(run["status"], "complete")
        h = hs["bfhost1"]
        self.assertEqual(h["status"], "done")
        self.assertEqual(h["malformed_lines"], 1)
        self.assertEqual(h["complete_records"], "yes")
        self.assertEqual(h["gemm_done"], h["gemm_total"])
        # Every real record archived as received, the garbage not.
        with open(os.path.join(d, h["records_file"])) as f:
            self.assertEqual(f.read().splitlines(), real)
        self.assertEqual(h["records"], len(real))
        self.assertIn("this is {not a record", self.log(d, h))

    def test_failed_check_is_exit_1(self):
        recs = [json.loads(l) for l in self.real]
        check = next(r for r in recs if r["type"] == "check")
        check["status"] = "fail"
        check["reason"] = "forced by the test"
        summary = recs[-1]
        self.assertEqual(summary["type"], "summary")
        summary["checks_passed"] -= 1
        summary["checks_failed"] += 1
        summary["exit_status"] = 1
        lines = [json.dumps(r, separators=(",", ":")) for r in recs]
        self.fake_agent(lines, "cat \"$d/records.ndjson\"\nexit 1\n")
        c = self.run_ctl(TINY + ["bfhost1"])
        self.assertEqual(c.rc, 1, c.stdout + c.stderr)
        self.assertRegex(c.stdout, r"\s\d+/1\s")  # checks passed/failed
        d, run, hs = self.archive(c)
        self.assertEqual(run["status"], "complete")
        h = hs["bfhost1"]
        self.assertEqual((h["status"], h["agent_exit_status"]), ("done", 1))
        with open(os.path.join(d, h["records_file"])) as f:
            self.assertEqual(f.read().splitlines(), lines)

    def test_agent_error_exit_shows_its_stderr(self):
        self.fake_agent(self.real[:2],
                        "cat \"$d/records.ndjson\"\n"
                        "echo 'agent: some detail' >&2\n"
                        "echo 'agent: cannot run: test says no' >&2\n"
                        "exit 4\n")
        c = self.run_ctl(TINY + ["bfhost1"])
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        reason = "agent exited with status 4: agent: cannot run: test says no"
        self.assertIn("[bfhost1] failed: " + reason, c.stdout)
        d, run, hs = self.archive(c)
        h = hs["bfhost1"]
        self.assert_host_failed(h, reason)
        self.assertEqual(h["agent_exit_status"], 4)
        self.assertEqual(self.records(d, h), [json.loads(l)
                                              for l in self.real[:2]])
        self.assertIn("agent: some detail\n", self.log(d, h))

    def test_agent_last_words_cut_alike_local_and_over_ssh(self):
        """A failing agent's last stderr line is its reason, read from the
        same tail (base/tail.c) over SSH and with ctl run local (issue
        29): a last line longer than local's old tail (512 bytes) is read
        from its start, and the two runs say the same: whole, in the
        progress line and run.json (issue 28: it was cut at 512 bytes,
        "...")."""
        # The words tests/slurm/slurmcases.py's test_8_failing_task has
        # the agent say on a Slurm node, with the same check.
        words = "agent: no such device: " + "".join("%04d " % i
                                                    for i in range(600))
        self.fake_agent(self.real[:2],
                        "cat \"$d/records.ndjson\"\n"
                        "echo 'agent: some detail' >&2\n"
                        "echo '%s' >&2\n"
                        "exit 4\n" % words)
        local_dir = os.path.join(self.tmp, "lastwords")
        os.makedirs(local_dir)
        for f in ("agent", "records.ndjson"):
            shutil.copy(os.path.join(os.path.dirname(
                cached_agent(self.hosts, 1)), f), local_dir)
        e = self.env()
        e["BENCHFLEET_AGENT"] = os.path.join(local_dir, "agent")
        said = {}
        for name, env in (("bfhost1", None), ("local", e)):
            c = self.run_ctl(TINY + [name], env=env)
            self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
            line = re.search(r"(?m)^\[%s\] failed: (.*)$" % name, c.stdout)
            self.assertIsNotNone(line, c.stdout)
            d, run, hs = self.archive(c)
            h = hs[name]
            self.assertEqual(h["status"], "failed", h)
            self.assertEqual(h["agent_exit_status"], 4)
            said[name] = (line.group(1), h["reason"])
        whole = "agent exited with status 4: " + words
        for what in said["local"] + said["bfhost1"]:
            self.assertEqual(what, whole)

    def stderr_part(self, log):
        return [l for l in log.splitlines(True)
                if l.startswith("agent stderr ") or l.startswith("[ctl: ")]

    def test_stderr_in_the_log_as_local_has_it(self):
        """The agent's stderr reaches the host's log alike over SSH and
        with ctl run local (issue 21): all of it up to 1 MiB (SSH kept
        only its last 64 KiB, from mid-line, without a word); past that
        the first 1 MiB and the last 64 KiB, whole lines, and a line
        saying how many bytes were left out between them."""
        local_dir = os.path.join(self.tmp, "localagent")
        os.makedirs(local_dir)
        for n in (10000, 150000):
            with self.subTest(lines=n):
                body = ("cat \"$d/records.ndjson\"\n"
                        "seq 1 %d | sed 's/^/agent stderr line /' >&2\n"
                        % n)
                self.fake_agent(self.real, body)
                local = os.path.join(local_dir, "agent")
                shutil.copy(cached_agent(self.hosts, 1), local)
                shutil.copy(os.path.join(os.path.dirname(
                    cached_agent(self.hosts, 1)), "records.ndjson"),
                    local_dir)
                c = self.run_ctl(TINY + ["bfhost1"], timeout=120)
                self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
                d, run, hs = self.archive(c)
                remote = self.stderr_part(self.log(d, hs["bfhost1"]))
                e = self.env()
                e["BENCHFLEET_AGENT"] = local
                c = self.run_ctl(TINY + ["local"], env=e, timeout=120)
                self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
                d, run, hs = self.archive(c)
                here = self.stderr_part(self.log(d, hs["local"]))
                self.assertEqual(remote, here)
                full = ["agent stderr line %d\n" % i
                        for i in range(1, n + 1)]
                total = sum(len(l) for l in full)
                if total <= 1024 * 1024:
                    self.assertEqual(remote, full)
                    continue
                mark = [l for l in remote if l.startswith("[ctl: ")]
                self.assertEqual(len(mark), 1, mark)
                at = remote.index(mark[0])
                head, tail = remote[:at], remote[at + 1:]
                self.assertEqual(head, full[:len(head)])
                self.assertEqual(tail, full[len(full) - len(tail):])
                kept = sum(len(l) for l in head + tail)
                self.assertLessEqual(sum(len(l) for l in head), 1024 * 1024)
                self.assertLessEqual(sum(len(l) for l in tail), 64 * 1024)
                self.assertEqual(mark[0], "[ctl: %d bytes of the agent's "
                                 "stderr left out here (the log keeps its "
                                 "first 1024 KiB and last 64 KiB)]\n"
                                 % (total - kept))

    def test_agent_ending_without_summary_fails_the_host(self):
        self.fake_agent(self.real[:-1], "cat \"$d/records.ndjson\"\n")
        c = self.run_ctl(TINY + ["bfhost1"])
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        h = hs["bfhost1"]
        self.assert_host_failed(h, "ended before its summary record")
        self.assertEqual(h["agent_exit_status"], 0)
        self.assertEqual(h["records"], len(self.real) - 1)


    def test_silent_agent_with_a_live_sshd_is_timed_out(self):
        # Everything but the summary, then silence while the agent and
        # the connection stay alive (issue 11): --host-timeout stops it.
        self.fake_agent(self.real[:-1],
                        "cat \"$d/records.ndjson\"\nexec sleep 120\n")
        c = self.run_ctl(TINY + ["--host-timeout", "5", "bfhost1"],
                         timeout=120)
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        h = hs["bfhost1"]
        self.assert_host_failed(h, "no record for 5 s (--host-timeout)")
        self.assertEqual(h["records"], len(self.real) - 1)

    def test_escapes_from_the_host_never_reach_the_terminal(self):
        recs = [json.loads(l) for l in self.real]
        recs[0]["hostname"] = "evil\x1b]0;title\x07"
        lines = [json.dumps(r, separators=(",", ":")) for r in recs[:2]]
        self.fake_agent(lines, "cat \"$d/records.ndjson\"\n"
                               "printf 'agent: \\033[2Jcaf\\303\\251\\377\\n' >&2\n"
                               "exit 4\n")
        p = subprocess.run([CTL, "run", "--no-tui", "--results",
                            self.results] + TINY + ["bfhost1"],
                           env=self.env(), cwd=self.cwd, capture_output=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        self.assertNotIn(b"\x1b", p.stdout + p.stderr)
        self.assertIn("agent exited with status 4: agent: ?[2Jcaf\u00e9?",
                      p.stdout.decode("utf-8"))


class InterruptTest(CtlTestCase):
    """Ctrl-C (SIGINT to ctl) while two remote agents and the local one
    run a long sweep, and ctl waits on a hung host (3) with a long
    --timeout."""

    N_HOSTS = 3
    SEED = (1, 2)

    def tearDown(self):
        self.hosts.resume(3)
        super().tearDown()

    def test_sigint_stops_the_run_and_the_agents(self):
        names = ["local", "bfhost1", "bfhost2"]
        self.hosts.hang(3)
        marker = "interrupt-%d" % os.getpid()
        env = self.env()
        env["BF_TEST_MARKER"] = marker
        # One machine (loopback): at once, to be stopped while all run.
        c = self.start(LONG + ["--timeout", "60", "--concurrent-same-machine"]
                       + names + ["bfhost3"], env)
        try:
            for n in names:
                c.wait_line(r"^\[%s\] running 1/" % n, timeout=180)
            for i in (1, 2):
                self.assertEqual(len(agent_pids(self.hosts, i)), 1)
            c.proc.send_signal(signal.SIGINT)
            sent_at = time.monotonic() - c.start
            c.finish(timeout=30)
        finally:
            c.kill()
        self.assertEqual(c.rc, EXIT_INTERRUPTED, c.stdout + c.stderr)
        self.assertLess(c.elapsed - sent_at, SLACK_S)
        d, run, hs = self.archive(c)
        self.assertEqual(run["status"], "incomplete")
        self.assertEqual(run["reason"], "interrupted by the user")
        self.assertIn("run %s incomplete: " % run["run_id"], c.stdout)
        for n in names + ["bfhost3"]:
            h = hs[n]
            self.assertEqual(h["status"], "interrupted", h)
            self.assertTrue(h["reason"])
            self.assertEqual(h["complete_records"], "no")
            self.assertIn("[%s] interrupted" % n, c.stdout)
        for n in names:
            # What arrived before Ctrl-C is archived.
            h = hs[n]
            recs = self.records(d, h)
            self.assertEqual(recs[0]["type"], "host")
            self.assertGreaterEqual(h["gemm_done"], 1)
            self.assertNotIn("summary", [r["type"] for r in recs])
        self.assertEqual(self.records(d, hs["bfhost3"]), [])
        self.assertIsNone(hs["bfhost3"]["host_key_fingerprint"])
        self.assertEqual(hs["local"]["target"], "local")
        self.assertIsNone(hs["local"]["host_key_fingerprint"])
        # No agent left running, on either host or here, shortly after.
        for i in (1, 2):
            gone = wait_until(lambda: not agent_pids(self.hosts, i), 3)
            self.assertTrue(gone, "agent still running on host %d: %s"
                            % (i, agent_pids(self.hosts, i)))
        gone = wait_until(lambda: not pids_of(AGENT, marker), 3)
        self.assertTrue(gone, "local agent still running: %s"
                        % pids_of(AGENT, marker))


class SshAgentTest(CtlTestCase):
    """The user key only in an ssh-agent: the config names a key file that
    does not exist, and HOME has none."""

    N_HOSTS = 1
    SEED = (1,)

    def setUp(self):
        super().setUp()
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(os.path.join(self.home, ".ssh"), mode=0o700)
        self.cfg = os.path.join(self.tmp, "ssh_config")
        with open(self.cfg, "w") as f:
            f.write("Host agent-only\n  HostName 127.0.0.1\n  Port %d\n"
                    "  User root\n  IdentityFile %s/missing_key\n"
                    "  UserKnownHostsFile %s\n"
                    % (self.hosts.ports[1], self.tmp,
                       self.hosts.known_hosts))

    def env(self, agent=False):
        e = super().env(agent=agent)
        e["HOME"] = self.home
        return e

    def test_key_from_ssh_agent(self):
        self.hosts.start_agent()
        c = self.run_ctl(TINY + ["-F", self.cfg, "agent-only"],
                         env=self.env(agent=True))
        self.assertEqual(c.rc, EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assert_host_complete(d, hs["agent-only"],
                                  self.hosts.fingerprint(1))

    def test_no_agent_no_key_is_an_auth_failure(self):
        c = self.run_ctl(TINY + ["-F", self.cfg, "agent-only"])
        self.assertEqual(c.rc, EXIT_HOSTS_FAILED, c.stdout + c.stderr)
        self.assertIn("[agent-only] failed: ", c.stdout)
        d, run, hs = self.archive(c)
        self.assert_host_failed(hs["agent-only"], "no key accepted")


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
