/*
 * archive_files: how the reading side of the archive opens and reads a
 * file (archive_read.c loads runs with it, archive_find.c looks through
 * runs with it); nothing outside archive/ includes this. Every file is
 * opened as a regular file only (no link, FIFO or device), bounded in
 * size, and every string read is made terminal-safe (bf_text_sanitize).
 */
#ifndef BF_ARCHIVE_FILES_H
#define BF_ARCHIVE_FILES_H

#include <stddef.h>

#include "archive/archive_read.h"
#include "bf_error.h"

struct cJSON;

/* obj's string member key, NULL when absent or not a string. Static to
 * obj. */
const char *archive_json_str(const struct cJSON *obj, const char *key);

/* A string from outside the JSON (a file or directory name, an error
 * with one in it), sanitized in place; returns s (NULL stays NULL). */
char *archive_clean(char *s);

/* Reads the whole JSON file path (at most 16 MiB, a regular file) into
 * *out, its strings sanitized; caller frees with cJSON_Delete. BF_OK, or
 * BF_ERR_IO / BF_ERR_PARSE with "path: why" in detail. */
enum bf_err archive_read_json_file(const char *path, struct cJSON **out,
				   char *detail, size_t detail_len);

/* Reads host file path (NDJSON, at most 1 GiB, lines of at most
 * BF_RECORD_MAX_BYTES) into h: every line that validates, decoded, in
 * file order; the others counted. Returns 0, or the errno when the file
 * cannot be read, with h->read_error saying why: the caller decides,
 * since one lost file must not hide the other hosts of a run. Free with
 * archive_free_records. */
int archive_read_records(const char *path, struct archive_host *h);

/* Frees what archive_read_records put in h; safe on a zeroed h. */
void archive_free_records(struct archive_host *h);

/* Non-zero when name is a bare file name (not empty, no '/', not "." or
 * ".."): the only names run.json may give a host file; anything else is
 * refused rather than followed. */
int archive_plain_file_name(const char *name);

/* The host files (*.ndjson) of run directory dir, in name order (which is
 * host order: "00-", "01-"), as a NULL-terminated array, *count their
 * number (never NULL: empty when there are none or dir cannot be read);
 * caller frees with bf_xfree_strv. Nothing is opened here. */
char **archive_host_files(const char *dir, int *count);

#endif
