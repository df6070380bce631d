/* Reading one archived run back (or one host file); see archive_read.h. */
#include "archive/archive_read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "archive/archive_files.h"
#include "bf_text.h"
#include "xmalloc.h"


static char *strdup_or(const char *s, const char *dflt)
{
	return bf_xstrdup(s ? s : dflt);
}

static void load_host(const char *dir, const cJSON *ho,
		      struct archive_host *h, int with_records)
{
	const char *file = archive_json_str(ho, BF_RUN_HOST_RECORDS_FILE);
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(ho, BF_RUN_HOST_AGENT_EXIT);

	h->name = strdup_or(archive_json_str(ho, BF_RUN_HOST_NAME), "n/a");
	h->status = strdup_or(archive_json_str(ho, BF_RUN_HOST_STATUS), "n/a");
	h->reason = bf_xstrdup(archive_json_str(ho, BF_RUN_HOST_REASON));
	h->fingerprint = bf_xstrdup(archive_json_str(ho, BF_RUN_HOST_FINGERPRINT));
	h->agent_exit = cJSON_IsNumber(ex) &&
				bf_schema_int_ok(ex->valuedouble, 0, 255) ?
			(int)ex->valuedouble : -1;
	h->same_machine = bf_xstrdup(archive_json_str(ho, BF_RUN_HOST_SAME_MACHINE));
	h->same_machine_at_once = h->same_machine &&
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			ho, BF_RUN_HOST_SAME_MACHINE_AT_ONCE));
	h->started_at = bf_xstrdup(archive_json_str(ho, BF_RUN_HOST_STARTED_AT));
	h->ended_at = bf_xstrdup(archive_json_str(ho, BF_RUN_HOST_ENDED_AT));
	if (!with_records)
		return; /* run.json only: no records */
	if (archive_plain_file_name(file)) {
		char *path = bf_xasprintf("%s/%s", dir, file);

		archive_read_records(path, h);
		free(path);
	} else {
		h->read_error = bf_xasprintf("%s: run.json names no valid records_file for host %s",
					  dir, h->name);
	}
}

static const char *base_name(const char *path)
{
	const char *end = path + strlen(path), *slash;

	while (end > path + 1 && end[-1] == '/')
		end--;
	for (slash = end; slash > path && slash[-1] != '/'; slash--)
		;
	return slash;
}

/* "00-spark.ndjson" as ctl run names it: the host is "spark" (a name
 * without the index and the extension; NULL when nothing is left). */
static char *host_from_file_name(const char *base)
{
	size_t stem_len = strlen(base);

	if (stem_len > 7 && strcmp(base + stem_len - 7, ".ndjson") == 0)
		stem_len -= 7;
	if (stem_len > 3 && base[0] >= '0' && base[0] <= '9' &&
	    base[1] >= '0' && base[1] <= '9' && base[2] == '-') {
		base += 3;
		stem_len -= 3;
	}
	return stem_len ? archive_clean(bf_xasprintf("%.*s", (int)stem_len, base)) : NULL;
}

/* A run whose run.json cannot be used (why: "dir/run.json: ..."): status
 * "damaged", the reason saying so, and a host per host file found in the
 * directory, read as archive_load_file reads one (with_records) or only
 * named. Never fails: a directory with nothing left is a damaged run with
 * no hosts. */
static struct archive_run *damaged_run(const char *dir, const char *why,
				       int with_records)
{
	struct archive_run *run = bf_xcalloc(1, sizeof(*run));
	char **files = archive_host_files(dir, &run->nhosts);

	run->dir = archive_clean(bf_xstrdup(dir));
	run->run_id = archive_clean(bf_xstrdup(base_name(dir)));
	run->started_at = bf_xstrdup("n/a");
	run->status = bf_xstrdup(ARCHIVE_RUN_DAMAGED);
	run->reason = bf_xasprintf("run.json unreadable (%s)", why);
	run->incomplete = 1;
	run->damaged = 1;
	run->hosts = bf_xcalloc((size_t)(run->nhosts ? run->nhosts : 1),
				sizeof(*run->hosts));
	for (int i = 0; i < run->nhosts; i++) {
		struct archive_host *h = &run->hosts[i];
		char *path = bf_xasprintf("%s/%s", dir, files[i]);

		h->name = host_from_file_name(files[i]);
		if (!h->name)
			h->name = bf_xstrdup("n/a");
		h->status = bf_xstrdup("n/a");
		h->agent_exit = -1;
		if (with_records)
			archive_read_records(path, h);
		else
			h->records_path = bf_xstrdup(path);
		free(path);
	}
	bf_xfree_strv(files);
	return run;
}

static enum bf_err load_run(const char *dir, int with_records,
			    struct archive_run **out, char *detail,
			    size_t detail_len)
{
	struct archive_run *run;
	const cJSON *hosts, *ho;
	const char *status, *id;
	enum bf_err err;
	struct stat st;
	char *path;
	cJSON *doc;
	int i = 0;

	*out = NULL;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		int e = errno;

		return bf_fail(detail, detail_len,
			       e == ENOENT ? BF_ERR_NOT_FOUND : BF_ERR_IO,
			       "%s: %s", dir,
			       e == ENOENT ? strerror(e) : "not a run directory");
	}
	path = bf_xasprintf("%s/run.json", dir);
	err = archive_read_json_file(path, &doc, detail, detail_len);
	free(path);
	if (err == BF_OK) {
		hosts = cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS);
		status = archive_json_str(doc, BF_RUN_STATUS);
		id = archive_json_str(doc, BF_RUN_RUN_ID);
		if (!cJSON_IsArray(hosts) || !status || !id) {
			cJSON_Delete(doc);
			err = bf_fail(detail, detail_len, BF_ERR_SCHEMA,
				      "%s/run.json: \"%s\", \"%s\" or \"%s\" missing",
				      dir, BF_RUN_RUN_ID, BF_RUN_STATUS,
				      BF_RUN_HOSTS);
		}
	}
	if (err != BF_OK) {
		/* One damaged run.json must not hide the records next
		 * to it: the run is read from its host files. */
		*out = damaged_run(dir, archive_clean(detail), with_records);
		return BF_OK;
	}
	run = bf_xcalloc(1, sizeof(*run));
	run->run_json = doc;
	run->dir = archive_clean(bf_xstrdup(dir));
	run->run_id = bf_xstrdup(id);
	run->started_at = strdup_or(archive_json_str(doc, BF_RUN_STARTED_AT), "n/a");
	run->tag = bf_xstrdup(archive_json_str(doc, BF_RUN_TAG));
	run->baseline_host = bf_xstrdup(archive_json_str(doc, BF_RUN_BASELINE_HOST));
	if (strcmp(status, BF_RUN_COMPLETE) == 0) {
		run->status = bf_xstrdup(BF_RUN_COMPLETE);
	} else {
		run->incomplete = 1;
		run->status = bf_xstrdup(BF_RUN_INCOMPLETE);
		if (strcmp(status, BF_RUN_RUNNING) == 0)
			run->reason = bf_xstrdup("run.json still says running: ctl was stopped, or the run is in progress");
		else
			run->reason = strdup_or(archive_json_str(doc, BF_RUN_REASON),
						"n/a");
	}
	run->nhosts = cJSON_GetArraySize(hosts);
	run->hosts = bf_xcalloc((size_t)(run->nhosts ? run->nhosts : 1),
			     sizeof(*run->hosts));
	cJSON_ArrayForEach(ho, hosts)
		load_host(dir, ho, &run->hosts[i++], with_records);
	*out = run;
	return BF_OK;
}

enum bf_err archive_load_run(const char *dir, struct archive_run **out,
			     char *detail, size_t detail_len)
{
	return load_run(dir, 1, out, detail, detail_len);
}

enum bf_err archive_load_run_info(const char *dir, struct archive_run **out,
				  char *detail, size_t detail_len)
{
	return load_run(dir, 0, out, detail, detail_len);
}

enum bf_err archive_load_file(const char *path, struct archive_run **out,
			      char *detail, size_t detail_len)
{
	struct archive_run *run;
	struct archive_host *h;
	const char *hostname;
	int e;

	*out = NULL;
	run = bf_xcalloc(1, sizeof(*run));
	run->nhosts = 1;
	run->hosts = bf_xcalloc(1, sizeof(*run->hosts));
	h = &run->hosts[0];
	e = archive_read_records(path, h);
	if (h->read_error) {
		enum bf_err err = bf_fail(detail, detail_len,
					  e == ENOENT ? BF_ERR_NOT_FOUND :
							BF_ERR_IO,
					  "%s", h->read_error);

		archive_run_free(run);
		return err;
	}
	if (h->nrecords == 0) {
		archive_run_free(run);
		return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
			       "%s: no valid benchfleet record", path);
	}
	hostname = h->host_record ? h->host_record->hostname : NULL;
	h->name = host_from_file_name(base_name(path));
	if (!h->name)
		h->name = strdup_or(hostname, "n/a");
	h->status = bf_xstrdup("n/a");
	h->agent_exit = -1;
	run->dir = archive_clean(bf_xstrdup(path));
	run->run_id = archive_clean(bf_xstrdup(base_name(path)));
	run->started_at = bf_xstrdup("n/a");
	run->status = bf_xstrdup("file");
	run->incomplete = !h->complete;
	if (!h->complete)
		run->reason = bf_xstrdup("no summary record: the agent ended early");
	*out = run;
	return BF_OK;
}

void archive_run_free(struct archive_run *run)
{
	if (!run)
		return;
	for (int i = 0; i < run->nhosts; i++) {
		struct archive_host *h = &run->hosts[i];

		archive_free_records(h);
		free(h->read_error);
		free(h->records_path);
		free(h->fingerprint);
		free(h->reason);
		free(h->status);
		free(h->name);
		free(h->same_machine);
		free(h->started_at);
		free(h->ended_at);
	}
	free(run->hosts);
	free(run->baseline_host);
	cJSON_Delete(run->run_json);
	free(run->tag);
	free(run->reason);
	free(run->status);
	free(run->started_at);
	free(run->run_id);
	free(run->dir);
	free(run);
}

const struct archive_host *archive_run_host(const struct archive_run *run,
					    const char *name)
{
	for (int i = 0; i < run->nhosts; i++)
		if (strcmp(run->hosts[i].name, name) == 0)
			return &run->hosts[i];
	return NULL;
}
