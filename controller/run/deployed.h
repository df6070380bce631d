/*
 * What ctl has deployed on a host, for `ctl clean`: the agent builds
 * under a workdir, listed and removed.
 *
 * ctl run puts on a host (README, "Where deployed files go"):
 *   - over SSH, in the host's workdir (DEPLOYED_WORKDIR_SSH unless the
 *     inventory sets "workdir"), one directory per agent source hash and
 *     toolchain key, "<hash>-<key>" (16 hex digits each, runner_ssh.c),
 *     and while a deploy runs a staging directory "<hash>-<key>.tmp-<8
 *     hex digits>";
 *   - for a Slurm cluster, in its workdir on the login host
 *     (DEPLOYED_WORKDIR_SLURM unless the cluster sets "workdir"), one
 *     directory per source hash, "<hash>", holding the builds of every
 *     node kind, and its staging directories "<hash>.tmp-<8 hex>"
 *     (runner_slurm.c).
 * Nothing else in those directories is ctl's, and nothing else is ever
 * listed as removable or removed: a name from the host counts only when
 * it is exactly one of these forms (deployed_name_kind), and it reaches
 * the remote shell again only quoted (remote_quote).
 */
#ifndef BF_DEPLOYED_H
#define BF_DEPLOYED_H

#include <stdatomic.h>
#include <stddef.h>

#include "bf_error.h"
#include "run/slurm_login.h"

#define DEPLOYED_WORKDIR_SSH "~/.cache/benchfleet"
#define DEPLOYED_WORKDIR_SLURM "~/.cache/benchfleet-slurm"

/* Which of ctl's layouts a workdir holds. */
enum deployed_layout {
	DEPLOYED_SSH,
	DEPLOYED_SLURM
};

/* What a name under a workdir of that layout is: 0 not ctl's, 1 a build
 * (or a Slurm source tree), 2 a staging directory. Pure. */
int deployed_name_kind(enum deployed_layout layout, const char *name);

struct deployed_entry {
	char name[64]; /* as deployed_name_kind accepts it */
	long long kib; /* du -sk; -1 when du did not say */
	int staging;   /* 1: a staging directory */
};

struct deployed_dir {
	const char *workdir; /* as configured: "~/.cache/benchfleet" */
	enum deployed_layout layout;
	int exists;			/* the directory is there */
	struct deployed_entry *entries; /* ctl's, in name order; owned */
	int nentries;
	int others; /* entries there that are not ctl's (kept) */
};

/* Lists what ctl deployed under each of the n workdirs on the host of l
 * (this machine or SSH; slurm_login.h) with one command; dirs[i].workdir
 * and .layout are set by the caller, the rest is filled. Errors: the
 * remote layer's, BF_ERR_REMOTE when the listing failed (detail: its
 * stderr). Free with deployed_free. */
enum bf_err deployed_list(struct login *l, struct deployed_dir *dirs, int n,
			  const atomic_int *cancel, char *detail,
			  size_t detail_len);

/* Removes every entry of dirs[0..n) (rm -rf of each, quoted, under its
 * workdir), then each workdir that is left empty (rmdir). BF_ERR_REMOTE
 * with rm's stderr when one could not be removed. */
enum bf_err deployed_remove(struct login *l, const struct deployed_dir *dirs,
			    int n, const atomic_int *cancel, char *detail,
			    size_t detail_len);

void deployed_free(struct deployed_dir *dirs, int n);

/* A workdir as one shell word: a leading "~/" becomes "$HOME"/ followed
 * by the rest quoted, anything else quoted whole. Caller frees. */
char *deployed_shell_dir(const char *workdir);

#endif
