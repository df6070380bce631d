/*
 * remote_capture: runs a short local program to its end under a deadline
 * and collects its stdout and stderr: `ssh -G -v` and `ssh -V` for
 * remote_config.c. The program is looked up on PATH (posix_spawnp), gets
 * stdin /dev/null and a session of its own (no controlling terminal, so it
 * cannot prompt over the live table, and a Ctrl-C reaches only ctl), and is
 * killed and reaped when the deadline passes or the cancel flag is set.
 *
 * Started and read by base/proc.c, the one process runner, which also
 * runs ctl run local's agent (proc_run_lines); this file keeps the
 * bounded output of a command that must answer within seconds.
 */
#ifndef BF_REMOTE_CAPTURE_H
#define BF_REMOTE_CAPTURE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "bf_error.h"

/* What one program printed; out and err are NUL-terminated (NULL when it
 * printed nothing) and owned by the struct: remote_capture_free. */
struct remote_capture {
	char *out, *err;
	size_t out_len, err_len;
	int status;      /* waitpid's status, when it ran */
	int spawn_errno; /* why it could not be started, or 0 */
};

/*
 * Runs argv (argv[0] looked up on PATH, NULL-terminated) until it exits,
 * keeping at most out_max bytes of its stdout and err_max of its stderr in
 * *c (zeroed first). Returns BF_OK when it exited (c->status says how),
 * BF_ERR_NOT_FOUND when it could not be started (c->spawn_errno),
 * BF_ERR_TIMEOUT once deadline_ms (milliseconds on remote_mono_ms's
 * clock, remote_wait.c) passes, BF_ERR_INTERRUPTED once *cancel (may be
 * NULL) is non-zero, BF_ERR_IO when no pipe could be made, BF_ERR_NOMEM
 * when its output could not be kept. Nothing is left running in any case. Thread-safe.
 */
enum bf_err remote_capture_run(char *const argv[], int64_t deadline_ms,
			       const atomic_int *cancel, size_t out_max,
			       size_t err_max, struct remote_capture *c);

/* Frees c's output; c may be zeroed or already freed. */
void remote_capture_free(struct remote_capture *c);

#endif
