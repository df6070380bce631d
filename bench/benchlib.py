"""What the bench/ scripts share: running a command with its wall time, CPU
time and peak RSS; alternating sides; statistics; the machine; results.

Every comparison alternates its sides (A B, B A, A B ...) in one run, because
the machines this runs on are shared: the ratio between sides measured
moments apart is the figure, absolute times drift with the load. Each
script writes bench/out/<name>.json (BF_BENCH_OUT overrides the
directory); bench/report turns those into bench/RESULTS.md.

Standard library only, for /usr/bin/python3.
"""

import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
OUT = os.environ.get("BF_BENCH_OUT", os.path.join(BENCH, "out"))
BUILD = os.environ.get("BF_BENCH_BUILD", os.path.join(ROOT, "build-bench"))
SSHHOSTS = os.path.join(ROOT, "tests", "lib")


def log(name, msg):
    print(f"[{name}] {msg}", flush=True)


def die(name, msg):
    print(f"[{name}] error: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


class Measured:
    """One finished command: wall_s, cpu_s (user + system of the process
    and every descendant it waited for), maxrss_kib (the largest of
    those), rc, out (stdout bytes, unless lines were read), lines
    ([(seconds since start, line bytes)] when timestamped), err."""

    def __init__(self):
        self.wall_s = self.cpu_s = 0.0
        self.user_s = self.sys_s = 0.0
        self.maxrss_kib = 0
        self.rc = None
        self.out = b""
        self.err = ""
        self.lines = []


MEASURE = os.path.join(BUILD, "bench", "measure")


def thp_disabled():
    """For run(preexec_fn=...): the child and what it execs get no
    transparent huge pages (prctl PR_SET_THP_DISABLE, kept across fork and
    execve: prctl(2)), so a program's madvise(MADV_HUGEPAGE) has no
    effect: the same binary measured with 4 KiB pages."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(41, 1, 0, 0, 0) != 0:  # PR_SET_THP_DISABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_THP_DISABLE)")


def run(argv, env=None, cwd=None, timeout=600, lines=False,
        stdout_path=None, preexec_fn=None):
    """Runs argv to completion under bench/measure (built by bench/run):
    wall time from fork to reap, CPU time and peak RSS from wait4's
    rusage, so they cover the children it reaped (parallel-ssh's ssh
    processes) and the RSS floor is measure's own ~1 MiB, not this
    Python's (Linux keeps the high-water mark across exec). Without
    measure, the same from this process's wait4. With lines=True every
    stdout line is timestamped as it arrives (seconds since start)."""
    m = Measured()
    errf = tempfile.TemporaryFile()
    outf = open(stdout_path, "wb") if stdout_path else None
    rep = None
    if os.access(MEASURE, os.X_OK):
        fd, rep = tempfile.mkstemp(prefix="bf-measure-", suffix=".json")
        os.close(fd)
        argv = [MEASURE, rep] + list(argv)
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=outf if outf else subprocess.PIPE,
                         stderr=errf, env=env, cwd=cwd,
                         preexec_fn=preexec_fn)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    try:
        if outf is None:
            if lines:
                for line in iter(p.stdout.readline, b""):
                    m.lines.append((time.perf_counter() - t0, line))
            else:
                m.out = p.stdout.read()
            p.stdout.close()
        _, status, ru = os.wait4(p.pid, 0)
        m.wall_s = time.perf_counter() - t0
    finally:
        timer.cancel()
        if outf:
            outf.close()
    p.returncode = m.rc = os.waitstatus_to_exitcode(status)
    m.user_s, m.sys_s = ru.ru_utime, ru.ru_stime
    m.maxrss_kib = ru.ru_maxrss
    if rep:
        try:
            with open(rep) as f:
                r = json.load(f)
            m.wall_s, m.user_s, m.sys_s = r["wall_s"], r["user_s"], \
                r["sys_s"]
            m.maxrss_kib = r["maxrss_kib"]
        except (OSError, ValueError):
            pass  # killed before it wrote: keep this process's view
        os.unlink(rep)
    m.cpu_s = m.user_s + m.sys_s
    errf.seek(0)
    m.err = errf.read().decode(errors="replace")
    errf.close()
    return m


GAP_S = 0.5


def alternate(rounds, sides, progress=None, gap_s=GAP_S):
    """sides: [(name, fn)]; runs every side's fn() once per round, `rounds`
    times, the order rotating each round (A B C, B C A, C A B, ...; with
    two sides A B, B A, A B, ...) so that no side always follows the same
    one, with gap_s of pause before each run: what one run leaves behind
    (OpenBLAS's threads spin for ~0.1 s after a call before they sleep;
    sshd sessions closing) must not land on the next. Returns {name:
    [result per round]}, in round order."""
    res = {name: [] for name, _ in sides}
    for r in range(rounds):
        k = r % len(sides)
        for name, fn in sides[k:] + sides[:k]:
            time.sleep(gap_s)
            x = fn()
            res[name].append(x)
            if progress:
                progress(r, name, x)
    return res


def median(xs):
    return statistics.median(xs) if xs else None


def percentile(xs, p):
    """Nearest-rank percentile (p in 0..100) of xs."""
    if not xs:
        return None
    s = sorted(xs)
    k = max(1, math.ceil(p / 100.0 * len(s)))
    return s[k - 1]


def spread(xs):
    """{median, min, max, n} of xs."""
    return {"median": median(xs), "min": min(xs) if xs else None,
            "max": max(xs) if xs else None, "n": len(xs)}


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def os_name():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def free_page_reporting():
    """True when a virtio-balloon device has negotiated free page reporting
    (feature bit 5, VIRTIO_BALLOON_F_REPORTING): the guest hands free 2 MiB
    blocks back to the hypervisor, so memory taken in huge pages is
    faulted in cold again. None when no balloon device is visible."""
    base = "/sys/bus/virtio/devices"
    try:
        devs = os.listdir(base)
    except OSError:
        return None
    found = None
    for d in devs:
        try:
            with open(os.path.join(base, d, "device")) as f:
                if int(f.read().strip(), 16) != 5:  # balloon
                    continue
            with open(os.path.join(base, d, "features")) as f:
                bits = f.read().strip()
            found = len(bits) > 5 and bits[5] == "1"
        except (OSError, ValueError):
            continue
    return found


def git_tree():
    """The tree being measured: {"commit", "describe", "changed"}, changed
    listing the tracked files that differ from the commit (bench/RESULTS.md,
    which the measurement rewrites, left out); None outside a git
    checkout."""
    def git(*args, strip=True):
        p = subprocess.run(["git", "-C", ROOT, *args], capture_output=True,
                           text=True, stdin=subprocess.DEVNULL, timeout=30)
        if p.returncode != 0:
            return None
        return p.stdout.strip() if strip else p.stdout
    try:
        commit = git("rev-parse", "HEAD")
    except OSError:
        return None
    if not commit:
        return None
    status = git("status", "--porcelain", "--untracked-files=no",
                 strip=False) or ""
    changed = [x[3:] for x in status.splitlines()
               if x[3:] != "bench/RESULTS.md"]
    return {"commit": commit,
            "describe": git("describe", "--always", "--tags") or commit[:12],
            "subject": git("log", "-1", "--format=%s"),
            "changed": changed}


def machine():
    """What the results were measured on."""
    mem = None
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    virt = None
    try:
        with open("/proc/cpuinfo") as f:
            virt = "hypervisor" in f.read().split()
    except OSError:
        pass
    return {"cpu_model": cpu_model(), "logical_cpus": os.cpu_count(),
            "memory_bytes": mem, "os": os_name(),
            "kernel": platform.release(), "arch": platform.machine(),
            "virtual_machine": virt, "hostname": platform.node(),
            "free_page_reporting": free_page_reporting(),
            "loadavg": loadavg(), "tree": git_tree(),
            "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def save(name, data):
    os.makedirs(OUT, exist_ok=True)
    data = dict(data)
    data["name"] = name
    data.setdefault("machine", machine())
    path = os.path.join(OUT, name + ".json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)
    return path


def tool(path):
    """The absolute path of a bench helper or binary, or exit saying how
    to get it."""
    if not os.access(path, os.X_OK):
        die("bench", f"{path} not found: run bench/run (it builds it)")
    return path


def agent_hash(ctl):
    """The agent source hash ctl deploys (`ctl --version`)."""
    out = subprocess.run([ctl, "--version"], capture_output=True, text=True,
                         check=True).stdout
    # "ctl 0.1.0 (agent sources 7713d39d5e884c8f, schema 1)"
    return out.split("agent sources ", 1)[1].split(",", 1)[0].strip()


def ctl_where(ctl, env, aliases, name="bench"):
    """{alias: (path, built)}: where `ctl run` runs the agent on each host
    (`ctl where`, which asks the host with ctl run's own preflight and
    cache key, so no rule of ctl's is repeated here), and whether one is
    built there. Exits with ctl's own words when it cannot say."""
    p = subprocess.run([ctl, "where", *aliases], env=env,
                       capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=300)
    out = {}
    for line in p.stdout.splitlines():
        host, path, state = line.split("\t")
        out[host] = (path, state == "built")
    if p.returncode != 0 or sorted(out) != sorted(aliases):
        die(name, f"ctl where {' '.join(aliases)} exited {p.returncode}: "
            f"{p.stderr.strip() or p.stdout.strip()}")
    return out


def agent_dir(agent_path):
    """The deploy directory of an agent path ctl where printed
    (DIR/build/bin/agent)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(agent_path)))


def agent_command(agent_path, home, agent_args):
    """The command line ctl run sends for a cached agent
    (controller/run/runner_ssh.c, run_command: cd, PATH, exec), for the agent
    path ctl where printed on a host whose HOME is home: its deploy
    directory as "$HOME"/ and the rest, as ctl sends it, so that one
    command serves hosts whose paths differ only by their HOME."""
    rel = os.path.relpath(agent_dir(agent_path), home)
    if rel.startswith(".."):
        raise ValueError(f"{agent_path} is not under {home}")
    return ('cd "$HOME"/%s || exit 127; '
            'PATH="$PATH:/usr/local/cuda/bin"; export PATH; '
            'exec ./build/bin/agent --exit-on-hangup %s'
            % (shlex.quote(rel),
               " ".join(shlex.quote(x) for x in agent_args)))


def install_agent(dst, src):
    """Puts the program src at dst, the agent path `ctl where` gave for a
    host (the fixture's remote HOME is a directory of this machine), so
    that ctl run finds it built there and runs it."""
    os.makedirs(os.path.dirname(dst), mode=0o700, exist_ok=True)
    tmp = dst + ".tmp"
    with open(src, "rb") as f, open(tmp, "wb") as out:
        out.write(f.read())
    os.chmod(tmp, 0o755)
    os.replace(tmp, dst)
    return dst


# What bench/fake_agent writes as its agent's version and source hash
# (host record) and as every gemm record's library: how a side tells that
# it ran the stand-in and not a real agent.
STAND_IN = "bench-stand-in"


def run_json(results_dir):
    """The run.json of the one run under results_dir, or None."""
    try:
        runs = [x for x in os.listdir(results_dir)
                if os.path.isdir(os.path.join(results_dir, x))]
        if len(runs) != 1:
            return None
        with open(os.path.join(results_dir, runs[0], "run.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def ctl_reason(m, results_dir=None, limit=1500):
    """ctl's own account of a run that failed: its exit status, the end of
    its stdout (where --no-tui prints each host's state and reason, and the
    table), its stderr, and each host's status and reason in run.json."""
    parts = [f"ctl exited {m.rc}"]
    rj = run_json(results_dir) if results_dir else None
    if rj:
        parts.append("run.json: " + "; ".join(
            f"{h.get('name')} {h.get('status')}"
            + (f" ({h['reason']})" if h.get("reason") else "")
            + f", agent {h.get('agent_hash')}"
            for h in rj.get("hosts", [])))
    out = m.out.decode(errors="replace") if m.out else \
        "".join(x.decode(errors="replace") for _, x in m.lines)
    # --no-tui's progress lines ("[host] failed: why") and its last line
    # ("run ID incomplete: ..."), not the table between them.
    said = [x for x in out.splitlines() if x.startswith(("[", "run "))]
    if said:
        parts.append("stdout: " + " / ".join(said[-12:])[-limit:])
    if m.err.strip():
        parts.append("stderr: " + m.err.strip()[-limit:])
    return " | ".join(parts)


def first_record(data):
    """The first record of NDJSON bytes (the host record), or None."""
    for line in data.decode(errors="replace").splitlines():
        try:
            return json.loads(line)
        except ValueError:
            return None
    return None


SKIP = 77  # exit status of a comparison that could not run here (CTest's)


def skip(name, reason, data=None):
    """Ends a comparison that cannot run here (a peer not installed, no
    GPU): writes OUT/<name>.json saying so and why, exits 77."""
    d = dict(data or {})
    d.update({"status": "skipped", "reason": reason})
    save(name, d)
    log(name, f"skipped: {reason}")
    sys.exit(SKIP)


def finish(name, problems):
    """The exit status of a comparison that ran: 0 when every side
    produced its figures, else 1 after saying which did not."""
    for x in problems:
        log(name, f"FAILED: {x}")
    return 1 if problems else 0


def sshhosts():
    """The SSHHosts fixture class (tests/lib/sshhosts.py)."""
    if SSHHOSTS not in sys.path:
        sys.path.insert(0, SSHHOSTS)
    import sshhosts as mod
    return mod.SSHHosts
