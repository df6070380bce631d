/*
 * session_internal: what session.c (the run) and session_host.c (one
 * host) share; nothing else includes this.
 */
#ifndef BF_SESSION_INTERNAL_H
#define BF_SESSION_INTERNAL_H

#include "run/session.h"

/* Malformed lines per host: shown on stdout, excerpted in the log; the
 * rest are counted (one summary line each at the host's end). */
#define MALFORMED_SHOWN 10
#define MALFORMED_LOGGED 1000

/* One progress line "[host] ..." for h on stdout, under h's print lock
 * (nothing when the live table draws: h->quiet). */
void session_host_say(struct host_ctx *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* h waits for its turn behind host `after` (its label), which reaches
 * the same machine: pending, with "waiting for AFTER (one machine)" in
 * the model and, when that changed, a progress line. */
void session_host_wait(struct host_ctx *h, const char *after);

/* One line in h's log file (the archive's HOST.log); a failed write marks
 * the host's archive as failed. */
void session_host_log(struct host_ctx *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Closes h's archive files (records and log) if open, flushing them: a
 * failed flush or close marks the host's archive as failed. Safe to call
 * again. */
void session_host_close_files(struct host_ctx *h);

#endif
