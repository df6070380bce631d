/*
 * Unit tests for common/bf_text.c: escape sequences and other control
 * characters from remote hosts never reach the terminal; valid UTF-8
 * (CJK, accents) is kept byte for byte; malformed UTF-8 is replaced.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bf_error.h"
#include "bf_text.h"

static void check(const char *in, const char *want)
{
	char buf[128], copy[128];

	assert_string_equal(bf_text_sanitize(buf, sizeof(buf), in), want);
	snprintf(copy, sizeof(copy), "%s", in);
	assert_string_equal(bf_text_sanitize_inplace(copy), want);
	assert_int_equal(bf_text_is_clean(in), strcmp(in, want) == 0);
	assert_true(bf_text_is_clean(want));
}

static void test_controls(void **state)
{
	check("plain text", "plain text");
	check("\x1b[2J\x1b]0;title\x07red", "?[2J?]0;title?red");
	check("line\nbreak\rcr", "line?break?cr");
	check("tab\there", "tab here");
	check("del\x7f", "del?");
	/* C1 controls in UTF-8 (U+009B is a one-character CSI). */
	check("csi\xc2\x9b" "31m", "csi?31m");
}

static void test_utf8(void **state)
{
	check("h\xc3\xa9llo", "h\xc3\xa9llo");                 /* é */
	check("\xe4\xb8\xad\xe6\x96\x87", "\xe4\xb8\xad\xe6\x96\x87"); /* 中文 */
	check("\xf0\x9f\x9a\x80", "\xf0\x9f\x9a\x80");         /* U+1F680 */
	check("bad\xff", "bad?");
	check("\xc0\xaf", "??");                               /* overlong / */
	check("\xed\xa0\x80", "???");                          /* surrogate */
	check("\xe4\xb8", "??");                               /* cut short */
	check("\xf4\x90\x80\x80", "????");                     /* > U+10FFFF */
}

static void test_cut_at_boundary(void **state)
{
	char buf[5];

	/* 4 bytes of room: "ab" and one 3-byte character would need 5; a cut
	 * ends with "...", so only "a" is left of the text. */
	assert_string_equal(bf_text_sanitize(buf, sizeof(buf), "ab\xe4\xb8\xad"),
			    "a...");
	assert_string_equal(bf_text_sanitize(buf, sizeof(buf), "abcd"), "abcd");
	assert_string_equal(bf_text_sanitize(buf, sizeof(buf), NULL), "");
	/* The "..." replaces whole characters: two 3-byte ones in 8 bytes. */
	{
		char b8[8];

		assert_string_equal(bf_text_sanitize(b8, sizeof(b8),
						     "\xe4\xb8\xad\xe6\x96\x87xy"),
				    "\xe4\xb8\xad...");
		assert_string_equal(bf_text_sanitize(b8, sizeof(b8),
						     "\xe4\xb8\xad\xe6\x96\x87"),
				    "\xe4\xb8\xad\xe6\x96\x87");
	}
	/* Under 4 bytes of room: cut only. */
	{
		char b3[3];

		assert_string_equal(bf_text_sanitize(b3, sizeof(b3), "abc"), "ab");
	}
}

static void test_join_lines(void **state)
{
	char buf[64], tiny[12];

	(void)state;
	assert_string_equal(bf_text_join_lines(buf, sizeof(buf),
					       "Unknown host\nsrun: error: x\n",
					       "; "),
			    "Unknown host; srun: error: x");
	assert_string_equal(bf_text_join_lines(buf, sizeof(buf), "a\n\nb",
					       "\n    "),
			    "a\n    b");
	/* CRLF, empty lines and controls inside a line. */
	assert_string_equal(bf_text_join_lines(buf, sizeof(buf),
					       "\na\r\n\n\x1b[1mb\n", "; "),
			    "a; ?[1mb");
	assert_string_equal(bf_text_join_lines(buf, sizeof(buf), NULL, "; "), "");
	assert_string_equal(bf_text_join_lines(buf, sizeof(buf), "one", "; "), "one");
	/* Cut: no separator without room for what follows it. */
	assert_string_equal(bf_text_join_lines(tiny, sizeof(tiny),
					       "abcdefghi\nxyz", "; "),
			    "abcdefgh...");
	assert_string_equal(bf_text_join_lines(tiny, sizeof(tiny),
					       "abcdef\nxyz\nq", "; "),
			    "abcdef; ...");
	assert_string_equal(bf_text_join_lines(tiny, sizeof(tiny),
					       "abcdef\nxyz\n\n", "; "),
			    "abcdef; xyz");
}

/* bf_fail and bf_text_mark_cut: a reason that does not fit ends with
 * "...", also where snprintf cut a UTF-8 sequence in two; one that fits
 * is left whole. */
static void test_cut_marked(void **state)
{
	char buf[12];

	(void)state;
	assert_int_equal(bf_fail(buf, sizeof(buf), BF_ERR_IO, "%s: %s", "open",
				 "No such file"), BF_ERR_IO);
	assert_string_equal(buf, "open: No...");
	bf_fail(buf, sizeof(buf), BF_ERR_IO, "%s", "fits whole");
	assert_string_equal(buf, "fits whole");
	bf_fail(buf, sizeof(buf), BF_ERR_IO, "%s", "exactly 11!");
	assert_string_equal(buf, "exactly 11!");
	/* What snprintf keeps of "abcdefghi" + U+4E2D in 12 bytes:
	 * "abcdefghi\xe4\xb8"; the half character goes with what "..."
	 * needs. */
	memcpy(buf, "abcdefghi\xe4\xb8", 12);
	bf_text_mark_cut(buf, sizeof(buf));
	assert_string_equal(buf, "abcdefgh...");
	/* "ab" + three 3-byte characters fill 11 bytes: the last one goes. */
	memcpy(buf, "ab\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", 12);
	bf_text_mark_cut(buf, sizeof(buf));
	assert_string_equal(buf, "ab\xe4\xb8\xad\xe6\x96\x87...");
}

/* bf_text_fmt and bf_text_appendf: a text that fits is whole and says
 * so; one that does not ends with "..." and returns 0, so no cut is ever
 * silent. */
static void test_fmt_marks_cut(void **state)
{
	char buf[12];

	(void)state;
	assert_int_equal(bf_text_fmt(buf, sizeof(buf), "%s=%d", "n", 4096), 1);
	assert_string_equal(buf, "n=4096");
	assert_int_equal(bf_text_fmt(buf, sizeof(buf), "%s", "exactly 11!"),
			 1);
	assert_string_equal(buf, "exactly 11!");
	assert_int_equal(bf_text_fmt(buf, sizeof(buf), "%s", "twelve bytes"),
			 0);
	assert_string_equal(buf, "twelve b...");
	assert_int_equal(bf_text_fmt(buf, 0, "%s", "x"), 0);

	buf[0] = '\0';
	assert_int_equal(bf_text_appendf(buf, sizeof(buf), "%s", "host"), 1);
	assert_int_equal(bf_text_appendf(buf, sizeof(buf), ", %s", "gpu"), 1);
	assert_string_equal(buf, "host, gpu");
	assert_int_equal(bf_text_appendf(buf, sizeof(buf), ", %s", "cpu"), 0);
	assert_string_equal(buf, "host, gp...");
	/* Full to the last byte: a further append is a cut, and says so. */
	memcpy(buf, "exactly 11!", 12);
	assert_int_equal(bf_text_appendf(buf, sizeof(buf), "%s", "x"), 0);
	assert_string_equal(buf, "exactly ...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_cut_at_boundary),
		cmocka_unit_test(test_join_lines),
		cmocka_unit_test(test_cut_marked),
		cmocka_unit_test(test_fmt_marks_cut),
	};

	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
