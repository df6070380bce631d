/*
 * The comparison of archived runs (ctl compare, ctl report): rows matched
 * across columns, each change's significance (Mann-Whitney U), bandwidth
 * side by side and the provenance that differs; see compare.h. How it is
 * printed is view/compare_text.c's and view/compare_export.c's.
 */
#include "model/compare.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bf_text.h"
#include "model/model.h"
#include "stats.h"
#include "xmalloc.h"

/* --- building -------------------------------------------------------- */

static struct compare_row *find_or_add_row(struct compare_table *t,
					   const char *host, const char *device,
					   enum bf_dtype dtype, int n,
					   int occurrence)
{
	struct compare_row *r;

	for (int i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		if (r->n == n && r->occurrence == occurrence &&
		    r->dtype == dtype && strcmp(r->host, host) == 0 &&
		    strcmp(r->device, device) == 0)
			return r;
	}
	t->rows = bf_xrealloc(t->rows, (size_t)(t->nrows + 1) * sizeof(*t->rows));
	r = &t->rows[t->nrows++];
	memset(r, 0, sizeof(*r));
	r->host = bf_xstrdup(host);
	r->device = bf_xstrdup(device);
	r->dtype = dtype;
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
		cell->gflop_per_joule = cell->watts = NAN;
		cell->roofline_gflops = cell->fraction_of_roofline = NAN;
		cell->reliable = -1;
		cell->reason = bf_xstrdup("");
		cell->reference = bf_xstrdup("");
		cell->unreliable = bf_xstrdup("");
	}
	return r;
}

/* Replaces the owned text *field with a copy of s ("" for NULL). */
static void set_text(char **field, const char *s)
{
	free(*field);
	*field = bf_xstrdup(s ? s : "");
}

/* Appends reason to the owned "; "-joined list *list. */
static void join_reason(char **list, const char *reason)
{
	char *more = bf_xasprintf("%s%s%s", *list, **list ? "; " : "", reason);

	free(*list);
	*list = more;
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
	set_text(&c->reason, g->reason);
	c->reliable = g->reliable;
	set_text(&c->unreliable, "");
	for (int i = 0; i < g->nunreliable; i++)
		join_reason(&c->unreliable, g->unreliable_reasons[i] ?
						    g->unreliable_reasons[i] : "?");
	c->peak_gflops = g->peak_gflops;
	c->peak_derived = g->peak_method &&
			  strcmp(g->peak_method, "derived") == 0;
	c->gflop_per_joule = g->gflop_per_joule;
	c->watts = g->energy_w;
	if (g->measured && g->nsamples > 0) {
		size_t cap = (size_t)g->nsamples;

		ms = bf_xmalloc(cap * sizeof(*ms));
		c->gflops = bf_xmalloc(cap * sizeof(*c->gflops));
		for (int i = 0; i < g->nsamples; i++) {
			if (!(g->samples_ms[i] > 0)) /* NaN (null) or <= 0 */
				continue;
			ms[k] = g->samples_ms[i];
			c->gflops[k] = bf_gemm_gflops(n, ms[k]);
			k++;
		}
	}
	c->nsamples = k;
	if (k > 0) {
		struct bf_stats_summary s = bf_stats_summarize(c->gflops, k);
		struct bf_stats_summary t = bf_stats_summarize(ms, k);

		c->median_gflops = s.median;
		c->min_gflops = s.min;
		c->max_gflops = s.max;
		/* The agent's spread (bf_stats_spread, of the times), so that
		 * a cell and the reason it is unreliable give one figure; one
		 * sample has none, not a confident 0%. */
		c->spread_pct = k < 2 ? NAN :
			100 * bf_stats_spread(t.median, t.min, t.max);
		c->median_ms = t.median;
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
	set_text(&c->reference, g->reference_source);
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
	/* fits: "memory" or "compute", the schema's enum for "bound"
	 * (bf_schema_parse_record refuses any other), in 8 bytes */
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
			e->host = bf_xstrdup(host);
			e->device = bf_xstrdup(b->device);
			/* fits: the schema's enum for a bandwidth "kind"
			 * (bf_schema_parse_record refuses any other), 12
			 * bytes at most ("h2d_pageable"), in 16 */
			snprintf(e->kind, sizeof(e->kind), "%s", b->kind);
			e->gbps = bf_xcalloc((size_t)t->ncols, sizeof(*e->gbps));
			for (int c = 0; c < t->ncols; c++)
				e->gbps[c] = NAN;
		}
		e->gbps[col] = b->median_gbps;
	}
}

/* A cell measured at the same time as another host of its machine
 * (run.json's same_machine_at_once): unreliable, as ctl run's tables
 * said (MODEL_SHARED_REASON). */
static void mark_shared(struct compare_cell *c)
{
	c->reliable = 0;
	join_reason(&c->unreliable, MODEL_SHARED_REASON);
}

static void add_host_rows(struct compare_table *t, int col,
			  const struct archive_host *h)
{
	add_host_bandwidth(t, col, h);
	for (int i = 0; i < h->nrecords; i++) {
		const struct bf_rec_gemm *g = &h->records[i].u.gemm;
		struct compare_row *r;
		enum bf_dtype dt, odt;
		int occurrence = 1;

		/* A dtype this ctl does not know: the reader refuses such a
		 * record (docs/schema.json lists the enum's), so none here. */
		if (h->records[i].type != BF_REC_GEMM || !g->device ||
		    !g->dtype || bf_dtype_parse(g->dtype, &dt) != 0 ||
		    !(g->n >= 1 && g->n <= 1000000000))
			continue;
		/* A repeated size: the k-th record of (device, dtype, n) in
		 * this host's file is occurrence k. */
		for (int j = 0; j < i; j++) {
			const struct bf_rec_gemm *o = &h->records[j].u.gemm;

			occurrence += h->records[j].type == BF_REC_GEMM &&
				      o->device && o->dtype && o->n == g->n &&
				      strcmp(o->device, g->device) == 0 &&
				      bf_dtype_parse(o->dtype, &odt) == 0 &&
				      odt == dt;
		}
		r = find_or_add_row(t, t->by_host ? h->name : "", g->device,
				    dt, g->n, occurrence);
		fill_cell(&r->cells[col], g);
		if (h->same_machine_at_once)
			mark_shared(&r->cells[col]);
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

/* First-seen rank of a row's host, device and dtype, for sorting. */
struct row_key {
	int host, device, dtype, n, occurrence, index;
};

/* The first of rows [0, upto) whose host (device: 0) or device
 * (device: 1) is value, or upto. */
static int first_seen(const struct compare_table *t, int upto, int device,
		      const char *value)
{
	for (int i = 0; i < upto; i++)
		if (strcmp(device ? t->rows[i].device : t->rows[i].host,
			   value) == 0)
			return i;
	return upto;
}

/* The first of rows [0, upto) with dtype dt, or upto. */
static int dtype_first_seen(const struct compare_table *t, int upto,
			    enum bf_dtype dt)
{
	for (int i = 0; i < upto; i++)
		if (t->rows[i].dtype == dt)
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

		keys[i].host = first_seen(t, i, 0, r->host);
		keys[i].device = first_seen(t, i, 1, r->device);
		keys[i].dtype = dtype_first_seen(t, i, r->dtype);
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
		/* fits: one letter A..Z (ncols <= 26) in 4 bytes */
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
	compare_add_provenance(t);
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
		free(t->prov[i].host);
		free(t->prov[i].key);
	}
	free(t->prov);
	for (int i = 0; i < t->nbw; i++) {
		free(t->bw[i].gbps);
		free(t->bw[i].host);
		free(t->bw[i].device);
	}
	free(t->bw);
	for (int i = 0; i < t->nrows; i++) {
		for (int c = 0; c < t->ncols; c++) {
			struct compare_cell *cell = &t->rows[i].cells[c];

			free(cell->gflops);
			free(cell->reason);
			free(cell->reference);
			free(cell->unreliable);
		}
		free(t->rows[i].cells);
		free(t->rows[i].deltas);
		free(t->rows[i].host);
		free(t->rows[i].device);
	}
	free(t->rows);
	free(t->cols);
	free(t);
}

int compare_is_regression(const struct compare_delta *d, double pct)
{
	return d->valid && d->significant && d->ratio < 1 - pct / 100;
}

int compare_column_hosts(const struct compare_column *col,
			 const struct archive_host **out, int cap)
{
	int n = 0;

	for (int h = 0; h < col->run->nhosts && n < cap; h++)
		if (!col->host || col->host == &col->run->hosts[h])
			out[n++] = &col->run->hosts[h];
	return n;
}

void compare_set_verdicts(struct compare_table *t,
			  const struct archive_run *const *runs,
			  const struct verdict_run *vrs, int nruns)
{
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];
		const struct verdict_run *vr = NULL;
		const char *host;

		for (int k = 0; k < nruns && !vr; k++)
			if (runs[k] == col->run)
				vr = &vrs[k];
		if (!vr)
			continue;
		host = col->host ? col->host->name :
		       col->run->nhosts ? col->run->hosts[0].name : NULL;
		for (int i = 0; i < t->nrows; i++) {
			const struct compare_row *r = &t->rows[i];
			int k = verdict_run_find(vr, t->by_host ? r->host : host,
						 r->device,
						 bf_dtype_name(r->dtype), r->n,
						 r->occurrence);

			r->cells[c].verdict =
				k >= 0 && vr->out[k].kind != VERDICT_NONE ?
					&vr->out[k] : NULL;
		}
	}
}
