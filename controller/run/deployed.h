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

/* Shell text that, given the workdir in $w, sets s to the name of this
 * login's private directory in it, "benchfleet-<uid>", and w to that
 * directory, when the workdir is a shared one: a directory with the
 * sticky bit that group or others can write (/tmp, /dev/shm, a
 * /scratch: mode 1777). Else s is empty and w unchanged. ctl never
 * changes the mode of a directory it did not make (issue 28), so it puts
 * nothing directly in a directory others use: ctl run, ctl where, ctl
 * doctor and ctl clean all read the workdir through this. The uid, not
 * the name: a user name may hold characters a path should not. */
#define DEPLOYED_SHARED_SH                                                   \
	"s=; if [ -d \"$w\" ]; then set -- $(ls -ldnL \"$w\"); "              \
	"case \"$1\" in ?????????[tT]*) case \"$1\" in "                       \
	"?????w*|????????w*) s=\"benchfleet-$(id -u)\"; w=\"$w/$s\";; "         \
	"esac;; esac; fi; "

/* 1 when workdir is one of ctl's defaults (DEPLOYED_WORKDIR_*), which
 * ctl made: the only workdirs deployed_remove removes once empty, besides
 * a private directory in a shared one. Pure. */
int deployed_default_workdir(const char *workdir);

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
	/* "benchfleet-<uid>" when workdir is a shared one: its entries are
	 * in this login's private directory workdir/sub (DEPLOYED_SHARED_SH);
	 * "" otherwise. */
	char sub[64];
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
 * workdir, or the private directory in a shared one), then each such
 * directory left empty that ctl made (deployed_default_workdir, or the
 * private one: rmdir); an inventory's workdir is kept. BF_ERR_REMOTE
 * with rm's stderr when one could not be removed. */
enum bf_err deployed_remove(struct login *l, const struct deployed_dir *dirs,
			    int n, const atomic_int *cancel, char *detail,
			    size_t detail_len);

void deployed_free(struct deployed_dir *dirs, int n);

/* A workdir as one shell word: a leading "~/" becomes "$HOME"/ followed
 * by the rest quoted, anything else quoted whole. Caller frees. */
char *deployed_shell_dir(const char *workdir);

#endif
