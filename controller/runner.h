/*
 * The runners: how a host's agent is started. cmd_run.c picks one per host
 * and the session calls it (struct runner, session.h). Each runner depends
 * on session.h alone.
 */
#ifndef BF_RUNNER_H
#define BF_RUNNER_H

#include "session.h"

/* The agent built beside ctl, run as a child process (no SSH). */
extern const struct runner runner_local;

/* Connects over SSH, deploys (cached by source hash), runs, streams. */
extern const struct runner runner_ssh;

#endif
