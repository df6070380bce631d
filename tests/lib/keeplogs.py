"""A failing test's files kept for a person to read, where CTest says.

A test's temporary directory (servers' logs, ctl's archive and logs, the
inventory it wrote) is removed when the test passes and kept when it
fails: moved under $BF_TEST_LOGS (CTest sets it to the build tree's
Testing/logs/, tests/CMakeLists.txt), or, run by hand without it, left
where it is. Either way one line on stderr says where it is.

    import keeplogs
    ok = ...run the tests...
    keeplogs.finish(tmp, ok, "slurm.ctl_run")

    class MyTest(keeplogs.KeepOnFailure, unittest.TestCase):
        def setUp(self):
            self.tmp = self.keep_dir(tempfile.mkdtemp())   # per test
"""

import os
import re
import shutil
import stat
import sys
import time


def _copy_tree(src, dst):
    """src copied to dst, regular files, directories and links only (a
    server's socket or FIFO is left out)."""
    def ignore(d, names):
        out = []
        for n in names:
            try:
                m = os.lstat(os.path.join(d, n)).st_mode
            except OSError:
                out.append(n)
                continue
            if not (stat.S_ISREG(m) or stat.S_ISDIR(m) or stat.S_ISLNK(m)):
                out.append(n)
        return out
    shutil.copytree(src, dst, symlinks=True, ignore=ignore)


def keep(path, label):
    """Keeps path (a file or directory) for reading: moves it to
    $BF_TEST_LOGS/<label>-<UTC time>-<pid>/ when that is set, else leaves
    it. Prints where it is and returns that path (None when path is
    gone)."""
    if not path or not os.path.lexists(path):
        return None
    where = path
    base = os.environ.get("BF_TEST_LOGS")
    if base:
        name = "%s-%s-%d" % (re.sub(r"[^A-Za-z0-9._-]+", "_", label)[:120],
                             time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()),
                             os.getpid())
        dest = os.path.join(base, name)
        try:
            os.makedirs(base, exist_ok=True)
            try:
                os.rename(path, dest)
            except OSError:
                _copy_tree(path, dest)
                shutil.rmtree(path, ignore_errors=True)
            where = dest
        except OSError as e:
            print("keeplogs: could not move %s to %s: %s" % (path, dest, e),
                  file=sys.stderr)
    print("test failed: its files are kept in %s" % where, file=sys.stderr,
          flush=True)
    return where


def finish(path, ok, label):
    """Removes path when ok, else keeps it (keep)."""
    if ok:
        shutil.rmtree(path, ignore_errors=True)
        return None
    return keep(path, label)


class KeepOnFailure:
    """unittest.TestCase mixin: directories registered with keep_dir() are
    removed after a test that passed, kept (keep) after one that failed
    or raised, named by the test's id."""

    def keep_dir(self, path):
        self.__dict__.setdefault("_bf_keep", []).append(path)
        return path

    def run(self, result=None):
        if result is None:
            return super().run(result)
        before = len(result.failures) + len(result.errors)
        try:
            return super().run(result)
        finally:
            failed = len(result.failures) + len(result.errors) > before
            for d in self.__dict__.pop("_bf_keep", []):
                finish(d, not failed, self.id())
