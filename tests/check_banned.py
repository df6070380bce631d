#!/usr/bin/env python3
"""Fails when C code calls a banned function: strcat, sprintf, strcpy, atoi.

They are unbounded (strcat, sprintf, strcpy: use snprintf or memcpy with a
known length) or silently turn garbage into 0 (atoi: use bf_parse_long, or
strtol with its end pointer). Scans the .c, .h and .cu files under agent/,
common/, controller/, tests/ and bench/ of the source tree given as the one
argument (default: this file's parent's parent). A call is the name as a
whole word followed by "("; comments, string and character literals are
left out first, so prose that names a function passes. Prints file:line:
name for each call and exits 1 when there is any, else 0. Checks itself on
a few samples first (exit 2 when that fails).
"""
import os
import re
import sys

BANNED = ("strcat", "sprintf", "strcpy", "atoi")
CALL = re.compile(r"\b(" + "|".join(BANNED) + r")\s*\(")
DIRS = ("agent", "common", "controller", "tests", "bench")
EXTS = (".c", ".h", ".cu")


def strip(text):
    """text with comments and literals blanked; newlines are kept, so line
    numbers stay right."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def calls(text):
    """(line, name) for each banned call in C source text."""
    code = strip(text)
    return [(code.count("\n", 0, m.start()) + 1, m.group(1))
            for m in CALL.finditer(code)]


def self_test():
    cases = {
        "x = atoi(s);": [(1, "atoi")],
        "sprintf (buf, \"%d\", 1);": [(1, "sprintf")],
        "a;\nstrcat(d, s); strcpy(d, s);": [(2, "strcat"), (2, "strcpy")],
        "snprintf(b, n, \"x\"); vsprintf_like(); my_atoi(s);": [],
        "/* unlike atoi(s) */ // strcpy(a, b)\n": [],
        "puts(\"sprintf(\"); c = '\\''; d = '\"';": [],
        "/* a\n * strcat(x)\n */\natoi(y);": [(4, "atoi")],
    }
    ok = True
    for src, want in cases.items():
        got = calls(src)
        if got != want:
            print(f"check_banned self-test: {src!r}: got {got}, want {want}")
            ok = False
    return ok


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    if not self_test():
        return 2
    found = 0
    for d in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = sorted(x for x in dirnames
                                 if not x.startswith((".", "build")))
            for f in sorted(filenames):
                if not f.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for line, name in calls(text):
                    print(f"{os.path.relpath(path, root)}:{line}: {name}")
                    found += 1
    if found:
        print(f"{found} call(s) of banned functions ({', '.join(BANNED)})")
        return 1
    print("no banned calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
