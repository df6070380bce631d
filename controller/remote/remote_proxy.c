/*
 * remote_proxy: the process a connection goes through when ssh_config says
 * ProxyJump or ProxyCommand. benchfleet starts it itself (libssh 0.10 runs
 * ProxyJump as an `ssh -W` without -F and with its stderr thrown away) and
 * hands libssh one end of a socketpair (SSH_OPTIONS_FD). The child runs in
 * a session of its own, so it has no controlling terminal and cannot
 * prompt over the live table; the jump ssh runs with BatchMode=yes and
 * StrictHostKeyChecking=yes (accept-new with --accept-new-host-keys), and
 * gets the same -F. Its stderr comes back through a pipe into a tail
 * (base/tail.h), so that the reason a jump failed reaches the user. The
 * child is started, read and stopped by base/proc.c.
 */
#include "remote/remote_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/proc.h"
#include "remote/remote_target.h"
#include "xmalloc.h"

#define PROXY_ARGV_MAX 24

/* printf into *w, before end, as one NUL-terminated argv string; moves
 * *w past it. Returns where it starts, or NULL when it does not fit
 * (nothing then moves: the caller sized the store for all). */
static char *put(char **w, const char *end, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static char *put(char **w, const char *end, const char *fmt, ...)
{
	char *start = *w;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(start, (size_t)(end - start), fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= (size_t)(end - start))
		return NULL;
	*w += k + 1;
	return start;
}

/* argv for the jump: ssh [-F f] -o BatchMode=yes -o SHKC=.. [-J first,..]
 * -W [host]:port [-l user] [-p port] -- lasthop. Its strings in *store, a
 * new buffer the caller frees (also on error), holding them whole. */
static int jump_argv(const struct remote_config *cfg, int accept_new,
		     char **argv, char **store, char *detail,
		     size_t detail_len)
{
	const char *ssh = getenv(REMOTE_SSH_CLIENT_ENV);
	/* The jumps, then "[hostname]:port", user, port and last host
	 * (these two parts of the jumps' last hop), each with its NUL
	 * and 64 bytes for the brackets, ports and NULs. */
	size_t size = 2 * strlen(cfg->proxy_jump) + strlen(cfg->hostname) +
		      64;
	char *jumps, *last, *user = NULL, *host = NULL, *w, *end;
	int n = 0, port = 0, ok;

	*store = bf_xmalloc(size);
	jumps = *store;
	end = *store + size;
	w = *store + strlen(cfg->proxy_jump) + 1;
	if (!ssh || !*ssh || !strcmp(ssh, "none"))
		ssh = "ssh";
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
	argv[n++] = (char *)"-W";
	ok = !!(argv[n++] = put(&w, end, strchr(cfg->hostname, ':') ?
				"[%s]:%d" : "%s:%d", cfg->hostname,
				cfg->port));
	if (user) {
		argv[n++] = (char *)"-l";
		ok &= !!(argv[n++] = put(&w, end, "%s", user));
	}
	if (port) {
		argv[n++] = (char *)"-p";
		ok &= !!(argv[n++] = put(&w, end, "%d", port));
	}
	argv[n++] = (char *)"--";
	ok &= !!(argv[n++] = put(&w, end, "%s", host));
	argv[n] = NULL;
	free(user);
	free(host);
	return ok ? 0 : -1;
}

enum bf_err remote_proxy_start(struct remote *r, int accept_new, int *fd,
			       char *detail, size_t detail_len)
{
	const struct remote_config *cfg = &r->cfg;
	char *argv[PROXY_ARGV_MAX];
	char *store = NULL;
	struct proc_spec s = { .argv = argv, .search_path = 1,
			       .new_session = 1, .err_nonblock = 1 };
	int sv[2] = { -1, -1 }, rc = 0;
	enum bf_err e;

	*fd = -1;
	if (r->proxy_err.data)
		tail_reset(&r->proxy_err);
	if (cfg->proxy_jump) {
		if (jump_argv(cfg, accept_new, argv, &store, detail,
			      detail_len) != 0) {
			free(store);
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "connect %s: bad ProxyJump '%s'",
				       r->name, cfg->proxy_jump);
		}
	} else {
		/* Whole: a cut command would run another one. */
		store = bf_xasprintf("exec %s", cfg->proxy_command);
		argv[0] = (char *)"/bin/sh";
		argv[1] = (char *)"-c";
		argv[2] = store;
		argv[3] = NULL;
	}
	s.path = argv[0];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		e = bf_fail(detail, detail_len, BF_ERR_IO,
			    "connect %s: proxy: %s", r->name,
			    strerror(errno));
		free(store);
		return e;
	}
	s.io_fd = sv[1];
	e = proc_start(&s, &r->proxy, &rc);
	close(sv[1]);
	if (e != BF_OK) {
		close(sv[0]);
		if (e == BF_ERR_IO)
			e = bf_fail(detail, detail_len, BF_ERR_IO,
				    "connect %s: proxy: %s", r->name,
				    strerror(rc));
		else
			e = bf_fail(detail, detail_len, BF_ERR_CONNECT,
				    "connect %s: cannot start %s: %s",
				    r->name, argv[0], strerror(rc));
		free(store);
		return e;
	}
	free(store);
	*fd = sv[0];
	return BF_OK;
}

/* proc_chunk_fn: the proxy's stderr into its tail. */
static void proxy_err_chunk(void *arg, const char *buf, size_t n)
{
	tail_append(arg, buf, n);
}

const char *remote_proxy_reason(struct remote *r, int64_t wait_ms)
{
	char *end, *start;

	if (!r->proxy_err.data)
		return "";
	/* What is there, even once cancelled; then, as the child may still
	 * be writing its last words, up to its end of file, briefly. */
	proc_pump(&r->proxy, remote_mono_ms() + 1, NULL, NULL,
		  proxy_err_chunk, &r->proxy_err);
	if (wait_ms > 0)
		proc_pump(&r->proxy, remote_mono_ms() + wait_ms, r->cancel,
			  NULL, proxy_err_chunk, &r->proxy_err);
	/* Its last line, in a copy: the tail goes on collecting. */
	/* fits: the tail keeps REMOTE_PROXY_ERR_BYTES at most (tail.h
	 * len_bytes <= cap_bytes), proxy_why has one more for the NUL */
	snprintf(r->proxy_why, sizeof r->proxy_why, "%s", r->proxy_err.data);
	end = r->proxy_why + strlen(r->proxy_why);
	while (end > r->proxy_why && (end[-1] == '\n' || end[-1] == '\r' ||
				      end[-1] == ' '))
		*--end = '\0';
	start = end;
	while (start > r->proxy_why && start[-1] != '\n')
		start--;
	for (char *c = start; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	return start;
}

void remote_proxy_stop(struct remote *r)
{
	/* Its socket is closed by now (libssh owns it): a jump ssh exits
	 * on its own; TERM then KILL make sure, bounded (1 s). */
	proc_stop(&r->proxy, 1000);
}
