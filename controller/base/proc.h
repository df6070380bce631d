/*
 * proc: the one way ctl starts a local program and reads what it says,
 * for every backend family (curl's lib/curlx/ is the model: a floor that
 * each backend uses). Three users: the agent of `ctl run local` and the
 * `sh -c` commands of a Slurm cluster whose login host is this machine
 * (proc_run_lines, run/), `ssh -G` and `ssh -V` run to their end under a
 * deadline (remote/remote_capture.c), and the ProxyJump/ProxyCommand child
 * a connection goes through (remote/remote_proxy.c).
 *
 * Every child gets stdin /dev/null (or the given socket), its stdout and
 * stderr on pipes, and a process group of its own (a session of its own
 * when asked: no controlling terminal, so it cannot prompt over the live
 * table), so that a Ctrl-C on the terminal reaches ctl alone and ctl stops
 * the child's whole group itself. Signals go to that group.
 */
#ifndef BF_PROC_H
#define BF_PROC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/linesplit.h"
#include "bf_error.h"

/* A started child. pid 0: none (or reaped); fds -1 when closed. */
struct proc {
	pid_t pid;
	int out_fd;   /* read end of its stdout; -1 with io_fd */
	int err_fd;   /* read end of its stderr */
};

/* How to start it. */
struct proc_spec {
	const char *path;      /* the program; looked up on PATH when
				* search_path, else a path */
	char *const *argv;     /* argv[0] included, NULL-terminated */
	char *const *envp;     /* NULL: ctl's own environment */
	int search_path;       /* posix_spawnp rather than posix_spawn */
	int new_session;       /* setsid rather than only a new group */
	int io_fd;             /* >= 0: its stdin and stdout (a socket the
				* caller keeps its own end of); -1: stdin
				* /dev/null and stdout a pipe */
	int err_nonblock;      /* err_fd O_NONBLOCK, for reads as it comes */
};

/* Receives n bytes (no NUL) the child wrote, as read. */
typedef void (*proc_chunk_fn)(void *arg, const char *buf, size_t n);

/*
 * Starts s->path. On BF_OK *p holds the child; the caller ends it with
 * proc_reap or proc_stop. Otherwise nothing runs, *p is empty and *sys_errno
 * (may be NULL) says why: BF_ERR_IO when no pipe could be made,
 * BF_ERR_NOT_FOUND when the program could not be started (posix_spawn's
 * code: not found, not executable, ...). Thread-safe.
 */
enum bf_err proc_start(const struct proc_spec *s, struct proc *p,
		       int *sys_errno);

/*
 * Reads p's stdout and stderr as they come, each chunk to on_out or
 * on_err (either may be NULL: read and dropped), until both are closed:
 * BF_OK. Returns earlier, with the child left running, BF_ERR_INTERRUPTED
 * once *cancel (may be NULL) is non-zero, BF_ERR_TIMEOUT once deadline_ms
 * (milliseconds of CLOCK_MONOTONIC, as bf_now_ns / 1e6; < 0: none)
 * passes. Waits at most 50 ms between looks at the flag and the clock.
 */
enum bf_err proc_pump(struct proc *p, int64_t deadline_ms,
		      const atomic_int *cancel, proc_chunk_fn on_out,
		      proc_chunk_fn on_err, void *arg);

/* sig to p's process group; nothing when p has no child. */
void proc_signal(const struct proc *p, int sig);

/* Whether p's child has exited, without waiting: 1 (reaped, its status in
 * *wstatus when not NULL, p->pid 0) or 0 (still running, or none). */
int proc_exited(struct proc *p, int *wstatus);

/* Closes p's pipes, sends kill_sig to its group when non-zero, and waits
 * for the child: its status into *wstatus (may be NULL; 0 when p had no
 * child). p is empty afterwards. */
void proc_reap(struct proc *p, int kill_sig, int *wstatus);

/* Closes p's pipes, SIGTERM to its group, waits up to grace_ms
 * milliseconds for it to exit (looking every 25 ms), then SIGKILL and
 * waits. p is empty afterwards; nothing when it has no child. */
void proc_stop(struct proc *p, int64_t grace_ms);

/*
 * Runs path with argv (argv[0] included, NULL-terminated) and the
 * environment envp (NULL-terminated "NAME=value" strings, borrowed; NULL:
 * ctl's own) to its end. Each stdout line (capped at max_line bytes,
 * linesplit.h) goes to on_line(line_arg) when on_line is not NULL; each
 * stderr chunk to on_err(err_arg) when not NULL. Once *cancel (may be
 * NULL) is non-zero, the child's process group gets SIGTERM, *cancelled
 * is set to 1, and the reading goes on until the child has closed both
 * pipes. *wstatus gets waitpid's status. Returns BF_OK, or BF_ERR_IO with
 * "pipe: ..." / "cannot start PATH: ..." in detail (nothing is left
 * running then). Blocks; thread-safe.
 */
enum bf_err proc_run_lines(const char *path, char *const argv[],
			   char *const envp[], size_t max_line,
			   linesplit_fn on_line, void *line_arg,
			   proc_chunk_fn on_err, void *err_arg,
			   const atomic_int *cancel, int *wstatus,
			   int *cancelled, char *detail, size_t detail_len);

#endif
