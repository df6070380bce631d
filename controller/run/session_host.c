/*
 * One host of a `ctl run` session (see session.h): its progress lines and
 * states, its archive files (the records as they arrived, and its log),
 * the reading of each line the agent sends into the model, its Δ%
 * baseline, the silence limit its pace sets, and how its agent ended.
 */
#include "run/session.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/cli.h"
#include "bf_clock.h"
#include "bf_text.h"
#include "model/baseline.h"
#include "run/session_internal.h"
#include "schema.h"
#include "xmalloc.h"

#define EXCERPT_BYTES 200

/* ---- the agent's end ---------------------------------------------------- */

/* The last non-empty line of text, whole (its length is the tail's, not a
 * buffer's); "" if none. Caller frees. */
static char *last_line(const char *text)
{
	const char *end, *start;

	if (!text)
		return bf_xstrdup("");
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	return bf_xasprintf("%.*s", (int)(end - start), start);
}

enum agent_outcome session_agent_outcome(int exit_status,
					 const char *signal_name,
					 const char *stderr_tail, char *reason,
					 size_t reason_len)
{
	char *last;

	if (reason_len)
		reason[0] = '\0';
	if (exit_status == BF_EXIT_OK)
		return AGENT_OUTCOME_OK;
	if (exit_status == BF_EXIT_CHECKS_FAILED)
		return AGENT_OUTCOME_CHECKS_FAILED;
	/* The reason is cut only at reason_len, and then visibly ("..."). */
	if (exit_status < 0) {
		if (reason_len && signal_name && *signal_name)
			(void)bf_text_fmt(reason, reason_len,
					  "agent killed by signal %s",
					  signal_name);
		else if (reason_len)
			(void)bf_text_fmt(reason, reason_len,
					  "agent ended without an exit status");
		return AGENT_OUTCOME_FAILED;
	}
	/* 2 (usage), 4 (could not run), 130 (hangup), 127 (no agent): the
	 * agent's own last words say which. */
	last = last_line(stderr_tail);
	if (reason_len)
		(void)bf_text_fmt(reason, reason_len,
				  "agent exited with status %d%s%s", exit_status,
				  *last ? ": " : "", last);
	free(last);
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
void session_host_say(struct host_ctx *h, const char *fmt, ...)
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

void session_host_wait(struct host_ctx *h, const char *after)
{
	struct model_host mh;
	char why[sizeof(mh.waiting)];

	_Static_assert(sizeof(((struct host_ctx *)0)->label) + 26 <=
			       sizeof(mh.waiting),
		       "a waiting line holds any label");
	/* fits: after is a host's label, under sizeof(h->label) = 128 bytes
	 * (session.h), and the words around it take 26: 153 < 160. */
	snprintf(why, sizeof(why), "waiting for %s (one machine)", after);
	model_set_state(h->model, h->index, HOST_PENDING, NULL);
	model_host_get(h->model, h->index, &mh);
	if (strcmp(mh.waiting, why) == 0)
		return;
	model_set_waiting(h->model, h->index, why);
	session_host_say(h, "%s", why);
}

void session_agent_queued(struct host_ctx *h)
{
	h->last_record_ns = 0;
	h->agent_start_ns = 0;
}

void session_agent_started(struct host_ctx *h)
{
	h->last_record_ns = bf_now_ns();
	h->agent_start_ns = h->last_record_ns;
}

void session_progress(struct host_ctx *h, enum host_state st,
		      const char *reason)
{
	struct model_host mh;
	char *line = NULL;
	size_t len;

	if (st == HOST_RUNNING) {
		h->last_record_ns = bf_now_ns();
		h->agent_start_ns = h->last_record_ns;
	}
	if (!model_set_state(h->model, h->index, st, reason))
		return;
	/* The model's copy of the reason is the terminal-safe one; a reason
	 * that only names the state ("interrupted") is not said twice. */
	model_host_get(h->model, h->index, &mh);
	if (reason && strcmp(reason, host_state_name(st)) == 0)
		reason = NULL;
	if (reason && mh.reason) {
		/* Whole: each line break becomes the 5 bytes of "\n    " */
		len = 5 * strlen(mh.reason) + 8;
		line = bf_text_join_lines(bf_xcalloc(len, 1), len, mh.reason,
					  "\n    ");
	}
	session_host_say(h, "%s%s%s", host_state_name(st), line ? ": " : "",
			 line ? line : "");
	free(line);
}

void session_upload_progress(struct host_ctx *h, long long done,
			     long long total)
{
	struct model_host mh;
	long long before;

	model_host_get(h->model, h->index, &mh);
	before = mh.upload_total_bytes > 0 ?
			 4 * mh.upload_done_bytes / mh.upload_total_bytes : 0;
	model_set_upload(h->model, h->index, done, total);
	if (total > 0 && 4 * done / total > before)
		session_host_say(h, "upload %lld/%lld KiB", (done + 1023) / 1024,
				 (total + 1023) / 1024);
}

void session_build_progress(struct host_ctx *h, int done, int total,
			    int percent)
{
	struct model_host mh;
	int before;

	if (total <= 0 || done < 0 || done > total)
		return;
	model_host_get(h->model, h->index, &mh);
	before = mh.build_total > 0 ? 10 * mh.build_done / mh.build_total : -1;
	model_set_build_steps(h->model, h->index, done, total, percent);
	if (done > 0 && 10 * done / total > before) {
		if (percent)
			session_host_say(h, "building %d%%", done);
		else
			session_host_say(h, "building %d/%d", done, total);
	}
}

/* ---- archive writes ------------------------------------------------------ */

/* Marks h's archive as failed (the first failure is kept and reported on
 * stderr, one line) and stops the host: file is the file's name in the
 * run directory. */
static void host_write_failed(struct host_ctx *h, const char *file,
			      int errnum)
{
	if (h->write_failed)
		return;
	h->write_failed = 1;
	/* What it would measure from here on could not be kept: stopped
	 * (as --host-timeout stops it), its reason is this one. */
	h->stop = 1;
	/* file is a host file's name (under 96 + 8 bytes: host_file_name),
	 * strerror's text a short phrase: whole in 256 bytes, and were it
	 * ever not, marked cut. It is also the run's reason in run.json,
	 * whose reserve counts sizeof(write_error) (session.c). */
	(void)bf_text_fmt(h->write_error, sizeof(h->write_error),
			  "archive write failed: %s: %s", file,
			  strerror(errnum));
	pthread_mutex_lock(h->print_lock);
	ctl_error("%s: %s", h->label, h->write_error);
	pthread_mutex_unlock(h->print_lock);
}

/* h's archive file with extension ext ("log", "ndjson") into file. */
static void host_file_name(const struct host_ctx *h, const char *ext,
			   char file[128])
{
	_Static_assert(sizeof(h->basename) + 8 <= 128,
		       "a host file's name holds any basename");
	/* fits: basename is under sizeof(h->basename) = 96 bytes
	 * (session.h), ext at most "ndjson": 96 + 7 < 128. */
	snprintf(file, 128, "%s.%s", h->basename, ext);
}

static void log_failed(struct host_ctx *h, int errnum)
{
	char file[128];

	host_file_name(h, "log", file);
	host_write_failed(h, file, errnum ? errnum : EIO);
}

/* printf to h's log, checked and flushed. */
void session_host_log(struct host_ctx *h, const char *fmt, ...)
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
		host_file_name(h, "ndjson", file);
		host_write_failed(h, file, errnum);
	}
}

/* Closes h's files, checking that everything written reached them. */
void session_host_close_files(struct host_ctx *h)
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

			int errnum = errno ? errno : EIO;

			host_file_name(h, "ndjson", file);
			host_write_failed(h, file, errnum);
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
	/* A name is a key (the model's host, run.json's): never cut. */
	if (strlen(name) >= sizeof(h->name_buf)) {
		pthread_mutex_unlock(h->run_lock);
		return bf_fail(detail, detail_len, BF_ERR_PARSE,
			       "node name %.40s... is longer than %zu bytes: "
			       "kept as %s", name, sizeof(h->name_buf) - 1,
			       h->label);
	}
	/* fits: checked just above. */
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
		else if (i == 1) /* fits: base is as long as basename */
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
		session_host_log(h, "previous run: %s (%d GEMM results)\n", found,
			 nrows);
	else if (err != BF_ERR_NOT_FOUND)
		session_host_log(h, "previous run: %s\n", detail);
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
	session_host_log(h, "malformed line %ld: %s: %s\n", h->lineno, clean_why,
		 excerpt);
	if (h->malformed_seen <= MALFORMED_SHOWN)
		session_host_say(h, "malformed line %ld: %s", h->lineno, clean_why);
}

/* An option's count for the plan line: "10", or "?" when absent. */
static void fmt_count(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.0f", v);
}

/* Before the sweep: one line saying what the agent will run, from its
 * host record's options and its plan's devices ("6 GEMMs: n 256 384
 * 512, fp32 fp16 on cpu (cuda:0 skipped); 10 iterations after 2 warm-up,
 * CPU 5 after 1"), and how long the agent took in the baseline run (the
 * same machine and settings), into the model and as a progress line. */
static void host_plan_line(struct host_ctx *h, const struct bf_rec_plan *p)
{
	const struct bf_rec_options *o = &h->options;
	struct model_host mh;
	char text[256] = "", a[32], b[32], c[32], d[32];

	bf_text_appendf(text, sizeof(text), "%d GEMM%s", p->gemm_total,
			p->gemm_total == 1 ? "" : "s");
	if (o->present && o->nsizes > 8)
		bf_text_appendf(text, sizeof(text), ": n %d to %d (%d sizes)",
				o->sizes[0], o->sizes[o->nsizes - 1],
				o->nsizes);
	else if (o->present && o->nsizes > 0) {
		bf_text_appendf(text, sizeof(text), ": n");
		for (int i = 0; i < o->nsizes; i++)
			bf_text_appendf(text, sizeof(text), " %d", o->sizes[i]);
	}
	if (o->present && o->ndtypes > 0) {
		bf_text_appendf(text, sizeof(text), ",");
		for (int i = 0; i < o->ndtypes; i++)
			bf_text_appendf(text, sizeof(text), " %s",
					o->dtypes[i]);
	}
	bf_text_appendf(text, sizeof(text), " on");
	for (int i = 0, any = 0; i < p->ndevices; i++)
		if (p->devices[i].status != BF_STATUS_SKIPPED)
			bf_text_appendf(
				text, sizeof(text), "%s %s", any++ ? "," : "",
				p->devices[i].device ? p->devices[i].device :
						       "?");
	for (int i = 0, any = 0; i < p->ndevices; i++)
		if (p->devices[i].status == BF_STATUS_SKIPPED)
			bf_text_appendf(
				text, sizeof(text), "%s%s", any++ ? ", " : " (",
				p->devices[i].device ? p->devices[i].device :
						       "?");
	for (int i = 0; i < p->ndevices; i++)
		if (p->devices[i].status == BF_STATUS_SKIPPED) {
			bf_text_appendf(text, sizeof(text), " skipped)");
			break;
		}
	if (o->present) {
		fmt_count(a, sizeof(a), o->iters);
		fmt_count(b, sizeof(b), o->warmup);
		fmt_count(c, sizeof(c), o->cpu_iters);
		fmt_count(d, sizeof(d), o->cpu_warmup);
		bf_text_appendf(text, sizeof(text),
				"; %s iteration%s after %s warm-up, "
				"CPU %s after %s",
				a, o->iters == 1 ? "" : "s", b, c, d);
	}
	model_set_plan(h->model, h->index, text);
	model_host_get(h->model, h->index, &mh);
	if (mh.prev_wall_s > 0 && mh.prev_wall_s < 60 && mh.baseline_run[0]) {
		session_host_say(h, "plan: %s; last time %.1f s (run %s)", text,
				 mh.prev_wall_s, mh.baseline_run);
	} else if (mh.prev_wall_s > 0 && mh.baseline_run[0]) {
		long sec = lround(mh.prev_wall_s);

		session_host_say(h, "plan: %s; last time %ld:%02ld (run %s)", text,
				 sec / 60, sec % 60, mh.baseline_run);
	} else {
		session_host_say(h, "plan: %s", text);
	}
}

/* What the host record says about the GEMMs to come: their sizes. */
static void host_note_sizes(struct host_ctx *h, const struct bf_rec_host *r)
{
	bf_rec_options_free(&h->options);
	bf_rec_options_copy(&h->options, &r->options);
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
		session_host_log(h, "line %ld: duplicate of record seq %d: ignored\n",
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
	if (rec.type == BF_REC_PLAN)
		host_plan_line(h, &rec.u.plan);
	if (added == MODEL_ADDED_PROGRESS && rec.type == BF_REC_GEMM)
		session_host_say(h, "running %d/%d", mh.gemm_done, mh.gemm_total);
	bf_record_free(&rec);
	return BF_OK;
}

