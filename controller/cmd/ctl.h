/*
 * ctl's command table (tmux's cmd.c is the model): one file per command,
 * cmd_<name>.c, each exporting one entry, its options as data (struct
 * ctl_command); ctl.c parses every command line by them in one place. Exit statuses are the
 * BF_EXIT_* codes of common/schema.h. A command writes its output to
 * stdout and leaves checking it to main (ctl.c): a failed write is one
 * line on stderr and status BF_EXIT_INTERNAL (4) where it would be 0.
 */
#ifndef BF_CTL_H
#define BF_CTL_H

#include "archive/paths.h"
#include "base/args.h"
#include "base/cli.h"
#include "base/signals.h"

/*
 * A command (tmux's struct cmd_entry): its name, the line `ctl --help`
 * gives it, its arguments as data (options, where hosts stand, the
 * --help text; base/args.h) and what runs it from the parsed command
 * line. ctl.c parses every command's argv by .args in one call
 * (ctl_args_parse) before calling .exec, which returns the exit status.
 */
struct ctl_command {
	const char *name;
	const char *summary;  /* one line for `ctl --help` */
	struct ctl_args_spec args;
	int (*exec)(const struct ctl_args *a);
};

/* .args.opts and .args.nopts of a table. */
#define CTL_OPTS(t) .opts = (t), .nopts = (int)(sizeof(t) / sizeof((t)[0]))

extern const struct ctl_command cmd_run_entry, cmd_compare_entry,
	cmd_report_entry, cmd_history_entry, cmd_show_entry, cmd_list_entry,
	cmd_resolve_entry, cmd_where_entry, cmd_doctor_entry, cmd_clean_entry,
	cmd_hosts_entry, cmd_check_entry, cmd_reference_entry;

/* Parses argv (argc words, argv[0] the command's name) by cmd's table
 * and runs it: its exit status (BF_EXIT_USAGE after a bad option, 0
 * after --help). */
int ctl_command_run(const struct ctl_command *cmd, int argc, char **argv);

/* ctl check's use of ctl run (cmd_check.c): argv (argc words, argv[0]
 * "run") parsed by ctl run's table and the run made exactly as ctl run
 * makes it, with budget_s (run_opts.budget_s: seconds
 * per host from its agent's start; 0 none), and none of the verdict and
 * table printed; run_dir gets the run's archive directory, whole (a new
 * string the caller frees; NULL when none was made). Returns ctl run's
 * exit status. */
struct ctl_run_hook {
	int budget_s;
	char *run_dir;
};
int cmd_run_hooked(int argc, char **argv, struct ctl_run_hook *hook);



#endif
