/*
 * The same-machine schedule of one `ctl run`: which host may start next.
 * Pure: no threads, no I/O, no clocks; the session (session.c) keeps one
 * struct sched, changes it and asks it under its lock, and does the
 * waiting, the identifying and the printing itself.
 *
 * A worker first identifies hosts (the runner's identify: which machine
 * it is, run/machine.h), then runs them. Host k starts when
 *  - its identify has ended (if it failed, the host starts at once, to
 *    fail with identify's reason),
 *  - every host before it on the command line has answered too, so that
 *    hosts of one machine start in the command line's order (a host
 *    whose connection hangs delays the hosts after it by at most
 *    --timeout), and
 *  - unless --concurrent-same-machine, no host of its machine is running
 *    and none before it on the command line is still to run; and a host
 *    that shares its machine with another starts only once every host
 *    has answered and the machines have been said (sched_said), so the
 *    line saying so comes before the turn of every host but the first of
 *    its machine.
 * A host that was not identified (its runner has no identify, or the run
 * was cancelled first) is a machine of its own. The groups are recomputed
 * as hosts answer (machine_groups over the identified ones), so a host
 * identified late still waits for a running host of its machine.
 */
#ifndef BF_SCHEDULE_H
#define BF_SCHEDULE_H

#include "run/machine.h"
#include "bf_testonly.h"

/* One host as the schedule sees it. */
struct sched_host {
	int answered;   /* its identify has ended, either way */
	int identified; /* identify told its machine (ids[k] holds it) */
	int failed;     /* identify failed: the host fails at its turn */
	int group;      /* the first host of its machine (machine_groups) */
	int started;    /* a worker took it */
	int ended;      /* its run has ended */
};

struct sched {
	struct sched_host *hosts; /* n, in the command line's order; owned */
	struct machine_id *ids;   /* n: the identified hosts' machines */
	int n;
	int answered;       /* hosts whose identify has ended */
	int concurrent;     /* --concurrent-same-machine */
	int identified_all; /* every host answered, machines said */
};

/* sched_next's answers when no host may start now. */
enum {
	SCHED_NONE_NOW = -1,  /* hosts are left, each must wait */
	SCHED_NONE_LEFT = -2, /* every host has been started */
};

/* An empty schedule of n >= 0 hosts, none answered, each its own group;
 * concurrent: --concurrent-same-machine. Free with sched_free. Aborts on
 * out-of-memory (bf_xcalloc). */
void sched_init(struct sched *s, int n, int concurrent);

/* Frees what sched_init allocated; s is zeroed. */
void sched_free(struct sched *s);

/* Host k's identify has ended: id is its machine (copied; NULL: not
 * identified, a machine of its own), failed non-zero when identify
 * failed (the host then starts at once, to fail). The groups are
 * computed anew. Returns non-zero when this was the last host to answer
 * (then the caller says the machines, from each host's group, and
 * calls sched_said). A host answers once; a second answer is ignored
 * (returns 0). */
int sched_answered(struct sched *s, int k, const struct machine_id *id,
		   int failed);

/* The machines have been said: hosts that share one may start. */
void sched_said(struct sched *s);

/* Whether host k (not started) may start now, by the rules above; else
 * *blocker is the host it waits for (a running host of its machine, or
 * one before it still to run), or -1 when it waits for hosts to answer
 * or for the machines to be said. */
BF_TESTONLY
int sched_may_start(const struct sched *s, int k, int *blocker);

/* The first host on the command line not yet started that may start
 * now, or SCHED_NONE_NOW / SCHED_NONE_LEFT. wait_for (n ints, or NULL)
 * gets, for each host before the one returned that is kept waiting by
 * another host of its machine once the machines are said, that host's
 * index, else -1 (for the caller's "waiting for B (one machine)"). */
int sched_next(const struct sched *s, int *wait_for);

/* A worker took host k (sched_next's answer). */
void sched_started(struct sched *s, int k);

/* Host k's run has ended: the hosts of its machine may go on. */
void sched_ended(struct sched *s, int k);

#endif
