/* ctl's signal handlers; see signals.h. */
#include <signal.h>
#include <string.h>

#include "base/signals.h"

atomic_int ctl_interrupted;

/* Records which signal stopped the run (run.json's reason says). */
static void on_signal(int sig)
{
	ctl_interrupted = sig;
}

void ctl_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* A closed terminal (HUP) or SIGQUIT stops the run as Ctrl-C does:
	 * the agents are stopped, run.json and the table are written. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* A file size limit (ulimit -f) is then the write's error (EFBIG),
	 * reported as a full disk is, not a killed ctl. */
	sigaction(SIGXFSZ, &sa, NULL);
}
