/*
 * The one way a file of the archive is read (see archive_files.h):
 * bounded in size, never through a link or from a FIFO or device, its
 * strings made terminal-safe, each record line validated as ctl run
 * validated it.
 */
#include "archive/archive_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bf_text.h"
#include "xmalloc.h"

/* run.json is a few kilobytes per host; this bounds a corrupt one. */
#define RUN_JSON_MAX_BYTES (16u << 20)
/* A host file holds a few hundred records of at most BF_RECORD_MAX_BYTES
 * each; past this it is not one ctl wrote, and reading stops. */
#define HOST_FILE_MAX_BYTES (1ul << 30)

const char *archive_json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
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
char *archive_clean(char *s)
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
enum bf_err archive_read_json_file(const char *path, cJSON **out, char *detail,
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
int archive_read_records(const char *path, struct archive_host *h)
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
		h->read_error = archive_clean(bf_xasprintf("%s: %s", path, open_error(e)));
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
		h->read_error = archive_clean(bf_xasprintf("%s: %s", path, strerror(e)));
	free(line);
	fclose(f);
	return e;
}

/* Frees h's records. */
void archive_free_records(struct archive_host *h)
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
int archive_plain_file_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
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
char **archive_host_files(const char *dir, int *count)
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

char **archive_json_files(const char *dir, int *count)
{
	char **v = NULL;
	int n = 0, cap = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len < 6 || e->d_name[0] == '.' ||
		    strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 8;
			v = bf_xrealloc(v, (size_t)cap * sizeof(*v));
		}
		v[n++] = bf_xasprintf("%s/%s", dir, e->d_name);
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

enum bf_err archive_read_json(const char *path, struct cJSON **out,
			      char *detail, size_t detail_len)
{
	return archive_read_json_file(path, out, detail, detail_len);
}
