#!/usr/bin/env python3
"""ctl check (issue 31), with no SSH: `ctl check local` with
$BENCHFLEET_AGENT a fake agent that replays the records of one real run of
the agent beside ctl (their GEMM rows marked reliable), so that the
verdict depends on the reference file alone and never on this machine's
speed or load:

- a team reference far above the measured figure: exit 7, the slow line
  ("[local] benchfleet: cpu slow: fp32 ... of its reference", at most 100
  bytes of printable ASCII), the run archived with tag check (ctl list),
  the --prometheus file (checked by promtool check metrics where Debian's
  prometheus package is installed) and the --node-labels file (NFD
  features.d: name=value label-safe lines) saying slow, each written
  whole (no FILE.tmp left);
- a reference at half the figure: exit 0, an ok line, files saying ok;
- an agent that never answers, with --budget 1: exit 8 and "unknown:
  budget exceeded", never a hang (the budget is the outcome tested, so
  no assertion depends on timing);
- a failed tensor check whose reason is hostile text (escapes, a newline,
  UTF-8, 300 bytes): exit 1, one failed line of 100 printable bytes;
- an ok check whose --prometheus file cannot be written: exit 4;
- usage errors: --drain for a remote host, --budget 0, no host, an empty
  file name (exit 2).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from replay import AgentRun  # noqa: E402

CTL = os.environ["BF_CTL"]
AGENT = os.path.join(os.path.dirname(CTL), "agent")
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SLOW, EXIT_UNKNOWN = 0, 1, 2, 7, 8
REAL = None
CPU = None
GFLOPS = None
N = 64
LABEL = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


def setUpModule():
    global REAL, CPU, GFLOPS
    run = AgentRun(AGENT, N)
    REAL, CPU, GFLOPS = run.lines, run.cpu_model, run.gflops


class Check(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bf-check-")
        self.results = os.path.join(self.tmp, "res")
        self.hosts = os.path.join(self.tmp, "hosts")
        os.makedirs(os.path.join(self.hosts, "references"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fake_agent(self, body):
        d = os.path.join(self.tmp, "fake")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "records.ndjson"), "w") as f:
            f.write("".join(l + "\n" for l in REAL))
        path = os.path.join(d, "agent")
        with open(path, "w") as f:
            f.write('#!/bin/sh\nd=%s\ncase "$1" in --version) echo fake; '
                    'exit 0;; esac\n%s' % (d, body))
        os.chmod(path, 0o755)
        return path

    def reference(self, tflops):
        with open(os.path.join(self.hosts, "references", "team.json"),
                  "w") as f:
            json.dump({"schema": "benchfleet-references/1",
                       "sources": {"lab": {"tool": "test"}},
                       "references": [{"product": CPU, "dtype": "fp32",
                                       "n": N, "tflops": tflops,
                                       "source": "lab"}]}, f)

    def check(self, agent, *extra, timeout=300):
        env = dict(os.environ, BENCHFLEET_AGENT=agent, LC_ALL="C")
        env.pop("BENCHFLEET_RESULTS_DIR", None)
        return subprocess.run(
            [CTL, "check", "local", "--results", self.results,
             "--hosts-dir", self.hosts] + list(extra),
            cwd=self.tmp, env=env, capture_output=True, text=True,
            timeout=timeout, stdin=subprocess.DEVNULL)

    def lines(self, out):
        return [l for l in out.splitlines() if l.startswith("[local] benchfleet:")]

    def assert_reason(self, line):
        reason = line[len("[local] "):]
        self.assertLessEqual(len(reason.encode()), 100, reason)
        self.assertTrue(all(0x20 <= ord(c) <= 0x7e for c in reason), reason)

    def run_json(self):
        [rid] = os.listdir(self.results)
        with open(os.path.join(self.results, rid, "run.json")) as f:
            return rid, json.load(f)

    def nfd(self, path):
        feats = {}
        with open(path) as f:
            for line in f.read().splitlines():
                if line.startswith("#"):
                    continue
                name, _, value = line.partition("=")
                self.assertRegex(name, LABEL)
                self.assertRegex(value, LABEL)
                feats[name] = value
        return feats

    def promtool(self, path):
        tool = shutil.which("promtool")
        if not tool:
            print("note: promtool not installed; format checked by unit.check")
            return
        with open(path) as f:
            p = subprocess.run([tool, "check", "metrics"], stdin=f,
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_slow_against_team_reference(self):
        self.reference(GFLOPS / 1000 * 100)  # 100 times what it did
        prom = os.path.join(self.tmp, "bf.prom")
        labels = os.path.join(self.tmp, "benchfleet.features")
        p = self.check(self.fake_agent('cat "$d/records.ndjson"\n'),
                       "--prometheus", prom, "--node-labels", labels)
        self.assertEqual(p.returncode, EXIT_SLOW, p.stdout + p.stderr)
        [line] = self.lines(p.stdout)
        self.assertRegex(line, r"^\[local\] benchfleet: cpu slow: fp32 "
                         r"[0-9.]+ [GT]FLOP/s = 0\.01 of its reference$")
        self.assert_reason(line)
        self.assertIn("1 slow, 0 failed, 0 unknown (exit 7)", p.stdout)
        rid, run = self.run_json()
        self.assertEqual(run["tag"], "check")
        r = subprocess.run([CTL, "list", "--results", self.results],
                           capture_output=True, text=True, timeout=60)
        self.assertIn(rid, r.stdout)
        self.assertIn("check", r.stdout)
        # The files, whole.
        self.assertFalse(os.path.exists(prom + ".tmp"))
        self.assertFalse(os.path.exists(labels + ".tmp"))
        with open(prom) as f:
            text = f.read()
        self.assertIn('benchfleet_check_verdict{host="local",device="cpu",'
                      'dtype="fp32",n="%d",verdict="slow"} 1\n' % N, text)
        self.assertIn('benchfleet_check_status{host="local",status="slow"} 1\n',
                      text)
        m = re.search(r'benchfleet_check_gemm_flops\{host="local",'
                      r'device="cpu",dtype="fp32",n="%d"\} (\S+)\n' % N, text)
        self.assertIsNotNone(m, text)
        self.assertAlmostEqual(float(m.group(1)), GFLOPS * 1e9,
                               delta=GFLOPS * 1e9 * 1e-9)
        m = re.search(r'benchfleet_check_reference_ratio\{[^}]*\} (\S+)\n', text)
        self.assertAlmostEqual(float(m.group(1)), 0.01, delta=1e-9)
        self.promtool(prom)
        feats = self.nfd(labels)
        self.assertEqual(feats["benchfleet-verdict"], "slow")
        self.assertEqual(feats["benchfleet-cpu-fp32-verdict"], "slow")
        self.assertEqual(feats["benchfleet-run"], rid)
        self.assertAlmostEqual(float(feats["benchfleet-cpu-fp32-tflops"]),
                               GFLOPS / 1000, delta=max(GFLOPS / 1000 * 0.01,
                                                        0.0006))

    def test_ok_against_team_reference(self):
        self.reference(GFLOPS / 1000 / 2)  # half of what it did
        labels = os.path.join(self.tmp, "benchfleet.features")
        p = self.check(self.fake_agent('cat "$d/records.ndjson"\n'),
                       "--node-labels", labels)
        self.assertEqual(p.returncode, EXIT_OK, p.stdout + p.stderr)
        [line] = self.lines(p.stdout)
        self.assertRegex(line, r"^\[local\] benchfleet: cpu ok: fp32 "
                         r"[0-9.]+ [GT]FLOP/s = 2\.00 of its reference$")
        self.assertEqual(self.nfd(labels)["benchfleet-verdict"], "ok")

    def test_failed_check_hostile_reason(self):
        # A tensor check that failed, its reason a host's hostile text:
        # exit 1, one failed line of at most 100 printable ASCII bytes.
        self.reference(GFLOPS / 1000 / 2)
        recs = [json.loads(l) for l in REAL]
        c = [r for r in recs if r["type"] == "check"][0]
        c["status"] = "fail"
        c["reason"] = ("\x1b[2J\x1b]0;owned\x07evil\nReason=x \u2122 " +
                       "y" * 300)
        agent = self.fake_agent("")
        with open(os.path.join(os.path.dirname(agent), "records.ndjson"),
                  "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in recs))
        with open(agent, "a") as f:
            f.write('cat "$d/records.ndjson"\n')
        p = self.check(agent)
        self.assertEqual(p.returncode, EXIT_FAILED, p.stdout + p.stderr)
        [line] = self.lines(p.stdout)
        self.assert_reason(line)
        self.assertTrue(line.startswith(
            "[local] benchfleet: cpu failed: check %s: ?[2J?]0;owned?evil?"
            "Reason=x ??? yyy" % c["name"]), line)
        self.assertTrue(line.endswith("y..."), line)
        self.assertEqual(len(line), len("[local] ") + 100)

    def test_file_not_written(self):
        # An ok check whose --prometheus file cannot be written: exit 4,
        # one line naming the file; nothing left behind.
        self.reference(GFLOPS / 1000 / 2)
        prom = os.path.join(self.tmp, "no-such-dir", "bf.prom")
        p = self.check(self.fake_agent('cat "$d/records.ndjson"\n'),
                       "--prometheus", prom)
        self.assertEqual(p.returncode, 4, p.stdout + p.stderr)
        self.assertEqual(p.stderr.strip(), "ctl: check: %s.tmp: No such "
                         "file or directory" % prom)
        self.assertFalse(os.path.exists(os.path.dirname(prom)))

    def test_budget_exceeded(self):
        agent = self.fake_agent("exec sleep 600\n")
        p = self.check(agent, "--budget", "1")
        self.assertEqual(p.returncode, EXIT_UNKNOWN, p.stdout + p.stderr)
        self.assertEqual(self.lines(p.stdout),
                         ["[local] benchfleet: unknown: budget exceeded "
                          "(--budget 1 s): agent stopped"])
        rid, run = self.run_json()
        self.assertEqual(run["tag"], "check")
        self.assertEqual(run["hosts"][0]["status"], "failed")
        self.assertTrue(run["hosts"][0]["reason"].startswith(
            "budget exceeded"), run["hosts"][0]["reason"])

    def test_usage(self):
        agent = self.fake_agent("exit 0\n")
        for args, msg in (
                (["check", "somehost", "--drain"], "for `ctl check local`"),
                (["check", "local", "--budget", "0"], "--budget"),
                (["check", "local", "--prometheus", ""],
                 "--prometheus '': expected a file name"),
                (["check", "local", "--node-labels", "--drain"],
                 "--node-labels '--drain': expected a file name"),
                (["check"], "no host given")):
            p = subprocess.run([CTL] + args + ["--results", self.results],
                               capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, BENCHFLEET_AGENT=agent))
            self.assertEqual(p.returncode, EXIT_USAGE, p.stderr)
            self.assertIn(msg, p.stderr)
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertFalse(os.path.exists(self.results))


if __name__ == "__main__":
    unittest.main(verbosity=2)
