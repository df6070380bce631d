/*
 * Unit tests for controller/base/proc.c, the one process runner of ctl
 * (ctl run local's agent, a local Slurm login's commands, ssh -G, a
 * proxy): stdout in lines, stderr in chunks, the exit status, a program
 * that cannot start, a cancel and a deadline (both already due, so that
 * nothing depends on how fast the machine is), and a socket as stdin and
 * stdout. Runs /bin/sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/proc.h"
#include "base/tail.h"

/* What the callbacks saw. */
struct seen {
	char lines[256];
	char err[256];
	int nlines;
};

static enum bf_err on_line(void *arg, const char *line, size_t len,
			   int truncated)
{
	struct seen *s = arg;
	size_t have = strlen(s->lines);

	snprintf(s->lines + have, sizeof(s->lines) - have, "[%.*s%s]",
		 (int)len, line, truncated ? "+" : "");
	s->nlines++;
	return BF_OK;
}

static void on_err(void *arg, const char *buf, size_t n)
{
	struct seen *s = arg;
	size_t have = strlen(s->err);

	snprintf(s->err + have, sizeof(s->err) - have, "%.*s", (int)n, buf);
}

static enum bf_err run_sh(const char *script, size_t max_line,
			  const atomic_int *cancel, struct seen *s,
			  int *wstatus, int *cancelled, char *detail,
			  size_t detail_len)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };

	memset(s, 0, sizeof(*s));
	return proc_run_lines("/bin/sh", argv, NULL, max_line, on_line, s,
			      on_err, s, cancel, wstatus, cancelled, detail,
			      detail_len);
}

/* Lines (a long one cut, a last one without '\n'), stderr, status. */
static void test_run_lines(void **state)
{
	struct seen s;
	char detail[128];
	int st = -1, stopped = -1;

	(void)state;
	assert_int_equal(run_sh("printf 'a\\n\\nbb\\n0123456789\\nccc'; "
				"printf 'err1\\nerr2\\n' >&2; exit 3",
				8, NULL, &s, &st, &stopped, detail,
				sizeof(detail)), BF_OK);
	assert_string_equal(s.lines, "[a][][bb][01234567+][ccc]");
	assert_int_equal(s.nlines, 5);
	assert_string_equal(s.err, "err1\nerr2\n");
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	assert_int_equal(stopped, 0);
}

/* The environment given is the child's, and stdin is empty. */
static void test_env_and_stdin(void **state)
{
	char *argv[] = { "sh", "-c", "echo \"$BF_T\"; cat; echo end", NULL };
	char *envp[] = { "BF_T=value", NULL };
	struct seen s = { 0 };
	char detail[128];
	int st, stopped;

	(void)state;
	assert_int_equal(proc_run_lines("/bin/sh", argv, envp, 64, on_line,
					&s, NULL, NULL, NULL, &st, &stopped,
					detail, sizeof(detail)), BF_OK);
	assert_string_equal(s.lines, "[value][end]");
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_cannot_start(void **state)
{
	struct seen s = { 0 };
	char *argv[] = { "nope", NULL };
	char detail[128];
	int st, stopped;

	(void)state;
	assert_int_equal(proc_run_lines("/nonexistent/bf-nope", argv, NULL,
					64, on_line, &s, on_err, &s, NULL,
					&st, &stopped, detail,
					sizeof(detail)), BF_ERR_IO);
	assert_string_equal(detail, "cannot start /nonexistent/bf-nope: "
			    "No such file or directory");
	assert_int_equal(s.nlines, 0);
}

/* A cancel flag already set: SIGTERM to the group, *cancelled, and the
 * child reaped. */
static void test_cancel(void **state)
{
	atomic_int cancel = 1;
	struct seen s;
	char detail[128];
	int st = 0, stopped = 0;

	(void)state;
	assert_int_equal(run_sh("exec sleep 1000", 64, &cancel, &s, &st,
				&stopped, detail, sizeof(detail)), BF_OK);
	assert_int_equal(stopped, 1);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
}

/* A deadline already passed: BF_ERR_TIMEOUT with the child running;
 * proc_reap kills it. ssh -G's path (search on PATH, own session). */
static void test_deadline(void **state)
{
	char *argv[] = { "sh", "-c", "exec sleep 1000", NULL };
	struct proc_spec sp = { .path = "sh", .argv = argv, .search_path = 1,
				.new_session = 1, .io_fd = -1 };
	struct proc p;
	int e = 0, st = 0;

	(void)state;
	assert_int_equal(proc_start(&sp, &p, &e), BF_OK);
	assert_true(p.pid > 0);
	assert_int_equal(proc_pump(&p, 0, NULL, NULL, NULL, NULL),
			 BF_ERR_TIMEOUT);
	assert_int_equal(proc_exited(&p, NULL), 0);
	proc_reap(&p, SIGKILL, &st);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGKILL);
	assert_int_equal(p.pid, 0);
	assert_int_equal(p.out_fd, -1);
	assert_int_equal(p.err_fd, -1);
	sp.path = "bf-no-such-program";
	assert_int_equal(proc_start(&sp, &p, &e), BF_ERR_NOT_FOUND);
	assert_int_equal(e, ENOENT);
	assert_int_equal(p.pid, 0);
}

/* proc_chunk_fn: stderr into a tail; stops the pump (through its cancel
 * flag) once a whole line is in. */
struct err_tail {
	struct tail t;
	atomic_int line_in;
};

static void err_into_tail(void *arg, const char *buf, size_t n)
{
	struct err_tail *et = arg;

	tail_append(&et->t, buf, n);
	if (memchr(et->t.data, '\n', et->t.len_bytes))
		et->line_in = 1;
}

/* A proxy's shape: a socket as stdin and stdout, stderr into a tail,
 * stopped by proc_stop. */
static void test_socket_and_stop(void **state)
{
	char *argv[] = { "/bin/sh", "-c",
			 "read x; echo \"got $x\"; echo \"said $x\" >&2; "
			 "exec sleep 1000", NULL };
	struct proc_spec sp = { .path = "/bin/sh", .argv = argv,
				.new_session = 1, .err_nonblock = 1 };
	struct proc p;
	struct err_tail et = { 0 };
	char buf[64];
	int sv[2], e = 0;
	ssize_t n;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
	sp.io_fd = sv[1];
	assert_int_equal(proc_start(&sp, &p, &e), BF_OK);
	close(sv[1]);
	assert_int_equal(p.out_fd, -1);
	assert_int_equal(write(sv[0], "hi\n", 3), 3);
	n = read(sv[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "got hi\n");
	assert_int_equal(tail_init(&et.t, 64), 0);
	/* stderr until its line is in; the child runs on. */
	assert_int_equal(proc_pump(&p, -1, &et.line_in, NULL, err_into_tail,
				   &et), BF_ERR_INTERRUPTED);
	assert_string_equal(et.t.data, "said hi\n");
	assert_int_equal(proc_exited(&p, NULL), 0);
	tail_free(&et.t);
	proc_stop(&p, 1000);
	assert_int_equal(p.pid, 0);
	assert_int_equal(p.err_fd, -1);
	close(sv[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_lines),
		cmocka_unit_test(test_env_and_stdin),
		cmocka_unit_test(test_cannot_start),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_socket_and_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
