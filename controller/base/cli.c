/*
 * What every layer of ctl uses to talk to the user: the one-line error,
 * the reply to a bad option, option values, and the check that a
 * command's output arrived. See cli.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cli.h"
#include "bf_parse.h"
#include "bf_text.h"
#include "schema.h"
#include "xmalloc.h"

void ctl_error(const char *fmt, ...)
{
	char *msg;
	va_list ap;

	/* Whole, however long (a reason that quotes a host's stderr, a
	 * long path). */
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		bf_xmalloc_fatal("vasprintf");
	va_end(ap);
	/* One line, whatever a value in it holds (a line break in an
	 * inventory value, an escape sequence): control characters and
	 * malformed UTF-8 become '?'. */
	fprintf(stderr, "ctl: %s\n", bf_text_sanitize_inplace(msg));
	free(msg);
}

int ctl_option_error(const char *command, int c, char **argv)
{
	const char *word = argv[optind - 1];
	char letter[3] = { '-', (char)optopt, '\0' };

	/* getopt_long sets optopt to a short option's letter, to a long
	 * option's val (256 and up: ctl.h) and to 0 for an unknown long
	 * option. A short option is named by its letter: in a cluster
	 * ("-foo") optind may not have passed the word yet, so
	 * argv[optind - 1] can be another word altogether. A long one is
	 * always argv[optind - 1], which getopt_long has passed. */
	if (c == ':') {
		/* The option is the last thing in argv[optind - 1]. */
		ctl_error("%s: needs a value",
			  strncmp(word, "--", 2) == 0 ? word : letter);
	} else if (optopt > 0 && optopt < 256) {
		ctl_error("%s: unknown option (see ctl %s --help)", letter,
			  command);
	} else if (optopt >= 256) {
		/* A known long option without a value, given one. */
		ctl_error("%s: takes no value (see ctl %s --help)", word,
			  command);
	} else {
		ctl_error("%s: unknown option (see ctl %s --help)", word,
			  command);
	}
	return BF_EXIT_USAGE;
}

/* EPIPE when f is a pipe or socket whose reading end has gone (poll's
 * POLLERR, POLLHUP): every write to it fails so, whatever errno says by
 * now. 0 otherwise. */
static int reader_gone(FILE *f)
{
	struct pollfd p = { .fd = fileno(f), .events = POLLOUT };
	struct stat st;

	if (p.fd < 0 || fstat(p.fd, &st) != 0 ||
	    !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return 0;
	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
		return EPIPE;
	return 0;
}

int ctl_stream_error(FILE *f)
{
	/* As a failed write left it: stdio keeps no error code, and a
	 * failed write may have left nothing in the buffer to flush again
	 * (glibc drops what a long fputs could not write). */
	int e = errno;

	if (fflush(f) != 0)
		return errno ? errno : EIO;
	if (!ferror(f))
		return 0;
	if (reader_gone(f))
		return EPIPE;
	return e ? e : EIO;
}

/* stdout's first error as ctl_stdout_checkpoint saw it; 0 none yet. */
static int stdout_checked_error;

void ctl_stdout_checkpoint(void)
{
	if (!stdout_checked_error)
		stdout_checked_error = ctl_stream_error(stdout);
}

int ctl_stdout_error(void)
{
	int e = ctl_stream_error(stdout);

	return stdout_checked_error ? stdout_checked_error : e;
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

int ctl_parse_number(const char *name, const char *s, double min, double max,
		     double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < min || v > max) {
		ctl_error("%s '%s': expected a number from %g to %g", name, s,
			  min, max);
		return -1;
	}
	*out = v;
	return 0;
}
