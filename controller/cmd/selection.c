/* The selection shared by ctl compare and ctl report; see selection.h. */
#include "cmd/selection.h"

#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "bf_parse.h"
#include "bf_text.h"
#include "cmd/ctl.h"
#include "xmalloc.h"

void selection_free(struct selection *cs)
{
	for (int i = cs->nruns - 1; i >= 0; i--)
		archive_run_free(cs->runs[i]);
	cs->nruns = cs->ncols = 0;
}

/* Adds run (taking ownership) as a column, restricted to host when not
 * NULL. Returns 0, or -1 after printing the error. */
static int add_run_column(struct selection *cs, struct archive_run *run,
			  const char *host)
{
	if (cs->ncols == SELECTION_MAX_COLUMNS) {
		ctl_error("%s: at most %d columns (A to %c)", cs->cmd,
			  SELECTION_MAX_COLUMNS,
			  'A' + SELECTION_MAX_COLUMNS - 1);
		archive_run_free(run);
		return -1;
	}
	cs->runs[cs->nruns++] = run;
	/* What the column lacks, named once (ctl show prints it too). */
	for (int i = 0; i < run->nhosts; i++) {
		const struct archive_host *h = &run->hosts[i];

		if (host && strcmp(h->name, host) != 0)
			continue;
		if (h->read_error)
			fprintf(stderr, "ctl: %s: warning: run %s: %s: records "
				"not read: %s\n", cs->cmd, run->run_id, h->name,
				h->read_error);
		if (h->bad_lines)
			fprintf(stderr, "ctl: %s: warning: run %s: %s: %d "
				"unreadable line%s skipped\n", cs->cmd,
				run->run_id, h->name, h->bad_lines,
				h->bad_lines == 1 ? "" : "s");
	}
	memset(&cs->cols[cs->ncols], 0, sizeof(cs->cols[0]));
	cs->cols[cs->ncols].run = run;
	if (host) {
		cs->cols[cs->ncols].host = archive_run_host(run, host);
		if (!cs->cols[cs->ncols].host) {
			ctl_error("%s: %s: no host %s", cs->cmd, run->dir, host);
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
static int add_column(struct selection *cs, const char *path, int is_file,
		      const char *host)
{
	struct archive_run *run;
	char detail[512];
	enum bf_err err;

	if (cs->ncols == SELECTION_MAX_COLUMNS) {
		ctl_error("%s: at most %d columns (A to %c)", cs->cmd,
			  SELECTION_MAX_COLUMNS,
			  'A' + SELECTION_MAX_COLUMNS - 1);
		return -1;
	}
	err = is_file ? archive_load_file(path, &run, detail, sizeof(detail)) :
			archive_load_run(path, &run, detail, sizeof(detail));
	if (err != BF_OK) {
		ctl_error("%s: %s", cs->cmd, detail);
		return -1;
	}
	return add_run_column(cs, run, host);
}

/* Whether host completed in run (run.json says "done"); when not, says
 * so on stderr in one line: "skipped run ID: HOST failed: why". The
 * strings come from the archive: made terminal-safe first. */
static int host_done(const struct selection *cs,
		     const struct archive_run *run, const char *host)
{
	const struct archive_host *h = archive_run_host(run, host);
	char id[128], name[256], status[64], why[512];

	if (h && h->status && strcmp(h->status, BF_RUN_HOST_DONE) == 0)
		return 1;
	fprintf(stderr, "ctl: %s: warning: skipped run %s: %s %s%s%s\n",
		cs->cmd, bf_text_sanitize(id, sizeof(id), run->run_id),
		bf_text_sanitize(name, sizeof(name), host),
		h && h->status ? bf_text_sanitize(status, sizeof(status), h->status) :
				 "missing",
		h && h->reason && strcmp(h->reason, h->status) ? ": " : "",
		h && h->reason && strcmp(h->reason, h->status) ?
			bf_text_sanitize(why, sizeof(why), h->reason) : "");
	return 0;
}

/* The newest `count` runs with host (or of all runs when host is NULL),
 * added oldest first so that column A is the earlier run. A run picked
 * this way whose run.json is damaged, or (with host) in which that host
 * did not complete (its run.json status is not "done"), is skipped with a
 * one-line warning, and the next older one taken: one bad run does not
 * stop the others. */
static int add_last_runs(struct selection *cs, const char *results,
			 const char *host, int count)
{
	struct archive_run *picked[SELECTION_MAX_COLUMNS];
	char detail[512], **ids, **damaged = NULL;
	int n, npicked = 0, rc = 0;
	enum bf_err err;

	if (host)
		err = archive_runs_with_host(results, host,
					     SELECTION_MAX_COLUMNS * 4, &ids,
					     &n, &damaged, detail,
					     sizeof(detail));
	else
		err = archive_list_ids(results, &ids, &n, detail, sizeof(detail));
	if (err != BF_OK) {
		ctl_error("%s: %s", cs->cmd, detail);
		return -1;
	}
	/* A run of host's whose run.json is lost: passed over, named. */
	for (char **d = damaged; d && *d; d++)
		fprintf(stderr, "ctl: %s: warning: skipped run %s\n", cs->cmd,
			*d);
	bf_xfree_strv(damaged);
	if (!host) { /* newest first, as archive_runs_with_host gives them */
		for (int i = 0; i < n / 2; i++) {
			char *tmp = ids[i];

			ids[i] = ids[n - 1 - i];
			ids[n - 1 - i] = tmp;
		}
	}
	for (int i = 0; i < n && npicked < count && npicked < SELECTION_MAX_COLUMNS; i++) {
		char *path = bf_xasprintf("%s/%s", results, ids[i]);
		struct archive_run *run;

		err = archive_load_run(path, &run, detail, sizeof(detail));
		free(path);
		if (err != BF_OK || run->damaged) {
			fprintf(stderr, "ctl: %s: warning: skipped run %s: %s\n", cs->cmd,
				err == BF_OK ? run->run_id : ids[i],
				err == BF_OK ? run->reason : detail);
			archive_run_free(err == BF_OK ? run : NULL);
			continue;
		}
		if (host && !host_done(cs, run, host)) {
			archive_run_free(run);
			continue;
		}
		picked[npicked++] = run;
	}
	if (npicked == 0) {
		ctl_error("%s: %s: no runs%s%s%s", cs->cmd, results,
			  host ? " with host " : "", host ? host : "",
			  host && n > 0 ? " completed" : "");
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

int selection_parse_last(const struct ctl_args *a, int opt, int *out)
{
	long v;

	for (int i = 0; i < a->n; i++) {
		const char *s = a->v[i].value;

		if (a->v[i].opt != opt)
			continue;
		/* ctl_parse_int's words, and why the limit is what it is. */
		if (bf_parse_long(s, 1, SELECTION_MAX_COLUMNS, &v) < 0) {
			ctl_error("--last '%s': expected an integer from 1 to %d (a column per run, at most %d: A to %c)",
				  s, SELECTION_MAX_COLUMNS,
				  SELECTION_MAX_COLUMNS,
				  'A' + SELECTION_MAX_COLUMNS - 1);
			return -1;
		}
		*out = (int)v;
	}
	return 0;
}

int selection_build(struct selection *cs, const char *results, int last,
		    char *const *args, int npos)
{
	int c;

	if (last && npos > 1) {
		ctl_error("%s: --last: give it alone or with one HOST", cs->cmd);
		return -1;
	}
	if (npos == 0 && add_last_runs(cs, results, NULL, last ? last : 2))
		return -1;
	for (int i = 0; i < npos; i++) {
		enum archive_target kind;
		char detail[512], *path;

		if (archive_resolve(results, args[i], &kind, &path, detail,
				    sizeof(detail)) != BF_OK) {
			ctl_error("%s: %s", cs->cmd, detail);
			return -1;
		}
		if (kind == ARCHIVE_TARGET_HOST) {
			int rc = add_last_runs(cs, results, args[i],
					       npos == 1 ? (last ? last : 2) : 1);

			if (rc)
				return -1;
			continue;
		}
		if (last) {
			ctl_error("%s: --last: give it alone or with one HOST, not with %s",
				  cs->cmd, args[i]);
			free(path);
			return -1;
		}
		c = add_column(cs, path, kind == ARCHIVE_TARGET_FILE, NULL);
		free(path);
		if (c)
			return -1;
	}
	/* One run alone: its hosts are what there is to compare. */
	if (cs->ncols == 1 && !cs->cols[0].host && cs->cols[0].run->nhosts > 1) {
		const struct archive_run *run = cs->cols[0].run;

		for (int i = 0; i < run->nhosts && i < SELECTION_MAX_COLUMNS; i++) {
			cs->cols[i].run = run;
			cs->cols[i].host = &run->hosts[i];
		}
		cs->ncols = run->nhosts < SELECTION_MAX_COLUMNS ? run->nhosts : SELECTION_MAX_COLUMNS;
	}
	return 0;
}
