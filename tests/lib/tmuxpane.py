"""One tmux server of its own (a socket in the test's directory), one
window, sh in it, its prompt set to PROMPT: what the live-table tests
(tests/tui/) drive ctl run in, typing and reading the screen as a user
would.
"""
import os
import re
import subprocess
import time

PROMPT = "bf$ "


class Pane:
    """A pane width x height columns and rows, started in directory
    (which holds its socket), its tmux and shell given env (a dict;
    default: this process's, in the C.UTF-8 locale, colours allowed, not
    inside another tmux). close() stops the server. Every tmux call has a
    10 s limit; a failing one raises RuntimeError with tmux's stderr."""

    count = 0

    def __init__(self, directory, width=100, height=30, env=None):
        Pane.count += 1
        self.sock = os.path.join(directory, "tmux-%d.sock" % Pane.count)
        self.env = env if env is not None else utf8_env(os.environ)
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", str(width),
                  "-y", str(height), "-s", "t", "-c", directory, "sh")
        self.tmux("set-option", "-g", "status", "off")
        # dash keeps "# " for root whatever the environment says.
        self.type_line("PS1='%s''%s'" % (PROMPT[:2], PROMPT[2:]))
        # The new prompt may follow the first one on its line; capture-pane
        # trims the trailing space.
        self.wait_for(lambda s: re.search(r"(?m)bf\$$", s), 10,
                      "the shell prompt")

    def tmux(self, *args):
        r = subprocess.run(["tmux", "-S", self.sock] + list(args),
                           env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=10)
        if r.returncode != 0:
            raise RuntimeError("tmux %s: %s" % (" ".join(args),
                                                r.stderr.decode()))
        return r.stdout.decode("utf-8", "replace")

    def close(self):
        try:
            self.tmux("kill-server")
        except (RuntimeError, subprocess.SubprocessError):
            pass

    def type_line(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)
        self.tmux("send-keys", "-t", "t", "Enter")

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def capture(self, escapes=False):
        args = ["capture-pane", "-p", "-t", "t"]
        if escapes:
            args.append("-e")
        return self.tmux(*args)

    def scrollback(self):
        """The pane's whole history and screen (what scrolled off too)."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")

    def fmt(self, f):
        return self.tmux("display-message", "-p", "-t", "t", f).strip()

    def resize(self, width, height):
        self.tmux("resize-window", "-t", "t", "-x", str(width), "-y",
                  str(height))

    def wait_for(self, pred, timeout, what, escapes=False, interval=0.1):
        """Captures until pred(capture) holds; returns that capture.
        Raises AssertionError with the last screen after timeout s (a
        bound on a wait, never a measured figure)."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.capture(escapes)
            if pred(text):
                return text
            time.sleep(interval)
        raise AssertionError("timed out after %.0f s waiting for %s; the "
                             "screen:\n%s" % (timeout, what, text))


def utf8_env(base):
    """A copy of base (a dict) in the C.UTF-8 locale, with NO_COLOR and
    TMUX unset: the environment a pane runs ctl in."""
    e = dict(base)
    e["LANG"] = "C.UTF-8"
    for k in ("LC_ALL", "NO_COLOR", "TMUX"):
        e.pop(k, None)
    return e
