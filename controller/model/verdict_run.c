/* The verdict of an archived run; see verdict_run.h. */
#include "model/verdict_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "record.h"
#include "xmalloc.h"

/* Peers are the same product and size: a GPU's name and memory, a CPU's
 * model and cores, as a new string (caller frees; never cut: it is a
 * key, and two long names cut to one would be peers). NULL when
 * unknown. */
static char *peer_key(const struct bf_rec_host *h, const char *device,
		      const char *product)
{
	if (!h || !product)
		return NULL;
	if (strcmp(device, "cpu") == 0)
		return bf_xasprintf("%s, %.0f cores", product,
				    isfinite(h->cpu_cores) ? h->cpu_cores : 0.0);
	for (int i = 0; i < h->ngpus; i++)
		if (h->gpus[i].name && strcmp(h->gpus[i].name, product) == 0 &&
		    strtol(device + 5, NULL, 10) == (long)h->gpus[i].index)
			return bf_xasprintf("%s, %.0f MiB", product,
					    isfinite(h->gpus[i].memory_bytes) ?
						    h->gpus[i].memory_bytes /
							    1048576.0 :
						    0.0);
	return NULL;
}

enum bf_err verdict_run_compute(const struct archive_run *run,
				const char *results_dir, const char *hosts_dir,
				struct verdict_run *vr, char *err,
				size_t err_len)
{
	enum bf_err e;
	int cap = 0, k = 0;

	memset(vr, 0, sizeof(*vr));
	e = references_load(&vr->refs, hosts_dir, &vr->refs_missing, err,
			    err_len);
	if (e != BF_OK)
		return e;
	for (int i = 0; i < run->nhosts; i++)
		for (int r = 0; r < run->hosts[i].nrecords; r++)
			cap += run->hosts[i].records[r].type == BF_REC_GEMM;
	vr->in = bf_xcalloc((size_t)cap + 1, sizeof(*vr->in));
	vr->out = bf_xcalloc((size_t)cap + 1, sizeof(*vr->out));
	vr->host = bf_xcalloc((size_t)cap + 1, sizeof(int));
	vr->peer_keys = bf_xcalloc((size_t)cap + 1, sizeof(*vr->peer_keys));
	vr->hist = bf_xcalloc(((size_t)cap + 1) * VERDICT_RUN_HISTORY,
			      sizeof(double));
	for (int i = 0; i < run->nhosts; i++) {
		const struct archive_host *h = &run->hosts[i];
		struct archive_baseline *base[VERDICT_RUN_HISTORY];
		int nbase = 0, first = k;
		char detail[256];

		if (results_dir && h->host_record &&
		    h->host_record->options.present &&
		    archive_find_baselines(results_dir, h->name, h->host_record,
					   h->fingerprint, run->run_id,
					   VERDICT_RUN_HISTORY, base, &nbase,
					   detail, sizeof(detail)) != BF_OK)
			nbase = 0;
		for (int r = 0; r < h->nrecords; r++) {
			const struct bf_rec_gemm *g = &h->records[r].u.gemm;
			struct verdict_input *in = &vr->in[k];
			double *hs = vr->hist + (size_t)k * VERDICT_RUN_HISTORY;
			enum bf_dtype dt;
			int known;

			if (h->records[r].type != BF_REC_GEMM || !g->device ||
			    !g->dtype)
				continue;
			/* The reader admits only dtypes the enum has. */
			known = bf_dtype_parse(g->dtype, &dt) == 0;
			vr->host[k] = i;
			in->host = h->name;
			in->device = g->device;
			in->product = references_product(h->host_record,
							 g->device);
			vr->peer_keys[k] = peer_key(h->host_record, g->device,
						    in->product);
			in->peer_key = vr->peer_keys[k];
			in->dtype = g->dtype;
			in->n = g->n;
			in->occurrence = 1;
			for (int j = first; j < k; j++)
				if (vr->in[j].n == g->n &&
				    strcmp(vr->in[j].device, g->device) == 0 &&
				    strcmp(vr->in[j].dtype, g->dtype) == 0)
					in->occurrence++;
			in->status = g->status;
			in->invalid = g->reason &&
				      strncmp(g->reason, "invalid:", 8) == 0;
			in->reason = g->reason;
			in->gflops = g->gflops;
			in->peak_gflops = g->peak_gflops;
			in->bound_gflops = g->peak_bound_gflops;
			in->reliable = g->reliable;
			/* History oldest first: the baselines come newest
			 * first. */
			for (int b = nbase - 1; b >= 0; b--) {
				const struct archive_baseline_row *row =
					!known ? NULL :
					archive_baseline_row(base[b], g->device,
							     dt, g->n,
							     in->occurrence);

				if (row && isfinite(row->median_gflops))
					hs[in->nhistory++] = row->median_gflops;
			}
			in->history = hs;
			k++;
		}
		for (int b = 0; b < nbase; b++)
			archive_baseline_free(base[b]);
	}
	vr->n = k;
	verdict_compute(vr->in, k, NULL, vr->refs.ov, vr->refs.nov,
			vr->refs.ranges, vr->refs.nranges, vr->out);
	return BF_OK;
}

void verdict_run_free(struct verdict_run *vr)
{
	if (!vr)
		return;
	free(vr->in);
	verdict_clear(vr->out, vr->n);
	free(vr->out);
	free(vr->host);
	for (int i = 0; vr->peer_keys && i < vr->n; i++)
		free(vr->peer_keys[i]);
	free(vr->peer_keys);
	free(vr->hist);
	references_free(&vr->refs);
	memset(vr, 0, sizeof(*vr));
}

int verdict_run_find(const struct verdict_run *vr, const char *host,
		     const char *device, const char *dtype, int n,
		     int occurrence)
{
	for (int i = 0; vr && host && device && dtype && i < vr->n; i++) {
		const struct verdict_input *in = &vr->in[i];

		if (in->n == n && in->occurrence == occurrence &&
		    strcmp(in->host, host) == 0 &&
		    strcmp(in->device, device) == 0 &&
		    strcmp(in->dtype, dtype) == 0)
			return i;
	}
	return -1;
}

/* The product of a snapshot row, from its host's record as the model
 * keeps it (a string of h, or NULL when unknown), and its peer key as a
 * new string (*key; caller frees; NULL when unknown; never cut). */
static const char *snapshot_product(const struct model_host *h,
				    const char *device, char **key)
{
	char *end;
	long k;

	*key = NULL;
	if (strcmp(device, "cpu") == 0) {
		if (!h->cpu_model[0])
			return NULL;
		*key = bf_xasprintf("%s, %.0f cores", h->cpu_model,
				    isfinite(h->cpu_cores) ? h->cpu_cores : 0.0);
		return h->cpu_model;
	}
	if (strncmp(device, "cuda:", 5) != 0)
		return NULL;
	k = strtol(device + 5, &end, 10);
	if (*end || end == device + 5)
		return NULL;
	for (int i = 0; i < h->ngpus; i++)
		if (h->gpus[i].index == k && h->gpus[i].name[0]) {
			*key = bf_xasprintf("%s, %.0f MiB", h->gpus[i].name,
					    isfinite(h->gpus[i].memory_bytes) ?
						    h->gpus[i].memory_bytes /
							    1048576.0 :
						    0.0);
			return h->gpus[i].name;
		}
	return NULL;
}

void verdict_snapshot(const struct model_snapshot *s,
		      const struct ref_set *refs, struct verdict *out)
{
	struct verdict_input *in;
	char **keys;

	if (s->nrows <= 0)
		return;
	in = bf_xcalloc((size_t)s->nrows, sizeof(*in));
	keys = bf_xcalloc((size_t)s->nrows, sizeof(*keys));
	for (int i = 0; i < s->nrows; i++) {
		const struct model_row *r = &s->rows[i];
		const struct model_host *h =
			r->host >= 0 && r->host < s->nhosts ? &s->hosts[r->host] :
							      NULL;

		in[i].product = h ? snapshot_product(h, r->device, &keys[i]) :
				    NULL;
		in[i].host = h ? h->name : "?";
		in[i].device = r->device;
		in[i].peer_key = keys[i];
		in[i].dtype = bf_dtype_name(r->dtype);
		in[i].n = r->n;
		in[i].occurrence = r->occurrence;
		in[i].status = r->status;
		in[i].invalid = r->reason &&
				strncmp(r->reason, "invalid:", 8) == 0;
		in[i].reason = r->reason && r->reason[0] ? r->reason : NULL;
		in[i].gflops = r->gflops;
		in[i].peak_gflops = r->peak_gflops;
		in[i].bound_gflops = NAN;
		in[i].reliable = r->reliable;
	}
	verdict_compute(in, s->nrows, NULL, refs ? refs->ov : NULL,
			refs ? refs->nov : 0, refs ? refs->ranges : NULL,
			refs ? refs->nranges : 0, out);
	free(in);
	for (int i = 0; i < s->nrows; i++)
		free(keys[i]);
	free(keys);
}

/* qsort_r's order: the snapshot's rows by host, then device. */
static int by_host_device(const void *a, const void *b, void *arg)
{
	const struct model_snapshot *s = arg;
	const struct model_row *x = &s->rows[*(const int *)a];
	const struct model_row *y = &s->rows[*(const int *)b];

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return strcmp(x->device, y->device);
}

void verdict_snapshot_counts(const struct model_snapshot *s,
			     const struct verdict *out, int *counts,
			     int *devices, int *slow_confident)
{
	int *idx, n = s->nrows;

	for (int k = 0; k <= VERDICT_FAILED; k++)
		counts[k] = 0;
	*devices = *slow_confident = 0;
	if (n <= 0)
		return;
	idx = bf_xcalloc((size_t)n, sizeof(*idx));
	for (int i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, (size_t)n, sizeof(*idx), by_host_device, (void *)s);
	for (int a = 0, b; a < n; a = b) {
		int pick;

		for (b = a + 1; b < n && s->rows[idx[b]].host == s->rows[idx[a]].host &&
				strcmp(s->rows[idx[b]].device,
				       s->rows[idx[a]].device) == 0;
		     b++)
			;
		pick = verdict_device_pick(out, idx + a, b - a);
		if (pick < 0)
			continue;
		counts[out[pick].kind]++;
		(*devices)++;
		*slow_confident += out[pick].kind == VERDICT_SLOW &&
				   !out[pick].uncertain;
	}
	free(idx);
}
