/*
 * ctl check's reading of a run (issue 31; docs/health-checks.md): one
 * result per host and device from the verdict (verdict_run.h), each with
 * a reason line a scheduler can store as a node's drain reason, and the
 * exit status of the whole check:
 *
 *   ok      every row of the device is ok (ok? counts as ok)
 *   slow    a confident slow row (verdict.h): BF_EXIT_SLOW (7)
 *   failed  a failed row (check, verification, above the bound):
 *           BF_EXIT_CHECKS_FAILED (1)
 *   unknown no comparison could be made, the slow is uncertain ("slow?"),
 *           or the host could not be checked (it did not complete; its
 *           --budget ran out: "unknown: budget exceeded"):
 *           BF_EXIT_UNKNOWN (8)
 *
 * The check's status is the worst: failed, then slow, then unknown.
 * Pure: no I/O.
 */
#ifndef BF_CHECK_H
#define BF_CHECK_H

#include <stddef.h>

#include "archive/archive_read.h"
#include "model/verdict_run.h"

/* The longest reason line, in bytes, without its NUL: Slurm keeps a
 * node's reason whole, but sinfo -R's REASON column shows 20 characters
 * and a site's tools may cut at 100; the line is plain printable ASCII
 * (0x20..0x7e) with no newline. */
#define CHECK_REASON_MAX 100

/* The start of a host's failure reason when ctl check's --budget ran
 * out (session.c writes it). */
#define CHECK_BUDGET_EXCEEDED "budget exceeded"

enum check_kind {
	CHECK_OK = 0,
	CHECK_UNKNOWN,
	CHECK_SLOW,
	CHECK_FAILED,
};

/* "ok", "unknown", "slow", "failed"; static. */
const char *check_kind_name(enum check_kind k);

/* The exit status of a check whose worst result is k: BF_EXIT_OK,
 * _UNKNOWN, _SLOW, _CHECKS_FAILED. */
int check_status(enum check_kind k);

/* One host and device (device NULL: the whole host, which could not be
 * checked). Pointers into the run and the verdict_run given. */
struct check_result {
	int host;                 /* index into run->hosts */
	const char *device;       /* "cuda:0", "cpu"; NULL: the host */
	enum check_kind kind;
	int row;                  /* the deciding row of vr, -1 none */
	char reason[CHECK_REASON_MAX + 1];
};

/*
 * Writes the reason line of fmt into buf (CHECK_REASON_MAX + 1 bytes):
 * every byte outside printable ASCII (control characters, newlines,
 * UTF-8 of a hostile product name) becomes '?', and a line longer than
 * CHECK_REASON_MAX ends in "..." at that length. Returns strlen(buf).
 */
size_t check_reason_format(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The results of run judged in vr: for each host that did not complete,
 * one host result (unknown: "benchfleet: unknown: budget exceeded (...)"
 * when its reason starts with CHECK_BUDGET_EXCEEDED, else "benchfleet: could
 * not run: <reason>"); for each device of a completed host with a
 * verdict (verdict_device_pick), one result: "benchfleet: cuda:3 slow:
 * bf16 410 TFLOP/s = 0.52 of 7 peers" (the comparison with the lowest
 * ratio: peers, reference or history), "benchfleet: cpu unknown: <what
 * was missing>", "benchfleet: cuda:0 failed: bf16 <why>". A completed
 * host with no device measured is one unknown host result. *out
 * (bf_xmalloc, caller frees) gets *n results in host order. Returns the
 * check's exit status (BF_EXIT_OK, _SLOW, _CHECKS_FAILED, _UNKNOWN).
 */
int check_results(const struct archive_run *run, const struct verdict_run *vr,
		  struct check_result **out, int *n);

#endif
