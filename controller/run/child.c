/* A local child with its output read as it comes; see child.h. */
#include "run/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bf_error.h"

extern char **environ;

void child_tail_append(char *tail, size_t len, const char *buf, size_t n)
{
	size_t have;

	if (len < 2)
		return;
	have = strnlen(tail, len - 1);
	if (n >= len - 1) {
		buf += n - (len - 1);
		n = len - 1;
		have = 0;
	} else if (have + n > len - 1) {
		size_t drop = have + n - (len - 1);

		memmove(tail, tail + drop, have - drop);
		have -= drop;
	}
	memcpy(tail + have, buf, n);
	tail[have + n] = '\0';
}

enum bf_err child_run(const char *path, char *const argv[], size_t max_line,
		      linesplit_fn on_line, void *line_arg, child_err_fn on_err,
		      void *err_arg, const atomic_int *cancel, int *wstatus,
		      int *cancelled, char *detail, size_t detail_len)
{
	return child_run_env(path, argv, environ, max_line, on_line, line_arg,
			     on_err, err_arg, cancel, wstatus, cancelled,
			     detail, detail_len);
}

enum bf_err child_run_env(const char *path, char *const argv[],
			  char *const envp[], size_t max_line,
			  linesplit_fn on_line, void *line_arg,
			  child_err_fn on_err, void *err_arg,
			  const atomic_int *cancel, int *wstatus,
			  int *cancelled, char *detail, size_t detail_len)
{
	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 }, open_fds = 2;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct linesplit lines = { 0 };
	enum bf_err err = BF_OK;
	pid_t pid = -1;

	*wstatus = 0;
	*cancelled = 0;
	linesplit_reset(&lines, max_line);
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
	/* Its own process group: a Ctrl-C on the terminal reaches ctl
	 * alone, which then stops the child as it must (and, for srun,
	 * scancels the job itself). */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	errno = posix_spawn(&pid, path, &fa, &attr, argv, envp);
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

		if (cancel && *cancel && !*cancelled) {
			kill(-pid, SIGTERM);
			*cancelled = 1;
		}
		if (poll(p, 2, 200) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 ||
			    !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(p[i].fd);
				*(i == 0 ? &out_pipe[0] : &err_pipe[0]) = -1;
				open_fds--;
				continue;
			}
			/* A line sink stops the feed only when out of
			 * memory: that line is dropped, the rest goes on. */
			if (i == 0 && on_line &&
			    linesplit_feed(&lines, buf, (size_t)n, on_line,
					   line_arg) != BF_OK)
				linesplit_reset(&lines, max_line);
			else if (i == 1 && on_err)
				on_err(err_arg, buf, (size_t)n);
		}
	}
	if (on_line)
		linesplit_finish(&lines, on_line, line_arg); /* no '\n' at the end */
	while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
		;
	pid = -1;
out:
	if (pid > 0) {
		int ignored;

		kill(-pid, SIGKILL);
		waitpid(pid, &ignored, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
	}
	linesplit_free(&lines);
	return err;
}
