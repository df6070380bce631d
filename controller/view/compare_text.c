/*
 * The comparison as text for a person: its numbers' formats and the plain
 * table of ctl compare (legend, rows, reasons, bandwidth, provenance). See
 * compare_view.h.
 */
#include "view/compare_view.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "view/table.h"
#include "view/texttable.h"
#include "view/ui_layout.h"
#include "view/ui_notes.h"
#include "xmalloc.h"

/* --- formatting ------------------------------------------------------ */

void compare_fmt_gflops(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) >= 100)
		bf_text_fmt(buf, len, "%.0f", v);
	else if (fabs(v) >= 10)
		bf_text_fmt(buf, len, "%.1f", v);
	else if (fabs(v) >= 1)
		bf_text_fmt(buf, len, "%.2f", v);
	else
		bf_text_fmt(buf, len, "%.3g", v);
}

void compare_fmt_cell(char *buf, size_t len, const struct compare_cell *c)
{
	compare_fmt_cell_marked(buf, len, c, "");
}

void compare_fmt_cell_marked(char *buf, size_t len,
			     const struct compare_cell *c, const char *marks)
{
	char num[48];

	if (!c->present) {
		snprintf(buf, len, "n/a");
		return;
	}
	/* A cell: a cut ends in "..." */
	if (c->status != BF_STATUS_PASS) {
		bf_text_fmt(buf, len, "%s",
			 c->status == BF_STATUS_SKIPPED ? "skipped" :
			 strncmp(c->reason, "invalid:", 8) == 0 ? "invalid" : "FAIL");
		return;
	}
	compare_fmt_gflops(num, sizeof(num), c->median_gflops);
	if (c->reliable == 0 && !isnan(c->median_gflops))
		bf_text_appendf(num, sizeof(num), "%s%s", UI_UNRELIABLE_MARK,
				marks);
	if (c->nsamples == 1)
		bf_text_fmt(buf, len, "%s (1 sample)", num);
	else if (isnan(c->spread_pct))
		bf_text_fmt(buf, len, "%s", num);
	else if (c->spread_pct >= 1)
		bf_text_fmt(buf, len, "%s (%.0f%%)", num, c->spread_pct);
	else
		bf_text_fmt(buf, len, "%s (%.1f%%)", num, c->spread_pct);
}

void compare_fmt_peak(char *buf, size_t len, const struct compare_cell *c)
{
	double pct = 100.0 * c->fraction_of_peak;

	if (!c->present || c->status != BF_STATUS_PASS || isnan(pct))
		snprintf(buf, len, "n/a");
	else /* ">": of a derived peak, an upper estimate: at least this */
		bf_text_fmt(buf, len, "%s%.*f%%", c->peak_derived ? ">" : "",
			 pct < 9.95 ? 1 : 0, pct);
}

void compare_fmt_ref(char *buf, size_t len, const struct compare_cell *c)
{
	double pct = 100.0 * c->fraction_of_reference;

	if (!c->present || c->status != BF_STATUS_PASS || isnan(pct))
		snprintf(buf, len, "n/a");
	else
		bf_text_fmt(buf, len, "%.0f%%%s", pct,
			 c->below_reference == 1 ? "!" : "");
}

void compare_fmt_roof(char *buf, size_t len, const struct compare_cell *c)
{
	double pct = 100.0 * c->fraction_of_roofline;
	const char *b = strcmp(c->bound, "memory") == 0 ? " M" :
			strcmp(c->bound, "compute") == 0 ? " C" : "";

	if (!c->present || c->status != BF_STATUS_PASS || isnan(pct))
		snprintf(buf, len, "n/a");
	else
		bf_text_fmt(buf, len, "%.*f%%%s", pct < 9.95 ? 1 : 0, pct, b);
}

void compare_fmt_verdict(char *buf, size_t len, const struct compare_delta *d)
{
	if (!d->valid)
		snprintf(buf, len, "n/a");
	else if (!d->significant)
		snprintf(buf, len, "~");
	else if (d->ratio >= 0.5 && d->ratio < 2)
		bf_text_fmt(buf, len, "%+.1f%%", (d->ratio - 1) * 100);
	else
		bf_text_fmt(buf, len, "%.2fx", d->ratio);
}

void compare_fmt_delta(char *buf, size_t len, const struct compare_delta *d)
{
	char verdict[32];

	compare_fmt_verdict(verdict, sizeof(verdict), d);
	/* A cell: a cut ends in "..." */
	if (!d->valid)
		bf_text_fmt(buf, len, "%s", verdict);
	else if (d->too_few)
		bf_text_fmt(buf, len, "%s (n=%zu+%zu: too few samples)", verdict,
			    d->n1, d->n2);
	else
		bf_text_fmt(buf, len, "%s (p=%.3f n=%zu+%zu)", verdict, d->p,
			    d->n1, d->n2);
}

/* A host's reason, unless it only names its state ("interrupted"). */
static const char *host_reason(const struct archive_host *h)
{
	return h->reason && strcmp(h->reason, h->status) ? h->reason : NULL;
}

/* The host names of a column: "spark" or "local,spark", every one
 * however many (issue 28: they were cut at 511 bytes). A new string,
 * caller frees. */
static char *column_hosts(const struct compare_column *col)
{
	char *buf;

	if (col->host)
		return bf_xstrdup(col->host->name);
	buf = bf_xstrdup("");
	for (int i = 0; i < col->run->nhosts; i++) {
		char *more = bf_xasprintf("%s%s%s", buf, i ? "," : "",
					  col->run->hosts[i].name);

		free(buf);
		buf = more;
	}
	return buf;
}

/* Adds a cell made terminal-safe (the archive is outside input). */
static void safe_cell(struct texttable *tt, const char *text)
{
	char *safe = bf_text_sanitize_dup(text);

	texttable_cell(tt, safe);
	free(safe);
}

static void print_legend(FILE *out, const struct compare_table *t)
{
	struct texttable *tt = texttable_new(2);

	for (int k = 0; k < 5; k++)
		texttable_add_column(tt, "", TEXTTABLE_LEFT);
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];
		const struct archive_run *run = col->run;
		char *hosts, *status;
		int other = col->host &&
			    strcmp(col->host->status, BF_RUN_HOST_DONE) != 0 &&
			    strcmp(col->host->status, "n/a") != 0;
		const char *why = other ? host_reason(col->host) : NULL;

		hosts = column_hosts(col);
		/* Whole: a reason is never cut. */
		status = bf_xasprintf("%s%s%s%s%s%s%s%s%s%s%s", run->status,
				      run->reason ? ": " : "",
				      run->reason ? run->reason : "",
				      other ? " (" : "",
				      other ? col->host->name : "",
				      other ? " " : "",
				      other ? col->host->status : "",
				      why ? ": " : "", why ? why : "",
				      other ? ")" : "",
				      run->tag ? "  tag: " : "");
		if (run->tag) {
			char *more = bf_xasprintf("%s%s", status, run->tag);

			free(status);
			status = more;
		}
		texttable_add_row(tt);
		texttable_cell(tt, col->label);
		safe_cell(tt, run->run_json ? run->run_id : run->dir);
		safe_cell(tt, hosts);
		free(hosts);
		safe_cell(tt, run->started_at);
		safe_cell(tt, status);
		free(status);
	}
	texttable_print(tt, out);
	texttable_free(tt);
}

enum { CELL_LEN = 160 };

/* A bandwidth median's change from column A: "+2.6%", "n/a". */
static void fmt_bw_change(char *buf, size_t len, double a, double b)
{
	if (!(a > 0) || isnan(b))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.1f%%", 100.0 * (b - a) / a);
}

/* The bandwidth medians side by side, with each column's change from A
 * (medians only: the bandwidth records' samples are not tested). */
static void print_bandwidth(FILE *out, const struct compare_table *t)
{
	struct texttable *tt;
	char cell[CELL_LEN];

	if (t->nbw == 0)
		return;
	tt = texttable_new(2);
	if (t->by_host)
		texttable_add_column(tt, "host", TEXTTABLE_LEFT);
	texttable_add_column(tt, "device", TEXTTABLE_LEFT);
	texttable_add_column(tt, "kind", TEXTTABLE_LEFT);
	for (int c = 0; c < t->ncols; c++) {
		/* fits: a label is at most 3 bytes (compare_column.label[4]) */
		snprintf(cell, sizeof(cell), "%s GB/s", t->cols[c].label);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		if (c > 0) {
			/* fits: as above */
			snprintf(cell, sizeof(cell), "%s vs A", t->cols[c].label);
			texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		}
	}
	for (int i = 0; i < t->nbw; i++) {
		const struct compare_bw *b = &t->bw[i];

		texttable_add_row(tt);
		if (t->by_host)
			safe_cell(tt, b->host);
		safe_cell(tt, b->device);
		safe_cell(tt, b->kind);
		for (int c = 0; c < t->ncols; c++) {
			table_fmt(cell, sizeof(cell), b->gbps[c], 1);
			texttable_cell(tt, cell);
			if (c > 0) {
				fmt_bw_change(cell, sizeof(cell), b->gbps[0], b->gbps[c]);
				texttable_cell(tt, cell);
			}
		}
	}
	fprintf(out, "\nbandwidth (median GB/s; vs A: change of the median, not tested):\n");
	texttable_print(tt, out);
	texttable_free(tt);
}

/* What vs ref means, and each cell below its reference with what it was
 * measured against. */
static void print_references(FILE *out, const struct compare_table *t,
			     int nbelow)
{
	char safe[CELL_LEN], *ref;

	fprintf(out, "vs ref: the median GFLOP/s as a share of a published "
		     "measurement of\nthe same product, dtype and n; !: below "
		     "reference (under %.0f%%).\n",
		100 * BF_REFERENCE_HEALTHY_FRACTION);
	if (nbelow == 0)
		return;
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cl = &r->cells[c];

			if (!cl->present || cl->status != BF_STATUS_PASS ||
			    cl->below_reference != 1)
				continue;
			bf_text_sanitize(safe, sizeof(safe), r->host);
			fprintf(out, "below reference: %s %s%s%s %s %d: %.0f%% "
				     "of %.1f GFLOP/s, ",
				t->cols[c].label, safe, safe[0] ? " " : "",
				r->device, bf_dtype_name(r->dtype), r->n,
				100 * cl->fraction_of_reference,
				cl->reference_gflops);
			/* The source whole (it was cut at 199 bytes) */
			ref = bf_text_sanitize_dup(cl->reference);
			fprintf(out, "%s\n", ref);
			free(ref);
		}
	}
}

void compare_print_plain(FILE *out, const struct compare_table *t)
{
	struct texttable *tt = texttable_new(2);
	struct ui_reason_groups unreliable = { 0 };
	struct ui_notes invalid = { 0 };
	char cell[CELL_LEN], marks[64];
	int any_too_few = 0, with_ref = 0, nbelow = 0;

	/* vs ref only where some record has a published reference */
	for (int i = 0; i < t->nrows && !with_ref; i++)
		for (int c = 0; c < t->ncols; c++)
			with_ref |= t->rows[i].cells[c].reference_gflops > 0;
	if (t->by_host)
		texttable_add_column(tt, "host", TEXTTABLE_LEFT);
	texttable_add_column(tt, "device", TEXTTABLE_LEFT);
	texttable_add_column(tt, "dtype", TEXTTABLE_LEFT);
	texttable_add_column(tt, "n", TEXTTABLE_RIGHT);
	for (int c = 0; c < t->ncols; c++) {
		const char *l = t->cols[c].label;

		/* fits: l is at most 3 bytes (compare_column.label[4]) and
		 * each title's words under 20, in CELL_LEN */
		snprintf(cell, sizeof(cell), "%s GFLOP/s (spread)", l);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		/* fits: as above */
		snprintf(cell, sizeof(cell), "%s %%peak", l);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		if (with_ref) {
			/* fits: as above */
			snprintf(cell, sizeof(cell), "%s vs ref", l);
			texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		}
		/* fits: as above */
		snprintf(cell, sizeof(cell), "%s %%roof", l);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		/* fits: as above */
		snprintf(cell, sizeof(cell), "%s ms", l);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		if (c > 0) {
			/* fits: as above */
			snprintf(cell, sizeof(cell), "%s vs A", l);
			texttable_add_column(tt, cell, TEXTTABLE_LEFT);
		}
	}
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		texttable_add_row(tt);
		if (t->by_host)
			safe_cell(tt, r->host);
		safe_cell(tt, r->device);
		safe_cell(tt, bf_dtype_name(r->dtype));
		if (r->occurrence > 1)
			texttable_cellf(tt, "%d#%d", r->n, r->occurrence);
		else
			texttable_cellf(tt, "%d", r->n);
		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cl = &r->cells[c];

			marks[0] = '\0';
			if (cl->present && cl->status == BF_STATUS_PASS &&
			    cl->reliable == 0)
				ui_reasons_add(&unreliable, cl->unreliable, marks,
					      sizeof(marks));
			compare_fmt_cell_marked(cell, sizeof(cell), cl, marks);
			texttable_cell(tt, cell);
			compare_fmt_peak(cell, sizeof(cell), cl);
			texttable_cell(tt, cell);
			if (with_ref) {
				compare_fmt_ref(cell, sizeof(cell), cl);
				texttable_cell(tt, cell);
			}
			nbelow += cl->present && cl->status == BF_STATUS_PASS &&
				  cl->below_reference == 1;
			compare_fmt_roof(cell, sizeof(cell), cl);
			texttable_cell(tt, cell);
			table_fmt(cell, sizeof(cell),
				  cl->present && cl->status == BF_STATUS_PASS ?
					  cl->median_ms : NAN,
				  3);
			texttable_cell(tt, cell);
			if (c > 0) {
				compare_fmt_delta(cell, sizeof(cell), &r->deltas[c]);
				texttable_cell(tt, cell);
				any_too_few |= r->deltas[c].valid &&
					       r->deltas[c].too_few;
			}
			if (cl->present && cl->status == BF_STATUS_FAIL &&
			    strncmp(cl->reason, "invalid:", 8) == 0)
				ui_notes_add(&invalid, cl->reason + 9);
		}
	}
	print_legend(out, t);
	fputc('\n', out);
	if (t->nrows == 0)
		fprintf(out, "(no GEMM results in any column)\n");
	else
		texttable_print(tt, out);
	texttable_free(tt);
	fprintf(out, "\nGFLOP/s: higher is better; the median, then (the spread): (max - min) /\n"
		     "median of the timed iterations' times, the figure the agent judges a\n"
		     "result's reliability by (above 20%%: unreliable). %%peak: of the device's\n"
		     "rated peak. %%roof: of its roofline, min(peak, FLOP/byte x measured\n"
		     "bandwidth); M memory-, C compute-bound.\n"
		     "ms: median time per GEMM, lower is better. n#2: the second run of a size\n"
		     "the sweep repeats.\n");
	if (t->ncols > 1)
		fprintf(out, "vs A: change in median GFLOP/s from column A (+ is faster); ~: no significant\n"
			     "difference (two-sided Mann-Whitney U test on the per-iteration GFLOP/s,\n"
			     "p >= %.2f).\n", t->alpha);
	if (any_too_few)
		fprintf(out, "too few samples: with so few on either side no difference can reach\n"
			     "p < %.2f (4+4 is the least; 3+5 and 2+8 also do); measure more iterations.\n",
			t->alpha);
	/* Notes whole, however long (issue 28). */
	for (int k = 0; k < unreliable.n; k++) {
		char *text = ui_reason_group_text(&unreliable.g[k], "cell");

		bf_text_sanitize_inplace(text);
		fprintf(out, "%s%d unreliable: %s\n", UI_UNRELIABLE_MARK, k + 1,
			text);
		free(text);
	}
	for (int k = 0; k < invalid.n; k++) {
		char *text = bf_text_sanitize_dup(invalid.text[k]);

		fprintf(out, "invalid (no GFLOP/s): %s\n", text);
		free(text);
	}
	ui_reasons_free(&unreliable);
	ui_notes_free(&invalid);
	if (with_ref)
		print_references(out, t, nbelow);
	print_bandwidth(out, t);
	if (t->nprov > 0) {
		struct texttable *pt = texttable_new(2);
		fprintf(out, "\nprovenance differences:\n");
		texttable_add_column(pt, "", TEXTTABLE_LEFT);
		for (int c = 0; c < t->ncols; c++)
			texttable_add_column(pt, "", TEXTTABLE_LEFT);
		for (int i = 0; i < t->nprov; i++) {
			const struct compare_prov *p = &t->prov[i];
			char *key = bf_xasprintf("  %s%s%s", p->host,
						 p->host[0] ? ": " : "", p->key);

			texttable_add_row(pt);
			safe_cell(pt, key);
			free(key);
			for (int c = 0; c < t->ncols; c++) {
				char *v = bf_xasprintf("%s %s", t->cols[c].label,
						       p->values[c] ? p->values[c] : "n/a");

				safe_cell(pt, v);
				free(v);
			}
		}
		texttable_print(pt, out);
		texttable_free(pt);
	}
	fflush(out);
}
