/*
 * remote_session: one SSH session to one host through libssh 0.10, from
 * connect to free (see remote_ssh.h for the contract): ssh_config
 * resolution (the user's or the given file, then the system one, as
 * OpenSSH reads them), the host key against known_hosts, authentication by
 * ssh-agent and key files, and teardown. It also holds the helpers that
 * remote_exec.c and remote_sftp.c share (remote_internal.h).
 *
 * Everything except SFTP runs with the session in nonblocking mode, driven
 * by short waits on the session's socket (REMOTE_SLICE_MS), so that the
 * cancel flag, the connect deadline and the silence timeout are checked
 * between them; libssh's own blocking timeouts are not relied on.
 */
#include "remote_internal.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "remote_target.h"

#define REMOTE_SYSTEM_SSH_CONFIG "/etc/ssh/ssh_config"

/* ---- shared helpers (remote_internal.h) --------------------------------- */

int64_t remote_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The flag is set from a signal handler or another thread. Relaxed: it
 * orders nothing else, it only has to be seen. */
int remote_flag_set(const atomic_int *flag)
{
	return flag && atomic_load_explicit(flag, memory_order_relaxed) != 0;
}

int remote_cancelled(const struct remote *r)
{
	return remote_flag_set(r->cancel);
}

/* The session cannot be trusted any more (timed out, interrupted in the
 * middle of a request): shut its socket so that nothing later (freeing
 * channels, disconnect) can block on it. */
void remote_mark_broken(struct remote *r, enum bf_err why)
{
	if (r->broken == BF_OK)
		r->broken = why;
	if (r->fd >= 0)
		shutdown(r->fd, SHUT_RDWR);
}

enum bf_err remote_check_usable(const struct remote *r, const char *what,
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
void remote_io_wait(struct remote *r, int64_t ms)
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
enum bf_err remote_wait_step(struct remote *r, int64_t deadline_ms)
{
	int64_t left;

	if (remote_cancelled(r))
		return BF_ERR_INTERRUPTED;
	left = deadline_ms - remote_mono_ms();
	if (left <= 0)
		return BF_ERR_TIMEOUT;
	remote_io_wait(r, left < REMOTE_SLICE_MS ? left : REMOTE_SLICE_MS);
	return BF_OK;
}

enum bf_err remote_lost(struct remote *r, const char *what, char *detail,
			size_t detail_len)
{
	remote_mark_broken(r, BF_ERR_CONNECT);
	return bf_fail(detail, detail_len, BF_ERR_CONNECT,
		       "%s on %s: connection lost: %s", what, r->name,
		       ssh_get_error(r->session));
}


/* ---- connect ------------------------------------------------------------ */

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
		err = remote_wait_step(r, deadline_ms);
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
	err = remote_target_parse(opts->host, &user, &host, &port, detail,
			   detail_len);
	if (err != BF_OK)
		goto out;

	r = calloc(1, sizeof *r);
	if (r) {
		r->fd = -1;
		r->name = strdup(opts->host);
	}
	if (!r || !r->name ||
	    remote_tail_init(&r->err, REMOTE_STDERR_TAIL_BYTES) != 0 ||
	    remote_watchdog_init(&r->wd) != 0) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "connect %s: out of memory", opts->host);
		goto out;
	}
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

	deadline_ms = remote_mono_ms() + (int64_t)r->timeout_s * 1000;
	ssh_set_blocking(r->session, 0);
	for (;;) {
		rc = ssh_connect(r->session);
		if (rc != SSH_AGAIN)
			break;
		err = remote_wait_step(r, deadline_ms);
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
		remote_mark_broken(r, err);  /* tear down without waiting on the host */
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

/* ---- teardown ----------------------------------------------------------- */

void remote_free(struct remote *r)
{
	if (!r)
		return;
	if (r->session) {
		/* Nonblocking teardown: a host that stopped answering costs
		 * nothing here, since nothing waits for a reply. */
		ssh_set_blocking(r->session, 0);
		remote_sftp_end(r);
		if (r->broken == BF_OK && ssh_is_connected(r->session))
			ssh_disconnect(r->session);
		ssh_free(r->session);
	}
	remote_watchdog_stop(&r->wd);
	linesplit_free(&r->out);
	remote_tail_free(&r->err);
	free(r->known_hosts);
	free(r->name);
	free(r);
}
