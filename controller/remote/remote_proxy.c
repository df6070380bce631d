/*
 * remote_proxy: the process a connection goes through when ssh_config says
 * ProxyJump or ProxyCommand. benchfleet starts it itself (libssh 0.10 runs
 * ProxyJump as an `ssh -W` without -F and with its stderr thrown away) and
 * hands libssh one end of a socketpair (SSH_OPTIONS_FD). The child runs in
 * a session of its own, so it has no controlling terminal and cannot
 * prompt over the live table; the jump ssh runs with BatchMode=yes and
 * StrictHostKeyChecking=yes (accept-new with --accept-new-host-keys), and
 * gets the same -F. Its stderr comes back through a pipe, so that the
 * reason a jump failed reaches the user.
 */
#include "remote/remote_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote/remote_target.h"

extern char **environ;

#define PROXY_ARGV_MAX 24

/* argv for the jump: ssh [-F f] -o BatchMode=yes -o SHKC=.. [-J first,..]
 * -W [host]:port [-l user] [-p port] -- lasthop. Strings in store. */
static int jump_argv(const struct remote_config *cfg, int accept_new,
		     char **argv, char *store, size_t store_size,
		     char *detail, size_t detail_len)
{
	const char *ssh = getenv(REMOTE_SSH_CLIENT_ENV);
	char *jumps = store, *last, *user = NULL, *host = NULL;
	char *w = store + strlen(cfg->proxy_jump) + 1;
	int n = 0, port = 0;
	size_t left;

	if (!ssh || !*ssh || !strcmp(ssh, "none"))
		ssh = "ssh";
	if (strlen(cfg->proxy_jump) + 512 + strlen(cfg->hostname) > store_size)
		return -1;
	memcpy(jumps, cfg->proxy_jump, strlen(cfg->proxy_jump) + 1);
	last = strrchr(jumps, ',');
	if (last)
		*last++ = '\0';
	else
		last = jumps;
	if (!strncmp(last, "ssh://", 6))
		last += 6;
	if (remote_target_parse(last, &user, &host, &port, detail,
				detail_len) != BF_OK)
		return -1;
	argv[n++] = (char *)ssh;
	if (cfg->ssh_file) {
		argv[n++] = (char *)"-F";
		argv[n++] = cfg->ssh_file;
	}
	argv[n++] = (char *)"-o";
	argv[n++] = (char *)"BatchMode=yes";
	argv[n++] = (char *)"-o";
	argv[n++] = accept_new ? (char *)"StrictHostKeyChecking=accept-new" :
		    (char *)"StrictHostKeyChecking=yes";
	if (last != jumps) {
		argv[n++] = (char *)"-J";
		argv[n++] = jumps;
	}
	left = store_size - (size_t)(w - store);
	argv[n++] = (char *)"-W";
	argv[n++] = w;
	w += snprintf(w, left, strchr(cfg->hostname, ':') ? "[%s]:%d" :
		      "%s:%d", cfg->hostname, cfg->port) + 1;
	if (user) {
		left = store_size - (size_t)(w - store);
		argv[n++] = (char *)"-l";
		argv[n++] = w;
		w += snprintf(w, left, "%s", user) + 1;
	}
	if (port) {
		left = store_size - (size_t)(w - store);
		argv[n++] = (char *)"-p";
		argv[n++] = w;
		w += snprintf(w, left, "%d", port) + 1;
	}
	left = store_size - (size_t)(w - store);
	argv[n++] = (char *)"--";
	argv[n++] = w;
	snprintf(w, left, "%s", host);
	argv[n] = NULL;
	free(user);
	free(host);
	return 0;
}

enum bf_err remote_proxy_start(struct remote *r, int accept_new, int *fd,
			       char *detail, size_t detail_len)
{
	const struct remote_config *cfg = &r->cfg;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char *argv[PROXY_ARGV_MAX];
	char store[8192];
	int sv[2] = { -1, -1 }, pe[2] = { -1, -1 }, rc;
	pid_t pid;

	*fd = -1;
	if (cfg->proxy_jump) {
		if (jump_argv(cfg, accept_new, argv, store, sizeof store,
			      detail, detail_len) != 0)
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "connect %s: bad ProxyJump '%s'",
				       r->name, cfg->proxy_jump);
	} else {
		snprintf(store, sizeof store, "exec %s", cfg->proxy_command);
		argv[0] = (char *)"/bin/sh";
		argv[1] = (char *)"-c";
		argv[2] = store;
		argv[3] = NULL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
	    pipe2(pe, O_CLOEXEC | O_NONBLOCK) != 0) {
		rc = errno;
		if (sv[0] >= 0) {
			close(sv[0]);
			close(sv[1]);
		}
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "connect %s: proxy: %s", r->name, strerror(rc));
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(sv[1]);
	close(pe[1]);
	if (rc != 0) {
		close(sv[0]);
		close(pe[0]);
		return bf_fail(detail, detail_len, BF_ERR_CONNECT,
			       "connect %s: cannot start %s: %s", r->name,
			       argv[0], strerror(rc));
	}
	r->proxy_pid = pid;
	r->proxy_err_fd = pe[0];
	r->proxy_err_len = 0;
	*fd = sv[0];
	return BF_OK;
}

/* Keeps the last bytes the proxy wrote to stderr (reads what is there). */
static void proxy_read_err(struct remote *r)
{
	char tmp[1024];
	ssize_t n;

	while (r->proxy_err_fd >= 0 &&
	       (n = read(r->proxy_err_fd, tmp, sizeof tmp)) > 0) {
		size_t cap = sizeof r->proxy_err - 1, k = (size_t)n;

		if (k > cap)
			k = cap;
		if (r->proxy_err_len + k > cap) {
			size_t drop = r->proxy_err_len + k - cap;

			memmove(r->proxy_err, r->proxy_err + drop,
				r->proxy_err_len - drop);
			r->proxy_err_len -= drop;
		}
		memcpy(r->proxy_err + r->proxy_err_len, tmp + (size_t)n - k,
		       k);
		r->proxy_err_len += k;
		r->proxy_err[r->proxy_err_len] = '\0';
	}
}

const char *remote_proxy_reason(struct remote *r, int64_t wait_ms)
{
	int64_t until = remote_mono_ms() + wait_ms;
	char *end, *start;

	if (r->proxy_err_fd < 0)
		return "";
	/* The child may still be writing its last words: wait for end of
	 * file on its stderr, briefly. */
	for (;;) {
		struct pollfd p = { r->proxy_err_fd, POLLIN, 0 };
		int64_t left = until - remote_mono_ms();

		proxy_read_err(r);
		if (left <= 0 || remote_cancelled(r) ||
		    poll(&p, 1, left < 50 ? (int)left : 50) < 0)
			break;
		if (p.revents & POLLHUP) {
			proxy_read_err(r);
			break;
		}
	}
	end = r->proxy_err + r->proxy_err_len;
	while (end > r->proxy_err && (end[-1] == '\n' || end[-1] == '\r' ||
				      end[-1] == ' '))
		*--end = '\0';
	start = end;
	while (start > r->proxy_err && start[-1] != '\n')
		start--;
	for (char *c = start; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	return start;
}

void remote_proxy_stop(struct remote *r)
{
	int status;

	if (r->proxy_err_fd >= 0) {
		close(r->proxy_err_fd);
		r->proxy_err_fd = -1;
	}
	if (r->proxy_pid <= 0)
		return;
	/* Its socket is closed by now (libssh owns it): a jump ssh exits
	 * on its own; TERM then KILL make sure, bounded. */
	kill(r->proxy_pid, SIGTERM);
	for (int i = 0; i < 40; i++) {
		if (waitpid(r->proxy_pid, &status, WNOHANG) != 0)
			goto reaped;
		remote_sleep_ms(25);
	}
	kill(r->proxy_pid, SIGKILL);
	while (waitpid(r->proxy_pid, &status, 0) < 0 && errno == EINTR)
		;
reaped:
	r->proxy_pid = 0;
}
