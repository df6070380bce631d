/* A short local program run to its end, its output kept; see
 * remote_capture.h. */
#include "remote/remote_capture.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"

/* One growing, NUL-terminated buffer of at most max bytes. */
struct capbuf {
	char **s;
	size_t *len, cap, max;
	int oom;
};

/* proc_chunk_fn: appends what fits of n bytes to the capbuf arg. */
static void keep(void *arg, const char *buf, size_t n)
{
	struct capbuf *b = arg;
	size_t room, take;

	if (b->oom || *b->len >= b->max)
		return;
	room = b->max - *b->len;
	take = n < room ? n : room;
	if (*b->len + take + 1 > b->cap) {
		size_t cap = (*b->len + take + 1) * 2;
		char *s = realloc(*b->s, cap);

		if (!s) {
			b->oom = 1;
			return;
		}
		*b->s = s;
		b->cap = cap;
	}
	memcpy(*b->s + *b->len, buf, take);
	*b->len += take;
	(*b->s)[*b->len] = '\0';
}

/* The pump's two sinks. */
struct capture_sinks {
	struct capbuf out, err;
};

static void keep_out(void *arg, const char *buf, size_t n)
{
	keep(&((struct capture_sinks *)arg)->out, buf, n);
}

static void keep_err(void *arg, const char *buf, size_t n)
{
	keep(&((struct capture_sinks *)arg)->err, buf, n);
}

enum bf_err remote_capture_run(char *const argv[], int64_t deadline_ms,
			       const atomic_int *cancel, size_t out_max,
			       size_t err_max, struct remote_capture *c)
{
	struct proc_spec s = { .path = argv[0], .argv = argv,
			       .search_path = 1, .new_session = 1,
			       .io_fd = -1 };
	struct capture_sinks k;
	struct proc p;
	enum bf_err e;

	memset(c, 0, sizeof *c);
	k.out = (struct capbuf){ &c->out, &c->out_len, 0, out_max, 0 };
	k.err = (struct capbuf){ &c->err, &c->err_len, 0, err_max, 0 };
	e = proc_start(&s, &p, &c->spawn_errno);
	if (e != BF_OK)
		return e;
	e = proc_pump(&p, deadline_ms, cancel, keep_out, keep_err, &k);
	if (e == BF_OK && (k.out.oom || k.err.oom))
		e = BF_ERR_NOMEM;
	proc_reap(&p, e != BF_OK ? SIGKILL : 0, &c->status);
	return e;
}
void remote_capture_free(struct remote_capture *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
	c->out_len = c->err_len = 0;
}
