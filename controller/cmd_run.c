/*
 * ctl run HOST...: deploy and run the agent on every host at once (up to
 * --jobs), stream each host's records into the model and the archive as
 * they arrive, then print the table. A failing or slow host never stops
 * another: each host has its own thread, its own SSH session and its own
 * archive file, and its failure is a state with a reason.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "archive.h"
#include "archive_read.h"
#include "bf_clock.h"
#include "bf_parse.h"
#include "ctl.h"
#include "run.h"
#include "table.h"
#include "ui_curses.h"
#include "xmalloc.h"

#define MAX_HOSTS 1024

static const char run_usage[] =
	"usage: ctl run HOST... [--size N | --sizes LIST] [--dtypes LIST] [--iters N]\n"
	"               [--cpu-iters N] [--warmup N] [--cpu-warmup N]\n"
	"               [--device cpu|cuda|all] [--jobs N]\n"
	"               [--timeout SECONDS] [--no-tui] [--results DIR] [--tag TEXT]\n"
	"               [--accept-new-host-keys]\n"
	"               [-F SSH_CONFIG] [--hosts-dir DIR]\n"
	"\n"
	"On a terminal, a live table shows results as they arrive (q stops the run;\n"
	"? lists the keys); --no-tui, or stdout not a terminal, prints plain lines.\n"
	"HOST is `local` (the agent beside ctl, no SSH), an alias from ~/.ssh/config,\n"
	"[user@]host[:port], or a host or group from hosts/*.json.\n"
	"Results go to DIR/<run-id>/ (default results/). Exit status: 0 all passed,\n"
	"1 some checks failed, 2 usage error, 3 some hosts failed, 130 interrupted.\n";

void last_line(const char *text, char *out, size_t len)
{
	const char *end, *start;

	out[0] = '\0';
	if (!text)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

char **agent_args(const struct host_ctx *h)
{
	const struct run_opts *o = h->opts;
	const struct inv_defaults *d = h->inv ? &h->inv->defaults : NULL;
	const char *sizes = o->sizes ? o->sizes : d ? d->sizes : NULL;
	const char *dtypes = o->dtypes ? o->dtypes : d ? d->dtypes : NULL;
	const char *device = o->device ? o->device : d ? d->device : NULL;
	int iters = o->iters ? o->iters : d ? d->iters : 0;
	int warmup = o->warmup >= 0 ? o->warmup : d && d->warmup ? d->warmup : -1;
	char **argv = bf_xcalloc(16, sizeof(*argv));
	int n = 0;

	argv[n++] = bf_xstrdup("--exit-on-hangup");
	if (sizes) {
		argv[n++] = bf_xstrdup("--sizes");
		argv[n++] = bf_xstrdup(sizes);
	}
	if (dtypes) {
		argv[n++] = bf_xstrdup("--dtypes");
		argv[n++] = bf_xstrdup(dtypes);
	}
	if (device) {
		argv[n++] = bf_xstrdup("--device");
		argv[n++] = bf_xstrdup(device);
	}
	if (iters) {
		argv[n++] = bf_xstrdup("--iters");
		argv[n++] = bf_xasprintf("%d", iters);
	}
	if (o->cpu_iters) {
		argv[n++] = bf_xstrdup("--cpu-iters");
		argv[n++] = bf_xasprintf("%d", o->cpu_iters);
	}
	if (o->cpu_warmup >= 0) {
		argv[n++] = bf_xstrdup("--cpu-warmup");
		argv[n++] = bf_xasprintf("%d", o->cpu_warmup);
	}
	if (warmup >= 0) {
		argv[n++] = bf_xstrdup("--warmup");
		argv[n++] = bf_xasprintf("%d", warmup);
	}
	return argv;
}

void host_progress(struct host_ctx *h, enum host_state st, const char *reason)
{
	if (!model_set_state(h->model, h->index, st, reason) || h->quiet)
		return;
	pthread_mutex_lock(h->print_lock);
	printf("[%s] %s%s%s\n", h->name, host_state_name(st),
	       reason ? ": " : "", reason ? reason : "");
	fflush(stdout);
	pthread_mutex_unlock(h->print_lock);
}

/* Hands the model this host's previous archived result with the same
 * agent options (its host record's "options"), the baseline of the live
 * table's change column. Runs on the host's thread when the host record
 * arrives, since the options are only known then; reads the archive. */
static void host_load_baseline(struct host_ctx *h,
			       const struct bf_rec_host *host_rec)
{
	const struct bf_rec_options *options = &host_rec->options;
	struct archive_baseline *b = NULL;
	struct model_baseline *mb;
	char detail[256];
	enum bf_err err;

	if (!options->present)
		return;
	err = archive_find_baseline(h->opts->results_dir, h->name, options,
				    h->run_id, &b, detail, sizeof(detail));
	if (err != BF_OK) {
		if (err != BF_ERR_NOT_FOUND)
			fprintf(h->log, "previous run: %s\n", detail);
		return;
	}
	mb = bf_xcalloc((size_t)b->nrows + 1, sizeof(*mb));
	for (int i = 0; i < b->nrows; i++) {
		snprintf(mb[i].device, sizeof(mb[i].device), "%s", b->rows[i].device);
		snprintf(mb[i].dtype, sizeof(mb[i].dtype), "%s", b->rows[i].dtype);
		mb[i].n = b->rows[i].n;
		mb[i].gflops = b->rows[i].median_gflops;
	}
	model_set_baseline(h->model, h->index, mb, b->nrows);
	fprintf(h->log, "previous run: %s (%d GEMM results)\n", b->run_id,
		b->nrows);
	free(mb);
	archive_baseline_free(b);
}

enum bf_err host_feed_line(void *arg, const char *line, size_t len,
			   int truncated)
{
	struct host_ctx *h = arg;
	struct bf_record rec;
	char detail[256];
	enum bf_err err;

	h->lineno++;
	bf_record_init(&rec, BF_REC_HOST);
	err = truncated ? bf_fail(detail, sizeof(detail), BF_ERR_SCHEMA,
				  "line longer than %u bytes",
				  BF_RECORD_MAX_BYTES) :
			  bf_record_parse(line, len, &rec, detail,
					  sizeof(detail));
	if (err != BF_OK) {
		bf_record_free(&rec);
		/* Reported and counted; the run goes on. */
		model_add_malformed(h->model, h->index);
		fprintf(h->log, "malformed line %ld: %s: %.200s\n", h->lineno,
			detail, line);
		fflush(h->log);
		if (!h->quiet) {
			pthread_mutex_lock(h->print_lock);
			printf("[%s] malformed line %ld: %s\n", h->name,
			       h->lineno, detail);
			fflush(stdout);
			pthread_mutex_unlock(h->print_lock);
		}
		return BF_OK;
	}
	/* As received, flushed per line: a crash of ctl keeps it. */
	fwrite(line, 1, len, h->ndjson);
	fputc('\n', h->ndjson);
	fflush(h->ndjson);
	if (rec.type == BF_REC_HOST && h->quiet) /* only the live table shows it */
		host_load_baseline(h, &rec.u.host);
	if (model_add_record(h->model, h->index, &rec) && !h->quiet &&
	    rec.type == BF_REC_GEMM) {
		struct model_host mh;

		model_host_get(h->model, h->index, &mh);
		pthread_mutex_lock(h->print_lock);
		printf("[%s] running %d/%d\n", h->name, mh.gemm_done,
		       mh.gemm_total);
		fflush(stdout);
		pthread_mutex_unlock(h->print_lock);
	}
	bf_record_free(&rec);
	return BF_OK;
}

atomic_int ctl_interrupted;

static void on_signal(int sig)
{
	ctl_interrupted = 1;
}

struct run_state {
	struct host_ctx *hosts;
	int nhosts;
	int next;              /* next host index to start */
	int workers_finished;  /* threads that ran out of hosts */
	pthread_mutex_t lock;
	struct model model;
	struct archive archive;
	struct run_opts opts;
	int argc;
	char **argv;
	char started_at[32];
};

static cJSON *run_json(struct run_state *rs, const char *status,
		       const char *reason)
{
	cJSON *doc = cJSON_CreateObject(), *arr, *o;
	struct model_snapshot snap = { 0 };
	char now[32];

	cJSON_AddNumberToObject(doc, BF_RUN_ARCHIVE_VERSION, 1);
	cJSON_AddStringToObject(doc, BF_RUN_RUN_ID, rs->archive.run_id);
	cJSON_AddStringToObject(doc, BF_RUN_CTL_VERSION, BF_CTL_VERSION);
	arr = cJSON_AddArrayToObject(doc, BF_RUN_COMMAND_LINE);
	for (int i = 0; i < rs->argc; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(rs->argv[i]));
	if (rs->opts.tag)
		cJSON_AddStringToObject(doc, BF_RUN_TAG, rs->opts.tag);
	else
		cJSON_AddNullToObject(doc, BF_RUN_TAG);
	cJSON_AddStringToObject(doc, BF_RUN_STARTED_AT, rs->started_at);
	if (strcmp(status, BF_RUN_RUNNING) == 0)
		cJSON_AddNullToObject(doc, BF_RUN_ENDED_AT);
	else
		cJSON_AddStringToObject(doc, BF_RUN_ENDED_AT, bf_utc_iso8601(now, NULL));
	cJSON_AddStringToObject(doc, BF_RUN_STATUS, status);
	if (reason)
		cJSON_AddStringToObject(doc, BF_RUN_REASON, reason);
	else
		cJSON_AddNullToObject(doc, BF_RUN_REASON);
	arr = cJSON_AddArrayToObject(doc, BF_RUN_HOSTS);
	model_snapshot_update(&rs->model, &snap); /* one consistent view */
	for (int i = 0; i < rs->nhosts; i++) {
		const struct model_host *mh = &snap.hosts[i];
		const struct host_ctx *h = &rs->hosts[i];

		o = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, BF_RUN_HOST_NAME, h->name);
		cJSON_AddStringToObject(o, BF_RUN_HOST_TARGET, h->is_local ? "local" : h->target);
		cJSON_AddStringToObject(o, BF_RUN_HOST_STATUS, host_state_name(mh->state));
		if (mh->reason[0])
			cJSON_AddStringToObject(o, BF_RUN_HOST_REASON, mh->reason);
		else
			cJSON_AddNullToObject(o, BF_RUN_HOST_REASON);
		if (mh->fingerprint[0])
			cJSON_AddStringToObject(o, BF_RUN_HOST_FINGERPRINT, mh->fingerprint);
		else
			cJSON_AddNullToObject(o, BF_RUN_HOST_FINGERPRINT);
		if (mh->agent_hash[0])
			cJSON_AddStringToObject(o, BF_RUN_HOST_AGENT_HASH, mh->agent_hash);
		else
			cJSON_AddNullToObject(o, BF_RUN_HOST_AGENT_HASH);
		if (mh->hostname[0])
			cJSON_AddStringToObject(o, BF_RUN_HOST_HOSTNAME, mh->hostname);
		else
			cJSON_AddNullToObject(o, BF_RUN_HOST_HOSTNAME);
		if (mh->agent_exit >= 0)
			cJSON_AddNumberToObject(o, BF_RUN_HOST_AGENT_EXIT, mh->agent_exit);
		else
			cJSON_AddNullToObject(o, BF_RUN_HOST_AGENT_EXIT);
		cJSON_AddNumberToObject(o, BF_RUN_HOST_RECORDS, mh->records);
		cJSON_AddNumberToObject(o, BF_RUN_HOST_MALFORMED, mh->malformed);
		cJSON_AddNumberToObject(o, BF_RUN_HOST_GEMM_DONE, mh->gemm_done);
		cJSON_AddNumberToObject(o, BF_RUN_HOST_GEMM_TOTAL, mh->gemm_total);
		cJSON_AddStringToObject(o, BF_RUN_HOST_COMPLETE_RECORDS,
					mh->saw_summary ? "yes" : "no");
		{
			char name[128];

			snprintf(name, sizeof(name), "%s.ndjson", h->basename);
			cJSON_AddStringToObject(o, BF_RUN_HOST_RECORDS_FILE, name);
			snprintf(name, sizeof(name), "%s.log", h->basename);
			cJSON_AddStringToObject(o, BF_RUN_HOST_LOG_FILE, name);
		}
	}
	model_snapshot_free(&snap);
	return doc;
}

static void save_run_json(struct run_state *rs, const char *status,
			  const char *reason)
{
	cJSON *doc = run_json(rs, status, reason);
	char detail[256];

	pthread_mutex_lock(&rs->lock);
	if (archive_write_json(&rs->archive, "run.json", doc, detail,
			       sizeof(detail)) != BF_OK)
		ctl_error("%s", detail);
	pthread_mutex_unlock(&rs->lock);
	cJSON_Delete(doc);
}

static void run_host(struct run_state *rs, struct host_ctx *h)
{
	char detail[1024] = "";
	struct model_host mh;
	enum bf_err err;
	int complete;

	err = h->is_local ? runner_local(h, detail, sizeof(detail)) :
			    runner_ssh(h, detail, sizeof(detail));
	model_host_get(h->model, h->index, &mh);
	complete = mh.saw_summary;
	if (err == BF_OK && !complete)
		err = bf_fail(detail, sizeof(detail), BF_ERR_REMOTE,
			      "agent ended before its summary record");
	if (err == BF_ERR_INTERRUPTED || (err != BF_OK && ctl_interrupted))
		host_progress(h, HOST_INTERRUPTED, "interrupted");
	else if (err != BF_OK)
		host_progress(h, HOST_FAILED, detail);
	else
		host_progress(h, HOST_DONE, NULL);
	fflush(h->log);
	save_run_json(rs, BF_RUN_RUNNING, NULL);
}

static void *worker(void *arg)
{
	struct run_state *rs = arg;

	for (;;) {
		int i;

		pthread_mutex_lock(&rs->lock);
		i = rs->next < rs->nhosts && !ctl_interrupted ? rs->next++ : -1;
		pthread_mutex_unlock(&rs->lock);
		if (i < 0)
			break;
		run_host(rs, &rs->hosts[i]);
	}
	pthread_mutex_lock(&rs->lock);
	rs->workers_finished++;
	pthread_mutex_unlock(&rs->lock);
	return NULL;
}

static int workers_all_finished(struct run_state *rs, int nthreads)
{
	int done;

	pthread_mutex_lock(&rs->lock);
	done = rs->workers_finished >= nthreads;
	pthread_mutex_unlock(&rs->lock);
	return done;
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

/* Expands groups, checks names, fills the host list. */
static int resolve_hosts(int nargs, char *const *args,
			 const struct inventory *inv, const char **names,
			 int *count)
{
	int n = 0;

	for (int i = 0; i < nargs; i++) {
		const struct inv_group *g = inventory_group(inv, args[i]);
		int nmem = g ? g->nmembers : 1;

		for (int k = 0; k < nmem; k++) {
			const char *name = g ? g->members[k] : args[i];

			if (!*name || name[0] == '-') {
				ctl_error("host '%s': not a host name", name);
				return -1;
			}
			for (int j = 0; j < n; j++)
				if (strcmp(names[j], name) == 0)
					goto dup; /* a host once per run */
			if (n == MAX_HOSTS) {
				ctl_error("too many hosts: at most %d", MAX_HOSTS);
				return -1;
			}
			names[n++] = name;
dup:;
		}
	}
	*count = n;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	enum { O_SIZE = 256, O_SIZES, O_DTYPES, O_ITERS, O_CPU_ITERS, O_CPU_WARMUP, O_WARMUP, O_DEVICE,
	       O_JOBS, O_TIMEOUT, O_NO_TUI, O_RESULTS, O_TAG, O_ACCEPT,
	       O_HOSTS_DIR, O_HELP };
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, O_SIZE },
		{ "sizes", required_argument, NULL, O_SIZES },
		{ "dtypes", required_argument, NULL, O_DTYPES },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "cpu-iters", required_argument, NULL, O_CPU_ITERS },
		{ "cpu-warmup", required_argument, NULL, O_CPU_WARMUP },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "jobs", required_argument, NULL, O_JOBS },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "no-tui", no_argument, NULL, O_NO_TUI },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "tag", required_argument, NULL, O_TAG },
		{ "accept-new-host-keys", no_argument, NULL, O_ACCEPT },
		{ "hosts-dir", required_argument, NULL, O_HOSTS_DIR },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct run_state rs;
	struct inventory inv;
	struct ui *ui = NULL;
	struct sigaction sa;
	pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_t threads[64];
	const char **names = NULL;
	char *hostargs[MAX_HOSTS];
	int nhostargs = 0;
	char detail[512];
	int c, nthreads, status = BF_EXIT_OK, any_failed = 0, any_check_failed = 0;
	const char *final_status;

	memset(&rs, 0, sizeof(rs));
	memset(&inv, 0, sizeof(inv));
	rs.opts.jobs = 16;
	rs.opts.timeout_s = 30;
	rs.opts.warmup = -1;
	rs.opts.cpu_warmup = -1;
	rs.opts.results_dir = "results";
	rs.opts.hosts_dir = getenv("BENCHFLEET_HOSTS_DIR") ? getenv("BENCHFLEET_HOSTS_DIR") : "hosts";
	rs.argc = argc;
	rs.argv = argv;

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
		case O_SIZE:
		case O_SIZES:
			if (rs.opts.sizes) {
				ctl_error("--size/--sizes: give only one");
				return BF_EXIT_USAGE;
			}
			rs.opts.sizes = optarg;
			break;
		case O_DTYPES:
			rs.opts.dtypes = optarg;
			break;
		case O_ITERS:
			if (parse_positive("--iters", optarg, 1, 100000, &rs.opts.iters))
				return BF_EXIT_USAGE;
			break;
		case O_CPU_ITERS:
			if (parse_positive("--cpu-iters", optarg, 1, 100000, &rs.opts.cpu_iters))
				return BF_EXIT_USAGE;
			break;
		case O_CPU_WARMUP:
			if (parse_positive("--cpu-warmup", optarg, 0, 100000, &rs.opts.cpu_warmup))
				return BF_EXIT_USAGE;
			break;
		case O_WARMUP:
			if (parse_positive("--warmup", optarg, 0, 100000, &rs.opts.warmup))
				return BF_EXIT_USAGE;
			break;
		case O_DEVICE:
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda") &&
			    strcmp(optarg, "all")) {
				ctl_error("--device '%s': expected cpu, cuda or all", optarg);
				return BF_EXIT_USAGE;
			}
			rs.opts.device = optarg;
			break;
		case O_JOBS:
			if (parse_positive("--jobs", optarg, 1, 64, &rs.opts.jobs))
				return BF_EXIT_USAGE;
			break;
		case O_TIMEOUT:
			if (parse_positive("--timeout", optarg, 1, 86400, &rs.opts.timeout_s))
				return BF_EXIT_USAGE;
			break;
		case O_NO_TUI:
			rs.opts.no_tui = 1;
			break;
		case O_RESULTS:
			rs.opts.results_dir = optarg;
			break;
		case O_TAG:
			rs.opts.tag = optarg;
			break;
		case O_ACCEPT:
			rs.opts.accept_new_host_keys = 1;
			break;
		case O_HOSTS_DIR:
			rs.opts.hosts_dir = optarg;
			break;
		case 'F':
			if (access(optarg, R_OK) != 0) {
				ctl_error("-F %s: %s", optarg, strerror(errno));
				return BF_EXIT_USAGE;
			}
			rs.opts.ssh_config = optarg;
			break;
		case O_HELP:
			fputs(run_usage, stdout);
			return BF_EXIT_OK;
		case ':':
			ctl_error("%s: needs a value", argv[optind - 1]);
			return BF_EXIT_USAGE;
		default:
			ctl_error("%s: unknown option (see ctl run --help)",
				  argv[optind - 1]);
			return BF_EXIT_USAGE;
		}
	}
	if (nhostargs == 0) {
		ctl_error("run: no host given (try: ctl run local)");
		return BF_EXIT_USAGE;
	}
	if (inventory_load(rs.opts.hosts_dir, &inv, detail, sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		inventory_free(&inv);
		return BF_EXIT_USAGE;
	}
	names = bf_xcalloc(MAX_HOSTS, sizeof(*names));
	if (resolve_hosts(nhostargs, hostargs, &inv, names, &rs.nhosts) < 0) {
		free(names);
		inventory_free(&inv);
		return BF_EXIT_USAGE;
	}
	if (archive_create(rs.opts.results_dir, &rs.archive, detail, sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		free(names);
		inventory_free(&inv);
		return BF_EXIT_USAGE;
	}
	bf_utc_iso8601(rs.started_at, NULL);
	pthread_mutex_init(&rs.lock, NULL);
	model_init(&rs.model, rs.nhosts, names);
	rs.hosts = bf_xcalloc((size_t)rs.nhosts, sizeof(*rs.hosts));
	for (int i = 0; i < rs.nhosts; i++) {
		struct host_ctx *h = &rs.hosts[i];
		char fname[128];

		h->index = i;
		h->name = names[i];
		h->is_local = strcmp(names[i], "local") == 0;
		h->inv = inventory_host(&inv, names[i]);
		h->target = h->inv ? h->inv->ssh : names[i];
		h->opts = &rs.opts;
		h->model = &rs.model;
		h->cancel = &ctl_interrupted;
		h->print_lock = &print_lock;
		h->run_id = rs.archive.run_id;
		archive_host_basename(names[i], i, h->basename, sizeof(h->basename));
		snprintf(fname, sizeof(fname), "%s.ndjson", h->basename);
		h->ndjson = archive_open_new(&rs.archive, fname, detail, sizeof(detail));
		snprintf(fname, sizeof(fname), "%s.log", h->basename);
		h->log = h->ndjson ? archive_open_new(&rs.archive, fname, detail,
						      sizeof(detail)) : NULL;
		if (!h->ndjson || !h->log) {
			ctl_error("%s", detail);
			return BF_EXIT_HOSTS_FAILED;
		}
	}
	save_run_json(&rs, BF_RUN_RUNNING, NULL);
	printf("run %s: %d host%s, results in %s\n", rs.archive.run_id,
	       rs.nhosts, rs.nhosts == 1 ? "" : "s", rs.archive.dir);
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	/* After the handlers above, so that curses leaves SIGINT to them. */
	if (!rs.opts.no_tui)
		ui = ui_open(&rs.model, rs.archive.run_id, &ctl_interrupted);
	for (int i = 0; i < rs.nhosts; i++)
		rs.hosts[i].quiet = ui != NULL;

	nthreads = rs.nhosts < rs.opts.jobs ? rs.nhosts : rs.opts.jobs;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&threads[i], NULL, worker, &rs) != 0)
			nthreads = i;
	if (nthreads == 0) {
		/* No thread to spare: the hosts run here, in plain lines. */
		ui_close(ui);
		ui = NULL;
		for (int i = 0; i < rs.nhosts; i++)
			rs.hosts[i].quiet = 0;
		worker(&rs);
	}
	/* The live table on this thread, which does no host I/O; q stops the
	 * run as Ctrl-C does, and the table stays up while the hosts stop. */
	while (ui && !workers_all_finished(&rs, nthreads))
		if (ui_poll(ui, 100) == UI_EV_QUIT)
			ctl_interrupted = 1;
	ui_close(ui);
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);

	for (int i = 0; i < rs.nhosts; i++) {
		struct model_host host, *mh = &host;

		model_host_get(&rs.model, i, &host);
		if (mh->state == HOST_PENDING)
			host_progress(&rs.hosts[i], HOST_INTERRUPTED,
				      "interrupted before it started");
		if (mh->state != HOST_DONE)
			any_failed = 1;
		if (mh->agent_exit == BF_EXIT_CHECKS_FAILED)
			any_check_failed = 1;
	}
	final_status = any_failed ? BF_RUN_INCOMPLETE : BF_RUN_COMPLETE;
	save_run_json(&rs, final_status,
		      ctl_interrupted ? "interrupted by the user" :
		      any_failed ? "some hosts did not complete" : NULL);
	printf("\n");
	table_print_plain(stdout, &rs.model);
	printf("\nrun %s %s: %s\n", rs.archive.run_id, final_status, rs.archive.dir);

	if (ctl_interrupted)
		status = BF_EXIT_INTERRUPTED;
	else if (any_failed)
		status = BF_EXIT_HOSTS_FAILED;
	else if (any_check_failed)
		status = BF_EXIT_CHECKS_FAILED;

	for (int i = 0; i < rs.nhosts; i++) {
		fclose(rs.hosts[i].ndjson);
		fclose(rs.hosts[i].log);
	}
	free(rs.hosts);
	model_free(&rs.model);
	archive_close(&rs.archive);
	pthread_mutex_destroy(&rs.lock);
	free(names);
	inventory_free(&inv);
	return status;
}
