/*
 * remote_exec: one command on its own channel, its stdout streamed line by
 * line and its stderr tail kept (see remote_ssh.h for the contract). The
 * session is nonblocking and driven by short waits (remote_io_wait), so the
 * cancel flag and the silence timeout are checked between them. Liveness
 * while a command is quiet is probed with a global request the server must
 * answer (cancel-tcpip-forward for a forwarding that does not exist:
 * OpenSSH answers "failure"), because a stopped sshd still has its TCP
 * segments ACKed by the kernel. Cutting stdout into lines and keeping the
 * stderr tail is base/'s (linesplit.c, tail.c), shared with every runner.
 */
#include "remote/remote_internal.h"
#include "bf_text.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libssh/callbacks.h>

/* Liveness probes go out after a quarter of the timeout without a sign of
 * life, clamped so that short timeouts still leave the server time to
 * answer and long ones do not let a dead host go unnoticed for minutes. */
#define REMOTE_PROBE_MIN_MS 250
#define REMOTE_PROBE_MAX_MS 5000

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
	/* Shown only ("killed by signal TERM"); a name as long as no
	 * signal's (the server's word) is cut, ending in "...". */
	(void)bf_text_fmt(st->res->exit_signal, sizeof st->res->exit_signal,
			  "%s", sig ? sig : "?");
	st->res->core_dumped = core != 0;
}

/* linesplit_fn for linesplit_feed: counts the line, hands it on. */
static enum bf_err line_emit(void *arg, const char *line, size_t len_bytes,
			     int truncated)
{
	struct exec_state *st = arg;

	st->res->lines++;
	if (truncated)
		st->res->lines_truncated++;
	if (st->cb && st->cb->on_line)
		return st->cb->on_line(st->cb->arg, line, len_bytes,
				       truncated);
	return BF_OK;
}

/* How long silence may last before a liveness probe goes out. */
static int64_t probe_after_ms(const struct remote *r)
{
	int64_t ms = (int64_t)r->timeout_s * 1000 / 4;

	if (r->probe_after_ms > 0)   /* ServerAliveInterval */
		return r->probe_after_ms;
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
			return remote_lost(r, "exec", detail, detail_len);
		if (n == 0)
			return BF_OK;
		*last_alive_ms = remote_mono_ms();
		if (is_stderr) {
			st->res->stderr_total_bytes += (unsigned)n;
			tail_append(&r->err, buf, (size_t)n);
			if (st->cb && st->cb->on_stderr)
				st->cb->on_stderr(st->cb->stderr_arg, buf,
						  (size_t)n);
			continue;
		}
		st->res->stdout_total_bytes += (size_t)n;
		err = linesplit_feed(&r->out, buf, (size_t)n, line_emit, st);
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
	int64_t last_alive_ms = remote_mono_ms();
	int64_t now;
	int out_eof = 0, err_eof = 0;
	enum bf_err err;

	for (;;) {
		/* Process whatever arrived: channel data, exit-status, close
		 * (reads alone stop processing packets after EOF). */
		(void)ssh_channel_get_exit_status(ch);
		if (!ssh_is_connected(r->session))
			return remote_lost(r, "exec", detail, detail_len);
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
		if (remote_cancelled(r))
			return bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
				       "exec on %s: interrupted", r->name);
		now = remote_mono_ms();
		if (probe(r, now - last_alive_ms))
			last_alive_ms = now;
		if (now - last_alive_ms >= r->silence_max_ms) {
			remote_mark_broken(r, BF_ERR_TIMEOUT);
			return bf_fail(detail, detail_len, BF_ERR_TIMEOUT,
				       "exec on %s: ssh server silent for %lld s",
				       r->name,
				       (long long)(r->silence_max_ms / 1000));
		}
		remote_io_wait(r, REMOTE_SLICE_MS);
	}
	/* A last line without '\n'. */
	err = linesplit_finish(&r->out, line_emit, st);
	if (err != BF_OK)
		return bf_fail(detail, detail_len, err,
			       "exec on %s: stopped by the output handler (%s)",
			       r->name, bf_err_str(err));
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
	int64_t deadline_ms = remote_mono_ms() + (int64_t)r->timeout_s * 1000;
	const char *what = command ? "run the command" : "open a channel";
	enum bf_err err;
	int rc;

	for (;;) {
		rc = command ? ssh_channel_request_exec(ch, command) :
		     ssh_channel_open_session(ch);
		if (rc != SSH_AGAIN)
			break;
		err = remote_wait_step(r, deadline_ms);
		if (err == BF_ERR_TIMEOUT) {
			remote_mark_broken(r, err);
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
		return remote_lost(r, "exec", detail, detail_len);
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
	int64_t deadline_ms;
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
	tail_reset(&r->err);
	res->stderr_tail = r->err.data;
	err = remote_check_usable(r, "exec", detail, detail_len);
	if (err != BF_OK)
		return err;

	memset(&st, 0, sizeof st);
	st.r = r;
	st.cb = cb;
	st.res = res;
	linesplit_reset(&r->out, cb && cb->line_max_bytes ?
					 cb->line_max_bytes :
					 REMOTE_LINE_MAX_BYTES);

	ssh_set_blocking(r->session, 0);
	/* One channel at a time: a server with MaxSessions 1 refuses a
	 * second, so an SFTP session left open by remote_upload or
	 * remote_mkdir_p is ended first (the next SFTP call opens another).
	 * Nonblocking, as in remote_free: a dead host costs no wait. */
	remote_sftp_end(r);
	deadline_ms = remote_mono_ms() + (int64_t)r->timeout_s * 1000;
	for (int attempt = 0;; attempt++) {
		ch = ssh_channel_new(r->session);
		if (!ch) {
			err = ssh_is_connected(r->session) ?
			      bf_fail(detail, detail_len, BF_ERR_NOMEM,
				      "exec on %s: cannot create a channel",
				      r->name) :
			      remote_lost(r, "exec", detail, detail_len);
			goto out;
		}
		memset(&ccb, 0, sizeof ccb);
		ccb.userdata = &st;
		ccb.channel_exit_status_function = on_exit_status;
		ccb.channel_exit_signal_function = on_exit_signal;
		ssh_callbacks_init(&ccb);
		callbacks_set = ssh_set_channel_callbacks(ch, &ccb) == SSH_OK;
		err = channel_step(r, ch, NULL, detail, detail_len);
		if (err != BF_ERR_CONNECT || !remote_channel_refused(r))
			break;
		/* Refused while connected: the slot of the channel closed
		 * just before (ours) may not be free yet on the server. */
		if (callbacks_set)
			ssh_remove_channel_callbacks(ch, &ccb);
		ssh_channel_free(ch);
		ch = NULL;
		callbacks_set = 0;
		switch (remote_refusal_pause(r, attempt, deadline_ms)) {
		case BF_OK:
			continue;
		case BF_ERR_INTERRUPTED:
			err = bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
				      "exec on %s: interrupted", r->name);
			goto out;
		default:
			goto out;  /* err and detail: the last refusal */
		}
	}
	if (err == BF_OK)
		err = channel_step(r, ch, command, detail, detail_len);
	if (err != BF_OK)
		goto out;
	/* Nothing to send: a command that reads stdin sees end of file. */
	if (ssh_channel_send_eof(ch) == SSH_ERROR &&
	    !ssh_is_connected(r->session)) {
		err = remote_lost(r, "exec", detail, detail_len);
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
	res->stderr_tail = tail_text(&r->err, &res->stderr_tail_bytes);
	return err;
}

