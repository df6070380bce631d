/*
 * The notes under a results table (see ui_notes.h): the reasons a row is
 * unreliable, grouped by kind with how many rows and the range of their
 * figures ("?1 spread above 20% of the median: 8 rows, 29-276%"), and the
 * reasons rows were skipped or failed, each once, numbered in the order
 * they first appear ("[1] no NVIDIA driver installed ..."). Rows carry
 * the marks ("51.2?1", "skipped [1]"), so a table stays narrow and every
 * reason stays readable in full. Pure: no curses, no I/O.
 */
#include "view/ui_notes.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "view/texttable.h"
#include "xmalloc.h"

/* The kind of one unreliable reason, a new string (caller frees): the
 * agent's "spread 83% of the median (above 20%)" is key "spread above 20%
 * of the median" with *value 83; any other reason is its own key, whole,
 * *value NaN. */
static char *ui_unreliable_key(const char *reason, double *value)
{
	double v, limit;
	int end = -1;

	/* The agent's wording (agent/workloads/gemm.c, gemm_reliability):
	 * "spread 83% of the median (above 20%)". */
	if (sscanf(reason, "spread %lf%% of the median (above %lf%%)%n", &v,
		   &limit, &end) == 2 && end >= 0 && reason[end] == '\0' &&
	    isfinite(v) && isfinite(limit)) {
		*value = v;
		return bf_xasprintf("spread above %g%% of the median", limit);
	}
	*value = NAN;
	return bf_xstrdup(reason);
}

/* The group of key in gs, added when new; takes key (freed when a group
 * has it already). */
static int group_of(struct ui_reason_groups *gs, char *key)
{
	for (int k = 0; k < gs->n; k++)
		if (strcmp(gs->g[k].key, key) == 0) {
			free(key);
			return k;
		}
	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? 2 * gs->cap : 8;
		gs->g = bf_xrealloc(gs->g, (size_t)gs->cap * sizeof(*gs->g));
	}
	memset(&gs->g[gs->n], 0, sizeof(gs->g[gs->n]));
	gs->g[gs->n].key = key;
	gs->g[gs->n].min = gs->g[gs->n].max = NAN;
	return gs->n++;
}

void ui_reasons_add(struct ui_reason_groups *gs, const char *joined, char *marks,
		   size_t marks_len)
{
	char *copy = bf_xstrdup(joined ? joined : ""), *save = NULL;
	int first = 1;

	if (marks_len)
		marks[0] = '\0';
	for (char *tok = strtok_r(copy, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save)) {
		struct ui_reason_group *g;
		double v;
		int k;

		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		k = group_of(gs, ui_unreliable_key(tok, &v));
		g = &gs->g[k];
		g->rows++;
		if (!isnan(v)) {
			g->min = isnan(g->min) || v < g->min ? v : g->min;
			g->max = isnan(g->max) || v > g->max ? v : g->max;
		}
		/* A mark list too long for marks ends in "..." (a cell). */
		if (marks_len && bf_text_appendf(marks, marks_len, "%s%d",
						 first ? "" : ",", k + 1))
			first = 0;
		else
			marks_len = 0;
	}
	free(copy);
}

char *ui_reason_group_text(const struct ui_reason_group *g, const char *unit)
{
	char range[64] = "";

	if (!isnan(g->min) && !isnan(g->max)) {
		/* A range of 300-digit percentages would be cut, marked. */
		if (g->min == g->max || g->rows == 1)
			bf_text_fmt(range, sizeof(range), ", %.0f%%", g->max);
		else
			bf_text_fmt(range, sizeof(range), ", %.0f-%.0f%%",
				    g->min, g->max);
	}
	return bf_xasprintf("%s: %d %s%s%s", g->key, g->rows, unit,
			    g->rows == 1 ? "" : "s", range);
}

void ui_reasons_free(struct ui_reason_groups *gs)
{
	for (int k = 0; k < gs->n; k++)
		free(gs->g[k].key);
	free(gs->g);
	memset(gs, 0, sizeof(*gs));
}

int ui_notes_add(struct ui_notes *ns, const char *reason)
{
	if (!reason || !reason[0])
		return 0;
	for (int k = 0; k < ns->n; k++)
		if (strcmp(ns->text[k], reason) == 0)
			return k + 1;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 8;
		ns->text = bf_xrealloc(ns->text, (size_t)ns->cap * sizeof(*ns->text));
	}
	ns->text[ns->n] = bf_xstrdup(reason);
	return ++ns->n;
}

void ui_notes_free(struct ui_notes *ns)
{
	for (int k = 0; k < ns->n; k++)
		free(ns->text[k]);
	free(ns->text);
	memset(ns, 0, sizeof(*ns));
}

/* Whether a GEMM row is unreliable with a figure to show. */
static int row_unreliable(const struct model_row *r)
{
	return r->reliable == 0 && !isnan(r->gflops) && r->unreliable &&
	       r->unreliable[0];
}

/* Whether a row, bandwidth or batching entry gets a reason note. */
static int has_note(enum bf_status st, const char *reason)
{
	return (st == BF_STATUS_FAIL || st == BF_STATUS_SKIPPED) && reason &&
	       reason[0];
}

/* Whether entry host h is pass's: hosts in the run's order (the command
 * line's), then, in pass nhosts, any of no known host. */
static int in_pass(const struct model_snapshot *snap, int h, int pass)
{
	if (pass < snap->nhosts)
		return h == pass;
	return h < 0 || h >= snap->nhosts;
}

/* What a note needs of a bandwidth (kind 0) or batching (kind 1) entry. */
struct entry {
	int host;
	enum bf_status status;
	const char *reason;
};

static struct entry entry_of(const struct model_snapshot *snap, int kind, int i)
{
	struct entry e;

	if (kind == 0) {
		e.host = snap->bandwidth[i].host;
		e.status = snap->bandwidth[i].status;
		e.reason = snap->bandwidth[i].reason;
	} else {
		e.host = snap->batching[i].host;
		e.status = snap->batching[i].status;
		e.reason = snap->batching[i].reason;
	}
	return e;
}

/*
 * Walks snap in the tables' order: host by host in the run's order, each
 * host's GEMM rows as they arrived, then the bandwidth, then the
 * batching entries the same way; adds every unreliable row to gs and
 * every reason to ns. Stops at GEMM row stop_row (-1: never), leaving
 * that row's marks in marks; or once reason is numbered (NULL: never),
 * returning its number. Returns 0 otherwise.
 */
static int walk(const struct model_snapshot *snap, struct ui_reason_groups *gs,
		struct ui_notes *ns, int stop_row, char *marks,
		size_t marks_len, const char *reason)
{
	char m[64];

	for (int pass = 0; pass <= snap->nhosts; pass++)
		for (int i = 0; i < snap->nrows; i++) {
			const struct model_row *r = &snap->rows[i];
			int k;

			if (!in_pass(snap, r->host, pass))
				continue;
			if (row_unreliable(r))
				ui_reasons_add(gs, r->unreliable, m, sizeof(m));
			else
				m[0] = '\0';
			if (i == stop_row) {
				/* A cell's marks: a cut ends in "..." */
				bf_text_fmt(marks, marks_len, "%s", m);
				return 0;
			}
			if (has_note(r->status, r->reason)) {
				k = ui_notes_add(ns, r->reason);
				if (reason && strcmp(reason, r->reason) == 0)
					return k;
			}
		}
	for (int kind = 0; kind < 2; kind++)
		for (int pass = 0; pass <= snap->nhosts; pass++) {
			int count = kind ? snap->nbatching : snap->nbandwidth;

			for (int i = 0; i < count; i++) {
				struct entry e = entry_of(snap, kind, i);
				int k;

				if (!in_pass(snap, e.host, pass) ||
				    !has_note(e.status, e.reason))
					continue;
				k = ui_notes_add(ns, e.reason);
				if (reason && strcmp(reason, e.reason) == 0)
					return k;
			}
		}
	return 0;
}

/* Every group and note of snap, in the tables' order (ui_notes.h's top).
 * Caller frees both with ui_reasons_free and ui_notes_free. */
static void ui_snapshot_notes(const struct model_snapshot *snap,
			      struct ui_reason_groups *gs,
			      struct ui_notes *ns)
{
	memset(gs, 0, sizeof(*gs));
	memset(ns, 0, sizeof(*ns));
	walk(snap, gs, ns, -1, NULL, 0, NULL);
}

void ui_row_marks(const struct model_snapshot *snap, const struct model_row *r,
		  char *buf, size_t len)
{
	struct ui_reason_groups gs = { 0 };
	struct ui_notes ns = { 0 };
	ptrdiff_t i = r - snap->rows;

	if (len)
		buf[0] = '\0';
	if (snap->rows && i >= 0 && i < snap->nrows && row_unreliable(r))
		walk(snap, &gs, &ns, (int)i, buf, len, NULL);
	ui_reasons_free(&gs);
	ui_notes_free(&ns);
}

int ui_reason_note(const struct model_snapshot *snap, const char *reason)
{
	struct ui_reason_groups gs = { 0 };
	struct ui_notes ns = { 0 };
	int k = reason && reason[0] ? walk(snap, &gs, &ns, -1, NULL, 0, reason) :
				      0;

	ui_reasons_free(&gs);
	ui_notes_free(&ns);
	return k;
}

void ui_status_text(const struct model_snapshot *snap, enum bf_status st,
		    const char *reason, char *buf, size_t len)
{
	int k = ui_reason_note(snap, reason);
	const char *word = st == BF_STATUS_FAIL ? "FAIL" :
			   st == BF_STATUS_SKIPPED ? "skipped" : "pass";

	/* A cell: a cut ends in "..." */
	if (k > 0 && st != BF_STATUS_PASS)
		bf_text_fmt(buf, len, "%s [%d]", word, k);
	else
		bf_text_fmt(buf, len, "%s", word);
}

/* Appends one line to *out (growing it). */
static void add_line(struct ui_text_line **out, int *n, int *cap,
		     enum ui_tone tone, const char *text)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*out = bf_xrealloc(*out, (size_t)*cap * sizeof(**out));
	}
	memset(&(*out)[*n], 0, sizeof(**out));
	(*out)[*n].tone = tone;
	/* fits: text is one of add_wrapped's lines, a buffer of this size */
	snprintf((*out)[*n].text, sizeof((*out)[*n].text), "%s", text);
	(*n)++;
}

/* Adds "LABEL TEXT" cut into lines of at most width cells (0: one line),
 * continuation lines indented under TEXT; cuts at spaces where it can.
 * A text longer than a line's bytes (ui_text_line.text) is wrapped the
 * same way whatever the width, so no note is ever cut (issue 28). label
 * is ASCII ("?1", "[12]"), so its bytes are its cells. */
static void add_wrapped(struct ui_text_line **out, int *n, int *cap,
			enum ui_tone tone, const char *label, const char *text,
			int width)
{
	char line[sizeof((*out)->text)];
	int indent = texttable_text_width(label) + 1, room;
	size_t bytes = sizeof(line) - 1 - (size_t)indent;
	const char *p = text;

	room = width > indent + 8 ? width - indent : INT_MAX;
	if ((room == INT_MAX || texttable_text_width(text) <= room) &&
	    strlen(text) <= bytes) {
		/* fits: label and text within the line (checked above) */
		snprintf(line, sizeof(line), "%s %s", label, text);
		add_line(out, n, cap, tone, line);
		return;
	}
	for (int first = 1; *p; first = 0) {
		size_t take = 0, cut = 0;
		char piece[sizeof(line)];

		/* The longest prefix of p within room cells and the line's
		 * bytes, cut after the last space in it when there is one. */
		while (p[take]) {
			size_t next = take + 1;

			while (p[next] && ((unsigned char)p[next] & 0xc0) == 0x80)
				next++;
			if (next > bytes)
				break;
			memcpy(piece, p, next);
			piece[next] = '\0';
			if (room != INT_MAX && texttable_text_width(piece) > room)
				break;
			take = next;
			if (p[take] == ' ')
				cut = take;
		}
		if (!p[take] || cut == 0)
			cut = take ? take : 1;
		/* fits: indent - 1 spaces or the label, a space and at most
		 * bytes (the line's bytes less indent and the NUL) of p */
		snprintf(line, sizeof(line), "%-*s %.*s", first ? 0 : indent - 1,
			 first ? label : "", (int)cut, p);
		add_line(out, n, cap, tone, line);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

int ui_note_lines(const struct model_snapshot *snap, int width,
		  struct ui_text_line **out)
{
	struct ui_reason_groups gs;
	struct ui_notes ns;
	char label[16];
	int n = 0, cap = 0;

	*out = NULL;
	ui_snapshot_notes(snap, &gs, &ns);
	for (int k = 0; k < gs.n; k++) {
		char *text = ui_reason_group_text(&gs.g[k], "row");

		/* fits: the mark and an int */
		snprintf(label, sizeof(label), "%s%d", UI_UNRELIABLE_MARK, k + 1);
		add_wrapped(out, &n, &cap, UI_TONE_DIM, label, text, width);
		free(text);
	}
	for (int k = 0; k < ns.n; k++) {
		snprintf(label, sizeof(label), "[%d]", k + 1);
		add_wrapped(out, &n, &cap, UI_TONE_NORMAL, label, ns.text[k],
			    width);
	}
	ui_reasons_free(&gs);
	ui_notes_free(&ns);
	return n;
}
