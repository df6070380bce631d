/*
 * ctl compare [RUN-ID | HOST | FILE ...]: archived runs or hosts side by
 * side, with a significance test per cell (compare.c builds and prints
 * the table; this file turns the command line into its columns).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "archive_read.h"
#include "bf_parse.h"
#include "compare.h"
#include "ctl.h"
#include "xmalloc.h"

#define MAX_COLUMNS 26

static const char compare_usage[] =
	"usage: ctl compare [RUN-ID | HOST | FILE ...] [--last N] [--json | --csv]\n"
	"                   [--results DIR]\n"
	"\n"
	"Archived runs side by side: one column per run (or host), one row per device,\n"
	"dtype and size. A cell is the median GFLOP/s ±spread and the median ms; each\n"
	"column after the first is compared with the first (A): the change in median\n"
	"GFLOP/s when a two-sided Mann-Whitney U test on the per-iteration samples finds\n"
	"it significant (p < 0.05), ~ when it does not. Provenance that differs between\n"
	"the columns (libraries, threads, driver, GPUs, agent, host key, settings) is\n"
	"listed under the table.\n"
	"\n"
	"  (none)         the last two runs (--last N: the last N), oldest first\n"
	"  RUN-ID         a run, in full or by a unique prefix; a run given alone that\n"
	"                 has several hosts compares its hosts\n"
	"  HOST           the most recent run with that host (that host only); one HOST\n"
	"                 given alone: its last two runs (--last N: N)\n"
	"  FILE           a host's .ndjson file\n"
	"  --json         the table as JSON (missing values are null)\n"
	"  --csv          the table as CSV, one line per row and column (missing: n/a)\n"
	"  --results DIR  the archive (default results/)\n"
	"\n"
	"Exit status: 0 table printed, 2 bad arguments or nothing to compare.\n";

struct columns {
	struct archive_run *runs[MAX_COLUMNS]; /* owned, one per load */
	int nruns;
	struct compare_column cols[MAX_COLUMNS];
	int ncols;
};

static void columns_free(struct columns *cs)
{
	for (int i = cs->nruns - 1; i >= 0; i--)
		archive_run_free(cs->runs[i]);
}

/* Adds run (taking ownership) as a column, restricted to host when not
 * NULL. Returns 0, or -1 after printing the error. */
static int add_run_column(struct columns *cs, struct archive_run *run,
			  const char *host)
{
	if (cs->ncols == MAX_COLUMNS) {
		ctl_error("compare: at most %d columns", MAX_COLUMNS);
		archive_run_free(run);
		return -1;
	}
	cs->runs[cs->nruns++] = run;
	memset(&cs->cols[cs->ncols], 0, sizeof(cs->cols[0]));
	cs->cols[cs->ncols].run = run;
	if (host) {
		cs->cols[cs->ncols].host = archive_run_host(run, host);
		if (!cs->cols[cs->ncols].host) {
			ctl_error("compare: %s: no host %s", run->dir, host);
			return -1;
		}
	}
	cs->ncols++;
	return 0;
}

/* Loads a run directory or file and adds it as a column (restricted to
 * host when not NULL). A run named on the command line is compared even
 * when its run.json is damaged (its host files are the columns' data).
 * Returns 0, or -1 after printing the error. */
static int add_column(struct columns *cs, const char *path, int is_file,
		      const char *host)
{
	struct archive_run *run;
	char detail[512];
	enum bf_err err;

	if (cs->ncols == MAX_COLUMNS) {
		ctl_error("compare: at most %d columns", MAX_COLUMNS);
		return -1;
	}
	err = is_file ? archive_load_file(path, &run, detail, sizeof(detail)) :
			archive_load_run(path, &run, detail, sizeof(detail));
	if (err != BF_OK) {
		ctl_error("compare: %s", detail);
		return -1;
	}
	return add_run_column(cs, run, host);
}

/* The newest `count` runs with host (or of all runs when host is NULL),
 * added oldest first so that column A is the earlier run. A run picked
 * this way whose run.json is damaged is skipped with a one-line warning,
 * and the next older one taken: one bad run does not stop the others. */
static int add_last_runs(struct columns *cs, const char *results,
			 const char *host, int count)
{
	struct archive_run *picked[MAX_COLUMNS];
	char detail[512], **ids;
	int n, npicked = 0, rc = 0;
	enum bf_err err;

	if (host)
		err = archive_runs_with_host(results, host, MAX_COLUMNS * 4,
					     &ids, &n, detail, sizeof(detail));
	else
		err = archive_list_ids(results, &ids, &n, detail, sizeof(detail));
	if (err != BF_OK) {
		ctl_error("compare: %s", detail);
		return -1;
	}
	if (!host) { /* newest first, as archive_runs_with_host gives them */
		for (int i = 0; i < n / 2; i++) {
			char *tmp = ids[i];

			ids[i] = ids[n - 1 - i];
			ids[n - 1 - i] = tmp;
		}
	}
	for (int i = 0; i < n && npicked < count && npicked < MAX_COLUMNS; i++) {
		char *path = bf_xasprintf("%s/%s", results, ids[i]);
		struct archive_run *run;

		err = archive_load_run(path, &run, detail, sizeof(detail));
		free(path);
		if (err != BF_OK || run->damaged) {
			fprintf(stderr, "ctl: compare: warning: skipped run %s: %s\n",
				err == BF_OK ? run->run_id : ids[i],
				err == BF_OK ? run->reason : detail);
			archive_run_free(err == BF_OK ? run : NULL);
			continue;
		}
		picked[npicked++] = run;
	}
	if (npicked == 0) {
		ctl_error("compare: %s: no runs%s%s", results,
			  host ? " with host " : "", host ? host : "");
		rc = -1;
	}
	for (int i = npicked - 1; i >= 0; i--) {
		if (rc == 0)
			rc = add_run_column(cs, picked[i], host);
		else
			archive_run_free(picked[i]);
	}
	bf_xfree_strv(ids);
	return rc;
}

static int parse_count(const char *s, int *out)
{
	long v;

	if (bf_parse_long(s, 1, MAX_COLUMNS, &v) < 0) {
		ctl_error("--last '%s': expected an integer from 1 to %d", s,
			  MAX_COLUMNS);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	enum { O_LAST = 256, O_JSON, O_CSV, O_RESULTS, O_HELP };
	static const struct option longopts[] = {
		{ "last", required_argument, NULL, O_LAST },
		{ "json", no_argument, NULL, O_JSON },
		{ "csv", no_argument, NULL, O_CSV },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *results = "results";
	int c, last = 0, json = 0, csv = 0, npos, status = BF_EXIT_USAGE;
	struct compare_table *t = NULL;
	struct columns cs;

	memset(&cs, 0, sizeof(cs));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case O_LAST:
			if (parse_count(optarg, &last))
				return BF_EXIT_USAGE;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_CSV:
			csv = 1;
			break;
		case O_RESULTS:
			results = optarg;
			break;
		case O_HELP:
			fputs(compare_usage, stdout);
			return BF_EXIT_OK;
		case ':':
			ctl_error("%s: needs a value", argv[optind - 1]);
			return BF_EXIT_USAGE;
		default:
			ctl_error("%s: unknown option (see ctl compare --help)",
				  argv[optind - 1]);
			return BF_EXIT_USAGE;
		}
	}
	if (json && csv) {
		ctl_error("compare: --json and --csv: give only one");
		return BF_EXIT_USAGE;
	}
	npos = argc - optind;
	if (last && npos > 1) {
		ctl_error("compare: --last: give it alone or with one HOST");
		return BF_EXIT_USAGE;
	}
	if (npos == 0 && add_last_runs(&cs, results, NULL, last ? last : 2))
		goto out;
	for (int i = optind; i < argc; i++) {
		enum archive_target kind;
		char detail[512], *path;

		if (archive_resolve(results, argv[i], &kind, &path, detail,
				    sizeof(detail)) != BF_OK) {
			ctl_error("compare: %s", detail);
			goto out;
		}
		if (kind == ARCHIVE_TARGET_HOST) {
			int rc = add_last_runs(&cs, results, argv[i],
					       npos == 1 ? (last ? last : 2) : 1);

			if (rc)
				goto out;
			continue;
		}
		if (last) {
			ctl_error("compare: --last: give it alone or with one HOST, not with %s",
				  argv[i]);
			free(path);
			goto out;
		}
		c = add_column(&cs, path, kind == ARCHIVE_TARGET_FILE, NULL);
		free(path);
		if (c)
			goto out;
	}
	/* One run alone: its hosts are what there is to compare. */
	if (cs.ncols == 1 && !cs.cols[0].host && cs.cols[0].run->nhosts > 1) {
		const struct archive_run *run = cs.cols[0].run;

		for (int i = 0; i < run->nhosts && i < MAX_COLUMNS; i++) {
			cs.cols[i].run = run;
			cs.cols[i].host = &run->hosts[i];
		}
		cs.ncols = run->nhosts < MAX_COLUMNS ? run->nhosts : MAX_COLUMNS;
	}
	if (cs.ncols < 2) {
		ctl_error("compare: only %s to compare: give two runs, hosts or files (see ctl compare --help)",
			  cs.cols[0].run->run_id);
		goto out;
	}
	t = compare_build(cs.cols, cs.ncols, COMPARE_ALPHA);
	if (json) {
		cJSON *doc = compare_to_json(t);
		char *text = cJSON_Print(doc);

		puts(text);
		cJSON_free(text);
		cJSON_Delete(doc);
	} else if (csv) {
		compare_print_csv(stdout, t);
	} else {
		compare_print_plain(stdout, t);
	}
	status = fflush(stdout) == 0 ? BF_EXIT_OK : BF_EXIT_INTERNAL;
out:
	compare_free(t);
	columns_free(&cs);
	return status;
}
