/*
 * The run model's types (model.h's functions read and fill them): a
 * host's facts, a GEMM row, the bandwidth, batching and checks entries,
 * the baseline, and a snapshot of them all. Plain data, no functions, so
 * that model.c, model_records.c and their private model_internal.h share
 * them without depending on each other.
 */
#ifndef BF_MODEL_TYPES_H
#define BF_MODEL_TYPES_H

#include <stdint.h>

#include "dtype.h"
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

/*
 * The reasons (model_row's, model_host's, model_bandwidth's and
 * model_batching's `reason`, model_row's unreliable, model_host's
 * baseline_note) are whole texts of any length, never cut:
 * sanitised for a terminal, NULL or "" when there is none. Who owns one:
 *  - in the model, the model: it keeps every reason it was given
 *    (model_keep_text, model_internal.h) unchanged until model_free, so
 *    model_host_get's copy of a host may read its reason until then;
 *  - in a snapshot, the snapshot: model_snapshot_update copies each
 *    (NULL for none) and frees the previous ones, model_snapshot_free
 *    frees them, so a snapshot outlives its model. A snapshot built by
 *    hand (a test) gives its entries malloc'd reasons or NULL; code that
 *    drops an entry from a snapshot (table.c) frees its reason.
 */

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
	const char *unreliable; /* its reasons, "; "-joined, whole; owned as
				 * reason (above); NULL or "" when none */
	double vs_fp32;    /* this dtype's GFLOP/s over fp32's, same device */
	double gpu_vs_cpu; /* fp32 on a GPU over fp32 on the host's CPU */
	char recent_note[48]; /* "slower than its last 5 runs" (recent.h);
			       * "" none */
	int recent_slower;    /* the note says slower */
	double prev_gflops; /* same host, device, dtype and n in the previous
			     * archived run with the same settings (see
			     * model_set_baseline); NaN when there is none */
	const char *reason; /* why failed or skipped; "invalid: ..." for a
			     * record whose gflops disagrees with its n and
			     * median_ms (bf_rec_gemm_consistent); whole,
			     * model-owned (above), NULL or "" none */
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
	const char *reason;  /* why failed or skipped; as model_row's */
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
	const char *reason;  /* why failed or skipped; as model_row's */
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
	const char *reason;     /* why it failed / was interrupted: whole,
				 * its lines sanitised one by one (line
				 * breaks kept); model-owned as model_row's,
				 * NULL or "" none */
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
	const char *baseline_note; /* why there is none ("different
				  * machine: host key differs from run
				  * ..."): whole, owned as the reasons
				  * (above); NULL or "" none */
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

#endif
