/*
 * Unit tests of the archive's never-overwrite rule
 * (controller/archive/archive.c): a run id that collides with an existing
 * run's (two runs in one second with the same random suffix, forced here
 * by this file's own time() and getrandom(), which the static bf_ctl
 * calls instead of libc's) gets another suffix and leaves the other run
 * as it was; when every try collides, archive_create fails and still
 * touches nothing; a file of a run is created, never replaced (O_EXCL).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "archive/archive.h"
#include "archive/archive_read.h"
#include "xmalloc.h"

/* 2100-01-01T00:00:00Z: every run of these tests in the same second. */
#define FIXED_TIME ((time_t)4102444800LL)

time_t time(time_t *t)
{
	if (t)
		*t = FIXED_TIME;
	return FIXED_TIME;
}

/* The suffixes archive_create draws, in order; the last repeats. */
static unsigned short suffixes[8];
static int nsuffixes, next_suffix, draws;

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	unsigned short v = suffixes[next_suffix < nsuffixes - 1 ?
					    next_suffix++ :
					    nsuffixes - 1];

	(void)flags;
	draws++;
	if (len != sizeof(v)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(buf, &v, sizeof(v));
	return (ssize_t)len;
}

static void draw(int n, const unsigned short *v)
{
	memcpy(suffixes, v, (size_t)n * sizeof(*v));
	nsuffixes = n;
	next_suffix = 0;
	draws = 0;
}

static char results[64];

static int setup(void **state)
{
	(void)state;
	snprintf(results, sizeof(results), "/tmp/bf-test-archive-XXXXXX");
	return mkdtemp(results) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", results);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const struct archive *a, const char *name,
		       const char *text)
{
	char d[300];
	FILE *f = archive_open_new(a, name, d, sizeof(d));

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void assert_file(const char *dir, const char *name, const char *want)
{
	char path[512], got[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, want);
}

static void test_run_id_collision(void **state)
{
	static const unsigned short first[] = { 0x3fa9 };
	static const unsigned short again[] = { 0x3fa9, 0x3fa9, 0x0b07 };
	struct archive a, b;
	char d[300], *kept;

	(void)state;
	draw(1, first);
	assert_int_equal(archive_create(results, &a, d, sizeof(d)), BF_OK);
	assert_string_equal(a.run_id, "21000101T000000Z-3fa9");
	write_file(&a, "run.json", "first run\n");
	write_file(&a, "00-h.ndjson", "first records\n");
	/* The same second, the same suffix twice: a third try's suffix. */
	draw(3, again);
	assert_int_equal(archive_create(results, &b, d, sizeof(d)), BF_OK);
	assert_int_equal(draws, 3);
	assert_string_equal(b.run_id, "21000101T000000Z-0b07");
	assert_string_not_equal(a.dir, b.dir);
	write_file(&b, "run.json", "second run\n");
	assert_file(a.dir, "run.json", "first run\n");
	assert_file(a.dir, "00-h.ndjson", "first records\n");
	assert_file(b.dir, "run.json", "second run\n");
	/* Every try collides: an error naming the directory, nothing made,
	 * the first run untouched. */
	kept = strdup(a.dir);
	archive_close(&b);
	draw(1, first);
	assert_int_equal(archive_create(results, &b, d, sizeof(d)),
			 BF_ERR_IO);
	assert_int_equal(draws, 16);
	assert_non_null(strstr(d, "21000101T000000Z-3fa9: File exists"));
	assert_file(kept, "run.json", "first run\n");
	free(kept);
	archive_close(&b);
	archive_close(&a);
}

static void test_open_new_never_replaces(void **state)
{
	static const unsigned short one[] = { 0x0001 };
	struct archive a;
	char d[300];

	(void)state;
	draw(1, one);
	assert_int_equal(archive_create(results, &a, d, sizeof(d)), BF_OK);
	write_file(&a, "00-h.log", "kept\n");
	assert_null(archive_open_new(&a, "00-h.log", d, sizeof(d)));
	assert_non_null(strstr(d, "cannot create "));
	assert_non_null(strstr(d, "/00-h.log: File exists"));
	assert_file(a.dir, "00-h.log", "kept\n");
	archive_close(&a);
}

/* Issue 28: a damaged run's note names its path whole (a results
 * directory 250 bytes deep cut it at 255 bytes, with no mark, before
 * "missing"); two long hostnames both show, each cut visibly. */
static void test_long_names(void **state)
{
	char name[251], d[300], buf[160], **ids = NULL, **skipped = NULL;
	char *deep, *run, *want;
	struct bf_rec_host a, b;
	int count = -1;
	FILE *f;

	(void)state;
	memset(name, 'r', 250);
	name[250] = '\0';
	deep = bf_xasprintf("%s/%s", results, name);
	assert_int_equal(mkdir(deep, 0700), 0);
	run = bf_xasprintf("%s/20990101T000000Z-0001", deep);
	assert_int_equal(mkdir(run, 0700), 0);
	want = bf_xasprintf("%s/run.json", run);
	f = fopen(want, "w");
	assert_non_null(f);
	fputs("{}\n", f);
	fclose(f);
	free(want);
	want = bf_xasprintf("%s/00-h.ndjson", run);
	f = fopen(want, "w");
	assert_non_null(f);
	fclose(f);
	free(want);
	assert_int_equal(archive_runs_with_host(deep, "h", 5, &ids, &count,
						&skipped, d, sizeof(d)),
			 BF_OK);
	assert_int_equal(count, 0);
	assert_non_null(skipped);
	assert_non_null(skipped[0]);
	want = bf_xasprintf("20990101T000000Z-0001: run.json unreadable (%s/"
			    "run.json: \"run_id\", \"status\" or \"hosts\" "
			    "missing)", run);
	assert_string_equal(skipped[0], want);
	assert_null(skipped[1]);
	free(want);
	bf_xfree_strv(ids);
	bf_xfree_strv(skipped);
	free(run);
	free(deep);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.hostname = bf_xasprintf("%s-now", name);
	b.hostname = bf_xasprintf("%s-then", name);
	assert_string_equal(archive_machine_differs(&a, NULL, &b, NULL, buf,
						    sizeof(buf)),
			    "hostname differs (rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"
			    "rrrrrrrrrrrrrrrrrrrrrrrr..., was rrrrrrrrrrrrrrrr"
			    "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr...)");
	free(a.hostname);
	free(b.hostname);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_id_collision, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_open_new_never_replaces,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_names, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
