/*
 * `ctl run local`: the agent built beside ctl, run as a child process with
 * no SSH, started and read by base/proc.c. stdout is read line by line as
 * it arrives (base/linesplit.c, capped at BF_RECORD_MAX_BYTES) into the
 * session; stderr goes to the host's log (agent_stderr.c, capped as over
 * SSH) and its last lines into a tail (base/tail.c, as over SSH) for the
 * failure's reason. The child gets its own process group, so a Ctrl-C
 * reaches ctl alone and ctl stops the agent (SIGTERM) and archives what
 * arrived; if ctl dies instead, --exit-on-hangup makes the agent stop.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "base/tail.h"
#include "bf_text.h"
#include "run/agent_stderr.h"
#include "run/runner.h"
#include "run/session.h"
#include "schema.h"
#include "xmalloc.h"

extern char **environ;

/* The agent binary: $BENCHFLEET_AGENT, else "agent" beside ctl (which
 * gives way to "agent-cpu" beside it when it does not start: run_local).
 * Caller frees. */
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

/* proc_chunk_fn: stderr into a tail (base/tail.h). */
static void keep_stderr(void *arg, const char *buf, size_t n)
{
	tail_append(arg, buf, n);
}

/* A tail of TAIL_STDERR_BYTES, the cut every runner keeps of the agent's
 * last words; exits as bf_xmalloc does when out of memory. */
static void stderr_tail_init(struct tail *t)
{
	if (tail_init(t, TAIL_STDERR_BYTES) != 0)
		bf_xmalloc_fatal("agent stderr tail");
}

/* Whether the agent at path starts here: `agent --version` exits 0.
 * When it does not, why (len bytes) gets the last line of what it said
 * (the dynamic loader's "error while loading shared libraries:
 * libcudart.so.13: cannot open shared object file: ..."), or its exit. */
static int agent_starts(const char *path, const atomic_int *cancel,
			char *why, size_t len)
{
	char *argv[] = { (char *)path, "--version", NULL };
	char *text, *last, *detail = bf_xcalloc(len ? len : 1, 1);
	struct tail tail;
	int status = 0, stopped = 0, starts = 0;
	size_t n;

	stderr_tail_init(&tail);
	if (proc_run_lines(path, argv, NULL, 4096, NULL, NULL, keep_stderr,
			   &tail, cancel, &status, &stopped, detail,
			   len ? len : 1) != BF_OK) {
		/* fits: detail is as long as why (and bf_fail marks its
		 * own cuts). */
		snprintf(why, len, "%s", detail);
		goto out;
	}
	starts = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (starts)
		goto out;
	text = tail.data;
	n = tail.len_bytes;
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	last = strrchr(text, '\n');
	last = last ? last + 1 : text;
	if (*last)
		bf_text_sanitize(why, len, last);
	else
		snprintf(why, len, "exit %d", WIFEXITED(status) ?
						 WEXITSTATUS(status) : -1);
out:
	free(detail);
	tail_free(&tail);
	return starts;
}

/* ctl's environment and BF_AGENT_NO_CUDA=<reason> (the agent's
 * no_cuda_reason), a new NULL-terminated array whose one new string is
 * *added; the others are borrowed. Caller frees both. */
static char **env_with_reason(const char *reason, char **added)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = bf_xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "BF_AGENT_NO_CUDA=", 17) != 0)
			env[k++] = environ[i];
	*added = bf_xasprintf("BF_AGENT_NO_CUDA=%s", reason);
	env[k] = *added;
	return env;
}

/* proc_chunk_fn: the agent's stderr into the host's log (agent_stderr.c,
 * as over SSH) and into the tail its last words are read from (as
 * remote_exec keeps it). */
struct local_err {
	struct agent_stderr log;
	struct tail tail;
};

static void local_stderr(void *arg, const char *buf, size_t n)
{
	struct local_err *e = arg;

	agent_stderr_write(&e->log, buf, n);
	tail_append(&e->tail, buf, n);
}

static enum bf_err run_local(struct host_ctx *h, char *detail, size_t detail_len)
{
	char *path = runner_local_agent_path(), **args = h->agent_argv, **argv;
	struct local_err e = { 0 };
	char *cpu = NULL, **env = NULL, *added = NULL, why[512];
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
	/* An agent built with CUDA that does not start here (no CUDA
	 * libraries: a package built with CUDA, installed on a machine
	 * without) gives way to agent-cpu beside it, told why. Not when
	 * $BENCHFLEET_AGENT names the agent. */
	cpu = bf_xasprintf("%s-cpu", path);
	if (!(getenv("BENCHFLEET_AGENT") && *getenv("BENCHFLEET_AGENT")) &&
	    access(cpu, X_OK) == 0 &&
	    !agent_starts(path, h->cancel, why, sizeof(why))) {
		char *reason = bf_xasprintf(
			"the CUDA agent (%s) does not start here: %s; ran "
			"agent-cpu instead", path, why);

		env = env_with_reason(reason, &added);
		free(reason);
		free(path);
		path = cpu;
		cpu = NULL;
		argv[0] = path;
	}
	agent_stderr_init(&e.log, h);
	stderr_tail_init(&e.tail);
	err = proc_run_lines(path, argv, env, BF_RECORD_MAX_BYTES,
			     session_feed_line, h, local_stderr, &e,
			     h->cancel, &status, &stopped, detail,
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
					  sig ? sig : "?",
					  tail_text(&e.tail, NULL), detail,
					  detail_len);
	}
out:
	tail_free(&e.tail);
	free(argv);
	free(path);
	free(cpu);
	free(env);
	free(added);
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
