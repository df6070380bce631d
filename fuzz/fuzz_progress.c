/*
 * libFuzzer target: the remote build's output as ctl reads it
 * (controller/run/build_log.c): each line of the input through
 * build_log_line (heartbeats with make's "[ 45%]" or ninja's "[12/40]",
 * the build command's cause lines, the log kept and scanned for the
 * cause of a failure), then build_log_cause and build_log_tail, each
 * checked against its contract.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/build_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether s is a NUL-terminated string within its buffer of len bytes. */
static void check_str(const char *s, size_t len)
{
	if (!memchr(s, '\0', len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct build_log *b = calloc(1, sizeof *b);
	char *in = malloc(size + 1), *p;
	const char *cause, *tail;
	size_t len, room;

	if (!b || !in) {
		free(b);
		free(in);
		return 0;
	}
	memcpy(in, data, size);
	in[size] = '\0';
	for (p = in; p < in + size;) {
		char *nl = memchr(p, '\n', (size_t)(in + size - p));
		int done = -1, total = -1, percent = -1;
		enum build_line kind;

		if (nl)
			*nl = '\0';
		/* A line as linesplit.c hands it over: its bytes up to the
		 * newline (a NUL in it ends the string, not len). */
		len = (size_t)((nl ? nl : in + size) - p);
		kind = build_log_line(b, p, len, &done, &total, &percent);
		if (kind == BUILD_LINE_PROGRESS &&
		    (done < 0 || total <= 0 || done > total ||
		     (percent != 0 && percent != 1) ||
		     (percent && total != 100)))
			abort();
		if (kind != BUILD_LINE_PROGRESS &&
		    (done != -1 || total != -1 || percent != -1))
			abort();
		check_str(b->text, sizeof b->text);
		check_str(b->ctl_cause, sizeof b->ctl_cause);
		p = nl ? nl + 1 : in + size;
	}
	cause = build_log_cause(b);
	if (cause && (cause < (const char *)b ||
		      cause >= (const char *)(b + 1) || !*cause))
		abort();
	len = strlen(b->text);
	/* The tail for every room a reason could leave it, as runner_ssh.c
	 * asks: within text, fitting (NUL included) when room > 0. */
	for (room = 0; room <= len + 2; room += 1 + room / 8) {
		tail = build_log_tail(b->text, room);
		if (tail < b->text || tail > b->text + len)
			abort();
		if (room && strlen(tail) >= room)
			abort();
	}
	free(in);
	free(b);
	return 0;
}
