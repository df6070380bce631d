/*
 * Unit tests for controller/remote/remote_output.c: the stderr tail keeps
 * the newest whole lines, and says how much it dropped. (Cutting stdout
 * into lines is linesplit.c's, tested by tests/unit/test_linesplit.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/remote_output.h"

static const char *text(struct remote_tail *t)
{
	return remote_tail_text(t, NULL);
}

static void test_tail(void **state)
{
	struct remote_tail t = { 0 };
	size_t len;

	(void)state;
	assert_int_equal(remote_tail_init(&t, 8), 0);
	assert_string_equal(text(&t), "");
	remote_tail_append(&t, "ab\n", 3);
	remote_tail_append(&t, "cd\n", 3);
	assert_string_equal(text(&t), "ab\ncd\n");
	/* Over the cap: the oldest whole line goes, and the text says how
	 * many bytes went before it. */
	remote_tail_append(&t, "ef\n", 3);
	assert_string_equal(t.data, "cd\nef\n");
	assert_int_equal(t.dropped_bytes, 3);
	assert_string_equal(text(&t), "[ctl: 3 bytes of stderr dropped "
			    "before this line]\ncd\nef\n");
	remote_tail_text(&t, &len);
	assert_int_equal(len, strlen(text(&t)));
	/* A line still being written is kept as it grows. */
	remote_tail_append(&t, "gh", 2);
	assert_string_equal(t.data, "cd\nef\ngh");
	assert_int_equal(t.dropped_bytes, 3);
	remote_tail_append(&t, "ij\n", 3);
	assert_string_equal(t.data, "ef\nghij\n");
	assert_int_equal(t.dropped_bytes, 6);
	remote_tail_append(&t, "", 0);
	assert_string_equal(t.data, "ef\nghij\n");
	remote_tail_reset(&t);
	assert_int_equal(t.len_bytes, 0);
	assert_int_equal(t.dropped_bytes, 0);
	assert_string_equal(text(&t), "");
	remote_tail_free(&t);
	assert_null(t.buf);
	remote_tail_free(&t);   /* twice is fine */
}

static void test_long_line(void **state)
{
	struct remote_tail t = { 0 };

	(void)state;
	assert_int_equal(remote_tail_init(&t, 8), 0);
	/* One line longer than the cap: its end is kept, and the marker
	 * says the kept text starts mid-line. */
	remote_tail_append(&t, "x\n0123456789XY", 14);
	assert_string_equal(t.data, "456789XY");
	assert_int_equal(t.cut_mid_line, 1);
	assert_string_equal(text(&t), "[ctl: 6 bytes of stderr dropped "
			    "before this line; the next line starts "
			    "mid-line]\n456789XY");
	/* Its newline arrives with a short line: whole lines again. */
	remote_tail_append(&t, "\nok\n", 4);
	assert_string_equal(t.data, "ok\n");
	assert_int_equal(t.cut_mid_line, 0);
	assert_int_equal(t.dropped_bytes, 15);
	/* A long line ending exactly at the end: its end, mid-line. */
	remote_tail_append(&t, "abcdefghijk\n", 12);
	assert_string_equal(t.data, "efghijk\n");
	assert_int_equal(t.cut_mid_line, 1);
	remote_tail_free(&t);
}

/* Byte counts add up over many appends, and the kept text is always the
 * stream's end, cut after a newline. */
static void test_stream(void **state)
{
	struct remote_tail t = { 0 };
	char line[32], *all = calloc(1, 100000);
	size_t all_len = 0;

	(void)state;
	assert_non_null(all);
	assert_int_equal(remote_tail_init(&t, 1000), 0);
	for (int i = 0; i < 2000; i++) {
		int n = snprintf(line, sizeof line, "line %d %.*s\n", i,
				 i % 7, "abcdefg");

		remote_tail_append(&t, line, (size_t)n);
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
	remote_tail_free(&t);
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
