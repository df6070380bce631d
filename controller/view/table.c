/*
 * The plain results table, printed at the end of ctl run and by ctl
 * show: the live table's columns (ui_layout.c's one definition: titles,
 * order; ui_cells.c's cell texts), every one of them, sized to their contents by
 * texttable.c. Hosts in the run's order (the command line's), each
 * host's rows in the order they arrived (the agent's sweep), however the
 * hosts' records interleaved. Missing values print as n/a, never 0.
 * Under the table, what a cell alone cannot say: which rows are below
 * their published reference, where Δ% comes from or why it is n/a, and
 * the hosts that did not finish; then the bandwidth and batching results
 * (ui_workload_lines), and the notes the rows point to (ui_note_lines).
 * To a terminal, columns that do not fit are left out in the live
 * table's order; to a pipe or file, none.
 */
#include "view/table.h"

#include <langinfo.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bf_parse.h"
#include "bf_text.h"
#include "view/texttable.h"
#include "view/ui_layout.h"
#include "view/ui_notes.h"
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

int table_terminal_width(FILE *f)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	long v;

	if (!f || !isatty(fileno(f)))
		return 0;
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (cols && bf_parse_long(cols, 1, 100000, &v) == 0)
		return (int)v;
	return 0;
}

/* Text lines (ui_workload_lines, ui_note_lines), each heading after a
 * blank line. */
static void print_lines(FILE *out, const struct ui_text_line *lines, int n)
{
	for (int i = 0; i < n; i++) {
		char *safe = bf_text_sanitize_dup(lines[i].text);

		fprintf(out, "%s%s\n", lines[i].heading ? "\n" : "", safe);
		free(safe);
	}
}

/* Which columns the plain table prints: all of them (width 0), or as
 * many as fit in width cells at the widths their contents need (as
 * texttable prints them), dropped in the live table's order
 * (ui_layout_columns). */
static void plain_columns(const struct model_snapshot *m,
			  const struct ui_col_spec spec[UI_NCOLS], int width,
			  int shown[UI_NCOLS])
{
	struct ui_col_spec full[UI_NCOLS];
	struct ui_col_place place[UI_NCOLS];
	char cell[640];

	for (int c = 0; c < UI_NCOLS; c++)
		shown[c] = 1;
	if (width <= 0)
		return;
	for (int c = 0; c < UI_NCOLS; c++) {
		full[c] = spec[c];
		full[c].enabled = 1;
		full[c].min_width = texttable_text_width(spec[c].title);
	}
	for (int i = 0; i < m->nrows; i++)
		for (int c = 0; c < UI_NCOLS; c++) {
			int w;

			ui_cell_text(m, &m->rows[i], (enum ui_col)c, cell,
				     sizeof(cell));
			w = texttable_text_width(cell);
			if (w > full[c].min_width)
				full[c].min_width = w;
		}
	for (int c = 0; c < UI_NCOLS; c++)
		full[c].want_width = full[c].min_width;
	ui_layout_columns(width, full, place);
	for (int c = 0; c < UI_NCOLS; c++)
		shown[c] = place[c].shown;
}

/* A line per group of hosts that reach one machine (model_host's
 * machine, the same text for each of them), once each. */
static void print_machines(FILE *out, const struct model_snapshot *m)
{
	char line[400], safe[400];

	for (int h = 0; h < m->nhosts; h++) {
		int seen = 0;

		if (!m->hosts[h].machine[0])
			continue;
		for (int j = 0; j < h && !seen; j++)
			seen = strcmp(m->hosts[j].machine, m->hosts[h].machine) == 0;
		model_machine_line(&m->hosts[h], line, sizeof(line));
		if (!seen)
			fprintf(out, "%s\n", bf_text_sanitize(safe, sizeof(safe), line));
	}
}

/* The rows below their reference (UI_BELOW_REF_MARK), each with what it
 * was measured against. */
static void print_below_reference(FILE *out, const struct model_snapshot *m,
				  const int *order, int n, int below)
{
	char safe[640];

	fprintf(out, "%s below reference (%d row%s): under %.0f%% of a published "
		     "measurement of the same product, dtype and n:\n",
		UI_BELOW_REF_MARK, below, below == 1 ? "" : "s",
		100 * BF_REFERENCE_HEALTHY_FRACTION);
	for (int k = 0; k < n; k++) {
		const struct model_row *r = &m->rows[order[k]];

		if (r->below_reference != 1 || !(r->reference_gflops > 0))
			continue;
		fprintf(out, "  %s %s %s %d: %.0f%% of %.1f GFLOP/s, ",
			r->host >= 0 && r->host < m->nhosts ?
				bf_text_sanitize(safe, sizeof(safe),
						 m->hosts[r->host].name) :
				"?",
			r->device, bf_dtype_name(r->dtype), r->n,
			100 * r->fraction_of_reference, r->reference_gflops);
		fprintf(out, "%s\n",
			bf_text_sanitize(safe, sizeof(safe), r->reference));
	}
}

void table_print_snapshot(FILE *out, const struct model_snapshot *m, int utf8,
			  int width)
{
	struct ui_col_spec spec[UI_NCOLS];
	struct ui_text_line *lines;
	struct texttable *t = texttable_new(1);
	char cell[640], safe[640], *note;
	int with_delta = 0, n = 0, nlines, shown[UI_NCOLS], below = 0;
	int *order = bf_xcalloc((size_t)m->nrows + 1, sizeof(*order));

	ui_columns_for(m, utf8, spec);
	plain_columns(m, spec, width, shown);
	for (int c = 0; c < UI_NCOLS; c++)
		if (shown[c])
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
			if (!shown[c])
				continue;
			ui_cell_text(m, r, (enum ui_col)c, cell, sizeof(cell));
			texttable_cell(t, bf_text_sanitize(safe, sizeof(safe), cell));
		}
		with_delta += !isnan(ui_delta_pct(r->gflops, r->prev_gflops));
		below += r->below_reference == 1 && r->reference_gflops > 0;
	}
	if (m->nrows == 0)
		fprintf(out, "(no GEMM results)\n");
	else
		texttable_print(t, out);
	texttable_free(t);
	if (below)
		print_below_reference(out, m, order, n, below);
	free(order);
	for (int h = 0; h < m->nhosts && with_delta; h++)
		if (m->hosts[h].baseline_run[0])
			fprintf(out, "%s %s: vs run %s, same machine and settings\n",
				spec[UI_COL_DELTA].title,
				bf_text_sanitize(safe, sizeof(safe), m->hosts[h].name),
				m->hosts[h].baseline_run);
	/* Whole, however many hosts say why (was cut at 639 bytes). */
	if ((note = ui_delta_note(m, utf8))) {
		char *safe_note = bf_text_sanitize_dup(note);

		fprintf(out, "%s\n", safe_note);
		free(safe_note);
		free(note);
	}
	for (int h = 0; h < m->nhosts; h++) {
		const struct model_host *mh = &m->hosts[h];

		if (mh->state != HOST_DONE) {
			const char *state = host_state_name(mh->state);
			/* A reason that only names the state is not said twice. */
			int said = !mh->reason || !mh->reason[0] ||
				   strcmp(mh->reason, state) == 0;
			/* Whole: its lines joined with "; " take at most one
			 * byte more per line break than the reason. */
			size_t len = said ? 1 : 2 * strlen(mh->reason) + 4;
			char *reason = bf_xcalloc(len, 1);

			fprintf(out, "%s: %s%s%s\n",
				bf_text_sanitize(safe, sizeof(safe), mh->name),
				state, said ? "" : ": ",
				said ? "" : bf_text_join_lines(reason, len,
							       mh->reason, "; "));
			free(reason);
		}
		if (mh->summary_note[0])
			fprintf(out, "%s: the agent's own counts disagree with its records: %s\n",
				bf_text_sanitize(safe, sizeof(safe), mh->name),
				mh->summary_note);
	}
	print_machines(out, m);
	table_print_side_by_side(out, m, width);
	nlines = ui_workload_lines(m, utf8, width, &lines);
	print_lines(out, lines, nlines);
	free(lines);
	/* The notes the rows point to, in full: wrapped at spaces to a
	 * terminal's width, one line each to a pipe. */
	nlines = ui_note_lines(m, width, &lines);
	if (nlines > 0) {
		fprintf(out, "\nnotes\n");
		print_lines(out, lines, nlines);
	}
	free(lines);
	fflush(out);
}

/* A host's devices other than the CPU, each with whether any of its rows
 * (GEMM, bandwidth, batching) was measured (passed or failed). */
#define HIDE_MAX_DEVICES 64

struct hide_dev {
	char device[16];
	int measured;
};

struct hide_host {
	struct hide_dev dev[HIDE_MAX_DEVICES];
	int n;
};

/* The entry of device on host h (none for "cpu", a host out of range or
 * a host with too many devices: never hidden). */
static struct hide_dev *hide_find(struct hide_host *hh, int nhosts, int h,
				  const char *device, int add)
{
	struct hide_host *x;

	if (h < 0 || h >= nhosts || strcmp(device, "cpu") == 0)
		return NULL;
	x = &hh[h];
	for (int i = 0; i < x->n; i++)
		if (strcmp(x->dev[i].device, device) == 0)
			return &x->dev[i];
	if (!add || x->n == HIDE_MAX_DEVICES)
		return NULL;
	/* fits: a key, never cut: device is a model row's, bandwidth's or
	 * batching entry's device, 16 bytes as this one (model.h) */
	snprintf(x->dev[x->n].device, sizeof(x->dev[x->n].device), "%s", device);
	x->dev[x->n].measured = 0;
	return &x->dev[x->n++];
}

static void hide_mark(struct hide_host *hh, int nhosts, int h,
		      const char *device, enum bf_status st)
{
	struct hide_dev *d = hide_find(hh, nhosts, h, device, 1);

	if (d && st != BF_STATUS_SKIPPED)
		d->measured = 1;
}

static int hide_row(struct hide_host *hh, int nhosts, int h, const char *device)
{
	struct hide_dev *d = hide_find(hh, nhosts, h, device, 0);

	return d && !d->measured;
}

/* The device class of a device: "cuda" of "cuda:0", "cpu". */
static size_t class_len(const char *device)
{
	const char *colon = strchr(device, ':');

	return colon ? (size_t)(colon - device) : strlen(device);
}

static int same_class(const char *a, const char *b)
{
	size_t la = class_len(a);

	return la == class_len(b) && strncmp(a, b, la) == 0;
}

/* A row's host set to this is left out (hide_skipped_everywhere). */
#define HIDE_HOST (-2)

/* Marks (host HIDE_HOST) the GEMM rows of a device class and dtype
 * ("cpu fp16") skipped on every host for one reason: the verdict's one
 * note line says it (verdict_text.h). Time O(rows x classes x dtypes),
 * at most HIDE_MAX_DEVICES of those. */
static void hide_skipped_everywhere(struct model_snapshot *m)
{
	struct {
		const struct model_row *first; /* the class and dtype */
		int hide;                      /* every row skipped, one reason */
	} key[HIDE_MAX_DEVICES];
	int nkey = 0;

	for (int i = 0; i < m->nrows; i++) {
		const struct model_row *r = &m->rows[i];
		int k = 0;

		while (k < nkey && !(same_class(key[k].first->device, r->device) &&
				     key[k].first->dtype == r->dtype))
			k++;
		if (k == nkey) {
			if (nkey == HIDE_MAX_DEVICES)
				continue;
			key[nkey].first = r;
			key[nkey++].hide = 1;
		}
		if (r->status != BF_STATUS_SKIPPED ||
		    strcmp(r->reason ? r->reason : "",
			   key[k].first->reason ? key[k].first->reason : "") != 0)
			key[k].hide = 0;
	}
	for (int i = 0; i < m->nrows; i++) {
		struct model_row *r = &m->rows[i];

		for (int k = 0; k < nkey; k++)
			if (key[k].hide &&
			    same_class(key[k].first->device, r->device) &&
			    key[k].first->dtype == r->dtype) {
				r->host = HIDE_HOST;
				break;
			}
	}
}

/* Leaves out of m every row (GEMM, bandwidth, batching) of a host's GPU
 * none of whose rows was measured: every one skipped (no driver, no GPU,
 * does not fit); and the GEMM rows of a device class and dtype skipped
 * on every host for one reason. The verdict's notes above the table say
 * why, once for every host (verdict_text.h). Time O(rows x devices per
 * host). */
static void hide_unmeasured_devices(struct model_snapshot *m)
{
	struct hide_host *hh = bf_xcalloc((size_t)m->nhosts + 1, sizeof(*hh));
	int k = 0;

	for (int i = 0; i < m->nrows; i++)
		hide_mark(hh, m->nhosts, m->rows[i].host, m->rows[i].device,
			  m->rows[i].status);
	for (int i = 0; i < m->nbandwidth; i++)
		hide_mark(hh, m->nhosts, m->bandwidth[i].host,
			  m->bandwidth[i].device, m->bandwidth[i].status);
	for (int i = 0; i < m->nbatching; i++)
		hide_mark(hh, m->nhosts, m->batching[i].host,
			  m->batching[i].device, m->batching[i].status);
	hide_skipped_everywhere(m);
	/* A row left out frees its reason (and unreliable reasons), the
	 * snapshot's own copies (model_types.h): model_snapshot_free frees
	 * those of the rows kept. */
	for (int i = 0; i < m->nrows; i++) {
		if (!hide_row(hh, m->nhosts, m->rows[i].host, m->rows[i].device) &&
		    m->rows[i].host != HIDE_HOST) {
			m->rows[k++] = m->rows[i];
			continue;
		}
		free((char *)m->rows[i].reason);
		free((char *)m->rows[i].unreliable);
	}
	m->nrows = k;
	k = 0;
	for (int i = 0; i < m->nbandwidth; i++)
		if (!hide_row(hh, m->nhosts, m->bandwidth[i].host,
			      m->bandwidth[i].device))
			m->bandwidth[k++] = m->bandwidth[i];
		else
			free((char *)m->bandwidth[i].reason);
	m->nbandwidth = k;
	k = 0;
	for (int i = 0; i < m->nbatching; i++)
		if (!hide_row(hh, m->nhosts, m->batching[i].host,
			      m->batching[i].device))
			m->batching[k++] = m->batching[i];
		else
			free((char *)m->batching[i].reason);
	m->nbatching = k;
	free(hh);
}

void table_print_plain(FILE *out, struct model *model, int width)
{
	struct model_snapshot snap = { 0 };

	model_snapshot_update(model, &snap);
	hide_unmeasured_devices(&snap);
	table_print_snapshot(out, &snap, table_utf8(), width);
	model_snapshot_free(&snap);
}
