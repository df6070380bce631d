/*
 * The words the table views share, below every one of them: a cell's or
 * line's tone, the marks a cell carries, a line of text with its tone,
 * and two small helpers. A header alone (no functions to link), so that
 * ui_cells.c, ui_notes.c and ui_layout.c can all use it and still depend
 * on one another one way only: ui_layout.c on ui_cells.c on ui_notes.c.
 */
#ifndef BF_UI_TYPES_H
#define BF_UI_TYPES_H

/* How a cell or line should stand out; ui_curses.c maps tones to colours,
 * or to bold and reverse video under NO_COLOR. */
enum ui_tone {
	UI_TONE_NORMAL,
	UI_TONE_GOOD,     /* a faster result than last time */
	UI_TONE_BAD,      /* failed: host, check, verification; slower */
	UI_TONE_ACTIVE,   /* a host at work */
	UI_TONE_DIM,      /* skipped, pending, n/a */
};

/* Appended to an unreliable row's GFLOP/s ("51.2?"). */
#define UI_UNRELIABLE_MARK "?"

/* Appended to a vs ref cell below BF_REFERENCE_HEALTHY_FRACTION of its
 * reference ("62%!"): "below reference". */
#define UI_BELOW_REF_MARK "!"

/* One line of text with its tone: of the sections under the GEMM rows
 * (ui_workload_lines, ui_layout.h) or of the notes (ui_note_lines). */
struct ui_text_line {
	int heading;       /* 1: a section title, drawn as a rule */
	int titles;        /* 1: the section's column titles */
	enum ui_tone tone; /* of the line (a failure: bad; skipped: dim) */
	char text[512];
};

/* The larger and the smaller of two ints (widths, counts). */
static inline int ui_imax(int a, int b)
{
	return a > b ? a : b;
}

static inline int ui_imin(int a, int b)
{
	return a < b ? a : b;
}

#endif
