#!/usr/bin/env python3
"""Fails when the sources run against benchfleet's layers.

The folders of agent/ and controller/ are layers: a file may include
(and call) only files of its own folder, of the folders LAYERS below
allows it, and common/. The rule is written down here once; README.md's
Layout and agent/README.md, controller/README.md say the same in words.

Checks, on the source tree given as the first argument:

  1. every quoted #include resolves (to its folder-qualified path, e.g.
     "run/session.h" from controller/, or a common/ header), and its
     folder is one the including file's folder may use;
  2. no circle of includes between files;
  3. a library's headers only where LIBRARIES allows them (libssh in the
     SSH layer, curses in the live table's one file, CUDA in the
     backends);
  4. every folder of agent/ and controller/ is a layer of LAYERS, and
     agent/README.md and controller/README.md, which describe each
     folder with a "May use:" line, say what LAYERS says;

and, with a build tree as the second argument, on its object files
(nm): every symbol a file uses that another file defines is one it may
use by rule 1, no circle of calls between files (file A uses B,
which uses A, directly or through others), and (5) no circle between
files taking a header's types, constants and macros as uses too (a .c
and its .h are one; KNOWN_FILE_CIRCLES lists the old ones that pass),
and (6) no call from another file to a function marked BF_TESTONLY. Prints one line per finding
(the file, what it includes or calls, and the rule) and exits 1 when
there is any, else 0; exit 2 when its own self-test fails.
"""
import collections
import os
import re
import subprocess
import sys

# Who may use whom: each folder (relative to the source tree) lists the
# folders below it that it may include and call. Its own folder and
# common/ are always allowed. Top to bottom:
LAYERS = {
    # ctl: commands on top (parse, wire, print), common at the bottom
    "controller/cmd": ["controller/run", "controller/view",
                       "controller/model", "controller/remote",
                       "controller/archive", "controller/base"],
    "controller/run": ["controller/model", "controller/remote",
                       "controller/archive", "controller/base"],
    "controller/view": ["controller/model", "controller/archive",
                        "controller/base"],
    "controller/model": ["controller/archive", "controller/base"],
    "controller/archive": ["controller/base"],
    "controller/remote": ["controller/base"],
    "controller/base": [],
    # the agent: the program on top, what every part shares at the bottom
    "agent": ["agent/checks", "agent/workloads", "agent/backends",
              "agent/hardware", "agent/core"],
    "agent/checks": ["agent/workloads", "agent/backends", "agent/hardware",
                     "agent/core"],
    "agent/workloads": ["agent/backends", "agent/hardware", "agent/core"],
    "agent/backends": ["agent/hardware", "agent/core"],
    "agent/hardware": [],
    "agent/core": [],
    "common": [],
}

# A library's headers (a prefix of the <...> name) and the folders or
# files that alone may include them.
LIBRARIES = {
    "libssh/": ["controller/remote"],
    "openssl/": ["controller/remote"],
    "curses.h": ["controller/view/ui_curses.c"],
    "ncurses": ["controller/view/ui_curses.c"],
    "cublas": ["agent/backends"],
    "cuda": ["agent/backends"],
    "cblas.h": ["agent/backends/backend_openblas.c"],
    "oneapi/dnnl": ["agent/backends/backend_onednn.c"],
    "dnnl": ["agent/backends/backend_onednn.c"],
}

# Where a folder-qualified include ("run/session.h") is looked up.
COMPONENTS = ("agent", "controller")
EXTS = (".c", ".h", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


def strip_comments(text):
    """text without /* */ and // comments (newlines kept)."""
    text = re.sub(r"/\*.*?\*/",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                  flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def folder_of(path):
    """The layer a file (relative path) belongs to, or None."""
    d = os.path.dirname(path)
    return d if d in LAYERS else None


def may_use(src_folder, dst_folder):
    return (dst_folder == src_folder or dst_folder == "common" or
            dst_folder in LAYERS.get(src_folder, []))


def rule_text(src_folder):
    allowed = [src_folder + "/"] + [f + "/" for f in LAYERS[src_folder]]
    if src_folder != "common":
        allowed.append("common/")
    return "%s/ may use %s" % (src_folder, ", ".join(allowed))


def sources(root):
    """Relative paths of every .c, .h, .cu under the layered folders."""
    out = []
    for top in COMPONENTS + ("common",):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(EXTS):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def resolve(root, src, name):
    """The relative path a quoted include of src names, or None."""
    component = src.split("/")[0]
    cands = [os.path.join(os.path.dirname(src), name)]
    if component in COMPONENTS:
        cands.append(os.path.join(component, name))
    cands.append(os.path.join("common", name))
    for c in cands:
        if os.path.isfile(os.path.join(root, c)):
            return os.path.normpath(c)
    return None


def cycles(graph):
    """The strongly connected components of graph (node -> set of nodes)
    with more than one node, each as a sorted list (Tarjan's algorithm,
    iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def cycle_text(comp, graph, what):
    edges = ["%s -> %s" % (a, b) for a in comp
             for b in sorted(graph.get(a, ())) if b in comp]
    return "%s circle between %s: %s" % (what, ", ".join(comp),
                                         "; ".join(edges))


def module_of(path):
    """A file's module: its path without the extension, so that x.c and
    x.h are one (controller/view/ui_cells)."""
    return os.path.splitext(path)[0]


HEADER_NAMES = [
    re.compile(r"\b(?:struct|union|enum)\s+(\w+)\s*\{"),
    re.compile(r"^\s*#\s*define\s+(\w+)", re.M),
    re.compile(r"\}\s*(\w+)\s*;"),                      # typedef ... } x;
    re.compile(r"\btypedef\b[^;{]*?\b(\w+)\s*;"),
    re.compile(r"\bstatic\s+inline\b[^;{(]*?\b(\w+)\s*\("),
]
ENUM_BODY = re.compile(r"\benum\b[^{;]*\{([^}]*)\}")
WORD = re.compile(r"\b[A-Za-z_]\w*\b")


def header_names(text):
    """What a header (comments stripped) gives besides its functions'
    prototypes: its types, enum constants, macros and inline functions;
    the include guard left out."""
    names = set()
    for rx in HEADER_NAMES:
        names.update(rx.findall(text))
    for body in ENUM_BODY.findall(text):
        names.update(re.findall(r"(?:^|,)\s*(\w+)", body))
    guard = re.search(r"^\s*#\s*ifndef\s+(\w+)", text, re.M)
    if guard:
        names.discard(guard.group(1))
    return names


def check_includes(root, modules):
    """Rules 1 to 3; into modules (module -> set of modules), each
    include of another module's header whose types, constants, macros or
    inline functions the including file uses (its prototypes are counted
    as calls, by check_objects)."""
    findings = []
    graph = collections.defaultdict(set)
    texts = {}
    for src in sources(root):
        with open(os.path.join(root, src), encoding="utf-8") as f:
            texts[src] = strip_comments(f.read())
    names = {src: header_names(t) for src, t in texts.items()
             if src.endswith(".h")}
    for src in sources(root):
        text = texts[src]
        words = set(WORD.findall(INCLUDE.sub("", text)))
        src_folder = folder_of(src)
        for m in INCLUDE.finditer(text):
            kind, name = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            where = "%s:%d" % (src, line)
            if kind == "<":
                for lib, allowed in LIBRARIES.items():
                    if name.startswith(lib) and not any(
                            src == a or src.startswith(a + "/")
                            for a in allowed):
                        findings.append(
                            "%s: includes <%s>: only %s may" %
                            (where, name, ", ".join(allowed)))
                continue
            dst = resolve(root, src, name)
            if dst is None:
                findings.append('%s: includes "%s": no such file in its '
                                "folder, its component or common/" %
                                (where, name))
                continue
            graph[src].add(dst)
            if (module_of(src) != module_of(dst) and
                    words & names.get(dst, set())):
                modules[module_of(src)].add(module_of(dst))
            dst_folder = folder_of(dst)
            if src_folder is None or dst_folder is None:
                findings.append('%s: includes "%s" (%s): a file outside '
                                "the layers of LAYERS" % (where, name, dst))
            elif not may_use(src_folder, dst_folder):
                findings.append('%s: includes "%s" (%s): runs against the '
                                "layers (%s)" % (where, name, dst,
                                                 rule_text(src_folder)))
    for comp in cycles(graph):
        findings.append(cycle_text(comp, graph, "include"))
    return findings


README_FOLDER = re.compile(r"^- \*\*([a-z_/]+)\*\*")
README_USES = re.compile(r"^\s+May use: (.*)$")


def check_docs(root):
    """Rule 4: the folders on disk, LAYERS and the components' READMEs
    agree."""
    findings = []
    for comp in COMPONENTS:
        for d, dirs, files in os.walk(os.path.join(root, comp)):
            rel = os.path.relpath(d, root)
            if any(f.endswith(EXTS) for f in files) and rel not in LAYERS:
                findings.append("%s/: a folder of sources that LAYERS does "
                                "not name (add it to the table)" % rel)
        readme = os.path.join(comp, "README.md")
        try:
            with open(os.path.join(root, readme), encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            findings.append("%s: %s" % (readme, e.strerror))
            continue
        said, folder = {}, None
        for line in lines:
            m = README_FOLDER.match(line)
            if m:
                name = m.group(1).rstrip("/")
                folder = comp if name == comp else comp + "/" + name
                continue
            m = README_USES.match(line)
            if m and folder:
                uses = [u.strip().rstrip("/") for u in m.group(1).split(",")
                        if u.strip() and not u.strip().startswith("(")]
                said[folder] = sorted(comp + "/" + u for u in uses)
                folder = None
        for layer in sorted(LAYERS):
            if layer.split("/")[0] != comp:
                continue
            if layer not in said:
                findings.append("%s: no \"May use:\" line for %s/" %
                                (readme, layer))
            elif said[layer] != sorted(LAYERS[layer]):
                findings.append("%s: %s/ may use %s, LAYERS says %s" %
                                (readme, layer, said[layer] or "nothing",
                                 sorted(LAYERS[layer]) or "nothing"))
    return findings


def object_source(root, build, obj):
    """The source file (relative to root) an object file of build was
    compiled from: CMake's <target>.dir/<relative source path>.o."""
    rel = os.path.relpath(obj, build)
    parts = rel.split(os.sep)
    if "CMakeFiles" not in parts:
        return None
    i = parts.index("CMakeFiles")
    subdir = parts[:i]          # the CMakeLists.txt's folder
    srcrel = parts[i + 2:]      # after <target>.dir
    if not srcrel or not srcrel[-1].endswith(".o"):
        return None
    srcrel[-1] = srcrel[-1][:-2]
    path = os.path.normpath(os.path.join(*(subdir + srcrel)))
    return path if os.path.isfile(os.path.join(root, path)) else None


TESTONLY = re.compile(r"^BF_TESTONLY\s+[^;(]*?\b(\w+)\s*\(", re.M)


def testonly_functions(root):
    """The functions whose prototypes a header marks BF_TESTONLY
    (common/bf_testonly.h): name -> the header."""
    out = {}
    for src in sources(root):
        if not src.endswith(".h"):
            continue
        with open(os.path.join(root, src), encoding="utf-8") as f:
            for name in TESTONLY.findall(strip_comments(f.read())):
                out[name] = src
    return out


def check_objects(root, build, modules):
    """Findings from the object files of build's libraries and
    programs (not the tests'), or one finding when there are none; each
    call between two modules also into modules. Rule 6: a BF_TESTONLY
    function is called by no file but its own (tests are not read)."""
    defs, uses = {}, collections.defaultdict(dict)
    objs = []
    for d, dirs, files in os.walk(build):
        dirs.sort()
        rel = os.path.relpath(d, build).split(os.sep)[0]
        if rel not in COMPONENTS + ("common",):
            continue
        for f in sorted(files):
            if f.endswith(".o"):
                src = object_source(root, build, os.path.join(d, f))
                if src and folder_of(src) is not None:
                    objs.append((src, os.path.join(d, f)))
    if not objs:
        return ["%s: no object files of agent/, controller/ or common/ "
                "(build it first)" % build]
    for src, obj in objs:
        out = subprocess.run(["nm", obj], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRVW":
                defs.setdefault(p[2], src)
            elif len(p) == 2 and p[0] == "U":
                uses[src].setdefault(p[1], None)
    findings = []
    graph = collections.defaultdict(set)
    seen = set()
    testonly = testonly_functions(root)
    for src in sorted(uses):
        for sym in uses[src]:
            dst = defs.get(sym)
            if dst is None or dst == src:
                continue
            if sym in testonly:
                findings.append("%s: calls %s (%s), which %s marks "
                                "BF_TESTONLY: drop the mark" %
                                (src, sym, dst, testonly[sym]))
            graph[src].add(dst)
            modules[module_of(src)].add(module_of(dst))
            sf, df = folder_of(src), folder_of(dst)
            if not may_use(sf, df) and (src, dst) not in seen:
                seen.add((src, dst))
                findings.append("%s: calls %s (%s): runs against the "
                                "layers (%s)" % (src, sym, dst,
                                                 rule_text(sf)))
    for comp in cycles(graph):
        findings.append(cycle_text(comp, graph, "call"))
    return findings


# Rule 5's circles that were there when the rule came (issue 29), each a
# family that shares one header: a circle found must lie inside one of
# these (so none grows and no new one comes); drop an entry once its
# circle is broken. A folder ending in "/" takes any circle inside it.
KNOWN_FILE_CIRCLES = [
    # the backend table (backend.c) and the backends using its types
    ["agent/backends/backend", "agent/backends/backend_cublas",
     "agent/backends/backend_onednn", "agent/backends/backend_openblas"],
    ["controller/archive/archive_files", "controller/archive/archive_read"],
    ["controller/remote/remote_config", "controller/remote/remote_config_file",
     "controller/remote/remote_internal", "controller/remote/remote_wait"],
    ["controller/model/compare", "controller/model/compare_prov"],
    # the session, one host's part, and the header they share
    ["controller/run/session", "controller/run/session_host",
     "controller/run/session_internal"],
    # the command table (ctl.c) and the commands, being reworked into
    # options as data (issue 29)
    ["controller/cmd/"],
]


def known_circle(comp):
    """Whether circle comp (sorted modules) lies inside a known one."""
    for known in KNOWN_FILE_CIRCLES:
        if len(known) == 1 and known[0].endswith("/"):
            if all(m.startswith(known[0]) for m in comp):
                return True
        elif set(comp) <= set(known):
            return True
    return False


def check_modules(modules):
    """Rule 5: no circle between modules (a .c with its .h), taking
    includes and calls together: a file that takes a type, constant,
    macro or inline function from another's header depends on it as much
    as one that calls it, so two files that share a header and call each
    other across it are a circle that neither graph alone shows. Circles
    inside KNOWN_FILE_CIRCLES pass."""
    return [cycle_text(comp, modules, "file")
            for comp in cycles(modules) if not known_circle(comp)]


def self_test():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    if cycles(g) != [["a", "b", "c"]]:
        return "cycles() missed a b c"
    if cycles({"a": {"b"}, "b": set()}):
        return "cycles() found a circle in a line"
    h = header_names("#ifndef G_H\n#define G_H\n#define MARK 1\n"
                     "enum tone { T_A, T_B = 2 };\nstruct spec { int w; };\n"
                     "typedef int width_t;\nint f(int a);\n"
                     "static inline int g(int a)\n{\n\treturn a;\n}\n")
    if h != {"MARK", "tone", "T_A", "T_B", "spec", "width_t", "g"}:
        return "header_names() read %s" % sorted(h)
    t = TESTONLY.findall("BF_TESTONLY\nint f(int a);\nint g(void);\n"
                         "BF_TESTONLY\nenum tone h(const struct s *x,\n"
                         "\t\t  int y);\n")
    if t != ["f", "h"]:
        return "TESTONLY read %s" % t
    if not known_circle(["controller/cmd/a", "controller/cmd/b"]):
        return "a circle inside controller/cmd/ is not known"
    if known_circle(["controller/view/ui_cells", "controller/view/ui_layout"]):
        return "the ui_cells, ui_layout circle is known"
    if not may_use("controller/cmd", "controller/run"):
        return "cmd may not use run"
    if may_use("controller/remote", "controller/run"):
        return "remote may use run"
    if may_use("agent/core", "agent/backends"):
        return "core may use backends"
    for folder, below in LAYERS.items():
        for b in below:
            if b not in LAYERS:
                return "LAYERS names an unknown folder " + b
            if folder in LAYERS[b]:
                return "LAYERS has %s and %s both ways" % (folder, b)
    return None


def main():
    err = self_test()
    if err:
        print("check_layers.py: self-test failed: " + err)
        return 2
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    modules = collections.defaultdict(set)
    findings = check_includes(root, modules) + check_docs(root)
    if len(sys.argv) > 2:
        findings += check_objects(root, sys.argv[2], modules)
        findings += check_modules(modules)
    for f in findings:
        print(f)
    if findings:
        print("check_layers.py: %d finding(s); the rule is LAYERS in %s" %
              (len(findings), os.path.abspath(__file__)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
