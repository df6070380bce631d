#!/usr/bin/env python3
"""Black-box tests of ctl run with hosts that are one machine, and of the
hosts side by side in its plain output and in ctl show.

The loopback test hosts (tests/lib/sshhosts.py: two real sshd's on
127.0.0.1) and `local` are one machine by design: the same /etc/machine-id
and boot id. So ctl must find them before anything runs, say
"bfhost1, bfhost2, local: one machine; run one at a time", and run them
one after another in the command line's order, which the archive's
timestamps (each host's turn in run.json) show; with
--concurrent-same-machine it runs them at once and marks every figure
unreliable with that reason. The plain table puts the hosts side by side
after the per-host table, each host's speed over the reference host's
(--baseline HOST, else the first), and the closing line names ctl compare
RUN-ID. Exits 77 without root, sshd or a built ctl.
"""

import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_ctl_run as tcr  # noqa: E402

NAMES = ["bfhost1", "bfhost2", "local"]
ARGS = ["--bandwidth-mib", "8",
        "--sizes", "64,96", "--iters", "3", "--warmup", "1", "--device", "cpu",
        "--dtypes", "fp32"]
SHARED = ("one machine with other hosts of the run, measured at the same "
          "time (--concurrent-same-machine)")


def table_rows(stdout):
    """The per-host table's rows: {(host, n): GFLOP/s text}."""
    out = {}
    for line in stdout.splitlines():
        m = re.match(r"^(bfhost\d|local)\s+cpu\s+fp32\s+(\d+)\s+(\S+)\s", line)
        if m:
            out[(m.group(1), int(m.group(2)))] = m.group(3)
    return out


def side_by_side(stdout):
    """The side-by-side section: its title line's columns and its rows
    (lists of cells), up to the legend line."""
    lines = stdout.splitlines()
    i = lines.index("side by side (median GFLOP/s)")
    titles = lines[i + 1].split()
    rows = []
    for line in lines[i + 2:]:
        if line.startswith("HOST/"):
            break
        rows.append(line.split())
    return titles, rows, lines[i + 2 + len(rows)]


class SameMachineTest(tcr.CtlTestCase):
    N_HOSTS = 2
    SEED = (1, 2)

    def gemms(self, d, h):
        return [r for r in self.records(d, h) if r["type"] == "gemm"]

    def check_side_by_side(self, c, d, hs, ref, shared=False):
        """The section's cells are the per-host table's GFLOP/s, and each
        ratio is the host's median GFLOP/s over ref's from the records,
        with "?" when either is unreliable (the agent's verdict, or
        shared: measured at once on one machine)."""
        titles, rows, legend = side_by_side(c.stdout)
        others = [n for n in NAMES if n != ref]
        self.assertEqual(titles, ["device", "dtype", "n"] + NAMES +
                         ["%s/%s" % (n, ref) for n in others])
        self.assertEqual(legend, "HOST/%s: HOST's median GFLOP/s over %s's "
                         "(?: either is unreliable)"
                         % (ref, ref))
        per_host = table_rows(c.stdout)
        recs = {n: {g["n"]: g for g in self.gemms(d, hs[n])} for n in NAMES}
        self.assertEqual([int(r[2]) for r in rows], [64, 96])
        for r in rows:
            n = int(r[2])
            self.assertEqual(r[:2], ["cpu", "fp32"])
            for k, name in enumerate(NAMES):
                self.assertEqual(r[3 + k], per_host[(name, n)])
            for k, name in enumerate(others):
                a, b = recs[name][n], recs[ref][n]
                want = "%.2fx" % (a["gflops"] / b["gflops"])
                if shared or not (a["reliable"] and b["reliable"]):
                    want += "?"
                self.assertEqual(r[3 + len(NAMES) + k], want)

    def turns(self, hs):
        return [(hs[n]["started_at"], hs[n]["ended_at"]) for n in NAMES]

    def test_one_machine_runs_one_at_a_time(self):
        c = self.run_ctl(ARGS + NAMES, timeout=240)
        self.assertEqual(c.rc, tcr.EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        lines = [l for _, l in c.lines]
        notice = "bfhost1, bfhost2, local: one machine; run one at a time"
        self.assertIn(notice, lines)
        # Found before the turn of every host but the first of the
        # machine (which may start while the others are still being
        # asked), said once.
        first_run = min(i for i, l in enumerate(lines)
                        if re.match(r"^\[(bfhost2|local)\] (deploying|running)",
                                    l))
        self.assertLess(lines.index(notice), first_run)
        self.assertEqual(lines.count(notice), 2)  # and under the table
        self.assertIn("[bfhost2] waiting for bfhost1 (one machine)", lines)
        self.assertIn("[local] waiting for bfhost2 (one machine)", lines)
        for n in NAMES:
            self.assertEqual(hs[n]["same_machine"], "bfhost1, bfhost2, local")
            self.assertIs(hs[n]["same_machine_at_once"], False)
            self.assertEqual(hs[n]["status"], "done")
        # One after another, in the command line's order: each host's
        # turn ends before the next one's begins (ISO 8601 UTC with
        # milliseconds: compared as text).
        turns = self.turns(hs)
        for start, end in turns:
            self.assertRegex(start, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
            self.assertLessEqual(start, end)
        for (_, end), (start, _) in zip(turns, turns[1:]):
            self.assertLessEqual(end, start, turns)
        # Not marked: measured alone.
        self.assertNotIn(SHARED, c.stdout)
        self.assertEqual(run["baseline_host"], "bfhost1")
        self.check_side_by_side(c, d, hs, "bfhost1")
        self.assertTrue(c.stdout.rstrip().endswith(
            "(whether the hosts differ: ctl compare %s)" % run["run_id"]))
        # What will run, before the sweep, per host.
        for n in NAMES:
            self.assertRegex(c.stdout, r"(?m)^\[%s\] plan: 2 GEMMs: n 64 96, "
                             r"fp32 on cpu; 3 iterations after 1 warm-up, "
                             r"CPU \d+ after \d+$" % n)
        # ctl show prints the same: the machine and the hosts side by side.
        p = subprocess.run([tcr.CTL, "show", run["run_id"], "--results",
                            self.results], capture_output=True, text=True,
                           timeout=60, env=self.env())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\n" + notice + "\n", p.stdout)
        self.assertEqual(side_by_side(p.stdout), side_by_side(c.stdout))

        # Again: each plan line says how long the same settings took.
        c2 = self.run_ctl(ARGS + NAMES, timeout=240)
        self.assertEqual(c2.rc, tcr.EXIT_OK, c2.stdout + c2.stderr)
        for n in NAMES:
            self.assertRegex(c2.stdout, r"(?m)^\[%s\] plan: .*; last time "
                             r"(\d+\.\d s|\d+:\d\d) \(run %s\)$"
                             % (n, run["run_id"]))

    def test_at_once_marks_every_figure(self):
        c = self.run_ctl(ARGS + ["--concurrent-same-machine"] + NAMES,
                         timeout=240)
        self.assertEqual(c.rc, tcr.EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assertIn("bfhost1, bfhost2, local: one machine; run at once "
                      "(--concurrent-same-machine)", c.stdout)
        self.assertNotIn("waiting for", c.stdout)
        for n in NAMES:
            self.assertEqual(hs[n]["same_machine"], "bfhost1, bfhost2, local")
            self.assertIs(hs[n]["same_machine_at_once"], True)
        # The note, and every figure pointing to it.
        m = re.search(r"(?m)^\?(\d) %s: (\d+) rows" % re.escape(SHARED),
                      c.stdout)
        self.assertTrue(m, c.stdout)
        self.assertEqual(int(m.group(2)), 6)
        cells = table_rows(c.stdout)
        self.assertEqual(len(cells), 6)
        for v in cells.values():
            marks = re.match(r"^\d+\.\d\?([\d,]+)$", v)
            self.assertTrue(marks, v)
            self.assertIn(m.group(1), marks.group(1).split(","))
        self.check_side_by_side(c, d, hs, "bfhost1", shared=True)
        # ctl show marks them too, from run.json.
        p = subprocess.run([tcr.CTL, "show", run["run_id"], "--results",
                            self.results], capture_output=True, text=True,
                           timeout=60, env=self.env())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(table_rows(p.stdout), cells)
        self.assertIn(m.group(0), p.stdout)

    def test_baseline_host(self):
        c = self.run_ctl(ARGS + ["--baseline", "bfhost2"] + NAMES, timeout=240)
        self.assertEqual(c.rc, tcr.EXIT_OK, c.stdout + c.stderr)
        d, run, hs = self.archive(c)
        self.assertEqual(run["baseline_host"], "bfhost2")
        self.check_side_by_side(c, d, hs, "bfhost2")
        # A host that is not one of the run's: nothing made.
        p = subprocess.run([tcr.CTL, "run", "--no-tui", "--results",
                            self.results, "--baseline", "bfhost3"] + ARGS +
                           ["bfhost1", "local"], capture_output=True,
                           text=True, timeout=60, env=self.env(), cwd=self.cwd)
        self.assertEqual(p.returncode, tcr.EXIT_USAGE, p)
        self.assertEqual(p.stderr, "ctl: --baseline bfhost3: not a host of "
                         "this run (hosts: bfhost1, local)\n")
        self.assertEqual(p.stdout, "")
        self.assertEqual(len(self.run_dirs()), 1)


def main():
    if not tcr.CTL or not os.access(tcr.CTL, os.X_OK):
        print("skip: ctl not built (set BF_CTL)")
        return 77
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK):
        print("skip: needs root and /usr/sbin/sshd")
        return 77
    tcr.HASH = tcr.agent_hash()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
