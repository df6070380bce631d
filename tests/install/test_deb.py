#!/usr/bin/env python3
"""The Debian package (issue 22): `cpack -G DEB` of this build tree into a
temporary directory, then what dpkg-deb says of it.

- one benchfleet_<version>_<arch>.deb, Package benchfleet, the machine's
  architecture;
- Depends names the libraries ctl and the agent link (from dpkg-shlibdeps:
  libc6, libssh-4, libcjson1, libopenblas0, libncursesw6, libssl3), and
  no package of the CUDA toolkit (not Debian's);
- it holds /usr/bin/ctl and /usr/bin/agent, both man pages, the bash and
  zsh completions (zsh's in Debian's vendor-completions) and the docs;
- unpacked (dpkg-deb -x, not installed: tools/fresh-root installs it into
  a fresh Debian 12 root), its ctl says it is installed and its agent
  runs.

Skips (77) without cpack, dpkg-deb, dpkg-shlibdeps or file.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import keeplogs  # noqa: E402

BUILD = os.environ.get("BF_BUILD")
CPACK = os.environ.get("BF_CPACK") or shutil.which("cpack")

WANT_DEPENDS = ("libc6", "libssh-4", "libcjson1", "libopenblas0",
                "libncursesw6", "libssl3")
WANT_FILES = ("./usr/bin/ctl", "./usr/bin/agent",
              "./usr/share/man/man1/ctl.1.gz",
              "./usr/share/man/man1/agent.1.gz",
              "./usr/share/bash-completion/completions/ctl",
              "./usr/share/zsh/vendor-completions/_ctl",
              "./usr/share/doc/benchfleet/README.md",
              "./usr/share/doc/benchfleet/hosts/README.md")


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=600,
                          **kw)


def main():
    missing = [t for t in ("dpkg-deb", "dpkg-shlibdeps", "file")
               if not shutil.which(t)]
    if not BUILD or not CPACK or missing:
        print("skip: needs BF_BUILD, cpack, %s" % (", ".join(missing) or
                                                   "dpkg-deb"))
        return 77
    tmp = tempfile.mkdtemp(prefix="bf-deb-")
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print("FAIL: " + what)

    p = run([CPACK, "--config", os.path.join(BUILD, "CPackConfig.cmake"),
             "-G", "DEB", "-B", tmp], cwd=BUILD)
    check(p.returncode == 0, "cpack -G DEB exits 0:\n" + p.stdout + p.stderr)
    debs = [n for n in os.listdir(tmp) if n.endswith(".deb")]
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    check(len(debs) == 1 and re.fullmatch(r"benchfleet_\d+\.\d+\.\d+_%s\.deb"
                                          % re.escape(arch), debs[0] if debs
                                          else ""), "one .deb: %r" % debs)
    if debs:
        deb = os.path.join(tmp, debs[0])
        info = run(["dpkg-deb", "-I", deb])
        print(info.stdout)
        check(info.returncode == 0, "dpkg-deb -I: " + info.stderr)
        fields = dict(re.findall(r"^ ([A-Za-z-]+): (.*)$", info.stdout, re.M))
        check(fields.get("Package") == "benchfleet", "Package: benchfleet")
        check(fields.get("Architecture") == arch, "Architecture: " + arch)
        deps = [d.strip().split()[0]
                for d in fields.get("Depends", "").split(",") if d.strip()]
        for want in WANT_DEPENDS:
            check(want in deps, "Depends names %s: %s" % (want, deps))
        check(not [d for d in deps if "cuda" in d or "cublas" in d],
              "no CUDA package in Depends: %s" % deps)
        listing = run(["dpkg-deb", "-c", deb]).stdout
        names = {line.split()[-1] for line in listing.splitlines() if line}
        for want in WANT_FILES:
            check(want in names, "the package holds " + want)
        root = os.path.join(tmp, "root")
        check(run(["dpkg-deb", "-x", deb, root]).returncode == 0,
              "dpkg-deb -x")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("BENCHFLEET_", "XDG_"))}
        env["HOME"] = os.path.join(tmp, "home")
        p = run([os.path.join(root, "usr", "bin", "ctl"), "--help"], env=env)
        check(p.returncode == 0 and "This ctl is installed." in
              " ".join(p.stdout.split()), "the packaged ctl is installed: "
              + p.stdout + p.stderr)
        p = run([os.path.join(root, "usr", "bin", "agent"), "--version"])
        check(p.returncode == 0 and p.stdout.startswith("agent "),
              "the packaged agent runs: " + p.stdout + p.stderr)
    ok = not failures
    keeplogs.finish(tmp, ok, "install.deb")
    print("%d check(s) failed" % len(failures) if failures else "all passed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
