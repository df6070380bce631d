#!/usr/bin/env python3
"""Why each skipped test skipped, from CTest's JUnit file.

CTest shows a skipped test as "Skipped" without its output (even with
--output-on-failure), and its LastTest.log says "Test Passed." for it;
`ctest --output-junit FILE` keeps both. tests/run calls this after each
ctest, so that a run in a container or chroot says why each test that
could not run here did not:

    python3 tests/lib/skipped.py build/Testing/junit.xml [LABEL]

prints "LABEL: skipped NAME: <the test's last line>" for each, and
nothing when none skipped. Exit status 0 (2 when the file is unreadable).
"""

import sys
import xml.etree.ElementTree as ET


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


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: skipped.py JUNIT_XML [LABEL]", file=sys.stderr)
        return 2
    label = argv[2] if len(argv) == 3 else "ctest"
    try:
        cases = skipped(argv[1])
    except (OSError, ET.ParseError) as e:
        print("skipped.py: %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    for name, why in cases:
        print("%s: skipped %s: %s" % (label, name, why))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
