#!/usr/bin/env python3
"""Fails when a C source breaks the layout rules docs/style.md keeps
mechanical: indentation by tabs (a line may not start with eight spaces,
nor with a space followed by a tab), no trailing blanks, no carriage
returns, a final newline. Scans the .c, .h and .cu files under agent/,
common/, controller/, tests/, bench/ and fuzz/ of the source tree given as
the one argument (default: this file's parent's parent); third_party/ is
left as its authors wrote it. Prints file:line: rule for each break and
exits 1 when there is any, else 0. Checks itself on a few samples first
(exit 2 when that fails).
"""
import os
import sys

DIRS = ("agent", "common", "controller", "tests", "bench", "fuzz")
EXTS = (".c", ".h", ".cu")


def breaks(text):
    """(line number, rule) for each break in text."""
    out = []
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        if "\r" in line:
            out.append((i, "carriage return"))
        if line.startswith(" " * 8):
            out.append((i, "indented by spaces, not tabs"))
        if line.startswith(" \t"):
            out.append((i, "a space before a tab in the indentation"))
        if line != line.rstrip(" \t"):
            out.append((i, "trailing blank"))
    if text and not text.endswith("\n"):
        out.append((len(lines), "no newline at the end"))
    return out


def self_check():
    samples = {
        "int a;\n": [],
        "\tint a;\n": [],
        "        int a;\n": [(1, "indented by spaces, not tabs")],
        " \tint a;\n": [(1, "a space before a tab in the indentation")],
        "int a; \n": [(1, "trailing blank")],
        "int a;\r\n": [(1, "carriage return")],
        "int a;": [(1, "no newline at the end")],
        "\t * a comment line\n": [],
    }
    for text, want in samples.items():
        if breaks(text) != want:
            print("check_whitespace: self-check failed on %r: %r" %
                  (text, breaks(text)))
            return False
    return True


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    if not self_check():
        return 2
    found = 0
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for name in sorted(files):
                if not name.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace",
                          newline="") as f:
                    text = f.read()
                for line, rule in breaks(text):
                    print("%s:%d: %s" % (os.path.relpath(path, root), line,
                                         rule))
                    found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
