/*
 * Unit tests for controller/remote/remote_match.c, the '*' and '?'
 * patterns of ssh_config and known_hosts: the same answers as OpenSSH's
 * recursive match_pattern (match.c, below as the reference) for every
 * pattern and name up to 5 characters over "ab*?" and "ab", and answers
 * for the patterns the recursion never finishes (90 stars, or "*a"
 * thirty times, then a mismatch; tests/unit/test_remote_config_file.c
 * has them through ctl's own ssh_config reader): fuzz/fuzz_knownhosts
 * found such a known_hosts line, "[******...gpu?]:*", that ctl read for
 * ever.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/remote_match.h"

/* OpenSSH 9.2's match_pattern (match.c), as ctl had it: exponential in
 * the number of stars, fine for 5 characters. */
static int reference(const char *s, const char *p)
{
	for (;; s++, p++) {
		if (!*p)
			return !*s;
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (!*p)
				return 1;
			for (; *s; s++)
				if (reference(s, p))
					return 1;
			return 0;
		}
		if (!*s || (*p != '?' && *p != *s))
			return 0;
	}
}

/* Every string of length len over alphabet into out (NUL-terminated,
 * len + 1 bytes each); returns how many. */
static size_t all_strings(const char *alphabet, size_t len, char *out)
{
	size_t k = strlen(alphabet), n = 1;

	for (size_t i = 0; i < len; i++)
		n *= k;
	for (size_t i = 0; i < n; i++) {
		size_t v = i;

		for (size_t j = 0; j < len; j++) {
			out[i * (len + 1) + j] = alphabet[v % k];
			v /= k;
		}
		out[i * (len + 1) + len] = '\0';
	}
	return n;
}

static void test_same_as_openssh(void **state)
{
	static char pats[1024 * 6], names[32 * 6];
	size_t checked = 0;

	(void)state;
	for (size_t pl = 0; pl <= 5; pl++) {
		size_t np = all_strings("ab*?", pl, pats);

		for (size_t sl = 0; sl <= 5; sl++) {
			size_t ns = all_strings("ab", sl, names);

			for (size_t i = 0; i < np; i++)
				for (size_t j = 0; j < ns; j++) {
					const char *p = pats + i * (pl + 1);
					const char *s = names + j * (sl + 1);

					if (remote_match_pattern(s, p) !=
					    reference(s, p))
						fail_msg("'%s' against '%s'", p,
							 s);
					checked++;
				}
		}
	}
	/* 1365 patterns times 63 names. */
	assert_int_equal(checked, 1365 * 63);
}

static void test_many_stars(void **state)
{
	char pat[256], name[128];

	(void)state;
	memset(name, 'a', 60);
	name[60] = '\0';
	/* 90 stars, then a character the name lacks. */
	memset(pat, '*', 90);
	snprintf(pat + 90, sizeof(pat) - 90, "b");
	assert_false(remote_match_pattern(name, pat));
	snprintf(pat + 90, sizeof(pat) - 90, "a");
	assert_true(remote_match_pattern(name, pat));
	/* "*a" thirty times, then "b". */
	for (int i = 0; i < 30; i++)
		memcpy(pat + 2 * i, "*a", 2);
	snprintf(pat + 60, sizeof(pat) - 60, "b");
	assert_false(remote_match_pattern(name, pat));
	snprintf(pat + 60, sizeof(pat) - 60, "*");
	assert_true(remote_match_pattern(name, pat));
	/* The line the fuzzer found, against names it might have met. */
	snprintf(pat, sizeof(pat), "[%.*sreseed_count%.*sgpu?]:*", 43,
		 "*******************************************", 34,
		 "**********************************");
	assert_false(remote_match_pattern("[gpu1]:2222", pat));
	assert_true(remote_match_pattern("[xreseed_countgpu1]:22", pat));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_openssh),
		cmocka_unit_test(test_many_stars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
