/* Reading the results archive back; see archive_read.h. */
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

#include "bf_text.h"
#include "xmalloc.h"

/* run.json is a few kilobytes per host; this bounds a corrupt one. */
#define RUN_JSON_MAX_BYTES (16u << 20)
/* A host file holds a few hundred records of at most BF_RECORD_MAX_BYTES
 * each; past this it is not one ctl wrote, and reading stops. */
#define HOST_FILE_MAX_BYTES (1ul << 30)

static const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char *strdup_or(const char *s, const char *dflt)
{
	return bf_xstrdup(s ? s : dflt);
}

/* Every string of tree, keys included, made terminal-safe in place
 * (bf_text_sanitize never lengthens), so that what the archive says
 * reaches show, list and compare, and their CSV and JSON, clean. */
static void sanitize_json(cJSON *tree)
{
	for (cJSON *c = tree ? tree->child : NULL; c; c = c->next) {
		if (c->string && !(c->type & cJSON_StringIsConst))
			bf_text_sanitize_inplace(c->string);
		if (cJSON_IsString(c) || cJSON_IsRaw(c))
			bf_text_sanitize_inplace(c->valuestring);
		sanitize_json(c);
	}
}

/* A string from outside the JSON (a file or directory name, an error
 * with one in it), sanitized in place; NULL stays NULL. */
static char *clean(char *s)
{
	return s ? bf_text_sanitize_inplace(s) : NULL;
}

/*
 * Opens path for reading if it is a regular file. O_NOFOLLOW refuses a
 * symbolic link (a run directory's files are never links, and one could
 * lead out of it); O_NONBLOCK makes the open of a FIFO return at once
 * instead of waiting for a writer, and fstat then refuses it, a device,
 * a socket or a directory, so nothing read here can block for ever.
 * Returns a stream (caller fcloses) and its size in *size, or NULL with
 * errno set: ENOENT, ELOOP (a link), EINVAL (not a regular file), EFBIG
 * (larger than max), or open's.
 */
static FILE *open_regular(const char *path, off_t max, off_t *size)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	int e;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0) {
		e = errno;
	} else if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
	} else if (st.st_size > max) {
		e = EFBIG;
	} else {
		f = fdopen(fd, "r");
		if (f) {
			*size = st.st_size;
			return f;
		}
		e = errno;
	}
	close(fd);
	errno = e;
	return NULL;
}

/* Why open_regular failed, for "path: why". */
static const char *open_error(int e)
{
	switch (e) {
	case ELOOP:
		return "a symbolic link: refused";
	case EINVAL:
		return "not a regular file (a FIFO, device or directory): refused";
	case EFBIG:
		return "too large: refused";
	default:
		return strerror(e);
	}
}

/* Reads a whole JSON file into *out (caller frees with cJSON_Delete),
 * its strings sanitized. */
static enum bf_err read_json_file(const char *path, cJSON **out, char *detail,
				  size_t detail_len)
{
	enum bf_err err = BF_OK;
	char *text;
	size_t len;
	off_t size;
	FILE *f;

	*out = NULL;
	f = open_regular(path, RUN_JSON_MAX_BYTES, &size);
	if (!f) {
		int e = errno;

		return bf_fail(detail, detail_len,
			       e == ENOENT ? BF_ERR_NOT_FOUND : BF_ERR_IO,
			       "%s: %s", path, open_error(e));
	}
	/* One byte more than the size, to see a file that grew past it. */
	text = bf_xmalloc((size_t)size + 2);
	len = fread(text, 1, (size_t)size + 1, f);
	if (ferror(f))
		err = bf_fail(detail, detail_len, BF_ERR_IO, "%s: %s", path,
			      strerror(errno));
	else if (len > RUN_JSON_MAX_BYTES)
		err = bf_fail(detail, detail_len, BF_ERR_PARSE,
			      "%s: larger than %u bytes", path,
			      RUN_JSON_MAX_BYTES);
	if (err == BF_OK) {
		text[len] = '\0';
		*out = cJSON_ParseWithLength(text, len);
		if (!*out || !cJSON_IsObject(*out)) {
			cJSON_Delete(*out);
			*out = NULL;
			err = bf_fail(detail, detail_len, BF_ERR_PARSE,
				      "%s: not a JSON object", path);
		}
	}
	sanitize_json(*out);
	free(text);
	fclose(f);
	return err;
}

/* The next line of f into buf (cap bytes), without its newline and
 * NUL-terminated; a longer line is cut to cap - 1 bytes and the rest
 * skipped, with *too_long set. Returns the length kept, or -1 at the end
 * of the file. *has_newline: the line ended with one. */
static long next_line(FILE *f, char *buf, size_t cap, int *has_newline,
		      int *too_long)
{
	size_t len = 0;
	int c;

	*has_newline = *too_long = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		if (c == '\n') {
			*has_newline = 1;
			break;
		}
		if (len + 1 < cap)
			buf[len++] = (char)c;
		else
			*too_long = 1;
	}
	if (c == EOF && len == 0 && !*too_long)
		return -1;
	buf[len] = '\0';
	return (long)len;
}

/* One line into rec: validated as bf_record_parse does, then its strings
 * sanitized before they are decoded. */
static enum bf_err parse_line(const char *line, size_t len,
			      struct bf_record *rec)
{
	enum bf_record_type type;
	char detail[256];
	enum bf_err err;
	cJSON *json;

	bf_record_init(rec, BF_REC_HOST);
	err = bf_schema_parse_record(line, len, &json, &type, detail,
				     sizeof(detail));
	if (err != BF_OK)
		return err;
	sanitize_json(json);
	err = bf_record_decode(json, type, rec, detail, sizeof(detail));
	cJSON_Delete(json);
	return err;
}

/* Reads a host's NDJSON into h: every line that validates, in order.
 * Sets read_error and returns the errno when the file cannot be read (0
 * otherwise): the caller decides, since one lost file must not hide the
 * other hosts of a run. Memory stays bounded: a line is at most
 * BF_RECORD_MAX_BYTES (a longer one is bad), a file HOST_FILE_MAX_BYTES. */
static int read_records(const char *path, struct archive_host *h)
{
	char *line;
	long got;
	off_t size;
	int e, ncap = 0, host_at = -1, has_newline, too_long;
	FILE *f;

	h->records = NULL;
	h->nrecords = 0;
	h->records_path = bf_xstrdup(path);
	f = open_regular(path, (off_t)HOST_FILE_MAX_BYTES, &size);
	if (!f) {
		e = errno;
		h->read_error = clean(bf_xasprintf("%s: %s", path, open_error(e)));
		return e;
	}
	line = bf_xmalloc(BF_RECORD_MAX_BYTES + 2);
	while ((got = next_line(f, line, BF_RECORD_MAX_BYTES + 2, &has_newline,
				&too_long)) >= 0) {
		size_t len = (size_t)got;
		struct bf_record rec;

		if (len == 0 && !too_long)
			continue;
		if (too_long || parse_line(line, len, &rec) != BF_OK) {
			if (!too_long)
				bf_record_free(&rec);
			/* A last line without its newline is where a
			 * killed ctl stopped writing: expected, not bad. */
			if (has_newline)
				h->bad_lines++;
			else
				h->cut_last_line = 1;
			continue;
		}
		if (h->nrecords == ncap) {
			ncap = ncap ? 2 * ncap : 64;
			h->records = bf_xrealloc(h->records, (size_t)ncap *
								 sizeof(*h->records));
		}
		if (rec.type == BF_REC_HOST && host_at < 0)
			host_at = h->nrecords;
		else if (rec.type == BF_REC_SUMMARY)
			h->complete = 1;
		else if (rec.type == BF_REC_GEMM)
			bf_rec_gemm_check(&rec.u.gemm); /* gflops vs n, median */
		h->records[h->nrecords++] = rec;
	}
	if (host_at >= 0)
		h->host_record = &h->records[host_at].u.host;
	e = ferror(f) ? (errno ? errno : EIO) : 0;
	if (e)
		h->read_error = clean(bf_xasprintf("%s: %s", path, strerror(e)));
	free(line);
	fclose(f);
	return e;
}

/* Frees h's records. */
static void free_records(struct archive_host *h)
{
	for (int i = 0; i < h->nrecords; i++)
		bf_record_free(&h->records[i]);
	free(h->records);
	h->records = NULL;
	h->nrecords = 0;
	h->host_record = NULL;
}

/* A records_file from run.json is a plain name inside the run directory;
 * anything else (a path, "..") is refused rather than followed. */
static int plain_file_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

static void load_host(const char *dir, const cJSON *ho,
		      struct archive_host *h, int with_records)
{
	const char *file = json_str(ho, BF_RUN_HOST_RECORDS_FILE);
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(ho, BF_RUN_HOST_AGENT_EXIT);

	h->name = strdup_or(json_str(ho, BF_RUN_HOST_NAME), "n/a");
	h->status = strdup_or(json_str(ho, BF_RUN_HOST_STATUS), "n/a");
	h->reason = bf_xstrdup(json_str(ho, BF_RUN_HOST_REASON));
	h->fingerprint = bf_xstrdup(json_str(ho, BF_RUN_HOST_FINGERPRINT));
	h->agent_exit = cJSON_IsNumber(ex) &&
				bf_schema_int_ok(ex->valuedouble, 0, 255) ?
			(int)ex->valuedouble : -1;
	if (!with_records)
		return; /* run.json only: no records */
	if (plain_file_name(file)) {
		char *path = bf_xasprintf("%s/%s", dir, file);

		read_records(path, h);
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
	return stem_len ? clean(bf_xasprintf("%.*s", (int)stem_len, base)) : NULL;
}

static int is_host_file_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 7 && strcmp(name + len - 7, ".ndjson") == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The host files (*.ndjson) of a run directory, in name order (which is
 * host order: "00-", "01-"); a NULL-terminated array, caller frees with
 * bf_xfree_strv. Entries are not opened here (read_records refuses what
 * is not a regular file). */
static char **host_files(const char *dir, int *count)
{
	char **v = NULL;
	int n = 0, cap = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d)) != NULL) {
		if (!is_host_file_name(e->d_name))
			continue;
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 8;
			v = bf_xrealloc(v, (size_t)cap * sizeof(*v));
		}
		v[n++] = bf_xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), cmp_str);
	if (!v)
		v = bf_xcalloc(1, sizeof(*v));
	v[n] = NULL;
	*count = n;
	return v;
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
	char **files = host_files(dir, &run->nhosts);

	run->dir = clean(bf_xstrdup(dir));
	run->run_id = clean(bf_xstrdup(base_name(dir)));
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
			read_records(path, h);
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
	err = read_json_file(path, &doc, detail, detail_len);
	free(path);
	if (err == BF_OK) {
		hosts = cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS);
		status = json_str(doc, BF_RUN_STATUS);
		id = json_str(doc, BF_RUN_RUN_ID);
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
		*out = damaged_run(dir, clean(detail), with_records);
		return BF_OK;
	}
	run = bf_xcalloc(1, sizeof(*run));
	run->run_json = doc;
	run->dir = clean(bf_xstrdup(dir));
	run->run_id = bf_xstrdup(id);
	run->started_at = strdup_or(json_str(doc, BF_RUN_STARTED_AT), "n/a");
	run->tag = bf_xstrdup(json_str(doc, BF_RUN_TAG));
	if (strcmp(status, BF_RUN_COMPLETE) == 0) {
		run->status = bf_xstrdup(BF_RUN_COMPLETE);
	} else {
		run->incomplete = 1;
		run->status = bf_xstrdup(BF_RUN_INCOMPLETE);
		if (strcmp(status, BF_RUN_RUNNING) == 0)
			run->reason = bf_xstrdup("run.json still says running: ctl was stopped, or the run is in progress");
		else
			run->reason = strdup_or(json_str(doc, BF_RUN_REASON),
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
	e = read_records(path, h);
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
	run->dir = clean(bf_xstrdup(path));
	run->run_id = clean(bf_xstrdup(base_name(path)));
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

		free_records(h);
		free(h->read_error);
		free(h->records_path);
		free(h->fingerprint);
		free(h->reason);
		free(h->status);
		free(h->name);
	}
	free(run->hosts);
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
		bf_xfree_strv(host_files(path, &n));
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

	files = host_files(dir, &n);
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
		read_json_file(path, &doc, ignored, sizeof(ignored));
		v[n].id = bf_xstrdup(e->d_name);
		v[n].started_at = json_str(doc, BF_RUN_STARTED_AT) ?
					  bf_xstrdup(json_str(doc, BF_RUN_STARTED_AT)) :
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
		const char *name = json_str(ho, BF_RUN_HOST_NAME);

		if (name && strcmp(name, host) == 0)
			return ho;
	}
	return NULL;
}

enum bf_err archive_runs_with_host(const char *results_dir, const char *host,
				   int max, char ***ids, int *count,
				   char *detail, size_t detail_len)
{
	char **all, **v;
	int nall, n = 0;
	enum bf_err err;

	*ids = NULL;
	*count = 0;
	err = archive_list_ids(results_dir, &all, &nall, detail, detail_len);
	if (err != BF_OK)
		return err;
	v = bf_xcalloc((size_t)nall + 1, sizeof(*v));
	for (int i = nall - 1; i >= 0 && n < max; i--) {
		char *path = bf_xasprintf("%s/%s/run.json", results_dir, all[i]);
		char ignored[256];
		cJSON *doc;

		if (read_json_file(path, &doc, ignored, sizeof(ignored)) == BF_OK &&
		    run_json_host(doc, host))
			v[n++] = bf_xstrdup(all[i]);
		cJSON_Delete(doc);
		free(path);
	}
	bf_xfree_strv(all);
	*ids = v;
	*count = n;
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
	err = archive_runs_with_host(results_dir, arg, 1, &ids, &n, detail,
				     detail_len);
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

	snprintf(b->run_id, sizeof(b->run_id), "%s", run_id);
	snprintf(b->started_at, sizeof(b->started_at), "%s", started_at);
	for (int i = 0; i < h->nrecords; i++) {
		const struct bf_rec_gemm *g = &h->records[i].u.gemm;
		struct archive_baseline_row *r;

		if (h->records[i].type != BF_REC_GEMM ||
		    g->status != BF_STATUS_PASS)
			continue;
		if (b->nrows == cap) {
			cap = cap ? 2 * cap : 16;
			b->rows = bf_xrealloc(b->rows, (size_t)cap * sizeof(*b->rows));
		}
		r = &b->rows[b->nrows++];
		snprintf(r->device, sizeof(r->device), "%s",
			 g->device ? g->device : "?");
		snprintf(r->dtype, sizeof(r->dtype), "%s",
			 g->dtype ? g->dtype : "?");
		r->n = g->n;
		r->occurrence = 1;
		while (b->nrows > 1 &&
		       archive_baseline_row(b, r->device, r->dtype, r->n,
					    r->occurrence) != r)
			r->occurrence++;
		r->median_gflops = g->gflops;
		r->median_ms = g->median_ms;
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
	if (!same_or_none(fp_a, fp_b))
		return "host key differs";
	if (!same_or_none(a->hostname, b->hostname)) {
		snprintf(buf, len, "hostname differs (%.60s, was %.60s)",
			 a->hostname ? a->hostname : "n/a",
			 b->hostname ? b->hostname : "n/a");
		return buf;
	}
	if (a->ngpus != b->ngpus)
		return "GPUs differ";
	for (int i = 0; i < a->ngpus; i++)
		if (!same_or_none(a->gpus[i].uuid, b->gpus[i].uuid))
			return "GPU UUIDs differ";
	return NULL;
}

enum bf_err archive_find_baseline(const char *results_dir, const char *host,
				  const struct bf_rec_host *machine,
				  const char *fingerprint,
				  const char *before_run_id,
				  struct archive_baseline **out, char *detail,
				  size_t detail_len)
{
	const struct bf_rec_options *options = machine ? &machine->options : NULL;
	char skipped[200] = "", other[200] = "";
	enum bf_err err;
	char **ids;
	int n, end;

	*out = NULL;
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
	for (int i = end - 1; i >= 0 && !*out; i--) {
		struct archive_host h;
		const cJSON *ho;
		const char *status, *file;
		char *path, ignored[256];
		cJSON *doc;

		if (before_run_id && strcmp(ids[i], before_run_id) >= 0 &&
		    end == n)
			continue;
		path = bf_xasprintf("%s/%s/run.json", results_dir, ids[i]);
		err = read_json_file(path, &doc, ignored, sizeof(ignored));
		free(path);
		if (err != BF_OK)
			continue;
		ho = run_json_host(doc, host);
		status = json_str(ho, BF_RUN_HOST_STATUS);
		file = json_str(ho, BF_RUN_HOST_RECORDS_FILE);
		if (!status || strcmp(status, BF_RUN_HOST_DONE) != 0 ||
		    !plain_file_name(file)) {
			cJSON_Delete(doc);
			continue;
		}
		memset(&h, 0, sizeof(h));
		path = bf_xasprintf("%s/%s/%s", results_dir, ids[i], file);
		read_records(path, &h);
		free(path);
		/* The newest complete run with other settings says which,
		 * if nothing closer explains the n/a. */
		if (h.complete && !h.read_error && h.host_record && options &&
		    !other[0] &&
		    bf_rec_options_differ(&h.host_record->options, options))
			snprintf(other, sizeof(other),
				 "no earlier run with the same settings (run %s: "
				 "%s differs)", ids[i],
				 bf_rec_options_differ(&h.host_record->options,
						       options));
		if (h.complete && !h.read_error && h.host_record && options &&
		    bf_rec_options_equal(&h.host_record->options, options)) {
			char why[160];
			const char *differs = archive_machine_differs(
				machine, fingerprint, h.host_record,
				json_str(ho, BF_RUN_HOST_FINGERPRINT), why,
				sizeof(why));

			/* The newest such run says why, if none is found. */
			if (differs && !skipped[0])
				snprintf(skipped, sizeof(skipped),
					 "different machine than run %s (%s)",
					 ids[i], differs);
			if (!differs)
				*out = baseline_from(&h, ids[i],
					     json_str(doc, BF_RUN_STARTED_AT) ?
						     json_str(doc, BF_RUN_STARTED_AT) :
						     "n/a");
		}
		free_records(&h);
		free(h.records_path);
		free(h.read_error);
		cJSON_Delete(doc);
	}
	bf_xfree_strv(ids);
	if (!*out && (skipped[0] || other[0]))
		return bf_fail(detail, detail_len, BF_ERR_NOT_FOUND, "%s",
			       skipped[0] ? skipped : other);
	if (!*out)
		return bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			       "no earlier run of this host");
	return BF_OK;
}

const struct archive_baseline_row *
archive_baseline_row(const struct archive_baseline *b, const char *device,
		     const char *dtype, int n, int occurrence)
{
	for (int i = 0; b && i < b->nrows; i++)
		if (b->rows[i].n == n && b->rows[i].occurrence == occurrence &&
		    strcmp(b->rows[i].device, device) == 0 &&
		    strcmp(b->rows[i].dtype, dtype) == 0)
			return &b->rows[i];
	return NULL;
}

void archive_baseline_free(struct archive_baseline *b)
{
	if (!b)
		return;
	free(b->rows);
	free(b);
}
