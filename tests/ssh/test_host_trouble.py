#!/usr/bin/env python3
"""Hosts that let ctl connect and then break a run (issue 28), against real
OpenSSH servers on loopback: ctl doctor must say what ctl run will meet,
with the same words, and neither may leave a reason empty.

- a login shell whose startup file prints to stdout (SFTP cannot work):
  doctor's ready is no and run fails before uploading, both naming the
  cause as OpenSSH's sftp does ("produces output for non-interactive
  sessions");
- ForceCommand internal-sftp and a nologin ForceCommand (what a nologin
  shell runs): run, doctor, where and clean show what the host printed
  ("This service allows sftp connections only.", "This account is
  currently not available.");
- a read-only HOME and a HOME mounted noexec, each in the sshd's private
  mount namespace (skipped, saying why, where such a mount cannot be
  made): doctor and run name "Read-only file system" and "noexec";
- an inventory workdir on a shared sticky directory (mode 1777): run
  keeps its mode and puts its files in the login's private
  benchfleet-<uid> in it, doctor says so, clean removes that private
  directory only; a workdir others can write without the sticky bit is
  refused, its mode unchanged.
One set of sshd hosts for the whole file.
"""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import test_ctl_run as tcr  # noqa: E402
import keeplogs  # noqa: E402
from sshhosts import SSHHosts, _can_unshare  # noqa: E402

PLAIN, CHATTY, SFTPONLY, NOLOGIN, RO_HOME, NOEXEC_HOME = 1, 2, 3, 4, 5, 6
SFTP_ONLY_MSG = "This service allows sftp connections only."
NOLOGIN_MSG = "This account is currently not available."
CHATTY_MSG = "hello from bashrc"


def probe_mount(opt):
    """Whether a bind mount remounted with opt ("ro", "noexec") can be made
    in a private mount namespace here and does what it says; else why
    not. CI may be a chroot where / is no mount point."""
    d = tempfile.mkdtemp(prefix="bf-mntprobe-")
    try:
        check = ("! touch \"$0/x\" 2>/dev/null" if opt == "ro" else
                 "cp /bin/true \"$0/t\" && ! \"$0/t\" 2>/dev/null")
        r = subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c",
             "mount --bind \"$0\" \"$0\" && mount -o remount,bind,%s "
             "\"$0\" \"$0\" && %s" % (opt, check), d],
            capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            return "a %s bind mount in a private mount namespace cannot " \
                   "be made here: %s" % (opt, (r.stderr.strip() or
                                               "exit %d" % r.returncode))
        return None
    except (OSError, subprocess.SubprocessError) as e:
        return "unshare -m failed: %s" % e
    finally:
        shutil.rmtree(d, ignore_errors=True)


class HostTrouble(keeplogs.KeepOnFailure, unittest.TestCase):
    hosts = None
    why_no_ro = why_no_noexec = None

    @classmethod
    def setUpClass(cls):
        if not _can_unshare():
            cls.why_no_ro = cls.why_no_noexec = \
                "no private mount namespace (unshare -m) here"
        else:
            cls.why_no_ro = probe_mount("ro")
            cls.why_no_noexec = probe_mount("noexec")
        cls.hosts = SSHHosts(6, sshd_extra={
            SFTPONLY: ["ForceCommand internal-sftp"],
            NOLOGIN: ["ForceCommand /usr/sbin/nologin"],
        })
        cls.hosts.root = tempfile.mkdtemp(prefix="bf-sshhosts-")
        # Each mount is made in the host's own mount namespace, before its
        # sshd starts: this machine's view of the HOME stays writable.
        for i, why, opt in ((RO_HOME, cls.why_no_ro, "ro"),
                            (NOEXEC_HOME, cls.why_no_noexec, "noexec")):
            if why is None:
                h = cls.hosts.remote_home(i)
                cls.hosts.ns_setup[i] = (
                    "mkdir -p '%s' && mount --bind '%s' '%s' && "
                    "mount -o remount,bind,%s '%s' '%s'"
                    % (h, h, h, opt, h, h))
        # root's login shell is bash, which reads ~/.bashrc for a command
        # sent over ssh (SSH_SOURCE_BASHRC, as Debian builds it).
        chatty = cls.hosts.remote_home(CHATTY)
        os.makedirs(chatty, exist_ok=True)
        with open(os.path.join(chatty, ".bashrc"), "w") as f:
            f.write("echo '%s'\n" % CHATTY_MSG)
        cls.hosts._own_root = True  # removed on stop(), as its own would be
        cls.hosts.start()

    @classmethod
    def tearDownClass(cls):
        cls.hosts.stop()

    def setUp(self):
        self.tmp = self.keep_dir(tempfile.mkdtemp(prefix="bf-trouble-"))
        self.inv = os.path.join(self.tmp, "hosts")
        self.fake = os.path.join(self.tmp, "bin")
        tcr.copy_cmake(self.fake)
        self.shared = os.path.join(self.tmp, "shared")
        os.mkdir(self.shared)
        os.chmod(self.shared, 0o1777)
        self.open_dir = os.path.join(self.tmp, "open")
        os.mkdir(self.open_dir)
        os.chmod(self.open_dir, 0o777)
        tcr.write_inventory(self.inv, {
            "shared": {"ssh": self.hosts.alias(PLAIN),
                       "workdir": self.shared,
                       "path_prepend": [self.fake]},
            "open": {"ssh": self.hosts.alias(PLAIN),
                     "workdir": self.open_dir,
                     "path_prepend": [self.fake]}})

    def ctl(self, *args):
        env = self.hosts.env()
        env.pop("BENCHFLEET_HOSTS_DIR", None)
        return subprocess.run([tcr.CTL] + list(args) +
                              ["--hosts-dir", self.inv], cwd=self.tmp,
                              env=env, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)

    def run_reason(self, host):
        """ctl run on host: (exit status, the host's reason in run.json)."""
        res = os.path.join(self.tmp, "res-" + host)
        p = self.ctl("run", host, "--no-tui", "--results", res, *tcr.TINY)
        runs = os.listdir(res)
        with open(os.path.join(res, runs[0], "run.json")) as f:
            h = json.load(f)["hosts"][0]
        return p, h.get("reason") or ""

    # -- a login shell that prints ---------------------------------------
    def test_chatty_shell_named_by_doctor_and_run(self):
        h = self.hosts.alias(CHATTY)
        probe = subprocess.run(
            ["ssh", "-F", self.hosts.ssh_config, h, "true"],
            env=self.hosts.env(), capture_output=True, text=True, timeout=60)
        if CHATTY_MSG not in probe.stdout:
            self.skipTest("root's login shell does not read ~/.bashrc for "
                          "ssh commands here")
        cause = "the remote shell produces output for non-interactive " \
                "sessions (it printed \"%s\"" % CHATTY_MSG
        d = self.ctl("doctor", h)
        self.assertEqual(d.returncode, 3, d.stdout + d.stderr)
        self.assertIn("  ready       no: " + cause, d.stdout)
        p, reason = self.run_reason(h)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn(cause, reason)
        self.assertNotIn("sftp packet", reason)
        # Nothing was uploaded: run stopped at the preflight.
        cache = tcr.cache_root(self.hosts, CHATTY)
        self.assertEqual([d for d in os.listdir(cache) if ".tmp-" in d]
                         if os.path.isdir(cache) else [], [])

    def test_shell_that_prints_for_sftp_only_is_named(self):
        """A startup file that prints only for the SFTP subsystem passes
        the preflight; the upload's failure then names the cause."""
        h = self.hosts.alias(CHATTY)
        rc = os.path.join(self.hosts.remote_home(CHATTY), ".bashrc")
        with open(rc) as f:
            keep = f.read()
        def restore():
            with open(rc, "w") as f:
                f.write(keep)
        self.addCleanup(restore)
        with open(rc, "w") as f:
            f.write('case "$BASH_EXECUTION_STRING" in *sftp*) '
                    'echo \'%s\';; esac\n' % CHATTY_MSG)
        tcr.write_inventory(self.inv, {
            "chatty": {"ssh": h, "path_prepend": [self.fake]}})
        p, reason = self.run_reason("chatty")
        if "Invalid sftp packet size" not in reason:
            self.skipTest("root's login shell does not read ~/.bashrc for "
                          "the sftp subsystem here: " + reason)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("(the remote shell produces output for "
                      "non-interactive sessions: make its startup files "
                      "print nothing)", reason)

    # -- ForceCommand internal-sftp, nologin -----------------------------
    def check_said(self, i, msg):
        h = self.hosts.alias(i)
        want = "preflight failed (exit 1): " + msg
        p, reason = self.run_reason(h)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn(want, reason)
        d = self.ctl("doctor", h)
        self.assertEqual(d.returncode, 3, d.stdout + d.stderr)
        self.assertIn("  preflight failed: " + want, d.stdout)
        w = self.ctl("where", h)
        self.assertNotEqual(w.returncode, 0, w.stdout + w.stderr)
        self.assertIn(want, w.stdout + w.stderr)
        c = self.ctl("clean", h)
        self.assertEqual(c.returncode, 3, c.stdout + c.stderr)
        self.assertIn("(exit 1): " + msg, c.stdout)

    def test_forcecommand_internal_sftp_says_why(self):
        self.check_said(SFTPONLY, SFTP_ONLY_MSG)

    def test_nologin_says_why(self):
        self.check_said(NOLOGIN, NOLOGIN_MSG)

    # -- read-only and noexec HOME ---------------------------------------
    def test_read_only_home(self):
        if self.why_no_ro:
            self.skipTest(self.why_no_ro)
        h = self.hosts.alias(RO_HOME)
        d = self.ctl("doctor", h)
        self.assertEqual(d.returncode, 3, d.stdout + d.stderr)
        self.assertRegex(d.stdout, r"(?m)^  ready +no: cannot write where "
                         r"the workdir ~/\.cache/benchfleet goes \(.*"
                         r"Read-only file system\)")
        p, reason = self.run_reason(h)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("cannot write where the workdir ~/.cache/benchfleet "
                      "goes", reason)
        self.assertIn("Read-only file system", reason)

    def test_noexec_home(self):
        if self.why_no_noexec:
            self.skipTest(self.why_no_noexec)
        h = self.hosts.alias(NOEXEC_HOME)
        home = self.hosts.remote_home(NOEXEC_HOME)
        d = self.ctl("doctor", h)
        self.assertEqual(d.returncode, 3, d.stdout + d.stderr)
        self.assertIn("  ready       no: programs cannot be run from %s"
                      % home, d.stdout)
        # Doctor's probe is gone again, and it made no workdir.
        self.assertEqual(os.listdir(home), [])
        p, reason = self.run_reason(h)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("programs cannot be run from %s/.cache/benchfleet"
                      % home, reason)
        self.assertIn("noexec", reason)
        if shutil.which("findmnt"):
            self.assertIn("its file system is mounted noexec", reason)

    # -- a workdir on a shared sticky directory --------------------------
    def test_shared_workdir_keeps_its_mode(self):
        uid = os.getuid()
        private = os.path.join(self.shared, "benchfleet-%d" % uid)
        d = self.ctl("doctor", "shared")
        self.assertEqual(d.returncode, 0, d.stdout + d.stderr)
        self.assertIn("  workdir     %s: not there yet (ctl run makes it, "
                      "0700) (%s is shared, so ctl uses this login's "
                      "private directory in it)" % (private, self.shared),
                      d.stdout)
        p, reason = self.run_reason("shared")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr + reason)
        self.assertEqual(stat.S_IMODE(os.stat(self.shared).st_mode), 0o1777)
        self.assertEqual(stat.S_IMODE(os.stat(private).st_mode), 0o700)
        self.assertEqual(os.listdir(self.shared), ["benchfleet-%d" % uid])
        builds = [e for e in os.listdir(private)
                  if e.startswith(tcr.HASH + "-")]
        self.assertEqual(len(builds), 1, os.listdir(private))
        # Another user's file in the shared directory is no business of
        # clean's; the private directory goes, the shared one stays.
        other = os.path.join(self.shared, "%s-%s" % (tcr.HASH, "0" * 16))
        os.mkdir(other)
        c = self.ctl("clean", "shared")
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.assertIn("removing %s/%s" % (private, builds[0]), c.stdout)
        self.assertEqual(os.listdir(self.shared), [os.path.basename(other)])
        self.assertEqual(stat.S_IMODE(os.stat(self.shared).st_mode), 0o1777)

    def test_shared_workdir_squatted_is_refused(self):
        private = os.path.join(self.shared, "benchfleet-%d" % os.getuid())
        os.mkdir(private)
        os.chown(private, 65534, 65534)
        os.chmod(private, 0o755)
        p, reason = self.run_reason("shared")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("private directory benchfleet-%d in it is not safe "
                      "(mode and owner uid: drwxr-xr-x 65534" % os.getuid(),
                      reason)
        self.assertEqual(stat.S_IMODE(os.stat(private).st_mode), 0o755)
        self.assertEqual(os.stat(private).st_uid, 65534)

    def test_open_workdir_refused_never_chmodded(self):
        d = self.ctl("doctor", "open")
        self.assertEqual(d.returncode, 3, d.stdout + d.stderr)
        self.assertIn("  ready       no: workdir %s is writable by group or "
                      "others" % self.open_dir, d.stdout)
        p, reason = self.run_reason("open")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("workdir %s is writable by group or others, or is no "
                      "directory (mode and owner uid: drwxrwxrwx 0)"
                      % self.open_dir, reason)
        self.assertIn("ctl changes no mode of a directory it did not make",
                      reason)
        self.assertEqual(stat.S_IMODE(os.stat(self.open_dir).st_mode), 0o777)
        self.assertEqual(os.listdir(self.open_dir), [])


class ConfigWords(unittest.TestCase):
    """ssh_config trouble, before any host is contacted: ssh's own words
    kept whole, RemoteCommand refused as ssh refuses it beside a
    command, ctl resolve's -F anywhere and each file read once."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bf-sshcfg-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(os.path.join(self.home, ".ssh"))

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def ctl(self, *args):
        env = dict(os.environ, HOME=self.home)
        env.pop("BENCHFLEET_HOSTS_DIR", None)
        return subprocess.run([tcr.CTL] + list(args), cwd=self.tmp,
                              env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)

    def test_bad_config_keeps_the_line_number(self):
        bad = self.write("bad.conf", "Host b\n  Port notaport\n")
        for cmd in (["resolve", "-F", bad, "b"],
                    ["doctor", "b", "-F", bad]):
            p = self.ctl(*cmd)
            self.assertNotEqual(p.returncode, 0, p.stdout + p.stderr)
            out = p.stdout + p.stderr
            self.assertIn("%s line 2: Bad port 'notaport'." % bad, out)
            self.assertIn("%s: terminating, 1 bad configuration options"
                          % bad, out)

    def test_remote_command_refused(self):
        cfg = self.write("rc.conf", "Host rc\n  HostName 127.0.0.1\n"
                         "  RemoteCommand echo hi\n")
        p = self.ctl("doctor", "rc", "-F", cfg)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("rc: cannot connect: host 'rc': its ssh_config sets "
                      "RemoteCommand (echo hi)", p.stdout)
        self.assertIn("Cannot execute command-line and remote command.",
                      p.stdout)

    def test_resolve_takes_F_after_the_host_and_lists_files_once(self):
        cfg = self.write("m.conf", "Host m\n  Port 2222\n"
                         "Match final\n  User someone\n")
        p = self.ctl("resolve", "m", "-F", cfg)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout.count("\nhost "), 0, p.stdout)
        self.assertRegex(p.stdout, r"(?m)^port 2222$")
        self.assertRegex(p.stdout, r"(?m)^user someone$")
        self.assertRegex(p.stdout, r"(?m)^configfiles %s$" % re.escape(cfg))


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
