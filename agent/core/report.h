/*
 * The agent's output stream: takes each record as its typed struct
 * (record.h), stamps its sequence number, writes it as one line
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

/* Emits a typed record: stamps rec->seq with the next sequence number,
 * counts check, gemm, bandwidth and batching records by their status,
 * and writes rec as one line of JSON encoded by bf_record_encode (the one
 * writer of record JSON), or with --human its rendering (human.c), then
 * flushes. rec stays the caller's (not freed). A write error (a closed
 * pipe) is left to SIGPIPE / the final fflush check. */
void report_emit_record(struct report *r, struct bf_record *rec);

/* Emits a check record. expected and got are taken over (either may be
 * NULL for JSON null); reason may be NULL. metrics (copied, may be NULL
 * for none) holds measured figures such as bandwidths. */
void report_check(struct report *r, const char *name, const char *device,
		  struct cJSON *expected, struct cJSON *got,
		  enum bf_status status, const char *reason,
		  const struct bf_rec_transfer_metrics *metrics);

/* Renders one record for --human (human.c) from its typed struct, the
 * one the encoder writes the NDJSON line from: what is missing there
 * (NaN, NULL, or a field the record leaves out) prints as "n/a". The
 * plan prints nothing. */
void human_print(FILE *out, const struct bf_record *rec);

#endif
