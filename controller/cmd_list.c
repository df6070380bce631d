/*
 * ctl list: the runs in the archive, oldest first, one per line: id,
 * start time, hosts, status, tag. Reads run.json files only.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_read.h"
#include "ctl.h"
#include "xmalloc.h"

static const char list_usage[] =
	"usage: ctl list [--last N] [--results DIR]\n"
	"\n"
	"Lists archived runs, oldest first: id, start time (UTC), hosts, status\n"
	"(complete or incomplete) and tag. --last N lists the newest N only.\n"
	"Exit status: 0 listed (also when there is no run yet), 2 bad arguments or\n"
	"no such results directory.\n";

int cmd_list(int argc, char **argv)
{
	enum { O_LAST = 256, O_RESULTS, O_HELP };
	static const struct option longopts[] = {
		{ "last", required_argument, NULL, O_LAST },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *results = "results";
	char detail[512], **ids, *(*lines)[5];
	int width[4] = { 0, 0, 0, 0 };
	long last = 0;
	int c, n, first;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case O_LAST:
			errno = 0;
			last = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || last < 1) {
				ctl_error("--last '%s': expected a positive integer",
					  optarg);
				return BF_EXIT_USAGE;
			}
			break;
		case O_RESULTS:
			results = optarg;
			break;
		case O_HELP:
			fputs(list_usage, stdout);
			return BF_EXIT_OK;
		case ':':
			ctl_error("%s: needs a value", argv[optind - 1]);
			return BF_EXIT_USAGE;
		default:
			ctl_error("%s: unknown option (see ctl list --help)",
				  argv[optind - 1]);
			return BF_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		ctl_error("list: '%s': unexpected argument", argv[optind]);
		return BF_EXIT_USAGE;
	}
	if (archive_list_ids(results, &ids, &n, detail, sizeof(detail)) != BF_OK) {
		ctl_error("list: %s", detail);
		return BF_EXIT_USAGE;
	}
	if (n == 0)
		fprintf(stderr, "ctl: list: %s: no runs yet\n", results);
	first = last && last < n ? n - (int)last : 0;
	lines = bf_xcalloc((size_t)(n - first + 1), sizeof(*lines));
	/* Columns: id, start, hosts, status, tag; sized to their contents. */
	for (int i = first; i < n; i++) {
		char *dir = bf_xasprintf("%s/%s", results, ids[i]);
		struct archive_run *run;
		char **l = lines[i - first];

		l[0] = bf_xstrdup(ids[i]);
		if (archive_load_run_info(dir, &run, detail, sizeof(detail)) != BF_OK) {
			/* One damaged run.json does not hide the others. */
			l[1] = bf_xstrdup("n/a");
			l[2] = bf_xstrdup("n/a");
			l[3] = bf_xasprintf("unreadable: %s", detail);
			l[4] = bf_xstrdup("");
		} else {
			l[1] = bf_xstrdup(run->started_at);
			l[2] = bf_xstrdup("");
			for (int h = 0; h < run->nhosts; h++) {
				char *hosts = bf_xasprintf("%s%s%s", l[2], h ? "," : "",
							run->hosts[h].name);

				free(l[2]);
				l[2] = hosts;
			}
			l[3] = run->damaged ?
				       bf_xasprintf("%s: %s", run->status, run->reason) :
				       bf_xstrdup(run->status);
			l[4] = bf_xstrdup(run->tag ? run->tag : "");
			archive_run_free(run);
		}
		free(dir);
		for (int k = 0; k < 4; k++)
			if ((int)strlen(l[k]) > width[k])
				width[k] = (int)strlen(l[k]);
	}
	for (int i = 0; i < n - first; i++) {
		char **l = lines[i];

		if (l[4][0])
			printf("%-*s  %-*s  %-*s  %-*s  %s\n", width[0], l[0],
			       width[1], l[1], width[2], l[2], width[3], l[3], l[4]);
		else
			printf("%-*s  %-*s  %-*s  %s\n", width[0], l[0], width[1],
			       l[1], width[2], l[2], l[3]);
		for (int k = 0; k < 5; k++)
			free(l[k]);
	}
	free(lines);
	bf_xfree_strv(ids);
	return fflush(stdout) == 0 ? BF_EXIT_OK : BF_EXIT_INTERNAL;
}
