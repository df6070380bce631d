/*
 * remote_knownhosts: reading and appending OpenSSH known_hosts files (see
 * remote_knownhosts.h). The hashed-name check and the salt use OpenSSL
 * (HMAC, EVP base64, RAND_bytes), the library libssh itself links.
 */
#include "remote/remote_knownhosts.h"
#include "remote/remote_match.h"
#include "xmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#define SHA1_BYTES 20

char *remote_kh_name(const char *host, int port)
{
	if (port == 22 || port == 0)
		return bf_xstrdup(host);
	return bf_xasprintf("[%s]:%d", host, port);
}

/* Base64 (with padding) decoded into out; returns the length or -1. */
static int b64_decode(const char *in, size_t in_len, unsigned char *out,
		      size_t out_size)
{
	int n;

	if (in_len == 0 || in_len % 4 || in_len / 4 * 3 > out_size)
		return -1;
	n = EVP_DecodeBlock(out, (const unsigned char *)in, (int)in_len);
	if (n < 0)
		return -1;
	if (in[in_len - 1] == '=')
		n--;
	if (in[in_len - 2] == '=')
		n--;
	return n;
}

/* "|1|salt|hash" against name. */
static int hashed_matches(const char *entry, size_t len, const char *name)
{
	unsigned char salt[64], want[64], got[EVP_MAX_MD_SIZE];
	unsigned int got_len = 0;
	const char *s = entry + 3, *bar;
	int salt_len, want_len;

	bar = memchr(s, '|', len - 3);
	if (!bar)
		return 0;
	salt_len = b64_decode(s, (size_t)(bar - s), salt, sizeof salt);
	want_len = b64_decode(bar + 1, (size_t)(entry + len - bar - 1), want,
			      sizeof want);
	if (salt_len != SHA1_BYTES || want_len != SHA1_BYTES)
		return 0;
	if (!HMAC(EVP_sha1(), salt, salt_len, (const unsigned char *)name,
		  strlen(name), got, &got_len) || got_len != SHA1_BYTES)
		return 0;
	return memcmp(got, want, SHA1_BYTES) == 0;
}

/* OpenSSH's match_pattern_list (match.c) copies each subpattern into a
 * 1024-byte buffer and fails the whole list on one that does not fit:
 * such a line matches no host for ssh, nor for ctl. */
#define KH_SUBPATTERN_MAX 1022

static int host_matches(const char *patterns, const char *name)
{
	char *lname, pat[KH_SUBPATTERN_MAX + 1];
	const char *p = patterns;
	int matched = 0;
	size_t i;

	if (strncmp(patterns, "|1|", 3) == 0)
		return hashed_matches(patterns, strlen(patterns), name);
	/* The name whole, however long: a cut one would match the lines
	 * of another host whose name starts the same. */
	lname = bf_xstrdup(name);
	for (i = 0; lname[i]; i++)
		lname[i] = (char)tolower((unsigned char)lname[i]);
	while (*p) {
		size_t n = strcspn(p, ",");
		size_t neg = *p == '!';

		if (n - neg > KH_SUBPATTERN_MAX) {
			matched = 0;
			break;
		}
		if (n > neg) {
			for (i = 0; i < n - neg; i++)
				pat[i] = (char)tolower(
					(unsigned char)p[i + neg]);
			pat[i] = '\0';
			/* '*' and '?' only: '[' is literal ("[host]:port"). */
			if (remote_match_pattern(lname, pat)) {
				if (neg) {
					matched = 0;
					break;
				}
				matched = 1;
			}
		}
		p += n;
		if (*p == ',')
			p++;
	}
	free(lname);
	return matched;
}

static char *next_field(char **s)
{
	char *start, *p = *s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	start = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return start;
}

static void note(struct remote_kh_match *m, enum remote_kh_state st,
		 const char *file, int line)
{
	static const int rank[] = {
		[REMOTE_KH_UNKNOWN] = 0, [REMOTE_KH_OTHER] = 1,
		[REMOTE_KH_CHANGED] = 2, [REMOTE_KH_OK] = 3,
		[REMOTE_KH_REVOKED] = 4,
	};

	if (rank[st] <= rank[m->state])
		return;
	m->state = st;
	/* fits: scan() read this line from file, which fopen opened, so
	 * its name is shorter than PATH_MAX (ENAMETOOLONG otherwise). */
	snprintf(m->file, sizeof m->file, "%s", file);
	m->line = line;
}

/* The kind of line: plain, "@revoked", "@cert-authority". */
enum kh_marker { KH_PLAIN, KH_REVOKED, KH_CA };

typedef void (*kh_line_fn)(void *arg, enum kh_marker marker,
			   const char *type, const char *blob,
			   const char *file, int line);

/* Calls fn for each line of files[0..n) whose host patterns match name.
 * Missing files are skipped; BF_ERR_IO when one cannot be read. */
static enum bf_err scan(const char *const *files, size_t n, const char *name,
			kh_line_fn fn, void *arg, char *detail,
			size_t detail_len)
{
	/* Whole lines however long (getline, as OpenSSH's hostfile.c reads
	 * them): a fixed buffer cut a long line in two, and its tail, from
	 * a comment even, was read as a line of its own. */
	char *buf = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		FILE *f = fopen(files[i], "r");
		int lineno = 0;

		if (!f) {
			int e = errno;

			if (e == ENOENT || e == ENOTDIR)
				continue;
			free(buf);
			return bf_fail(detail, detail_len, BF_ERR_IO,
				       "known_hosts %s: %s", files[i],
				       strerror(e));
		}
		while (getline(&buf, &cap, f) != -1) {
			char *s = buf, *hosts, *type, *blob;
			enum kh_marker marker = KH_PLAIN;

			lineno++;
			buf[strcspn(buf, "\r\n")] = '\0';
			hosts = next_field(&s);
			if (!hosts || hosts[0] == '#')
				continue;
			if (hosts[0] == '@') {
				if (strcmp(hosts, "@revoked") == 0)
					marker = KH_REVOKED;
				else if (strcmp(hosts, "@cert-authority") == 0)
					marker = KH_CA;
				else
					continue;  /* sshd(8): unknown */
				hosts = next_field(&s);
				if (!hosts)
					continue;
			}
			type = next_field(&s);
			blob = next_field(&s);
			if (!type || !blob || !host_matches(hosts, name))
				continue;
			fn(arg, marker, type, blob, files[i], lineno);
		}
		/* A file that opens but cannot be read (a directory, an I/O
		 * error) is no empty file: its @revoked lines would be lost. */
		if (ferror(f)) {
			int e = errno;

			fclose(f);
			free(buf);
			return bf_fail(detail, detail_len, BF_ERR_IO,
				       "known_hosts %s: %s", files[i],
				       strerror(e));
		}
		fclose(f);
	}
	free(buf);
	return BF_OK;
}

struct key_scan {
	const char *type, *b64;
	struct remote_kh_match *m;
};

/* A plain key: "@cert-authority" lines do not hold host keys. */
static void key_line(void *arg, enum kh_marker marker, const char *type,
		     const char *blob, const char *file, int line)
{
	struct key_scan *k = arg;
	int same = strcmp(type, k->type) == 0 && strcmp(blob, k->b64) == 0;

	if (marker == KH_CA)
		return;
	if (same)
		note(k->m, marker == KH_REVOKED ? REMOTE_KH_REVOKED :
		     REMOTE_KH_OK, file, line);
	else if (marker == KH_REVOKED)
		return;
	else if (strcmp(type, k->type) == 0)
		note(k->m, REMOTE_KH_CHANGED, file, line);
	else
		note(k->m, REMOTE_KH_OTHER, file, line);
}

enum bf_err remote_kh_check(const char *const *files, size_t n,
			    const char *name, const char *key_type,
			    const char *key_b64, struct remote_kh_match *m,
			    char *detail, size_t detail_len)
{
	struct key_scan k = { key_type, key_b64, m };

	memset(m, 0, sizeof *m);
	return scan(files, n, name, key_line, &k, detail, detail_len);
}

struct marks_scan {
	int marks;
	char *types;
	size_t types_len;
};

static void marks_line(void *arg, enum kh_marker marker, const char *type,
		       const char *blob, const char *file, int line)
{
	struct marks_scan *ms = arg;
	size_t have = strlen(ms->types);

	(void)blob;
	(void)file;
	(void)line;
	if (marker == KH_CA)
		ms->marks |= REMOTE_KH_HAS_CA;
	else if (marker == KH_REVOKED)
		ms->marks |= REMOTE_KH_HAS_REVOKED;
	else if (have + strlen(type) + 2 < ms->types_len)
		/* fits: checked on the line above */
		snprintf(ms->types + have, ms->types_len - have, "%s ", type);
}

enum bf_err remote_kh_scan(const char *const *files, size_t n,
			   const char *name, int *marks, char *types,
			   size_t types_len, char *detail, size_t detail_len)
{
	struct marks_scan ms = { 0, types, types_len };
	enum bf_err e;

	snprintf(types, types_len, " ");
	e = scan(files, n, name, marks_line, &ms, detail, detail_len);
	*marks = ms.marks;
	return e;
}

struct cert_scan {
	const char *ca_type, *ca_b64, *key_type, *key_b64;
	struct remote_kh_match *m;
};

/* hostfile.c check_hostkeys_by_key_or_type for a certificate: a
 * "@cert-authority" line holding its CA makes it OK; an "@revoked" line
 * holding its key or its CA makes it REVOKED, whatever else matched. */
static void cert_line(void *arg, enum kh_marker marker, const char *type,
		      const char *blob, const char *file, int line)
{
	struct cert_scan *cs = arg;
	int ca = strcmp(type, cs->ca_type) == 0 &&
		 strcmp(blob, cs->ca_b64) == 0;
	int key = strcmp(type, cs->key_type) == 0 &&
		  strcmp(blob, cs->key_b64) == 0;

	if (marker == KH_CA && ca)
		note(cs->m, REMOTE_KH_OK, file, line);
	else if (marker == KH_REVOKED && (ca || key))
		note(cs->m, REMOTE_KH_REVOKED, file, line);
}

enum bf_err remote_kh_check_cert(const char *const *files, size_t n,
				 const char *name, const char *ca_type,
				 const char *ca_b64, const char *key_type,
				 const char *key_b64,
				 struct remote_kh_match *m, char *detail,
				 size_t detail_len)
{
	struct cert_scan cs = { ca_type, ca_b64, key_type, key_b64, m };

	memset(m, 0, sizeof *m);
	return scan(files, n, name, cert_line, &cs, detail, detail_len);
}

enum bf_err remote_kh_add(const char *file, const char *name,
			  const char *key_type, const char *key_b64,
			  int hashed, char *detail, size_t detail_len)
{
	unsigned char salt[SHA1_BYTES], mac[EVP_MAX_MD_SIZE];
	unsigned char salt64[64], mac64[64];
	unsigned int mac_len = 0;
	char line[16384], *dir;
	int fd, len;
	ssize_t w;

	if (hashed) {
		if (RAND_bytes(salt, sizeof salt) != 1 ||
		    !HMAC(EVP_sha1(), salt, sizeof salt,
			  (const unsigned char *)name, strlen(name), mac,
			  &mac_len) || mac_len != SHA1_BYTES)
			return bf_fail(detail, detail_len, BF_ERR_IO,
				       "known_hosts %s: cannot hash %s", file,
				       name);
		EVP_EncodeBlock(salt64, salt, sizeof salt);
		EVP_EncodeBlock(mac64, mac, SHA1_BYTES);
		len = snprintf(line, sizeof line, "|1|%s|%s %s %s\n", salt64,
			       mac64, key_type, key_b64);
	} else {
		len = snprintf(line, sizeof line, "%s %s %s\n", name,
			       key_type, key_b64);
	}
	if (len < 0 || (size_t)len >= sizeof line)
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "known_hosts %s: line too long", file);
	dir = bf_xstrdup(file);
	if (access(dirname(dir), F_OK) != 0)
		(void)mkdir(dir, 0700);
	free(dir);
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "known_hosts %s: cannot add %s: %s", file, name,
			       strerror(errno));
	/* One write with O_APPEND: lines of hosts added at once from
	 * several threads do not interleave. */
	w = write(fd, line, (size_t)len);
	if (w != len) {
		int e = w < 0 ? errno : EIO;

		close(fd);
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "known_hosts %s: cannot add %s: %s", file, name,
			       strerror(e));
	}
	if (close(fd) != 0)
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "known_hosts %s: cannot add %s: %s", file, name,
			       strerror(errno));
	return BF_OK;
}
