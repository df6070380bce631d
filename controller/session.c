/*
 * The session of one `ctl run`; see session.h. Every read and write of the
 * run's model is here, so that the runners and cmd_run.c never touch it.
 */
#include "session.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "archive_read.h"
#include "bf_clock.h"
#include "ctl.h"
#include "schema.h"
#include "table.h"
#include "ui_curses.h"
#include "xmalloc.h"

#define MAX_THREADS 64

/* ---- the agent's end ---------------------------------------------------- */

/* The last non-empty line of text into out (len bytes), "" if none. */
static void last_line(const char *text, char *out, size_t len)
{
	const char *end, *start;

	out[0] = '\0';
	if (!text)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

enum agent_outcome session_agent_outcome(int exit_status,
					 const char *signal_name,
					 const char *stderr_tail, char *reason,
					 size_t reason_len)
{
	char last[256];

	if (reason_len)
		reason[0] = '\0';
	if (exit_status == BF_EXIT_OK)
		return AGENT_OUTCOME_OK;
	if (exit_status == BF_EXIT_CHECKS_FAILED)
		return AGENT_OUTCOME_CHECKS_FAILED;
	if (exit_status < 0) {
		if (reason_len && signal_name && *signal_name)
			snprintf(reason, reason_len,
				 "agent killed by signal %s", signal_name);
		else if (reason_len)
			snprintf(reason, reason_len,
				 "agent ended without an exit status");
		return AGENT_OUTCOME_FAILED;
	}
	/* 2 (usage), 4 (could not run), 130 (hangup), 127 (no agent): the
	 * agent's own last words say which. */
	last_line(stderr_tail, last, sizeof(last));
	if (reason_len)
		snprintf(reason, reason_len, "agent exited with status %d%s%s",
			 exit_status, *last ? ": " : "", last);
	return AGENT_OUTCOME_FAILED;
}

enum bf_err session_agent_ended(struct host_ctx *h, int exit_status,
				const char *signal_name,
				const char *stderr_tail, char *detail,
				size_t detail_len)
{
	if (exit_status >= 0)
		model_set_agent_exit(h->model, h->index, exit_status);
	if (session_agent_outcome(exit_status, signal_name, stderr_tail,
				  detail, detail_len) == AGENT_OUTCOME_FAILED)
		return BF_ERR_REMOTE;
	return BF_OK;
}

/* ---- one host's lines and states --------------------------------------- */

void session_progress(struct host_ctx *h, enum host_state st,
		      const char *reason)
{
	if (!model_set_state(h->model, h->index, st, reason) || h->quiet)
		return;
	pthread_mutex_lock(h->print_lock);
	printf("[%s] %s%s%s\n", h->name, host_state_name(st),
	       reason ? ": " : "", reason ? reason : "");
	fflush(stdout);
	pthread_mutex_unlock(h->print_lock);
}

void session_set_fingerprint(struct host_ctx *h, const char *fingerprint)
{
	model_set_fingerprint(h->model, h->index, fingerprint);
}

/* Hands the model this host's previous archived result on the same
 * machine with the same agent options (its host record's "options"), the
 * baseline of the tables' Δ% column, or why there is none. Runs on the
 * host's thread when the host record arrives, since the options and the
 * machine's identity (hostname, GPU UUIDs) are only known then, and the
 * host key before it; reads the archive. */
static void host_load_baseline(struct host_ctx *h,
			       const struct bf_rec_host *host_rec)
{
	struct archive_baseline *b = NULL;
	struct model_baseline *mb;
	struct model_host mh;
	char detail[256];
	enum bf_err err;

	if (!host_rec->options.present)
		return;
	model_host_get(h->model, h->index, &mh);
	err = archive_find_baseline(h->opts->results_dir, h->name, host_rec,
				    mh.fingerprint, h->run_id, &b, detail,
				    sizeof(detail));
	if (err != BF_OK) {
		if (err != BF_ERR_NOT_FOUND)
			fprintf(h->log, "previous run: %s\n", detail);
		else if (strncmp(detail, "different machine", 17) == 0)
			model_set_baseline_info(h->model, h->index, NULL, detail);
		return;
	}
	mb = bf_xcalloc((size_t)b->nrows + 1, sizeof(*mb));
	for (int i = 0; i < b->nrows; i++) {
		snprintf(mb[i].device, sizeof(mb[i].device), "%s", b->rows[i].device);
		snprintf(mb[i].dtype, sizeof(mb[i].dtype), "%s", b->rows[i].dtype);
		mb[i].n = b->rows[i].n;
		mb[i].occurrence = b->rows[i].occurrence;
		mb[i].gflops = b->rows[i].median_gflops;
	}
	model_set_baseline(h->model, h->index, mb, b->nrows);
	model_set_baseline_info(h->model, h->index, b->run_id, NULL);
	fprintf(h->log, "previous run: %s (%d GEMM results)\n", b->run_id,
		b->nrows);
	free(mb);
	archive_baseline_free(b);
}

enum bf_err session_feed_line(void *arg, const char *line, size_t len,
			      int truncated)
{
	struct host_ctx *h = arg;
	struct bf_record rec;
	char detail[256];
	enum bf_err err;

	h->lineno++;
	bf_record_init(&rec, BF_REC_HOST);
	err = truncated ? bf_fail(detail, sizeof(detail), BF_ERR_SCHEMA,
				  "line longer than %u bytes",
				  BF_RECORD_MAX_BYTES) :
			  bf_record_parse(line, len, &rec, detail,
					  sizeof(detail));
	if (err != BF_OK) {
		bf_record_free(&rec);
		/* Reported and counted; the run goes on. */
		model_add_malformed(h->model, h->index);
		fprintf(h->log, "malformed line %ld: %s: %.200s\n", h->lineno,
			detail, line);
		fflush(h->log);
		if (!h->quiet) {
			pthread_mutex_lock(h->print_lock);
			printf("[%s] malformed line %ld: %s\n", h->name,
			       h->lineno, detail);
			fflush(stdout);
			pthread_mutex_unlock(h->print_lock);
		}
		return BF_OK;
	}
	/* As received, flushed per line: a crash of ctl keeps it. */
	fwrite(line, 1, len, h->ndjson);
	fputc('\n', h->ndjson);
	fflush(h->ndjson);
	if (rec.type == BF_REC_HOST) /* Δ%, live and in the plain table */
		host_load_baseline(h, &rec.u.host);
	if (model_add_record(h->model, h->index, &rec) && !h->quiet &&
	    rec.type == BF_REC_GEMM) {
		struct model_host mh;

		model_host_get(h->model, h->index, &mh);
		pthread_mutex_lock(h->print_lock);
		printf("[%s] running %d/%d\n", h->name, mh.gemm_done,
		       mh.gemm_total);
		fflush(stdout);
		pthread_mutex_unlock(h->print_lock);
	}
	bf_record_free(&rec);
	return BF_OK;
}

/* ---- run.json ------------------------------------------------------------ */

/* Writes run.json from the model's view of every host. */
static void save_run_json(struct session *s, const char *status,
			  const char *reason)
{
	struct archive_host_info *rh = bf_xcalloc((size_t)s->nhosts, sizeof(*rh));
	struct archive_run_info run = {
		.ctl_version = BF_CTL_VERSION,
		.argc = s->argc,
		.argv = s->argv,
		.tag = s->opts->tag,
		.started_at = s->started_at,
		.status = status,
		.reason = reason,
		.hosts = rh,
		.nhosts = s->nhosts,
	};
	struct model_snapshot snap = { 0 };
	char detail[256];
	cJSON *doc;

	/* The strings point into the snapshot, freed after the JSON is
	 * built. */
	model_snapshot_update(&s->model, &snap);
	for (int i = 0; i < s->nhosts && i < snap.nhosts; i++) {
		const struct model_host *mh = &snap.hosts[i];
		const struct host_ctx *h = &s->hosts[i];

		rh[i] = (struct archive_host_info){
			.name = h->name,
			.target = h->is_local ? "local" : h->target,
			.status = host_state_name(mh->state),
			.reason = mh->reason,
			.fingerprint = mh->fingerprint,
			.agent_hash = mh->agent_hash,
			.hostname = mh->hostname,
			.agent_exit = mh->agent_exit,
			.records = mh->records,
			.malformed = mh->malformed,
			.gemm_done = mh->gemm_done,
			.gemm_total = mh->gemm_total,
			.complete_records = mh->saw_summary,
			.basename = h->basename,
		};
	}
	doc = archive_run_json(&s->archive, &run);
	model_snapshot_free(&snap);
	pthread_mutex_lock(&s->lock);
	if (archive_write_json(&s->archive, "run.json", doc, detail,
			       sizeof(detail)) != BF_OK)
		ctl_error("%s", detail);
	pthread_mutex_unlock(&s->lock);
	cJSON_Delete(doc);
	free(rh);
}

/* ---- the worker pool ----------------------------------------------------- */

static int cancelled(const struct session *s)
{
	return *s->cancel != 0;
}

static void run_host(struct session *s, struct host_ctx *h)
{
	char detail[1024] = "";
	struct model_host mh;
	enum bf_err err;
	int complete;

	err = h->runner->run(h, detail, sizeof(detail));
	model_host_get(h->model, h->index, &mh);
	complete = mh.saw_summary;
	if (err == BF_OK && !complete)
		err = bf_fail(detail, sizeof(detail), BF_ERR_REMOTE,
			      "agent ended before its summary record");
	if (err == BF_ERR_INTERRUPTED || (err != BF_OK && cancelled(s)))
		session_progress(h, HOST_INTERRUPTED, "interrupted");
	else if (err != BF_OK)
		session_progress(h, HOST_FAILED, detail);
	else
		session_progress(h, HOST_DONE, NULL);
	fflush(h->log);
	save_run_json(s, BF_RUN_RUNNING, NULL);
}

static void *worker(void *arg)
{
	struct session *s = arg;

	for (;;) {
		int i;

		pthread_mutex_lock(&s->lock);
		i = s->next < s->nhosts && !cancelled(s) ? s->next++ : -1;
		pthread_mutex_unlock(&s->lock);
		if (i < 0)
			break;
		run_host(s, &s->hosts[i]);
	}
	pthread_mutex_lock(&s->lock);
	s->workers_finished++;
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int workers_all_finished(struct session *s, int nthreads)
{
	int done;

	pthread_mutex_lock(&s->lock);
	done = s->workers_finished >= nthreads;
	pthread_mutex_unlock(&s->lock);
	return done;
}

void session_run(struct session *s, struct ui *ui)
{
	pthread_t threads[MAX_THREADS];
	int nthreads = s->nhosts < s->opts->jobs ? s->nhosts : s->opts->jobs;

	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	for (int i = 0; i < s->nhosts; i++)
		s->hosts[i].quiet = ui != NULL;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&threads[i], NULL, worker, s) != 0)
			nthreads = i;
	if (nthreads == 0) {
		/* No thread to spare: the hosts run here, in plain lines. */
		ui_close(ui);
		ui = NULL;
		for (int i = 0; i < s->nhosts; i++)
			s->hosts[i].quiet = 0;
		worker(s);
	}
	/* The live table on this thread, which does no host I/O; q stops the
	 * run as Ctrl-C does, and the table stays up while the hosts stop. */
	while (ui && !workers_all_finished(s, nthreads))
		if (ui_poll(ui, 100) == UI_EV_QUIT)
			*s->cancel = 1;
	ui_close(ui);
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
}

/* ---- the run ------------------------------------------------------------- */

enum bf_err session_open(struct session *s, const struct run_opts *opts,
			 int argc, char **argv, int nhosts,
			 const char *const *names, const struct inventory *inv,
			 char ***agent_argv, atomic_int *cancel,
			 char *detail, size_t detail_len)
{
	enum bf_err err;

	memset(s, 0, sizeof(*s));
	s->opts = opts;
	s->argc = argc;
	s->argv = argv;
	s->cancel = cancel;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->print_lock, NULL);
	model_init(&s->model, nhosts, names);
	s->hosts = bf_xcalloc((size_t)nhosts, sizeof(*s->hosts));
	s->nhosts = nhosts;
	for (int i = 0; i < nhosts; i++)
		s->hosts[i].agent_argv = agent_argv[i];
	err = archive_create(opts->results_dir, &s->archive, detail, detail_len);
	if (err != BF_OK)
		return err;
	bf_utc_iso8601(s->started_at, NULL);
	for (int i = 0; i < nhosts; i++) {
		struct host_ctx *h = &s->hosts[i];
		char fname[128];

		h->index = i;
		h->name = names[i];
		h->is_local = strcmp(names[i], "local") == 0;
		h->inv = inventory_host(inv, names[i]);
		h->target = h->inv ? h->inv->ssh : names[i];
		h->opts = opts;
		h->model = &s->model;
		h->cancel = cancel;
		h->print_lock = &s->print_lock;
		h->run_id = s->archive.run_id;
		archive_host_basename(names[i], i, h->basename, sizeof(h->basename));
		snprintf(fname, sizeof(fname), "%s.ndjson", h->basename);
		h->ndjson = archive_open_new(&s->archive, fname, detail, detail_len);
		snprintf(fname, sizeof(fname), "%s.log", h->basename);
		h->log = h->ndjson ? archive_open_new(&s->archive, fname, detail,
						      detail_len) : NULL;
		if (!h->ndjson || !h->log)
			return BF_ERR_IO;
	}
	save_run_json(s, BF_RUN_RUNNING, NULL);
	return BF_OK;
}

int session_finish(struct session *s)
{
	int any_failed = 0, any_check_failed = 0, interrupted = cancelled(s);
	const char *final_status;

	for (int i = 0; i < s->nhosts; i++) {
		enum host_state st;
		int agent_exit;

		struct model_host mh;

		model_host_get(&s->model, i, &mh);
		st = mh.state;
		agent_exit = mh.agent_exit;
		if (st == HOST_PENDING) {
			session_progress(&s->hosts[i], HOST_INTERRUPTED,
					 "interrupted before it started");
			st = HOST_INTERRUPTED;
		}
		if (st != HOST_DONE)
			any_failed = 1;
		if (session_agent_outcome(agent_exit, NULL, NULL, NULL, 0) ==
		    AGENT_OUTCOME_CHECKS_FAILED)
			any_check_failed = 1;
	}
	final_status = any_failed ? BF_RUN_INCOMPLETE : BF_RUN_COMPLETE;
	save_run_json(s, final_status,
		      interrupted ? "interrupted by the user" :
		      any_failed ? "some hosts did not complete" : NULL);
	printf("\n");
	table_print_plain(stdout, &s->model);
	printf("\nrun %s %s: %s\n", s->archive.run_id, final_status,
	       s->archive.dir);
	if (interrupted)
		return BF_EXIT_INTERRUPTED;
	if (any_failed)
		return BF_EXIT_HOSTS_FAILED;
	if (any_check_failed)
		return BF_EXIT_CHECKS_FAILED;
	return BF_EXIT_OK;
}

void session_close(struct session *s)
{
	if (!s->hosts)
		return;
	for (int i = 0; i < s->nhosts; i++) {
		if (s->hosts[i].ndjson)
			fclose(s->hosts[i].ndjson);
		if (s->hosts[i].log)
			fclose(s->hosts[i].log);
		bf_xfree_strv(s->hosts[i].agent_argv);
	}
	free(s->hosts);
	s->hosts = NULL;
	model_free(&s->model);
	archive_close(&s->archive);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->print_lock);
}
