#!/usr/bin/env python3
"""ctl history and --fail-on-regression against real archives.

Real `ctl run local` runs, each GEMM through a slow but correct sgemm
preloaded into the agent (slow_sgemm.c: 50 ms or 150 ms after each call):
ten runs with the 50 ms shim must give no change point; six more with the
150 ms shim must give exactly one, at the first of them, with
env.LD_PRELOAD as what changed. The runs' provenance is as they recorded
it; their timed samples are pinned (pin_samples) to the first run of
their shim, so that the statistics do not depend on the machine's load
(a sleep overshoots under it). Archives edited for a known step (every run's samples made the
first run's, the later runs' slower) give it at the right run with no
provenance change. A run with
other settings is a series of its own. ctl compare --fail-on-regression
exits 5 on the real step.

BF_CTL, BF_SLOW_50, BF_SLOW_150 come from CTest.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

CTL = os.environ.get("BF_CTL", "ctl")
SLOW_50 = os.environ.get("BF_SLOW_50")
SLOW_150 = os.environ.get("BF_SLOW_150")
RUN = ["run", "local", "--size", "64", "--device", "cpu", "--dtypes", "fp32",
       "--no-bandwidth", "--no-batching", "--no-tui"]


def env_with(shim=None):
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    if shim:
        env["LD_PRELOAD"] = shim
        if "ASAN_OPTIONS" in env:  # the shim is not instrumented
            env["ASAN_OPTIONS"] += ":verify_asan_link_order=0"
    return env


def ctl(*args, shim=None):
    return subprocess.run([CTL, *args], capture_output=True, text=True,
                          timeout=300, env=env_with(shim))


def runs_of(results):
    """The run ids under results in the order they started (run.json's
    started_at, to the millisecond): two runs of one second have ids in
    the order of their random suffixes, not of their times."""
    def started(d):
        with open(os.path.join(results, d, "run.json")) as f:
            return json.load(f)["started_at"], d
    return sorted((d for d in os.listdir(results)
                   if os.path.isdir(os.path.join(results, d))), key=started)


def gemm_files(results, run_id):
    """(path, records, the passing gemm records) of each of run_id's
    NDJSON files under results."""
    d = os.path.join(results, run_id)
    for name in sorted(os.listdir(d)):
        if name.endswith(".ndjson"):
            path = os.path.join(d, name)
            with open(path) as f:
                recs = [json.loads(line) for line in f if line.strip()]
            yield path, recs, [g for g in recs if g.get("type") == "gemm"
                               and g.get("status") == "pass"]


def pin_samples(results, run_ids, base_id, k=1.0):
    """Each passing gemm record of run_ids made base_id's, its times
    scaled by k: the timed samples, medians, spread and reliability, and
    the peak and reference (the CPU probe's measured peak moves between
    runs under load by more than the 5 % that counts as a provenance
    change). Everything else, the provenance included, stays as the run
    recorded it. So a series' statistics are the same on any machine at
    any load: a 50 ms sleep in the shim ran some 12 % longer in a few
    runs at load 20, which the change-point scan rightly called a
    change."""
    base = {(g["dtype"], g["n"]): g
            for _, _, gs in gemm_files(results, base_id) for g in gs}
    for run_id in run_ids:
        for path, recs, gs in gemm_files(results, run_id):
            for g in gs:
                b = base[(g["dtype"], g["n"])]
                for f in ("spread", "reliable", "unreliable_reasons"):
                    g[f] = b[f]
                for f in list(g):
                    if f.startswith(("peak", "reference")):
                        del g[f]
                g.update({f: v for f, v in b.items()
                          if f.startswith(("peak", "reference"))})
                g["samples_ms"] = [x * k for x in b["samples_ms"]]
                for f in ("median_ms", "min_ms", "max_ms"):
                    g[f] = b[f] * k
                g["gflops"] = 2.0 * g["n"] ** 3 / g["median_ms"] / 1e6
                if k == 1.0:
                    g["fraction_of_peak"] = b.get("fraction_of_peak")
                    g["fraction_of_roofline"] = b.get("fraction_of_roofline")
                else:
                    g["fraction_of_peak"] = None
                    g["fraction_of_roofline"] = None
            with open(path, "w") as f:
                for g in recs:
                    f.write(json.dumps(g) + "\n")


class HistoryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-history-")
        cls.same = os.path.join(cls.tmp, "same")    # ten 50 ms runs
        cls.step = os.path.join(cls.tmp, "step")    # those and six 150 ms
        for i in range(10):
            r = ctl(*RUN, "--results", cls.same, shim=SLOW_50)
            assert r.returncode == 0, r.stdout + r.stderr
        same_ids = runs_of(cls.same)
        pin_samples(cls.same, same_ids, same_ids[0])
        shutil.copytree(cls.same, cls.step)
        for i in range(6):
            r = ctl(*RUN, "--results", cls.step, shim=SLOW_150)
            assert r.returncode == 0, r.stdout + r.stderr
        cls.step_ids = runs_of(cls.step)
        pin_samples(cls.step, cls.step_ids[10:], cls.step_ids[10])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def history(self, results, *args):
        r = ctl("history", "local", "--results", results, *args)
        self.assertIn(r.returncode, (0, 5), r.stderr)
        return r

    def series(self, results, *args):
        r = self.history(results, "--json", *args)
        doc = json.loads(r.stdout)
        return [s for s in doc["series"] if s["device"] == "cpu" and
                s["dtype"] == "fp32" and s["n"] == 64]

    def test_same_settings_no_change(self):
        s = self.series(self.same)
        self.assertEqual(len(s), 1)
        self.assertEqual(len(s[0]["points"]), 10)
        self.assertEqual(s[0]["change_points"], [])
        r = self.history(self.same, "--fail-on-regression", "5")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertRegex(r.stdout, r"(?m)^cpu fp32 n=64  10 runs  \S{10}$")
        self.assertRegex(r.stdout, r"(?m)^  runs 1-10  \S+ \.\. \S+  median "
                                   r"[\d.]+ GFLOP/s \(spread \d+%\)$")
        self.assertNotIn("change", r.stdout)

    def test_real_step_found_and_explained(self):
        s = self.series(self.step)
        self.assertEqual(len(s), 1)
        cps = s[0]["change_points"]
        self.assertEqual(len(cps), 1, cps)
        cp = cps[0]
        # At the first 150 ms run: the 11th, the first after the copy.
        self.assertEqual(cp["at"], 10)
        self.assertEqual(cp["run_id"], self.step_ids[10])
        self.assertLess(cp["p"], 0.05)
        self.assertLess(cp["change"], -0.4)   # about 3x slower
        self.assertTrue(cp["explained"])
        prov = {p["key"]: p for p in cp["provenance"]}
        self.assertIn("env.LD_PRELOAD", prov)
        self.assertEqual(prov["env.LD_PRELOAD"]["before"], SLOW_50)
        self.assertEqual(prov["env.LD_PRELOAD"]["after"], SLOW_150)
        r = self.history(self.step)
        self.assertIn("  change -", r.stdout)
        self.assertIn("    env.LD_PRELOAD: %s -> %s\n" % (SLOW_50, SLOW_150),
                      r.stdout)
        self.assertRegex(r.stdout, r"(?m)^  runs 1-10  ")
        self.assertRegex(r.stdout, r"(?m)^  runs 11-16  ")
        # Gating: a slowdown beyond 10% fails, one beyond 90% does not.
        self.assertEqual(self.history(self.step, "--fail-on-regression",
                                      "10").returncode, 5)
        self.assertEqual(self.history(self.step, "--fail-on-regression",
                                      "90").returncode, 0)
        # The last 6 runs alone have no change.
        self.assertEqual(self.series(self.step, "--last", "6")[0]
                         ["change_points"], [])

    def test_compare_fail_on_regression(self):
        a, b = self.step_ids[9], self.step_ids[10]
        r = ctl("compare", a, b, "--results", self.step,
                "--fail-on-regression", "10")
        self.assertEqual(r.returncode, 5, r.stdout + r.stderr)
        self.assertIn("regression: ", r.stderr)
        r = ctl("compare", a, b, "--results", self.step,
                "--fail-on-regression", "90")
        self.assertEqual(r.returncode, 0, r.stderr)
        # Faster is no regression.
        r = ctl("compare", b, a, "--results", self.step,
                "--fail-on-regression", "10")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_edited_archive_step_unexplained(self):
        edited = os.path.join(self.tmp, "edited")
        shutil.rmtree(edited, ignore_errors=True)
        shutil.copytree(self.same, edited)
        ids = runs_of(edited)

        # Every run's timed samples made the first run's, and from the
        # 7th run on 1.5x slower: a step exactly there, which the runs'
        # own noise cannot move (pin_samples).
        pin_samples(edited, ids[:6], ids[0])
        pin_samples(edited, ids[6:], ids[0], 1.5)
        s = self.series(edited)
        cps = s[0]["change_points"]
        self.assertEqual([c["at"] for c in cps], [6], cps)
        self.assertFalse(cps[0]["explained"])
        # The change is that of the median run either side (the runs'
        # medians of an odd 5 samples are their records' gflops): the
        # edited runs are 1/1.5 of the others.
        med = [p["median_gflops"] for p in s[0]["points"]]
        self.assertAlmostEqual(cps[0]["before"] / statistics.median(med[:6]),
                               1, places=9)
        self.assertAlmostEqual(cps[0]["after"] / statistics.median(med[6:]),
                               1, places=9)
        self.assertAlmostEqual(cps[0]["change"],
                               cps[0]["after"] / cps[0]["before"] - 1, places=9)
        self.assertLess(cps[0]["change"], -0.2)
        r = self.history(edited)
        self.assertIn("    no provenance change: unexplained shift\n", r.stdout)

    def test_other_settings_never_joined(self):
        other = os.path.join(self.tmp, "other")
        shutil.rmtree(other, ignore_errors=True)
        shutil.copytree(self.same, other)
        r = ctl(*RUN, "--iters", "7", "--cpu-iters", "7", "--results", other,
                shim=SLOW_150)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        s = self.series(other)
        self.assertEqual(sorted(len(x["points"]) for x in s), [1, 10])
        for x in s:
            self.assertEqual(x["change_points"], [])
        one = [x for x in s if len(x["points"]) == 1][0]
        self.assertEqual(one["settings"], 1)
        self.assertIn(one["settings_change"], ("iters", "cpu_iters"))
        r = self.history(other)
        self.assertRegex(r.stdout, r"(?m)^cpu fp32 n=64  settings 2 \((cpu_)?iters "
                                   r"differs from the settings before\)  1 run  ")

    def test_row_says_slower_than_its_recent_runs(self):
        # The last runs on this machine with these settings took 50 ms a
        # GEMM: a run at 150 ms says so on its row, not only in Δ%; one
        # at 50 ms, shown by ctl show, says nothing of the kind.
        live = os.path.join(self.tmp, "live")
        shutil.rmtree(live, ignore_errors=True)
        shutil.copytree(self.same, live)
        r = ctl(*RUN, "--results", live, shim=SLOW_150)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        row = re.search(r"(?m)^local\s+cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        self.assertTrue(row.endswith(" slower than its last 5 runs"), row)
        # The newest 50 ms run against the five 50 ms runs before it.
        r = ctl("show", "--results", self.same)
        row = re.search(r"(?m)^local\s+cpu\s+fp32\s+64\s.*$", r.stdout).group(0)
        self.assertNotIn("than its last", row)
        self.assertTrue(row.endswith(" done"), row)

    def test_report_marks_changes_and_settings(self):
        out = os.path.join(self.tmp, "step.html")
        r = ctl("report", "--results", self.step, "--history", "16", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            html = f.read()
        marks = re.findall(r'<g class="change">.*?<title>(.*?)</title></g>', html)
        self.assertEqual(len(marks), 1, marks)
        self.assertRegex(marks[0], r"^change -\d+\.\d% \(p=0\.\d+\): env\.LD_PRELOAD: ")
        self.assertIn("slow_sgemm_50.so \u2192 ", marks[0])
        self.assertNotIn('class="settings"', html)
        other = os.path.join(self.tmp, "settings")
        shutil.rmtree(other, ignore_errors=True)
        shutil.copytree(self.same, other)
        r = ctl(*RUN, "--iters", "7", "--cpu-iters", "7", "--results", other,
                shim=SLOW_50)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = ctl("report", "--results", other, "--history", "11", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            html = f.read()
        self.assertRegex(html, r'<line class="settings" [^>]*><title>settings 2 from '
                               r'here: (cpu_)?iters differs</title></line>')
        self.assertNotIn('<g class="change">', html)

    def test_errors(self):
        r = ctl("history", "nosuchhost", "--results", self.same)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.splitlines(),
                         ["ctl: history: %s: no run with host nosuchhost" %
                          self.same])
        r = ctl("history", "--results", self.same)
        self.assertEqual(r.returncode, 2)
        self.assertIn("give one HOST", r.stderr)
        r = ctl("history", "local", "--results", self.same,
                "--fail-on-regression", "x")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.strip(), "ctl: --fail-on-regression 'x': "
                         "expected a number from 0 to 100")


if __name__ == "__main__":
    if not (SLOW_50 and SLOW_150):
        print("skipped: BF_SLOW_50 / BF_SLOW_150 unset (run through CTest)")
        sys.exit(77)
    unittest.main(verbosity=2)
