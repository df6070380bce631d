/*
 * A Slurm cluster's login host, where srun and scancel run and the
 * agent's sources go (see slurm_login.h): this machine, or an SSH
 * connection to it. runner_slurm.c drives the job through it.
 */
#include "run/slurm_login.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "base/proc.h"
#include "base/tail.h"
#include "schema.h"
#include "xmalloc.h"

/* proc_chunk_fn: a local command's stderr into its tail. */
static void login_stderr(void *arg, const char *buf, size_t n)
{
	tail_append(arg, buf, n);
}

/* Runs command with sh on the login host, stdout lines to fn(arg), the
 * last whole lines of stderr into errtail (cut alike for both kinds of
 * login host: base/tail.h), the exit status into *status (-1 when
 * none). Stops the command when *cancel (may be NULL) becomes non-zero:
 * BF_ERR_INTERRUPTED. Blocks. */
enum bf_err login_exec(struct login *l, const char *command,
		       linesplit_fn fn, void *arg,
		       const atomic_int *cancel, int *status,
		       char *errtail, size_t errtail_len, char *detail,
		       size_t detail_len)
{
	char *argv[] = { "sh", "-c", (char *)command, NULL };
	struct tail tail;
	enum bf_err err = BF_OK;
	int wstatus = 0, stopped = 0;

	*status = -1;
	if (errtail_len)
		errtail[0] = '\0';
	if (l->r) {
		struct remote_exec_cb cb = {
			.on_line = fn, .arg = arg,
			.line_max_bytes = BF_RECORD_MAX_BYTES,
		};
		struct remote_exec_result res;

		err = remote_exec(l->r, command, &cb, &res, detail, detail_len);
		tail_keep_end(errtail, errtail_len, res.stderr_tail,
			      res.stderr_tail_bytes);
		if (err == BF_OK)
			*status = res.exit_status;
		return err;
	}

	if (tail_init(&tail, TAIL_STDERR_BYTES) != 0)
		bf_xmalloc_fatal("login stderr tail");
	err = proc_run_lines("/bin/sh", argv, NULL, BF_RECORD_MAX_BYTES, fn,
			     arg, login_stderr, &tail, cancel, &wstatus,
			     &stopped, detail, detail_len);
	{
		size_t n;
		const char *text = tail_text(&tail, &n);

		tail_keep_end(errtail, errtail_len, text, n);
	}
	tail_free(&tail);
	if (err != BF_OK)
		return err;
	if (stopped)
		return bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
			       "interrupted");
	*status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
				       128 + WTERMSIG(wstatus);
	return BF_OK;
}

/* mkdir -p path (absolute) on the login host. */
enum bf_err login_mkdir_p(struct login *l, const char *path,
			  char *detail, size_t detail_len)
{
	char *p;

	if (l->r)
		return remote_mkdir_p(l->r, path, 0700, detail, detail_len);
	p = bf_xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST) {
				enum bf_err err = bf_fail(detail, detail_len,
							  BF_ERR_IO, "mkdir %s: %s",
							  p, strerror(errno));
				free(p);
				return err;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return BF_OK;
}

/* Writes a file (absolute path) on the login host. */
enum bf_err login_put(struct login *l, const char *path,
		      const void *data, size_t len, int mode,
		      char *detail, size_t detail_len)
{
	FILE *f;

	if (l->r)
		return remote_upload(l->r, path, data, len, mode, detail,
				     detail_len);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		int e = errno;

		return bf_fail(detail, detail_len, BF_ERR_IO, "%s: %s", path,
			       strerror(e));
	}
	chmod(path, (mode_t)mode);
	return BF_OK;
}
