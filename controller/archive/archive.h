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

/* run.json keys (docs/archive.md), named once for the writer (archive.c)
 * and the reader (archive_read.c). */
#define BF_RUN_ARCHIVE_VERSION "archive_version"
#define BF_RUN_RUN_ID "run_id"
#define BF_RUN_COMMAND_LINE "command_line"
#define BF_RUN_TAG "tag"
#define BF_RUN_STARTED_AT "started_at"
#define BF_RUN_ENDED_AT "ended_at"
#define BF_RUN_STATUS "status"
#define BF_RUN_REASON "reason"
#define BF_RUN_HOSTS "hosts"
#define BF_RUN_HOST_NAME "name"
#define BF_RUN_HOST_STATUS "status"
#define BF_RUN_HOST_REASON "reason"
#define BF_RUN_HOST_FINGERPRINT "host_key_fingerprint"
#define BF_RUN_HOST_AGENT_EXIT "agent_exit_status"
#define BF_RUN_HOST_RECORDS_FILE "records_file"
#define BF_RUN_HOST_LOG_FILE "log_file"
#define BF_RUN_HOST_TARGET "target"
#define BF_RUN_HOST_AGENT_HASH "agent_hash"
#define BF_RUN_HOST_HOSTNAME "hostname"
#define BF_RUN_HOST_RECORDS "records"
#define BF_RUN_HOST_MALFORMED "malformed_lines"
#define BF_RUN_HOST_GEMM_DONE "gemm_done"
#define BF_RUN_HOST_GEMM_TOTAL "gemm_total"
#define BF_RUN_HOST_COMPLETE_RECORDS "complete_records"
#define BF_RUN_CTL_VERSION "ctl_version"
/* Only when set: the run this one re-ran the failed hosts of
 * (ctl run --rerun-failed), and a Slurm node's job id. */
#define BF_RUN_RERUN_OF "rerun_of"
#define BF_RUN_HOST_SLURM_JOB "slurm_job_id"
/* The side-by-side reference host (ctl run --baseline HOST, else the
 * first); a host's turn (started_at, ended_at: after the same-machine
 * check and any wait for another host of its machine); only when it
 * shares its machine with other hosts of the run: their names and
 * whether they were measured at the same time. */
#define BF_RUN_BASELINE_HOST "baseline_host"
#define BF_RUN_HOST_STARTED_AT "started_at"
#define BF_RUN_HOST_ENDED_AT "ended_at"
#define BF_RUN_HOST_SAME_MACHINE "same_machine"
#define BF_RUN_HOST_SAME_MACHINE_AT_ONCE "same_machine_at_once"
/* run.json status values */
#define BF_RUN_RUNNING "running"
#define BF_RUN_COMPLETE "complete"
#define BF_RUN_INCOMPLETE "incomplete"
/* host status that means the host finished (model.c's host_state_name) */
#define BF_RUN_HOST_DONE "done"


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

/* What run.json says about one host (docs/archive.md); strings are
 * borrowed, NULL or "" is written as null where the key may be null. */
struct archive_host_info {
	const char *name, *target, *status, *reason;
	const char *fingerprint, *agent_hash, *hostname;
	int agent_exit;      /* -1: not known (null) */
	int records, malformed, gemm_done, gemm_total;
	int complete_records;
	const char *basename; /* host file stem: <basename>.ndjson, .log */
	const char *slurm_job; /* NULL or "": not written */
	const char *started_at, *ended_at; /* its turn; NULL or "": null */
	const char *same_machine; /* "hb1, hb2, local"; NULL or "": not
				   * written (nor same_machine_at_once) */
	int same_machine_at_once;
};

/* What run.json says about the run. */
struct archive_run_info {
	const char *ctl_version;
	int argc;            /* ctl's arguments after "ctl" */
	char *const *argv;
	const char *tag;     /* NULL: null */
	const char *started_at;
	const char *status;  /* BF_RUN_RUNNING (ended_at null, else now) ... */
	const char *reason;  /* NULL: null */
	const char *rerun_of; /* NULL: not written */
	const char *baseline_host; /* NULL: not written */
	const struct archive_host_info *hosts;
	int nhosts;
};

/* The run.json document for run in archive a (format: docs/archive.md).
 * Caller frees with cJSON_Delete; write it with archive_write_json. */
struct cJSON *archive_run_json(const struct archive *a,
			       const struct archive_run_info *run);

void archive_close(struct archive *a);

#endif
