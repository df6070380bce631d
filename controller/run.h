/*
 * What cmd_run.c shares with the host runners (runner_local.c,
 * runner_ssh.c): the run's options and one context per host. A runner gets
 * the agent's stdout lines to host_feed_line as they arrive and reports
 * state changes with host_progress; it never touches another host's
 * context, so hosts run on threads of their own.
 */
#ifndef BF_RUN_H
#define BF_RUN_H

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>

#include "bf_error.h"
#include "inventory.h"
#include "model.h"

struct run_opts {
	const char *sizes;   /* NULL: the host's default, then the agent's */
	const char *dtypes;
	const char *device;
	int iters, warmup;   /* iters 0, warmup -1: not given */
	int cpu_iters;       /* 0: not given (the agent's max(3, iters/4)) */
	int cpu_warmup;      /* -1: not given (the agent's default) */
	int jobs;            /* hosts at once (default 16) */
	int timeout_s;       /* connect and silence bound (default 30) */
	int no_tui;
	int accept_new_host_keys;
	const char *results_dir;
	const char *tag;
	const char *ssh_config;  /* -F: NULL = ~/.ssh/config */
	const char *hosts_dir;   /* inventory directory */
};

struct host_ctx {
	int index;
	const char *name;          /* as given on the command line */
	const char *target;        /* SSH target (alias, user@host:port) */
	int is_local;
	const struct inv_host *inv; /* NULL when not in the inventory */
	const struct run_opts *opts;
	struct model *model;
	FILE *ndjson;              /* every valid record, as received */
	FILE *log;                 /* stderr, build output, malformed lines */
	char basename[96];         /* archive file stem */
	atomic_int *cancel;        /* &ctl_interrupted (atomic) */
	long lineno;
	pthread_mutex_t *print_lock; /* serialises progress lines */
	int quiet;                 /* the live table draws instead */
	const char *run_id;        /* this run's archive id */
};

/* Validates one stdout line of the agent and files it: archived and fed
 * to the model when valid, counted and logged when not. Never stops the
 * run (always BF_OK). Thread: the host's. */
enum bf_err host_feed_line(void *host_ctx, const char *line, size_t len,
			   int truncated);

/* Sets the host's state and prints one progress line if it changed. */
void host_progress(struct host_ctx *h, enum host_state st,
		   const char *reason);

/* The agent's arguments for this host (after the program name), from the
 * command line, then the host's inventory defaults; NULL-terminated,
 * caller frees with bf_xfree_strv. Always includes --exit-on-hangup. */
char **agent_args(const struct host_ctx *h);

/* The last non-empty line of text into out (len bytes), "" if none. */
void last_line(const char *text, char *out, size_t len);

/* Runs the agent built beside ctl as a child process (no SSH). */
enum bf_err runner_local(struct host_ctx *h, char *detail, size_t detail_len);

/* Connects over SSH, deploys (cached by source hash), runs, streams. */
enum bf_err runner_ssh(struct host_ctx *h, char *detail, size_t detail_len);

#endif
