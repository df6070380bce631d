#!/usr/bin/env python3
"""Why each skipped test skipped, from CTest's JUnit file.

CTest shows a skipped test as "Skipped" without its output (even with
--output-on-failure), and its LastTest.log says "Test Passed." for it;
`ctest --output-junit FILE` keeps both. tests/run calls this after each
ctest, so that a run in a container or chroot says why each test that
could not run here did not:

    python3 tests/lib/skipped.py build/Testing/junit.xml [LABEL]

prints "LABEL: skipped NAME: <the test's last line>" for each, then
"LABEL: skipped NAME: CASE: <reason>" for each case that a test which ran
skipped inside (Python unittest's verbose "... skipped 'REASON'" lines:
a case needing a private mount namespace in a chroot, say), and nothing
when none skipped. Exit status 0 (2 when the file is unreadable).
"""

import re
import sys
import xml.etree.ElementTree as ET

# unittest's verbosity=2 lines: "test_x (mod.Class.test_x)" opens a case
# (its docstring's first line may follow on the next line), a subtest adds
# " (i=0)" or " [msg]"; "... skipped 'REASON'" ends a skipped one.
_CASE = re.compile(r"^\s*(test\w*) \(([\w.]+)\)((?: \(.*\)| \[.*\])?)")
_SKIP = re.compile(r"\.\.\. skipped '(.*)'\s*$")


def skipped(path):
    """[(test name, its last output line)] of the skipped tests."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.get("status") != "notrun" and case.find("skipped") is None:
            continue
        text = (case.findtext("system-out") or "").strip().splitlines()
        out.append((case.get("name"), text[-1].strip() if text else
                    "(no output)"))
    return out


def skipped_cases(text):
    """[(case, reason)] of the unittest cases that text (a test's output)
    says were skipped; case is "Class.test_x" plus a subtest's
    parameters."""
    out = []
    case = None
    for line in text.splitlines():
        m = _CASE.match(line)
        if m:
            case = ".".join(m.group(2).split(".")[-2:]) + m.group(3)
        s = _SKIP.search(line)
        if s:
            out.append((case or "?", s.group(1)))
    return out


def skipped_inside(path):
    """[(test name, case, reason)] for the cases skipped inside tests that
    ran (CTest: passed or failed)."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.get("status") == "notrun" or case.find("skipped") is not None:
            continue
        for c, why in skipped_cases(case.findtext("system-out") or ""):
            out.append((case.get("name"), c, why))
    return out


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: skipped.py JUNIT_XML [LABEL]", file=sys.stderr)
        return 2
    label = argv[2] if len(argv) == 3 else "ctest"
    try:
        cases = skipped(argv[1])
        inside = skipped_inside(argv[1])
    except (OSError, ET.ParseError) as e:
        print("skipped.py: %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    for name, why in cases:
        print("%s: skipped %s: %s" % (label, name, why))
    for name, c, why in inside:
        print("%s: skipped %s: %s: %s" % (label, name, c, why))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
