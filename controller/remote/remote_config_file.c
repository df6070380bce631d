/*
 * remote_config_file: ctl's own reader of ssh_config files, for where no
 * OpenSSH client can be asked (`ssh -G`, remote_config.c). It replaces
 * libssh 0.10's parser, which matched Host blocks against the name as
 * rewritten by HostName (so a later "Host 127.0.0.1" block leaked in),
 * turned ProxyJump into an unexpanded "ssh -W [%h]:%p" ProxyCommand,
 * looked for default keys in ~/ instead of ~/.ssh/ (its "%d" is the ssh
 * directory) and refused names such as "my_host" without a message.
 *
 * It reads what ctl uses, the way OpenSSH 9.2's readconf.c does: the -F
 * file, or ~/.ssh/config then /etc/ssh/ssh_config; "Host" patterns
 * matched against the name as given (remote_match.h: '*', '?', a leading
 * '!' ends the block's match), "Match" with all, host (the HostName so
 * far, %h expanded), originalhost, user, localuser, canonical and final
 * (a second pass, as ssh makes for "Match final"), "Include" (glob(3),
 * relative to ~/.ssh in a user file and /etc/ssh in the system file,
 * files in an inactive block read for syntax only), "Keyword value" and
 * "Keyword=value", quoted words, the first value of each keyword winning
 * (IdentityFile adds up), ProxyJump and ProxyCommand excluding each
 * other. "Match exec" (a command to run) and unknown Match criteria are
 * refused with a message; keywords ctl does not use are skipped. "~" is
 * $HOME's (remote_home_dir), as everywhere in ctl.
 *
 * The result is the text `ssh -G` would print for those keywords, which
 * remote_config.c reads as it reads ssh's (remote_config_parse_g: the
 * "~" and %-tokens are expanded there), so both resolvers end alike.
 */
#include "remote/remote_config.h"
#include "remote/remote_match.h"
#include "xmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SYSTEM_SSH_CONFIG "/etc/ssh/ssh_config"
#define MAX_DEPTH 16      /* readconf.c READCONF_MAX_DEPTH */
#define MAX_WORDS 64

/* What the files said, before defaults and token expansion. */
struct vals {
	char *hostname, *user, *identity_agent, *host_key_alias;
	char *proxy_jump, *proxy_command, *strict;
	struct remote_strv ukh, gkh; /* the first line's files, as written */
	struct remote_strv ids;     /* as written, in order */
	int port, identities_only, hash_known_hosts, batch_mode;
	int connect_timeout_s, alive_interval_s, alive_count_max;
};

struct reader {
	const char *host;           /* as given: Host blocks match it */
	const char *home;
	const char *local_user;
	const char *cmd_user;       /* -l / user@, NULL */
	int final_pass, want_final;
	struct vals v;
	struct remote_strv files;   /* read, in order */
	char *detail;
	size_t detail_len;
};

static void vals_init(struct vals *v)
{
	memset(v, 0, sizeof *v);
	v->port = v->identities_only = v->hash_known_hosts = -1;
	v->batch_mode = v->connect_timeout_s = v->alive_interval_s = -1;
	v->alive_count_max = -1;
}

static void strv_free(struct remote_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

static void vals_clear(struct vals *v)
{
	free(v->hostname);
	free(v->user);
	free(v->identity_agent);
	free(v->host_key_alias);
	free(v->proxy_jump);
	free(v->proxy_command);
	free(v->strict);
	strv_free(&v->ukh);
	strv_free(&v->gkh);
	strv_free(&v->ids);
	vals_init(v);
}

static int strv_add(struct remote_strv *sv, const char *s)
{
	char **v = realloc(sv->v, (sv->n + 1) * sizeof *v);

	if (!v)
		return -1;
	sv->v = v;
	if (!(v[sv->n] = strdup(s)))
		return -1;
	sv->n++;
	return 0;
}

/* A comma-separated list of patterns, '!' negating (match.c
 * match_pattern_list): 1 matched, 0 not, -1 matched a negation. With
 * lower, s is compared in lower case (match_hostname). s is compared
 * whole; a subpattern over 1022 bytes fails the list, as match.c's
 * 1024-byte copy of it does. */
static int pattern_list(const char *s, const char *list, int lower)
{
	char buf[1023], *low = bf_xstrdup(s);
	int got = 0;

	for (char *c = low; lower && *c; c++)
		*c = (char)tolower((unsigned char)*c);
	while (*list) {
		size_t n = strcspn(list, ",");
		int neg = *list == '!';

		if (n - (size_t)neg >= sizeof buf) {
			got = 0;
			break;
		}
		memcpy(buf, list + neg, n - (size_t)neg);
		buf[n - (size_t)neg] = '\0';
		for (char *c = buf; lower && *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (remote_match_pattern(low, buf)) {
			if (neg) {
				got = -1;
				break;
			}
			got = 1;
		}
		list += n;
		if (*list == ',')
			list++;
	}
	free(low);
	return got;
}

/* Splits line into words as OpenSSH's argv_split does: blanks separate,
 * '"' and '\'' quote, backslash escapes a quote, a backslash or (outside
 * quotes) a blank; '#' at a word's start ends the line. The keyword may
 * end in '=' ("Port=22", "Port = 22"). Returns the count, -1 for an
 * unterminated quote. Words point into store. */
static int split_words(const char *line, char **w, int max, char *store)
{
	int n = 0;
	const char *s = line;
	char *o = store;

	while (*s && n < max) {
		int quote = 0;

		while (*s == ' ' || *s == '\t' || (n == 1 && *s == '=') ||
		       *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			break;
		w[n++] = o;
		for (; *s; s++) {
			if (*s == '\\' && (s[1] == '\'' || s[1] == '"' ||
					   s[1] == '\\' ||
					   (!quote && s[1] == ' '))) {
				*o++ = *++s;
			} else if (!quote && (*s == ' ' || *s == '\t' ||
					      *s == '\r' || *s == '\n')) {
				break;
			} else if (!quote && n == 1 && *s == '=') {
				break;
			} else if (!quote && (*s == '"' || *s == '\'')) {
				quote = *s;
			} else if (quote && *s == quote) {
				quote = 0;
			} else {
				*o++ = *s;
			}
		}
		if (quote)
			return -1;
		*o++ = '\0';
	}
	return n;
}

static int is_yes(const char *v)
{
	return !strcasecmp(v, "yes") || !strcasecmp(v, "true");
}

static int is_no(const char *v)
{
	return !strcasecmp(v, "no") || !strcasecmp(v, "false");
}

/* OpenSSH's convtime: a number with an optional s, m, h, d, w suffix,
 * or several ("1m30s"). -1 when it is none, or more than INT_MAX
 * seconds (misc.c convtime refuses those too). */
static int seconds(const char *v)
{
	long total = 0;

	if (!*v)
		return -1;
	while (*v) {
		char *end;
		long n = strtol(v, &end, 10), mul = 1;

		if (end == v || n < 0)
			return -1;
		switch (tolower((unsigned char)*end)) {
		case '\0': break;
		case 's': mul = 1; end++; break;
		case 'm': mul = 60; end++; break;
		case 'h': mul = 3600; end++; break;
		case 'd': mul = 86400; end++; break;
		case 'w': mul = 604800; end++; break;
		default: return -1;
		}
		/* n may be LONG_MAX (strtol saturates): bound it before the
		 * product, so neither it nor the sum overflows. */
		if (n > INT_MAX / mul)
			return -1;
		total += n * mul;
		if (total > INT_MAX)
			return -1;
		v = end;
	}
	return (int)total;
}

static int set_once(char **dst, const char *v)
{
	if (*dst)
		return 0;
	*dst = strdup(v);
	return *dst ? 0 : -1;
}

/* The raw text after the keyword of line, as readconf.c keeps a
 * ProxyCommand: blanks and '=' after the keyword skipped, trailing blanks
 * cut, quotes and '#' left for the shell. Caller frees. */
static char *rest_of_line(const char *line)
{
	const char *s = line + strspn(line, " \t");
	size_t n;

	s += strcspn(s, " \t=");
	s += strspn(s, " \t=");
	n = strlen(s);
	while (n && strchr(" \t\r\n\f", s[n - 1]))
		n--;
	return strndup(s, n);
}

/* The HostName with %h (the name as given) and %% expanded, the only
 * tokens ssh.c expands there. Caller frees. */
static char *expand_hostname(const char *v, const char *host)
{
	size_t cap = strlen(v) + 1, len = 0;
	char *out;

	for (const char *p = v; *p; p++)
		if (p[0] == '%' && p[1] == 'h')
			cap += strlen(host);
	out = malloc(cap);
	for (const char *p = v; out && *p; p++) {
		if (p[0] == '%' && p[1] == 'h') {
			memcpy(out + len, host, strlen(host));
			len += strlen(host);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			out[len++] = '%';
			p++;
		} else {
			out[len++] = *p;
		}
	}
	if (out)
		out[len] = '\0';
	return out;
}

static enum bf_err read_file(struct reader *rd, const char *path, int user,
			     int nevermatch, int depth, int must_exist);

static enum bf_err fail_at(struct reader *rd, enum bf_err e, const char *file,
			   int line, const char *why, const char *word)
{
	return bf_fail(rd->detail, rd->detail_len, e, "ssh config %s line %d: "
		       "%s%s%s", file, line, why, word ? " " : "",
		       word ? word : "");
}

/* "Match ..." on line `line` of file: whether the block applies (1, 0),
 * or -1 with detail written. */
static int match_line(struct reader *rd, char **w, int n, const char *file,
		      int line)
{
	char *hexp = rd->v.hostname ? expand_hostname(rd->v.hostname,
						      rd->host) : NULL;
	const char *host = hexp ? hexp : rd->host;
	int result = 1;

	for (int i = 1; i < n; i++) {
		const char *a = w[i];
		int neg = *a == '!', r;

		if (neg)
			a++;
		if (!strcasecmp(a, "all")) {
			if (n != 2 || neg) {
				fail_at(rd, BF_ERR_PARSE, file, line, "'all' "
					"cannot be combined with other Match "
					"attributes", NULL);
				result = -1;
			}
			break;
		}
		if (!strcasecmp(a, "canonical") || !strcasecmp(a, "final")) {
			if (!strcasecmp(a, "final"))
				rd->want_final = 1;
			if (!!rd->final_pass == neg)
				result = 0;
			continue;
		}
		if (i + 1 >= n) {
			fail_at(rd, BF_ERR_PARSE, file, line, "missing Match "
				"criteria for", a);
			result = -1;
			break;
		}
		if (!strcasecmp(a, "host"))
			r = pattern_list(host, w[++i], 1) == 1;
		else if (!strcasecmp(a, "originalhost"))
			r = pattern_list(rd->host, w[++i], 1) == 1;
		else if (!strcasecmp(a, "user"))
			r = pattern_list(rd->cmd_user ? rd->cmd_user :
					 rd->v.user ? rd->v.user :
					 rd->local_user, w[++i], 0) == 1;
		else if (!strcasecmp(a, "localuser"))
			r = pattern_list(rd->local_user, w[++i], 0) == 1;
		else {
			fail_at(rd, BF_ERR_PARSE, file, line, !strcasecmp(a,
				"exec") ? "Match exec runs a command, which "
				"only OpenSSH's ssh does (none is installed):"
				: "unsupported Match attribute", a);
			result = -1;
			break;
		}
		if (r == neg)
			result = 0;
	}
	free(hexp);
	return result;
}

/* One keyword line, in an active block. Returns 0, or -1 on out of
 * memory; a bad value is BF_ERR_PARSE through *err. */
static int apply(struct reader *rd, char **w, int n, const char *raw,
		 const char *file, int line, enum bf_err *err)
{
	struct vals *v = &rd->v;
	const char *k = w[0], *a = w[1];
	char *s;
	int rc = 0;

	if (!strcasecmp(k, "hostname"))
		rc = set_once(&v->hostname, a);
	else if (!strcasecmp(k, "user"))
		rc = set_once(&v->user, a);
	else if (!strcasecmp(k, "port")) {
		char *end;
		long p = strtol(a, &end, 10);

		if (*end || p < 1 || p > 65535) {
			*err = fail_at(rd, BF_ERR_PARSE, file, line,
				       "bad port", a);
			return 0;
		}
		if (v->port < 0)
			v->port = (int)p;
	} else if (!strcasecmp(k, "identityfile")) {
		for (size_t i = 0; i < v->ids.n; i++)
			if (!strcmp(v->ids.v[i], a))
				return 0;   /* added once (readconf.c) */
		rc = strv_add(&v->ids, a);
	} else if (!strcasecmp(k, "identitiesonly")) {
		if (v->identities_only < 0)
			v->identities_only = is_yes(a);
	} else if (!strcasecmp(k, "identityagent")) {
		rc = set_once(&v->identity_agent, a);
	} else if (!strcasecmp(k, "userknownhostsfile") ||
		   !strcasecmp(k, "globalknownhostsfile")) {
		struct remote_strv *dst = tolower((unsigned char)k[0]) == 'u' ?
					  &v->ukh : &v->gkh;

		if (!dst->n)   /* the first line wins, all its files */
			for (int i = 1; i < n && !rc; i++)
				rc = strv_add(dst, w[i]);
	} else if (!strcasecmp(k, "hashknownhosts")) {
		if (v->hash_known_hosts < 0)
			v->hash_known_hosts = is_yes(a);
	} else if (!strcasecmp(k, "hostkeyalias")) {
		rc = set_once(&v->host_key_alias, a);
	} else if (!strcasecmp(k, "proxyjump")) {
		if (!v->proxy_jump && !v->proxy_command)
			rc = set_once(&v->proxy_jump, a);
	} else if (!strcasecmp(k, "proxycommand")) {
		if (!v->proxy_jump && !v->proxy_command) {
			s = rest_of_line(raw);
			if (!s)
				return -1;
			v->proxy_command = s;
		}
	} else if (!strcasecmp(k, "connecttimeout") ||
		   !strcasecmp(k, "serveraliveinterval")) {
		/* readconf.c: "invalid time value" is fatal. */
		int alive = !strcasecmp(k, "serveraliveinterval");
		int t = !alive && !strcasecmp(a, "none") ? 0 : seconds(a);
		int *dst = alive ? &v->alive_interval_s : &v->connect_timeout_s;

		if (t < 0) {
			*err = fail_at(rd, BF_ERR_PARSE, file, line,
				       "invalid time value", a);
			return 0;
		}
		if (*dst < 0)
			*dst = t;
	} else if (!strcasecmp(k, "serveralivecountmax")) {
		char *end;
		long c = strtol(a, &end, 10);

		if (*end || c < 0 || c > 1000000) {
			*err = fail_at(rd, BF_ERR_PARSE, file, line,
				       "bad ServerAliveCountMax", a);
			return 0;
		}
		if (v->alive_count_max < 0)
			v->alive_count_max = (int)c;
	} else if (!strcasecmp(k, "stricthostkeychecking")) {
		/* As ssh -G prints it. */
		const char *val = is_yes(a) ? "true" : is_no(a) ||
				  !strcasecmp(a, "off") ? "false" :
				  !strcasecmp(a, "accept-new") ? "accept-new" :
				  "ask";

		rc = set_once(&v->strict, val);
	} else if (!strcasecmp(k, "batchmode")) {
		if (v->batch_mode < 0)
			v->batch_mode = is_yes(a);
	}
	return rc;
}

/* "Include" words of line `line`: each pattern globbed and read. */
static enum bf_err include(struct reader *rd, char **w, int n,
			   const char *file, int line, int user,
			   int nevermatch, int depth)
{
	for (int i = 1; i < n; i++) {
		char *pat;
		glob_t gl;
		int r;

		if (w[i][0] == '~' && (w[i][1] == '/' || !w[i][1])) {
			if (!user)
				return fail_at(rd, BF_ERR_PARSE, file, line,
					       "bad include path", w[i]);
			r = asprintf(&pat, "%s%s", rd->home, w[i] + 1);
		} else if (w[i][0] != '/') {
			r = user ? asprintf(&pat, "%s/.ssh/%s", rd->home,
					    w[i]) :
			    asprintf(&pat, "/etc/ssh/%s", w[i]);
		} else {
			r = asprintf(&pat, "%s", w[i]);
		}
		if (r < 0)
			return bf_fail(rd->detail, rd->detail_len,
				       BF_ERR_NOMEM, "ssh config: out of "
				       "memory");
		memset(&gl, 0, sizeof gl);
		r = glob(pat, 0, NULL, &gl);
		free(pat);
		if (r == GLOB_NOMATCH)
			continue;
		if (r != 0)
			return fail_at(rd, BF_ERR_PARSE, file, line,
				       "glob failed for", w[i]);
		for (size_t k = 0; k < gl.gl_pathc; k++) {
			enum bf_err e = read_file(rd, gl.gl_pathv[k], user,
						  nevermatch, depth + 1, 0);

			if (e != BF_OK) {
				globfree(&gl);
				return e;
			}
		}
		globfree(&gl);
	}
	return BF_OK;
}

static enum bf_err read_file(struct reader *rd, const char *path, int user,
			     int nevermatch, int depth, int must_exist)
{
	FILE *f;
	char *line = NULL, *store = NULL, *w[MAX_WORDS];
	size_t cap = 0;
	int fd, lineno = 0, active = 1;
	enum bf_err err = BF_OK;

	if (depth > MAX_DEPTH)
		return bf_fail(rd->detail, rd->detail_len, BF_ERR_PARSE,
			       "ssh config %s: too many nested Include", path);
	/* Never wait on what is not a file: an Include glob can name a pipe
	 * with no writer (open would block), or, for root, /proc/kmsg (each
	 * read blocks until the kernel logs; fuzz_sshconfig met both through
	 * "Include /????/????"). OpenSSH's ssh waits there for ever; ctl
	 * reads what is there now (O_NONBLOCK: a pipe with no writer is
	 * empty) and says so for a read that would wait. Regular files and
	 * /dev/null read as before. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f && fd >= 0)
		close(fd);
	if (!f) {
		if (!must_exist && errno == ENOENT)
			return BF_OK;
		return bf_fail(rd->detail, rd->detail_len, errno == ENOENT ?
			       BF_ERR_NOT_FOUND : BF_ERR_IO, "ssh config %s: "
			       "%s", path, strerror(errno));
	}
	if (strv_add(&rd->files, path) != 0)
		err = bf_fail(rd->detail, rd->detail_len, BF_ERR_NOMEM,
			      "ssh config: out of memory");
	while (err == BF_OK && getline(&line, &cap, f) != -1) {
		int n;

		lineno++;
		free(store);
		store = malloc(strlen(line) + 1);
		if (!store) {
			err = bf_fail(rd->detail, rd->detail_len,
				      BF_ERR_NOMEM, "ssh config: out of "
				      "memory");
			break;
		}
		n = split_words(line, w, MAX_WORDS, store);
		if (n < 0) {
			err = fail_at(rd, BF_ERR_PARSE, path, lineno,
				      "unterminated quote", NULL);
			break;
		}
		if (n == 0)
			continue;
		if (!strcasecmp(w[0], "host")) {
			active = 0;
			for (int i = 1; i < n && !nevermatch; i++) {
				int neg = w[i][0] == '!';

				if (remote_match_pattern(rd->host, w[i] + neg)) {
					if (neg) {
						active = 0;
						break;
					}
					active = 1;
				}
			}
			continue;
		}
		if (!strcasecmp(w[0], "match")) {
			int m = match_line(rd, w, n, path, lineno);

			if (m < 0) {
				err = BF_ERR_PARSE;
				break;
			}
			active = m && !nevermatch;
			continue;
		}
		if (n < 2) {
			err = fail_at(rd, BF_ERR_PARSE, path, lineno,
				      "missing argument for", w[0]);
			break;
		}
		if (!strcasecmp(w[0], "include")) {
			err = include(rd, w, n, path, lineno, user,
				      nevermatch || !active, depth);
			continue;
		}
		if (active && apply(rd, w, n, line, path, lineno, &err) != 0)
			err = bf_fail(rd->detail, rd->detail_len,
				      BF_ERR_NOMEM, "ssh config: out of "
				      "memory");
	}
	/* A read that would wait (see the open above) is an error; other
	 * read errors (a directory: EISDIR) end the file quietly, as in
	 * OpenSSH's readconf.c, which never checks its getline's error. */
	if (err == BF_OK && ferror(f) && (errno == EAGAIN ||
					  errno == EWOULDBLOCK))
		err = bf_fail(rd->detail, rd->detail_len, BF_ERR_IO,
			      "ssh config %s: not a file: reading it would "
			      "wait for more (a device or a pipe)", path);
	free(store);
	free(line);
	fclose(f);
	return err;
}

/* A growing text. */
struct text {
	char *s;
	size_t len, cap;
	int oom;
};

static void addf(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void addf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL,
			      t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->oom = 1;
			return;
		}
		if (t->s && (size_t)n < t->cap - t->len)
			break;
		t->cap = (t->cap + (size_t)n + 1) * 2;
		if (!(t->s = realloc(t->s, t->cap))) {
			t->oom = 1;
			return;
		}
		if (!t->len)
			t->s[0] = '\0';
	}
	t->len += (size_t)n;
}

static void add_list(struct text *t, const char *key,
		     const struct remote_strv *sv, const char *defaults)
{
	addf(t, "%s", key);
	for (size_t i = 0; i < sv->n; i++)
		addf(t, " %s", sv->v[i]);
	if (!sv->n)
		addf(t, " %s", defaults);
	addf(t, "\n");
}

/* What was read, with OpenSSH's defaults for the rest (readconf.c
 * fill_default_options), as `ssh -G` prints it: paths and ProxyCommand
 * with their "~" and %-tokens still in, for remote_config_parse_g. */
static char *as_ssh_g(struct reader *rd, int port)
{
	static const char *const default_ids[] = { "id_rsa", "id_ecdsa",
		"id_ecdsa_sk", "id_ed25519", "id_ed25519_sk", "id_xmss",
		"id_dsa", NULL };
	struct vals *v = &rd->v;
	struct text t = { 0 };
	char *host = v->hostname ? expand_hostname(v->hostname, rd->host) :
		     strdup(rd->host);

	if (!host)
		return NULL;
	addf(&t, "hostname %s\n", host);
	free(host);
	addf(&t, "user %s\n", rd->cmd_user ? rd->cmd_user : v->user ? v->user :
	     rd->local_user);
	addf(&t, "port %d\n", port ? port : v->port > 0 ? v->port : 22);
	for (size_t i = 0; i < v->ids.n; i++)
		addf(&t, "identityfile %s\n", v->ids.v[i]);
	for (int i = 0; !v->ids.n && default_ids[i]; i++)
		addf(&t, "identityfile ~/.ssh/%s\n", default_ids[i]);
	addf(&t, "identitiesonly %s\n", v->identities_only > 0 ? "yes" : "no");
	if (v->identity_agent)
		addf(&t, "identityagent %s\n", v->identity_agent);
	add_list(&t, "userknownhostsfile", &v->ukh,
		 "~/.ssh/known_hosts ~/.ssh/known_hosts2");
	add_list(&t, "globalknownhostsfile", &v->gkh,
		 "/etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2");
	addf(&t, "hashknownhosts %s\n", v->hash_known_hosts > 0 ? "yes" :
	     "no");
	if (v->host_key_alias)
		addf(&t, "hostkeyalias %s\n", v->host_key_alias);
	if (v->proxy_jump)
		addf(&t, "proxyjump %s\n", v->proxy_jump);
	if (v->proxy_command)
		addf(&t, "proxycommand %s\n", v->proxy_command);
	if (v->connect_timeout_s > 0)
		addf(&t, "connecttimeout %d\n", v->connect_timeout_s);
	else
		addf(&t, "connecttimeout none\n");
	addf(&t, "serveraliveinterval %d\n", v->alive_interval_s > 0 ?
	     v->alive_interval_s : 0);
	addf(&t, "serveralivecountmax %d\n", v->alive_count_max >= 0 ?
	     v->alive_count_max : 3);
	addf(&t, "stricthostkeychecking %s\n", v->strict ? v->strict : "ask");
	addf(&t, "batchmode %s\n", v->batch_mode > 0 ? "yes" : "no");
	if (t.oom) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

enum bf_err remote_config_read(const char *target, const char *user, int port,
			       const char *ssh_config, const char *home,
			       char **text, struct remote_strv *files,
			       char *detail, size_t detail_len)
{
	struct passwd *pw = getpwuid(getuid());
	struct reader rd = {
		.host = target, .home = home, .cmd_user = user,
		.local_user = pw && pw->pw_name ? pw->pw_name : "root",
		.detail = detail, .detail_len = detail_len,
	};
	char *path;
	enum bf_err e = BF_OK;

	*text = NULL;
	vals_init(&rd.v);
	for (int pass = 0; pass < 2 && e == BF_OK; pass++) {
		if (pass == 1 && !rd.want_final)
			break;
		/* The final pass reads the files again over what the first
		 * set (first values still win), Match final now true. */
		rd.final_pass = pass;
		strv_free(&rd.files);
		if (ssh_config) {
			e = read_file(&rd, ssh_config, 1, 0, 0, 1);
		} else {
			/* Whole: home is any length given. */
			path = bf_xasprintf("%s/.ssh/config", home);
			e = read_file(&rd, path, 1, 0, 0, 0);
			free(path);
			if (e == BF_OK)
				e = read_file(&rd, SYSTEM_SSH_CONFIG, 0, 0, 0,
					      0);
		}
	}
	if (e == BF_OK && !(*text = as_ssh_g(&rd, port)))
		e = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			    "resolve %s: out of memory", target);
	if (e == BF_OK) {
		*files = rd.files;
		rd.files.v = NULL;
		rd.files.n = 0;
	}
	strv_free(&rd.files);
	vals_clear(&rd.v);
	return e;
}
