/*
 * The session of one `ctl run`, as a whole (see session.h): opening the
 * run directory, the worker pool that runs the hosts, the watch of their
 * silence, run.json (with the space reserved for its last write), and the
 * run's end. What one host's lines do is session_host.c's; between them,
 * every read and write of the run's model is in these two files, so that
 * the runners and cmd_run.c never touch it.
 *
 * Kept whole although long (some 820 lines): the run directory, the pool,
 * the watch and run.json share the session's one lock and its end, which
 * must see every host's last state; one host's work is session_host.c's,
 * and which host may start next is schedule.c's (pure).
 */
#include "run/session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/cli.h"
#include "bf_clock.h"
#include "bf_text.h"
#include "model/check.h"
#include "run/session_internal.h"
#include "schema.h"
#include "xmalloc.h"

#define MAX_THREADS 64

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
			.reason = mh->reason ? mh->reason : "",
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
			.started_at = mh->turn_started_at,
			.ended_at = mh->turn_ended_at,
			.same_machine = mh->machine,
			.same_machine_at_once = mh->shared,
		};
	}
	if (snap.nhosts > 0)
		run.baseline_host = snap.hosts[snap.ref_host >= 0 &&
					       snap.ref_host < snap.nhosts ?
						       snap.ref_host : 0].name;
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
	char detail[sizeof(s->json_error)];

	if (save_run_json(s, BF_RUN_RUNNING, NULL, detail, sizeof(detail)) !=
	    BF_OK) {
		pthread_mutex_lock(&s->lock);
		if (!s->json_error[0]) /* fits: detail is as long */
			snprintf(s->json_error, sizeof(s->json_error), "%s",
				 detail);
		pthread_mutex_unlock(&s->lock);
	}
}

/* The bytes of each host's reason run_json_bound counts (what the model
 * held, char[512], before it kept reasons whole). */
#define RESERVE_REASON 512

/* A string of len - 1 '"', each of which JSON writes as two bytes: the
 * longest text a buffer of len bytes puts into run.json (what reaches it
 * is terminal-safe, so no control character but '\n', also two bytes,
 * is written as six). Caller frees. */
static char *longest_text(size_t len)
{
	char *t = bf_xcalloc(len, 1);

	memset(t, '"', len - 1);
	return t;
}

/* An upper bound of the last run.json's size in bytes: the file
 * archive_run_json writes for this run (its command line, tag, hosts)
 * with every string the model and the session may yet put in it at the
 * longest its buffer allows (longest_text), every count at INT_MAX, an
 * end time, and the newline archive_write_json adds. */
static size_t run_json_bound(struct session *s)
{
	struct archive_host_info *rh = bf_xcalloc((size_t)s->nhosts + 1,
						  sizeof(*rh));
	const struct model_host *mh = NULL;
	/* A host's reason is whole, of any length (model_types.h), up to
	 * SESSION_REASON_BYTES from a run; the bound counts RESERVE_REASON
	 * bytes of it, so that the reserve stays what run.json needs (a
	 * block or so) and leaves the records their room: the last run.json
	 * of a run with a longer reason on a disk full to its last block
	 * fails to be written, and ctl says so (session_finish). */
	char *reason = longest_text(RESERVE_REASON);
	char *name = longest_text(sizeof(mh->name));
	char *fp = longest_text(sizeof(mh->fingerprint));
	char *hash = longest_text(sizeof(mh->agent_hash));
	char *hostname = longest_text(sizeof(mh->hostname));
	char *job = longest_text(sizeof(mh->slurm_job));
	char *base = longest_text(sizeof(s->hosts->basename));
	char *run_reason = longest_text(sizeof(s->hosts->write_error));
	struct archive_run_info run = {
		.ctl_version = BF_CTL_VERSION, .argc = s->argc, .argv = s->argv,
		.tag = s->opts->tag, .started_at = s->started_at,
		.status = BF_RUN_INCOMPLETE, .reason = run_reason,
		.rerun_of = s->opts->rerun_of, .hosts = rh, .nhosts = s->nhosts,
	};
	size_t bytes;
	cJSON *doc;
	char *text;

	for (int i = 0; i < s->nhosts; i++)
		rh[i] = (struct archive_host_info){
			.name = name,
			.target = s->hosts[i].is_local ? "local" :
							 s->hosts[i].target,
			.status = host_state_name(HOST_INTERRUPTED),
			.reason = reason, .fingerprint = fp, .agent_hash = hash,
			.hostname = hostname, .agent_exit = 255,
			.records = INT_MAX, .malformed = INT_MAX,
			.gemm_done = INT_MAX, .gemm_total = INT_MAX,
			.complete_records = 0, .basename = base,
			.slurm_job = job,
		};
	doc = archive_run_json(&s->archive, &run);
	text = cJSON_Print(doc);
	if (!text)
		bf_xmalloc_fatal("cJSON_Print failed");
	bytes = strlen(text) + 1;
	free(text);
	cJSON_Delete(doc);
	free(run_reason);
	free(base);
	free(job);
	free(hostname);
	free(hash);
	free(fp);
	free(name);
	free(reason);
	free(rh);
	return bytes;
}

/* The run directory's reserve: space for the last run.json on a full
 * disk, as many of the file system's blocks as run_json_bound's bytes
 * take (the last write makes a new file beside the old run.json, which
 * frees its blocks only when renamed over), and no more: what it holds
 * back is what the records could not have. */
static enum bf_err reserve_create(struct session *s, char *detail,
				  size_t detail_len)
{
	char *path = bf_xasprintf("%s/.reserve", s->archive.dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	enum bf_err err = BF_OK;

	if (fd < 0) {
		err = bf_fail(detail, detail_len, BF_ERR_IO,
			      "cannot create %s: %s", path, strerror(errno));
	} else {
		struct statvfs vfs;
		off_t block = fstatvfs(fd, &vfs) == 0 && vfs.f_frsize > 0 ?
				      (off_t)vfs.f_frsize : 4096;
		off_t bytes = ((off_t)run_json_bound(s) + block - 1) / block *
			      block;
		/* posix_fallocate returns the error (glibc writes the
		 * blocks itself where the file system cannot allocate). */
		int rc = posix_fallocate(fd, 0, bytes);

		if (rc != 0) {
			err = bf_fail(detail, detail_len, BF_ERR_IO,
				      "cannot reserve %lld bytes for the last run.json in %s: %s",
				      (long long)bytes, s->archive.dir,
				      strerror(rc));
			(void)unlink(path);
		} else {
			s->reserved = 1;
		}
		close(fd);
	}
	free(path);
	return err;
}

static void reserve_release(struct session *s)
{
	char *path;

	if (!s->reserved)
		return;
	path = bf_xasprintf("%s/.reserve", s->archive.dir);
	(void)unlink(path);
	free(path);
	s->reserved = 0;
}

/* The last run.json, written once the reserve is given up (on a full
 * disk its blocks are what the file is written into); if it fails,
 * stderr says so, since run.json then still says what it said before
 * ("running"). */
static enum bf_err save_run_json_final(struct session *s, const char *status,
				       const char *reason)
{
	char detail[512];
	enum bf_err err;

	reserve_release(s);
	err = save_run_json(s, status, reason, detail, sizeof(detail));
	if (err != BF_OK)
		ctl_error("%s; %s/run.json is out of date (it still says "
			  "running; how each host ended is lost): the run is "
			  "%s%s%s; the host files keep the records written",
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
	char *detail = bf_xcalloc(SESSION_REASON_BYTES, 1), why[256];
	struct model_host mh;
	enum bf_err err;

	model_set_turn(h->model, h->index, 0);
	model_set_waiting(h->model, h->index, NULL);
	if (h->identify_err != BF_OK) /* it was tried once: not again */
		err = bf_fail(detail, SESSION_REASON_BYTES, h->identify_err, "%s",
			      h->identify_detail);
	else
		err = h->runner->run(h, detail, SESSION_REASON_BYTES);
	model_host_get(h->model, h->index, &mh);
	h->complete = model_host_complete(h->model, h->index, why, sizeof(why));
	if (h->over_budget) {
		err = bf_fail(detail, SESSION_REASON_BYTES, BF_ERR_TIMEOUT,
			      CHECK_BUDGET_EXCEEDED " (--budget %d s): agent "
			      "stopped", h->opts->budget_s);
	} else if (h->timed_out) {
		err = bf_fail(detail, SESSION_REASON_BYTES, BF_ERR_TIMEOUT,
			      "no record for %.0f s (--host-timeout): agent stopped",
			      (double)h->silence_limit_s);
	} else if (err == BF_OK && !h->complete) {
		err = mh.saw_summary ?
			bf_fail(detail, SESSION_REASON_BYTES, BF_ERR_REMOTE,
				"incomplete records: %s", why) :
			bf_fail(detail, SESSION_REASON_BYTES, BF_ERR_REMOTE,
				"agent ended before its summary record (%s)",
				why);
	}
	if (mh.summary_note[0]) {
		/* Said, not obeyed: the exit status comes from the records. */
		session_host_say(h, "the agent's own counts disagree with its records: %s",
				 mh.summary_note);
		session_host_log(h, "the agent's own counts disagree with its records: %s\n",
				 mh.summary_note);
	}
	if (h->malformed_seen > MALFORMED_SHOWN)
		session_host_say(h, "... %ld more malformed lines (see log)",
			 h->malformed_seen - MALFORMED_SHOWN);
	if (h->malformed_seen > MALFORMED_LOGGED)
		session_host_log(h, "... %ld more malformed lines not logged\n",
			 h->malformed_seen - MALFORMED_LOGGED);
	session_host_close_files(h);
	if (h->write_failed) /* the archive does not hold what arrived */
		session_progress(h, HOST_FAILED, h->write_error);
	else if (err == BF_ERR_INTERRUPTED || (err != BF_OK && cancelled(s)))
		session_progress(h, HOST_INTERRUPTED, "interrupted");
	else if (err != BF_OK)
		session_progress(h, HOST_FAILED, detail);
	else
		session_progress(h, HOST_DONE, NULL);
	model_set_turn(h->model, h->index, 1);
	save_run_json_running(s);
	free(detail);
}

/* ---- which hosts are one machine ----------------------------------------- */

/*
 * The schedule's rules are run/schedule.c's (pure); here, under s->lock,
 * the workers identify hosts, tell the schedule, wait on s->turn and
 * say who waits for whom.
 */

/* Waits on the session's turn condition for at most 100 ms (so that a
 * cancel is seen); s->lock held. */
static void wait_turn(struct session *s)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 100 * 1000 * 1000;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&s->turn, &s->lock, &until);
}

/* Asks h's runner which machine it is, into h->machine; non-zero when
 * it told. A failure is kept in h->identify_err and identify_detail. */
static int identify_host(struct session *s, struct host_ctx *h)
{
	char detail[sizeof(h->identify_detail)] = "";
	enum bf_err err;

	memset(&h->machine, 0, sizeof(h->machine));
	if (cancelled(s) || !h->runner || !h->runner->identify)
		return 0;
	err = h->runner->identify(h, &h->machine, detail, sizeof(detail));
	if (err == BF_OK)
		return 1;
	h->identify_err = err;
	/* fits: detail is as long, and bf_fail marks its own cuts. */
	snprintf(h->identify_detail, sizeof(h->identify_detail), "%s", detail);
	return 0;
}

/* With every host identified: each group of two or more hosts said once
 * (a progress line, and the model for the tables: model_set_machine,
 * which also marks their rows when they run at once). Without s->lock
 * (it prints and feeds the model); the groups are final by then. */
static void announce_machines(struct session *s)
{
	int shared = s->opts->concurrent_same_machine;
	const struct sched_host *g = s->sched.hosts;

	for (int i = 0; i < s->nhosts; i++) {
		struct model_host mh;
		char names[sizeof(mh.machine)], line[400];
		int members = 0;

		if (g[i].group != i)
			continue;
		names[0] = '\0';
		/* Shown, never matched: the model keeps it in a fixed field,
		 * so a list too long for it ends in "...". */
		for (int j = i; j < s->nhosts; j++)
			if (g[j].group == i) {
				(void)bf_text_appendf(names, sizeof(names),
						      "%s%s",
						      members ? ", " : "",
						      s->hosts[j].label);
				members++;
			}
		if (members < 2)
			continue;
		for (int j = i; j < s->nhosts; j++)
			if (g[j].group == i)
				model_set_machine(&s->model, j, names, shared);
		model_host_get(&s->model, i, &mh);
		model_machine_line(&mh, line, sizeof(line));
		if (!s->hosts[i].quiet) {
			pthread_mutex_lock(&s->print_lock);
			printf("%s\n", line);
			fflush(stdout);
			pthread_mutex_unlock(&s->print_lock);
		}
	}
}

/* The next host to identify, or -1 when every one has been taken. */
static int next_to_identify(struct session *s)
{
	int i;

	pthread_mutex_lock(&s->lock);
	i = s->identify_next < s->nhosts ? s->identify_next++ : -1;
	pthread_mutex_unlock(&s->lock);
	return i;
}

/* Host i has been identified (or given up on; identified: it told its
 * machine): the schedule told, and once the last is in, the machines
 * announced. */
static void host_identified(struct session *s, int i, int identified)
{
	const struct host_ctx *h = &s->hosts[i];
	int last;

	pthread_mutex_lock(&s->lock);
	last = sched_answered(&s->sched, i, identified ? &h->machine : NULL,
			      h->identify_err != BF_OK);
	pthread_mutex_unlock(&s->lock);
	if (last) {
		announce_machines(s);
		pthread_mutex_lock(&s->lock);
		sched_said(&s->sched);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_lock(&s->lock);
	pthread_cond_broadcast(&s->turn);
	pthread_mutex_unlock(&s->lock);
}

/* The next host this worker runs: the first on the command line that
 * may start (sched_next); waits while none may. -1 when none is left or
 * the run is cancelled. A host kept waiting by another of its machine
 * says so, once the machines are known. */
static int take_host(struct session *s)
{
	int *wait_for = bf_xcalloc((size_t)s->nhosts + 1, sizeof(*wait_for));
	int i = -1;

	pthread_mutex_lock(&s->lock);
	while (!cancelled(s)) {
		i = sched_next(&s->sched, wait_for);
		for (int k = 0; k < s->nhosts; k++)
			if (wait_for[k] >= 0)
				session_host_wait(&s->hosts[k],
						  s->hosts[wait_for[k]].label);
		if (i != SCHED_NONE_NOW)
			break;
		wait_turn(s);
	}
	if (i >= 0)
		sched_started(&s->sched, i);
	pthread_mutex_unlock(&s->lock);
	free(wait_for);
	return i >= 0 ? i : -1;
}

static void host_ended(struct session *s, int i)
{
	pthread_mutex_lock(&s->lock);
	sched_ended(&s->sched, i);
	pthread_cond_broadcast(&s->turn);
	pthread_mutex_unlock(&s->lock);
}

static void *worker(void *arg)
{
	struct session *s = arg;

	for (;;) {
		int i = next_to_identify(s);

		if (i >= 0) {
			host_identified(s, i, identify_host(s, &s->hosts[i]));
			continue;
		}
		i = take_host(s);
		if (i < 0)
			break;
		run_host(s, &s->hosts[i]);
		host_ended(s, i);
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
		uint64_t last = h->last_record_ns, start = h->agent_start_ns;
		int budget = s->opts->budget_s;
		struct model_host mh;

		if (cancelled(s)) {
			h->stop = 1;
		} else if (budget > 0 && !h->stop && !h->agent_ended && start &&
			   now >= start && (double)(now - start) / 1e9 > budget) {
			h->over_budget = 1;
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
	sched_init(&s->sched, s->nhosts, s->opts->concurrent_same_machine);
	/* One host is one machine: nothing to tell apart. */
	if (s->nhosts < 2) {
		s->identify_next = s->nhosts;
		for (int i = 0; i < s->nhosts; i++)
			sched_answered(&s->sched, i, NULL, 0);
		sched_said(&s->sched);
	}
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
	sched_free(&s->sched);
}

/* ---- the run ------------------------------------------------------------- */

/* Host i's context, before any file of it exists: names, where it
 * runs (inventory, Slurm), its limits and the session's shared parts. */
static void host_init(struct session *s, int i, const char *const *names,
		      const struct inventory *inv)
{
	struct host_ctx *h = &s->hosts[i];
	const struct run_opts *opts = s->opts;

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
	h->silence_limit_s = session_silence_limit_s(opts->host_timeout_s, 0, 0);
	h->print_lock = &s->print_lock;
	h->run_id = s->archive.run_id;
	h->run_lock = &s->lock;
	h->archive_dir = s->archive.dir;
	h->slurm = inventory_slurm_rank(inv, names[i], &h->slurm_rank);
	if (h->slurm)
		h->target = h->slurm->slurm->target;
	archive_host_basename(names[i], i, h->basename, sizeof(h->basename));
}

/* Before any host file and any host: the reserve that the last run.json
 * is written into, and the first run.json. A results disk that cannot
 * hold them refuses the run, and the empty run directory goes (it would
 * read as a damaged run); detail then says so. */
static enum bf_err first_run_json(struct session *s, char *detail,
				  size_t detail_len)
{
	enum bf_err err = reserve_create(s, detail, detail_len);

	if (err == BF_OK) {
		err = save_run_json(s, BF_RUN_RUNNING, NULL, detail,
				    detail_len);
		if (err != BF_OK)
			reserve_release(s);
	}
	if (err == BF_OK)
		return BF_OK;
	/* The caller's detail bounds it: a cut is marked "...". */
	if (rmdir(s->archive.dir) != 0)
		(void)bf_text_appendf(detail, detail_len,
				      " (nothing ran; %s is left empty)",
				      s->archive.dir);
	else
		(void)bf_text_appendf(detail, detail_len, " (nothing ran)");
	return err;
}

/* Every host's NDJSON and log file, new; BF_ERR_IO when one could not
 * be made (nothing ran: run.json says why, if it can, into the reserve's
 * blocks). */
static enum bf_err open_host_files(struct session *s, char *detail,
				   size_t detail_len)
{
	for (int i = 0; i < s->nhosts; i++) {
		struct host_ctx *h = &s->hosts[i];
		char fname[128], why[512];

		_Static_assert(sizeof(h->basename) + 8 <= sizeof(fname),
			       "a host file's name holds any basename");
		/* fits: basename is under sizeof(h->basename) = 96 bytes
		 * (session.h): 96 + ".ndjson" < 128. */
		snprintf(fname, sizeof(fname), "%s.ndjson", h->basename);
		h->ndjson = archive_open_new(&s->archive, fname, detail, detail_len);
		/* fits: as above. */
		snprintf(fname, sizeof(fname), "%s.log", h->basename);
		h->log = h->ndjson ? archive_open_new(&s->archive, fname, detail,
						      detail_len) : NULL;
		if (h->ndjson && h->log)
			continue;
		reserve_release(s);
		if (save_run_json(s, BF_RUN_INCOMPLETE, detail, why,
				  sizeof(why)) != BF_OK)
			ctl_error("%s", why);
		return BF_ERR_IO;
	}
	return BF_OK;
}

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
	pthread_cond_init(&s->turn, NULL);
	model_init(&s->model, nhosts, names);
	s->hosts = bf_xcalloc((size_t)nhosts, sizeof(*s->hosts));
	s->nhosts = nhosts;
	for (int i = 0; i < nhosts; i++)
		s->hosts[i].agent_argv = agent_argv[i];
	err = archive_create(opts->results_dir, &s->archive, detail, detail_len);
	if (err != BF_OK)
		return err;
	bf_utc_iso8601(s->started_at, NULL);
	for (int i = 0; i < nhosts; i++)
		host_init(s, i, names, inv);
	err = first_run_json(s, detail, detail_len);
	if (err == BF_OK)
		err = open_host_files(s, detail, detail_len);
	if (err == BF_OK)
		save_run_json_running(s); /* the host files are in it now */
	return err;
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

		/* fits: a signal's abbreviation ("TERM", "RTMIN+10") is
		 * under 16 bytes, len is 64 (session_finish's reason_buf). */
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

		session_host_close_files(&s->hosts[i]); /* hosts that never started */
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
		/* From the records that arrived, never from the agent's own
		 * exit status or summary (which may disagree: summary_note). */
		if (mh.failed > 0)
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
		bf_rec_options_free(&s->hosts[i].options);
	}
	free(s->hosts);
	s->hosts = NULL;
	model_free(&s->model);
	reserve_release(s);
	archive_close(&s->archive);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->print_lock);
	pthread_cond_destroy(&s->turn);
}
