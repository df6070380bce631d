/*
 * The live table of `ctl run` on a terminal (nvtop's interface.h is the
 * model): curses behind an opaque handle. ui_curses.c is the only file
 * that includes curses.h, whose macros (refresh, timeout, clear, move, ...)
 * would rewrite identically named members elsewhere. What goes where is
 * decided by ui_layout.c; this file only draws, reads keys and restores
 * the terminal.
 *
 * Threads: every function here runs on one thread (ctl run's main
 * thread), which does no host I/O; host threads only feed the model,
 * which the UI copies under the model's lock.
 */
#ifndef BF_UI_CURSES_H
#define BF_UI_CURSES_H

#include <stdatomic.h>

#include "model/model.h"
#include "model/references.h"

struct ui;

/* Opens the live table on the terminal for model m: the alternate screen,
 * no echo, keys read from stdin. Returns NULL (and leaves the terminal as
 * it was) when stdin or stdout is not a terminal or curses cannot drive it
 * (TERM "dumb"; or unset, or unknown to terminfo, each said in one line
 * on stderr); the caller then prints plain lines. run_id is shown in
 * the header; *stopping (read only, atomically) turns the footer into
 * "stopping" once set (q or Ctrl-C). Colours unless NO_COLOR is set and non-empty; UTF-8
 * rules and bars only when the locale's codeset is UTF-8 (setlocale must
 * have been called). While open, stderr goes to a temporary file that
 * ui_close copies back, so stray messages cannot tear the screen; a crash
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) or an out-of-memory abort
 * restores the terminal first. Caller frees with ui_close. */
struct ui *ui_open(struct model *m, const char *run_id,
		   const atomic_int *stopping);

/* The reference ranges the live verdict compares with (references_load;
 * not owned: must outlive ui, or be replaced first; NULL: none). The
 * live table marks each measured row's state with its verdict so far
 * ("done, ok", "done, SLOW", "done, unknown"; "?" when the row is
 * unreliable) from its peers in the run and the references
 * (verdict_snapshot; no history: the final verdict has it), and the
 * header sums the devices up ("verdict 3 ok, 1 SLOW"). */
void ui_set_references(struct ui *ui, const struct ref_set *refs);

enum ui_event {
	UI_EV_NONE,
	UI_EV_QUIT,   /* the user pressed q */
};

/* Waits up to timeout_ms for a key, handles it (scroll, sort, group, help,
 * resize, suspend) and redraws when something changed: the model, the
 * terminal size, the view, or the clock's second. Blocks at most
 * timeout_ms plus one redraw. */
enum ui_event ui_poll(struct ui *ui, int timeout_ms);

/* Leaves curses and restores the terminal as ui_open found it, then
 * copies what was written to stderr meanwhile. ui_close(NULL) does
 * nothing. */
void ui_close(struct ui *ui);

#endif
