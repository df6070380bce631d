/*
 * The run model: what ctl knows about every host of a run while it runs.
 * Host threads feed it typed records (record.h) and state changes; the
 * plain output and the live table read it through copies: one host's
 * facts (model_host_get) or a snapshot of everything (model_snapshot).
 * Its types are model_types.h's; its arrays and its lock are private to
 * model.c and model_records.c (model_internal.h); every function locks,
 * so any may be called from any thread.
 */
#ifndef BF_MODEL_H
#define BF_MODEL_H

#include <stdint.h>

#include "bf_testonly.h"
#include "record.h"
#include "schema.h"

#include "model/model_types.h"

/* "pending", "connecting", ..., "interrupted"; static. */
const char *host_state_name(enum host_state s);

/* Initialises m for nhosts hosts named names[i] (copied). */
void model_init(struct model *m, int nhosts, const char *const *names);
void model_free(struct model *m);

/* Hosts in the model (fixed at model_init). */
BF_TESTONLY
int model_nhosts(const struct model *m);

/* Copies host's facts (state, reason, counts, fingerprint, ...) into
 * *out, consistently under the lock. Its reason is the model's
 * (model_types.h): valid until model_free, not to be freed. */
void model_host_get(struct model *m, int host, struct model_host *out);

/* Refreshes s from m when m changed since s was taken (or s is empty):
 * hosts, rows, checks, bandwidth and batching copied under the lock, growing s's arrays as
 * needed; their reasons are shared with the model (model_types.h), so s
 * must not be read after model_free. Returns 1 when s was refreshed, 0 when it was already current.
 * Cheap when nothing changed (one locked compare). */
int model_snapshot_update(struct model *m, struct model_snapshot *s);

/* Frees s's arrays and zeroes it (not the reasons: they are the
 * model's, model_types.h). NULL does nothing. */
void model_snapshot_free(struct model_snapshot *s);

/* The checks entry of s for (host, device), or NULL. */
const struct model_checks *model_snapshot_checks(const struct model_snapshot *s,
						 int host, const char *device);

/* Sets host's state (and reason, may be NULL: kept as it was; copied
 * whole, of any length, sanitised per line, so a multi-line reason keeps
 * its line breaks). Returns 1 when the state
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
 * planned. Returns 1 with *why a new string, whole (one line: "no cuda
 * GEMM ran: 3 skipped (no NVIDIA driver installed ...)", the first
 * skipped row's reason in full), else 0 and *why NULL. Caller frees
 * *why. A host whose plan did not arrive is incomplete instead
 * (model_host_complete): 0. */
int model_host_measured_nothing(struct model *m, int host, char **why);

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
