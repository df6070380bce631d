/*
 * Unit test of remote_quote: expected quotings, and a round trip through a
 * real /bin/sh (`printf %s <quoted>` must print the input back unchanged)
 * for strings that would be shell syntax if left bare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote_quote.h"

static int failures;

static void expect_quote(const char *in, const char *want)
{
	char *got = remote_quote(in);

	if (!got || strcmp(got, want) != 0) {
		fprintf(stderr, "FAIL quote(\"%s\"): got [%s], want [%s]\n",
			in, got ? got : "(null)", want);
		failures++;
	}
	free(got);
}

/* Runs sh -c "printf %s QUOTED" and compares its output with s. */
static void expect_round_trip(const char *s)
{
	char *q = remote_quote(s);
	char *cmd = NULL, *shq = NULL;
	char out[4096];
	size_t n = 0;
	FILE *p;

	/* The command line for popen's own sh: quote the whole command once
	 * more, so that sh -c receives exactly "printf %s <q>". */
	if (!q || asprintf(&cmd, "printf %%s %s", q) < 0 ||
	    !(shq = remote_quote(cmd))) {
		fprintf(stderr, "FAIL round trip: out of memory\n");
		failures++;
		goto out;
	}
	free(cmd);
	cmd = NULL;
	if (asprintf(&cmd, "sh -c %s", shq) < 0) {
		cmd = NULL;
		failures++;
		goto out;
	}
	p = popen(cmd, "r");
	if (!p) {
		perror("popen");
		failures++;
		goto out;
	}
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	if (pclose(p) != 0 || n != strlen(s) || memcmp(out, s, n) != 0) {
		fprintf(stderr, "FAIL round trip of [%s]: got [%s]\n", s, out);
		failures++;
	}
out:
	free(shq);
	free(cmd);
	free(q);
}

int main(void)
{
	static const char *const nasty[] = {
		"'; rm -rf / #", "a b", "it's", "\"double\"", "$HOME", "`id`",
		"$(id)", "a;b&c|d", "*", "~", "back\\slash", "new\nline",
		"tab\there", "''", "'", "-n", "=x", "!bang", "{a,b}", "#", "",
		"bfhost1", "/tmp/x y/z", "\xc3\xa9t\xc3\xa9",
	};
	size_t i;

	expect_quote("bfhost1", "bfhost1");
	expect_quote("/usr/local/bin/agent-1.2_x,y:z@h%+",
		     "/usr/local/bin/agent-1.2_x,y:z@h%+");
	expect_quote("", "''");
	expect_quote("a b", "'a b'");
	expect_quote("it's", "'it'\\''s'");
	expect_quote("'", "''\\'''");
	expect_quote("'; rm -rf / #", "''\\''; rm -rf / #'");
	expect_quote("$HOME", "'$HOME'");
	expect_quote("=x", "'=x'");
	expect_quote("~", "'~'");
	if (remote_quote(NULL) != NULL) {
		fprintf(stderr, "FAIL quote(NULL) is not NULL\n");
		failures++;
	}
	for (i = 0; i < sizeof nasty / sizeof nasty[0]; i++)
		expect_round_trip(nasty[i]);

	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	puts("remote_quote: all passed");
	return 0;
}
