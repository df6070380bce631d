/*
 * Unit tests for controller/run/build_log.c: the remote build's output
 * as ctl reads it. Heartbeats with make's and ninja's progress marks
 * (and marks that are neither), the build command's cause line, the
 * causes picked out of the log in their order of precedence (CMake's
 * message lines joined), the log's tail kept in whole lines when it
 * overflows, and the tail that fits a reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run/build_log.h"

static enum build_line feed(struct build_log *b, const char *line, int *done,
			    int *total, int *percent)
{
	return build_log_line(b, line, strlen(line), done, total, percent);
}

static void test_steps(void **state)
{
	int d = -1, t = -1, p = -1;

	(void)state;
	assert_int_equal(build_log_step(" [ 45%]", &d, &t, &p), 1);
	assert_int_equal(d, 45);
	assert_int_equal(t, 100);
	assert_int_equal(p, 1);
	assert_int_equal(build_log_step("[12/40]", &d, &t, &p), 1);
	assert_int_equal(d, 12);
	assert_int_equal(t, 40);
	assert_int_equal(p, 0);
	assert_int_equal(build_log_step("[100%]", &d, &t, &p), 1);
	assert_int_equal(d, 100);
	/* Neither: outputs untouched. */
	d = t = p = -7;
	assert_int_equal(build_log_step("[101%]", &d, &t, &p), 0);
	assert_int_equal(build_log_step("[-1%]", &d, &t, &p), 0);
	assert_int_equal(build_log_step("[41/40]", &d, &t, &p), 0);
	assert_int_equal(build_log_step("[1/0]", &d, &t, &p), 0);
	assert_int_equal(build_log_step("[12/40", &d, &t, &p), 0);
	assert_int_equal(build_log_step("[12345678/99999999]", &d, &t, &p), 0);
	assert_int_equal(build_log_step("", &d, &t, &p), 0);
	assert_int_equal(d, -7);
	assert_int_equal(t, -7);
	assert_int_equal(p, -7);
}

static void test_lines(void **state)
{
	struct build_log b;
	int d = -1, t = -1, p = -1;

	(void)state;
	memset(&b, 0, sizeof b);
	assert_int_equal(feed(&b, ":bf-building", &d, &t, &p),
			 BUILD_LINE_HEARTBEAT);
	assert_int_equal(feed(&b, ":bf-building [ 7%]", &d, &t, &p),
			 BUILD_LINE_PROGRESS);
	assert_int_equal(d, 7);
	assert_int_equal(feed(&b, ":bf-building [3/9]", &d, &t, &p),
			 BUILD_LINE_PROGRESS);
	assert_int_equal(t, 9);
	/* Only the exact word is a heartbeat. */
	assert_int_equal(feed(&b, ":bf-buildingx [3/9]", &d, &t, &p),
			 BUILD_LINE_TEXT);
	assert_int_equal(feed(&b, ":bf-cause cmake is 3.10, 3.18 needed", &d,
			      &t, &p), BUILD_LINE_CAUSE);
	assert_string_equal(b.ctl_cause, "cmake is 3.10, 3.18 needed");
	assert_int_equal(feed(&b, "See also \"/tmp/x/CMakeOutput.log\".", &d,
			      &t, &p), BUILD_LINE_TEXT);
	/* Heartbeats, cause lines and "See also" are not kept. */
	assert_string_equal(b.text, ":bf-buildingx [3/9]");
}

static void test_causes(void **state)
{
	struct build_log b;
	int d, t, p;

	(void)state;
	memset(&b, 0, sizeof b);
	assert_null(build_log_cause(&b));
	feed(&b, "gemm.c:3:1: error: unknown type name 'foo'", &d, &t, &p);
	assert_string_equal(build_log_cause(&b),
			    "gemm.c:3:1: error: unknown type name 'foo'");
	feed(&b, "CMake Error at CMakeLists.txt:9 (find_package):", &d, &t,
	     &p);
	feed(&b, "  Could not find", &d, &t, &p);
	feed(&b, "", &d, &t, &p);
	feed(&b, "\tOpenBLAS", &d, &t, &p);
	feed(&b, "-- Configuring incomplete", &d, &t, &p);
	feed(&b, "  not part of it", &d, &t, &p);
	assert_string_equal(build_log_cause(&b),
			    "CMake Error at CMakeLists.txt:9 (find_package): "
			    "Could not find OpenBLAS");
	feed(&b, "--   No package 'libcjson' found", &d, &t, &p);
	assert_string_equal(build_log_cause(&b), "No package 'libcjson' found");
	feed(&b, "--   No package 'other' found", &d, &t, &p);
	assert_string_equal(build_log_cause(&b), "No package 'libcjson' found");
	feed(&b, ":bf-cause ctl's own", &d, &t, &p);
	assert_string_equal(build_log_cause(&b), "ctl's own");
}

/* Issue 28: a cause longer than its field ends in "..." (a compiler's
 * error on a long path, a CMake message of many lines); it was cut
 * there without a mark and read as the whole cause. */
static void test_long_causes(void **state)
{
	struct build_log b;
	char line[400];
	int d, t, p;

	(void)state;
	memset(&b, 0, sizeof b);
	memset(line, 'x', 399);
	memcpy(line, "/src/", 5);
	memcpy(line + 380, ": error: no foo", 15);
	line[399] = '\0';
	feed(&b, line, &d, &t, &p);
	assert_int_equal(strlen(b.cc_cause), sizeof(b.cc_cause) - 1);
	assert_memory_equal(b.cc_cause, "/src/xxx", 8);
	assert_string_equal(b.cc_cause + sizeof(b.cc_cause) - 4, "...");
	feed(&b, "CMake Error at CMakeLists.txt:9 (message):", &d, &t, &p);
	for (int i = 0; i < 20; i++)
		feed(&b, "  a message line of CMake's, one of many", &d, &t,
		     &p);
	assert_int_equal(strlen(b.cmake_cause), sizeof(b.cmake_cause) - 1);
	assert_string_equal(b.cmake_cause + sizeof(b.cmake_cause) - 4, "...");
	feed(&b, "  one more", &d, &t, &p);
	assert_string_equal(b.cmake_cause + sizeof(b.cmake_cause) - 4, "...");
	memcpy(line, ":bf-cause ", 10);
	feed(&b, line, &d, &t, &p);
	assert_string_equal(build_log_cause(&b) + sizeof(b.ctl_cause) - 4,
			    "...");
}

static void test_tail(void **state)
{
	struct build_log b;
	char line[700];
	int d, t, p;

	(void)state;
	memset(&b, 0, sizeof b);
	/* Lines of 600 bytes, "0...", "1...": the text keeps the newest
	 * whole ones that fit in 2048 bytes. */
	for (int i = 0; i < 5; i++) {
		memset(line, 'a' + i, 600);
		line[600] = '\0';
		feed(&b, line, &d, &t, &p);
		assert_true(strlen(b.text) < sizeof b.text);
	}
	assert_int_equal(strlen(b.text), 3 * 600 + 2);
	assert_int_equal(b.text[0], 'c');
	assert_int_equal(b.text[600], '\n');
	assert_int_equal(b.text[3 * 600 + 1], 'e');
	/* A line longer than the whole buffer is not kept. */
	{
		char big[2100];

		memset(big, 'z', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		feed(&b, big, &d, &t, &p);
		assert_int_equal(b.text[0], 'c');
	}
	/* The tail that fits: whole lines from the end. */
	assert_ptr_equal(build_log_tail(b.text, 0), b.text);
	assert_ptr_equal(build_log_tail(b.text, sizeof b.text), b.text);
	assert_ptr_equal(build_log_tail(b.text, 1300), b.text + 601);
	assert_ptr_equal(build_log_tail(b.text, 601), b.text + 1202);
	/* Not even the last line fits: its end. */
	assert_ptr_equal(build_log_tail(b.text, 11),
			 b.text + strlen(b.text) - 10);
	assert_string_equal(build_log_tail("one\ntwo", 4), "two");
	assert_string_equal(build_log_tail("", 1), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_causes),
		cmocka_unit_test(test_long_causes),
		cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
