/*
 * agent: runs benchfleet's tensor checks and dtype GEMM sweep on this
 * machine and streams newline-delimited JSON records to stdout (schema in
 * docs/schema.md): host, plan, float limits and checks, bandwidth records
 * per device, one gemm record per (device, dtype, size), one batching
 * record per device, then a summary. Diagnostics go to stderr.
 */
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backends/backend.h"
#include "bf_clock.h"
#include "bf_text.h"
#include "checks/checks.h"
#include "core/options.h"
#include "core/report.h"
#include "hardware/hostinfo.h"
#include "workloads/bandwidth.h"
#include "workloads/batching.h"
#include "workloads/gemm.h"
#include "xmalloc.h"

#ifndef BF_AGENT_VERSION
#define BF_AGENT_VERSION "0.0.0"
#endif
#ifndef BF_AGENT_HASH
#define BF_AGENT_HASH "unknown"
#endif

#define MAX_DEVICES 17 /* the CPU and up to 16 GPUs */

/* --exit-on-hangup: ctl's lifeline. When ctl or its SSH connection dies,
 * the pipe (or socket) behind stdout loses its reader; poll() reports that
 * as POLLERR/POLLHUP on the write end even while the agent is busy in a
 * long GEMM and writes nothing, so the agent stops instead of lingering
 * on the host until its next record. */
static void *watch_hangup(void *arg)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = 0 };

	for (;;) {
		if (poll(&p, 1, 500) > 0 &&
		    (p.revents & (POLLERR | POLLHUP | POLLNVAL))) {
			fprintf(stderr, "agent: stdout reader went away, stopping\n");
			_exit(BF_EXIT_INTERRUPTED);
		}
	}
	return arg;
}

/* Why this agent has no GPU rows when it was built without CUDA: the
 * reason ctl gives in BF_AGENT_NO_CUDA when it started this agent
 * instead of the CUDA one beside it (runner_local.c: "agent-cuda: its
 * CUDA libraries do not load: libcudart.so.13: ..."), terminal-safe and
 * bounded, else that no CUDA toolkit was found at build time. */
static const char *no_cuda_reason(void)
{
	static char reason[200];
	const char *given = getenv("BF_AGENT_NO_CUDA");

	if (given && *given) {
		bf_text_sanitize(reason, sizeof(reason), given);
		return reason;
	}
	return "agent built without CUDA: no CUDA toolkit was found at build time";
}

static int list_devices(const struct agent_opts *o, struct sweep_device *devs)
{
	int n = 0;

	if (o->devices & AGENT_DEV_CPU) {
		devs[n] = (struct sweep_device){ { DEVICE_CPU, 0 }, 1, "", NULL, NAN };
		n++;
	}
	if (o->devices & AGENT_DEV_CUDA) {
		const struct backend *be = backend_for(DEVICE_CUDA);
		char reason[256] = "";
		int count = 0;

		if (!be)
			snprintf(reason, sizeof(reason), "%s", no_cuda_reason());
		else
			be->probe(&count, reason, sizeof(reason));
		if (count == 0) {
			devs[n] = (struct sweep_device){ { DEVICE_CUDA, 0 }, 0, "", NULL, NAN };
			snprintf(devs[n].reason, sizeof(devs[n].reason), "%s", reason);
			n++;
		}
		for (int i = 0; i < count && n < MAX_DEVICES; i++) {
			devs[n] = (struct sweep_device){ { DEVICE_CUDA, i }, 1, "", NULL, NAN };
			if (be->device_usable &&
			    be->device_usable(i, devs[n].reason,
					      sizeof(devs[n].reason)) != BF_OK)
				devs[n].usable = 0;
			n++;
		}
	}
	return n;
}

/* The host record's options: o after defaults, as ctl compares them. */
static void fill_options(struct bf_rec_options *opts,
			 const struct agent_opts *o)
{
	opts->present = 1;
	opts->sizes = bf_xcalloc((size_t)o->nsizes + 1, sizeof(*opts->sizes));
	memcpy(opts->sizes, o->sizes, (size_t)o->nsizes * sizeof(*opts->sizes));
	opts->nsizes = o->nsizes;
	opts->dtypes = bf_xcalloc((size_t)o->ndtypes + 1, sizeof(*opts->dtypes));
	for (int i = 0; i < o->ndtypes; i++)
		opts->dtypes[i] = bf_xstrdup(bf_dtype_name(o->dtypes[i]));
	opts->ndtypes = o->ndtypes;
	opts->iters = o->iters;
	opts->cpu_iters = o->cpu_iters;
	opts->warmup = o->warmup;
	opts->cpu_warmup = o->cpu_warmup;
	opts->seed = (double)o->seed;
	opts->cold_cache = o->cold_cache;
	opts->no_bandwidth = !o->bandwidth;
	opts->bandwidth_mib = o->bandwidth_mib > 0 ? o->bandwidth_mib : NAN;
	opts->no_batching = !o->batching;
	/* Which devices were asked for: a run of one is no baseline for a
	 * run of both, whose rows it lacks. */
	if (o->devices == AGENT_DEV_CPU || o->devices == AGENT_DEV_CUDA)
		snprintf(opts->device, sizeof(opts->device), "%s",
			 o->devices == AGENT_DEV_CPU ? "cpu" : "cuda");
}

/* The first record: what ran where, filled by hostinfo_describe and each
 * backend's describe hook. */
static void emit_host(struct report *r, const struct agent_opts *o)
{
	struct bf_record rec;
	struct bf_rec_host *h = &rec.u.host;

	bf_record_init(&rec, BF_REC_HOST);
	h->agent_version = bf_xstrdup(BF_AGENT_VERSION);
	h->agent_source_hash = bf_xstrdup(BF_AGENT_HASH);
	/* Which cJSON the agent was built with: the host's ("system") or
	 * the copy ctl ships (third_party/cjson, "bundled"). */
	h->cjson_version = bf_xstrdup(cJSON_Version());
	h->cjson_source = bf_xstrdup(BF_CJSON_SOURCE);
	hostinfo_describe(h);
	for (int i = 0; backend_table[i]; i++)
		backend_table[i]->describe(h);
	if (!backend_for(DEVICE_CUDA)) {
		h->cuda_status = bf_xstrdup(BF_STATUS_SKIPPED_STR);
		h->cuda_reason = bf_xstrdup(no_cuda_reason());
	}
	fill_options(&h->options, o);
	report_emit_record(r, &rec);
	bf_record_free(&rec);
}

static void emit_plan(struct report *r, const struct agent_opts *o,
		      const struct sweep_device *devs, int ndev)
{
	struct bf_record rec;
	struct bf_rec_plan *p = &rec.u.plan;
	int checks = o->checks ? checks_limits_count() : 0;
	char label[16];

	bf_record_init(&rec, BF_REC_PLAN);
	p->devices = bf_xcalloc((size_t)ndev + 1, sizeof(*p->devices));
	for (int i = 0; i < ndev; i++) {
		struct bf_rec_plan_device *d = &p->devices[p->ndevices++];

		d->device = bf_xstrdup(device_label(&devs[i].dev, label,
						    sizeof(label)));
		d->status = devs[i].usable ? BF_STATUS_PASS : BF_STATUS_SKIPPED;
		d->reason = devs[i].usable ? NULL : bf_xstrdup(devs[i].reason);
		if (o->checks)
			checks += devs[i].usable ? checks_count(&devs[i].dev) : 1;
	}
	p->checks_total = checks;
	p->gemm_total = o->gemm ? gemm_count(ndev, o) : 0;
	p->bandwidth_total = o->bandwidth ? bandwidth_count(devs, ndev) : 0;
	p->batching_total = o->batching ? batching_count(ndev) : 0;
	report_emit_record(r, &rec);
	bf_record_free(&rec);
}

/* The last record: counts by status, the speed ratios, the exit status. */
static void emit_summary(struct report *r, const struct gemm_sweep *sweep,
			 int status, uint64_t t0)
{
	struct bf_record rec;
	struct bf_rec_summary *s = &rec.u.summary;

	bf_record_init(&rec, BF_REC_SUMMARY);
	gemm_ratios(sweep, s);
	s->checks_passed = r->checks[BF_STATUS_PASS];
	s->checks_failed = r->checks[BF_STATUS_FAIL];
	s->checks_skipped = r->checks[BF_STATUS_SKIPPED];
	s->gemm_passed = r->gemms[BF_STATUS_PASS];
	s->gemm_failed = r->gemms[BF_STATUS_FAIL];
	s->gemm_skipped = r->gemms[BF_STATUS_SKIPPED];
	s->bandwidth_passed = r->bandwidths[BF_STATUS_PASS];
	s->bandwidth_failed = r->bandwidths[BF_STATUS_FAIL];
	s->bandwidth_skipped = r->bandwidths[BF_STATUS_SKIPPED];
	s->batching_passed = r->batchings[BF_STATUS_PASS];
	s->batching_failed = r->batchings[BF_STATUS_FAIL];
	s->batching_skipped = r->batchings[BF_STATUS_SKIPPED];
	s->exit_status = status;
	s->wall_ms = (double)(bf_now_ns() - t0) / 1e6;
	report_emit_record(r, &rec);
	bf_record_free(&rec);
}

int main(int argc, char **argv)
{
	struct sweep_device devs[MAX_DEVICES];
	struct gemm_sweep sweep = { NULL, 0 };
	struct report rep = { .out = stdout };
	struct agent_opts o;
	uint64_t t0 = bf_now_ns();
	char detail[512];
	pthread_t watcher;
	int ndev, status;

	/* First: every cJSON allocation from here on is a bf_xmalloc. */
	bf_xmalloc_init_cjson();
	openblas_pick_core(argv);
	if (agent_opts_parse(argc, argv, &o, detail, sizeof(detail)) != BF_OK) {
		fprintf(stderr, "agent: %s\n", detail);
		fprintf(stderr, "try 'agent --help'\n");
		return BF_EXIT_USAGE;
	}
	if (o.help) {
		fputs(agent_usage(), stdout);
		return BF_EXIT_OK;
	}
	if (o.version) {
		printf("agent %s (source %s, schema %d)\n", BF_AGENT_VERSION,
		       BF_AGENT_HASH, BF_SCHEMA_VERSION);
		return BF_EXIT_OK;
	}
	if (o.exit_on_hangup &&
	    pthread_create(&watcher, NULL, watch_hangup, NULL) == 0)
		pthread_detach(watcher);
	rep.human = o.human;

	ndev = list_devices(&o, devs);
	emit_host(&rep, &o);
	emit_plan(&rep, &o, devs, ndev);
	if (o.checks) {
		checks_run_limits(&rep);
		for (int i = 0; i < ndev; i++) {
			char label[16];

			if (devs[i].usable)
				checks_run_device(&rep, &devs[i].dev, &o);
			else
				report_check(&rep, "device.available",
					     device_label(&devs[i].dev, label,
							  sizeof(label)),
					     cJSON_CreateTrue(), cJSON_CreateFalse(),
					     BF_STATUS_SKIPPED, devs[i].reason,
					     NULL);
		}
	}
	/* Bandwidth first: the sweep places each GEMM on the roofline. */
	if (o.bandwidth)
		bandwidth_run(&rep, devs, ndev, &o);
	if (o.gemm)
		gemm_sweep_run(&rep, devs, ndev, &o, &sweep);
	if (o.batching)
		batching_run(&rep, devs, ndev, &o);

	status = (rep.checks[BF_STATUS_FAIL] || rep.gemms[BF_STATUS_FAIL] ||
		  rep.bandwidths[BF_STATUS_FAIL] ||
		  rep.batchings[BF_STATUS_FAIL]) ?
			 BF_EXIT_CHECKS_FAILED :
			 BF_EXIT_OK;
	emit_summary(&rep, &sweep, status, t0);
	gemm_sweep_free(&sweep);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "agent: writing results to stdout failed\n");
		return BF_EXIT_INTERNAL;
	}
	return status;
}
