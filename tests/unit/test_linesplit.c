/*
 * Unit tests for controller/base/linesplit.c, the capped line splitter of the
 * agent's stdout (pipe and SSH channel alike): lines across and within
 * chunks, empty lines, the cap (a line at the cap is whole, one past it is
 * cut and flagged, once), a last line without '\n', and a stop from the
 * callback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/linesplit.h"

#define MAX_LINES 16

struct got {
	char text[MAX_LINES][64];
	size_t len[MAX_LINES];
	int cut[MAX_LINES];
	int n;
	int stop_after; /* return BF_ERR_REMOTE after this many; 0: never */
};

static enum bf_err collect(void *arg, const char *line, size_t len, int cut)
{
	struct got *g = arg;

	assert_true(g->n < MAX_LINES);
	assert_int_equal(line[len], '\0');
	memcpy(g->text[g->n], line, len < 63 ? len : 63);
	g->text[g->n][len < 63 ? len : 63] = '\0';
	g->len[g->n] = len;
	g->cut[g->n] = cut;
	g->n++;
	return g->stop_after && g->n >= g->stop_after ? BF_ERR_REMOTE : BF_OK;
}

static void feed(struct linesplit *ls, struct got *g, const char *s)
{
	assert_int_equal(linesplit_feed(ls, s, strlen(s), collect, g), BF_OK);
}

static void test_lines_across_chunks(void **state)
{
	struct linesplit ls = { 0 };
	struct got g = { .n = 0 };

	linesplit_reset(&ls, 100);
	feed(&ls, &g, "");
	feed(&ls, &g, "\nab");
	feed(&ls, &g, "c\nde\n\nf");
	assert_int_equal(g.n, 4);
	assert_string_equal(g.text[0], "");
	assert_string_equal(g.text[1], "abc");
	assert_string_equal(g.text[2], "de");
	assert_string_equal(g.text[3], "");
	assert_int_equal(linesplit_finish(&ls, collect, &g), BF_OK);
	assert_int_equal(g.n, 5);
	assert_string_equal(g.text[4], "f"); /* the last line, no '\n' */
	assert_int_equal(g.cut[4], 0);
	/* Finished: a second finish delivers nothing. */
	assert_int_equal(linesplit_finish(&ls, collect, &g), BF_OK);
	assert_int_equal(g.n, 5);
	linesplit_free(&ls);
}

static void test_nul_in_line(void **state)
{
	struct linesplit ls = { 0 };
	struct got g = { .n = 0 };

	linesplit_reset(&ls, 100);
	assert_int_equal(linesplit_feed(&ls, "a\0b\n", 4, collect, &g), BF_OK);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.len[0], 3);
	linesplit_free(&ls);
}

static void test_cap(void **state)
{
	struct linesplit ls = { 0 };
	struct got g = { .n = 0 };

	linesplit_reset(&ls, 4);
	feed(&ls, &g, "abcd\n");      /* at the cap: whole */
	feed(&ls, &g, "abcde");       /* past it: cut, delivered at its end */
	assert_int_equal(g.n, 1);
	feed(&ls, &g, "fghij\nok\n");
	assert_int_equal(g.n, 3);
	assert_string_equal(g.text[0], "abcd");
	assert_int_equal(g.cut[0], 0);
	assert_string_equal(g.text[1], "abcd");
	assert_int_equal(g.len[1], 4);
	assert_int_equal(g.cut[1], 1);
	assert_string_equal(g.text[2], "ok"); /* the next line is whole again */
	assert_int_equal(g.cut[2], 0);
	assert_true(ls.cap <= 5);           /* memory stays within the cap */
	/* An overlong last line without '\n' is flushed flagged. */
	feed(&ls, &g, "123456");
	assert_int_equal(linesplit_finish(&ls, collect, &g), BF_OK);
	assert_int_equal(g.n, 4);
	assert_string_equal(g.text[3], "1234");
	assert_int_equal(g.cut[3], 1);
	linesplit_free(&ls);
}

static void test_reset_drops_partial(void **state)
{
	struct linesplit ls = { 0 };
	struct got g = { .n = 0 };

	linesplit_reset(&ls, 100);
	feed(&ls, &g, "half a li");
	linesplit_reset(&ls, 100); /* a new stream */
	feed(&ls, &g, "new\n");
	assert_int_equal(g.n, 1);
	assert_string_equal(g.text[0], "new");
	linesplit_free(&ls);
	linesplit_free(&ls); /* twice is fine */
	linesplit_free(NULL);
}

static void test_callback_stops(void **state)
{
	struct linesplit ls = { 0 };
	struct got g = { .n = 0, .stop_after = 2 };
	const char *s = "a\nb\nc\n";

	linesplit_reset(&ls, 100);
	assert_int_equal(linesplit_feed(&ls, s, strlen(s), collect, &g),
			 BF_ERR_REMOTE);
	assert_int_equal(g.n, 2);
	linesplit_free(&ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_across_chunks),
		cmocka_unit_test(test_nul_in_line),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_reset_drops_partial),
		cmocka_unit_test(test_callback_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
