/*
 * What each cell of the live and plain tables says: display widths,
 * fitting text to a width, a host's state, a row's column texts and their
 * tones, progress bars, elapsed time; see ui_cells.h. Pure: no curses,
 * no I/O, no clocks.
 */
#include "view/ui_cells.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wchar.h>

#include "bf_text.h"
#include "view/texttable.h"
#include "view/ui_notes.h"
#include "xmalloc.h"

int ui_text_width(const char *s)
{
	return texttable_text_width(s);
}

/* Display cells of the one character at s (nbytes long): wcwidth under
 * the locale, one cell where it does not convert. */
static int char_width(const char *s, size_t nbytes)
{
	mbstate_t ps;
	wchar_t wc;
	size_t k;
	int w;

	memset(&ps, 0, sizeof(ps));
	k = mbrtowc(&wc, s, nbytes, &ps);
	if (k == (size_t)-1 || k == (size_t)-2)
		return 1;
	w = wcwidth(wc);
	return w < 0 ? 0 : w;
}

/* s made safe to draw into out (len bytes): control characters (a
 * newline in a failure reason would move the cursor) become spaces and,
 * outside UTF-8, each multi-byte character becomes one '?', so that one
 * code point is still one cell. */
static void sanitize(char *out, size_t len, const char *s, int utf8)
{
	size_t o = 0;

	for (; *s && o + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			out[o++] = ' ';
		else if (c >= 0x80 && !utf8) {
			if ((c & 0xC0) != 0x80)
				out[o++] = '?';
		} else
			out[o++] = (char)c;
	}
	/* Cut by len: drop the last character, which may be incomplete. */
	if (*s) {
		while (o > 0 && ((unsigned char)out[o - 1] & 0xC0) == 0x80)
			o--;
		if (o > 0 && (unsigned char)out[o - 1] >= 0xC0)
			o--;
	}
	out[o] = '\0';
}

void ui_fit(char *buf, size_t len, const char *raw, int width, int right,
	    int utf8)
{
	char s[4096];
	int w, keep, pad;
	size_t nbytes;
	const char *p;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (width <= 0)
		return;
	sanitize(s, sizeof(s), raw, utf8);
	w = ui_text_width(s);
	if (w <= width) {
		pad = width - w;
		bf_text_fmt(buf, len, "%*s%s%*s", right ? pad : 0, "", s,
			    right ? 0 : pad, "");
		return;
	}
	/* Cut on a character boundary, one cell left for the ellipsis; a
	 * wide character that would not fit whole is left out and its cell
	 * padded. */
	keep = width - 1;
	for (p = s; *p;) {
		const char *q = p + 1;
		int cw;

		while (((unsigned char)*q & 0xC0) == 0x80)
			q++;
		cw = char_width(p, (size_t)(q - p));
		if (cw > keep)
			break;
		keep -= cw;
		p = q;
	}
	nbytes = (size_t)(p - s);
	/* A buffer shorter than the fitted text cuts it, marked "..." */
	if (bf_text_fmt(buf, len, "%.*s%*s", (int)nbytes, s, keep, ""))
		bf_text_appendf(buf, len, "%s", utf8 ? "\xe2\x80\xa6" : "~");
}

char *ui_delta_note(const struct model_snapshot *snap, int utf8)
{
	char *note = NULL;

	for (int i = 0; i < snap->nhosts; i++) {
		const struct model_host *h = &snap->hosts[i];
		char *more;

		if (!h->baseline_note || !h->baseline_note[0])
			continue;
		more = bf_xasprintf("%s%s%s n/a for %s: %s", note ? note : "",
				    note ? "; " : "", utf8 ? "\xce\x94%" : "chg%",
				    h->name, h->baseline_note);
		free(note);
		note = more;
	}
	return note;
}

double ui_delta_pct(double now, double prev)
{
	if (isnan(now) || isnan(prev) || !(prev > 0))
		return NAN;
	return 100.0 * (now - prev) / prev;
}

enum ui_tone ui_host_state_text(const struct model_host *h, char *buf,
				size_t len)
{
	switch (h->state) {
	case HOST_PENDING:
		bf_text_fmt(buf, len, "%s", h->waiting[0] ? h->waiting : "pending");
		return UI_TONE_DIM;
	case HOST_DEPLOYING:
		if (h->upload_total_bytes > 0 &&
		    h->upload_done_bytes < h->upload_total_bytes) {
			snprintf(buf, len, "uploading %lld/%lld KiB",
				 (h->upload_done_bytes + 1023) / 1024,
				 (h->upload_total_bytes + 1023) / 1024);
			return UI_TONE_ACTIVE;
		}
		bf_text_fmt(buf, len, "%s", host_state_name(h->state));
		return UI_TONE_ACTIVE;
	case HOST_BUILDING:
		if (h->build_total > 0 && h->build_percent)
			snprintf(buf, len, "building %d%%", h->build_done);
		else if (h->build_total > 0)
			snprintf(buf, len, "building %d/%d", h->build_done,
				 h->build_total);
		else
			bf_text_fmt(buf, len, "%s", host_state_name(h->state));
		return UI_TONE_ACTIVE;
	case HOST_CONNECTING:
		bf_text_fmt(buf, len, "%s", host_state_name(h->state));
		return UI_TONE_ACTIVE;
	case HOST_RUNNING:
		if (h->gemm_total > 0)
			snprintf(buf, len, "running %d/%d", h->gemm_done,
				 h->gemm_total);
		else
			snprintf(buf, len, "running");
		return UI_TONE_ACTIVE;
	case HOST_DONE:
		snprintf(buf, len, "done");
		return UI_TONE_NORMAL;
	case HOST_FAILED:
		bf_text_fmt(buf, len, "failed%s%s",
			    h->reason && h->reason[0] ? ": " : "",
			    h->reason ? h->reason : "");
		return UI_TONE_BAD;
	case HOST_INTERRUPTED:
		snprintf(buf, len, "interrupted");
		return UI_TONE_DIM;
	}
	bf_text_fmt(buf, len, "%s", host_state_name(h->state));
	return UI_TONE_NORMAL;
}

enum ui_tone ui_host_panel_text(const struct model_host *h, char *buf,
				size_t len)
{
	enum ui_tone tone = ui_host_state_text(h, buf, len);
	size_t used = strlen(buf);
	char last[48] = "";

	if (h->state != HOST_RUNNING || used + 1 >= len)
		return tone;
	if (h->prev_wall_s > 0 && h->prev_wall_s < 60)
		snprintf(last, sizeof(last), "%.1f s", h->prev_wall_s);
	else if (h->prev_wall_s > 0)
		ui_fmt_elapsed(last, sizeof(last),
			       (uint64_t)(h->prev_wall_s * 1e9));
	/* A cell: a cut ends in "..." */
	if (h->gemm_done == 0 && h->plan[0])
		bf_text_appendf(buf, len, ": %s%s%s", h->plan,
				last[0] ? "; last time " : "", last);
	else if (last[0])
		bf_text_appendf(buf, len, ", last time %s", last);
	return tone;
}

enum ui_tone ui_fmt_num(char *buf, size_t len, double v, int decimals,
			const char *suffix)
{
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return UI_TONE_DIM;
	}
	bf_text_fmt(buf, len, "%.*f%s", decimals, v, suffix);
	return UI_TONE_NORMAL;
}

enum ui_tone ui_cell_text(const struct model_snapshot *snap, const struct model_row *r,
			  enum ui_col c, char *buf, size_t len)
{
	const struct model_checks *ck;
	double d;

	buf[0] = '\0';
	switch (c) {
	case UI_COL_HOST:
		bf_text_fmt(buf, len, "%s", snap->hosts[r->host].name);
		return UI_TONE_NORMAL;
	case UI_COL_DEVICE:
		bf_text_fmt(buf, len, "%s", r->device);
		return UI_TONE_NORMAL;
	case UI_COL_DTYPE:
		/* fits: a dtype name is 5 bytes at most, a cell 64 or more */
		snprintf(buf, len, "%s", bf_dtype_name(r->dtype));
		return UI_TONE_NORMAL;
	case UI_COL_N:
		if (r->occurrence > 1)
			snprintf(buf, len, "%d#%d", r->n, r->occurrence);
		else
			snprintf(buf, len, "%d", r->n);
		return UI_TONE_NORMAL;
	case UI_COL_GFLOPS:
		if (!isnan(r->gflops) && r->reliable == 0) {
			char marks[64];

			ui_row_marks(snap, r, marks, sizeof(marks));
			bf_text_fmt(buf, len, "%.1f%s%s", r->gflops,
				    UI_UNRELIABLE_MARK, marks);
			return UI_TONE_DIM;
		}
		return ui_fmt_num(buf, len, r->gflops, 1, "");
	case UI_COL_PCT_PEAK:
		d = 100.0 * r->fraction_of_peak;
		if (r->peak_derived && !isnan(d)) {
			/* Of an upper-estimate peak: at least this much. */
			snprintf(buf, len, ">%.*f%%", d < 9.95 ? 1 : 0, d);
			return UI_TONE_NORMAL;
		}
		return ui_fmt_num(buf, len, d, !isnan(d) && d < 9.95 ? 1 : 0, "%");
	case UI_COL_VS_REF:
		/* 0 in a zeroed row: no reference */
		d = r->reference_gflops > 0 ? 100.0 * r->fraction_of_reference :
					      NAN;
		if (isnan(d))
			return ui_fmt_num(buf, len, d, 0, "%");
		if (r->below_reference == 1) {
			bf_text_fmt(buf, len, "%.0f%%%s", d, UI_BELOW_REF_MARK);
			return UI_TONE_BAD;
		}
		return ui_fmt_num(buf, len, d, 0, "%");
	case UI_COL_PCT_ROOF:
		d = 100.0 * r->fraction_of_roofline;
		return ui_fmt_num(buf, len, d, !isnan(d) && d < 9.95 ? 1 : 0,
			       r->bound == 'M' ? "% M" :
			       r->bound == 'C' ? "% C" : "%");
	case UI_COL_DELTA:
		d = ui_delta_pct(r->gflops, r->prev_gflops);
		if (isnan(d))
			return ui_fmt_num(buf, len, d, 1, "");
		/* The tone follows the printed value, so "+0.0%" is not
		 * green and a rounded-away change has no colour. */
		d = round(d * 10.0) / 10.0;
		if (d == 0.0) {
			snprintf(buf, len, "0.0%%");
			return UI_TONE_NORMAL;
		}
		snprintf(buf, len, "%+.1f%%", d);
		return d > 0 ? UI_TONE_GOOD : UI_TONE_BAD;
	case UI_COL_MEDIAN:
		return ui_fmt_num(buf, len, r->median_ms, 3, "");
	case UI_COL_VS_FP32:
		return ui_fmt_num(buf, len, r->vs_fp32, 2, "x");
	case UI_COL_GPU_VS_CPU:
		return ui_fmt_num(buf, len, r->gpu_vs_cpu, 1, "x");
	case UI_COL_PEAK:
		return ui_fmt_num(buf, len, r->peak_mib, 0, "");
	case UI_COL_ENERGY:
		d = r->gflop_per_joule;
		return ui_fmt_num(buf, len, d, !isnan(d) && d < 9.95 ? 2 : 1, "");
	case UI_COL_CHECKS:
		ck = model_snapshot_checks(snap, r->host, r->device);
		if (!ck) {
			snprintf(buf, len, "n/a");
			return UI_TONE_DIM;
		}
		if (ck->passed + ck->failed == 0) {
			snprintf(buf, len, "skip");
			return UI_TONE_DIM;
		}
		snprintf(buf, len, "%d/%d", ck->passed, ck->failed);
		return ck->failed ? UI_TONE_BAD : UI_TONE_NORMAL;
	case UI_COL_STATE:
		if (r->status == BF_STATUS_FAIL || r->status == BF_STATUS_SKIPPED) {
			ui_status_text(snap, r->status, r->reason, buf, len);
			return r->status == BF_STATUS_FAIL ? UI_TONE_BAD :
							     UI_TONE_DIM;
		}
		/* A significant change from its recent runs, not only from
		 * the last one (model/recent.h). */
		if (r->recent_note[0]) {
			bf_text_fmt(buf, len, "%s", r->recent_note);
			return r->recent_slower ? UI_TONE_BAD : UI_TONE_GOOD;
		}
		return ui_host_state_text(&snap->hosts[r->host], buf, len);
	case UI_NCOLS:
		break;
	}
	return UI_TONE_NORMAL;
}

int ui_host_progress(const struct model_host *h)
{
	long checks = 0, gemm = 0;

	if (h->state == HOST_DONE)
		return 1000;
	/* The long work before the agent runs has a bar of its own. */
	if (h->state == HOST_DEPLOYING && h->upload_total_bytes > 0) {
		long long v = 1000 * h->upload_done_bytes / h->upload_total_bytes;

		return v < 0 ? 0 : v > 1000 ? 1000 : (int)v;
	}
	if (h->state == HOST_BUILDING && h->build_total > 0)
		return 1000 * ui_imin(ui_imax(h->build_done, 0), h->build_total) /
		       h->build_total;
	if (h->checks_total > 0)
		checks = 100L * ui_imin(ui_imax(h->checks_done, 0), h->checks_total) /
			 h->checks_total;
	else if (h->gemm_total > 0)
		checks = 100; /* no checks planned: nothing to wait for */
	if (h->gemm_total > 0)
		gemm = 900L * ui_imin(ui_imax(h->gemm_done, 0), h->gemm_total) /
		       h->gemm_total;
	return (int)(checks + gemm);
}

/* Appends s at *off in buf, whole or not at all (never half a UTF-8
 * character); 0 when it did not fit. */
static int put(char *buf, size_t len, size_t *off, const char *s)
{
	size_t n = strlen(s);

	if (n >= len - *off)
		return 0;
	memcpy(buf + *off, s, n + 1);
	*off += n;
	return 1;
}

void ui_bar(char *buf, size_t len, int width, int done, int total, int utf8)
{
	/* U+2588 full block, U+258F..U+2589 one to seven eighths, U+2591
	 * light shade. */
	static const char *const eighths[8] = {
		"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
		"\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89",
	};
	long long units = 0;
	int full, part, cells = 0;
	size_t off = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (width <= 0)
		return;
	if (total > 0)
		units = (long long)ui_imin(ui_imax(done, 0), total) * width * 8 / total;
	full = (int)(units / 8);
	part = utf8 ? (int)(units % 8) : 0;
	for (; cells < full; cells++)
		if (!put(buf, len, &off, utf8 ? "\xe2\x96\x88" : "#"))
			return;
	if (part) {
		if (!put(buf, len, &off, eighths[part]))
			return;
		cells++;
	}
	for (; cells < width; cells++)
		if (!put(buf, len, &off, utf8 ? "\xe2\x96\x91" : "."))
			return;
}

void ui_fmt_elapsed(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;

	if (s >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu",
			 (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llu:%02llu", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
}
