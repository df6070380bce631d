/*
 * The run model: what ctl knows about every host of a run while it runs.
 * Host threads feed it records and state changes; the plain output and the
 * live table read it. All functions lock the model's mutex, so they may be
 * called from any thread; readers take a consistent view with model_lock /
 * model_unlock around direct field access.
 */
#ifndef BF_MODEL_H
#define BF_MODEL_H

#include <pthread.h>
#include <stdint.h>

#include "schema.h"

struct cJSON;

enum host_state {
	HOST_PENDING = 0,
	HOST_CONNECTING,
	HOST_DEPLOYING,
	HOST_BUILDING,
	HOST_RUNNING,
	HOST_DONE,
	HOST_FAILED,
	HOST_INTERRUPTED,
};

/* "pending", "connecting", ..., "interrupted"; static. */
const char *host_state_name(enum host_state s);

/* One GEMM result row: host x device x dtype x n. Missing numbers are
 * NaN (printed as n/a). */
struct model_row {
	int host;
	char device[16];
	char dtype[8];
	int n;
	enum bf_status status;
	double median_ms, min_ms, max_ms;
	double gflops;
	double peak_mib;
	double vs_fp32;    /* this dtype's GFLOP/s over fp32's, same device */
	double gpu_vs_cpu; /* fp32 on a GPU over fp32 on the host's CPU */
	double prev_gflops; /* same host, device, dtype and n in the previous
			     * archived run with the same settings (see
			     * model_set_baseline); NaN when there is none */
	char reason[160];
};

/* One GEMM result of a host's previous archived run: the baseline a new
 * row's prev_gflops comes from. */
struct model_baseline {
	char device[16];
	char dtype[8];
	int n;
	double gflops;     /* median GFLOP/s; NaN when it had none */
};

/* Check counts per host x device. */
struct model_checks {
	int host;
	char device[16];
	int passed, failed, skipped;
};

struct model_host {
	char name[128];
	enum host_state state;
	char reason[512];       /* why it failed / was interrupted */
	int gemm_done, gemm_total;
	int checks_done, checks_total;
	int records, malformed;
	int agent_exit;         /* agent's exit status; -1 until known */
	int saw_summary;        /* the agent's last record (summary) arrived */
	char fingerprint[128];  /* SHA256:... of the host key; "" for local */
	char agent_hash[40];
	char hostname[128];     /* from the host record */
	uint64_t started_ns, ended_ns;
};

struct model {
	pthread_mutex_t lock;
	struct model_host *hosts;
	int nhosts;
	struct model_row *rows;
	int nrows, rows_cap;
	struct model_checks *checks;
	int nchecks, checks_cap;
	struct model_baseline **baseline; /* per host; NULL: none */
	int *nbaseline;
	uint64_t version; /* bumped on every change: readers redraw on change */
	uint64_t started_ns;
};

/* Initialises m for nhosts hosts named names[i] (copied). */
void model_init(struct model *m, int nhosts, const char *const *names);
void model_free(struct model *m);

void model_lock(struct model *m);
void model_unlock(struct model *m);

/* Sets host's state (and reason, may be NULL). Returns 1 when the state
 * changed (so callers print one progress line per change). */
int model_set_state(struct model *m, int host, enum host_state st,
		    const char *reason);

/* Feeds one validated record from host. Returns 1 when the host's visible
 * progress changed (a gemm record: "running k/n"). */
int model_add_record(struct model *m, int host, enum bf_record_type type,
		     const struct cJSON *rec);

/* Counts a malformed line from host. */
void model_add_malformed(struct model *m, int host);

/* Sets host's baseline (count entries, copied) from its previous
 * archived run: each GEMM row of host, present and future, gets the
 * matching entry's gflops as prev_gflops (NaN when none matches).
 * Replaces an earlier baseline; count 0 clears it. */
void model_set_baseline(struct model *m, int host,
			const struct model_baseline *b, int count);

/* Records connection facts for the archive. */
void model_set_fingerprint(struct model *m, int host, const char *fp);
void model_set_agent_exit(struct model *m, int host, int status);

/* The checks entry for (host, device), or NULL; call with the lock held. */
const struct model_checks *model_find_checks(const struct model *m, int host,
					     const char *device);

#endif
