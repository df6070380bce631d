/*
 * The report's cell texts and notes, and its side-by-side table (see
 * report_charts.h): a GEMM cell reads as in the text tables ("12.3?1",
 * "skipped [1]", "FAIL [2]"), its reasons are numbered notes under the
 * table (ui_notes.h: the same grouping of unreliable reasons by kind,
 * the same wording), and the side-by-side table has the rows of ctl
 * run's (model/sidebyside.h's order) with each column's speed over
 * column A's.
 */
#include "view/report_charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "model/sidebyside.h"
#include "view/compare_view.h"
#include "view/ui_layout.h"
#include "xmalloc.h"

void report_status_text(const struct report_cells *rc, enum bf_status st,
			const char *reason, char *buf, size_t len)
{
	const char *word = st == BF_STATUS_PASS ? "pass" :
			   st == BF_STATUS_SKIPPED ? "skipped" : "FAIL";
	int k = 0;

	for (int i = 0; reason && *reason && i < rc->reasons.n && !k; i++)
		if (strcmp(rc->reasons.text[i], reason) == 0)
			k = i + 1;
	/* A cell: a cut ends in "..." */
	if (st != BF_STATUS_PASS && k)
		bf_text_fmt(buf, len, "%s [%d]", word, k);
	else
		bf_text_fmt(buf, len, "%s", word);
}

/* Adds the skip and failure reasons of column hosts' records of type. */
static void add_record_reasons(struct report_cells *rc,
			       const struct compare_table *t,
			       enum bf_record_type type)
{
	for (int c = 0; c < t->ncols; c++) {
		const struct archive_host *hosts[256];
		int nh = compare_column_hosts(&t->cols[c], hosts, 256);

		for (int h = 0; h < nh; h++)
			for (int i = 0; i < hosts[h]->nrecords; i++) {
				const struct bf_record *r = &hosts[h]->records[i];
				enum bf_status st = type == BF_REC_BANDWIDTH ?
					r->u.bandwidth.status : r->u.batching.status;
				const char *why = type == BF_REC_BANDWIDTH ?
					r->u.bandwidth.reason : r->u.batching.reason;

				if (r->type == type && st != BF_STATUS_PASS)
					ui_notes_add(&rc->reasons, why);
			}
	}
}

void report_cells_build(struct report_cells *rc, const struct compare_table *t)
{
	memset(rc, 0, sizeof(*rc));
	rc->nrows = t->nrows;
	rc->ncols = t->ncols;
	rc->text = bf_xcalloc((size_t)t->nrows * (size_t)t->ncols + 1,
			      sizeof(*rc->text));
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cell = &t->rows[r].cells[c];
			char *out = rc->text[(size_t)r * (size_t)t->ncols + (size_t)c];
			char num[32], marks[48] = "";

			if (!cell->present) {
				snprintf(out, sizeof(rc->text[0]), "n/a");
				continue;
			}
			if (cell->status != BF_STATUS_PASS) {
				ui_notes_add(&rc->reasons, cell->reason);
				report_status_text(rc, cell->status, cell->reason, out,
						   sizeof(rc->text[0]));
				continue;
			}
			compare_fmt_gflops(num, sizeof(num), cell->median_gflops);
			if (cell->reliable == 0 && !isnan(cell->median_gflops)) {
				ui_reasons_add(&rc->groups, cell->unreliable, marks,
					       sizeof(marks));
				/* A cell: a cut ends in "..." */
				bf_text_fmt(out, sizeof(rc->text[0]), "%s%s%s", num,
					    UI_UNRELIABLE_MARK, marks);
			} else {
				/* fits: num is 32 bytes, a cell 64 */
				snprintf(out, sizeof(rc->text[0]), "%s", num);
			}
		}
	add_record_reasons(rc, t, BF_REC_BANDWIDTH);
	add_record_reasons(rc, t, BF_REC_BATCHING);
}

void report_cells_free(struct report_cells *rc)
{
	free(rc->text);
	ui_reasons_free(&rc->groups);
	ui_notes_free(&rc->reasons);
	memset(rc, 0, sizeof(*rc));
}

void report_notes_list(FILE *out, const struct report_cells *rc, int groups,
		       const unsigned char *used)
{
	int any = groups && rc->groups.n > 0;

	for (int k = 0; k < rc->reasons.n && !any; k++)
		any = !used || used[k];
	if (!any)
		return;
	fputs("<ul class=\"notes\">\n", out);
	for (int k = 0; groups && k < rc->groups.n; k++) {
		char *text = ui_reason_group_text(&rc->groups.g[k], "cell");

		fprintf(out, "<li>%s%d ", UI_UNRELIABLE_MARK, k + 1);
		report_html_escape(out, text);
		fputs("</li>\n", out);
		free(text);
	}
	for (int k = 0; k < rc->reasons.n; k++) {
		if (used && !used[k])
			continue;
		fprintf(out, "<li>[%d] ", k + 1);
		report_html_escape(out, rc->reasons.text[k]);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* The rows of t in the side-by-side order: host (when the columns span
 * several hosts), device (the CPU, then cuda:0, cuda:1, ..., then others
 * as first seen), dtype as first seen, n, occurrence. */
struct sbs_key {
	const struct compare_table *t;
	int row;
	long device;
	int dtype;
	int host;
};

static int sbs_key_cmp(const void *pa, const void *pb)
{
	const struct sbs_key *a = pa, *b = pb;
	const struct compare_row *x = &a->t->rows[a->row], *y = &b->t->rows[b->row];

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->dtype != b->dtype)
		return a->dtype < b->dtype ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	if (x->occurrence != y->occurrence)
		return x->occurrence < y->occurrence ? -1 : 1;
	return a->row - b->row;
}

/* The index of the first row of t before row r with the same field
 * (0 host, 1 device, 2 dtype), else r. */
static int first_seen(const struct compare_table *t, int r, int field)
{
	for (int i = 0; i < r; i++) {
		const char *a = field == 0 ? t->rows[i].host :
				field == 1 ? t->rows[i].device :
				bf_dtype_name(t->rows[i].dtype);
		const char *b = field == 0 ? t->rows[r].host :
				field == 1 ? t->rows[r].device :
				bf_dtype_name(t->rows[r].dtype);

		if (strcmp(a, b) == 0)
			return i;
	}
	return r;
}

void report_side_by_side(FILE *out, const struct compare_table *t,
			 const struct report_cells *rc)
{
	struct sbs_key *keys = bf_xcalloc((size_t)t->nrows + 1, sizeof(*keys));
	unsigned char *used = bf_xcalloc((size_t)rc->reasons.n + 1, 1);

	fprintf(out, "<h2>Side by side</h2>\n");
	if (t->nrows == 0) {
		fprintf(out, "<p>No GEMM results.</p>\n");
		free(used);
		free(keys);
		return;
	}
	fprintf(out, "<p>Median GFLOP/s of every result, a column per host or "
		     "run (%s: the agent called it unreliable, for the note's "
		     "reason; [K]: why it was skipped or failed)%s</p>\n",
		UI_UNRELIABLE_MARK,
		t->ncols > 1 ? "; then each column's speed over column A's "
			       "(its median GFLOP/s over A's; ? when either is "
			       "unreliable; hover for the Mann-Whitney U test: ctl "
			       "compare)." : ".");
	for (int r = 0; r < t->nrows; r++) {
		long rank = sbs_device_rank(t->rows[r].device);

		keys[r] = (struct sbs_key){ t, r,
			rank >= 0 ? rank : 10000000L + first_seen(t, r, 1),
			first_seen(t, r, 2), first_seen(t, r, 0) };
	}
	qsort(keys, (size_t)t->nrows, sizeof(*keys), sbs_key_cmp);
	fputs("<div class=\"scroll\"><table class=\"sbs\"><tr>", out);
	if (t->by_host)
		fputs("<th>host</th>", out);
	fputs("<th>device</th><th>dtype</th><th>n</th>", out);
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];

		fprintf(out, "<th><i style=\"background:%s\"></i>%c",
			report_color(c), 'A' + c);
		if (col->host) {
			fputs(" ", out);
			report_html_escape(out, col->host->name);
		}
		fputs("</th>", out);
	}
	for (int c = 1; c < t->ncols; c++)
		fprintf(out, "<th>%c/A</th>", 'A' + c);
	fputs("</tr>\n", out);
	for (int k = 0; k < t->nrows; k++) {
		int r = keys[k].row;
		const struct compare_row *row = &t->rows[r];

		fputs("<tr class=\"sbsrow\">", out);
		if (t->by_host) {
			fputs("<td>", out);
			report_html_escape(out, row->host);
			fputs("</td>", out);
		}
		fputs("<td>", out);
		report_html_escape(out, row->device);
		fputs("</td><td>", out);
		report_html_escape(out, bf_dtype_name(row->dtype));
		if (row->occurrence > 1)
			fprintf(out, "</td><td>%d#%d</td>", row->n, row->occurrence);
		else
			fprintf(out, "</td><td>%d</td>", row->n);
		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cell = &row->cells[c];

			fputs("<td class=\"num\">", out);
			report_html_escape(out, rc->text[(size_t)r * (size_t)t->ncols +
							 (size_t)c]);
			fputs("</td>", out);
			for (int i = 0; cell->present && cell->status != BF_STATUS_PASS &&
					i < rc->reasons.n; i++)
				if (strcmp(rc->reasons.text[i], cell->reason) == 0 &&
				    cell->reason[0])
					used[i] = 1;
		}
		for (int c = 1; c < t->ncols; c++) {
			const struct compare_delta *d = &row->deltas[c];
			char verdict[96];

			if (!d->valid) {
				fputs("<td class=\"num\">n/a</td>", out);
				continue;
			}
			compare_fmt_delta(verdict, sizeof(verdict), d);
			fputs("<td class=\"num\" title=\"", out);
			report_html_escape(out, verdict);
			fprintf(out, "\">%.*fx%s</td>", d->ratio >= 9.995 ? 1 : 2,
				d->ratio,
				row->cells[0].reliable == 0 || row->cells[c].reliable == 0 ?
					UI_UNRELIABLE_MARK : "");
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	report_notes_list(out, rc, 1, used);
	free(used);
	free(keys);
}
