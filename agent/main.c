/*
 * agent: runs benchfleet's tensor checks and dtype GEMM sweep on this
 * machine and streams newline-delimited JSON records to stdout (schema in
 * docs/schema.md): host, plan, float limits and checks, one gemm record per
 * (device, dtype, size), then a summary. Diagnostics go to stderr.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "bf_clock.h"
#include "checks.h"
#include "gemm.h"
#include "hostinfo.h"
#include "options.h"
#include "report.h"
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

static int list_devices(const struct agent_opts *o, struct sweep_device *devs)
{
	int n = 0;

	if (o->devices & AGENT_DEV_CPU) {
		devs[n] = (struct sweep_device){ { DEVICE_CPU, 0 }, 1, "" };
		n++;
	}
	if (o->devices & AGENT_DEV_CUDA) {
		const struct backend *be = backend_for(DEVICE_CUDA);
		char reason[256] = "";
		int count = 0;

		if (!be)
			snprintf(reason, sizeof(reason),
				 "agent built without CUDA: no CUDA toolkit was found at build time");
		else
			be->probe(&count, reason, sizeof(reason));
		if (count == 0) {
			devs[n] = (struct sweep_device){ { DEVICE_CUDA, 0 }, 0, "" };
			snprintf(devs[n].reason, sizeof(devs[n].reason), "%s", reason);
			n++;
		}
		for (int i = 0; i < count && n < MAX_DEVICES; i++) {
			devs[n] = (struct sweep_device){ { DEVICE_CUDA, i }, 1, "" };
			n++;
		}
	}
	return n;
}

static void emit_host(struct report *r, const struct agent_opts *o)
{
	cJSON *rec = report_record(r, BF_REC_HOST);
	cJSON *agent = cJSON_AddObjectToObject(rec, BF_KEY_AGENT);
	cJSON *opts, *arr;

	cJSON_AddStringToObject(agent, BF_KEY_VERSION, BF_AGENT_VERSION);
	cJSON_AddStringToObject(agent, BF_KEY_SOURCE_HASH, BF_AGENT_HASH);
	hostinfo_describe(rec);
	for (int i = 0; backend_table[i]; i++)
		backend_table[i]->describe(rec);
	if (!backend_for(DEVICE_CUDA)) {
		cJSON *cu = cJSON_AddObjectToObject(rec, BF_KEY_CUDA);

		cJSON_AddStringToObject(cu, BF_KEY_STATUS, BF_STATUS_SKIPPED_STR);
		cJSON_AddStringToObject(cu, BF_KEY_REASON,
					"agent built without CUDA");
		cJSON_AddArrayToObject(rec, BF_KEY_GPUS);
	}
	opts = cJSON_AddObjectToObject(rec, BF_KEY_OPTIONS);
	arr = cJSON_AddArrayToObject(opts, BF_KEY_SIZES);
	for (int i = 0; i < o->nsizes; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(o->sizes[i]));
	arr = cJSON_AddArrayToObject(opts, BF_KEY_DTYPES);
	for (int i = 0; i < o->ndtypes; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(bf_dtype_name(o->dtypes[i])));
	cJSON_AddNumberToObject(opts, BF_KEY_ITERS, o->iters);
	cJSON_AddNumberToObject(opts, BF_KEY_CPU_ITERS, o->cpu_iters);
	cJSON_AddNumberToObject(opts, BF_KEY_WARMUP, o->warmup);
	cJSON_AddNumberToObject(opts, BF_KEY_CPU_WARMUP, o->cpu_warmup);
	cJSON_AddNumberToObject(opts, BF_KEY_SEED, (double)o->seed);
	report_emit(r, rec);
}

static void emit_plan(struct report *r, const struct agent_opts *o,
		      const struct sweep_device *devs, int ndev)
{
	cJSON *rec = report_record(r, BF_REC_PLAN);
	cJSON *arr = cJSON_AddArrayToObject(rec, BF_KEY_DEVICES);
	int checks = o->checks ? checks_limits_count() : 0;
	char label[16];

	for (int i = 0; i < ndev; i++) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddItemToArray(arr, d);
		cJSON_AddStringToObject(d, BF_KEY_DEVICE,
					device_label(&devs[i].dev, label, sizeof(label)));
		cJSON_AddStringToObject(d, BF_KEY_STATUS,
					devs[i].usable ? BF_STATUS_PASS_STR :
							 BF_STATUS_SKIPPED_STR);
		if (devs[i].usable)
			cJSON_AddNullToObject(d, BF_KEY_REASON);
		else
			cJSON_AddStringToObject(d, BF_KEY_REASON, devs[i].reason);
		if (o->checks)
			checks += devs[i].usable ? checks_count(&devs[i].dev) : 1;
	}
	cJSON_AddNumberToObject(rec, BF_KEY_CHECKS_TOTAL, checks);
	cJSON_AddNumberToObject(rec, BF_KEY_GEMM_TOTAL,
				o->gemm ? gemm_count(ndev, o) : 0);
	report_emit(r, rec);
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
	cJSON *sum;

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
	if (o.gemm)
		gemm_sweep_run(&rep, devs, ndev, &o, &sweep);

	status = (rep.checks[BF_STATUS_FAIL] || rep.gemms[BF_STATUS_FAIL]) ?
			 BF_EXIT_CHECKS_FAILED :
			 BF_EXIT_OK;
	sum = report_record(&rep, BF_REC_SUMMARY);
	cJSON_AddItemToObject(sum, BF_KEY_RATIOS, gemm_ratios(&sweep));
	cJSON_AddNumberToObject(sum, BF_KEY_CHECKS_PASSED, rep.checks[BF_STATUS_PASS]);
	cJSON_AddNumberToObject(sum, BF_KEY_CHECKS_FAILED, rep.checks[BF_STATUS_FAIL]);
	cJSON_AddNumberToObject(sum, BF_KEY_CHECKS_SKIPPED, rep.checks[BF_STATUS_SKIPPED]);
	cJSON_AddNumberToObject(sum, BF_KEY_GEMM_PASSED, rep.gemms[BF_STATUS_PASS]);
	cJSON_AddNumberToObject(sum, BF_KEY_GEMM_FAILED, rep.gemms[BF_STATUS_FAIL]);
	cJSON_AddNumberToObject(sum, BF_KEY_GEMM_SKIPPED, rep.gemms[BF_STATUS_SKIPPED]);
	cJSON_AddNumberToObject(sum, BF_KEY_EXIT_STATUS, status);
	cJSON_AddNumberToObject(sum, BF_KEY_WALL_MS, (double)(bf_now_ns() - t0) / 1e6);
	report_emit(&rep, sum);
	gemm_sweep_free(&sweep);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "agent: writing results to stdout failed\n");
		return BF_EXIT_INTERNAL;
	}
	return status;
}
