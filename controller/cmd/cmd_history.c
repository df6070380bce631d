/*
 * ctl history HOST: a host's archived runs over time, series by series,
 * with the change points found in each and what changed with them
 * (model/history.c finds them, view/history_text.c prints them).
 */
#include <getopt.h>
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

int cmd_history(int argc, char **argv)
{
	enum { O_DEVICE = 256, O_DTYPE, O_N, O_LAST, O_MIN_CHANGE, O_FAIL,
	       O_JSON, O_RESULTS, O_HELP };
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, O_DEVICE },
		{ "dtype", required_argument, NULL, O_DTYPE },
		{ "n", required_argument, NULL, O_N },
		{ "last", required_argument, NULL, O_LAST },
		{ "min-change", required_argument, NULL, O_MIN_CHANGE },
		{ "fail-on-regression", required_argument, NULL, O_FAIL },
		{ "json", no_argument, NULL, O_JSON },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct history_filter filter = { NULL, NULL, 0 };
	struct cp_options cp = CP_OPTIONS_DEFAULT;
	const char *results = NULL;
	double fail_pct = -1, min_change = 100 * cp.min_change;
	int c, last = 0, json = 0, status = BF_EXIT_USAGE;
	struct history *h = NULL;
	char detail[1024];

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case O_DEVICE:
			filter.device = optarg;
			break;
		case O_DTYPE:
			filter.dtype = optarg;
			break;
		case O_N:
			if (ctl_parse_int("--n", optarg, 1, 1 << 20, &filter.n))
				return BF_EXIT_USAGE;
			break;
		case O_LAST:
			if (ctl_parse_int("--last", optarg, 1, 1 << 24, &last))
				return BF_EXIT_USAGE;
			break;
		case O_MIN_CHANGE:
			if (ctl_parse_number("--min-change", optarg, 0, 1000,
					     &min_change))
				return BF_EXIT_USAGE;
			break;
		case O_FAIL:
			if (ctl_parse_number("--fail-on-regression", optarg, 0,
					     100, &fail_pct))
				return BF_EXIT_USAGE;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_RESULTS:
			if (ctl_parse_dir("--results", optarg, &results))
				return BF_EXIT_USAGE;
			break;
		case O_HELP:
			fputs(history_usage, stdout);
			return BF_EXIT_OK;
		default: /* ':' or an unknown option */
			return ctl_option_error("history", c, argv);
		}
	}
	if (argc - optind != 1) {
		ctl_error("history: give one HOST (see ctl history --help)");
		return BF_EXIT_USAGE;
	}
	cp.min_change = min_change / 100;
	results = ctl_results_dir(results);
	if (history_load(results, argv[optind], last, &filter, &cp, &h, detail,
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
