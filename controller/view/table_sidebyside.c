/*
 * The plain table's side-by-side section (see table.h): the live table's
 * side-by-side view (ui_sidebyside.h: the same columns, titles and cell
 * texts) printed with texttable.c, for ctl run's last table and ctl
 * show. To a terminal too narrow for every column, the host and ratio
 * columns are printed in as many tables as it takes, each after the
 * device, dtype and n columns, so that nothing is left out; to a pipe or
 * file, one table.
 */
#include "view/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "model/sidebyside.h"
#include "view/texttable.h"
#include "view/ui_sidebyside.h"

/* Prints the rows of t with the fixed columns of cols and the columns
 * cols[from..to). */
static void print_part(FILE *out, const struct model_snapshot *m,
		       const struct sbs_table *t, const struct ui_sbs_col *cols,
		       int ncols, int from, int to)
{
	struct texttable *tt = texttable_new(UI_COL_GAP);
	char cell[640], safe[640];

	for (int k = 0; k < ncols; k++)
		if (cols[k].kind < UI_SBS_HOST || (k >= from && k < to))
			texttable_add_column(tt, bf_text_sanitize(safe, sizeof(safe),
								  cols[k].title),
					     cols[k].right ? TEXTTABLE_RIGHT :
							     TEXTTABLE_LEFT);
	for (int r = 0; r < t->nrows; r++) {
		texttable_add_row(tt);
		for (int k = 0; k < ncols; k++) {
			if (!(cols[k].kind < UI_SBS_HOST || (k >= from && k < to)))
				continue;
			ui_sbs_cell(m, t, r, &cols[k], cell, sizeof(cell));
			texttable_cell(tt, bf_text_sanitize(safe, sizeof(safe), cell));
		}
	}
	texttable_print(tt, out);
	texttable_free(tt);
}

void table_print_side_by_side(FILE *out, const struct model_snapshot *m,
			      int width)
{
	struct sbs_table t;
	struct ui_sbs_col *cols;
	char legend[1024], safe[1024], cell[640];
	int ncols, fixed = 0, first, *w;

	if (m->nhosts < 2)
		return;
	sbs_build(m, &t);
	if (t.nrows == 0) {
		sbs_free(&t);
		return;
	}
	ncols = ui_sbs_columns(m, &t, &cols);
	/* The widths texttable will print: the whole title (a plain table
	 * cuts nothing) or the widest cell. */
	w = calloc((size_t)ncols, sizeof(*w));
	for (int k = 0; w && k < ncols; k++) {
		w[k] = ui_text_width(cols[k].title);
		for (int r = 0; r < t.nrows; r++) {
			int cw;

			ui_sbs_cell(m, &t, r, &cols[k], cell, sizeof(cell));
			cw = ui_text_width(cell);
			w[k] = cw > w[k] ? cw : w[k];
		}
		if (cols[k].kind < UI_SBS_HOST)
			fixed += w[k] + UI_COL_GAP;
	}
	fprintf(out, "\nside by side (median GFLOP/s)\n");
	first = 0;
	while (first < ncols && cols[first].kind < UI_SBS_HOST)
		first++;
	while (first < ncols) {
		int used = fixed, end = first;

		/* As many host and ratio columns as fit, at least one. */
		while (end < ncols) {
			int cw = w ? w[end] : cols[end].width;

			if (width > 0 && end > first && used + cw > width)
				break;
			used += cw + UI_COL_GAP;
			end++;
		}
		if (first > 0 && cols[first - 1].kind >= UI_SBS_HOST)
			fputc('\n', out);
		print_part(out, m, &t, cols, ncols, first, end);
		first = end;
	}
	ui_sbs_legend(m, legend, sizeof(legend));
	fprintf(out, "%s\n", bf_text_sanitize(safe, sizeof(safe), legend));
	free(w);
	free(cols);
	sbs_free(&t);
}
