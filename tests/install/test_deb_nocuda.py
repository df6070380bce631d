#!/usr/bin/env python3
"""The .deb built with CUDA works on a machine without it (issue 32).

This build tree's package (`cpack -G DEB`, with the CUDA agent when the
tree has one), installed with apt into a fresh Debian 12 root (made and
kept by tools/fresh-root's ensure_base: debootstrap once, minutes, then
cached in /var/cache/benchfleet-debian12 or $BF_DEBIAN12_CACHE), which has
no CUDA at all. There, from /tmp:

- /usr/bin/agent (built with CUDA) does not start: the loader lacks
  libcudart;
- /usr/bin/agent-cpu is in the package and starts;
- `ctl run local` exits 0: its host record's cuda object and every GPU row
  are skipped with the reason (the CUDA agent does not start here, the
  loader's words naming libcudart, agent-cpu ran instead), and the CPU
  GEMM rows are measured and verified.

Skips (77) when the tree was built without CUDA (nothing to show: that
package has no CUDA agent), without root, unshare, chroot, debootstrap or
cpack, or when the Debian mirror is unreachable and no root is cached.
"""

import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import keeplogs  # noqa: E402

BUILD = os.environ.get("BF_BUILD", "")
CPACK = os.environ.get("BF_CPACK") or shutil.which("cpack")


def fresh_root_module():
    path = os.path.join(CHECKOUT, "tools", "fresh-root")
    loader = importlib.machinery.SourceFileLoader("fresh_root", path)
    spec = importlib.util.spec_from_loader("fresh_root", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def main():
    if not BUILD or not os.path.exists(os.path.join(BUILD, "bin",
                                                    "agent-cpu")):
        print("skip: this tree has no agent-cpu (built without CUDA): "
              "its package has no CUDA agent to fall back from")
        return 77
    if os.geteuid() != 0:
        print("skip: needs root (chroot)")
        return 77
    for tool in ("unshare", "chroot", "debootstrap", "dpkg-deb"):
        if not shutil.which(tool):
            print("skip: %s is not installed" % tool)
            return 77
    if not CPACK:
        print("skip: no cpack")
        return 77
    fr = fresh_root_module()
    cache = os.environ.get("BF_DEBIAN12_CACHE") or fr.DEFAULT_CACHE
    os.makedirs(cache, exist_ok=True)
    import fcntl
    lock = open(os.path.join(cache, "lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    mirror = fr.arm64root.mirror()
    try:
        base, _ = fr.ensure_base(cache, mirror)
    except RuntimeError as e:
        if not fr.arm64root.mirror_reachable(mirror):
            print("skip: Debian mirror %s unreachable" % mirror)
            return 77
        print("FAIL: " + str(e))
        return 1
    tmp = tempfile.mkdtemp(prefix="bf-deb-nocuda-")
    root = os.path.join(cache, "work-nocuda-%d" % os.getpid())
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print("FAIL: " + what)

    try:
        p = subprocess.run([CPACK, "--config",
                            os.path.join(BUILD, "CPackConfig.cmake"),
                            "-G", "DEB", "-B", tmp], cwd=BUILD,
                           capture_output=True, text=True, timeout=600)
        debs = [n for n in os.listdir(tmp) if n.endswith(".deb")]
        check(p.returncode == 0 and len(debs) == 1,
              "cpack: one .deb:\n" + p.stdout + p.stderr)
        if failures:
            return 1
        listing = subprocess.run(["dpkg-deb", "-c", os.path.join(tmp,
                                                                  debs[0])],
                                 capture_output=True, text=True).stdout
        check("./usr/bin/agent-cpu" in listing,
              "the package holds /usr/bin/agent-cpu")
        fr.copy_root(base, root)
        shutil.copy(os.path.join(tmp, debs[0]),
                    os.path.join(root, "root", debs[0]))
        script = (
            "set -e; cd /root; apt-get update -q; "
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -q "
            "--no-install-recommends ./%s; cd /tmp; "
            "if /usr/bin/agent --version; then echo AGENT-STARTS; fi; "
            "/usr/bin/agent-cpu --version; "
            "ctl run local --size 64 --iters 2 --warmup 1 --no-bandwidth "
            "--no-tui --results /tmp/res; echo CTL-EXIT=$?; "
            "cat /tmp/res/*/*.ndjson > /tmp/records.ndjson" % debs[0])
        logp = os.path.join(tmp, "root.log")
        with open(logp, "w") as f:
            rc = fr.in_root(root, script, f, 1500)
        with open(logp) as f:
            out = f.read()
        print(out[-6000:])
        check(rc == 0, "the script in the root exits 0 (got %d)" % rc)
        check("AGENT-STARTS" not in out and "libcudart" in out,
              "the CUDA agent does not start there (libcudart missing)")
        check("CTL-EXIT=0" in out, "ctl run local exits 0")
        recs = []
        rp = os.path.join(root, "tmp", "records.ndjson")
        if os.path.exists(rp):
            with open(rp) as f:
                recs = [json.loads(line) for line in f if line.strip()]
        host = [r for r in recs if r.get("type") == "host"]
        check(len(host) == 1, "one host record")
        if host:
            cu = host[0].get("cuda", {})
            check(cu.get("status") == "skipped"
                  and "does not start here" in cu.get("reason", "")
                  and "libcudart" in cu.get("reason", "")
                  and "agent-cpu" in cu.get("reason", ""),
                  "the host record's cuda says why: %r" % cu)
        gemms = [r for r in recs if r.get("type") == "gemm"]
        cpu = [g for g in gemms if g.get("device") == "cpu"]
        gpu = [g for g in gemms if g.get("device") != "cpu"]
        check(cpu and all(g.get("status") == "pass" for g in cpu
                          if g.get("dtype") == "fp32"),
              "CPU fp32 GEMMs measured: %r" % [(g.get("dtype"),
                                                 g.get("status"))
                                                for g in cpu])
        check(gpu and all(g.get("status") == "skipped" and "libcudart" in
                          g.get("reason", "") for g in gpu),
              "GPU rows skipped with the reason: %r" % gpu[:1])
    finally:
        fr.arm64root._remove_root(root)
    ok = not failures
    keeplogs.finish(tmp, ok, "install.deb_nocuda")
    print("%d check(s) failed" % len(failures) if failures else "all passed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
