/*
 * ctl's command table (tmux's cmd.c is the model): one file per command,
 * cmd_<name>.c, each exporting one entry point. Exit statuses are the
 * BF_EXIT_* codes of common/schema.h. A command writes its output to
 * stdout and leaves checking it to main (ctl.c): a failed write is one
 * line on stderr and status BF_EXIT_INTERNAL (4) where it would be 0.
 */
#ifndef BF_CTL_H
#define BF_CTL_H

#include <stdatomic.h>
#include <stdio.h>

#ifndef BF_CTL_VERSION
#define BF_CTL_VERSION "0.0.0"
#endif

struct ctl_command {
	const char *name;
	const char *summary;  /* one line for `ctl --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
};

/* Set by SIGINT/SIGTERM handlers (which do nothing else); every loop that
 * waits on a host polls it, from the host threads and the UI thread. An
 * atomic_int (lock-free on every target: storing it is async-signal-safe,
 * C11 7.14.1.1), so plain reads and writes of it are atomic accesses. */
extern atomic_int ctl_interrupted;

/* Installs the handlers that set ctl_interrupted on SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT (to the signal's number) and ignores SIGPIPE. */
void ctl_catch_signals(void);

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_where(int argc, char **argv);

/* Where results/ and hosts/ are (paths.c has the rule): given (a
 * --results or --hosts-dir value) when not NULL, else
 * $BENCHFLEET_RESULTS_DIR / $BENCHFLEET_HOSTS_DIR, else ./results
 * (./hosts) when it exists, else the benchfleet checkout's, else
 * ./results (./hosts). The strings live until ctl exits. ctl_hosts_dir
 * sets *given_by (when not NULL) to what chose the directory when the
 * user did ("--hosts-dir", "BENCHFLEET_HOSTS_DIR"), else to NULL: a
 * directory the user chose must exist (inventory_load). */
const char *ctl_results_dir(const char *given);
const char *ctl_hosts_dir(const char *given, const char **given_by);
/* The benchfleet checkout that ctl falls back to (at or above the current
 * directory, else the one ctl was built from), or NULL. */
const char *ctl_checkout_dir(void);

/* Prints "ctl: <message>" on stderr (one line). */
void ctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one-line error for getopt_long's answer c when it is ':' (an option
 * without its value) or anything else it gives for an option that command
 * (ctl COMMAND) does not have: a short option named by its letter
 * (optopt: "-f" of "-foo"), a long one as typed ("--frobnicate"), a long
 * option that takes no value given one ("--json=1") said so. Needs every
 * long option's val to be 256 or more, or the letter of the same short
 * option (-o, --output), so that optopt tells them apart. Returns
 * BF_EXIT_USAGE, for the caller to return. */
int ctl_option_error(const char *command, int c, char **argv);

/* Flushes f and says whether everything written to it since it was
 * opened reached the system: 0, or why not as an errno value (fflush's,
 * else the one a failed write left when stdio has nothing left to flush:
 * call it right after the last write; EIO when errno was lost). f stays
 * open. ctl's main checks stdout with it after every command. */
int ctl_stream_error(FILE *f);

/* Option `name`'s value s as a directory: any path but "" (which would
 * name none). Returns 0 with *out = s, or -1 after a one-line error
 * ("--results: empty directory name"), *out untouched. */
int ctl_parse_dir(const char *name, const char *s, const char **out);

/* Option `name`'s value s as an integer from min to max (decimal, whole
 * string; bf_parse_long). Returns 0 with *out set, or -1 after a one-line
 * error ("--jobs 'x': expected an integer from 1 to 64"), *out untouched. */
int ctl_parse_int(const char *name, const char *s, int min, int max,
		  int *out);

#endif
