"""What the Slurm suites share: reading ctl's result, a copy of a real
deploy whose agent is replaced by a script, and the two fault cases every
login kind must pass (a failing task; Ctrl-C, which must scancel the job).

A suite's TestCase mixes in FaultCases and provides cluster(), tmp(),
run_ctl(args, hosts_dir, results) -> Popen, inventory(name, workdir) ->
hosts dir, and deployed_workdir() -> the workdir of its first, real run.
The cases are numbered 8 and 9 so that they run after the suite's own
tests, which make that deploy.
"""

import glob
import json
import os
import shutil
import signal
import time

ARGS = ["--size", "32", "--device", "cpu", "--dtypes", "fp32", "--no-tui"]


def finish(p, timeout=600):
    out, _ = p.communicate(timeout=timeout)
    return p.returncode, out


def run_json(results):
    """(run directory, run.json) of the one run under results."""
    runs = sorted(glob.glob(os.path.join(results, "*", "run.json")))
    assert len(runs) == 1, runs
    with open(runs[0]) as f:
        return os.path.dirname(runs[0]), json.load(f)


def fake_workdir(src, dst, script):
    """A copy of the deploy at src in dst, its built agents replaced by a
    shell script."""
    shutil.copytree(src, dst, symlinks=True)
    agents = glob.glob(os.path.join(dst, "*", "build-*", "bin", "agent"))
    assert agents, "no built agent under " + dst
    for a in agents:
        os.unlink(a)
        with open(a, "w") as f:
            f.write("#!/bin/sh\n" + script)
        os.chmod(a, 0o755)
    return dst


class FaultCases:
    def fake(self, name, script):
        return fake_workdir(self.deployed_workdir(),
                            os.path.join(self.tmp(), "work-" + name), script)

    def test_8_failing_task(self):
        # Its last words: a line longer than the old Slurm tail (1 KiB),
        # the line tests/ssh/test_ctl_run.py's
        # test_agent_last_words_cut_alike_local_and_over_ssh has the agent
        # say locally and over SSH: the reason is read from the line's
        # start there and here, from one tail (base/tail.c, issue 29).
        words = "agent: no such device: " + "".join("%04d " % i
                                                    for i in range(600))
        wd = self.fake("fail", 'echo "agent: some detail" >&2\n'
                       'echo "%s" >&2\nexit 4\n' % words)
        hosts = self.inventory("bad", wd)
        res = os.path.join(self.tmp(), "res-fail")
        rc, out = finish(self.run_ctl(["bad"] + ARGS, hosts, res))
        self.assertEqual(rc, 3, out)
        _, meta = run_json(res)
        self.assertEqual(meta["status"], "incomplete")
        h = meta["hosts"][0]
        self.assertEqual((h["name"], h["status"], h["agent_exit_status"]),
                         ("bfnode1", "failed", 4))
        self.assertIn("agent exited with status 4: agent: no such device",
                      h["reason"])
        # Whole (issue 28: run.json's reason was cut at 512 bytes, "...").
        self.assertEqual(h["reason"], "agent exited with status 4: " + words)
        self.assertTrue(self.cluster().wait_idle())

    def test_9_ctrl_c_scancels(self):
        flag = os.path.join(self.tmp(), "agent-started")
        wd = self.fake("hang", 'touch %s\nexec sleep 100000\n' % flag)
        hosts = self.inventory("hang", wd)
        res = os.path.join(self.tmp(), "res-hang")
        p = self.run_ctl(["hang"] + ARGS, hosts, res)
        deadline = time.monotonic() + 300   # a guard, not a timing
        while not os.path.exists(flag):
            self.assertIsNone(p.poll(), "ctl ended early")
            self.assertLess(time.monotonic(), deadline, "agent never started")
            time.sleep(0.1)
        self.assertTrue(self.cluster().jobs())
        p.send_signal(signal.SIGINT)
        rc, out = finish(p)
        self.assertEqual(rc, 130, out)
        d, meta = run_json(res)
        self.assertEqual(meta["hosts"][0]["status"], "interrupted")
        self.assertTrue(self.cluster().wait_idle(), "job left behind")
        with open(os.path.join(d, meta["hosts"][0]["log_file"])) as f:
            log = f.read()
        self.assertIn("scancel --name=bf-", log)
        self.assertIn(": exit 0", log.split("scancel --name=bf-", 1)[1])
