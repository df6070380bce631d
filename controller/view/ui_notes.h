/*
 * The notes of a results table, shared by the live table, the plain table
 * (ctl run, ctl show) and ctl compare, so that a reason reads the same in
 * each:
 *
 *   ?1 spread above 20% of the median: 8 rows, 29-276%
 *   ?2 one sample: no spread to judge it by: 2 rows
 *   [1] no NVIDIA driver installed (cudaErrorInsufficientDriver)
 *
 * "?K" groups the reasons rows are unreliable by kind (the agent's
 * "spread N% of the median (above M%)" is one kind whatever N, with the
 * range of N; any other reason is its own kind), with how many rows; a
 * row's GFLOP/s carries its groups' numbers ("51.2?1"). "[K]" is a reason
 * a row, a bandwidth or a batching entry was skipped or failed, each
 * distinct text once; the entry's state says which ("skipped [1]").
 * Numbers follow the plain table's order (host by host in the command
 * line's order, each host's GEMM rows as they arrived; then bandwidth,
 * then batching, the same way), whatever the live table's sort. Pure
 * functions over a snapshot; they allocate only what they return.
 */
#ifndef BF_UI_NOTES_H
#define BF_UI_NOTES_H

#include <stddef.h>

#include "model/model.h"
#include "bf_testonly.h"
#include "view/ui_types.h"

/* One kind of unreliable reason across rows. */
struct ui_reason_group {
	char *key;       /* the kind, whole (owned; ui_reasons_free frees) */
	int rows;        /* rows that gave it */
	double min, max; /* the range of their values (percent); NaN none */
};

/* Kinds in the order first seen; zero it before the first add. */
struct ui_reason_groups {
	struct ui_reason_group *g;
	int n, cap;
};

/* Adds a row's "; "-joined unreliable reasons to gs; marks (may be
 * NULL with marks_len 0) gets the row's groups' numbers, 1-based and
 * comma-separated ("1", "1,3"; a list longer than marks ends in "...").
 * Each reason is kept whole as its group's key, however long. */
void ui_reasons_add(struct ui_reason_groups *gs, const char *joined, char *marks,
		   size_t marks_len);

/* One group as its note says it, without the "?K", counting in unit
 * ("row", "cell"; plural with an s): "spread above 20% of the median: 8
 * rows, 29-276%", "one sample: ...: 1 row". Whole, never cut (issue 28):
 * a new string, caller frees. */
char *ui_reason_group_text(const struct ui_reason_group *g, const char *unit);

void ui_reasons_free(struct ui_reason_groups *gs);

/* Distinct skip and failure reasons, numbered from 1 in the order first
 * seen; zero it before the first add. Each text is the reason whole (a
 * copy, owned; ui_notes_free frees them), never cut (issue 28). */
struct ui_notes {
	char **text;
	int n, cap;
};

/* reason's number in ns (exact match), added when new; 0 for NULL or "". */
int ui_notes_add(struct ui_notes *ns, const char *reason);

void ui_notes_free(struct ui_notes *ns);

/* Row r's (an element of snap->rows) unreliable group numbers into buf
 * ("1", "1,3"); "" when it is reliable or has no figure. */
void ui_row_marks(const struct model_snapshot *snap, const struct model_row *r,
		  char *buf, size_t len);

/* The number of reason's note in snap; 0 when it has none (NULL, "", or
 * no entry that failed or was skipped gives it). */
BF_TESTONLY
int ui_reason_note(const struct model_snapshot *snap, const char *reason);

/* An entry's status as the tables write it: "pass", "FAIL [2]",
 * "skipped [1]" (the number of its reason's note; none when it gave no
 * reason). */
void ui_status_text(const struct model_snapshot *snap, enum bf_status st,
		    const char *reason, char *buf, size_t len);

/* The notes as text lines: every "?K" group, then every "[K]" reason,
 * each cut into lines of at most width display cells at spaces (0: one
 * line each), continuation lines indented. *out is malloc'd (caller
 * frees; NULL when there are none); returns the number of lines. */
int ui_note_lines(const struct model_snapshot *snap, int width,
		  struct ui_text_line **out);

#endif
