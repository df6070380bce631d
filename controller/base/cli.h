/*
 * ctl's words to the user, shared by every layer of ctl: one-line errors
 * ("ctl: what: why"), the reply to an option a command does not have,
 * option values (integers, numbers, directories), the values of the
 * options of every command that reaches hosts, and whether a stream's
 * output reached the system. Nothing here knows a command or a host.
 */
#ifndef BF_CLI_H
#define BF_CLI_H

#include <stdio.h>

/* ctl's version (the build sets it from the project's). */
#ifndef BF_CTL_VERSION
#define BF_CTL_VERSION "0.0.0"
#endif

/* Prints "ctl: <message>" on stderr, one line: control characters in
 * the message (a value quoted in it) print as '?' (bf_text_sanitize);
 * never cut, however long. */
void ctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one-line error for getopt_long's answer c (in ctl_args_parse,
 * base/args.c) when it is ':' (an option
 * without its value) or anything else it gives for an option that command
 * (ctl COMMAND) does not have: a short option named by its letter
 * (optopt: "-f" of "-foo"), a long one as typed ("--frobnicate"), a long
 * option that takes no value given one ("--json=1") said so. Needs every
 * long option's val to be 256 or more, or the letter of the same short
 * option (-o, --output), so that optopt tells them apart. Returns
 * BF_EXIT_USAGE, for the caller to return. */
int ctl_option_error(const char *command, int c, char **argv);

/* Flushes f and says whether everything written to it since it was
 * opened reached the system: 0, or why not as an errno value (fflush's;
 * EPIPE for a pipe or socket whose reader has gone; else the one a
 * failed write left when stdio has nothing left to flush: call it right
 * after the last write; EIO when errno was lost). f stays open. */
int ctl_stream_error(FILE *f);

/* Notes stdout's error now (ctl_stream_error), while errno is still the
 * failed write's: for a command that does more after its last write
 * (ctl run closes its archive), whose calls may leave another errno
 * (ENOENT). The first error noted is kept. Main thread only. */
void ctl_stdout_checkpoint(void);

/* stdout's error for ctl's main to report after every command: the one
 * ctl_stdout_checkpoint noted, else ctl_stream_error(stdout)'s now; 0
 * when all output arrived. */
int ctl_stdout_error(void);

/* Option `name`'s value s as a directory: any path but "" (which would
 * name none). Returns 0 with *out = s, or -1 after a one-line error
 * ("--results: empty directory name"), *out untouched. */
int ctl_parse_dir(const char *name, const char *s, const char **out);

/* Option `name`'s value s as an integer from min to max (decimal, whole
 * string; bf_parse_long). Returns 0 with *out set, or -1 after a one-line
 * error ("--jobs 'x': expected an integer from 1 to 64"), *out untouched. */
int ctl_parse_int(const char *name, const char *s, int min, int max,
		  int *out);

/* Option `name`'s value s as a number from min to max (strtod, whole
 * string, finite). Returns 0 with *out set, or -1 after a one-line error
 * ("--fail-on-regression 'x': expected a number from 0 to 100"), *out
 * untouched. */
int ctl_parse_number(const char *name, const char *s, double min, double max,
		     double *out);

/* The values of the options of every command that reaches hosts
 * (base/args.h: CTL_HOST_OPTS, ctl_args_host). */
struct ctl_host_opts {
	const char *ssh_config; /* -F: NULL, ~/.ssh/config */
	int timeout_s;          /* --timeout: seconds per connection and
				 * request; set the default before parsing */
	int accept_new_host_keys; /* --accept-new-host-keys: 0 or 1 */
	const char *hosts_dir;  /* --hosts-dir: NULL, ctl_hosts_dir's */
};

#endif
