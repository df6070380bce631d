/*
 * `ctl run local`: the agent built beside ctl, run as a child process with
 * no SSH. stdout is read line by line as it arrives (linesplit.c, capped
 * at BF_RECORD_MAX_BYTES) into the session; stderr goes to the host's log. The child gets its own process group, so a Ctrl-C reaches
 * ctl alone and ctl stops the agent (SIGTERM) and archives what arrived;
 * if ctl dies instead, --exit-on-hangup makes the agent stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linesplit.h"
#include "runner.h"
#include "schema.h"
#include "session.h"
#include "xmalloc.h"

extern char **environ;

/* The agent binary: $BENCHFLEET_AGENT, else "agent" beside ctl. Caller
 * frees. */
static char *agent_path(void)
{
	const char *env = getenv("BENCHFLEET_AGENT");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env)
		return bf_xstrdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return bf_xstrdup("agent");
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		slash[1] = '\0';
	return bf_xasprintf("%sagent", self);
}

static enum bf_err run_local(struct host_ctx *h, char *detail, size_t detail_len)
{
	char *path = agent_path(), **args = h->agent_argv, **argv;
	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 }, argc = 0;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct linesplit lines = { 0 };
	char errtail[512] = "";
	enum bf_err err = BF_OK;
	int status = 0, open_fds = 2, term_sent = 0;
	pid_t pid = -1;

	while (args[argc])
		argc++;
	argv = bf_xcalloc((size_t)argc + 2, sizeof(*argv));
	argv[0] = path;
	memcpy(argv + 1, args, (size_t)argc * sizeof(*argv));

	linesplit_reset(&lines, BF_RECORD_MAX_BYTES);
	session_progress(h, HOST_RUNNING, NULL);
	if (access(path, X_OK) != 0) {
		err = bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			      "agent not found at %s: build it first (cmake --build build)",
			      path);
		goto out;
	}
	if (pipe2(out_pipe, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0) {
		err = bf_fail(detail, detail_len, BF_ERR_IO, "pipe: %s",
			      strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_pipe[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, err_pipe[1], STDERR_FILENO);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	errno = posix_spawn(&pid, path, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(out_pipe[1]);
	close(err_pipe[1]);
	out_pipe[1] = err_pipe[1] = -1;
	if (errno != 0) {
		pid = -1;
		err = bf_fail(detail, detail_len, BF_ERR_IO, "cannot start %s: %s",
			      path, strerror(errno));
		goto out;
	}

	while (open_fds > 0) {
		struct pollfd p[2] = { { out_pipe[0], POLLIN, 0 },
				       { err_pipe[0], POLLIN, 0 } };
		char buf[65536];

		if (*h->cancel && !term_sent) {
			kill(-pid, SIGTERM);
			term_sent = 1;
		}
		if (poll(p, 2, 200) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(p[i].fd);
				if (i == 0)
					out_pipe[0] = -1;
				else
					err_pipe[0] = -1;
				open_fds--;
				continue;
			}
			if (i == 0) {
				/* session_feed_line never stops the feed;
				 * only out of memory does. */
				if (linesplit_feed(&lines, buf, (size_t)n,
						   session_feed_line, h) != BF_OK)
					linesplit_reset(&lines,
							BF_RECORD_MAX_BYTES);
			} else {
				size_t keep = (size_t)n < sizeof(errtail) - 1 ?
						      (size_t)n : sizeof(errtail) - 1;

				session_log_write(h, buf, (size_t)n);
				memcpy(errtail, buf + n - keep, keep);
				errtail[keep] = '\0';
			}
		}
	}
	linesplit_finish(&lines, session_feed_line, h); /* no '\n' at the end */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	if (*h->cancel) {
		err = bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
			      "interrupted: agent stopped");
	} else {
		const char *sig = WIFSIGNALED(status) ?
					  sigabbrev_np(WTERMSIG(status)) : NULL;

		err = session_agent_ended(h, WIFEXITED(status) ?
						     WEXITSTATUS(status) : -1,
					  sig ? sig : "?", errtail, detail,
					  detail_len);
	}
out:
	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
	}
	linesplit_free(&lines);
	free(argv);
	free(path);
	return err;
}

const struct runner runner_local = {
	.name = "local",
	.run = run_local,
};
