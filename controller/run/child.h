/*
 * A local child process whose output ctl reads as it comes: the agent of
 * `ctl run local` (runner_local.c) and the `sh -c` commands of a Slurm
 * cluster whose login host is this machine (runner_slurm.c). One place for
 * the spawn (stdin /dev/null, its own process group so that a Ctrl-C
 * reaches ctl alone), the poll loop over stdout and stderr, the stop on
 * cancel and the reaping.
 */
#ifndef BF_CHILD_H
#define BF_CHILD_H

#include <stdatomic.h>
#include <stddef.h>

#include "remote/linesplit.h"

/* Receives a chunk of the child's stderr as read (n bytes, no NUL). */
typedef void (*child_err_fn)(void *arg, const char *buf, size_t n);

/*
 * Runs path with argv (argv[0] included, NULL-terminated). Each stdout
 * line (capped at max_line bytes, linesplit.h) goes to on_line(line_arg)
 * when on_line is not NULL; each stderr chunk to on_err(err_arg) when not
 * NULL. Once *cancel (may be NULL) is non-zero, the child's process group
 * gets SIGTERM and *cancelled is set to 1. Blocks until the child has
 * exited and both pipes are closed; *wstatus gets waitpid's status.
 * Returns BF_OK, or BF_ERR_IO with "pipe: ..." / "cannot start PATH: ..."
 * in detail (nothing is left running then).
 */
enum bf_err child_run(const char *path, char *const argv[], size_t max_line,
		      linesplit_fn on_line, void *line_arg, child_err_fn on_err,
		      void *err_arg, const atomic_int *cancel, int *wstatus,
		      int *cancelled, char *detail, size_t detail_len);

/* As child_run, with the environment envp (NULL-terminated "NAME=value"
 * strings, borrowed) instead of ctl's own. */
enum bf_err child_run_env(const char *path, char *const argv[],
			  char *const envp[], size_t max_line,
			  linesplit_fn on_line, void *line_arg,
			  child_err_fn on_err, void *err_arg,
			  const atomic_int *cancel, int *wstatus,
			  int *cancelled, char *detail, size_t detail_len);

/* Keeps the last len - 1 bytes of a stream in tail (len bytes,
 * NUL-terminated), appending buf (n bytes). */
void child_tail_append(char *tail, size_t len, const char *buf, size_t n);

#endif
