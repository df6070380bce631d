/*
 * agent_stderr: the agent's stderr into its host's log, the same for
 * every runner (`ctl run local`, SSH): whole lines, all of them up to
 * AGENT_STDERR_HEAD_BYTES; past that only the last whole lines within
 * AGENT_STDERR_TAIL_BYTES, after a line saying how many bytes were left
 * out, so that an agent that floods stderr cannot fill the archive's disk
 * and the end (where the error is) is still there. One per host, on the
 * host's thread.
 */
#ifndef BF_AGENT_STDERR_H
#define BF_AGENT_STDERR_H

#include <stddef.h>

#include "base/tail.h"
#include "run/session.h"

#define AGENT_STDERR_HEAD_BYTES (1024 * 1024)
#define AGENT_STDERR_TAIL_BYTES (64 * 1024)

struct agent_stderr {
	struct host_ctx *h;
	size_t head_bytes;        /* written to the log so far */
	char *line;               /* the head's line not ended yet */
	size_t line_len, line_cap;
	int in_tail;              /* past the head: bytes go to tail */
	struct tail tail;
	int tail_ok;              /* tail's buffer was allocated */
};

/* Starts e for host h (whose log must be open). */
void agent_stderr_init(struct agent_stderr *e, struct host_ctx *h);

/* n bytes of the agent's stderr, as they arrive. */
void agent_stderr_write(struct agent_stderr *e, const char *buf, size_t n);

/* The stream ended: writes what is held (a last line without '\n'; past
 * the head, "[ctl: N bytes of the agent's stderr left out here (the log
 * keeps its first 1024 KiB and last 64 KiB)]" and the tail) and frees e's
 * buffers. */
void agent_stderr_end(struct agent_stderr *e);

#endif
