#!/usr/bin/env python3
"""ctl run local: options reach the agent, the archive keeps the command
line as typed, hosts and options may be mixed, output has no escape codes
when stdout is not a terminal, a missing agent is a clear failure, and
every command's option errors name the option."""

import glob
import json
import os
import re
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]


def run_ctl(args, cwd, env=None, timeout=240):
    return subprocess.run([CTL] + args, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def only_run_dir(results):
    runs = [d for d in glob.glob(os.path.join(results, "*")) if os.path.isdir(d)]
    assert len(runs) == 1, runs
    return runs[0]


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


class RunLocal(unittest.TestCase):
    def test_delta_baseline_needs_the_same_devices_and_says_why(self):
        # A first run, a --device cuda run, then the first run's settings
        # again: Δ% compares with the first (the cuda-only run lacks its
        # cpu rows) and every n/a says why.
        with tempfile.TemporaryDirectory() as tmp:
            base = ["run", "local", "--sizes", "64", "--dtypes", "fp32",
                    "--iters", "2", "--warmup", "0", "--no-bandwidth",
                    "--no-batching", "--no-tui", "--results", "res"]
            ids, outs = [], []
            for extra in ([], ["--device", "cuda"], [], ["--iters", "3"]):
                p = run_ctl(base + extra, tmp)
                # 6: --device cuda without a GPU measured nothing.
                self.assertIn(p.returncode, (0, 1, 6), p.stdout + p.stderr)
                ids.append(re.search(r"^run (\S+):", p.stdout, re.M).group(1))
                outs.append(p.stdout)
            self.assertIn("n/a for local: no earlier run of this host",
                          outs[0])
            self.assertIn("n/a for local: no earlier run with the same "
                          "settings (run %s: device differs)" % ids[0], outs[1])
            self.assertIn("local: vs run %s, same machine and settings" %
                          ids[0], outs[2])
            self.assertIn("n/a for local: no earlier run with the same "
                          "settings (run %s: iters differs)" % ids[2], outs[3])
            recs = records(glob.glob(os.path.join(tmp, "res", ids[1],
                                                  "*.ndjson"))[0])
            self.assertEqual(recs[0]["options"]["device"], "cuda")
            recs = records(glob.glob(os.path.join(tmp, "res", ids[0],
                                                  "*.ndjson"))[0])
            self.assertNotIn("device", recs[0]["options"])

    def nothing_measured(self, tmp, args):
        """ctl run local ARGS; returns (process, the host record)."""
        p = run_ctl(["run", "local", "--dtypes", "fp32", "--iters", "1",
                     "--warmup", "0", "--no-bandwidth", "--no-batching",
                     "--no-tui", "--results", "res"] + args, tmp)
        recs = records(glob.glob(os.path.join(only_run_dir(
            os.path.join(tmp, "res")), "*.ndjson"))[0])
        return p, recs[0]

    def test_device_cuda_without_a_driver_is_not_success(self):
        # Before: "complete", exit 0, with every GEMM skipped.
        with tempfile.TemporaryDirectory() as tmp:
            p, host = self.nothing_measured(tmp, ["--device", "cuda",
                                                  "--sizes", "32"])
            if host["cuda"]["status"] == "pass" and host["gpus"]:
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                self.skipTest("a GPU with a driver is here: cuda GEMMs ran")
            self.assertEqual(p.returncode, 6, p.stdout + p.stderr)
            self.assertEqual(
                p.stderr, "ctl: local: nothing measured: no cuda GEMM ran: "
                "1 skipped (%s)\n" % host["cuda"]["reason"])
            with open(os.path.join(only_run_dir(os.path.join(tmp, "res")),
                                   "run.json")) as f:
                self.assertEqual(json.load(f)["status"], "complete")

    def test_every_gemm_too_big_is_not_success(self):
        # n = 65536, fp32: three operands of 16 GiB; on a host with
        # less memory free every GEMM is skipped as not fitting.
        need = 3 * 65536 * 65536 * 4
        with open("/proc/meminfo") as f:
            avail = next(int(l.split()[1]) * 1024 for l in f
                         if l.startswith("MemAvailable:"))
        if avail >= need:
            self.skipTest("%d bytes free: a GEMM of n 65536 would fit"
                          % avail)
        with tempfile.TemporaryDirectory() as tmp:
            p, _ = self.nothing_measured(tmp, ["--device", "cpu",
                                               "--sizes", "65536"])
            self.assertEqual(p.returncode, 6, p.stdout + p.stderr)
            self.assertRegex(p.stderr, r"^ctl: local: nothing measured: no "
                             r"cpu GEMM ran: 1 skipped \(does not fit: "
                             r"operands need \d+ MiB, [^\n]*\)\n$")
            self.assertRegex(p.stdout, r"\nrun \S+ complete: ")
        # One size that fits beside it: measured, exit 0.
        with tempfile.TemporaryDirectory() as tmp:
            p, _ = self.nothing_measured(tmp, ["--device", "cpu",
                                               "--sizes", "32,65536"])
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertEqual(p.stderr, "")

    def test_options_reach_agent_and_command_line_is_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = ["run", "--sizes", "64,96", "local", "--iters", "6",
                    "--cpu-iters", "4", "--warmup", "1", "--cpu-warmup", "2",
                    "--device", "cpu",
                    "--dtypes", "fp32", "--tag", "a b; $(x)", "--results", "res"]
            p = run_ctl(args, tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertNotIn("\x1b", p.stdout)
            run = only_run_dir(os.path.join(tmp, "res"))
            with open(os.path.join(run, "run.json")) as f:
                meta = json.load(f)
            self.assertEqual(meta["command_line"], args)
            self.assertEqual(meta["tag"], "a b; $(x)")
            self.assertEqual(meta["status"], "complete")
            host = meta["hosts"][0]
            self.assertEqual((host["name"], host["target"], host["status"]),
                             ("local", "local", "done"))
            self.assertIsNone(host["host_key_fingerprint"])
            recs = records(os.path.join(run, host["records_file"]))
            self.assertEqual(host["records"], len(recs))
            opts = recs[0]["options"]
            self.assertEqual((opts["sizes"], opts["dtypes"], opts["iters"],
                              opts["cpu_iters"], opts["cpu_warmup"]),
                             ([64, 96], ["fp32"], 6, 4, 2))
            gemms = [r for r in recs if r["type"] == "gemm"]
            self.assertEqual([(g["device"], g["n"]) for g in gemms],
                             [("cpu", 64), ("cpu", 96)])
            for g in gemms:
                self.assertEqual(len(g["samples_ms"]), 4)
                self.assertEqual(g["status"], "pass")
            # The workloads beyond GEMM (issue 14) arrive, are archived as
            # they came and are not counted malformed.
            self.assertEqual(host["malformed_lines"], 0)
            types = [r["type"] for r in recs]
            self.assertEqual(types.count("bandwidth"),
                             recs[1]["bandwidth_total"])
            self.assertEqual(types.count("bandwidth"), 1)
            self.assertEqual(types.count("batching"),
                             recs[1]["batching_total"])
            self.assertEqual(types.count("batching"), 1)
            self.assertEqual(types[-1], "summary")
            for g in gemms:
                self.assertEqual(g["bandwidth_kind"], "triad")
            # The plain table: one row per GEMM, after the progress lines.
            self.assertRegex(p.stdout, r"(?m)^local\s+cpu\s+fp32\s+64\s")
            self.assertRegex(p.stdout, r"(?m)^local\s+cpu\s+fp32\s+96\s")
            self.assertIn("[local] done", p.stdout)

    def test_missing_agent_fails_the_host_not_the_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, BENCHFLEET_AGENT=os.path.join(tmp, "nope"))
            p = run_ctl(["run", "local", "--results", "res"], tmp, env=env)
            self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
            self.assertIn("agent not found", p.stdout)
            run = only_run_dir(os.path.join(tmp, "res"))
            with open(os.path.join(run, "run.json")) as f:
                meta = json.load(f)
            self.assertEqual(meta["status"], "incomplete")
            self.assertEqual(meta["hosts"][0]["status"], "failed")
            self.assertIn("agent not found", meta["hosts"][0]["reason"])

    def test_bad_inventory_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "hosts"))
            with open(os.path.join(tmp, "hosts", "x.json"), "w") as f:
                f.write('{"hosts": {"a": {"sssh": "b"}}}')
            p = run_ctl(["run", "a", "--results", "res"], tmp)
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
            self.assertIn("unknown key: sssh", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "res")))

    def test_inventory_errors_name_the_file_and_the_problem(self):
        # Each a usage error before anything runs: one line naming the
        # file, exit 2, no run directory.
        cases = [
            ({"a.json": {"groups": {"g": []}}}, "g",
             "hosts/a.json: group g has no hosts"),
            ({"a.json": {"hosts": {"local": {}}}}, "local",
             "hosts/a.json: host name local is reserved for this machine"),
            ({"a.json": {"groups": {"local": ["local"]}}}, "local",
             "hosts/a.json: group name local is reserved for this machine"),
            ({"a.json": {"hosts": {"x": {}}, "groups": {"x": ["x"]}}}, "x",
             "hosts/a.json: group x: a host has that name"),
            ({"a.json": {"groups": {"x": ["local"]}},
              "b.json": {"hosts": {"x": {}}}}, "x",
             "hosts/b.json: host x: a group has that name"),
            ({"a.json": {"groups": {"g": ["local"]}},
              "b.json": {"groups": {"g": ["local"]}}}, "g",
             "hosts/b.json: group defined twice: g"),
            ({"a.json": {"hosts": {"h": {}}}, "b.json": {"hosts": {"h": {}}}},
             "h", "hosts/b.json: host defined twice: h"),
            ({"a.json": {"groups": {"g": 5}}}, "g",
             "hosts/a.json: group is not an array of host names (or a "
             "Slurm cluster's object): g"),
            ({"a.json": {"groups": {"g": ["y"]}}}, "g",
             "hosts/a.json: group g names unknown host y"),
        ]
        for files, arg, want in cases:
            with self.subTest(want=want), tempfile.TemporaryDirectory() as tmp:
                os.mkdir(os.path.join(tmp, "hosts"))
                for name, doc in files.items():
                    with open(os.path.join(tmp, "hosts", name), "w") as f:
                        json.dump(doc, f)
                p = run_ctl(["run", arg, "--no-tui", "--results", "res"], tmp)
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                self.assertEqual(p.stderr, "ctl: " + want + "\n")
                self.assertEqual(p.stdout, "")
                self.assertFalse(os.path.exists(os.path.join(tmp, "res")))

    def test_malformed_host_is_a_usage_error(self):
        # Refused by the SSH target parser before any host is touched:
        # exit 2, one line naming the host, no run directory.
        with tempfile.TemporaryDirectory() as tmp:
            for host, why in (("me@", "empty user or host name"),
                              (":22", "empty host name"),
                              ("host:99999", "port must be 1-65535"),
                              ("x:a", "port must be 1-65535"),
                              ("a b", "invalid host name"),
                              ("h$(touch x)", "invalid host name"),
                              ("a;b@h", "invalid user name")):
                with self.subTest(host=host):
                    p = run_ctl(["run", "local", host, "--no-tui",
                                 "--results", "res"], tmp)
                    self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                    self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
                    self.assertTrue(p.stderr.startswith(
                        "ctl: host '%s': %s" % (host, why)), p.stderr)
                    self.assertEqual(p.stdout, "")
                    self.assertFalse(os.path.exists(os.path.join(tmp, "res")))
            # An inventory host's ssh target, when the inventory is read.
            os.mkdir(os.path.join(tmp, "hosts"))
            with open(os.path.join(tmp, "hosts", "a.json"), "w") as f:
                json.dump({"hosts": {"a": {"ssh": "me@"}}}, f)
            p = run_ctl(["run", "local", "--no-tui", "--results", "res"], tmp)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertEqual(p.stderr, "ctl: hosts/a.json: host a: ssh: "
                             "host 'me@': empty user or host name\n")
            self.assertFalse(os.path.exists(os.path.join(tmp, "res")))

    def test_hosts_dir_given_must_exist(self):
        # A hosts directory the user named (option or variable) that does
        # not exist is an error, not an empty inventory.
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ)
            env.pop("BENCHFLEET_HOSTS_DIR", None)
            for args, extra, by in (
                    (["--hosts-dir", "nope"], {}, "--hosts-dir"),
                    ([], {"BENCHFLEET_HOSTS_DIR": "nope"},
                     "BENCHFLEET_HOSTS_DIR")):
                with self.subTest(by=by):
                    p = run_ctl(["run", "local", "--no-tui", "--results",
                                 "res"] + args, tmp, env=dict(env, **extra))
                    self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                    self.assertEqual(p.stderr, "ctl: hosts directory nope "
                                     "(%s): No such file or directory\n" % by)
                    self.assertFalse(os.path.exists(os.path.join(tmp, "res")))

    def test_bad_agent_option_is_refused_before_anything_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = run_ctl(["run", "local", "--size", "abc", "--results", "res"],
                        tmp)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            # One line, in the words the agent itself would use.
            self.assertEqual(
                p.stderr,
                "ctl: --size 'abc': expected an integer from 1 to 65536\n")
            self.assertFalse(os.path.exists(os.path.join(tmp, "res")))

    def test_option_errors_name_the_option(self):
        # Every command, in one line: a short option by its letter (also
        # the first of a cluster, where getopt has not passed the word),
        # a long one as typed; nothing is run, no archive made.
        with tempfile.TemporaryDirectory() as tmp:
            for cmd in ("run", "list", "show", "compare", "report",
                        "resolve", "where"):
                see = " (see ctl %s --help)\n" % cmd
                for args, said in (
                        (["-foo"], "-f: unknown option" + see),
                        (["-q"], "-q: unknown option" + see),
                        (["--frobnicate"], "--frobnicate: unknown option" + see),
                        (["--help=1"], "--help=1: takes no value" + see)):
                    if cmd == "run":
                        args = ["local", "--results", "res"] + args
                    p = run_ctl([cmd] + args, tmp)
                    self.assertEqual((p.returncode, p.stdout, p.stderr),
                                     (2, "", "ctl: " + said), (cmd, args))
            for args, said in ((["report", "-o"], "-o"),
                               (["report", "--output"], "--output"),
                               (["compare", "--last"], "--last"),
                               (["run", "local", "-F"], "-F"),
                               (["resolve", "-F"], "-F"),
                               (["where", "local", "-F"], "-F"),
                               (["where", "--timeout"], "--timeout")):
                p = run_ctl(args, tmp)
                self.assertEqual((p.returncode, p.stderr),
                                 (2, "ctl: %s: needs a value\n" % said), args)
            self.assertFalse(os.path.exists(os.path.join(tmp, "res")))

    def test_no_bandwidth_with_bandwidth_mib_is_refused_alike(self):
        # The contradiction is the shared option table's: ctl and the
        # agent refuse it in the same words, and ctl before anything runs.
        want = "--no-bandwidth and --bandwidth-mib: give only one"
        agent = os.path.join(os.path.dirname(CTL), "agent")
        with tempfile.TemporaryDirectory() as tmp:
            for order in (["--no-bandwidth", "--bandwidth-mib", "8"],
                          ["--bandwidth-mib", "8", "--no-bandwidth"]):
                p = run_ctl(["run", "local"] + order + ["--results", "res"],
                            tmp)
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                self.assertEqual(p.stderr, "ctl: " + want + "\n")
                self.assertFalse(os.path.exists(os.path.join(tmp, "res")))
                a = subprocess.run([agent] + order, capture_output=True,
                                   text=True, timeout=60,
                                   stdin=subprocess.DEVNULL)
                self.assertEqual(a.returncode, 2, a.stdout + a.stderr)
                self.assertEqual(a.stderr.splitlines()[0], "agent: " + want)

    def test_bad_inventory_default_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "hosts"))
            with open(os.path.join(tmp, "hosts", "x.json"), "w") as f:
                f.write('{"hosts": {"a": {"ssh": "127.0.0.1:1",'
                        ' "defaults": {"cpu_warmup": -1}}}}')
            p = run_ctl(["run", "a", "--results", "res"], tmp)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
            self.assertIn("x.json: host a: defaults: cpu_warmup '-1': "
                          "expected an integer from 0 to 100000", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "res")))

    def test_inventory_default_warmup_0_is_a_value(self):
        # "warmup": 0 and the CPU keys are accepted, and the host runs
        # (here: fails to connect, exit 3, with a run directory). That the
        # 0 reaches the agent is checked over SSH in
        # tests/ssh/test_ctl_run.py (DeployTest), since `local` takes no
        # inventory entry. A value the agent refuses is exit 2 instead.
        for defaults, rc in (({"warmup": 0, "cpu_iters": 2,
                               "cpu_warmup": 0}, 3),
                             ({"warmup": 0, "cpu_iters": 0}, 2)):
            with self.subTest(defaults=defaults), \
                    tempfile.TemporaryDirectory() as tmp:
                os.mkdir(os.path.join(tmp, "hosts"))
                with open(os.path.join(tmp, "hosts", "x.json"), "w") as f:
                    json.dump({"hosts": {"a": {"ssh": "root@127.0.0.1:1",
                                               "defaults": defaults}}}, f)
                p = run_ctl(["run", "a", "--timeout", "2", "--no-tui",
                             "--results", "res"], tmp,
                            env=dict(os.environ, HOME=tmp), timeout=120)
                self.assertEqual(p.returncode, rc, p.stdout + p.stderr)
                if rc == 3:
                    self.assertRegex(p.stdout, r"\[a\] failed: .*refused")
                    only_run_dir(os.path.join(tmp, "res"))
                else:
                    self.assertIn("host a: defaults: cpu_iters '0'", p.stderr)
                    self.assertFalse(os.path.exists(os.path.join(tmp, "res")))

    def test_plain_table_marks_unreliable_and_shows_peak_and_delta(self):
        # One timed iteration and no warm-up: the agent calls the row
        # unreliable; the plain table marks its GFLOP/s and says why,
        # and shows %peak. The second run has a Δ% against the first (same
        # machine, same settings) and names it.
        env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
        args = ["run", "local", "--size", "64", "--iters", "1", "--warmup",
                "0", "--device", "cpu", "--dtypes", "fp32", "--no-tui",
                "--results", "res"]
        with tempfile.TemporaryDirectory() as tmp:
            first = run_ctl(args, tmp, env=env)
            self.assertIn(first.returncode, (0, 1), first.stdout + first.stderr)
            out = first.stdout
            self.assertRegex(out, r"(?m)^host\s+device\s+dtype\s+n\s+GFLOP/s\s+"
                                  r"Δ%\s+%peak\s+vs ref\s+%roof\s+med ms\s")
            row = [l for l in out.splitlines() if re.match(r"local\s+cpu\s+fp32\s", l)][0]
            # The row carries its reasons' note numbers; the notes say
            # each reason once with its count, in the agent's words.
            self.assertRegex(row, r"^local\s+cpu\s+fp32\s+64\s+[\d.]+\?1,2\s+n/a\s+"
                                  r"([\d.]+%|n/a)\s")
            self.assertIn("\nnotes\n?1 one sample: no spread to judge it by: 1 row\n"
                          "?2 no warm-up: the first call pays for set-up: 1 row\n", out)
            first_id = os.path.basename(only_run_dir(os.path.join(tmp, "res")))
            second = run_ctl(args, tmp, env=env)
            self.assertIn(second.returncode, (0, 1), second.stdout)
            row = [l for l in second.stdout.splitlines()
                   if re.match(r"local\s+cpu\s+fp32\s", l)][0]
            self.assertRegex(row, r"^local\s+cpu\s+fp32\s+64\s+[\d.]+\?1,2\s+"
                                  r"([+-][\d.]+%|0\.0%)\s")
            self.assertIn(f"Δ% local: vs run {first_id}, same machine and "
                          "settings", second.stdout)

    def test_roofline_bandwidth_and_batching(self):
        # A real run: the %roof column (the record's fraction of the
        # roofline and its bound) and the bandwidth and batching lines
        # under the table, with the records' numbers. --no-bandwidth then
        # takes the bandwidth lines and the roofline away, --no-batching
        # the batching lines; both reach the host record's options, and
        # the runs are not each other's Δ% baseline.
        env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
        base = ["run", "local", "--size", "64", "--device", "cpu",
                "--dtypes", "fp32", "--no-tui", "--results", "res"]
        with tempfile.TemporaryDirectory() as tmp:
            p = run_ctl(base + ["--bandwidth-mib", "8"], tmp, env=env)
            self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)
            out = p.stdout
            self.assertRegex(out, r"(?m)^host\s+device\s+dtype\s+n\s+GFLOP/s\s+"
                                  r"Δ%\s+%peak\s+vs ref\s+%roof\s+med ms\s")
            run = only_run_dir(os.path.join(tmp, "res"))
            recs = records(glob.glob(os.path.join(run, "*.ndjson"))[0])
            self.assertEqual(recs[0]["options"]["bandwidth_mib"], 8)
            g = [r for r in recs if r["type"] == "gemm"][0]
            self.assertEqual(g["bandwidth_kind"], "triad")
            pct = 100 * g["fraction_of_roofline"]
            cell = "%.*f%% %s" % (1 if pct < 9.95 else 0, pct,
                                  g["bound"][0].upper())
            row = [l for l in out.splitlines() if re.match(r"local\s+cpu\s+fp32\s", l)][0]
            self.assertIn(" " + cell + " ", row)
            bw = [r for r in recs if r["type"] == "bandwidth"][0]
            self.assertIn("\nbandwidth (median GB/s)\n", out)
            self.assertRegex(out, r"(?m)^local\s+cpu\s+triad\s+%s\s+pass$" %
                             re.escape("%.1f" % bw["median_gbps"]))
            ba = [r for r in recs if r["type"] == "batching"][0]
            self.assertIn("\nbatching (20 one-row calls vs one 20-row batch)\n"
                          "host  device dtype 20 calls µs batch µs speed-up "
                          "µs/row call µs/row batch state\n", out)
            # All 20 one-row calls beside the one batch call (so the
            # speed-up is the one over the other), then each per row, in µs.
            def us(v):
                return "%.0f" % v if v >= 100 else "%.3g" % v
            self.assertRegex(out, r"(?m)^local\s+cpu\s+fp32\s+%s\s+%s\s+%s\s+%s\s+%s\s+pass$" %
                             (re.escape(us(20 * ba["single_ms"] * 1000)),
                              re.escape(us(ba["batch_ms"] * 1000)),
                              re.escape("%.1fx" % ba["speedup"]),
                              re.escape(us(ba["single_ms"] * 1000)),
                              re.escape(us(ba["batch_ms"] * 1000 / 20))))

            p = run_ctl(base + ["--no-bandwidth", "--no-batching"], tmp, env=env)
            self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)
            out = p.stdout
            self.assertNotIn("bandwidth (", out)
            self.assertNotIn("batching (", out)
            row = [l for l in out.splitlines() if re.match(r"local\s+cpu\s+fp32\s", l)][0]
            self.assertRegex(row, r"^local\s+cpu\s+fp32\s+64\s+[\d.]+(?:\?[\d,]*)?\s+n/a\s+"
                                  r"([\d.]+%|n/a)\s+n/a\s")
            self.assertNotIn("vs run", out)  # other settings: no baseline
            newest = [d for d in glob.glob(os.path.join(tmp, "res", "*"))
                      if os.path.isdir(d) and d != run][0]
            with open(os.path.join(newest, "run.json")) as f:
                meta = json.load(f)
            self.assertIn("--no-bandwidth", meta["command_line"])
            recs = records(os.path.join(newest, meta["hosts"][0]["records_file"]))
            opts = recs[0]["options"]
            self.assertIs(opts["no_bandwidth"], True)
            self.assertIs(opts["no_batching"], True)
            self.assertNotIn("bandwidth_mib", opts)
            self.assertEqual([r for r in recs if r["type"] in
                              ("bandwidth", "batching")], [])

    def test_hosts_pads_by_display_width(self):
        # A CJK name (two cells a character) keeps the kind column where
        # the others have it: padded to 20 cells, not 20 bytes (before,
        # 機械 took 6 bytes and 4 cells, and its column came 2 early).
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "hosts"))
            with open(os.path.join(tmp, "hosts", "lab.json"), "w") as f:
                json.dump({"hosts": {"box": {"ssh": "root@127.0.0.1:1"},
                                     "機械": {"ssh": "root@127.0.0.1:2"}}},
                          f, ensure_ascii=False)
            p = run_ctl(["hosts", "--hosts-dir", "hosts"], tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            self.assertIn("box" + " " * 17 + " host   ssh root@127.0.0.1:1",
                          lines)
            self.assertIn("機械" + " " * 16 + " host   ssh root@127.0.0.1:2",
                          lines)

    def test_example_inventory_parses(self):
        here = os.path.dirname(os.path.abspath(__file__))
        example = os.path.join(here, "..", "..", "hosts", "examples", "lab.json")
        with open(example) as f:
            inv = json.load(f)
        # Point every host at a loopback port where nothing listens, so the
        # example's own structure (group, env, path_prepend, defaults) is
        # what ctl reads, and no address off this machine is ever tried.
        for h in inv["hosts"].values():
            h["ssh"] = "root@127.0.0.1:1"
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "hosts"))
            with open(os.path.join(tmp, "hosts", "lab.json"), "w") as f:
                json.dump(inv, f)
            p = run_ctl(["run", "lab", "--timeout", "2", "--results", "res",
                         "--no-tui"], tmp, env=dict(os.environ, HOME=tmp),
                        timeout=120)
            self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
            self.assertRegex(p.stdout, r"\[spark\] failed: .*refused")
            self.assertRegex(p.stdout, r"\[workstation\] failed: .*refused")


if __name__ == "__main__":
    unittest.main(verbosity=2)
