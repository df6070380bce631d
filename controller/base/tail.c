/* The last whole lines of a stream; see tail.h. */
#include "base/tail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tail_init(struct tail *t, size_t cap_bytes)
{
	memset(t, 0, sizeof *t);
	t->cap_bytes = cap_bytes;
	t->buf = malloc(TAIL_MARK_BYTES + cap_bytes + 1);
	if (!t->buf)
		return -1;
	t->data = t->buf + TAIL_MARK_BYTES;
	t->data[0] = '\0';
	return 0;
}

void tail_reset(struct tail *t)
{
	t->len_bytes = 0;
	t->dropped_bytes = 0;
	t->cut_mid_line = 0;
	t->data[0] = '\0';
}

/* The first '\n' at index >= from of the stream data[0..len) p[0..n), or
 * (size_t)-1. */
static size_t newline_from(const struct tail *t, const char *p,
			   size_t n, size_t from)
{
	const char *nl;

	if (from < t->len_bytes) {
		nl = memchr(t->data + from, '\n', t->len_bytes - from);
		if (nl)
			return (size_t)(nl - t->data);
		from = t->len_bytes;
	}
	nl = memchr(p + (from - t->len_bytes), '\n', n - (from - t->len_bytes));
	return nl ? t->len_bytes + (size_t)(nl - p) : (size_t)-1;
}

void tail_append(struct tail *t, const char *p, size_t n)
{
	size_t total = t->len_bytes + n, drop, nl;

	if (!n)
		return;
	if (total <= t->cap_bytes) {
		memcpy(t->data + t->len_bytes, p, n);
		t->len_bytes = total;
		t->data[total] = '\0';
		return;
	}
	/* Drop through the first '\n' that leaves at most cap bytes; with
	 * none, keep the last cap bytes of the one long line. */
	nl = newline_from(t, p, n, total - t->cap_bytes - 1);
	if (nl != (size_t)-1 && nl + 1 < total) {
		drop = nl + 1;
		t->cut_mid_line = 0;
	} else {
		/* No whole line fits (the newline found ends the last one):
		 * the end of that line says more than nothing. */
		drop = total - t->cap_bytes;
		t->cut_mid_line = 1;
	}
	if (drop <= t->len_bytes) {
		memmove(t->data, t->data + drop, t->len_bytes - drop);
		memcpy(t->data + t->len_bytes - drop, p, n);
	} else {
		memcpy(t->data, p + (drop - t->len_bytes), total - drop);
	}
	t->len_bytes = total - drop;
	t->data[t->len_bytes] = '\0';
	t->dropped_bytes += drop;
}

const char *tail_text(struct tail *t, size_t *len)
{
	char mark[TAIL_MARK_BYTES];
	int m;

	if (!t->dropped_bytes) {
		if (len)
			*len = t->len_bytes;
		return t->data;
	}
	m = snprintf(mark, sizeof mark, "[ctl: %llu bytes of stderr dropped "
		     "before this line%s]\n", t->dropped_bytes,
		     t->cut_mid_line ? "; the next line starts mid-line" : "");
	if (m < 0 || m >= (int)sizeof mark)
		m = 0;
	memcpy(t->data - m, mark, (size_t)m);
	if (len)
		*len = t->len_bytes + (size_t)m;
	return t->data - m;
}

void tail_keep_end(char *out, size_t len, const char *text, size_t n)
{
	size_t cap, from = 0;
	const char *nl;

	if (len == 0)
		return;
	if (n == 0 || !text) {
		out[0] = '\0';
		return;
	}
	cap = len - 1;
	if (n > cap) {
		/* The first '\n' that leaves at most cap bytes after it, and
		 * something: the rule of tail_append. */
		from = n - cap;
		nl = memchr(text + from - 1, '\n', n - (from - 1));
		if (nl && (size_t)(nl - text) + 1 < n)
			from = (size_t)(nl - text) + 1;
	}
	memcpy(out, text + from, n - from);
	out[n - from] = '\0';
}

void tail_free(struct tail *t)
{
	free(t->buf);
	memset(t, 0, sizeof *t);
}
