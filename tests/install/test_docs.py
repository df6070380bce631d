#!/usr/bin/env python3
"""The man pages, --help and the completions say the same (issue 22).

For every command of `ctl --help`'s table:
- `ctl COMMAND --help` exits 0 and has an example;
- every option the command's table accepts (controller/cmd/
  cmd_COMMAND.c: its struct ctl_opt rows, long and short, with the host
  options, CTL_HOST_OPTS, where it has them) is in its --help;
- every option its --help names is in docs/man/ctl.1, in that command's
  section (.SS "ctl COMMAND ..."), and in both completions' lists for it
  (packaging/completion/ctl.bash and _ctl);
and every option `agent --help` names is in docs/man/agent.1. Both pages
render with `man --warnings -l` and no warning. README's first command
is one line and installs only what building and running need
(tools/install-deps with no option).
"""

import os
import re
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CTL = os.environ.get("BF_CTL")
AGENT = os.environ.get("BF_AGENT")
OPT = re.compile(r"(?<![\w-])(--[a-z](?:[a-z0-9-]*[a-z0-9])?|-[A-Za-z])(?![\w-])")


def read(*rel):
    with open(os.path.join(ROOT, *rel)) as f:
        return f.read()


def man_text(page):
    """A man page's source with \\- as - and font escapes dropped."""
    t = read("docs", "man", page)
    t = re.sub(r"\\f[BIRP]", "", t).replace("\\-", "-")
    return t


def man_section(text, cmd):
    m = re.search(r'^\.SS "ctl %s\b.*?$(.*?)(?=^\.S[SH] )' % re.escape(cmd),
                  text, re.M | re.S)
    return m.group(1) if m else None


def help_options(text):
    """The options a --help text names (its own and those it refers to)."""
    return set(OPT.findall(text)) - {"-"}


ROW = re.compile(r'\{\s*(?:"([a-z][a-z0-9-]*)"|NULL),\s*(?:\'([A-Za-z])\'|0),'
                 r"\s*CTL_OPT_(?:FLAG|VALUE|LIST)\s*\}")


def table_options(text):
    """The options of struct ctl_opt rows in C source text."""
    opts = set()
    for name, letter in ROW.findall(text):
        opts.add("--" + name if name else "-" + letter)
        if name and letter:
            opts.add("-" + letter)
    return opts


def source_options(cmd):
    """The options of a command's table (controller/cmd/cmd_COMMAND.c:
    its struct ctl_opt rows, and the host options of base/args.h's
    CTL_HOST_OPTS where it holds them) and --help, every command's."""
    src = read("controller", "cmd", "cmd_%s.c" % cmd)
    opts = table_options(src) | {"--help"}
    if "CTL_HOST_OPTS" in src:
        macro = read("controller", "base", "args.h").split(
            "#define CTL_HOST_OPTS", 1)[1].split("\n\n", 1)[0]
        opts |= table_options(macro)
    return opts


def completion_block(text, cmd):
    """The case branch `cmd)` of a completion script, up to its ;;."""
    m = re.search(r"^\s*%s\)(.*?);;" % re.escape(cmd), text, re.M | re.S)
    return m.group(1) if m else ""


def ctl(*args):
    return subprocess.run([CTL] + list(args), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def commands():
    p = ctl("--help")
    block = p.stdout.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


class Docs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.man = man_text("ctl.1")
        cls.bash = read("packaging", "completion", "ctl.bash")
        cls.zsh = read("packaging", "completion", "_ctl")

    def test_every_command(self):
        cmds = commands()
        self.assertIn("doctor", cmds)
        self.assertIn("clean", cmds)
        for cmd in cmds:
            with self.subTest(cmd=cmd):
                p = ctl(cmd, "--help")
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertRegex(p.stdout, r"(?m)^Examples?:(\n  | )ctl %s"
                                 % cmd)
                opts = help_options(p.stdout)
                self.assertTrue(source_options(cmd) <= opts,
                                "%s: accepted but not in --help: %s" % (
                                    cmd, source_options(cmd) - opts))
                sec = man_section(self.man, cmd)
                self.assertIsNotNone(sec, "no section for ctl %s in ctl.1"
                                     % cmd)
                in_man = help_options(sec)
                self.assertTrue(opts <= in_man, "%s: in --help, not in "
                                "ctl.1: %s" % (cmd, opts - in_man))
                own = source_options(cmd)
                for name, script in (("ctl.bash", self.bash),
                                     ("_ctl", self.zsh)):
                    block = completion_block(script, cmd)
                    comp = help_options(block)
                    self.assertTrue(own <= comp, "%s: not completed by %s: "
                                    "%s" % (cmd, name, own - comp))
                for name, script in (("ctl.bash", self.bash),
                                     ("_ctl", self.zsh)):
                    self.assertIn(cmd, script, name)

    def test_run_help_gives_defaults(self):
        p = ctl("run", "--help")
        for opt in ("--size", "--dtypes", "--device", "--iters",
                    "--cpu-iters", "--warmup", "--cpu-warmup", "--jobs",
                    "--timeout", "--host-timeout", "--bandwidth-mib"):
            line = re.search(r"(?m)^  %s\b.*(?:\n {20,}.*)*" % opt, p.stdout)
            self.assertIsNotNone(line, opt)
            self.assertIn("default", line.group(0), opt)
        self.assertRegex(p.stdout, r"--timeout SECONDS")
        self.assertRegex(p.stdout, r"MiB")

    def test_agent_page(self):
        p = subprocess.run([AGENT, "--help"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        page = man_text("agent.1")
        missing = help_options(p.stdout) - help_options(page)
        self.assertFalse(missing, "in agent --help, not in agent.1")

    def test_pages_render(self):
        if not shutil.which("man"):
            self.skipTest("man is not installed (man-db)")
        for page in ("ctl.1", "agent.1"):
            p = subprocess.run(["man", "--warnings", "-l",
                                os.path.join(ROOT, "docs", "man", page)],
                               capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, MANWIDTH="80",
                                        LC_ALL="C.UTF-8", MANPAGER="cat"))
            self.assertEqual((p.returncode, p.stderr), (0, ""), page)

    def test_readme_first_command(self):
        sec = read("README.md").split("\n## Set up", 1)[1].split("\n## ")[0]
        cmds = re.findall(r"(?m)^    (\S.*)$", sec)
        self.assertGreaterEqual(len(cmds), 2, sec)
        self.assertRegex(cmds[0], r"^(sudo )?tools/install-deps && cmake ")
        self.assertEqual(cmds[1], "tests/run")


def main():
    if not CTL or not AGENT:
        print("skip: BF_CTL and BF_AGENT unset (run through CTest)")
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
