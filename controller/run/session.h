/*
 * The session of one `ctl run`, between the command (cmd_run.c, which
 * parses and wires) and the runners (runner_local.c, runner_ssh.c, which
 * start the agent somewhere and stream its stdout). It owns the host
 * contexts, the archive of the run and the model they feed; it is the one
 * place that reads and writes the model for a run. A runner sees its own
 * host's context only, hands each stdout line to session_feed_line,
 * reports state changes with session_progress and the agent's end with
 * session_agent_ended, so hosts run on threads of their own.
 */
#ifndef BF_SESSION_H
#define BF_SESSION_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>

#include "archive/archive.h"
#include "bf_error.h"
#include "model/model.h"
#include "run/inventory.h"
#include "run/machine.h"
#include "run/schedule.h"

/* What watches a run from the main thread while the hosts run: the live
 * table, wired by the command (the run knows no view). poll waits up to
 * timeout_ms for the user and returns non-zero when the user asked to
 * stop (q); close ends the watch (it is called once, also when the run
 * falls back to plain lines). */
struct session_watch {
	int (*poll)(void *arg, int timeout_ms);
	void (*close)(void *arg);
	void *arg;
};
struct host_ctx;

/* ctl run's options that the session and the runners read. */
struct run_opts {
	struct bf_agent_optset agent; /* the agent's options given to ctl */
	int jobs;            /* hosts at once (default 16) */
	int timeout_s;       /* connect and silence bound (default 30) */
	int host_timeout_s;  /* floor of a running agent's allowed silence
			      * between records (session_silence_limit_s);
			      * 0: none */
	int no_tui;
	int accept_new_host_keys;
	const char *results_dir;
	const char *tag;
	const char *ssh_config;  /* -F: NULL = ~/.ssh/config */
	const char *hosts_dir;   /* inventory directory */
	const char *rerun_of;    /* --rerun-failed RUN-ID; NULL */
	int baseline_host;       /* --baseline HOST: the side-by-side
				  * reference, an index into the hosts */
	int concurrent_same_machine; /* --concurrent-same-machine: hosts that
				  * are one machine run at once anyway */
	int budget_s;            /* ctl check --budget: seconds a host's
				  * agent may run in all, from its start
				  * (session_agent_started or the running
				  * state); past it the agent is stopped and
				  * the host fails CHECK_BUDGET_EXCEEDED
				  * (model/check.h); 0 none */
};

/* How one host's agent is started: a const table entry per kind
 * (runner_local.c, runner_ssh.c, runner_slurm.c). */
struct runner {
	const char *name;
	/* Runs the agent for h to its end, blocking; BF_OK when it ran and
	 * ended with a status that counts as a result (see
	 * session_agent_ended), else the error with a one-line reason. */
	enum bf_err (*run)(struct host_ctx *h, char *detail, size_t detail_len);
	/* Optional (NULL: none). Called from the session's watch (the main
	 * thread, every tick of about 100 ms, while run() goes on in h's
	 * thread) after the watch has set h's stop flag for Ctrl-C or the
	 * host timeout: for a runner whose hosts share one remote job, to
	 * stop that job once none of them still needs it. */
	void (*watch)(struct host_ctx *h);
	/* Optional (NULL: the host is a machine of its own). Called before
	 * any host runs, when the run has two or more hosts, on a worker
	 * thread: which machine h reaches (run/machine.h: machine id, boot
	 * id, host key) into *id. BF_OK also when the host did not say
	 * (values left ""); an error (it cannot be reached, its host key is
	 * refused) fails the host with detail when its turn comes, without
	 * another attempt. */
	enum bf_err (*identify)(struct host_ctx *h, struct machine_id *id,
				char *detail, size_t detail_len);
};

struct host_ctx {
	int index;
	const char *name;          /* as given on the command line */
	const char *target;        /* SSH target (alias, user@host:port) */
	int is_local;
	const struct inv_host *inv; /* NULL when not in the inventory */
	const struct run_opts *opts;
	const struct runner *runner;
	char **agent_argv;         /* the agent's arguments, after its name;
				    * NULL-terminated, owned by the session */
	struct model *model;
	FILE *ndjson;              /* every valid record, as received */
	FILE *log;                 /* stderr, build output, malformed lines */
	char basename[96];         /* archive file stem */
	char label[128];           /* name, terminal-safe, for progress lines */
	atomic_int *cancel;        /* &stop, which the session sets on Ctrl-C
				    * and on the host timeout */
	atomic_int stop;
	atomic_int timed_out;      /* stopped by the host timeout */
	atomic_int over_budget;    /* stopped by run_opts.budget_s */
	_Atomic uint64_t agent_start_ns; /* when its agent started (the
					  * budget's clock); 0: not yet */
	atomic_int agent_ended;    /* its agent has exited while its runner
				    * goes on (a Slurm rank whose job still
				    * runs): its silence is no longer timed */
	_Atomic uint64_t last_record_ns; /* when the last record (or the
					  * running state, or the agent's
					  * start) arrived; 0: not timed */
	_Atomic double silence_limit_s;  /* allowed silence now; 0: none */
	long lineno;
	/* The host thread's own (no lock): */
	double s_per_n3;           /* slowest GEMM seen: seconds per n^3 */
	int *sizes, nsizes;        /* the agent's GEMM sizes (host record) */
	int per_size;              /* gemm records per size: devices x dtypes */
	struct bf_rec_options options; /* the host record's (copied), for the
				    * plan line */
	long malformed_seen;       /* malformed or rejected lines */
	long ndjson_bytes;         /* bytes of whole lines in ndjson */
	int write_failed;          /* an archive write failed: see write_error */
	int complete;              /* model_host_complete at the host's end */
	char write_error[256];     /* "archive write failed: FILE: why" */
	pthread_mutex_t *print_lock; /* serialises progress lines */
	int quiet;                 /* the live table draws instead */
	const char *run_id;        /* this run's archive id */
	/* A node of a Slurm cluster (runner_slurm.c): its group, its task
	 * rank in the cluster's job, and the job shared by its ranks. */
	const struct inv_group *slurm;
	int slurm_rank;
	struct slurm_job *slurm_job;
	pthread_mutex_t *run_lock;   /* the session's lock (run.json) */
	const char *archive_dir;     /* results/<run-id> */
	char name_buf[128];          /* name after session_rename_host */
	/* Which machine it is (the runner's identify), for the session's
	 * schedule: hosts of one machine run one after another unless
	 * --concurrent-same-machine. */
	struct machine_id machine;
	enum bf_err identify_err;    /* identify failed: the host fails */
	char identify_detail[512];
};

struct session {
	struct host_ctx *hosts;
	int nhosts;
	int workers_finished;  /* threads that ran out of hosts */
	pthread_mutex_t lock;  /* next, workers_finished, run.json, the
				* schedule below */
	pthread_cond_t turn;   /* a host ended, or every host is identified */
	int identify_next;     /* next host to identify */
	struct sched sched;    /* which host may start (run/schedule.h) */
	pthread_mutex_t print_lock;
	struct model model;
	struct archive archive;
	const struct run_opts *opts;
	atomic_int *cancel;    /* ctl's: the signal's number (q: SIGINT) */
	int argc;              /* ctl's arguments, for run.json */
	char **argv;
	char started_at[32];
	char json_error[512];  /* the first failed run.json write ("" none) */
	int reserved;          /* the run directory's .reserve exists */
};

/*
 * Creates the run: its archive directory, one model entry, context and
 * pair of archive files per host (names[i], inventory entry from inv,
 * agent arguments agent_argv[i], of which the session takes ownership,
 * also on error), and run.json saying "running". runner is left NULL for
 * the caller to set. argv, names, inv and opts must outlive the session.
 * The run directory's .reserve (room for the last run.json) and the
 * first run.json are written before the host files: when either cannot
 * be, the run directory is removed again and detail ends "(nothing
 * ran)". Errors: BF_ERR_IO with the path in detail, the results
 * directory or the run's not created or not writable (the caller frees with
 * session_close all the same; ctl exits 3: the archive could not be
 * written).
 */
enum bf_err session_open(struct session *s, const struct run_opts *opts,
			 int argc, char **argv, int nhosts,
			 const char *const *names, const struct inventory *inv,
			 char ***agent_argv, atomic_int *cancel,
			 char *detail, size_t detail_len);

/* Runs every host, up to opts->jobs at once on threads of their own, and
 * returns when all have ended. With two or more hosts, every host is
 * first identified (its runner's identify, up to opts->jobs at once) and
 * hosts that reach one machine (machine_groups) are told apart: they run
 * one after another in the command line's order, the others waiting
 * ("waiting for hb1 (one machine)"), unless
 * opts->concurrent_same_machine; the model says which hosts are one
 * machine (model_set_machine), and their rows are unreliable when they
 * ran at once. A host starts once it and every host before it on the
 * command line are identified (run/schedule.h says the rules), so a host
 * whose connection hangs delays those after it by --timeout at most.
 * watch, when not NULL, is polled on this thread meanwhile (a stop request sets the cancel flag, as q is Ctrl-C)
 * and closed before session_run returns; hosts then print no progress
 * lines of their own. */
void session_run(struct session *s, const struct session_watch *watch);

/* Ends the run: hosts that never started become interrupted, run.json is
 * written a last time (on a full disk after giving up the run directory's
 * .reserve; stderr says so if even that fails), and *final_status is set
 * to run.json's status (BF_RUN_COMPLETE or BF_RUN_INCOMPLETE; static).
 * Returns ctl's exit status (BF_EXIT_*): 130 when a signal or q stopped
 * the run, 3 when a host did not complete or the archive could not be
 * written. Prints nothing: the command prints the table. */
int session_finish(struct session *s, const char **final_status);

/* Frees what session_open made; session_close on a zeroed struct does
 * nothing. */
void session_close(struct session *s);

/* Appends n bytes of the agent's stderr (or other text) to h's log,
 * checking the write; a failure marks the host (session's archive write
 * failure). Thread: the host's. */
void session_log_write(struct host_ctx *h, const void *buf, size_t n);

/*
 * How long a running agent may stay silent before its host fails: the
 * larger of floor_s and ten times the predicted time to the next record,
 * which is the slowest GEMM seen so far in seconds per n^3 (s_per_n3; a
 * GEMM's time grows with n^3) times next_n^3. floor_s 0 means no limit
 * (returns 0). Pure.
 */
double session_silence_limit_s(double floor_s, double s_per_n3, int next_n);

/* Validates one stdout line of the agent and files it: fed to the model
 * and archived (one write per line, checked) when valid and new; counted
 * and logged (excerpts capped, sanitised) when malformed or out of range;
 * logged only when its seq arrived before. Never stops the run (always
 * BF_OK). A linesplit_fn; arg is the host_ctx. Thread: the host's. */
enum bf_err session_feed_line(void *host_ctx, const char *line, size_t len,
			      int truncated);

/* For a runner whose agent may wait after the running state before it
 * starts (a Slurm job in the queue): h's silence is not timed by
 * --host-timeout from now until session_agent_started(h), which the
 * runner calls when the agent has started. Thread: the host's (or its
 * job leader's). */
void session_agent_queued(struct host_ctx *h);
void session_agent_started(struct host_ctx *h);

/* Sets the host's state and prints one progress line if it changed.
 * HOST_RUNNING starts h's --host-timeout clock. */
void session_progress(struct host_ctx *h, enum host_state st,
		      const char *reason);

/* Progress of the long work before the agent runs, for the live table
 * (model_set_upload, model_set_build_steps) and, at each quarter of an
 * upload and each tenth of a build, a progress line ("[hb1] upload
 * 240/480 KiB", "[hb1] building 40%"): done of total bytes of the
 * agent's sources; done of total build steps, or make's percent
 * (percent 1, total 100). Thread: the host's. */
void session_upload_progress(struct host_ctx *h, long long done,
			     long long total);
void session_build_progress(struct host_ctx *h, int done, int total,
			    int percent);

/* Renames host h, as a Slurm node once its task said which node it is:
 * its name in the model, run.json and progress lines, and its archive
 * files (NN-name.ndjson, .log, renamed in place; the open streams stay
 * valid). name is copied. Errors: BF_ERR_IO with the path in detail (the
 * host keeps its old file names, and its new name); BF_ERR_PARSE when
 * name is 128 bytes or longer (a key, never cut: the host keeps its old
 * name and files). Thread: the one that feeds h. */
enum bf_err session_rename_host(struct host_ctx *h, const char *name,
				char *detail, size_t detail_len);

/* Records the Slurm job id a cluster node runs in (run.json). */
void session_set_slurm_job(struct host_ctx *h, const char *job_id);

/* Records the verified host key's fingerprint ("SHA256:...") for run.json. */
void session_set_fingerprint(struct host_ctx *h, const char *fingerprint);

/* The longest failure reason a host's run gives (run_host's detail, NUL
 * included): the agent's last words, a preflight cause, an SSH error. The
 * model keeps a reason whole (model_types.h); this bound is a runner's
 * buffer, far above any message ctl or an agent writes (a longer one is
 * cut at its end, marked "..."). */
#define SESSION_REASON_BYTES 16384

/* What an agent's end means for its host. */
enum agent_outcome {
	AGENT_OUTCOME_OK = 0,        /* exit 0: everything passed */
	AGENT_OUTCOME_CHECKS_FAILED, /* exit 1: a result, with failures */
	AGENT_OUTCOME_FAILED         /* anything else: no complete result */
};

/*
 * The one reading of how an agent ended (docs/schema.md's exit statuses):
 * exit_status 0..255 when it exited, -1 when it did not (signal_name then
 * says by which signal, without "SIG": "KILL"; NULL when unknown). For a
 * failure, reason gets one line ("agent killed by signal KILL", "agent
 * exited with status 4: <last line of stderr_tail>", that line whole
 * however long); "" otherwise. A reason longer than reason_len is cut
 * there and ends in "..." (bf_text_fmt). stderr_tail may be NULL. Pure.
 */
enum agent_outcome session_agent_outcome(int exit_status,
					 const char *signal_name,
					 const char *stderr_tail, char *reason,
					 size_t reason_len);

/* A runner's report of its agent's end: records the exit status in the
 * model and returns BF_OK for a result (exit 0 or 1), else BF_ERR_REMOTE
 * with session_agent_outcome's reason in detail. */
enum bf_err session_agent_ended(struct host_ctx *h, int exit_status,
				const char *signal_name,
				const char *stderr_tail, char *detail,
				size_t detail_len);

#endif
