/* Line splitting and stderr tails of remote commands; see remote_output.h. */
#include "remote_output.h"

#include <stdlib.h>
#include <string.h>

void remote_lines_reset(struct remote_lines *l)
{
	l->len_bytes = 0;
	l->cut = 0;
}

/* Adds n bytes (no '\n' among them) to the current line, up to the cap. */
static enum bf_err line_append(struct remote_lines *l, size_t max_bytes,
			       const char *p, size_t n)
{
	size_t room = max_bytes - l->len_bytes;
	size_t take = n < room ? n : room;

	if (take < n)
		l->cut = 1;
	if (take == 0)
		return BF_OK;
	if (l->len_bytes + take + 1 > l->cap_bytes) {
		size_t cap = l->cap_bytes ? l->cap_bytes : 4096;
		char *grown;

		while (cap < l->len_bytes + take + 1)
			cap *= 2;
		if (cap > max_bytes + 1)
			cap = max_bytes + 1;
		grown = realloc(l->line, cap);
		if (!grown)
			return BF_ERR_NOMEM;
		l->line = grown;
		l->cap_bytes = cap;
	}
	memcpy(l->line + l->len_bytes, p, take);
	l->len_bytes += take;
	return BF_OK;
}

static enum bf_err line_emit(struct remote_lines *l, remote_lines_fn emit,
			     void *arg)
{
	enum bf_err err;

	if (!l->line) {   /* an empty first line: give the callback a "" */
		l->line = malloc(1);
		if (!l->line)
			return BF_ERR_NOMEM;
		l->cap_bytes = 1;
	}
	l->line[l->len_bytes] = '\0';
	err = emit(arg, l->line, l->len_bytes, l->cut);
	l->len_bytes = 0;
	l->cut = 0;
	return err;
}

enum bf_err remote_lines_feed(struct remote_lines *l, size_t max_bytes,
			      const char *p, size_t n, remote_lines_fn emit,
			      void *arg)
{
	enum bf_err err;

	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;

		err = line_append(l, max_bytes, p, len);
		if (err == BF_OK && nl) {
			err = line_emit(l, emit, arg);
			len++;
		}
		if (err != BF_OK)
			return err;
		p += len;
		n -= len;
	}
	return BF_OK;
}

enum bf_err remote_lines_flush(struct remote_lines *l, remote_lines_fn emit,
			       void *arg)
{
	if (l->len_bytes > 0 || l->cut)
		return line_emit(l, emit, arg);
	return BF_OK;
}

void remote_lines_free(struct remote_lines *l)
{
	free(l->line);
	memset(l, 0, sizeof *l);
}

int remote_tail_init(struct remote_tail *t, size_t cap_bytes)
{
	t->len_bytes = 0;
	t->cap_bytes = cap_bytes;
	t->buf = malloc(cap_bytes + 1);
	if (!t->buf)
		return -1;
	t->buf[0] = '\0';
	return 0;
}

void remote_tail_reset(struct remote_tail *t)
{
	t->len_bytes = 0;
	t->buf[0] = '\0';
}

void remote_tail_append(struct remote_tail *t, const char *p, size_t n)
{
	const size_t cap = t->cap_bytes;

	if (n >= cap) {
		memcpy(t->buf, p + (n - cap), cap);
		t->len_bytes = cap;
	} else {
		if (t->len_bytes + n > cap) {
			size_t drop = t->len_bytes + n - cap;

			memmove(t->buf, t->buf + drop, t->len_bytes - drop);
			t->len_bytes -= drop;
		}
		memcpy(t->buf + t->len_bytes, p, n);
		t->len_bytes += n;
	}
	t->buf[t->len_bytes] = '\0';
}

void remote_tail_free(struct remote_tail *t)
{
	free(t->buf);
	memset(t, 0, sizeof *t);
}
