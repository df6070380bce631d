/*
 * remote_ssh: one SSH session to one host through libssh 0.10 (see
 * remote_ssh.h for the contract). Everything except SFTP runs with the
 * session in nonblocking mode, driven by short waits on the session's socket
 * (REMOTE_SLICE_MS), so that the cancel flag, the connect deadline and the
 * silence timeout are checked between them; libssh's own blocking timeouts
 * are not relied on. Liveness while a command is quiet is probed with a
 * global request the server must answer (cancel-tcpip-forward for a
 * forwarding that does not exist: OpenSSH answers "failure"), because a
 * stopped sshd still has its TCP segments ACKed by the kernel.
 *
 * SFTP in libssh 0.10 is blocking only and ignores the session timeout, so
 * each SFTP request is bracketed by a watchdog thread that shutdown()s the
 * session's socket when the request runs past timeout_s or the cancel flag
 * is set. The watchdog touches nothing but that file descriptor (never
 * close(), never libssh: the session belongs to the calling thread).
 */
#include "remote_ssh.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include "linesplit.h"

/* Longest single wait before the cancel flag and deadlines are checked
 * again: keeps cancellation well inside the promised ~100 ms. */
#define REMOTE_SLICE_MS 50
/* Liveness probes go out after a quarter of the timeout without a sign of
 * life, clamped so that short timeouts still leave the server time to
 * answer and long ones do not let a dead host go unnoticed for minutes. */
#define REMOTE_PROBE_MIN_MS 250
#define REMOTE_PROBE_MAX_MS 5000
/* SFTP write size: 32 KiB is what OpenSSH's sftp client uses and fits in
 * one SSH packet; with TCP_NODELAY it runs at ~100 MB/s on loopback. */
#define REMOTE_SFTP_CHUNK_BYTES (32 * 1024)
#define REMOTE_READ_CHUNK_BYTES (32 * 1024)
#define REMOTE_SYSTEM_SSH_CONFIG "/etc/ssh/ssh_config"

enum watchdog_fired {
	WATCHDOG_NONE = 0,
	WATCHDOG_TIMEOUT,
	WATCHDOG_CANCEL,
};

/* Guards one blocking SFTP request at a time; see the file comment. */
struct watchdog {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int sync_ready;       /* mu and cv initialised */
	int running;          /* thread started */
	int quit;
	int armed;            /* a request is in flight */
	int64_t deadline_ms;  /* CLOCK_MONOTONIC */
	int fd;
	enum watchdog_fired fired;
	volatile sig_atomic_t *cancel;
};

struct remote {
	ssh_session session;
	sftp_session sftp;          /* opened on first SFTP use */
	char *name;                 /* opts->host as given, for messages */
	char *known_hosts;          /* the file checked, for messages */
	char fingerprint[128];
	int timeout_s;
	volatile sig_atomic_t *cancel;
	int key_added;
	int probe_pending;          /* a liveness probe awaits its answer */
	/* BF_OK while usable; otherwise why not (the socket is shut down). */
	enum bf_err broken;
	int fd;
	struct watchdog wd;

	/* per-command buffers, kept between commands */
	char *err_tail;             /* REMOTE_STDERR_TAIL_BYTES + 1 */
	size_t err_len;
	struct linesplit lines;     /* stdout, split into lines */
	char read_buf[REMOTE_READ_CHUNK_BYTES];
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The flag is set from a signal handler or another thread: read it
 * atomically (a plain read of a volatile is a data race to C11 and TSan). */
static int flag_set(volatile sig_atomic_t *flag)
{
	return flag && __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
}

static int cancelled(const struct remote *r)
{
	return flag_set(r->cancel);
}

/* The session cannot be trusted any more (timed out, interrupted in the
 * middle of a request): shut its socket so that nothing later (freeing
 * channels, disconnect) can block on it. */
static void mark_broken(struct remote *r, enum bf_err why)
{
	if (r->broken == BF_OK)
		r->broken = why;
	if (r->fd >= 0)
		shutdown(r->fd, SHUT_RDWR);
}

static enum bf_err check_usable(const struct remote *r, const char *what,
				char *detail, size_t detail_len)
{
	if (r->broken == BF_OK)
		return BF_OK;
	return bf_fail(detail, detail_len, BF_ERR_CONNECT,
		       "%s on %s: session unusable after an earlier error (%s)",
		       what, r->name, bf_err_str(r->broken));
}

/* Waits at most ms for the session's socket to become readable (or
 * writable, when libssh has output queued). */
static void io_wait(struct remote *r, int64_t ms)
{
	struct pollfd p;
	socket_t fd;

	if (ms <= 0)
		return;
	fd = ssh_get_fd(r->session);
	if (fd == SSH_INVALID_SOCKET) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		return;
	}
#ifdef TCP_QUICKACK
	{
		/* sshd leaves Nagle on for sessions without a pty, so its
		 * second small packet in a row waits for our ACK, which Linux
		 * delays by ~40 ms unless told not to. The flag does not
		 * stick, hence before every wait; it fails harmlessly on a
		 * ProxyCommand's socketpair. Measured here: connect + first
		 * exec 80 ms -> 33 ms. */
		int one = 1;

		(void)setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one,
				 sizeof one);
	}
#endif
	p.fd = fd;
	p.events = POLLIN;
	p.revents = 0;
	if (ssh_get_poll_flags(r->session) & SSH_WRITE_PENDING)
		p.events |= POLLOUT;
	(void)poll(&p, 1, (int)ms);
}

/* One wait inside a nonblocking operation that must finish by deadline_ms:
 * BF_OK to try the operation again, else BF_ERR_INTERRUPTED or
 * BF_ERR_TIMEOUT (detail not written: the caller knows what it waited for). */
static enum bf_err wait_step(struct remote *r, int64_t deadline_ms)
{
	int64_t left;

	if (cancelled(r))
		return BF_ERR_INTERRUPTED;
	left = deadline_ms - mono_ms();
	if (left <= 0)
		return BF_ERR_TIMEOUT;
	io_wait(r, left < REMOTE_SLICE_MS ? left : REMOTE_SLICE_MS);
	return BF_OK;
}

/* ---- watchdog ----------------------------------------------------------- */

static void *watchdog_main(void *arg)
{
	struct watchdog *wd = arg;

	pthread_mutex_lock(&wd->mu);
	while (!wd->quit) {
		int64_t now, wake;
		struct timespec ts;

		if (!wd->armed) {
			pthread_cond_wait(&wd->cv, &wd->mu);
			continue;
		}
		now = mono_ms();
		if (flag_set(wd->cancel))
			wd->fired = WATCHDOG_CANCEL;
		else if (now >= wd->deadline_ms)
			wd->fired = WATCHDOG_TIMEOUT;
		if (wd->fired != WATCHDOG_NONE) {
			/* Unblocks the owner's read/write with an error; the fd
			 * stays open and is closed by the owner (ssh_free). */
			shutdown(wd->fd, SHUT_RDWR);
			wd->armed = 0;
			continue;
		}
		wake = wd->deadline_ms;
		if (wd->cancel && wake > now + REMOTE_SLICE_MS)
			wake = now + REMOTE_SLICE_MS;
		ts.tv_sec = wake / 1000;
		ts.tv_nsec = (wake % 1000) * 1000000;
		pthread_cond_timedwait(&wd->cv, &wd->mu, &ts);
	}
	pthread_mutex_unlock(&wd->mu);
	return NULL;
}

static int watchdog_init(struct watchdog *wd)
{
	pthread_condattr_t ca;

	if (pthread_mutex_init(&wd->mu, NULL) != 0)
		return -1;
	if (pthread_condattr_init(&ca) != 0) {
		pthread_mutex_destroy(&wd->mu);
		return -1;
	}
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_cond_init(&wd->cv, &ca) != 0) {
		pthread_condattr_destroy(&ca);
		pthread_mutex_destroy(&wd->mu);
		return -1;
	}
	pthread_condattr_destroy(&ca);
	wd->sync_ready = 1;
	return 0;
}

/* Starts guarding a blocking request on r's socket. Returns BF_OK, or an
 * error when the watchdog thread cannot be started (then nothing is
 * armed and the request must not be made). */
static enum bf_err watchdog_arm(struct remote *r, char *detail,
				size_t detail_len)
{
	struct watchdog *wd = &r->wd;
	int rc;

	pthread_mutex_lock(&wd->mu);
	if (!wd->running) {
		rc = pthread_create(&wd->thread, NULL, watchdog_main, wd);
		if (rc != 0) {
			pthread_mutex_unlock(&wd->mu);
			return bf_fail(detail, detail_len, BF_ERR_NOMEM,
				       "sftp on %s: cannot start watchdog: %s",
				       r->name, strerror(rc));
		}
		wd->running = 1;
	}
	wd->fd = r->fd;
	wd->cancel = r->cancel;
	wd->deadline_ms = mono_ms() + (int64_t)r->timeout_s * 1000;
	wd->fired = WATCHDOG_NONE;
	wd->armed = 1;
	pthread_cond_signal(&wd->cv);
	pthread_mutex_unlock(&wd->mu);
	return BF_OK;
}

/* Stops guarding; returns whether (and why) the watchdog cut the socket. */
static enum watchdog_fired watchdog_disarm(struct remote *r)
{
	enum watchdog_fired fired;

	pthread_mutex_lock(&r->wd.mu);
	r->wd.armed = 0;
	fired = r->wd.fired;
	r->wd.fired = WATCHDOG_NONE;
	pthread_mutex_unlock(&r->wd.mu);
	return fired;
}

static void watchdog_stop(struct watchdog *wd)
{
	if (!wd->sync_ready)
		return;
	if (wd->running) {
		pthread_mutex_lock(&wd->mu);
		wd->quit = 1;
		pthread_cond_signal(&wd->cv);
		pthread_mutex_unlock(&wd->mu);
		pthread_join(wd->thread, NULL);
		wd->running = 0;
	}
	pthread_cond_destroy(&wd->cv);
	pthread_mutex_destroy(&wd->mu);
	wd->sync_ready = 0;
}

/* ---- connect ------------------------------------------------------------ */

/* Splits [user@]host[:port] ("[v6addr]:port" for IPv6 with a port). Outputs
 * are caller frees; *user may be NULL, *port 0 when absent. */
static enum bf_err parse_target(const char *spec, char **user, char **host,
				int *port, char *detail, size_t detail_len)
{
	const char *at = strrchr(spec, '@');
	const char *h = at ? at + 1 : spec;
	const char *port_str = NULL;
	size_t hlen;

	*user = NULL;
	*host = NULL;
	*port = 0;
	if (at == spec || *h == '\0')
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "host '%s': empty user or host name", spec);
	if (*h == '[') {
		const char *close = strchr(h, ']');

		if (!close || close == h + 1 ||
		    (close[1] != '\0' && close[1] != ':'))
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "host '%s': bad [address]", spec);
		hlen = (size_t)(close - h - 1);
		h++;
		if (close[1] == ':')
			port_str = close + 2;
	} else {
		const char *colon = strchr(h, ':');

		/* More than one colon and no brackets: a bare IPv6 address. */
		if (colon && !strchr(colon + 1, ':')) {
			hlen = (size_t)(colon - h);
			port_str = colon + 1;
		} else {
			hlen = strlen(h);
		}
	}
	if (hlen == 0)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "host '%s': empty host name", spec);
	if (port_str) {
		char *end;
		long p;

		errno = 0;
		p = strtol(port_str, &end, 10);
		if (*port_str == '\0' || *end != '\0' || errno || p < 1 ||
		    p > 65535)
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "host '%s': port must be 1-65535", spec);
		*port = (int)p;
	}
	*host = strndup(h, hlen);
	if (at)
		*user = strndup(spec, (size_t)(at - spec));
	if (!*host || (at && !*user)) {
		free(*host);
		free(*user);
		*host = *user = NULL;
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "host '%s': out of memory", spec);
	}
	return BF_OK;
}

/* "~/.ssh" with ~ = $HOME when set (so tests and wrappers can point HOME
 * elsewhere; libssh itself would use the passwd entry), into buf. */
static int user_ssh_dir(char *buf, size_t size)
{
	const char *home = getenv("HOME");

	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : NULL;
	}
	if (!home)
		return -1;
	return snprintf(buf, size, "%s/.ssh", home) < (int)size ? 0 : -1;
}

static enum bf_err configure(struct remote *r, const struct remote_opts *opts,
			     const char *user, const char *host, int port,
			     char *detail, size_t detail_len)
{
	ssh_session s = r->session;
	char dir[4096], path[4200];
	long timeout = r->timeout_s;
	int on = 1;
	int off = 0;

	if (user_ssh_dir(dir, sizeof dir) != 0)
		dir[0] = '\0';   /* no home: libssh's defaults, no user config */
	else if (ssh_options_set(s, SSH_OPTIONS_SSH_DIR, dir) != SSH_OK)
		goto fail;
	/* HOST first: config Host blocks are matched against it. */
	if (ssh_options_set(s, SSH_OPTIONS_HOST, host) != SSH_OK)
		goto fail;
	if (opts->ssh_config) {
		/* libssh silently accepts a missing file; ssh -F does not. */
		if (access(opts->ssh_config, R_OK) != 0)
			return bf_fail(detail, detail_len,
				       errno == ENOENT ? BF_ERR_NOT_FOUND :
				       BF_ERR_IO, "ssh config %s: %s",
				       opts->ssh_config, strerror(errno));
		if (ssh_options_parse_config(s, opts->ssh_config) != 0)
			return bf_fail(detail, detail_len, BF_ERR_PARSE,
				       "ssh config %s: %s", opts->ssh_config,
				       ssh_get_error(s));
	} else {
		snprintf(path, sizeof path, "%s/config", dir);
		if (dir[0] && access(path, R_OK) == 0 &&
		    ssh_options_parse_config(s, path) != 0)
			return bf_fail(detail, detail_len, BF_ERR_PARSE,
				       "ssh config %s: %s", path,
				       ssh_get_error(s));
		if (access(REMOTE_SYSTEM_SSH_CONFIG, R_OK) == 0 &&
		    ssh_options_parse_config(s, REMOTE_SYSTEM_SSH_CONFIG) != 0)
			return bf_fail(detail, detail_len, BF_ERR_PARSE,
				       "ssh config %s: %s",
				       REMOTE_SYSTEM_SSH_CONFIG,
				       ssh_get_error(s));
	}
	/* The files above are all; ssh_connect must not read ~/.ssh/config
	 * (by libssh's idea of ~) on its own. */
	if (ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &off) != SSH_OK)
		goto fail;
	/* Set after the config so that they win over it, like ssh -l / -p. */
	if (user && ssh_options_set(s, SSH_OPTIONS_USER, user) != SSH_OK)
		goto fail;
	if (port && ssh_options_set(s, SSH_OPTIONS_PORT, &port) != SSH_OK)
		goto fail;
	if (opts->known_hosts &&
	    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, opts->known_hosts) !=
	    SSH_OK)
		goto fail;
	/* Bounds libssh's blocking calls (SFTP setup); our own loops do the
	 * rest. NODELAY: without it auth and SFTP writes crawl (Nagle). */
	if (ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout) != SSH_OK ||
	    ssh_options_set(s, SSH_OPTIONS_NODELAY, &on) != SSH_OK)
		goto fail;
	return BF_OK;
fail:
	return bf_fail(detail, detail_len, BF_ERR_USAGE, "connect %s: %s",
		       r->name, ssh_get_error(s));
}

static enum bf_err connect_wait_error(struct remote *r, enum bf_err err,
				      const char *phase, char *detail,
				      size_t detail_len)
{
	if (err == BF_ERR_INTERRUPTED)
		return bf_fail(detail, detail_len, err, "%s %s: interrupted",
			       phase, r->name);
	return bf_fail(detail, detail_len, err,
		       "%s %s: no answer within %d s", phase, r->name,
		       r->timeout_s);
}

static enum bf_err check_host_key(struct remote *r, int accept_new,
				  char *detail, size_t detail_len)
{
	ssh_session s = r->session;
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hash_len = 0;
	char *fp = NULL;
	char *kh = NULL;
	const char *type;
	enum ssh_known_hosts_e state;
	enum bf_err err = BF_OK;

	if (ssh_get_server_publickey(s, &key) != SSH_OK ||
	    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash,
				   &hash_len) != 0) {
		err = bf_fail(detail, detail_len, BF_ERR_CONNECT,
			      "host key of %s: cannot read it: %s", r->name,
			      ssh_get_error(s));
		goto out;
	}
	fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash,
				      hash_len);
	if (!fp) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host key of %s: out of memory", r->name);
		goto out;
	}
	snprintf(r->fingerprint, sizeof r->fingerprint, "%s", fp);
	type = ssh_key_type_to_char(ssh_key_type(key));
	if (!type)
		type = "key";
	/* Expanded by ssh_connect; used only to name the file in messages. */
	if (ssh_options_get(s, SSH_OPTIONS_KNOWNHOSTS, &kh) == SSH_OK && kh) {
		r->known_hosts = strdup(kh);
		ssh_string_free_char(kh);
	}
	if (!r->known_hosts)
		r->known_hosts = strdup("known_hosts");
	if (!r->known_hosts) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host key of %s: out of memory", r->name);
		goto out;
	}

	state = ssh_session_is_known_server(s);
	switch (state) {
	case SSH_KNOWN_HOSTS_OK:
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
		err = bf_fail(detail, detail_len, BF_ERR_HOSTKEY_CHANGED,
			      "host key of %s changed: server offers %s %s, "
			      "%s holds another (possible attack; if the host "
			      "was reinstalled, remove its line with "
			      "ssh-keygen -R)", r->name, type, r->fingerprint,
			      r->known_hosts);
		break;
	case SSH_KNOWN_HOSTS_OTHER:
		err = bf_fail(detail, detail_len, BF_ERR_HOSTKEY_CHANGED,
			      "host key of %s changed: server offers %s %s, "
			      "%s holds a key of another type for it "
			      "(possible attack)", r->name, type,
			      r->fingerprint, r->known_hosts);
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:   /* also: the file does not exist */
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		if (!accept_new) {
			err = bf_fail(detail, detail_len,
				      BF_ERR_HOSTKEY_UNKNOWN,
				      "host key of %s unknown: %s %s is not in "
				      "%s; check the fingerprint, then rerun "
				      "with --accept-new-host-keys", r->name,
				      type, r->fingerprint, r->known_hosts);
			break;
		}
		if (ssh_session_update_known_hosts(s) != SSH_OK) {
			err = bf_fail(detail, detail_len, BF_ERR_IO,
				      "known_hosts %s: cannot add %s: %s",
				      r->known_hosts, r->name,
				      ssh_get_error(s));
			break;
		}
		r->key_added = 1;
		break;
	case SSH_KNOWN_HOSTS_ERROR:
	default:
		err = bf_fail(detail, detail_len, BF_ERR_IO,
			      "known_hosts %s: %s", r->known_hosts,
			      ssh_get_error(s));
		break;
	}
out:
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	return err;
}

static enum bf_err authenticate(struct remote *r, int64_t deadline_ms,
				char *detail, size_t detail_len)
{
	ssh_session s = r->session;
	const char *agent = getenv("SSH_AUTH_SOCK");
	char *user = NULL;
	enum bf_err err;
	int rc;

	/* publickey_auto tries the ssh-agent's keys first (when SSH_AUTH_SOCK
	 * or IdentityAgent names one), then IdentityFile and the default key
	 * files; encrypted key files are skipped (no passphrase prompt). */
	for (;;) {
		rc = ssh_userauth_publickey_auto(s, NULL, NULL);
		if (rc != SSH_AUTH_AGAIN)
			break;
		err = wait_step(r, deadline_ms);
		if (err != BF_OK)
			return connect_wait_error(r, err, "auth", detail,
						  detail_len);
	}
	if (rc == SSH_AUTH_SUCCESS)
		return BF_OK;
	if (rc == SSH_AUTH_ERROR)
		return bf_fail(detail, detail_len, BF_ERR_CONNECT,
			       "auth %s: %s", r->name, ssh_get_error(s));
	if (ssh_options_get(s, SSH_OPTIONS_USER, &user) != SSH_OK)
		user = NULL;
	if (rc == SSH_AUTH_PARTIAL)
		err = bf_fail(detail, detail_len, BF_ERR_AUTH,
			      "auth %s as %s: key accepted but the server "
			      "wants another method too", r->name,
			      user ? user : "?");
	else if (agent && *agent)
		err = bf_fail(detail, detail_len, BF_ERR_AUTH,
			      "auth %s as %s: no key accepted (tried the "
			      "ssh-agent, then IdentityFile or ~/.ssh/id_* key "
			      "files)", r->name, user ? user : "?");
	else
		err = bf_fail(detail, detail_len, BF_ERR_AUTH,
			      "auth %s as %s: no key accepted (tried "
			      "IdentityFile or ~/.ssh/id_* key files; no "
			      "ssh-agent: SSH_AUTH_SOCK unset)", r->name,
			      user ? user : "?");
	ssh_string_free_char(user);
	return err;
}

enum bf_err remote_connect(struct remote **out, const struct remote_opts *opts,
			   char *detail, size_t detail_len)
{
	struct remote *r = NULL;
	char *user = NULL, *host = NULL;
	int port = 0;
	int64_t deadline_ms;
	enum bf_err err;
	int rc;

	if (!out)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "connect: no output handle");
	*out = NULL;
	if (!opts || !opts->host || !*opts->host)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "connect: no host given");
	err = parse_target(opts->host, &user, &host, &port, detail,
			   detail_len);
	if (err != BF_OK)
		goto out;

	r = calloc(1, sizeof *r);
	if (r) {
		r->fd = -1;
		r->name = strdup(opts->host);
		r->err_tail = malloc(REMOTE_STDERR_TAIL_BYTES + 1);
	}
	if (!r || !r->name || !r->err_tail || watchdog_init(&r->wd) != 0) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "connect %s: out of memory", opts->host);
		goto out;
	}
	r->err_tail[0] = '\0';
	r->timeout_s = opts->timeout_s > 0 ? opts->timeout_s :
		       REMOTE_TIMEOUT_DEFAULT_S;
	r->cancel = opts->cancel;
	r->session = ssh_new();
	if (!r->session) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "connect %s: out of memory", r->name);
		goto out;
	}
	err = configure(r, opts, user, host, port, detail, detail_len);
	if (err != BF_OK)
		goto out;

	deadline_ms = mono_ms() + (int64_t)r->timeout_s * 1000;
	ssh_set_blocking(r->session, 0);
	for (;;) {
		rc = ssh_connect(r->session);
		if (rc != SSH_AGAIN)
			break;
		err = wait_step(r, deadline_ms);
		if (err != BF_OK) {
			err = connect_wait_error(r, err, "connect", detail,
						 detail_len);
			goto out;
		}
	}
	if (rc != SSH_OK) {
		err = bf_fail(detail, detail_len, BF_ERR_CONNECT,
			      "connect %s: %s", r->name,
			      ssh_get_error(r->session));
		goto out;
	}
	r->fd = ssh_get_fd(r->session);

	err = check_host_key(r, opts->accept_new_host_keys, detail,
			     detail_len);
	if (err != BF_OK)
		goto out;
	err = authenticate(r, deadline_ms, detail, detail_len);
	if (err != BF_OK)
		goto out;
	*out = r;
	r = NULL;
out:
	if (r && err != BF_OK)
		mark_broken(r, err);  /* tear down without waiting on the host */
	remote_free(r);
	free(user);
	free(host);
	return err;
}

const char *remote_fingerprint(const struct remote *r)
{
	return r ? r->fingerprint : "";
}

int remote_host_key_added(const struct remote *r)
{
	return r ? r->key_added : 0;
}

/* ---- exec --------------------------------------------------------------- */

struct exec_state {
	struct remote *r;
	const struct remote_exec_cb *cb;
	struct remote_exec_result *res;
	int got_status;
	int got_signal;
};

static void on_exit_status(ssh_session s, ssh_channel ch, int status,
			   void *userdata)
{
	struct exec_state *st = userdata;

	(void)s;
	(void)ch;
	st->got_status = 1;
	st->res->exit_status = status;
}

static void on_exit_signal(ssh_session s, ssh_channel ch, const char *sig,
			   int core, const char *errmsg, const char *lang,
			   void *userdata)
{
	struct exec_state *st = userdata;

	(void)s;
	(void)ch;
	(void)errmsg;
	(void)lang;
	st->got_signal = 1;
	st->res->exit_status = -1;
	snprintf(st->res->exit_signal, sizeof st->res->exit_signal, "%s",
		 sig ? sig : "?");
	st->res->core_dumped = core != 0;
}

/* Keeps the last REMOTE_STDERR_TAIL_BYTES bytes. */
static void stderr_append(struct remote *r, const char *p, size_t n)
{
	const size_t cap = REMOTE_STDERR_TAIL_BYTES;

	if (n >= cap) {
		memcpy(r->err_tail, p + (n - cap), cap);
		r->err_len = cap;
	} else {
		if (r->err_len + n > cap) {
			size_t drop = r->err_len + n - cap;

			memmove(r->err_tail, r->err_tail + drop,
				r->err_len - drop);
			r->err_len -= drop;
		}
		memcpy(r->err_tail + r->err_len, p, n);
		r->err_len += n;
	}
	r->err_tail[r->err_len] = '\0';
}

/* One stdout line from the splitter: counted, then to the caller. */
static enum bf_err exec_line(void *arg, const char *line, size_t len,
			     int cut)
{
	struct exec_state *st = arg;

	st->res->lines++;
	if (cut)
		st->res->lines_truncated++;
	if (st->cb && st->cb->on_line)
		return st->cb->on_line(st->cb->arg, line, len, cut);
	return BF_OK;
}

static enum bf_err stdout_feed(struct exec_state *st, const char *p, size_t n)
{
	st->res->stdout_total_bytes += n;
	return linesplit_feed(&st->r->lines, p, n, exec_line, st);
}

/* How long silence may last before a liveness probe goes out. */
static int64_t probe_after_ms(const struct remote *r)
{
	int64_t ms = (int64_t)r->timeout_s * 1000 / 4;

	if (ms < REMOTE_PROBE_MIN_MS)
		ms = REMOTE_PROBE_MIN_MS;
	if (ms > REMOTE_PROBE_MAX_MS)
		ms = REMOTE_PROBE_MAX_MS;
	return ms;
}

/* Sends a liveness probe or collects its answer. Returns 1 when an answer
 * (any answer) has arrived since the last call, else 0. */
static int probe(struct remote *r, int64_t silent_ms)
{
	int rc;

	if (!r->probe_pending && silent_ms < probe_after_ms(r))
		return 0;
	/* A global request OpenSSH must answer; with one pending, the same
	 * call only checks for the answer (libssh keeps one in flight). */
	rc = ssh_channel_cancel_forward(r->session, "", 0);
	if (rc == SSH_AGAIN) {
		r->probe_pending = 1;
		return 0;
	}
	r->probe_pending = 0;
	/* SSH_ERROR is the expected "request denied"; a dead connection
	 * shows as not connected. */
	return ssh_is_connected(r->session) ? 1 : 0;
}

static enum bf_err lost(struct remote *r, const char *what, char *detail,
			size_t detail_len)
{
	mark_broken(r, BF_ERR_CONNECT);
	return bf_fail(detail, detail_len, BF_ERR_CONNECT,
		       "%s on %s: connection lost: %s", what, r->name,
		       ssh_get_error(r->session));
}

/* Reads one stream until nothing is buffered. *eof is set at its end. */
static enum bf_err drain(struct exec_state *st, ssh_channel ch, int is_stderr,
			 int *eof, int64_t *last_alive_ms, char *detail,
			 size_t detail_len)
{
	struct remote *r = st->r;
	char *buf = r->read_buf;
	enum bf_err err;
	int n;

	for (;;) {
		n = ssh_channel_read_nonblocking(ch, buf, sizeof r->read_buf,
						 is_stderr);
		if (n == SSH_EOF) {
			*eof = 1;
			return BF_OK;
		}
		if (n == SSH_ERROR)
			return lost(r, "exec", detail, detail_len);
		if (n == 0)
			return BF_OK;
		*last_alive_ms = mono_ms();
		if (is_stderr) {
			st->res->stderr_total_bytes += (unsigned)n;
			stderr_append(r, buf, (size_t)n);
			continue;
		}
		err = stdout_feed(st, buf, (size_t)n);
		if (err == BF_ERR_NOMEM)
			return bf_fail(detail, detail_len, err,
				       "exec on %s: out of memory", r->name);
		if (err != BF_OK)
			return bf_fail(detail, detail_len, err,
				       "exec on %s: stopped by the output "
				       "handler (%s)", r->name,
				       bf_err_str(err));
	}
}

static enum bf_err exec_loop(struct exec_state *st, ssh_channel ch,
			     char *detail, size_t detail_len)
{
	struct remote *r = st->r;
	int64_t last_alive_ms = mono_ms();
	int64_t now;
	int out_eof = 0, err_eof = 0;
	enum bf_err err;

	for (;;) {
		/* Process whatever arrived: channel data, exit-status, close
		 * (reads alone stop processing packets after EOF). */
		(void)ssh_channel_get_exit_status(ch);
		if (!ssh_is_connected(r->session))
			return lost(r, "exec", detail, detail_len);
		err = drain(st, ch, 0, &out_eof, &last_alive_ms, detail,
			    detail_len);
		if (err == BF_OK)
			err = drain(st, ch, 1, &err_eof, &last_alive_ms,
				    detail, detail_len);
		if (err != BF_OK)
			return err;
		if (out_eof && ssh_channel_is_eof(ch) &&
		    (st->got_status || st->got_signal ||
		     ssh_channel_is_closed(ch)))
			break;
		if (cancelled(r))
			return bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
				       "exec on %s: interrupted", r->name);
		now = mono_ms();
		if (probe(r, now - last_alive_ms))
			last_alive_ms = now;
		if (now - last_alive_ms >= (int64_t)r->timeout_s * 1000) {
			mark_broken(r, BF_ERR_TIMEOUT);
			return bf_fail(detail, detail_len, BF_ERR_TIMEOUT,
				       "exec on %s: ssh server silent for %d s",
				       r->name, r->timeout_s);
		}
		io_wait(r, REMOTE_SLICE_MS);
	}
	/* A last line without '\n'. */
	err = linesplit_finish(&r->lines, exec_line, st);
	if (err != BF_OK) {
			return bf_fail(detail, detail_len, err,
				       "exec on %s: stopped by the output "
				       "handler (%s)", r->name,
				       bf_err_str(err));
	}
	if (!st->got_status && !st->got_signal)
		return bf_fail(detail, detail_len, BF_ERR_REMOTE,
			       "exec on %s: channel closed without an exit "
			       "status", r->name);
	return BF_OK;
}

/* Runs a nonblocking channel step to completion within timeout_s. */
static enum bf_err channel_step(struct remote *r, ssh_channel ch,
				const char *command, char *detail,
				size_t detail_len)
{
	int64_t deadline_ms = mono_ms() + (int64_t)r->timeout_s * 1000;
	const char *what = command ? "run the command" : "open a channel";
	enum bf_err err;
	int rc;

	for (;;) {
		rc = command ? ssh_channel_request_exec(ch, command) :
		     ssh_channel_open_session(ch);
		if (rc != SSH_AGAIN)
			break;
		err = wait_step(r, deadline_ms);
		if (err == BF_ERR_TIMEOUT) {
			mark_broken(r, err);
			return bf_fail(detail, detail_len, err,
				       "exec on %s: no answer within %d s",
				       r->name, r->timeout_s);
		}
		if (err != BF_OK)
			return bf_fail(detail, detail_len, err,
				       "exec on %s: interrupted", r->name);
	}
	if (rc == SSH_OK)
		return BF_OK;
	if (!ssh_is_connected(r->session))
		return lost(r, "exec", detail, detail_len);
	return bf_fail(detail, detail_len, BF_ERR_CONNECT,
		       "exec on %s: server refused to %s: %s", r->name, what,
		       ssh_get_error(r->session));
}

enum bf_err remote_exec(struct remote *r, const char *command,
			const struct remote_exec_cb *cb,
			struct remote_exec_result *res, char *detail,
			size_t detail_len)
{
	struct exec_state st;
	struct ssh_channel_callbacks_struct ccb;
	ssh_channel ch = NULL;
	int callbacks_set = 0;
	enum bf_err err;

	if (res) {
		memset(res, 0, sizeof *res);
		res->exit_status = -1;
		res->stderr_tail = "";
	}
	if (!r || !command || !res)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "exec: missing handle, command or result");
	r->err_len = 0;
	r->err_tail[0] = '\0';
	res->stderr_tail = r->err_tail;
	err = check_usable(r, "exec", detail, detail_len);
	if (err != BF_OK)
		return err;

	memset(&st, 0, sizeof st);
	st.r = r;
	st.cb = cb;
	st.res = res;
	linesplit_reset(&r->lines, cb && cb->line_max_bytes ?
			cb->line_max_bytes : REMOTE_LINE_MAX_BYTES);

	ssh_set_blocking(r->session, 0);
	ch = ssh_channel_new(r->session);
	if (!ch) {
		err = ssh_is_connected(r->session) ?
		      bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "exec on %s: cannot create a channel", r->name) :
		      lost(r, "exec", detail, detail_len);
		goto out;
	}
	memset(&ccb, 0, sizeof ccb);
	ccb.userdata = &st;
	ccb.channel_exit_status_function = on_exit_status;
	ccb.channel_exit_signal_function = on_exit_signal;
	ssh_callbacks_init(&ccb);
	if (ssh_set_channel_callbacks(ch, &ccb) == SSH_OK)
		callbacks_set = 1;

	err = channel_step(r, ch, NULL, detail, detail_len);
	if (err == BF_OK)
		err = channel_step(r, ch, command, detail, detail_len);
	if (err != BF_OK)
		goto out;
	/* Nothing to send: a command that reads stdin sees end of file. */
	if (ssh_channel_send_eof(ch) == SSH_ERROR &&
	    !ssh_is_connected(r->session)) {
		err = lost(r, "exec", detail, detail_len);
		goto out;
	}
	err = exec_loop(&st, ch, detail, detail_len);
out:
	if (ch) {
		/* Stop the command if it may still run: SIGTERM to its
		 * process group (sshd honours it for non-root logins), then
		 * close, without waiting for the server to confirm. */
		if (err != BF_OK && r->broken == BF_OK &&
		    ssh_channel_is_open(ch)) {
			ssh_channel_request_send_signal(ch, "TERM");
			ssh_channel_close(ch);
		}
		/* Late packets for this channel must not reach st. */
		if (callbacks_set)
			ssh_remove_channel_callbacks(ch, &ccb);
		ssh_channel_free(ch);
	}
	res->stderr_tail = r->err_tail;
	res->stderr_tail_bytes = r->err_len;
	return err;
}

/* ---- SFTP --------------------------------------------------------------- */

/* Turns a watchdog firing into the error of the request it cut short. */
static enum bf_err sftp_cut(struct remote *r, enum watchdog_fired fired,
			    const char *what, const char *path, char *detail,
			    size_t detail_len)
{
	enum bf_err err = fired == WATCHDOG_CANCEL ? BF_ERR_INTERRUPTED :
			  BF_ERR_TIMEOUT;

	mark_broken(r, err);
	if (err == BF_ERR_INTERRUPTED)
		return bf_fail(detail, detail_len, err, "%s %s:%s: interrupted",
			       what, r->name, path);
	return bf_fail(detail, detail_len, err,
		       "%s %s:%s: no answer within %d s", what, r->name, path,
		       r->timeout_s);
}

static enum bf_err sftp_error(struct remote *r, const char *what,
			      const char *path, char *detail,
			      size_t detail_len)
{
	int code = r->sftp ? sftp_get_error(r->sftp) : -1;

	if (!ssh_is_connected(r->session)) {
		mark_broken(r, BF_ERR_CONNECT);
		return bf_fail(detail, detail_len, BF_ERR_CONNECT,
			       "%s %s:%s: connection lost: %s", what, r->name,
			       path, ssh_get_error(r->session));
	}
	switch (code) {
	case SSH_FX_NO_SUCH_FILE:
	case SSH_FX_NO_SUCH_PATH:
		return bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			       "%s %s:%s: no such file or directory", what,
			       r->name, path);
	case SSH_FX_PERMISSION_DENIED:
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "%s %s:%s: permission denied", what, r->name,
			       path);
	case SSH_FX_FILE_ALREADY_EXISTS:
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "%s %s:%s: file exists", what, r->name, path);
	default:
		return bf_fail(detail, detail_len, BF_ERR_IO, "%s %s:%s: %s",
			       what, r->name, path, ssh_get_error(r->session));
	}
}

/* Opens the SFTP subsystem on first use; leaves the session blocking (the
 * only mode SFTP supports in libssh 0.10). */
static enum bf_err sftp_ready(struct remote *r, const char *what,
			      const char *path, char *detail,
			      size_t detail_len)
{
	enum watchdog_fired fired;
	enum bf_err err;
	int rc;

	err = check_usable(r, what, detail, detail_len);
	if (err != BF_OK)
		return err;
	if (cancelled(r))
		return bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
			       "%s %s:%s: interrupted", what, r->name, path);
	ssh_set_blocking(r->session, 1);
	if (r->sftp)
		return BF_OK;
	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		return err;
	r->sftp = sftp_new(r->session);
	rc = r->sftp ? sftp_init(r->sftp) : SSH_ERROR;
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE || rc != SSH_OK) {
		int code = r->sftp ? sftp_get_error(r->sftp) : 0;

		if (r->sftp) {
			sftp_free(r->sftp);
			r->sftp = NULL;
		}
		if (fired != WATCHDOG_NONE)
			return sftp_cut(r, fired, what, path, detail,
					detail_len);
		if (!ssh_is_connected(r->session))
			return lost(r, "sftp", detail, detail_len);
		return bf_fail(detail, detail_len, BF_ERR_CONNECT,
			       "sftp on %s: server refused the subsystem "
			       "(sftp error %d): %s", r->name, code,
			       ssh_get_error(r->session));
	}
	return BF_OK;
}

enum path_kind {
	PATH_MISSING = 0,
	PATH_DIR,
	PATH_OTHER,
};

/* What is at path (one SFTP stat). */
static enum bf_err sftp_kind(struct remote *r, const char *what,
			     const char *path, enum path_kind *kind,
			     char *detail, size_t detail_len)
{
	sftp_attributes a;
	enum watchdog_fired fired;
	enum bf_err err;
	int code;

	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		return err;
	a = sftp_stat(r->sftp, path);
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE) {
		sftp_attributes_free(a);
		return sftp_cut(r, fired, what, path, detail, detail_len);
	}
	if (a) {
		*kind = a->type == SSH_FILEXFER_TYPE_DIRECTORY ? PATH_DIR :
			PATH_OTHER;
		sftp_attributes_free(a);
		return BF_OK;
	}
	code = sftp_get_error(r->sftp);
	if (code == SSH_FX_NO_SUCH_FILE || code == SSH_FX_NO_SUCH_PATH) {
		*kind = PATH_MISSING;
		return BF_OK;
	}
	return sftp_error(r, what, path, detail, detail_len);
}

/* Makes one directory; an existing directory is fine. */
static enum bf_err sftp_mkdir_one(struct remote *r, const char *path,
				  int mode, char *detail, size_t detail_len)
{
	const char *what = "mkdir";
	enum watchdog_fired fired;
	enum path_kind kind = PATH_MISSING;
	enum bf_err err, mkdir_err;
	char why[512];
	int rc;

	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		return err;
	rc = sftp_mkdir(r->sftp, path, (mode_t)(mode & 07777));
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE)
		return sftp_cut(r, fired, what, path, detail, detail_len);
	if (rc == 0)
		return BF_OK;
	/* OpenSSH reports an existing name as a generic failure: keep the
	 * mkdir error, then look at what is there. */
	mkdir_err = sftp_error(r, what, path, detail, detail_len);
	err = sftp_kind(r, what, path, &kind, why, sizeof why);
	if (err != BF_OK)
		return bf_fail(detail, detail_len, err, "%s", why);
	if (kind == PATH_DIR)
		return BF_OK;
	if (kind == PATH_OTHER)
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "%s %s:%s: exists and is not a directory", what,
			       r->name, path);
	return mkdir_err;
}

enum bf_err remote_mkdir_p(struct remote *r, const char *remote_path, int mode,
			   char *detail, size_t detail_len)
{
	const char *what = "mkdir";
	enum path_kind kind = PATH_MISSING;
	enum bf_err err;
	char *p = NULL;
	char *slash;

	if (!r || !remote_path || !*remote_path)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "mkdir: missing handle or path");
	err = sftp_ready(r, what, remote_path, detail, detail_len);
	if (err != BF_OK)
		goto out;
	/* The common case, already there, costs one request. */
	err = sftp_kind(r, what, remote_path, &kind, detail, detail_len);
	if (err != BF_OK || kind == PATH_DIR)
		goto out;
	if (kind == PATH_OTHER) {
		err = bf_fail(detail, detail_len, BF_ERR_IO,
			      "%s %s:%s: exists and is not a directory", what,
			      r->name, remote_path);
		goto out;
	}
	p = strdup(remote_path);
	if (!p) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "mkdir %s: out of memory", r->name);
		goto out;
	}
	/* Each parent in turn (skipping "/" and empty parts of "a//b"),
	 * then the path itself. */
	for (slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		if (slash[-1] == '/')
			continue;
		*slash = '\0';
		err = sftp_mkdir_one(r, p, mode, detail, detail_len);
		*slash = '/';
		if (err != BF_OK)
			goto out;
	}
	err = sftp_mkdir_one(r, p, mode, detail, detail_len);
out:
	free(p);
	if (r && r->session && r->broken == BF_OK)
		ssh_set_blocking(r->session, 0);
	return err;
}

enum bf_err remote_upload(struct remote *r, const char *remote_path,
			  const void *data, size_t len_bytes, int mode,
			  char *detail, size_t detail_len)
{
	static unsigned counter;
	const char *what = "upload";
	const char *base;
	enum watchdog_fired fired = WATCHDOG_NONE;
	enum bf_err err;
	sftp_file f = NULL;
	char *tmp = NULL;
	int tmp_exists = 0;
	size_t off = 0;
	int rc;

	if (!r || !remote_path || !*remote_path || (!data && len_bytes))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "upload: missing handle, path or data");
	base = strrchr(remote_path, '/');
	base = base ? base + 1 : remote_path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "upload %s: '%s' names no file", r->name,
			       remote_path);
	err = sftp_ready(r, what, remote_path, detail, detail_len);
	if (err != BF_OK)
		goto out;

	/* Hidden, unique temporary next to the target (same filesystem, so
	 * the rename is atomic). */
	if (asprintf(&tmp, "%.*s.%s.bf-tmp-%ld-%u",
		     (int)(base - remote_path), remote_path, base,
		     (long)getpid(),
		     __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED)) < 0) {
		tmp = NULL;
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "upload %s: out of memory", r->name);
		goto out;
	}
	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		goto out;
	/* 0600 while incomplete; the final mode is set before the rename. */
	f = sftp_open(r->sftp, tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE)
		goto cut;
	if (!f) {
		err = sftp_error(r, what, remote_path, detail, detail_len);
		goto out;
	}
	tmp_exists = 1;

	while (off < len_bytes) {
		size_t chunk = len_bytes - off;
		ssize_t n;

		if (chunk > REMOTE_SFTP_CHUNK_BYTES)
			chunk = REMOTE_SFTP_CHUNK_BYTES;
		err = watchdog_arm(r, detail, detail_len);
		if (err != BF_OK)
			goto out;
		n = sftp_write(f, (const char *)data + off, chunk);
		fired = watchdog_disarm(r);
		if (fired != WATCHDOG_NONE)
			goto cut;
		if (n <= 0) {
			err = sftp_error(r, what, remote_path, detail,
					 detail_len);
			goto out;
		}
		off += (size_t)n;
	}

	err = watchdog_arm(r, detail, detail_len);
	if (err != BF_OK)
		goto out;
	rc = sftp_close(f);
	f = NULL;
	if (rc == SSH_OK)
		rc = sftp_chmod(r->sftp, tmp, (mode_t)(mode & 07777));
	if (rc == SSH_OK) {
		rc = sftp_rename(r->sftp, tmp, remote_path);
		/* A plain SFTP v3 rename refuses an existing target: remove
		 * it and rename again. Readers see the old file or none,
		 * never a partial one. */
		if (rc != SSH_OK && ssh_is_connected(r->session) &&
		    (sftp_get_error(r->sftp) == SSH_FX_FAILURE ||
		     sftp_get_error(r->sftp) == SSH_FX_FILE_ALREADY_EXISTS) &&
		    sftp_unlink(r->sftp, remote_path) == SSH_OK)
			rc = sftp_rename(r->sftp, tmp, remote_path);
	}
	fired = watchdog_disarm(r);
	if (fired != WATCHDOG_NONE)
		goto cut;
	if (rc != SSH_OK) {
		err = sftp_error(r, what, remote_path, detail, detail_len);
		goto out;
	}
	tmp_exists = 0;
	err = BF_OK;
	goto out;
cut:
	err = sftp_cut(r, fired, what, remote_path, detail, detail_len);
out:
	if (f) {
		if (r->broken == BF_OK &&
		    watchdog_arm(r, NULL, 0) == BF_OK) {
			sftp_close(f);
			watchdog_disarm(r);
		} else {
			sftp_close(f);   /* socket is shut: fails at once */
		}
	}
	if (tmp_exists && r->broken == BF_OK &&
	    watchdog_arm(r, NULL, 0) == BF_OK) {
		sftp_unlink(r->sftp, tmp);
		watchdog_disarm(r);
	}
	free(tmp);
	if (r->session && r->broken == BF_OK)
		ssh_set_blocking(r->session, 0);
	return err;
}

/* ---- teardown and quoting ----------------------------------------------- */

void remote_free(struct remote *r)
{
	if (!r)
		return;
	if (r->session) {
		/* Nonblocking teardown: a host that stopped answering costs
		 * nothing here, since nothing waits for a reply. */
		ssh_set_blocking(r->session, 0);
		if (r->sftp)
			sftp_free(r->sftp);
		if (r->broken == BF_OK && ssh_is_connected(r->session))
			ssh_disconnect(r->session);
		ssh_free(r->session);
	}
	watchdog_stop(&r->wd);
	linesplit_free(&r->lines);
	free(r->err_tail);
	free(r->known_hosts);
	free(r->name);
	free(r);
}

static int shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("_@%+:,./-", c) != NULL;
}

char *remote_quote(const char *s)
{
	const char *p;
	size_t n = 0, quotes = 0;
	int safe = 1;
	char *out, *o;

	if (!s)
		return NULL;
	for (p = s; *p; p++) {
		n++;
		if (*p == '\'')
			quotes++;
		if (!shell_safe((unsigned char)*p))
			safe = 0;
	}
	if (safe && n > 0)
		return strdup(s);
	/* 'it'\''s': each quote becomes four bytes, plus the outer pair. */
	out = malloc(n + 3 * quotes + 3);
	if (!out)
		return NULL;
	o = out;
	*o++ = '\'';
	for (p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}
