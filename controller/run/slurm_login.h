/*
 * slurm_login: the login host of a Slurm cluster as runner_slurm.c uses
 * it, the same three calls whether it is this machine (login "local":
 * /bin/sh, mkdir, files) or an SSH connection (remote_ssh.h). All block;
 * errors are BF_ERR_* with "what: why" in detail.
 */
#ifndef BF_SLURM_LOGIN_H
#define BF_SLURM_LOGIN_H

#include <stdatomic.h>
#include <stddef.h>

#include "bf_error.h"
#include "base/linesplit.h"
#include "remote/remote_ssh.h"

struct login {
	struct remote *r;  /* NULL: this machine */
	char home[1024];   /* $HOME there */
};

/* Runs command with sh on the login host, stdout lines to fn(arg), the
 * last whole lines of stderr into errtail (errtail_len bytes,
 * NUL-terminated; cut alike on both kinds of login host, tail_keep_end),
 * the exit status into *status (-1 when none). Stops the command when
 * *cancel (may be NULL) becomes non-zero: BF_ERR_INTERRUPTED. */
enum bf_err login_exec(struct login *l, const char *command,
		       linesplit_fn fn, void *arg,
		       const atomic_int *cancel, int *status,
		       char *errtail, size_t errtail_len, char *detail,
		       size_t detail_len);

/* mkdir -p path (absolute), mode 0700, on the login host. */
enum bf_err login_mkdir_p(struct login *l, const char *path,
			  char *detail, size_t detail_len);

/* Writes len bytes of data to the file path (absolute) on the login
 * host, with mode. */
enum bf_err login_put(struct login *l, const char *path,
		      const void *data, size_t len, int mode,
		      char *detail, size_t detail_len);

#endif
