/*
 * ctl's command table (tmux's cmd.c is the model): one file per command,
 * cmd_<name>.c, each exporting one entry point. Exit statuses are the
 * BF_EXIT_* codes of common/schema.h. A command writes its output to
 * stdout and leaves checking it to main (ctl.c): a failed write is one
 * line on stderr and status BF_EXIT_INTERNAL (4) where it would be 0.
 */
#ifndef BF_CTL_H
#define BF_CTL_H

#include "archive/paths.h"
#include "base/cli.h"
#include "base/signals.h"

struct ctl_command {
	const char *name;
	const char *summary;  /* one line for `ctl --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
};


int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_where(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_hosts(int argc, char **argv);
int cmd_reference(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* ctl check's use of ctl run (cmd_check.c): the run made exactly as
 * cmd_run makes it from argv, with budget_s (run_opts.budget_s: seconds
 * per host from its agent's start; 0 none), and none of the verdict and
 * table printed; run_dir gets the run's archive directory ("" when none
 * was made). Returns cmd_run's exit status. */
struct ctl_run_hook {
	int budget_s;
	char run_dir[1024];
};
int cmd_run_hooked(int argc, char **argv, struct ctl_run_hook *hook);



#endif
