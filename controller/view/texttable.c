/* One auto-width text table; see texttable.h. */
#include "view/texttable.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "xmalloc.h"

struct texttable {
	int gap;
	int ncols;
	char **headers;              /* ncols */
	enum texttable_align *align; /* ncols */
	char ***rows;                /* nrows x ncols; NULL cells are "" */
	int nrows, rows_cap;
	int next;                    /* next cell of the last row */
};

struct texttable *texttable_new(int gap)
{
	struct texttable *t = bf_xcalloc(1, sizeof(*t));

	t->gap = gap < 0 ? 0 : gap;
	return t;
}

void texttable_free(struct texttable *t)
{
	if (!t)
		return;
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->rows[r][c]);
		free(t->rows[r]);
	}
	free(t->rows);
	for (int c = 0; c < t->ncols; c++)
		free(t->headers[c]);
	free(t->headers);
	free(t->align);
	free(t);
}

void texttable_add_column(struct texttable *t, const char *header,
			  enum texttable_align align)
{
	if (t->nrows > 0)
		return; /* the contract: columns before rows */
	t->headers = bf_xrealloc(t->headers, (size_t)(t->ncols + 1) *
						     sizeof(*t->headers));
	t->align = bf_xrealloc(t->align, (size_t)(t->ncols + 1) *
						 sizeof(*t->align));
	t->headers[t->ncols] = bf_xstrdup(header ? header : "");
	t->align[t->ncols] = align;
	t->ncols++;
}

void texttable_add_row(struct texttable *t)
{
	if (t->nrows == t->rows_cap) {
		t->rows_cap = t->rows_cap ? 2 * t->rows_cap : 16;
		t->rows = bf_xrealloc(t->rows, (size_t)t->rows_cap *
						       sizeof(*t->rows));
	}
	t->rows[t->nrows++] = bf_xcalloc((size_t)t->ncols + 1, sizeof(char *));
	t->next = 0;
}

void texttable_cell(struct texttable *t, const char *text)
{
	if (t->nrows == 0 || t->next >= t->ncols)
		return;
	t->rows[t->nrows - 1][t->next++] = bf_xstrdup(text ? text : "");
}

void texttable_cellf(struct texttable *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		texttable_cell(t, "");
		return;
	}
	s = bf_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	/* fits: s has the n bytes the first vsnprintf counted */
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	texttable_cell(t, s);
	free(s);
}

int texttable_rows(const struct texttable *t)
{
	return t->nrows;
}

static int codepoints(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

int texttable_text_width(const char *s)
{
	wchar_t small[256], *wcs = small;
	size_t n = mbstowcs(NULL, s, 0);
	int w = 0;

	if (n == (size_t)-1)
		return codepoints(s);
	if (n >= sizeof(small) / sizeof(small[0]))
		wcs = bf_xcalloc(n + 1, sizeof(*wcs));
	mbstowcs(wcs, s, n + 1);
	/* Per character, so that one non-printable character (wcswidth
	 * would give -1 for the whole string) counts 0, not everything. */
	for (size_t i = 0; i < n; i++) {
		int cw = wcwidth(wcs[i]);

		w += cw > 0 ? cw : 0;
	}
	if (wcs != small)
		free(wcs);
	return w;
}

static const char *cell_at(const struct texttable *t, int r, int c)
{
	return t->rows[r][c] ? t->rows[r][c] : "";
}

int texttable_width(const struct texttable *t, int col)
{
	int w;

	if (col < 0 || col >= t->ncols)
		return 0;
	w = texttable_text_width(t->headers[col]);
	for (int r = 0; r < t->nrows; r++) {
		int cw = texttable_text_width(cell_at(t, r, col));

		if (cw > w)
			w = cw;
	}
	return w;
}

static void print_line(const struct texttable *t, FILE *out,
		       const char *const *cells, const int *width)
{
	int last = t->ncols - 1;

	/* No trailing blanks: trailing empty left-aligned cells are not
	 * printed, and the last printed one is not padded. */
	while (last > 0 && t->align[last] == TEXTTABLE_LEFT && !cells[last][0])
		last--;
	for (int c = 0; c <= last; c++) {
		int fill = width[c] - texttable_text_width(cells[c]);

		if (fill < 0)
			fill = 0;
		if (c > 0)
			fprintf(out, "%*s", t->gap, "");
		if (t->align[c] == TEXTTABLE_RIGHT)
			fprintf(out, "%*s%s", fill, "", cells[c]);
		else if (c == last)
			fputs(cells[c], out);
		else
			fprintf(out, "%s%*s", cells[c], fill, "");
	}
	fputc('\n', out);
}

void texttable_print(const struct texttable *t, FILE *out)
{
	int *width = bf_xcalloc((size_t)t->ncols + 1, sizeof(*width));
	const char **cells = bf_xcalloc((size_t)t->ncols + 1, sizeof(*cells));
	int any_header = 0;

	for (int c = 0; c < t->ncols; c++) {
		width[c] = texttable_width(t, c);
		any_header |= t->headers[c][0] != '\0';
	}
	if (any_header)
		print_line(t, out, (const char *const *)t->headers, width);
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			cells[c] = cell_at(t, r, c);
		print_line(t, out, cells, width);
	}
	free(cells);
	free(width);
}
