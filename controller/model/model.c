/*
 * The run model; see model.h. This file: its lifecycle, its one lock,
 * the snapshots readers draw from and what ctl itself sets of a host
 * (state, name, machine, upload, turn). What the agent's records add is
 * model_records.c's; both share the state through model_internal.h.
 * What a row's note against its recent runs says is model/recent.c's.
 */
#include "model/model.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_clock.h"
#include "bf_text.h"
#include "model/model_internal.h"
#include "xmalloc.h"


/* src sanitised for a terminal (bf_text_sanitize_dup), one line at a
 * time so that line breaks stay; whole (never longer than src). Caller
 * frees. */
static char *sanitize_lines_dup(const char *src)
{
	char *out = bf_xcalloc(strlen(src) + 1, 1);
	size_t used = 0;

	for (;;) {
		const char *nl = strchr(src, '\n');
		size_t n = nl ? (size_t)(nl - src) : strlen(src);
		char *line = bf_xasprintf("%.*s", (int)(n < INT_MAX ? n : INT_MAX),
					  src);
		char *clean = bf_text_sanitize_dup(line);
		size_t len = strlen(clean);

		memcpy(out + used, clean, len); /* len <= n: fits */
		used += len;
		free(clean);
		free(line);
		if (!nl)
			break;
		out[used++] = '\n';
		src = nl + 1;
	}
	out[used] = '\0';
	return out;
}

const char *model_keep_text(struct model_state *st, char *owned)
{
	if (!owned || !*owned) {
		free(owned);
		return "";
	}
	if (st->ntexts == st->texts_cap) {
		st->texts_cap = st->texts_cap ? 2 * st->texts_cap : 16;
		st->texts = bf_xrealloc(st->texts, (size_t)st->texts_cap *
							   sizeof(*st->texts));
	}
	st->texts[st->ntexts++] = owned;
	return owned;
}

const char *model_keep_sanitized(struct model_state *st, const char *src)
{
	return model_keep_text(st, bf_text_sanitize_dup(src ? src : ""));
}


static const char *const state_names[] = {
	[HOST_PENDING] = "pending",       [HOST_CONNECTING] = "connecting",
	[HOST_DEPLOYING] = "deploying",   [HOST_BUILDING] = "building",
	[HOST_RUNNING] = "running",       [HOST_DONE] = "done",
	[HOST_FAILED] = "failed",         [HOST_INTERRUPTED] = "interrupted",
};

const char *host_state_name(enum host_state s)
{
	if ((int)s < 0 || s > HOST_INTERRUPTED)
		return "unknown";
	return state_names[s];
}

void model_init(struct model *m, int nhosts, const char *const *names)
{
	struct model_state *st = bf_xcalloc(1, sizeof(*st));

	pthread_mutex_init(&st->lock, NULL);
	st->nhosts = nhosts;
	st->hosts = bf_xcalloc((size_t)nhosts + 1, sizeof(*st->hosts));
	st->baseline = bf_xcalloc((size_t)nhosts + 1, sizeof(*st->baseline));
	st->nbaseline = bf_xcalloc((size_t)nhosts + 1, sizeof(*st->nbaseline));
	st->recent = bf_xcalloc((size_t)nhosts + 1, sizeof(*st->recent));
	st->nrecent = bf_xcalloc((size_t)nhosts + 1, sizeof(*st->nrecent));
	st->seqs = bf_xcalloc((size_t)nhosts + 1, sizeof(*st->seqs));
	st->counts = bf_xcalloc((size_t)nhosts + 1, sizeof(*st->counts));
	for (int i = 0; i < nhosts; i++) {
		bf_text_sanitize(st->hosts[i].name, sizeof(st->hosts[i].name),
				 names[i]);
		st->hosts[i].agent_exit = -1;
		st->hosts[i].max_seq = st->hosts[i].summary_seq = -1;
		st->counts[i].summary_exit = -1;
		st->hosts[i].prev_wall_s = NAN;
		st->hosts[i].cpu_cores = NAN;
	}
	st->started_ns = bf_now_ns();
	m->st = st;
}

void model_free(struct model *m)
{
	struct model_state *st = m->st;

	if (!st)
		return;
	for (int i = 0; i < st->nhosts; i++) {
		free(st->baseline[i]);
		for (int k = 0; k < st->nrecent[i]; k++)
			model_recent_clear(&st->recent[i][k]);
		free(st->recent[i]);
		free(st->seqs[i].bits);
	}
	for (int i = 0; i < st->nrows; i++)
		free(st->row_samples[i].x);
	for (int i = 0; i < st->ntexts; i++)
		free(st->texts[i]);
	free(st->texts);
	free(st->row_samples);
	free(st->recent);
	free(st->nrecent);
	free(st->seqs);
	free(st->counts);
	free(st->baseline);
	free(st->nbaseline);
	free(st->hosts);
	free(st->rows);
	free(st->checks);
	free(st->bandwidth);
	free(st->batching);
	pthread_mutex_destroy(&st->lock);
	free(st);
	m->st = NULL;
}

void model_lock(struct model_state *st)
{
	pthread_mutex_lock(&st->lock);
}

void model_unlock(struct model_state *st)
{
	pthread_mutex_unlock(&st->lock);
}

int model_nhosts(const struct model *m)
{
	return m->st->nhosts; /* fixed at init: no lock needed */
}

void model_host_get(struct model *m, int host, struct model_host *out)
{
	model_lock(m->st);
	*out = m->st->hosts[host];
	model_unlock(m->st);
}

/* Copies n entries of size from src into *dst, growing it (cap
 * entries) as needed; *dst is never NULL after. */
static void copy_list(void **dst, int *cap, const void *src, int n,
		      size_t size)
{
	if (n > *cap || !*dst) {
		*cap = n * 2 + 1;
		*dst = bf_xrealloc(*dst, (size_t)*cap * size);
	}
	if (n)
		memcpy(*dst, src, (size_t)n * size);
}

/* A snapshot's own copy of a model-owned reason: NULL for none. */
static const char *reason_copy(const char *reason)
{
	return reason && *reason ? bf_xstrdup(reason) : NULL;
}

/* Frees the reasons s holds (its own copies, model_types.h) and sets
 * them NULL: the first nhosts, nrows, nbandwidth and nbatching entries. */
static void free_reasons(struct model_snapshot *s)
{
	for (int i = 0; s->hosts && i < s->nhosts; i++) {
		free((char *)s->hosts[i].reason);
		free((char *)s->hosts[i].baseline_note);
		s->hosts[i].reason = s->hosts[i].baseline_note = NULL;
	}
	for (int i = 0; s->rows && i < s->nrows; i++) {
		free((char *)s->rows[i].reason);
		free((char *)s->rows[i].unreliable);
		s->rows[i].reason = s->rows[i].unreliable = NULL;
	}
	for (int i = 0; s->bandwidth && i < s->nbandwidth; i++) {
		free((char *)s->bandwidth[i].reason);
		s->bandwidth[i].reason = NULL;
	}
	for (int i = 0; s->batching && i < s->nbatching; i++) {
		free((char *)s->batching[i].reason);
		s->batching[i].reason = NULL;
	}
}

/* Replaces the model's reasons just copied into s's entries with s's own
 * copies (reason_copy). */
static void copy_reasons(struct model_snapshot *s)
{
	for (int i = 0; i < s->nhosts; i++) {
		s->hosts[i].reason = reason_copy(s->hosts[i].reason);
		s->hosts[i].baseline_note =
			reason_copy(s->hosts[i].baseline_note);
	}
	for (int i = 0; i < s->nrows; i++) {
		s->rows[i].reason = reason_copy(s->rows[i].reason);
		s->rows[i].unreliable = reason_copy(s->rows[i].unreliable);
	}
	for (int i = 0; i < s->nbandwidth; i++)
		s->bandwidth[i].reason = reason_copy(s->bandwidth[i].reason);
	for (int i = 0; i < s->nbatching; i++)
		s->batching[i].reason = reason_copy(s->batching[i].reason);
}

int model_snapshot_update(struct model *m, struct model_snapshot *s)
{
	struct model_state *st = m->st;
	int changed = 0;

	model_lock(st);
	if (!s->hosts || st->version != s->version) {
		free_reasons(s);
		if (!s->hosts || s->nhosts != st->nhosts) {
			free(s->hosts);
			s->hosts = bf_xcalloc((size_t)st->nhosts + 1,
					      sizeof(*s->hosts));
			s->nhosts = st->nhosts;
		}
		if (st->nrows > s->rows_cap || !s->rows) {
			s->rows_cap = st->nrows * 2 + 1;
			s->rows = bf_xrealloc(s->rows, (size_t)s->rows_cap *
							       sizeof(*s->rows));
		}
		if (st->nchecks > s->checks_cap || !s->checks) {
			s->checks_cap = st->nchecks * 2 + 1;
			s->checks = bf_xrealloc(s->checks, (size_t)s->checks_cap *
								   sizeof(*s->checks));
		}
		copy_list((void **)&s->bandwidth, &s->bandwidth_cap,
			  st->bandwidth, st->nbandwidth, sizeof(*s->bandwidth));
		copy_list((void **)&s->batching, &s->batching_cap,
			  st->batching, st->nbatching, sizeof(*s->batching));
		s->nbandwidth = st->nbandwidth;
		s->nbatching = st->nbatching;
		memcpy(s->hosts, st->hosts, (size_t)st->nhosts * sizeof(*s->hosts));
		if (st->nrows)
			memcpy(s->rows, st->rows, (size_t)st->nrows * sizeof(*s->rows));
		if (st->nchecks)
			memcpy(s->checks, st->checks,
			       (size_t)st->nchecks * sizeof(*s->checks));
		s->nrows = st->nrows;
		s->nchecks = st->nchecks;
		copy_reasons(s);
		s->version = st->version;
		s->started_ns = st->started_ns;
		s->ref_host = st->ref_host;
		changed = 1;
	}
	model_unlock(st);
	return changed;
}

void model_snapshot_free(struct model_snapshot *s)
{
	if (!s)
		return;
	free_reasons(s);
	free(s->hosts);
	free(s->rows);
	free(s->checks);
	free(s->bandwidth);
	free(s->batching);
	memset(s, 0, sizeof(*s));
}

const struct model_checks *model_snapshot_checks(const struct model_snapshot *s,
						 int host, const char *device)
{
	for (int i = 0; i < s->nchecks; i++)
		if (s->checks[i].host == host &&
		    strcmp(s->checks[i].device, device) == 0)
			return &s->checks[i];
	return NULL;
}

int model_set_state(struct model *m, int host, enum host_state st,
		    const char *reason)
{
	struct model_state *ms = m->st;
	struct model_host *h = &ms->hosts[host];
	int changed;

	model_lock(ms);
	changed = h->state != st;
	if (st > HOST_PENDING && h->started_ns == 0) /* local hosts skip connecting */
		h->started_ns = bf_now_ns();
	if (st == HOST_PENDING) /* back to waiting (for another host of its
				 * machine): not started */
		h->started_ns = 0;
	if (st >= HOST_DONE)
		h->ended_ns = bf_now_ns();
	h->state = st;
	if (reason) {
		char *clean = sanitize_lines_dup(reason);

		/* The same reason again (a state change that repeats it) is
		 * not kept twice. */
		if (h->reason && strcmp(h->reason, clean) == 0)
			free(clean);
		else
			h->reason = model_keep_text(ms, clean);
	}
	ms->version++;
	model_unlock(ms);
	return changed;
}


void model_set_baseline_info(struct model *m, int host, const char *run_id,
			     const char *note)
{
	struct model_host *h = &m->st->hosts[host];

	model_lock(m->st);
	/* fits: its only caller (baseline.c) passes an
	 * archive_baseline's run_id, char[64] as baseline_run */
	snprintf(h->baseline_run, sizeof(h->baseline_run), "%s",
		 run_id ? run_id : "");
	/* A note for the tables' legend, whole (it names two hostnames at
	 * most: "hostname differs (x, y)"). A new one replaces the last,
	 * which the model keeps until model_free (model_types.h). */
	if (!note || !h->baseline_note || strcmp(note, h->baseline_note) != 0)
		h->baseline_note = model_keep_text(m->st,
						   bf_xstrdup(note ? note : ""));
	m->st->version++;
	model_unlock(m->st);
}

void model_set_fingerprint(struct model *m, int host, const char *fp)
{
	model_lock(m->st);
	/* A key (archive_find_baselines matches machines by it), never
	 * cut: one that does not fit is unknown (""), which matches no
	 * other. remote_internal.h's is char[128] as this one; only an
	 * archived run.json (ctl show) can hold a longer one. */
	if (!bf_text_fmt(m->st->hosts[host].fingerprint,
			 sizeof(m->st->hosts[host].fingerprint), "%s",
			 fp ? fp : ""))
		m->st->hosts[host].fingerprint[0] = '\0';
	model_unlock(m->st);
}

void model_set_name(struct model *m, int host, const char *name)
{
	model_lock(m->st);
	/* fits: its one caller, session_rename_host, takes the node name
	 * runner_slurm.c reads with sscanf %127s into char[128] */
	snprintf(m->st->hosts[host].name, sizeof(m->st->hosts[host].name),
		 "%s", name);
	m->st->version++;
	model_unlock(m->st);
}

void model_set_slurm_job(struct model *m, int host, const char *job_id)
{
	model_lock(m->st);
	/* fits: the job id runner_slurm.c reads with sscanf %31s */
	snprintf(m->st->hosts[host].slurm_job,
		 sizeof(m->st->hosts[host].slurm_job), "%s", job_id ? job_id : "");
	model_unlock(m->st);
}

void model_set_reference(struct model *m, int host)
{
	model_lock(m->st);
	if (host >= 0 && host < m->st->nhosts)
		m->st->ref_host = host;
	m->st->version++;
	model_unlock(m->st);
}

void model_set_upload(struct model *m, int host, long long done,
		      long long total)
{
	model_lock(m->st);
	m->st->hosts[host].upload_done_bytes = done;
	m->st->hosts[host].upload_total_bytes = total;
	m->st->version++;
	model_unlock(m->st);
}

void model_set_build_steps(struct model *m, int host, int done, int total,
			   int percent)
{
	model_lock(m->st);
	m->st->hosts[host].build_done = done;
	m->st->hosts[host].build_total = total;
	m->st->hosts[host].build_percent = percent;
	m->st->version++;
	model_unlock(m->st);
}

void model_set_waiting(struct model *m, int host, const char *why)
{
	model_lock(m->st);
	bf_text_sanitize(m->st->hosts[host].waiting,
			 sizeof(m->st->hosts[host].waiting), why ? why : "");
	m->st->version++;
	model_unlock(m->st);
}

void model_set_plan(struct model *m, int host, const char *plan)
{
	model_lock(m->st);
	bf_text_sanitize(m->st->hosts[host].plan,
			 sizeof(m->st->hosts[host].plan), plan ? plan : "");
	m->st->version++;
	model_unlock(m->st);
}

void model_set_baseline_wall(struct model *m, int host, double wall_s)
{
	model_lock(m->st);
	m->st->hosts[host].prev_wall_s = wall_s;
	m->st->version++;
	model_unlock(m->st);
}

void model_set_turn(struct model *m, int host, int end)
{
	struct model_host *h = &m->st->hosts[host];
	char now[32];

	bf_utc_iso8601(now, NULL);
	model_lock(m->st);
	/* fits: now is char[32] as both fields (bf_utc_iso8601's 24) */
	if (end)
		snprintf(h->turn_ended_at, sizeof(h->turn_ended_at), "%s", now);
	else /* fits: as above */
		snprintf(h->turn_started_at, sizeof(h->turn_started_at), "%s", now);
	m->st->version++;
	model_unlock(m->st);
}

void model_machine_line(const struct model_host *h, char *buf, size_t len)
{
	if (!h->machine[0]) {
		if (len)
			buf[0] = '\0';
		return;
	}
	/* machine (<= 255 bytes) and the rest (< 60) fit the callers'
	 * 400 (table.c, session.c) and 512 (ui_types.h); a cut ends in
	 * "..." */
	bf_text_fmt(buf, len, "%s: one machine; %s", h->machine,
		    h->shared ? "run at once (--concurrent-same-machine)" :
				"run one at a time");
}
