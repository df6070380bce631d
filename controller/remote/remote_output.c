/* Line splitting and stderr tails of remote commands; see remote_output.h. */
#include "remote/remote_output.h"

#include <stdlib.h>
#include <string.h>

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
