/* The comparison table of ctl compare; see compare.h. */
#include "compare.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "stats.h"
#include "table.h"
#include "xmalloc.h"

/* --- building -------------------------------------------------------- */

static struct compare_row *find_or_add_row(struct compare_table *t,
					   const char *host, const char *device,
					   const char *dtype, int n)
{
	struct compare_row *r;

	for (int i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		if (r->n == n && strcmp(r->host, host) == 0 &&
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
	r->cells = bf_xcalloc((size_t)t->ncols, sizeof(*r->cells));
	r->deltas = bf_xcalloc((size_t)t->ncols, sizeof(*r->deltas));
	for (int c = 0; c < t->ncols; c++) {
		struct compare_cell *cell = &r->cells[c];

		cell->median_gflops = cell->min_gflops = cell->max_gflops = NAN;
		cell->spread_pct = cell->median_ms = NAN;
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
		c->spread_pct = fmax(s.median - s.min, s.max - s.median) /
				s.median * 100;
		c->median_ms = bf_stats_median(ms, k);
	} else {
		c->median_gflops = g->gflops;
		c->median_ms = g->median_ms;
		c->min_gflops = c->max_gflops = c->spread_pct = NAN;
	}
	free(ms);
}

static void add_host_rows(struct compare_table *t, int col,
			  const struct archive_host *h)
{
	for (int i = 0; i < h->nrecords; i++) {
		const struct bf_rec_gemm *g = &h->records[i].u.gemm;
		struct compare_row *r;

		if (h->records[i].type != BF_REC_GEMM || !g->device ||
		    !g->dtype || !(g->n >= 1 && g->n <= 1000000000))
			continue;
		r = find_or_add_row(t, t->by_host ? h->name : "", g->device,
				    g->dtype, g->n);
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
	{ BF_KEY_CUDA, BF_KEY_DRIVER_VERSION, p_driver },
	{ BF_KEY_CUDA, BF_KEY_RUNTIME_VERSION, p_runtime },
	{ BF_KEY_CUDA, BF_KEY_CUBLAS_VERSION, p_cublas },
	{ NULL, BF_KEY_GPUS, p_gpus },
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
static const struct archive_host *column_host(const struct compare_table *t,
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

static void add_provenance_for(struct compare_table *t, const char *name)
{
	char **values = bf_xcalloc((size_t)t->ncols, sizeof(*values));

	for (size_t i = 0; i < NPROV_ITEMS; i++) {
		const struct prov_item *it = &prov_items[i];
		int present = 0, differs = 0, first = -1;

		for (int c = 0; c < t->ncols; c++) {
			const struct archive_host *h = column_host(t, c, name);

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
				seen = column_host(t, k, name) != NULL;
			for (int k = 0; k < i && !seen; k++)
				seen = strcmp(run->hosts[k].name, name) == 0;
			if (!seen)
				add_provenance_for(t, name);
		}
	}
}

/* First-seen rank of a row's host, device and dtype, for sorting. */
struct row_key {
	int host, device, dtype, n, index;
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
			 c->status == BF_STATUS_FAIL ? "FAIL" : "skipped");
		return;
	}
	compare_fmt_gflops(num, sizeof(num), c->median_gflops);
	if (isnan(c->spread_pct))
		snprintf(buf, len, "%s", num);
	else if (c->spread_pct >= 1)
		snprintf(buf, len, "%s ±%.0f%%", num, c->spread_pct);
	else
		snprintf(buf, len, "%s ±%.1f%%", num, c->spread_pct);
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

/* Columns on screen, not bytes: "±" is two bytes of UTF-8. */
static int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void pad(FILE *out, const char *s, int width, int right)
{
	int fill = width - text_width(s);

	if (right)
		fprintf(out, "%*s%s", fill > 0 ? fill : 0, "", s);
	else
		fprintf(out, "%s%*s", s, fill > 0 ? fill : 0, "");
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

static void print_legend(FILE *out, const struct compare_table *t)
{
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];
		const struct archive_run *run = col->run;
		char hosts[512];

		column_hosts(col, hosts, sizeof(hosts));
		fprintf(out, "%s  %s  %s  %s  %s", col->label,
			run->run_json ? run->run_id : run->dir, hosts,
			run->started_at, run->status);
		if (run->reason)
			fprintf(out, ": %s", run->reason);
		if (col->host && strcmp(col->host->status, BF_RUN_HOST_DONE) != 0 &&
		    strcmp(col->host->status, "n/a") != 0)
			fprintf(out, " (%s %s%s%s)", col->host->name,
				col->host->status,
				col->host->reason ? ": " : "",
				col->host->reason ? col->host->reason : "");
		if (run->tag)
			fprintf(out, "  tag: %s", run->tag);
		fputc('\n', out);
	}
}

enum { CELL_LEN = 160 };

void compare_print_plain(FILE *out, const struct compare_table *t)
{
	int nfixed = t->by_host ? 4 : 3;
	int ncolumns = nfixed + 3 * t->ncols - 1;
	char(*cells)[CELL_LEN];
	int *width, *right, any_too_few = 0;

	cells = bf_xcalloc((size_t)(t->nrows + 1) * (size_t)ncolumns, CELL_LEN);
	width = bf_xcalloc((size_t)ncolumns, sizeof(*width));
	right = bf_xcalloc((size_t)ncolumns, sizeof(*right));
#define CELL(r, k) cells[(size_t)(r) * (size_t)ncolumns + (size_t)(k)]
	/* Header, row 0. */
	{
		int k = 0;

		if (t->by_host)
			snprintf(CELL(0, k++), CELL_LEN, "host");
		snprintf(CELL(0, k++), CELL_LEN, "device");
		snprintf(CELL(0, k++), CELL_LEN, "dtype");
		right[k] = 1;
		snprintf(CELL(0, k++), CELL_LEN, "n");
		for (int c = 0; c < t->ncols; c++) {
			const char *l = t->cols[c].label;

			right[k] = 1;
			snprintf(CELL(0, k++), CELL_LEN, "%s GFLOP/s", l);
			right[k] = 1;
			snprintf(CELL(0, k++), CELL_LEN, "%s ms", l);
			if (c > 0)
				snprintf(CELL(0, k++), CELL_LEN, "%s vs A", l);
		}
	}
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];
		int k = 0;

		if (t->by_host)
			snprintf(CELL(i + 1, k++), CELL_LEN, "%s", r->host);
		snprintf(CELL(i + 1, k++), CELL_LEN, "%s", r->device);
		snprintf(CELL(i + 1, k++), CELL_LEN, "%s", r->dtype);
		snprintf(CELL(i + 1, k++), CELL_LEN, "%d", r->n);
		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cell = &r->cells[c];

			compare_fmt_cell(CELL(i + 1, k++), CELL_LEN, cell);
			table_fmt(CELL(i + 1, k++), CELL_LEN,
				  cell->present && cell->status == BF_STATUS_PASS ?
					  cell->median_ms : NAN,
				  3);
			if (c > 0) {
				compare_fmt_delta(CELL(i + 1, k++), CELL_LEN,
						  &r->deltas[c]);
				any_too_few |= r->deltas[c].valid &&
					       r->deltas[c].too_few;
			}
		}
	}
	for (int i = 0; i <= t->nrows; i++)
		for (int k = 0; k < ncolumns; k++)
			if (text_width(CELL(i, k)) > width[k])
				width[k] = text_width(CELL(i, k));

	print_legend(out, t);
	fputc('\n', out);
	for (int i = 0; i <= t->nrows; i++) {
		for (int k = 0; k < ncolumns; k++) {
			if (k)
				fputs("  ", out);
			/* No trailing blanks after the last column. */
			if (k == ncolumns - 1 && !right[k])
				fputs(CELL(i, k), out);
			else
				pad(out, CELL(i, k), width[k], right[k]);
		}
		fputc('\n', out);
	}
	if (t->nrows == 0)
		fprintf(out, "(no GEMM results in any column)\n");
#undef CELL
	fprintf(out, "\nGFLOP/s: higher is better; median ±spread (the larger distance of min or max\n"
		     "from the median). ms: median time per GEMM, lower is better.\n");
	if (t->ncols > 1)
		fprintf(out, "vs A: change in median GFLOP/s from column A (+ is faster); ~: no significant\n"
			     "difference (two-sided Mann-Whitney U test on the per-iteration GFLOP/s,\n"
			     "p >= %.2f).\n", t->alpha);
	if (any_too_few)
		fprintf(out, "too few samples: with so few on either side no difference can reach\n"
			     "p < %.2f (4+4 is the least; 3+5 and 2+8 also do); measure more iterations.\n",
			t->alpha);
	if (t->nprov > 0) {
		int kw = 0;

		fprintf(out, "\nprovenance differences:\n");
		for (int i = 0; i < t->nprov; i++) {
			int w = text_width(t->prov[i].key) +
				(t->prov[i].host[0] ?
					 text_width(t->prov[i].host) + 2 : 0);

			if (w > kw)
				kw = w;
		}
		for (int i = 0; i < t->nprov; i++) {
			const struct compare_prov *p = &t->prov[i];
			char key[200];

			snprintf(key, sizeof(key), "%s%s%s", p->host,
				 p->host[0] ? ": " : "", p->key);
			fputs("  ", out);
			pad(out, key, kw, 0);
			for (int c = 0; c < t->ncols; c++)
				fprintf(out, "  %s %s", t->cols[c].label,
					p->values[c] ? p->values[c] : "n/a");
			fputc('\n', out);
		}
	}
	free(right);
	free(width);
	free(cells);
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
		"significant",
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
				csv_field(out, "n/a", 1);
				continue;
			}
			compare_fmt_verdict(buf, sizeof(buf), d);
			csv_field(out, buf, 0);
			csv_num(out, d->ratio);
			csv_num(out, d->p);
			csv_field(out, !d->valid ? "n/a" :
				       d->significant ? "yes" : "no", 1);
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
	cJSON *doc = cJSON_CreateObject(), *better, *rows, *prov;

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
		cells = cJSON_AddArrayToObject(o, CMP_KEY_CELLS);
		for (int c = 0; c < t->ncols; c++)
			cJSON_AddItemToArray(cells, json_cell(&r->cells[c],
							      &r->deltas[c], c == 0));
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
