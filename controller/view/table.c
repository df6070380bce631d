/*
 * The plain results table, printed at the end of ctl run and by ctl
 * show: the live table's columns (ui_layout.c's one definition: titles,
 * order; ui_cells.c's cell texts), every one of them, sized to their contents by
 * texttable.c. Hosts in the run's order (the command line's), each
 * host's rows in the order they arrived (the agent's sweep), however the
 * hosts' records interleaved. Missing values print as n/a, never 0.
 * Under the table, a
 * legend for what a cell alone cannot say: which rows are unreliable and
 * why, where Δ% comes from or why it is n/a, and the hosts that did not
 * finish; then the bandwidth and batching results (ui_workload_lines).
 */
#include "view/table.h"

#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "view/texttable.h"
#include "view/ui_layout.h"
#include "xmalloc.h"

void table_fmt(char *buf, size_t len, double v, int decimals)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.*f", decimals, v);
}

int table_utf8(void)
{
	return strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

void table_reasons_add(struct table_reasons *r, const char *joined)
{
	char copy[160], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", joined);
	for (char *tok = strtok_r(copy, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save)) {
		int k;

		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		for (k = 0; k < r->n; k++)
			if (strcmp(r->text[k], tok) == 0)
				break;
		if (k == r->n) {
			if (r->n == TABLE_REASONS_MAX)
				continue;
			snprintf(r->text[k], sizeof(r->text[k]), "%s", tok);
			r->count[k] = 0;
			r->n++;
		}
		r->count[k]++;
	}
}

/* The bandwidth and batching sections (ui_workload_lines, as the live
 * table draws them under its rows), each after a blank line. */
static void print_workloads(FILE *out, const struct model_snapshot *m)
{
	struct ui_text_line *lines;
	char safe[640];
	int n = ui_workload_lines(m, &lines);

	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s\n", lines[i].heading ? "\n" : "",
			bf_text_sanitize(safe, sizeof(safe), lines[i].text));
	free(lines);
}

void table_print_snapshot(FILE *out, const struct model_snapshot *m, int utf8)
{
	struct ui_col_spec spec[UI_NCOLS];
	struct texttable *t = texttable_new(1);
	struct table_reasons rc = { .n = 0 };
	char cell[640], safe[640], note[1024];
	int unreliable = 0, with_delta = 0, n = 0;
	int *order = bf_xcalloc((size_t)m->nrows + 1, sizeof(*order));

	ui_columns_for(m, utf8, spec);
	for (int c = 0; c < UI_NCOLS; c++)
		texttable_add_column(t, spec[c].title, spec[c].right ?
							TEXTTABLE_RIGHT :
							TEXTTABLE_LEFT);
	/* Rows by host (a stable pass per host), then any of no known host. */
	for (int h = 0; h < m->nhosts; h++)
		for (int i = 0; i < m->nrows; i++)
			if (m->rows[i].host == h)
				order[n++] = i;
	for (int i = 0; i < m->nrows; i++)
		if (m->rows[i].host < 0 || m->rows[i].host >= m->nhosts)
			order[n++] = i;
	for (int k = 0; k < n; k++) {
		const struct model_row *r = &m->rows[order[k]];

		texttable_add_row(t);
		for (int c = 0; c < UI_NCOLS; c++) {
			ui_cell_text(m, r, (enum ui_col)c, cell, sizeof(cell));
			texttable_cell(t, bf_text_sanitize(safe, sizeof(safe), cell));
		}
		if (r->reliable == 0 && !isnan(r->gflops)) {
			unreliable++;
			table_reasons_add(&rc, r->unreliable);
		}
		with_delta += !isnan(ui_delta_pct(r->gflops, r->prev_gflops));
	}
	if (m->nrows == 0)
		fprintf(out, "(no GEMM results)\n");
	else
		texttable_print(t, out);
	texttable_free(t);
	free(order);
	if (unreliable) {
		fprintf(out, "%s unreliable (%d row%s):", UI_UNRELIABLE_MARK,
			unreliable, unreliable == 1 ? "" : "s");
		for (int k = 0; k < rc.n; k++)
			fprintf(out, "%s %s (%d)", k ? ";" : "",
				bf_text_sanitize(safe, sizeof(safe), rc.text[k]),
				rc.count[k]);
		fputc('\n', out);
	}
	for (int h = 0; h < m->nhosts && with_delta; h++)
		if (m->hosts[h].baseline_run[0])
			fprintf(out, "%s %s: vs run %s, same machine and settings\n",
				spec[UI_COL_DELTA].title,
				bf_text_sanitize(safe, sizeof(safe), m->hosts[h].name),
				m->hosts[h].baseline_run);
	if (ui_delta_note(m, utf8, note, sizeof(note)) > 0)
		fprintf(out, "%s\n", bf_text_sanitize(safe, sizeof(safe), note));
	for (int h = 0; h < m->nhosts; h++) {
		const struct model_host *mh = &m->hosts[h];

		if (mh->state != HOST_DONE) {
			const char *state = host_state_name(mh->state);
			/* A reason that only names the state is not said twice. */
			int said = !mh->reason[0] || strcmp(mh->reason, state) == 0;
			char reason[sizeof(mh->reason) + 256];

			fprintf(out, "%s: %s%s%s\n",
				bf_text_sanitize(safe, sizeof(safe), mh->name),
				state, said ? "" : ": ",
				said ? "" : bf_text_join_lines(reason, sizeof(reason),
							       mh->reason, "; "));
		}
		if (mh->summary_note[0])
			fprintf(out, "%s: the agent's own counts disagree with its records: %s\n",
				bf_text_sanitize(safe, sizeof(safe), mh->name),
				mh->summary_note);
	}
	print_workloads(out, m);
	fflush(out);
}

void table_print_plain(FILE *out, struct model *model)
{
	struct model_snapshot snap = { 0 };

	model_snapshot_update(model, &snap);
	table_print_snapshot(out, &snap, table_utf8());
	model_snapshot_free(&snap);
}
