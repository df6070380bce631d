/*
 * remote_wait: what every file of the SSH layer shares about one session
 * (remote_internal.h): its clock, its cancel flag, the mark that it can no
 * longer be trusted, and the bounded waits on its socket, including the
 * pause before retrying a channel the server refused. The lowest file of
 * the layer that uses libssh: remote_session.c, remote_exec.c,
 * remote_sftp.c and remote_proxy.c call it, and it calls none of them.
 */
#include "remote/remote_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

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

void remote_sleep_ms(int64_t ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int remote_channel_refused(struct remote *r)
{
	return ssh_is_connected(r->session) &&
	       ssh_get_error_code(r->session) == SSH_REQUEST_DENIED;
}

enum bf_err remote_refusal_pause(struct remote *r, int attempt,
				 int64_t deadline_ms)
{
	/* 20, 40, 80, then 100 ms: a slot is usually free again within
	 * one round trip. */
	int64_t until = remote_mono_ms() + (attempt < 3 ? 20 << attempt : 100);
	struct timespec ts;

	for (;;) {
		int64_t now = remote_mono_ms(), left = until - now;

		if (remote_cancelled(r))
			return BF_ERR_INTERRUPTED;
		if (now >= deadline_ms)
			return BF_ERR_TIMEOUT;
		if (left <= 0)
			return BF_OK;
		if (left > REMOTE_SLICE_MS)
			left = REMOTE_SLICE_MS;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left * 1000000L;
		nanosleep(&ts, NULL);
	}
}
