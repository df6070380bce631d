/*
 * Which archived runs (or hosts of runs) a reading command works on: the
 * command-line selection `ctl compare` and `ctl report` share, so that the
 * same words pick the same columns in both.
 *
 *   (none)   the last two runs (--last N: the last N), oldest first
 *   RUN-ID   a run, in full or by a unique prefix
 *   HOST     the most recent run with that host (that host only); one HOST
 *            alone: its last two runs (--last N: N)
 *   FILE     a host's .ndjson file
 *
 * A single run with several hosts becomes one column per host.
 */
#ifndef BF_SELECTION_H
#define BF_SELECTION_H

#include "base/args.h"
#include "model/compare.h"

/* Columns are named by one letter, A to Z. */
#define SELECTION_MAX_COLUMNS 26

struct selection {
	const char *cmd;     /* "compare", "report": prefixes messages */
	struct archive_run *runs[SELECTION_MAX_COLUMNS]; /* owned */
	int nruns;
	struct compare_column cols[SELECTION_MAX_COLUMNS];
	int ncols;
};

/* Reads the values of option opt of a (--last, each in command-line
 * order, the last kept) into *out: 1 to SELECTION_MAX_COLUMNS; *out
 * untouched when not given. Returns 0, or -1 after printing "--last 'x':
 * expected ..." with the range and why (one column per run, A to Z). */
int selection_parse_last(const struct ctl_args *a, int opt, int *out);

/* Fills *sel (zeroed by the caller, sel->cmd set) from the nargs
 * positional arguments args, --last (0: not given) and the archive
 * results. Returns 0, or -1 after printing one "ctl: CMD: what: why" line
 * (nothing to select, an unknown name, an unreadable run). Free with
 * selection_free also after an error. */
int selection_build(struct selection *sel, const char *results, int last,
		    char *const *args, int nargs);

void selection_free(struct selection *sel);

#endif
