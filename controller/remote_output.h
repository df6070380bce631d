/*
 * remote_output: what remote_exec does with a command's output bytes,
 * without libssh: stdout cut into lines (each line capped, a longer one
 * delivered once, cut, and flagged), and the last bytes of stderr kept in a
 * fixed buffer. Pure buffer work, unit-tested on its own
 * (tests/ssh/test_remote_output.c). Both structs keep their buffers
 * between commands; neither is thread-safe (one per remote handle).
 */
#ifndef REMOTE_OUTPUT_H
#define REMOTE_OUTPUT_H

#include <stddef.h>

#include "bf_error.h"

/* Receives one complete line: len_bytes bytes without the '\n', followed
 * by a NUL that is not counted (the line may contain NULs); truncated is 1
 * when bytes past the cap were dropped. `line` is valid only during the
 * call. BF_OK goes on; any other code is returned by the feeding call. */
typedef enum bf_err (*remote_lines_fn)(void *arg, const char *line,
				       size_t len_bytes, int truncated);

/* A line being assembled. Zero-initialise; remote_lines_free at the end. */
struct remote_lines {
	char *line;          /* len_bytes + NUL fit; NULL until needed */
	size_t len_bytes;
	size_t cap_bytes;    /* allocated, at most max_bytes + 1 */
	int cut;             /* bytes past the cap were dropped */
};

/* Forgets a partial line (a new command starts); keeps the buffer. */
void remote_lines_reset(struct remote_lines *l);

/*
 * Adds n bytes of stdout. Calls emit for each line completed by a '\n'
 * among them, in order; a line longer than max_bytes (> 0) keeps its first
 * max_bytes bytes and is emitted with truncated = 1 when its '\n' comes.
 * Bytes after the last '\n' stay for the next call. Returns BF_OK,
 * BF_ERR_NOMEM (growing the line buffer failed; that line's bytes are
 * lost), or the first code other than BF_OK that emit returned (the
 * remaining bytes are not processed).
 */
enum bf_err remote_lines_feed(struct remote_lines *l, size_t max_bytes,
			      const char *p, size_t n, remote_lines_fn emit,
			      void *arg);

/* At the end of the output: emits a last line that had no '\n' (if any
 * bytes, or a cut, are pending). Returns BF_OK, BF_ERR_NOMEM, or emit's
 * code. */
enum bf_err remote_lines_flush(struct remote_lines *l, remote_lines_fn emit,
			       void *arg);

/* Frees the line buffer; l can be reused after it. */
void remote_lines_free(struct remote_lines *l);

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
