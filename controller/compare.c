/* The comparison table of ctl compare; see compare.h. */
#include "compare.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bf_text.h"
#include "stats.h"
#include "table.h"
#include "texttable.h"
#include "xmalloc.h"

/* --- building -------------------------------------------------------- */

static struct compare_row *find_or_add_row(struct compare_table *t,
					   const char *host, const char *device,
					   const char *dtype, int n, int occurrence)
{
	struct compare_row *r;

	for (int i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		if (r->n == n && r->occurrence == occurrence &&
		    strcmp(r->host, host) == 0 &&
		    strcmp(r->device, device) == 0 &&
		    strcmp(r->dtype, dtype) == 0)
			return r;
	}
	t->rows = bf_xrealloc(t->rows, (size_t)(t->nrows + 1) * sizeof(*t->rows));
	r = &t->rows[t->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->host, sizeof(r->host), "%s", host);
	snprintf(r->device, sizeof(r->device), "%s", device);
	snprintf(r->dtype, sizeof(r->dtype), "%s", dtype);
	r->n = n;
	r->occurrence = occurrence;
	r->cells = bf_xcalloc((size_t)t->ncols, sizeof(*r->cells));
	r->deltas = bf_xcalloc((size_t)t->ncols, sizeof(*r->deltas));
	for (int c = 0; c < t->ncols; c++) {
		struct compare_cell *cell = &r->cells[c];

		cell->median_gflops = cell->min_gflops = cell->max_gflops = NAN;
		cell->spread_pct = cell->median_ms = NAN;
		cell->peak_gflops = cell->fraction_of_peak = NAN;
		cell->reference_gflops = cell->fraction_of_reference = NAN;
		cell->below_reference = -1;
		cell->roofline_gflops = cell->fraction_of_roofline = NAN;
		cell->reliable = -1;
	}
	return r;
}

/* Fills c from one gemm record. */
static void fill_cell(struct compare_cell *c, const struct bf_rec_gemm *g)
{
	int n = g->n;
	double *ms = NULL;
	size_t k = 0;

	free(c->gflops);
	c->gflops = NULL;
	c->present = 1;
	c->status = g->status;
	snprintf(c->reason, sizeof(c->reason), "%s", g->reason ? g->reason : "");
	c->reliable = g->reliable;
	c->unreliable[0] = '\0';
	for (int i = 0, off = 0; i < g->nunreliable && off + 1 < (int)sizeof(c->unreliable); i++) {
		int w = snprintf(c->unreliable + off, sizeof(c->unreliable) - (size_t)off,
				 "%s%s", i ? "; " : "",
				 g->unreliable_reasons[i] ? g->unreliable_reasons[i] : "?");

		if (w < 0)
			break;
		off += w;
	}
	c->peak_gflops = g->peak_gflops;
	if (g->measured && g->nsamples > 0) {
		size_t cap = (size_t)g->nsamples;

		ms = bf_xmalloc(cap * sizeof(*ms));
		c->gflops = bf_xmalloc(cap * sizeof(*c->gflops));
		for (int i = 0; i < g->nsamples; i++) {
			if (!(g->samples_ms[i] > 0)) /* NaN (null) or <= 0 */
				continue;
			ms[k] = g->samples_ms[i];
			/* A GEMM of n x n by n x n is 2 n^3 flops. */
			c->gflops[k] = 2.0 * n * (double)n * n / ms[k] / 1e6;
			k++;
		}
	}
	c->nsamples = k;
	if (k > 0) {
		struct bf_stats_summary s = bf_stats_summarize(c->gflops, k);

		c->median_gflops = s.median;
		c->min_gflops = s.min;
		c->max_gflops = s.max;
		/* One sample has no spread: not a confident ±0%. */
		c->spread_pct = k < 2 ? NAN :
			fmax(s.median - s.min, s.max - s.median) / s.median * 100;
		c->median_ms = bf_stats_median(ms, k);
	} else {
		c->median_gflops = g->gflops;
		c->median_ms = g->median_ms;
		c->min_gflops = c->max_gflops = c->spread_pct = NAN;
	}
	/* Of the median shown, so that %peak and GFLOP/s agree. */
	c->fraction_of_peak = c->status == BF_STATUS_PASS && c->peak_gflops > 0 ?
				      c->median_gflops / c->peak_gflops : NAN;
	/* The reference the same way, and the verdict on that median. */
	c->reference_gflops = g->reference_source ? g->reference_gflops : NAN;
	snprintf(c->reference, sizeof(c->reference), "%s",
		 g->reference_source ? g->reference_source : "");
	c->fraction_of_reference = c->status == BF_STATUS_PASS &&
					   c->reference_gflops > 0 ?
				   c->median_gflops / c->reference_gflops : NAN;
	c->below_reference =
		isnan(c->fraction_of_reference) ? -1 :
		c->fraction_of_reference < BF_REFERENCE_HEALTHY_FRACTION;
	/* The roofline the same way: of the median shown. */
	c->roofline_gflops = g->bandwidth_kind ? g->roofline_gflops : NAN;
	c->fraction_of_roofline = c->status == BF_STATUS_PASS &&
					  c->roofline_gflops > 0 ?
				  c->median_gflops / c->roofline_gflops : NAN;
	snprintf(c->bound, sizeof(c->bound), "%s",
		 g->bandwidth_kind && g->bound ? g->bound : "");
	free(ms);
}

/* Column col's median GB/s for each measured bandwidth record of h. */
static void add_host_bandwidth(struct compare_table *t, int col,
			       const struct archive_host *h)
{
	for (int i = 0; i < h->nrecords; i++) {
		const struct bf_rec_bandwidth *b = &h->records[i].u.bandwidth;
		const char *host = t->by_host ? h->name : "";
		struct compare_bw *e = NULL;

		if (h->records[i].type != BF_REC_BANDWIDTH || !b->device ||
		    !b->kind || b->status != BF_STATUS_PASS ||
		    !(b->median_gbps > 0))
			continue;
		for (int k = 0; k < t->nbw && !e; k++)
			if (strcmp(t->bw[k].host, host) == 0 &&
			    strcmp(t->bw[k].device, b->device) == 0 &&
			    strcmp(t->bw[k].kind, b->kind) == 0)
				e = &t->bw[k];
		if (!e) {
			t->bw = bf_xrealloc(t->bw, (size_t)(t->nbw + 1) * sizeof(*t->bw));
			e = &t->bw[t->nbw++];
			memset(e, 0, sizeof(*e));
			snprintf(e->host, sizeof(e->host), "%s", host);
			snprintf(e->device, sizeof(e->device), "%s", b->device);
			snprintf(e->kind, sizeof(e->kind), "%s", b->kind);
			e->gbps = bf_xcalloc((size_t)t->ncols, sizeof(*e->gbps));
			for (int c = 0; c < t->ncols; c++)
				e->gbps[c] = NAN;
		}
		e->gbps[col] = b->median_gbps;
	}
}

static void add_host_rows(struct compare_table *t, int col,
			  const struct archive_host *h)
{
	add_host_bandwidth(t, col, h);
	for (int i = 0; i < h->nrecords; i++) {
		const struct bf_rec_gemm *g = &h->records[i].u.gemm;
		struct compare_row *r;

		int occurrence = 1;

		if (h->records[i].type != BF_REC_GEMM || !g->device ||
		    !g->dtype || !(g->n >= 1 && g->n <= 1000000000))
			continue;
		/* A repeated size: the k-th record of (device, dtype, n) in
		 * this host's file is occurrence k. */
		for (int j = 0; j < i; j++) {
			const struct bf_rec_gemm *o = &h->records[j].u.gemm;

			occurrence += h->records[j].type == BF_REC_GEMM &&
				      o->device && o->dtype && o->n == g->n &&
				      strcmp(o->device, g->device) == 0 &&
				      strcmp(o->dtype, g->dtype) == 0;
		}
		r = find_or_add_row(t, t->by_host ? h->name : "", g->device,
				    g->dtype, g->n, occurrence);
		fill_cell(&r->cells[col], g);
	}
}

static void compute_delta(struct compare_delta *d, const struct compare_cell *a,
			  const struct compare_cell *b, double alpha)
{
	struct bf_stats_utest u;

	memset(d, 0, sizeof(*d));
	d->ratio = d->p = NAN;
	if (!a->present || !b->present || a->status != BF_STATUS_PASS ||
	    b->status != BF_STATUS_PASS || !(a->median_gflops > 0) ||
	    !(b->median_gflops > 0))
		return;
	d->valid = 1;
	d->ratio = bf_speed_ratio(b->median_gflops, a->median_gflops);
	d->n1 = a->nsamples;
	d->n2 = b->nsamples;
	d->too_few = bf_stats_utest_min_p(d->n1, d->n2) >= alpha;
	if (d->n1 > 0 && d->n2 > 0 &&
	    bf_stats_mann_whitney(a->gflops, d->n1, b->gflops, d->n2,
			       BF_STATS_UTEST_AUTO, &u) == 0)
		d->p = u.p;
	d->significant = !d->too_few && d->p < alpha;
}

/* --- provenance ------------------------------------------------------ */

/* A provenance value as text; NULL when not known. Caller frees. */
typedef char *(*prov_text_fn)(const struct bf_rec_host *h);

struct prov_item {
	const char *section; /* object in the host record; NULL: top level */
	const char *key;
	prov_text_fn text;   /* NULL: the run.json host's fingerprint */
};

/* A string field: a copy, NULL when absent or null. */
static char *str_text(const char *s)
{
	return s ? bf_xstrdup(s) : NULL;
}

/* A number field: integers without a fraction, else %g; NULL when
 * absent. */
static char *num_text(double v)
{
	if (isnan(v))
		return NULL;
	return v == floor(v) && fabs(v) < 1e15 ? bf_xasprintf("%.0f", v) :
						 bf_xasprintf("%g", v);
}

static char *p_hostname(const struct bf_rec_host *h) { return str_text(h->hostname); }
static char *p_cpu_model(const struct bf_rec_host *h) { return str_text(h->cpu_model); }
static char *p_ob_version(const struct bf_rec_host *h) { return str_text(h->openblas_version); }
static char *p_ob_core(const struct bf_rec_host *h) { return str_text(h->openblas_core); }
static char *p_ob_threads(const struct bf_rec_host *h) { return num_text(h->openblas_threads); }
static char *p_ob_replaced(const struct bf_rec_host *h) { return str_text(h->openblas_core_replaced); }
static char *p_driver(const struct bf_rec_host *h) { return str_text(h->cuda_driver_version); }
static char *p_runtime(const struct bf_rec_host *h) { return str_text(h->cuda_runtime_version); }
static char *p_cublas(const struct bf_rec_host *h) { return str_text(h->cuda_cublas_version); }
static char *p_source_hash(const struct bf_rec_host *h) { return str_text(h->agent_source_hash); }

/* GPUs by name, in index order: "NVIDIA H200, NVIDIA H200"; "none" for
 * none. */
static char *p_gpus(const struct bf_rec_host *h)
{
	char *out = NULL;

	for (int i = 0; i < h->ngpus; i++) {
		const char *name = h->gpus[i].name;
		char *next = bf_xasprintf("%s%s%s", out ? out : "", out ? ", " : "",
				       name ? name : "n/a");

		free(out);
		out = next;
	}
	return out ? out : bf_xstrdup("none");
}

/* GPUs by UUID, in index order: which physical GPUs ran ("none" for
 * none, n/a for one NVML could not name). */
static char *p_gpu_uuids(const struct bf_rec_host *h)
{
	char *out = NULL;

	for (int i = 0; i < h->ngpus; i++) {
		const char *uuid = h->gpus[i].uuid;
		char *next = bf_xasprintf("%s%s%s", out ? out : "", out ? ", " : "",
				       uuid ? uuid : "n/a");

		free(out);
		out = next;
	}
	return out ? out : bf_xstrdup("none");
}

/* The options as the agent wrote them (one line of JSON). */
static char *p_options(const struct bf_rec_host *h)
{
	cJSON *o;
	char *printed, *copy;

	if (!h->options.present)
		return NULL;
	o = bf_rec_options_encode(&h->options);
	printed = cJSON_PrintUnformatted(o);
	copy = bf_xstrdup(printed ? printed : "n/a");
	cJSON_free(printed);
	cJSON_Delete(o);
	return copy;
}

/* What can explain a speed change: who ran (hostname, CPU), the
 * libraries and their configuration, the GPUs, the agent build, the host
 * key (a different machine behind the same name), and the sweep's
 * settings (iterations, warm-up, sizes). */
static const struct prov_item prov_items[] = {
	{ NULL, BF_KEY_HOSTNAME, p_hostname },
	{ NULL, BF_RUN_HOST_FINGERPRINT, NULL },
	{ NULL, BF_KEY_CPU_MODEL, p_cpu_model },
	{ BF_KEY_OPENBLAS, BF_KEY_VERSION, p_ob_version },
	{ BF_KEY_OPENBLAS, BF_KEY_CORE, p_ob_core },
	{ BF_KEY_OPENBLAS, BF_KEY_THREADS, p_ob_threads },
	{ BF_KEY_OPENBLAS, "core_replaced", p_ob_replaced },
	{ BF_KEY_CUDA, BF_KEY_DRIVER_VERSION, p_driver },
	{ BF_KEY_CUDA, BF_KEY_RUNTIME_VERSION, p_runtime },
	{ BF_KEY_CUDA, BF_KEY_CUBLAS_VERSION, p_cublas },
	{ NULL, BF_KEY_GPUS, p_gpus },
	{ BF_KEY_GPUS, "uuid", p_gpu_uuids },
	{ BF_KEY_AGENT, BF_KEY_SOURCE_HASH, p_source_hash },
	{ NULL, BF_KEY_OPTIONS, p_options },
};
#define NPROV_ITEMS (sizeof(prov_items) / sizeof(prov_items[0]))

/* The item's value for host h; NULL when not known. Caller frees. */
static char *prov_value(const struct prov_item *it,
			const struct archive_host *h)
{
	if (!it->text)
		return h ? bf_xstrdup(h->fingerprint) : NULL;
	if (!h || !h->host_record)
		return NULL;
	return it->text(h->host_record);
}

static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The host of column c that the provenance of host name (by_host) or
 * the column's only host (not by_host) comes from; NULL when absent. */
const struct archive_host *compare_column_host(const struct compare_table *t,
					       int c, const char *name)
{
	const struct compare_column *col = &t->cols[c];

	if (col->host)
		return (!name || strcmp(col->host->name, name) == 0) ? col->host :
								       NULL;
	if (!name)
		return col->run->nhosts > 0 ? &col->run->hosts[0] : NULL;
	return archive_run_host(col->run, name);
}

/* Appends a provenance row (takes ownership of values) when at least two
 * columns have the host and their values differ; else frees values. */
void compare_add_prov(struct compare_table *t, const char *name,
		      const char *key, char **values, int present, int differs)
{
	struct compare_prov *p;

	if (present < 2 || !differs) {
		for (int c = 0; c < t->ncols; c++)
			free(values[c]);
		free(values);
		return;
	}
	t->prov = bf_xrealloc(t->prov, (size_t)(t->nprov + 1) * sizeof(*t->prov));
	p = &t->prov[t->nprov++];
	memset(p, 0, sizeof(*p));
	snprintf(p->host, sizeof(p->host), "%s", name ? name : "");
	snprintf(p->key, sizeof(p->key), "%s", key);
	p->values = values;
}

/* The value of environment variable var in h's host record: its value,
 * "unset", or NULL (n/a) when the record has no env (an older agent). */
static char *env_value(const struct archive_host *h, const char *var)
{
	const struct bf_rec_host *r = h ? h->host_record : NULL;

	if (!r || r->nenv == 0)
		return NULL;
	for (int i = 0; i < r->nenv; i++)
		if (r->env[i].name && strcmp(r->env[i].name, var) == 0)
			return bf_xstrdup(r->env[i].value ? r->env[i].value :
							    "unset");
	return bf_xstrdup("unset");
}

/* The host record's "env" (CUDA_VISIBLE_DEVICES, CUBLAS_*, LD_PRELOAD,
 * OPENBLAS_*, ...): one provenance row "env.NAME" per variable whose
 * value differs, variables in order of first appearance. */
static void add_env_provenance(struct compare_table *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++) {
		const struct archive_host *h = compare_column_host(t, c, name);
		const struct bf_rec_host *r = h ? h->host_record : NULL;

		for (int i = 0; r && i < r->nenv; i++) {
			const char *var = r->env[i].name;
			char **values, key[48];
			int seen = 0, present = 0, differs = 0, first = -1;

			if (!var)
				continue;
			for (int k = 0; k < c && !seen; k++) {
				const struct archive_host *o =
					compare_column_host(t, k, name);

				for (int j = 0; o && o->host_record &&
						j < o->host_record->nenv && !seen; j++)
					seen = o->host_record->env[j].name &&
					       strcmp(o->host_record->env[j].name, var) == 0;
			}
			for (int j = 0; j < i && !seen; j++)
				seen = r->env[j].name && strcmp(r->env[j].name, var) == 0;
			if (seen)
				continue;
			values = bf_xcalloc((size_t)t->ncols, sizeof(*values));
			for (int k = 0; k < t->ncols; k++) {
				const struct archive_host *o =
					compare_column_host(t, k, name);

				if (!o)
					continue;
				values[k] = env_value(o, var);
				present++;
				if (first < 0)
					first = k;
				else if (!same_text(values[first], values[k]))
					differs = 1;
			}
			snprintf(key, sizeof(key), "env.%.40s", var);
			compare_add_prov(t, name, key, values, present,
					 differs);
		}
	}
}

static void add_provenance_for(struct compare_table *t, const char *name)
{
	char **values = bf_xcalloc((size_t)t->ncols, sizeof(*values));

	for (size_t i = 0; i < NPROV_ITEMS; i++) {
		const struct prov_item *it = &prov_items[i];
		int present = 0, differs = 0, first = -1;

		for (int c = 0; c < t->ncols; c++) {
			const struct archive_host *h =
				compare_column_host(t, c, name);

			values[c] = h ? prov_value(it, h) : NULL;
			if (!h)
				continue;
			present++;
			if (first < 0)
				first = c;
			else if (!same_text(values[first], values[c]))
				differs = 1;
		}
		if (present >= 2 && differs) {
			struct compare_prov *p;

			t->prov = bf_xrealloc(t->prov, (size_t)(t->nprov + 1) *
							    sizeof(*t->prov));
			p = &t->prov[t->nprov++];
			memset(p, 0, sizeof(*p));
			snprintf(p->host, sizeof(p->host), "%s",
				 name ? name : "");
			if (it->section)
				snprintf(p->key, sizeof(p->key), "%s.%s",
					 it->section, it->key);
			else
				snprintf(p->key, sizeof(p->key), "%s", it->key);
			p->values = values;
			values = bf_xcalloc((size_t)t->ncols, sizeof(*values));
		} else {
			for (int c = 0; c < t->ncols; c++) {
				free(values[c]);
				values[c] = NULL;
			}
		}
	}
	free(values);
	add_env_provenance(t, name);
	compare_add_peak_provenance(t, name);
}

static void add_provenance(struct compare_table *t)
{
	if (!t->by_host) {
		add_provenance_for(t, NULL);
		return;
	}
	/* Each host name once, in order of first appearance. */
	for (int c = 0; c < t->ncols; c++) {
		const struct archive_run *run = t->cols[c].run;

		for (int i = 0; i < run->nhosts; i++) {
			const char *name = run->hosts[i].name;
			int seen = 0;

			if (t->cols[c].host && t->cols[c].host != &run->hosts[i])
				continue;
			for (int k = 0; k < c && !seen; k++)
				seen = compare_column_host(t, k, name) != NULL;
			for (int k = 0; k < i && !seen; k++)
				seen = strcmp(run->hosts[k].name, name) == 0;
			if (!seen)
				add_provenance_for(t, name);
		}
	}
}

/* First-seen rank of a row's host, device and dtype, for sorting. */
struct row_key {
	int host, device, dtype, n, occurrence, index;
};

static int first_seen(const struct compare_table *t, int upto, size_t off,
		      const char *value)
{
	for (int i = 0; i < upto; i++)
		if (strcmp((const char *)&t->rows[i] + off, value) == 0)
			return i;
	return upto;
}

static int cmp_row_key(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	if (x->host != y->host)
		return x->host - y->host;
	if (x->device != y->device)
		return x->device - y->device;
	if (x->n != y->n)
		return (x->n > y->n) - (x->n < y->n);
	if (x->occurrence != y->occurrence)
		return x->occurrence - y->occurrence;
	if (x->dtype != y->dtype)
		return x->dtype - y->dtype;
	return x->index - y->index;
}

/* Rows in the agent's sweep order (host, device, n, dtype), with hosts,
 * devices and dtypes in the order first seen, so that a size only one
 * column measured sits beside its neighbours instead of at the end. */
static void sort_rows(struct compare_table *t)
{
	struct row_key *keys = bf_xcalloc((size_t)t->nrows + 1, sizeof(*keys));
	struct compare_row *sorted = bf_xcalloc((size_t)t->nrows + 1, sizeof(*sorted));

	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		keys[i].host = first_seen(t, i, offsetof(struct compare_row, host), r->host);
		keys[i].device = first_seen(t, i, offsetof(struct compare_row, device), r->device);
		keys[i].dtype = first_seen(t, i, offsetof(struct compare_row, dtype), r->dtype);
		keys[i].n = r->n;
		keys[i].occurrence = r->occurrence;
		keys[i].index = i;
	}
	qsort(keys, (size_t)t->nrows, sizeof(*keys), cmp_row_key);
	for (int i = 0; i < t->nrows; i++)
		sorted[i] = t->rows[keys[i].index];
	free(t->rows);
	t->rows = sorted;
	free(keys);
}

struct compare_table *compare_build(const struct compare_column *cols,
				    int ncols, double alpha)
{
	struct compare_table *t = bf_xcalloc(1, sizeof(*t));

	if (ncols > 26)
		ncols = 26;
	t->ncols = ncols;
	t->alpha = alpha;
	t->cols = bf_xcalloc((size_t)(ncols ? ncols : 1), sizeof(*t->cols));
	for (int c = 0; c < ncols; c++) {
		t->cols[c] = cols[c];
		snprintf(t->cols[c].label, sizeof(t->cols[c].label), "%c",
			 'A' + c);
		if (!cols[c].host && cols[c].run->nhosts > 1)
			t->by_host = 1;
	}
	for (int c = 0; c < ncols; c++) {
		const struct archive_run *run = t->cols[c].run;

		if (t->cols[c].host)
			add_host_rows(t, c, t->cols[c].host);
		else
			for (int i = 0; i < run->nhosts; i++)
				add_host_rows(t, c, &run->hosts[i]);
	}
	sort_rows(t);
	for (int i = 0; i < t->nrows; i++)
		for (int c = 1; c < ncols; c++)
			compute_delta(&t->rows[i].deltas[c],
				      &t->rows[i].cells[0],
				      &t->rows[i].cells[c], alpha);
	add_provenance(t);
	return t;
}

void compare_free(struct compare_table *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nprov; i++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->prov[i].values[c]);
		free(t->prov[i].values);
	}
	free(t->prov);
	for (int i = 0; i < t->nbw; i++)
		free(t->bw[i].gbps);
	free(t->bw);
	for (int i = 0; i < t->nrows; i++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->rows[i].cells[c].gflops);
		free(t->rows[i].cells);
		free(t->rows[i].deltas);
	}
	free(t->rows);
	free(t->cols);
	free(t);
}

/* --- formatting ------------------------------------------------------ */

void compare_fmt_gflops(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, len, "%.1f", v);
	else if (fabs(v) >= 1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

void compare_fmt_cell(char *buf, size_t len, const struct compare_cell *c)
{
	char num[32];

	if (!c->present) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (c->status != BF_STATUS_PASS) {
		snprintf(buf, len, "%s",
			 c->status == BF_STATUS_SKIPPED ? "skipped" :
			 strncmp(c->reason, "invalid:", 8) == 0 ? "invalid" : "FAIL");
		return;
	}
	compare_fmt_gflops(num, sizeof(num), c->median_gflops);
	if (c->reliable == 0 && !isnan(c->median_gflops))
		snprintf(num + strlen(num), sizeof(num) - strlen(num), "?");
	if (c->nsamples == 1)
		snprintf(buf, len, "%s (1 sample)", num);
	else if (isnan(c->spread_pct))
		snprintf(buf, len, "%s", num);
	else if (c->spread_pct >= 1)
		snprintf(buf, len, "%s ±%.0f%%", num, c->spread_pct);
	else
		snprintf(buf, len, "%s ±%.1f%%", num, c->spread_pct);
}

void compare_fmt_peak(char *buf, size_t len, const struct compare_cell *c)
{
	double pct = 100.0 * c->fraction_of_peak;

	if (!c->present || c->status != BF_STATUS_PASS || isnan(pct))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.*f%%", pct < 9.95 ? 1 : 0, pct);
}

void compare_fmt_ref(char *buf, size_t len, const struct compare_cell *c)
{
	double pct = 100.0 * c->fraction_of_reference;

	if (!c->present || c->status != BF_STATUS_PASS || isnan(pct))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.0f%%%s", pct,
			 c->below_reference == 1 ? "!" : "");
}

void compare_fmt_roof(char *buf, size_t len, const struct compare_cell *c)
{
	double pct = 100.0 * c->fraction_of_roofline;
	const char *b = strcmp(c->bound, "memory") == 0 ? " M" :
			strcmp(c->bound, "compute") == 0 ? " C" : "";

	if (!c->present || c->status != BF_STATUS_PASS || isnan(pct))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.*f%%%s", pct < 9.95 ? 1 : 0, pct, b);
}

void compare_fmt_verdict(char *buf, size_t len, const struct compare_delta *d)
{
	if (!d->valid)
		snprintf(buf, len, "n/a");
	else if (!d->significant)
		snprintf(buf, len, "~");
	else if (d->ratio >= 0.5 && d->ratio < 2)
		snprintf(buf, len, "%+.1f%%", (d->ratio - 1) * 100);
	else
		snprintf(buf, len, "%.2fx", d->ratio);
}

void compare_fmt_delta(char *buf, size_t len, const struct compare_delta *d)
{
	char verdict[32];

	compare_fmt_verdict(verdict, sizeof(verdict), d);
	if (!d->valid)
		snprintf(buf, len, "%s", verdict);
	else if (d->too_few)
		snprintf(buf, len, "%s (n=%zu+%zu: too few samples)", verdict,
			 d->n1, d->n2);
	else
		snprintf(buf, len, "%s (p=%.3f n=%zu+%zu)", verdict, d->p,
			 d->n1, d->n2);
}

/* A host's reason, unless it only names its state ("interrupted"). */
static const char *host_reason(const struct archive_host *h)
{
	return h->reason && strcmp(h->reason, h->status) ? h->reason : NULL;
}

/* The host names of a column: "spark" or "local,spark". */
static void column_hosts(const struct compare_column *col, char *buf,
			 size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (col->host) {
		snprintf(buf, len, "%s", col->host->name);
		return;
	}
	for (int i = 0; i < col->run->nhosts && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? "," : "", col->run->hosts[i].name);
}

/* Adds a cell made terminal-safe (the archive is outside input). */
static void safe_cell(struct texttable *tt, const char *text)
{
	char safe[640];

	texttable_cell(tt, bf_text_sanitize(safe, sizeof(safe), text));
}

static void print_legend(FILE *out, const struct compare_table *t)
{
	struct texttable *tt = texttable_new(2);

	for (int k = 0; k < 5; k++)
		texttable_add_column(tt, "", TEXTTABLE_LEFT);
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];
		const struct archive_run *run = col->run;
		char hosts[512], status[1024];
		size_t off;

		column_hosts(col, hosts, sizeof(hosts));
		off = (size_t)snprintf(status, sizeof(status), "%s", run->status);
		if (run->reason && off < sizeof(status))
			off += (size_t)snprintf(status + off, sizeof(status) - off,
						": %s", run->reason);
		if (col->host && strcmp(col->host->status, BF_RUN_HOST_DONE) != 0 &&
		    strcmp(col->host->status, "n/a") != 0 && off < sizeof(status))
			off += (size_t)snprintf(status + off, sizeof(status) - off,
						" (%s %s%s%s)", col->host->name,
						col->host->status,
						host_reason(col->host) ? ": " : "",
						host_reason(col->host) ? host_reason(col->host) : "");
		if (run->tag && off < sizeof(status))
			snprintf(status + off, sizeof(status) - off, "  tag: %s",
				 run->tag);
		texttable_add_row(tt);
		texttable_cell(tt, col->label);
		safe_cell(tt, run->run_json ? run->run_id : run->dir);
		safe_cell(tt, hosts);
		safe_cell(tt, run->started_at);
		safe_cell(tt, status);
	}
	texttable_print(tt, out);
	texttable_free(tt);
}

enum { CELL_LEN = 160 };

/* A bandwidth median's change from column A: "+2.6%", "n/a". */
static void fmt_bw_change(char *buf, size_t len, double a, double b)
{
	if (!(a > 0) || isnan(b))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.1f%%", 100.0 * (b - a) / a);
}

/* The bandwidth medians side by side, with each column's change from A
 * (medians only: the bandwidth records' samples are not tested). */
static void print_bandwidth(FILE *out, const struct compare_table *t)
{
	struct texttable *tt;
	char cell[CELL_LEN];

	if (t->nbw == 0)
		return;
	tt = texttable_new(2);
	if (t->by_host)
		texttable_add_column(tt, "host", TEXTTABLE_LEFT);
	texttable_add_column(tt, "device", TEXTTABLE_LEFT);
	texttable_add_column(tt, "kind", TEXTTABLE_LEFT);
	for (int c = 0; c < t->ncols; c++) {
		snprintf(cell, sizeof(cell), "%s GB/s", t->cols[c].label);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		if (c > 0) {
			snprintf(cell, sizeof(cell), "%s vs A", t->cols[c].label);
			texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		}
	}
	for (int i = 0; i < t->nbw; i++) {
		const struct compare_bw *b = &t->bw[i];

		texttable_add_row(tt);
		if (t->by_host)
			safe_cell(tt, b->host);
		safe_cell(tt, b->device);
		safe_cell(tt, b->kind);
		for (int c = 0; c < t->ncols; c++) {
			table_fmt(cell, sizeof(cell), b->gbps[c], 1);
			texttable_cell(tt, cell);
			if (c > 0) {
				fmt_bw_change(cell, sizeof(cell), b->gbps[0], b->gbps[c]);
				texttable_cell(tt, cell);
			}
		}
	}
	fprintf(out, "\nbandwidth (median GB/s; vs A: change of the median, not tested):\n");
	texttable_print(tt, out);
	texttable_free(tt);
}

/* What vs ref means, and each cell below its reference with what it was
 * measured against. */
static void print_references(FILE *out, const struct compare_table *t,
			     int nbelow)
{
	char safe[CELL_LEN], ref[320];

	fprintf(out, "vs ref: the median GFLOP/s as a share of a published "
		     "measurement of\nthe same product, dtype and n; !: below "
		     "reference (under %.0f%%).\n",
		100 * BF_REFERENCE_HEALTHY_FRACTION);
	if (nbelow == 0)
		return;
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cl = &r->cells[c];

			if (!cl->present || cl->status != BF_STATUS_PASS ||
			    cl->below_reference != 1)
				continue;
			bf_text_sanitize(safe, sizeof(safe), r->host);
			fprintf(out, "below reference: %s %s%s%s %s %d: %.0f%% "
				     "of %.1f GFLOP/s, ",
				t->cols[c].label, safe, safe[0] ? " " : "",
				r->device, r->dtype, r->n,
				100 * cl->fraction_of_reference,
				cl->reference_gflops);
			fprintf(out, "%s\n", bf_text_sanitize(ref, sizeof(ref),
							     cl->reference));
		}
	}
}

void compare_print_plain(FILE *out, const struct compare_table *t)
{
	struct texttable *tt = texttable_new(2);
	struct table_reasons unreliable, invalid;
	char cell[CELL_LEN];
	int any_too_few = 0, nunreliable = 0, with_ref = 0, nbelow = 0;

	memset(&unreliable, 0, sizeof(unreliable));
	memset(&invalid, 0, sizeof(invalid));
	/* vs ref only where some record has a published reference */
	for (int i = 0; i < t->nrows && !with_ref; i++)
		for (int c = 0; c < t->ncols; c++)
			with_ref |= t->rows[i].cells[c].reference_gflops > 0;
	if (t->by_host)
		texttable_add_column(tt, "host", TEXTTABLE_LEFT);
	texttable_add_column(tt, "device", TEXTTABLE_LEFT);
	texttable_add_column(tt, "dtype", TEXTTABLE_LEFT);
	texttable_add_column(tt, "n", TEXTTABLE_RIGHT);
	for (int c = 0; c < t->ncols; c++) {
		const char *l = t->cols[c].label;

		snprintf(cell, sizeof(cell), "%s GFLOP/s", l);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		snprintf(cell, sizeof(cell), "%s %%peak", l);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		if (with_ref) {
			snprintf(cell, sizeof(cell), "%s vs ref", l);
			texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		}
		snprintf(cell, sizeof(cell), "%s %%roof", l);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		snprintf(cell, sizeof(cell), "%s ms", l);
		texttable_add_column(tt, cell, TEXTTABLE_RIGHT);
		if (c > 0) {
			snprintf(cell, sizeof(cell), "%s vs A", l);
			texttable_add_column(tt, cell, TEXTTABLE_LEFT);
		}
	}
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		texttable_add_row(tt);
		if (t->by_host)
			safe_cell(tt, r->host);
		safe_cell(tt, r->device);
		safe_cell(tt, r->dtype);
		if (r->occurrence > 1)
			texttable_cellf(tt, "%d#%d", r->n, r->occurrence);
		else
			texttable_cellf(tt, "%d", r->n);
		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cl = &r->cells[c];

			compare_fmt_cell(cell, sizeof(cell), cl);
			texttable_cell(tt, cell);
			compare_fmt_peak(cell, sizeof(cell), cl);
			texttable_cell(tt, cell);
			if (with_ref) {
				compare_fmt_ref(cell, sizeof(cell), cl);
				texttable_cell(tt, cell);
			}
			nbelow += cl->present && cl->status == BF_STATUS_PASS &&
				  cl->below_reference == 1;
			compare_fmt_roof(cell, sizeof(cell), cl);
			texttable_cell(tt, cell);
			table_fmt(cell, sizeof(cell),
				  cl->present && cl->status == BF_STATUS_PASS ?
					  cl->median_ms : NAN,
				  3);
			texttable_cell(tt, cell);
			if (c > 0) {
				compare_fmt_delta(cell, sizeof(cell), &r->deltas[c]);
				texttable_cell(tt, cell);
				any_too_few |= r->deltas[c].valid &&
					       r->deltas[c].too_few;
			}
			if (cl->present && cl->status == BF_STATUS_PASS &&
			    cl->reliable == 0) {
				nunreliable++;
				table_reasons_add(&unreliable, cl->unreliable);
			}
			if (cl->present && cl->status == BF_STATUS_FAIL &&
			    strncmp(cl->reason, "invalid:", 8) == 0)
				table_reasons_add(&invalid, cl->reason + 8);
		}
	}
	print_legend(out, t);
	fputc('\n', out);
	if (t->nrows == 0)
		fprintf(out, "(no GEMM results in any column)\n");
	else
		texttable_print(tt, out);
	texttable_free(tt);
	fprintf(out, "\nGFLOP/s: higher is better; median ±spread (the larger distance of min or max\n"
		     "from the median). %%peak: of the device's rated peak. %%roof: of its\n"
		     "roofline, min(peak, FLOP/byte x measured bandwidth); M memory-, C compute-\n"
		     "bound. ms: median time per GEMM, lower is better. n#2: the second run of a\n"
		     "size the sweep repeats.\n");
	if (t->ncols > 1)
		fprintf(out, "vs A: change in median GFLOP/s from column A (+ is faster); ~: no significant\n"
			     "difference (two-sided Mann-Whitney U test on the per-iteration GFLOP/s,\n"
			     "p >= %.2f).\n", t->alpha);
	if (any_too_few)
		fprintf(out, "too few samples: with so few on either side no difference can reach\n"
			     "p < %.2f (4+4 is the least; 3+5 and 2+8 also do); measure more iterations.\n",
			t->alpha);
	if (nunreliable) {
		fprintf(out, "?: unreliable measurement (%d cell%s):", nunreliable,
			nunreliable == 1 ? "" : "s");
		for (int k = 0; k < unreliable.n; k++)
			fprintf(out, "%s %s (%d)", k ? ";" : "",
				bf_text_sanitize(cell, sizeof(cell), unreliable.text[k]),
				unreliable.count[k]);
		fputc('\n', out);
	}
	for (int k = 0; k < invalid.n; k++)
		fprintf(out, "invalid (no GFLOP/s): %s\n",
			bf_text_sanitize(cell, sizeof(cell), invalid.text[k]));
	if (with_ref)
		print_references(out, t, nbelow);
	print_bandwidth(out, t);
	if (t->nprov > 0) {
		struct texttable *pt = texttable_new(2);
		char key[200];

		fprintf(out, "\nprovenance differences:\n");
		texttable_add_column(pt, "", TEXTTABLE_LEFT);
		for (int c = 0; c < t->ncols; c++)
			texttable_add_column(pt, "", TEXTTABLE_LEFT);
		for (int i = 0; i < t->nprov; i++) {
			const struct compare_prov *p = &t->prov[i];

			texttable_add_row(pt);
			snprintf(key, sizeof(key), "  %s%s%s", p->host,
				 p->host[0] ? ": " : "", p->key);
			safe_cell(pt, key);
			for (int c = 0; c < t->ncols; c++) {
				char *v = bf_xasprintf("%s %s", t->cols[c].label,
						       p->values[c] ? p->values[c] : "n/a");

				safe_cell(pt, v);
				free(v);
			}
		}
		texttable_print(pt, out);
		texttable_free(pt);
	}
	fflush(out);
}

/* --- CSV ------------------------------------------------------------- */

/* RFC 4180: quote a field holding a comma, quote or newline. */
static void csv_field(FILE *out, const char *s, int last)
{
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

static void csv_num(FILE *out, double v)
{
	char buf[48];

	if (isnan(v))
		snprintf(buf, sizeof(buf), "n/a");
	else
		snprintf(buf, sizeof(buf), "%.10g", v);
	csv_field(out, buf, 0);
}

void compare_print_csv(FILE *out, const struct compare_table *t)
{
	static const char *const header[] = {
		"host", "device", "dtype", "n", "column", "run_id", "status",
		"samples", "median_gflops", "min_gflops", "max_gflops",
		"spread_pct", "median_ms", "vs_first", "ratio", "p",
		"significant", "occurrence", "fraction_of_peak", "reliable",
		"unreliable_reasons", "roofline_gflops", "fraction_of_roofline",
		"bound", "reference_gflops", "fraction_of_reference",
		"below_reference",
	};
	const size_t nheader = sizeof(header) / sizeof(header[0]);

	for (size_t i = 0; i < nheader; i++)
		csv_field(out, header[i], i + 1 == nheader);
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cell = &r->cells[c];
			const struct compare_delta *d = &r->deltas[c];
			const struct compare_column *col = &t->cols[c];
			int pass = cell->present && cell->status == BF_STATUS_PASS;
			char buf[64];

			csv_field(out, t->by_host ? r->host :
				  col->host ? col->host->name :
				  col->run->nhosts ? col->run->hosts[0].name : "n/a", 0);
			csv_field(out, r->device, 0);
			csv_field(out, r->dtype, 0);
			snprintf(buf, sizeof(buf), "%d", r->n);
			csv_field(out, buf, 0);
			csv_field(out, col->label, 0);
			csv_field(out, col->run->run_id, 0);
			csv_field(out, cell->present ? bf_schema_status_name(cell->status) :
						       "n/a", 0);
			snprintf(buf, sizeof(buf), "%zu", cell->nsamples);
			csv_field(out, buf, 0);
			csv_num(out, pass ? cell->median_gflops : NAN);
			csv_num(out, pass ? cell->min_gflops : NAN);
			csv_num(out, pass ? cell->max_gflops : NAN);
			csv_num(out, pass ? cell->spread_pct : NAN);
			csv_num(out, pass ? cell->median_ms : NAN);
			if (c == 0) {
				csv_field(out, "n/a", 0);
				csv_num(out, NAN);
				csv_num(out, NAN);
				csv_field(out, "n/a", 0);
			} else {
				compare_fmt_verdict(buf, sizeof(buf), d);
				csv_field(out, buf, 0);
				csv_num(out, d->ratio);
				csv_num(out, d->p);
				csv_field(out, !d->valid ? "n/a" :
					       d->significant ? "yes" : "no", 0);
			}
			snprintf(buf, sizeof(buf), "%d", r->occurrence);
			csv_field(out, buf, 0);
			csv_num(out, pass ? cell->fraction_of_peak : NAN);
			csv_field(out, !cell->present || cell->reliable < 0 ? "n/a" :
				       cell->reliable ? "yes" : "no", 0);
			csv_field(out, cell->unreliable[0] ? cell->unreliable : "n/a", 0);
			csv_num(out, cell->present ? cell->roofline_gflops : NAN);
			csv_num(out, pass ? cell->fraction_of_roofline : NAN);
			csv_field(out, cell->present && cell->bound[0] ? cell->bound :
								 "n/a", 0);
			csv_num(out, cell->present ? cell->reference_gflops : NAN);
			csv_num(out, pass ? cell->fraction_of_reference : NAN);
			csv_field(out, !pass || cell->below_reference < 0 ? "n/a" :
				       cell->below_reference ? "yes" : "no", 1);
		}
	}
	fflush(out);
}

/* --- JSON ------------------------------------------------------------ */

static void add_num_or_null(cJSON *o, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static void add_str_or_null(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void json_columns(cJSON *doc, const struct compare_table *t)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, CMP_KEY_COLUMNS);

	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];
		const struct archive_run *run = col->run;
		cJSON *o = cJSON_CreateObject(), *hosts;

		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, CMP_KEY_LABEL, col->label);
		cJSON_AddStringToObject(o, CMP_KEY_RUN_ID, run->run_id);
		cJSON_AddStringToObject(o, CMP_KEY_PATH, run->dir);
		add_str_or_null(o, CMP_KEY_HOST, col->host ? col->host->name : NULL);
		hosts = cJSON_AddArrayToObject(o, CMP_KEY_HOSTS);
		for (int i = 0; i < run->nhosts; i++)
			if (!col->host || col->host == &run->hosts[i])
				cJSON_AddItemToArray(hosts, cJSON_CreateString(
								    run->hosts[i].name));
		add_str_or_null(o, CMP_KEY_STARTED_AT,
				strcmp(run->started_at, "n/a") ? run->started_at : NULL);
		cJSON_AddStringToObject(o, CMP_KEY_STATUS, run->status);
		add_str_or_null(o, CMP_KEY_REASON, run->reason);
		add_str_or_null(o, CMP_KEY_TAG, run->tag);
	}
}

static cJSON *json_cell(const struct compare_cell *cell,
			const struct compare_delta *d, int first)
{
	cJSON *o = cJSON_CreateObject(), *vs;
	int pass = cell->present && cell->status == BF_STATUS_PASS;
	char text[64];

	add_str_or_null(o, CMP_KEY_STATUS, cell->present ?
				   bf_schema_status_name(cell->status) : NULL);
	add_str_or_null(o, CMP_KEY_REASON, cell->reason[0] ? cell->reason : NULL);
	cJSON_AddNumberToObject(o, CMP_KEY_SAMPLES, (double)cell->nsamples);
	add_num_or_null(o, CMP_KEY_MEDIAN_GFLOPS, pass ? cell->median_gflops : NAN);
	add_num_or_null(o, CMP_KEY_MIN_GFLOPS, pass ? cell->min_gflops : NAN);
	add_num_or_null(o, CMP_KEY_MAX_GFLOPS, pass ? cell->max_gflops : NAN);
	add_num_or_null(o, CMP_KEY_SPREAD_PCT, pass ? cell->spread_pct : NAN);
	add_num_or_null(o, CMP_KEY_MEDIAN_MS, pass ? cell->median_ms : NAN);
	add_num_or_null(o, CMP_KEY_PEAK_GFLOPS, cell->present ? cell->peak_gflops : NAN);
	add_num_or_null(o, CMP_KEY_FRACTION_OF_PEAK, pass ? cell->fraction_of_peak : NAN);
	add_num_or_null(o, CMP_KEY_ROOFLINE_GFLOPS,
			cell->present ? cell->roofline_gflops : NAN);
	add_num_or_null(o, CMP_KEY_FRACTION_OF_ROOFLINE,
			pass ? cell->fraction_of_roofline : NAN);
	add_str_or_null(o, CMP_KEY_BOUND, cell->present && cell->bound[0] ?
						  cell->bound : NULL);
	add_num_or_null(o, CMP_KEY_REFERENCE_GFLOPS,
			cell->present ? cell->reference_gflops : NAN);
	add_num_or_null(o, CMP_KEY_FRACTION_OF_REFERENCE,
			pass ? cell->fraction_of_reference : NAN);
	if (!pass || cell->below_reference < 0)
		cJSON_AddNullToObject(o, CMP_KEY_BELOW_REFERENCE);
	else
		cJSON_AddBoolToObject(o, CMP_KEY_BELOW_REFERENCE,
				      cell->below_reference);
	if (!cell->present || cell->reliable < 0)
		cJSON_AddNullToObject(o, CMP_KEY_RELIABLE);
	else
		cJSON_AddBoolToObject(o, CMP_KEY_RELIABLE, cell->reliable);
	{
		cJSON *reasons = cJSON_AddArrayToObject(o, CMP_KEY_UNRELIABLE_REASONS);
		char copy[160], *save = NULL;

		snprintf(copy, sizeof(copy), "%s", cell->unreliable);
		for (char *tok = strtok_r(copy, ";", &save); tok;
		     tok = strtok_r(NULL, ";", &save)) {
			while (*tok == ' ')
				tok++;
			if (*tok)
				cJSON_AddItemToArray(reasons, cJSON_CreateString(tok));
		}
	}
	if (first || !d->valid) {
		cJSON_AddNullToObject(o, CMP_KEY_VS_FIRST);
		return o;
	}
	vs = cJSON_AddObjectToObject(o, CMP_KEY_VS_FIRST);
	add_num_or_null(vs, CMP_KEY_RATIO, d->ratio);
	add_num_or_null(vs, CMP_KEY_P, d->p);
	cJSON_AddBoolToObject(vs, CMP_KEY_SIGNIFICANT, d->significant);
	cJSON_AddBoolToObject(vs, CMP_KEY_TOO_FEW, d->too_few);
	compare_fmt_verdict(text, sizeof(text), d);
	cJSON_AddStringToObject(vs, CMP_KEY_TEXT, text);
	return o;
}

cJSON *compare_to_json(const struct compare_table *t)
{
	cJSON *doc = cJSON_CreateObject(), *better, *rows, *prov, *bw;

	cJSON_AddNumberToObject(doc, CMP_KEY_ALPHA, t->alpha);
	cJSON_AddStringToObject(doc, CMP_KEY_TEST,
				"Mann-Whitney U, two-sided, per-iteration GFLOP/s");
	better = cJSON_AddObjectToObject(doc, CMP_KEY_BETTER);
	cJSON_AddStringToObject(better, CMP_KEY_MEDIAN_GFLOPS, "higher");
	cJSON_AddStringToObject(better, CMP_KEY_MEDIAN_MS, "lower");
	json_columns(doc, t);
	rows = cJSON_AddArrayToObject(doc, CMP_KEY_ROWS);
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];
		cJSON *o = cJSON_CreateObject(), *cells;

		cJSON_AddItemToArray(rows, o);
		add_str_or_null(o, CMP_KEY_HOST, t->by_host ? r->host : NULL);
		cJSON_AddStringToObject(o, CMP_KEY_DEVICE, r->device);
		cJSON_AddStringToObject(o, CMP_KEY_DTYPE, r->dtype);
		cJSON_AddNumberToObject(o, CMP_KEY_N, r->n);
		cJSON_AddNumberToObject(o, CMP_KEY_OCCURRENCE, r->occurrence);
		cells = cJSON_AddArrayToObject(o, CMP_KEY_CELLS);
		for (int c = 0; c < t->ncols; c++)
			cJSON_AddItemToArray(cells, json_cell(&r->cells[c],
							      &r->deltas[c], c == 0));
	}
	bw = cJSON_AddArrayToObject(doc, CMP_KEY_BANDWIDTH);
	for (int i = 0; i < t->nbw; i++) {
		const struct compare_bw *b = &t->bw[i];
		cJSON *o = cJSON_CreateObject(), *vals, *vs;

		cJSON_AddItemToArray(bw, o);
		add_str_or_null(o, CMP_KEY_HOST, t->by_host ? b->host : NULL);
		cJSON_AddStringToObject(o, CMP_KEY_DEVICE, b->device);
		cJSON_AddStringToObject(o, CMP_KEY_KIND, b->kind);
		vals = cJSON_AddArrayToObject(o, CMP_KEY_MEDIAN_GBPS);
		vs = cJSON_AddArrayToObject(o, CMP_KEY_VS_FIRST);
		for (int c = 0; c < t->ncols; c++) {
			double r = c > 0 && b->gbps[0] > 0 ? b->gbps[c] / b->gbps[0] : NAN;

			cJSON_AddItemToArray(vals, isnan(b->gbps[c]) ? cJSON_CreateNull() :
					     cJSON_CreateNumber(b->gbps[c]));
			cJSON_AddItemToArray(vs, isnan(r) ? cJSON_CreateNull() :
					     cJSON_CreateNumber(r));
		}
	}
	prov = cJSON_AddArrayToObject(doc, CMP_KEY_PROVENANCE);
	for (int i = 0; i < t->nprov; i++) {
		const struct compare_prov *p = &t->prov[i];
		cJSON *o = cJSON_CreateObject(), *vals;

		cJSON_AddItemToArray(prov, o);
		add_str_or_null(o, CMP_KEY_HOST, p->host[0] ? p->host : NULL);
		cJSON_AddStringToObject(o, CMP_KEY_KEY, p->key);
		vals = cJSON_AddArrayToObject(o, CMP_KEY_VALUES);
		for (int c = 0; c < t->ncols; c++)
			cJSON_AddItemToArray(vals, p->values[c] ?
						     cJSON_CreateString(p->values[c]) :
						     cJSON_CreateNull());
	}
	return doc;
}

void compare_csv_field(FILE *out, const char *s, int last)
{
	csv_field(out, s, last);
}
