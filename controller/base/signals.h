/*
 * How ctl is stopped: the signals that end a run as Ctrl-C does, and the
 * one flag they set, which every loop that waits on a host polls.
 */
#ifndef BF_SIGNALS_H
#define BF_SIGNALS_H

#include <stdatomic.h>

/* Set by SIGINT/SIGTERM handlers (which do nothing else); every loop that
 * waits on a host polls it, from the host threads and the UI thread. An
 * atomic_int (lock-free on every target: storing it is async-signal-safe,
 * C11 7.14.1.1), so plain reads and writes of it are atomic accesses. */
extern atomic_int ctl_interrupted;

/* Installs the handlers that set ctl_interrupted on SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT (to the signal's number) and ignores SIGPIPE and
 * SIGXFSZ (a write past ulimit -f fails with EFBIG instead). */
void ctl_catch_signals(void);

#endif
