/* A short local program run to its end, its output kept; see
 * remote_capture.h. */
#include "remote/remote_capture.h"
#include "remote/remote_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* One growing, NUL-terminated buffer of at most max bytes. */
struct capbuf {
	char **s;
	size_t *len, cap, max;
	int oom;
};

/* Appends what is readable on fd to b. Returns 1 at end of file (or a
 * read error), 0 otherwise. */
static int slurp(int fd, struct capbuf *b)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof tmp);
	size_t keep;

	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
		return 1;
	if (n < 0 || b->oom || *b->len >= b->max)
		return 0;
	keep = (size_t)n < b->max - *b->len ? (size_t)n : b->max - *b->len;
	if (*b->len + keep + 1 > b->cap) {
		size_t cap = (*b->len + keep + 1) * 2;
		char *s = realloc(*b->s, cap);

		if (!s) {
			b->oom = 1;
			return 0;
		}
		*b->s = s;
		b->cap = cap;
	}
	memcpy(*b->s + *b->len, tmp, keep);
	*b->len += keep;
	(*b->s)[*b->len] = '\0';
	return 0;
}

enum bf_err remote_capture_run(char *const argv[], int64_t deadline_ms,
			       const atomic_int *cancel, size_t out_max,
			       size_t err_max, struct remote_capture *c)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	int out_eof = 0, err_eof = 0, rc;
	pid_t pid = -1;
	enum bf_err e = BF_OK;
	struct capbuf out, err;

	memset(c, 0, sizeof *c);
	out = (struct capbuf){ &c->out, &c->out_len, 0, out_max, 0 };
	err = (struct capbuf){ &c->err, &c->err_len, 0, err_max, 0 };
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		c->spawn_errno = errno;
		e = BF_ERR_IO;
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (rc != 0) {
		c->spawn_errno = rc;
		pid = -1;
		e = BF_ERR_NOT_FOUND;
		goto out;
	}
	while (!out_eof || !err_eof) {
		struct pollfd p[2] = { { po[0], POLLIN, 0 },
				       { pe[0], POLLIN, 0 } };
		int64_t left = deadline_ms - remote_mono_ms();

		if (remote_flag_set(cancel)) {
			e = BF_ERR_INTERRUPTED;
			break;
		}
		if (left <= 0) {
			e = BF_ERR_TIMEOUT;
			break;
		}
		if (out_eof)
			p[0].fd = -1;
		if (err_eof)
			p[1].fd = -1;
		if (poll(p, 2, left < 50 ? (int)left : 50) < 0 &&
		    errno != EINTR)
			break;
		if (p[0].revents && slurp(po[0], &out))
			out_eof = 1;
		if (p[1].revents && slurp(pe[0], &err))
			err_eof = 1;
	}
	if (e == BF_OK && (out.oom || err.oom))
		e = BF_ERR_NOMEM;
out:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	if (pid > 0) {
		if (e != BF_OK)
			kill(pid, SIGKILL);
		while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
			;
	}
	return e;
}

void remote_capture_free(struct remote_capture *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
	c->out_len = c->err_len = 0;
}
