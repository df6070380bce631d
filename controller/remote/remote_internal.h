/*
 * remote_internal: what the files of the SSH layer share and nothing else
 * includes: the struct remote behind the public handle, its SFTP watchdog,
 * and the session helpers that bound every wait. From the top of the
 * layer down: remote_session.c owns the session (connect, host keys,
 * auth, teardown), remote_exec.c runs commands, remote_sftp.c does SFTP
 * and its watchdog, remote_proxy.c runs a ProxyJump/ProxyCommand, and
 * remote_wait.c has the clock, cancel flag and bounded waits they all
 * use; each calls only files below it. They (and remote_config.c) include
 * libssh; nothing outside remote/ does.
 */
#ifndef REMOTE_INTERNAL_H
#define REMOTE_INTERNAL_H

#include <pthread.h>
#include <sys/types.h>
#include <stdatomic.h>
#include <stdint.h>

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include "base/linesplit.h"
#include "base/proc.h"
#include "base/tail.h"
#include "remote/remote_config.h"
#include "remote/remote_knownhosts.h"
#include "remote/remote_ssh.h"

/* Longest single wait before the cancel flag and deadlines are checked
 * again: keeps cancellation well inside the promised ~100 ms. */
#define REMOTE_SLICE_MS 50
#define REMOTE_READ_CHUNK_BYTES (32 * 1024)
/* What is kept of a proxy's stderr: its last lines. */
#define REMOTE_PROXY_ERR_BYTES 2047

enum watchdog_fired {
	WATCHDOG_NONE = 0,
	WATCHDOG_TIMEOUT,
	WATCHDOG_CANCEL,
};

/* Guards one blocking SFTP request at a time; see remote_sftp.c. */
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
	const atomic_int *cancel;
};

struct remote {
	ssh_session session;
	sftp_session sftp;          /* opened on first SFTP use */
	char *name;                 /* opts->host as given, for messages */
	char *known_hosts;          /* the file checked, for messages */
	char fingerprint[128];
	int timeout_s;
	const atomic_int *cancel;   /* NULL: no cancel flag */
	int key_added;
	int probe_pending;          /* a liveness probe awaits its answer */
	/* Silence before remote_exec sends a liveness probe (0: its default,
	 * from timeout_s), and the silence after which it gives up; from
	 * ServerAliveInterval x ServerAliveCountMax when set, else
	 * timeout_s. */
	int64_t probe_after_ms;
	int64_t silence_max_ms;
	struct remote_config cfg;   /* what ssh_config resolved to */
	/* libssh refused cfg.hostname (remote_tcp.c): ctl connects the
	 * socket itself. */
	int connect_self;
	/* The server's host certificate, read before the session's key
	 * exchange (remote_hostcert.c); NULL: none. hostkeys: the host key
	 * algorithms libssh is to negotiate for its key (NULL: libssh's
	 * own). cert_note: why a certificate was not used, for messages,
	 * whole (NULL: nothing to say); owned, freed with r. */
	struct remote_cert *cert;
	char *hostkeys;
	char *cert_note;
	struct proc proxy;          /* ProxyJump/ProxyCommand child; pid 0:
				     * none */
	struct tail proxy_err;      /* REMOTE_PROXY_ERR_BYTES of its stderr */
	char proxy_why[REMOTE_PROXY_ERR_BYTES + 1]; /* its last line */
	/* BF_OK while usable; otherwise why not (the socket is shut down). */
	enum bf_err broken;
	int fd;
	struct watchdog wd;

	/* per-command buffers, kept between commands */
	struct tail err;     /* REMOTE_STDERR_TAIL_BYTES of stderr */
	struct linesplit out;       /* the stdout line being assembled */
	char read_buf[REMOTE_READ_CHUNK_BYTES];
};

/* ---- remote_wait.c ------------------------------------------------------ */

/* CLOCK_MONOTONIC in milliseconds. */
int64_t remote_mono_ms(void);

/* Non-zero when flag is set; NULL is never set. An atomic load: the flag
 * is set from a signal handler or another thread. */
int remote_flag_set(const atomic_int *flag);

/* Non-zero when r's cancel flag is set. */
int remote_cancelled(const struct remote *r);

/* The session cannot be trusted any more (timed out, interrupted in the
 * middle of a request): records why (the first reason stays) and shuts
 * the socket so that nothing later (freeing channels, disconnect) can
 * block on it. */
void remote_mark_broken(struct remote *r, enum bf_err why);

/* BF_OK while r is usable, else BF_ERR_CONNECT with "<what> on <host>:
 * session unusable ..." in detail. */
enum bf_err remote_check_usable(const struct remote *r, const char *what,
				char *detail, size_t detail_len);

/* Waits at most ms milliseconds for the session's socket to become
 * readable (or writable, when libssh has output queued). */
void remote_io_wait(struct remote *r, int64_t ms);

/* One wait inside a nonblocking operation that must finish by deadline_ms
 * (remote_mono_ms): BF_OK to try the operation again, else
 * BF_ERR_INTERRUPTED or BF_ERR_TIMEOUT (detail not written: the caller
 * knows what it waited for). Blocks at most REMOTE_SLICE_MS. */
enum bf_err remote_wait_step(struct remote *r, int64_t deadline_ms);

/* The connection is gone: marks r broken and returns BF_ERR_CONNECT with
 * "<what> on <host>: connection lost: <libssh's reason>" in detail. */
enum bf_err remote_lost(struct remote *r, const char *what, char *detail,
			size_t detail_len);

/* Sleeps ms milliseconds (no cancel check). */
void remote_sleep_ms(int64_t ms);

/* Non-zero when the last channel open failed because the server refused
 * it while the connection stays up: OpenSSH's answer when MaxSessions
 * channels are in use, which includes one just closed whose slot the
 * server has not released yet (it does so once the channel's close is
 * processed and, for SFTP, sftp-server has exited). */
int remote_channel_refused(struct remote *r);

/* Waits before retrying a refused channel: the pause after `attempt`
 * refusals (0, 1, ...), cut short by the cancel flag. Returns BF_OK to
 * retry, BF_ERR_INTERRUPTED, or BF_ERR_TIMEOUT once deadline_ms
 * (remote_mono_ms) has passed. Blocks at most REMOTE_SLICE_MS at a time. */
enum bf_err remote_refusal_pause(struct remote *r, int attempt,
				 int64_t deadline_ms);

/* ---- remote_hostcert.c ------------------------------------------------- */

enum remote_cert_verdict {
	REMOTE_CERT_PLAIN = 0,   /* no certificate, or not accepted: check
				  * the plain key (cert_note says why) */
	REMOTE_CERT_ACCEPTED,    /* trusted through its CA */
	REMOTE_CERT_REVOKED,     /* its key or CA is @revoked: refuse */
};

/* The known_hosts files of r's config (user ones, then global ones) into
 * files (room for 64); returns how many. */
size_t remote_kh_files(const struct remote *r, const char **files);

/* The name known_hosts lists r's host under: HostKeyAlias, else
 * "[host]:port" (with_port and a port other than 22) or "host"; whole (the
 * key lines are matched by). A new string; caller frees. */
char *remote_kh_lookup_name(const struct remote *r, int with_port);

/* Before the session connects: when known_hosts has "@cert-authority" or
 * "@revoked" lines for the host, fetches the server's host certificate
 * (its own connection, through the proxy when there is one, by
 * deadline_ms) into r->cert, and sets r->hostkeys so that libssh
 * negotiates the certified key. A fetch that fails leaves r->cert NULL
 * and says why in r->cert_note (BF_OK). Errors: BF_ERR_HOSTKEY_CHANGED
 * (a certificate that does not parse or whose CA signature fails, as ssh
 * refuses it), BF_ERR_TIMEOUT (deadline_ms passed: the connect's own
 * deadline, so that the whole connect stays within it),
 * BF_ERR_INTERRUPTED, BF_ERR_IO (known_hosts unreadable), BF_ERR_NOMEM. */
enum bf_err remote_hostcert_prepare(struct remote *r, int accept_new,
				    int64_t deadline_ms, char *detail,
				    size_t detail_len);

/* After the key exchange, whether r->cert vouches for the server's key
 * (key_type "ssh-ed25519", key_b64 its blob, as libssh has them): see the
 * file's comment. *m says which line decided (ACCEPTED, REVOKED); *err
 * is BF_OK or BF_ERR_IO / BF_ERR_NOMEM with detail. */
enum remote_cert_verdict remote_hostcert_decide(struct remote *r,
						const char *key_type,
						const char *key_b64,
						struct remote_kh_match *m,
						char *detail,
						size_t detail_len,
						enum bf_err *err);

/* ---- remote_certfetch.c ------------------------------------------------ */

/* The host key algorithms ssh would offer (OpenSSH 9.2's default list in
 * sshconnect2.c order_hostkeyalgs' order) given the plain key types
 * known_hosts has for the host (known_types: " ssh-ed25519 ... ", from
 * remote_kh_scan) and whether it has a @cert-authority line, as a
 * comma-separated list into out (size 1024 at least: the list is some
 * 560 bytes). */
void remote_hostkey_order(const char *known_types, int have_ca, char *out,
			  size_t size);

/* Over fd (connected to the server, not yet spoken on), runs the key
 * exchange up to the server's KEX_ECDH_REPLY offering hostkey_algs, and
 * returns its host key blob K_S in *blob (caller frees; a certificate
 * when the server chose a certificate algorithm) and its type name in
 * alg ("" when it does not fit in alg_len: no type ctl knows is that
 * long). why: 512 bytes hold every reason. Bounded by deadline_ms and r's cancel flag. BF_OK; BF_ERR_CONNECT
 * (the server closed, disconnected, has no curve25519-sha256 key
 * exchange), BF_ERR_TIMEOUT, BF_ERR_INTERRUPTED, BF_ERR_NOMEM; why says
 * what. fd is not closed. */
enum bf_err remote_hostcert_fetch(struct remote *r, int fd,
				  const char *hostkey_algs,
				  int64_t deadline_ms, unsigned char **blob,
				  size_t *blob_len, char *alg,
				  size_t alg_len, char *why, size_t why_len);

/* ---- remote_negotiate.c ------------------------------------------------- */

/* When msg is libssh's "kex error : no match for method ...: server [..],
 * client [..]", writes into out what it means for host `name` at `addr`
 * ("host:port"): the method, the server's algorithms and libssh's, and
 * what the user can do, and returns 1; otherwise returns 0 and leaves out
 * alone. Pure. */
int remote_negotiation_explain(const char *msg, const char *name,
			       const char *addr, char *out, size_t size);

/* ---- remote_tcp.c ------------------------------------------------------- */

/* Connects to host:port over TCP by deadline_ms (remote_mono_ms), trying
 * each address getaddrinfo gives; *fd is the connected, blocking socket,
 * for SSH_OPTIONS_FD (libssh closes it). BF_OK; BF_ERR_CONNECT with
 * libssh-like words in *msg, a new string, whole (caller frees): "Failed
 * to resolve hostname ...", "... Connection refused"; BF_ERR_TIMEOUT;
 * BF_ERR_INTERRUPTED (*msg NULL for these two and BF_OK: the caller words
 * them). Blocks in getaddrinfo as libssh does. */
enum bf_err remote_tcp_connect(struct remote *r, const char *host, int port,
			       int64_t deadline_ms, int *fd, char **msg);

/* ---- remote_proxy.c ----------------------------------------------------- */

/* Starts r->cfg's ProxyJump (an ssh -W, see remote_proxy.c) or
 * ProxyCommand (/bin/sh -c) with one end of a socketpair as its stdin and
 * stdout; *fd is the other end, for SSH_OPTIONS_FD (libssh closes it).
 * BF_ERR_USAGE for a ProxyJump that does not parse, BF_ERR_CONNECT when
 * it cannot start, BF_ERR_IO. */
enum bf_err remote_proxy_start(struct remote *r, int accept_new, int *fd,
			       char *detail, size_t detail_len);

/* The last line the proxy wrote to stderr ("" when none), waiting up to
 * wait_ms for it to finish writing. Static to r. */
const char *remote_proxy_reason(struct remote *r, int64_t wait_ms);

/* Ends and reaps the proxy, if any (bounded: TERM, then KILL). */
void remote_proxy_stop(struct remote *r);

/* ---- remote_sftp.c ------------------------------------------------------ */

/* Initialises wd's mutex and condition variable (no thread yet: it starts
 * on first use). Returns 0, or -1 when they cannot be created. */
int remote_watchdog_init(struct watchdog *wd);

/* Stops and joins the watchdog thread if it runs, and destroys what
 * remote_watchdog_init made. Safe on a zeroed or already stopped wd. */
void remote_watchdog_stop(struct watchdog *wd);

/* Frees r's SFTP session if one was opened (remote_free calls it with the
 * session nonblocking, so that a dead host costs no wait). */
void remote_sftp_end(struct remote *r);

#endif
