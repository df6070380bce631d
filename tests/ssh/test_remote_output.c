/*
 * Unit tests for controller/remote_output.c: stdout cut into lines across
 * arbitrary chunk boundaries, the per-line cap (a long line delivered once,
 * cut and flagged), empty lines, NULs inside a line, a last line without
 * '\n', a callback that stops the stream, and the stderr tail keeping the
 * newest bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote_output.h"

#define MAX_SEEN 16

/* What the callback saw. */
struct seen {
	size_t n;
	char line[MAX_SEEN][64];
	size_t len[MAX_SEEN];
	int cut[MAX_SEEN];
	size_t stop_at;   /* > 0: return BF_ERR_INTERRUPTED on that line */
};

static enum bf_err record(void *arg, const char *line, size_t len_bytes,
			  int truncated)
{
	struct seen *s = arg;

	assert_true(s->n < MAX_SEEN);
	assert_true(len_bytes < sizeof s->line[0]);
	assert_int_equal(line[len_bytes], '\0');
	memcpy(s->line[s->n], line, len_bytes + 1);
	s->len[s->n] = len_bytes;
	s->cut[s->n] = truncated;
	s->n++;
	if (s->stop_at && s->n == s->stop_at)
		return BF_ERR_INTERRUPTED;
	return BF_OK;
}

/* Feeds text one chunk of `chunk` bytes at a time, then flushes. */
static void feed_all(struct remote_lines *l, size_t max, const char *text,
		     size_t len, size_t chunk, struct seen *s)
{
	size_t off = 0;

	while (off < len) {
		size_t n = len - off < chunk ? len - off : chunk;

		assert_int_equal(remote_lines_feed(l, max, text + off, n,
						   record, s), BF_OK);
		off += n;
	}
	assert_int_equal(remote_lines_flush(l, record, s), BF_OK);
}

static void test_lines_any_chunking(void **state)
{
	static const char text[] = "one\n\ntwo two\nlast";
	size_t chunk;

	(void)state;
	/* Every chunk size gives the same lines: boundaries do not matter. */
	for (chunk = 1; chunk <= sizeof text; chunk++) {
		struct remote_lines l = { 0 };
		struct seen s = { 0 };

		feed_all(&l, 100, text, sizeof text - 1, chunk, &s);
		assert_int_equal(s.n, 4);
		assert_string_equal(s.line[0], "one");
		assert_string_equal(s.line[1], "");
		assert_int_equal(s.len[1], 0);
		assert_string_equal(s.line[2], "two two");
		assert_string_equal(s.line[3], "last");
		assert_int_equal(s.cut[0] + s.cut[1] + s.cut[2] + s.cut[3], 0);
		remote_lines_free(&l);
	}
}

static void test_empty_first_line(void **state)
{
	struct remote_lines l = { 0 };
	struct seen s = { 0 };

	(void)state;
	/* No byte was ever stored: the callback still gets a "". */
	assert_int_equal(remote_lines_feed(&l, 100, "\n", 1, record, &s),
			 BF_OK);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.len[0], 0);
	/* Nothing pending: flush emits nothing. */
	assert_int_equal(remote_lines_flush(&l, record, &s), BF_OK);
	assert_int_equal(s.n, 1);
	remote_lines_free(&l);
	assert_null(l.line);
}

static void test_cap(void **state)
{
	struct remote_lines l = { 0 };
	struct seen s = { 0 };

	(void)state;
	/* Exactly the cap is whole; one more byte is cut, in any chunking;
	 * the line after a cut one is whole again. */
	feed_all(&l, 4, "abcd\nabcde\nxy\nabcdefghij", 24, 3, &s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.line[0], "abcd");
	assert_int_equal(s.cut[0], 0);
	assert_string_equal(s.line[1], "abcd");
	assert_int_equal(s.cut[1], 1);
	assert_string_equal(s.line[2], "xy");
	assert_int_equal(s.cut[2], 0);
	/* A cut last line without '\n' is flushed, flagged. */
	assert_string_equal(s.line[3], "abcd");
	assert_int_equal(s.cut[3], 1);
	assert_true(l.cap_bytes <= 5);
	remote_lines_free(&l);
}

static void test_nul_inside(void **state)
{
	struct remote_lines l = { 0 };
	struct seen s = { 0 };

	(void)state;
	feed_all(&l, 100, "a\0b\n", 4, 4, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.len[0], 3);
	assert_memory_equal(s.line[0], "a\0b", 4);
	remote_lines_free(&l);
}

static void test_stop_and_reset(void **state)
{
	struct remote_lines l = { 0 };
	struct seen s = { .stop_at = 2 };

	(void)state;
	/* The callback's code comes back; later lines are not processed. */
	assert_int_equal(remote_lines_feed(&l, 100, "1\n2\n3\n", 6, record,
					   &s), BF_ERR_INTERRUPTED);
	assert_int_equal(s.n, 2);
	/* A partial line is forgotten by reset (a new command). */
	s.stop_at = 0;
	assert_int_equal(remote_lines_feed(&l, 100, "partial", 7, record, &s),
			 BF_OK);
	remote_lines_reset(&l);
	assert_int_equal(remote_lines_feed(&l, 100, "new\n", 4, record, &s),
			 BF_OK);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.line[2], "new");
	remote_lines_free(&l);
}

static void test_tail(void **state)
{
	struct remote_tail t = { 0 };

	(void)state;
	assert_int_equal(remote_tail_init(&t, 8), 0);
	assert_string_equal(t.buf, "");
	remote_tail_append(&t, "abc", 3);
	remote_tail_append(&t, "def", 3);
	assert_string_equal(t.buf, "abcdef");
	/* Over the cap: the oldest bytes go. */
	remote_tail_append(&t, "ghij", 4);
	assert_int_equal(t.len_bytes, 8);
	assert_string_equal(t.buf, "cdefghij");
	/* One append larger than the cap keeps its own last bytes. */
	remote_tail_append(&t, "0123456789XY", 12);
	assert_string_equal(t.buf, "456789XY");
	remote_tail_append(&t, "", 0);
	assert_string_equal(t.buf, "456789XY");
	remote_tail_reset(&t);
	assert_int_equal(t.len_bytes, 0);
	assert_string_equal(t.buf, "");
	remote_tail_append(&t, "z", 1);
	assert_string_equal(t.buf, "z");
	remote_tail_free(&t);
	assert_null(t.buf);
	remote_tail_free(&t);   /* twice is fine */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_any_chunking),
		cmocka_unit_test(test_empty_first_line),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_nul_inside),
		cmocka_unit_test(test_stop_and_reset),
		cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
