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


def run(argv, env=None, cwd=None, timeout=600, lines=False,
        stdout_path=None):
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
                         stderr=errf, env=env, cwd=cwd)
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
            "loadavg": loadavg(),
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
    """The agent source hash ctl deploys (the remote cache key)."""
    out = subprocess.run([ctl, "--version"], capture_output=True, text=True,
                         check=True).stdout
    # "ctl 0.1.0 (agent sources 7713d39d5e884c8f, schema 1)"
    return out.split("agent sources ", 1)[1].split(",", 1)[0].strip()


def agent_command(h, agent_args):
    """The exact command line ctl run sends for a cached agent
    (controller/run/runner_ssh.c, run_command): cd, PATH, exec."""
    return ('cd "$HOME"/.cache/benchfleet/%s || exit 127; '
            'PATH="$PATH:/usr/local/cuda/bin"; export PATH; '
            'exec ./build/bin/agent --exit-on-hangup %s'
            % (h, " ".join(agent_args)))


def sshhosts():
    """The SSHHosts fixture class (tests/lib/sshhosts.py)."""
    if SSHHOSTS not in sys.path:
        sys.path.insert(0, SSHHOSTS)
    import sshhosts as mod
    return mod.SSHHosts


def install_agent(hosts, i, agent, h):
    """Puts the agent binary where ctl's deploy would have built it on
    host i (its cache directory for hash h), so that ctl finds it cached.
    The fixture's remote HOME is a directory of this machine."""
    d = os.path.join(hosts.remote_home(i), ".cache", "benchfleet", h,
                     "build", "bin")
    os.makedirs(d, mode=0o700, exist_ok=True)
    dst = os.path.join(d, "agent")
    tmp = dst + ".tmp"
    with open(agent, "rb") as src, open(tmp, "wb") as out:
        out.write(src.read())
    os.chmod(tmp, 0o755)
    os.replace(tmp, dst)
    return dst
