/*
 * ctl: benchfleet's controller. Dispatches to one command per file through
 * the table below.
 */
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bf_parse.h"
#include "ctl.h"
#include "embedded.h"
#include "schema.h"
#include "xmalloc.h"

atomic_int ctl_interrupted;

/* Records which signal stopped the run (run.json's reason says). */
static void on_signal(int sig)
{
	ctl_interrupted = sig;
}

void ctl_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* A closed terminal (HUP) or SIGQUIT stops the run as Ctrl-C does:
	 * the agents are stopped, run.json and the table are written. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static const struct ctl_command commands[] = {
	{ "run", "deploy and run the agent on hosts, stream and archive results", cmd_run },
	{ "compare", "archived runs or hosts side by side, with significance", cmd_compare },
	{ "report", "archived runs as one self-contained HTML page with charts", cmd_report },
	{ "show", "print one archived run as a table", cmd_show },
	{ "list", "list archived runs: id, date, hosts, status, tag", cmd_list },
	{ "resolve", "print what ssh_config resolves hosts to (user, hostname, port, keys, known_hosts, proxy)", cmd_resolve },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

void ctl_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ctl_option_error(const char *command, int c, char **argv)
{
	if (c == ':')
		ctl_error("%s: needs a value", argv[optind - 1]);
	else
		ctl_error("%s: unknown option (see ctl %s --help)",
			  argv[optind - 1], command);
	return BF_EXIT_USAGE;
}

int ctl_parse_dir(const char *name, const char *s, const char **out)
{
	if (!*s) {
		ctl_error("%s: empty directory name", name);
		return -1;
	}
	*out = s;
	return 0;
}

int ctl_parse_int(const char *name, const char *s, int min, int max,
		  int *out)
{
	long v;

	if (bf_parse_long(s, min, max, &v) < 0) {
		ctl_error("%s '%s': expected an integer from %d to %d", name, s,
			  min, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: ctl COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\nThe archive (results/) and the inventory (hosts/), for every command:\n"
		"--results DIR (--hosts-dir DIR), else $BENCHFLEET_RESULTS_DIR\n"
		"($BENCHFLEET_HOSTS_DIR), else ./results (./hosts) if it exists, else those\n"
		"of the benchfleet checkout at or above the current directory (one holding\n"
		"hosts/ and results/README.md), else of the checkout ctl was built from,\n"
		"else ./results (./hosts). From here: %s and %s.\n",
		ctl_results_dir(NULL), ctl_hosts_dir(NULL, NULL));
	fprintf(out, "\n`ctl COMMAND --help` describes a command. `ctl --version` prints the version.\n");
}

int main(int argc, char **argv)
{
	/* The user's locale for the live table (it draws UTF-8 only when the
	 * codeset is UTF-8), but C numbers everywhere: "1.5", never "1,5", in
	 * archives, tables and parsed options. */
	setlocale(LC_ALL, "");
	/* cJSON's out-of-memory takes the one fatal path (which restores the
	 * terminal); set before any thread or cJSON call. */
	bf_xmalloc_init_cjson();
	setlocale(LC_NUMERIC, "C");
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
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	ctl_error("'%s': unknown command (see ctl --help)", argv[1]);
	return BF_EXIT_USAGE;
}
