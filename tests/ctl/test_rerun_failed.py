#!/usr/bin/env python3
"""ctl run --rerun-failed RUN-ID: only the hosts that did not complete in
that run, with its agent options, in a new run whose run.json says
rerun_of; a run where everything completed has nothing to re-run."""

import glob
import json
import os
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]
OPTS = ["--bandwidth-mib", "8",
        "--size", "32", "--iters", "3", "--device", "cpu", "--dtypes",
        "fp32", "--no-tui", "--results", "res", "--timeout", "5"]


def ctl(args, cwd, env=None):
    return subprocess.run([CTL] + args, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def runs(cwd):
    out = {}
    for p in glob.glob(os.path.join(cwd, "res", "*", "run.json")):
        with open(p) as f:
            d = json.load(f)
        out[d["run_id"]] = d
    return out


class RerunFailed(unittest.TestCase):
    def test_only_failed_hosts_same_options(self):
        with tempfile.TemporaryDirectory() as tmp:
            # Port 1 on loopback refuses: that host fails, local completes.
            p = ctl(["run", "local", "127.0.0.1:1"] + OPTS, tmp)
            self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
            (first,) = runs(tmp)
            p = ctl(["run", "--rerun-failed", first, "--results", "res"], tmp)
            self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
            all_runs = runs(tmp)
            (second,) = [r for r in all_runs if r != first]
            meta = all_runs[second]
            self.assertEqual(meta["rerun_of"], first)
            self.assertNotIn("rerun_of", all_runs[first])
            self.assertEqual([h["name"] for h in meta["hosts"]],
                             ["127.0.0.1:1"])
            cl = meta["command_line"]
            self.assertEqual(cl[-1], "127.0.0.1:1")
            self.assertNotIn("local", cl)
            self.assertNotIn("--rerun-failed", cl)
            for o in ("--size", "32", "--iters", "3"):
                self.assertIn(o, cl)

    def test_failed_host_reruns_with_its_options(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, BENCHFLEET_AGENT="/nonexistent/agent")
            p = ctl(["run", "local"] + OPTS, tmp, env)
            self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
            (first,) = runs(tmp)
            p = ctl(["run", "--rerun-failed", first, "--results", "res"], tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            (second,) = [r for r in runs(tmp) if r != first]
            meta = runs(tmp)[second]
            self.assertEqual((meta["status"], meta["rerun_of"]),
                             ("complete", first))
            h = meta["hosts"][0]
            with open(os.path.join(tmp, "res", second, h["records_file"])) as f:
                opts = json.loads(f.readline())["options"]
            self.assertEqual((opts["sizes"], opts["iters"]), ([32], 3))
            # Everything completed now: nothing to re-run.
            p = ctl(["run", "--rerun-failed", second, "--results", "res"], tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("nothing to re-run", p.stdout)
            self.assertEqual(len(runs(tmp)), 2)

    def test_options_given_now_replace_the_old_runs(self):
        # The old run's --sizes, --iters, --results and --bandwidth-mib,
        # given again here (--size or --sizes, --iters, --results,
        # --no-bandwidth): each replaces the old one, nothing conflicts.
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, BENCHFLEET_AGENT="/nonexistent/agent")
            p = ctl(["run", "local", "--sizes", "32,48", "--iters", "3",
                     "--device", "cpu", "--dtypes", "fp32", "--bandwidth-mib",
                     "8", "--no-tui", "--results", "res"], tmp, env)
            self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
            (first,) = runs(tmp)
            for now, sizes in ((["--size", "16"], [16]),
                               (["--sizes", "16,24"], [16, 24])):
                with self.subTest(now=now):
                    before = set(runs(tmp))
                    p = ctl(["run", "--rerun-failed", first, "--results",
                             "res", "--iters", "2", "--no-bandwidth"] + now,
                            tmp)
                    self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                    (second,) = set(runs(tmp)) - before
                    meta = runs(tmp)[second]
                    cl = meta["command_line"]
                    self.assertEqual(meta["rerun_of"], first)
                    self.assertEqual(cl.count("--size") + cl.count("--sizes"),
                                     1, cl)
                    self.assertEqual(cl.count("--iters"), 1, cl)
                    self.assertEqual(cl.count("--results"), 1, cl)
                    self.assertNotIn("--bandwidth-mib", cl)
                    self.assertIn("--dtypes", cl)  # the old run's, kept
                    h = meta["hosts"][0]
                    with open(os.path.join(tmp, "res", second,
                                           h["records_file"])) as f:
                        opts = json.loads(f.readline())["options"]
                    self.assertEqual((opts["sizes"], opts["iters"],
                                      opts["dtypes"], opts["no_bandwidth"]),
                                     (sizes, 2, ["fp32"], True))
                    self.assertNotIn("bandwidth_mib", opts)

    def test_run_id_prefix(self):
        # A unique prefix names the run, as in ctl show and compare; the
        # new run.json says rerun_of with the id in full. A prefix of two
        # runs is refused, naming the ambiguity.
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, BENCHFLEET_AGENT="/nonexistent/agent")
            p = ctl(["run", "local"] + OPTS, tmp, env)
            self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
            (first,) = runs(tmp)
            p = ctl(["run", "--rerun-failed", first[:4], "--results", "res"],
                    tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            (second,) = [r for r in runs(tmp) if r != first]
            self.assertEqual(runs(tmp)[second]["rerun_of"], first)
            p = ctl(["run", "--rerun-failed", first[:4], "--results", "res"],
                    tmp)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
            self.assertIn("'%s': ambiguous run id prefix: 2 runs" % first[:4],
                          p.stderr)
            self.assertEqual(len(runs(tmp)), 2)

    def test_usage_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = ctl(["run", "--rerun-failed", "nosuchrun", "--results", "res"], tmp)
            self.assertEqual(p.returncode, 2)
            # A run id never starts with '-': that is the next option.
            p = ctl(["run", "--rerun-failed", "--no-tui", "--results", "res"],
                    tmp)
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stderr, "ctl: --rerun-failed: '--no-tui' is "
                             "an option, not a run id\n")
            self.assertFalse(os.path.exists(os.path.join(tmp, "res")))
            p = ctl(["run", "local", "--rerun-failed", "x"], tmp)
            self.assertEqual(p.returncode, 2)
            self.assertIn("give no hosts", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
