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

/* A node of a Slurm cluster: the first rank's thread runs the cluster's
 * job (deploy, build, srun) for all ranks, the others wait for it. */
extern const struct runner runner_slurm;

/* Groups the Slurm ranks among hosts into one job per cluster (sets each
 * one's slurm_job). Call after session_open, before session_run; free
 * with runner_slurm_release after the session has run. */
void runner_slurm_prepare(struct host_ctx *hosts, int nhosts);
void runner_slurm_release(struct host_ctx *hosts, int nhosts);

#endif
