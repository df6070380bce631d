#!/usr/bin/env python3
"""Host certificates (issue 21) against a real sshd with HostCertificate,
certificates signed by `ssh-keygen -s`, and OpenSSH's own client as the
oracle: for each case `ssh -o BatchMode=yes` (StrictHostKeyChecking yes)
and remote_probe (the SSH layer ctl run uses) must agree on whether the
host is trusted, and known_hosts must end the same.

A host trusted only through "@cert-authority [127.0.0.1]:PORT" was
refused by ctl as an unknown key (libssh 0.10 offers no certificate
algorithm), and --accept-new-host-keys pinned the bare key instead.

Cases: a valid certificate (Ed25519, RSA and ECDSA CAs; also through a
ProxyJump, with no principals, with a port-less and a wildcard CA line,
and a whole ctl run); refused: a wrong principal, expired, not yet valid,
a user certificate, the CA @revoked, the host key @revoked, a CA for
another host pattern; with --accept-new an expired certificate's plain
key is pinned as ssh's accept-new pins it, a revoked CA's is not.

Exits 77 (skipped) without root, sshd, ssh, ssh-keygen, remote_probe or
ctl.
"""

import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import test_connect_config as cc  # noqa: E402

BF_ERR_HOSTKEY_UNKNOWN = cc.BF_ERR_HOSTKEY_UNKNOWN
BF_ERR_HOSTKEY_CHANGED = cc.BF_ERR_HOSTKEY_CHANGED
WAIT_S = cc.WAIT_S
PROBE = cc.PROBE
CTL = cc.CTL


class CertBase(cc.Base):
    """Host 1 serves a host certificate (HostCertificate); host 2 is a
    plain host, the jump for the ProxyJump case."""
    N = 2

    @classmethod
    def setUpClass(cls):
        # The sshd_config names the certificate before it exists; each
        # test signs one and restarts host 1.
        cls.cert_path = None
        cls.hosts = cc.SSHHosts(cls.N, sshd_extra={1: ["HostCertificate "
                                                       "/nonexistent"]})
        cls.hosts.start()
        h = cls.hosts
        cls.cert_path = h.host_key(1) + "-cert.pub"
        cls.cas = {}
        for kind, args in (("ed25519", ["-t", "ed25519"]),
                           ("rsa", ["-t", "rsa", "-b", "2048"]),
                           ("ecdsa", ["-t", "ecdsa", "-b", "256"])):
            path = os.path.join(h.root, "ca_" + kind)
            subprocess.run(["ssh-keygen", "-q", "-N", "", "-C", "ca",
                            "-f", path] + args, check=True)
            cls.cas[kind] = path
        cfg = os.path.join(h.host_dir(1), "sshd_config")
        with open(cfg) as f:
            text = f.read().replace("HostCertificate /nonexistent",
                                    "HostCertificate " + cls.cert_path)
        with open(cfg, "w") as f:
            f.write(text)

    def sign(self, ca="ed25519", principals="127.0.0.1",
             validity="-5m:+1h", host_cert=True):
        """Signs host 1's key with the CA and restarts its sshd."""
        h = self.hosts
        pub = os.path.join(self.tmp, "host.pub")
        shutil.copy(h.host_key(1) + ".pub", pub)
        args = ["ssh-keygen", "-q", "-s", self.cas[ca], "-I", "host1",
                "-V", validity]
        if host_cert:
            args.append("-h")
        if principals is not None:
            args += ["-n", principals]
        subprocess.run(args + [pub], check=True)
        shutil.copy(os.path.join(self.tmp, "host-cert.pub"), self.cert_path)
        h.restart(1)

    def ca_line(self, ca="ed25519", pattern=None, marker="@cert-authority"):
        with open(self.cas[ca] + ".pub") as f:
            kind, blob = f.read().split()[:2]
        return "%s %s %s %s\n" % (marker, pattern or "[127.0.0.1]:%d" %
                                  self.hosts.ports[1], kind, blob)

    def config(self, kh_text, extra=""):
        kh = self.write("kh", kh_text)
        h = self.hosts
        cfg = self.cfg(cc.block("certhost", h.ports[1], h.user_key, kh,
                                extra) +
                       cc.block("jump", h.ports[2], h.user_key,
                                h.known_hosts))
        return cfg, kh

    def both(self, cfg, kh, accept_new=False):
        """(ssh's exit status, remote_probe's code, events, known_hosts
        after each): each starts from the same known_hosts."""
        before = self.read(kh)
        o = self.ssh(cfg, "certhost", "-o", "StrictHostKeyChecking=%s" %
                     ("accept-new" if accept_new else "yes"))
        after_ssh = self.read(kh)
        with open(kh, "w") as f:
            f.write(before)
        code, ev, _ = self.probe((["--accept-new"] if accept_new else []) +
                                 ["-F", cfg, "certhost", "connect"])
        return o.returncode, code, ev, after_ssh, self.read(kh), o.stderr

    def accepted(self, kh_text, extra="", accept_new=False):
        cfg, kh = self.config(kh_text, extra)
        rc, code, ev, after_ssh, after_ctl, err = self.both(cfg, kh,
                                                            accept_new)
        self.assertEqual(rc, 0, err)
        self.assertEqual(code, 0, ev)
        # Trusted through the CA: nothing pinned, by either.
        self.assertEqual(after_ctl, kh_text)
        self.assertEqual(after_ssh, kh_text)
        return ev

    def refused(self, kh_text, want_code, want_text, accept_new=False):
        cfg, kh = self.config(kh_text)
        rc, code, ev, after_ssh, after_ctl, err = self.both(cfg, kh,
                                                            accept_new)
        self.assertNotEqual(rc, 0, "ssh got in")
        self.assertIn("Host key verification failed", err)
        self.assertEqual(code, want_code, ev)
        self.assertIn(want_text, self.error(ev)["detail"])
        self.assertEqual(after_ctl, kh_text)
        self.assertEqual(after_ssh, kh_text)
        return self.error(ev)["detail"]


class AcceptedTest(CertBase):
    def test_valid_certificate(self):
        self.sign()
        self.accepted(self.ca_line())

    def test_accept_new_pins_nothing(self):
        """The tester's --accept-new-host-keys case: the bare key was
        pinned; trusted through the CA, nothing is written."""
        self.sign()
        self.accepted(self.ca_line(), accept_new=True)

    def test_rsa_and_ecdsa_cas(self):
        for ca in ("rsa", "ecdsa"):
            with self.subTest(ca=ca):
                self.sign(ca=ca)
                self.accepted(self.ca_line(ca))

    def test_no_principals(self):
        """ssh checks host certificates without require_principal: one
        that lists none is good for any name."""
        self.sign(principals=None)
        self.accepted(self.ca_line())

    def test_portless_and_wildcard_ca_lines(self):
        self.sign()
        for pattern in ("127.0.0.1", "*", "127.0.0.*,!10.*"):
            with self.subTest(pattern=pattern):
                self.accepted(self.ca_line(pattern=pattern))

    def test_through_proxyjump(self):
        """The certificate is fetched through the jump, as the session
        goes."""
        self.sign()
        self.accepted(self.ca_line(), extra="  ProxyJump jump\n")

    def test_ctl_run(self):
        """ctl run itself, seeded with a cached agent, on the host known
        only through its CA."""
        sys.path.insert(0, HERE)
        import test_ctl_run as tcr
        tcr.HASH = tcr.agent_hash()
        self.sign()
        tcr.seed_agents(self.hosts, [1])
        cfg, kh = self.config(self.ca_line())
        os.makedirs(self.path("nohosts"))
        r = subprocess.run([CTL, "run", "--no-tui", "-F", cfg, "--results",
                            self.path("results"), "--hosts-dir",
                            self.path("nohosts"), "certhost"] + tcr.TINY,
                           capture_output=True, text=True, env=self.env(),
                           timeout=WAIT_S, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("[certhost] done", r.stdout)
        self.assertEqual(self.read(kh), self.ca_line())


class RefusedTest(CertBase):
    def test_wrong_principal(self):
        self.sign(principals="other.example")
        self.refused(self.ca_line(), BF_ERR_HOSTKEY_UNKNOWN,
                     "Certificate invalid: name is not a listed principal")

    def test_expired(self):
        self.sign(validity="-2h:-1h")
        self.refused(self.ca_line(), BF_ERR_HOSTKEY_UNKNOWN,
                     "Certificate invalid: expired")

    def test_not_yet_valid(self):
        self.sign(validity="+1h:+2h")
        self.refused(self.ca_line(), BF_ERR_HOSTKEY_UNKNOWN,
                     "Certificate invalid: not yet valid")

    def test_user_certificate(self):
        self.sign(host_cert=False)
        self.refused(self.ca_line(), BF_ERR_HOSTKEY_UNKNOWN,
                     "Certificate invalid: not a host certificate")

    def test_ca_revoked(self):
        self.sign()
        for accept_new in (False, True):
            with self.subTest(accept_new=accept_new):
                self.refused(self.ca_line() +
                             self.ca_line(marker="@revoked"),
                             BF_ERR_HOSTKEY_CHANGED, "@revoked",
                             accept_new=accept_new)

    def test_host_key_revoked(self):
        self.sign()
        kind, blob = self.hosts.public_key(1)
        self.refused(self.ca_line() + "@revoked [127.0.0.1]:%d %s %s\n"
                     % (self.hosts.ports[1], kind, blob),
                     BF_ERR_HOSTKEY_CHANGED, "revoked")

    def test_ca_for_another_host(self):
        """No CA line for this host (a negated name stands for both the
        "[host]:port" and the "host" lookups ssh makes)."""
        self.sign()
        port = self.hosts.ports[1]
        for pattern in ("[127.0.0.2]:%d" % port, "*.example.com",
                        "![127.0.0.1]:%d,!127.0.0.1,*" % port):
            with self.subTest(pattern=pattern):
                self.refused(self.ca_line(pattern=pattern),
                             BF_ERR_HOSTKEY_UNKNOWN, "unknown")

    def test_negation_only_for_the_port(self):
        """"![127.0.0.1]:PORT,*": the "host" lookup without the port
        still finds the CA, for ssh and for ctl."""
        self.sign()
        self.accepted(self.ca_line(pattern="![127.0.0.1]:%d,*" %
                                   self.hosts.ports[1]))

    def test_silent_server_bounded_by_the_timeout(self):
        """A port that takes TCP and never speaks, with a CA line for it:
        the certificate's fetch shares the connect's deadline."""
        import socket
        ls = socket.socket()
        ls.bind(("127.0.0.1", 0))
        ls.listen(4)
        self.addCleanup(ls.close)
        port = ls.getsockname()[1]
        kh = self.write("kh", self.ca_line(pattern="[127.0.0.1]:%d" % port))
        cfg = self.cfg(cc.block("mute", port, self.hosts.user_key, kh))
        code, ev, _ = self.probe(["-t", "3", "-F", cfg, "mute", "connect"])
        self.assertEqual(code, cc.BF_ERR_TIMEOUT, ev)
        self.assertIn("host certificate", self.error(ev)["detail"])

    def test_expired_with_accept_new_pins_the_plain_key(self):
        """ssh's accept-new, its certificate refused, falls back to the
        plain key and adds it (sshconnect.c: "Retry with plain key"); so
        does ctl, the same line."""
        self.sign(validity="-2h:-1h")
        cfg, kh = self.config(self.ca_line())
        rc, code, ev, after_ssh, after_ctl, err = self.both(
            cfg, kh, accept_new=True)
        self.assertEqual(rc, 0, err)
        self.assertEqual(code, 0, ev)
        self.assertEqual(after_ctl, after_ssh)
        self.assertEqual(after_ctl, self.ca_line() +
                         self.hosts.known_hosts_line(1) + "\n")


def main():
    if not PROBE or not os.access(PROBE, os.X_OK) or not CTL:
        print("skip: remote_probe or ctl not built")
        return 77
    if os.geteuid() != 0 or not os.access("/usr/sbin/sshd", os.X_OK) or \
            not shutil.which("ssh") or not shutil.which("ssh-keygen"):
        print("skip: needs root, /usr/sbin/sshd, ssh and ssh-keygen")
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
