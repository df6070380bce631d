/*
 * ctl list: the runs in the archive, oldest first, one per line: id,
 * start time, hosts, status, tag. Reads run.json files only.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive_read.h"
#include "bf_text.h"
#include "cmd/ctl.h"
#include "view/texttable.h"
#include "xmalloc.h"

static const char list_usage[] =
	"usage: ctl list [--last N] [--results DIR]\n"
	"\n"
	"Lists archived runs, oldest first: id, start time (UTC), hosts, status\n"
	"(complete or incomplete) and tag. --last N lists the newest N only.\n"
	"The archive is --results DIR, else as ctl --help says.\n"
	"\n"
	"Examples:\n"
	"  ctl list --last 5\n"
	"  ctl list --results /srv/bench/results\n"
	"\n"
	"Exit status: 0 listed (also when there is no run yet, or no results\n"
	"directory), 2 bad arguments or an unreadable results directory, 4 could\n"
	"not write the list (one line on stderr says why).\n";

enum { O_LAST, O_RESULTS };
static const struct ctl_opt list_opts[] = {
	[O_LAST] = { "last", 0, CTL_OPT_VALUE },
	[O_RESULTS] = { "results", 0, CTL_OPT_VALUE },
};

static int list_exec(const struct ctl_args *a)
{
	const char *results = NULL;
	char detail[512], **ids;
	struct texttable *tt;
	enum bf_err err;
	int n, first, last = 0;

	if (ctl_args_int(a, O_LAST, 1, INT_MAX, &last) ||
	    ctl_args_dir(a, O_RESULTS, &results))
		return BF_EXIT_USAGE;
	if (a->npos) {
		ctl_error("list: '%s': unexpected argument", a->pos[0]);
		return BF_EXIT_USAGE;
	}
	results = ctl_results_dir(results);
	err = archive_list_ids(results, &ids, &n, detail, sizeof(detail));
	if (err == BF_ERR_NOT_FOUND) {
		/* No results directory yet: no run has been made. */
		fprintf(stderr, "ctl: list: %s: no runs yet (no such directory)\n",
			results);
		return BF_EXIT_OK;
	}
	if (err != BF_OK) {
		ctl_error("list: %s", detail);
		return BF_EXIT_USAGE;
	}
	if (n == 0)
		fprintf(stderr, "ctl: list: %s: no runs yet\n", results);
	first = last && last < n ? n - last : 0;
	/* Columns: id, start, hosts, status, tag; no header line. */
	tt = texttable_new(2);
	for (int k = 0; k < 5; k++)
		texttable_add_column(tt, "", TEXTTABLE_LEFT);
	for (int i = first; i < n; i++) {
		char *dir = bf_xasprintf("%s/%s", results, ids[i]);
		struct archive_run *run;
		char safe[1024];

		texttable_add_row(tt);
		texttable_cell(tt, bf_text_sanitize(safe, sizeof(safe), ids[i]));
		if (archive_load_run_info(dir, &run, detail, sizeof(detail)) != BF_OK) {
			/* One damaged run.json does not hide the others. */
			texttable_cell(tt, "n/a");
			texttable_cell(tt, "n/a");
			texttable_cellf(tt, "unreadable: %s",
					bf_text_sanitize(safe, sizeof(safe), detail));
		} else {
			char *hosts = bf_xstrdup("");

			texttable_cell(tt, bf_text_sanitize(safe, sizeof(safe),
							    run->started_at));
			for (int h = 0; h < run->nhosts; h++) {
				char *more = bf_xasprintf("%s%s%s", hosts, h ? "," : "",
							  run->hosts[h].name);

				free(hosts);
				hosts = more;
			}
			texttable_cell(tt, bf_text_sanitize(safe, sizeof(safe), hosts));
			if (run->damaged)
				texttable_cellf(tt, "%s: %s", run->status,
						bf_text_sanitize(safe, sizeof(safe),
								 run->reason));
			else
				texttable_cell(tt, bf_text_sanitize(safe, sizeof(safe),
								    run->status));
			texttable_cell(tt, bf_text_sanitize(safe, sizeof(safe),
							    run->tag ? run->tag : ""));
			free(hosts);
			archive_run_free(run);
		}
		free(dir);
	}
	texttable_print(tt, stdout);
	texttable_free(tt);
	bf_xfree_strv(ids);
	return BF_EXIT_OK; /* main checks that stdout got it */
}

const struct ctl_command cmd_list_entry = {
	.name = "list",
	.summary = "list archived runs: id, date, hosts, status, tag",
	.args = { CTL_OPTS(list_opts), .usage = list_usage },
	.exec = list_exec,
};
