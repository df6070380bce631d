/*
 * Unit tests for controller/remote/remote_output.c: the stderr tail keeps the
 * newest bytes. (Cutting stdout into lines is linesplit.c's, tested by
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

#include "remote/remote_output.h"

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
		cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
