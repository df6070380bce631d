/*
 * remote_certfetch: the host certificate a server presents, fetched over a
 * connection of its own, because libssh 0.10 never asks for one (it
 * offers no certificate host key algorithm). Only the start of an SSH
 * key exchange is needed (RFC 4253 sections 4.2, 6, 7.1; RFC 8731 for
 * curve25519-sha256): the identification strings, both KEXINITs (ours
 * offering the host key algorithms in OpenSSH's order), our
 * SSH_MSG_KEX_ECDH_INIT, and the server's SSH_MSG_KEX_ECDH_REPLY, whose
 * K_S is the host key it would sign with: a certificate when it chose a
 * certificate algorithm. Then the connection is dropped.
 *
 * Nothing here is trusted: the certificate proves itself (its CA's
 * signature, remote_cert.c), and the key it certifies must be the one
 * the libssh session's key exchange proved the server holds
 * (remote_session.c compares them). So the exchange is not finished and
 * its signature not checked here.
 */
#include "remote/remote_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "remote/remote_cert.h"
#include "bf_text.h"

#define MSG_DISCONNECT 1
#define MSG_IGNORE 2
#define MSG_DEBUG 4
#define MSG_KEXINIT 20
#define MSG_KEX_ECDH_INIT 30
#define MSG_KEX_ECDH_REPLY 31
#define MAX_PACKET_BYTES (256 * 1024)   /* RFC 4253 6.1 asks 35000 */
#define IDENT "SSH-2.0-benchfleet_ctl_hostcert\r\n"

/* OpenSSH 9.2's default HostKeyAlgorithms (myproposal.h
 * KEX_DEFAULT_PK_ALG), certificates first. */
static const char *const default_hostkeys[] = {
	"ssh-ed25519-cert-v01@openssh.com",
	"ecdsa-sha2-nistp256-cert-v01@openssh.com",
	"ecdsa-sha2-nistp384-cert-v01@openssh.com",
	"ecdsa-sha2-nistp521-cert-v01@openssh.com",
	"sk-ssh-ed25519-cert-v01@openssh.com",
	"sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
	"rsa-sha2-512-cert-v01@openssh.com",
	"rsa-sha2-256-cert-v01@openssh.com",
	"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
	"ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com",
	"sk-ecdsa-sha2-nistp256@openssh.com", "rsa-sha2-512",
	"rsa-sha2-256", NULL
};

/* The plain key type an algorithm signs with ("rsa-sha2-512-cert-v01..."
 * -> "ssh-rsa"), into buf. */
static const char *plain_type(const char *alg, char *buf, size_t size)
{
	size_t n = strcspn(alg, "@");

	if (strncmp(alg, "rsa-sha2-", 9) == 0)
		return "ssh-rsa";
	/* fits: alg is one of default_hostkeys (43 bytes at most), buf 64 */
	snprintf(buf, size, "%.*s", (int)n, alg);
	n = strlen(buf);
	if (n > 8 && strcmp(buf + n - 8, "-cert-v01") == 0)
		buf[n - 8] = '\0';
	return buf;
}

void remote_hostkey_order(const char *known_types, int have_ca, char *out,
			  size_t size)
{
	char first[1024] = "", last[1024] = "", buf[64], needle[80];
	const char *best_type = plain_type(default_hostkeys[0], buf,
					   sizeof buf);

	/* sshconnect2.c order_hostkeyalgs: a known key of the best
	 * algorithm's type keeps the list as it is; otherwise known types
	 * (and, with a @cert-authority line, every certificate algorithm)
	 * go first, each group in the default order. */
	/* fits: a plain type of default_hostkeys (43 bytes at most) */
	snprintf(needle, sizeof needle, " %s ", best_type);
	if (strstr(known_types, needle)) {
		out[0] = '\0';
		for (int i = 0; default_hostkeys[i]; i++)
			/* fits: default_hostkeys, 16 names, 560 bytes */
			snprintf(out + strlen(out), size - strlen(out),
				 "%s%s", i ? "," : "", default_hostkeys[i]);
		return;
	}
	for (int i = 0; default_hostkeys[i]; i++) {
		const char *a = default_hostkeys[i];
		int cert = strstr(a, "-cert-v01@") != NULL;
		char *to;

		/* fits: a plain type of default_hostkeys (43 bytes at most) */
		snprintf(needle, sizeof needle, " %s ",
			 plain_type(a, buf, sizeof buf));
		to = (cert && have_ca) || strstr(known_types, needle) ?
		     first : last;
		/* fits: default_hostkeys, 16 names, 560 bytes; first 1024 */
		snprintf(to + strlen(to), sizeof first - strlen(to), "%s%s",
			 *to ? "," : "", a);
	}
	/* fits: default_hostkeys, 16 names, 560 bytes, in out (size
	 * 1024 at least, as remote_hostkey_order asks) */
	snprintf(out, size, "%s%s%s", first, *first && *last ? "," : "",
		 last);
}

/* ---- the wire -------------------------------------------------------- */

struct conn {
	struct remote *r;
	int fd;
	int64_t deadline_ms;
	unsigned char *in;      /* bytes read, not yet used */
	size_t in_len, in_cap;
	char *why;
	size_t why_len;
};

/* Waits for fd to be readable (events POLLIN) or writable (POLLOUT) by
 * the deadline. BF_OK, BF_ERR_TIMEOUT, BF_ERR_INTERRUPTED. */
static enum bf_err wait_fd(struct conn *c, short events)
{
	for (;;) {
		struct pollfd p = { c->fd, events, 0 };
		int64_t left = c->deadline_ms - remote_mono_ms();

		if (remote_cancelled(c->r))
			return BF_ERR_INTERRUPTED;
		if (left <= 0)
			return BF_ERR_TIMEOUT;
		if (poll(&p, 1, left < REMOTE_SLICE_MS ? (int)left :
			 REMOTE_SLICE_MS) > 0)
			return BF_OK;
	}
}

static enum bf_err send_all(struct conn *c, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n) {
		enum bf_err e = wait_fd(c, POLLOUT);
		ssize_t w;

		if (e != BF_OK)
			return e;
		w = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (w <= 0) {
			/* fits: strerror's words, why 512 (hostcert.c) */
			snprintf(c->why, c->why_len, "send: %s",
				 strerror(errno));
			return BF_ERR_CONNECT;
		}
		p += w;
		n -= (size_t)w;
	}
	return BF_OK;
}

/* Reads until c->in holds at least n bytes. */
static enum bf_err fill(struct conn *c, size_t n)
{
	while (c->in_len < n) {
		enum bf_err e;
		ssize_t got;

		if (n > c->in_cap) {
			unsigned char *p = realloc(c->in, n + 4096);

			if (!p)
				return BF_ERR_NOMEM;
			c->in = p;
			c->in_cap = n + 4096;
		}
		e = wait_fd(c, POLLIN);
		if (e != BF_OK)
			return e;
		got = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len,
			   MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got <= 0) {
			/* fits: strerror's words, why 512 (hostcert.c) */
			snprintf(c->why, c->why_len, "the server closed the "
				 "connection%s%s", got ? ": " : "",
				 got ? strerror(errno) : "");
			return BF_ERR_CONNECT;
		}
		c->in_len += (size_t)got;
	}
	return BF_OK;
}

static void consume(struct conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

/* The server's identification line (lines before it skipped, RFC 4253
 * 4.2), into ident. */
static enum bf_err read_ident(struct conn *c, char *ident, size_t size)
{
	for (int lines = 0; lines < 64; lines++) {
		unsigned char *nl;
		enum bf_err e;
		size_t want = 1;

		while (!(nl = c->in_len ? memchr(c->in, '\n', c->in_len) :
			      NULL)) {
			if (c->in_len > 8192) {
				snprintf(c->why, c->why_len, "no SSH "
					 "identification line");
				return BF_ERR_CONNECT;
			}
			e = fill(c, c->in_len + want);
			if (e != BF_OK)
				return e;
		}
		if (c->in_len >= 4 && memcmp(c->in, "SSH-", 4) == 0) {
			/* Never shown; a longer line than RFC 4253's 255
			 * bytes is kept cut, marked. */
			(void)bf_text_fmt(ident, size, "%.*s",
				 (int)(nl - c->in - (nl > c->in &&
						     nl[-1] == '\r')),
				 (const char *)c->in);
			consume(c, (size_t)(nl - c->in) + 1);
			return BF_OK;
		}
		consume(c, (size_t)(nl - c->in) + 1);
	}
	snprintf(c->why, c->why_len, "no SSH identification line");
	return BF_ERR_CONNECT;
}

/* One unencrypted packet's payload (RFC 4253 6: uint32 length, byte
 * padding length, payload, padding; no MAC before the first NEWKEYS)
 * into a new buffer. */
static enum bf_err read_packet(struct conn *c, unsigned char **payload,
			       size_t *len)
{
	uint32_t plen;
	unsigned pad;
	enum bf_err e = fill(c, 5);

	if (e != BF_OK)
		return e;
	plen = (uint32_t)c->in[0] << 24 | (uint32_t)c->in[1] << 16 |
	       (uint32_t)c->in[2] << 8 | c->in[3];
	pad = c->in[4];
	if (plen < 5 || plen > MAX_PACKET_BYTES || pad + 1 > plen) {
		snprintf(c->why, c->why_len, "malformed packet");
		return BF_ERR_CONNECT;
	}
	e = fill(c, 4 + (size_t)plen);
	if (e != BF_OK)
		return e;
	*len = plen - pad - 1;
	*payload = malloc(*len ? *len : 1);
	if (!*payload)
		return BF_ERR_NOMEM;
	memcpy(*payload, c->in + 5, *len);
	consume(c, 4 + (size_t)plen);
	return BF_OK;
}

/* A growing packet payload. */
struct out {
	unsigned char buf[4096];
	size_t len;
	int over;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->over || o->len + n > sizeof o->buf) {
		o->over = 1;
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void put_u32(struct out *o, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)(v >> 24),
			       (unsigned char)(v >> 16),
			       (unsigned char)(v >> 8), (unsigned char)v };

	put(o, b, 4);
}

static void put_str(struct out *o, const void *p, size_t n)
{
	put_u32(o, (uint32_t)n);
	put(o, p, n);
}

static void put_cstr(struct out *o, const char *s)
{
	put_str(o, s, strlen(s));
}

static enum bf_err send_packet(struct conn *c, const struct out *o)
{
	unsigned char pkt[4096 + 64];
	size_t pad = 8 - (5 + o->len) % 8;
	uint32_t plen;

	if (pad < 4)
		pad += 8;
	plen = (uint32_t)(1 + o->len + pad);
	if (o->over || 4 + plen > sizeof pkt)
		return BF_ERR_NOMEM;
	pkt[0] = (unsigned char)(plen >> 24);
	pkt[1] = (unsigned char)(plen >> 16);
	pkt[2] = (unsigned char)(plen >> 8);
	pkt[3] = (unsigned char)plen;
	pkt[4] = (unsigned char)pad;
	memcpy(pkt + 5, o->buf, o->len);
	if (RAND_bytes(pkt + 5 + o->len, (int)pad) != 1)
		memset(pkt + 5 + o->len, 0, pad);
	return send_all(c, pkt, 4 + plen);
}

/* A cursor over a payload. */
struct in {
	const unsigned char *p;
	size_t left;
	int bad;
};

static const unsigned char *take_str(struct in *i, size_t *n)
{
	uint32_t len;
	const unsigned char *s;

	if (i->bad || i->left < 4) {
		i->bad = 1;
		return NULL;
	}
	len = (uint32_t)i->p[0] << 24 | (uint32_t)i->p[1] << 16 |
	      (uint32_t)i->p[2] << 8 | i->p[3];
	if (len > i->left - 4) {
		i->bad = 1;
		return NULL;
	}
	s = i->p + 4;
	i->p += 4 + len;
	i->left -= 4 + len;
	*n = len;
	return s;
}

/* Whether name-list `list` (n bytes) holds `name`. */
static int in_list(const unsigned char *list, size_t n, const char *name)
{
	size_t k = strlen(name);

	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && list[j] != ',')
			j++;
		if (j - i == k && memcmp(list + i, name, k) == 0)
			return 1;
		i = j + 1;
	}
	return 0;
}

/* The next packet that is not IGNORE or DEBUG; a DISCONNECT is the
 * server's reason, into why. */
static enum bf_err next_packet(struct conn *c, unsigned char **p, size_t *n)
{
	for (;;) {
		enum bf_err e = read_packet(c, p, n);

		if (e != BF_OK)
			return e;
		if (*n && ((*p)[0] == MSG_IGNORE || (*p)[0] == MSG_DEBUG)) {
			free(*p);
			continue;
		}
		if (*n && (*p)[0] == MSG_DISCONNECT) {
			struct in i = { *p + 5, *n > 5 ? *n - 5 : 0, *n < 5 };
			size_t rl = 0;
			const unsigned char *reason = take_str(&i, &rl);

			/* fits: 200 bytes of the reason, why 512 */
			snprintf(c->why, c->why_len, "the server disconnected: "
				 "%.*s", reason ? (int)(rl > 200 ? 200 : rl) :
				 0, reason ? (const char *)reason : "");
			free(*p);
			return BF_ERR_CONNECT;
		}
		return BF_OK;
	}
}

enum bf_err remote_hostcert_fetch(struct remote *r, int fd,
				  const char *hostkey_algs,
				  int64_t deadline_ms, unsigned char **blob,
				  size_t *blob_len, char *alg,
				  size_t alg_len, char *why, size_t why_len)
{
	static const char kex[] = "curve25519-sha256,"
				  "curve25519-sha256@libssh.org";
	static const char ciphers[] = "chacha20-poly1305@openssh.com,"
		"aes128-ctr,aes192-ctr,aes256-ctr,aes128-gcm@openssh.com,"
		"aes256-gcm@openssh.com";
	static const char macs[] = "umac-64-etm@openssh.com,"
		"umac-128-etm@openssh.com,hmac-sha2-256-etm@openssh.com,"
		"hmac-sha2-512-etm@openssh.com,hmac-sha1-etm@openssh.com,"
		"umac-64@openssh.com,umac-128@openssh.com,hmac-sha2-256,"
		"hmac-sha2-512,hmac-sha1";
	struct conn c = { r, fd, deadline_ms, NULL, 0, 0, why, why_len };
	unsigned char cookie[16], qc[32], *pkt = NULL;
	const unsigned char *ks;
	size_t n, qlen = sizeof qc, ks_len;
	char ident[256];
	struct out o = { .len = 0 };
	struct in i;
	EVP_PKEY_CTX *kc = NULL;
	EVP_PKEY *eph = NULL;
	enum bf_err e;

	*blob = NULL;
	*blob_len = 0;
	alg[0] = why[0] = '\0';
	/* An ephemeral X25519 key: the server checks our point. */
	kc = EVP_PKEY_CTX_new_id(EVP_PKEY_X25519, NULL);
	if (!kc || EVP_PKEY_keygen_init(kc) <= 0 ||
	    EVP_PKEY_keygen(kc, &eph) <= 0 ||
	    EVP_PKEY_get_raw_public_key(eph, qc, &qlen) <= 0 ||
	    qlen != sizeof qc || RAND_bytes(cookie, sizeof cookie) != 1) {
		e = BF_ERR_NOMEM;
		snprintf(why, why_len, "cannot make a key exchange key");
		goto out;
	}
	e = send_all(&c, IDENT, sizeof IDENT - 1);
	if (e == BF_OK)
		e = read_ident(&c, ident, sizeof ident);
	if (e != BF_OK)
		goto out;
	put((&o), (unsigned char[]){ MSG_KEXINIT }, 1);
	put(&o, cookie, sizeof cookie);
	put_cstr(&o, kex);
	put_cstr(&o, hostkey_algs);
	put_cstr(&o, ciphers);
	put_cstr(&o, ciphers);
	put_cstr(&o, macs);
	put_cstr(&o, macs);
	put_cstr(&o, "none");
	put_cstr(&o, "none");
	put_cstr(&o, "");
	put_cstr(&o, "");
	put(&o, (unsigned char[]){ 0, 0, 0, 0, 0 }, 5);
	e = send_packet(&c, &o);
	if (e == BF_OK)
		e = next_packet(&c, &pkt, &n);
	if (e != BF_OK)
		goto out;
	if (n < 17 || pkt[0] != MSG_KEXINIT) {
		snprintf(why, why_len, "no KEXINIT from the server");
		e = BF_ERR_CONNECT;
		goto out;
	}
	i = (struct in){ pkt + 17, n - 17, 0 };
	{
		size_t kl = 0, hl = 0;
		const unsigned char *kexl = take_str(&i, &kl);
		const unsigned char *hkl = take_str(&i, &hl);
		int have_kex = kexl &&
			(in_list(kexl, kl, "curve25519-sha256") ||
			 in_list(kexl, kl, "curve25519-sha256@libssh.org"));

		if (!kexl || !hkl || !have_kex) {
			snprintf(why, why_len, "the server offers no "
				 "curve25519-sha256 key exchange");
			e = BF_ERR_CONNECT;
			goto out;
		}
	}
	free(pkt);
	pkt = NULL;
	o.len = 0;
	put(&o, (unsigned char[]){ MSG_KEX_ECDH_INIT }, 1);
	put_str(&o, qc, sizeof qc);
	e = send_packet(&c, &o);
	if (e == BF_OK)
		e = next_packet(&c, &pkt, &n);
	if (e != BF_OK)
		goto out;
	if (n < 1 || pkt[0] != MSG_KEX_ECDH_REPLY) {
		snprintf(why, why_len, "no KEX_ECDH_REPLY from the server "
			 "(message %d)", n ? pkt[0] : -1);
		e = BF_ERR_CONNECT;
		goto out;
	}
	i = (struct in){ pkt + 1, n - 1, 0 };
	ks = take_str(&i, &ks_len);
	if (!ks) {
		snprintf(why, why_len, "malformed KEX_ECDH_REPLY");
		e = BF_ERR_CONNECT;
		goto out;
	}
	/* The key's type names the algorithm class the server chose. */
	{
		struct in t = { ks, ks_len, 0 };
		size_t tl = 0;
		const unsigned char *tn = take_str(&t, &tl);

		/* Compared with the certificate types: a name too long
		 * for alg is none of them, and is never cut into one. */
		if (tn && tl < alg_len)
			/* fits: tl < alg_len checked above */
			snprintf(alg, alg_len, "%.*s", (int)tl,
				 (const char *)tn);
	}
	*blob = malloc(ks_len ? ks_len : 1);
	if (!*blob) {
		e = BF_ERR_NOMEM;
		goto out;
	}
	memcpy(*blob, ks, ks_len);
	*blob_len = ks_len;
out:
	if (e == BF_ERR_TIMEOUT)
		snprintf(why, why_len, "no answer in time");
	else if (e == BF_ERR_INTERRUPTED)
		snprintf(why, why_len, "interrupted");
	else if (e == BF_ERR_NOMEM && !why[0])
		snprintf(why, why_len, "out of memory");
	free(pkt);
	free(c.in);
	EVP_PKEY_free(eph);
	EVP_PKEY_CTX_free(kc);
	return e;
}
