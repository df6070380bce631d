/* The run model; see model.h. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bf_clock.h"
#include "xmalloc.h"

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
	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	m->nhosts = nhosts;
	m->hosts = bf_xcalloc((size_t)nhosts, sizeof(*m->hosts));
	m->baseline = bf_xcalloc((size_t)nhosts, sizeof(*m->baseline));
	m->nbaseline = bf_xcalloc((size_t)nhosts, sizeof(*m->nbaseline));
	for (int i = 0; i < nhosts; i++) {
		snprintf(m->hosts[i].name, sizeof(m->hosts[i].name), "%s",
			 names[i]);
		m->hosts[i].agent_exit = -1;
	}
	m->started_ns = bf_now_ns();
}

void model_free(struct model *m)
{
	for (int i = 0; i < m->nhosts; i++)
		free(m->baseline[i]);
	free(m->baseline);
	free(m->nbaseline);
	free(m->hosts);
	free(m->rows);
	free(m->checks);
	pthread_mutex_destroy(&m->lock);
}

void model_lock(struct model *m)
{
	pthread_mutex_lock(&m->lock);
}

void model_unlock(struct model *m)
{
	pthread_mutex_unlock(&m->lock);
}

int model_set_state(struct model *m, int host, enum host_state st,
		    const char *reason)
{
	struct model_host *h = &m->hosts[host];
	int changed;

	model_lock(m);
	changed = h->state != st;
	if (st > HOST_PENDING && h->started_ns == 0) /* local hosts skip connecting */
		h->started_ns = bf_now_ns();
	if (st >= HOST_DONE)
		h->ended_ns = bf_now_ns();
	h->state = st;
	if (reason)
		snprintf(h->reason, sizeof(h->reason), "%s", reason);
	m->version++;
	model_unlock(m);
	return changed;
}

static double num_or_nan(const cJSON *rec, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_or(const cJSON *rec, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static struct model_checks *checks_for(struct model *m, int host,
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
	snprintf(m->checks[m->nchecks].device, sizeof(m->checks->device), "%s",
		 device);
	return &m->checks[m->nchecks++];
}

const struct model_checks *model_find_checks(const struct model *m, int host,
					     const char *device)
{
	for (int i = 0; i < m->nchecks; i++)
		if (m->checks[i].host == host &&
		    strcmp(m->checks[i].device, device) == 0)
			return &m->checks[i];
	return NULL;
}

static const struct model_row *find_row(const struct model *m, int host,
					const char *device, const char *dtype,
					int n)
{
	for (int i = 0; i < m->nrows; i++) {
		const struct model_row *r = &m->rows[i];

		if (r->host == host && r->n == n &&
		    strcmp(r->device, device) == 0 &&
		    strcmp(r->dtype, dtype) == 0)
			return r;
	}
	return NULL;
}

/* Ratios are recomputed for the whole host on each GEMM result, since the
 * fp32 baseline may arrive after the rows that need it. Same definitions
 * as the agent's summary (agent/gemm.c): verified results only. */
static void recompute_ratios(struct model *m, int host)
{
	for (int i = 0; i < m->nrows; i++) {
		struct model_row *r = &m->rows[i];
		const struct model_row *base;

		if (r->host != host)
			continue;
		r->vs_fp32 = r->gpu_vs_cpu = NAN;
		if (r->status != BF_STATUS_PASS)
			continue;
		base = find_row(m, host, r->device, "fp32", r->n);
		if (base && base->status == BF_STATUS_PASS &&
		    strcmp(r->dtype, "fp32") != 0)
			r->vs_fp32 = r->gflops / base->gflops;
		if (strcmp(r->dtype, "fp32") == 0 &&
		    strncmp(r->device, "cuda", 4) == 0) {
			base = find_row(m, host, "cpu", "fp32", r->n);
			if (base && base->status == BF_STATUS_PASS)
				r->gpu_vs_cpu = r->gflops / base->gflops;
		}
	}
}

static double baseline_gflops(const struct model *m, const struct model_row *r)
{
	for (int i = 0; i < m->nbaseline[r->host]; i++) {
		const struct model_baseline *b = &m->baseline[r->host][i];

		if (b->n == r->n && strcmp(b->device, r->device) == 0 &&
		    strcmp(b->dtype, r->dtype) == 0)
			return b->gflops;
	}
	return NAN;
}

void model_set_baseline(struct model *m, int host,
			const struct model_baseline *b, int count)
{
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

static void add_gemm(struct model *m, int host, const cJSON *rec)
{
	struct model_row *r;
	enum bf_status st = BF_STATUS_FAIL;

	if (m->nrows == m->rows_cap) {
		m->rows_cap = m->rows_cap ? 2 * m->rows_cap : 16;
		m->rows = bf_xrealloc(m->rows, (size_t)m->rows_cap * sizeof(*m->rows));
	}
	r = &m->rows[m->nrows++];
	memset(r, 0, sizeof(*r));
	r->host = host;
	snprintf(r->device, sizeof(r->device), "%s", str_or(rec, BF_KEY_DEVICE, "?"));
	snprintf(r->dtype, sizeof(r->dtype), "%s", str_or(rec, BF_KEY_DTYPE, "?"));
	r->n = (int)num_or_nan(rec, BF_KEY_N);
	bf_schema_status_parse(str_or(rec, BF_KEY_STATUS, "fail"), &st);
	r->status = st;
	r->median_ms = num_or_nan(rec, BF_KEY_MEDIAN_MS);
	r->min_ms = num_or_nan(rec, BF_KEY_MIN_MS);
	r->max_ms = num_or_nan(rec, BF_KEY_MAX_MS);
	r->gflops = num_or_nan(rec, BF_KEY_GFLOPS);
	r->peak_mib = num_or_nan(rec, BF_KEY_PEAK_MIB);
	snprintf(r->reason, sizeof(r->reason), "%s", str_or(rec, BF_KEY_REASON, ""));
	r->prev_gflops = baseline_gflops(m, r);
	recompute_ratios(m, host);
}

int model_add_record(struct model *m, int host, enum bf_record_type type,
		     const cJSON *rec)
{
	struct model_host *h = &m->hosts[host];
	enum bf_status st;
	int progress = 0;

	model_lock(m);
	h->records++;
	switch (type) {
	case BF_REC_HOST: {
		const cJSON *agent = cJSON_GetObjectItemCaseSensitive(rec, BF_KEY_AGENT);

		snprintf(h->agent_hash, sizeof(h->agent_hash), "%s",
			 str_or(agent, BF_KEY_SOURCE_HASH, ""));
		snprintf(h->hostname, sizeof(h->hostname), "%s",
			 str_or(rec, BF_KEY_HOSTNAME, ""));
		break;
	}
	case BF_REC_PLAN:
		h->gemm_total = (int)num_or_nan(rec, BF_KEY_GEMM_TOTAL);
		h->checks_total = (int)num_or_nan(rec, BF_KEY_CHECKS_TOTAL);
		progress = 1;
		break;
	case BF_REC_CHECK:
		if (bf_schema_status_parse(str_or(rec, BF_KEY_STATUS, ""), &st) == 0) {
			struct model_checks *c =
				checks_for(m, host, str_or(rec, BF_KEY_DEVICE, "?"));

			if (st == BF_STATUS_PASS)
				c->passed++;
			else if (st == BF_STATUS_FAIL)
				c->failed++;
			else
				c->skipped++;
		}
		h->checks_done++;
		break;
	case BF_REC_GEMM:
		add_gemm(m, host, rec);
		h->gemm_done++;
		progress = 1;
		break;
	case BF_REC_SUMMARY:
		h->saw_summary = 1;
		break;
	default:
		break;
	}
	m->version++;
	model_unlock(m);
	return progress;
}

void model_add_malformed(struct model *m, int host)
{
	model_lock(m);
	m->hosts[host].malformed++;
	m->version++;
	model_unlock(m);
}

void model_set_fingerprint(struct model *m, int host, const char *fp)
{
	model_lock(m);
	snprintf(m->hosts[host].fingerprint, sizeof(m->hosts[host].fingerprint),
		 "%s", fp ? fp : "");
	model_unlock(m);
}

void model_set_agent_exit(struct model *m, int host, int status)
{
	model_lock(m);
	m->hosts[host].agent_exit = status;
	model_unlock(m);
}
