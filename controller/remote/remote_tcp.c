/*
 * remote_tcp: a TCP connection to a host made by ctl itself, for the host
 * names libssh 0.10 refuses to connect to but OpenSSH takes. libssh's
 * ssh_options_set(SSH_OPTIONS_HOST) refuses, without a message, a name
 * with a label over 63 characters or a character other than letters,
 * digits, '-' and '.' ("my_host", "plus+1"; libssh 0.10.6 options.c,
 * ssh_check_hostname_syntax), while ssh(1) hands any name its
 * valid_hostname() takes to getaddrinfo(3), and /etc/hosts may well list
 * it. For those names remote_session.c connects here and gives libssh the
 * socket (SSH_OPTIONS_FD), as it does for a ProxyCommand.
 *
 * Like libssh: getaddrinfo (which blocks, as libssh's own lookup does),
 * then each address in turn, connected without blocking, so that the
 * deadline and the cancel flag are checked every REMOTE_SLICE_MS.
 */
#include "remote/remote_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xmalloc.h"

/* Connects one address by deadline_ms. Returns the socket, or -1 with
 * errno (ETIMEDOUT at the deadline, EINTR when cancelled). */
static int connect_addr(struct remote *r, const struct addrinfo *ai,
			int64_t deadline_ms)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
			SOCK_NONBLOCK, ai->ai_protocol);
	int on = 1, err = 0;
	socklen_t len = sizeof err;

	if (fd < 0)
		return -1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		goto connected;
	if (errno != EINPROGRESS)
		goto fail;
	for (;;) {
		struct pollfd p = { fd, POLLOUT, 0 };
		int64_t left = deadline_ms - remote_mono_ms();

		if (remote_cancelled(r)) {
			errno = EINTR;
			goto fail;
		}
		if (left <= 0) {
			errno = ETIMEDOUT;
			goto fail;
		}
		if (poll(&p, 1, left < REMOTE_SLICE_MS ? (int)left :
			 REMOTE_SLICE_MS) > 0)
			break;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		goto fail;
	if (err) {
		errno = err;
		goto fail;
	}
connected:
	/* libssh drives the socket in its own (non)blocking modes. */
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

enum bf_err remote_tcp_connect(struct remote *r, const char *host, int port,
			       int64_t deadline_ms, int *fd, char **msg)
{
	struct addrinfo hints, *res = NULL, *ai;
	char service[16];
	int rc, last = 0;

	*fd = -1;
	*msg = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof service, "%d", port);
	rc = getaddrinfo(host, service, &hints, &res);
	if (rc != 0) {
		/* libssh's words, which connect_failed() recognises. */
		*msg = bf_xasprintf("Failed to resolve hostname %s (%s)",
				    host, gai_strerror(rc));
		return BF_ERR_CONNECT;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		*fd = connect_addr(r, ai, deadline_ms);
		if (*fd >= 0)
			break;
		last = errno;
		if (last == EINTR || last == ETIMEDOUT)
			break;
	}
	freeaddrinfo(res);
	if (*fd >= 0)
		return BF_OK;
	if (last == EINTR)
		return BF_ERR_INTERRUPTED;
	if (last == ETIMEDOUT)
		return BF_ERR_TIMEOUT;
	*msg = bf_xasprintf("Connection to %s port %d failed: %s", host,
			    port, strerror(last));
	return BF_ERR_CONNECT;
}
