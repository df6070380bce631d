/*
 * build_log: the remote build's output as ctl reads it (build_log.h).
 */
#include "run/build_log.h"

#include <stdio.h>
#include <string.h>

#include "bf_text.h"

/* Appends a CMake message line to cause, one space between words; a
 * cause that outgrows its field ends in "..." (and takes no more). */
static void cause_append(char *cause, size_t len, const char *line)
{
	size_t have = strlen(cause);

	line += strspn(line, " \t");
	if (*line && have + 1 < len)
		(void)bf_text_appendf(cause, len, "%s%s", have ? " " : "",
				      line);
}

/* Picks out the cause of a failed build. CMake prints its error as
 * "CMake Error at FILE:LINE (command):" followed by indented message
 * lines (blank lines between them included), then boilerplate ("See also
 * .../CMakeOutput.log", a file removed with the staging directory). A
 * missing package shows first as pkg-config's "No package 'x' found",
 * which says more than the CMake error after it ("A required package was
 * not found"). */
static void cause_scan(struct build_log *b, const char *line)
{
	if (b->in_cmake_error) {
		if (*line == ' ' || *line == '\t' || *line == '\0') {
			cause_append(b->cmake_cause, sizeof(b->cmake_cause),
				     line);
			return;
		}
		b->in_cmake_error = 0;
	}
	if (!b->cmake_cause[0] && strncmp(line, "CMake Error", 11) == 0) {
		(void)bf_text_fmt(b->cmake_cause, sizeof(b->cmake_cause), "%s", line);
		b->in_cmake_error = 1;
	} else if (!b->pkg_cause[0] &&
		   (strstr(line, "No package '") ||
		    strstr(line, "was not found in the pkg-config search path"))) {
		line += strspn(line, "- \t");
		(void)bf_text_fmt(b->pkg_cause, sizeof(b->pkg_cause), "%s", line);
	} else if (!b->cc_cause[0] && (strstr(line, ": error: ") ||
				       strstr(line, ": fatal error: "))) {
		(void)bf_text_fmt(b->cc_cause, sizeof(b->cc_cause), "%s", line);
	}
}

int build_log_step(const char *mark, int *done, int *total, int *percent)
{
	int a, b;
	char end;

	mark += strspn(mark, " ");
	if (sscanf(mark, "[%3d%%%c", &a, &end) == 2 && end == ']' && a >= 0 &&
	    a <= 100) {
		*done = a;
		*total = 100;
		*percent = 1;
		return 1;
	}
	if (sscanf(mark, "[%7d/%7d%c", &a, &b, &end) == 3 && end == ']' &&
	    a >= 0 && b > 0 && a <= b) {
		*done = a;
		*total = b;
		*percent = 0;
		return 1;
	}
	return 0;
}

enum build_line build_log_line(struct build_log *b, const char *line,
			       size_t len, int *done, int *total,
			       int *percent)
{
	size_t have = strlen(b->text), need = len + 1;

	if (strncmp(line, BUILD_HEARTBEAT, strlen(BUILD_HEARTBEAT)) == 0 &&
	    (line[strlen(BUILD_HEARTBEAT)] == '\0' ||
	     line[strlen(BUILD_HEARTBEAT)] == ' '))
		return build_log_step(line + strlen(BUILD_HEARTBEAT), done,
				      total, percent) ?
		       BUILD_LINE_PROGRESS : BUILD_LINE_HEARTBEAT;
	if (strncmp(line, BUILD_CAUSE " ", sizeof(BUILD_CAUSE)) == 0) {
		(void)bf_text_fmt(b->ctl_cause, sizeof(b->ctl_cause), "%s",
				  line + sizeof(BUILD_CAUSE));
		return BUILD_LINE_CAUSE;
	}
	cause_scan(b, line);
	/* CMake's pointer to its own logs names files in the staging
	 * directory, which is gone by the time anyone reads this. */
	if (strncmp(line, "See also \"", 10) == 0)
		return BUILD_LINE_TEXT;
	if (need >= sizeof(b->text))
		return BUILD_LINE_TEXT;
	if (have + need >= sizeof(b->text)) {
		/* Drop the oldest whole lines: a line cut at its front would
		 * read as a different line. */
		size_t drop = have + need + 1 - sizeof(b->text);
		const char *keep = b->text + drop;

		if (b->text[drop - 1] != '\n') {
			keep = strchr(keep, '\n');
			keep = keep ? keep + 1 : b->text + have;
		}
		memmove(b->text, keep, strlen(keep) + 1);
		have = strlen(b->text);
	}
	/* fits: need < sizeof(b->text), and the oldest lines made room
	 * for "\n", the line and its NUL just above. */
	snprintf(b->text + have, sizeof(b->text) - have, "%s%s",
		 have ? "\n" : "", line);
	return BUILD_LINE_TEXT;
}

const char *build_log_cause(const struct build_log *b)
{
	if (b->ctl_cause[0])
		return b->ctl_cause;
	if (b->pkg_cause[0])
		return b->pkg_cause;
	if (b->cmake_cause[0])
		return b->cmake_cause;
	if (b->cc_cause[0])
		return b->cc_cause;
	return NULL;
}

const char *build_log_tail(const char *text, size_t room)
{
	size_t len = strlen(text);
	const char *p, *nl;

	if (room == 0 || len < room)
		return text;
	p = text + len - (room - 1);
	if (p[-1] == '\n')
		return p;
	nl = strchr(p, '\n');
	return nl ? nl + 1 : p;
}
