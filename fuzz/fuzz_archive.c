/*
 * libFuzzer target: a run directory as ctl show, list and compare read it
 * (archive_read.c). The input is run.json, then a line "----", then the
 * host file 00-local.ndjson (without the separator: run.json only, no host
 * file). Both are written into one temporary results directory, made once
 * per process, and read back with archive_list_ids, archive_load_run_info,
 * archive_load_run and archive_load_file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/archive_read.h"
#include "xmalloc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char results[64], run_dir[128], run_json[160], host_file[160];

static void cleanup(void)
{
	unlink(run_json);
	unlink(host_file);
	rmdir(run_dir);
	rmdir(results);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(results, sizeof(results), "/tmp/bf-fuzz-archive-XXXXXX");
	if (!mkdtemp(results))
		abort();
	snprintf(run_dir, sizeof(run_dir), "%s/20261130T145309Z-f0d4", results);
	snprintf(run_json, sizeof(run_json), "%s/run.json", run_dir);
	snprintf(host_file, sizeof(host_file), "%s/00-local.ndjson", run_dir);
	if (mkdir(run_dir, 0700) != 0)
		abort();
	atexit(cleanup);
	return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char sep[] = "\n----\n";
	const uint8_t *at = memmem(data, size, sep, sizeof(sep) - 1);
	struct archive_run *run;
	char detail[512], **ids;
	int n;

	unlink(host_file);
	if (at) {
		size_t json_len = (size_t)(at - data);

		write_file(run_json, data, json_len);
		at += sizeof(sep) - 1;
		write_file(host_file, at, size - (size_t)(at - data));
	} else {
		write_file(run_json, data, size);
	}
	if (archive_list_ids(results, &ids, &n, detail, sizeof(detail)) == BF_OK)
		bf_xfree_strv(ids);
	if (archive_load_run_info(run_dir, &run, detail, sizeof(detail)) == BF_OK)
		archive_run_free(run);
	if (archive_load_run(run_dir, &run, detail, sizeof(detail)) == BF_OK) {
		for (int i = 0; i < run->nhosts; i++)
			archive_run_host(run, run->hosts[i].name);
		archive_run_free(run);
	}
	if (at && archive_load_file(host_file, &run, detail, sizeof(detail)) == BF_OK)
		archive_run_free(run);
	return 0;
}
