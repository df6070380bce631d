/*
 * The run model's records: what each record of the agent adds (gemm rows
 * with their ratios and notes against the baseline and recent runs,
 * checks, bandwidth, batching), the seqs seen, the counts by kind and
 * status against the agent's own summary, and whether a host measured
 * anything or is complete (model.h). The state and lock are
 * model_internal.h's; every function here takes the lock.
 */
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive_read.h"
#include "bf_text.h"
#include "model/model_internal.h"
#include "model/recent.h"
#include "xmalloc.h"

/* 1 when seq was already in set, else adds it and returns 0. seq is in
 * 0..MODEL_MAX_SEQ (checked by the caller). */
static int seq_seen(struct seq_set *set, int seq)
{
	size_t byte = (size_t)seq / 8;
	unsigned char bit = (unsigned char)(1u << (seq % 8));

	if (byte >= set->bytes) {
		size_t nb = set->bytes ? set->bytes : 64;

		while (nb <= byte)
			nb *= 2;
		set->bits = bf_xrealloc(set->bits, nb);
		memset(set->bits + set->bytes, 0, nb - set->bytes);
		set->bytes = nb;
	}
	if (set->bits[byte] & bit)
		return 1;
	set->bits[byte] |= bit;
	return 0;
}

static int seq_has(const struct seq_set *set, int seq)
{
	size_t byte = (size_t)seq / 8;

	return byte < set->bytes && (set->bits[byte] >> (seq % 8)) & 1;
}

static struct model_checks *checks_for(struct model_state *m, int host,
				       const char *device)
{
	for (int i = 0; i < m->nchecks; i++)
		if (m->checks[i].host == host &&
		    strcmp(m->checks[i].device, device) == 0)
			return &m->checks[i];
	if (m->nchecks == m->checks_cap) {
		m->checks_cap = m->checks_cap ? 2 * m->checks_cap : 8;
		m->checks = bf_xrealloc(m->checks, (size_t)m->checks_cap *
							sizeof(*m->checks));
	}
	memset(&m->checks[m->nchecks], 0, sizeof(*m->checks));
	m->checks[m->nchecks].host = host;
	bf_text_sanitize(m->checks[m->nchecks].device, sizeof(m->checks->device),
			 device);
	return &m->checks[m->nchecks++];
}

static const struct model_row *find_row(const struct model_state *m, int host,
					const char *device, enum bf_dtype dtype,
					int n, int occurrence)
{
	for (int i = 0; i < m->nrows; i++) {
		const struct model_row *r = &m->rows[i];

		if (r->host == host && r->n == n && r->occurrence == occurrence &&
		    r->dtype == dtype && strcmp(r->device, device) == 0)
			return r;
	}
	return NULL;
}

/* Ratios are recomputed for the whole host on each GEMM result, since the
 * fp32 baseline may arrive after the rows that need it. Which rows get
 * one is bf_ratio_wanted's (record.h), as for the agent's summary, with
 * bf_speed_ratio; the base is the row of the same n and occurrence (a
 * repeated size's second row over the base's second), verified. */
static void recompute_ratios(struct model_state *m, int host)
{
	for (int i = 0; i < m->nrows; i++) {
		struct model_row *r = &m->rows[i];
		double *out[BF_RATIO_KIND__COUNT] = {
			[BF_RATIO_KIND_GPU_VS_CPU] = &r->gpu_vs_cpu,
			[BF_RATIO_KIND_VS_FP32] = &r->vs_fp32,
		};

		if (r->host != host)
			continue;
		r->vs_fp32 = r->gpu_vs_cpu = NAN;
		for (int k = 0; k < BF_RATIO_KIND__COUNT; k++) {
			const struct model_row *base;
			struct bf_ratio_base b;

			if (!bf_ratio_wanted((enum bf_ratio_kind)k, r->dtype,
					     r->status,
					     strncmp(r->device, "cuda", 4) == 0,
					     &b))
				continue;
			base = find_row(m, host, b.on_cpu ? "cpu" : r->device,
					b.dtype, r->n, r->occurrence);
			if (base && base->status == BF_STATUS_PASS)
				*out[k] = bf_speed_ratio(r->gflops, base->gflops);
		}
	}
}

static double baseline_gflops(const struct model_state *m,
			      const struct model_row *r)
{
	for (int i = 0; i < m->nbaseline[r->host]; i++) {
		const struct model_baseline *b = &m->baseline[r->host][i];

		if (b->n == r->n && b->occurrence == r->occurrence &&
		    b->dtype == r->dtype && strcmp(b->device, r->device) == 0)
			return b->gflops;
	}
	return NAN;
}

/* Row i's note against its host's recent runs (recent.h): "slower than
 * its last 5 runs" (a 5% floor, as ctl history's), or none. */
static void recent_note(struct model_state *m, int i)
{
	struct model_row *r = &m->rows[i];
	const struct row_samples *x = &m->row_samples[i];
	int slower = 0;

	r->recent_note[0] = '\0';
	r->recent_slower = 0;
	if (r->status != BF_STATUS_PASS || isnan(r->gflops))
		return;
	for (int k = 0; k < m->nrecent[r->host]; k++) {
		const struct model_recent *h = &m->recent[r->host][k];

		if (h->n == r->n && h->occurrence == r->occurrence &&
		    h->dtype == r->dtype && strcmp(h->device, r->device) == 0) {
			model_recent_note(h, x->x, x->n, 0.05, 0.05, &slower,
					  r->recent_note, sizeof(r->recent_note));
			r->recent_slower = slower;
			return;
		}
	}
}

void model_set_recent(struct model *mm, int host,
		      const struct archive_baseline *const *runs, int nruns)
{
	struct model_state *m = mm->st;
	struct model_recent *rec = NULL;
	int count = 0;

	/* One entry per row of the newest run, with that row's samples in
	 * each run that has it. */
	for (int i = 0; nruns > 0 && i < runs[0]->nrows; i++) {
		const struct archive_baseline_row *b0 = &runs[0]->rows[i];
		struct model_recent *h;

		rec = bf_xrealloc(rec, (size_t)(count + 1) * sizeof(*rec));
		h = &rec[count++];
		memset(h, 0, sizeof(*h));
		/* fits: both are char[16] (archive_baseline_row, recent.h) */
		snprintf(h->device, sizeof(h->device), "%s", b0->device);
		h->dtype = b0->dtype;
		h->n = b0->n;
		h->occurrence = b0->occurrence;
		for (int k = 0; k < nruns && h->nruns < MODEL_RECENT_MAX; k++) {
			const struct archive_baseline_row *b = archive_baseline_row(
				runs[k], h->device, h->dtype, h->n, h->occurrence);

			if (!b || b->nsamples < 1)
				continue;
			h->samples[h->nruns] = bf_xcalloc((size_t)b->nsamples,
							  sizeof(double));
			memcpy(h->samples[h->nruns], b->samples_gflops,
			       (size_t)b->nsamples * sizeof(double));
			h->nsamples[h->nruns++] = b->nsamples;
		}
	}
	model_lock(m);
	for (int k = 0; k < m->nrecent[host]; k++)
		model_recent_clear(&m->recent[host][k]);
	free(m->recent[host]);
	m->recent[host] = rec;
	m->nrecent[host] = count;
	for (int i = 0; i < m->nrows; i++)
		if (m->rows[i].host == host)
			recent_note(m, i);
	m->version++;
	model_unlock(m);
}

void model_set_baseline(struct model *mm, int host,
			const struct model_baseline *b, int count)
{
	struct model_state *m = mm->st;

	model_lock(m);
	free(m->baseline[host]);
	m->baseline[host] = NULL;
	m->nbaseline[host] = 0;
	if (count > 0) {
		m->baseline[host] = bf_xcalloc((size_t)count, sizeof(*b));
		memcpy(m->baseline[host], b, (size_t)count * sizeof(*b));
		m->nbaseline[host] = count;
	}
	for (int i = 0; i < m->nrows; i++)
		if (m->rows[i].host == host)
			m->rows[i].prev_gflops = baseline_gflops(m, &m->rows[i]);
	m->version++;
	model_unlock(m);
}

static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* The reasons of g's unreliable_reasons, "; "-joined, whole, sanitised
 * and kept by the model (model_keep_text). */
static const char *join_reasons(struct model_state *m,
				const struct bf_rec_gemm *g)
{
	char *buf = bf_xstrdup("");

	for (int i = 0; i < g->nunreliable; i++) {
		char *more = bf_xasprintf("%s%s%s", buf, i ? "; " : "",
					  g->unreliable_reasons[i] ?
						  g->unreliable_reasons[i] : "?");

		free(buf);
		buf = more;
	}
	return model_keep_text(m, bf_text_sanitize_inplace(buf));
}

/* Row r was measured at the same time as another host of its machine:
 * unreliable, for MODEL_SHARED_REASON (added once). */
static void mark_shared(struct model_state *m, struct model_row *r)
{
	const char *was = r->unreliable ? r->unreliable : "";

	if (strstr(was, MODEL_SHARED_REASON))
		return;
	r->reliable = 0;
	r->unreliable = model_keep_text(m, bf_xasprintf("%s%s%s", was,
							*was ? "; " : "",
							MODEL_SHARED_REASON));
}

static void add_gemm(struct model_state *m, int host,
		     const struct bf_rec_gemm *g)
{
	struct model_row *r;
	char why[200];
	int occurrence = 1;
	const char *device = str_or(g->device, "?");
	enum bf_dtype dtype = BF_DTYPE_FP32;

	/* Known: model_add_record took only a record whose dtype parses. */
	bf_dtype_parse(g->dtype, &dtype);
	while (find_row(m, host, device, dtype, g->n, occurrence))
		occurrence++;

	if (m->nrows == m->rows_cap) {
		m->rows_cap = m->rows_cap ? 2 * m->rows_cap : 16;
		m->rows = bf_xrealloc(m->rows, (size_t)m->rows_cap * sizeof(*m->rows));
		m->row_samples = bf_xrealloc(m->row_samples, (size_t)m->rows_cap *
								 sizeof(*m->row_samples));
	}
	m->row_samples[m->nrows].x = bf_xcalloc((size_t)g->nsamples + 1,
						sizeof(double));
	m->row_samples[m->nrows].n = 0;
	for (int k = 0; k < g->nsamples; k++)
		if (g->samples_ms[k] > 0)
			m->row_samples[m->nrows].x[m->row_samples[m->nrows].n++] =
				bf_gemm_gflops(g->n, g->samples_ms[k]);
	r = &m->rows[m->nrows++];
	memset(r, 0, sizeof(*r));
	r->host = host;
	bf_text_sanitize(r->device, sizeof(r->device), device);
	r->dtype = dtype;
	r->n = g->n;
	r->occurrence = occurrence;
	r->status = g->status;
	r->median_ms = g->median_ms;
	r->min_ms = g->min_ms;
	r->max_ms = g->max_ms;
	r->gflops = g->gflops;
	r->peak_mib = g->peak_mib;
	r->gflop_per_joule = g->energy_source ? g->gflop_per_joule : NAN;
	r->peak_gflops = g->peak_gflops;
	r->fraction_of_peak = g->fraction_of_peak;
	r->peak_derived = g->peak_method &&
			  strcmp(g->peak_method, "derived") == 0;
	r->reference_gflops = g->reference_source ? g->reference_gflops : NAN;
	r->fraction_of_reference = g->fraction_of_reference;
	r->below_reference = g->below_reference;
	bf_text_sanitize(r->reference, sizeof(r->reference),
			 str_or(g->reference_source, ""));
	if (g->bandwidth_kind) {
		bf_text_sanitize(r->bandwidth_kind, sizeof(r->bandwidth_kind),
				 g->bandwidth_kind);
		r->bandwidth_gbps = g->bandwidth_gbps;
		r->arithmetic_intensity = g->arithmetic_intensity;
		r->roofline_gflops = g->roofline_gflops;
		r->fraction_of_roofline = g->fraction_of_roofline;
	} else {
		r->bandwidth_gbps = r->arithmetic_intensity = NAN;
		r->roofline_gflops = r->fraction_of_roofline = NAN;
	}
	r->bound = !g->bound ? 0 :
		   strcmp(g->bound, BF_BOUND_MEMORY) == 0 ? 'M' :
		   strcmp(g->bound, BF_BOUND_COMPUTE) == 0 ? 'C' : 0;
	r->reliable = g->reliable;
	r->unreliable = join_reasons(m, g);
	if (m->hosts[host].shared)
		mark_shared(m, r);
	r->reason = model_keep_sanitized(m, g->reason);
	if (!bf_rec_gemm_consistent(g, why, sizeof(why))) {
		/* A record that contradicts itself has no speed. */
		r->status = BF_STATUS_FAIL;
		r->gflops = r->fraction_of_peak = NAN;
		r->fraction_of_roofline = r->gflop_per_joule = NAN;
		r->fraction_of_reference = NAN;
		r->below_reference = -1;
		r->reason = model_keep_sanitized(m, why);
	}
	r->prev_gflops = baseline_gflops(m, r);
	recent_note(m, (int)(r - m->rows));
	recompute_ratios(m, host);
}

/* Grows a list of size-byte entries (n used, cap allocated) for one
 * more; returns the new entry, zeroed. */
static void *list_add(void **list, int *n, int *cap, size_t size)
{
	char *e;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*list = bf_xrealloc(*list, (size_t)*cap * size);
	}
	e = (char *)*list + (size_t)(*n)++ * size;
	memset(e, 0, size);
	return e;
}

static void add_bandwidth(struct model_state *m, int host,
			  const struct bf_rec_bandwidth *b)
{
	struct model_bandwidth *e =
		list_add((void **)&m->bandwidth, &m->nbandwidth,
			 &m->bandwidth_cap, sizeof(*m->bandwidth));

	e->host = host;
	bf_text_sanitize(e->device, sizeof(e->device), str_or(b->device, "?"));
	bf_text_sanitize(e->kind, sizeof(e->kind), str_or(b->kind, "?"));
	e->status = b->status;
	e->median_gbps = b->median_gbps;
	e->array_bytes = b->measured ? b->array_bytes : NAN;
	e->reason = model_keep_sanitized(m, b->reason);
}

static void add_batching(struct model_state *m, int host,
			 const struct bf_rec_batching *b)
{
	struct model_batching *e =
		list_add((void **)&m->batching, &m->nbatching,
			 &m->batching_cap, sizeof(*m->batching));

	e->host = host;
	bf_text_sanitize(e->device, sizeof(e->device), str_or(b->device, "?"));
	/* Known: model_add_record took only a record whose dtype parses. */
	bf_dtype_parse(b->dtype, &e->dtype);
	e->status = b->status;
	e->speedup = b->speedup;
	e->single_ms = b->measured ? b->single_ms : NAN;
	e->batch_ms = b->measured ? b->batch_ms : NAN;
	e->rows = b->measured ? b->rows : 0;
	e->reason = model_keep_sanitized(m, b->reason);
}

static void why_add(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void count_sent(struct model_state *m, int host, enum result_kind k,
		       enum bf_status st)
{
	if ((int)st >= 0 && st <= BF_STATUS_SKIPPED)
		m->counts[host].sent[k][st]++;
}

/* The summary's counts into c (the optional ones NaN when absent). */
static void note_summary(struct host_counts *c, const struct bf_rec_summary *s)
{
	const double got[KIND__COUNT][3] = {
		{ s->checks_passed, s->checks_failed, s->checks_skipped },
		{ s->gemm_passed, s->gemm_failed, s->gemm_skipped },
		{ s->bandwidth_passed, s->bandwidth_failed,
		  s->bandwidth_skipped },
		{ s->batching_passed, s->batching_failed, s->batching_skipped },
	};

	memcpy(c->summary, got, sizeof(c->summary));
	c->summary_exit = s->exit_status;
}

/* The agent's own counts against the records that arrived, into h's
 * summary_note: each summary count that is not the number of records of
 * its kind with that status, the summary's exit_status and the agent's
 * exit status (0 or 1: docs/schema.md, "Exit status") against 1 when a
 * record said fail, else 0. Another exit status (2, 4, 130, a signal)
 * is a failed agent, said elsewhere. Called with the lock held. */
static void update_summary_note(struct model_state *m, int host)
{
	static const char *const kinds[KIND__COUNT] = { "checks", "gemm",
		"bandwidth", "batching" };
	static const char *const statuses[3] = { "passed", "failed",
		"skipped" };
	const struct host_counts *c = &m->counts[host];
	struct model_host *h = &m->hosts[host];
	char *note = h->summary_note;
	size_t len = sizeof(h->summary_note), used;
	int want_exit = 0;

	note[0] = '\0';
	for (int k = 0; k < KIND__COUNT; k++)
		want_exit |= c->sent[k][BF_STATUS_FAIL] > 0;
	if (h->saw_summary)
		for (int k = 0; k < KIND__COUNT; k++)
			for (int st = 0; st < 3; st++)
				if (!isnan(c->summary[k][st]) &&
				    c->summary[k][st] != c->sent[k][st])
					why_add(note, len,
						"%s_%s %.0f (records: %d)",
						kinds[k], statuses[st],
						c->summary[k][st],
						c->sent[k][st]);
	if (h->saw_summary && c->summary_exit >= 0 &&
	    c->summary_exit != want_exit)
		why_add(note, len, "exit_status %d (records: %d)",
			c->summary_exit, want_exit);
	if ((h->agent_exit == BF_EXIT_OK ||
	     h->agent_exit == BF_EXIT_CHECKS_FAILED) &&
	    h->agent_exit != want_exit)
		why_add(note, len, "the agent exited %d (records: %d)",
			h->agent_exit, want_exit);
	if (!note[0])
		return;
	used = strlen(note);
	snprintf(note + used, len - used, "; the records decide");
}

/* Whether name is a dtype this ctl knows (NULL: no). */
static int known_dtype(const char *name)
{
	enum bf_dtype dt;

	return name && bf_dtype_parse(name, &dt) == 0;
}

/* Whether rec's numbers and dtype are within model.h's bounds. */
static int record_in_range(const struct bf_record *rec)
{
	if (rec->seq < -1 || rec->seq > MODEL_MAX_SEQ)
		return 0;
	switch (rec->type) {
	case BF_REC_PLAN:
		return rec->u.plan.gemm_total >= 0 &&
		       rec->u.plan.gemm_total <= MODEL_MAX_PLANNED &&
		       rec->u.plan.checks_total >= 0 &&
		       rec->u.plan.checks_total <= MODEL_MAX_PLANNED;
	case BF_REC_GEMM:
		return rec->u.gemm.n >= 1 && rec->u.gemm.n <= MODEL_MAX_N &&
		       known_dtype(rec->u.gemm.dtype);
	case BF_REC_BATCHING:
		return known_dtype(rec->u.batching.dtype);
	default:
		return 1;
	}
}

enum model_added model_add_record(struct model *mm, int host,
				  const struct bf_record *rec)
{
	struct model_state *m = mm->st;
	struct model_host *h = &m->hosts[host];
	enum model_added added = MODEL_ADDED;

	if (!record_in_range(rec))
		return MODEL_REJECTED_RANGE;
	model_lock(m);
	/* A seq seen before is a line sent twice: counted once. Records
	 * without a seq (-1: hand-made, older archives) are all taken. */
	if (rec->seq >= 0 && seq_seen(&m->seqs[host], rec->seq)) {
		h->duplicates++;
		m->version++;
		model_unlock(m);
		return MODEL_REJECTED_DUPLICATE;
	}
	if (rec->seq > h->max_seq)
		h->max_seq = rec->seq;
	h->records++;
	switch (rec->type) {
	case BF_REC_HOST:
		bf_text_sanitize(h->agent_hash, sizeof(h->agent_hash),
				 str_or(rec->u.host.agent_source_hash, ""));
		bf_text_sanitize(h->hostname, sizeof(h->hostname),
				 str_or(rec->u.host.hostname, ""));
		bf_text_sanitize(h->device_asked, sizeof(h->device_asked),
				 rec->u.host.options.device);
		bf_text_sanitize(h->cpu_model, sizeof(h->cpu_model),
				 str_or(rec->u.host.cpu_model, ""));
		h->cpu_cores = rec->u.host.cpu_cores;
		h->ngpus = 0;
		for (int g = 0; g < rec->u.host.ngpus && h->ngpus < MODEL_MAX_GPUS;
		     g++) {
			const struct bf_rec_gpu *src = &rec->u.host.gpus[g];
			struct model_gpu *dst = &h->gpus[h->ngpus];

			if (!isfinite(src->index) || !src->name)
				continue;
			dst->index = (int)src->index;
			bf_text_sanitize(dst->name, sizeof(dst->name), src->name);
			dst->memory_bytes = src->memory_bytes;
			h->ngpus++;
		}
		break;
	case BF_REC_PLAN:
		h->gemm_total = rec->u.plan.gemm_total;
		h->checks_total = rec->u.plan.checks_total;
		h->saw_plan = 1;
		added = MODEL_ADDED_PROGRESS;
		break;
	case BF_REC_CHECK: {
		struct model_checks *c =
			checks_for(m, host, str_or(rec->u.check.device, "?"));

		if (rec->u.check.status == BF_STATUS_PASS)
			c->passed++;
		else if (rec->u.check.status == BF_STATUS_FAIL)
			c->failed++;
		else
			c->skipped++;
		h->checks_done++;
		h->failed += rec->u.check.status == BF_STATUS_FAIL;
		count_sent(m, host, KIND_CHECKS, rec->u.check.status);
		break;
	}
	case BF_REC_GEMM:
		add_gemm(m, host, &rec->u.gemm);
		h->gemm_done++;
		/* As shown: a record that contradicts itself fails too. */
		h->failed += m->rows[m->nrows - 1].status == BF_STATUS_FAIL;
		count_sent(m, host, KIND_GEMM, rec->u.gemm.status);
		added = MODEL_ADDED_PROGRESS;
		break;
	case BF_REC_BANDWIDTH:
		add_bandwidth(m, host, &rec->u.bandwidth);
		h->failed += rec->u.bandwidth.status == BF_STATUS_FAIL;
		count_sent(m, host, KIND_BANDWIDTH, rec->u.bandwidth.status);
		break;
	case BF_REC_BATCHING:
		add_batching(m, host, &rec->u.batching);
		h->failed += rec->u.batching.status == BF_STATUS_FAIL;
		count_sent(m, host, KIND_BATCHING, rec->u.batching.status);
		break;
	case BF_REC_SUMMARY:
		h->saw_summary = 1;
		h->summary_seq = rec->seq;
		note_summary(&m->counts[host], &rec->u.summary);
		break;
	default:
		break;
	}
	update_summary_note(m, host);
	m->version++;
	model_unlock(m);
	return added;
}

/* Appends ", " (unless at the start) and the formatted text to out. */
static void why_add(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void why_add(char *out, size_t len, const char *fmt, ...)
{
	size_t used = strlen(out);
	va_list ap, aq;
	char *item;
	int n;

	if (used && used + 2 < len) {
		memcpy(out + used, ", ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	item = bf_xmalloc(n > 0 ? (size_t)n + 1 : 1);
	item[0] = '\0';
	if (n > 0) /* fits: the n + 1 bytes vsnprintf counted */
		vsnprintf(item, (size_t)n + 1, fmt, ap);
	va_end(ap);
	/* A cut ends in "..." (the callers' why holds 256 bytes, more
	 * than these counts and three seq numbers take). */
	bf_text_appendf(out, len, "%s", item);
	free(item);
}

/* Whether a row's device is one the agent was asked for: asked "cpu"
 * is the CPU, "cuda" a GPU ("cuda:0"), "" (all) any. */
static int device_was_asked(const char *asked, const char *device)
{
	if (strcmp(asked, "cuda") == 0)
		return strncmp(device, "cuda", 4) == 0;
	return !*asked || strcmp(asked, device) == 0;
}

int model_host_measured_nothing(struct model *mm, int host, char **why)
{
	struct model_state *m = mm->st;
	const struct model_host *h = &m->hosts[host];
	const char *asked, *reason = "";
	int ran = 0, skipped = 0, nothing;

	*why = NULL;
	model_lock(m);
	asked = h->device_asked;
	for (int i = 0; i < m->nrows; i++) {
		const struct model_row *r = &m->rows[i];

		if (r->host != host || !device_was_asked(asked, r->device))
			continue;
		if (r->status == BF_STATUS_PASS || r->status == BF_STATUS_FAIL) {
			ran++;
		} else {
			if (!skipped && r->reason)
				reason = r->reason;
			skipped++;
		}
	}
	nothing = h->saw_plan && ran == 0;
	if (nothing && skipped)
		*why = bf_xasprintf("no%s%s GEMM ran: %d skipped%s%s%s",
				    *asked ? " " : "", asked, skipped,
				    *reason ? " (" : "", reason,
				    *reason ? ")" : "");
	else if (nothing)
		*why = bf_xasprintf("no%s%s GEMM ran: none planned",
				    *asked ? " " : "", asked);
	model_unlock(m);
	return nothing;
}

int model_host_complete(struct model *mm, int host, char *why, size_t why_len)
{
	struct model_state *m = mm->st;
	const struct model_host *h = &m->hosts[host];
	const struct seq_set *seqs = &m->seqs[host];
	int missing = 0, shown = 0, last;
	char list[96] = "";

	why[0] = '\0';
	model_lock(m);
	if (!h->saw_plan)
		why_add(why, why_len, "no plan record");
	if (!h->saw_summary)
		why_add(why, why_len, "no summary record");
	if (h->saw_plan && h->checks_done != h->checks_total)
		why_add(why, why_len, "%d of %d check records", h->checks_done,
			h->checks_total);
	if (h->saw_plan && h->gemm_done != h->gemm_total)
		why_add(why, why_len, "%d of %d gemm records", h->gemm_done,
			h->gemm_total);
	/* Every seq up to the summary's (or the highest seen, without a
	 * summary) arrived? Records without a seq are not checked. */
	last = h->summary_seq >= 0 ? h->summary_seq : h->max_seq;
	for (int q = 0; q <= last; q++) {
		if (seq_has(seqs, q))
			continue;
		if (missing++ < 3) {
			size_t used = strlen(list);

			/* fits: three seqs <= MODEL_MAX_SEQ (7 digits) and
			 * their ", " take 25 of list's 96 bytes */
			snprintf(list + used, sizeof(list) - used, "%s%d",
				 shown++ ? ", " : "", q);
		}
	}
	if (missing > 3)
		why_add(why, why_len, "seq %s and %d more missing", list,
			missing - 3);
	else if (missing)
		why_add(why, why_len, "seq %s missing", list);
	if (h->summary_seq >= 0 && h->max_seq > h->summary_seq)
		why_add(why, why_len, "records after the summary");
	if (h->duplicates)
		why_add(why, why_len, "%d duplicate record%s", h->duplicates,
			h->duplicates == 1 ? "" : "s");
	model_unlock(m);
	return why[0] == '\0';
}

void model_add_malformed(struct model *m, int host)
{
	model_lock(m->st);
	m->st->hosts[host].malformed++;
	m->st->version++;
	model_unlock(m->st);
}

void model_set_agent_exit(struct model *m, int host, int status)
{
	model_lock(m->st);
	m->st->hosts[host].agent_exit = status;
	update_summary_note(m->st, host);
	m->st->version++;
	model_unlock(m->st);
}

void model_set_machine(struct model *m, int host, const char *names,
		       int shared)
{
	struct model_state *st = m->st;
	struct model_host *h = &st->hosts[host];

	model_lock(st);
	bf_text_sanitize(h->machine, sizeof(h->machine), names ? names : "");
	h->shared = shared;
	for (int i = 0; shared && i < st->nrows; i++)
		if (st->rows[i].host == host)
			mark_shared(st, &st->rows[i]);
	st->version++;
	model_unlock(st);
}
