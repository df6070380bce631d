#!/usr/bin/env python3
"""Fails where ctl could cut text in silence (issue 28: "find every fixed
buffer that holds user-visible text and remove the limit or wrap").

Scans the .c files under controller/ and common/ of the source tree given
as the first argument (default: this file's parent's parent) for calls to
snprintf and vsnprintf, and flags two shapes:

  * a call whose format has a string conversion (%s, %.*s, %-20s; or a
    format that is not a literal, as vsnprintf's is) and whose return value
    is dropped: when the text is longer than the buffer the reader gets a
    cut text and nobody knows. Use bf_text_fmt (cuts end with "..."),
    bf_xasprintf (no limit), check the return, or say on the call or in
    the three lines above it why the text always fits: /* fits: ... */.
  * a call whose return value is added to an offset (+= snprintf): after
    a cut the offset passes the end of the buffer and the next call writes
    out of it. Use bf_text_appendf or check the return.

Files in NOT_YET_AUDITED may still hold such calls; a file listed there
that holds none fails, so the list only shrinks. It held 72 files (344
calls) when the check came (issue 28); every call has since been read
and fixed or given its reason, and the list is empty. Prints file:line: rule
for each and exits 1 when there is any, else 0. Checks itself on samples
first (exit 2 when that fails). --list prints the flagged calls of every
file, the listed ones included.
"""
import os
import re
import sys

DIRS = ("controller", "common")

# Files whose calls were written before this check and not yet looked at
# one by one (none left). Never add one: fix the call or give its reason.
NOT_YET_AUDITED = set()

CALL = re.compile(r"\bv?snprintf\s*\(")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
STRING_CONV = re.compile(r"%[-+ #0]*(\*|[0-9]+)?(\.(\*|[0-9]+))?s")
FITS = "/* fits:"


def call_end(text, start):
    """Index just past the parenthesis that closes the call whose '('
    is at text[start - 1]."""
    depth, i = 1, start
    while depth and i < len(text):
        c = text[i]
        if c == '"' or c == "'":
            i += 1
            while i < len(text) and text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i


def strip_comments(text):
    """text with comments blanked (newlines kept, so lines still count)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def flags(text):
    """(line number, rule) for each flagged call in text."""
    out = []
    code = strip_comments(text)
    lines = text.split("\n")
    for m in CALL.finditer(code):
        end = call_end(code, m.end())
        call = code[m.start():end]
        line = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, end) + 1
        around = "\n".join(lines[max(0, line - 4):last])
        if FITS in around:
            continue
        before = code[:m.start()].rstrip()
        # A cast between the operator and the call: (size_t)snprintf(...)
        before = re.sub(r"\(\s*(size_t|int|unsigned|void)\s*\)$", "",
                        before).rstrip()
        literals = LITERAL.findall(call)
        text_conv = (call.startswith("vsnprintf") or not literals or
                     any(STRING_CONV.search(s.replace("%%", ""))
                         for s in literals))
        if before.endswith("+="):
            out.append((line, "snprintf's return added to an offset: a "
                        "cut puts the offset past the end"))
        elif (not before or before[-1] in ";{}):" or
              re.search(r"\b(else|do)$", before)) and text_conv:
            out.append((line, "snprintf of text with its return dropped: "
                        "a cut would be silent"))
    return out


def self_check():
    samples = {
        'snprintf(b, sizeof b, "%d", n);\n': [],
        'snprintf(b, sizeof b, "%s", s);\n': [1],
        'x;\nif (a)\n\tsnprintf(b, 4, "%.*s", 3, s);\n': [3],
        '(void)snprintf(b, 4, "%-8s", s);\n': [1],
        'if (snprintf(b, 4, "%s", s) >= 4)\n': [],
        'n = snprintf(b, 4, "%s", s);\n': [],
        'o += (size_t)snprintf(b + o, 4 - o, "%d", n);\n': [1],
        '/* fits: s is one of three names */\nsnprintf(b, 8, "%s", s);\n':
            [],
        '{ vsnprintf(b, 8, fmt, ap); }\n': [1],
        'snprintf(b, 8, "%s" /* a comment with ) */, s);\n': [1],
        'else snprintf(b, 8, "a %s", s);\n': [1],
        'case 1: snprintf(b, 8, "%%s %d", n);\n': [],
    }
    for text, want in samples.items():
        got = [n for n, _ in flags(text)]
        if got != want:
            print("check_buffers: self-check failed on %r: %r" % (text, got))
            return False
    return True


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_all = "--list" in sys.argv
    root = args[0] if args else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    if not self_check():
        return 2
    found = 0
    seen = set()
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for name in sorted(files):
                if not name.endswith(".c"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    hits = flags(f.read())
                if rel in NOT_YET_AUDITED:
                    seen.add(rel)
                    if not hits:
                        print("%s: listed in NOT_YET_AUDITED but has no "
                              "flagged call: remove it from the list" % rel)
                        found += 1
                    if not show_all:
                        continue
                for line, rule in hits:
                    print("%s:%d: %s" % (rel, line, rule))
                    if rel not in NOT_YET_AUDITED:
                        found += 1
    for rel in sorted(NOT_YET_AUDITED - seen):
        print("%s: listed in NOT_YET_AUDITED but not found" % rel)
        found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
