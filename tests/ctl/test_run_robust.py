#!/usr/bin/env python3
"""ctl run against misbehaving agents (issue 11), with no SSH: `ctl run
local` with $BENCHFLEET_AGENT set to a shell script written by each test,
which replays records from a real run of the agent (the one beside ctl)
with a fault added. Checks what the user sees (stdout, stderr, exit
status) and what run.json and the host files say:

- completeness: summary only, a record rejected (NaN), duplicates;
- remote text with escape sequences and invalid UTF-8 never reaches the
  terminal, valid UTF-8 does;
- numbers out of range are rejected, never printed as -2147483648, and
  so are timed samples that are no times;
- 200k garbage lines give bounded stdout and log;
- a silent agent is stopped by --host-timeout, also one silent from the
  start;
- SIGHUP mid-run: run.json incomplete, exit 130, host files intact;
- a bad inventory env name is refused before anything runs;
- a results directory that cannot be made: exit 3, nothing runs;
- a full disk (a 64 KiB tmpfs, as root; skipped where mount is not
  permitted): one line on stderr, exit 3, run.json says why, host file in
  whole lines;
- a results disk that cannot hold run.json and its reserve at the start
  (a file size limit of 0, which always runs; and a full tmpfs where
  mount is permitted): refused before the agent starts, one line, exit 3,
  no run directory left.

No assertion depends on timing: events are waited for, and the only
clock is --host-timeout's, whose expiry is the outcome tested.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import resource
import time
import unittest

CTL = os.environ["BF_CTL"]
AGENT = os.path.join(os.path.dirname(CTL), "agent")
EXIT_OK, EXIT_USAGE, EXIT_HOSTS_FAILED, EXIT_INTERRUPTED = 0, 2, 3, 130
# Three GEMMs, quickly.
AGENT_ARGS = ["--bandwidth-mib", "8",
              "--sizes", "32,48,64", "--dtypes", "fp32", "--iters", "2",
              "--warmup", "1", "--device", "cpu"]
REAL = None   # the real agent's records (lines), set up once


def setUpModule():
    global REAL
    p = subprocess.run([AGENT] + AGENT_ARGS, capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        raise RuntimeError("agent: %s" % p.stderr)
    REAL = p.stdout.splitlines()


def recs():
    return [json.loads(l) for l in REAL]


def dump(r):
    return json.dumps(r, separators=(",", ":"), ensure_ascii=False)


class Robust(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bf-robust-")
        self.results = os.path.join(self.tmp, "res")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fake_agent(self, script, lines=None, raw=None):
        """A fake agent: lines (text) or raw (bytes) in records.ndjson
        beside it, script its body ($d is its directory)."""
        d = os.path.join(self.tmp, "fake")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "records.ndjson"), "wb") as f:
            if raw is not None:
                f.write(raw)
            else:
                f.write("".join(l + "\n" for l in lines).encode())
        path = os.path.join(d, "agent")
        with open(path, "w") as f:
            f.write("#!/bin/sh\nd=%s\n%s" % (d, script))
        os.chmod(path, 0o755)
        return path

    def env(self, agent):
        return dict(os.environ, BENCHFLEET_AGENT=agent)

    def ctl(self, agent, extra=(), results=None, timeout=240):
        p = subprocess.run(
            [CTL, "run", "local", "--no-tui", "--results",
             results or self.results] + AGENT_ARGS + list(extra),
            cwd=self.tmp, env=self.env(agent), capture_output=True,
            timeout=timeout, stdin=subprocess.DEVNULL)
        return p

    def archive(self, results=None):
        results = results or self.results
        runs = os.listdir(results)
        self.assertEqual(len(runs), 1, runs)
        d = os.path.join(results, runs[0])
        with open(os.path.join(d, "run.json")) as f:
            run = json.load(f)
        return d, run, run["hosts"][0]

    def host_lines(self, d, h, key="records_file"):
        with open(os.path.join(d, h[key]), "rb") as f:
            return f.read()

    # -- completeness ------------------------------------------------------

    def assert_incomplete(self, p, parts):
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED,
                         p.stdout.decode() + p.stderr.decode())
        d, run, h = self.archive()
        self.assertEqual(run["status"], "incomplete")
        self.assertEqual(h["status"], "failed")
        self.assertEqual(h["complete_records"], "no")
        for part in parts:
            self.assertIn(part, h["reason"])
            self.assertIn(part, p.stdout.decode())
        return d, run, h

    def test_complete_run_is_done(self):
        agent = self.fake_agent('cat "$d/records.ndjson"\n', REAL)
        p = self.ctl(agent)
        self.assertEqual(p.returncode, EXIT_OK, p.stdout + p.stderr)
        d, run, h = self.archive()
        self.assertEqual((run["status"], h["status"], h["complete_records"]),
                         ("complete", "done", "yes"))
        self.assertEqual(h["gemm_done"], 3)
        self.assertFalse(os.path.exists(os.path.join(d, ".reserve")))

    def test_summary_only_is_incomplete(self):
        agent = self.fake_agent('cat "$d/records.ndjson"\n', REAL[-1:])
        self.assert_incomplete(self.ctl(agent), ["no plan record"])

    def test_rejected_record_leaves_a_seq_gap(self):
        r = recs()
        k = next(i for i, x in enumerate(r) if x["type"] == "gemm")
        lines = list(REAL)
        # NaN is not JSON: the line is malformed, its record missing.
        lines[k] = re.sub(r'"median_ms":[-0-9.e+]+', '"median_ms":NaN',
                          lines[k])
        self.assertIn("NaN", lines[k])
        agent = self.fake_agent('cat "$d/records.ndjson"\n', lines)
        d, run, h = self.assert_incomplete(
            self.ctl(agent), ["2 of 3 gemm records", "seq %d missing" % k])
        self.assertEqual(h["malformed_lines"], 1)
        self.assertEqual(h["gemm_done"], 2)

    def test_duplicates_are_counted_once(self):
        r = recs()
        k = next(i for i, x in enumerate(r) if x["type"] == "gemm")
        lines = REAL[:k + 1] + [REAL[k]] * 6 + REAL[k + 1:]
        agent = self.fake_agent('cat "$d/records.ndjson"\n', lines)
        d, run, h = self.assert_incomplete(self.ctl(agent),
                                           ["6 duplicate records"])
        self.assertEqual((h["gemm_done"], h["gemm_total"]), (3, 3))
        self.assertEqual(h["records"], len(REAL))
        # The host file holds each record once.
        self.assertEqual(self.host_lines(d, h).decode().splitlines(), REAL)

    def test_out_of_range_numbers_are_rejected(self):
        r = recs()
        plan = next(i for i, x in enumerate(r) if x["type"] == "plan")
        gemm = next(i for i, x in enumerate(r) if x["type"] == "gemm")
        lines = list(REAL)
        lines[plan] = re.sub(r'"gemm_total":\d+', '"gemm_total":1e300',
                             lines[plan])
        lines[gemm] = re.sub(r'"n":\d+', '"n":1e300', lines[gemm])
        agent = self.fake_agent('cat "$d/records.ndjson"\n', lines)
        p = self.ctl(agent)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        out = p.stdout.decode() + p.stderr.decode()
        self.assertNotIn("2147483648", out)
        # Refused as malformed, the field named (never shown as a value
        # in the table).
        # The number as the line wrote it, not as the double read.
        self.assertIn('field "gemm_total" is 1e300: expected an integer '
                      'from 0 to 1048576', out)
        self.assertIn('field "n" is 1e300: expected an integer from 1 '
                      'to 65536', out)
        table = out[out.index("\nhost "):]
        self.assertNotIn("e+300", table)
        d, run, h = self.archive()
        self.assertEqual(h["status"], "failed")
        self.assertNotIn("2147483648", json.dumps(run))
        self.assertGreaterEqual(h["malformed_lines"], 1)

    def test_samples_that_are_no_times_are_rejected(self):
        # A sample of 0 or below is malformed as an out-of-range count
        # is: refused, counted, the host incomplete; never a speed.
        r = recs()
        gemm = next(i for i, x in enumerate(r) if x["type"] == "gemm")
        lines = list(REAL)
        g = dict(r[gemm], samples_ms=[1e308, 1e308, -1e308, 0, 0])
        lines[gemm] = dump(g)
        agent = self.fake_agent('cat "$d/records.ndjson"\n', lines)
        p = self.ctl(agent)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        out = p.stdout.decode() + p.stderr.decode()
        self.assertIn('field "samples_ms"[2] is -1e+308: expected a time '
                      'above 0 ms', out)
        table = out[out.index("\nhost "):]
        self.assertNotRegex(table, r"(?m)^local\s+cpu\s+fp32\s+%d\s" % g["n"])
        d, run, h = self.archive()
        self.assertEqual(h["status"], "failed")
        self.assertEqual(h["malformed_lines"], 1)

    # -- the exit status comes from the records --------------------------

    def test_status_comes_from_the_records(self):
        # A gemm record says fail, the summary counts no failure and the
        # agent exits 0: ctl exits 1 (a result failed), as the records
        # say, and reports the disagreement: in a progress line, the
        # host's log, under the table, and in ctl show.
        r = recs()
        k = next(i for i, x in enumerate(r) if x["type"] == "gemm")
        r[k].update(status="fail", reason="wrong result", gflops=None,
                    fraction_of_peak=None, fraction_of_roofline=None)
        self.assertEqual(r[-1]["gemm_failed"], 0)
        agent = self.fake_agent('cat "$d/records.ndjson"\n',
                                [dump(x) for x in r])
        p = self.ctl(agent)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 1, out + p.stderr.decode())
        note = ("the agent's own counts disagree with its records: "
                "gemm_passed 3 (records: 2), gemm_failed 0 (records: 1), "
                "exit_status 0 (records: 1), the agent exited 0 "
                "(records: 1); the records decide")
        self.assertIn("[local] %s\n" % note, out)
        self.assertIn("\nlocal: %s\n" % note, out)
        row = re.search(r"(?m)^local\s+cpu\s+fp32\s+%d\s.*FAIL \[(\d+)\]$"
                        % r[k]["n"], out)
        self.assertIsNotNone(row, out)
        self.assertIn("\n[%s] wrong result\n" % row.group(1), out)
        d, run, h = self.archive()
        self.assertEqual((run["status"], h["status"]), ("complete", "done"))
        with open(os.path.join(d, h["log_file"])) as f:
            self.assertIn(note, f.read())
        shown = subprocess.run([CTL, "show", "--results", self.results],
                               capture_output=True, text=True, timeout=60)
        self.assertIn("\nlocal: %s\n" % note, shown.stdout)
        # The other way: every record passed, the agent says 1.
        shutil.rmtree(self.results)
        agent = self.fake_agent('cat "$d/records.ndjson"\nexit 1\n', REAL)
        p = self.ctl(agent)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, EXIT_OK, out + p.stderr.decode())
        self.assertIn("[local] the agent's own counts disagree with its "
                      "records: the agent exited 1 (records: 0); the "
                      "records decide\n", out)

    def test_self_contradicting_gemm_fails_the_run(self):
        # A gemm record that says pass but whose gflops is not 2 n^3 /
        # median_ms (twice that): shown as FAIL with the contradiction,
        # so ctl exits 1 although the record, the summary and the agent's
        # exit status all say everything passed.
        r = recs()
        k = next(i for i, x in enumerate(r) if x["type"] == "gemm" and
                 x["status"] == "pass")
        r[k]["gflops"] = r[k]["gflops"] * 2
        self.assertEqual(r[-1]["gemm_failed"], 0)
        agent = self.fake_agent('cat "$d/records.ndjson"\n',
                                [dump(x) for x in r])
        p = self.ctl(agent)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 1, out + p.stderr.decode())
        row = re.search(r"(?m)^local\s+%s\s+%s\s+%d\s.*FAIL \[(\d+)\]$"
                        % (r[k]["device"], r[k]["dtype"], r[k]["n"]), out)
        self.assertIsNotNone(row, out)
        self.assertRegex(out, r"\n\[%s\] invalid: gflops \S+ disagrees "
                         r"with 2 n\^3 / median_ms" % row.group(1))
        d, run, h = self.archive()
        self.assertEqual((run["status"], h["status"]), ("complete", "done"))
        # The same record consistent: exit 0.
        shutil.rmtree(self.results)
        agent = self.fake_agent('cat "$d/records.ndjson"\n', REAL)
        p = self.ctl(agent)
        self.assertEqual(p.returncode, EXIT_OK,
                         p.stdout.decode() + p.stderr.decode())

    def test_fewer_samples_than_iters_is_malformed(self):
        r = recs()
        k = next(i for i, x in enumerate(r) if x["type"] == "gemm")
        self.assertEqual((r[k]["iters"], len(r[k]["samples_ms"])), (2, 2))
        r[k]["samples_ms"] = r[k]["samples_ms"][:1]
        agent = self.fake_agent('cat "$d/records.ndjson"\n',
                                [dump(x) for x in r])
        p = self.ctl(agent)
        d, run, h = self.assert_incomplete(
            p, ["2 of 3 gemm records", "seq %d missing" % k])
        self.assertIn('[local] malformed line %d: gemm record: field '
                      '"samples_ms" holds 1 sample: expected 2, one per '
                      'timed iteration ("iters")' % (k + 1),
                      p.stdout.decode())
        self.assertEqual(h["malformed_lines"], 1)

    # -- terminal safety ---------------------------------------------------

    def test_escape_sequences_never_reach_the_terminal(self):
        r = recs()
        r[0]["hostname"] = "evil\x1b]0;title\x07host"
        g = next(x for x in r if x["type"] == "gemm")
        g["status"] = "skipped"
        g["reason"] = "caf\u00e9 \x1b[2J\x1b[31mred\x9b"
        g["median_ms"] = g["gflops"] = None
        lines = [dump(x).encode() for x in r]
        # Invalid UTF-8 inside a JSON string of a malformed line, and in
        # the agent's stderr, whose last line becomes the host's reason.
        raw = b"\n".join(lines[:2] + [b'{"bad\xff\xfe \x1b[5m', ] +
                         lines[2:]) + b"\n"
        agent = self.fake_agent(
            'cat "$d/records.ndjson"\n'
            "printf 'agent: \\033[31mboom\\377\\033]0;x\\007 caf\\303\\251\\n' >&2\n"
            "exit 4\n", raw=raw)
        p = self.ctl(agent)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        self.assertNotIn(b"\x1b", p.stdout)
        self.assertNotIn(b"\x1b", p.stderr)
        self.assertNotIn(b"\x9b", p.stdout.replace("\u009b".encode(), b""))
        self.assertNotIn("\u009b".encode(), p.stdout)
        out = p.stdout.decode("utf-8")   # valid UTF-8 throughout
        self.assertIn("caf\u00e9", out)   # the skip reason in the table
        self.assertIn("agent exited with status 4: agent: ", out)
        d, run, h = self.archive()
        self.assertNotIn("\x1b", h["reason"])
        self.assertIn("caf\u00e9", h["reason"])
        self.assertNotIn("\x1b", h["hostname"] or "")
        with open(os.path.join(d, h["log_file"]), "rb") as f:
            self.assertNotIn(b"\x1b[5m", f.read().split(b"agent: ")[0])

    def test_long_reason_whole(self):
        # Issue 28: the agent's last words, 2000 bytes, are the host's
        # reason whole (ctl kept 512 of them, ending in "...") in ctl
        # run's progress line and table, in run.json and in ctl show.
        words = " ".join("w%d" % i for i in range(400))
        last = ("agent: " + words + " " + "x" * 2000)[:1997] + "END"
        agent = self.fake_agent(
            'cat "$d/records.ndjson"\n'
            "printf '%%s\\n' '%s' >&2\n"
            "exit 4\n" % last, REAL)
        p = self.ctl(agent)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        reason = "agent exited with status 4: " + last
        out = p.stdout.decode()
        self.assertIn("[local] failed: " + reason + "\n", out)
        self.assertIn("local: failed: " + reason + "\n", out)
        d, run, h = self.archive()
        self.assertEqual(h["reason"], reason)
        s = subprocess.run([CTL, "show", run["run_id"], "--results",
                            self.results], cwd=self.tmp,
                           capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        self.assertIn("local: failed: " + reason + "\n", s.stdout,
                      s.stdout + s.stderr)

    def test_long_row_reason_whole(self):
        # Issue 28: a failed GEMM's 1500-byte reason is whole in the
        # verdict's line of ctl run and ctl show (the model kept 160
        # bytes of it, the verdict 480), and its note under the table
        # holds it whole, wrapped at spaces (and within its 1200-byte
        # word).
        r = recs()
        g = [x for x in r if x["type"] == "gemm"][1]
        words = " ".join("r%d" % i for i in range(300))
        reason = ("verification failed: " + words + " " +
                  "z" * 1500)[:1497] + "END"
        g.update(status="fail", reason=reason, gflops=None,
                 fraction_of_peak=None, fraction_of_roofline=None)
        agent = self.fake_agent('cat "$d/records.ndjson"\n',
                                [dump(x) for x in r])
        p = self.ctl(agent)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 1, out + p.stderr.decode())
        self.assertRegex(out, r"\nlocal cpu FAILED: fp32 n=%d n/a, %s "
                         % (g["n"], re.escape(reason)))
        note = re.search(r"\n\[(\d+)\] verification failed: (.*?)\n\n",
                         out, re.S)
        self.assertIsNotNone(note, out)
        self.assertEqual("verification failed: " +
                         re.sub(r"\n +", " ", note.group(2))
                         .replace("zzz ", "zzz"), reason)
        d, run, h = self.archive()
        s = subprocess.run([CTL, "show", run["run_id"], "--results",
                            self.results], cwd=self.tmp,
                           capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        self.assertIn("local cpu FAILED: fp32 n=%d n/a, %s " %
                      (g["n"], reason), s.stdout, s.stdout + s.stderr)

    # -- volume ------------------------------------------------------------

    def test_garbage_flood_is_summarised(self):
        n = 200000
        agent = self.fake_agent(
            'head -n 2 "$d/records.ndjson"\n'
            "yes 'garbage line {not json' | head -n %d\n"
            'tail -n +3 "$d/records.ndjson"\n' % n, REAL)
        p = self.ctl(agent)
        self.assertEqual(p.returncode, EXIT_OK, p.stderr)
        self.assertLess(len(p.stdout), 16 * 1024)
        out = p.stdout.decode()
        self.assertEqual(len(re.findall(r"(?m)^\[local\] malformed line",
                                        out)), 10)
        self.assertIn("[local] ... %d more malformed lines (see log)"
                      % (n - 10), out)
        d, run, h = self.archive()
        self.assertEqual(h["malformed_lines"], n)
        self.assertEqual(h["status"], "done")
        log = self.host_lines(d, h, "log_file").decode()
        self.assertLess(len(log), 1024 * 1024)
        self.assertIn("... %d more malformed lines not logged" % (n - 1000),
                      log)

    # -- a silent agent ----------------------------------------------------

    def test_silent_agent_is_timed_out(self):
        # Everything but the summary, then silence while alive.
        agent = self.fake_agent('cat "$d/records.ndjson"\nexec sleep 3600\n',
                                REAL[:-1])
        p = self.ctl(agent, ["--host-timeout", "5"], timeout=120)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        d, run, h = self.archive()
        self.assertEqual(h["status"], "failed")
        self.assertIn("no record for 5 s (--host-timeout)", h["reason"])
        self.assertEqual(h["records"], len(REAL) - 1)

    def test_agent_silent_from_the_start_is_timed_out(self):
        # Not one record (an agent hung before its first): the host
        # timeout counts from the running state, not from a record.
        agent = self.fake_agent("exec sleep 3600\n", [])
        p = self.ctl(agent, ["--host-timeout", "5"], timeout=120)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        d, run, h = self.archive()
        self.assertEqual(h["status"], "failed")
        self.assertIn("no record for 5 s (--host-timeout)", h["reason"])
        self.assertEqual(h["records"], 0)

    def test_host_timeout_is_checked(self):
        p = subprocess.run([CTL, "run", "local", "--host-timeout", "-1"],
                           capture_output=True, text=True, cwd=self.tmp)
        self.assertEqual(p.returncode, EXIT_USAGE)
        self.assertIn("--host-timeout", p.stderr)

    # -- SIGHUP ------------------------------------------------------------

    def test_sighup_ends_the_run_truthfully(self):
        r = recs()
        k = next(i for i, x in enumerate(r) if x["type"] == "gemm")
        agent = self.fake_agent(
            'head -n %d "$d/records.ndjson"\nexec sleep 3600\n' % (k + 1),
            REAL)
        proc = subprocess.Popen(
            [CTL, "run", "local", "--no-tui", "--results", self.results] +
            AGENT_ARGS, cwd=self.tmp, env=self.env(agent),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL)
        try:
            seen = []
            for line in proc.stdout:
                seen.append(line)
                if line.startswith(b"[local] running 1/3"):
                    break
            self.assertTrue(seen and seen[-1].startswith(b"[local] running 1/"),
                            seen)
            proc.send_signal(signal.SIGHUP)
            rest, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, EXIT_INTERRUPTED, err)
        self.assertIn(b"[local] interrupted\n", rest)
        # The state once, not "interrupted: interrupted" (issue 13), in
        # the progress line, the table's footer and ctl show's.
        self.assertNotIn(b"interrupted: interrupted", rest)
        self.assertIn(b"\nlocal: interrupted\n", rest)
        shown = subprocess.run([CTL, "show", "--results", self.results],
                               capture_output=True, timeout=60)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn(b"\nlocal: interrupted\n", shown.stdout)
        self.assertNotIn(b"interrupted: interrupted", shown.stdout)
        d, run, h = self.archive()
        self.assertEqual(run["status"], "incomplete")
        self.assertEqual(run["reason"], "interrupted by signal HUP")
        self.assertIsNotNone(run["ended_at"])
        self.assertEqual(h["status"], "interrupted")
        self.assertEqual(self.host_lines(d, h).decode().splitlines(),
                         REAL[:k + 1])

    # -- stdout that cannot take the output -----------------------------------

    def stdout_to(self, agent, out):
        """ctl run with its stdout on out (a file object or descriptor);
        returns (exit status, stderr)."""
        p = subprocess.run(
            [CTL, "run", "local", "--no-tui", "--results", self.results] +
            AGENT_ARGS, cwd=self.tmp, env=self.env(agent), stdout=out,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=240)
        return p.returncode, p.stderr.decode()

    def test_stdout_errors_name_their_cause(self):
        # `ctl run ... | true`: the reader is gone before the first
        # line; the run goes on, archives everything and says why the
        # output did not arrive (EPIPE, not the errno of whatever ran
        # after the last write). /dev/full: ENOSPC the same way.
        agent = self.fake_agent('cat "$d/records.ndjson"\n', REAL)
        r, w = os.pipe()
        os.close(r)
        try:
            rc, err = self.stdout_to(agent, w)
        finally:
            os.close(w)
        self.assertEqual((rc, err), (4, "ctl: write error: stdout: "
                                        "Broken pipe\n"))
        d, run, h = self.archive()
        self.assertEqual((run["status"], h["status"]), ("complete", "done"))
        if not os.path.exists("/dev/full"):
            return
        shutil.rmtree(self.results)
        with open("/dev/full", "w") as full:
            rc, err = self.stdout_to(agent, full)
        self.assertEqual((rc, err), (4, "ctl: write error: stdout: "
                                        "No space left on device\n"))

    # -- inventory -----------------------------------------------------------

    def test_bad_env_name_is_refused(self):
        hosts = os.path.join(self.tmp, "hosts")
        os.mkdir(hosts)
        with open(os.path.join(hosts, "x.json"), "w") as f:
            json.dump({"hosts": {"a": {"ssh": "root@127.0.0.1:1",
                                       "env": {"OK_1": "v", "A;x": "y"}}}},
                      f)
        p = subprocess.run([CTL, "run", "a", "--hosts-dir", hosts,
                            "--results", self.results],
                           capture_output=True, text=True, cwd=self.tmp)
        self.assertEqual(p.returncode, EXIT_USAGE, p.stdout + p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
        self.assertIn("host a: env: 'A;x' is not a variable name", p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertFalse(os.path.exists(self.results))

    # -- a results directory that cannot be written -------------------------

    def test_results_dir_that_cannot_be_made_is_an_archive_failure(self):
        # The archive could not be written (exit 3, one line, nothing
        # ran); an empty --results names no directory (exit 2).
        agent = self.fake_agent("exit 0\n", [])
        blocker = os.path.join(self.tmp, "file")
        with open(blocker, "w") as f:
            f.write("not a directory\n")
        cases = [(os.path.join(blocker, "res"), "Not a directory")]
        ro = os.path.join(self.tmp, "ro")
        os.mkdir(ro)
        mounted = False
        if os.geteuid() != 0:
            os.chmod(ro, 0o555)
            cases.append((os.path.join(ro, "res"), "Permission denied"))
        elif subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k",
                             "tmpfs", ro], capture_output=True).returncode == 0:
            mounted = True
            cases.append((os.path.join(ro, "res"), "Read-only file system"))
        try:
            for results, why in cases:
                with self.subTest(results=results):
                    p = self.ctl(agent, results=results)
                    self.assertEqual(p.returncode, EXIT_HOSTS_FAILED,
                                     p.stdout.decode() + p.stderr.decode())
                    self.assertEqual(p.stderr.decode(), "ctl: cannot create "
                                     "%s: %s\n" % (results, why))
                    self.assertNotIn(b"run ", p.stdout)
                    self.assertFalse(os.path.exists(results))
        finally:
            if mounted:
                subprocess.run(["umount", ro], check=False)
            os.chmod(ro, 0o755)
        p = subprocess.run([CTL, "run", "local", "--results", ""],
                           cwd=self.tmp, env=self.env(agent),
                           capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, EXIT_USAGE, p)
        self.assertEqual(p.stderr, "ctl: --results: empty directory name\n")
        self.assertEqual(p.stdout, "")

    # -- a full disk ---------------------------------------------------------

    def test_full_disk(self):
        if os.geteuid() != 0:
            self.skipTest("mount needs root")
        mnt = os.path.join(self.tmp, "small")
        os.mkdir(mnt)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k",
                            "tmpfs", mnt], capture_output=True, text=True)
        if m.returncode != 0:
            self.skipTest("mount not permitted: %s" % m.stderr.strip())
        try:
            self.full_disk(mnt)
        finally:
            subprocess.run(["umount", mnt], check=False)

    def refused_at_start(self, results, why, preexec=None):
        """The archive cannot be written at the start: the agent never
        runs, one line says why, exit 3, no run directory is left."""
        marker = os.path.join(self.tmp, "agent-ran")
        agent = self.fake_agent('touch %s\ncat "$d/records.ndjson"\n'
                                % marker, REAL)
        p = subprocess.run(
            [CTL, "run", "local", "--no-tui", "--results", results]
            + AGENT_ARGS, cwd=self.tmp, env=self.env(agent),
            capture_output=True, timeout=240, stdin=subprocess.DEVNULL,
            preexec_fn=preexec)
        err = p.stderr.decode()
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED,
                         p.stdout.decode() + err)
        self.assertRegex(err, r"^ctl: cannot reserve \d+ bytes for the last "
                         r"run\.json in %s/[0-9TZ]+-[0-9a-f]{4}: %s "
                         r"\(nothing ran\)\n$" % (re.escape(results), why))
        self.assertNotIn(b"run ", p.stdout)
        self.assertFalse(os.path.exists(marker), "the agent ran")
        self.assertEqual(os.listdir(results), [])

    def test_file_size_limit_refuses_at_start(self):
        # Always runs: RLIMIT_FSIZE 0 makes every write to a file fail
        # (EFBIG; SIGXFSZ, which would kill ctl, is ignored by ctl), as a
        # disk without a free block does. Before: every host ran and
        # left 0-byte files and no run.json (or ctl died of SIGXFSZ).
        results = os.path.join(self.tmp, "res")
        os.mkdir(results)
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]

        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))
        self.refused_at_start(results, "File too large", preexec=limit)

    def test_full_disk_refuses_at_start(self):
        if os.geteuid() != 0:
            self.skipTest("mount needs root")
        mnt = os.path.join(self.tmp, "small")
        os.mkdir(mnt)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k",
                            "tmpfs", mnt], capture_output=True, text=True)
        if m.returncode != 0:
            self.skipTest("mount not permitted: %s" % m.stderr.strip())
        try:
            results = os.path.join(mnt, "res")
            os.mkdir(results)
            filler = os.path.join(mnt, "filler")
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                while os.write(fd, b"\0" * 4096) > 0:
                    pass
            except OSError:
                pass
            os.close(fd)
            self.assertEqual(os.statvfs(mnt).f_bavail, 0)
            self.refused_at_start(results, "No space left on device")
        finally:
            subprocess.run(["umount", mnt], check=False)

    def test_reserve_leaves_room_for_records(self):
        # A disk with 24 KiB free: the space kept for the last run.json
        # is what run.json needs (a block here), not 17 KiB that left the
        # records file empty; and it is given up before that last write.
        if os.geteuid() != 0:
            self.skipTest("mount needs root")
        mnt = os.path.join(self.tmp, "small")
        os.mkdir(mnt)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k",
                            "tmpfs", mnt], capture_output=True, text=True)
        if m.returncode != 0:
            self.skipTest("mount not permitted: %s" % m.stderr.strip())
        try:
            self.reserve_on_small_disk(mnt)
        finally:
            subprocess.run(["umount", mnt], check=False)

    def reserve_on_small_disk(self, mnt):
        st = os.statvfs(mnt)
        block = st.f_frsize
        free = st.f_bavail * block
        want = 24 * 1024
        self.assertGreaterEqual(free, want + block)
        with open(os.path.join(mnt, "filler"), "wb") as f:
            f.write(b"\0" * (free - want))
        self.assertEqual(os.statvfs(mnt).f_bavail * block, want)
        r = recs()
        gemm = next(x for x in r if x["type"] == "gemm")
        out = [r[0], dict(next(x for x in r if x["type"] == "plan"),
                          checks_total=0, gemm_total=400)]
        out += [dict(gemm, n=16 + i) for i in range(400)]
        out.append(r[-1])
        for i, x in enumerate(out):
            x["seq"] = i
        agent = self.fake_agent('cat "$d/records.ndjson"\n',
                                [dump(x) for x in out])
        results = os.path.join(mnt, "res")
        p = self.ctl(agent, results=results)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        self.assertRegex(p.stderr.decode(), r"^ctl: local: archive write "
                         r"failed: 00-local\.ndjson: No space left on "
                         r"device\n$")
        d, run, h = self.archive(results)
        self.assertEqual(run["status"], "incomplete")
        self.assertIsNotNone(run["ended_at"])
        self.assertFalse(os.path.exists(os.path.join(d, ".reserve")))
        data = self.host_lines(d, h)
        self.assertTrue(data.endswith(b"\n"), data[-100:])
        # Of 24 KiB (6 blocks of 4 KiB): run.json, the reserve and the
        # log take a block each; the records get the rest, less the
        # line that did not fit.
        self.assertGreaterEqual(len(data), want - 4 * block, len(data))
        for line in data.decode().splitlines():
            json.loads(line)

    def full_disk(self, mnt):
        # 400 distinct GEMM records of about 1 KiB: far more than fits.
        r = recs()
        gemm = next(x for x in r if x["type"] == "gemm")
        out = [r[0], dict(next(x for x in r if x["type"] == "plan"),
                          checks_total=0, gemm_total=400)]
        for i in range(400):
            out.append(dict(gemm, n=16 + i))
        out.append(r[-1])
        for i, x in enumerate(out):
            x["seq"] = i
        agent = self.fake_agent('cat "$d/records.ndjson"\n',
                                [dump(x) for x in out])
        results = os.path.join(mnt, "res")
        p = self.ctl(agent, results=results)
        self.assertEqual(p.returncode, EXIT_HOSTS_FAILED, p)
        err = p.stderr.decode()
        self.assertEqual(err.count("\n"), 1, err)
        self.assertRegex(err, r"^ctl: local: archive write failed: "
                              r"00-local\.ndjson: No space left on device\n$")
        d, run, h = self.archive(results)
        self.assertEqual(run["status"], "incomplete")
        self.assertIsNotNone(run["ended_at"])
        self.assertTrue(run["reason"].startswith(
            "archive write failed: 00-local.ndjson: No space left"), run)
        self.assertEqual(h["status"], "failed")
        self.assertIn("No space left on device", h["reason"])
        data = self.host_lines(d, h)
        self.assertTrue(data == b"" or data.endswith(b"\n"))
        for line in data.decode().splitlines():
            json.loads(line)
        self.assertIn("run %s incomplete" % run["run_id"], p.stdout.decode())


if __name__ == "__main__":
    unittest.main(verbosity=2)
