/*
 * The session of one `ctl run`; see session.h. Every read and write of the
 * run's model is here, so that the runners and cmd_run.c never touch it.
 */
#include "run/session.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "model/baseline.h"
#include "bf_clock.h"
#include "bf_text.h"
#include "base/cli.h"
#include "schema.h"
#include "xmalloc.h"

#define MAX_THREADS 64
/* Malformed lines per host: shown on stdout, excerpted in the log; the
 * rest are counted (one summary line each at the host's end). */
#define MALFORMED_SHOWN 10
#define MALFORMED_LOGGED 1000
#define EXCERPT_BYTES 200
/* Space kept free in the run directory (.reserve) so that the last
 * run.json still fits on a full disk: a base plus some per host. */
#define RESERVE_BASE_BYTES (16 * 1024)
#define RESERVE_HOST_BYTES 1024

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

/* One progress line for h on stdout (unless the live table draws). */
static void host_say(struct host_ctx *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void host_say(struct host_ctx *h, const char *fmt, ...)
{
	va_list ap;

	if (h->quiet)
		return;
	pthread_mutex_lock(h->print_lock);
	printf("[%s] ", h->label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	pthread_mutex_unlock(h->print_lock);
}

void session_agent_queued(struct host_ctx *h)
{
	h->last_record_ns = 0;
}

void session_agent_started(struct host_ctx *h)
{
	h->last_record_ns = bf_now_ns();
}

void session_progress(struct host_ctx *h, enum host_state st,
		      const char *reason)
{
	struct model_host mh;
	char line[sizeof(mh.reason) + 1024];

	if (st == HOST_RUNNING)
		h->last_record_ns = bf_now_ns();
	if (!model_set_state(h->model, h->index, st, reason))
		return;
	/* The model's copy of the reason is the terminal-safe one; a reason
	 * that only names the state ("interrupted") is not said twice. */
	model_host_get(h->model, h->index, &mh);
	if (reason && strcmp(reason, host_state_name(st)) == 0)
		reason = NULL;
	host_say(h, "%s%s%s", host_state_name(st), reason ? ": " : "",
		 reason ? bf_text_join_lines(line, sizeof(line), mh.reason,
					     "\n    ") : "");
}

/* ---- archive writes ------------------------------------------------------ */

/* Marks h's archive as failed (the first failure is kept and reported on
 * stderr, one line): file is the file's name in the run directory. */
static void host_write_failed(struct host_ctx *h, const char *file,
			      int errnum)
{
	if (h->write_failed)
		return;
	h->write_failed = 1;
	snprintf(h->write_error, sizeof(h->write_error),
		 "archive write failed: %s: %s", file, strerror(errnum));
	pthread_mutex_lock(h->print_lock);
	ctl_error("%s: %s", h->label, h->write_error);
	pthread_mutex_unlock(h->print_lock);
}

static void log_failed(struct host_ctx *h, int errnum)
{
	char file[128];

	snprintf(file, sizeof(file), "%s.log", h->basename);
	host_write_failed(h, file, errnum ? errnum : EIO);
}

/* printf to h's log, checked and flushed. */
static void host_log(struct host_ctx *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void host_log(struct host_ctx *h, const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (!h->log || h->write_failed)
		return;
	errno = 0;
	va_start(ap, fmt);
	rc = vfprintf(h->log, fmt, ap);
	va_end(ap);
	if (rc < 0 || fflush(h->log) != 0)
		log_failed(h, errno);
}

void session_log_write(struct host_ctx *h, const void *buf, size_t n)
{
	if (!h->log || h->write_failed)
		return;
	errno = 0;
	if (fwrite(buf, 1, n, h->log) != n || fflush(h->log) != 0)
		log_failed(h, errno);
}

/* Appends one record line and its newline to h's ndjson in one write, so
 * that the file holds whole lines only: after a failed or short write the
 * file is cut back to its last whole line and no more is written. */
static void archive_line(struct host_ctx *h, const char *line, size_t len)
{
	struct iovec iov[2] = { { (void *)line, len }, { "\n", 1 } };
	size_t want = len + 1, done = 0;
	int fd = fileno(h->ndjson);
	char file[128];

	if (h->write_failed)
		return;
	while (done < want) {
		ssize_t n = writev(fd, iov, 2);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
		/* Skip what was written: a short write continues after it. */
		for (int i = 0; i < 2; i++) {
			size_t k = (size_t)n < iov[i].iov_len ? (size_t)n :
								iov[i].iov_len;

			iov[i].iov_base = (char *)iov[i].iov_base + k;
			iov[i].iov_len -= k;
			n -= (ssize_t)k;
		}
	}
	if (done == want) {
		h->ndjson_bytes += (long)want;
		return;
	}
	{
		int errnum = errno ? errno : ENOSPC;

		if (ftruncate(fd, (off_t)h->ndjson_bytes) != 0)
			(void)0; /* the cut line stays; reported all the same */
		snprintf(file, sizeof(file), "%s.ndjson", h->basename);
		host_write_failed(h, file, errnum);
	}
}

/* Closes h's files, checking that everything written reached them. */
static void host_close_files(struct host_ctx *h)
{
	if (h->log) {
		int bad = ferror(h->log);

		errno = 0;
		if (fclose(h->log) != 0)
			bad = 1;
		if (bad)
			log_failed(h, errno);
		h->log = NULL;
	}
	if (h->ndjson) {
		errno = 0;
		if (fclose(h->ndjson) != 0 && !h->write_failed) {
			char file[128];

			snprintf(file, sizeof(file), "%s.ndjson", h->basename);
			host_write_failed(h, file, errno ? errno : EIO);
		}
		h->ndjson = NULL;
	}
}

enum bf_err session_rename_host(struct host_ctx *h, const char *name,
				char *detail, size_t detail_len)
{
	char base[sizeof(h->basename)], *from = NULL, *to = NULL;
	const char *dir = NULL;
	enum bf_err err = BF_OK;

	pthread_mutex_lock(h->run_lock);
	archive_host_basename(name, h->index, base, sizeof(base));
	snprintf(h->name_buf, sizeof(h->name_buf), "%s", name);
	h->name = h->name_buf;
	bf_text_sanitize(h->label, sizeof(h->label), name);
	model_set_name(h->model, h->index, name);
	dir = h->archive_dir;
	for (int i = 0; i < 2 && err == BF_OK && strcmp(base, h->basename); i++) {
		const char *ext = i == 0 ? "ndjson" : "log";

		free(from);
		free(to);
		from = bf_xasprintf("%s/%s.%s", dir, h->basename, ext);
		to = bf_xasprintf("%s/%s.%s", dir, base, ext);
		/* link + unlink, not rename: never over an existing file. */
		if (link(from, to) != 0 || unlink(from) != 0)
			err = bf_fail(detail, detail_len, BF_ERR_IO,
				      "rename %s to %s: %s", from, to,
				      strerror(errno));
		else if (i == 1)
			snprintf(h->basename, sizeof(h->basename), "%s", base);
	}
	pthread_mutex_unlock(h->run_lock);
	free(from);
	free(to);
	return err;
}

void session_set_slurm_job(struct host_ctx *h, const char *job_id)
{
	model_set_slurm_job(h->model, h->index, job_id);
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
	struct model_host mh;
	char detail[256], found[64];
	int nrows = 0;
	enum bf_err err;

	if (!host_rec->options.present)
		return;
	model_host_get(h->model, h->index, &mh);
	err = baseline_load(h->model, h->index, h->opts->results_dir, h->name,
			    host_rec, mh.fingerprint, h->run_id, found,
			    sizeof(found), &nrows, detail, sizeof(detail));
	if (err == BF_OK)
		host_log(h, "previous run: %s (%d GEMM results)\n", found,
			 nrows);
	else if (err != BF_ERR_NOT_FOUND)
		host_log(h, "previous run: %s\n", detail);
}

double session_silence_limit_s(double floor_s, double s_per_n3, int next_n)
{
	double predicted;

	if (floor_s <= 0)
		return 0;
	predicted = s_per_n3 * (double)next_n * next_n * next_n;
	return isfinite(predicted) && 10 * predicted > floor_s ? 10 * predicted :
								 floor_s;
}

/* Counts, logs (the first MALFORMED_LOGGED) and shows (the first
 * MALFORMED_SHOWN) a line that is not taken; why and the excerpt are
 * sanitised. */
static void host_malformed(struct host_ctx *h, const char *why,
			   const char *line, size_t len)
{
	char clean_why[256], raw[EXCERPT_BYTES + 1], excerpt[EXCERPT_BYTES + 1];
	size_t n = len < EXCERPT_BYTES ? len : EXCERPT_BYTES;

	model_add_malformed(h->model, h->index);
	h->malformed_seen++;
	if (h->malformed_seen > MALFORMED_LOGGED)
		return;
	bf_text_sanitize(clean_why, sizeof(clean_why), why);
	memcpy(raw, line, n);
	raw[n] = '\0';
	bf_text_sanitize(excerpt, sizeof(excerpt), raw);
	host_log(h, "malformed line %ld: %s: %s\n", h->lineno, clean_why,
		 excerpt);
	if (h->malformed_seen <= MALFORMED_SHOWN)
		host_say(h, "malformed line %ld: %s", h->lineno, clean_why);
}

/* What the host record says about the GEMMs to come: their sizes. */
static void host_note_sizes(struct host_ctx *h, const struct bf_rec_host *r)
{
	free(h->sizes);
	h->sizes = NULL;
	h->nsizes = 0;
	if (!r->options.present || r->options.nsizes <= 0)
		return;
	h->sizes = bf_xcalloc((size_t)r->options.nsizes, sizeof(*h->sizes));
	memcpy(h->sizes, r->options.sizes,
	       (size_t)r->options.nsizes * sizeof(*h->sizes));
	h->nsizes = r->options.nsizes;
	h->per_size = r->options.ndtypes; /* times the plan's devices */
}

/* After a record: the time since the one before feeds the estimate of
 * the next record's time (session_silence_limit_s). */
static void host_note_timing(struct host_ctx *h, const struct bf_record *rec,
			     const struct model_host *mh)
{
	uint64_t now = bf_now_ns(), prev = h->last_record_ns;
	int next_n = 0;

	if (rec->type == BF_REC_PLAN && h->per_size > 0)
		h->per_size *= rec->u.plan.ndevices > 0 ? rec->u.plan.ndevices : 1;
	if (rec->type == BF_REC_GEMM && rec->u.gemm.n > 0 && prev && now > prev) {
		double n = rec->u.gemm.n;
		double rate = (double)(now - prev) / 1e9 / (n * n * n);

		if (rate > h->s_per_n3)
			h->s_per_n3 = rate;
	}
	/* Sizes outer, then devices and dtypes (docs/schema.md's order). */
	if (h->nsizes > 0 && h->per_size > 0 && mh->gemm_done >= 0) {
		int k = mh->gemm_done / h->per_size;

		next_n = h->sizes[k < h->nsizes ? k : h->nsizes - 1];
	} else if (rec->type == BF_REC_GEMM) {
		next_n = rec->u.gemm.n;
	}
	h->silence_limit_s = session_silence_limit_s(h->opts->host_timeout_s,
						     h->s_per_n3, next_n);
	h->last_record_ns = now;
}

enum bf_err session_feed_line(void *arg, const char *line, size_t len,
			      int truncated)
{
	struct host_ctx *h = arg;
	struct bf_record rec;
	struct model_host mh;
	char detail[256];
	enum model_added added;
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
		host_malformed(h, detail, line, len);
		return BF_OK;
	}
	added = model_add_record(h->model, h->index, &rec);
	if (added == MODEL_REJECTED_RANGE) {
		host_malformed(h, "a number out of range", line, len);
		bf_record_free(&rec);
		return BF_OK;
	}
	if (added == MODEL_REJECTED_DUPLICATE) {
		/* Not archived either: the host file holds each record once. */
		host_log(h, "line %ld: duplicate of record seq %d: ignored\n",
			 h->lineno, rec.seq);
		bf_record_free(&rec);
		return BF_OK;
	}
	/* As received, one write per line: a crash of ctl keeps it. */
	archive_line(h, line, len);
	if (rec.type == BF_REC_HOST) {
		host_note_sizes(h, &rec.u.host);
		host_load_baseline(h, &rec.u.host); /* Δ%, live and plain */
	}
	model_host_get(h->model, h->index, &mh);
	host_note_timing(h, &rec, &mh);
	if (added == MODEL_ADDED_PROGRESS && rec.type == BF_REC_GEMM)
		host_say(h, "running %d/%d", mh.gemm_done, mh.gemm_total);
	bf_record_free(&rec);
	return BF_OK;
}

/* ---- run.json ------------------------------------------------------------ */

/* Writes run.json from the model's view of every host; BF_ERR_IO with
 * the reason in detail when it could not be written. */
static enum bf_err save_run_json(struct session *s, const char *status,
				 const char *reason, char *detail,
				 size_t detail_len)
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
		.rerun_of = s->opts->rerun_of,
		.hosts = rh,
		.nhosts = s->nhosts,
	};
	struct model_snapshot snap = { 0 };
	enum bf_err err;
	cJSON *doc;

	/* The strings point into the snapshot, freed after the JSON is
	 * built. The lock also keeps a host's name and file names still
	 * (session_rename_host) while they are read. */
	pthread_mutex_lock(&s->lock);
	model_snapshot_update(&s->model, &snap);
	for (int i = 0; i < s->nhosts && i < snap.nhosts; i++) {
		const struct model_host *mh = &snap.hosts[i];
		const struct host_ctx *h = &s->hosts[i];

		rh[i] = (struct archive_host_info){
			.name = mh->name,
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
			.complete_records = h->complete,
			.basename = h->basename,
			.slurm_job = mh->slurm_job,
		};
	}
	doc = archive_run_json(&s->archive, &run);
	model_snapshot_free(&snap);
	err = archive_write_json(&s->archive, "run.json", doc, detail,
				 detail_len);
	pthread_mutex_unlock(&s->lock);
	cJSON_Delete(doc);
	free(rh);
	return err;
}

/* A run.json written while the run goes on: a failure is kept for the
 * end (the last one must succeed; see session_finish). */
static void save_run_json_running(struct session *s)
{
	char detail[512];

	if (save_run_json(s, BF_RUN_RUNNING, NULL, detail, sizeof(detail)) !=
	    BF_OK) {
		pthread_mutex_lock(&s->lock);
		if (!s->json_error[0])
			snprintf(s->json_error, sizeof(s->json_error), "%s",
				 detail);
		pthread_mutex_unlock(&s->lock);
	}
}

/* The run directory's reserve: space for the last run.json on a full
 * disk. */
static void reserve_create(struct session *s)
{
	char *path = bf_xasprintf("%s/.reserve", s->archive.dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0) {
		off_t bytes = RESERVE_BASE_BYTES +
			      (off_t)s->nhosts * RESERVE_HOST_BYTES;

		/* Without it the run goes on: only a full disk at the end
		 * needs it. */
		if (posix_fallocate(fd, 0, bytes) != 0)
			(void)unlink(path);
		close(fd);
	}
	free(path);
}

static void reserve_release(struct session *s)
{
	char *path;

	if (!s->archive.dir)
		return;
	path = bf_xasprintf("%s/.reserve", s->archive.dir);
	(void)unlink(path);
	free(path);
}

/* The last run.json: on failure (a full disk) the reserve is given up
 * and it is tried once more; if that fails too, stderr says so, since
 * run.json then still says what it said before ("running"). */
static enum bf_err save_run_json_final(struct session *s, const char *status,
				       const char *reason)
{
	char detail[512];
	enum bf_err err;

	err = save_run_json(s, status, reason, detail, sizeof(detail));
	reserve_release(s);
	if (err != BF_OK)
		err = save_run_json(s, status, reason, detail, sizeof(detail));
	if (err != BF_OK)
		ctl_error("%s; %s/run.json is out of date: the run is %s%s%s",
			  detail, s->archive.dir, status, reason ? ": " : "",
			  reason ? reason : "");
	return err;
}

/* ---- the worker pool ----------------------------------------------------- */

static int cancelled(const struct session *s)
{
	return *s->cancel != 0;
}

static void run_host(struct session *s, struct host_ctx *h)
{
	char detail[1024] = "", why[256];
	struct model_host mh;
	enum bf_err err;

	err = h->runner->run(h, detail, sizeof(detail));
	model_host_get(h->model, h->index, &mh);
	h->complete = model_host_complete(h->model, h->index, why, sizeof(why));
	if (h->timed_out) {
		err = bf_fail(detail, sizeof(detail), BF_ERR_TIMEOUT,
			      "no record for %.0f s (--host-timeout): agent stopped",
			      (double)h->silence_limit_s);
	} else if (err == BF_OK && !h->complete) {
		err = mh.saw_summary ?
			bf_fail(detail, sizeof(detail), BF_ERR_REMOTE,
				"incomplete records: %s", why) :
			bf_fail(detail, sizeof(detail), BF_ERR_REMOTE,
				"agent ended before its summary record (%s)",
				why);
	}
	if (h->malformed_seen > MALFORMED_SHOWN)
		host_say(h, "... %ld more malformed lines (see log)",
			 h->malformed_seen - MALFORMED_SHOWN);
	if (h->malformed_seen > MALFORMED_LOGGED)
		host_log(h, "... %ld more malformed lines not logged\n",
			 h->malformed_seen - MALFORMED_LOGGED);
	host_close_files(h);
	if (h->write_failed) /* the archive does not hold what arrived */
		session_progress(h, HOST_FAILED, h->write_error);
	else if (err == BF_ERR_INTERRUPTED || (err != BF_OK && cancelled(s)))
		session_progress(h, HOST_INTERRUPTED, "interrupted");
	else if (err != BF_OK)
		session_progress(h, HOST_FAILED, detail);
	else
		session_progress(h, HOST_DONE, NULL);
	save_run_json_running(s);
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

/* The session's watch, every tick of the main thread: ctl's cancel flag
 * reaches every host's, and a running host silent for longer than its
 * limit is stopped (its runner sees its flag and ends), unless its agent
 * has already ended; then the host's runner may watch too. */
static void watch_hosts(struct session *s)
{
	uint64_t now = bf_now_ns();

	for (int i = 0; i < s->nhosts; i++) {
		struct host_ctx *h = &s->hosts[i];
		double limit = h->silence_limit_s;
		uint64_t last = h->last_record_ns;
		struct model_host mh;

		if (cancelled(s)) {
			h->stop = 1;
		} else if (limit > 0 && !h->stop && !h->agent_ended && last &&
			   now >= last && (double)(now - last) / 1e9 > limit) {
			model_host_get(h->model, h->index, &mh);
			if (mh.state == HOST_RUNNING) {
				h->timed_out = 1;
				h->stop = 1;
			}
		}
		if (h->runner && h->runner->watch)
			h->runner->watch(h);
	}
}

static void watch_close(const struct session_watch *watch)
{
	if (watch && watch->close)
		watch->close(watch->arg);
}

void session_run(struct session *s, const struct session_watch *watch)
{
	pthread_t threads[MAX_THREADS];
	int nthreads = s->nhosts < s->opts->jobs ? s->nhosts : s->opts->jobs;

	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	for (int i = 0; i < s->nhosts; i++)
		s->hosts[i].quiet = watch != NULL;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&threads[i], NULL, worker, s) != 0)
			nthreads = i;
	if (nthreads == 0) {
		/* No thread to spare: the hosts run here, in plain lines,
		 * reading ctl's cancel flag directly (no watch, no host
		 * timeout). */
		watch_close(watch);
		watch = NULL;
		for (int i = 0; i < s->nhosts; i++) {
			s->hosts[i].quiet = 0;
			s->hosts[i].cancel = s->cancel;
		}
		worker(s);
	}
	/* This thread does no host I/O: it watches the hosts and polls the
	 * watch (the live table); its stop request is Ctrl-C's, and the
	 * watch stays up while the hosts stop. */
	while (nthreads > 0 && !workers_all_finished(s, nthreads)) {
		watch_hosts(s);
		if (watch) {
			if (watch->poll(watch->arg, 100))
				*s->cancel = SIGINT; /* q is Ctrl-C */
		} else {
			struct timespec tick = { 0, 100 * 1000 * 1000 };

			nanosleep(&tick, NULL);
		}
	}
	watch_close(watch);
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

		h->index = i;
		h->name = names[i];
		bf_text_sanitize(h->label, sizeof(h->label), names[i]);
		h->is_local = strcmp(names[i], "local") == 0;
		h->inv = inventory_host(inv, names[i]);
		h->target = h->inv ? h->inv->ssh : names[i];
		h->opts = opts;
		h->model = &s->model;
		h->cancel = &h->stop;
		/* Timed from the running state on, before any record too. */
		h->silence_limit_s = session_silence_limit_s(
			opts->host_timeout_s, 0, 0);
		h->print_lock = &s->print_lock;
		h->run_id = s->archive.run_id;
		h->run_lock = &s->lock;
		h->archive_dir = s->archive.dir;
		h->slurm = inventory_slurm_rank(inv, names[i], &h->slurm_rank);
		if (h->slurm)
			h->target = h->slurm->slurm->target;
		archive_host_basename(names[i], i, h->basename, sizeof(h->basename));
	}
	for (int i = 0; i < nhosts; i++) {
		struct host_ctx *h = &s->hosts[i];
		char fname[128];

		snprintf(fname, sizeof(fname), "%s.ndjson", h->basename);
		h->ndjson = archive_open_new(&s->archive, fname, detail, detail_len);
		snprintf(fname, sizeof(fname), "%s.log", h->basename);
		h->log = h->ndjson ? archive_open_new(&s->archive, fname, detail,
						      detail_len) : NULL;
		if (!h->ndjson || !h->log) {
			char why[512];

			/* Nothing ran: run.json says why, if it can. */
			if (save_run_json(s, BF_RUN_INCOMPLETE, detail, why,
					  sizeof(why)) != BF_OK)
				ctl_error("%s", why);
			return BF_ERR_IO;
		}
	}
	reserve_create(s);
	save_run_json_running(s);
	return BF_OK;
}

/* The run's reason when it is incomplete. */
static const char *run_reason(struct session *s, int any_failed,
			      char *buf, size_t len)
{
	int sig = *s->cancel;

	for (int i = 0; i < s->nhosts; i++)
		if (s->hosts[i].write_failed)
			return s->hosts[i].write_error;
	if (sig == SIGINT)
		return "interrupted by the user";
	if (sig) {
		const char *name = sigabbrev_np(sig);

		snprintf(buf, len, "interrupted by signal %s",
			 name ? name : "?");
		return buf;
	}
	return any_failed ? "some hosts did not complete" : NULL;
}

int session_finish(struct session *s, const char **final_status_out)
{
	int any_failed = 0, any_check_failed = 0, interrupted = cancelled(s);
	const char *final_status, *reason;
	char reason_buf[64];
	enum bf_err err;

	for (int i = 0; i < s->nhosts; i++) {
		struct model_host mh;

		host_close_files(&s->hosts[i]); /* hosts that never started */
		model_host_get(&s->model, i, &mh);
		if (mh.state == HOST_PENDING) {
			session_progress(&s->hosts[i], HOST_INTERRUPTED,
					 "interrupted before it started");
			mh.state = HOST_INTERRUPTED;
		} else if (mh.state != HOST_DONE && mh.state != HOST_FAILED &&
			   mh.state != HOST_INTERRUPTED) {
			/* A Slurm node whose job another host's thread ran,
			 * left unfinished when the run was stopped. */
			session_progress(&s->hosts[i], HOST_INTERRUPTED,
					 "interrupted");
			mh.state = HOST_INTERRUPTED;
		}
		if (mh.state != HOST_DONE)
			any_failed = 1;
		if (session_agent_outcome(mh.agent_exit, NULL, NULL, NULL, 0) ==
		    AGENT_OUTCOME_CHECKS_FAILED)
			any_check_failed = 1;
	}
	final_status = any_failed ? BF_RUN_INCOMPLETE : BF_RUN_COMPLETE;
	reason = run_reason(s, any_failed, reason_buf, sizeof(reason_buf));
	err = save_run_json_final(s, final_status, reason);
	*final_status_out = final_status;
	if (interrupted)
		return BF_EXIT_INTERRUPTED;
	if (any_failed || err != BF_OK)
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
		free(s->hosts[i].sizes);
	}
	free(s->hosts);
	s->hosts = NULL;
	model_free(&s->model);
	reserve_release(s);
	archive_close(&s->archive);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->print_lock);
}
