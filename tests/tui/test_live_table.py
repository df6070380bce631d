#!/usr/bin/env python3
"""Black-box tests of ctl run's live table, driven inside tmux.

Each test starts a tmux server of its own (a socket in a temporary
directory, no configuration file) whose one pane runs sh, types a
`ctl run ...; echo EXIT=$?` line into it and reads the screen back with
capture-pane, as a user would see it. Hosts are real OpenSSH servers on
127.0.0.1 (tests/lib/sshhosts.py: bfhost1..3) and `local`.

ctl comes from $BF_CTL (CTest sets it), else the usual build directories.
Exits 77 (CTest: skipped) without tmux or ctl; the SSH cases skip
themselves without root or sshd. Every wait is bounded; timings carry
slack for a loaded 2-core machine.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from bfpaths import find_ctl  # noqa: E402
from sshhosts import SSHHosts  # noqa: E402
import tmuxpane  # noqa: E402

ESC = "\x1b"

# A row of the table: host, device, dtype, then (n and) a number.
ROW_RE = re.compile(r"^(bfhost\d|local)\s+cpu\s+fp32\s+\d+\s+\d+\.\d")
# A row side by side: device, dtype, n, then the hosts' cells.
SBS_ROW_RE = re.compile(r"^cpu\s+fp32\s+\d+\s+\S")
# The arguments every run shares: CPU only, a sweep that takes a few
# seconds on a busy 2-core machine, so that rows arrive one by one.
SWEEP = ("--sizes 256,384,512,640,768,1024 --device cpu --dtypes fp32 "
         "--bandwidth-mib 8")
# Long enough to still be running when a test presses q or Ctrl-C.
LONG = ("--sizes 256,1536,2048,2048 --iters 40 --device cpu --dtypes fp32 "
        "--bandwidth-mib 8")


CTL = find_ctl()
TMP = None          # the module's temporary directory
HOSTS = None        # SSHHosts(3), or None where sshd cannot run
HOSTS_WHY = ""      # why not


def setUpModule():
    global TMP, HOSTS, HOSTS_WHY
    TMP = tempfile.mkdtemp(prefix="bf-tui-test-")
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK):
        HOSTS_WHY = "needs root and /usr/sbin/sshd"
        return
    try:
        HOSTS = SSHHosts(3).start()
    except Exception as e:   # noqa: BLE001 - any failure means: skip
        HOSTS_WHY = "cannot start test sshd: %s" % e
        return
    # Deploy and build the agent once, with the settings the live tests
    # use, so that they run in seconds and have a previous run (the Δ%
    # baseline).
    try:
        # The three are one machine (loopback): built at once for speed.
        r = subprocess.run([CTL, "run", "bfhost1", "bfhost2", "bfhost3"] +
                           SWEEP.split() +
                           ["--no-tui", "--results", results_dir(),
                            "--hosts-dir", INVENTORY(),
                            "--concurrent-same-machine"],
                           env=HOSTS.env(), cwd=TMP,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=300)
        if r.returncode != 0:
            raise RuntimeError("warm-up run failed (%d):\n%s" %
                               (r.returncode, r.stdout.decode()[-3000:]))
    except BaseException:
        tearDownModule()  # unittest skips it when setUpModule raises
        raise


def tearDownModule():
    global HOSTS, TMP
    if HOSTS:
        HOSTS.stop()
        HOSTS = None
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)
        TMP = None


def INVENTORY():
    """No inventory: an empty hosts directory (one given that does not
    exist is an error)."""
    d = os.path.join(TMP, "no-inventory")
    os.makedirs(d, exist_ok=True)
    return d


def results_dir():
    return os.path.join(TMP, "results")


def env_for_pane():
    return tmuxpane.utf8_env(HOSTS.env() if HOSTS else os.environ)


def sgr_params(text):
    """Every parameter of every SGR sequence (ESC [ ... m) in text."""
    out = []
    for m in re.finditer(r"\x1b\[([0-9;:]*)m", text):
        out += [p for p in re.split(r"[;:]", m.group(1)) if p]
    return out


COLOUR_PARAMS = {str(n) for n in list(range(30, 39)) + list(range(40, 49)) +
                 list(range(90, 98)) + list(range(100, 108))}


class Pane(tmuxpane.Pane):
    """A pane in the module's directory, in env_for_pane()'s environment
    (the SSH hosts' when they run), that runs ctl."""

    def __init__(self, width=100, height=30, env=None):
        super().__init__(TMP, width, height, env or env_for_pane())

    def run_ctl(self, args, prefix=""):
        self.type_line("%s%s run %s --results %s --hosts-dir %s; "
                       "echo EXIT=$?" % (prefix, CTL, args, results_dir(),
                                         INVENTORY()))

    def wait_exit(self, timeout):
        text = self.wait_for(lambda s: re.search(r"^EXIT=\d+", s, re.M),
                             timeout, "ctl to exit")
        return int(re.search(r"^EXIT=(\d+)", text, re.M).group(1)), text

    def pid_of_ctl(self):
        """ctl's pid: the child of the pane's shell named ctl."""
        shell = int(self.fmt("#{pane_pid}"))
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
            except OSError:
                continue
            comm = st[st.index("(") + 1:st.rindex(")")]
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            if ppid == shell and comm == "ctl":
                return int(d)
        return None

    def assert_terminal_usable(self, test):
        """Normal screen, cursor shown, and a shell that echoes and runs
        what is typed, in canonical mode."""
        test.assertEqual(self.fmt("#{alternate_on}"), "0",
                         "still on the alternate screen")
        test.assertEqual(self.fmt("#{cursor_flag}"), "1", "cursor hidden")
        self.type_line("echo ok-$((6*7)); stty -a | tr ' ' '\\n' | "
                       "grep -x -e icanon -e echo -e -icanon -e -echo; "
                       "echo end-$((2*4))")
        text = self.wait_for(lambda s: re.search(r"^end-8$", s, re.M),
                             10, "the shell to run a command")
        test.assertRegex(text, r"(?m)^ok-42$")
        test.assertIn("echo ok-$((6*7))", text, "typed text not echoed")
        lines = text.splitlines()
        test.assertIn("icanon", lines)
        test.assertIn("echo", lines)
        test.assertNotIn("-icanon", lines)
        test.assertNotIn("-echo", lines)


class LiveTable(unittest.TestCase):
    def setUp(self):
        self.panes = []

    def tearDown(self):
        for p in self.panes:
            p.close()

    def pane(self, **kw):
        p = Pane(**kw)
        self.panes.append(p)
        return p

    def need_hosts(self):
        if not HOSTS:
            self.skipTest(HOSTS_WHY)

    # -- the table fills in while hosts run --------------------------------

    def test_rows_appear_while_hosts_run(self):
        # Three hosts, one machine: side by side by default, the hosts
        # one after another, cells filling in as rows arrive.
        self.need_hosts()
        p = self.pane()
        start = time.monotonic()
        p.run_ctl("bfhost1 bfhost2 bfhost3 " + SWEEP)
        seen_counts = set()
        live = None
        while time.monotonic() - start < 90:
            text = p.capture()
            if re.search(r"^EXIT=", text, re.M):
                break
            rows = [l for l in text.splitlines() if SBS_ROW_RE.match(l)]
            numbers = sum(len(re.findall(r"\s\d+\.\d(?:\?[\d,]+)?(?=\s)",
                                         r + " ")) for r in rows)
            m = re.search(r"hosts (\d)/3 done", text)
            if rows and m and int(m.group(1)) < 3:
                seen_counts.add(numbers)
                if live is None and re.search(r"running \d+/\d+", text) \
                        and "waiting" in text:
                    live = text
            time.sleep(0.1)
        self.assertIsNotNone(live, "never saw rows while a host was "
                             "running and another waited")
        # Filling in: more than one count of figures before all were done.
        self.assertGreater(len(seen_counts), 1, sorted(seen_counts))
        head = live.splitlines()[0]
        # The verdict so far, when there is one (issue 30).
        self.assertRegex(head, r"run \d{8}T\d{6}Z-[0-9a-f]+\s+\d+:\d\d\s+"
                         r"hosts \d/3 done(  verdict [^\n]+?)?\s+"
                         r"side by side  vs bfhost1\s*$")
        for h in ("bfhost1", "bfhost2", "bfhost3"):
            self.assertRegex(live, r"(?m)^%s [\u2588\u2589-\u258f\u2591]+ " % h)
        self.assertRegex(live, r"(?m)^device\s+dtype\s+n\s+bfhost1\s+bfhost2"
                         r"\s+bfhost3\s+bfhost2/bfhost1\s+bfhost3/bfhost1$")
        # A host still to come says it waits, in its cells and its panel
        # line; the machine is named under the rows.
        self.assertRegex(live, r"(?m)^cpu\s+fp32\s+256\s.*\swaiting\s")
        self.assertRegex(live, r"waiting for bfhost\d \(one machine\)")
        self.assertIn("bfhost1, bfhost2, bfhost3: one machine; run one at a "
                      "time", live)
        self.assertRegex(live, r"(?m)^q quit .*v per host  \? help")
        code, text = p.wait_exit(180)
        self.assertEqual(code, 0, text)
        # The plain table follows in the scrollback, side by side too.
        self.assertIn("complete:", text)
        p.assert_terminal_usable(self)
        sys.stderr.write("\n--- live table mid-run (100x30) ---\n%s\n" % live)
        # One at a time, in the command line's order, as the archive's
        # turns say.
        run_id = re.search(r"(?m)^run (\S+) complete:", text).group(1)
        with open(os.path.join(results_dir(), run_id, "run.json")) as f:
            hosts = json.load(f)["hosts"]
        self.assertEqual([h["name"] for h in hosts],
                         ["bfhost1", "bfhost2", "bfhost3"])
        for a, b in zip(hosts, hosts[1:]):
            self.assertLessEqual(a["ended_at"], b["started_at"])

    def test_side_by_side_ratio_and_switch(self):
        # The ratio column is each host's GFLOP/s over the first's; v
        # switches to one block per host and back, the footer saying
        # which; the view's rows match the per-host rows.
        self.need_hosts()
        p = self.pane(width=100, height=30)
        p.run_ctl("bfhost1 bfhost2 bfhost3 " + LONG)
        # bfhost1 runs first: wait for its first figures, which the
        # others (waiting) do not have yet.
        sbs = p.wait_for(lambda s: re.search(
            r"(?m)^cpu\s+fp32\s+256\s+\d+\.\d", s), 300,
            "bfhost1's first figure side by side")
        row = [l for l in sbs.splitlines()
               if re.match(r"^cpu\s+fp32\s+256\s", l)][0].split()
        self.assertEqual(row[4:6], ["waiting", "waiting"], row)
        self.assertEqual(row[6:8], ["n/a", "n/a"], row)
        p.keys("v")
        per = p.wait_for(lambda s: re.search(
            r"(?m)^host\s+device\s+dtype\s+n\s+GFLOP/s", s), 10,
            "the per-host view")
        self.assertRegex(per, r"(?m)^q quit .*s sort  g group  v side by side"
                         r"  \? help")
        self.assertRegex(per, r"(?m)sort arrival  group host\s*$")
        prow = [l for l in per.splitlines()
                if re.match(r"^bfhost1\s+cpu\s+fp32\s+256\s", l)][0].split()
        self.assertEqual(prow[4], row[3])   # the same figure, same marks
        p.keys("v")
        p.wait_for(lambda s: "side by side  vs bfhost1" in s and re.search(
            r"(?m)^device\s+dtype\s+n\s+bfhost1", s), 10, "side by side again")
        p.keys("q")
        code, text = p.wait_exit(300)
        self.assertEqual(code, 130, text)
        # The last table's side-by-side section.
        lines = p.scrollback().splitlines()
        i = lines.index("side by side (median GFLOP/s)")
        self.assertRegex(lines[i + 1], r"^device\s+dtype\s+n\s+bfhost1\s+"
                         r"bfhost2\s+bfhost3\s+bfhost2/bfhost1\s+bfhost3/bfhost1$")
        self.assertRegex(lines[i + 2], r"^cpu\s+fp32\s+256\s+\d+\.\d")

    def test_ratios_of_a_finished_run(self):
        # A short run to its end: every ratio cell equals the hosts'
        # figures divided, within the rounding of the figures shown.
        self.need_hosts()
        p = self.pane(width=120, height=30)
        p.run_ctl("bfhost1 bfhost2 bfhost3 " + SWEEP)
        code, text = p.wait_exit(180)
        self.assertEqual(code, 0, text)
        lines = p.scrollback().splitlines()
        i = lines.index("side by side (median GFLOP/s)")
        rows = []
        for l in lines[i + 2:]:
            if l.startswith("HOST/"):
                break
            rows.append(l.split())
        self.assertEqual([int(r[2]) for r in rows],
                         [256, 384, 512, 640, 768, 1024])
        for r in rows:
            v = [float(x.split("?")[0]) for x in r[3:6]]
            for k in (1, 2):
                got = float(r[5 + k].rstrip("?x"))
                want = v[k] / v[0]
                # the figures are rounded to 0.1: the ratio to that much
                slack = 0.05 * (1 / v[0] + v[k] / v[0] ** 2) + 0.005
                self.assertAlmostEqual(got, want, delta=slack)

    def test_narrow_drops_ratios_then_scrolls_hosts(self):
        # 50 columns: no ratio column, the hosts that do not fit reached
        # with the arrow keys; CJK and long names (from an inventory)
        # keep the columns aligned.
        self.need_hosts()
        inv = os.path.join(TMP, "wide-names")
        os.makedirs(inv, exist_ok=True)
        cjk = "\u6771\u4eac\u30b5\u30fc\u30d0\u30fc"   # 12 cells
        long = "a-really-long-host-name.example.org"
        with open(os.path.join(inv, "names.json"), "w") as f:
            json.dump({"hosts": {cjk: {"ssh": "bfhost2"},
                                 long: {"ssh": "bfhost3"}}}, f)
        p = self.pane(width=50, height=24)
        p.type_line("%s run bfhost1 %s %s %s --results %s --hosts-dir %s; "
                    "echo EXIT=$?" % (CTL, cjk, long, LONG, results_dir(), inv))
        text = p.wait_for(lambda s: re.search(r"hosts 1-\d of 3", s) and
                          re.search(r"(?m)^cpu\s+fp32\s+256\s", s), 300,
                          "the side-by-side rows at 50 columns")
        titles = [l for l in text.splitlines() if l.startswith("device")][0]
        self.assertNotIn("/bfhost1", titles)      # ratios went first
        self.assertIn("bfhost1", titles)
        self.assertTrue(all(len(l) <= 50 for l in text.splitlines()))
        m = re.search(r"hosts 1-(\d) of 3", text)
        shown = int(m.group(1))
        self.assertLess(shown, 3)
        p.keys("Right")
        moved = p.wait_for(lambda s: re.search(r"hosts 2-\d of 3", s), 10,
                           "the host columns scrolled")
        t2 = [l for l in moved.splitlines() if l.startswith("device")][0]
        self.assertNotIn("bfhost1", t2)
        self.assertIn(cjk, t2)
        # The columns line up in display cells: each row's cells end
        # where the titles do (a CJK character is two cells).
        def cells(line):
            import unicodedata
            return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1
                       for ch in line)
        body = [l for l in moved.splitlines()
                if re.match(r"^cpu\s+fp32\s+\d+\s", l)]
        self.assertTrue(body)
        self.assertEqual({cells(l.rstrip()) for l in body + [t2]} - {0},
                         {cells(t2.rstrip())}, [t2] + body)
        p.keys("Left")
        p.wait_for(lambda s: re.search(r"hosts 1-\d of 3", s), 10,
                   "scrolled back")
        p.keys("q")
        code, _ = p.wait_exit(300)
        self.assertEqual(code, 130)

    # -- resize --------------------------------------------------------

    def test_resize_redraws(self):
        self.need_hosts()
        p = self.pane(width=100, height=30)
        p.run_ctl("local bfhost1 " + LONG)
        titles = r"(?m)^host\s+device\s+dtype\s+n\s+GFLOP/s"
        # Two hosts: side by side first; the per-host view's columns.
        p.wait_for(lambda s: "side by side" in s, 30, "the live table")
        p.keys("v")
        wide = p.wait_for(lambda s: re.search(titles, s) and
                          "peak MiB" in s, 30, "the table at 100 columns")
        rule = [l for l in wide.splitlines() if set(l) == {"\u2500"}]
        self.assertEqual(len(rule[0]), 100)
        p.resize(72, 24)
        # tmux cuts the old frame's lines to 72 columns at once (its rule
        # too): the redraw is the frame whose title line ends in "state".
        narrow = p.wait_for(
            lambda s: any(set(l) == {"\u2500"} and len(l) == 72
                          for l in s.splitlines()) and
            re.search(titles + r".*\bstate\s*$", s),
            10, "a redraw at 72 columns")
        # The stated drop order: vs fp32 and GPU/CPU (empty on a CPU) and
        # peak MiB go; the essentials stay.
        tline = [l for l in narrow.splitlines() if re.match(titles, l)][0]
        for gone in ("peak MiB", "GPU/CPU", "vs fp32"):
            self.assertNotIn(gone, tline)
        for kept in ("host", "device", "dtype", "GFLOP/s", "state"):
            self.assertIn(kept, tline)
        self.assertTrue(all(len(l) <= 72 for l in narrow.splitlines()))
        p.resize(100, 30)
        p.wait_for(lambda s: "peak MiB" in s, 10, "a redraw at 100 columns")
        p.keys("q")
        code, _ = p.wait_exit(180)
        self.assertEqual(code, 130)

    # -- keys ----------------------------------------------------------

    def test_keys_sort_group_help(self):
        p = self.pane()
        p.run_ctl("local " + LONG)
        p.wait_for(lambda s: ROW_RE.search(s) or re.search(
            r"(?m)^local\s+cpu", s), 300, "a first row")
        p.keys("s")
        p.wait_for(lambda s: "sort GFLOP/s" in s, 5, "sort GFLOP/s")
        p.keys("g")
        p.wait_for(lambda s: "group dtype" in s and
                   re.search(r"(?m)^\u2500\u2500 fp32 \u2500", s), 5,
                   "grouping by dtype")
        p.keys("?")
        p.wait_for(lambda s: "benchfleet live table" in s, 5, "the help")
        # Taller than the pane's 30 rows, the help scrolls: 27 lines and
        # where they are; Down moves it a line, PgDn to its end (its last
        # line in view); any other key closes it.
        text = p.wait_for(lambda s: re.search(r"lines 1-27 of (\d+)", s), 5,
                          "the help's first 27 lines")
        total = int(re.search(r"lines 1-27 of (\d+)", text).group(1))
        self.assertGreater(total + 2, 30)
        p.keys("Down")
        p.wait_for(lambda s: "lines 2-28 of %d" % total in s and
                   "benchfleet live table" not in s, 5, "the help a line on")
        p.keys("NPage")
        p.wait_for(lambda s: "lines %d-%d of %d" % (total - 26, total, total)
                   in s and "with --no-tui, ctl run prints plain lines" in s,
                   5, "the help's end")
        p.keys("x")
        p.wait_for(lambda s: "of %d, " % total not in s, 5,
                   "the help to close")
        p.keys("?")
        p.wait_for(lambda s: "benchfleet live table" in s, 5, "the help")
        p.keys("x")
        p.wait_for(lambda s: "benchfleet live table" not in s, 5,
                   "the help to close")
        p.keys("q")
        code, text = p.wait_exit(180)
        self.assertEqual(code, 130)

    # -- notes: every reason readable in full ----------------------------

    def test_notes_give_each_reason_in_full(self):
        # A narrow pane: rows name their reasons' notes ("skipped [1]"),
        # never a cut reason; the notes under the rows (End scrolls to
        # them) give each reason once, wrapped to the width; the checks
        # column says what it counts (ok/fail) and batching is in µs.
        p = self.pane(width=60, height=40)
        p.run_ctl("local --sizes 256,1536,2048,2048 --iters 40 --device all "
                  "--dtypes fp32,fp16")
        p.wait_for(lambda s: re.search(r"(?m)^local\s+cpu\s+fp16\s.*skipped \[\d\]$", s),
                   300, "the skipped fp16 row naming its note")
        p.keys("End")
        text = p.wait_for(lambda s: re.search(r"(?m)^\[\d\] fp16: this OpenBLAS", s),
                          20, "the notes under the rows")
        self.assertNotIn("\u2026", text)   # nothing cut with an ellipsis
        notes = {}
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"^\[(\d)\] (.*)$", line)
            if m:
                full = m.group(2)
                # Continuation lines are indented under the text.
                for cont in lines[i + 1:]:
                    if not cont.startswith("    ") or not cont.strip():
                        break
                    full += " " + cont.strip()
                notes[m.group(2).split(":")[0]] = full
                self.assertLessEqual(len(line), 60, line)
        fp16 = [v for k, v in notes.items() if k == "fp16"]
        self.assertEqual(len(fp16), 1, notes)
        self.assertRegex(fp16[0], r"^fp16: this OpenBLAS \(OpenBLAS [\d.]+\) has "
                                  r"no cblas_shgemm(; fp16: oneDNN .*)?$")
        # The GPU's reason (no driver here, or a real one): once, whole.
        self.assertTrue([v for v in notes.values()
                         if "NVIDIA" in v or "CUDA" in v or "GPU" in v], notes)
        p.keys("Home")
        top = p.wait_for(lambda s: re.search(r"(?m)^host\s+device\s+dtype", s),
                         10, "the top of the table")
        self.assertRegex(top, r"(?m)^host\s+device\s+dtype\s.*\sstate$")
        p.keys("q")
        code, text = p.wait_exit(180)
        self.assertEqual(code, 130, text)

    # -- leaving ---------------------------------------------------------

    def stop_and_check(self, key):
        self.need_hosts()
        p = self.pane()
        p.run_ctl("local bfhost1 " + LONG)
        p.wait_for(lambda s: re.search(r"running \d+/\d+", s) and
                   "bfhost1" in s, 300, "hosts running")
        p.keys(key)
        # Stopped by the key, not run to its end: exit 130, "interrupted",
        # run.json's reason (no clock: a loaded machine is slow to stop).
        code, text = p.wait_exit(180)
        self.assertEqual(code, 130, text)
        self.assertIn("interrupted", text)
        run_id = re.search(r"run (\S+) incomplete:", text).group(1)
        with open(os.path.join(results_dir(), run_id, "run.json")) as f:
            run = json.load(f)
        self.assertEqual(run["status"], "incomplete")
        self.assertEqual(run["reason"], "interrupted by the user")
        self.assertEqual({h["status"] for h in run["hosts"]}, {"interrupted"})
        p.assert_terminal_usable(self)

    def test_q_quits_and_restores_terminal(self):
        self.stop_and_check("q")

    def test_ctrl_c_restores_terminal(self):
        self.stop_and_check("C-c")

    def test_crash_restores_terminal(self):
        p = self.pane()
        p.run_ctl("local " + LONG)
        p.wait_for(lambda s: "running" in s, 30, "the table")
        pid = p.pid_of_ctl()
        self.assertIsNotNone(pid)
        os.kill(pid, signal.SIGSEGV)
        code, text = p.wait_exit(180)
        self.assertEqual(code, 128 + signal.SIGSEGV, text)
        p.assert_terminal_usable(self)

    # -- colour, locale, no terminal -------------------------------------

    def test_colour_utf8_and_no_color_ascii(self):
        p = self.pane()
        p.run_ctl("local " + LONG)
        text = p.wait_for(lambda s: "running" in s, 30, "the table",
                          escapes=True)
        self.assertTrue(COLOUR_PARAMS & set(sgr_params(text)),
                        "no colour without NO_COLOR")
        self.assertIn("\u2500", text)
        p.keys("q")
        p.wait_exit(180)

        p = self.pane()
        p.run_ctl("local " + LONG, prefix="NO_COLOR=1 LC_ALL=C ")
        text = p.wait_for(lambda s: "running" in s and
                          re.search(r"(?m)^-{20,}$", s), 30,
                          "the table in ASCII", escapes=True)
        self.assertFalse(COLOUR_PARAMS & set(sgr_params(text)),
                         "colour despite NO_COLOR")
        plain = re.sub(r"\x1b\[[0-9;:]*m", "", text)
        self.assertTrue(all(ord(c) < 128 for c in plain),
                        "non-ASCII in a C locale: %r" %
                        [c for c in plain if ord(c) >= 128][:5])
        self.assertRegex(plain, r"(?m)^local\s+[#.]+ ")
        p.keys("q")
        code, _ = p.wait_exit(180)
        self.assertEqual(code, 130)

    def test_pipe_and_redirect_have_no_escapes(self):
        p = self.pane()
        out = os.path.join(TMP, "piped.txt")
        red = os.path.join(TMP, "redirected.txt")
        p.type_line("%s run local --size 256 --device cpu --bandwidth-mib 8 "
                    "--results %s "
                    "--hosts-dir %s | cat > %s; %s run local --size 256 --bandwidth-mib 8 "
                    "--device cpu --results %s --hosts-dir %s > %s; "
                    "echo EXIT=$?" % (CTL, results_dir(),
                                      INVENTORY(), out,
                                      CTL, results_dir(),
                                      INVENTORY(), red))
        code, text = p.wait_exit(300)
        self.assertEqual(code, 0, text)
        self.assertEqual(p.fmt("#{alternate_on}"), "0")
        for path in (out, red):
            with open(path, "rb") as f:
                data = f.read()
            self.assertNotIn(ESC.encode(), data, path)
            self.assertIn(b"[local] running", data)   # the plain lines
            self.assertIn(b"complete:", data)

    def test_term_dumb_gets_plain_lines(self):
        # A real terminal (a tmux pane, stdin and stdout on it) that says
        # it cannot move its cursor: the plain progress lines, which the
        # live table never prints, and no escape sequences.
        p = self.pane()
        p.type_line("TERM=dumb %s run local --size 128 --bandwidth-mib 8 --device cpu "
                    "--results %s --hosts-dir %s; echo EXIT=$?"
                    % (CTL, results_dir(), INVENTORY()))
        code, text = p.wait_exit(300)
        self.assertEqual(code, 0, text)
        # The whole history: the verdict and the table that lead the
        # final output push the progress lines off the screen.
        self.assertIn("[local] running 1/", p.scrollback())
        raw = p.capture(escapes=True)
        self.assertFalse(COLOUR_PARAMS & set(sgr_params(raw)), raw[-500:])

    def test_unknown_term_says_so(self):
        # A terminal whose TERM terminfo does not know: plain lines as
        # for dumb, and one line on stderr saying why there is no live
        # table (TERM=dumb asks for plain lines and gets no word). The
        # name is said whole however long (issue 28: cut at 63 bytes).
        p = self.pane()
        err = os.path.join(TMP, "unknown-term.err")
        term = "bf-no-such-terminal-" + "x" * 80
        p.type_line("TERM=%s %s run local --size 128 --bandwidth-mib 8 "
                    "--device cpu --results %s --hosts-dir %s 2>%s; "
                    "echo EXIT=$?" % (term, CTL, results_dir(), INVENTORY(),
                                      err))
        code, text = p.wait_exit(300)
        with open(err) as f:
            said = f.read()
        # ctl's stderr too: a sanitizer's report goes there, not the pane.
        self.assertEqual(code, 0, text + said)
        self.assertIn("[local] running 1/", p.scrollback())
        self.assertEqual(said, "ctl: TERM=" + term + ": "
                             "curses cannot drive this terminal (no "
                             "terminfo entry); plain lines instead of the "
                             "live table\n")

if __name__ == "__main__":
    if not shutil.which("tmux"):
        print("skipped: tmux not found")
        sys.exit(77)
    if not CTL or not os.access(CTL, os.X_OK):
        print("skipped: ctl not built (set BF_CTL)")
        sys.exit(77)
    unittest.main(verbosity=2)
