/*
 * remote_output: what remote_exec keeps of a command's stderr, without
 * libssh: its last lines, in a fixed buffer. (Its stdout is cut into lines
 * by linesplit.c, the splitter ctl run local uses too.) Pure buffer work,
 * unit-tested on its own (tests/ssh/test_remote_output.c). The struct
 * keeps its buffer between commands; not thread-safe (one per remote
 * handle).
 */
#ifndef REMOTE_OUTPUT_H
#define REMOTE_OUTPUT_H

#include <stddef.h>

#include "bf_error.h"

/* Room kept before the text for the line that says what was dropped. */
#define REMOTE_TAIL_MARK_BYTES 128

/* The last whole lines of a stream that fit in cap_bytes. */
struct remote_tail {
	char *buf;           /* REMOTE_TAIL_MARK_BYTES + cap_bytes + 1 */
	char *data;          /* buf + REMOTE_TAIL_MARK_BYTES: what is kept,
			      * NUL-terminated; "" when empty */
	size_t len_bytes;    /* of data, <= cap_bytes */
	size_t cap_bytes;
	/* Bytes dropped from the front since the last reset, and whether
	 * data then starts inside a line (only when one line is longer than
	 * cap_bytes: its end is kept). */
	unsigned long long dropped_bytes;
	int cut_mid_line;
};

/* Allocates the buffer (cap_bytes > 0). Returns 0, or -1 on out of memory
 * (then t->buf is NULL and remote_tail_free is still safe). */
int remote_tail_init(struct remote_tail *t, size_t cap_bytes);

/* Empties the tail (a new command starts). */
void remote_tail_reset(struct remote_tail *t);

/* Appends n bytes. When more than cap_bytes are held, the oldest whole
 * lines go: the cut is after a '\n', so the kept text starts at a line's
 * start, unless the last line alone is longer than cap_bytes (then its
 * last cap_bytes are kept and cut_mid_line is set). */
void remote_tail_append(struct remote_tail *t, const char *p, size_t n);

/* The kept text, NUL-terminated, preceded when anything was dropped by
 * one line "[ctl: N bytes of stderr dropped before this line]" ("...;
 * the next line starts mid-line" when cut_mid_line); its length in *len
 * (may be NULL). Static to t: valid until the next append, reset or
 * free. */
const char *remote_tail_text(struct remote_tail *t, size_t *len);

/* Frees the buffer; NULL-safe on a zeroed or failed struct. */
void remote_tail_free(struct remote_tail *t);

#endif
