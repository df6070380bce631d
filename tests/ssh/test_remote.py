#!/usr/bin/env python3
"""Black-box tests of the SSH layer (controller/remote/remote_ssh.h) against real
OpenSSH servers.

Drives tests/ssh/remote_probe (path in $BF_REMOTE_PROBE, else looked for in
the usual build directories) against hosts from tests/lib/sshhosts.py on
127.0.0.1. Exits 77 (CTest: skipped) when there is no probe, no sshd or not
root. Timing assertions carry slack for a loaded 2-core machine.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import queue
import signal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from sshhosts import SSHHosts  # noqa: E402

# enum bf_err numbers (common/bf_error.h)
BF_OK = 0
BF_ERR_IO = 3
BF_ERR_PARSE = 4
BF_ERR_CONNECT = 12
BF_ERR_HOSTKEY_UNKNOWN = 13
BF_ERR_HOSTKEY_CHANGED = 14
BF_ERR_AUTH = 15
BF_ERR_TIMEOUT = 16
BF_ERR_INTERRUPTED = 20
BF_ERR_NOT_FOUND = 21

# How late a timeout or a cancel may be: a bound that tells "stopped by
# it" from "hung" (the default timeout is 30 s), not a speed, so a CI
# machine at load 10+ stays well inside it.
SLACK_S = 15.0


def find_probe():
    p = os.environ.get("BF_REMOTE_PROBE")
    if p:
        return p
    root = os.path.abspath(os.path.join(HERE, "..", ".."))
    c = os.path.join(root, "build", "tests", "ssh", "remote_probe")
    return c if os.access(c, os.X_OK) else None


PROBE = find_probe()
HOSTS = None        # the module's SSHHosts (4 hosts, 3 unknown)


def setUpModule():
    global HOSTS
    HOSTS = SSHHosts(4, unknown={3}).start()


def tearDownModule():
    if HOSTS:
        HOSTS.stop()


class Probe:
    """remote_probe as a child process whose JSON events are read as they
    arrive (each stamped with the local arrival time in "t")."""

    def __init__(self, args, env=None):
        self.start = time.monotonic()
        self.proc = subprocess.Popen([PROBE] + args, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL,
                                     env=env or HOSTS.env())
        self.q = queue.Queue()
        self.events = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            ev = json.loads(raw)
            ev["t"] = time.monotonic() - self.start
            self.q.put(ev)
        self.q.put(None)

    def next(self, kind, timeout=30):
        """Waits for the next event of the given kind; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no %r event within %s s; got %r"
                                     % (kind, timeout, self.events))
            try:
                ev = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if ev is None:
                raise AssertionError("probe ended before %r: %r"
                                     % (kind, self.events))
            self.events.append(ev)
            if ev["event"] == kind:
                return ev

    def finish(self, timeout=60):
        """Waits for the exit; returns (exit status, all events)."""
        rc = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        while True:
            try:
                ev = self.q.get_nowait()
            except queue.Empty:
                break
            if ev is not None:
                self.events.append(ev)
        self.stderr = self.proc.stderr.read().decode(errors="replace")
        self.proc.stdout.close()
        self.proc.stderr.close()
        return rc, self.events

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.finish()


def probe(args, env=None, timeout=60):
    """Runs the probe to the end; returns (exit status, events)."""
    p = Probe(args, env)
    try:
        return p.finish(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        raise


def probe_then(args, event, act, timeout=30):
    """Runs the probe and calls act() at its first `event`. Returns (exit
    status, events, the first error event, seconds from the probe's start
    to act's return)."""
    p = Probe(args)
    try:
        p.next(event)
        act()
        acted_at = time.monotonic() - p.start
        err = p.next("error", timeout=timeout)
        rc, ev = p.finish(timeout=10)
    finally:
        if p.proc.poll() is None:
            p.kill()
    return rc, ev, err, acted_at


def wait_until(pred, timeout, step=0.05):
    """Polls pred() until it is true or timeout seconds pass; returns its
    last value (a bound on waiting for an event, not a delay)."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(step)


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
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if word.encode() in args and state != "Z":
            out.append(int(name))
    return out


def of(events, kind):
    return [e for e in events if e["event"] == kind]


def error(events):
    errs = of(events, "error")
    return errs[0] if errs else None


@unittest.skipUnless(PROBE and os.access(PROBE, os.X_OK), "no remote_probe")
class ExecTest(unittest.TestCase):

    def test_lines_stream_before_the_command_ends(self):
        rc, ev = probe(["-t", "10", "bfhost1", "exec",
                        "for i in 1 2 3; do echo $i; sleep 1; done"])
        self.assertEqual(rc, BF_OK, ev)
        lines = of(ev, "line")
        self.assertEqual([l["text"] for l in lines], ["1", "2", "3"])
        end = of(ev, "exit")[0]["ms"]
        # The first line arrives right away, not with the last one.
        self.assertLess(lines[0]["ms"], end - 1500)
        self.assertGreater(lines[2]["ms"] - lines[0]["ms"], 1500)

    def test_stderr_separate_and_exit_status(self):
        rc, ev = probe(["bfhost1", "exec",
                        "echo out; echo err1 >&2; echo err2 >&2; exit 7"])
        self.assertEqual(rc, BF_OK, ev)
        self.assertEqual([l["text"] for l in of(ev, "line")], ["out"])
        x = of(ev, "exit")[0]
        self.assertEqual(x["status"], 7)
        self.assertEqual(x["stderr"], "err1\nerr2\n")
        self.assertEqual(x["signal"], "")

    def test_killed_by_signal(self):
        rc, ev = probe(["bfhost1", "exec", "echo before; kill -KILL $$"])
        self.assertEqual(rc, BF_OK, ev)
        x = of(ev, "exit")[0]
        self.assertEqual(x["signal"], "KILL")
        self.assertEqual(x["status"], -1)

    def test_stderr_keeps_the_tail(self):
        """The last whole lines within 64 KiB, after a line saying how
        many bytes went (it kept the last 65536 bytes, starting mid-line,
        with no word of what was dropped)."""
        rc, ev = probe(["bfhost1", "exec",
                        "seq 1 20000 | sed 's/$/ stderr line/' >&2"])
        self.assertEqual(rc, BF_OK, ev)
        x = of(ev, "exit")[0]
        full = "".join("%d stderr line\n" % i for i in range(1, 20001))
        self.assertEqual(x["stderr_total_bytes"], len(full))
        head, _, kept = x["stderr"].partition("\n")
        kept = x["stderr"][len(head) + 1:]
        self.assertTrue(full.endswith(kept))
        self.assertLessEqual(len(kept), 65536)
        self.assertGreater(len(kept), 65536 - 20)
        dropped = len(full) - len(kept)
        self.assertEqual(full[dropped - 1], "\n")   # a whole first line
        self.assertEqual(head, "[ctl: %d bytes of stderr dropped before "
                         "this line]" % dropped)
        self.assertEqual(x["stderr_tail_bytes"], len(x["stderr"]))

    def test_stderr_one_long_line(self):
        """No line fits: the last 64 KiB of the one line, said so."""
        rc, ev = probe(["bfhost1", "exec",
                        "head -c 100000 /dev/zero | tr '\\0' e >&2; "
                        "printf END >&2"])
        self.assertEqual(rc, BF_OK, ev)
        x = of(ev, "exit")[0]
        self.assertEqual(x["stderr_total_bytes"], 100003)
        head, _, kept = x["stderr"].partition("\n")
        self.assertEqual(head, "[ctl: %d bytes of stderr dropped before "
                         "this line; the next line starts mid-line]"
                         % (100003 - 65536))
        self.assertEqual(len(kept), 65536)
        self.assertTrue(kept.endswith("eeeEND"))

    def test_long_line_is_cut_and_reading_goes_on(self):
        rc, ev = probe(["bfhost1", "exec",
                        "head -c 3000000 /dev/zero | tr '\\0' a; echo; "
                        "echo next; printf last"])
        self.assertEqual(rc, BF_OK, ev)
        lines = of(ev, "line")
        self.assertEqual(len(lines), 3, lines)
        self.assertEqual(lines[0]["len"], 1024 * 1024)
        self.assertTrue(lines[0]["truncated"])
        self.assertEqual((lines[1]["text"], lines[1]["truncated"]),
                         ("next", False))
        self.assertEqual(lines[2]["text"], "last")   # no final newline
        x = of(ev, "exit")[0]
        self.assertEqual((x["lines"], x["lines_truncated"]), (3, 1))
        self.assertEqual(x["stdout_total_bytes"], 3000000 + 1 + 5 + 4)

    def test_line_cap_is_configurable(self):
        rc, ev = probe(["--line-max", "10", "bfhost1", "exec",
                        "echo 0123456789abc; echo short"])
        self.assertEqual(rc, BF_OK, ev)
        lines = of(ev, "line")
        self.assertEqual([(l["text"], l["truncated"]) for l in lines],
                         [("0123456789", True), ("short", False)])

    def test_callback_error_stops_the_command(self):
        rc, ev = probe(["--stop-after", "2", "bfhost1", "exec",
                        "while :; do echo x; sleep 0.1; done"], timeout=20)
        self.assertEqual(rc, BF_ERR_PARSE, ev)
        self.assertEqual(len(of(ev, "line")), 2)
        self.assertIn("output handler", error(ev)["detail"])

    def test_cancel_is_prompt_and_the_handle_stays_usable(self):
        # Cancelled (SIGINT to the probe) once the command's first line
        # has arrived, not after a fixed delay: under load, auth alone can
        # take longer than any delay chosen. The command then writes a
        # line every 0.1 s until a write fails.
        mark = "bf-cancel-%d" % os.getpid()
        p = Probe(["-t", "10", "bfhost1", "exec",
                   "echo started; exec sh -c 'while echo tick; do sleep 0.1;"
                   " done' %s" % mark, "exec", "echo again"])
        try:
            p.next("line")
            p.proc.send_signal(signal.SIGINT)
            sent_ms = (time.monotonic() - p.start) * 1000
            err = p.next("error")
            rc, ev = p.finish(timeout=30)
        finally:
            if p.proc.poll() is None:
                p.kill()
        self.assertEqual(rc, BF_ERR_INTERRUPTED, ev)
        self.assertEqual(err["code"], BF_ERR_INTERRUPTED)
        self.assertEqual(err["action"], "exec")
        self.assertLess(err["ms"] - sent_ms, SLACK_S * 1000)
        # Same connection, next command runs.
        after = ev[ev.index(err):]
        self.assertEqual([l["text"] for l in of(after, "line")], ["again"])
        # The cancelled command does not go on past its next write (the
        # closed channel gives it SIGPIPE; for a root login OpenSSH does
        # not deliver the SIGTERM the layer sends): it is gone.
        gone = wait_until(lambda: not pids_with_arg(mark), 10)
        self.assertTrue(gone, "cancelled command still runs: %s"
                        % pids_with_arg(mark))

    def test_quiet_command_on_live_host_does_not_time_out(self):
        rc, ev = probe(["-t", "1", "bfhost1", "exec", "sleep 3.5; echo done"])
        self.assertEqual(rc, BF_OK, ev)
        self.assertEqual([l["text"] for l in of(ev, "line")], ["done"])

    def test_quoting_round_trips_through_the_remote_shell(self):
        nasty = ["'; rm -rf / #", "a b  c", "it's", '"dq"', "$HOME", "`id`",
                 "$(id)", "a;b&c|d>e<f", "*", "~root", "back\\slash",
                 "tab\there", "''", "-n", "=x", "!x", "{a,b}", "#",
                 "bfhost1", "%s", "\u00e9t\u00e9"]
        for s in nasty:
            with self.subTest(s=s):
                rc, ev = probe(["bfhost1", "quote-exec", s])
                self.assertEqual(rc, BF_OK, ev)
                self.assertEqual([l["text"] for l in of(ev, "line")], [s])
        rc, ev = probe(["bfhost1", "quote-exec", ""])
        self.assertEqual((rc, of(ev, "line")), (BF_OK, []))


@unittest.skipUnless(PROBE and os.access(PROBE, os.X_OK), "no remote_probe")
class HostKeyTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bf-kh-")
        self.kh = os.path.join(self.dir, "known_hosts")
        shutil.copy(HOSTS.known_hosts, self.kh)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_unknown_key_refused_then_accepted_with_the_flag(self):
        with open(self.kh) as f:
            before = f.read()
        rc, ev = probe(["--known-hosts", self.kh, "bfhost3", "connect"])
        self.assertEqual(rc, BF_ERR_HOSTKEY_UNKNOWN, ev)
        detail = error(ev)["detail"]
        self.assertIn(HOSTS.fingerprint(3), detail)
        self.assertIn("--accept-new-host-keys", detail)
        with open(self.kh) as f:
            self.assertEqual(f.read(), before)

        rc, ev = probe(["--known-hosts", self.kh, "--accept-new", "bfhost3",
                        "exec", "echo in"])
        self.assertEqual(rc, BF_OK, ev)
        c = of(ev, "connect")[0]
        self.assertTrue(c["key_added"])
        self.assertEqual(c["fingerprint"], HOSTS.fingerprint(3))
        with open(self.kh) as f:
            after = f.read()
        # Exactly one line added, as OpenSSH writes it.
        self.assertEqual(after, before + HOSTS.known_hosts_line(3) + "\n")

        rc, ev = probe(["--known-hosts", self.kh, "bfhost3", "connect"])
        self.assertEqual(rc, BF_OK, ev)
        self.assertFalse(of(ev, "connect")[0]["key_added"])

    def test_accept_new_creates_a_missing_known_hosts(self):
        kh = os.path.join(self.dir, "fresh_known_hosts")
        rc, ev = probe(["--known-hosts", kh, "bfhost1", "connect"])
        self.assertEqual(rc, BF_ERR_HOSTKEY_UNKNOWN, ev)
        rc, ev = probe(["--known-hosts", kh, "--accept-new", "bfhost1",
                        "connect"])
        self.assertEqual(rc, BF_OK, ev)
        with open(kh) as f:
            self.assertEqual(f.read(), HOSTS.known_hosts_line(1) + "\n")

    def test_changed_key_refused_even_with_accept_new(self):
        old_fp = HOSTS.fingerprint(4)
        new_fp = HOSTS.change_host_key(4)
        self.assertNotEqual(old_fp, new_fp)
        with open(self.kh) as f:
            before = f.read()
        for extra in ([], ["--accept-new"]):
            rc, ev = probe(["--known-hosts", self.kh] + extra +
                           ["bfhost4", "exec", "touch /tmp/never"])
            self.assertEqual(rc, BF_ERR_HOSTKEY_CHANGED, ev)
            detail = error(ev)["detail"]
            self.assertIn(self.kh, detail)
            self.assertIn(new_fp, detail)
            self.assertEqual(of(ev, "line"), [])
        with open(self.kh) as f:
            self.assertEqual(f.read(), before)

    def test_key_of_another_type_is_refused(self):
        key = os.path.join(self.dir, "ecdsa")
        subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-N", "", "-f",
                        key], check=True)
        with open(key + ".pub") as f:
            kind, blob = f.read().split()[:2]
        with open(self.kh, "w") as f:
            f.write("[127.0.0.1]:%d %s %s\n" % (HOSTS.ports[1], kind, blob))
        rc, ev = probe(["--known-hosts", self.kh, "--accept-new", "bfhost1",
                        "connect"])
        self.assertEqual(rc, BF_ERR_HOSTKEY_CHANGED, ev)
        self.assertIn("another type", error(ev)["detail"])


@unittest.skipUnless(PROBE and os.access(PROBE, os.X_OK), "no remote_probe")
class ConnectTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bf-home-")
        self.ssh = os.path.join(self.dir, ".ssh")
        os.makedirs(self.ssh, mode=0o700)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def env(self, agent=False):
        e = HOSTS.env(agent=agent)
        e["HOME"] = self.dir
        return e

    def test_refused_connection(self):
        port = HOSTS.refusing_port()
        t = time.monotonic()
        rc, ev = probe(["-t", "5", "root@127.0.0.1:%d" % port, "connect"])
        self.assertEqual(rc, BF_ERR_CONNECT, ev)
        self.assertIn("refused", error(ev)["detail"].lower())
        self.assertLess(time.monotonic() - t, 2)

    def test_user_host_port_without_config_entry(self):
        rc, ev = probe(["--known-hosts", HOSTS.known_hosts,
                        "root@127.0.0.1:%d" % HOSTS.ports[2], "exec",
                        "echo $HOME"])
        self.assertEqual(rc, BF_OK, ev)
        self.assertEqual([l["text"] for l in of(ev, "line")],
                         [HOSTS.remote_home(2)])

    def test_default_config_from_home_with_include(self):
        # ~/.ssh/config (~ = $HOME) that Includes a relative glob.
        os.makedirs(os.path.join(self.ssh, "conf.d"))
        with open(os.path.join(self.ssh, "config"), "w") as f:
            f.write("Include conf.d/*.conf\n")
        with open(os.path.join(self.ssh, "conf.d", "hosts.conf"), "w") as f:
            f.write("Host inc-alias\n  HostName 127.0.0.1\n  Port %d\n"
                    "  User root\n  IdentityFile %s\n"
                    "  UserKnownHostsFile %s\n"
                    % (HOSTS.ports[1], HOSTS.user_key, HOSTS.known_hosts))
        rc, ev = probe(["inc-alias", "exec", "echo $HOME"], env=self.env())
        self.assertEqual(rc, BF_OK, ev)
        self.assertEqual([l["text"] for l in of(ev, "line")],
                         [HOSTS.remote_home(1)])

    def test_missing_explicit_config(self):
        rc, ev = probe(["-F", os.path.join(self.dir, "nope"), "bfhost1",
                        "connect"])
        self.assertEqual(rc, BF_ERR_NOT_FOUND, ev)

    def write_keyless_config(self):
        """A config for host 1 whose IdentityFile does not exist, in a
        HOME without key files: only an agent can log in."""
        cfg = os.path.join(self.ssh, "config")
        with open(cfg, "w") as f:
            f.write("Host agent-only\n  HostName 127.0.0.1\n  Port %d\n"
                    "  User root\n  IdentityFile %s/missing_key\n"
                    "  UserKnownHostsFile %s\n"
                    % (HOSTS.ports[1], self.dir, HOSTS.known_hosts))
        return cfg

    def test_no_usable_key_is_an_auth_error(self):
        cfg = self.write_keyless_config()
        rc, ev = probe(["-F", cfg, "agent-only", "connect"], env=self.env())
        self.assertEqual(rc, BF_ERR_AUTH, ev)
        detail = error(ev)["detail"]
        self.assertIn("no key accepted", detail)
        self.assertIn("SSH_AUTH_SOCK", detail)

    def test_agent_key_is_used(self):
        cfg = self.write_keyless_config()
        HOSTS.start_agent()
        rc, ev = probe(["-F", cfg, "agent-only", "exec", "echo via-agent"],
                       env=self.env(agent=True))
        self.assertEqual(rc, BF_OK, ev)
        self.assertEqual([l["text"] for l in of(ev, "line")], ["via-agent"])

    def test_proxy_command(self):
        # Reach host 2 through host 1 (OpenSSH's ssh -W as the proxy).
        cfg = os.path.join(self.ssh, "config")
        with open(cfg, "w") as f:
            f.write("Host via1\n  HostName 127.0.0.1\n  Port %d\n"
                    "  User root\n  IdentityFile %s\n"
                    "  UserKnownHostsFile %s\n"
                    "  ProxyCommand ssh -F %s -W %%h:%%p bfhost1\n"
                    % (HOSTS.ports[2], HOSTS.user_key, HOSTS.known_hosts,
                       HOSTS.ssh_config))
        rc, ev = probe(["-F", cfg, "via1", "exec", "echo $HOME"])
        self.assertEqual(rc, BF_OK, ev)
        self.assertEqual([l["text"] for l in of(ev, "line")],
                         [HOSTS.remote_home(2)])
        self.assertEqual(of(ev, "connect")[0]["fingerprint"],
                         HOSTS.fingerprint(2))


@unittest.skipUnless(PROBE and os.access(PROBE, os.X_OK), "no remote_probe")
class UploadTest(unittest.TestCase):

    def test_mkdir_upload_and_replace(self):
        home = HOSTS.remote_home(1)
        d = os.path.join(home, "up", "a", "b")
        target = os.path.join(d, "agent.sh")
        p = subprocess.run([PROBE, "bfhost1", "mkdir", d, "upload", target,
                            "755"], input=b"#!/bin/sh\necho v1\n",
                           env=HOSTS.env(), capture_output=True, timeout=30)
        self.assertEqual(p.returncode, BF_OK, p.stdout)
        self.assertEqual(os.stat(d).st_mode & 0o777, 0o700)
        self.assertEqual(os.stat(os.path.join(home, "up")).st_mode & 0o777,
                         0o700)
        self.assertEqual(os.stat(target).st_mode & 0o777, 0o755)
        with open(target, "rb") as f:
            self.assertEqual(f.read(), b"#!/bin/sh\necho v1\n")
        ino = os.stat(target).st_ino

        # Replace: new content, new mode, new inode (renamed into place),
        # no temporary left behind; mkdir of an existing dir is fine.
        p = subprocess.run([PROBE, "bfhost1", "mkdir", d, "upload", target,
                            "644", "exec", "sh %s" % target],
                           input=b"echo v2\n", env=HOSTS.env(),
                           capture_output=True, timeout=30)
        self.assertEqual(p.returncode, BF_OK, p.stdout)
        ev = [json.loads(l) for l in p.stdout.splitlines()]
        self.assertEqual([l["text"] for l in of(ev, "line")], ["v2"])
        self.assertEqual(os.stat(target).st_mode & 0o777, 0o644)
        self.assertNotEqual(os.stat(target).st_ino, ino)
        self.assertEqual(os.listdir(d), ["agent.sh"])

    def test_upload_errors(self):
        home = HOSTS.remote_home(1)
        rc, ev = probe(["--size", "10", "bfhost1", "upload",
                        os.path.join(home, "no", "such", "dir", "f"), "644"])
        self.assertEqual(rc, BF_ERR_NOT_FOUND, ev)
        f = os.path.join(home, "plainfile")
        with open(f, "w") as fh:
            fh.write("x")
        rc, ev = probe(["bfhost1", "mkdir", os.path.join(f, "sub")])
        self.assertEqual(rc, BF_ERR_IO, ev)
        rc, ev = probe(["bfhost1", "mkdir", f])
        self.assertEqual(rc, BF_ERR_IO, ev)
        self.assertIn("not a directory", error(ev)["detail"])

    def test_large_upload(self):
        target = os.path.join(HOSTS.remote_home(1), "big.bin")
        size = 20 * 1024 * 1024
        rc, ev = probe(["--size", str(size), "bfhost1", "upload", target,
                        "600"])
        self.assertEqual(rc, BF_OK, ev)
        self.assertEqual(os.path.getsize(target), size)
        up = of(ev, "upload")[0]
        print("\n  upload %d MiB: %.0f ms (%.0f MB/s)"
              % (size >> 20, up["upload_ms"], size / up["upload_ms"] / 1e3),
              file=sys.stderr)
        os.unlink(target)


@unittest.skipUnless(PROBE and os.access(PROBE, os.X_OK), "no remote_probe")
class HungHostTest(unittest.TestCase):
    """Host 2 is frozen with SIGSTOP (its kernel still ACKs TCP)."""

    TIMEOUT_S = 2

    def tearDown(self):
        HOSTS.resume(2)

    def test_connect_to_hung_host_times_out(self):
        HOSTS.hang(2)
        t = time.monotonic()
        rc, ev = probe(["-t", str(self.TIMEOUT_S), "bfhost2", "connect"])
        took = time.monotonic() - t
        self.assertEqual(rc, BF_ERR_TIMEOUT, ev)
        self.assertGreaterEqual(took, self.TIMEOUT_S - 0.1)
        self.assertLess(took, self.TIMEOUT_S + SLACK_S)

    def test_cancel_while_connecting_to_hung_host(self):
        HOSTS.hang(2)
        rc, ev = probe(["-t", "30", "--cancel-after", "300", "bfhost2",
                        "connect"])
        self.assertEqual(rc, BF_ERR_INTERRUPTED, ev)
        self.assertLess(error(ev)["ms"], 300 + 200)

    def test_host_hanging_during_exec_times_out(self):
        rc, ev, err, hung_at = probe_then(
            ["-t", str(self.TIMEOUT_S), "bfhost2", "exec",
             "echo started; sleep 60"], "line", lambda: HOSTS.hang(2))
        self.assertEqual(rc, BF_ERR_TIMEOUT, ev)
        self.assertEqual(err["code"], BF_ERR_TIMEOUT)
        self.assertLess(err["t"] - hung_at, self.TIMEOUT_S + SLACK_S)
        # Teardown does not wait on the frozen host.
        self.assertLess(ev[-1]["t"] - err["t"], 1.0)
        print("\n  hung during exec: error %.2f s after the hang (timeout "
              "%d s)" % (err["t"] - hung_at, self.TIMEOUT_S),
              file=sys.stderr)

    def test_host_dying_during_exec_is_a_connection_error(self):
        # restart() kills sshd and the session, then starts sshd again.
        rc, ev, err, died_at = probe_then(
            ["-t", "30", "bfhost2", "exec", "echo started; sleep 60",
             "exec", "echo never"], "line", lambda: HOSTS.restart(2))
        self.assertEqual(rc, BF_ERR_CONNECT, ev)
        self.assertIn("connection lost", err["detail"])
        self.assertLess(err["t"] - died_at, 1.0)
        # The handle refuses further work instead of hanging.
        self.assertEqual([e["code"] for e in of(ev, "error")],
                         [BF_ERR_CONNECT, BF_ERR_CONNECT])
        self.assertEqual([l["text"] for l in of(ev, "line")], ["started"])

    def test_host_hanging_during_upload_times_out(self):
        d = os.path.join(HOSTS.remote_home(2), "hang")
        size = 300 * 1024 * 1024   # several seconds of SFTP writes

        def hang_mid_upload():
            time.sleep(0.3)
            HOSTS.hang(2)

        rc, ev, err, hung_at = probe_then(
            ["-t", str(self.TIMEOUT_S), "--size", str(size), "bfhost2",
             "mkdir", d, "upload", os.path.join(d, "big"), "600"],
            "mkdir", hang_mid_upload)
        self.assertEqual(rc, BF_ERR_TIMEOUT, ev)
        self.assertLess(err["t"] - hung_at, self.TIMEOUT_S + SLACK_S)
        self.assertFalse(os.path.exists(os.path.join(d, "big")))
        print("\n  hung during upload: error %.2f s after the hang"
              % (err["t"] - hung_at), file=sys.stderr)


@unittest.skipUnless(PROBE and os.access(PROBE, os.X_OK), "no remote_probe")
class MaxSessionsTest(unittest.TestCase):
    """A server that allows one channel at a time (MaxSessions 1): exec and
    SFTP alternate on one connection, each waiting for the slot the one
    before frees."""

    def test_exec_and_sftp_alternate_on_one_channel(self):
        with SSHHosts(1, sshd_extra={1: ["MaxSessions 1"]}) as h:
            d = os.path.join(h.remote_home(1), "one")
            args = ["-t", "10", "--size", "3", "bfhost1"]
            for k in range(3):
                args += ["exec", "echo %d" % k, "mkdir", os.path.join(d, str(k)),
                         "upload", os.path.join(d, str(k), "f"), "600"]
            args += ["exec", "cat %s/*/f" % d]
            rc, ev = probe(args, env=h.env())
            self.assertEqual(rc, BF_OK, ev)
            self.assertEqual([l["text"] for l in of(ev, "line")],
                             ["0", "1", "2", "abc" * 3])


@unittest.skipUnless(PROBE and os.access(PROBE, os.X_OK), "no remote_probe")
class ThreadsTest(unittest.TestCase):
    """Several hosts, one thread each (as the controller runs them)."""

    def hosts(self):
        # Host 1 twice (by alias and by address) is two sessions.
        return "bfhost1,bfhost2,root@127.0.0.1:%d" % HOSTS.ports[1]

    def tearDown(self):
        HOSTS.resume(2)

    def test_a_hung_host_does_not_hold_up_the_others(self):
        HOSTS.hang(2)
        rc, ev = probe(["-t", "2", self.hosts(), "exec", "echo ok"])
        self.assertEqual(rc, BF_ERR_TIMEOUT, ev)
        errs = of(ev, "error")
        self.assertEqual([e["host"] for e in errs], ["bfhost2"])
        exits = of(ev, "exit")
        self.assertEqual(len(exits), 2)
        self.assertLess(max(e["ms"] for e in exits), 1000)
        self.assertLess(errs[0]["ms"], 2000 + SLACK_S * 1000)

    def test_cancel_reaches_every_thread(self):
        rc, ev = probe(["-t", "10", "--cancel-after", "500", self.hosts(),
                        "exec", "sleep 30"])
        self.assertEqual(rc, BF_ERR_INTERRUPTED, ev)
        errs = of(ev, "error")
        self.assertEqual(len(errs), 3, ev)
        for e in errs:
            self.assertEqual(e["code"], BF_ERR_INTERRUPTED)
            self.assertLess(e["ms"], 500 + 200)


@unittest.skipUnless(PROBE and os.access(PROBE, os.X_OK), "no remote_probe")
class FixtureCliTest(unittest.TestCase):

    def test_start_env_stop_from_the_shell(self):
        script = os.path.join(HERE, "..", "lib", "sshhosts.py")
        d = tempfile.mkdtemp(prefix="bf-cli-")
        try:
            subprocess.run([sys.executable, script, "start", "2", d,
                            "--unknown", "2"], check=True,
                           capture_output=True, timeout=30)
            out = subprocess.run([sys.executable, script, "env", d],
                                 check=True, capture_output=True, text=True)
            self.assertIn("export HOME=%s/home" % d, out.stdout)
            env = dict(os.environ, HOME=os.path.join(d, "home"))
            env.pop("SSH_AUTH_SOCK", None)
            rc, _ = probe(["bfhost1", "exec", "true"], env=env)
            self.assertEqual(rc, BF_OK)
            rc, _ = probe(["bfhost2", "connect"], env=env)
            self.assertEqual(rc, BF_ERR_HOSTKEY_UNKNOWN)
            with open(os.path.join(d, "state.json")) as f:
                pids = [h["pid"] for h in json.load(f)["hosts"].values()]
        finally:
            subprocess.run([sys.executable, script, "stop", d],
                           capture_output=True, timeout=30)
        time.sleep(0.2)
        for pid in pids:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            self.assertEqual(state, "Z", "sshd %d still running" % pid)
        shutil.rmtree(d, ignore_errors=True)


def main():
    if not PROBE or not os.access(PROBE, os.X_OK):
        print("skip: remote_probe not built (set BF_REMOTE_PROBE)")
        return 77
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK):
        print("skip: needs root and /usr/sbin/sshd")
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
