/*
 * Unit tests for common/xmalloc.c's out-of-memory path: bf_xmalloc_fatal
 * runs bf_xmalloc_fatal_hook, prints "out of memory: <what>" and aborts
 * (checked in a child process), and after bf_xmalloc_init_cjson cJSON still
 * builds, prints, parses and frees (its allocations are bf_xmalloc's).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "xmalloc.h"

static int hook_fd = -1;

/* Stands in for the controller's terminal restore: leaves a mark. */
static void mark_hook(void)
{
	if (write(hook_fd, "hook;", 5) != 5)
		_exit(3);
}

/* Runs fn in a child whose stderr, and the hook's mark, go to a pipe;
 * returns the child's wait status and what it wrote in out. */
static int run_child(void (*fn)(void), char *out, size_t size)
{
	int fds[2], status = 0;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		hook_fd = fds[1];
		dup2(fds[1], STDERR_FILENO);
		bf_xmalloc_fatal_hook = mark_hook;
		fn();
		_exit(0);   /* not reached when fn takes the fatal path */
	}
	close(fds[1]);
	while (len + 1 < size &&
	       (n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void call_fatal(void)
{
	bf_xmalloc_fatal("cJSON_Print failed");
}

static void test_fatal_runs_hook_then_aborts(void **state)
{
	char out[512];
	int status;

	(void)state;
	status = run_child(call_fatal, out, sizeof out);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	/* The hook first (the terminal is restored before the message). */
	assert_string_equal(out, "hook;out of memory: cJSON_Print failed\n");
}

/* Every malloc call of this program's own objects (xmalloc.c's
 * bf_xmalloc among them, not libcjson's, a shared library) goes through
 * here: the link wraps malloc (-Wl,--wrap=malloc, tests/unit/
 * CMakeLists.txt), so the test can tell whether cJSON allocates through
 * bf_xmalloc. */
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
static size_t wrapped_mallocs;

void *__wrap_malloc(size_t size)
{
	wrapped_mallocs++;
	return __real_malloc(size);
}

static void test_cjson_through_hooks(void **state)
{
	cJSON *doc, *back;
	char *text;
	size_t before;

	(void)state;
	/* Without the hooks cJSON's allocations are libc's own, unseen. */
	cJSON_InitHooks(NULL);
	before = wrapped_mallocs;
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "host", "bfhost1");
	cJSON_Delete(doc);
	assert_int_equal(wrapped_mallocs, before);
	/* bf_xmalloc itself is seen */
	free(bf_xmalloc(16));
	assert_int_equal(wrapped_mallocs, before + 1);
	/* With them, each of cJSON's allocations is bf_xmalloc's: an object,
	 * a key and a string value, at least. */
	bf_xmalloc_init_cjson();
	before = wrapped_mallocs;
	doc = cJSON_CreateObject();
	assert_non_null(doc);
	cJSON_AddStringToObject(doc, "host", "bfhost1");
	assert_true(wrapped_mallocs >= before + 3);
	cJSON_AddNumberToObject(doc, "gflops", 89.25);
	cJSON_AddItemToObject(doc, "samples", cJSON_CreateArray());
	text = cJSON_PrintUnformatted(doc);
	assert_non_null(text);
	assert_string_equal(text,
		"{\"host\":\"bfhost1\",\"gflops\":89.25,\"samples\":[]}");
	back = cJSON_Parse(text);
	assert_non_null(back);
	assert_true(cJSON_Compare(doc, back, 1));
	/* cJSON_free and free are the same function under these hooks. */
	free(text);
	cJSON_Delete(back);
	cJSON_Delete(doc);
	cJSON_InitHooks(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fatal_runs_hook_then_aborts),
		cmocka_unit_test(test_cjson_through_hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
