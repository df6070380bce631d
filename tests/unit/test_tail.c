/*
 * Unit tests for controller/base/tail.c, the one stderr tail of every
 * runner (local, SSH, Slurm): it keeps the newest whole lines, and says
 * how much it dropped; tail_keep_end cuts a fixed buffer the same way.
 * (Cutting stdout into lines is linesplit.c's, tested by
 * tests/unit/test_linesplit.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/tail.h"

static const char *text(struct tail *t)
{
	return tail_text(t, NULL);
}

static void test_tail(void **state)
{
	struct tail t = { 0 };
	size_t len;

	(void)state;
	assert_int_equal(tail_init(&t, 8), 0);
	assert_string_equal(text(&t), "");
	tail_append(&t, "ab\n", 3);
	tail_append(&t, "cd\n", 3);
	assert_string_equal(text(&t), "ab\ncd\n");
	/* Over the cap: the oldest whole line goes, and the text says how
	 * many bytes went before it. */
	tail_append(&t, "ef\n", 3);
	assert_string_equal(t.data, "cd\nef\n");
	assert_int_equal(t.dropped_bytes, 3);
	assert_string_equal(text(&t), "[ctl: 3 bytes of stderr dropped "
			    "before this line]\ncd\nef\n");
	tail_text(&t, &len);
	assert_int_equal(len, strlen(text(&t)));
	/* A line still being written is kept as it grows. */
	tail_append(&t, "gh", 2);
	assert_string_equal(t.data, "cd\nef\ngh");
	assert_int_equal(t.dropped_bytes, 3);
	tail_append(&t, "ij\n", 3);
	assert_string_equal(t.data, "ef\nghij\n");
	assert_int_equal(t.dropped_bytes, 6);
	tail_append(&t, "", 0);
	assert_string_equal(t.data, "ef\nghij\n");
	tail_reset(&t);
	assert_int_equal(t.len_bytes, 0);
	assert_int_equal(t.dropped_bytes, 0);
	assert_string_equal(text(&t), "");
	tail_free(&t);
	assert_null(t.buf);
	tail_free(&t);   /* twice is fine */
}

static void test_long_line(void **state)
{
	struct tail t = { 0 };

	(void)state;
	assert_int_equal(tail_init(&t, 8), 0);
	/* One line longer than the cap: its end is kept, and the marker
	 * says the kept text starts mid-line. */
	tail_append(&t, "x\n0123456789XY", 14);
	assert_string_equal(t.data, "456789XY");
	assert_int_equal(t.cut_mid_line, 1);
	assert_string_equal(text(&t), "[ctl: 6 bytes of stderr dropped "
			    "before this line; the next line starts "
			    "mid-line]\n456789XY");
	/* Its newline arrives with a short line: whole lines again. */
	tail_append(&t, "\nok\n", 4);
	assert_string_equal(t.data, "ok\n");
	assert_int_equal(t.cut_mid_line, 0);
	assert_int_equal(t.dropped_bytes, 15);
	/* A long line ending exactly at the end: its end, mid-line. */
	tail_append(&t, "abcdefghijk\n", 12);
	assert_string_equal(t.data, "efghijk\n");
	assert_int_equal(t.cut_mid_line, 1);
	tail_free(&t);
}

/* Byte counts add up over many appends, and the kept text is always the
 * stream's end, cut after a newline. */
static void test_stream(void **state)
{
	struct tail t = { 0 };
	char line[32], *all = calloc(1, 100000);
	size_t all_len = 0;

	(void)state;
	assert_non_null(all);
	assert_int_equal(tail_init(&t, 1000), 0);
	for (int i = 0; i < 2000; i++) {
		int n = snprintf(line, sizeof line, "line %d %.*s\n", i,
				 i % 7, "abcdefg");

		tail_append(&t, line, (size_t)n);
		memcpy(all + all_len, line, (size_t)n);
		all_len += (size_t)n;
		assert_true(t.len_bytes <= 1000);
		assert_int_equal(t.dropped_bytes + t.len_bytes, all_len);
		assert_memory_equal(t.data, all + t.dropped_bytes,
				    t.len_bytes);
		assert_true(t.dropped_bytes == 0 ||
			    all[t.dropped_bytes - 1] == '\n');
	}
	assert_true(t.len_bytes > 1000 - 20);
	tail_free(&t);
	free(all);
}

/* tail_keep_end: the values of a few cuts. */
static void test_keep_end(void **state)
{
	char out[8];

	(void)state;
	tail_keep_end(out, sizeof out, "ab\ncd\n", 6);
	assert_string_equal(out, "ab\ncd\n");       /* fits */
	tail_keep_end(out, sizeof out, "ab\ncd\nef\n", 9);
	assert_string_equal(out, "cd\nef\n");       /* whole lines */
	tail_keep_end(out, sizeof out, "x\n0123456789XY", 14);
	assert_string_equal(out, "56789XY");         /* a long line's end */
	tail_keep_end(out, sizeof out, "abcdefg\nhi", 10);
	assert_string_equal(out, "hi");              /* the newline at the cut */
	tail_keep_end(out, sizeof out, NULL, 0);
	assert_string_equal(out, "");
	tail_keep_end(out, 1, "abc\n", 4);
	assert_string_equal(out, "");
	out[0] = 'z';
	tail_keep_end(out, 0, "abc\n", 4);         /* nothing written */
	assert_int_equal(out[0], 'z');
}

/* tail_keep_end cuts as a tail of len - 1 bytes that took the text at
 * once: the same bytes for every text and size. */
static void test_keep_end_as_tail(void **state)
{
	char text[200], out[64];

	(void)state;
	for (unsigned seed = 1; seed < 400; seed++) {
		size_t n = seed % sizeof text, len = 2 + seed % 60;
		unsigned x = seed;
		struct tail t = { 0 };

		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			text[i] = (x >> 16) % 9 == 0 ? '\n' :
				  (char)('a' + (x >> 16) % 26);
		}
		assert_int_equal(tail_init(&t, len - 1), 0);
		tail_append(&t, text, n);
		tail_keep_end(out, len, text, n);
		assert_string_equal(out, t.data);
		tail_free(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_keep_end),
		cmocka_unit_test(test_keep_end_as_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
