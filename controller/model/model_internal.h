/*
 * The run model's private parts, shared by model.c (its lifecycle, lock,
 * snapshots and the hosts' states) and model_records.c (what the agent's
 * records add: rows, ratios, notes, counts). Nothing outside
 * controller/model/model*.c includes it: every reader goes through
 * model.h under the lock (as remote/remote_internal.h is to remote/).
 */
#ifndef BF_MODEL_INTERNAL_H
#define BF_MODEL_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model_types.h"
#include "model/recent.h"

/* Which seqs arrived, per host: a bitmap grown as seqs arrive (at most
 * MODEL_MAX_SEQ bits, 512 KiB). */
struct seq_set {
	unsigned char *bits;
	size_t bytes;
};

/* The kinds of result the agent's summary counts by status. */
enum result_kind { KIND_CHECKS, KIND_GEMM, KIND_BANDWIDTH, KIND_BATCHING,
		   KIND__COUNT };

/* One host's records by kind and status, as the records said, and what
 * the agent's own summary said of them. */
struct host_counts {
	int sent[KIND__COUNT][3];       /* [kind][enum bf_status] */
	double summary[KIND__COUNT][3]; /* NaN: not in the summary */
	int summary_exit;               /* -1 until the summary arrives */
};

struct model_state {
	pthread_mutex_t lock;
	struct model_host *hosts;
	int nhosts;
	struct model_row *rows;
	int nrows, rows_cap;
	struct model_checks *checks;
	int nchecks, checks_cap;
	struct model_bandwidth *bandwidth;
	int nbandwidth, bandwidth_cap;
	struct model_batching *batching;
	int nbatching, batching_cap;
	struct model_baseline **baseline; /* per host; NULL: none */
	int *nbaseline;
	struct model_recent **recent;     /* per host: recent.h; NULL none */
	int *nrecent;
	/* Per row (index-aligned with rows, rows_cap entries): its
	 * samples as GFLOP/s, kept for the recent-history note. */
	struct row_samples { double *x; int n; } *row_samples;
	struct seq_set *seqs; /* per host */
	struct host_counts *counts; /* per host */
	uint64_t version; /* bumped on every change: readers redraw on change */
	uint64_t started_ns;
	int ref_host;     /* model_set_reference */
	char **texts;     /* model_keep_text's strings, freed by model_free */
	int ntexts, texts_cap;
};

/* Take and release the model's one lock; every function of model.h
 * holds it while it reads or changes the state. */
void model_lock(struct model_state *st);
void model_unlock(struct model_state *st);

/* Keeps owned (a malloc'd string, or NULL) until model_free and returns
 * it: what the model's reason fields point at (model_types.h), never
 * changed after, so snapshots share it without a copy. NULL and "" come
 * back as "" (static; owned is freed). Called under the lock. */
const char *model_keep_text(struct model_state *st, char *owned);

/* model_keep_text of src sanitised for a terminal, whole (one line:
 * bf_text_sanitize_dup). NULL reads as "". Called under the lock. */
const char *model_keep_sanitized(struct model_state *st, const char *src);

#endif
