/*
 * remote_ssh: the controller's connection to one host, over SSH. Its
 * implementation (remote_session.c, remote_exec.c, remote_sftp.c, sharing
 * remote_internal.h) is the only part of benchfleet that includes libssh;
 * every libssh and SFTP code is translated into enum bf_err there, with the
 * detail ("what: why") written to a caller-supplied buffer. The pure parts
 * have headers of their own: remote_target.h (parsing user@host:port),
 * remote_quote.h (shell quoting, included here); stdout lines and the
 * stderr tail are base/linesplit.h's and base/tail.h's, as for every
 * runner.
 *
 * A struct remote is one SSH session. It belongs to one thread at a time and
 * is never shared: libssh forbids using a session (or its channels) from two
 * threads. Use one handle per host, on that host's thread.
 *
 * Behaviour follows OpenSSH where a user would expect it to: the host is an
 * alias from ssh_config or user@host[:port], resolved by OpenSSH's own
 * `ssh -G` (remote_config.h; ctl's own reader of the files only where no
 * ssh client exists); host keys are checked against every
 * UserKnownHostsFile and GlobalKnownHostsFile, "@revoked" and hashed
 * lines included (remote_knownhosts.h), a host certificate against its
 * "@cert-authority" lines as OpenSSH checks it (remote_hostcert.c), and
 * an unknown, changed or revoked key is refused; authentication is by the
 * IdentityFile keys, then ssh-agent (not with IdentitiesOnly), never by
 * password or prompt, and nothing is written
 * under ~/.ssh but known_hosts when asked. ProxyJump and ProxyCommand run
 * as child processes of ours (remote_proxy.c) without a terminal.
 *
 * Timeouts: every call is bounded. remote_connect gives up after timeout_s
 * in total. remote_exec gives up when the SSH server has been silent for
 * timeout_s: it probes the server with SSH-level requests while the command
 * prints nothing, so a command that is quiet for an hour on a live host is
 * fine, but a frozen sshd (whose kernel still ACKs TCP) is detected. Each
 * SFTP request in remote_upload and remote_mkdir_p is bounded by timeout_s
 * by a watchdog thread. All calls also stop within about 100 ms when the
 * cancel flag given at connect time becomes non-zero.
 */
#ifndef REMOTE_SSH_H
#define REMOTE_SSH_H

#include <stdatomic.h>
#include <stddef.h>

#include "base/tail.h"        /* TAIL_STDERR_BYTES */
#include "bf_error.h"
#include "remote/remote_quote.h"  /* remote_quote, for building commands */

/* timeout_s used when remote_opts.timeout_s is 0 or negative. */
#define REMOTE_TIMEOUT_DEFAULT_S 30
/* Longest stdout line delivered whole; longer lines arrive cut to this. */
#define REMOTE_LINE_MAX_BYTES (1024 * 1024)
/* How much of a command's stderr is kept: its last whole lines within
 * this many bytes (base/tail.h), as ctl run local and Slurm keep the
 * agent's. */
#define REMOTE_STDERR_TAIL_BYTES TAIL_STDERR_BYTES

struct remote;

struct remote_opts {
	/* An alias from ssh_config, or [user@]host[:port] ("[::1]:22" for an
	 * IPv6 address with a port). A user or port given here wins over the
	 * config, as with ssh -l / -p. Required. */
	const char *host;
	/* ssh_config file (like ssh -F): only it is read, and it must exist.
	 * NULL: ~/.ssh/config if it exists, then /etc/ssh/ssh_config, as
	 * OpenSSH does. Here "~" is $HOME when HOME is set, else the passwd
	 * entry, and so are the default key files and known_hosts (when HOME
	 * differs from the passwd entry, ssh is given a -F file including
	 * $HOME/.ssh/config, then /etc/ssh/ssh_config; see remote_config.h).
	 * ProxyJump runs `ssh -W` with the same -F, BatchMode=yes and
	 * StrictHostKeyChecking=yes (accept-new with accept_new_host_keys). */
	const char *ssh_config;
	/* known_hosts file to check and, with accept_new_host_keys, to append
	 * to. NULL: every UserKnownHostsFile from the config (the first is
	 * appended to), else ~/.ssh/known_hosts; GlobalKnownHostsFile is
	 * checked too. */
	const char *known_hosts;
	/* Seconds: the bound on remote_connect as a whole, on silence from
	 * the server during remote_exec, and on each SFTP request. <= 0 means
	 * REMOTE_TIMEOUT_DEFAULT_S. ConnectTimeout from the config bounds the
	 * connection up to the key exchange, and ServerAliveInterval x
	 * ServerAliveCountMax the silence in remote_exec, where shorter. */
	int timeout_s;
	/* Non-zero: a host whose key is not in known_hosts has the key added
	 * (OpenSSH's StrictHostKeyChecking=accept-new). A changed key is
	 * refused regardless. */
	int accept_new_host_keys;
	/* Optional. When *cancel becomes non-zero, the call in progress on
	 * this handle stops with BF_ERR_INTERRUPTED within about 100 ms. It
	 * is only read (atomically, from this handle's threads); set it with
	 * an atomic store, which for a lock-free atomic_int is also
	 * async-signal-safe in a signal handler. One flag may be shared by
	 * all handles. The pointer must stay valid until remote_free. */
	const atomic_int *cancel;
};

/*
 * Connects, checks the host key, authenticates. Blocks for at most
 * opts->timeout_s seconds (plus the time to run a ProxyCommand).
 *
 * On BF_OK *out is a new handle (caller frees with remote_free). On error
 * *out is NULL and detail says what happened:
 *   BF_ERR_USAGE            bad opts->host (e.g. port out of range, an
 *                           invalid host name, one ssh -G refuses)
 *   BF_ERR_NOT_FOUND        opts->ssh_config does not exist
 *   BF_ERR_PARSE            ssh_config could not be parsed
 *   BF_ERR_CONNECT          name did not resolve, connection refused
 *                           (detail: address:port), reset, key exchange
 *                           failed (detail: no algorithm in common, the
 *                           server's and libssh's, the remedy), the
 *                           ProxyJump failed (detail: its
 *                           ssh's reason). A connection dropped before
 *                           the key exchange (sshd MaxStartups) is
 *                           retried with backoff until the deadline;
 *                           detail then names MaxStartups and --jobs
 *   BF_ERR_TIMEOUT          no answer within timeout_s
 *   BF_ERR_HOSTKEY_UNKNOWN  key not in known_hosts (detail: the SHA256
 *                           fingerprint and --accept-new-host-keys)
 *   BF_ERR_HOSTKEY_CHANGED  key differs from known_hosts, or only a key of
 *                           another type is known (detail: the file, line
 *                           and the ssh-keygen -R command), or the key
 *                           (or its certificate's CA) is @revoked, or its
 *                           host certificate does not parse or verify
 *   BF_ERR_TIMEOUT also:    an ssh-agent that does not answer
 *   BF_ERR_AUTH             no key from the key files or agent accepted
 *                           (detail: what was tried; MaxAuthTries when
 *                           sshd disconnected)
 *   BF_ERR_IO               known_hosts unreadable or not writable
 *   BF_ERR_INTERRUPTED      *opts->cancel was set
 *   BF_ERR_NOMEM
 */
enum bf_err remote_connect(struct remote **out, const struct remote_opts *opts,
			   char *detail, size_t detail_len);

/* The server's host key as OpenSSH prints it: "SHA256:" and unpadded
 * base64. Static to the handle (valid until remote_free). */
const char *remote_fingerprint(const struct remote *r);

/* Non-zero when remote_connect added this host's key to known_hosts
 * (accept_new_host_keys and the key was unknown). */
int remote_host_key_added(const struct remote *r);

/* Called for each line of a command's stdout as soon as the line is
 * complete: `line` holds len_bytes bytes without the '\n' (and is followed
 * by a NUL that is not counted; the line itself may contain NULs). A line
 * longer than the cap arrives once, cut to the cap, with truncated = 1. A
 * last line without '\n' is delivered when the command ends. `line` is only
 * valid during the call. Return BF_OK to go on; any other code stops the
 * command (as cancel does) and remote_exec returns that code. The callback
 * must not call remote_* on the same handle. */
typedef enum bf_err (*remote_line_fn)(void *arg, const char *line,
				      size_t len_bytes, int truncated);

struct remote_exec_cb {
	remote_line_fn on_line;  /* NULL: stdout is read and discarded */
	void *arg;               /* passed to on_line */
	size_t line_max_bytes;   /* 0: REMOTE_LINE_MAX_BYTES */
	/* Optional: every stderr byte as it arrives, in chunks of any size
	 * (not split into lines), with stderr_arg; buf is only valid during
	 * the call, which must not call remote_* on the handle. The tail in
	 * the result is kept either way. */
	void (*on_stderr)(void *stderr_arg, const char *buf,
			  size_t len_bytes);
	void *stderr_arg;
};

struct remote_exec_result {
	/* 0..255 when the command exited; -1 when it was killed by a signal
	 * (see exit_signal). */
	int exit_status;
	/* Signal name without "SIG" ("KILL", "SEGV") when the command was
	 * killed by one (as the server named it; one over 31 bytes is cut,
	 * ending in "..."); "" otherwise. */
	char exit_signal[32];
	int core_dumped;
	/* The last whole lines of stderr within REMOTE_STDERR_TAIL_BYTES,
	 * NUL-terminated; when earlier bytes were dropped, a first line
	 * "[ctl: N bytes of stderr dropped before this line]" says how many
	 * (base/tail.h). Static to the handle: valid until the next
	 * remote_exec or remote_free on it. Never NULL after remote_exec
	 * returned. */
	const char *stderr_tail;
	size_t stderr_tail_bytes;
	unsigned long long stderr_total_bytes;  /* all of it, >= tail */
	unsigned long long stdout_total_bytes;
	size_t lines;             /* stdout lines delivered */
	size_t lines_truncated;   /* of which cut to the cap */
};

/*
 * Runs `command` with the login shell of the remote account, on a channel of
 * its own, with stdin at end of file. Blocks until the command ends; stdout
 * goes line by line to cb->on_line as it arrives; stderr is kept (its tail)
 * in res. cb may be NULL. res must not be NULL; it is filled also on error
 * (as far as the command got).
 *
 * Returns BF_OK when the command ended and reported how: a non-zero exit
 * status or a signal is not an error of this layer (look at res). Errors:
 *   BF_ERR_TIMEOUT      the server was silent for timeout_s (liveness probes
 *                       unanswered); the handle is unusable afterwards
 *   BF_ERR_INTERRUPTED  the cancel flag was set: the command's channel
 *                       is closed (its next write to stdout or stderr
 *                       gets SIGPIPE) and SIGTERM is requested for its
 *                       process group, which OpenSSH's sshd delivers for
 *                       non-root logins only ("session signalling requires
 *                       privilege separation"); the handle can be used
 *                       again
 *   BF_ERR_CONNECT      the connection was lost, or the server refused a
 *                       channel or the command
 *   BF_ERR_REMOTE       the channel closed without an exit status
 *   any code on_line returned (the command is stopped as for cancel)
 *   BF_ERR_NOMEM
 */
enum bf_err remote_exec(struct remote *r, const char *command,
			const struct remote_exec_cb *cb,
			struct remote_exec_result *res, char *detail,
			size_t detail_len);

/*
 * Writes len_bytes bytes from data to remote_path over SFTP, so that no
 * reader ever sees a partial file: the bytes go to a temporary name in the
 * same directory, which is given `mode` (e.g. 0755) and then renamed onto
 * remote_path. libssh 0.10's sftp_rename is the plain SFTP rename, which
 * refuses an existing target, so an existing file is removed first: a
 * reader sees the old file, for an instant no file, then the new one. The
 * directory must exist (remote_mkdir_p).
 * SFTP does not expand "~"; a relative path is relative to the SFTP login
 * directory (the account's home in the passwd database, which can differ
 * from $HOME), so pass absolute paths. Blocks; each SFTP request is bounded
 * by timeout_s. Errors: BF_ERR_NOT_FOUND (directory missing), BF_ERR_IO
 * (refused by the server, e.g. permissions), BF_ERR_TIMEOUT,
 * BF_ERR_INTERRUPTED (after either the handle is unusable),
 * BF_ERR_CONNECT, BF_ERR_NOMEM. The temporary file (".NAME.bf-tmp-*") is
 * removed on failure when the connection still allows it; after a timeout
 * or an interruption it stays behind.
 */
enum bf_err remote_upload(struct remote *r, const char *remote_path,
			  const void *data, size_t len_bytes, int mode,
			  char *detail, size_t detail_len);

/*
 * Creates directory remote_path and any missing parents, with `mode`
 * (benchfleet uses 0700), over SFTP; existing directories are left as they
 * are. Path rules, blocking and errors as remote_upload; an existing
 * non-directory in the way is BF_ERR_IO.
 */
enum bf_err remote_mkdir_p(struct remote *r, const char *remote_path, int mode,
			   char *detail, size_t detail_len);

/* Closes the session (politely when the server is still answering) and
 * frees the handle. NULL does nothing. Does not block for long on a dead
 * host. */
void remote_free(struct remote *r);

#endif
