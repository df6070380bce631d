/* Writing the results archive; see archive.h. */
#include "archive/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bf_clock.h"
#include "xmalloc.h"

enum bf_err archive_create(const char *results_dir, struct archive *a,
			   char *detail, size_t detail_len)
{
	char stamp[32];
	struct tm tm;
	time_t now = time(NULL);

	memset(a, 0, sizeof(*a));
	if (mkdir(results_dir, 0755) < 0 && errno != EEXIST)
		return bf_fail(detail, detail_len, BF_ERR_IO,
			       "cannot create %s: %s", results_dir,
			       strerror(errno));
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int attempt = 0; attempt < 16; attempt++) {
		unsigned short rnd = 0;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (unsigned short)(getpid() + attempt);
		/* fits: strftime's 16 characters, '-' and 4 hex digits. */
		snprintf(a->run_id, sizeof(a->run_id), "%s-%04x", stamp, rnd);
		free(a->dir);
		a->dir = bf_xasprintf("%s/%s", results_dir, a->run_id);
		if (mkdir(a->dir, 0755) == 0)
			return BF_OK;
		if (errno != EEXIST)
			break;
	}
	return bf_fail(detail, detail_len, BF_ERR_IO, "cannot create %s: %s",
		       a->dir, strerror(errno));
}

void archive_host_basename(const char *host, int index, char *out, size_t len)
{
	size_t i = 0;
	int n;

	/* The index keeps two hosts that sanitise alike apart. */
	n = snprintf(out, len, "%02d-", index);
	for (const char *p = host; *p && (size_t)n + i + 1 < len; p++, i++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			 c == '-';

		out[n + i] = ok ? c : '_';
	}
	out[n + i] = '\0';
	if (out[n] == '.') /* no hidden files, no ".." */
		out[n] = '_';
}

FILE *archive_open_new(const struct archive *a, const char *name,
		       char *detail, size_t detail_len)
{
	char *path = bf_xasprintf("%s/%s", a->dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	FILE *f = NULL;

	if (fd < 0)
		bf_fail(detail, detail_len, BF_ERR_IO, "cannot create %s: %s",
			path, strerror(errno));
	else if (!(f = fdopen(fd, "w")))
		close(fd);
	free(path);
	return f;
}

enum bf_err archive_write_json(const struct archive *a, const char *name,
			       const cJSON *doc, char *detail,
			       size_t detail_len)
{
	char *path = bf_xasprintf("%s/%s", a->dir, name);
	char *tmp = bf_xasprintf("%s/.%s.tmp", a->dir, name);
	char *text = cJSON_Print(doc);
	enum bf_err err = BF_OK;
	FILE *f;

	if (!text)
		bf_xmalloc_fatal("cJSON_Print failed");
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0 || fflush(f) != 0 ||
	    fsync(fileno(f)) != 0) {
		err = bf_fail(detail, detail_len, BF_ERR_IO, "cannot write %s: %s",
			      tmp, strerror(errno));
	}
	if (f && fclose(f) != 0 && err == BF_OK)
		err = bf_fail(detail, detail_len, BF_ERR_IO, "cannot write %s: %s",
			      tmp, strerror(errno));
	if (err == BF_OK && rename(tmp, path) != 0)
		err = bf_fail(detail, detail_len, BF_ERR_IO, "cannot rename %s: %s",
			      tmp, strerror(errno));
	if (err != BF_OK)
		unlink(tmp);
	free(text);
	free(tmp);
	free(path);
	return err;
}

/* A string member, or null when s is NULL or "". */
static void add_string_or_null(cJSON *o, const char *key, const char *s)
{
	if (s && *s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *archive_run_json(const struct archive *a,
			const struct archive_run_info *run)
{
	cJSON *doc = cJSON_CreateObject(), *arr;
	char now[32];

	cJSON_AddNumberToObject(doc, BF_RUN_ARCHIVE_VERSION, 1);
	cJSON_AddStringToObject(doc, BF_RUN_RUN_ID, a->run_id);
	cJSON_AddStringToObject(doc, BF_RUN_CTL_VERSION, run->ctl_version);
	arr = cJSON_AddArrayToObject(doc, BF_RUN_COMMAND_LINE);
	for (int i = 0; i < run->argc; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(run->argv[i]));
	if (run->tag)
		cJSON_AddStringToObject(doc, BF_RUN_TAG, run->tag);
	else
		cJSON_AddNullToObject(doc, BF_RUN_TAG);
	cJSON_AddStringToObject(doc, BF_RUN_STARTED_AT, run->started_at);
	if (strcmp(run->status, BF_RUN_RUNNING) == 0)
		cJSON_AddNullToObject(doc, BF_RUN_ENDED_AT);
	else
		cJSON_AddStringToObject(doc, BF_RUN_ENDED_AT,
					bf_utc_iso8601(now, NULL));
	cJSON_AddStringToObject(doc, BF_RUN_STATUS, run->status);
	add_string_or_null(doc, BF_RUN_REASON, run->reason);
	if (run->rerun_of && *run->rerun_of)
		cJSON_AddStringToObject(doc, BF_RUN_RERUN_OF, run->rerun_of);
	if (run->baseline_host)
		cJSON_AddStringToObject(doc, BF_RUN_BASELINE_HOST,
					run->baseline_host);
	arr = cJSON_AddArrayToObject(doc, BF_RUN_HOSTS);
	for (int i = 0; i < run->nhosts; i++) {
		const struct archive_host_info *h = &run->hosts[i];
		cJSON *o = cJSON_CreateObject();
		char *name;

		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, BF_RUN_HOST_NAME, h->name);
		cJSON_AddStringToObject(o, BF_RUN_HOST_TARGET, h->target);
		cJSON_AddStringToObject(o, BF_RUN_HOST_STATUS, h->status);
		add_string_or_null(o, BF_RUN_HOST_REASON, h->reason);
		add_string_or_null(o, BF_RUN_HOST_FINGERPRINT, h->fingerprint);
		add_string_or_null(o, BF_RUN_HOST_AGENT_HASH, h->agent_hash);
		add_string_or_null(o, BF_RUN_HOST_HOSTNAME, h->hostname);
		if (h->agent_exit >= 0)
			cJSON_AddNumberToObject(o, BF_RUN_HOST_AGENT_EXIT,
						h->agent_exit);
		else
			cJSON_AddNullToObject(o, BF_RUN_HOST_AGENT_EXIT);
		cJSON_AddNumberToObject(o, BF_RUN_HOST_RECORDS, h->records);
		cJSON_AddNumberToObject(o, BF_RUN_HOST_MALFORMED, h->malformed);
		cJSON_AddNumberToObject(o, BF_RUN_HOST_GEMM_DONE, h->gemm_done);
		cJSON_AddNumberToObject(o, BF_RUN_HOST_GEMM_TOTAL, h->gemm_total);
		cJSON_AddStringToObject(o, BF_RUN_HOST_COMPLETE_RECORDS,
					h->complete_records ? "yes" : "no");
		/* File names, which readers open: whole. */
		name = bf_xasprintf("%s.ndjson", h->basename);
		cJSON_AddStringToObject(o, BF_RUN_HOST_RECORDS_FILE, name);
		free(name);
		name = bf_xasprintf("%s.log", h->basename);
		cJSON_AddStringToObject(o, BF_RUN_HOST_LOG_FILE, name);
		free(name);
		if (h->slurm_job && *h->slurm_job)
			cJSON_AddStringToObject(o, BF_RUN_HOST_SLURM_JOB,
						h->slurm_job);
		add_string_or_null(o, BF_RUN_HOST_STARTED_AT, h->started_at);
		add_string_or_null(o, BF_RUN_HOST_ENDED_AT, h->ended_at);
		if (h->same_machine && *h->same_machine) {
			cJSON_AddStringToObject(o, BF_RUN_HOST_SAME_MACHINE,
						h->same_machine);
			cJSON_AddBoolToObject(o, BF_RUN_HOST_SAME_MACHINE_AT_ONCE,
					      h->same_machine_at_once);
		}
	}
	return doc;
}

void archive_close(struct archive *a)
{
	free(a->dir);
	a->dir = NULL;
}
