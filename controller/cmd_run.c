/*
 * ctl run HOST...: deploy and run the agent on every host at once (up to
 * --jobs), stream each host's records into the model and the archive as
 * they arrive, then print the table. A failing or slow host never stops
 * another: each host has its own thread, its own SSH session and its own
 * archive file, and its failure is a state with a reason.
 *
 * This file parses the command line and wires the parts together: the
 * agent's options are checked here, with the inventory's defaults, by the
 * agent's own table (common/agent_opts.c) before any host is touched or
 * any archive made; the session (session.c) then runs the hosts through
 * their runners (runner_local.c, runner_ssh.c).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agent_opts.h"
#include "archive.h"
#include "bf_parse.h"
#include "ctl.h"
#include "runner.h"
#include "session.h"
#include "ui_curses.h"
#include "xmalloc.h"

#define MAX_HOSTS 1024

static const char run_usage[] =
	"usage: ctl run HOST... [--size N | --sizes LIST] [--dtypes LIST] [--iters N]\n"
	"               [--cpu-iters N] [--warmup N] [--cpu-warmup N] [--cold-cache]\n"
	"               [--bandwidth-mib N] [--no-bandwidth] [--no-batching]\n"
	"               [--device cpu|cuda|all] [--jobs N]\n"
	"               [--timeout SECONDS] [--host-timeout SECONDS] [--no-tui]\n"
	"               [--results DIR] [--tag TEXT]\n"
	"               [--accept-new-host-keys]\n"
	"               [-F SSH_CONFIG] [--hosts-dir DIR]\n"
	"       ctl run --rerun-failed RUN-ID [OPTION...]\n"
	"\n"
	"On a terminal, a live table shows results as they arrive (q stops the run;\n"
	"? lists the keys); --no-tui, stdout not a terminal or TERM=dumb prints plain\n"
	"lines.\n"
	"HOST is `local` (the agent beside ctl, no SSH), an alias from ~/.ssh/config,\n"
	"[user@]host[:port], or a host, group or Slurm cluster from hosts/*.json;\n"
	"CLUSTER:node1,node2 runs a Slurm cluster on those nodes only.\n"
	"--host-timeout: a running agent silent for longer than this (at least; more\n"
	"when its own GEMMs predict a longer wait) fails its host; default 3600, 0 none.\n"
	"--bandwidth-mib N: each memory-bandwidth measurement's working set (default:\n"
	"larger than the caches); --no-bandwidth: no bandwidth, so no roofline;\n"
	"--no-batching: no batching case. Runs with other settings are not a baseline.\n"
	"--rerun-failed runs again, with that run's options (and any given here),\n"
	"only the hosts that did not complete in results/RUN-ID (of a cluster, its\n"
	"failed nodes).\n"
	"Results go to DIR/<run-id>/ (default: see ctl --help). Exit status: 0 all passed,\n"
	"1 some checks failed, 2 usage error, 3 some hosts failed or the archive\n"
	"could not be written, 130 interrupted (Ctrl-C, q, SIGTERM, SIGHUP, SIGQUIT).\n";

atomic_int ctl_interrupted;

/* The run being re-run (--rerun-failed), for the run that does it. */
static const char *rerun_of;

/* Records which signal stopped the run (run.json's reason says). */
static void on_signal(int sig)
{
	ctl_interrupted = sig;
}

static int parse_positive(const char *name, const char *s, int min, int max,
			  int *out)
{
	long v;

	if (bf_parse_long(s, min, max, &v) < 0) {
		ctl_error("%s '%s': expected an integer from %d to %d", name, s,
			  min, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* The agent's arguments for host `name`: ctl's options, then the host's
 * inventory defaults, checked as a whole. NULL with a one-line message in
 * detail when the agent would refuse them. Caller frees with
 * bf_xfree_strv. */
static char **host_agent_argv(const struct run_opts *o,
			      const struct inv_host *inv,
			      const struct inv_group *cluster, char *detail,
			      size_t detail_len)
{
	struct bf_agent_optset set = o->agent;
	char why[256];

	if (inv)
		bf_agent_optset_merge(&set, &inv->defaults);
	if (cluster)
		bf_agent_optset_merge(&set, &cluster->slurm->defaults);
	/* The agent stops when ctl or its connection goes away. */
	set.given |= 1u << BF_AF_EXIT_ON_HANGUP;
	if (bf_agent_optset_validate(&set, why, sizeof(why)) != BF_OK) {
		bf_fail(detail, detail_len, BF_ERR_USAGE, "%s%s%s",
			inv ? inv->name : "", inv ? ": " : "", why);
		return NULL;
	}
	return bf_agent_optset_to_argv(&set);
}

/* Reads results_dir/run_id/run.json. Caller frees with cJSON_Delete;
 * NULL with a message printed. */
static cJSON *read_run_json(const char *results_dir, const char *run_id)
{
	char *path = bf_xasprintf("%s/%s/run.json", results_dir, run_id);
	FILE *f = strchr(run_id, '/') ? NULL : fopen(path, "rb");
	char *text = NULL;
	size_t len = 0;
	cJSON *doc = NULL;

	if (!f) {
		ctl_error("--rerun-failed %s: %s: %s", run_id, path,
			  strchr(run_id, '/') ? "not a run id" : strerror(errno));
		goto out;
	}
	text = bf_xmalloc(1 << 22);
	len = fread(text, 1, (1 << 22) - 1, f);
	fclose(f);
	text[len] = '\0';
	doc = cJSON_ParseWithOpts(text, NULL, 1);
	if (!cJSON_IsObject(doc) ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_COMMAND_LINE)) ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS))) {
		ctl_error("--rerun-failed %s: %s: not a run.json", run_id, path);
		cJSON_Delete(doc);
		doc = NULL;
	}
out:
	free(text);
	free(path);
	return doc;
}

/* The arguments of `argv` (from index 1) that are not hosts, appended to
 * out at *n (getopt with the run's option table, so that an option's
 * value is never taken for a host); skip_rerun drops --rerun-failed. */
static void copy_options(int argc, char **argv, const struct option *longopts,
			 int skip_rerun_code, char **out, int *n)
{
	int c, prev = 1;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "-:F:", longopts, NULL)) != -1) {
		if (c != 1 && c != skip_rerun_code)
			for (int i = prev; i < optind; i++)
				out[(*n)++] = argv[i];
		prev = optind;
	}
}

/* A name Slurm could have given a node (and "NAME:node,..." takes). */
static int plain_node_name(const char *s)
{
	return *s && s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "abcdefghijklmnopqrstuvwxyz0123456789._-")] == '\0';
}

/* The failed nodes of one Slurm cluster in the run being re-run. */
struct rerun_cluster {
	const char *name;
	char *nodes;   /* "node,node" */
	char *arg;     /* "NAME:node,node" */
	int slot;      /* its place among the new run's arguments */
	int whole;     /* a rank that never learnt its node failed */
};

/*
 * --rerun-failed RUN-ID: the hosts of that run that did not complete,
 * with that run's options, then this command line's, run as a new run
 * whose run.json says rerun_of. A Slurm cluster's failed nodes run again
 * as "CLUSTER:node,node" (srun --nodelist); the whole cluster when a
 * failed rank never learnt which node it had.
 */
static int rerun_failed(int argc, char **argv, const char *run_id,
			const char *results_dir, const struct option *longopts,
			int rerun_code)
{
	cJSON *doc = read_run_json(results_dir, run_id), *e;
	char **old = NULL, **nargv = NULL;
	struct rerun_cluster *cl = NULL;
	int nold = 0, n = 0, nfailed = 0, ncl = 0, status = BF_EXIT_USAGE;

	if (!doc)
		return BF_EXIT_USAGE;
	old = bf_xcalloc((size_t)cJSON_GetArraySize(
				 cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_COMMAND_LINE)) + 2,
			 sizeof(*old));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_COMMAND_LINE))
		if (cJSON_IsString(e))
			old[nold++] = e->valuestring;
	nargv = bf_xcalloc((size_t)(nold + argc +
			   cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS)) + 2),
			   sizeof(*nargv));
	nargv[n++] = argv[0];
	if (nold > 0)
		copy_options(nold, old, longopts, rerun_code, nargv, &n);
	copy_options(argc, argv, longopts, rerun_code, nargv, &n);
	cl = bf_xcalloc((size_t)cJSON_GetArraySize(
				cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS)) + 1,
			sizeof(*cl));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS)) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, BF_RUN_HOST_NAME);
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(e, BF_RUN_HOST_STATUS);
		const cJSON *tg = cJSON_GetObjectItemCaseSensitive(e, BF_RUN_HOST_TARGET);
		char *host;
		int dup = 0;

		if (!cJSON_IsString(name) || (cJSON_IsString(st) &&
		    strcmp(st->valuestring, BF_RUN_HOST_DONE) == 0))
			continue;
		host = name->valuestring;
		if (cJSON_IsString(tg) && strncmp(tg->valuestring, "slurm:", 6) == 0) {
			struct rerun_cluster *c = NULL;

			for (int i = 0; i < ncl && !c; i++)
				if (strcmp(cl[i].name, tg->valuestring + 6) == 0)
					c = &cl[i];
			if (!c) {
				/* Its argument takes this place, made below. */
				c = &cl[ncl++];
				c->name = tg->valuestring + 6;
				c->slot = n;
				nargv[n++] = (char *)c->name;
				nfailed++;
			}
			/* "NAME/3": the rank never learnt its node. */
			if (!plain_node_name(host)) {
				c->whole = 1;
			} else if (!c->whole) {
				char *more = bf_xasprintf("%s%s%s",
							  c->nodes ? c->nodes : "",
							  c->nodes ? "," : "", host);

				free(c->nodes);
				c->nodes = more;
			}
			continue;
		}
		for (int i = 0; i < nfailed; i++)
			dup |= strcmp(nargv[n - 1 - i], host) == 0;
		if (!dup) {
			nargv[n++] = host;
			nfailed++;
		}
	}
	for (int i = 0; i < ncl; i++) {
		if (cl[i].whole || !cl[i].nodes) {
			nargv[cl[i].slot] = (char *)cl[i].name;
			continue;
		}
		cl[i].arg = bf_xasprintf("%s:%s", cl[i].name, cl[i].nodes);
		nargv[cl[i].slot] = cl[i].arg;
	}
	if (nfailed == 0) {
		printf("run %s: every host completed; nothing to re-run\n", run_id);
		status = BF_EXIT_OK;
		goto out;
	}
	rerun_of = run_id;
	status = cmd_run(n, nargv);
	rerun_of = NULL;
out:
	for (int i = 0; i < ncl; i++) {
		free(cl[i].nodes);
		free(cl[i].arg);
	}
	free(cl);
	free(nargv);
	free(old);
	cJSON_Delete(doc);
	return status;
}

int cmd_run(int argc, char **argv)
{
	/* The agent's options come from its table, from O_AGENT on. */
	enum { O_JOBS = 256, O_TIMEOUT, O_HOST_TIMEOUT, O_NO_TUI, O_RESULTS,
	       O_TAG, O_ACCEPT, O_HOSTS_DIR, O_HELP, O_RERUN, O_AGENT = 512 };
	static const char *const agent_opts[] = { "size", "sizes", "dtypes",
		"iters", "cpu-iters", "cpu-warmup", "warmup", "device",
		"cold-cache", "bandwidth-mib", "no-bandwidth", "no-batching",
		NULL };
	static struct option longopts[32] = {
		{ "jobs", required_argument, NULL, O_JOBS },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "host-timeout", required_argument, NULL, O_HOST_TIMEOUT },
		{ "no-tui", no_argument, NULL, O_NO_TUI },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "tag", required_argument, NULL, O_TAG },
		{ "accept-new-host-keys", no_argument, NULL, O_ACCEPT },
		{ "hosts-dir", required_argument, NULL, O_HOSTS_DIR },
		{ "help", no_argument, NULL, O_HELP },
		{ "rerun-failed", required_argument, NULL, O_RERUN },
	};
	struct run_opts opts;
	struct session s;
	struct inventory inv;
	struct ui *ui = NULL;
	struct sigaction sa;
	const char **names = NULL;
	char ***argvs = NULL;
	char *hostargs[MAX_HOSTS];
	int nhostargs = 0, nhosts = 0, c, n = 10, status = BF_EXIT_USAGE;
	const char *rerun_id = NULL;
	char detail[512];
	enum bf_err err;

	for (int i = 0; agent_opts[i]; i++) {
		const struct bf_agent_opt *t = bf_agent_opt_find(agent_opts[i]);

		longopts[n++] = (struct option){ t->name,
			t->type == BF_AOT_FLAG ? no_argument : required_argument,
			NULL, O_AGENT + (int)(t - bf_agent_opt_table) };
	}
	memset(&s, 0, sizeof(s));
	memset(&inv, 0, sizeof(inv));
	memset(&opts, 0, sizeof(opts));
	opts.jobs = 16;
	opts.timeout_s = 30;
	opts.host_timeout_s = 3600;

	optind = 0;
	opterr = 0;
	/* A leading '-' in optstring returns host names in place (c == 1)
	 * instead of permuting argv, so hosts and options may mix and
	 * run.json keeps the command line as typed. */
	while ((c = getopt_long(argc, argv, "-:F:", longopts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (nhostargs == MAX_HOSTS) {
				ctl_error("too many hosts: at most %d", MAX_HOSTS);
				return BF_EXIT_USAGE;
			}
			hostargs[nhostargs++] = optarg;
			break;
		case O_JOBS:
			if (parse_positive("--jobs", optarg, 1, 64, &opts.jobs))
				return BF_EXIT_USAGE;
			break;
		case O_TIMEOUT:
			if (parse_positive("--timeout", optarg, 1, 86400, &opts.timeout_s))
				return BF_EXIT_USAGE;
			break;
		case O_HOST_TIMEOUT:
			if (parse_positive("--host-timeout", optarg, 0, 7 * 86400,
					   &opts.host_timeout_s))
				return BF_EXIT_USAGE;
			break;
		case O_NO_TUI:
			opts.no_tui = 1;
			break;
		case O_RESULTS:
			opts.results_dir = optarg;
			break;
		case O_TAG:
			opts.tag = optarg;
			break;
		case O_ACCEPT:
			opts.accept_new_host_keys = 1;
			break;
		case O_HOSTS_DIR:
			opts.hosts_dir = optarg;
			break;
		case 'F':
			if (access(optarg, R_OK) != 0) {
				ctl_error("-F %s: %s", optarg, strerror(errno));
				return BF_EXIT_USAGE;
			}
			opts.ssh_config = optarg;
			break;
		case O_RERUN:
			if (rerun_of) {
				ctl_error("--rerun-failed: not twice");
				return BF_EXIT_USAGE;
			}
			rerun_id = optarg;
			break;
		case O_HELP:
			fputs(run_usage, stdout);
			return BF_EXIT_OK;
		case ':':
			ctl_error("%s: needs a value", argv[optind - 1]);
			return BF_EXIT_USAGE;
		case '?':
			ctl_error("%s: unknown option (see ctl run --help)",
				  argv[optind - 1]);
			return BF_EXIT_USAGE;
		default: /* one of the agent's options, in the agent's words */
			if (bf_agent_opt_parse(&bf_agent_opt_table[c - O_AGENT],
					       NULL, optarg, &opts.agent, detail,
					       sizeof(detail)) != BF_OK) {
				ctl_error("%s", detail);
				return BF_EXIT_USAGE;
			}
			break;
		}
	}
	opts.results_dir = ctl_results_dir(opts.results_dir);
	opts.hosts_dir = ctl_hosts_dir(opts.hosts_dir);
	if (rerun_id) {
		if (nhostargs > 0) {
			ctl_error("--rerun-failed: takes the hosts from run %s; "
				  "give no hosts", rerun_id);
			return BF_EXIT_USAGE;
		}
		return rerun_failed(argc, argv, rerun_id, opts.results_dir,
				    longopts, O_RERUN);
	}
	opts.rerun_of = rerun_of;
	if (nhostargs == 0) {
		ctl_error("run: no host given (try: ctl run local)");
		return BF_EXIT_USAGE;
	}
	if (inventory_load(opts.hosts_dir, &inv, detail, sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		goto out;
	}
	names = bf_xcalloc(MAX_HOSTS, sizeof(*names));
	if (inventory_resolve(&inv, nhostargs, hostargs, names, MAX_HOSTS,
			      &nhosts, detail, sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		goto out;
	}
	/* Every host's agent options, checked before anything is made. */
	argvs = bf_xcalloc((size_t)nhosts, sizeof(*argvs));
	for (int i = 0; i < nhosts; i++) {
		int rank;

		argvs[i] = host_agent_argv(&opts, inventory_host(&inv, names[i]),
					   inventory_slurm_rank(&inv, names[i],
								&rank),
					   detail, sizeof(detail));
		if (!argvs[i]) {
			ctl_error("%s", detail);
			for (int k = 0; k < i; k++)
				bf_xfree_strv(argvs[k]);
			goto out;
		}
	}
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

	err = session_open(&s, &opts, argc, argv, nhosts, names, &inv, argvs,
			   &ctl_interrupted, detail, sizeof(detail));
	if (err != BF_OK) {
		ctl_error("%s", detail);
		/* No run directory: a usage error; one half made: failed. */
		status = s.started_at[0] ? BF_EXIT_HOSTS_FAILED : BF_EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < nhosts; i++)
		s.hosts[i].runner = s.hosts[i].slurm ? &runner_slurm :
				    s.hosts[i].is_local ? &runner_local :
							  &runner_ssh;
	runner_slurm_prepare(s.hosts, nhosts);
	printf("run %s: %d host%s, results in %s\n", s.archive.run_id,
	       nhosts, nhosts == 1 ? "" : "s", s.archive.dir);
	fflush(stdout);

	/* After the handlers above, so that curses leaves SIGINT to them. */
	if (!opts.no_tui)
		ui = ui_open(&s.model, s.archive.run_id, &ctl_interrupted);
	session_run(&s, ui);
	status = session_finish(&s);
out:
	if (s.hosts)
		runner_slurm_release(s.hosts, s.nhosts);
	session_close(&s);
	free(argvs);
	free(names);
	inventory_free(&inv);
	return status;
}
