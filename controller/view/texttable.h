/*
 * One auto-width text table, printed to a FILE*: the plain results table
 * (table.c, ctl run and ctl show), ctl list and ctl compare's text output.
 * Columns have a header and an alignment; cells are added row by row;
 * widths come from the content in display cells (wcwidth under the
 * user's locale, so a CJK host name is two cells a character and still
 * lines up). Cells are taken as already terminal-safe
 * (bf_text_sanitize, common/bf_text.h): the printer only measures and
 * pads them.
 */
#ifndef BF_TEXTTABLE_H
#define BF_TEXTTABLE_H

#include <stdio.h>

enum texttable_align { TEXTTABLE_LEFT, TEXTTABLE_RIGHT };

struct texttable;

/* A table with no columns; gap is the spaces between two columns.
 * Caller frees with texttable_free. */
struct texttable *texttable_new(int gap);
void texttable_free(struct texttable *t); /* NULL does nothing */

/* Appends a column; header is copied ("" or NULL: no header). A table
 * whose headers are all empty prints no header line. Columns are added
 * before the first row. */
void texttable_add_column(struct texttable *t, const char *header,
			  enum texttable_align align);

/* Starts a new row; cells then fill it left to right. A row with fewer
 * cells than columns is padded with empty cells; extra cells are
 * dropped. */
void texttable_add_row(struct texttable *t);
void texttable_cell(struct texttable *t, const char *text); /* copied */
void texttable_cellf(struct texttable *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Rows added so far. */
int texttable_rows(const struct texttable *t);

/* Width of column col in display cells (header and every cell). */
int texttable_width(const struct texttable *t, int col);

/* Prints the header line (unless every header is empty) and the rows:
 * left-aligned cells padded on the right, right-aligned on the left,
 * columns separated by gap spaces, and no trailing blanks (empty
 * left-aligned cells at the end of a line are left out). */
void texttable_print(const struct texttable *t, FILE *out);

/* Display cells of s under the current LC_CTYPE (wcswidth of its
 * mbstowcs conversion; a character wcwidth calls non-printable counts
 * 0). Where s does not convert (a C locale and non-ASCII text), one cell
 * per UTF-8 code point. */
int texttable_text_width(const char *s);

#endif
