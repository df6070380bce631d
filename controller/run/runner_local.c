/*
 * `ctl run local`: the agent built beside ctl, run as a child process with
 * no SSH. stdout is read line by line as it arrives (linesplit.c, capped
 * at BF_RECORD_MAX_BYTES) into the session; stderr goes to the host's log
 * (agent_stderr.c, capped as over SSH). The child gets its own process
 * group, so a Ctrl-C reaches
 * ctl alone and ctl stops the agent (SIGTERM) and archives what arrived;
 * if ctl dies instead, --exit-on-hangup makes the agent stop.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/agent_stderr.h"
#include "run/child.h"
#include "run/runner.h"
#include "run/session.h"
#include "schema.h"
#include "xmalloc.h"

extern char **environ;

/* The agent binary: $BENCHFLEET_AGENT, else "agent" beside ctl. Caller
 * frees. */
char *runner_local_agent_path(void)
{
	const char *env = getenv("BENCHFLEET_AGENT");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env)
		return bf_xstrdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return bf_xstrdup("agent");
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		slash[1] = '\0';
	return bf_xasprintf("%sagent", self);
}

/* child_err_fn: the agent's stderr into the host's log (agent_stderr.c,
 * as over SSH) and errtail. */
struct local_err {
	struct agent_stderr log;
	char tail[512];
};

static void local_stderr(void *arg, const char *buf, size_t n)
{
	struct local_err *e = arg;

	agent_stderr_write(&e->log, buf, n);
	child_tail_append(e->tail, sizeof(e->tail), buf, n);
}

static enum bf_err run_local(struct host_ctx *h, char *detail, size_t detail_len)
{
	char *path = runner_local_agent_path(), **args = h->agent_argv, **argv;
	struct local_err e = { .tail = "" };
	enum bf_err err;
	int status = 0, stopped = 0, argc = 0;

	while (args[argc])
		argc++;
	argv = bf_xcalloc((size_t)argc + 2, sizeof(*argv));
	argv[0] = path;
	memcpy(argv + 1, args, (size_t)argc * sizeof(*argv));

	session_progress(h, HOST_RUNNING, NULL);
	if (access(path, X_OK) != 0) {
		err = bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			      "agent not found at %s: build it first (cmake --build build)",
			      path);
		goto out;
	}
	agent_stderr_init(&e.log, h);
	err = child_run(path, argv, BF_RECORD_MAX_BYTES, session_feed_line, h,
			local_stderr, &e, h->cancel, &status, &stopped, detail,
			detail_len);
	agent_stderr_end(&e.log);
	if (err != BF_OK)
		goto out;
	if (*h->cancel) {
		err = bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
			      "interrupted: agent stopped");
	} else {
		const char *sig = WIFSIGNALED(status) ?
					  sigabbrev_np(WTERMSIG(status)) : NULL;

		err = session_agent_ended(h, WIFEXITED(status) ?
						     WEXITSTATUS(status) : -1,
					  sig ? sig : "?", e.tail, detail,
					  detail_len);
	}
out:
	free(argv);
	free(path);
	return err;
}

/* This machine, as the files say (run/machine.h). */
static enum bf_err identify_local(struct host_ctx *h, struct machine_id *id,
				  char *detail, size_t detail_len)
{
	(void)h;
	(void)detail;
	(void)detail_len;
	machine_id_local(id);
	return BF_OK;
}

const struct runner runner_local = {
	.name = "local",
	.run = run_local,
	.identify = identify_local,
};
