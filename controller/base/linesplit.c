/* Capped line splitting; see linesplit.h. */
#include "base/linesplit.h"

#include <stdlib.h>
#include <string.h>

void linesplit_reset(struct linesplit *ls, size_t max_bytes)
{
	ls->len = 0;
	ls->cut = 0;
	ls->max_bytes = max_bytes;
}

/* Adds n bytes (no '\n' among them) to the current line, up to the cap. */
static enum bf_err append(struct linesplit *ls, const char *p, size_t n)
{
	size_t room = ls->max_bytes - ls->len;
	size_t take = n < room ? n : room;

	if (take < n)
		ls->cut = 1;
	if (take == 0)
		return BF_OK;
	if (ls->len + take + 1 > ls->cap) {
		size_t cap = ls->cap ? ls->cap : 4096;
		char *grown;

		while (cap < ls->len + take + 1)
			cap *= 2;
		if (cap > ls->max_bytes + 1)
			cap = ls->max_bytes + 1;
		/* realloc, not bf_xrealloc: a megabyte line buffer that cannot
		 * grow is the stream's error, not a reason to abort ctl. */
		grown = realloc(ls->buf, cap);
		if (!grown)
			return BF_ERR_NOMEM;
		ls->buf = grown;
		ls->cap = cap;
	}
	memcpy(ls->buf + ls->len, p, take);
	ls->len += take;
	return BF_OK;
}

static enum bf_err emit(struct linesplit *ls, linesplit_fn fn, void *arg)
{
	size_t len = ls->len;
	int cut = ls->cut;

	if (!ls->buf) { /* an empty first line: give fn a "" */
		ls->buf = malloc(1);
		if (!ls->buf)
			return BF_ERR_NOMEM;
		ls->cap = 1;
	}
	ls->buf[len] = '\0';
	ls->len = 0;
	ls->cut = 0;
	return fn ? fn(arg, ls->buf, len, cut) : BF_OK;
}

enum bf_err linesplit_feed(struct linesplit *ls, const char *p, size_t n,
			   linesplit_fn fn, void *arg)
{
	enum bf_err err;

	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;

		err = append(ls, p, len);
		if (err == BF_OK && nl) {
			err = emit(ls, fn, arg);
			len++;
		}
		if (err != BF_OK)
			return err;
		p += len;
		n -= len;
	}
	return BF_OK;
}

enum bf_err linesplit_finish(struct linesplit *ls, linesplit_fn fn, void *arg)
{
	if (ls->len == 0 && !ls->cut)
		return BF_OK;
	return emit(ls, fn, arg);
}

void linesplit_free(struct linesplit *ls)
{
	if (!ls)
		return;
	free(ls->buf);
	ls->buf = NULL;
	ls->len = ls->cap = 0;
	ls->cut = 0;
}
