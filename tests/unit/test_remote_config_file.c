/*
 * Unit tests for controller/remote/remote_config_file.c, ctl's own
 * ssh_config reader (remote_config_read, for where no ssh client
 * exists), on what fuzz/fuzz_sshconfig and fuzz/fuzz_knownhosts found
 * (issue 28): a Host pattern the old recursive matcher never finished,
 * and time values (ConnectTimeout, ServerAliveInterval) whose numbers
 * overflowed a long ("1s8888888888888888888888": undefined behaviour)
 * and which, when bad, were dropped without a word where ssh stops with
 * "invalid time value"; and an Include that names a pipe (fuzz_sshconfig
 * met "Include /????/????" matching /proc/kmsg, whose reads block for
 * root), where the reader waited for ever.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "remote/remote_config.h"

static char dir[32];
static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/bf-test-cfg-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/config", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

static void put(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* remote_config_read of path for host; *text and detail filled. */
static enum bf_err read_for(const char *host, char **text, char *detail,
			    size_t detail_len)
{
	struct remote_strv files = { 0 };
	enum bf_err e;

	*text = NULL;
	detail[0] = '\0';
	e = remote_config_read(host, NULL, 0, path, dir, text, &files, detail,
			       detail_len);
	for (size_t i = 0; i < files.n; i++)
		free(files.v[i]);
	free(files.v);
	return e;
}

static void test_time_values(void **state)
{
	static const struct {
		const char *line, *want;  /* want NULL: refused */
	} cases[] = {
		{ "ConnectTimeout 1m30s", "connecttimeout 90\n" },
		{ "ConnectTimeout none", "connecttimeout none\n" },
		{ "ServerAliveInterval 2h", "serveraliveinterval 7200\n" },
		{ "ServerAliveInterval 1s88888888888888888888888", NULL },
		{ "ConnectTimeout 9223372036854775807w", NULL },
		{ "ConnectTimeout 2147483647", "connecttimeout 2147483647\n" },
		{ "ConnectTimeout 2147483647s1", NULL },
		{ "ConnectTimeout 10x", NULL },
		{ "ServerAliveInterval -5", NULL },
	};
	char *text, detail[256], conf[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum bf_err e;

		snprintf(conf, sizeof(conf), "Host h\n  %s\n", cases[i].line);
		put(conf);
		e = read_for("h", &text, detail, sizeof(detail));
		if (cases[i].want) {
			assert_int_equal(e, BF_OK);
			if (!strstr(text, cases[i].want))
				fail_msg("%s: got\n%s", cases[i].line, text);
		} else {
			char want[160];

			assert_int_equal(e, BF_ERR_PARSE);
			snprintf(want, sizeof(want), "ssh config %s line 2: "
				 "invalid time value %s", path,
				 strchr(cases[i].line, ' ') + 1);
			assert_string_equal(detail, want);
		}
		free(text);
	}
}

/* ctl's ssh_config reader with a Host line of many stars: the block does
 * not apply to a name it does not match, and applies to one it does. */
static void test_config_host_stars(void **state)
{
	char conf[256] = "Host ", name[64], *text, detail[256];

	(void)state;
	for (int i = 0; i < 30; i++)
		memcpy(conf + 5 + 2 * i, "*a", 2);
	snprintf(conf + 65, sizeof(conf) - 65,
		 "b\n  HostName matched.example\n");
	put(conf);
	memset(name, 'a', 60);
	name[60] = '\0';
	assert_int_equal(read_for(name, &text, detail, sizeof(detail)), BF_OK);
	assert_non_null(strstr(text, "hostname aaaa"));
	assert_null(strstr(text, "matched.example"));
	free(text);
	name[59] = 'b';
	assert_int_equal(read_for(name, &text, detail, sizeof(detail)), BF_OK);
	assert_non_null(strstr(text, "hostname matched.example\n"));
	free(text);
}

/* An Include of a pipe: with no writer it reads as empty and the lines
 * after it still apply; with a writer that has written nothing, a read
 * would wait, which is an error naming the file. Both used to block for
 * ever (alarm(60) turns that into a failure). */
static void test_include_pipe(void **state)
{
	char fifo[80], conf[256], *text, detail[512], want[256];
	int wfd;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/pipe", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(conf, sizeof(conf), "Host h\n  Include %s\n  Port 2222\n",
		 fifo);
	put(conf);
	alarm(60);
	assert_int_equal(read_for("h", &text, detail, sizeof(detail)), BF_OK);
	assert_non_null(strstr(text, "port 2222\n"));
	free(text);

	wfd = open(fifo, O_RDWR | O_NONBLOCK);  /* a writer, writing nothing */
	assert_true(wfd >= 0);
	assert_int_equal(read_for("h", &text, detail, sizeof(detail)),
			 BF_ERR_IO);
	snprintf(want, sizeof(want), "ssh config %s: not a file: reading it "
		 "would wait for more (a device or a pipe)", fifo);
	assert_string_equal(detail, want);
	free(text);
	alarm(0);
	close(wfd);
	unlink(fifo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_time_values, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_config_host_stars, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_include_pipe, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
