/*
 * remote_hostcert: host certificates in the connect path, as OpenSSH 9.2
 * takes them (sshconnect.c check_host_key, hostfile.c, sshkey.c
 * sshkey_cert_check_host). Before libssh connects, when a known_hosts
 * line for the host is "@cert-authority" or "@revoked" (the only lines
 * that can make a certificate change the outcome), the server's host key
 * is asked for once more with OpenSSH's host key algorithm order
 * (remote_certfetch.c); a certificate it sends is read and its CA's
 * signature verified (remote_cert.c), and libssh is then made to
 * negotiate the key that certificate certifies. After the key exchange,
 * remote_hostcert_decide judges it:
 *
 *   - an "@revoked" line for the host holding the certified key or the
 *     CA: refused, with no second chance (HOST_REVOKED);
 *   - an "@cert-authority" line for the host holding the CA, and the
 *     certificate good for the host (a host certificate, within its
 *     validity interval, the host's name among its principals when it
 *     lists any, no critical options, a CASignatureAlgorithms
 *     signature): accepted, and nothing is written to known_hosts;
 *   - no such line under "[host]:port": the same under "host" alone
 *     ("checking without port identifier");
 *   - otherwise the certificate is dropped and the plain key is checked
 *     as any plain key ("No matching CA found. Retry with plain key"),
 *     so --accept-new-host-keys may pin it as ssh's accept-new would,
 *     and the reason the certificate failed goes into the message.
 *
 * The principal compared is the HostName (or HostKeyAlias), as ssh.c
 * gives check_host_cert.
 */
#include "remote/remote_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "remote/remote_cert.h"
#include "remote/remote_knownhosts.h"
#include "xmalloc.h"

size_t remote_kh_files(const struct remote *r, const char **files)
{
	size_t n = 0;

	for (size_t i = 0; i < r->cfg.user_known_hosts.n; i++)
		files[n++] = r->cfg.user_known_hosts.v[i];
	for (size_t i = 0; i < r->cfg.global_known_hosts.n; i++)
		files[n++] = r->cfg.global_known_hosts.v[i];
	return n;
}

char *remote_kh_lookup_name(const struct remote *r, int with_port)
{
	if (r->cfg.host_key_alias)
		return bf_xstrdup(r->cfg.host_key_alias);
	return remote_kh_name(r->cfg.hostname, with_port ? r->cfg.port : 22);
}

/* Says in r->cert_note why its certificate was not used (printf; whole,
 * replacing what was there). */
static void cert_note(struct remote *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void cert_note(struct remote *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(r->cert_note);
	if (vasprintf(&r->cert_note, fmt, ap) < 0)
		bf_xmalloc_fatal("host certificate note");
	va_end(ap);
}

/* Base64 of len bytes into a new string (caller frees). */
static char *b64(const unsigned char *p, size_t len)
{
	char *out = malloc(4 * ((len + 2) / 3) + 1);

	if (out)
		EVP_EncodeBlock((unsigned char *)out, p, (int)len);
	return out;
}

/* The algorithms libssh is to negotiate for a certified key type. */
static const char *libssh_algs(const char *key_type)
{
	if (strcmp(key_type, "ssh-rsa") == 0)
		return "rsa-sha2-512,rsa-sha2-256";
	return key_type;   /* ssh-ed25519, ecdsa-sha2-nistp* */
}

/* Opens the fetch's own connection: as the session will go (its proxy,
 * or TCP to the host). *fd, or an error with why in *why (a new string,
 * whole; caller frees; NULL on BF_OK and BF_ERR_INTERRUPTED). */
static enum bf_err fetch_connect(struct remote *r, int accept_new,
				 int64_t deadline_ms, int *fd, char **why)
{
	char detail[4096] = "";
	enum bf_err e;

	*why = NULL;
	if (r->cfg.proxy_jump || r->cfg.proxy_command) {
		/* Cut, should it be, with "..." (bf_fail): a proxy's
		 * failure to start names the ProxyJump and a reason. */
		e = remote_proxy_start(r, accept_new, fd, detail,
				       sizeof detail);
		if (e != BF_OK)
			*why = bf_xstrdup(detail);
		return e;
	}
	e = remote_tcp_connect(r, r->cfg.hostname, r->cfg.port, deadline_ms,
			       fd, why);
	if (e == BF_ERR_TIMEOUT)
		*why = bf_xstrdup("no connection in time");
	return e;
}

enum bf_err remote_hostcert_prepare(struct remote *r, int accept_new,
				    int64_t deadline_ms, char *detail,
				    size_t detail_len)
{
	const char *files[64];
	char *name, *cwhy = NULL, types[512], order[1024], alg[64];
	char why[512] = "";
	unsigned char *blob = NULL;
	size_t nfiles, blob_len = 0;
	int marks = 0, marks2 = 0, fd = -1;
	enum bf_err e;

	if (r->cfg.user_known_hosts.n + r->cfg.global_known_hosts.n >
	    sizeof files / sizeof files[0])
		return BF_OK;
	nfiles = remote_kh_files(r, files);
	name = remote_kh_lookup_name(r, 1);
	e = remote_kh_scan(files, nfiles, name, &marks, types, sizeof types,
			   detail, detail_len);
	free(name);
	if (e != BF_OK)
		return e;
	if (!r->cfg.host_key_alias && r->cfg.port != 22) {
		char *portless = remote_kh_lookup_name(r, 0), types2[512];

		e = remote_kh_scan(files, nfiles, portless, &marks2, types2,
				   sizeof types2, detail, detail_len);
		free(portless);
		if (e != BF_OK)
			return e;
	}
	if (!((marks | marks2) & (REMOTE_KH_HAS_CA | REMOTE_KH_HAS_REVOKED)))
		return BF_OK;   /* no certificate could change the outcome */
	remote_hostkey_order(types, (marks & REMOTE_KH_HAS_CA) != 0, order,
			     sizeof order);
	e = fetch_connect(r, accept_new, deadline_ms, &fd, &cwhy);
	if (e == BF_OK) {
		e = remote_hostcert_fetch(r, fd, order, deadline_ms, &blob,
					  &blob_len, alg, sizeof alg, why,
					  sizeof why);
		close(fd);
	}
	remote_proxy_stop(r);
	if (e == BF_ERR_INTERRUPTED || e == BF_ERR_TIMEOUT)
		free(cwhy);
	if (e == BF_ERR_INTERRUPTED)
		return bf_fail(detail, detail_len, e, "connect %s: "
			       "interrupted", r->name);
	/* The deadline is the connect's: nothing is left for it. */
	if (e == BF_ERR_TIMEOUT)
		return bf_fail(detail, detail_len, e, "connect %s: no answer "
			       "in time (asking for its host certificate, as "
			       "known_hosts has @cert-authority or @revoked "
			       "lines for it)", r->name);
	if (e != BF_OK) {
		/* The session's own connect says what is wrong with the
		 * host; the message keeps why no certificate was seen. */
		cert_note(r, "its host certificate could not be fetched: "
			  "%s", cwhy ? cwhy : why);
		free(cwhy);
		free(blob);
		return BF_OK;
	}
	if (!remote_cert_is_cert_type(alg)) {
		free(blob);
		return BF_OK;   /* the server chose a plain key */
	}
	r->cert = calloc(1, sizeof *r->cert);
	if (!r->cert) {
		free(blob);
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "connect %s: out of memory", r->name);
	}
	e = remote_cert_parse(blob, blob_len, r->cert, why, sizeof why);
	free(blob);
	if (e == BF_ERR_NOMEM)
		return bf_fail(detail, detail_len, e, "connect %s: out of "
			       "memory", r->name);
	if (e != BF_OK) {
		/* ssh ends the key exchange on a certificate it cannot
		 * read or whose signature fails (sshkey.c cert_parse). */
		remote_cert_free(r->cert);
		free(r->cert);
		r->cert = NULL;
		return bf_fail(detail, detail_len, BF_ERR_HOSTKEY_CHANGED,
			       "host certificate of %s (%s) is invalid: %s; "
			       "refused", r->name, alg, why);
	}
	r->hostkeys = strdup(libssh_algs(r->cert->key_type));
	if (!r->hostkeys)
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "connect %s: out of memory", r->name);
	return BF_OK;
}

/* One lookup of the certificate under name: hostfile.c's answer, then
 * sshkey_cert_check_host's when a CA matched. */
static enum remote_cert_verdict judge(struct remote *r, const char *name,
				      const char *ca_b64,
				      const char *key_b64,
				      struct remote_kh_match *m,
				      const char **reason, char *detail,
				      size_t detail_len, enum bf_err *err)
{
	const struct remote_cert *c = r->cert;
	const char *files[64];
	size_t nfiles = remote_kh_files(r, files);

	*err = remote_kh_check_cert(files, nfiles, name, c->ca_type, ca_b64,
				    c->key_type, key_b64, m, detail,
				    detail_len);
	if (*err != BF_OK)
		return REMOTE_CERT_PLAIN;
	if (m->state == REMOTE_KH_REVOKED)
		return REMOTE_CERT_REVOKED;
	if (m->state != REMOTE_KH_OK) {
		*reason = NULL;
		return REMOTE_CERT_PLAIN;
	}
	if (remote_cert_check_host(c, r->cfg.host_key_alias ?
				   r->cfg.host_key_alias : r->cfg.hostname,
				   (uint64_t)time(NULL), reason) == 0)
		return REMOTE_CERT_ACCEPTED;
	return REMOTE_CERT_PLAIN;
}

enum remote_cert_verdict remote_hostcert_decide(struct remote *r,
						const char *key_type,
						const char *key_b64,
						struct remote_kh_match *m,
						char *detail,
						size_t detail_len,
						enum bf_err *err)
{
	const struct remote_cert *c = r->cert;
	char *name = NULL, *ca = NULL, *key = NULL;
	const char *reason = NULL;
	enum remote_cert_verdict v = REMOTE_CERT_PLAIN;

	*err = BF_OK;
	if (!c)
		return REMOTE_CERT_PLAIN;
	ca = b64(c->ca_blob, c->ca_blob_len);
	key = b64(c->key_blob, c->key_blob_len);
	if (!ca || !key) {
		*err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "host key of %s: out of memory", r->name);
		goto out;
	}
	if (strcmp(key_type, c->key_type) != 0 || strcmp(key_b64, key) != 0) {
		cert_note(r, "its host certificate is for another key than "
			  "the one the server proved");
		goto out;
	}
	name = remote_kh_lookup_name(r, 1);
	v = judge(r, name, ca, key, m, &reason, detail, detail_len, err);
	if (*err != BF_OK || v != REMOTE_CERT_PLAIN || reason)
		goto said;
	/* No CA under "[host]:port": ssh looks again under "host"; there
	 * only an acceptance counts (ROQUIET). */
	if (!r->cfg.host_key_alias && r->cfg.port != 22) {
		struct remote_kh_match m2;
		const char *reason2 = NULL;
		enum remote_cert_verdict v2;

		free(name);
		name = remote_kh_lookup_name(r, 0);
		v2 = judge(r, name, ca, key, &m2, &reason2, detail,
			   detail_len, err);
		if (*err != BF_OK)
			goto out;
		if (v2 == REMOTE_CERT_ACCEPTED) {
			*m = m2;
			v = v2;
			goto out;
		}
	}
	cert_note(r, "its host certificate (CA %s) is not accepted: no "
		  "@cert-authority line for this host holds its CA",
		  c->ca_type);
	goto out;
said:
	if (v == REMOTE_CERT_PLAIN && reason)
		cert_note(r, "its host certificate (key id \"%s\", CA in %s "
			  "line %d) is not accepted: %s", c->key_id, m->file,
			  m->line, reason);
out:
	free(name);
	free(ca);
	free(key);
	return v;
}
