/*
 * remote_config: ssh_config resolution for one target by OpenSSH's own
 * resolver (`ssh -G -v`), ctl's own reader only as a stated fallback
 * (remote_config_file.c; see remote_config.h). The ssh client runs through
 * remote_capture.c (posix_spawnp, safe from the host threads: no fork of
 * a threaded process running our code; under a deadline and the cancel
 * flag).
 */
#include "bf_parse.h"
#include "bf_text.h"
#include "xmalloc.h"
#include "remote/remote_capture.h"
#include "remote/remote_config.h"
#include "remote/remote_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define G_OUT_MAX_BYTES (256 * 1024)
/* ssh -v prints a few lines per file and block read. */
#define G_ERR_MAX_BYTES (64 * 1024)
#define SYSTEM_SSH_CONFIG "/etc/ssh/ssh_config"

int remote_home_dir(char *buf, size_t size)
{
	const char *home = getenv("HOME");

	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : NULL;
	}
	if (!home)
		return -1;
	return snprintf(buf, size, "%s", home) < (int)size ? 0 : -1;
}

/* The passwd entry's home (what OpenSSH calls ~), or "" when none or
 * when it does not fit in buf (it is compared with $HOME: never cut). */
static void passwd_home(char *buf, size_t size)
{
	struct passwd *pw = getpwuid(getuid());

	if (snprintf(buf, size, "%s", pw && pw->pw_dir ? pw->pw_dir : "") >=
	    (int)size)
		buf[0] = '\0';
}

static int strv_push(struct remote_strv *sv, const char *s)
{
	char **v = realloc(sv->v, (sv->n + 1) * sizeof *v);

	if (!v)
		return -1;
	sv->v = v;
	v[sv->n] = strdup(s);
	if (!v[sv->n])
		return -1;
	sv->n++;
	return 0;
}

static void strv_clear(struct remote_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

void remote_config_clear(struct remote_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->alias);
	free(cfg->hostname);
	free(cfg->user);
	strv_clear(&cfg->identity_files);
	free(cfg->identity_agent);
	strv_clear(&cfg->user_known_hosts);
	strv_clear(&cfg->global_known_hosts);
	free(cfg->host_key_alias);
	free(cfg->proxy_jump);
	free(cfg->remote_command);
	free(cfg->proxy_command);
	free(cfg->strict_host_key_checking);
	free(cfg->config_file);
	strv_clear(&cfg->config_files);
	if (cfg->ssh_file && cfg->ssh_file_is_temp)
		unlink(cfg->ssh_file);
	free(cfg->ssh_file);
	free(cfg->resolver);
	memset(cfg, 0, sizeof *cfg);
}

/* ---- token expansion ---------------------------------------------------- */

struct sbuf {
	char *s;
	size_t len, cap;
	int oom;
};

static void sb_add(struct sbuf *b, const char *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s ? s : "", strlen(s ? s : ""));
}

char *remote_config_expand(const struct remote_config *cfg, const char *s,
			   const char *home)
{
	struct sbuf b = { NULL, 0, 0, 0 };
	struct passwd *pw = getpwuid(getuid());
	char num[32], host[256];

	sb_add(&b, "", 0);
	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0')) {
		sb_str(&b, home);
		s++;
	}
	for (; *s; s++) {
		if (*s != '%' || !s[1]) {
			sb_add(&b, s, 1);
			continue;
		}
		s++;
		switch (*s) {
		case '%': sb_add(&b, "%", 1); break;
		case 'h': sb_str(&b, cfg->hostname); break;
		case 'n': sb_str(&b, cfg->alias); break;
		case 'k': sb_str(&b, cfg->host_key_alias ?
				      cfg->host_key_alias : cfg->alias); break;
		case 'r': sb_str(&b, cfg->user); break;
		case 'd': sb_str(&b, home); break;
		case 'u': sb_str(&b, pw ? pw->pw_name : ""); break;
		case 'p':
			snprintf(num, sizeof num, "%d", cfg->port);
			sb_str(&b, num);
			break;
		case 'i':
			snprintf(num, sizeof num, "%u", (unsigned)getuid());
			sb_str(&b, num);
			break;
		case 'l':
		case 'L':
			if (gethostname(host, sizeof host) != 0)
				host[0] = '\0';
			host[sizeof host - 1] = '\0';
			if (*s == 'L')
				host[strcspn(host, ".")] = '\0';
			sb_str(&b, host);
			break;
		default:  /* unknown token: kept as written */
			sb_add(&b, s - 1, 2);
			break;
		}
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* ---- ssh -G output ------------------------------------------------------ */

static int set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -1;
}

/* A number ssh -G printed, or 0 when it is not one in 0..max. */
static int num(const char *v, long max)
{
	long n;

	return bf_parse_long(v, 0, max, &n) == 0 ? (int)n : 0;
}

/* "none" (any case) as ssh -G prints an unset option. */
static int is_none(const char *v)
{
	return strcasecmp(v, "none") == 0;
}

static int is_yes(const char *v)
{
	return strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0;
}

/* Moves a path under the passwd home's .ssh to $HOME/.ssh (see header). */
static char *rehome(const char *path, const char *home)
{
	char pwh[4096], pre[4200];
	size_t n;
	char *out;

	passwd_home(pwh, sizeof pwh);
	if (!pwh[0] || strcmp(pwh, home) == 0)
		return strdup(path);
	/* fits: pwh holds under 4096 bytes, pre 4200 */
	snprintf(pre, sizeof pre, "%s/.ssh/", pwh);
	n = strlen(pre);
	if (strncmp(path, pre, n) != 0)
		return strdup(path);
	if (asprintf(&out, "%s/.ssh/%s", home, path + n) < 0)
		return NULL;
	return out;
}

/* Splits v at blanks into sv, each word expanded for cfg. */
static int push_paths(struct remote_strv *sv, const struct remote_config *cfg,
		      const char *v, const char *home)
{
	char *copy = strdup(v), *save = NULL, *w;
	int rc = copy ? 0 : -1;

	for (w = copy ? strtok_r(copy, " \t", &save) : NULL; w && rc == 0;
	     w = strtok_r(NULL, " \t", &save)) {
		char *e = remote_config_expand(cfg, w, home);
		char *r = e ? rehome(e, home) : NULL;

		rc = r ? strv_push(sv, r) : -1;
		free(e);
		free(r);
	}
	free(copy);
	return rc;
}

/* Whether ssh -G's identityfile lines are its defaults, which it lists
 * only when no IdentityFile is set (readconf.c fill_default_options:
 * ~/.ssh/id_rsa, id_ecdsa, id_ecdsa_sk, id_ed25519, id_ed25519_sk,
 * id_xmss, id_dsa in OpenSSH 9.2; older clients list fewer): each one of
 * those names under "~/.ssh/", and more than one. */
static int default_identities(const struct remote_strv *ids)
{
	static const char *const names[] = { "id_rsa", "id_ecdsa",
		"id_ecdsa_sk", "id_ed25519", "id_ed25519_sk", "id_xmss",
		"id_dsa", NULL };

	if (ids->n < 2)
		return 0;
	for (size_t i = 0; i < ids->n; i++) {
		int known = 0;

		if (strncmp(ids->v[i], "~/.ssh/", 7) != 0)
			return 0;
		for (int k = 0; names[k]; k++)
			known |= strcmp(ids->v[i] + 7, names[k]) == 0;
		if (!known)
			return 0;
	}
	return 1;
}

enum bf_err remote_config_parse_g(struct remote_config *cfg,
				  const char *alias, const char *text,
				  const char *home, char *detail,
				  size_t detail_len)
{
	/* Paths are expanded after all lines are read: %h and %r need the
	 * final hostname and user, which may come later in the output. */
	struct remote_strv ids = { 0 }, ukh = { 0 }, gkh = { 0 };
	char *proxy = NULL, *line;
	const char *p = text;
	int oom = 0;
	enum bf_err err = BF_OK;

	memset(cfg, 0, sizeof *cfg);
	cfg->server_alive_count_max = 3;
	if (set_str(&cfg->alias, alias) != 0)
		oom = 1;
	/* Room for text's longest line: each is read whole (a value cut
	 * at a fixed size, a ProxyCommand say, ran as another). */
	line = bf_xmalloc(strlen(text) + 1);
	while (*p && !oom) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char *key, *val;

		memcpy(line, p, n);
		line[n] = '\0';
		p = eol ? eol + 1 : p + strlen(p);
		key = line;
		val = strchr(line, ' ');
		if (!val)
			continue;
		*val++ = '\0';
		if (!strcmp(key, "hostname"))
			oom = set_str(&cfg->hostname, val);
		else if (!strcmp(key, "user"))
			oom = set_str(&cfg->user, val);
		else if (!strcmp(key, "port"))
			cfg->port = num(val, 65535);
		else if (!strcmp(key, "identityfile"))
			oom = strv_push(&ids, val);
		else if (!strcmp(key, "identitiesonly"))
			cfg->identities_only = is_yes(val);
		else if (!strcmp(key, "identityagent"))
			oom = set_str(&cfg->identity_agent, val);
		else if (!strcmp(key, "userknownhostsfile"))
			oom = strv_push(&ukh, val);
		else if (!strcmp(key, "globalknownhostsfile"))
			oom = strv_push(&gkh, val);
		else if (!strcmp(key, "hashknownhosts"))
			cfg->hash_known_hosts = is_yes(val);
		else if (!strcmp(key, "hostkeyalias") && !is_none(val))
			oom = set_str(&cfg->host_key_alias, val);
		else if (!strcmp(key, "remotecommand") && !is_none(val))
			oom = set_str(&cfg->remote_command, val);
		else if (!strcmp(key, "proxyjump") && !is_none(val))
			oom = set_str(&cfg->proxy_jump, val);
		else if (!strcmp(key, "proxycommand") && !is_none(val))
			oom = set_str(&proxy, val);
		else if (!strcmp(key, "connecttimeout") && !is_none(val))
			cfg->connect_timeout_s = num(val, 86400);
		else if (!strcmp(key, "serveraliveinterval"))
			cfg->server_alive_interval_s = num(val, 86400);
		else if (!strcmp(key, "serveralivecountmax"))
			cfg->server_alive_count_max = num(val, 1000000);
		else if (!strcmp(key, "stricthostkeychecking"))
			oom = set_str(&cfg->strict_host_key_checking, val);
		else if (!strcmp(key, "batchmode"))
			cfg->batch_mode = is_yes(val);
		oom = oom != 0;
	}
	if (oom)
		goto nomem;
	if (!cfg->hostname || !cfg->user || cfg->port < 1 ||
	    cfg->port > 65535) {
		err = bf_fail(detail, detail_len, BF_ERR_PARSE,
			      "resolve %s: ssh -G printed no %s", alias,
			      !cfg->hostname ? "hostname" : !cfg->user ?
			      "user" : "valid port");
		goto out;
	}
	cfg->identity_files_default = default_identities(&ids);
	if (cfg->identity_agent && !strcmp(cfg->identity_agent,
					   "SSH_AUTH_SOCK")) {
		free(cfg->identity_agent);
		cfg->identity_agent = NULL;
	}
	for (size_t i = 0; i < ids.n && !oom; i++)
		oom = push_paths(&cfg->identity_files, cfg, ids.v[i], home);
	for (size_t i = 0; i < ukh.n && !oom; i++)
		oom = push_paths(&cfg->user_known_hosts, cfg, ukh.v[i], home);
	for (size_t i = 0; i < gkh.n && !oom; i++)
		oom = push_paths(&cfg->global_known_hosts, cfg, gkh.v[i],
				 home);
	if (!oom && proxy) {
		cfg->proxy_command = remote_config_expand(cfg, proxy, home);
		oom = cfg->proxy_command == NULL;
	}
	if (!oom && !cfg->strict_host_key_checking)
		oom = set_str(&cfg->strict_host_key_checking, "ask");
	if (oom)
		goto nomem;
	goto out;
nomem:
	err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
		      "resolve %s: out of memory", alias);
out:
	free(line);
	strv_clear(&ids);
	strv_clear(&ukh);
	strv_clear(&gkh);
	free(proxy);
	if (err != BF_OK)
		remote_config_clear(cfg);
	return err;
}

/* ---- running ssh -G ----------------------------------------------------- */

/* ssh -v's own lines: its version first, then "debug1: ...". */
static int is_debug_line(const char *line)
{
	return strncmp(line, "debug", 5) == 0 ||
	       strncmp(line, "OpenSSH_", 8) == 0;
}

/* The non-empty lines of s that are not ssh -v's, in order, joined by
 * "; ", with control characters made blanks, whole, into a new string
 * (caller frees). ssh names a bad ssh_config line ("bad.conf line 2: Bad
 * port 'notaport'.") before its last word ("bad.conf: terminating, 1 bad
 * configuration options"): both count. */
static char *own_lines(const char *s)
{
	/* Each line adds at most "; " for its '\n': twice s is room. */
	size_t have = 0, size = 2 * strlen(s) + 3;
	char *buf = bf_xmalloc(size);

	buf[0] = '\0';
	while (*s && have + 1 < size) {
		size_t n = strcspn(s, "\n");
		size_t m = n;

		while (m > 0 && (s[m - 1] == '\r' || s[m - 1] == ' '))
			m--;
		if (m > 0 && !is_debug_line(s)) {
			/* "...'notaport'. bad.conf: terminating": a line
			 * with its own full stop needs no semicolon. */
			if (have && have + 3 < size) {
				if (buf[have - 1] != '.')
					buf[have++] = ';';
				buf[have++] = ' ';
			}
			for (size_t i = 0; i < m && have + 1 < size; i++)
				buf[have++] = (unsigned char)s[i] < 0x20 ||
						      s[i] == 0x7f ?
						      ' ' :
						      s[i];
			buf[have] = '\0';
		}
		s += n;
		s += *s == '\n';
	}
	return buf;
}

/* ssh -V's answer ("OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL ..."), first
 * word, into buf (128 bytes; a longer word is cut, ending in "..."); ""
 * when unknown. Asked once per process and client. */
static void client_version(const char *ssh, char *buf, size_t size)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	/* cached_for: the client asked, whole (the cache's key). */
	static char *cached_for, cached[128];
	char *const argv[] = { (char *)ssh, (char *)"-V", NULL };
	struct remote_capture c = { 0 };

	pthread_mutex_lock(&mu);
	if (!cached_for || strcmp(cached_for, ssh) != 0) {
		cached[0] = '\0';
		if (remote_capture_run(argv, remote_mono_ms() + 5000,
				       NULL, G_OUT_MAX_BYTES, G_ERR_MAX_BYTES,
				       &c) == BF_OK && c.err)
			(void)bf_text_fmt(cached, sizeof cached, "%.*s",
					  (int)strcspn(c.err, " ,\n"), c.err);
		free(cached_for);
		cached_for = bf_xstrdup(ssh);
	}
	/* fits: cached is 128 bytes, buf 128 (resolve_ssh's ver) */
	snprintf(buf, size, "%s", cached);
	pthread_mutex_unlock(&mu);
	remote_capture_free(&c);
}

/* Appends path to b as one word of an ssh_config line that reaches
 * glob(3) as itself: in double quotes, with '"' and '\\' escaped for
 * readconf.c's argv_split and '*', '?', '[' escaped for glob (argv_split
 * keeps a backslash before them). */
static void sb_include_word(struct sbuf *b, const char *path)
{
	sb_add(b, "\"", 1);
	for (; *path; path++) {
		if (strchr("\"\\", *path))
			sb_add(b, "\\", 1);
		if (*path == '\\')
			sb_add(b, "\\\\", 2);
		else if (strchr("*?[", *path))
			sb_add(b, "\\", 1);
		sb_add(b, path, 1);
	}
	sb_add(b, "\"", 1);
}

/*
 * The -F file for ssh runs (see header) into cfg->ssh_file: ssh_config
 * when given; NULL when HOME is the passwd home (ssh reads what it
 * would); else a temporary file holding "Include $HOME/.ssh/config" and
 * "Include /etc/ssh/ssh_config". BF_OK, or BF_ERR_IO / BF_ERR_USAGE (a
 * HOME with a line break, which no config line can name) with detail.
 */
static enum bf_err ssh_file_for(struct remote_config *cfg,
				const char *ssh_config, const char *home,
				char *detail, size_t detail_len)
{
	struct sbuf b = { NULL, 0, 0, 0 };
	char pwh[4096], tmpl[4200], *tmp;
	const char *tmpdir = getenv("TMPDIR");
	int fd;
	ssize_t w;

	if (ssh_config) {
		cfg->ssh_file = strdup(ssh_config);
		return cfg->ssh_file ? BF_OK :
		       bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "resolve: out of memory");
	}
	passwd_home(pwh, sizeof pwh);
	if (!home[0] || strcmp(pwh, home) == 0)
		return BF_OK;
	if (strpbrk(home, "\r\n"))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "HOME holds a line break: no ssh_config "
			       "Include can name its .ssh/config");
	sb_str(&b, "# ctl: ssh reads these for this user (HOME is not the "
	       "passwd home)\nInclude ");
	/* fits: home holds under 4096 bytes (remote_home_dir), tmpl 4200 */
	snprintf(tmpl, sizeof tmpl, "%s/.ssh/config", home);
	sb_include_word(&b, tmpl);
	sb_str(&b, "\nInclude " SYSTEM_SSH_CONFIG "\n");
	/* Whole, however long TMPDIR is: a cut one names another file. */
	tmp = bf_xasprintf("%s/bf-ssh_config-XXXXXX",
			   tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = b.oom ? -1 : mkstemp(tmp);
	if (fd < 0) {
		enum bf_err e = bf_fail(detail, detail_len, BF_ERR_IO,
					"resolve: cannot create %s: %s", tmp,
					strerror(errno));

		free(b.s);
		free(tmp);
		return e;
	}
	w = write(fd, b.s, b.len);
	free(b.s);
	if (w != (ssize_t)b.len || close(fd) != 0) {
		enum bf_err e = bf_fail(detail, detail_len, BF_ERR_IO,
					"resolve: cannot write %s", tmp);

		unlink(tmp);
		free(tmp);
		return e;
	}
	cfg->ssh_file = tmp;
	cfg->ssh_file_is_temp = 1;
	return BF_OK;
}

/* Whether sv holds s. */
static int strv_has(const struct remote_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

/* The files ssh -v says it read ("debug1: Reading configuration data
 * FILE", readconf.c; FILE cut at 200 characters there), the temporary
 * -F file left out, into sv. */
static int files_read(struct remote_strv *sv, const char *err,
		      const char *skip)
{
	static const char key[] = "debug1: Reading configuration data ";

	for (const char *p = err; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);

		if (n > sizeof key - 1 &&
		    strncmp(p, key, sizeof key - 1) == 0) {
			char *f = strndup(p + sizeof key - 1,
					  n - (sizeof key - 1));

			if (!f)
				return -1;
			f[strcspn(f, "\r")] = '\0';
			/* ssh reads the files again for a second pass
			 * (Match final, CanonicalizeHostname): once each. */
			if ((!skip || strcmp(f, skip) != 0) &&
			    !strv_has(sv, f) && strv_push(sv, f) != 0) {
				free(f);
				return -1;
			}
			free(f);
		}
		p = eol ? eol + 1 : NULL;
	}
	return 0;
}

static enum bf_err resolve_ssh(struct remote_config *cfg, const char *ssh,
			       const char *target, const char *user, int port,
			       const char *ssh_config, const char *home,
			       int timeout_s, const atomic_int *cancel,
			       int *no_client, char *detail,
			       size_t detail_len)
{
	struct remote_config made = { 0 };
	char *argv[16];
	char portbuf[16], *why, ver[128];
	struct remote_capture c = { 0 };
	const char *file;
	int n = 0;
	enum bf_err e;

	/* The -F file is made before ssh runs and kept in cfg after. */
	e = ssh_file_for(&made, ssh_config, home, detail, detail_len);
	if (e != BF_OK)
		return e;
	file = made.ssh_file;
	argv[n++] = (char *)ssh;
	argv[n++] = (char *)"-G";
	argv[n++] = (char *)"-v";
	if (file) {
		argv[n++] = (char *)"-F";
		argv[n++] = (char *)file;
	}
	if (user) {
		argv[n++] = (char *)"-l";
		argv[n++] = (char *)user;
	}
	if (port) {
		snprintf(portbuf, sizeof portbuf, "%d", port);
		argv[n++] = (char *)"-p";
		argv[n++] = portbuf;
	}
	argv[n++] = (char *)"--";
	argv[n++] = (char *)target;
	argv[n] = NULL;
	e = remote_capture_run(argv, remote_mono_ms() +
			       (int64_t)timeout_s * 1000, cancel,
			       G_OUT_MAX_BYTES, G_ERR_MAX_BYTES, &c);
	if (e == BF_ERR_NOT_FOUND) {
		*no_client = 1;
		e = bf_fail(detail, detail_len, e, "%s: %s", ssh,
			    strerror(c.spawn_errno));
		goto done;
	}
	if (e == BF_ERR_TIMEOUT || e == BF_ERR_INTERRUPTED) {
		e = bf_fail(detail, detail_len, e, "resolve %s: ssh -G %s",
			    target, e == BF_ERR_TIMEOUT ?
			    "did not finish in time" : "interrupted");
		goto done;
	}
	if (e == BF_ERR_NOMEM) {
		e = bf_fail(detail, detail_len, e, "resolve %s: out of memory",
			    target);
		goto done;
	}
	if (e != BF_OK) {
		e = bf_fail(detail, detail_len, e, "resolve %s: %s", target,
			    strerror(c.spawn_errno));
		goto done;
	}
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
		why = own_lines(c.err ? c.err : "");
		e = bf_fail(detail, detail_len, BF_ERR_USAGE,
			    "host '%s': ssh -G refuses it: %s", target,
			    why[0] ? why : "no reason given");
		free(why);
		goto done;
	}
	e = remote_config_parse_g(cfg, target, c.out ? c.out : "", home,
				  detail, detail_len);
	if (e != BF_OK)
		goto done;
	client_version(ssh, ver, sizeof ver);
	cfg->ssh_file = made.ssh_file;
	cfg->ssh_file_is_temp = made.ssh_file_is_temp;
	made.ssh_file = NULL;
	if (asprintf(&cfg->resolver, "ssh -G (%s)", ver[0] ? ver : ssh) < 0 ||
	    (ssh_config && !(cfg->config_file = strdup(ssh_config))) ||
	    files_read(&cfg->config_files, c.err,
		       cfg->ssh_file_is_temp ? cfg->ssh_file : NULL) != 0) {
		e = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			    "resolve %s: out of memory", target);
		remote_config_clear(cfg);
	}
done:
	remote_config_clear(&made);
	remote_capture_free(&c);
	return e;
}

enum bf_err remote_config_resolve(struct remote_config *cfg,
				  const char *target, const char *user,
				  int port, const char *ssh_config,
				  int timeout_s, const atomic_int *cancel,
				  char *detail, size_t detail_len)
{
	const char *ssh = getenv(REMOTE_SSH_CLIENT_ENV);
	char home[4096], *why;
	int no_client = 0, n;
	enum bf_err e;

	memset(cfg, 0, sizeof *cfg);
	if (remote_home_dir(home, sizeof home) != 0)
		home[0] = '\0';
	if (ssh_config && access(ssh_config, R_OK) != 0)
		return bf_fail(detail, detail_len, errno == ENOENT ?
			       BF_ERR_NOT_FOUND : BF_ERR_IO,
			       "ssh config %s: %s", ssh_config,
			       strerror(errno));
	if (!ssh || !*ssh)
		ssh = "ssh";
	if (strcmp(ssh, "none") == 0) {
		why = bf_xasprintf("%s=none", REMOTE_SSH_CLIENT_ENV);
	} else {
		/* ssh -G's reason straight into detail; without a client,
		 * why it is missing goes into cfg->resolver. */
		e = resolve_ssh(cfg, ssh, target, user, port, ssh_config, home,
				timeout_s > 0 ? timeout_s : 30, cancel,
				&no_client, detail, detail_len);
		if (!no_client)
			return e;
		why = bf_xstrdup(detail);
		if (detail_len)
			detail[0] = '\0';
	}
	{
		struct remote_strv files = { 0 };
		char *text = NULL;

		e = remote_config_read(target, user, port, ssh_config, home,
				       &text, &files, detail, detail_len);
		if (e == BF_OK)
			e = remote_config_parse_g(cfg, target, text, home,
						  detail, detail_len);
		free(text);
		if (e != BF_OK) {
			strv_clear(&files);
			free(why);
			return e;
		}
		cfg->config_files = files;
	}
	n = asprintf(&cfg->resolver, "ctl's ssh_config reader (no OpenSSH "
		     "client: %s; reads what ctl uses as OpenSSH 9.2 does, "
		     "refuses Match exec)", why);
	free(why);
	if (n < 0 ||
	    (ssh_config && !(cfg->config_file = strdup(ssh_config))) ||
	    (ssh_config && !(cfg->ssh_file = strdup(ssh_config)))) {
		remote_config_clear(cfg);
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "resolve %s: out of memory", target);
	}
	return BF_OK;
}

/* ---- printing ----------------------------------------------------------- */

static void print_list(FILE *f, const char *key,
		       const struct remote_strv *sv)
{
	fprintf(f, "%s", key);
	for (size_t i = 0; i < sv->n; i++)
		fprintf(f, " %s", sv->v[i]);
	fprintf(f, "%s\n", sv->n ? "" : " none");
}

void remote_config_print(const struct remote_config *cfg, void *file)
{
	FILE *f = file;

	fprintf(f, "host %s\n", cfg->alias);
	fprintf(f, "resolver %s\n", cfg->resolver ? cfg->resolver : "?");
	fprintf(f, "config %s\n", cfg->config_file ? cfg->config_file :
		"default (~/.ssh/config, /etc/ssh/ssh_config)");
	print_list(f, "configfiles", &cfg->config_files);
	fprintf(f, "user %s\n", cfg->user);
	fprintf(f, "hostname %s\n", cfg->hostname);
	fprintf(f, "port %d\n", cfg->port);
	print_list(f, "identityfile", &cfg->identity_files);
	fprintf(f, "identitiesonly %s\n", cfg->identities_only ? "yes" : "no");
	fprintf(f, "identityagent %s\n", cfg->identity_agent ?
		cfg->identity_agent : "SSH_AUTH_SOCK");
	print_list(f, "userknownhostsfile", &cfg->user_known_hosts);
	print_list(f, "globalknownhostsfile", &cfg->global_known_hosts);
	fprintf(f, "hashknownhosts %s\n", cfg->hash_known_hosts ? "yes" :
		"no");
	fprintf(f, "hostkeyalias %s\n", cfg->host_key_alias ?
		cfg->host_key_alias : "none");
	fprintf(f, "proxyjump %s\n", cfg->proxy_jump ? cfg->proxy_jump :
		"none");
	fprintf(f, "proxycommand %s\n", cfg->proxy_command ?
		cfg->proxy_command : "none");
	if (cfg->connect_timeout_s)
		fprintf(f, "connecttimeout %d\n", cfg->connect_timeout_s);
	else
		fprintf(f, "connecttimeout none\n");
	fprintf(f, "serveraliveinterval %d\n", cfg->server_alive_interval_s);
	fprintf(f, "serveralivecountmax %d\n", cfg->server_alive_count_max);
	fprintf(f, "stricthostkeychecking %s\n",
		cfg->strict_host_key_checking);
	fprintf(f, "batchmode %s\n", cfg->batch_mode ? "yes" : "no");
}
