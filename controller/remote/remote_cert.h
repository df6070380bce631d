/*
 * remote_cert: OpenSSH certificates (PROTOCOL.certkeys in OpenSSH's
 * source), read and checked by ctl, because libssh 0.10 cannot: its
 * client removes every certificate type from the host key algorithms it
 * offers ("unsupported for now", kex.c ssh_client_select_hostkeys), so a
 * host trusted only through "@cert-authority" in known_hosts was an
 * unknown key to ctl. A certificate here is the host key blob a server
 * sends when a certificate algorithm is negotiated
 * (remote_certfetch.c); its CA's signature is verified with OpenSSL
 * (Ed25519, ECDSA P-256/384/521, RSA with SHA-256/512), and it is judged
 * for a host as OpenSSH 9.2's sshkey_cert_check_host() judges it. Pure
 * (no libssh, no I/O): unit-tested on its own
 * (tests/unit/test_remote_cert.c).
 */
#ifndef REMOTE_CERT_H
#define REMOTE_CERT_H

#include <stddef.h>
#include <stdint.h>

#include "bf_error.h"

#define REMOTE_CERT_TYPE_USER 1   /* PROTOCOL.certkeys SSH2_CERT_TYPE_* */
#define REMOTE_CERT_TYPE_HOST 2

struct remote_cert {
	char type_name[64];      /* "ssh-ed25519-cert-v01@openssh.com" */
	char key_type[64];       /* the certified key's: "ssh-ed25519" */
	/* The certified key as a plain public key blob (what known_hosts
	 * holds in base64 and a plain key exchange sends), and the CA's
	 * key blob and type ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-..."). */
	unsigned char *key_blob;
	size_t key_blob_len;
	unsigned char *ca_blob;
	size_t ca_blob_len;
	char ca_type[32];
	char sig_alg[40];        /* the CA's signature: "rsa-sha2-512" */
	uint64_t serial;
	uint32_t cert_type;      /* REMOTE_CERT_TYPE_* */
	char key_id[128];        /* cut to fit, ending in "...": messages */
	char **principals;       /* nprincipals strings */
	size_t nprincipals;
	uint64_t valid_after, valid_before;   /* seconds since the epoch */
	size_t critical_bytes;   /* of critical options */
};

/*
 * Reads blob (len bytes: a certificate as sent on the wire) into *c and
 * verifies its CA signature over the bytes before it. BF_OK; BF_ERR_PARSE
 * with why ("signature does not verify", "truncated at serial", "RSA key
 * of 768 bits (1024 at least)") for anything OpenSSH's cert_parse()
 * refuses: a certificate type it does not know, a malformed field,
 * bytes after the signature, a CA key that is a certificate, an RSA key
 * under 1024 bits, a CA key type ctl does not verify (FIDO "sk-" keys),
 * a type or algorithm name longer than its field here (none ctl knows
 * is: a cut one is never compared); BF_ERR_NOMEM. Principals are kept
 * whole, the key id cut to its field (ending in "..."). *c needs remote_cert_free also on error.
 */
enum bf_err remote_cert_parse(const unsigned char *blob, size_t len,
			      struct remote_cert *c, char *why,
			      size_t why_len);

/*
 * Whether c is good for host `name` at time now (seconds since the
 * epoch), as OpenSSH 9.2's sshkey_cert_check_host(key, name, 0,
 * CASignatureAlgorithms default) decides: a host certificate, valid_after
 * <= now < valid_before, name among the principals when there are any
 * (compared exactly), no critical options, signed with one of the
 * default CASignatureAlgorithms (so not "ssh-rsa", SHA-1). Returns 0, or
 * -1 with OpenSSH's reason ("Certificate invalid: expired") in *reason
 * (static).
 */
int remote_cert_check_host(const struct remote_cert *c, const char *name,
			   uint64_t now, const char **reason);

/* Frees what c holds and zeroes it; safe on a zeroed c. */
void remote_cert_free(struct remote_cert *c);

/* Whether type_name is a certificate type ("...-cert-v01@openssh.com"). */
int remote_cert_is_cert_type(const char *type_name);

#endif
