/*
 * Splitting a byte stream into lines with a cap on a line's length: the
 * agent's stdout, read from a pipe (proc.c, for ctl run local and a
 * local Slurm login) or an SSH channel (remote/remote_exec.c), becomes one
 * call per line. A line longer than the cap is
 * delivered once, cut to the cap and flagged, when its '\n' arrives; what
 * follows the cap is dropped, so memory stays within the cap however long
 * a line is. Pure (no I/O); one splitter per stream, one thread at a time.
 */
#ifndef BF_LINESPLIT_H
#define BF_LINESPLIT_H

#include <stddef.h>

#include "bf_error.h"

/* One complete line: `line` holds len_bytes bytes without the '\n',
 * followed by a NUL that is not counted (the line itself may hold NULs);
 * valid during the call only. truncated: the line was longer than the cap
 * and this is its first max_bytes bytes. BF_OK goes on; any other code
 * stops the feed, which returns it. */
typedef enum bf_err (*linesplit_fn)(void *arg, const char *line,
				    size_t len_bytes, int truncated);

/* A zeroed struct linesplit is ready after linesplit_reset. */
struct linesplit {
	char *buf;            /* the current line; cap + 1 bytes at most */
	size_t len, cap;
	size_t max_bytes;     /* longest line delivered whole */
	int cut;              /* the current line went past max_bytes */
};

/* Drops any partial line and sets the cap (max_bytes > 0); the buffer is
 * kept for the next stream. */
void linesplit_reset(struct linesplit *ls, size_t max_bytes);

/* Adds n bytes; calls fn for each line they complete, in order. Returns
 * BF_OK, the first code fn returned other than BF_OK (the bytes after
 * that line are not consumed), or BF_ERR_NOMEM (the buffer could not
 * grow; nothing is delivered for that line). */
enum bf_err linesplit_feed(struct linesplit *ls, const char *p, size_t n,
			   linesplit_fn fn, void *arg);

/* End of the stream: a last line without '\n' (non-empty, or cut) goes to
 * fn. Returns BF_OK, fn's code, or BF_ERR_NOMEM. The splitter is empty
 * afterwards. */
enum bf_err linesplit_finish(struct linesplit *ls, linesplit_fn fn, void *arg);

/* Frees the buffer; the struct may be reset and used again. NULL-safe. */
void linesplit_free(struct linesplit *ls);

#endif
