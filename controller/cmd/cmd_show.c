/*
 * ctl show [RUN-ID | FILE]: one archived run as ctl run printed it at the
 * end, replayed from the archive into the run model: a header line (run
 * id, start, status, tag), the plain table, and a line per host that did
 * not finish. An incomplete run is shown as far as it got, marked so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive_read.h"
#include "archive/paths.h"
#include "cmd/ctl.h"
#include "model/baseline.h"
#include "model/model.h"
#include "model/verdict_run.h"
#include "view/table.h"
#include "view/verdict_text.h"
#include "xmalloc.h"

static const char show_usage[] =
	"usage: ctl show [RUN-ID | FILE] [--results DIR] [--hosts-dir DIR]\n"
	"                [--fail-on slow]\n"
	"\n"
	"Prints an archived run (default: the most recent). First the verdict, a\n"
	"line per host and device: ok, SLOW, FAILED or unknown (? unreliable), with\n"
	"each comparison and its figure: its peers in the run, the published\n"
	"reference range, its history, its rated peak (docs/verdict.md); then one\n"
	"note per reason rows were skipped. Then the table as ctl run printed it:\n"
	"rows host x device x dtype x n with GFLOP/s (? unreliable), its change\n"
	"against the previous run on the same machine with the same settings,\n"
	"% of the device's rated peak, % of a published measurement of the same\n"
	"product (vs ref, ! below reference), median ms, ratios, peak MiB, checks\n"
	"and state; with several hosts, then the hosts side by side (each host's\n"
	"speed over the reference host's, the first unless the run said) and\n"
	"which are one machine.\n"
	"RUN-ID may be a unique prefix; FILE is a host's .ndjson file.\n"
	"--results DIR: the archive (default: see ctl --help).\n"
	"--hosts-dir DIR: the inventory, whose references/ the verdict reads.\n"
	"--fail-on slow: exit 7 when a device's verdict is a confident slow.\n"
	"\n"
	"Examples:\n"
	"  ctl show                    # the most recent run\n"
	"  ctl show 20261201T0435      # a run by a unique prefix of its id\n"
	"\n"
	"Exit status: 0 printed, 2 bad arguments, no such run or a bad reference\n"
	"file, 4 could not write it, 7 --fail-on slow and a device is slow (one\n"
	"line on stderr says why).\n";

/* host_state from run.json's host status; "n/a" (a lone file) from
 * whether the records end with the summary. */
static enum host_state state_of(const struct archive_host *h)
{
	for (int s = HOST_PENDING; s <= HOST_INTERRUPTED; s++)
		if (strcmp(h->status, host_state_name((enum host_state)s)) == 0)
			return (enum host_state)s;
	return h->complete ? HOST_DONE : HOST_FAILED;
}

static void replay(struct model *m, const struct archive_run *run)
{
	for (int i = 0; i < run->nhosts; i++) {
		const struct archive_host *h = &run->hosts[i];
		enum host_state st = state_of(h);

		for (int k = 0; k < h->nrecords; k++)
			model_add_record(m, i, &h->records[k]);
		model_set_fingerprint(m, i, h->fingerprint);
		if (h->agent_exit >= 0)
			model_set_agent_exit(m, i, h->agent_exit);
		model_set_state(m, i, st,
				h->reason ? h->reason :
				st == HOST_FAILED && !h->complete ?
					  "no summary record: the agent ended early" :
					  NULL);
		/* Hosts of one machine, and their rows unreliable when they
		 * were measured at the same time, as ctl run showed them. */
		if (h->same_machine)
			model_set_machine(m, i, h->same_machine,
					  h->same_machine_at_once);
		if (run->baseline_host && strcmp(run->baseline_host, h->name) == 0)
			model_set_reference(m, i);
	}
}

/* Each host's Δ% baseline, as ctl run found it when the run was made:
 * the newest earlier run in results on the same machine with the same
 * settings (baseline_load), or why there is none. */
static void load_baselines(struct model *m, const struct archive_run *run,
			   const char *results)
{
	for (int i = 0; i < run->nhosts; i++) {
		const struct archive_host *h = &run->hosts[i];
		char detail[256], found[64];
		int nrows;

		/* An archive that cannot be read just has no Δ%. */
		if (h->host_record && h->host_record->options.present)
			baseline_load(m, i, results, h->name, h->host_record,
				      h->fingerprint, run->run_id, found,
				      sizeof(found), &nrows, detail,
				      sizeof(detail));
	}
}

static void print_header(const struct archive_run *run)
{
	printf("run %s  started %s  %s", run->run_id, run->started_at,
	       run->damaged ? "DAMAGED" :
	       run->incomplete ? "INCOMPLETE" : run->status);
	if (run->reason)
		printf(": %s", run->reason);
	if (run->tag)
		printf("  tag: %s", run->tag);
	putchar('\n');
}

/* What the archive itself lost: unreadable files and lines. */
static void print_archive_notes(const struct archive_run *run)
{
	for (int i = 0; i < run->nhosts; i++) {
		const struct archive_host *h = &run->hosts[i];

		if (h->read_error)
			printf("%s: records not read: %s\n", h->name, h->read_error);
		if (h->bad_lines)
			printf("%s: %d unreadable line%s skipped\n", h->name,
			       h->bad_lines, h->bad_lines == 1 ? "" : "s");
		if (h->cut_last_line)
			printf("%s: the records file ends in a partial line (ctl stopped while writing it)\n",
			       h->name);
	}
}

/* The newest run of results whose run.json is readable: a damaged one is
 * skipped with a one-line warning (ctl show ID still shows it). */
static enum bf_err load_newest(const char *results, struct archive_run **out,
			       char *detail, size_t detail_len)
{
	enum bf_err err;
	char **ids;
	int n;

	*out = NULL;
	err = archive_list_ids(results, &ids, &n, detail, detail_len);
	for (int i = n - 1; err == BF_OK && i >= 0 && !*out; i--) {
		char *dir = bf_xasprintf("%s/%s", results, ids[i]);
		struct archive_run *run;

		if (archive_load_run(dir, &run, detail, detail_len) == BF_OK) {
			if (!run->damaged)
				*out = run;
			else
				fprintf(stderr, "ctl: show: warning: skipped run %s: %s\n",
					run->run_id, run->reason);
			if (run->damaged)
				archive_run_free(run);
		}
		free(dir);
	}
	if (err == BF_OK && !*out)
		err = bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			      "%s: no runs", results);
	bf_xfree_strv(ids);
	return err;
}

enum { O_RESULTS, O_HOSTS, O_FAIL_ON };
static const struct ctl_opt show_opts[] = {
	[O_RESULTS] = { "results", 0, CTL_OPT_VALUE },
	[O_HOSTS] = { "hosts-dir", 0, CTL_OPT_VALUE },
	[O_FAIL_ON] = { "fail-on", 0, CTL_OPT_VALUE },
};

static int show_exec(const struct ctl_args *a)
{
	const char *results = NULL, *hosts = NULL;
	struct archive_run *run = NULL;
	struct verdict_run vr;
	struct verdict_text_counts counts;
	int fail_on_slow = 0, rc = BF_EXIT_OK;
	enum archive_target kind = ARCHIVE_TARGET_RUN;
	char detail[512], *path = NULL;
	const char **names;
	struct model m;
	enum bf_err err;

	if (ctl_args_dir(a, O_RESULTS, &results) ||
	    ctl_args_dir(a, O_HOSTS, &hosts) ||
	    ctl_args_word(a, O_FAIL_ON, "slow", &fail_on_slow))
		return BF_EXIT_USAGE;
	results = ctl_results_dir(results);
	if (a->npos > 1) {
		ctl_error("show: one run at a time (see ctl show --help)");
		return BF_EXIT_USAGE;
	}
	if (a->npos) {
		err = archive_resolve(results, a->pos[0], &kind, &path,
				      detail, sizeof(detail));
		if (err == BF_OK && kind == ARCHIVE_TARGET_HOST) {
			ctl_error("show: '%s' is a host; give a run id (see ctl list)",
				  a->pos[0]);
			return BF_EXIT_USAGE;
		}
	} else {
		err = load_newest(results, &run, detail, sizeof(detail));
	}
	if (err == BF_OK && !run)
		err = kind == ARCHIVE_TARGET_FILE ?
			      archive_load_file(path, &run, detail, sizeof(detail)) :
			      archive_load_run(path, &run, detail, sizeof(detail));
	free(path);
	if (err != BF_OK) {
		ctl_error("show: %s", detail);
		return BF_EXIT_USAGE;
	}
	names = bf_xcalloc((size_t)(run->nhosts ? run->nhosts : 1), sizeof(*names));
	for (int i = 0; i < run->nhosts; i++)
		names[i] = run->hosts[i].name;
	model_init(&m, run->nhosts, names);
	replay(&m, run);
	if (kind != ARCHIVE_TARGET_FILE)
		load_baselines(&m, run, results);
	if (verdict_run_compute(run, kind != ARCHIVE_TARGET_FILE ? results : NULL,
				ctl_hosts_dir(hosts, NULL), &vr, detail,
				sizeof(detail)) != BF_OK) {
		ctl_error("show: %s", detail);
		model_free(&m);
		free(names);
		archive_run_free(run);
		return BF_EXIT_USAGE;
	}
	print_header(run);
	verdict_text_print(stdout, run, &vr, &counts);
	if (fail_on_slow && counts.slow_confident) {
		ctl_error("show: %d device%s slow (--fail-on slow)",
			  counts.slow_confident,
			  counts.slow_confident == 1 ? "" : "s");
		rc = BF_EXIT_SLOW;
	}
	verdict_run_free(&vr);
	putchar('\n');
	table_print_plain(stdout, &m, table_terminal_width(stdout));
	print_archive_notes(run);
	model_free(&m);
	free(names);
	archive_run_free(run);
	return rc; /* main checks that stdout got it */
}

const struct ctl_command cmd_show_entry = {
	.name = "show",
	.summary = "print one archived run as a table",
	.args = { CTL_OPTS(show_opts), .usage = show_usage },
	.exec = show_exec,
};
