/*
 * Finding runs in the results archive: the run ids in a results
 * directory, what a user names on the command line (a run id or its
 * unique prefix, a host, a host file), and a host's previous run with the
 * same settings (the Δ% baseline). See archive_read.h.
 */
#include "archive/archive_read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* A run directory: a directory holding a run.json (of any kind: a damaged
 * one is still a run) or, when that was lost, a host file. */
static int is_run_dir(const char *path)
{
	struct stat st;
	char *p;
	int found, n;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	p = bf_xasprintf("%s/run.json", path);
	found = lstat(p, &st) == 0;
	free(p);
	if (!found) {
		bf_xfree_strv(archive_host_files(path, &n));
		found = n > 0;
	}
	return found;
}


struct id_entry {
	char *id;
	char *started_at; /* from run.json; "" when unreadable */
};

/* Creation order: the id's UTC second (its first 16 characters,
 * "20261130T145506Z"), then run.json's started_at in milliseconds, since
 * runs started within one second differ only in their random suffix. */
static int cmp_id_entry(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;
	int c = strncmp(x->id, y->id, 16);

	if (c == 0)
		c = strcmp(x->started_at, y->started_at);
	return c ? c : strcmp(x->id, y->id);
}

/* For a run without a readable started_at: when its first host file was
 * last written, in started_at's format ("2026-11-30T14:53:09.123Z"), so
 * that it sorts among runs of the same second as near its place as the
 * files allow (a run's files are written before the next run starts). ""
 * when there is none. */
static char *first_write(const char *results_dir, const char *id)
{
	char *dir = bf_xasprintf("%s/%s", results_dir, id), **files, stamp[48];
	struct timespec first = { 0, 0 };
	int n;

	files = archive_host_files(dir, &n);
	for (int i = 0; i < n; i++) {
		char *p = bf_xasprintf("%s/%s", dir, files[i]);
		struct stat st;

		if (lstat(p, &st) == 0 &&
		    (!first.tv_sec || st.st_mtim.tv_sec < first.tv_sec ||
		     (st.st_mtim.tv_sec == first.tv_sec &&
		      st.st_mtim.tv_nsec < first.tv_nsec)))
			first = st.st_mtim;
		free(p);
	}
	bf_xfree_strv(files);
	free(dir);
	stamp[0] = '\0';
	if (first.tv_sec) {
		struct tm tm;
		size_t len;

		gmtime_r(&first.tv_sec, &tm);
		len = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(stamp + len, sizeof(stamp) - len, ".%03dZ",
			 (int)(first.tv_nsec / 1000000));
	}
	return bf_xstrdup(stamp);
}

enum bf_err archive_list_ids(const char *results_dir, char ***ids,
			     int *count, char *detail, size_t detail_len)
{
	struct id_entry *v = NULL;
	struct dirent *e;
	char **out;
	int n = 0, cap = 0;
	DIR *d;

	*ids = NULL;
	*count = 0;
	d = opendir(results_dir);
	if (!d) {
		int err = errno;

		return bf_fail(detail, detail_len,
			       err == ENOENT ? BF_ERR_NOT_FOUND : BF_ERR_IO,
			       "%s: %s", results_dir, strerror(err));
	}
	while ((e = readdir(d)) != NULL) {
		char *path, ignored[256];
		cJSON *doc = NULL;

		if (e->d_name[0] == '.')
			continue;
		path = bf_xasprintf("%s/%s", results_dir, e->d_name);
		if (!is_run_dir(path)) {
			free(path);
			continue;
		}
		free(path);
		path = bf_xasprintf("%s/%s/run.json", results_dir, e->d_name);
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			v = bf_xrealloc(v, (size_t)cap * sizeof(*v));
		}
		archive_read_json_file(path, &doc, ignored, sizeof(ignored));
		v[n].id = bf_xstrdup(e->d_name);
		v[n].started_at = archive_json_str(doc, BF_RUN_STARTED_AT) ?
					  bf_xstrdup(archive_json_str(doc, BF_RUN_STARTED_AT)) :
					  first_write(results_dir, e->d_name);
		n++;
		cJSON_Delete(doc);
		free(path);
	}
	closedir(d);
	if (n > 0)
		qsort(v, (size_t)n, sizeof(*v), cmp_id_entry);
	out = bf_xcalloc((size_t)n + 1, sizeof(*out));
	for (int i = 0; i < n; i++) {
		out[i] = v[i].id;
		free(v[i].started_at);
	}
	free(v);
	*ids = out;
	*count = n;
	return BF_OK;
}

int archive_match_id(char *const *ids, int count, const char *id)
{
	size_t len = strlen(id);
	int found = -1;

	if (len == 0)
		return -1;
	for (int i = 0; i < count; i++)
		if (strcmp(ids[i], id) == 0)
			return i;
	for (int i = 0; i < count; i++) {
		if (strncmp(ids[i], id, len) != 0)
			continue;
		if (found >= 0)
			return -2;
		found = i;
	}
	return found;
}

/* The host object named host in run.json's hosts, or NULL. */
static const cJSON *run_json_host(const cJSON *doc, const char *host)
{
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS);
	const cJSON *ho;

	cJSON_ArrayForEach(ho, hosts) {
		const char *name = archive_json_str(ho, BF_RUN_HOST_NAME);

		if (name && strcmp(name, host) == 0)
			return ho;
	}
	return NULL;
}

/* Whether run directory dir holds a host file of host, "NN-<host as
 * archive_host_basename writes it>.ndjson": a run whose run.json was lost
 * may have been one of host's. */
static int has_host_file(const char *dir, const char *host)
{
	char want[128];
	size_t wlen;
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	archive_host_basename(host, 0, want, sizeof(want));
	wlen = strlen(want + 3); /* past "00-" */
	while (!found && (e = readdir(d))) {
		const char *n = e->d_name;
		size_t len = strlen(n);

		found = len == 3 + wlen + 7 && n[0] >= '0' && n[0] <= '9' &&
			n[1] >= '0' && n[1] <= '9' && n[2] == '-' &&
			memcmp(n + 3, want + 3, wlen) == 0 &&
			strcmp(n + 3 + wlen, ".ndjson") == 0;
	}
	closedir(d);
	return found;
}

enum bf_err archive_runs_with_host(const char *results_dir, const char *host,
				   int max, char ***ids, int *count,
				   char ***skipped, char *detail,
				   size_t detail_len)
{
	char **all, **v, **sk = NULL;
	int nall, n = 0, nsk = 0;
	enum bf_err err;

	*ids = NULL;
	*count = 0;
	if (skipped)
		*skipped = NULL;
	err = archive_list_ids(results_dir, &all, &nall, detail, detail_len);
	if (err != BF_OK)
		return err;
	v = bf_xcalloc((size_t)nall + 1, sizeof(*v));
	if (skipped)
		sk = bf_xcalloc((size_t)nall + 1, sizeof(*sk));
	for (int i = nall - 1; i >= 0 && n < max; i--) {
		char *path = bf_xasprintf("%s/%s/run.json", results_dir, all[i]);
		char why[PATH_MAX + 256];
		cJSON *doc = NULL;

		/* Usable as archive_load_run has it: else a damaged run. */
		if (archive_read_json_file(path, &doc, why, sizeof(why)) == BF_OK &&
		    cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS)) &&
		    archive_json_str(doc, BF_RUN_STATUS) &&
		    archive_json_str(doc, BF_RUN_RUN_ID)) {
			if (run_json_host(doc, host))
				v[n++] = bf_xstrdup(all[i]);
		} else if (sk) {
			char *dir = bf_xasprintf("%s/%s", results_dir, all[i]);
			/* Whole: it names the run's path, which can be long. */
			char *text = doc ? /* read, but not a run's */
				bf_xasprintf("%s/run.json: \"%s\", \"%s\" or \"%s\" missing",
					     dir, BF_RUN_RUN_ID, BF_RUN_STATUS,
					     BF_RUN_HOSTS) :
				bf_xstrdup(why);

			if (has_host_file(dir, host)) {
				char *safe = bf_text_sanitize_dup(text);

				sk[nsk++] = bf_xasprintf(
					"%s: run.json unreadable (%s)", all[i],
					safe);
				free(safe);
			}
			free(text);
			free(dir);
		}
		cJSON_Delete(doc);
		free(path);
	}
	bf_xfree_strv(all);
	*ids = v;
	*count = n;
	if (skipped)
		*skipped = sk;
	return BF_OK;
}

enum bf_err archive_find_run(const char *results_dir, const char *arg,
			     char **id, char *detail, size_t detail_len)
{
	enum bf_err err;
	char **ids;
	int n, i;

	*id = NULL;
	err = archive_list_ids(results_dir, &ids, &n, detail, detail_len);
	if (err != BF_OK)
		return err;
	i = archive_match_id(ids, n, arg);
	if (i == -2) {
		int matches = 0;

		for (int k = 0; k < n; k++)
			matches += strncmp(ids[k], arg, strlen(arg)) == 0;
		bf_xfree_strv(ids);
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "'%s': ambiguous run id prefix: %d runs in %s match",
			       arg, matches, results_dir);
	}
	if (i >= 0)
		*id = bf_xstrdup(ids[i]);
	bf_xfree_strv(ids);
	return *id ? BF_OK :
		     bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			     "'%s': no run of that id in %s", arg, results_dir);
}

enum bf_err archive_resolve(const char *results_dir, const char *arg,
			    enum archive_target *kind, char **path,
			    char *detail, size_t detail_len)
{
	struct stat st;
	enum bf_err err;
	char **ids, *id;
	int n;

	*path = NULL;
	if (stat(arg, &st) == 0 && S_ISREG(st.st_mode)) {
		*kind = ARCHIVE_TARGET_FILE;
		*path = bf_xstrdup(arg);
		return BF_OK;
	}
	if (is_run_dir(arg)) {
		*kind = ARCHIVE_TARGET_RUN;
		*path = bf_xstrdup(arg);
		return BF_OK;
	}
	err = archive_find_run(results_dir, arg, &id, detail, detail_len);
	if (err == BF_OK) {
		*kind = ARCHIVE_TARGET_RUN;
		*path = bf_xasprintf("%s/%s", results_dir, id);
		free(id);
		return BF_OK;
	}
	if (err != BF_ERR_NOT_FOUND)
		return err;
	/* Not a run id; a missing results_dir is reported as such here. */
	err = archive_runs_with_host(results_dir, arg, 1, &ids, &n, NULL,
				     detail, detail_len);
	bf_xfree_strv(ids);
	if (err != BF_OK)
		return err;
	if (n > 0) {
		*kind = ARCHIVE_TARGET_HOST;
		return BF_OK;
	}
	return bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
		       "'%s': no run, host or file of that name in %s", arg,
		       results_dir);
}

/* --- the previous run ------------------------------------------------ */

/* The passing GEMM rows of h. */
static struct archive_baseline *baseline_from(const struct archive_host *h,
					      const char *run_id,
					      const char *started_at)
{
	struct archive_baseline *b = bf_xcalloc(1, sizeof(*b));
	int cap = 0;

	/* Shown, never matched: a run directory renamed to a long name
	 * and a long started_at end in "...". */
	(void)bf_text_fmt(b->run_id, sizeof(b->run_id), "%s", run_id);
	(void)bf_text_fmt(b->started_at, sizeof(b->started_at), "%s",
			  started_at);
	b->wall_ms = NAN;
	for (int i = 0; i < h->nrecords; i++) {
		const struct bf_rec_gemm *g = &h->records[i].u.gemm;
		struct archive_baseline_row *r;
		enum bf_dtype dt;

		if (h->records[i].type == BF_REC_SUMMARY &&
		    h->records[i].u.summary.wall_ms > 0)
			b->wall_ms = h->records[i].u.summary.wall_ms;
		if (h->records[i].type != BF_REC_GEMM ||
		    g->status != BF_STATUS_PASS || !g->dtype ||
		    bf_dtype_parse(g->dtype, &dt) != 0)
			continue; /* the reader refuses an unknown dtype */
		/* The device is the row's key (archive_baseline_row): one
		 * too long for its field is left out, never cut (two cut
		 * alike would match the wrong row). */
		if (strlen(g->device ? g->device : "?") >= sizeof(r->device))
			continue;
		if (b->nrows == cap) {
			cap = cap ? 2 * cap : 16;
			b->rows = bf_xrealloc(b->rows, (size_t)cap * sizeof(*b->rows));
		}
		r = &b->rows[b->nrows++];
		/* fits: checked above. */
		snprintf(r->device, sizeof(r->device), "%s",
			 g->device ? g->device : "?");
		r->dtype = dt;
		r->n = g->n;
		r->occurrence = 1;
		while (b->nrows > 1 &&
		       archive_baseline_row(b, r->device, r->dtype, r->n,
					    r->occurrence) != r)
			r->occurrence++;
		r->median_gflops = g->gflops;
		r->median_ms = g->median_ms;
		r->samples_gflops = bf_xcalloc((size_t)g->nsamples + 1,
					       sizeof(*r->samples_gflops));
		r->nsamples = 0;
		for (int k = 0; k < g->nsamples; k++)
			if (g->samples_ms[k] > 0)
				r->samples_gflops[r->nsamples++] =
					bf_gemm_gflops(g->n, g->samples_ms[k]);
	}
	return b;
}

static int same_or_none(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

const char *archive_machine_differs(const struct bf_rec_host *a,
				    const char *fp_a,
				    const struct bf_rec_host *b,
				    const char *fp_b, char *buf, size_t len)
{
	/* A key only one run recorded (its ctl was stopped before run.json
	 * had it) proves nothing: the caller says it cannot tell. */
	if (fp_a && *fp_a && fp_b && *fp_b && strcmp(fp_a, fp_b) != 0)
		return "host key differs";
	if (!same_or_none(a->hostname, b->hostname)) {
		char now[61], then[61];

		/* Each at most 60 bytes, a cut marked, so that both show. */
		(void)bf_text_fmt(now, sizeof(now), "%s",
				  a->hostname ? a->hostname : "n/a");
		(void)bf_text_fmt(then, sizeof(then), "%s",
				  b->hostname ? b->hostname : "n/a");
		(void)bf_text_fmt(buf, len, "hostname differs (%s, was %s)",
				  now, then);
		return buf;
	}
	if (a->ngpus != b->ngpus)
		return "GPUs differ";
	for (int i = 0; i < a->ngpus; i++)
		if (!same_or_none(a->gpus[i].uuid, b->gpus[i].uuid))
			return "GPU UUIDs differ";
	return NULL;
}

enum bf_err archive_find_baselines(const char *results_dir, const char *host,
				   const struct bf_rec_host *machine,
				   const char *fingerprint,
				   const char *before_run_id, int max,
				   struct archive_baseline **out, int *count,
				   char *detail, size_t detail_len)
{
	const struct bf_rec_options *options = machine ? &machine->options : NULL;
	/* Each names a run (its directory's name, up to NAME_MAX) and why:
	 * cut, they end in "..." (bf_text_fmt). */
	char skipped[512] = "", other[512] = "";
	enum bf_err err;
	char **ids;
	int n, end;

	*count = 0;
	err = archive_list_ids(results_dir, &ids, &n, detail, detail_len);
	if (err != BF_OK)
		return err;
	end = n;
	/* Earlier: before the current run in creation order when it is in
	 * the list (it normally is: its run.json is written first), else by
	 * id. */
	for (int i = 0; before_run_id && i < n; i++)
		if (strcmp(ids[i], before_run_id) == 0)
			end = i;
	for (int i = end - 1; i >= 0 && *count < max; i--) {
		struct archive_host h;
		const cJSON *ho;
		const char *status, *file;
		char *path, ignored[256];
		cJSON *doc;

		if (before_run_id && strcmp(ids[i], before_run_id) >= 0 &&
		    end == n)
			continue;
		path = bf_xasprintf("%s/%s/run.json", results_dir, ids[i]);
		err = archive_read_json_file(path, &doc, ignored, sizeof(ignored));
		free(path);
		if (err != BF_OK)
			continue;
		ho = run_json_host(doc, host);
		status = archive_json_str(ho, BF_RUN_HOST_STATUS);
		file = archive_json_str(ho, BF_RUN_HOST_RECORDS_FILE);
		if (!status || strcmp(status, BF_RUN_HOST_DONE) != 0 ||
		    !archive_plain_file_name(file)) {
			cJSON_Delete(doc);
			continue;
		}
		memset(&h, 0, sizeof(h));
		path = bf_xasprintf("%s/%s/%s", results_dir, ids[i], file);
		archive_read_records(path, &h);
		free(path);
		/* The newest complete run with other settings says which,
		 * if nothing closer explains the n/a. */
		if (h.complete && !h.read_error && h.host_record && options &&
		    !other[0] &&
		    bf_rec_options_differ(&h.host_record->options, options))
			(void)bf_text_fmt(other, sizeof(other),
				 "no earlier run with the same settings (run %s: "
				 "%s differs)", ids[i],
				 bf_rec_options_differ(&h.host_record->options,
						       options));
		if (h.complete && !h.read_error && h.host_record && options &&
		    bf_rec_options_equal(&h.host_record->options, options)) {
			const char *fp =
				archive_json_str(ho, BF_RUN_HOST_FINGERPRINT);
			int key_now = fingerprint && *fingerprint;
			int key_then = fp && *fp;
			char why[160];
			const char *differs = archive_machine_differs(
				machine, fingerprint, h.host_record, fp, why,
				sizeof(why));

			/* The newest such run says why, if none is found. */
			if (!differs && key_now != key_then && !skipped[0])
				(void)bf_text_fmt(skipped, sizeof(skipped),
					 "cannot tell whether run %s was the same machine: %s no host key",
					 ids[i], key_now ? "it recorded" :
							   "this run recorded");
			else if (differs && !skipped[0])
				(void)bf_text_fmt(skipped, sizeof(skipped),
					 "different machine than run %s (%s)",
					 ids[i], differs);
			if (!differs && key_now == key_then)
				out[(*count)++] = baseline_from(&h, ids[i],
					     archive_json_str(doc, BF_RUN_STARTED_AT) ?
						     archive_json_str(doc, BF_RUN_STARTED_AT) :
						     "n/a");
		}
		archive_free_records(&h);
		free(h.records_path);
		free(h.read_error);
		cJSON_Delete(doc);
	}
	bf_xfree_strv(ids);
	if (!*count && (skipped[0] || other[0]))
		return bf_fail(detail, detail_len, BF_ERR_NOT_FOUND, "%s",
			       skipped[0] ? skipped : other);
	if (!*count)
		return bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			       "no earlier run of this host");
	return BF_OK;
}

enum bf_err archive_find_baseline(const char *results_dir, const char *host,
				  const struct bf_rec_host *machine,
				  const char *fingerprint,
				  const char *before_run_id,
				  struct archive_baseline **out, char *detail,
				  size_t detail_len)
{
	int count;

	*out = NULL;
	return archive_find_baselines(results_dir, host, machine, fingerprint,
				      before_run_id, 1, out, &count, detail,
				      detail_len);
}



const struct archive_baseline_row *
archive_baseline_row(const struct archive_baseline *b, const char *device,
		     enum bf_dtype dtype, int n, int occurrence)
{
	for (int i = 0; b && i < b->nrows; i++)
		if (b->rows[i].n == n && b->rows[i].occurrence == occurrence &&
		    b->rows[i].dtype == dtype &&
		    strcmp(b->rows[i].device, device) == 0)
			return &b->rows[i];
	return NULL;
}

void archive_baseline_free(struct archive_baseline *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->nrows; i++)
		free(b->rows[i].samples_gflops);
	free(b->rows);
	free(b);
}
