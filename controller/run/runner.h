/*
 * The runners: how a host's agent is started. cmd_run.c picks one per host
 * and the session calls it (struct runner, session.h). Each runner depends
 * on session.h alone.
 */
#ifndef BF_RUNNER_H
#define BF_RUNNER_H

#include "run/session.h"

/* The agent built beside ctl, run as a child process (no SSH). */
extern const struct runner runner_local;

/* Connects over SSH, deploys (cached by source hash), runs, streams. */
extern const struct runner runner_ssh;

/*
 * ctl where: the agent ctl run would run on SSH host `target` (inv: its
 * inventory entry, or NULL; opts: ssh_config, timeout_s and
 * accept_new_host_keys as ctl run's), found as ctl run's deploy finds it:
 * connect, then the same preflight (which creates the workdir 0700, or
 * fixes or refuses an unsafe one) and the same cache key, so the answer
 * follows any change to either. Builds and runs nothing. On BF_OK
 * *agent is the agent binary's absolute path on the host
 * (<workdir>/<source hash>-<toolchain key>/build/bin/agent; caller frees)
 * and *built is 1 when a built agent is there (ctl run would run it as it
 * is), 0 when ctl run would upload and build it. Errors: remote_connect's
 * and remote_exec's, BF_ERR_REMOTE (preflight failed, unsafe workdir),
 * with the reason in detail; *agent is then NULL.
 */
enum bf_err runner_ssh_where(const char *target, const struct inv_host *inv,
			     const struct run_opts *opts,
			     const atomic_int *cancel, char **agent, int *built,
			     char *detail, size_t detail_len);

/* The agent binary `ctl run local` runs: $BENCHFLEET_AGENT, else "agent"
 * beside ctl (/proc/self/exe's directory), else "agent". Caller frees. */
char *runner_local_agent_path(void);

/* A node of a Slurm cluster: the first rank's thread runs the cluster's
 * job (deploy, build, srun) for all ranks, the others wait for it. */
extern const struct runner runner_slurm;

/* Groups the Slurm ranks among hosts into one job per cluster (sets each
 * one's slurm_job). Call after session_open, before session_run; free
 * with runner_slurm_release after the session has run. */
void runner_slurm_prepare(struct host_ctx *hosts, int nhosts);
void runner_slurm_release(struct host_ctx *hosts, int nhosts);

#endif
