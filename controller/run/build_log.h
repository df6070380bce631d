/*
 * build_log: what ctl reads from the remote build of the agent
 * (runner_ssh.c), line by line as the host prints it: the watcher's
 * heartbeat with the build's progress mark (make's "[ 45%]", ninja's
 * "[12/40]"), the build command's own cause line, and the log lines,
 * from which the last ones are kept and the cause of a failure is picked
 * out (pkg-config's "No package 'x' found", "CMake Error at ...", a
 * compiler's ": error: "). Pure (no I/O): unit-tested
 * (tests/unit/test_build_log.c) and fuzzed (fuzz/fuzz_progress.c).
 */
#ifndef BF_BUILD_LOG_H
#define BF_BUILD_LOG_H

#include <stddef.h>

/* The line the build's watcher prints each second while the build runs
 * (its failure to print is how the watcher learns that ctl is gone),
 * followed by the build's last progress mark in build.log: make's
 * "[ 45%]" or ninja's "[12/40]" (build_log_step). */
#define BUILD_HEARTBEAT ":bf-building"
/* The prefix of a line the build command prints when it, not the build,
 * knows what went wrong (the reason then says that line). */
#define BUILD_CAUSE ":bf-cause"

/* The last lines of a build's log and the causes seen in it; zero it
 * before the first line. Fixed size: no allocation. */
struct build_log {
	char text[2048];        /* the newest whole lines, '\n' between */
	/* The first of each kind of cause line; the reason names one. One
	 * longer than its field is cut there and ends in "...". */
	char pkg_cause[256];    /* pkg-config: "No package 'x' found" */
	char cmake_cause[384];  /* "CMake Error at ...:" and its message */
	char cc_cause[256];     /* a compiler's "...: error: ..." */
	char ctl_cause[384];    /* the build command's BUILD_CAUSE line */
	int in_cmake_error;     /* cmake_cause is still collecting */
};

/* What build_log_line found in a line. */
enum build_line {
	BUILD_LINE_TEXT,        /* a log line: kept in text (when it fits) */
	BUILD_LINE_HEARTBEAT,   /* a heartbeat without a progress mark */
	BUILD_LINE_PROGRESS,    /* a heartbeat with one: *done etc. set */
	BUILD_LINE_CAUSE,       /* a BUILD_CAUSE line: in ctl_cause */
};

/* The build's progress from a heartbeat's mark (the text after
 * BUILD_HEARTBEAT): "[ 45%]" (CMake's Makefiles: *percent 1, *done 45 of
 * *total 100) or "[12/40]" (ninja: *percent 0, 12 of 40 steps; each
 * number at most 7 digits, 0 <= done <= total, total > 0). Returns 1, or
 * 0 when mark is neither (no mark yet: CMake still configures), outputs
 * then untouched. */
int build_log_step(const char *mark, int *done, int *total, int *percent);

/*
 * Takes one line (len bytes before its NUL; no newline in it) into b.
 * A heartbeat's progress goes to *done, *total, *percent
 * (build_log_step); other lines are kept at the end of b->text (the
 * oldest whole lines dropped to make room; a line of 2047 bytes or more
 * is not kept) and scanned for causes (each cut to its buffer). Which
 * kind of line it was is returned.
 */
enum build_line build_log_line(struct build_log *b, const char *line,
			       size_t len, int *done, int *total,
			       int *percent);

/* The cause of a failed build (ctl's own, pkg-config's, CMake's, the
 * compiler's, in that order), pointing into b; NULL when none was
 * recognised. */
const char *build_log_cause(const struct build_log *b);

/* The newest whole lines of text that fit in room bytes (NUL included),
 * as a pointer into text; when even the last line does not fit, its end.
 * The end of a build log is where the error is. room 0: text. */
const char *build_log_tail(const char *text, size_t room);

#endif
