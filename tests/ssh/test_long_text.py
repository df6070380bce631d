#!/usr/bin/env python3
"""Long names and paths in the connect path reach the user whole (issue
28: "find every fixed buffer that holds user-visible text"), against one
real sshd on 127.0.0.1 with OpenSSH as the oracle where it connects:

  * a 1208-byte HostKeyAlias is matched whole against known_hosts (the
    name is the key lines are matched by: cut, it lost its end and
    matched the lines of its first 1099 bytes), and a line whose
    subpattern is over 1022 bytes matches nothing, as for ssh;
  * a changed key whose known_hosts file lies under a 1500-byte path: the
    message names the whole file, and the ssh-keygen -R hint too;
  * a 600-byte host name that does not resolve: the reason holds the
    whole name, in ctl's words and in libssh's;
  * a 9000-byte ProxyCommand runs whole;
  * an auth failure names every key it tried, however long their paths.

remote_probe (the SSH layer ctl run uses) connects; its events carry the
whole reason. No assertion is on a duration. Exits 77 (skipped) without
root, sshd, ssh, remote_probe or ctl.
"""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_connect_config as cc  # noqa: E402


class LongTextTest(cc.Base):
    N = 1

    def other_key(self):
        """An ed25519 public key (kind, blob) no host has."""
        p = self.path("other")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "",
                        "-f", p], check=True, timeout=cc.WAIT_S,
                       stdin=subprocess.DEVNULL)
        with open(p + ".pub") as f:
            kind, blob = f.read().split()[:2]
        return kind, blob

    def alias_cfg(self, alias, pattern):
        kind, blob = self.hosts.public_key(1)
        kh = self.write("kh", "%s %s %s\n" % (pattern, kind, blob))
        return self.cfg(cc.block("h1", self.hosts.ports[1],
                                 self.hosts.user_key, kh,
                                 "  HostKeyAlias %s\n" % alias))

    def test_long_host_key_alias_matched_whole(self):
        """A 1208-byte HostKeyAlias under "*.example": found, as ssh
        finds it (ctl cut the name at 1099 bytes, losing ".example")."""
        cfg = self.alias_cfg("a" * 1200 + ".example", "*.example")
        self.assertEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, 0, ev)

    def test_long_alias_not_taken_for_its_start(self):
        """A line for the alias's first 1099 bytes is not the alias's: ssh
        refuses it (a subpattern over 1022 bytes matches nothing), and so
        does ctl (which cut the alias to those 1099 bytes and matched)."""
        cfg = self.alias_cfg("a" * 1200 + ".example", "a" * 1099)
        self.assertNotEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, cc.BF_ERR_HOSTKEY_UNKNOWN, ev)

    def test_changed_key_names_long_path_whole(self):
        d = self.tmp
        for i in range(12):
            d = os.path.join(d, "d%02d" % i + "x" * 120)
        os.makedirs(d)
        kh = os.path.join(d, "known_hosts")
        self.assertGreater(len(kh), 1500)
        name = "[127.0.0.1]:%d" % self.hosts.ports[1]
        kind, blob = self.other_key()
        with open(kh, "w") as f:
            f.write("%s %s %s\n" % (name, kind, blob))
        cfg = self.cfg(cc.block("h1", self.hosts.ports[1],
                                self.hosts.user_key, kh))
        self.assertNotEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, cc.BF_ERR_HOSTKEY_CHANGED, ev)
        detail = self.error(ev)["detail"]
        self.assertIn("%s line 1 holds another" % kh, detail)
        self.assertIn("ssh-keygen -f '%s' -R '%s'" % (kh, name), detail)
        self.assertNotIn("...", detail)

    def test_unresolvable_long_host_name_whole(self):
        host = ".".join("h%02d" % i + "a" * 56 for i in range(10)) + \
            ".invalid"
        self.assertGreater(len(host), 590)
        cfg = self.cfg("Host h1\n  HostName %s\n  Port %d\n  User root\n"
                       "  IdentityFile %s\n  IdentitiesOnly yes\n"
                       "  UserKnownHostsFile %s\n  BatchMode yes\n"
                       % (host, self.hosts.ports[1], self.hosts.user_key,
                          self.hosts.known_hosts))
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, cc.BF_ERR_CONNECT, ev)
        detail = self.error(ev)["detail"]
        self.assertIn("host name '%s' does not resolve" % host, detail)
        self.assertIn("(Failed to resolve hostname %s (" % host, detail)
        self.assertNotIn("...", detail)

    def test_long_proxy_command_runs_whole(self):
        """A 9000-byte ProxyCommand runs as written (ctl cut its "exec
        ..." at 8191 bytes: env then ran with no command)."""
        h = self.hosts
        pad = "x" * 9000
        cfg = self.cfg("Host via\n  HostName 127.0.0.1\n  Port %d\n"
                       "  User root\n  IdentityFile %s\n"
                       "  IdentitiesOnly yes\n  UserKnownHostsFile %s\n"
                       "  BatchMode yes\n"
                       "  ProxyCommand env BF_PAD=%s ssh -F %s -W %%h:%%p "
                       "%s\n" % (h.ports[1], h.user_key, h.known_hosts, pad,
                                 h.ssh_config, h.alias(1)))
        self.assertEqual(self.ssh(cfg, "via").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "via", "exec", "echo ok"])
        self.assertEqual(code, 0, ev)
        self.assertEqual([e["text"] for e in ev if e["event"] == "line"],
                         ["ok"])

    def test_auth_failure_lists_every_key_tried(self):
        """Eight missing IdentityFiles under 200-byte names: the reason
        names each (ctl's "tried" list stopped at 1023 bytes)."""
        h = self.hosts
        d = os.path.join(self.tmp, "k" * 150)
        os.makedirs(d)
        keys = [os.path.join(d, "missing-key-%d" % i) for i in range(8)]
        cfg = self.cfg("Host h1\n  HostName 127.0.0.1\n  Port %d\n"
                       "  User root\n%s  IdentitiesOnly yes\n"
                       "  UserKnownHostsFile %s\n  BatchMode yes\n"
                       % (h.ports[1], "".join("  IdentityFile %s\n" % k
                                              for k in keys),
                          h.known_hosts))
        self.assertNotEqual(self.ssh(cfg, "h1").returncode, 0)
        code, ev, _ = self.probe(["-F", cfg, "h1", "connect"])
        self.assertEqual(code, cc.BF_ERR_AUTH, ev)
        detail = self.error(ev)["detail"]
        for k in keys:
            self.assertIn("IdentityFile %s: No such file or directory" % k,
                          detail)
        self.assertTrue(detail.endswith("%s: No such file or directory)"
                                        % keys[-1]), detail)


if __name__ == "__main__":
    sys.exit(cc.main())
