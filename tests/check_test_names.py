#!/usr/bin/env python3
"""Fails when a C test is not where a reader of the source looks for it
(issue 29: "a reader of controller/run/inventory.c should find its test by
name in a predictable place").

The rule (tests/unit/CMakeLists.txt says it too): every C test is
tests/unit/test_<name>.c, and <name> is
  * the stem of a source under agent/, controller/ or common/
    (test_preflight.c tests controller/run/preflight.c), or
  * such a stem, an underscore and a topic (test_stats_mwu.c: the
    Mann-Whitney U test of common/stats.c), or
  * the name of a folder there, for a test of the folder as a whole
    (test_workloads.c: agent/workloads/).
A test_*.c anywhere else under tests/, or one whose name matches no
source, fails; so does a test file tests/unit/CMakeLists.txt does not
build. Argument: the source tree (default: this file's parent's parent).
Prints one line per fault and exits 1 when there is any, else 0. Checks
itself on samples first (exit 2 when that fails).
"""
import os
import re
import sys

SOURCE_DIRS = ("agent", "controller", "common")
SOURCE_EXTS = (".c", ".cu")


def sources(root):
    """(stems, folder names) of the sources under SOURCE_DIRS."""
    stems, folders = set(), set()
    for d in SOURCE_DIRS:
        for dirpath, dirs, files in os.walk(os.path.join(root, d)):
            folders.update(dirs)
            folders.add(os.path.basename(dirpath))
            for name in files:
                base, ext = os.path.splitext(name)
                if ext in SOURCE_EXTS:
                    stems.add(base)
    return stems, folders


def tested(name, stems, folders):
    """The source stem or folder test_<name>.c belongs to, or None."""
    if name in stems or name in folders:
        return name
    parts = name.split("_")
    for i in range(len(parts) - 1, 0, -1):
        head = "_".join(parts[:i])
        if head in stems:
            return head
    return None


def self_check():
    stems, folders = {"inventory", "stats", "gemm", "gemm_fp64"}, {"run"}
    samples = {"inventory": "inventory", "stats_mwu": "stats",
               "gemm_fp64": "gemm_fp64", "gemm_verify": "gemm",
               "run": "run", "mwu": None, "text": None}
    for name, want in samples.items():
        if tested(name, stems, folders) != want:
            print("check_test_names: self-check failed on %r" % name)
            return False
    return True


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    if not self_check():
        return 2
    stems, folders = sources(root)
    unit = os.path.join(root, "tests", "unit")
    with open(os.path.join(unit, "CMakeLists.txt"), encoding="utf-8") as f:
        cmake = f.read()
    built = set()
    for m in re.finditer(r"foreach\(name ([^)]*)\)", cmake):
        built.update(m.group(1).split())
    built.update(re.findall(r"bf_unit_test\(NAME ([a-z0-9_]+)", cmake))
    faults = 0
    for dirpath, _, files in os.walk(os.path.join(root, "tests")):
        for fname in sorted(files):
            if not (fname.startswith("test_") and fname.endswith(".c")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, fname), root)
            name = fname[len("test_"):-len(".c")]
            if os.path.normpath(dirpath) != os.path.normpath(unit):
                print("%s: C tests live in tests/unit/" % rel)
                faults += 1
            elif tested(name, stems, folders) is None:
                print("%s: names no source under agent/, controller/ or "
                      "common/ (test_<stem>.c or test_<stem>_<topic>.c)"
                      % rel)
                faults += 1
            elif name not in built:
                print("%s: not built by tests/unit/CMakeLists.txt" % rel)
                faults += 1
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
