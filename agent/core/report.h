/*
 * The agent's output stream: builds each record with cJSON (never printf),
 * stamps schema version, type and sequence number, writes it as one line
 * and flushes, so a reader sees every record the moment it exists. With
 * --human the same records are rendered as a table instead (human.c).
 * Also keeps the pass/fail/skip counts the summary reports.
 */
#ifndef BF_REPORT_H
#define BF_REPORT_H

#include <stdio.h>

#include "record.h"
#include "schema.h"

struct cJSON;

struct report {
	FILE *out;
	int human;
	int seq;
	int checks[3]; /* indexed by enum bf_status */
	int gemms[3];
	int bandwidths[3];
	int batchings[3];
};

/* A new record object with schema, type and seq already set; the caller
 * adds fields and hands it to report_emit, which takes ownership. */
struct cJSON *report_record(struct report *r, enum bf_record_type type);

/* Writes rec (one line, or the human rendering), flushes, updates the
 * counts for check, gemm, bandwidth and batching records, and frees rec. A write error (a
 * closed pipe) is left to SIGPIPE / the final fflush check. */
void report_emit(struct report *r, struct cJSON *rec);

/* Emits a typed record: stamps rec->seq with the next sequence number,
 * encodes it with bf_record_encode (the one writer of record JSON) and
 * emits it as report_emit does. rec stays the caller's (not freed). */
void report_emit_record(struct report *r, struct bf_record *rec);

/* Emits a check record. expected and got are taken over (either may be
 * NULL for JSON null); reason may be NULL. metrics (copied, may be NULL
 * for none) holds measured figures such as bandwidths. */
void report_check(struct report *r, const char *name, const char *device,
		  struct cJSON *expected, struct cJSON *got,
		  enum bf_status status, const char *reason,
		  const struct bf_rec_transfer_metrics *metrics);

/* Renders one record for --human (human.c). */
void human_print(FILE *out, const struct cJSON *rec);

#endif
