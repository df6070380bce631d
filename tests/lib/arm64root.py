#!/usr/bin/env python3
"""An aarch64 test host: a Debian 12 arm64 root run through qemu-user-static,
with its own sshd on 127.0.0.1.

The root is built once by debootstrap (both stages on this machine: the
arm64 maintainer scripts run through qemu-aarch64 by binfmt_misc) with what
the agent needs to build and openssh-server, and kept under a cache
directory (default /var/cache/benchfleet-aarch64, or $BF_AARCH64_CACHE) so
later runs reuse it; a stamp file names the suite, architecture and
packages it was built with, and a root built with other ones is rebuilt.

ChrootSSHHosts is SSHHosts (sshhosts.py) whose sshd runs inside that root:
each host's directory (host key, sshd_config, authorized_keys, remote HOME,
the client's HOME too) is a fresh directory under ROOT/tmp, removed on
stop(), and each sshd is started as

    unshare -m --propagation private sh -c 'mount tmpfs on ROOT/run,
        mkdir ROOT/run/sshd, proc on ROOT/proc, bind /dev on ROOT/dev;
        exec chroot ROOT /usr/sbin/sshd -D -f ...'

so every mount lives in the host's private mount namespace (gone with its
last process, nothing left mounted on the machine) and the arm64 sshd, and
all it starts, runs under qemu-aarch64: `uname -m` there says aarch64.

From the shell:

    python3 tests/lib/arm64root.py build [CACHE_DIR]   # build or reuse
    python3 tests/lib/arm64root.py check               # what is missing

Needs root, debootstrap, qemu-user-static (binfmt_misc is mounted and the
qemu-aarch64 entry enabled through binfmt-support's update-binfmts when
they are not), unshare, and the Debian mirror apt uses.
"""

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sshhosts import SSHHosts  # noqa: E402

SUITE = "bookworm"
ARCH = "arm64"
VARIANT = "minbase"
# What ctl's preflight asks of a host (a C compiler, CMake, pkg-config,
# cJSON, OpenBLAS), and the sshd.
PACKAGES = ["build-essential", "cmake", "pkg-config", "libcjson-dev",
            "libopenblas-dev", "openssh-server"]
DEFAULT_CACHE = "/var/cache/benchfleet-aarch64"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
BINFMT = "/proc/sys/fs/binfmt_misc"
BINFMT_ENTRY = os.path.join(BINFMT, "qemu-aarch64")
STAMP = ".benchfleet-root.json"


class Unavailable(Exception):
    """This machine cannot run the aarch64 host (the test skips)."""


def cache_dir():
    return os.environ.get("BF_AARCH64_CACHE") or DEFAULT_CACHE


def _run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kw)


def _binfmt_entry():
    """The qemu-aarch64 binfmt_misc entry as a dict (enabled, interpreter,
    flags), or None."""
    try:
        with open(BINFMT_ENTRY) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    e = {"enabled": bool(lines) and lines[0] == "enabled"}
    for line in lines[1:]:
        k, _, v = line.partition(" ")
        e[k.rstrip(":")] = v
    return e


def ensure_binfmt():
    """Makes arm64 ELF binaries run through qemu-aarch64, also inside a
    chroot (the entry's F flag: the interpreter is opened when registered,
    so it need not exist inside the root). Raises Unavailable when that
    cannot be had."""
    if os.geteuid() != 0:
        raise Unavailable("needs root")
    if not os.path.exists(os.path.join(BINFMT, "register")):
        r = _run(["mount", "-t", "binfmt_misc", "binfmt_misc", BINFMT])
        if r.returncode != 0:
            raise Unavailable("binfmt_misc cannot be mounted: "
                              + r.stdout.strip())
    e = _binfmt_entry()
    if e is None or not e["enabled"]:
        if not shutil.which("update-binfmts"):
            raise Unavailable("no qemu-aarch64 binfmt entry and no "
                              "update-binfmts (binfmt-support)")
        if not os.path.exists("/usr/share/binfmts/qemu-aarch64"):
            raise Unavailable("qemu-user-static is not installed")
        if e is None:
            _run(["update-binfmts", "--import", "qemu-aarch64"])
        _run(["update-binfmts", "--enable", "qemu-aarch64"])
        e = _binfmt_entry()
        if e is None or not e["enabled"]:
            raise Unavailable("the qemu-aarch64 binfmt entry cannot be "
                              "enabled")
    if "F" not in e.get("flags", ""):
        raise Unavailable("qemu-aarch64's binfmt entry lacks the F flag "
                          "(interpreter %s would have to exist inside the "
                          "root)" % e.get("interpreter"))
    return e


def mirror():
    """$BF_AARCH64_MIRROR, else the Debian mirror apt uses here."""
    m = os.environ.get("BF_AARCH64_MIRROR")
    if m:
        return m.rstrip("/")
    texts = []
    for p in ("/etc/apt/sources.list.d/debian.sources",
              "/etc/apt/sources.list"):
        try:
            with open(p) as f:
                texts.append(f.read())
        except OSError:
            pass
    for t in texts:
        for uri in re.findall(r"(?m)^\s*(?:URIs:|deb)\s+(?:\[[^]]*\]\s+)?"
                              r"(https?://\S+)", t):
            if "security" not in uri:
                return uri.rstrip("/")
    return DEFAULT_MIRROR


def mirror_reachable(m, timeout=20):
    url = "%s/dists/%s/Release" % (m, SUITE)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status == 200
    except Exception:  # noqa: BLE001 (any failure: unreachable)
        return False


def wanted_stamp():
    return {"suite": SUITE, "arch": ARCH, "variant": VARIANT,
            "packages": sorted(PACKAGES)}


def _read_stamp(root):
    try:
        with open(os.path.join(root, STAMP)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def ensure_root(cache=None, log=None):
    """The arm64 root under cache (built now when missing or stale).
    Returns (path, seconds spent building it or None when reused). Holds
    cache/lock meanwhile, so concurrent callers build it once."""
    log = log or (lambda s: print(s, file=sys.stderr))
    cache = os.path.abspath(cache or cache_dir())
    ensure_binfmt()
    os.makedirs(cache, mode=0o755, exist_ok=True)
    root = os.path.join(cache, "root")
    with open(os.path.join(cache, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        st = _read_stamp(root)
        if st is not None and {k: st.get(k) for k in wanted_stamp()} == \
                wanted_stamp():
            return root, None
        for tool in ("debootstrap", "unshare", "chroot"):
            if not shutil.which(tool):
                raise Unavailable("%s is not installed" % tool)
        m = mirror()
        if not mirror_reachable(m):
            raise Unavailable("Debian mirror %s unreachable" % m)
        tmp = root + ".tmp"
        _remove_root(tmp)
        t0 = time.monotonic()
        log("arm64root: building %s (debootstrap %s %s from %s; "
            "minutes)" % (root, SUITE, ARCH, m))
        blog = os.path.join(cache, "debootstrap.log")
        # In a private mount namespace: the /proc and /sys debootstrap
        # mounts in the target go away with it even when it fails midway.
        # A second try from scratch when the first fails (a download cut
        # short by the mirror).
        for attempt in (1, 2):
            if attempt == 2:
                log("arm64root: debootstrap failed (%d); once more"
                    % r.returncode)
                _remove_root(tmp)
            with open(blog, "a" if attempt == 2 else "w") as f:
                r = subprocess.run(
                    ["unshare", "-m", "--propagation", "private",
                     "debootstrap", "--arch=" + ARCH, "--variant=" + VARIANT,
                     "--include=" + ",".join(PACKAGES), SUITE, tmp, m],
                    stdout=f, stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL)
            if r.returncode == 0:
                break
        if r.returncode != 0:
            with open(blog) as f:
                tail = f.read()[-3000:]
            raise RuntimeError("debootstrap failed (%d), %s:\n%s"
                               % (r.returncode, blog, tail))
        # The downloaded .debs are not needed again (~100 MB).
        arch_dir = os.path.join(tmp, "var", "cache", "apt", "archives")
        for name in os.listdir(arch_dir):
            if name.endswith(".deb"):
                os.unlink(os.path.join(arch_dir, name))
        st = dict(wanted_stamp(), mirror=m,
                  built_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  build_s=round(time.monotonic() - t0, 1))
        with open(os.path.join(tmp, STAMP), "w") as f:
            json.dump(st, f, indent=1)
        _remove_root(root)
        os.rename(tmp, root)
        log("arm64root: built in %.0f s" % st["build_s"])
        return root, st["build_s"]


def _remove_root(path):
    """Removes an old root, refusing to follow into anything mounted in it
    (a mount left by a killed debootstrap outside a namespace)."""
    if not os.path.lexists(path):
        return
    with open("/proc/self/mountinfo") as f:
        for line in f:
            mp = line.split()[4]
            if mp == path or mp.startswith(path + "/"):
                subprocess.run(["umount", "-l", mp])
    shutil.rmtree(path)


def in_root(root, argv, timeout=120):
    """Runs argv inside the root (through qemu), /proc mounted privately."""
    return _run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"',
                 root] + list(argv), timeout=timeout)


class ChrootSSHHosts(SSHHosts):
    """SSHHosts whose sshd runs inside an arm64 root (see the module's
    docstring). Host i's alias is "<prefix><i>" (default "bfarm")."""

    # sshd's start through qemu takes a second or two; on a loaded 2-core
    # machine several.
    START_TIMEOUT_S = 60.0

    def __init__(self, n, chroot, prefix="bfarm", **kw):
        self.chroot = os.path.abspath(chroot)
        root = tempfile.mkdtemp(prefix="bf-sshhosts-",
                                dir=os.path.join(self.chroot, "tmp"))
        os.chmod(root, 0o755)
        super().__init__(n, root=root, prefix=prefix, **kw)
        self._own_root = True         # removed on stop() unless keep
        self.use_unshare = True       # mounts must stay private

    def inside(self, path):
        """path (under the root) as processes inside the root see it."""
        return "/" + os.path.relpath(path, self.chroot)

    def _write_sshd_config(self, i):
        super()._write_sshd_config(i)
        p = os.path.join(self.host_dir(i), "sshd_config")
        with open(p) as f:
            text = f.read()
        with open(p, "w") as f:
            f.write(text.replace(self.root, self.inside(self.root)))

    def _spawn(self, i):
        d = self.host_dir(i)
        sshd = ["/usr/sbin/sshd", "-D", "-f",
                self.inside(os.path.join(d, "sshd_config")),
                "-E", self.inside(self.log(i))]
        # unshare, sh and chroot all exec: the Popen pid is sshd's (run by
        # qemu-aarch64 through binfmt_misc).
        argv = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                'mount -t tmpfs none "$0/run" && mkdir -m 0755 "$0/run/sshd"'
                ' && mount -t proc proc "$0/proc"'
                ' && mount --rbind /dev "$0/dev"'
                ' && exec chroot "$0" "$@"', self.chroot] + sshd
        with open(self.log(i), "a"):
            pass
        with open(os.path.join(d, "spawn.err"), "w") as err:
            self._procs[i] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err, start_new_session=True, close_fds=True)
        self.pids[i] = self._procs[i].pid


def private_mounts():
    """None when `unshare -m --propagation private` works here (debootstrap
    and each sshd run in such a namespace), else why not: in a chroot or
    a container whose / is not a mount point it fails with "cannot change
    root filesystem propagation: Invalid argument"."""
    if not shutil.which("unshare"):
        return "unshare is not installed"
    try:
        r = _run(["unshare", "-m", "--propagation", "private", "true"],
                 timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return "unshare failed: %s" % e
    if r.returncode != 0:
        return ("no private mount namespace here (a chroot or container?): "
                "%s" % r.stdout.strip().splitlines()[-1:][0]
                if r.stdout.strip() else "unshare -m failed")
    return None


def check():
    """What stops this machine from running the aarch64 host, or None.
    Asks first what needs no change to the machine (tools, a private mount
    namespace), then binfmt_misc (ensure_binfmt may mount and enable it)."""
    if os.geteuid() != 0:
        return "needs root"
    for tool in ("debootstrap", "unshare", "chroot", "/usr/sbin/sshd",
                 "ssh-keygen"):
        if not shutil.which(tool):
            return "%s is not installed" % tool
    why = private_mounts()
    if why:
        return why
    try:
        ensure_binfmt()
    except Unavailable as e:
        return str(e)
    return None


def main(argv):
    if len(argv) >= 1 and argv[0] == "check":
        why = check()
        print(why or "ok")
        return 1 if why else 0
    if len(argv) >= 1 and argv[0] == "build":
        try:
            root, took = ensure_root(argv[1] if len(argv) > 1 else None)
        except Unavailable as e:
            print("unavailable: %s" % e, file=sys.stderr)
            return 77
        r = in_root(root, ["uname", "-m"])
        print("%s (%s; %s)" % (root, r.stdout.strip(),
                               "built in %.0f s" % took if took is not None
                               else "cached"))
        return 0
    print("usage: arm64root.py build [CACHE_DIR] | check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
