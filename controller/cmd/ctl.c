/*
 * ctl: benchfleet's controller. Dispatches to one command per file through
 * the table below.
 */
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "cmd/ctl.h"
#include "run/embedded.h"
#include "schema.h"
#include "xmalloc.h"

static const struct ctl_command *const commands[] = {
	&cmd_run_entry, &cmd_compare_entry, &cmd_report_entry,
	&cmd_history_entry, &cmd_show_entry, &cmd_list_entry,
	&cmd_resolve_entry, &cmd_where_entry, &cmd_doctor_entry,
	&cmd_clean_entry, &cmd_hosts_entry, &cmd_check_entry,
	&cmd_reference_entry,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: ctl COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out,
		"\nThe archive (results/) and the inventory (hosts/), for every command:\n"
		"--results DIR (--hosts-dir DIR), else $BENCHFLEET_RESULTS_DIR\n"
		"($BENCHFLEET_HOSTS_DIR), else ./results (./hosts) if it exists, else\n"
		"- for a ctl run from its build tree: those of the benchfleet checkout at\n"
		"  or above the current directory (one holding hosts/ and\n"
		"  results/README.md), else of the checkout ctl was built from;\n"
		"- for an installed ctl: $XDG_DATA_HOME/benchfleet/results (default\n"
		"  ~/.local/share/benchfleet/results) and $XDG_CONFIG_HOME/benchfleet/hosts\n"
		"  (default ~/.config/benchfleet/hosts);\n"
		"else ./results (./hosts). This ctl is %s.\n"
		"From here: %s and %s.\n",
		ctl_is_checkout_build() ? "run from its build tree" : "installed",
		ctl_results_dir(NULL), ctl_hosts_dir(NULL, NULL));
	fprintf(out,
		"\nExamples:\n"
		"  ctl run local --size 1024        # this machine, no SSH\n"
		"  ctl run spark workstation        # two hosts from ~/.ssh/config\n"
		"  ctl compare spark workstation    # their newest runs side by side\n"
		"  ctl doctor spark                 # what spark lacks to build the agent\n");
	fprintf(out,
		"\n`ctl COMMAND --help` describes a command and its exit status; man ctl\n"
		"has them all. Every command whose output (standard output, or report's\n"
		"file) cannot be written says so in one line (ctl: write error: stdout:\n"
		"...) and exits 4 where it would have exited 0. `ctl --version` prints\n"
		"the version.\n");
}

int ctl_command_run(const struct ctl_command *cmd, int argc, char **argv)
{
	struct ctl_args a;
	int status;

	switch (ctl_args_parse(cmd->name, &cmd->args, argc, argv, &a)) {
	case CTL_ARGS_HELP:
		return BF_EXIT_OK;
	case CTL_ARGS_ERROR:
		return BF_EXIT_USAGE;
	}
	status = cmd->exec(&a);
	ctl_args_free(&a);
	return status;
}

/* The command argv[1] names, or ctl's own --help, --version. Returns its
 * exit status. */
static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return BF_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return BF_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ctl %s (agent sources %s, schema %d)\n", BF_CTL_VERSION,
		       embedded_agent_hash, BF_SCHEMA_VERSION);
		return BF_EXIT_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i]->name) == 0)
			return ctl_command_run(commands[i], argc - 1, argv + 1);
	ctl_error("'%s': unknown command (see ctl --help)", argv[1]);
	return BF_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int status, e;

	/* The user's locale for the live table (it draws UTF-8 only when the
	 * codeset is UTF-8), but C numbers everywhere: "1.5", never "1,5", in
	 * archives, tables and parsed options. */
	setlocale(LC_ALL, "");
	/* cJSON's out-of-memory takes the one fatal path (which restores the
	 * terminal); set before any thread or cJSON call. */
	bf_xmalloc_init_cjson();
	setlocale(LC_NUMERIC, "C");
	status = dispatch(argc, argv);
	/* Output that never arrived is a failure, for every command (as
	 * coreutils' close_stdout): right after the command's last write,
	 * while errno is still the failed write's (or as the command noted
	 * it then: ctl_stdout_checkpoint). close(2) may report what only it
	 * sees (a quota on NFS); a stdout closed from the start (ctl list
	 * >&-) that nothing was written to is no error. */
	e = ctl_stdout_error();
	if (fclose(stdout) != 0 && !e && errno != EBADF)
		e = errno;
	if (e) {
		ctl_error("write error: stdout: %s", strerror(e));
		if (status == BF_EXIT_OK)
			status = BF_EXIT_INTERNAL;
	}
	return status;
}
