#!/usr/bin/env python3
"""The connect path against real OpenSSH, with OpenSSH itself as the oracle
(issue 9): for each case, `ssh -G` and `ssh -o BatchMode=yes ALIAS true`
run beside `ctl resolve` and remote_probe (the SSH layer ctl run uses), and
both must agree on where they go and whether they get in.

Cases: Host pattern blocks after HostName, %-tokens, the fallback without ssh (ctl's own reader),
@revoked keys, several UserKnownHostsFile/GlobalKnownHostsFile files,
hashed known_hosts (read, and written with HashKnownHosts yes),
IdentitiesOnly with a 7-key ssh-agent, IdentityFile without the default
keys, no <key>.pub written, an ssh-agent that never answers, ProxyJump
(-F, BatchMode, unknown jump key, its reason), ConnectTimeout,
ServerAlive*, MaxStartups, and the messages for a refused port, a bad host
name and a changed key.

No assertion is on a duration: waits are bounded generously (CI load
reaches 10+) and outcomes are asserted. Exits 77 (skipped) without root,
sshd, ssh, remote_probe or ctl.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from bfpaths import find_ctl  # noqa: E402
from sshhosts import SSHHosts  # noqa: E402

BF_ERR_USAGE = 1
BF_ERR_CONNECT = 12
BF_ERR_HOSTKEY_UNKNOWN = 13
BF_ERR_HOSTKEY_CHANGED = 14
BF_ERR_AUTH = 15
BF_ERR_TIMEOUT = 16
BF_ERR_INTERRUPTED = 20

WAIT_S = 180          # bound on any one child process; never asserted


def find_probe():
    p = os.environ.get("BF_REMOTE_PROBE")
    if p:
        return p
    c = os.path.join(HERE, "..", "..", "build", "tests", "ssh",
                     "remote_probe")
    return c if os.access(c, os.X_OK) else None


PROBE = find_probe()
CTL = find_ctl()


def block(alias, port, key, kh, extra=""):
    return ("Host %s\n  HostName 127.0.0.1\n  Port %d\n  User root\n"
            "  IdentityFile %s\n  IdentitiesOnly yes\n"
            "  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n"
            "  BatchMode yes\n%s\n" % (alias, port, key, kh, extra))


class Base(unittest.TestCase):
    N = 2
    SSHD_EXTRA = ""

    @classmethod
    def setUpClass(cls):
        cls.hosts = SSHHosts(cls.N, sshd_extra=cls.SSHD_EXTRA).start()

    @classmethod
    def tearDownClass(cls):
        cls.hosts.stop()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bf-conncfg-")
        self.hosts.write_known_hosts(unknown=())

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, text, mode=0o600):
        p = self.path(name)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)
        return p

    def env(self, **kw):
        e = self.hosts.env()
        e.update(kw)
        return e

    def probe(self, args, env=None, timeout=WAIT_S):
        """remote_probe ARGS -> (exit code, events)."""
        r = subprocess.run([PROBE] + args, capture_output=True, text=True,
                           env=env or self.env(), timeout=timeout,
                           stdin=subprocess.DEVNULL)
        ev = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        return r.returncode, ev, r.stderr

    def error(self, events):
        errs = [e for e in events if e["event"] == "error"]
        return errs[0] if errs else None

    def ssh(self, cfg, alias, *opts, env=None):
        """The oracle: ssh -F cfg ALIAS true, non-interactively."""
        return subprocess.run(["ssh", "-F", cfg, "-o", "BatchMode=yes"] +
                              list(opts) + [alias, "true"],
                              capture_output=True, text=True,
                              env=env or self.env(), timeout=WAIT_S,
                              stdin=subprocess.DEVNULL)

    def ssh_g(self, cfg, alias):
        out = subprocess.run(["ssh", "-G", "-F", cfg, alias],
                             capture_output=True, text=True, check=True,
                             env=self.env(), timeout=WAIT_S).stdout
        d = {}
        for line in out.splitlines():
            k, _, v = line.partition(" ")
            d.setdefault(k, []).append(v)
        return d

    def resolve(self, cfg, alias, env=None):
        r = subprocess.run([CTL, "resolve", "-F", cfg, alias],
                           capture_output=True, text=True,
                           env=env or self.env(), timeout=WAIT_S)
        d = {}
        for line in r.stdout.splitlines():
            k, _, v = line.partition(" ")
            d[k] = v
        return r.returncode, d, r.stderr

    def cfg(self, text):
        return self.write("config", text)

    def read(self, path):
        with open(path) as f:
            return f.read()


class ResolveTest(Base):
    def test_pattern_block_after_hostname(self):
        """A `Host pat*` block after the one that sets HostName applies
        (OpenSSH matches it against the alias), so the port comes from it."""
        h = self.hosts
        cfg = self.cfg("Host pat1\n  HostName 127.0.0.1\n\n"
                       "Host pat*\n  Port %d\n  User root\n"
                       "  IdentityFile %s\n  IdentitiesOnly yes\n"
                       "  UserKnownHostsFile %s\n  BatchMode yes\n"
                       % (h.ports[1], h.user_key, h.known_hosts))
        g = self.ssh_g(cfg, "pat1")
        rc, d, err = self.resolve(cfg, "pat1")
        self.assertEqual(rc, 0, err)
        self.assertEqual(d["port"], g["port"][0])
        self.assertEqual(d["port"], str(h.ports[1]))
        self.assertEqual(d["hostname"], "127.0.0.1")
        self.assertTrue(d["resolver"].startswith("ssh -G"), d)
        self.assertEqual(self.ssh(cfg, "pat1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "pat1", "exec", "true"])
        self.assertEqual(code, 0, ev)

    def test_fields_match_ssh_g(self):
        h = self.hosts
        cfg = self.cfg(
            "Host tok\n  HostName 127.0.0.1\n  Port %d\n  User root\n"
            "  IdentityFile %%d/.ssh/k_%%h_%%p_%%r\n  IdentityFile %s\n"
            "  UserKnownHostsFile %s %s\n  ConnectTimeout 7\n"
            "  ServerAliveInterval 5\n  ServerAliveCountMax 4\n"
            "  ProxyJump bfhost1\n"
            % (h.ports[2], h.user_key, self.path("a"), self.path("b")))
        g = self.ssh_g(cfg, "tok")
        rc, d, err = self.resolve(cfg, "tok")
        self.assertEqual(rc, 0, err)
        for k in ("user", "hostname", "port", "connecttimeout",
                  "serveraliveinterval", "serveralivecountmax",
                  "proxyjump"):
            self.assertEqual(d[k], g[k][0], k)
        self.assertEqual(d["userknownhostsfile"],
                         "%s %s" % (self.path("a"), self.path("b")))
        self.assertEqual(d["identityfile"].split(),
                         ["%s/.ssh/k_127.0.0.1_%d_root" % (h.home, h.ports[2]),
                          h.user_key])

    def test_fallback_is_reported(self):
        rc, d, err = self.resolve(self.hosts.ssh_config, "bfhost1",
                                  env=self.env(BF_SSH_CLIENT="none"))
        self.assertEqual(rc, 0, err)
        self.assertIn("no OpenSSH client", d["resolver"])
        self.assertEqual(d["port"], str(self.hosts.ports[1]))

    def test_default_keys_only_without_identityfile(self):
        cfg = self.cfg("Host plain\n  HostName 127.0.0.1\n")
        g = self.ssh_g(cfg, "plain")
        rc, d, err = self.resolve(cfg, "plain")
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(d["identityfile"].split()),
                         len(g["identityfile"]))


class KnownHostsTest(Base):
    def kh_line(self, i, name=None):
        kind, blob = self.hosts.public_key(i)
        return "%s %s %s\n" % (name or "[127.0.0.1]:%d" % self.hosts.ports[i],
                               kind, blob)

    def setup_kh(self, files_text, extra=""):
        """Config for host 1 whose UserKnownHostsFile is the given files."""
        paths = []
        for name, text in files_text:
            paths.append(self.write(name, text))
        return self.cfg(block("h1", self.hosts.ports[1], self.hosts.user_key,
                              " ".join(paths), extra))

    def test_revoked_key_refused(self):
        cfg = self.setup_kh([("kh", "@revoked " + self.kh_line(1) +
                              self.kh_line(1))])
        self.assertNotEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, BF_ERR_HOSTKEY_CHANGED, ev)
        self.assertIn("revoked", self.error(ev)["detail"])

    def test_revoked_only_not_added(self):
        cfg = self.setup_kh([("kh", "@revoked " + self.kh_line(1))])
        before = self.read(self.path("kh"))
        code, ev, _ = self.probe(["--accept-new", "-F", cfg, "h1",
                                  "connect"])
        self.assertEqual(code, BF_ERR_HOSTKEY_CHANGED, ev)
        self.assertEqual(self.read(self.path("kh")), before)

    def test_second_user_file_is_read(self):
        cfg = self.setup_kh([("kh_a", self.kh_line(2)),
                             ("kh_b", self.kh_line(1))])
        self.assertEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, 0, ev)

    def test_global_file_is_read(self):
        g = self.write("global", self.kh_line(1))
        cfg = self.setup_kh([("kh", "")],
                            "  GlobalKnownHostsFile %s\n" % g)
        self.assertEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, 0, ev)

    def test_hashed_entry_is_read(self):
        cfg = self.setup_kh([("kh", self.kh_line(1))])
        subprocess.run(["ssh-keygen", "-q", "-H", "-f", self.path("kh")],
                       check=True, capture_output=True)
        self.assertTrue(self.read(self.path("kh")).startswith("|1|"))
        self.assertEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, 0, ev)

    def test_added_key_hashed_with_notice(self):
        cfg = self.setup_kh([("kh", "")], "  HashKnownHosts yes\n")
        code, ev, err = self.probe(["--accept-new", "-F", cfg, "h1",
                                    "connect"])
        self.assertEqual(code, 0, ev)
        text = self.read(self.path("kh"))
        self.assertTrue(text.startswith("|1|"), text)
        self.assertIn("hashed", err)
        name = "[127.0.0.1]:%d" % self.hosts.ports[1]
        found = subprocess.run(["ssh-keygen", "-F", name, "-f",
                                self.path("kh")], capture_output=True,
                               text=True)
        self.assertEqual(found.returncode, 0, found.stderr)
        self.assertEqual(self.ssh(cfg, "h1").returncode, 0)

    def test_changed_key_hint(self):
        kind, blob = self.hosts.public_key(2)
        name = "[127.0.0.1]:%d" % self.hosts.ports[1]
        cfg = self.setup_kh([("kh", "%s %s %s\n" % (name, kind, blob))])
        self.assertNotEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, BF_ERR_HOSTKEY_CHANGED, ev)
        self.assertIn("ssh-keygen -f '%s' -R '%s'" % (self.path("kh"), name),
                      self.error(ev)["detail"])


class AuthTest(Base):
    def test_no_pub_file_written(self):
        key = self.path("idkey")
        shutil.copy(self.hosts.user_key, key)
        os.chmod(key, 0o600)
        cfg = self.cfg(block("h1", self.hosts.ports[1], key,
                             self.hosts.known_hosts))
        before = sorted(os.listdir(self.hosts.ssh_dir))
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, 0, ev)
        self.assertFalse(os.path.exists(key + ".pub"))
        self.assertEqual(sorted(os.listdir(self.hosts.ssh_dir)), before)

    def test_identityfile_replaces_default_keys(self):
        """The working key sits at ~/.ssh/id_ed25519, IdentityFile names
        another: OpenSSH does not fall back to the default, nor may ctl."""
        wrong = self.path("wrong")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                        wrong], check=True)
        cfg = self.cfg(block("h1", self.hosts.ports[1], wrong,
                             self.hosts.known_hosts).replace(
                                 "IdentitiesOnly yes", "IdentitiesOnly no"))
        self.assertNotEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, BF_ERR_AUTH, ev)

    def agent_with_seven_keys(self):
        """An ssh-agent of this test's own (its socket in the test's
        directory) holding 6 unrelated keys, then the user key."""
        sock = self.path("agent.sock")
        out = subprocess.run(["ssh-agent", "-s", "-a", sock], check=True,
                             capture_output=True, text=True).stdout
        pid = int(out.split("SSH_AGENT_PID=")[1].split(";")[0])
        self.addCleanup(os.kill, pid, 15)
        e = self.env(SSH_AUTH_SOCK=sock)
        for i in range(6):
            k = self.path("junk%d" % i)
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                            "-f", k], check=True)
            subprocess.run(["ssh-add", "-q", k], env=e, check=True,
                           capture_output=True)
        subprocess.run(["ssh-add", "-q", self.hosts.user_key], env=e,
                       check=True, capture_output=True)
        return e

    def test_identities_only_with_full_agent(self):
        e = self.agent_with_seven_keys()
        cfg = self.cfg(block("h1", self.hosts.ports[1], self.hosts.user_key,
                             self.hosts.known_hosts))
        self.assertEqual(self.ssh(cfg, "h1", env=e).returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"], env=e)
        self.assertEqual(code, 0, ev)

    def test_full_agent_identityfile_first(self):
        """IdentitiesOnly no, IdentityFile the right key: OpenSSH offers
        it before the agent's other keys, so sshd's MaxAuthTries (6) is
        not reached; nor may ctl reach it."""
        e = self.agent_with_seven_keys()
        cfg = self.cfg(block("h1", self.hosts.ports[1], self.hosts.user_key,
                             self.hosts.known_hosts).replace(
                                 "IdentitiesOnly yes", "IdentitiesOnly no"))
        self.assertEqual(self.ssh(cfg, "h1", env=e).returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"], env=e)
        self.assertEqual(code, 0, ev)

    def test_full_agent_says_maxauthtries(self):
        """No usable IdentityFile: the agent's 6 wrong keys come first and
        sshd disconnects (MaxAuthTries); the message says so and what to
        set."""
        e = self.agent_with_seven_keys()
        cfg = self.cfg(block("h1", self.hosts.ports[1], self.path("none"),
                             self.hosts.known_hosts).replace(
                                 "IdentitiesOnly yes", "IdentitiesOnly no"))
        o = self.ssh(cfg, "h1", env=e)
        self.assertNotEqual(o.returncode, 0)
        self.assertIn("Too many authentication failures", o.stderr)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"], env=e)
        self.assertEqual(code, BF_ERR_AUTH, ev)
        self.assertIn("MaxAuthTries", self.error(ev)["detail"])
        self.assertIn("IdentitiesOnly", self.error(ev)["detail"])

    def silent_agent(self):
        sock = self.path("silent.sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(sock)
        s.listen(8)
        self.addCleanup(s.close)
        held = []

        def accept():
            while True:
                try:
                    c, _ = s.accept()
                except OSError:
                    return
                held.append(c)   # never answered
        threading.Thread(target=accept, daemon=True).start()
        return sock

    def test_silent_agent_bounded_by_timeout(self):
        e = self.env(SSH_AUTH_SOCK=self.silent_agent())
        cfg = self.cfg(block("h1", self.hosts.ports[1], self.path("none"),
                             self.hosts.known_hosts).replace(
                                 "IdentitiesOnly yes", "IdentitiesOnly no"))
        code, ev, _ = self.probe(["-t", "3", "-F", cfg, "h1", "connect"],
                                 env=e)
        self.assertEqual(code, BF_ERR_TIMEOUT, ev)
        self.assertIn("ssh-agent", self.error(ev)["detail"])

    def test_silent_agent_cancelled(self):
        e = self.env(SSH_AUTH_SOCK=self.silent_agent())
        cfg = self.cfg(block("h1", self.hosts.ports[1], self.path("none"),
                             self.hosts.known_hosts).replace(
                                 "IdentitiesOnly yes", "IdentitiesOnly no"))
        code, ev, _ = self.probe(["-t", "3000", "--cancel-after", "1500",
                                  "-F", cfg, "h1", "connect"], env=e)
        self.assertEqual(code, BF_ERR_INTERRUPTED, ev)


class ProxyJumpTest(Base):
    def jump_cfg(self, kh):
        h = self.hosts
        return self.cfg(block("jump", h.ports[1], h.user_key, kh) +
                        block("target", h.ports[2], h.user_key, kh,
                              "  ProxyJump jump\n"))

    def test_jump_through_config_file(self):
        """The jump alias exists only in the -F file: the jump ssh must
        get -F too."""
        cfg = self.jump_cfg(self.hosts.known_hosts)
        self.assertEqual(self.ssh(cfg, "target").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "target", "exec", "true"])
        self.assertEqual(code, 0, ev)

    def test_unknown_jump_key_refused_with_reason(self):
        kh = self.write("kh", "[127.0.0.1]:%d %s %s\n" % (
            (self.hosts.ports[2],) + self.hosts.public_key(2)))
        cfg = self.jump_cfg(kh)
        self.assertNotEqual(self.ssh(cfg, "target").returncode, 0)
        code, ev, _ = self.probe(["-t", "120", "-F", cfg, "target",
                                  "connect"])
        self.assertEqual(code, BF_ERR_CONNECT, ev)
        self.assertIn("Host key verification failed",
                      self.error(ev)["detail"])
        code, ev, _ = self.probe(["-t", "120", "--accept-new", "-F", cfg,
                                  "target",
                                  "connect"])
        self.assertEqual(code, 0, ev)
        self.assertIn("[127.0.0.1]:%d" % self.hosts.ports[1],
                      self.read(kh))


class TimeoutTest(Base):
    def test_connect_timeout_from_config(self):
        """A port that completes TCP but never speaks SSH: ConnectTimeout 2
        ends the attempt although -t allows an hour."""
        ls = socket.socket()
        ls.bind(("127.0.0.1", 0))
        ls.listen(4)
        self.addCleanup(ls.close)
        cfg = self.cfg(block("mute", ls.getsockname()[1],
                             self.hosts.user_key, self.hosts.known_hosts,
                             "  ConnectTimeout 2\n"))
        code, ev, _ = self.probe(["-t", "3600", "-F", cfg, "mute",
                                  "connect"])
        self.assertEqual(code, BF_ERR_TIMEOUT, ev)
        self.assertIn("ConnectTimeout", self.error(ev)["detail"])

    def test_server_alive_ends_exec_on_hung_host(self):
        cfg = self.cfg(block("h2", self.hosts.ports[2], self.hosts.user_key,
                             self.hosts.known_hosts,
                             "  ServerAliveInterval 1\n"
                             "  ServerAliveCountMax 2\n"))
        p = subprocess.Popen([PROBE, "-t", "3600", "-F", cfg, "h2", "exec",
                              "echo go; sleep 3000"], env=self.env(),
                             stdout=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL)
        try:
            first = json.loads(p.stdout.readline())
            self.assertEqual(first["event"], "connect", first)
            line = json.loads(p.stdout.readline())
            self.assertEqual(line.get("text"), "go", line)
            self.hosts.hang(2)
            out, _ = p.communicate(timeout=WAIT_S)
        finally:
            self.hosts.resume(2)
            if p.poll() is None:
                p.kill()
                p.wait()
        ev = [json.loads(l) for l in out.splitlines() if l.strip()]
        self.assertEqual(p.returncode, BF_ERR_TIMEOUT, ev)


class MessageTest(Base):
    def test_refused_names_address_and_port(self):
        port = self.hosts.refusing_port()
        cfg = self.cfg(block("closed", port, self.hosts.user_key,
                             self.hosts.known_hosts))
        code, ev, _ = self.probe(["-F", cfg, "closed", "connect"])
        self.assertEqual(code, BF_ERR_CONNECT, ev)
        self.assertIn("127.0.0.1:%d" % port, self.error(ev)["detail"])
        self.assertIn("refused", self.error(ev)["detail"])

    def test_invalid_host_name(self):
        code, ev, _ = self.probe(["bad host!", "connect"])
        self.assertEqual(code, BF_ERR_USAGE, ev)
        self.assertIn("invalid host name", self.error(ev)["detail"])
        r = subprocess.run([CTL, "resolve", "bad host!"], capture_output=True,
                           text=True, env=self.env(), timeout=WAIT_S)
        self.assertEqual(r.returncode, 2)
        self.assertIn("invalid host name", r.stderr)

    def test_host_name_label_over_63_characters(self):
        # ssh takes a label over 63 characters (getaddrinfo decides, and
        # DNS has none: RFC 1035); libssh refuses it without a message,
        # so ctl connects it itself and says it does not resolve.
        name = "a" * 64 + ".invalid"
        o = subprocess.run(["ssh", "-F", "/dev/null", "-o", "BatchMode=yes",
                            name, "true"], capture_output=True, text=True,
                           env=self.env(), timeout=WAIT_S)
        self.assertIn("Could not resolve hostname", o.stderr)
        code, ev, _ = self.probe([name, "connect"])
        self.assertEqual(code, BF_ERR_CONNECT, ev)
        self.assertIn("does not resolve", self.error(ev)["detail"])

    def test_dropped_before_kex_names_maxstartups(self):
        """What a client beyond sshd's MaxStartups sees: the connection
        closed before the banner, every time. Retried, then named."""
        ls = socket.socket()
        ls.bind(("127.0.0.1", 0))
        ls.listen(16)

        def drop():
            while True:
                try:
                    c, _ = ls.accept()
                except OSError:
                    return
                c.close()
        threading.Thread(target=drop, daemon=True).start()
        self.addCleanup(ls.close)
        cfg = self.cfg(block("full", ls.getsockname()[1],
                             self.hosts.user_key, self.hosts.known_hosts))
        code, ev, _ = self.probe(["-t", "3", "-F", cfg, "full", "connect"])
        self.assertIn(code, (BF_ERR_CONNECT, BF_ERR_TIMEOUT), ev)
        d = self.error(ev)["detail"]
        self.assertIn("MaxStartups", d)
        self.assertIn("--jobs", d)


class MaxStartupsTest(Base):
    """16 aliases behind one sshd that admits one handshake at a time."""
    N = 1
    SSHD_EXTRA = "MaxStartups 1:100:1\n"

    def test_sixteen_hosts_one_sshd(self):
        h = self.hosts
        cfg = self.cfg("".join(block("m%d" % i, h.ports[1], h.user_key,
                                     h.known_hosts) for i in range(16)))
        code, ev, _ = self.probe(["-t", "120", "-F", cfg,
                                  ",".join("m%d" % i for i in range(16)),
                                  "exec", "true"])
        self.assertEqual(code, 0, [e for e in ev if e["event"] == "error"])
        self.assertEqual(sum(1 for e in ev if e["event"] == "exit"), 16)


def main():
    if not PROBE or not os.access(PROBE, os.X_OK) or not CTL:
        print("skip: remote_probe or ctl not built")
        return 77
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK) or \
            not shutil.which("ssh"):
        print("skip: needs root, /usr/sbin/sshd and ssh")
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
