/*
 * ctl run --rerun-failed RUN-ID: which command line runs again the hosts
 * of an archived run that did not complete. The new command line is the
 * program name, the old run's options (its run.json command_line, hosts
 * left out) but those this command line gives again, this command line's
 * options (the --rerun-failed option left out) and the failed hosts. An
 * option given again replaces the old one: the same option, or one of the
 * same agent setting (--size and --sizes; --no-bandwidth and
 * --bandwidth-mib, bf_agent_field_replaces). A Slurm cluster's
 * failed nodes come back as "CLUSTER:node,node" (srun --nodelist), or the
 * whole cluster when a failed rank never learnt its node.
 */
#ifndef BF_RERUN_H
#define BF_RERUN_H

#include "base/args.h"

struct rerun_args {
	char *run_id;  /* the run re-run, its id in full (owned) */
	char **argv;   /* the new command line; argc entries */
	int argc;      /* 0: every host completed, nothing to re-run */
	char **old;    /* the old command line's strings (owned) */
	char **owned;  /* host and cluster names, node lists (owned) */
	int nfree;
};

/*
 * Builds ra from a (this command line, parsed by ctl run's table, which
 * parses the old command line too, so that an option's value is never
 * taken for a host; rerun_opt is --rerun-failed's index in it) and the
 * run of results_dir that run_id names (in full or by a unique prefix,
 * as ctl show and compare take it: archive_find_run). a must have been
 * parsed in CTL_ARGS_IN_ORDER mode (each option's words are copied as
 * typed). Returns 0, or -1 after printing one line (no such run, an
 * ambiguous prefix, not a run.json). Free ra with rerun_args_free; its
 * argv points into a's argv too.
 */
int rerun_build(const struct ctl_args *a, const char *run_id,
		const char *results_dir, int rerun_opt, struct rerun_args *ra);

void rerun_args_free(struct rerun_args *ra);

#endif
