#!/usr/bin/env python3
"""Long names reach the user whole in ctl's own lines (issue 28: "find
every fixed buffer that holds user-visible text and remove the limit or
wrap"): `ctl hosts --names` (what shell completion takes: a cut name is
another name), `ctl hosts` (a 1500-byte description, a group of twelve
84-byte members, a CJK group name), and `ctl run --baseline` naming no
host of the run (its error lists every host). Before, these were cut at
255, 1023 and 511 bytes.

Nothing connects anywhere: the inventory's hosts are never reached.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

CTL = os.environ["BF_CTL"]
MEMBERS = ["h%02d-" % i + "x" * 80 for i in range(12)]
LONG_HOST = "L" * 300
DESCRIPTION = "d" * 1500
CJK_GROUP = "群" * 100      # 300 bytes of UTF-8


class LongNames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bf-longnames-")
        cls.hosts = os.path.join(cls.tmp, "hosts")
        os.makedirs(cls.hosts)
        hosts = {m: {"ssh": "127.0.0.1:1"} for m in MEMBERS}
        hosts[LONG_HOST] = {"ssh": "127.0.0.1:1",
                            "description": DESCRIPTION}
        with open(os.path.join(cls.hosts, "lab.json"), "w") as f:
            json.dump({"hosts": hosts, "groups": {CJK_GROUP: MEMBERS}}, f,
                      ensure_ascii=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def ctl(self, args):
        return subprocess.run([CTL] + args, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL,
                              cwd=self.tmp)

    def test_names_whole(self):
        p = self.ctl(["hosts", "--hosts-dir", self.hosts, "--names"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(p.stdout.splitlines()),
                         sorted(["local", LONG_HOST, CJK_GROUP] + MEMBERS))

    def test_lines_whole(self):
        p = self.ctl(["hosts", "--hosts-dir", self.hosts])
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        host = [l for l in lines if l.startswith(LONG_HOST + " ")]
        self.assertEqual(len(host), 1, lines)
        self.assertTrue(host[0].endswith(
            " host   ssh 127.0.0.1:1: " + DESCRIPTION), host[0])
        group = [l for l in lines if l.startswith(CJK_GROUP + " ")]
        self.assertEqual(len(group), 1, lines)
        self.assertTrue(group[0].endswith(" group  " + " ".join(MEMBERS)),
                        group[0])
        self.assertNotIn("...", p.stdout)

    def test_baseline_error_lists_every_host(self):
        p = self.ctl(["run", "--hosts-dir", self.hosts, "--results",
                      os.path.join(self.tmp, "results"), "--baseline",
                      "nope"] + MEMBERS)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr, "ctl: --baseline nope: not a host of "
                         "this run (hosts: %s)\n" % ", ".join(MEMBERS))


if __name__ == "__main__":
    unittest.main(verbosity=2)
