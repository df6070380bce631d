/* A local child, started, read and ended one way; see proc.h. */
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bf_clock.h"

extern char **environ;

/* Longest wait between looks at the cancel flag and the deadline. */
#define PROC_SLICE_MS 50
/* How often proc_stop looks whether the child has exited. */
#define PROC_STOP_STEP_MS 25

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int64_t now_ms(void)
{
	return (int64_t)(bf_now_ns() / 1000000u);
}

enum bf_err proc_start(const struct proc_spec *s, struct proc *p,
		       int *sys_errno)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, rc;
	pid_t pid = 0;

	p->pid = 0;
	p->out_fd = p->err_fd = -1;
	if ((s->io_fd < 0 && pipe2(po, O_CLOEXEC) != 0) ||
	    pipe2(pe, O_CLOEXEC) != 0 ||
	    (s->err_nonblock && fcntl(pe[0], F_SETFL, O_NONBLOCK) != 0)) {
		rc = errno;
		for (int i = 0; i < 2; i++) {
			close_fd(&po[i]);
			close_fd(&pe[i]);
		}
		if (sys_errno)
			*sys_errno = rc;
		return BF_ERR_IO;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	if (s->io_fd >= 0) {
		posix_spawn_file_actions_adddup2(&fa, s->io_fd, STDIN_FILENO);
		posix_spawn_file_actions_adddup2(&fa, s->io_fd, STDOUT_FILENO);
	} else {
		posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
						 O_RDONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, po[1], STDOUT_FILENO);
	}
	posix_spawn_file_actions_adddup2(&fa, pe[1], STDERR_FILENO);
	if (s->new_session) {
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	} else {
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
		posix_spawnattr_setpgroup(&at, 0);
	}
	rc = (s->search_path ? posix_spawnp : posix_spawn)(
		&pid, s->path, &fa, &at, s->argv, s->envp ? s->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close_fd(&po[1]);
	close_fd(&pe[1]);
	if (rc != 0) {
		close_fd(&po[0]);
		close_fd(&pe[0]);
		if (sys_errno)
			*sys_errno = rc;
		return BF_ERR_NOT_FOUND;
	}
	p->pid = pid;
	p->out_fd = po[0];
	p->err_fd = pe[0];
	return BF_OK;
}

/* Reads what is there on *fd into fn(arg); closes it at end of file or
 * on a read error. */
static void pump_one(int *fd, proc_chunk_fn fn, void *arg)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(fd);
		return;
	}
	if (fn)
		fn(arg, buf, (size_t)n);
}

enum bf_err proc_pump(struct proc *p, int64_t deadline_ms,
		      const atomic_int *cancel, proc_chunk_fn on_out,
		      proc_chunk_fn on_err, void *arg)
{
	while (p->out_fd >= 0 || p->err_fd >= 0) {
		struct pollfd f[2] = { { p->out_fd, POLLIN, 0 },
				       { p->err_fd, POLLIN, 0 } };
		int wait_ms = PROC_SLICE_MS;

		if (cancel && atomic_load_explicit(cancel, memory_order_relaxed))
			return BF_ERR_INTERRUPTED;
		if (deadline_ms >= 0) {
			int64_t left = deadline_ms - now_ms();

			if (left <= 0)
				return BF_ERR_TIMEOUT;
			if (left < wait_ms)
				wait_ms = (int)left;
		}
		if (poll(f, 2, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot wait on the pipes: stop reading them (the
			 * child gets SIGPIPE if it writes on). */
			close_fd(&p->out_fd);
			close_fd(&p->err_fd);
			break;
		}
		if (p->out_fd >= 0 && f[0].revents)
			pump_one(&p->out_fd, on_out, arg);
		if (p->err_fd >= 0 && f[1].revents)
			pump_one(&p->err_fd, on_err, arg);
	}
	return BF_OK;
}

void proc_signal(const struct proc *p, int sig)
{
	if (p->pid > 0)
		kill(-p->pid, sig);
}

int proc_exited(struct proc *p, int *wstatus)
{
	int st = 0;

	if (p->pid <= 0 || waitpid(p->pid, &st, WNOHANG) != p->pid)
		return 0;
	p->pid = 0;
	if (wstatus)
		*wstatus = st;
	return 1;
}

void proc_reap(struct proc *p, int kill_sig, int *wstatus)
{
	int st = 0;

	close_fd(&p->out_fd);
	close_fd(&p->err_fd);
	if (p->pid > 0) {
		if (kill_sig)
			proc_signal(p, kill_sig);
		while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	p->pid = 0;
	if (wstatus)
		*wstatus = st;
}

void proc_stop(struct proc *p, int64_t grace_ms)
{
	struct timespec step = { 0, PROC_STOP_STEP_MS * 1000000L };
	int st;

	close_fd(&p->out_fd);
	close_fd(&p->err_fd);
	if (p->pid <= 0)
		return;
	proc_signal(p, SIGTERM);
	for (int64_t t = 0; t < grace_ms; t += PROC_STOP_STEP_MS) {
		if (waitpid(p->pid, &st, WNOHANG) != 0) {
			p->pid = 0;
			return;
		}
		nanosleep(&step, NULL);
	}
	proc_reap(p, SIGKILL, NULL);
}

/* proc_run_lines' state: stdout through the splitter, stderr on. */
struct run_lines {
	struct linesplit lines;
	size_t max_line;
	linesplit_fn on_line;
	void *line_arg;
	proc_chunk_fn on_err;
	void *err_arg;
};

static void lines_out(void *arg, const char *buf, size_t n)
{
	struct run_lines *c = arg;

	/* A line sink stops the feed only when out of memory: that line
	 * is dropped, the rest goes on. */
	if (c->on_line && linesplit_feed(&c->lines, buf, n, c->on_line,
					 c->line_arg) != BF_OK)
		linesplit_reset(&c->lines, c->max_line);
}

static void lines_err(void *arg, const char *buf, size_t n)
{
	struct run_lines *c = arg;

	if (c->on_err)
		c->on_err(c->err_arg, buf, n);
}

enum bf_err proc_run_lines(const char *path, char *const argv[],
			   char *const envp[], size_t max_line,
			   linesplit_fn on_line, void *line_arg,
			   proc_chunk_fn on_err, void *err_arg,
			   const atomic_int *cancel, int *wstatus,
			   int *cancelled, char *detail, size_t detail_len)
{
	struct proc_spec s = { .path = path, .argv = argv, .envp = envp,
			       .io_fd = -1 };
	struct run_lines c = { .max_line = max_line, .on_line = on_line,
			       .line_arg = line_arg, .on_err = on_err,
			       .err_arg = err_arg };
	struct proc p;
	enum bf_err err;
	int e = 0;

	*wstatus = 0;
	*cancelled = 0;
	err = proc_start(&s, &p, &e);
	if (err == BF_ERR_IO)
		return bf_fail(detail, detail_len, BF_ERR_IO, "pipe: %s",
			       strerror(e));
	if (err != BF_OK)
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "cannot start %s: %s", path, strerror(e));
	linesplit_reset(&c.lines, max_line);
	if (proc_pump(&p, -1, cancel, lines_out, lines_err, &c) ==
	    BF_ERR_INTERRUPTED) {
		/* Stopped as it must (for srun: scancels the job itself);
		 * what it says while it ends is still read. */
		proc_signal(&p, SIGTERM);
		*cancelled = 1;
		proc_pump(&p, -1, NULL, lines_out, lines_err, &c);
	}
	if (on_line) /* a last line without '\n' */
		linesplit_finish(&c.lines, on_line, line_arg);
	proc_reap(&p, 0, wstatus);
	linesplit_free(&c.lines);
	return BF_OK;
}
