#!/usr/bin/env python3
"""A real one-node Slurm cluster on loopback, for tests.

Debian's munged, slurmctld and slurmd (packages munge, slurmctld, slurmd,
slurm-client) started from a throwaway directory: its own munge key and
socket, a slurm.conf with ports the kernel picked, state and spool
directories inside it, no cgroups (proctrack/linuxproc, task/none), one
node named "bfnode1" (SLURMD_NODENAME) with 2 CPUs in partition "debug";
SlurmCluster(nodes=N) runs N nodes "bfnode1".."bfnodeN", one slurmd each on
a port of its own (Debian's Slurm is built with --enable-multiple-slurmd:
`scontrol show config` says MULTIPLE_SLURMD = Yes), spool, pid and log
files per node (%n).
Clients find it through SLURM_CONF, which env() sets; nothing of the
machine's own /etc/slurm or /etc/munge is read or touched.

From Python:

    from slurmcluster import SlurmCluster, missing
    if missing(): sys.exit(77)
    with SlurmCluster() as c:
        subprocess.run(["srun", "-N1", "hostname"], env=c.env())

From the shell:

    python3 tests/lib/slurmcluster.py start DIR [NODES]  # prints export SLURM_CONF=...
    python3 tests/lib/slurmcluster.py stop DIR

Needs root (slurmd runs jobs as their users). Python 3 standard library.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

MUNGED = "/usr/sbin/munged"
SLURMCTLD = "/usr/sbin/slurmctld"
SLURMD = "/usr/sbin/slurmd"
CLIENTS = ("srun", "scancel", "sinfo", "squeue")
NODE = "bfnode1"
PARTITION = "debug"
START_TIMEOUT_S = 60.0
STATE_FILE = "state.json"


def cgroup_mounted(mountinfo="/proc/self/mountinfo"):
    """Whether a cgroup file system (v1 or v2) is mounted at or under
    /sys/fs/cgroup, where Debian 12's slurmd (22.05) looks for one: its
    cgroup plugin is initialised even with proctrack/linuxproc and
    task/none, and slurmd exits without one ("error: No filesystem mounted
    on /sys/fs/cgroup"), as in a chroot or a container that has none."""
    try:
        with open(mountinfo) as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields = left.split()
                if len(fields) < 5 or not right:
                    continue
                mp, fstype = fields[4], right.split()[0]
                if (mp == "/sys/fs/cgroup" or
                        mp.startswith("/sys/fs/cgroup/")) and \
                        fstype in ("cgroup", "cgroup2"):
                    return True
    except OSError:
        pass
    return False


def missing():
    """What is missing to run a cluster here ("" when nothing)."""
    if os.geteuid() != 0:
        return "not root"
    lack = [p for p in (MUNGED, SLURMCTLD, SLURMD) if not os.access(p, os.X_OK)]
    lack += [c for c in CLIENTS if shutil.which(c) is None]
    if not lack and not cgroup_mounted():
        return ("no cgroup file system at /sys/fs/cgroup (a chroot or "
                "container without one), which slurmd 22.05 needs even "
                "with proctrack/linuxproc and task/none")
    return " ".join(lack)


def _error_lines(path, limit=4):
    """The last `limit` "error:" lines of a daemon's log, joined."""
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f if "error" in l.lower()]
    except OSError:
        return ""
    return "; ".join(lines[-limit:])


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            data = f.read()
    except OSError:
        return False
    return data[data.rindex(")") + 2] != "Z"


class SlurmCluster:
    def __init__(self, root=None, keep=False, nodes=1, extra_conf=""):
        """extra_conf: slurm.conf lines added before the nodes'
        (Prolog=..., for the health check test)."""
        if nodes < 1:
            raise ValueError("need at least one node")
        self.nodes = ["bfnode%d" % (i + 1) for i in range(nodes)]
        self._own_root = root is None
        self.root = os.path.abspath(root) if root else None
        self.keep = keep
        self.pids = {}
        self.hostname = socket.gethostname().split(".")[0]
        self.extra_conf = extra_conf

    def path(self, *p):
        return os.path.join(self.root, *p)

    @property
    def conf(self):
        return self.path("slurm.conf")

    def env(self, base=None):
        e = dict(os.environ if base is None else base)
        e["SLURM_CONF"] = self.conf
        return e

    def _write_files(self):
        for d in ("state", "spool", "log", "munge"):
            os.makedirs(self.path(d), exist_ok=True)
        for n in self.nodes:
            os.makedirs(self.path("spool", n), exist_ok=True)
        os.chmod(self.path("munge"), 0o711)
        with open(self.path("munge", "munge.key"), "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(self.path("munge", "munge.key"), 0o400)
        ports = set()
        while len(ports) < 1 + len(self.nodes):
            ports.add(_free_port())
        ports = sorted(ports)
        self.ctld_port, self.slurmd_ports = ports[0], ports[1:]
        self.slurmd_port = self.slurmd_ports[0]
        node_lines = "".join(
            f"NodeName={n} NodeHostname={self.hostname} NodeAddr=127.0.0.1 "
            f"Port={p} CPUs=2 State=UNKNOWN\n"
            for n, p in zip(self.nodes, self.slurmd_ports))
        node_names = ",".join(self.nodes)
        sock = self.path("munge", "munge.socket")
        conf = f"""\
ClusterName=bftest
SlurmctldHost={self.hostname}(127.0.0.1)
SlurmctldPort={self.ctld_port}
SlurmdPort={self.slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={self.path("state")}
SlurmdSpoolDir={self.path("spool")}/%n
SlurmctldPidFile={self.path("slurmctld.pid")}
SlurmdPidFile={self.path("slurmd-%n.pid")}
SlurmctldLogFile={self.path("log", "slurmctld.log")}
SlurmdLogFile={self.path("log", "slurmd-%n.log")}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/builtin
KillWait=2
MessageTimeout=30
InactiveLimit=0
MinJobAge=2
SlurmdTimeout=300
{self.extra_conf}{node_lines}PartitionName={PARTITION} Nodes={node_names} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
"""
        with open(self.conf, "w") as f:
            f.write(conf)

    def _spawn(self, name, argv):
        log = open(self.path("log", name + ".out"), "wb")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=subprocess.STDOUT, env=self.env(),
                             start_new_session=True)
        log.close()
        self.pids[name] = p.pid
        self._save()
        return p

    def _save(self):
        with open(self.path(STATE_FILE), "w") as f:
            json.dump({"pids": self.pids}, f)

    def _wait(self, what, ok):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if ok():
                return
            for name, pid in self.pids.items():
                if not _alive(pid):
                    why = _error_lines(self.path("log", name + ".out"))
                    raise RuntimeError("%s exited while waiting for %s%s; "
                                       "see %s" % (name, what,
                                                   ": " + why if why else "",
                                                   self.path("log")))
            time.sleep(0.2)
        raise RuntimeError("timed out waiting for " + what)

    def _node_idle(self):
        """Every node idle."""
        r = subprocess.run(["sinfo", "-h", "-N", "-n", ",".join(self.nodes),
                            "-o", "%N %T"],
                           env=self.env(), capture_output=True, text=True)
        if r.returncode != 0:
            return False
        state = dict(l.split()[:2] for l in r.stdout.splitlines()
                     if len(l.split()) >= 2)
        return all(state.get(n, "").startswith("idle") for n in self.nodes)

    def start(self):
        if self.root is None:
            self.root = tempfile.mkdtemp(prefix="bf-slurm-")
        os.makedirs(self.root, exist_ok=True)
        os.chmod(self.root, 0o755)
        self._write_files()
        sock = self.path("munge", "munge.socket")
        self._spawn("munged", [MUNGED, "-F", "--force",
                               "--key-file", self.path("munge", "munge.key"),
                               "--socket", sock,
                               "--pid-file", self.path("munge", "munged.pid"),
                               "--log-file", self.path("log", "munged.log"),
                               "--seed-file", self.path("munge", "seed")])
        self._wait("munged", lambda: os.path.exists(sock))
        self._spawn("slurmctld", [SLURMCTLD, "-D", "-i", "-f", self.conf])
        for n in self.nodes:
            self._spawn("slurmd-" + n, [SLURMD, "-D", "-N", n, "-f",
                                        self.conf])
        self._wait("nodes %s idle" % ",".join(self.nodes), self._node_idle)
        return self

    def jobs(self):
        """Job ids in the queue (any state)."""
        r = subprocess.run(["squeue", "-h", "-o", "%i"], env=self.env(),
                           capture_output=True, text=True)
        return [j for j in r.stdout.split() if j]

    def wait_idle(self, timeout_s=120.0):
        """Waits until no job is queued or running and the node is idle."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.jobs() and self._node_idle():
                return True
            time.sleep(0.3)
        return False

    def stop(self):
        if self.root is None:
            return
        if self.pids.get("slurmctld") and _alive(self.pids["slurmctld"]):
            subprocess.run(["scancel", "--full", "-u", "root"],
                           env=self.env(), capture_output=True)
            self.wait_idle(20.0)
        # Steps left behind (slurmstepd and their tasks) carry SLURM_CONF
        # of this cluster in their environment: end exactly those.
        for pid in _pids_with_env("SLURM_CONF=" + self.conf):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        slurmds = sorted(k for k in self.pids if k.startswith("slurmd"))
        for name in slurmds + ["slurmctld", "munged"]:
            pid = self.pids.get(name)
            if not pid:
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            for _ in range(50):
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
                if not _alive(pid):
                    break
                time.sleep(0.1)
            else:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.pids = {}
        if self._own_root and not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()


def _pids_with_env(entry):
    want = entry.encode()
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if want in env:
            out.append(int(name))
    return out


def main(argv):
    if not 3 <= len(argv) <= 4 or argv[1] not in ("start", "stop") or \
            (len(argv) == 4 and not argv[3].isdigit()):
        print("usage: slurmcluster.py start DIR [NODES] | stop DIR",
              file=sys.stderr)
        return 2
    c = SlurmCluster(root=argv[2], keep=True,
                     nodes=int(argv[3]) if len(argv) == 4 else 1)
    if argv[1] == "start":
        why = missing()
        if why:
            print("slurm not available: " + why, file=sys.stderr)
            return 77
        c.start()
        print("export SLURM_CONF=%s" % c.conf)
        return 0
    with open(c.path(STATE_FILE)) as f:
        c.pids = json.load(f)["pids"]
    c.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
