/* The agent's stderr into the host's log, capped; see agent_stderr.h. */
#include "run/agent_stderr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* session_log_write for n > 0 (the held line may be NULL and empty). */
static void log_bytes(struct agent_stderr *e, const char *p, size_t n)
{
	if (n)
		session_log_write(e->h, p, n);
}

void agent_stderr_init(struct agent_stderr *e, struct host_ctx *h)
{
	memset(e, 0, sizeof(*e));
	e->h = h;
}

static void to_tail(struct agent_stderr *e, const char *buf, size_t n)
{
	if (!e->in_tail) {
		e->in_tail = 1;
		e->tail_ok = tail_init(&e->tail, AGENT_STDERR_TAIL_BYTES) == 0;
		if (!e->tail_ok)
			bf_xmalloc_fatal("agent stderr tail");
		/* The head's unfinished line is the tail's start. */
		if (e->line_len)
			tail_append(&e->tail, e->line, e->line_len);
		e->line_len = 0;
	}
	tail_append(&e->tail, buf, n);
}

void agent_stderr_write(struct agent_stderr *e, const char *buf, size_t n)
{
	while (n && !e->in_tail) {
		const char *nl = memchr(buf, '\n', n);
		size_t seg = nl ? (size_t)(nl - buf) + 1 : n;

		if (e->head_bytes + e->line_len + seg >
		    AGENT_STDERR_HEAD_BYTES)
			break;   /* this line does not fit the head */
		if (!nl) {
			/* Held until its end arrives: the head ends at a
			 * line's end. */
			if (e->line_len + seg > e->line_cap) {
				e->line_cap = (e->line_len + seg) * 2;
				e->line = bf_xrealloc(e->line, e->line_cap);
			}
			memcpy(e->line + e->line_len, buf, seg);
			e->line_len += seg;
			return;
		}
		log_bytes(e, e->line, e->line_len);
		log_bytes(e, buf, seg);
		e->head_bytes += e->line_len + seg;
		e->line_len = 0;
		buf += seg;
		n -= seg;
	}
	if (n)
		to_tail(e, buf, n);
}

void agent_stderr_end(struct agent_stderr *e)
{
	char mark[160];
	size_t len;
	const char *text;
	int m;

	if (!e->in_tail) {
		log_bytes(e, e->line, e->line_len);
		goto out;
	}
	/* Everything after the head went into the tail: what it dropped is
	 * what the log leaves out. */
	if (e->tail.dropped_bytes) {
		m = snprintf(mark, sizeof(mark), "[ctl: %llu bytes of the "
			     "agent's stderr left out here (the log keeps its "
			     "first %d KiB and last %d KiB)%s]\n",
			     e->tail.dropped_bytes,
			     AGENT_STDERR_HEAD_BYTES / 1024,
			     AGENT_STDERR_TAIL_BYTES / 1024,
			     e->tail.cut_mid_line ?
			     "; the next line starts mid-line" : "");
		if (m > 0 && (size_t)m < sizeof(mark))
			log_bytes(e, mark, (size_t)m);
	}
	text = e->tail.data;
	len = e->tail.len_bytes;
	log_bytes(e, text, len);
	tail_free(&e->tail);
out:
	free(e->line);
	e->line = NULL;
	e->line_len = e->line_cap = 0;
}
