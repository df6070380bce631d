/*
 * Reading the results archive back (format: docs/archive.md): one run
 * directory (run.json and every host's NDJSON), the list of runs in a
 * results directory, the resolution of what a user names on the command
 * line (a run id or its unique prefix, a host, an .ndjson file), and the
 * previous-run lookup the live table uses for its "vs last run" column.
 *
 * The archive may be cut short: a run.json still saying "running" belongs
 * to a ctl that died (or one still running) and is read as incomplete, and
 * a host file whose last line has no newline was cut mid-write: that line
 * is dropped and counted. Every record is validated with
 * bf_schema_parse_record, as ctl run did when it wrote it.
 *
 * Nothing here keeps global state: the functions are reentrant and may be
 * called from any thread. They block on file I/O.
 */
#ifndef BF_ARCHIVE_READ_H
#define BF_ARCHIVE_READ_H

#include <stddef.h>

#include "archive/archive.h"
#include "bf_error.h"
#include "record.h"
#include "schema.h"

struct cJSON;

/* One host of a run, as archived. Strings are owned by the run and never
 * NULL unless said so. */
struct archive_host {
	char *name;          /* as given to ctl run; for a FILE, the host
			      * record's hostname or else the file's stem */
	char *status;        /* run.json's host status ("done", "failed",
			      * ...); "n/a" for a FILE */
	char *reason;        /* why it failed; NULL when none */
	char *fingerprint;   /* host_key_fingerprint; NULL when none */
	int agent_exit;      /* agent's exit status; -1 when unknown */
	char *records_path;  /* the .ndjson read (NULL: run.json names none) */
	struct bf_record *records; /* every valid record, decoded, in file
				    * order; nrecords entries */
	int nrecords;
	const struct bf_rec_host *host_record; /* the agent's host record, in
						* records; NULL if it never
						* came */
	int complete;        /* the summary record arrived */
	int bad_lines;       /* lines that failed validation (not counting a
			      * cut-off last line) */
	int cut_last_line;   /* the file ends in a partial line */
	char *read_error;    /* why records_path could not be read; NULL */
	char *same_machine;  /* run.json's same_machine: the hosts of the
			      * run that are one machine with it ("hb1, hb2,
			      * local"); NULL when it was alone (or older) */
	int same_machine_at_once; /* they were measured at the same time */
	char *started_at, *ended_at; /* its turn (ISO 8601 UTC); NULL */
};

struct archive_run {
	char *dir;           /* the run directory; for a FILE, the file */
	char *run_id;        /* directory name; for a FILE, the file name */
	char *started_at;    /* ISO 8601 UTC; "n/a" when unknown */
	char *status;        /* "complete" or "incomplete" (a run.json
			      * still "running" reads as incomplete); "file"
			      * for a lone .ndjson; ARCHIVE_RUN_DAMAGED */
	char *reason;        /* why incomplete; NULL when complete */
	char *tag;           /* NULL when none */
	char *baseline_host; /* the side-by-side reference (ctl run
			      * --baseline); NULL: the first host */
	struct cJSON *run_json; /* the parsed run.json; NULL for a FILE */
	struct archive_host *hosts;
	int nhosts;
	int incomplete;      /* status is not "complete" */
	int damaged;         /* run.json unreadable: the hosts are the
			      * directory's host files, named from their
			      * file names, with status "n/a" */
};

/* Status of a run whose run.json is missing or unusable. */
#define ARCHIVE_RUN_DAMAGED "damaged"

/* Loads the run directory dir: run.json, then each host's records file.
 * A host whose file is missing or unreadable keeps read_error and no
 * records; a bad line is skipped and counted. A run.json that is missing,
 * not a regular file, not JSON or lacks run_id, status or hosts does not
 * fail the load: the run comes back damaged (run->damaged, status
 * "damaged", reason "run.json unreadable (why)") with a host per *.ndjson
 * file in dir. Only regular files are opened (no FIFO, device or symbolic
 * link: read_records and read_json_file say why in read_error or the
 * reason), and sizes are capped. Every string read from the archive
 * (run.json, records, file names) is sanitized with bf_text_sanitize
 * before it is stored, so printers can print it as it is. Errors:
 * BF_ERR_NOT_FOUND (dir does not exist), BF_ERR_IO (dir is not a
 * directory), with "what: why" in detail. On success *out is set; caller
 * frees with archive_run_free. */
enum bf_err archive_load_run(const char *dir, struct archive_run **out,
			     char *detail, size_t detail_len);

/* As archive_load_run, but reads run.json only: every host has an empty
 * records array and no host record (for listing many runs quickly). */
enum bf_err archive_load_run_info(const char *dir, struct archive_run **out,
				  char *detail, size_t detail_len);

/* Loads a lone .ndjson file (a host file copied out of the archive, or
 * saved agent output) as a run with one host and status "file". Errors as
 * archive_load_run; BF_ERR_SCHEMA when no line is a valid record. Caller
 * frees *out with archive_run_free. */
enum bf_err archive_load_file(const char *path, struct archive_run **out,
			      char *detail, size_t detail_len);

/* Frees a run and everything in it. NULL does nothing. */
void archive_run_free(struct archive_run *run);

/* The host named name in run, or NULL. */
const struct archive_host *archive_run_host(const struct archive_run *run,
					    const char *name);

/* Lists the run ids in results_dir (subdirectories holding a run.json,
 * or at least a host file when run.json was lost),
 * oldest first: by the UTC second an id begins with, then by run.json's
 * started_at (milliseconds), since two runs started within one second
 * differ only in their random suffix. Reads every run.json. *ids is a
 * NULL-terminated array, caller frees with bf_xfree_strv (xmalloc.h);
 * *count gets its length. An empty directory is BF_OK
 * with count 0. Errors: BF_ERR_NOT_FOUND (results_dir does not exist),
 * BF_ERR_IO. */
enum bf_err archive_list_ids(const char *results_dir, char ***ids,
			     int *count, char *detail, size_t detail_len);

/* Resolves a run id given in full or by a unique prefix ("20261130T14")
 * among ids (count entries). Returns the index, -1 when none matches and
 * -2 when the prefix matches more than one (an exact match always
 * wins). */
int archive_match_id(char *const *ids, int count, const char *id);

/* The id of the run of results_dir that arg names, in full or by a unique
 * prefix (archive_match_id), into *id (caller frees). Errors, with
 * "what: why" in detail: BF_ERR_NOT_FOUND (no such run, or results_dir
 * missing), BF_ERR_USAGE (a prefix of more than one run id: "'2026':
 * ambiguous run id prefix: 3 runs in results match"), BF_ERR_IO. */
enum bf_err archive_find_run(const char *results_dir, const char *arg,
			     char **id, char *detail, size_t detail_len);

/* The most recent runs of results_dir in which host (the name as given to
 * ctl run) took part, newest first, at most max: their ids into *ids
 * (NULL-terminated, caller frees with bf_xfree_strv), the number in
 * *count (0 when the host is in no run). Only run.json files are read.
 * When skipped is not NULL, *skipped gets the runs passed over among
 * them (newer than the oldest taken, or any when fewer than max were
 * found) because their run.json is unreadable while a host file of host
 * ("NN-host.ndjson") is there: "RUN-ID: run.json unreadable (why)",
 * terminal-safe, NULL-terminated, caller frees with bf_xfree_strv.
 * Errors as archive_list_ids. */
enum bf_err archive_runs_with_host(const char *results_dir, const char *host,
				   int max, char ***ids, int *count,
				   char ***skipped, char *detail,
				   size_t detail_len);

/* What a command-line argument names. */
enum archive_target {
	ARCHIVE_TARGET_RUN = 0, /* a run directory */
	ARCHIVE_TARGET_HOST,    /* a host name that occurs in some run */
	ARCHIVE_TARGET_FILE,    /* a lone .ndjson file */
};

/* Resolves arg, in this order: an existing regular file (FILE), an
 * existing directory holding run.json or a host file (RUN), a run id of results_dir in
 * full or by a unique prefix (RUN), the name of a host in some run of
 * results_dir (HOST). On BF_OK sets *kind and *path: the file, the run
 * directory, or for a HOST NULL (then use archive_runs_with_host). Caller
 * frees *path. Errors, with "what: why" in detail: BF_ERR_NOT_FOUND
 * (nothing of that name, or results_dir missing), BF_ERR_USAGE (a prefix
 * of more than one run id), BF_ERR_IO. */
enum bf_err archive_resolve(const char *results_dir, const char *arg,
			    enum archive_target *kind, char **path,
			    char *detail, size_t detail_len);

/* --- the previous run, for the live table ---------------------------- */

/* One GEMM result of the previous run, as its gemm record says. */
struct archive_baseline_row {
	char device[16];      /* "cpu", "cuda:0" */
	enum bf_dtype dtype;  /* the record's, parsed (the reader admits
			       * only dtypes the enum has) */
	int n;                /* matrix size */
	int occurrence;       /* 1, or 2.. for a repeated size's later row */
	double median_gflops; /* the record's "gflops" (from its median) */
	double median_ms;     /* the record's "median_ms" */
	double *samples_gflops; /* each timed iteration, 2 n^3 / ms / 1e6;
				 * owned */
	int nsamples;
};

struct archive_baseline {
	char run_id[64];      /* the run the numbers come from */
	char started_at[40];  /* its start, ISO 8601 UTC */
	struct archive_baseline_row *rows; /* passing GEMM results only */
	int nrows;
	double wall_ms;       /* how long its agent ran (its summary's
			       * wall_ms); NaN unknown */
};

/* Finds the previous result for host: the newest run in results_dir that
 * started before before_run_id (the current run's id, so that the run
 * being written is never its own baseline; in archive_list_ids order when
 * that run is in results_dir, else by comparing ids; NULL: no bound) in
 * which
 *  - the host named host (as given to ctl run) finished: its run.json
 *    status is "done" and its records end with the summary record, even
 *    if another host of that run failed, and
 *  - the agent ran with the same settings: the "options" of its host
 *    record equal machine->options (bf_rec_options_equal: sizes, dtypes,
 *    iters, cpu_iters, warmup, cpu_warmup, seed), machine being the host
 *    record the current run received. The device
 *    selection (--device) is not compared: rows are keyed by device, so
 *    a device the other run did not measure is simply absent;
 *  - it was the same machine: the same host key fingerprint (run.json's
 *    host_key_fingerprint against fingerprint; NULL and "" are "none",
 *    as for local), the same hostname (host record) and the same GPU
 *    UUIDs in index order (host record gpus[].uuid). A name in
 *    ~/.ssh/config that now points at another box is not a baseline,
 *    nor is a run when only one of the two recorded a key (a run whose
 *    ctl was stopped before run.json had it): the key cannot tell.
 * On BF_OK *out holds that run's passing GEMM rows; caller frees with
 * archive_baseline_free. BF_ERR_NOT_FOUND (with *out NULL) when no such
 * run exists or results_dir does not: detail then says why, for the
 * tables' legend: "different machine than run ID (host key differs)"
 * or "cannot tell whether run ID was the same machine: this run
 * recorded no host key" when a run with the same settings was skipped
 * for that, else "no
 * earlier run with the same settings (run ID: device differs)" naming the
 * newest complete run of the host and its first differing option
 * (bf_rec_options_differ), else "no earlier run of this host";
 * BF_ERR_IO when it cannot be read.
 * Reads every run.json, newest first, and each candidate host's records
 * file until the first match; blocks on file I/O, so call it off the UI
 * thread or once before the live table starts. */
enum bf_err archive_find_baseline(const char *results_dir, const char *host,
				  const struct bf_rec_host *machine,
				  const char *fingerprint,
				  const char *before_run_id,
				  struct archive_baseline **out, char *detail,
				  size_t detail_len);

/* As archive_find_baseline, but up to max such runs, newest first, into
 * out[0..*count) (each freed by the caller with archive_baseline_free):
 * a host's recent history with the same settings on the same machine.
 * BF_ERR_NOT_FOUND when there is none, detail saying why as above. */
enum bf_err archive_find_baselines(const char *results_dir, const char *host,
				   const struct bf_rec_host *machine,
				   const char *fingerprint,
				   const char *before_run_id, int max,
				   struct archive_baseline **out, int *count,
				   char *detail, size_t detail_len);

/* The row (device, dtype, n, occurrence: 1 for the first) of b, or
 * NULL. */
const struct archive_baseline_row *
archive_baseline_row(const struct archive_baseline *b, const char *device,
		     enum bf_dtype dtype, int n, int occurrence);

/* Why host record b (with host key fingerprint fp_b) is not the machine
 * of host record a (fp_a): "host key differs" (both keys known and not
 * equal; a NULL or "" key is unknown and tells nothing), "hostname
 * differs (x, y)", "GPU UUIDs differ"; NULL when it is the same machine
 * as far as the records tell. Static text, or buf (len bytes). */
const char *archive_machine_differs(const struct bf_rec_host *a,
				    const char *fp_a,
				    const struct bf_rec_host *b,
				    const char *fp_b, char *buf, size_t len);

/* Frees b. NULL does nothing. */
void archive_baseline_free(struct archive_baseline *b);

/* The *.json files of dir (not starting with '.'), "dir/name" in name
 * order, NULL-terminated; *count their number (empty when dir is missing
 * or unreadable); caller frees with bf_xfree_strv. Nothing is opened. */
char **archive_json_files(const char *dir, int *count);

/* Reads the JSON file path as the archive reads its own (a regular file,
 * at most 16 MiB, strings made terminal-safe) into *out; caller frees
 * with cJSON_Delete. BF_OK, or BF_ERR_IO / BF_ERR_PARSE with "path: why"
 * in detail. */
enum bf_err archive_read_json(const char *path, struct cJSON **out,
			      char *detail, size_t detail_len);

#endif
