/*
 * ctl's command table (tmux's cmd.c is the model): one file per command,
 * cmd_<name>.c, each exporting one entry point. Exit statuses are the
 * BF_EXIT_* codes of common/schema.h.
 */
#ifndef BF_CTL_H
#define BF_CTL_H

#include <signal.h>

#ifndef BF_CTL_VERSION
#define BF_CTL_VERSION "0.0.0"
#endif

struct ctl_command {
	const char *name;
	const char *summary;  /* one line for `ctl --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
};

/* Set by SIGINT/SIGTERM handlers (which do nothing else); every loop that
 * waits on a host polls it. */
extern volatile sig_atomic_t ctl_interrupted;

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_list(int argc, char **argv);

/* Prints "ctl: <message>" on stderr (one line). */
void ctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
