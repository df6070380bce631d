/*
 * remote_session: one SSH session to one host through libssh 0.10, from
 * connect to free (see remote_ssh.h for the contract): the target resolved
 * by OpenSSH's ssh -G (remote_config.c), the connection (directly, or
 * through a ProxyJump/ProxyCommand child, remote_proxy.c; retried when
 * dropped before the key exchange), the host key against every known_hosts
 * file (remote_knownhosts.c), public-key authentication by IdentityFile
 * and ssh-agent, and teardown. libssh reads no ssh_config itself. The
 * bounded waits that every file of the layer shares are remote_wait.c's.
 *
 * Everything except SFTP runs with the session in nonblocking mode, driven
 * by short waits on the session's socket (REMOTE_SLICE_MS), so that the
 * cancel flag, the connect deadline and the silence timeout are checked
 * between them; libssh's own blocking timeouts are not relied on.
 *
 * Kept whole although long (some 830 lines): connect, host key and
 * authentication are one sequence over one ssh_session, each step's
 * failure handled by the steps before it; what they share with the rest
 * of the layer is in remote_wait.c, remote_config.c, remote_proxy.c and
 * remote_knownhosts.c already.
 */
#include "remote/remote_internal.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "remote/remote_cert.h"
#include "remote/remote_knownhosts.h"
#include "remote/remote_target.h"
#include "bf_text.h"
#include "xmalloc.h"

/* "host:port", with brackets for an IPv6 address, and " via ProxyJump"
 * or " via ProxyCommand" when r has one: whole, however long the host
 * name is. A new string; caller frees. */
static char *addr_port(const struct remote *r)
{
	const char *via = r->cfg.proxy_jump ? " via ProxyJump" :
			  r->cfg.proxy_command ? " via ProxyCommand" : "";

	return bf_xasprintf(strchr(r->cfg.hostname, ':') ? "[%s]:%d%s" :
			    "%s:%d%s", r->cfg.hostname, r->cfg.port, via);
}

/* Sets the resolved options on a fresh session: libssh reads no config
 * file of its own. */
static enum bf_err configure(struct remote *r, char *detail,
			     size_t detail_len)
{
	ssh_session s = r->session;
	const struct remote_config *c = &r->cfg;
	char dir[4096], sshdir[4200];
	long timeout = r->timeout_s;
	int on = 1, off = 0, port = c->port;

	if (remote_home_dir(dir, sizeof dir) == 0) {
		/* fits: dir holds under 4096 bytes, sshdir 4200 */
		snprintf(sshdir, sizeof sshdir, "%s/.ssh", dir);
		if (ssh_options_set(s, SSH_OPTIONS_SSH_DIR, sshdir) != SSH_OK)
			goto fail;
	}
	/* libssh refuses host names that OpenSSH takes ("my_host", a label
	 * over 63 characters): ctl then connects the socket itself. */
	r->connect_self = ssh_options_set(s, SSH_OPTIONS_HOST,
					  c->hostname) != SSH_OK;
	if (ssh_options_set(s, SSH_OPTIONS_USER, c->user) != SSH_OK ||
	    ssh_options_set(s, SSH_OPTIONS_PORT, &port) != SSH_OK ||
	    ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &off) != SSH_OK)
		goto fail;
	/* Host keys are checked by remote_knownhosts.c; these files only
	 * make libssh prefer the host key types already known, as OpenSSH
	 * does. */
	if (c->user_known_hosts.n &&
	    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS,
			    c->user_known_hosts.v[0]) != SSH_OK)
		goto fail;
	if (c->global_known_hosts.n &&
	    ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS,
			    c->global_known_hosts.v[0]) != SSH_OK)
		goto fail;
	/* A host certificate's key (remote_hostcert.c): the one key libssh
	 * may negotiate, so that the certificate vouches for it. */
	if (r->hostkeys &&
	    ssh_options_set(s, SSH_OPTIONS_HOSTKEYS, r->hostkeys) != SSH_OK)
		goto fail;
	if (c->identity_agent && strcmp(c->identity_agent, "none") != 0 &&
	    ssh_options_set(s, SSH_OPTIONS_IDENTITY_AGENT,
			    c->identity_agent) != SSH_OK)
		goto fail;
	/* Bounds libssh's blocking calls (SFTP setup); our own loops do the
	 * rest. NODELAY: without it auth and SFTP writes crawl (Nagle). */
	if (ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout) != SSH_OK ||
	    ssh_options_set(s, SSH_OPTIONS_NODELAY, &on) != SSH_OK)
		goto fail;
	return BF_OK;
fail:
	/* libssh refuses some values without a message of its own. */
	return bf_fail(detail, detail_len, BF_ERR_USAGE, "connect %s: %s",
		       r->name, *ssh_get_error(s) ? ssh_get_error(s) :
		       "libssh refused the resolved settings (see ctl resolve)");
}

static enum bf_err connect_wait_error(struct remote *r, enum bf_err err,
				      const char *phase, int limit_s,
				      const char *why, char *detail,
				      size_t detail_len)
{
	if (err == BF_ERR_INTERRUPTED)
		return bf_fail(detail, detail_len, err, "%s %s: interrupted",
			       phase, r->name);
	return bf_fail(detail, detail_len, err,
		       "%s %s: no answer within %d s%s", phase, r->name,
		       limit_s, why);
}

/* The server dropped the connection before the key exchange finished, as
 * sshd does beyond MaxStartups concurrent unauthenticated connections:
 * worth another try. */
static int kex_dropped(const char *msg)
{
	return strstr(msg, "reset by peer") || strstr(msg, "closed by") ||
	       strstr(msg, "disconnected") || strstr(msg, "Connection closed") ||
	       strstr(msg, "Broken pipe");
}

/* Why ssh_connect failed, in the user's terms, into detail. */
static enum bf_err connect_failed(struct remote *r, const char *msg,
				  int tries, char *detail, size_t detail_len)
{
	char *ap = addr_port(r);
	const char *why;
	enum bf_err err = BF_ERR_CONNECT;

	if (remote_negotiation_explain(msg, r->name, ap, detail, detail_len))
		;
	else if (r->cfg.proxy_jump || r->cfg.proxy_command) {
		why = remote_proxy_reason(r, 2000);
		bf_fail(detail, detail_len, err, "connect %s via %s %s: %s",
			r->name, r->cfg.proxy_jump ? "ProxyJump" :
			"ProxyCommand", r->cfg.proxy_jump ?
			r->cfg.proxy_jump : r->cfg.proxy_command,
			why[0] ? why : msg);
	} else if (strstr(msg, "refused"))
		bf_fail(detail, detail_len, err, "connect %s: connection "
			"refused by %s (no sshd listening there?)", r->name,
			ap);
	else if (strstr(msg, "resolve hostname"))
		bf_fail(detail, detail_len, err, "connect %s: host name '%s' "
			"does not resolve (%s)", r->name, r->cfg.hostname,
			msg);
	else if (kex_dropped(msg) && tries > 1)
		bf_fail(detail, detail_len, err, "connect %s (%s): the server "
			"dropped the connection before the key exchange, %d "
			"times (%s): sshd's MaxStartups limit on concurrent "
			"handshakes; raise it on the host or connect to fewer "
			"hosts at once (--jobs)", r->name, ap, tries, msg);
	else
		bf_fail(detail, detail_len, err, "connect %s (%s): %s",
			r->name, ap, msg);
	free(ap);
	return err;
}

/*
 * After the proxy exited: what it passed on before (the target's refusal,
 * "no key exchange in common") is in the socket already, readable to its
 * end (the proxy's side is closed). Lets libssh read it, without waiting:
 * at most 64 steps, each only while the socket is readable. Returns
 * ssh_connect's last result (SSH_AGAIN when nothing more was readable).
 */
static int connect_drain(struct remote *r)
{
	int rc = SSH_AGAIN;

	for (int i = 0; i < 64 && rc == SSH_AGAIN; i++) {
		struct pollfd p = { .fd = ssh_get_fd(r->session),
				    .events = POLLIN };

		if (p.fd < 0 || poll(&p, 1, 0) <= 0)
			break;
		rc = ssh_connect(r->session);
	}
	return rc;
}

/* One connection attempt on a fresh session, up to the key exchange.
 * BF_ERR_CONNECT with what failed in *msg (a new string, whole; caller
 * frees; NULL otherwise) to be worded by connect_failed, or an error
 * worded in detail, or BF_ERR_TIMEOUT/BF_ERR_INTERRUPTED unworded. */
static enum bf_err connect_once(struct remote *r, int accept_new,
				int64_t deadline_ms, char **msg,
				char *detail, size_t detail_len)
{
	enum bf_err err;
	int rc, fd;

	*msg = NULL;
	r->session = ssh_new();
	if (!r->session)
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "connect %s: out of memory", r->name);
	err = configure(r, detail, detail_len);
	if (err != BF_OK)
		return err;
	if (r->cfg.proxy_jump || r->cfg.proxy_command || r->connect_self) {
		if (r->cfg.proxy_jump || r->cfg.proxy_command)
			err = remote_proxy_start(r, accept_new, &fd, detail,
						 detail_len);
		else
			err = remote_tcp_connect(r, r->cfg.hostname,
						 r->cfg.port, deadline_ms, &fd,
						 msg);
		if (err != BF_OK)
			return err;
		if (ssh_options_set(r->session, SSH_OPTIONS_FD, &fd) !=
		    SSH_OK) {
			close(fd);
			return bf_fail(detail, detail_len, BF_ERR_CONNECT,
				       "connect %s: %s", r->name,
				       ssh_get_error(r->session));
		}
	}
	ssh_set_blocking(r->session, 0);
	for (;;) {
		rc = ssh_connect(r->session);
		if (rc != SSH_AGAIN)
			break;
		err = remote_wait_step(r, deadline_ms);
		if (err != BF_OK)
			return err;   /* the caller words it */
		/* A jump ssh that gave up (unknown key, auth) has exited:
		 * do not wait for libssh to notice its closed socket, but
		 * take the target's own reason when it had passed one on
		 * (a key exchange the target refused ends the proxy too,
		 * and which of the two ctl saw first was a race). */
		if (proc_exited(&r->proxy, NULL)) {
			rc = connect_drain(r);
			if (rc == SSH_OK)
				break;
			if (rc == SSH_AGAIN ||
			    kex_dropped(ssh_get_error(r->session)))
				*msg = bf_xstrdup("the proxy exited");
			else
				*msg = bf_xstrdup(ssh_get_error(r->session));
			return BF_ERR_CONNECT;
		}
	}
	if (rc != SSH_OK) {
		*msg = bf_xstrdup(ssh_get_error(r->session));
		return BF_ERR_CONNECT;
	}
	r->fd = ssh_get_fd(r->session);
	return BF_OK;
}

/* Drops a failed attempt's session and proxy. */
static void connect_reset(struct remote *r)
{
	if (r->session) {
		ssh_free(r->session);
		r->session = NULL;
	}
	remote_proxy_stop(r);
	r->fd = -1;
}

/*
 * Connects up to the end of the key exchange, by deadline_ms. A connection
 * the server drops before its banner or during the key exchange (sshd's
 * MaxStartups) is tried again after a growing, jittered pause (100 ms
 * doubling to 2 s), until the deadline; the cancel flag ends the pauses.
 */
static enum bf_err connect_retrying(struct remote *r, int accept_new,
				    int64_t deadline_ms, int limit_s,
				    const char *limit_why, char *detail,
				    size_t detail_len)
{
	unsigned seed = (unsigned)remote_mono_ms() ^ (unsigned)(uintptr_t)r;
	int64_t pause_ms = 100;
	char *msg;
	enum bf_err err;

	for (int tries = 1;; tries++) {
		err = connect_once(r, accept_new, deadline_ms, &msg, detail,
				   detail_len);
		if (err == BF_ERR_TIMEOUT || err == BF_ERR_INTERRUPTED) {
			const char *why = remote_proxy_reason(r, 0);
			char *extra = bf_xasprintf("%s%s%s", limit_why,
						   why[0] ? "; proxy said: " :
						   "", why);

			free(msg);
			err = connect_wait_error(r, err, "connect", limit_s,
						 extra, detail, detail_len);
			free(extra);
			return err;
		}
		if (err == BF_OK || !msg || !msg[0]) {
			free(msg);
			return err;
		}
		if (!kex_dropped(msg) || r->cfg.proxy_jump ||
		    r->cfg.proxy_command ||
		    remote_mono_ms() + pause_ms >= deadline_ms) {
			err = connect_failed(r, msg, tries, detail,
					     detail_len);
			free(msg);
			return err;
		}
		free(msg);
		connect_reset(r);
		for (int64_t until = remote_mono_ms() + pause_ms / 2 +
				     rand_r(&seed) % (pause_ms / 2 + 1);
		     remote_mono_ms() < until;) {
			if (remote_cancelled(r))
				return connect_wait_error(r,
					BF_ERR_INTERRUPTED, "connect", 0, "",
					detail, detail_len);
			remote_sleep_ms(REMOTE_SLICE_MS / 2);
		}
		pause_ms = pause_ms * 2 > 2000 ? 2000 : pause_ms * 2;
	}
}

/* The hint for a changed key: the exact command that removes the line,
 * whole. A new string; caller frees. */
static char *keygen_hint(const char *name, const char *file)
{
	char def[4200], home[4096];

	if (remote_home_dir(home, sizeof home) == 0)
		/* fits: home holds under 4096 bytes, def 4200 */
		snprintf(def, sizeof def, "%s/.ssh/known_hosts", home);
	else
		def[0] = '\0';
	return bf_xasprintf("ssh-keygen%s%s%s -R %s%s%s",
			    strcmp(file, def) ? " -f '" : "",
			    strcmp(file, def) ? file : "",
			    strcmp(file, def) ? "'" : "",
			    name[0] == '[' ? "'" : "", name,
			    name[0] == '[' ? "'" : "");
}

static enum bf_err check_host_key(struct remote *r, int accept_new,
				  char *detail, size_t detail_len)
{
	ssh_session s = r->session;
	const struct remote_config *c = &r->cfg;
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hash_len = 0, nfiles = 0;
	char *fp = NULL, *b64 = NULL;
	const char **files = NULL;
	char *name = NULL, *hint = NULL, *note = NULL;
	const char *type;
	struct remote_kh_match m;
	enum bf_err err = BF_OK;

	if (ssh_get_server_publickey(s, &key) != SSH_OK ||
	    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash,
				   &hash_len) != 0 ||
	    ssh_pki_export_pubkey_base64(key, &b64) != SSH_OK) {
		err = bf_fail(detail, detail_len, BF_ERR_CONNECT,
			      "host key of %s: cannot read it: %s", r->name,
			      ssh_get_error(s));
		goto out;
	}
	fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash,
				      hash_len);
	files = calloc(c->user_known_hosts.n + c->global_known_hosts.n + 1,
		       sizeof *files);
	if (!fp || !files) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host key of %s: out of memory", r->name);
		goto out;
	}
	/* fits: "SHA256:" and 43 base64 characters (RFC 4648 of 32
	 * bytes, unpadded, as ssh_get_fingerprint_hash writes it) */
	snprintf(r->fingerprint, sizeof r->fingerprint, "%s", fp);
	type = ssh_key_type_to_char(ssh_key_type(key));
	if (!type)
		type = "key";
	for (size_t i = 0; i < c->user_known_hosts.n; i++)
		files[nfiles++] = c->user_known_hosts.v[i];
	for (size_t i = 0; i < c->global_known_hosts.n; i++)
		files[nfiles++] = c->global_known_hosts.v[i];
	r->known_hosts = strdup(c->user_known_hosts.n ?
				c->user_known_hosts.v[0] : "known_hosts");
	if (!r->known_hosts) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host key of %s: out of memory", r->name);
		goto out;
	}
	name = remote_kh_lookup_name(r, 1);
	switch (remote_hostcert_decide(r, type, b64, &m, detail, detail_len,
				       &err)) {
	case REMOTE_CERT_ACCEPTED:
		goto out;   /* trusted through its CA: nothing written */
	case REMOTE_CERT_REVOKED:
		err = bf_fail(detail, detail_len, BF_ERR_HOSTKEY_CHANGED,
			      "host key of %s is revoked: %s line %d marks its "
			      "host certificate's key or CA @revoked; refused",
			      r->name, m.file, m.line);
		goto out;
	default:
		if (err != BF_OK)
			goto out;
		break;
	}
	err = remote_kh_check(files, nfiles, name, type, b64, &m, detail,
			      detail_len);
	/* Nothing for "[host]:port": ssh looks under "host" too, where
	 * only a matching key counts (sshconnect.c, "checking without
	 * port identifier"). */
	if (err == BF_OK && m.state == REMOTE_KH_UNKNOWN &&
	    !c->host_key_alias && c->port != 22) {
		struct remote_kh_match m2;
		char *portless = remote_kh_lookup_name(r, 0);

		err = remote_kh_check(files, nfiles, portless, type, b64, &m2,
				      detail, detail_len);
		free(portless);
		if (err == BF_OK && m2.state == REMOTE_KH_OK)
			m = m2;
	}
	if (err != BF_OK)
		goto out;
	hint = keygen_hint(name, m.file);
	note = r->cert_note ? bf_xasprintf(" (%s)", r->cert_note) :
	       bf_xstrdup("");
	switch (m.state) {
	case REMOTE_KH_OK:
		break;
	case REMOTE_KH_REVOKED:
		err = bf_fail(detail, detail_len, BF_ERR_HOSTKEY_CHANGED,
			      "host key of %s is revoked: server offers %s %s, "
			      "marked @revoked in %s line %d; refused%s",
			      r->name, type, r->fingerprint, m.file, m.line,
			      note);
		break;
	case REMOTE_KH_CHANGED:
		err = bf_fail(detail, detail_len, BF_ERR_HOSTKEY_CHANGED,
			      "host key of %s changed: server offers %s %s, "
			      "%s line %d holds another (possible attack; if "
			      "the host was reinstalled, remove that line "
			      "with: %s)%s", r->name, type, r->fingerprint,
			      m.file, m.line, hint, note);
		break;
	case REMOTE_KH_OTHER:
		err = bf_fail(detail, detail_len, BF_ERR_HOSTKEY_CHANGED,
			      "host key of %s changed: server offers %s %s, "
			      "%s line %d holds a key of another type for it "
			      "(possible attack; if the host was reinstalled: "
			      "%s)%s", r->name, type, r->fingerprint, m.file,
			      m.line, hint, note);
		break;
	case REMOTE_KH_UNKNOWN:
	default:
		if (!accept_new) {
			err = bf_fail(detail, detail_len,
				      BF_ERR_HOSTKEY_UNKNOWN,
				      "host key of %s unknown: %s %s is not in "
				      "%s%s; check the fingerprint, then rerun "
				      "with --accept-new-host-keys", r->name,
				      type, r->fingerprint, r->known_hosts,
				      note);
			break;
		}
		err = remote_kh_add(r->known_hosts, name, type, b64,
				    c->hash_known_hosts, detail, detail_len);
		if (err != BF_OK)
			break;
		r->key_added = 1;
		/* A hashed line cannot be read back by eye: say what it is.
		 * (ctl run logs every added key in the host's log too.) */
		if (c->hash_known_hosts)
			fprintf(stderr, "ctl: %s: host key %s %s added to %s, "
				"name hashed (HashKnownHosts yes; find it with "
				"ssh-keygen -F %s -f %s)\n", r->name, type,
				r->fingerprint, r->known_hosts, name,
				r->known_hosts);
		break;
	}
out:
	free(name);
	free(hint);
	free(note);
	free(files);
	ssh_string_free_char(b64);
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	return err;
}

/*
 * Asks the ssh-agent at sock for its identities (SSH2_AGENTC_REQUEST_
 * IDENTITIES, draft-miller-ssh-agent) and waits for the answer under the
 * deadline and the cancel flag, because libssh talks to the agent with
 * blocking calls and an agent that never answers would hang the connect.
 * Returns BF_OK with *nkeys (-1 when the answer was not understood),
 * BF_ERR_NOT_FOUND when nothing answers the socket, BF_ERR_TIMEOUT,
 * BF_ERR_INTERRUPTED.
 */
static enum bf_err agent_probe(struct remote *r, const char *sock,
			       int64_t deadline_ms, int *nkeys)
{
	static const unsigned char req[5] = { 0, 0, 0, 1, 11 };
	struct sockaddr_un sa;
	unsigned char ans[9];
	size_t got = 0;
	enum bf_err err = BF_ERR_NOT_FOUND;
	int fd;

	*nkeys = -1;
	if (strlen(sock) >= sizeof sa.sun_path)
		return BF_ERR_NOT_FOUND;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sock, strlen(sock));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return BF_ERR_NOT_FOUND;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    send(fd, req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req)
		goto out;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t left = deadline_ms - remote_mono_ms();
		ssize_t n;

		if (remote_cancelled(r)) {
			err = BF_ERR_INTERRUPTED;
			break;
		}
		if (left <= 0) {
			err = BF_ERR_TIMEOUT;
			break;
		}
		if (poll(&p, 1, left < REMOTE_SLICE_MS ? (int)left :
			 REMOTE_SLICE_MS) <= 0)
			continue;
		n = recv(fd, ans + got, sizeof ans - got, 0);
		if (n <= 0) {
			if (n < 0 && errno == EAGAIN)
				continue;
			break;   /* closed without answering */
		}
		got += (size_t)n;
		if (got == sizeof ans || (got >= 5 && ans[4] != 12)) {
			err = BF_OK;
			if (ans[4] == 12 && got == sizeof ans)
				*nkeys = (int)((unsigned)ans[5] << 24 |
					       (unsigned)ans[6] << 16 |
					       (unsigned)ans[7] << 8 | ans[8]);
			break;
		}
	}
out:
	close(fd);
	return err;
}

/* Appends to the "tried: ..." list of an auth failure (*buf, a heap
 * string or NULL; whole, however many and long its paths). */
static void tried_add(char **buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tried_add(char **buf, const char *fmt, ...)
{
	va_list ap;
	char *add, *all;

	va_start(ap, fmt);
	if (vasprintf(&add, fmt, ap) < 0)
		bf_xmalloc_fatal("auth: tried");
	va_end(ap);
	all = bf_xasprintf("%s%s", *buf ? *buf : "", add);
	free(add);
	free(*buf);
	*buf = all;
}

/* Runs one nonblocking auth call to its end. */
#define AUTH_LOOP(r, call, deadline, rc, err)				\
	do {								\
		(err) = BF_OK;						\
		while (((rc) = (call)) == SSH_AUTH_AGAIN) {		\
			/* sshd's disconnect (MaxAuthTries) leaves	\
			 * libssh answering AGAIN */			\
			if (!ssh_is_connected((r)->session)) {		\
				(rc) = SSH_AUTH_ERROR;			\
				break;					\
			}						\
			(err) = remote_wait_step((r), (deadline));	\
			if ((err) != BF_OK)				\
				break;					\
		}							\
	} while (0)

/*
 * Public-key authentication as OpenSSH does it, as far as libssh 0.10
 * allows: each IdentityFile that exists and loads without a passphrase,
 * then the ssh-agent's keys (not with IdentitiesOnly yes). OpenSSH offers
 * the agent's copies of IdentityFile keys first, then the files, then the
 * agent's other keys; libssh cannot offer one chosen agent key, so files
 * come first here: the key a config names is tried before sshd's
 * MaxAuthTries runs out on the agent's others. A passphrase-protected
 * IdentityFile is therefore used only through the agent, and not with
 * IdentitiesOnly yes. ssh -G lists ~/.ssh/id_* only when no
 * IdentityFile is set. Keys are loaded with ssh_pki_import_privkey_file,
 * never through ssh_userauth_publickey_auto, which writes a missing
 * <key>.pub next to the key.
 */
static enum bf_err authenticate_with(struct remote *r, int64_t deadline_ms,
				     char **tried_p, char *detail,
				     size_t detail_len)
{
	ssh_session s = r->session;
	const struct remote_config *c = &r->cfg;
	const char *agent = c->identity_agent ? c->identity_agent :
			    getenv("SSH_AUTH_SOCK");
	const char *tried;
	size_t tl;
	int agent_keys = -1, files_tried = 0, rc = SSH_AUTH_DENIED;
	enum bf_err err;

	if (agent && (!*agent || !strcmp(agent, "none")))
		agent = NULL;
	if (agent && c->identities_only) {
		tried_add(tried_p, "ssh-agent not used: IdentitiesOnly yes; ");
		agent = NULL;
	}
	for (size_t i = 0; i < c->identity_files.n &&
	     rc != SSH_AUTH_SUCCESS && rc != SSH_AUTH_PARTIAL &&
	     ssh_is_connected(s); i++) {
		const char *path = c->identity_files.v[i];
		ssh_key key = NULL;

		if (access(path, F_OK) != 0) {
			/* ssh says "no such identity: PATH" for a file the
			 * config names, nothing for its default keys. */
			if (!c->identity_files_default)
				tried_add(tried_p, "IdentityFile %s: %s; ",
					  path, strerror(errno));
			continue;
		}
		if (ssh_pki_import_privkey_file(path, NULL, NULL, NULL,
						&key) != SSH_OK) {
			tried_add(tried_p, "%s skipped (passphrase or "
				  "unreadable); ", path);
			continue;
		}
		files_tried++;
		AUTH_LOOP(r, ssh_userauth_publickey(s, NULL, key),
			  deadline_ms, rc, err);
		ssh_key_free(key);
		if (err != BF_OK)
			return connect_wait_error(r, err, "auth",
						  r->timeout_s, "", detail,
						  detail_len);
		tried_add(tried_p, "%s; ", path);
	}
	if (agent && rc != SSH_AUTH_SUCCESS && rc != SSH_AUTH_PARTIAL &&
	    ssh_is_connected(s)) {
		err = agent_probe(r, agent, deadline_ms, &agent_keys);
		if (err == BF_ERR_INTERRUPTED)
			return connect_wait_error(r, err, "auth", 0, "",
						  detail, detail_len);
		if (err == BF_ERR_TIMEOUT)
			return bf_fail(detail, detail_len, BF_ERR_TIMEOUT,
				       "auth %s: the ssh-agent at %s did not "
				       "answer within %d s (restart it, or "
				       "unset SSH_AUTH_SOCK)", r->name, agent,
				       r->timeout_s);
		if (err != BF_OK) {
			tried_add(tried_p, "ssh-agent at %s not answering; ",
				  agent);
		} else {
			AUTH_LOOP(r, ssh_userauth_agent(s, NULL),
				  deadline_ms, rc, err);
			if (err != BF_OK)
				return connect_wait_error(r, err, "auth",
					r->timeout_s, "", detail, detail_len);
			if (rc == SSH_AUTH_SUCCESS)
				return BF_OK;
			tried_add(tried_p, "the ssh-agent's %d keys; ",
				  agent_keys);
		}
	} else if (!c->identities_only) {
		tried_add(tried_p, "no ssh-agent (SSH_AUTH_SOCK unset); ");
	}
	if (rc == SSH_AUTH_SUCCESS)
		return BF_OK;
	/* The list without its last "; ". */
	tried = *tried_p ? *tried_p : "";
	tl = strlen(tried);
	if (tl >= 2)
		(*tried_p)[tl - 2] = '\0';
	if (rc == SSH_AUTH_PARTIAL)
		return bf_fail(detail, detail_len, BF_ERR_AUTH,
			       "auth %s as %s: key accepted but the server "
			       "wants another method too", r->name, c->user);
	if (!ssh_is_connected(s))
		return bf_fail(detail, detail_len, BF_ERR_AUTH,
			       "auth %s as %s: the server closed the "
			       "connection after too many refused keys "
			       "(sshd MaxAuthTries; tried: %s): set "
			       "IdentitiesOnly yes and the right IdentityFile "
			       "for this host", r->name, c->user, tried);
	return bf_fail(detail, detail_len, BF_ERR_AUTH,
		       "auth %s as %s: no key accepted (tried: %s%s)",
		       r->name, c->user, tried[0] ? tried : "nothing",
		       files_tried || !c->identity_files_default ? "" :
		       "; no IdentityFile set and none of ssh's default keys "
		       "(~/.ssh/id_*) exists");
}

/* authenticate_with, its "tried" list owned and freed here. */
static enum bf_err authenticate(struct remote *r, int64_t deadline_ms,
				char *detail, size_t detail_len)
{
	char *tried = NULL;
	enum bf_err err = authenticate_with(r, deadline_ms, &tried, detail,
					    detail_len);

	free(tried);
	return err;
}

enum bf_err remote_connect(struct remote **out, const struct remote_opts *opts,
			   char *detail, size_t detail_len)
{
	struct remote *r = NULL;
	char *user = NULL, *host = NULL;
	char limit_why[64] = "";
	int port = 0, limit_s;
	int64_t start_ms, deadline_ms, connect_deadline_ms;
	enum bf_err err;

	if (!out)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "connect: no output handle");
	*out = NULL;
	if (!opts || !opts->host || !*opts->host)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "connect: no host given");
	err = remote_target_check(opts->host, detail, detail_len);
	if (err == BF_OK)
		err = remote_target_parse(opts->host, &user, &host, &port,
					  detail, detail_len);
	if (err != BF_OK)
		goto out;

	r = calloc(1, sizeof *r);
	if (r) {
		r->fd = -1;
		r->proxy.out_fd = r->proxy.err_fd = -1;
		r->name = strdup(opts->host);
	}
	if (!r || !r->name ||
	    tail_init(&r->err, REMOTE_STDERR_TAIL_BYTES) != 0 ||
	    tail_init(&r->proxy_err, REMOTE_PROXY_ERR_BYTES) != 0 ||
	    remote_watchdog_init(&r->wd) != 0) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "connect %s: out of memory", opts->host);
		goto out;
	}
	r->timeout_s = opts->timeout_s > 0 ? opts->timeout_s :
		       REMOTE_TIMEOUT_DEFAULT_S;
	r->cancel = opts->cancel;
	start_ms = remote_mono_ms();
	deadline_ms = start_ms + (int64_t)r->timeout_s * 1000;
	err = remote_config_resolve(&r->cfg, host, user, port,
				    opts->ssh_config, r->timeout_s, r->cancel,
				    detail, detail_len);
	if (err != BF_OK)
		goto out;
	if (r->cfg.remote_command) {
		/* Terminal-safe, whole: control characters become '?'. */
		char *safe = bf_text_sanitize_dup(r->cfg.remote_command);

		err = bf_fail(detail, detail_len, BF_ERR_USAGE,
			      "host '%s': its ssh_config sets RemoteCommand "
			      "(%s), and ctl runs commands of its own there, "
			      "which ssh refuses beside it too (\"Cannot "
			      "execute command-line and remote command.\"): "
			      "give ctl a Host alias without RemoteCommand",
			      r->name, safe);
		free(safe);
		goto out;
	}
	if (opts->known_hosts) {
		struct remote_strv *kh = &r->cfg.user_known_hosts;
		char *dup = strdup(opts->known_hosts);

		if (!dup) {
			err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
				      "connect %s: out of memory", r->name);
			goto out;
		}
		for (size_t i = 0; i < kh->n; i++)
			free(kh->v[i]);
		kh->n = 0;
		if (!kh->v)
			kh->v = calloc(1, sizeof *kh->v);
		if (!kh->v) {
			free(dup);
			err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
				      "connect %s: out of memory", r->name);
			goto out;
		}
		kh->v[kh->n++] = dup;
	}
	/* ServerAliveInterval x ServerAliveCountMax drive remote_exec's
	 * liveness probes where they detect a silent server sooner than
	 * timeout_s would (which probes after a quarter of timeout_s and
	 * gives up after timeout_s of silence). Debian's ssh makes BatchMode
	 * imply ServerAliveInterval 300: never longer than --timeout. */
	r->silence_max_ms = (int64_t)r->timeout_s * 1000;
	if (r->cfg.server_alive_interval_s > 0) {
		int64_t every = (int64_t)r->cfg.server_alive_interval_s * 1000;
		int count = r->cfg.server_alive_count_max > 0 ?
			    r->cfg.server_alive_count_max : 1;

		if (every < r->silence_max_ms / 4)
			r->probe_after_ms = every;
		if (every * count < r->silence_max_ms)
			r->silence_max_ms = every * count;
	}
	/* ConnectTimeout bounds the connection up to the end of the key
	 * exchange; timeout_s still bounds the whole connect. */
	connect_deadline_ms = deadline_ms;
	limit_s = r->timeout_s;
	if (r->cfg.connect_timeout_s > 0 &&
	    r->cfg.connect_timeout_s < r->timeout_s) {
		connect_deadline_ms = remote_mono_ms() +
				      (int64_t)r->cfg.connect_timeout_s * 1000;
		limit_s = r->cfg.connect_timeout_s;
		snprintf(limit_why, sizeof limit_why, " (ConnectTimeout)");
	}
	err = remote_hostcert_prepare(r, opts->accept_new_host_keys,
				      connect_deadline_ms, detail, detail_len);
	if (err != BF_OK)
		goto out;
	err = connect_retrying(r, opts->accept_new_host_keys,
			       connect_deadline_ms, limit_s, limit_why,
			       detail, detail_len);
	if (err != BF_OK)
		goto out;
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
	remote_proxy_stop(r);
	if (r->cert)
		remote_cert_free(r->cert);
	free(r->cert);
	free(r->hostkeys);
	free(r->cert_note);
	remote_config_clear(&r->cfg);
	remote_watchdog_stop(&r->wd);
	linesplit_free(&r->out);
	tail_free(&r->err);
	tail_free(&r->proxy_err);
	free(r->known_hosts);
	free(r->name);
	free(r);
}
