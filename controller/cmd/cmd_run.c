/*
 * ctl run HOST...: deploy and run the agent on every host at once (up to
 * --jobs), stream each host's records into the model and the archive as
 * they arrive, then print the table. A failing or slow host never stops
 * another: each host has its own thread, its own SSH session and its own
 * archive file, and its failure is a state with a reason.
 *
 * This file holds ctl run's option table (ctl.c parses by it) and wires
 * the parts together: the
 * hosts (inventory_resolve, which checks SSH targets with
 * remote_target_check) and the agent's options, with the inventory's
 * defaults, by the agent's own table (common/agent_opts.c), are checked
 * before any host is touched or any archive made (inventory_agent_argvs);
 * the session (session.c) then runs the hosts through their runners
 * (runner_local.c, runner_ssh.c, runner_slurm.c). --rerun-failed's command
 * line comes from rerun.c, the signal handlers from ctl.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_opts.h"
#include "archive/archive.h"
#include "archive/archive_read.h"
#include "cmd/ctl.h"
#include "cmd/hostcmd.h"
#include "run/rerun.h"
#include "run/runner.h"
#include "model/verdict_run.h"
#include "run/session.h"
#include "view/table.h"
#include "view/ui_curses.h"
#include "view/verdict_text.h"
#include "xmalloc.h"


static const char run_usage[] =
	"usage: ctl run HOST... [OPTION...]\n"
	"       ctl run --rerun-failed RUN-ID [OPTION...]\n"
	"\n"
	"Deploys the agent to every HOST (its sources, built there once per\n"
	"toolchain and cached), runs it, streams its records into a live table\n"
	"and the archive, then prints the verdict (a line per host and device:\n"
	"ok, SLOW, FAILED or unknown against its peers, the published references,\n"
	"its history and its rated peak; docs/verdict.md) and the table; with two\n"
	"or more hosts, the hosts side by side. HOST is `local` (the agent beside ctl, no SSH), an\n"
	"alias from ~/.ssh/config, [user@]host[:port], or a host, group or Slurm\n"
	"cluster from hosts/*.json; CLUSTER:n1,n2 runs a Slurm cluster on those\n"
	"nodes only.\n"
	"\n"
	"What the agent runs (the inventory's \"defaults\" may set these per host):\n"
	"  --size N             one GEMM size: n x n matrices (default 4096)\n"
	"  --sizes N,N,...      several sizes, swept in this order (at most 16;\n"
	"                       each 1 to 65536)\n"
	"  --dtypes LIST        GEMM dtypes from fp32, fp16, bf16, tf32, fp8\n"
	"                       (default fp32,fp16,bf16; fp8 on GPUs of compute\n"
	"                       capability 8.9 and later)\n"
	"  --device cpu|cuda|all  the devices (default all: the CPU and every GPU)\n"
	"  --iters N            timed GEMMs per GPU size and dtype (default 20)\n"
	"  --cpu-iters N        timed GEMMs per CPU size and dtype (default\n"
	"                       iters/4, at least 3, at most --iters)\n"
	"  --warmup N           untimed GEMMs before the timed ones (default 5)\n"
	"  --cpu-warmup N       the same on the CPU (default: --warmup when given,\n"
	"                       else 1)\n"
	"  --cold-cache         flush the caches before each timed GEMM (default:\n"
	"                       warm)\n"
	"  --bandwidth-mib N    working set of each bandwidth measurement, MiB\n"
	"                       (default: CPU triad 3 arrays of max(4 x last-level\n"
	"                       cache, 85 MiB); GPU 256 MiB per buffer)\n"
	"  --no-bandwidth       no bandwidth measurement, so no roofline (%roof n/a)\n"
	"  --no-batching        no batching case\n"
	"Runs with other settings of these are not each other's baseline (no Δ%).\n"
	"\n"
	"How ctl runs them:\n"
	"  --jobs N             hosts handled at once, 1 to 64 (default 16): each\n"
	"                       of N workers connects, deploys, builds and runs one\n"
	"                       host to its end, then takes the next; the others\n"
	"                       wait as `pending`, in command-line order\n"
	"  --concurrent-same-machine  run hosts that are one machine at once\n"
	"                       anyway. Before anything runs, ctl asks every host\n"
	"                       which machine it is: hosts with the same kernel boot\n"
	"                       id (one running kernel), or the same host key\n"
	"                       (two aliases of one box, local and its own name)\n"
	"                       run one after another by default, since at once\n"
	"                       they would slow each other; with this option they\n"
	"                       run at once and their figures are marked unreliable\n"
	"  --baseline HOST      the host the side-by-side tables compare the others\n"
	"                       with (HOST/REF: speed over REF's; default: the first\n"
	"                       host); one of this run's hosts\n"
	"  --timeout SECONDS    bound on connecting and on an unresponsive\n"
	"                       connection (default 30)\n"
	"  --host-timeout SECONDS  a running agent silent for longer than this (at\n"
	"                       least; more when its own GEMMs predict a longer\n"
	"                       wait) fails its host (default 3600; 0: none)\n"
	"  --no-tui             plain progress lines, no live table (also when\n"
	"                       stdout is not a terminal or TERM=dumb, and for a\n"
	"                       TERM terminfo does not know, said on stderr)\n"
	"  --tag TEXT           a label kept in run.json and shown by ctl list\n"
	"  --fail-on slow       exit 7 when a device's verdict is a confident slow\n"
	"                       (not one marked ?) and all else passed\n"
	"  --accept-new-host-keys  record an unknown host key in known_hosts (as\n"
	"                       StrictHostKeyChecking=accept-new; default: refuse\n"
	"                       it, naming its fingerprint); a changed key is\n"
	"                       always refused\n"
	"  -F SSH_CONFIG        ssh_config to read instead of ~/.ssh/config (as ssh -F)\n"
	"  --results DIR        the archive: runs go to DIR/<run-id>/ (default: see\n"
	"                       ctl --help)\n"
	"  --hosts-dir DIR      the inventory (default: see ctl --help)\n"
	"  --rerun-failed RUN-ID  run again, with that run's options (those given\n"
	"                       here replace its own), only the hosts that did not\n"
	"                       complete in RUN-ID (in full or a unique prefix; of a\n"
	"                       cluster, its failed nodes)\n"
	"  --help               this text\n"
	"\n"
	"On a terminal, q stops the run (what arrived is archived), v switches\n"
	"between the hosts side by side and a block per host, r shows the\n"
	"HOST/REF ratio columns in place of the host columns, and ? lists the\n"
	"keys.\n"
	"\n"
	"Examples:\n"
	"  ctl run local --size 1024\n"
	"  ctl run spark me@box.lan:2222 --sizes 1024,4096 --dtypes fp32,bf16\n"
	"  ctl run spark workstation --baseline workstation\n"
	"  ctl run --rerun-failed 20261130T15\n"
	"\n"
	"Exit status: 0 all passed, 1 a record that arrived failed (whatever the\n"
	"agent's own counts say), 2 usage error, 3 some hosts failed or the\n"
	"archive could not be written, 4 all passed but stdout could not be\n"
	"written (one line on stderr says why), 6 every host completed but on\n"
	"some host no GEMM of a device asked for ran (every one skipped: no\n"
	"driver, does not fit; one line on stderr per host says why), 7 with\n"
	"--fail-on slow, where it would be 0, a device's verdict is a confident\n"
	"slow (one line on stderr says how many), 130\n"
	"interrupted (Ctrl-C, q, SIGTERM, SIGHUP, SIGQUIT).\n";

/* ctl run's options: the host options, its own, then the agent's, which
 * ctl run passes on in the agent's words (common/agent_opts.c: each
 * name's row there says whether it takes a value; unit.args checks that
 * these rows agree). */
enum { O_JOBS = CTL_HOPT_COUNT, O_HOST_TIMEOUT, O_NO_TUI, O_RESULTS, O_TAG,
       O_RERUN, O_BASELINE, O_CONCURRENT, O_FAIL_ON, O_AGENT };
static const struct ctl_opt run_table[] = {
	CTL_HOST_OPTS,
	[O_JOBS] = { "jobs", 0, CTL_OPT_VALUE },
	[O_HOST_TIMEOUT] = { "host-timeout", 0, CTL_OPT_VALUE },
	[O_NO_TUI] = { "no-tui", 0, CTL_OPT_FLAG },
	[O_RESULTS] = { "results", 0, CTL_OPT_VALUE },
	[O_TAG] = { "tag", 0, CTL_OPT_VALUE },
	[O_RERUN] = { "rerun-failed", 0, CTL_OPT_VALUE },
	[O_BASELINE] = { "baseline", 0, CTL_OPT_VALUE },
	[O_CONCURRENT] = { "concurrent-same-machine", 0, CTL_OPT_FLAG },
	[O_FAIL_ON] = { "fail-on", 0, CTL_OPT_VALUE },
	[O_AGENT] = { "size", 0, CTL_OPT_VALUE },
	{ "sizes", 0, CTL_OPT_VALUE },
	{ "dtypes", 0, CTL_OPT_VALUE },
	{ "iters", 0, CTL_OPT_VALUE },
	{ "cpu-iters", 0, CTL_OPT_VALUE },
	{ "cpu-warmup", 0, CTL_OPT_VALUE },
	{ "warmup", 0, CTL_OPT_VALUE },
	{ "device", 0, CTL_OPT_VALUE },
	{ "cold-cache", 0, CTL_OPT_FLAG },
	{ "bandwidth-mib", 0, CTL_OPT_VALUE },
	{ "no-bandwidth", 0, CTL_OPT_FLAG },
	{ "no-batching", 0, CTL_OPT_FLAG },
};

static int run_exec(const struct ctl_args *a, struct ctl_run_hook *hook,
		    const char *rerun_of);

/* --rerun-failed RUN-ID, in full or a unique prefix (rerun.c builds the
 * command line from a's), then that command line parsed and run: the
 * new run's run.json says rerun_of, the id in full. */
static int rerun_failed(const struct ctl_args *a, const char *run_id,
			const char *results_dir)
{
	struct rerun_args ra;
	struct ctl_args na;
	int status = BF_EXIT_OK;

	if (rerun_build(a, run_id, results_dir, O_RERUN, &ra) < 0)
		return BF_EXIT_USAGE;
	if (ra.argc == 0) {
		printf("run %s: every host completed; nothing to re-run\n",
		       ra.run_id);
	} else {
		switch (ctl_args_parse(a->command, a->spec, ra.argc, ra.argv,
				       &na)) {
		case CTL_ARGS_OK:
			status = run_exec(&na, NULL, ra.run_id);
			ctl_args_free(&na);
			break;
		case CTL_ARGS_HELP:
			break;
		default:
			status = BF_EXIT_USAGE;
		}
	}
	rerun_args_free(&ra);
	return status;
}

/* The index of --baseline's host among the run's hosts (after groups are
 * expanded) into *out; -1 after the error when it is none of them. A
 * re-run (--rerun-failed) keeps its old run's --baseline, whose host
 * may not be re-run: then the first host is the reference, and stderr
 * says so. */
static int reference_host(const char *name, const char *const *names,
			  int nhosts, const char *rerun_of, int *out)
{
	char *list;

	for (int i = 0; i < nhosts; i++)
		if (strcmp(names[i], name) == 0) {
			*out = i;
			return 0;
		}
	if (rerun_of) {
		fprintf(stderr, "ctl: --baseline %s: not re-run; the side-by-side "
			"ratios compare with %s\n", name, names[0]);
		*out = 0;
		return 0;
	}
	/* Every host, whole: the error is read for the right name. */
	list = bf_xstrdup("");
	for (int i = 0; i < nhosts; i++) {
		char *more = bf_xasprintf("%s%s%s", list, i ? ", " : "",
					  names[i]);

		free(list);
		list = more;
	}
	ctl_error("--baseline %s: not a host of this run (hosts: %s)", name,
		  list);
	free(list);
	return -1;
}

/* The live table as the run's watch (session.h): q asks to stop. */
static int watch_poll(void *arg, int timeout_ms)
{
	return ui_poll(arg, timeout_ms) == UI_EV_QUIT;
}

static void watch_close(void *arg)
{
	ui_close(arg);
}

/* The verdict first (docs/verdict.md), read back from the run just
 * archived: a line per host and device, the skipped notes, the summary.
 * Returns how many devices' verdicts are a confident slow (for --fail-on
 * slow); a run or reference file that cannot be read leaves a warning
 * instead and returns 0. */
static int print_verdict(const char *dir, const char *results,
			 const char *hosts)
{
	struct archive_run *run = NULL;
	struct verdict_run vr;
	struct verdict_text_counts counts;
	char detail[512];

	if (archive_load_run(dir, &run, detail, sizeof(detail)) != BF_OK ||
	    verdict_run_compute(run, results, hosts, &vr, detail,
				sizeof(detail)) != BF_OK) {
		fprintf(stderr, "ctl: warning: no verdict: %s\n", detail);
		archive_run_free(run);
		return 0;
	}
	verdict_text_print(stdout, run, &vr, &counts);
	putchar('\n');
	verdict_run_free(&vr);
	archive_run_free(run);
	return counts.slow_confident;
}

int cmd_run_hooked(int argc, char **argv, struct ctl_run_hook *hook)
{
	struct ctl_args a;
	int status = ctl_args_parse("run", &cmd_run_entry.args, argc, argv, &a);

	if (status != CTL_ARGS_OK)
		return status == CTL_ARGS_HELP ? BF_EXIT_OK : BF_EXIT_USAGE;
	status = run_exec(&a, hook, NULL);
	ctl_args_free(&a);
	return status;
}

/* ctl run's options but the hosts' and the agent's into opts (set to
 * their defaults first); --rerun-failed's RUN-ID, --baseline's HOST and
 * --fail-on slow into the others. Returns 0, or -1 after one line. */
static int run_options(const struct ctl_args *a, const char *rerun_of,
		       struct run_opts *opts, const char **rerun_id,
		       const char **baseline, int *fail_on_slow)
{
	if (ctl_args_int(a, O_JOBS, 1, 64, &opts->jobs) ||
	    ctl_args_int(a, O_HOST_TIMEOUT, 0, 7 * 86400,
			 &opts->host_timeout_s) ||
	    ctl_args_dir(a, O_RESULTS, &opts->results_dir) ||
	    ctl_args_word(a, O_FAIL_ON, "slow", fail_on_slow))
		return -1;
	opts->no_tui = ctl_args_count(a, O_NO_TUI) > 0;
	opts->concurrent_same_machine = ctl_args_count(a, O_CONCURRENT) > 0;
	opts->tag = ctl_args_value(a, O_TAG);
	for (int i = 0; i < a->n; i++) {
		const char *v = a->v[i].value;

		if (a->v[i].opt == O_RERUN && rerun_of) {
			ctl_error("--rerun-failed: not twice");
			return -1;
		}
		if (a->v[i].opt == O_RERUN && v[0] == '-') {
			ctl_error("--rerun-failed: '%s' is an option, not a run "
				  "id", v);
			return -1;
		}
		if (a->v[i].opt == O_BASELINE && (!v[0] || v[0] == '-')) {
			ctl_error("--baseline '%s': expected a host of this run",
				  v);
			return -1;
		}
	}
	*rerun_id = ctl_args_value(a, O_RERUN);
	*baseline = ctl_args_value(a, O_BASELINE);
	return 0;
}

/* The agent's options, in command-line order, in the agent's words
 * into *set. 0, or -1 after one line. */
static int run_agent_options(const struct ctl_args *a,
			     struct bf_agent_optset *set)
{
	char detail[512];

	for (int i = 0; i < a->n; i++) {
		int o = a->v[i].opt;

		if (o < O_AGENT)
			continue;
		if (bf_agent_opt_parse(bf_agent_opt_find(run_table[o].name),
				       NULL, a->v[i].value, set, detail,
				       sizeof(detail)) != BF_OK) {
			ctl_error("%s", detail);
			return -1;
		}
	}
	return 0;
}

/* After a run: the verdict, the table, a line per host that measured
 * nothing, --fail-on slow's line and the run's last line, on stdout
 * (errors on stderr). Returns the run's exit status from the session's
 * (status), BF_EXIT_NOTHING_MEASURED or BF_EXIT_SLOW where they apply. */
static int run_report(struct session *sp, const struct run_opts *opts,
		      int nhosts, int fail_on_slow, int status,
		      const char *final_status)
{
	int nslow;

	printf("\n");
	nslow = print_verdict(sp->archive.dir, opts->results_dir,
			      opts->hosts_dir);
	table_print_plain(stdout, &sp->model, table_terminal_width(stdout));
	/* Nothing measured is no success: every GEMM of a device asked for
	 * skipped (no driver, does not fit) on a host that completed. */
	for (int i = 0; i < nhosts; i++) {
		struct model_host mh;
		char *why;

		model_host_get(&sp->model, i, &mh);
		if (mh.state != HOST_DONE ||
		    !model_host_measured_nothing(&sp->model, i, &why))
			continue;
		fflush(stdout);
		ctl_error("%s: nothing measured: %s", sp->hosts[i].label, why);
		free(why);
		if (status == BF_EXIT_OK || status == BF_EXIT_CHECKS_FAILED)
			status = BF_EXIT_NOTHING_MEASURED;
	}
	/* A slow device only where all else went well: a failed check, host
	 * or nothing measured says more. */
	if (fail_on_slow && nslow && status == BF_EXIT_OK) {
		fflush(stdout);
		ctl_error("run: %d device%s slow (--fail-on slow)", nslow,
			  nslow == 1 ? "" : "s");
		status = BF_EXIT_SLOW;
	}
	/* With hosts side by side, where their differences are tested. */
	if (nhosts > 1)
		printf("\nrun %s %s: %s (whether the hosts differ: ctl compare "
		       "%s)\n", sp->archive.run_id, final_status, sp->archive.dir,
		       sp->archive.run_id);
	else
		printf("\nrun %s %s: %s\n", sp->archive.run_id, final_status,
		       sp->archive.dir);
	return status;
}

/* ctl run from its parsed command line; hook: ctl check's (or NULL);
 * rerun_of: the run this one re-runs (--rerun-failed), in full, or
 * NULL. */
static int run_exec(const struct ctl_args *a, struct ctl_run_hook *hook,
		    const char *rerun_of)
{
	struct run_opts opts;
	struct ctl_host_opts ho = { .timeout_s = 30 };
	struct session s;
	struct inventory inv;
	struct ui *ui = NULL;
	struct session_watch watch = { watch_poll, watch_close, NULL };
	const char *final_status = NULL;
	const char **names = NULL;
	char ***argvs = NULL;
	int nhosts = 0, status = BF_EXIT_USAGE;
	int fail_on_slow = 0, have_refs = 0, refs_missing;
	struct ref_set live_refs;
	const char *rerun_id = NULL, *hosts_dir_by, *baseline = NULL;
	char detail[512];
	enum bf_err err;

	memset(&s, 0, sizeof(s));
	memset(&inv, 0, sizeof(inv));
	memset(&opts, 0, sizeof(opts));
	opts.jobs = 16;
	opts.host_timeout_s = 3600;
	if (hook) {
		opts.budget_s = hook->budget_s;
		hook->run_dir = NULL;
	}
	if (hostcmd_args(a, HOSTCMD_MAX_HOSTS, &ho) ||
	    run_options(a, rerun_of, &opts, &rerun_id, &baseline,
			&fail_on_slow) ||
	    run_agent_options(a, &opts.agent))
		return BF_EXIT_USAGE;
	hostcmd_run_opts(&ho, &opts, &hosts_dir_by);
	opts.results_dir = ctl_results_dir(opts.results_dir);
	if (rerun_id) {
		if (a->npos > 0) {
			ctl_error("--rerun-failed: takes the hosts from run %s; "
				  "give no hosts", rerun_id);
			return BF_EXIT_USAGE;
		}
		return rerun_failed(a, rerun_id, opts.results_dir);
	}
	opts.rerun_of = rerun_of;
	if (hostcmd_need_host(a, "local"))
		return BF_EXIT_USAGE;
	if (hostcmd_resolve(a, &opts, hosts_dir_by, &inv, &names, &nhosts))
		goto out;
	if (baseline && reference_host(baseline, names, nhosts, rerun_of,
				       &opts.baseline_host) != 0)
		goto out;
	/* Every host's agent options, checked before anything is made. */
	argvs = inventory_agent_argvs(&inv, &opts.agent, nhosts, names, detail,
				      sizeof(detail));
	if (!argvs) {
		ctl_error("%s", detail);
		goto out;
	}
	ctl_catch_signals();

	ctl_results_dir_prepare(opts.results_dir);
	err = session_open(&s, &opts, a->argc, a->argv, nhosts, names, &inv, argvs,
			   &ctl_interrupted, detail, sizeof(detail));
	if (err != BF_OK) {
		/* The archive could not be written (nothing ran). */
		ctl_error("%s", detail);
		status = BF_EXIT_HOSTS_FAILED;
		goto out;
	}
	if (hook)
		hook->run_dir = bf_xstrdup(s.archive.dir);
	for (int i = 0; i < nhosts; i++)
		s.hosts[i].runner = s.hosts[i].slurm ? &runner_slurm :
				    s.hosts[i].is_local ? &runner_local :
							  &runner_ssh;
	runner_slurm_prepare(s.hosts, nhosts);
	model_set_reference(&s.model, opts.baseline_host);
	printf("run %s: %d host%s, results in %s\n", s.archive.run_id,
	       nhosts, nhosts == 1 ? "" : "s", s.archive.dir);
	fflush(stdout);

	/* After the handlers above, so that curses leaves SIGINT to them. */
	if (!opts.no_tui)
		ui = ui_open(&s.model, s.archive.run_id, &ctl_interrupted);
	/* The live verdict's references; a file that cannot be read is
	 * said once, by the final verdict. */
	if (ui && references_load(&live_refs, opts.hosts_dir, &refs_missing,
				  detail, sizeof(detail)) == BF_OK) {
		have_refs = 1;
		ui_set_references(ui, &live_refs);
	}
	if (ui) {
		watch.arg = ui;
		session_run(&s, &watch);
	} else {
		session_run(&s, NULL);
	}
	status = session_finish(&s, &final_status);
	if (hook) { /* ctl check prints its own lines */
		ctl_stdout_checkpoint();
		goto out;
	}
	status = run_report(&s, &opts, nhosts, fail_on_slow, status,
			    final_status);
	ctl_stdout_checkpoint(); /* before closing the archive moves errno */
out:
	if (s.hosts)
		runner_slurm_release(s.hosts, s.nhosts);
	session_close(&s);
	free(argvs);
	free(names);
	inventory_free(&inv);
	if (have_refs)
		references_free(&live_refs);
	return status;
}

static int run_entry_exec(const struct ctl_args *a)
{
	return run_exec(a, NULL, NULL);
}

const struct ctl_command cmd_run_entry = {
	.name = "run",
	.summary = "deploy and run the agent on hosts, stream and archive results",
	/* Hosts in place among the options (getopt's "-"), so that
	 * run.json keeps the command line as typed. */
	.args = { CTL_OPTS(run_table), .order = CTL_ARGS_IN_ORDER,
		  .usage = run_usage },
	.exec = run_entry_exec,
};
