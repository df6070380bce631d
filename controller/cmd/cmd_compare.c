/*
 * ctl compare [RUN-ID | HOST | FILE ...]: archived runs or hosts side by
 * side, with a significance test per cell (model/compare.c builds the
 * table, view/compare_text.c and compare_export.c print it; this file
 * turns the command line into its columns).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd/ctl.h"
#include "bf_text.h"
#include "cmd/selection.h"
#include "record.h"
#include "view/compare_view.h"

static const char compare_usage[] =
	"usage: ctl compare [RUN-ID | HOST | FILE ...] [--last N]\n"
	"                   [--json | --csv | --samples | --benchstat]\n"
	"                   [--fail-on-regression PCT] [--results DIR]\n"
	"                   [--hosts-dir DIR]\n"
	"\n"
	"Archived runs side by side: one column per run (or host), one row per device,\n"
	"dtype and size. A cell is the median GFLOP/s (spread) and the median ms; each\n"
	"column after the first is compared with the first (A): the change in median\n"
	"GFLOP/s when a two-sided Mann-Whitney U test on the per-iteration samples finds\n"
	"it significant (p < 0.05), ~ when it does not. Provenance that differs between\n"
	"the columns (libraries, threads, driver, GPUs, agent, host key, settings) is\n"
	"listed under the table.\n"
	"\n"
	"  (none)         the last two runs (--last N: the last N, at most 26), oldest\n"
	"                 first\n"
	"  RUN-ID         a run, in full or by a unique prefix; a run given alone that\n"
	"                 has several hosts compares its hosts\n"
	"  HOST           the most recent run with that host (that host only); one HOST\n"
	"                 given alone: its last two runs (--last N: N)\n"
	"  FILE           a host's .ndjson file\n"
	"  --json         the table as JSON (missing values are null), each cell with\n"
	"                 its verdict in its own run (ok, slow, failed, unknown, with\n"
	"                 its reasons: docs/verdict.md)\n"
	"  --csv          the table as CSV, one line per row and column (missing: n/a),\n"
	"                 the verdict last\n"
	"  --samples      every timed sample as CSV: column, run, host, device, dtype,\n"
	"                 n, sample, ms, GFLOP/s\n"
	"  --benchstat    every sample in Go's benchmark format, for benchstat\n"
	"                 (benchstat -col run FILE; -col host: one run's hosts)\n"
	"  --fail-on-regression PCT\n"
	"                 exit 5 when a column is significantly slower than A by more\n"
	"                 than PCT percent in some row (one line on stderr each)\n"
	"  --results DIR  the archive (default: see ctl --help)\n"
	"  --hosts-dir DIR  the inventory, whose references/ the verdict reads\n"
	"\n"
	"Examples:\n"
	"  ctl compare                          # the last two runs\n"
	"  ctl compare spark workstation        # each host's newest run, side by side\n"
	"  ctl compare 20261201T0435 --csv > runs.csv\n"
	"  ctl compare --last 2 --fail-on-regression 5\n"
	"\n"
	"Exit status: 0 table printed, 2 bad arguments or nothing to compare, 4 could\n"
	"not write it (one line on stderr says why), 2 also a bad reference file\n"
	"(--json, --csv), 5 --fail-on-regression found a\n"
	"slowdown beyond PCT.\n";

/* One line on stderr for every cell significantly slower than column A
 * by more than pct percent; returns how many. */
static int report_regressions(const struct compare_table *t, double pct)
{
	int n = 0;

	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		for (int c = 1; c < t->ncols; c++) {
			const struct compare_delta *d = &r->deltas[c];
			char safe[160];

			if (!compare_is_regression(d, pct))
				continue;
			n++;
			ctl_error("compare: regression: %s%s%s %s n=%d: %s is %.1f%% "
				  "slower than A (p=%.3f), beyond %g%%",
				  bf_text_sanitize(safe, sizeof(safe), r->host),
				  r->host[0] ? " " : "", r->device,
				  bf_dtype_name(r->dtype), r->n, t->cols[c].label, 100 * (1 - d->ratio),
				  d->p, pct);
		}
	}
	return n;
}

enum { O_LAST, O_JSON, O_CSV, O_SAMPLES, O_BENCHSTAT, O_RESULTS, O_FAIL,
       O_HOSTS };
static const struct ctl_opt compare_opts[] = {
	[O_LAST] = { "last", 0, CTL_OPT_VALUE },
	[O_JSON] = { "json", 0, CTL_OPT_FLAG },
	[O_CSV] = { "csv", 0, CTL_OPT_FLAG },
	[O_SAMPLES] = { "samples", 0, CTL_OPT_FLAG },
	[O_BENCHSTAT] = { "benchstat", 0, CTL_OPT_FLAG },
	[O_RESULTS] = { "results", 0, CTL_OPT_VALUE },
	[O_FAIL] = { "fail-on-regression", 0, CTL_OPT_VALUE },
	[O_HOSTS] = { "hosts-dir", 0, CTL_OPT_VALUE },
};

static int compare_exec(const struct ctl_args *a)
{
	const char *results = NULL, *hosts = NULL;
	struct verdict_run vrs[SELECTION_MAX_COLUMNS];
	int nvrs = 0;
	char detail[512];
	double fail_pct = -1;
	int last = 0, status = BF_EXIT_USAGE;
	int json = ctl_args_count(a, O_JSON) > 0;
	int csv = ctl_args_count(a, O_CSV) > 0;
	int samples = ctl_args_count(a, O_SAMPLES) > 0;
	int benchstat = ctl_args_count(a, O_BENCHSTAT) > 0;
	struct compare_table *t = NULL;
	struct selection cs;

	memset(&cs, 0, sizeof(cs));
	cs.cmd = "compare";
	if (selection_parse_last(a, O_LAST, &last) ||
	    ctl_args_dir(a, O_RESULTS, &results) ||
	    ctl_args_dir(a, O_HOSTS, &hosts) ||
	    ctl_args_number(a, O_FAIL, 0, 100, &fail_pct))
		return BF_EXIT_USAGE;
	if (json + csv + samples + benchstat > 1) {
		ctl_error("compare: --json, --csv, --samples, --benchstat: give only one");
		return BF_EXIT_USAGE;
	}
	results = ctl_results_dir(results);
	if (selection_build(&cs, results, last, a->pos, a->npos))
		goto out;
	if (cs.ncols < 2) {
		ctl_error("compare: only %s to compare: give two runs, hosts or files (see ctl compare --help)",
			  cs.cols[0].run->run_id);
		goto out;
	}
	t = compare_build(cs.cols, cs.ncols, COMPARE_ALPHA);
	/* Each run's verdict, for the cells of --json and --csv. */
	for (int i = 0; (json || csv) && i < cs.nruns; i++) {
		if (verdict_run_compute(cs.runs[i], results,
					ctl_hosts_dir(hosts, NULL), &vrs[i],
					detail, sizeof(detail)) != BF_OK) {
			ctl_error("compare: %s", detail);
			goto out;
		}
		nvrs++;
	}
	compare_set_verdicts(t, (const struct archive_run *const *)cs.runs,
			     vrs, nvrs);
	if (json) {
		/* The medians are the records' own doubles, bit for bit:
		 * cJSON alone may print them one unit in the last place off. */
		bf_json_print_exact(stdout, compare_to_json(t));
	} else if (csv) {
		compare_print_csv(stdout, t);
	} else if (samples) {
		compare_print_samples_csv(stdout, t);
	} else if (benchstat) {
		compare_print_benchstat(stdout, t);
	} else {
		compare_print_plain(stdout, t);
	}
	status = BF_EXIT_OK; /* main checks that stdout got it */
	if (fail_pct >= 0 && report_regressions(t, fail_pct))
		status = BF_EXIT_REGRESSION;
out:
	compare_free(t);
	for (int i = 0; i < nvrs; i++)
		verdict_run_free(&vrs[i]);
	selection_free(&cs);
	return status;
}

const struct ctl_command cmd_compare_entry = {
	.name = "compare",
	.summary = "archived runs or hosts side by side, with significance",
	.args = { CTL_OPTS(compare_opts), .usage = compare_usage },
	.exec = compare_exec,
};
