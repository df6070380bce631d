/*
 * ctl history HOST: a host's archived runs over time, series by series,
 * with the change points found in each and what changed with them
 * (model/history.c finds them, view/history_text.c prints them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd/ctl.h"
#include "model/history.h"
#include "record.h"
#include "view/history_view.h"
#include "view/table.h"

static const char history_usage[] =
	"usage: ctl history HOST [--device D] [--dtype T] [--n N] [--last N]\n"
	"                   [--min-change PCT] [--fail-on-regression PCT] [--json]\n"
	"                   [--results DIR]\n"
	"\n"
	"HOST's archived runs in time order, one series per device, dtype, size and\n"
	"settings (runs whose settings differ are never joined): the runs' median\n"
	"GFLOP/s as a sparkline, and the change points found in each series by the\n"
	"e-divisive method (Matteson and James, 2014) on the per-iteration samples, a\n"
	"run-level permutation test at p < 0.05 (docs/compare.md says how and how often\n"
	"it is wrong). At each change point, what differs between the runs either side\n"
	"(driver, CUDA, cuBLAS, OpenBLAS, environment, host key, GPUs, throttling), or\n"
	"\"no provenance change: unexplained shift\".\n"
	"\n"
	"  --device D              only device D (cpu, cuda:0, ...)\n"
	"  --dtype T               only dtype T (fp32, fp16, bf16, tf32, fp8)\n"
	"  --n N                   only size N\n"
	"  --last N                only the last N runs of HOST (default: all)\n"
	"  --min-change PCT        a change point must move the median by at least\n"
	"                          PCT percent (default 5)\n"
	"  --fail-on-regression PCT\n"
	"                          exit 5 when a change point is a slowdown of more\n"
	"                          than PCT percent (for cron jobs and CI)\n"
	"  --json                  the history as JSON, for dashboards\n"
	"  --results DIR           the archive (default: see ctl --help)\n"
	"\n"
	"Example: ctl history spark --dtype bf16 --last 30 --fail-on-regression 10\n"
	"\n"
	"Exit status: 0 printed, 2 bad arguments or no run with HOST, 4 could not\n"
	"write it, 5 --fail-on-regression found a slowdown beyond PCT.\n";

enum { O_DEVICE, O_DTYPE, O_N, O_LAST, O_MIN_CHANGE, O_FAIL, O_JSON,
       O_RESULTS };
static const struct ctl_opt history_opts[] = {
	[O_DEVICE] = { "device", 0, CTL_OPT_VALUE },
	[O_DTYPE] = { "dtype", 0, CTL_OPT_VALUE },
	[O_N] = { "n", 0, CTL_OPT_VALUE },
	[O_LAST] = { "last", 0, CTL_OPT_VALUE },
	[O_MIN_CHANGE] = { "min-change", 0, CTL_OPT_VALUE },
	[O_FAIL] = { "fail-on-regression", 0, CTL_OPT_VALUE },
	[O_JSON] = { "json", 0, CTL_OPT_FLAG },
	[O_RESULTS] = { "results", 0, CTL_OPT_VALUE },
};

static int history_exec(const struct ctl_args *a)
{
	struct history_filter filter = { ctl_args_value(a, O_DEVICE),
					 ctl_args_value(a, O_DTYPE), 0 };
	struct cp_options cp = CP_OPTIONS_DEFAULT;
	const char *results = NULL;
	double fail_pct = -1, min_change = 100 * cp.min_change;
	int last = 0, json = ctl_args_count(a, O_JSON) > 0;
	int status = BF_EXIT_USAGE;
	struct history *h = NULL;
	char detail[1024];

	if (ctl_args_int(a, O_N, 1, 1 << 20, &filter.n) ||
	    ctl_args_int(a, O_LAST, 1, 1 << 24, &last) ||
	    ctl_args_number(a, O_MIN_CHANGE, 0, 1000, &min_change) ||
	    ctl_args_number(a, O_FAIL, 0, 100, &fail_pct) ||
	    ctl_args_dir(a, O_RESULTS, &results))
		return BF_EXIT_USAGE;
	if (a->npos != 1) {
		ctl_error("history: give one HOST (see ctl history --help)");
		return BF_EXIT_USAGE;
	}
	cp.min_change = min_change / 100;
	results = ctl_results_dir(results);
	if (history_load(results, a->pos[0], last, &filter, &cp, &h, detail,
			 sizeof(detail)) != BF_OK) {
		ctl_error("history: %s", detail);
		return BF_EXIT_USAGE;
	}
	/* Every run passed over, named once. */
	for (int i = 0; i < h->nskipped; i++)
		fprintf(stderr, "ctl: history: warning: %s\n", h->skipped[i]);
	if (json) {
		/* The samples are the records' own doubles, bit for bit. */
		bf_json_print_exact(stdout, history_to_json(h));
	} else {
		history_print_text(stdout, h, table_utf8());
	}
	status = BF_EXIT_OK; /* main checks that stdout got it */
	if (fail_pct >= 0)
		for (int i = 0; i < h->nseries; i++)
			for (int k = 0; k < h->series[i].nchanges; k++)
				if (history_is_regression(&h->series[i].changes[k],
							  fail_pct))
					status = BF_EXIT_REGRESSION;
	history_free(h);
	return status;
}

const struct ctl_command cmd_history_entry = {
	.name = "history",
	.summary = "a host's runs over time: change points and what changed with them",
	.args = { CTL_OPTS(history_opts), .usage = history_usage },
	.exec = history_exec,
};
