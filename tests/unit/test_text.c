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

	/* 4 bytes of room: "ab" and one 3-byte character would need 5. */
	assert_string_equal(bf_text_sanitize(buf, sizeof(buf), "ab\xe4\xb8\xad"),
			    "ab");
	assert_string_equal(bf_text_sanitize(buf, sizeof(buf), NULL), "");
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
			    "abcdefghi");
	assert_string_equal(bf_text_join_lines(tiny, sizeof(tiny),
					       "abcdef\nxyz\nq", "; "),
			    "abcdef; xyz");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_cut_at_boundary),
		cmocka_unit_test(test_join_lines),
	};

	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
