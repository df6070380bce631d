/*
 * The run model: what ctl knows about every host of a run while it runs.
 * Host threads feed it typed records (record.h) and state changes; the
 * plain output and the live table read it through copies: one host's
 * facts (model_host_get) or a snapshot of everything (model_snapshot).
 * Its arrays and its lock are private to model.c; every function locks,
 * so any may be called from any thread.
 */
#ifndef BF_MODEL_H
#define BF_MODEL_H

#include <stdint.h>

#include "bf_testonly.h"
#include "record.h"
#include "schema.h"

struct archive_baseline;

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
	enum bf_dtype dtype; /* parsed once as the record enters
			      * (model_add_record); printed with
			      * bf_dtype_name */
	int n;
	int occurrence;    /* 1 for the host's first (device, dtype, n), 2
			    * for a repeated size's second, ... */
	enum bf_status status;
	double median_ms, min_ms, max_ms;
	double gflops;
	double peak_mib;
	double gflop_per_joule;  /* over the timed loop (the record's
				  * energy); NaN unknown */
	double peak_gflops;      /* the device's rated peak; NaN */
	double fraction_of_peak; /* gflops / peak_gflops; NaN */
	int peak_derived;        /* 1: the record's peak_method is "derived",
				  * an upper estimate, so %peak is at least
				  * the figure (shown ">12%") */
	/* A published measurement of the product at this dtype and n
	 * (docs/schema.md): reference_gflops NaN or 0 when none. */
	double reference_gflops;
	double fraction_of_reference; /* gflops / reference_gflops; NaN */
	int below_reference;     /* 1 below 80 % of it, 0, -1 unknown */
	char reference[200];     /* its source, one line; "" */
	/* The roofline (docs/schema.md, gemm): NaN / "" when the device's
	 * bandwidth was not measured (--no-bandwidth, older agents). */
	char bandwidth_kind[16];     /* "triad", "d2d"; "" */
	double bandwidth_gbps;
	double arithmetic_intensity; /* FLOP per operand byte */
	double roofline_gflops;      /* min(peak, AI x bandwidth) */
	char bound;                  /* 'M' memory, 'C' compute, 0 unknown */
	double fraction_of_roofline; /* gflops / roofline_gflops */
	int reliable;      /* the agent's verdict: 1, 0, -1 unknown */
	char unreliable[320]; /* its reasons, "; "-joined; "" when none */
	double vs_fp32;    /* this dtype's GFLOP/s over fp32's, same device */
	double gpu_vs_cpu; /* fp32 on a GPU over fp32 on the host's CPU */
	char recent_note[48]; /* "slower than its last 5 runs" (recent.h);
			       * "" none */
	int recent_slower;    /* the note says slower */
	double prev_gflops; /* same host, device, dtype and n in the previous
			     * archived run with the same settings (see
			     * model_set_baseline); NaN when there is none */
	char reason[160];  /* why failed or skipped; "invalid: ..." for a
			    * record whose gflops disagrees with its n and
			    * median_ms (bf_rec_gemm_consistent) */
};

/* One GEMM result of a host's previous archived run: the baseline a new
 * row's prev_gflops comes from. */
struct model_baseline {
	char device[16];
	enum bf_dtype dtype;
	int n;
	int occurrence;    /* as model_row's */
	double gflops;     /* median GFLOP/s; NaN when it had none */
};

/* One memory-bandwidth measurement (a bandwidth record): host x device x
 * kind. */
struct model_bandwidth {
	int host;
	char device[16];
	char kind[16];       /* "triad", "d2d", "h2d_pinned", ... */
	enum bf_status status;
	double median_gbps;  /* NaN: not run or wrong */
	double array_bytes;  /* one array or buffer; NaN */
	char reason[160];    /* why failed or skipped */
};

/* The seed's batching case on one device (a batching record). */
struct model_batching {
	int host;
	char device[16];
	enum bf_dtype dtype; /* parsed as model_row's */
	enum bf_status status;
	double single_ms;    /* median latency of a one-row call; NaN */
	double batch_ms;     /* of the 20-row batch call; NaN */
	double speedup;      /* batch rows/s over one-row rows/s; NaN */
	int rows;            /* rows per batch; 0 unknown */
	char reason[160];
};

/* Check counts per host x device. */
struct model_checks {
	int host;
	char device[16];
	int passed, failed, skipped;
};

/* A GPU of a host, as its host record names it (the live verdict's
 * product and peers: verdict_snapshot). */
#define MODEL_MAX_GPUS 16

struct model_gpu {
	int index;              /* CUDA device index */
	char name[96];          /* cudaDeviceProp.name, sanitised */
	double memory_bytes;    /* NaN unknown */
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
	int saw_plan;           /* the plan record arrived */
	int duplicates;         /* records whose seq had arrived before:
				 * ignored, not counted */
	int max_seq, summary_seq; /* highest seq seen, the summary's; -1 none */
	int failed;             /* check, gemm, bandwidth and batching records
				 * that failed as ctl shows them (a gemm record
				 * that contradicts itself too): ctl's exit
				 * status comes from this, not from the agent's
				 * own counts */
	char summary_note[320]; /* how the agent's own counts (its summary,
				 * its exit status) disagree with the records
				 * that arrived, "gemm_failed 0 (records: 1),
				 * ..."; "" when they agree or are unknown */
	char fingerprint[128];  /* SHA256:... of the host key; "" for local */
	char agent_hash[40];
	char hostname[128];     /* from the host record */
	char slurm_job[32];     /* Slurm job id of a cluster node; "" */
	char baseline_run[64];  /* the run Δ% compares with; "" none */
	char baseline_note[160]; /* why there is none ("different machine:
				  * host key differs from run ..."); "" */
	uint64_t started_ns, ended_ns;
	/* Progress on the long work before the sweep (model_set_upload,
	 * model_set_build_steps): the agent's sources uploaded, in bytes,
	 * and the remote build's steps as its own output counts them
	 * (make's "[ 45%]": 45 of 100; ninja's "[12/40]"); 0 totals:
	 * unknown. */
	long long upload_done_bytes, upload_total_bytes;
	int build_done, build_total;
	int build_percent;      /* build_done is make's percent (total 100) */
	char waiting[160];      /* while pending, why it waits ("after hb1:
				 * one machine"); "" */
	char plan[256];         /* what the agent will run (model_set_plan);
				 * "" until its plan record */
	double prev_wall_s;     /* how long the agent took in the baseline
				 * run (same machine and settings); NaN */
	char machine[256];      /* the hosts of this run that are one machine
				 * with it, itself included ("hb1, hb2,
				 * local"); "" when it is alone or unknown */
	int shared;             /* measured at the same time as those hosts
				 * (--concurrent-same-machine): its rows are
				 * unreliable for MODEL_SHARED_REASON */
	char device_asked[8];   /* the agent's --device from its host
				 * record's options: "cpu", "cuda"; "" all
				 * or not said */
	char cpu_model[96];     /* the host record's, sanitised; "" */
	double cpu_cores;       /* NaN unknown */
	struct model_gpu gpus[MODEL_MAX_GPUS]; /* the first MODEL_MAX_GPUS
				 * of the host record's GPUs */
	int ngpus;
	char turn_started_at[32], turn_ended_at[32]; /* ISO 8601 UTC: when
				 * the host's turn began (after the same-
				 * machine check and any wait) and ended; "" */
};

/* The unreliable reason every row of a host measured at the same time as
 * another host of the same machine carries (model_set_machine). */
#define MODEL_SHARED_REASON \
	"one machine with other hosts of the run, measured at the same " \
	"time (--concurrent-same-machine)"


/* The model itself: an opaque handle (model.c holds the hosts, rows,
 * checks and baselines, and the lock). Embeddable by value. */
struct model {
	struct model_state *st;
};

/* A caller-owned copy of the model at one moment (its version): never
 * locked, read freely. Start from all zeroes; model_snapshot_update
 * refreshes it, model_snapshot_free frees it. The tables are plain data: a
 * test may build one by hand (with malloc'd arrays) for the layout code. */
struct model_snapshot {
	struct model_host *hosts;
	int nhosts;
	struct model_row *rows;
	int nrows;
	struct model_checks *checks;
	int nchecks;
	struct model_bandwidth *bandwidth; /* in arrival order */
	int nbandwidth;
	struct model_batching *batching;   /* in arrival order */
	int nbatching;
	int ref_host;        /* the reference of the side-by-side ratios
			      * (model_set_reference; 0: the first host) */
	uint64_t version;    /* the model's change counter when copied */
	uint64_t started_ns; /* when the model was initialised */
	int rows_cap, checks_cap; /* allocated entries, reused by updates */
	int bandwidth_cap, batching_cap;
};

/* Initialises m for nhosts hosts named names[i] (copied). */
void model_init(struct model *m, int nhosts, const char *const *names);
void model_free(struct model *m);

/* Hosts in the model (fixed at model_init). */
BF_TESTONLY
int model_nhosts(const struct model *m);

/* Copies host's facts (state, reason, counts, fingerprint, ...) into
 * *out, consistently under the lock. */
void model_host_get(struct model *m, int host, struct model_host *out);

/* Refreshes s from m when m changed since s was taken (or s is empty):
 * hosts, rows, checks, bandwidth and batching copied under the lock, growing s's arrays as
 * needed. Returns 1 when s was refreshed, 0 when it was already current.
 * Cheap when nothing changed (one locked compare). */
int model_snapshot_update(struct model *m, struct model_snapshot *s);

/* Frees s's arrays and zeroes it. NULL does nothing. */
void model_snapshot_free(struct model_snapshot *s);

/* The checks entry of s for (host, device), or NULL. */
const struct model_checks *model_snapshot_checks(const struct model_snapshot *s,
						 int host, const char *device);

/* Sets host's state (and reason, may be NULL; sanitised per line, so a
 * multi-line reason keeps its line breaks). Returns 1 when the state
 * changed (so callers print one progress line per change). */
int model_set_state(struct model *m, int host, enum host_state st,
		    const char *reason);

/* Bounds of what model_add_record accepts (a second line of defence
 * behind the record decoder, so no count or size from outside overflows
 * an int or sizes an allocation): a record's seq is -1 (absent) or
 * 0..MODEL_MAX_SEQ, a plan's totals 0..MODEL_MAX_PLANNED, a GEMM's n
 * 1..MODEL_MAX_N (the agent's own limit is 65536), and a gemm or
 * batching record's dtype one bf_dtype_parse knows. The reader
 * (bf_schema_parse_record) already refuses a dtype that docs/schema.json
 * does not list, and every dtype it lists is an enum bf_dtype (unit.dtype
 * test_schema_dtypes), so only a hand-made record can miss there: an
 * archive written by a newer agent with a dtype this ctl does not know
 * is refused at the reader as a malformed line, as it was before the
 * model held the enum. */
#define MODEL_MAX_SEQ (1 << 22)
#define MODEL_MAX_PLANNED (1 << 20)
#define MODEL_MAX_N (1 << 20)

/* What model_add_record did with a record. */
enum model_added {
	MODEL_ADDED = 0,        /* taken; nothing visible changed */
	MODEL_ADDED_PROGRESS,   /* taken; "running k/n" changed (plan, gemm) */
	MODEL_REJECTED_DUPLICATE, /* its seq arrived before: ignored */
	MODEL_REJECTED_RANGE,   /* a number out of the bounds above, or an
				 * unknown dtype: ignored */
};

/* Feeds one decoded record from host (copied; rec stays the caller's).
 * A record outside the bounds above, or whose seq (>= 0) was seen before
 * for this host, is not taken: it changes nothing but the host's
 * duplicates count (duplicates) or nothing at all (range; the caller
 * counts it as malformed). gemm records become rows (with their
 * roofline), bandwidth and batching records entries of their own lists
 * (read through snapshots). Strings are sanitised (bf_text) as they
 * enter, so every printer of the model prints terminal-safe text. */
enum model_added model_add_record(struct model *m, int host,
				  const struct bf_record *rec);

/* Whether host's records are complete: the plan and the summary arrived,
 * as many distinct check and gemm records as the plan announced, every
 * seq from 0 to the summary's exactly once, none after it. Returns 1 when
 * complete, else 0 with what is missing in why (one line: "2 of 3 gemm
 * records, seq 5 missing"). */
int model_host_complete(struct model *m, int host, char *why, size_t why_len);

/* Whether host measured nothing: its plan arrived but no GEMM record of
 * a device it was asked for (its host record's --device: "cpu" the CPU,
 * "cuda" a GPU, all or unsaid any device) ran, i.e. none passed or
 * failed; every one was skipped (no driver, does not fit) or none was
 * planned. Returns 1 with why (one line: "no cuda GEMM ran: 3 skipped
 * (no NVIDIA driver installed ...)"), else 0 and why "". A host whose
 * plan did not arrive is incomplete instead (model_host_complete): 0. */
int model_host_measured_nothing(struct model *m, int host, char *why,
				size_t why_len);

/* Counts a malformed line from host. */
void model_add_malformed(struct model *m, int host);

/* Sets host's baseline (count entries, copied) from its previous
 * archived run: each GEMM row of host, present and future, gets the
 * matching entry's gflops as prev_gflops (NaN when none matches).
 * Replaces an earlier baseline; count 0 clears it. */
void model_set_baseline(struct model *m, int host,
			const struct model_baseline *b, int count);

/* Sets host's recent history: its last nruns runs with the same settings
 * on the same machine, newest first (archive_find_baselines; copied).
 * Every GEMM row of host, present and future, gets the note of
 * model_recent_note against them ("slower than its last 5 runs", or
 * none). nruns 0 clears it. */
void model_set_recent(struct model *m, int host,
		      const struct archive_baseline *const *runs, int nruns);

/* Which run host's baseline came from (run_id, may be NULL) or why it
 * has none (note, may be NULL), for the tables' Δ% legend. */
void model_set_baseline_info(struct model *m, int host, const char *run_id,
			     const char *note);

/* Records connection facts for the archive. The agent's exit status
 * (0..255) is also held against its records (summary_note). */
void model_set_fingerprint(struct model *m, int host, const char *fp);
void model_set_agent_exit(struct model *m, int host, int status);

/* Renames host (a Slurm node, once its task said which node it is). */
void model_set_name(struct model *m, int host, const char *name);

/* Records the Slurm job a cluster node ran in (run.json). */
void model_set_slurm_job(struct model *m, int host, const char *job_id);

/* The host the side-by-side ratios compare with (ctl run --baseline);
 * 0, the first, until set. */
void model_set_reference(struct model *m, int host);

/* The hosts of this run that reach the same machine as host (names,
 * ", "-joined, itself included; copied, sanitised), and whether they
 * were measured at the same time: then every row of host, present and
 * future, is unreliable (reliable 0) with MODEL_SHARED_REASON added to
 * its reasons. */
void model_set_machine(struct model *m, int host, const char *names,
		       int shared);

/* What the tables say about h's machine: "hb1, hb2, local: one machine;
 * run one at a time" (or "; run at once (--concurrent-same-machine)"
 * when shared) into buf; "" when h is alone on its machine. */
void model_machine_line(const struct model_host *h, char *buf, size_t len);

/* Upload progress of the agent's sources: done of total bytes. */
void model_set_upload(struct model *m, int host, long long done,
		      long long total);

/* The remote build's progress: done of total steps, as ninja counts
 * them ("[12/40]"), or make's percent (percent 1, total 100: "[ 45%]"). */
void model_set_build_steps(struct model *m, int host, int done, int total,
			   int percent);

/* Why a pending host waits (copied; NULL or "" clears it). */
void model_set_waiting(struct model *m, int host, const char *why);

/* What the agent will run (plan, copied, sanitised: "6 GEMMs: n 256 to
 * 1024, fp32, cpu; 10 iterations"). */
void model_set_plan(struct model *m, int host, const char *plan);

/* How long the baseline run's agent took, in seconds (NaN: unknown). */
void model_set_baseline_wall(struct model *m, int host, double wall_s);

/* Marks the start (end 0) or the end (end 1) of host's turn now, in UTC
 * (turn_started_at, turn_ended_at). */
void model_set_turn(struct model *m, int host, int end);

#endif
