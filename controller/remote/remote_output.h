/*
 * remote_output: what remote_exec keeps of a command's stderr, without
 * libssh: the last bytes, in a fixed buffer. (Its stdout is cut into lines
 * by linesplit.c, the splitter ctl run local uses too.) Pure buffer work,
 * unit-tested on its own (tests/ssh/test_remote_output.c). The struct
 * keeps its buffer between commands; not thread-safe (one per remote
 * handle).
 */
#ifndef REMOTE_OUTPUT_H
#define REMOTE_OUTPUT_H

#include <stddef.h>

#include "bf_error.h"

/* The last cap_bytes bytes of a stream, NUL-terminated in buf. */
struct remote_tail {
	char *buf;           /* cap_bytes + 1; "" when empty */
	size_t len_bytes;    /* <= cap_bytes */
	size_t cap_bytes;
};

/* Allocates the buffer (cap_bytes > 0). Returns 0, or -1 on out of memory
 * (then t->buf is NULL and remote_tail_free is still safe). */
int remote_tail_init(struct remote_tail *t, size_t cap_bytes);

/* Empties the tail (a new command starts). */
void remote_tail_reset(struct remote_tail *t);

/* Appends n bytes, dropping the oldest so that the last cap_bytes remain. */
void remote_tail_append(struct remote_tail *t, const char *p, size_t n);

/* Frees the buffer; NULL-safe on a zeroed or failed struct. */
void remote_tail_free(struct remote_tail *t);

#endif
