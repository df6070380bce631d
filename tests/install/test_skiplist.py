#!/usr/bin/env python3
"""tests/run's skip list (tests/lib/skipped.py) names every test that
skipped and every unittest case skipped inside a test that ran (issue 34:
in a chroot, ssh_connect_trust passes with its private-mount cases
skipped, and each must still be named with its reason)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "..", "lib")

# A CTest JUnit file as `ctest --output-junit` writes it: one test skipped
# by its exit status (77), one that passed with cases skipped inside (a
# docstring line between the case and "... skipped", subtests), one that
# passed with none.
JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="x" tests="3" failures="0" disabled="0" skipped="1">
 <testcase name="slurm_run" classname="slurm_run" time="0.1" status="notrun">
  <skipped message="Skipped"/>
  <system-out>starting
skip: no cgroup file system at /sys/fs/cgroup</system-out>
 </testcase>
 <testcase name="ssh_connect_trust" classname="ssh_connect_trust" time="9" status="run">
  <system-out>test_names_libssh_refuses (__main__.HostNameTest.test_names_libssh_refuses)
Real host names (a private /etc/hosts) that getaddrinfo ...
  test_names_libssh_refuses (__main__.HostNameTest.test_names_libssh_refuses) (name='my_host') ... skipped 'no private mount namespace: Invalid argument'
test_no_home_file (__main__.SystemConfigTest.test_no_home_file)
HOME has no .ssh/config: the system file alone, as ssh. ... skipped 'no private mount namespace: Invalid argument'
test_given_file_only (__main__.SystemConfigTest.test_given_file_only) ... ok

OK (skipped=2)</system-out>
 </testcase>
 <testcase name="unit.model" classname="unit.model" time="0.1" status="run">
  <system-out>ok 1 - test_gflops</system-out>
 </testcase>
</testsuite>
"""


class SkipListTest(unittest.TestCase):
    def test_each_skip_named_with_its_reason(self):
        with tempfile.NamedTemporaryFile("w", suffix=".xml") as f:
            f.write(JUNIT)
            f.flush()
            r = subprocess.run([sys.executable,
                                os.path.join(LIB, "skipped.py"), f.name,
                                "tests/run: build/"],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "tests/run: build/: skipped slurm_run: skip: no cgroup file "
            "system at /sys/fs/cgroup",
            "tests/run: build/: skipped ssh_connect_trust: "
            "HostNameTest.test_names_libssh_refuses (name='my_host'): "
            "no private mount namespace: Invalid argument",
            "tests/run: build/: skipped ssh_connect_trust: "
            "SystemConfigTest.test_no_home_file: no private mount "
            "namespace: Invalid argument"])

    def test_unreadable_file(self):
        r = subprocess.run([sys.executable, os.path.join(LIB, "skipped.py"),
                            "/nonexistent/junit.xml"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("/nonexistent/junit.xml", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
