/*
 * tail: the last whole lines of a stream (a program's stderr) in a fixed
 * buffer, and how much went before them. The one cut for a child's last
 * words: remote_exec keeps a command's stderr in one (remote/), ctl run
 * local and Slurm keep the agent's (run/runner_local.c,
 * run/runner_slurm.c), the proxy's stderr (remote/remote_proxy.c) and the
 * log's end past its head (run/agent_stderr.c) too, so that a local, an
 * SSH and a Slurm run report an agent's last words alike. Pure buffer
 * work, unit-tested on its own (tests/unit/test_tail.c). The struct keeps
 * its buffer between streams; not thread-safe (one per stream).
 */
#ifndef BF_TAIL_H
#define BF_TAIL_H

#include <stddef.h>

#include "bf_error.h"

/* How much of a program's stderr a tail keeps for its last words: the
 * same for every runner (REMOTE_STDERR_TAIL_BYTES, run/). 64 KiB is
 * what remote_exec kept before the tail was shared (issue 21); a run's
 * failure reason is the last line of it (run/session_host.c). */
#define TAIL_STDERR_BYTES (64 * 1024)

/* Room kept before the text for the line that says what was dropped. */
#define TAIL_MARK_BYTES 128

/* The last whole lines of a stream that fit in cap_bytes. */
struct tail {
	char *buf;           /* TAIL_MARK_BYTES + cap_bytes + 1 */
	char *data;          /* buf + TAIL_MARK_BYTES: what is kept,
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
 * (then t->buf is NULL and tail_free is still safe). */
int tail_init(struct tail *t, size_t cap_bytes);

/* Empties the tail (a new command starts). */
void tail_reset(struct tail *t);

/* Appends n bytes. When more than cap_bytes are held, the oldest whole
 * lines go: the cut is after a '\n', so the kept text starts at a line's
 * start, unless the last line alone is longer than cap_bytes (then its
 * last cap_bytes are kept and cut_mid_line is set). */
void tail_append(struct tail *t, const char *p, size_t n);

/* The kept text, NUL-terminated, preceded when anything was dropped by
 * one line "[ctl: N bytes of stderr dropped before this line]" ("...;
 * the next line starts mid-line" when cut_mid_line); its length in *len
 * (may be NULL). Static to t: valid until the next append, reset or
 * free. */
const char *tail_text(struct tail *t, size_t *len);

/* The last whole lines of text (n bytes, may hold no '\n') that fit in
 * out (len bytes, NUL-terminated), cut as tail_append cuts a tail of
 * len - 1 bytes that text went into at once: the cut is after a '\n',
 * unless the last line alone is longer (then its last len - 1 bytes).
 * "" when len is 1; nothing when 0. For fixed buffers that hold a tail's
 * text (a Slurm login's errtail). Pure. */
void tail_keep_end(char *out, size_t len, const char *text, size_t n);

/* Frees the buffer; NULL-safe on a zeroed or failed struct. */
void tail_free(struct tail *t);

#endif
