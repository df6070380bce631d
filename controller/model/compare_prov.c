/*
 * The provenance of a comparison (compare.h, compare_add_provenance):
 * what differs between the columns that can explain a speed change. Who
 * ran (hostname, host key, CPU), the libraries and their configuration,
 * the GPUs, the agent build and the sweep's settings; the recorded
 * environment; and the peaks and references the fractions divide by (a
 * %peak or vs ref that moved because its divisor changed is a
 * configuration change, not a speed change).
 */
#include "model/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "record.h"
#include "xmalloc.h"

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

/* Appends a provenance row (takes ownership of key and values) when at
 * least two columns have the host and their values differ; else frees
 * them. The key is whole: it tells the rows apart (issue 28). */
static void add_prov(struct compare_table *t, const char *name,
		     char *key, char **values, int present, int differs)
{
	struct compare_prov *p;

	if (present < 2 || !differs) {
		for (int c = 0; c < t->ncols; c++)
			free(values[c]);
		free(values);
		free(key);
		return;
	}
	t->prov = bf_xrealloc(t->prov, (size_t)(t->nprov + 1) * sizeof(*t->prov));
	p = &t->prov[t->nprov++];
	memset(p, 0, sizeof(*p));
	p->host = bf_xstrdup(name ? name : "");
	p->key = key;
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
		const struct archive_host *h = column_host(t, c, name);
		const struct bf_rec_host *r = h ? h->host_record : NULL;

		for (int i = 0; r && i < r->nenv; i++) {
			const char *var = r->env[i].name;
			char **values;
			int seen = 0, present = 0, differs = 0, first = -1;

			if (!var)
				continue;
			for (int k = 0; k < c && !seen; k++) {
				const struct archive_host *o = column_host(t, k, name);

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
				const struct archive_host *o = column_host(t, k, name);

				if (!o)
					continue;
				values[k] = env_value(o, var);
				present++;
				if (first < 0)
					first = k;
				else if (!same_text(values[first], values[k]))
					differs = 1;
			}
			add_prov(t, name, bf_xasprintf("env.%s", var), values,
				 present, differs);
		}
	}
}

/* The first measured gemm record of h for device and dtype (and n when
 * n > 0) that carries a peak (n == 0) or a reference (n > 0); NULL. */
static const struct bf_rec_gemm *find_gemm(const struct archive_host *h,
					   const char *device,
					   const char *dtype, int n)
{
	for (int i = 0; h && i < h->nrecords; i++) {
		const struct bf_rec_gemm *g = &h->records[i].u.gemm;

		if (h->records[i].type != BF_REC_GEMM || !g->measured ||
		    !g->device || !g->dtype || strcmp(g->device, device) != 0 ||
		    strcmp(g->dtype, dtype) != 0)
			continue;
		if (n == 0 && g->peak_basis)
			return g;
		if (n > 0 && g->n == n)
			return g;
	}
	return NULL;
}

/* A column's value for one key: the peak "236.5 GFLOP/s (probe)", the
 * reference "817.0 GFLOP/s: SOURCE" or "none"; NULL when the column has
 * no such record. Caller frees. */
static char *value_of(const struct archive_host *h, const char *device,
		      const char *dtype, int n)
{
	const struct bf_rec_gemm *g = find_gemm(h, device, dtype, n);

	if (!g)
		return NULL;
	if (n == 0)
		return isnan(g->peak_gflops) ?
			       bf_xasprintf("unknown (%s)",
					    g->peak_method ? g->peak_method :
							     "n/a") :
			       bf_xasprintf("%.1f GFLOP/s (%s)", g->peak_gflops,
					    g->peak_method ? g->peak_method :
							     "older agent");
	if (!g->reference_source)
		return bf_xstrdup("none");
	return bf_xasprintf("%.1f GFLOP/s: %s", g->reference_gflops,
			    g->reference_source);
}

/* A rated peak moves by up to this much between runs of one machine when
 * its clock is measured (a VM without cpufreq): 3.57 to 3.695 GHz (3.4 %)
 * on this project's VM, whose host clocks down when its other cores are
 * busy. A change below it is not a change of the peak. */
#define PEAK_SAME_REL 0.05

/* Whether two columns' peaks for a key are the same: same method, and
 * figures within PEAK_SAME_REL (both unknown counts as the same). */
static int same_peak(const struct bf_rec_gemm *a, const struct bf_rec_gemm *b)
{
	const char *ma = a->peak_method ? a->peak_method : "",
		   *mb = b->peak_method ? b->peak_method : "";

	if (strcmp(ma, mb) != 0 ||
	    isnan(a->peak_gflops) != isnan(b->peak_gflops))
		return 0;
	return isnan(a->peak_gflops) ||
	       fabs(a->peak_gflops - b->peak_gflops) <=
		       PEAK_SAME_REL * fmax(a->peak_gflops, b->peak_gflops);
}

/* Adds the row for (device, dtype, n) when two columns have values and
 * they differ. */
static void add_key(struct compare_table *t, const char *name,
		    const char *device, const char *dtype, int n)
{
	char **values = bf_xcalloc((size_t)t->ncols, sizeof(*values));
	int present = 0, differs = 0, first = -1;

	for (int c = 0; c < t->ncols; c++) {
		values[c] = value_of(column_host(t, c, name), device,
				     dtype, n);
		if (!values[c])
			continue;
		present++;
		if (first < 0)
			first = c;
		else if (n == 0 ? !same_peak(find_gemm(column_host(
							       t, first, name),
						       device, dtype, 0),
					     find_gemm(column_host(
							       t, c, name),
						       device, dtype, 0)) :
				  strcmp(values[first], values[c]) != 0)
			differs = 1;
	}
	add_prov(t, name,
		 n == 0 ? bf_xasprintf("peak %s %s", device, dtype) :
			  bf_xasprintf("reference %s %s n=%d", device, dtype, n),
		 values, present, differs);
}

static void add_peak_provenance(struct compare_table *t, const char *name)
{
	/* Each (device, dtype) once, then each (device, dtype, n), in the
	 * order first seen over the columns. */
	for (int pass = 0; pass < 2; pass++)
		for (int c = 0; c < t->ncols; c++) {
			const struct archive_host *h =
				column_host(t, c, name);

			for (int i = 0; h && i < h->nrecords; i++) {
				const struct bf_rec_gemm *g =
					&h->records[i].u.gemm;
				int n = pass ? g->n : 0, seen = 0;

				if (h->records[i].type != BF_REC_GEMM ||
				    !g->measured || !g->device || !g->dtype)
					continue;
				/* seen earlier in this column or an earlier one
				 */
				for (int k = 0; k <= c && !seen; k++) {
					const struct archive_host *o =
						column_host(t, k, name);
					int upto =
						k == c ? i :
							 (o ? o->nrecords : 0);

					for (int j = 0; o && j < upto && !seen;
					     j++) {
						const struct bf_rec_gemm *e =
							&o->records[j].u.gemm;

						seen = o->records[j].type ==
							       BF_REC_GEMM &&
						       e->measured &&
						       e->device && e->dtype &&
						       strcmp(e->device,
							      g->device) == 0 &&
						       strcmp(e->dtype,
							      g->dtype) == 0 &&
						       (!pass || e->n == g->n);
					}
				}
				if (!seen)
					add_key(t, name, g->device, g->dtype,
						n);
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
			add_prov(t, name,
				 it->section ? bf_xasprintf("%s.%s", it->section,
							    it->key) :
					       bf_xstrdup(it->key),
				 values, present, differs);
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
	add_peak_provenance(t, name);
}

void compare_add_provenance(struct compare_table *t)
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
