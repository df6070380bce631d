/*
 * The results archive: results/<run-id>/ holds run.json (what ran, where,
 * when, and how each host ended) and one NDJSON file per host with every
 * record as received, appended and flushed line by line so that a crash of
 * ctl keeps everything that had arrived. Run directories are created
 * exclusively and never overwritten. Format: docs/archive.md.
 */
#ifndef BF_ARCHIVE_H
#define BF_ARCHIVE_H

#include <stdio.h>

#include "bf_error.h"

struct cJSON;

struct archive {
	char *dir;         /* results/<run-id> */
	char run_id[64];   /* 20261130T143810Z-3fa9 */
};

/* Creates results_dir (if missing) and a new run directory in it, named
 * by UTC time and a random suffix. Errors: BF_ERR_IO with the path and
 * errno text. Caller frees with archive_close. */
enum bf_err archive_create(const char *results_dir, struct archive *a,
			   char *detail, size_t detail_len);

/* A file-system-safe base name for host (letters, digits, '.', '_', '-';
 * anything else becomes '_'), unique within the run: "spark", "user_h_22".
 * Writes into out (len bytes). */
void archive_host_basename(const char *host, int index, char *out, size_t len);

/* Opens <dir>/<name> for writing, failing if it exists (O_EXCL).
 * Caller fcloses. NULL with detail on error. */
FILE *archive_open_new(const struct archive *a, const char *name,
		       char *detail, size_t detail_len);

/* Writes doc to <dir>/<name> atomically (a temporary file, fsync, rename),
 * so a reader never sees half a run.json. */
enum bf_err archive_write_json(const struct archive *a, const char *name,
			       const struct cJSON *doc, char *detail,
			       size_t detail_len);

void archive_close(struct archive *a);

#endif
