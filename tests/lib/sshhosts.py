#!/usr/bin/env python3
"""Real OpenSSH servers on 127.0.0.1, one per simulated benchfleet host.

Each host i (numbered 1..N, alias "bfhost<i>") is an sshd with its own
ed25519 host key, port and remote HOME, started in a private mount namespace
of its own (so /run/sshd exists there without touching the machine's /run,
and every process the host ever starts, even a daemonised one, can be found
again by that namespace and killed). The client side is a throwaway HOME with
.ssh/config (one complete Host block per alias), a user key, and a
known_hosts that lists every host except those asked to be left out.

From Python:

    from sshhosts import SSHHosts
    with SSHHosts(4, unknown={3}) as hosts:
        subprocess.run([...], env=hosts.env())     # HOME points at the fixture
        hosts.hang(2); ...; hosts.resume(2)
    # host 2 allows one channel at a time and shares host 1's HOME:
    SSHHosts(2, sshd_extra={2: ["MaxSessions 1"]}, share_home={2: 1})
    # every session also gets SLURM_CONF (a login host of a test cluster):
    SSHHosts(1, session_env={"SLURM_CONF": "/tmp/x/slurm.conf"})

From the shell (state kept in DIR/state.json, so a later call can act on the
hosts a previous one started):

    python3 tests/lib/sshhosts.py start 32 DIR [--unknown 3,7]
    eval "$(python3 tests/lib/sshhosts.py env DIR)"   # export HOME=...
    python3 tests/lib/sshhosts.py hang DIR 2 | resume DIR 2 | change-key DIR 2
    python3 tests/lib/sshhosts.py stop DIR

Python 3 standard library only; needs root, /usr/sbin/sshd, ssh-keygen and
(preferably) unshare. Only 127.0.0.1 is ever used.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SSHD = "/usr/sbin/sshd"
SFTP_SERVER_CANDIDATES = ("/usr/lib/openssh/sftp-server",
                          "/usr/libexec/openssh/sftp-server",
                          "/usr/libexec/sftp-server")
STATE_FILE = "state.json"
START_TIMEOUT_S = 10.0


def _sftp_server():
    for p in SFTP_SERVER_CANDIDATES:
        if os.access(p, os.X_OK):
            return p
    return "internal-sftp"


def _free_port():
    """A loopback port nothing is bound to right now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _can_unshare():
    """Whether _spawn's exact operation works here: a private mount
    namespace (which fails in a chroot or container whose / is not a mount
    point) with a tmpfs on /run in it. Otherwise sshd runs without one."""
    try:
        r = subprocess.run(["unshare", "-m", "--propagation", "private",
                            "sh", "-c", "mount -t tmpfs none /run && "
                            "mkdir -m 0755 /run/sshd"],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=5)
        return r.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _mnt_ns(pid):
    try:
        return os.readlink("/proc/%d/ns/mnt" % pid)
    except OSError:
        return None


def _all_pids():
    for name in os.listdir("/proc"):
        if name.isdigit():
            yield int(name)


def _ppid(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            data = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may contain spaces or ')'.
    return int(data[data.rindex(")") + 2:].split()[1])


def _descendants(root):
    children = {}
    for pid in _all_pids():
        pp = _ppid(pid)
        if pp is not None:
            children.setdefault(pp, []).append(pid)
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def _signal(pid, sig):
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def _alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            data = f.read()
    except OSError:
        return False
    return data[data.rindex(")") + 2] != "Z"


def _reap(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


class SSHHosts:
    """N OpenSSH servers on loopback plus a client HOME that knows them.

    Hosts are numbered 1..n; host i has alias "<prefix><i>". `unknown` is a
    set of host numbers left out of known_hosts; `sshd_extra` is sshd_config
    text every sshd reads before the defaults (so it wins). The fixture cleans up all of
    its processes and (unless keep=True or root was given) its directory on
    stop(), also when the with-block raises.
    """

    # How long _wait_ready waits for every sshd to listen (a subclass whose
    # sshd starts slowly raises it).
    START_TIMEOUT_S = START_TIMEOUT_S

    def __init__(self, n, root=None, unknown=(), prefix="bfhost",
                 keep=False, sshd_extra=None, share_home=None,
                 session_env=None, ns_setup=None):
        if n < 1:
            raise ValueError("need at least one host")
        self.n = n
        self.prefix = prefix
        self.unknown = set(unknown)
        self._own_root = root is None
        self.root = os.path.abspath(root) if root else None
        self.keep = keep
        # Extra sshd_config lines, put before the defaults (sshd keeps the
        # first value of a keyword): a string for every host ("MaxStartups
        # 1:100:1\nMaxAuthTries 3"), or a dict host number -> lines (a
        # list or a string) for some ("MaxSessions 1").
        if isinstance(sshd_extra, str):
            self.sshd_extra_all, self.sshd_extra = sshd_extra, {}
        else:
            self.sshd_extra_all, self.sshd_extra = "", dict(sshd_extra or {})
        # host number -> host number whose remote HOME it uses (two hosts
        # sharing one home directory, as over NFS).
        self.share_home = dict(share_home or {})
        # Variables every session gets besides HOME (sshd's SetEnv, which
        # counts only its first line: they share HOME's), e.g.
        # {"SLURM_CONF": path} for a login host of a test Slurm cluster.
        self.session_env = dict(session_env or {})
        # host number -> shell command run in that host's private mount
        # namespace before its sshd starts (needs unshare; start() raises
        # without it), e.g. a read-only bind mount over its HOME.
        self.ns_setup = dict(ns_setup or {})
        self.ports = {}        # host number -> port
        self.pids = {}         # host number -> sshd (listener) pid
        self.ns = {}           # host number -> mount namespace id or None
        self._procs = {}       # host number -> Popen (this process only)
        self._refusing = []    # bound, never listening sockets
        self._agent_pid = None
        self.use_unshare = None

    # -- paths ---------------------------------------------------------
    @property
    def home(self):
        return os.path.join(self.root, "home")

    @property
    def ssh_dir(self):
        return os.path.join(self.home, ".ssh")

    @property
    def ssh_config(self):
        return os.path.join(self.ssh_dir, "config")

    @property
    def known_hosts(self):
        return os.path.join(self.ssh_dir, "known_hosts")

    @property
    def user_key(self):
        return os.path.join(self.ssh_dir, "id_ed25519")

    def alias(self, i):
        return "%s%d" % (self.prefix, i)

    def host_dir(self, i):
        return os.path.join(self.root, "hosts", str(i))

    def remote_home(self, i):
        """The HOME that commands on host i see (a directory of this machine);
        host share_home[i]'s when host i shares it."""
        return os.path.join(self.host_dir(self.share_home.get(i, i)), "home")

    def host_key(self, i):
        return os.path.join(self.host_dir(i), "ssh_host_ed25519_key")

    def log(self, i):
        return os.path.join(self.host_dir(i), "sshd.log")

    def _check(self, i):
        if not 1 <= i <= self.n:
            raise IndexError("host %d not in 1..%d" % (i, self.n))

    # -- keys and files ------------------------------------------------
    def _keygen(self, paths):
        """Generate ed25519 keys at paths, in parallel."""
        procs = []
        for p in paths:
            for f in (p, p + ".pub"):
                if os.path.exists(f):
                    os.unlink(f)
            procs.append(subprocess.Popen(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                 "benchfleet-test", "-f", p],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        for p, proc in zip(paths, procs):
            _, err = proc.communicate()
            if proc.returncode != 0:
                raise RuntimeError("ssh-keygen %s: %s" % (p, err.decode()))

    def public_key(self, i):
        with open(self.host_key(i) + ".pub") as f:
            kind, blob = f.read().split()[:2]
        return kind, blob

    def known_hosts_line(self, i):
        """The known_hosts line OpenSSH would write for host i."""
        kind, blob = self.public_key(i)
        return "[127.0.0.1]:%d %s %s" % (self.ports[i], kind, blob)

    def fingerprint(self, i):
        """Host i's key as OpenSSH prints it: "SHA256:<base64, no padding>"."""
        out = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f",
                              self.host_key(i) + ".pub"],
                             check=True, capture_output=True, text=True)
        return out.stdout.split()[1]

    def write_known_hosts(self, unknown=None):
        """(Re)write known_hosts with every host not in `unknown`."""
        if unknown is not None:
            self.unknown = set(unknown)
        lines = [self.known_hosts_line(i) for i in range(1, self.n + 1)
                 if i not in self.unknown]
        with open(self.known_hosts, "w") as f:
            f.write("".join(l + "\n" for l in lines))

    def _write_client_config(self):
        # HashKnownHosts no: known_hosts lines the tests read back stay
        # plain whatever the machine's /etc/ssh/ssh_config says (Debian's
        # says yes), which ctl reads as ssh does.
        blocks = []
        for i in range(1, self.n + 1):
            blocks.append(
                "Host %s\n"
                "  HostName 127.0.0.1\n"
                "  Port %d\n"
                "  User root\n"
                "  IdentityFile %s\n"
                "  IdentitiesOnly yes\n"
                "  UserKnownHostsFile %s\n"
                "  StrictHostKeyChecking yes\n"
                "  HashKnownHosts no\n"
                "  BatchMode yes\n" % (self.alias(i), self.ports[i],
                                       self.user_key, self.known_hosts))
        with open(self.ssh_config, "w") as f:
            f.write("# written by tests/lib/sshhosts.py\n\n")
            f.write("\n".join(blocks))
        os.chmod(self.ssh_config, 0o600)

    def _write_sshd_config(self, i):
        d = self.host_dir(i)
        per_host = self.sshd_extra.get(i, ())
        if isinstance(per_host, str):
            per_host = per_host.splitlines()
        extra = list(per_host) + self.sshd_extra_all.strip().splitlines()
        text = "".join(l + "\n" for l in extra if l.strip()) + (
            "ListenAddress 127.0.0.1\n"
            "Port %d\n"
            "HostKey %s\n"
            "PidFile %s\n"
            "AuthorizedKeysFile %s\n"
            "PubkeyAuthentication yes\n"
            "PasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\n"
            "UsePAM no\n"
            "StrictModes no\n"
            "PermitRootLogin prohibit-password\n"
            "Subsystem sftp %s\n"
            "MaxStartups 100:30:200\n"
            "MaxSessions 50\n"
            "PrintMotd no\n"
            "UseDNS no\n"
            "SetEnv HOME=%s%s\n"
            % (self.ports[i], self.host_key(i), os.path.join(d, "sshd.pid"),
               os.path.join(self.root, "authorized_keys"), _sftp_server(),
               self.remote_home(i),
               "".join(" %s=%s" % kv for kv in
                       sorted(self.session_env.items()))))
        with open(os.path.join(d, "sshd_config"), "w") as f:
            f.write(text)

    # -- processes -----------------------------------------------------
    def _spawn(self, i):
        d = self.host_dir(i)
        sshd = [SSHD, "-D", "-f", os.path.join(d, "sshd_config"),
                "-E", self.log(i)]
        if self.ns_setup.get(i) and not self.use_unshare:
            raise RuntimeError("host %d needs a mount namespace of its own "
                               "(unshare -m) for its setup" % i)
        if self.use_unshare:
            # unshare and sh both exec, so the Popen pid is sshd's pid.
            setup = self.ns_setup.get(i)
            argv = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                    ("(%s) && " % setup if setup else "") +
                    "mount -t tmpfs none /run && mkdir -m 0755 /run/sshd"
                    " && exec \"$@\"", "sh"] + sshd
        else:
            argv = sshd
        with open(self.log(i), "a"):
            pass
        with open(os.path.join(d, "spawn.err"), "w") as err:
            self._procs[i] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err, start_new_session=True, close_fds=True)
        self.pids[i] = self._procs[i].pid

    def _wait_ready(self, hosts):
        """Wait until every host in `hosts` accepts TCP; restart a host on a
        new port if its port was taken meanwhile."""
        deadline = time.monotonic() + self.START_TIMEOUT_S
        pending = set(hosts)
        retries = {i: 0 for i in hosts}
        while pending:
            for i in sorted(pending):
                proc = self._procs[i]
                if proc.poll() is not None:
                    with open(self.log(i)) as f:
                        log = f.read()
                    if "Address already in use" in log and retries[i] < 3:
                        retries[i] += 1
                        self.ports[i] = _free_port()
                        self._write_sshd_config(i)
                        self._spawn(i)
                        continue
                    with open(os.path.join(self.host_dir(i),
                                           "spawn.err")) as f:
                        err = f.read()
                    raise RuntimeError("sshd for host %d exited: %s%s"
                                       % (i, err, log[-2000:]))
                try:
                    with socket.create_connection(("127.0.0.1",
                                                   self.ports[i]), 0.5):
                        pass
                except OSError:
                    continue
                self.ns[i] = _mnt_ns(self.pids[i]) if self.use_unshare \
                    else None
                pending.discard(i)
            if pending:
                if time.monotonic() > deadline:
                    raise RuntimeError("sshd not listening: hosts %s"
                                       % sorted(pending))
                time.sleep(0.01)

    def host_pids(self, i):
        """Every live process that belongs to host i, listener first."""
        self._check(i)
        root = self.pids.get(i)
        if root is None:
            return []
        pids = [root] if _alive(root) else []
        if self.ns.get(i):
            pids += [p for p in _all_pids()
                     if p != root and _mnt_ns(p) == self.ns[i]]
        else:
            pids += [p for p in _descendants(root) if p not in pids]
        return pids

    def _kill_host(self, i):
        pids = self.host_pids(i)
        for p in pids:
            _signal(p, signal.SIGKILL)
        deadline = time.monotonic() + 5
        root = self.pids.get(i)
        while time.monotonic() < deadline:
            if root is not None:
                _reap(root)
            if not any(_alive(p) for p in pids):
                break
            time.sleep(0.01)
        proc = self._procs.pop(i, None)
        if proc is not None:
            proc.wait()
        self.pids.pop(i, None)
        self.ns.pop(i, None)

    # -- public API ----------------------------------------------------
    def start(self):
        """Create keys, configs and HOME; start all sshd; wait until each
        listens. On failure everything started so far is stopped."""
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self):
        if self.root is None:
            self.root = tempfile.mkdtemp(prefix="bf-sshhosts-")
        os.makedirs(self.ssh_dir, mode=0o700, exist_ok=True)
        if self.use_unshare is None:
            self.use_unshare = _can_unshare()
        if not self.use_unshare:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        for i in range(1, self.n + 1):
            os.makedirs(self.host_dir(i), exist_ok=True)
            os.makedirs(self.remote_home(i), exist_ok=True)
        self._keygen([self.user_key] +
                     [self.host_key(i) for i in range(1, self.n + 1)])
        shutil.copy(self.user_key + ".pub",
                    os.path.join(self.root, "authorized_keys"))
        for i in range(1, self.n + 1):
            self.ports[i] = _free_port()
            self._write_sshd_config(i)
            self._spawn(i)
        self._wait_ready(range(1, self.n + 1))
        self._write_client_config()
        self.write_known_hosts()
        self.save()

    def stop(self):
        """Kill every process of every host (also stopped ones) and the
        agent, close refusing ports, remove the directory if it is ours."""
        for i in list(self.pids):
            self.resume_quiet(i)
            self._kill_host(i)
        for s in self._refusing:
            s.close()
        self._refusing = []
        self.stop_agent()
        if self.root and self._own_root and not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def resume_quiet(self, i):
        for p in self.host_pids(i):
            _signal(p, signal.SIGCONT)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def hang(self, i):
        """Freeze host i: SIGSTOP its sshd and every process it started. Its
        kernel still completes TCP handshakes and ACKs data, as a host whose
        sshd is wedged would; only SSH-level probes notice."""
        self._check(i)
        seen = set()
        # Repeat until no new process appears (one may fork meanwhile).
        while True:
            new = [p for p in self.host_pids(i) if p not in seen]
            if not new:
                break
            for p in new:
                _signal(p, signal.SIGSTOP)
                seen.add(p)

    def resume(self, i):
        """Undo hang(i)."""
        self._check(i)
        self.resume_quiet(i)

    def change_host_key(self, i):
        """Give host i a new host key (same port) and restart its sshd, so
        the known_hosts line no longer matches. Returns the new fingerprint."""
        self._check(i)
        self.resume_quiet(i)
        self._kill_host(i)
        self._keygen([self.host_key(i)])
        self._spawn(i)
        self._wait_ready([i])
        self.save()
        return self.fingerprint(i)

    def restart(self, i):
        """Kill host i's processes and start its sshd again (same key)."""
        self._check(i)
        self.resume_quiet(i)
        self._kill_host(i)
        self._spawn(i)
        self._wait_ready([i])
        self.save()

    def refusing_port(self):
        """A loopback port where connections are refused: bound (so nothing
        else takes it) but never listening, until stop()."""
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        self._refusing.append(s)
        return s.getsockname()[1]

    def env(self, agent=False):
        """Environment for running ctl or a test driver against the hosts:
        HOME is the fixture's, no ssh-agent unless agent=True (then the one
        start_agent() started)."""
        e = dict(os.environ)
        e["HOME"] = self.home
        e.pop("SSH_AUTH_SOCK", None)
        e.pop("SSH_AGENT_PID", None)
        if agent:
            if not self._agent_pid:
                raise RuntimeError("start_agent() first")
            e["SSH_AUTH_SOCK"] = self.agent_sock
        return e

    @property
    def agent_sock(self):
        return os.path.join(self.root, "agent.sock")

    def start_agent(self, add_key=True):
        """Start an ssh-agent on a socket in the fixture directory, holding
        the user key unless add_key is False."""
        if self._agent_pid:
            return self.agent_sock
        if os.path.exists(self.agent_sock):
            os.unlink(self.agent_sock)
        out = subprocess.run(["ssh-agent", "-s", "-a", self.agent_sock],
                             check=True, capture_output=True, text=True)
        for part in out.stdout.replace("\n", ";").split(";"):
            if part.startswith("SSH_AGENT_PID="):
                self._agent_pid = int(part.split("=", 1)[1])
        if add_key:
            e = self.env()
            e["SSH_AUTH_SOCK"] = self.agent_sock
            subprocess.run(["ssh-add", "-q", self.user_key], env=e,
                           check=True, capture_output=True)
        self.save()
        return self.agent_sock

    def stop_agent(self):
        if self._agent_pid:
            _signal(self._agent_pid, signal.SIGTERM)
            self._agent_pid = None

    # -- state file (CLI) ----------------------------------------------
    def save(self):
        state = {
            "n": self.n, "prefix": self.prefix, "unknown": sorted(self.unknown),
            "use_unshare": self.use_unshare, "agent_pid": self._agent_pid,
            "share_home": {str(k): v for k, v in self.share_home.items()},
            "hosts": {str(i): {"port": self.ports[i],
                               "pid": self.pids.get(i),
                               "ns": self.ns.get(i)}
                      for i in self.ports},
        }
        tmp = os.path.join(self.root, STATE_FILE + ".tmp")
        with open(tmp, "w") as f:
            json.dump(state, f, indent=1)
        os.replace(tmp, os.path.join(self.root, STATE_FILE))

    @classmethod
    def load(cls, root):
        """Reattach to hosts a `start` in another process left running."""
        root = os.path.abspath(root)
        with open(os.path.join(root, STATE_FILE)) as f:
            st = json.load(f)
        h = cls(st["n"], root=root, unknown=st["unknown"],
                prefix=st["prefix"],
                share_home={int(k): v for k, v in
                            st.get("share_home", {}).items()})
        h.use_unshare = st["use_unshare"]
        h._agent_pid = st.get("agent_pid")
        for k, v in st["hosts"].items():
            i = int(k)
            h.ports[i] = v["port"]
            if v["pid"] is not None:
                # Trust a pid only while it is still that host's process.
                ok = _alive(v["pid"]) and (not v["ns"] or
                                           _mnt_ns(v["pid"]) == v["ns"])
                if ok:
                    h.pids[i] = v["pid"]
                    h.ns[i] = v["ns"]
        return h


def _parse_hosts(s):
    return {int(x) for x in s.split(",") if x} if s else set()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("start", help="start N hosts with state in DIR")
    p.add_argument("n", type=int)
    p.add_argument("dir")
    p.add_argument("--unknown", default="",
                   help="comma-separated host numbers left out of known_hosts")
    p.add_argument("--prefix", default="bfhost")
    p.add_argument("--agent", action="store_true",
                   help="also start an ssh-agent holding the user key")
    for name, hlp in (("stop", "kill all hosts in DIR"),
                      ("env", "print shell exports (HOME, SSH_AUTH_SOCK)"),
                      ("info", "print the state as JSON")):
        q = sub.add_parser(name, help=hlp)
        q.add_argument("dir")
    for name in ("hang", "resume", "change-key", "restart"):
        q = sub.add_parser(name, help="%s host I" % name)
        q.add_argument("dir")
        q.add_argument("i", type=int)
    a = ap.parse_args(argv)

    if a.cmd == "start":
        os.makedirs(a.dir, exist_ok=True)
        h = SSHHosts(a.n, root=a.dir, unknown=_parse_hosts(a.unknown),
                     prefix=a.prefix)
        t0 = time.monotonic()
        h.start()
        if a.agent:
            h.start_agent()
        print("started %d hosts in %.2f s; HOME=%s" %
              (a.n, time.monotonic() - t0, h.home), file=sys.stderr)
        return 0
    h = SSHHosts.load(a.dir)
    if a.cmd == "stop":
        h.stop()
    elif a.cmd == "env":
        print("export HOME=%s" % h.home)
        if h._agent_pid:
            print("export SSH_AUTH_SOCK=%s" % h.agent_sock)
        else:
            print("unset SSH_AUTH_SOCK")
    elif a.cmd == "info":
        with open(os.path.join(h.root, STATE_FILE)) as f:
            sys.stdout.write(f.read())
    elif a.cmd == "hang":
        h.hang(a.i)
    elif a.cmd == "resume":
        h.resume(a.i)
    elif a.cmd == "change-key":
        print(h.change_host_key(a.i))
    elif a.cmd == "restart":
        h.restart(a.i)
    return 0


if __name__ == "__main__":
    sys.exit(main())
