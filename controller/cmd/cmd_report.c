/*
 * ctl report [RUN-ID | HOST | FILE ...] [--last N] [-o FILE]: the selected
 * runs as one self-contained HTML page (report_html.c), the same
 * selection as ctl compare (selection.c) but one column is enough.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bf_clock.h"
#include "cmd/ctl.h"
#include "cmd/selection.h"
#include "model/compare.h"
#include "model/history.h"
#include "view/report_html.h"
#include "xmalloc.h"

static const char report_usage[] =
	"usage: ctl report [RUN-ID | HOST | FILE ...] [--last N] [-o FILE]\n"
	"                  [--history N] [--results DIR] [--hosts-dir DIR]\n"
	"\n"
	"Writes the selected runs as one HTML file that needs nothing else (inline\n"
	"SVG and CSS, no script, no network, readable on a phone): first the\n"
	"verdict, a card per host and device (ok, SLOW, FAILED or unknown against\n"
	"its peers, the references and its history: docs/verdict.md), then the hosts (or\n"
	"runs) side by side with each one's speed over the first, GFLOP/s per host,\n"
	"device, dtype and size with the spread of the samples, speed-ups (column\n"
	"against column, GPU vs CPU, dtype vs fp32), the fraction of each device's\n"
	"rated peak and of published measurements of the same product, one\n"
	"roofline chart per kind of device with every host's points, each host's\n"
	"history over its last N runs (--history, default 10; runs with other\n"
	"settings marked) and the provenance that differs. A chart that would hold\n"
	"no figure is left out, and one line under the verdict says which and why.\n"
	"Runs are chosen as for ctl compare (see ctl compare --help); a single run\n"
	"is enough.\n"
	"\n"
	"  -o FILE, --output FILE\n"
	"                 where to write (default report.html; - for stdout): a\n"
	"                 regular FILE is replaced whole (a temporary file beside it,\n"
	"                 renamed); anything else (a symbolic link, /dev/stdout, a\n"
	"                 FIFO) is written into\n"
	"  --last N       the last N runs (as ctl compare --last)\n"
	"  --history N    runs of each host in its history chart (default 10)\n"
	"  --results DIR  the archive (default: see ctl --help)\n"
	"  --hosts-dir DIR  the inventory, whose references/ the verdict reads\n"
	"\n"
	"Examples:\n"
	"  ctl report --last 2 -o report.html\n"
	"  ctl report spark --history 20 -o spark.html\n"
	"\n"
	"Exit status: 0 written, 2 bad arguments, nothing to report or a bad\n"
	"reference file, 4 could not\n"
	"write (one line on stderr names FILE, or stdout, and says why).\n";

/* Each distinct host among the columns: its history over its last
 * `count` runs, with change points (model/history.h). Returns how many
 * histories were filled into *out (caller frees with free_histories). */
static int load_histories(const struct selection *sel, const char *results,
			  int count, struct history ***out)
{
	struct history **h = NULL;
	int nh = 0;

	for (int c = 0; c < sel->ncols; c++) {
		const struct compare_column *col = &sel->cols[c];

		for (int k = 0; k < col->run->nhosts; k++) {
			const char *name = col->run->hosts[k].name;
			struct history *one;
			char detail[512];
			int dup = 0;

			if (col->host && col->host != &col->run->hosts[k])
				continue;
			for (int j = 0; j < nh; j++)
				dup |= strcmp(h[j]->host, name) == 0;
			if (dup)
				continue;
			if (history_load(results, name, count, NULL, NULL, &one,
					 detail, sizeof(detail)) != BF_OK) {
				fprintf(stderr, "ctl: report: no history of %s: %s\n",
					name, detail);
				continue;
			}
			h = bf_xrealloc(h, (size_t)(nh + 1) * sizeof(*h));
			h[nh++] = one;
		}
	}
	*out = h;
	return nh;
}

static void free_histories(struct history **h, int nh)
{
	for (int i = 0; i < nh; i++)
		history_free(h[i]);
	free(h);
}

/* Writes the page to path: into a temporary file beside it, renamed over
 * it, when path is a regular file or does not exist yet (a browser
 * reloading never sees half a page); straight into it when it is anything
 * else, which a rename would replace: a device (/dev/null), a FIFO, a
 * symbolic link (/dev/stdout, or a link to the page).
 * Returns 0, or -1 after one line "ctl: report: cannot write PATH: why"
 * (no temporary file is left behind). */
static int write_page(const char *path, const struct compare_table *t,
		      struct history *const *hist, int nhist)
{
	struct stat st;
	char when[32], *tmp = NULL;
	int e;
	FILE *f;

	if (lstat(path, &st) != 0 || S_ISREG(st.st_mode))
		tmp = bf_xasprintf("%s.tmp%ld", path, (long)getpid());
	f = fopen(tmp ? tmp : path, "w");
	if (!f) {
		e = errno;
		free(tmp);
		ctl_error("report: cannot write %s: %s", path, strerror(e));
		return -1;
	}
	report_html_write(f, t, hist, nhist, bf_utc_iso8601(when, NULL));
	e = ctl_stream_error(f);
	if (fclose(f) != 0 && !e)
		e = errno;
	if (!e && tmp && rename(tmp, path) != 0)
		e = errno;
	if (e && tmp)
		unlink(tmp);
	free(tmp);
	if (e) {
		ctl_error("report: cannot write %s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}

enum { O_LAST, O_RESULTS, O_HISTORY, O_OUTPUT, O_HOSTS };
static const struct ctl_opt report_opts[] = {
	[O_LAST] = { "last", 0, CTL_OPT_VALUE },
	[O_RESULTS] = { "results", 0, CTL_OPT_VALUE },
	[O_HISTORY] = { "history", 0, CTL_OPT_VALUE },
	[O_OUTPUT] = { "output", 'o', CTL_OPT_VALUE },
	[O_HOSTS] = { "hosts-dir", 0, CTL_OPT_VALUE },
};

static int report_exec(const struct ctl_args *a)
{
	const char *results = NULL, *output = "report.html", *hosts = NULL;
	struct verdict_run vrs[SELECTION_MAX_COLUMNS];
	int nvrs = 0;
	char detail[512];
	struct history **hist = NULL;
	struct compare_table *t = NULL;
	struct selection sel;
	char when[32];
	int last = 0, history = 10, nhist = 0, status = BF_EXIT_USAGE;

	memset(&sel, 0, sizeof(sel));
	sel.cmd = "report";
	if (selection_parse_last(a, O_LAST, &last) ||
	    ctl_args_dir(a, O_RESULTS, &results) ||
	    ctl_args_int(a, O_HISTORY, 0, 100, &history) ||
	    ctl_args_dir(a, O_HOSTS, &hosts))
		return BF_EXIT_USAGE;
	if (ctl_args_value(a, O_OUTPUT))
		output = ctl_args_value(a, O_OUTPUT);
	results = ctl_results_dir(results);
	if (selection_build(&sel, results, last, a->pos, a->npos))
		goto out;
	t = compare_build(sel.cols, sel.ncols, COMPARE_ALPHA);
	/* Each run's verdict, for the cards that open the page. */
	for (int i = 0; i < sel.nruns; i++) {
		if (verdict_run_compute(sel.runs[i], results,
					ctl_hosts_dir(hosts, NULL), &vrs[i],
					detail, sizeof(detail)) != BF_OK) {
			ctl_error("report: %s", detail);
			goto out;
		}
		nvrs++;
	}
	compare_set_verdicts(t, (const struct archive_run *const *)sel.runs,
			     vrs, nvrs);
	if (history > 0)
		nhist = load_histories(&sel, results, history, &hist);
	if (strcmp(output, "-") == 0) {
		/* main checks that stdout got it, as for every command */
		report_html_write(stdout, t, hist, nhist,
				  bf_utc_iso8601(when, NULL));
	} else if (write_page(output, t, hist, nhist) == 0) {
		fprintf(stderr, "report: %d column%s written to %s\n",
			sel.ncols, sel.ncols == 1 ? "" : "s", output);
	} else {
		status = BF_EXIT_INTERNAL;
		goto out;
	}
	status = BF_EXIT_OK;
out:
	free_histories(hist, nhist);
	compare_free(t);
	for (int i = 0; i < nvrs; i++)
		verdict_run_free(&vrs[i]);
	selection_free(&sel);
	return status;
}

const struct ctl_command cmd_report_entry = {
	.name = "report",
	.summary = "archived runs as one self-contained HTML page with charts",
	.args = { CTL_OPTS(report_opts), .usage = report_usage },
	.exec = report_exec,
};
