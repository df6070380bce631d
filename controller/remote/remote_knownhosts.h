/*
 * remote_knownhosts: OpenSSH's known_hosts format, checked and appended to
 * by benchfleet itself, because libssh 0.10's ssh_session_is_known_server
 * reads one user file (and one global one), and skips marker lines, so a
 * "@revoked" key is accepted or even added again. Here every file of
 * UserKnownHostsFile and GlobalKnownHostsFile is read; host patterns are
 * matched as sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT" describes (comma lists,
 * "*" and "?" wildcards, "!" negation, "[host]:port", hashed "|1|salt|hash"
 * names: HMAC-SHA1 of the name keyed by the salt, OpenSSL's HMAC); keys are
 * compared as type and base64 blob. "@cert-authority" lines hold the
 * CAs of host certificates (remote_cert.h): remote_kh_check_cert. No
 * libssh: unit-testable.
 */
#ifndef REMOTE_KNOWNHOSTS_H
#define REMOTE_KNOWNHOSTS_H

#include <limits.h>
#include <stddef.h>

#include "bf_error.h"

enum remote_kh_state {
	REMOTE_KH_UNKNOWN = 0,  /* no line for the host */
	REMOTE_KH_OK,           /* a line holds this key */
	REMOTE_KH_CHANGED,      /* lines hold another key of this type */
	REMOTE_KH_OTHER,        /* lines hold only keys of other types */
	REMOTE_KH_REVOKED,      /* an @revoked line holds this key */
};

struct remote_kh_match {
	enum remote_kh_state state;
	/* where the deciding line is ("" when unknown): a file that was
	 * opened, so its name is shorter than PATH_MAX */
	char file[PATH_MAX];
	int line;          /* its number, 1-based */
};

/* The name known_hosts lists a host under: "host" for port 22 (or 0),
 * else "[host]:port"; whole, however long host is (it is the key lines
 * are matched by). A new string; caller frees (never NULL: aborts on
 * out-of-memory, common/xmalloc.h). */
char *remote_kh_name(const char *host, int port);

/*
 * Looks up name (from remote_kh_name, or HostKeyAlias) with key type
 * key_type ("ssh-ed25519") and key_b64 (the base64 blob) in files[0..n).
 * Missing files are skipped. Revoked wins over everything, then OK, then
 * CHANGED, then OTHER. Returns BF_OK with *m filled, or BF_ERR_IO when a
 * file exists but cannot be read (detail names it).
 */
enum bf_err remote_kh_check(const char *const *files, size_t n,
			    const char *name, const char *key_type,
			    const char *key_b64, struct remote_kh_match *m,
			    char *detail, size_t detail_len);

/* What remote_kh_scan finds among the lines for a name. */
#define REMOTE_KH_HAS_CA 1         /* an "@cert-authority" line */
#define REMOTE_KH_HAS_REVOKED 2    /* an "@revoked" line */

/* Scans files[0..n) for name: *marks the REMOTE_KH_HAS_* of its lines,
 * types the key types of its plain lines, each followed by a blank, after
 * a first blank (" ssh-ed25519 ssh-rsa "; cut to fit). BF_OK, or
 * BF_ERR_IO as remote_kh_check. */
enum bf_err remote_kh_scan(const char *const *files, size_t n,
			   const char *name, int *marks, char *types,
			   size_t types_len, char *detail, size_t detail_len);

/* A host certificate for name, signed by CA (ca_type, ca_b64), for key
 * (key_type, key_b64: the plain key it certifies), as OpenSSH 9.2's
 * check_hostkeys_by_key_or_type judges it: REMOTE_KH_OK when an
 * "@cert-authority" line for name holds the CA, REMOTE_KH_REVOKED
 * (winning) when an "@revoked" line for name holds the key or the CA,
 * else REMOTE_KH_UNKNOWN; *m says where. BF_ERR_IO as remote_kh_check.
 * Whether the certificate itself is good for the host is
 * remote_cert_check_host's. */
enum bf_err remote_kh_check_cert(const char *const *files, size_t n,
				 const char *name, const char *ca_type,
				 const char *ca_b64, const char *key_type,
				 const char *key_b64,
				 struct remote_kh_match *m, char *detail,
				 size_t detail_len);

/* Appends "name type b64" to file, or with hashed non-zero
 * "|1|salt|hash type b64" (random 20-byte salt), creating the file (0600)
 * and its directory (0700) when missing. BF_ERR_IO on failure. */
enum bf_err remote_kh_add(const char *file, const char *name,
			  const char *key_type, const char *key_b64,
			  int hashed, char *detail, size_t detail_len);

#endif
