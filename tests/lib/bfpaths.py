"""Where the test suites find the binaries under test.

CTest passes BF_CTL (and BF_AGENT) explicitly; run by hand from a checkout,
a test falls back to build/bin/ as README's first command builds it.
"""

import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def find_ctl():
    """Path of the ctl binary to test, or None when none is built."""
    p = os.environ.get("BF_CTL")
    if p:
        return p
    c = os.path.join(ROOT, "build", "bin", "ctl")
    return c if os.access(c, os.X_OK) else None
