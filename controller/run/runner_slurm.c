/*
 * A Slurm cluster (a "kind": "slurm" group in a hosts/ file): one agent per
 * node, all in one job, started with srun from the cluster's login host
 * (over SSH, or this machine when login is "local").
 *
 * The session gives each task rank of the cluster a host context of its
 * own ("NAME/0" .. "NAME/<nodes-1>"); the first rank's thread to start
 * runs the job for all of them (the leader) and the others wait for it,
 * then report their own node's end. In order:
 *
 *  1. deploy: the agent's sources and the task script (bf-task.sh, below)
 *     go to <workdir>/<source hash>/ on the login host, which compute
 *     nodes must share (a half-uploaded tree is never used: it is staged
 *     and renamed into place);
 *  2. build: `srun -N1 ... bf-task.sh build` builds the agent on a compute
 *     node into build-<arch>-<target>-<compiler version>[-cuda<v>]
 *     [-sm<compute capabilities>]/ of that directory, once per
 *     architecture, toolchain and GPU kind (the CUDA code is built for the
 *     node's GPUs; a node of another kind builds its own when its task
 *     finds none);
 *  3. run: `srun -N<nodes> --ntasks-per-node=1 --label ... bf-task.sh run
 *     ARGS` runs one agent per node. Each task first prints its node's
 *     name (SLURMD_NODENAME) and the job id; the rank's host is renamed to
 *     the node (its archive files with it) and the job id recorded.
 *
 * Why --label, and framing: srun multiplexes every task's stdout into its
 * own; --label prefixes each line with the task id, which is what tells
 * the nodes' records apart as they stream (--output=%t files would need
 * polling the shared file system). But srun forwards output in chunks of
 * at most 1 KiB and labels each chunk as a line of its own, so a longer
 * record would come apart. The task script therefore frames every line
 * itself: pieces of at most 900 bytes, "+" before all but the last, "="
 * before the last of a stdout line and "!" before the last of a stderr
 * line; "@node", "@exit" and "@build..." lines carry the rest. ctl joins
 * the pieces per task id.
 *
 * One node failing never stops the others: the task script always exits
 * 0 after reporting the agent's status ("@exit N"), and srun runs with
 * --kill-on-bad-exit=0 --no-kill --wait=0. A node is timed by
 * --host-timeout from its task's start (not while the job is queued) to
 * its agent's reported end; a silent node that is timed out waits for
 * the rest. The job stops when no node needs it: on Ctrl-C, or once every
 * node has ended or been timed out (see slurm_watch). ctl then stops srun
 * and scancels the job by its name (bf-<run id>-<cluster>), which also
 * reaches a job still queued, whose id no task has printed yet; so does
 * a lost login connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bf_parse.h"
#include "base/linesplit.h"
#include "base/tail.h"
#include "remote/remote_ssh.h"
#include "run/embedded.h"
#include "run/runner.h"
#include "run/session.h"
#include "run/slurm_login.h"
#include "schema.h"
#include "xmalloc.h"

extern char **environ;

#define DEFAULT_WORKDIR "~/.cache/benchfleet-slurm"
#define TASK_SCRIPT "bf-task.sh"
#define ERRTAIL_BYTES 1024

/* The task script, run by srun on each node (see the top of this file).
 * Argument 1: build | run; the rest are the agent's. */
static const char task_script[] =
	"# benchfleet: one Slurm task (controller/run/runner_slurm.c). $1: build | run;\n"
	"# the rest are the agent's arguments. Every stdout line is framed for ctl.\n"
	"mode=$1; shift\n"
	"src=$(cd \"$(dirname \"$0\")\" && pwd) || exit 1\n"
	"echo \"@node ${SLURMD_NODENAME:-$(hostname)} ${SLURM_JOB_ID:-none} ${SLURM_PROCID:-0}\"\n"
	"frame() { LC_ALL=C awk -v k=\"$1\" '{ while (length($0) > 900) "
	"{ print \"+\" substr($0, 1, 900); $0 = substr($0, 901) } print k $0; fflush() }'; }\n"
	"PATH=\"$PATH:/usr/local/cuda/bin\"; export PATH\n"
	"cuda=$(command -v nvcc >/dev/null 2>&1 && nvcc --version 2>/dev/null | "
	"sed -n 's/.*release \\([0-9.]*\\).*/cuda\\1/p')\n"
	"gpus=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | "
	"grep -E '^[0-9]+\\.[0-9]+$' | sort -u | tr -d . | tr '\\n' _ | sed 's/_$//')\n"
	"key=$(printf '%s-%s-%s%s%s' \"$(uname -m)\" \"$(cc -dumpmachine 2>/dev/null)\" "
	"\"$(cc -dumpfullversion 2>/dev/null || cc -dumpversion 2>/dev/null)\" "
	"\"${cuda:+-$cuda}\" \"${gpus:+-sm$gpus}\" | tr -c 'A-Za-z0-9._-' '_')\n"
	"b=\"$src/build-$key\"\n"
	"if [ ! -x \"$b/bin/agent\" ]; then\n"
	"\tt=\"$b.tmp-$(hostname)-$$\"\n"
	"\techo \"@building $key\"\n"
	"\tg=; if ! command -v make >/dev/null 2>&1 && command -v ninja >/dev/null 2>&1; then g=Ninja; fi\n"
	"\tif { cmake ${g:+-G \"$g\"} -S \"$src\" -B \"$t\" -DCMAKE_BUILD_TYPE=Release -DBF_BUILD_CONTROLLER=OFF "
	"-DBF_BUILD_TESTS=OFF -DBF_AGENT_SOURCE_HASH=\"$(basename \"$src\")\" && "
	"cmake --build \"$t\" -j\"$(nproc 2>/dev/null || echo 2)\"; } >\"$t.log\" 2>&1 && "
	"[ -x \"$t/bin/agent\" ]; then\n"
	"\t\tmv -T \"$t\" \"$b\" 2>/dev/null || rm -rf \"$t\"\n"
	"\t\trm -f \"$t.log\"\n"
	"\telse\n"
	"\t\ttail -n 200 \"$t.log\" | frame '!'\n"
	"\t\trm -rf \"$t\" \"$t.log\"\n"
	"\t\techo \"@build-failed $key\"\n"
	"\t\texit 0\n"
	"\tfi\n"
	"fi\n"
	"if [ \"$mode\" = build ]; then echo \"@built $key\"; exit 0; fi\n"
	"e=$(mktemp) && r=$(mktemp) || exit 1\n"
	"{ \"$b/bin/agent\" \"$@\" 2>\"$e\"; echo $? >\"$r\"; } | frame '='\n"
	"frame '!' <\"$e\"\n"
	"echo \"@exit $(cat \"$r\")\"\n"
	"rm -f \"$e\" \"$r\"\n"
	"exit 0\n";

/* ---- the job shared by a cluster's ranks -------------------------------- */

struct rank {
	struct host_ctx *h;
	char *piece;            /* a framed line being joined */
	size_t len;
	int cut;                /* it went past BF_RECORD_MAX_BYTES */
	int exit_status;        /* from "@exit"; -1 until then */
	int named;              /* "@node" arrived */
	struct tail errtail;    /* the agent's last stderr lines; buf NULL
				 * until the first */
};

struct slurm_job {
	const struct inv_group *g;
	struct rank *ranks;
	int nranks;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int started, finished;
	enum bf_err err;        /* the job as a whole (deploy, build, srun) */
	char detail[1024];
	char *job_name;  /* "bf-<run id>-<cluster>", a key (scancel --name):
			  * whole, however long the cluster's name */
	char build_failed[ERRTAIL_BYTES]; /* "@build-failed" text; "" */
	struct rank *build;     /* collects the build step's lines */
	atomic_int stop;        /* no rank needs the job (slurm_watch) */
};

/* Keeps the newest lines of the agent's stderr (whole lines, as the
 * reason of a failed agent is its last line), cut as ctl run local and
 * SSH cut them (base/tail.h). */
static void rank_errtail_add(struct rank *rk, const char *line, size_t len)
{
	if (!rk->errtail.buf &&
	    tail_init(&rk->errtail, TAIL_STDERR_BYTES) != 0)
		bf_xmalloc_fatal("agent stderr tail");
	tail_append(&rk->errtail, line, len);
	tail_append(&rk->errtail, "\n", 1);
}

/* One framed line of rank rk (label removed). */
static void rank_line(struct slurm_job *job, struct rank *rk, const char *p,
		      size_t len)
{
	struct host_ctx *h = rk->h;
	char detail[256];

	if (len == 0)
		return;
	if (p[0] == '+' || p[0] == '=' || p[0] == '!') {
		size_t add = len - 1;

		if (rk->len + add > BF_RECORD_MAX_BYTES) {
			add = rk->len < BF_RECORD_MAX_BYTES ?
				      BF_RECORD_MAX_BYTES - rk->len : 0;
			rk->cut = 1;
		}
		rk->piece = bf_xrealloc(rk->piece, rk->len + add + 1);
		memcpy(rk->piece + rk->len, p + 1, add);
		rk->len += add;
		rk->piece[rk->len] = '\0';
		if (p[0] == '+')
			return;
		if (p[0] == '=') {
			session_feed_line(h, rk->piece, rk->len, rk->cut);
		} else {
			fprintf(h->log, "%s\n", rk->piece);
			fflush(h->log);
			rank_errtail_add(rk, rk->piece, rk->len);
		}
		rk->len = 0;
		rk->cut = 0;
		return;
	}
	if (len > 6 && strncmp(p, "@node ", 6) == 0 && !rk->named) {
		/* Whole words (glibc's %ms): the node's name becomes the
		 * host's, a key never cut (session_rename_host refuses one
		 * too long, saying so in the log). */
		char *node = NULL, *jobid = NULL;

		if (sscanf(p + 6, "%ms %ms", &node, &jobid) >= 1) {
			rk->named = 1;
			if (rk != job->build)
				session_agent_started(h);
			if (rk != job->build &&
			    session_rename_host(h, node, detail,
						sizeof(detail)) != BF_OK)
				fprintf(h->log, "%s\n", detail);
			if (jobid && strcmp(jobid, "none") != 0)
				session_set_slurm_job(h, jobid);
			fprintf(h->log, "slurm: node %s, job %s\n", node,
				jobid ? jobid : "");
		}
		free(node);
		free(jobid);
		return;
	}
	if (len > 6 && strncmp(p, "@exit ", 6) == 0) {
		long st;

		if (bf_parse_long(p + 6, 0, 255, &st) == 0)
			rk->exit_status = (int)st;
		if (rk != job->build)
			h->agent_ended = 1;
		return;
	}
	if (len > 14 && strncmp(p, "@build-failed ", 14) == 0) {
		tail_keep_end(job->build_failed, sizeof(job->build_failed),
			      rk->errtail.data, rk->errtail.len_bytes);
		return;
	}
	if (strncmp(p, "@building ", 10) == 0)
		session_progress(h, HOST_BUILDING, NULL);
	fprintf(h->log, "slurm: %.*s\n", (int)len, p);
	fflush(h->log);
}

/* A labelled line of srun's stdout: "<task id>: <framed line>", the id
 * padded with spaces to the widest. */
static enum bf_err srun_line(void *arg, const char *line, size_t len,
			     int truncated)
{
	struct slurm_job *job = arg;
	const char *p = line, *end = line + len;
	long task = 0;
	int digits = 0;

	while (p < end && *p == ' ')
		p++;
	while (p < end && *p >= '0' && *p <= '9' && digits < 6) {
		task = task * 10 + (*p++ - '0');
		digits++;
	}
	if (!digits || p + 1 >= end || p[0] != ':' || p[1] != ' ')
		return BF_OK; /* not a task's line (srun prints to stderr) */
	p += 2;
	if (job->build)
		rank_line(job, job->build, p, (size_t)(end - p));
	else if (task < job->nranks)
		rank_line(job, &job->ranks[task], p, (size_t)(end - p));
	return BF_OK;
}

/* A shell word for an absolute path. Caller frees. */
static char *word(const char *s)
{
	return remote_quote(s);
}

/* srun's options shared by the build and the run. Caller frees. */
static char *srun_common(const struct inv_slurm *sl, const char *job_name)
{
	char *parts[6] = { 0 }, *q, *out;
	int n = 0;

	q = word(job_name);
	parts[n++] = bf_xasprintf("--job-name=%s", q);
	free(q);
	if (sl->partition) {
		q = word(sl->partition);
		parts[n++] = bf_xasprintf(" --partition=%s", q);
		free(q);
	}
	if (sl->gres) {
		q = word(sl->gres);
		parts[n++] = bf_xasprintf(" --gres=%s", q);
		free(q);
	}
	if (sl->time) {
		q = word(sl->time);
		parts[n++] = bf_xasprintf(" --time=%s", q);
		free(q);
	}
	if (sl->account) {
		q = word(sl->account);
		parts[n++] = bf_xasprintf(" --account=%s", q);
		free(q);
	}
	out = bf_xasprintf("%s%s%s%s%s", parts[0], parts[1] ? parts[1] : "",
			   parts[2] ? parts[2] : "", parts[3] ? parts[3] : "",
			   parts[4] ? parts[4] : "");
	for (int i = 0; i < n; i++)
		free(parts[i]);
	return out;
}

/* Every rank's state, from the leader. */
static void job_progress(struct slurm_job *job, enum host_state st)
{
	for (int i = 0; i < job->nranks; i++)
		session_progress(job->ranks[i].h, st, NULL);
}

/* Connects to the login host (none for "local"). */
static enum bf_err login_open(struct slurm_job *job, struct login *l,
			      const atomic_int *cancel, char *detail,
			      size_t detail_len)
{
	const struct host_ctx *h = job->ranks[0].h;
	const struct inv_slurm *sl = job->g->slurm;
	struct remote_opts ro = {
		.host = sl->login,
		.ssh_config = h->opts->ssh_config,
		.timeout_s = h->opts->timeout_s,
		.accept_new_host_keys = h->opts->accept_new_host_keys,
		.cancel = cancel,
	};

	memset(l, 0, sizeof(*l));
	if (strcmp(sl->login, "local") == 0)
		return BF_OK;
	return remote_connect(&l->r, &ro, detail, detail_len);
}

/* What the deploy's first command printed. */
struct probe {
	struct login *l;
	int have;
	int home_too_long; /* $HOME did not fit l->home: refused, not cut */
};

static enum bf_err probe_line(void *arg, const char *line, size_t len,
			      int truncated)
{
	struct probe *p = arg;

	if (strncmp(line, "home=", 5) == 0) {
		/* A path: never cut (stage_sources refuses a longer one). */
		p->home_too_long = strlen(line + 5) >= sizeof(p->l->home);
		if (!p->home_too_long) /* fits: checked just above */
			snprintf(p->l->home, sizeof(p->l->home), "%s",
				 line + 5);
	} else if (strcmp(line, "have=1") == 0)
		p->have = 1;
	return BF_OK;
}

/* Puts the sources and the task script in <workdir>/<hash>/ on the login
 * host (unless a complete copy is there); *src gets that path. */
static enum bf_err deploy_sources(struct slurm_job *job, struct login *l,
				  const atomic_int *cancel, char **src,
				  char *detail, size_t detail_len)
{
	const struct inv_slurm *sl = job->g->slurm;
	const char *wd = sl->workdir ? sl->workdir : DEFAULT_WORKDIR;
	char *base = NULL, *final = NULL, *staging = NULL, *cmd = NULL, *q;
	struct probe pr = { .l = l };
	char errtail[256];
	unsigned int rnd = 0;
	enum bf_err err;
	int status;

	/* $HOME (SFTP does not expand "~"), then whether the tree is there. */
	cmd = bf_xasprintf("echo \"home=$HOME\"");
	err = login_exec(l, cmd, probe_line, &pr, cancel, &status, errtail,
			 sizeof(errtail), detail, detail_len);
	if (err == BF_OK && pr.home_too_long)
		err = bf_fail(detail, detail_len, BF_ERR_REMOTE,
			      "login host: $HOME is longer than %zu bytes: ctl "
			      "cannot use it", sizeof(l->home) - 1);
	else if (err == BF_OK && !l->home[0])
		err = bf_fail(detail, detail_len, BF_ERR_REMOTE,
			      "login host: no $HOME: %s", errtail);
	if (err != BF_OK)
		goto out;
	if (strcmp(wd, "~") == 0 || strncmp(wd, "~/", 2) == 0)
		base = bf_xasprintf("%s%s", l->home, wd + 1);
	else
		base = bf_xstrdup(wd);
	final = bf_xasprintf("%s/%s", base, embedded_agent_hash);
	*src = bf_xstrdup(final);
	free(cmd);
	q = word(final);
	cmd = bf_xasprintf("[ -f %s/.bf-complete ] && echo have=1; true", q);
	free(q);
	err = login_exec(l, cmd, probe_line, &pr, cancel, &status, errtail,
			 sizeof(errtail), detail, detail_len);
	if (err != BF_OK || pr.have)
		goto out;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (unsigned int)getpid();
	staging = bf_xasprintf("%s.tmp-%08x", final, rnd);
	err = login_mkdir_p(l, staging, detail, detail_len);
	for (size_t i = 0; i < embedded_agent_file_count && err == BF_OK; i++) {
		const struct embedded_file *f = &embedded_agent_files[i];
		char *path = bf_xasprintf("%s/%s", staging, f->path);
		char *slash = strrchr(path, '/');

		*slash = '\0';
		err = login_mkdir_p(l, path, detail, detail_len);
		*slash = '/';
		if (err == BF_OK)
			err = login_put(l, path, f->data, f->size, 0644,
					detail, detail_len);
		free(path);
	}
	if (err == BF_OK) {
		char *path = bf_xasprintf("%s/%s", staging, TASK_SCRIPT);

		err = login_put(l, path, task_script, sizeof(task_script) - 1,
				0755, detail, detail_len);
		free(path);
	}
	if (err == BF_OK) {
		char *path = bf_xasprintf("%s/.bf-complete", staging);

		err = login_put(l, path, "", 0, 0644, detail, detail_len);
		free(path);
	}
	if (err != BF_OK)
		goto out;
	free(cmd);
	{
		char *qs = word(staging), *qf = word(final);

		/* Another ctl may have put the same tree there first. */
		cmd = bf_xasprintf("mv -T %s %s 2>/dev/null || rm -rf %s; "
				   "[ -f %s/.bf-complete ]", qs, qf, qs, qf);
		free(qs);
		free(qf);
	}
	err = login_exec(l, cmd, NULL, NULL, cancel, &status, errtail,
			 sizeof(errtail), detail, detail_len);
	if (err == BF_OK && status != 0)
		err = bf_fail(detail, detail_len, BF_ERR_IO,
			      "cannot put the sources in %s: %s", final, errtail);
out:
	free(cmd);
	free(base);
	free(final);
	free(staging);
	return err;
}

/* scancel by the job's name, on a connection of its own that the cancel
 * flag does not stop. */
static void job_scancel(struct slurm_job *job, struct login *l)
{
	struct login own = { 0 };
	const struct host_ctx *h = job->ranks[0].h;
	char detail[256], errtail[256], *q = word(job->job_name), *cmd;
	int status;

	cmd = bf_xasprintf("scancel --name=%s", q);
	free(q);
	if (l->r) {
		struct remote_opts ro = {
			.host = job->g->slurm->login,
			.ssh_config = h->opts->ssh_config,
			.timeout_s = h->opts->timeout_s,
			.accept_new_host_keys = h->opts->accept_new_host_keys,
		};

		if (remote_connect(&own.r, &ro, detail, sizeof(detail)) != BF_OK) {
			fprintf(h->log, "scancel: %s\n", detail);
			goto out;
		}
	}
	if (login_exec(&own, cmd, NULL, NULL, NULL, &status, errtail,
		       sizeof(errtail), detail, sizeof(detail)) != BF_OK)
		fprintf(h->log, "scancel: %s\n", detail);
	else
		fprintf(h->log, "scancel --name=%s: exit %d %s\n", job->job_name,
			status, errtail);
out:
	fflush(h->log);
	remote_free(own.r);
	free(cmd);
}

/* The leader: deploy, build, run; every rank's lines go to its host. */
static void job_run(struct slurm_job *job, const atomic_int *cancel)
{
	const struct inv_slurm *sl = job->g->slurm;
	struct host_ctx *h0 = job->ranks[0].h;
	struct rank build = { .h = h0, .exit_status = -1 };
	struct login l;
	char *src = NULL, *common = NULL, *cmd = NULL, *qsrc = NULL;
	char errtail[ERRTAIL_BYTES];
	struct { char *s; size_t len, cap; } args = { NULL, 0, 0 };
	int status = -1;
	enum bf_err err;

	job_progress(job, HOST_CONNECTING);
	err = login_open(job, &l, cancel, job->detail, sizeof(job->detail));
	if (err != BF_OK)
		goto out;
	if (l.r)
		for (int i = 0; i < job->nranks; i++)
			session_set_fingerprint(job->ranks[i].h,
						remote_fingerprint(l.r));
	job_progress(job, HOST_DEPLOYING);
	err = deploy_sources(job, &l, cancel, &src, job->detail,
			     sizeof(job->detail));
	if (err != BF_OK)
		goto out;
	qsrc = word(src);

	/* Build on one compute node (cached per architecture and toolchain). */
	job_progress(job, HOST_BUILDING);
	{
		char *name = bf_xasprintf("%s-build", job->job_name);

		common = srun_common(sl, name);
		free(name);
	}
	cmd = bf_xasprintf("cd %s && exec srun -N1 --ntasks=1 --label --input=none "
			   "%s sh ./" TASK_SCRIPT " build", qsrc, common);
	job->build = &build;
	err = login_exec(&l, cmd, srun_line, job, cancel, &status, errtail,
			 sizeof(errtail), job->detail, sizeof(job->detail));
	job->build = NULL;
	for (int i = 0; errtail[0] && i < job->nranks; i++)
		fprintf(job->ranks[i].h->log, "build: srun: %s", errtail);
	if (err != BF_OK)
		goto out;
	if (job->build_failed[0] || status != 0 || !build.named) {
		err = bf_fail(job->detail, sizeof(job->detail), BF_ERR_BUILD,
			      "agent build on a compute node failed%s%s",
			      job->build_failed[0] || errtail[0] ? ": " : "",
			      job->build_failed[0] ? job->build_failed : errtail);
		goto out;
	}

	/* Run: one task per node. A node's --host-timeout clock starts when
	 * its task does ("@node"), not while the job waits in the queue. */
	job_progress(job, HOST_RUNNING);
	for (int i = 0; i < job->nranks; i++)
		session_agent_queued(job->ranks[i].h);
	free(common);
	common = srun_common(sl, job->job_name);
	for (char **a = h0->agent_argv; *a; a++) {
		char *q = word(*a);
		size_t need = strlen(q) + 2;

		if (args.len + need >= args.cap) {
			args.cap = (args.cap + need) * 2;
			args.s = bf_xrealloc(args.s, args.cap);
		}
		/* Room for ' ', q and the NUL was made just above. */
		args.s[args.len++] = ' ';
		memcpy(args.s + args.len, q, need - 1);
		args.len += need - 2;
		free(q);
	}
	free(cmd);
	{
		char *nl = NULL;

		/* "NAME:node,..." (as --rerun-failed gives) wins over the
		 * inventory's nodelist. */
		if (sl->only_nodes || sl->nodelist) {
			char *q = word(sl->only_nodes ? sl->only_nodes :
							sl->nodelist);

			nl = bf_xasprintf(" --nodelist=%s", q);
			free(q);
		}
		cmd = bf_xasprintf(
			"cd %s && exec srun -N%d --ntasks-per-node=1 --label "
			"--input=none --kill-on-bad-exit=0 --no-kill --wait=0 "
			"%s%s sh ./" TASK_SCRIPT " run%s",
			qsrc, job->nranks, common, nl ? nl : "",
			args.s ? args.s : "");
		free(nl);
	}
	for (int i = 0; i < job->nranks; i++)
		fprintf(job->ranks[i].h->log, "slurm: %s\n", cmd);
	err = login_exec(&l, cmd, srun_line, job, cancel, &status, errtail,
			 sizeof(errtail), job->detail, sizeof(job->detail));
	for (int i = 0; i < job->nranks; i++) {
		fprintf(job->ranks[i].h->log, "%s", errtail);
		fflush(job->ranks[i].h->log);
	}
	if (err == BF_OK && status != 0) {
		/* srun itself failed; ranks that reported keep their own
		 * status. Its last line says why. */
		char *nl;

		while ((nl = strrchr(errtail, '\n')) && nl[1] == '\0')
			*nl = '\0';
		nl = strrchr(errtail, '\n');
		err = bf_fail(job->detail, sizeof(job->detail), BF_ERR_REMOTE,
			      "srun exited with status %d%s%s", status,
			      errtail[0] ? ": " : "", nl ? nl + 1 : errtail);
	}
out:
	if (*cancel || err == BF_ERR_TIMEOUT || err == BF_ERR_CONNECT)
		job_scancel(job, &l);
	job->err = err;
	remote_free(l.r);
	free(build.piece);
	tail_free(&build.errtail);
	free(args.s);
	free(src);
	free(qsrc);
	free(common);
	free(cmd);
}

/* One rank's end, after the job: the agent's status when its task
 * reported one, else its stop or the job's failure. */
static enum bf_err rank_end(struct slurm_job *job, struct rank *rk,
			    char *detail, size_t detail_len)
{
	struct host_ctx *h = rk->h;
	int st = rk->exit_status;

	/* A node whose agent reported its end before the job was stopped
	 * keeps that end. */
	if (st >= 0) {
		const char *sig = st > 128 && st < 128 + 65 ?
					  sigabbrev_np(st - 128) : NULL;

		return session_agent_ended(h, sig ? -1 : st, sig,
					   rk->errtail.buf ?
					   tail_text(&rk->errtail, NULL) : "",
					   detail, detail_len);
	}
	if (*h->cancel)
		return bf_fail(detail, detail_len, BF_ERR_INTERRUPTED,
			       "interrupted: job cancelled");
	if (job->err != BF_OK)
		return bf_fail(detail, detail_len, job->err, "%s", job->detail);
	return bf_fail(detail, detail_len, BF_ERR_REMOTE,
		       "the node's task ended without reporting the agent's status");
}

static enum bf_err run_slurm(struct host_ctx *h, char *detail,
			     size_t detail_len)
{
	struct slurm_job *job = h->slurm_job;
	int lead = 0;

	if (!job)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "slurm: no job prepared for %s", h->name);
	pthread_mutex_lock(&job->lock);
	if (!job->started)
		job->started = lead = 1;
	pthread_mutex_unlock(&job->lock);
	if (lead) {
		/* Under the session's watch (h->cancel is h's stop flag) the
		 * job stops on its own flag, which slurm_watch sets from every
		 * rank's; without the watch, on ctl's cancel itself. */
		job_run(job, h->cancel == &h->stop ? &job->stop : h->cancel);
		pthread_mutex_lock(&job->lock);
		job->finished = 1;
		pthread_cond_broadcast(&job->cond);
		pthread_mutex_unlock(&job->lock);
	} else {
		pthread_mutex_lock(&job->lock);
		while (!job->finished)
			pthread_cond_wait(&job->cond, &job->lock);
		pthread_mutex_unlock(&job->lock);
	}
	return rank_end(job, &job->ranks[h->slurm_rank], detail, detail_len);
}

/* The job is no longer needed when every rank's agent has ended or the
 * rank has been stopped (Ctrl-C, the host timeout), and one was stopped:
 * a timed-out node does not cut short the others still running, and a
 * job whose nodes all ended ends by itself. */
static void slurm_watch(struct host_ctx *h)
{
	struct slurm_job *job = h->slurm_job;
	int stopped = 0;

	if (!job || job->stop)
		return;
	for (int i = 0; i < job->nranks; i++) {
		const struct host_ctx *r = job->ranks[i].h;

		if (r->stop)
			stopped = 1;
		else if (!r->agent_ended)
			return;
	}
	if (stopped)
		job->stop = 1;
}

const struct runner runner_slurm = {
	.name = "slurm",
	.run = run_slurm,
	.watch = slurm_watch,
};

void runner_slurm_prepare(struct host_ctx *hosts, int nhosts)
{
	for (int i = 0; i < nhosts; i++) {
		const struct inv_group *g = hosts[i].slurm;
		struct slurm_job *job = NULL;

		if (!g || hosts[i].slurm_job)
			continue;
		job = bf_xcalloc(1, sizeof(*job));
		job->g = g;
		pthread_mutex_init(&job->lock, NULL);
		pthread_cond_init(&job->cond, NULL);
		job->job_name = bf_xasprintf("bf-%s-%s", hosts[i].run_id,
					     g->name);
		job->ranks = bf_xcalloc((size_t)g->nmembers, sizeof(*job->ranks));
		/* Ranks in cluster order; the job has as many tasks as the
		 * run has ranks of this cluster. */
		for (int k = i; k < nhosts; k++) {
			if (hosts[k].slurm != g)
				continue;
			hosts[k].slurm_job = job;
			hosts[k].slurm_rank = job->nranks;
			job->ranks[job->nranks].h = &hosts[k];
			job->ranks[job->nranks++].exit_status = -1;
		}
	}
}

void runner_slurm_release(struct host_ctx *hosts, int nhosts)
{
	for (int i = 0; i < nhosts; i++) {
		struct slurm_job *job = hosts[i].slurm_job;

		if (!job)
			continue;
		for (int k = 0; k < nhosts; k++)
			if (hosts[k].slurm_job == job)
				hosts[k].slurm_job = NULL;
		for (int r = 0; r < job->nranks; r++) {
			free(job->ranks[r].piece);
			tail_free(&job->ranks[r].errtail);
		}
		free(job->ranks);
		free(job->job_name);
		pthread_mutex_destroy(&job->lock);
		pthread_cond_destroy(&job->cond);
		free(job);
	}
}
