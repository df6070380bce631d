#!/usr/bin/env python3
"""ctl run on 64 hosts at once: every host completes, nothing is lost.

64 sshd's would swamp a 2-core machine, so the 64 hosts are 64 ssh_config
aliases (fleet1..fleet64) spread over 2 real sshd's (tests/lib/sshhosts.py).
Each sshd first gets the agent by a real deploy (ctl run bfhost1 bfhost2);
the 64-host run (--jobs 16) then finds it cached. Checked: exit 0, run.json
lists 64 hosts, all done with complete records, none malformed, and each
host file holds every record run.json counted, ending with the summary.
Exits 77 without root or sshd.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from bfpaths import find_ctl  # noqa: E402
from sshhosts import SSHHosts  # noqa: E402

CTL = find_ctl()
N = 64
SSHDS = 2
SMALL = ["--size", "32", "--dtypes", "fp32", "--device", "cpu", "--iters",
         "1", "--warmup", "0", "--cpu-iters", "1", "--cpu-warmup", "0",
         "--no-tui", "--timeout", "120",
         # 8 MiB, not the default of some 3 x 1 GiB per agent: 16 agents
         # at once on this one machine would want 48 GiB (CI saw
         # MemAvailable reach 0 and hosts fail).
         "--bandwidth-mib", "8"]


def fleet_config(hosts, path):
    blocks = []
    for i in range(1, N + 1):
        k = (i - 1) % SSHDS + 1
        blocks.append(
            "Host fleet%d\n  HostName 127.0.0.1\n  Port %d\n  User root\n"
            "  IdentityFile %s\n  UserKnownHostsFile %s\n"
            "  StrictHostKeyChecking yes\n  BatchMode yes\n"
            % (i, hosts.ports[k], hosts.user_key, hosts.known_hosts))
    with open(path, "w") as f:
        f.write("\n".join(blocks))
    os.chmod(path, 0o600)


class SixtyFour(unittest.TestCase):
    def test_64_hosts_all_complete(self):
        with tempfile.TemporaryDirectory() as tmp, SSHHosts(SSHDS) as hosts:
            env = hosts.env()
            res = os.path.join(tmp, "res")
            # All on this machine: at once regardless, as the fan-out
            # this test is about.
            first = subprocess.run(
                [CTL, "run", "bfhost1", "bfhost2", "--results", res,
                 "--concurrent-same-machine"] + SMALL,
                env=env, cwd=tmp, capture_output=True, text=True,
                timeout=900, stdin=subprocess.DEVNULL)
            self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
            cfg = os.path.join(tmp, "fleet_config")
            fleet_config(hosts, cfg)
            res64 = os.path.join(tmp, "res64")
            names = ["fleet%d" % i for i in range(1, N + 1)]
            p = subprocess.run(
                [CTL, "run", "-F", cfg, "--jobs", "16", "--results", res64,
                 "--concurrent-same-machine"] + names + SMALL, env=env, cwd=tmp, capture_output=True,
                text=True, timeout=1200, stdin=subprocess.DEVNULL)
            self.assertEqual(p.returncode, 0, p.stdout[-4000:] + p.stderr)
            (run,) = os.listdir(res64)
            with open(os.path.join(res64, run, "run.json")) as f:
                meta = json.load(f)
            self.assertEqual(meta["status"], "complete")
            self.assertEqual([h["name"] for h in meta["hosts"]], names)
            for h in meta["hosts"]:
                self.assertEqual((h["status"], h["complete_records"],
                                  h["malformed_lines"]), ("done", "yes", 0), h)
                with open(os.path.join(res64, run, h["records_file"])) as f:
                    recs = [json.loads(line) for line in f]
                self.assertEqual(len(recs), h["records"], h["name"])
                self.assertEqual(recs[-1]["type"], "summary", h["name"])
                self.assertEqual(h["gemm_done"], h["gemm_total"], h["name"])


if __name__ == "__main__":
    if not CTL or os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK):
        print("skipped: needs ctl, root and sshd")
        sys.exit(77)
    unittest.main(verbosity=2)
