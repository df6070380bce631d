/*
 * The live table of `ctl run`: the only file that includes curses.h. Each
 * ui_poll takes a snapshot of the run model under its lock (only when its
 * version moved), asks ui_layout.c what fits where, and draws; keys change
 * the view (scroll, sort, group, help) and q is handed back to the caller.
 * Host threads never call in here.
 *
 * Signals. SIGINT and SIGTERM stay with ctl run's flag-only handler
 * (installed before ui_open, so ncurses leaves them alone). SIGWINCH is
 * ncurses's own handler, which only sets a flag that getch turns into
 * KEY_RESIZE. SIGTSTP (Ctrl-Z) gets a flag-only handler here; ui_poll
 * then leaves curses, stops the process and redraws when it is continued.
 * The one exception to "handlers only set flags" is a crash (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT): nothing runs after it to restore the
 * terminal, so its handler does the restoring itself with async-signal-
 * safe calls only: write(2) of sequences precomputed from terminfo at
 * ui_open (sgr0, cnorm, rmkx, rmcup), tcsetattr(3) with the modes saved
 * before curses started, dup2(2) and read(2) to give stderr back with what
 * was captured, then it re-raises the signal with its default action (for
 * the core dump and the exit status). bf_xmalloc's out-of-memory hook uses
 * the same function.
 *
 * Kept whole although long (about 1,000 lines): it is the one file that
 * speaks curses, and the terminal's state (modes, colours, the restore
 * sequences the crash handler writes) must stay in one place; what fits
 * where is ui_layout.c's, the cells' texts ui_cells.c's and the side-by-side
 * view's ui_sidebyside.c's.
 */
#include "view/ui_curses.h"

#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <curses.h>

#include "base/cli.h"
#include "bf_clock.h"
#include "bf_text.h"
#include "model/sidebyside.h"
#include "model/verdict_run.h"
#include "view/ui_layout.h"
#include "view/ui_notes.h"
#include "view/ui_sidebyside.h"
#include "xmalloc.h"

enum { PAIR_GOOD = 1, PAIR_BAD, PAIR_ACTIVE };

/* Cells per UTF-8 code point is 1 for everything drawn, but a cell can
 * take 4 bytes: text buffers are sized for that. */
#define CELL_BYTES 4
#define LINE_MAX_CELLS 512

struct ui {
	struct model *model;            /* live: read through snapshots only */
	const atomic_int *stopping;
	char run_id[64];
	SCREEN *screen;
	int utf8, color;
	enum ui_group group;
	enum ui_sort sort;
	int top;                        /* first body line shown */
	int help;                       /* the help screen is up */
	int help_top;                   /* its first line shown, when it
					 * is taller than the terminal */
	int side_by_side;               /* the view: hosts side by side (1,
					 * the default from two hosts) or one
					 * block of rows per host (0); v */
	int first_host;                 /* side by side: the first host
					 * column shown (Left/Right) */
	int last_host;                  /* of the last draw: the last shown */
	int ratios;                     /* side by side: the ratio columns
					 * in place of the hosts' (r) */
	int dirty;                      /* redraw at the next chance */
	uint64_t drawn_second;          /* elapsed second last drawn */

	/* The snapshot: a copy of the model's arrays, never locked. */
	struct model_snapshot snap;
	int rows_cap;                   /* entries of order; lines has twice */
	int *order;
	struct ui_line *lines;
	int nlines, lines_cap;          /* nlines: GEMM lines + extra */
	struct ui_text_line *extra;     /* bandwidth, batching (ui_layout.h) */
	int nextra;
	int body_lines;                 /* of the last draw, for PgUp/PgDn */

	/* The live verdict (verdict_snapshot) of each row of snap. */
	const struct ref_set *refs;     /* not owned; NULL none */
	struct verdict *verdicts;       /* verdicts_cap entries */
	int nverdicts;                  /* of them judged last (their strings
					 * verdict_clear frees) */
	int verdicts_cap;
	int vcounts[VERDICT_FAILED + 1]; /* devices per verdict */
	int vdevices;
};

/* Terminal restoration state for the crash handler (file scope, since a
 * signal handler has no argument to find it by). */
static volatile sig_atomic_t ui_live;   /* curses owns the terminal */
static char restore_seq[256];
static size_t restore_len;
static struct termios saved_tio;
static int have_tio;
static int saved_stderr = -1;
static FILE *stderr_capture;
static int capture_fd = -1;
static volatile sig_atomic_t suspend_requested;

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NCRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))
static struct sigaction old_crash[NCRASH], old_tstp;

/* Gives the terminal and stderr back. Async-signal-safe: runs in the crash
 * handler and before an out-of-memory abort, on any thread. */
static void restore_terminal_now(void)
{
	char buf[4096];
	ssize_t n;

	if (!ui_live)
		return;
	ui_live = 0;
	if (restore_len && write(STDOUT_FILENO, restore_seq, restore_len) < 0) {
		/* nothing left to try */
	}
	if (have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	if (saved_stderr >= 0 && dup2(saved_stderr, STDERR_FILENO) >= 0 &&
	    capture_fd >= 0 && lseek(capture_fd, 0, SEEK_SET) == 0)
		while ((n = read(capture_fd, buf, sizeof(buf))) > 0)
			if (write(STDERR_FILENO, buf, (size_t)n) < 0)
				break;
}

static void on_crash(int sig)
{
	restore_terminal_now();
	raise(sig); /* SA_RESETHAND: the default action; SA_NODEFER: now */
}

static void on_tstp(int sig)
{
	suspend_requested = 1;
}

static void on_oom(void)
{
	restore_terminal_now();
}

/* Appends terminfo capability cap to restore_seq, without "$<n>" padding
 * (only a delay, which write(2) cannot do). */
static void add_restore(const char *cap)
{
	const char *s = tigetstr(cap);

	if (!s || s == (const char *)-1)
		return;
	for (; *s && restore_len + 1 < sizeof(restore_seq); s++) {
		if (s[0] == '$' && s[1] == '<') {
			const char *end = strchr(s, '>');

			if (end) {
				s = end;
				continue;
			}
		}
		restore_seq[restore_len++] = *s;
	}
}

/* ---- snapshot ---------------------------------------------------------- */

/* The verdict of every row of the snapshot and the devices' counts. */
static void judge(struct ui *ui)
{
	int slow;

	/* The last verdicts' strings (verdict_compute's) go first. */
	verdict_clear(ui->verdicts, ui->nverdicts);
	if (ui->snap.nrows > ui->verdicts_cap) {
		ui->verdicts_cap = ui->snap.nrows * 2;
		ui->verdicts = bf_xrealloc(ui->verdicts, (size_t)ui->verdicts_cap *
							      sizeof(*ui->verdicts));
	}
	verdict_snapshot(&ui->snap, ui->refs, ui->verdicts);
	ui->nverdicts = ui->snap.nrows;
	verdict_snapshot_counts(&ui->snap, ui->verdicts, ui->vcounts,
				&ui->vdevices, &slow);
}

/* Copies the model when it changed since the last copy; 1 when it did. */
static int take_snapshot(struct ui *ui)
{
	struct model_snapshot *s = &ui->snap;

	if (!model_snapshot_update(ui->model, s))
		return 0;
	if (s->nrows > ui->rows_cap) {
		ui->rows_cap = s->nrows * 2;
		ui->order = bf_xrealloc(ui->order, (size_t)ui->rows_cap * sizeof(*ui->order));
		ui->lines_cap = 2 * ui->rows_cap;
		ui->lines = bf_xrealloc(ui->lines, (size_t)ui->lines_cap * sizeof(*ui->lines));
	}
	judge(ui);
	return 1;
}

void ui_set_references(struct ui *ui, const struct ref_set *refs)
{
	if (!ui)
		return;
	ui->refs = refs;
	judge(ui);
	ui->dirty = 1;
}

/* A row's verdict mark in the live table ("ok", "SLOW?", ...); "" for a
 * row that did not pass (its state says why) or has none yet. */
static const char *verdict_mark(const struct ui *ui, int row, char *buf,
				size_t len)
{
	const struct verdict *v;

	buf[0] = '\0';
	if (row < 0 || row >= ui->snap.nrows || !ui->verdicts ||
	    ui->snap.rows[row].status != BF_STATUS_PASS)
		return buf;
	v = &ui->verdicts[row];
	/* A mark in a cell: a cut ends in "..." */
	if (v->kind == VERDICT_OK || v->kind == VERDICT_UNKNOWN)
		bf_text_fmt(buf, len, "%s%s", verdict_kind_name(v->kind),
			    v->uncertain ? "?" : "");
	else if (v->kind == VERDICT_SLOW)
		bf_text_fmt(buf, len, "SLOW%s", v->uncertain ? "?" : "");
	else if (v->kind == VERDICT_FAILED)
		bf_text_fmt(buf, len, "FAILED%s", v->uncertain ? "?" : "");
	return buf;
}

/* ---- drawing ----------------------------------------------------------- */

static attr_t tone_attr(const struct ui *ui, enum ui_tone t)
{
	switch (t) {
	case UI_TONE_GOOD:
		return ui->color ? COLOR_PAIR(PAIR_GOOD) : A_NORMAL;
	case UI_TONE_BAD:
		/* Bold as well, so failures stand out under NO_COLOR. */
		return A_BOLD | (ui->color ? COLOR_PAIR(PAIR_BAD) : A_NORMAL);
	case UI_TONE_ACTIVE:
		return ui->color ? COLOR_PAIR(PAIR_ACTIVE) : A_NORMAL;
	case UI_TONE_DIM:
		return A_DIM;
	case UI_TONE_NORMAL:
		break;
	}
	return A_NORMAL;
}

/* Draws s at (y, x) in `width` cells (0: its own width), clipped at the
 * right edge of the screen. */
static void put(const struct ui *ui, int y, int x, const char *s, int width,
		int right, attr_t attr)
{
	char buf[LINE_MAX_CELLS * CELL_BYTES + 1];
	int avail = COLS - x;

	if (avail <= 0 || y < 0 || y >= LINES)
		return;
	if (width <= 0)
		width = ui_text_width(s);
	if (width > avail) {
		width = avail;
		right = 0;
	}
	if (width > LINE_MAX_CELLS)
		width = LINE_MAX_CELLS;
	ui_fit(buf, sizeof(buf), s, width, right, ui->utf8);
	attron(attr);
	mvaddstr(y, x, buf);
	attroff(attr);
}

/* Appends s to buf (size bytes, holding off bytes of text) when it fits
 * whole with its NUL; returns the new length (off when it does not). */
static size_t append_whole(char *buf, size_t size, size_t off, const char *s)
{
	size_t n = strlen(s);

	if (off + n + 1 > size)
		return off;
	memcpy(buf + off, s, n + 1);
	return off + n;
}

static void rule(const struct ui *ui, int y, const char *label)
{
	const char *dash = ui->utf8 ? "\xe2\x94\x80" : "-";
	char buf[LINE_MAX_CELLS * CELL_BYTES + 1];
	size_t off = 0;
	int x = 0;

	buf[0] = '\0';
	if (label) {
		/* A section's title on the screen's one line: a cut (past
		 * LINE_MAX_CELLS cells, wider than any screen) ends in "..." */
		bf_text_fmt(buf, sizeof(buf), "%s%s %s ", dash, dash, label);
		off = strlen(buf);
		x = ui_text_width(buf);
	}
	for (; x < COLS && x < LINE_MAX_CELLS; x++)
		off = append_whole(buf, sizeof(buf), off, dash);
	put(ui, y, 0, buf, 0, 0, label ? A_BOLD : A_NORMAL);
}

static void draw_header(struct ui *ui, uint64_t elapsed_ns)
{
	char left[256], fail[64], right[128], el[32];
	int done = 0, failed = 0, w;

	for (int i = 0; i < ui->snap.nhosts; i++) {
		done += ui->snap.hosts[i].state == HOST_DONE;
		failed += ui->snap.hosts[i].state == HOST_FAILED;
	}
	ui_fmt_elapsed(el, sizeof(el), elapsed_ns);
	/* fits: run_id is 64 bytes (archive.run_id's size), el 32 */
	snprintf(left, sizeof(left), " run %s  %s  hosts %d/%d done",
		 ui->run_id, el, done, ui->snap.nhosts);
	if (ui->side_by_side) {
		char ref[61]; /* the header's room for the name: 60 bytes */

		/* A label in the header: a longer name ends in "..." */
		bf_text_fmt(ref, sizeof(ref), "%s",
			    ui->snap.hosts[ui->snap.ref_host >= 0 &&
					   ui->snap.ref_host < ui->snap.nhosts ?
						   ui->snap.ref_host : 0].name);
		/* fits: ref is 60 bytes at most, right 128 */
		snprintf(right, sizeof(right), "side by side  vs %s ", ref);
	} else {
		/* fits: a sort and a group name, of ui_layout.c's few */
		snprintf(right, sizeof(right), "sort %s  group %s ",
			 ui_sort_name(ui->sort), ui_group_name(ui->group));
	}
	attron(A_REVERSE);
	mvhline(0, 0, ' ', COLS);
	attroff(A_REVERSE);
	put(ui, 0, 0, left, 0, 0, A_REVERSE | A_BOLD);
	w = ui_text_width(left);
	if (failed) {
		snprintf(fail, sizeof(fail), ", %d failed", failed);
		put(ui, 0, w, fail, 0, 0, A_REVERSE | tone_attr(ui, UI_TONE_BAD));
		w += ui_text_width(fail);
	}
	/* The verdict so far: devices per verdict, the worst first. */
	if (ui->vdevices > 0) {
		static const enum verdict_kind order[] = {
			VERDICT_FAILED, VERDICT_SLOW, VERDICT_OK, VERDICT_UNKNOWN,
		};
		char sum[96] = "  verdict";
		int first = 1;

		/* At most 9 + 4 x (2 + 11 + 1 + 7) = 93 bytes: it fits, and
		 * a cut would end in "..." */
		for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
			if (ui->vcounts[order[k]]) {
				bf_text_appendf(sum, sizeof(sum), "%s %d %s",
						first ? "" : ",",
						ui->vcounts[order[k]],
						order[k] == VERDICT_SLOW ? "SLOW" :
						order[k] == VERDICT_FAILED ? "FAILED" :
						verdict_kind_name(order[k]));
				first = 0;
			}
		/* Whole or not at all: never cut. */
		if (w + ui_text_width(sum) <= COLS) {
			put(ui, 0, w, sum, 0, 0, A_REVERSE | A_BOLD |
				    (ui->vcounts[VERDICT_SLOW] ||
						     ui->vcounts[VERDICT_FAILED] ?
					     tone_attr(ui, UI_TONE_BAD) : A_NORMAL));
			w += ui_text_width(sum);
		}
	}
	if (w + 2 + ui_text_width(right) <= COLS)
		put(ui, 0, COLS - ui_text_width(right), right, 0, 0, A_REVERSE);
}

static void draw_panel_line(struct ui *ui, int y, int host, int name_w)
{
	const struct model_host *h = &ui->snap.hosts[host];
	char bar[64 * CELL_BYTES + 1], st[600], ck[64], el[32];
	int bar_w = COLS / 5, x = 0, failed = 0, ck_w;
	enum ui_tone tone;
	uint64_t end;

	bar_w = bar_w < 8 ? 8 : bar_w > 30 ? 30 : bar_w;
	for (int i = 0; i < ui->snap.nchecks; i++)
		if (ui->snap.checks[i].host == host)
			failed += ui->snap.checks[i].failed;
	tone = ui_host_panel_text(h, st, sizeof(st));

	put(ui, y, x, h->name, name_w, 0, tone == UI_TONE_BAD ? tone_attr(ui, tone) : A_BOLD);
	x += name_w + 1;
	ui_bar(bar, sizeof(bar), bar_w, ui_host_progress(h), 1000, ui->utf8);
	put(ui, y, x, bar, bar_w, 0, tone_attr(ui, tone == UI_TONE_BAD ? tone : UI_TONE_ACTIVE));
	x += bar_w + 1;
	if (h->checks_total > 0 && failed)
		snprintf(ck, sizeof(ck), "checks %d/%d %d FAIL", h->checks_done,
			 h->checks_total, failed);
	else if (h->checks_total > 0)
		snprintf(ck, sizeof(ck), "checks %d/%d", h->checks_done, h->checks_total);
	else
		snprintf(ck, sizeof(ck), "checks -");
	ck_w = ui_text_width(ck) > 13 ? ui_text_width(ck) : 13;
	put(ui, y, x, ck, ck_w, 0, failed ? tone_attr(ui, UI_TONE_BAD) : A_NORMAL);
	x += ck_w + 1;
	el[0] = '\0';
	if (h->started_ns) {
		end = h->ended_ns ? h->ended_ns : bf_now_ns();
		ui_fmt_elapsed(el, sizeof(el), end - h->started_ns);
	}
	put(ui, y, x, el, 7, 1, A_DIM);
	x += 8;
	put(ui, y, x, st, COLS - x, 0, tone_attr(ui, tone));
}

static void draw_panel(struct ui *ui, const struct ui_rows *rows)
{
	int idx_small[64], *idx = idx_small, n, name_w = 4;
	int counts[HOST_INTERRUPTED + 1] = { 0 };
	char more[256];

	if (ui->snap.nhosts > 64)
		idx = bf_xcalloc((size_t)ui->snap.nhosts, sizeof(*idx));
	for (int i = 0; i < ui->snap.nhosts; i++) {
		int w = ui_text_width(ui->snap.hosts[i].name);

		name_w = w > name_w ? w : name_w;
	}
	name_w = name_w > 24 ? 24 : name_w;
	n = ui_panel_hosts(&ui->snap, rows->panel_lines, idx);
	for (int i = 0; i < n; i++)
		draw_panel_line(ui, rows->panel_y + i, idx[i], name_w);
	if (n < ui->snap.nhosts) {
		for (int i = 0; i < ui->snap.nhosts; i++) {
			int shown = 0;

			for (int k = 0; k < n; k++)
				shown |= idx[k] == i;
			if (!shown)
				counts[ui->snap.hosts[i].state]++;
		}
		snprintf(more, sizeof(more), "+ %d more:", ui->snap.nhosts - n);
		/* A count and a state name each: a cut would end in "..." */
		for (int s = 0; s <= HOST_INTERRUPTED; s++)
			if (counts[s])
				bf_text_appendf(more, sizeof(more), " %d %s",
						counts[s],
						host_state_name((enum host_state)s));
		put(ui, rows->panel_y + n, 0, more, 0, 0, A_DIM);
	}
	if (idx != idx_small)
		free(idx);
}

/* The notes the rows point to ("?1 ...", "[1] ..."), after the
 * bandwidth and batching lines, under a "notes" rule, wrapped to the
 * screen so that a long reason reads in full. */
static void append_notes(struct ui *ui)
{
	struct ui_text_line *notes;
	int n = ui_note_lines(&ui->snap, COLS, &notes);

	if (n > 0) {
		ui->extra = bf_xrealloc(ui->extra, (size_t)(ui->nextra + n + 1) *
						       sizeof(*ui->extra));
		memset(&ui->extra[ui->nextra], 0, sizeof(*ui->extra));
		ui->extra[ui->nextra].heading = 1;
		snprintf(ui->extra[ui->nextra].text,
			 sizeof(ui->extra[ui->nextra].text), "notes");
		memcpy(&ui->extra[ui->nextra + 1], notes,
		       (size_t)n * sizeof(*notes));
		ui->nextra += n + 1;
	}
	free(notes);
}

/* Puts n lines (copied) before the extra lines under the rows. */
static void prepend_extra(struct ui *ui, const struct ui_text_line *lines,
			  int n)
{
	if (n <= 0)
		return;
	ui->extra = bf_xrealloc(ui->extra, (size_t)(ui->nextra + n) *
					       sizeof(*ui->extra));
	memmove(&ui->extra[n], ui->extra, (size_t)ui->nextra * sizeof(*ui->extra));
	memcpy(ui->extra, lines, (size_t)n * sizeof(*lines));
	ui->nextra += n;
}

/* Under the rows, first: a line per group of hosts that are one machine
 * ("hb1, hb2, local: one machine; run one at a time"), and, side by
 * side, what the ratio columns are. */
static void prepend_head(struct ui *ui, int legend)
{
	struct ui_text_line *head = bf_xcalloc((size_t)ui->snap.nhosts + 2,
					       sizeof(*head));
	int n = 0;

	if (legend) {
		head[n].tone = UI_TONE_DIM;
		ui_sbs_legend(&ui->snap, head[n].text, sizeof(head[n].text));
		n += head[n].text[0] != '\0';
	}
	for (int h = 0; h < ui->snap.nhosts; h++) {
		int seen = 0;

		if (!ui->snap.hosts[h].machine[0])
			continue;
		for (int j = 0; j < h && !seen; j++)
			seen = strcmp(ui->snap.hosts[j].machine,
				      ui->snap.hosts[h].machine) == 0;
		if (seen)
			continue;
		head[n].tone = ui->snap.hosts[h].shared ? UI_TONE_BAD : UI_TONE_DIM;
		model_machine_line(&ui->snap.hosts[h], head[n].text,
				   sizeof(head[n].text));
		n++;
	}
	prepend_extra(ui, head, n);
	free(head);
}

/* A text line under the rows (ui_text_line's heading, titles, tone). */
static void draw_extra(struct ui *ui, int y, const struct ui_text_line *t)
{
	if (t->heading)
		rule(ui, y, t->text);
	else
		put(ui, y, 0, t->text, 0, 0,
		    t->titles ? A_BOLD : tone_attr(ui, t->tone));
}

/* Puts the view's first line at top within nlines body lines. */
static void clamp_top(struct ui *ui, const struct ui_rows *rows)
{
	int max_top = ui->nlines - rows->body_lines;

	ui->body_lines = rows->body_lines;
	ui->top = ui->top > max_top ? max_top : ui->top;
	ui->top = ui->top < 0 ? 0 : ui->top;
}

/* The side-by-side view: one row per (device, dtype, n), a column per
 * host from first_host on as they fit, then the ratio columns that fit
 * (ui_sidebyside.h); under the rows the ratios' legend, bandwidth,
 * batching and the notes. */
static void draw_side_by_side(struct ui *ui, const struct ui_rows *rows)
{
	struct sbs_table t;
	struct ui_sbs_col *cols;
	char cell[640];
	int ncols;

	sbs_build(&ui->snap, &t);
	ncols = ui_sbs_columns(&ui->snap, &t, &cols);
	if (ui->first_host >= t.nhosts)
		ui->first_host = t.nhosts - 1;
	if (ui->first_host < 0)
		ui->first_host = 0;
	ui_sbs_layout_mode(COLS, cols, ncols, ui->first_host, ui->ratios,
			   &ui->last_host);
	for (int k = 0; k < ncols; k++)
		if (cols[k].shown)
			put(ui, rows->titles_y, cols[k].x, cols[k].title,
			    cols[k].width, cols[k].right, A_BOLD);
	free(ui->extra);
	ui->nextra = ui_workload_lines(&ui->snap, ui->utf8, COLS, &ui->extra);
	prepend_head(ui, t.nrows > 0);
	append_notes(ui);
	ui->nlines = t.nrows + ui->nextra;
	clamp_top(ui, rows);
	if (ui->nlines == 0)
		put(ui, rows->body_y, 0, "waiting for the first results", 0, 0, A_DIM);
	for (int i = 0; i < rows->body_lines && ui->top + i < ui->nlines; i++) {
		int y = rows->body_y + i, r = ui->top + i;

		if (r >= t.nrows) {
			draw_extra(ui, y, &ui->extra[r - t.nrows]);
			continue;
		}
		for (int k = 0; k < ncols; k++) {
			enum ui_tone tone;

			if (!cols[k].shown)
				continue;
			tone = ui_sbs_cell(&ui->snap, &t, r, &cols[k], cell,
					   sizeof(cell));
			put(ui, y, cols[k].x, cell, cols[k].width, cols[k].right,
			    tone_attr(ui, tone) |
				    (cols[k].kind == UI_SBS_HOST ? A_BOLD : A_NORMAL));
		}
	}
	free(cols);
	sbs_free(&t);
}

static void draw_table(struct ui *ui, const struct ui_rows *rows)
{
	struct ui_col_spec spec[UI_NCOLS];
	struct ui_col_place place[UI_NCOLS];
	enum ui_col sorted = ui_sort_column(ui->sort);
	char cell[640];
	int ngemm;

	if (ui->side_by_side) {
		draw_side_by_side(ui, rows);
		return;
	}
	ui_columns_for(&ui->snap, ui->utf8, spec);
	ui_layout_columns(COLS, spec, place);
	for (int c = 0; c < UI_NCOLS; c++)
		if (place[c].shown)
			put(ui, rows->titles_y, place[c].x, spec[c].title,
			    place[c].width, spec[c].right,
			    A_BOLD | ((int)c == (int)sorted ? A_UNDERLINE : A_NORMAL));

	ui_sort_rows(&ui->snap, ui->group, ui->sort, ui->order);
	ngemm = ui_build_lines(&ui->snap, ui->group, ui->order, ui->lines);
	free(ui->extra);
	ui->nextra = ui_workload_lines(&ui->snap, ui->utf8, COLS, &ui->extra);
	prepend_head(ui, 0);
	append_notes(ui);
	ui->nlines = ngemm + ui->nextra;
	clamp_top(ui, rows);
	if (ui->nlines == 0)
		put(ui, rows->body_y, 0, "waiting for the first results", 0, 0, A_DIM);
	for (int i = 0; i < rows->body_lines && ui->top + i < ui->nlines; i++) {
		const struct ui_line *ln;
		const struct model_row *r;
		int y = rows->body_y + i;

		if (ui->top + i >= ngemm) {
			draw_extra(ui, y, &ui->extra[ui->top + i - ngemm]);
			continue;
		}
		ln = &ui->lines[ui->top + i];
		r = &ui->snap.rows[ln->row];
		if (ln->heading) {
			rule(ui, y, ui->group == UI_GROUP_HOST ?
					    ui->snap.hosts[r->host].name :
					    bf_dtype_name(r->dtype));
			continue;
		}
		for (int c = 0; c < UI_NCOLS; c++) {
			enum ui_tone t;

			if (!place[c].shown)
				continue;
			t = ui_cell_text(&ui->snap, r, (enum ui_col)c, cell, sizeof(cell));
			if (c == UI_COL_STATE) {
				char mark[16];
				size_t used = strlen(cell);

				/* Whole or not at all: never cut. */
				if (verdict_mark(ui, ln->row, mark, sizeof(mark))[0] &&
				    used + strlen(mark) + 3 < sizeof(cell) &&
				    place[c].x + ui_text_width(cell) + 2 +
						    (int)strlen(mark) <= COLS) {
					/* fits: checked just above */
					snprintf(cell + used, sizeof(cell) - used,
						 ", %s", mark);
					if (ui->verdicts[ln->row].kind == VERDICT_SLOW ||
					    ui->verdicts[ln->row].kind == VERDICT_FAILED)
						t = UI_TONE_BAD;
				}
			}
			/* The state, last, may take the rest of the line for
			 * its verdict mark. */
			put(ui, y, place[c].x, cell,
			    c == UI_COL_STATE && COLS - place[c].x > place[c].width ?
				    COLS - place[c].x : place[c].width,
			    spec[c].right,
			    tone_attr(ui, t) | (c == UI_COL_GFLOPS ? A_BOLD : A_NORMAL));
		}
	}
}

/* The footer's key lists: in full, and in short for a narrow screen;
 * each names the view the v key switches to. */
static const char *footer_keys(const struct ui *ui, int compact)
{
	if (ui->side_by_side && !compact)
		return ui->utf8 ? "q quit  \xe2\x86\x91\xe2\x86\x93\xe2\x86\x90\xe2\x86\x92 scroll  v per host  ? help" :
				  "q quit  arrows scroll  v per host  ? help";
	if (ui->side_by_side)
		return ui->utf8 ? "q \xe2\x86\x91\xe2\x86\x93\xe2\x86\x90\xe2\x86\x92 v per host ?" :
				  "q arrows v per host ?";
	if (!compact)
		return ui->utf8 ? "q quit  \xe2\x86\x91\xe2\x86\x93 PgUp PgDn scroll  s sort  g group  v side by side  ? help" :
				  "q quit  Up/Down PgUp PgDn scroll  s sort  g group  v side by side  ? help";
	return ui->utf8 ? "q \xe2\x86\x91\xe2\x86\x93 s g v side by side ?" :
			  "q Up/Down s g v side by side ?";
}

/* The footer: the keys; at the right, which hosts the columns show (side
 * by side, when some are out of sight) and which lines; between them,
 * why a host has no Δ%. On a narrow screen the keys go short, the hosts
 * before the lines, and the Δ% note is left to the table's legend. */
static void draw_footer(struct ui *ui, int y)
{
	char right[96], *note, hosts[48], lines[48];
	const char *keys;
	int compact = 0, keys_w;

	if (atomic_load(ui->stopping)) {
		put(ui, y, 0, ui->utf8 ? "stopping: waiting for the agents to stop\xe2\x80\xa6" :
					 "stopping: waiting for the agents to stop...",
		    0, 0, tone_attr(ui, UI_TONE_BAD));
		return;
	}
	hosts[0] = lines[0] = '\0';
	if (ui->side_by_side && ui->snap.nhosts > 1 &&
	    (ui->first_host > 0 || ui->last_host < ui->snap.nhosts - 1))
		snprintf(hosts, sizeof(hosts), " hosts %d-%d of %d",
			 ui->first_host + 1, ui->last_host + 1, ui->snap.nhosts);
	if (ui->nlines > 0) {
		int last = ui->top + ui->body_lines;

		snprintf(lines, sizeof(lines), " lines %d-%d of %d", ui->top + 1,
			 last < ui->nlines ? last : ui->nlines, ui->nlines);
	}
	/* fits: hosts and lines are 48 bytes each, right 96 */
	snprintf(right, sizeof(right), "%s%s", hosts, lines);
	keys = footer_keys(ui, 0);
	if (ui_text_width(keys) >= COLS ||
	    (hosts[0] && COLS - ui_text_width(right) <= ui_text_width(keys))) {
		compact = 1;
		keys = footer_keys(ui, 1);
	}
	keys_w = ui_text_width(keys);
	if (COLS - ui_text_width(right) <= keys_w)
		/* fits: as above */
		snprintf(right, sizeof(right), "%s", hosts);
	if (COLS - ui_text_width(right) <= keys_w)
		right[0] = '\0';
	put(ui, y, 0, keys, 0, 0, A_DIM);
	if (right[0])
		put(ui, y, COLS - ui_text_width(right), right, 0, 0, A_DIM);
	/* Why a host has no Δ% (a different machine), between the keys and
	 * the line count, cut to the room there is. */
	if (!ui->side_by_side && !compact &&
	    (note = ui_delta_note(&ui->snap, ui->utf8))) {
		int room = COLS - keys_w - 1 - ui_text_width(right);

		if (room > 8)
			put(ui, y, keys_w + 1, note, room, 0,
			    tone_attr(ui, UI_TONE_DIM));
		free(note);
	}
}

/* The help box, centred; taller than the terminal, it shows the lines
 * from ui->help_top on (clamped here) and its last line says which lines
 * and how to scroll. */
static void draw_help(struct ui *ui)
{
	const char *const *all = ui_help_lines();
	const char *help[128];
	char more[64];
	int total = 0, n, w = 0, y0, x0;

	for (; all[total]; total++)
		w = ui_text_width(all[total]) > w ? ui_text_width(all[total]) : w;
	w += 4;
	n = total;
	if (n + 2 > LINES && LINES > 3) {
		int shown = LINES - 3; /* the borders and the "lines" line */

		if (ui->help_top > total - shown)
			ui->help_top = total - shown;
		if (ui->help_top < 0)
			ui->help_top = 0;
		for (n = 0; n < shown && n < 127; n++)
			help[n] = all[ui->help_top + n];
		/* fits: 8 + 3 ints of 11 + 5 + 2 + 7 + 7 = 62 bytes of 64 */
		snprintf(more, sizeof(more), "  lines %d-%d of %d, %s scroll",
			 ui->help_top + 1, ui->help_top + n, total,
			 ui->utf8 ? "\xe2\x86\x91\xe2\x86\x93" : "Up/Down");
		help[n++] = more;
	} else {
		ui->help_top = 0;
		for (n = 0; n < total && n < 128; n++)
			help[n] = all[n];
	}
	y0 = (LINES - (n + 2)) / 2;
	x0 = (COLS - w) / 2;
	y0 = y0 < 0 ? 0 : y0;
	x0 = x0 < 0 ? 0 : x0;
	for (int i = 0; i < n + 2 && y0 + i < LINES; i++) {
		const char *l = ui->utf8 ? "\xe2\x94\x82" : "|";
		const char *m = " ";

		if (i == 0 || i == n + 1) {
			l = ui->utf8 ? (i ? "\xe2\x94\x94" : "\xe2\x94\x8c") : "+";
			m = ui->utf8 ? "\xe2\x94\x80" : "-";
		}
		{
			char buf[LINE_MAX_CELLS * CELL_BYTES + 1];
			size_t off = append_whole(buf, sizeof(buf), 0, l);

			/* Room kept for the right border (3 bytes). */
			for (int k = 1; k < w - 1 && off + 8 < sizeof(buf); k++)
				off = append_whole(buf, sizeof(buf), off, m);
			if (i == 0 || i == n + 1)
				l = ui->utf8 ? (i ? "\xe2\x94\x98" : "\xe2\x94\x90") : "+";
			append_whole(buf, sizeof(buf), off, l);
			put(ui, y0 + i, x0, buf, 0, 0, A_NORMAL);
		}
		if (i > 0 && i <= n)
			put(ui, y0 + i, x0 + 2, help[i - 1], w - 4, 0,
			    help[i - 1] == more ? tone_attr(ui, UI_TONE_DIM) :
			    help[i - 1] == all[0] ? A_BOLD : A_NORMAL);
	}
}

static void draw(struct ui *ui)
{
	struct ui_rows rows;
	uint64_t now = bf_now_ns();
	uint64_t elapsed = now > ui->snap.started_ns ? now - ui->snap.started_ns : 0;

	ui->drawn_second = elapsed / 1000000000u;
	ui->dirty = 0;
	erase();
	ui_layout_rows(LINES, ui->snap.nhosts, &rows);
	draw_header(ui, elapsed);
	if (!rows.too_small) {
		draw_panel(ui, &rows);
		rule(ui, rows.rule_y, NULL);
		draw_table(ui, &rows);
		draw_footer(ui, rows.footer_y);
		if (ui->help)
			draw_help(ui);
	}
	refresh();
}

/* ---- keys and the loop ------------------------------------------------- */

static enum ui_event handle_key(struct ui *ui, int ch)
{
	int page = ui->body_lines > 1 ? ui->body_lines - 1 : 1;

	ui->dirty = 1;
	if (ch == 'q' || ch == 'Q') {
		ui->help = 0;
		return UI_EV_QUIT;
	}
	if (ui->help && ch != KEY_RESIZE) {
		/* Up/Down and the page keys scroll a help taller than the
		 * terminal (draw_help clamps); any other key closes it. */
		switch (ch) {
		case KEY_UP:
		case 'k':
			ui->help_top--;
			return UI_EV_NONE;
		case KEY_DOWN:
		case 'j':
			ui->help_top++;
			return UI_EV_NONE;
		case KEY_PPAGE:
			ui->help_top -= page;
			return UI_EV_NONE;
		case KEY_NPAGE:
		case ' ':
			ui->help_top += page;
			return UI_EV_NONE;
		default:
			ui->help = 0;
			return UI_EV_NONE;
		}
	}
	switch (ch) {
	case KEY_UP:
	case 'k':
		ui->top--;
		break;
	case KEY_DOWN:
	case 'j':
		ui->top++;
		break;
	case KEY_PPAGE:
		ui->top -= page;
		break;
	case KEY_NPAGE:
	case ' ':
		ui->top += page;
		break;
	case KEY_HOME:
		ui->top = 0;
		break;
	case KEY_LEFT:
		if (!ui->side_by_side || ui->first_host == 0)
			ui->dirty = 0;
		else
			ui->first_host--;
		break;
	case KEY_RIGHT:
		if (!ui->side_by_side || ui->last_host >= ui->snap.nhosts - 1)
			ui->dirty = 0;
		else
			ui->first_host++;
		break;
	case 'v':
		ui->side_by_side = !ui->side_by_side;
		ui->top = 0;
		break;
	case 'r': /* side by side: the ratios in place of the hosts */
		if (!ui->side_by_side) {
			ui->dirty = 0;
			break;
		}
		ui->ratios = !ui->ratios;
		ui->first_host = 0;
		break;
	case KEY_END:
		ui->top = ui->nlines; /* clamped when drawn */
		break;
	case 's': /* the per-host view's: side by side has one order */
		if (ui->side_by_side)
			ui->dirty = 0;
		else
			ui->sort = (enum ui_sort)((ui->sort + 1) % UI_NSORTS);
		break;
	case 'g':
		if (ui->side_by_side) {
			ui->dirty = 0;
			break;
		}
		ui->group = (enum ui_group)((ui->group + 1) % UI_NGROUPS);
		ui->top = 0;
		break;
	case '?':
	case 'h':
		ui->help = 1;
		ui->help_top = 0;
		break;
	case KEY_RESIZE: /* ncurses has resized stdscr; LINES, COLS are new */
		break;
	default:
		ui->dirty = 0;
		break;
	}
	if (ui->top < 0)
		ui->top = 0;
	return UI_EV_NONE;
}

/* Ctrl-Z: leave curses, stop, and come back with a full redraw. */
static void suspend(struct ui *ui)
{
	suspend_requested = 0;
	endwin();
	kill(getpid(), SIGSTOP);
	/* Continued: the next refresh restores curses' terminal modes. */
	clearok(curscr, TRUE);
	ui->dirty = 1;
}

enum ui_event ui_poll(struct ui *ui, int timeout_ms)
{
	enum ui_event ev = UI_EV_NONE;
	uint64_t now;
	int ch;

	if (suspend_requested)
		suspend(ui);
	if (take_snapshot(ui))
		ui->dirty = 1;
	now = bf_now_ns();
	if (now > ui->snap.started_ns &&
	    (now - ui->snap.started_ns) / 1000000000u != ui->drawn_second)
		ui->dirty = 1;
	if (ui->dirty)
		draw(ui);
	timeout(timeout_ms);
	ch = getch();
	while (ch != ERR && ev == UI_EV_NONE) {
		ev = handle_key(ui, ch);
		timeout(0); /* take what else is queued, then draw once */
		ch = ev == UI_EV_NONE ? getch() : ERR;
	}
	if (take_snapshot(ui))
		ui->dirty = 1;
	if (ui->dirty)
		draw(ui);
	return ev;
}

/* ---- open and close ---------------------------------------------------- */

static void capture_stderr(void)
{
	fflush(stderr);
	stderr_capture = tmpfile();
	if (!stderr_capture)
		return;
	capture_fd = fileno(stderr_capture);
	saved_stderr = dup(STDERR_FILENO);
	if (saved_stderr < 0 || dup2(capture_fd, STDERR_FILENO) < 0) {
		if (saved_stderr >= 0)
			close(saved_stderr);
		saved_stderr = -1;
		fclose(stderr_capture);
		stderr_capture = NULL;
		capture_fd = -1;
	}
}

static void release_stderr(void)
{
	char buf[4096];
	ssize_t n;

	if (saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	saved_stderr = -1;
	if (lseek(capture_fd, 0, SEEK_SET) == 0)
		while ((n = read(capture_fd, buf, sizeof(buf))) > 0)
			if (write(STDERR_FILENO, buf, (size_t)n) < 0)
				break;
	fclose(stderr_capture);
	stderr_capture = NULL;
	capture_fd = -1;
}

struct ui *ui_open(struct model *m, const char *run_id,
		   const atomic_int *stopping)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
	struct sigaction sa;
	struct ui *ui;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return NULL;
	/* A terminal that cannot move its cursor (TERM=dumb: Emacs shell
	 * buffers, some CI consoles) gets the plain lines, as a pipe does;
	 * one of unknown kind too, with a line that says why. */
	if (term && strcmp(term, "dumb") == 0)
		return NULL;
	if (!term || !*term) {
		ctl_error("TERM is not set; plain lines instead of the live table");
		return NULL;
	}
	have_tio = tcgetattr(STDIN_FILENO, &saved_tio) == 0;

	/* Before newterm, so that ncurses keeps its own SIGTSTP handler out. */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, &old_tstp);

	fflush(stdout);
	ui = bf_xcalloc(1, sizeof(*ui));
	ui->screen = newterm(NULL, stdout, stdin);
	if (!ui->screen) {
		/* An error names TERM whole (issue 28: cut at 63 bytes). */
		char *shown = bf_text_sanitize_dup(term);

		/* newterm fails when terminfo has no entry for TERM it can
		 * use (none at all, no database, a hardcopy type). */
		sigaction(SIGTSTP, &old_tstp, NULL);
		free(ui);
		ctl_error("TERM=%s: curses cannot drive this terminal (no "
			  "terminfo entry); plain lines instead of the live table",
			  shown);
		free(shown);
		return NULL;
	}
	set_term(ui->screen);
	ui->model = m;
	ui->stopping = stopping;
	/* fits: run_id is an archive's run_id, a buffer of the same size */
	snprintf(ui->run_id, sizeof(ui->run_id), "%s", run_id);
	ui->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	take_snapshot(ui);
	ui->side_by_side = ui->snap.nhosts >= 2;
	ui->dirty = 1;

	cbreak();        /* keys at once; Ctrl-C still raises SIGINT */
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	curs_set(0);
	/* NO_COLOR (no-color.org): present and not empty means no colour. */
	if (!(no_color && no_color[0]) && has_colors() && start_color() == OK) {
		int bg = use_default_colors() == OK ? -1 : COLOR_BLACK;

		init_pair(PAIR_GOOD, COLOR_GREEN, (short)bg);
		init_pair(PAIR_BAD, COLOR_RED, (short)bg);
		init_pair(PAIR_ACTIVE, COLOR_CYAN, (short)bg);
		ui->color = 1;
	}

	restore_len = 0;
	add_restore("sgr0");
	add_restore("cnorm");
	add_restore("rmkx");
	add_restore("rmcup");
	capture_stderr();
	ui_live = 1;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (size_t i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &sa, &old_crash[i]);
	bf_xmalloc_fatal_hook = on_oom;
	return ui;
}

void ui_close(struct ui *ui)
{
	if (!ui)
		return;
	bf_xmalloc_fatal_hook = NULL;
	for (size_t i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &old_crash[i], NULL);
	ui_live = 0;
	endwin();
	delscreen(ui->screen);
	if (have_tio) /* endwin restores it too; this also covers delscreen */
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	sigaction(SIGTSTP, &old_tstp, NULL);
	release_stderr();
	model_snapshot_free(&ui->snap);
	free(ui->extra);
	free(ui->order);
	free(ui->lines);
	verdict_clear(ui->verdicts, ui->nverdicts);
	free(ui->verdicts);
	free(ui);
}
