/*
 * The GEMM sweep. Per size, inputs are seeded uniform values in [-1, 1)
 * (never zeros), shared by every device and rounded to each dtype; the
 * backend warms up, times `iters` synchronised iterations and returns C;
 * verification then runs outside the timed region.
 *
 * Verification: every element of C is scanned for NaN/Inf (C was poisoned
 * with NaN, so an unwritten element fails), and a sample of rows x columns
 * is compared with a float64 reference computed from the very inputs the
 * device saw (after rounding to the dtype). The error of each element is
 * |c - ref| / sum_k |a_ik b_kj|, the componentwise measure of Higham,
 * "Accuracy and Stability of Numerical Algorithms" (2nd ed., 2002), 3.5:
 * |C - C^| <= gamma_k |A||B|, so the tolerance depends on the dtype's unit
 * roundoff, not on the magnitude of the result.
 */
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostinfo.h"
#include "stats.h"
#include "xmalloc.h"

#define MIB (1024.0 * 1024.0)
/* Headroom for cuBLAS's workspace and the CUDA context's own allocations
 * when deciding whether operands fit (cuBLAS documents workspaces of up
 * to 32 MiB on Hopper; twice that is kept free). */
#define GPU_HEADROOM_BYTES (64ull << 20)
#define VERIFY_FULL_MAX_N 64
#define VERIFY_SAMPLE 16

double gemm_tolerance(enum bf_dtype dtype)
{
	switch (dtype) {
	case BF_DTYPE_FP32:
		return 1e-5; /* u = 2^-24; fp32 accumulation */
	case BF_DTYPE_TF32:
		return 5e-3; /* inputs rounded to 10 mantissa bits: 2^-11 each */
	case BF_DTYPE_FP16:
		return 2e-3; /* fp16 output rounding: 2^-11 of |c| <= sum|ab| */
	case BF_DTYPE_BF16:
		return 1e-2; /* bf16 output rounding: 2^-8 */
	default:
		return 0;
	}
}

int gemm_count(int ndevices, const struct agent_opts *o)
{
	return ndevices * o->nsizes * o->ndtypes;
}

/* Seeded uniform values in [-1, 1) from the 48-bit LCG POSIX specifies
 * for erand48 (X' = (0x5DEECE66D X + 0xB) mod 2^48, the value X' / 2^48),
 * so the inputs are the same on every host. Computed inline: the same
 * values as erand48(state) (glibc and musl both return exactly X / 2^48;
 * tests/unit checks it value for value), five times faster, which is
 * 0.2 s of an n = 4096 run. */
void gemm_fill_uniform(float *x, size_t count, uint64_t seed, int which)
{
	const uint64_t mask = (UINT64_C(1) << 48) - 1;
	uint64_t s = (uint64_t)(unsigned short)(0x330e + which) << 32 |
		     ((seed >> 16) & 0xffff) << 16 | (seed & 0xffff);

	for (size_t i = 0; i < count; i++) {
		s = (s * UINT64_C(0x5DEECE66D) + 0xB) & mask;
		x[i] = (float)(2.0 * ((double)s * 0x1p-48) - 1.0);
	}
}

/* A 16-bit dtype's input in its storage format; caller frees. NULL on
 * OOM. fp32 and tf32 GEMMs read the fp32 inputs themselves (no copy). */
static void *convert_input(const float *src, size_t count, enum bf_dtype dt)
{
	uint16_t *out = hostinfo_alloc_operand(count * sizeof(uint16_t));

	if (!out)
		return NULL;
	for (size_t i = 0; i < count; i++)
		out[i] = dt == BF_DTYPE_FP16 ? bf_fp32_to_fp16(src[i]) :
					       bf_fp32_to_bf16(src[i]);
	return out;
}

static void pick_indices(int n, int *idx, int count, unsigned short *state)
{
	idx[0] = 0;
	idx[1] = n - 1;
	for (int i = 2; i < count; i++)
		idx[i] = (int)(erand48(state) * n);
}

void gemm_verify(const struct gemm_job *job, const struct gemm_result *res,
		 uint64_t seed, struct gemm_verify_result *out)
{
	struct gemm_verify_result v = { 0, gemm_tolerance(job->dtype), 0, 0,
					BF_STATUS_FAIL };
	int n = job->n, rows[VERIFY_SAMPLE], cols[VERIFY_SAMPLE], nr, nc;
	size_t nn = (size_t)n * (size_t)n;
	unsigned short state[3] = { (unsigned short)seed, 0x1234, 0xabcd };

	for (size_t i = 0; i < nn; i++)
		if (!isfinite(bf_dtype_load(res->c_dtype, res->c_host, i)))
			v.nonfinite_elements++;
	if (n <= VERIFY_FULL_MAX_N) {
		nr = nc = n; /* every element */
	} else {
		nr = nc = VERIFY_SAMPLE;
		pick_indices(n, rows, nr, state);
		pick_indices(n, cols, nc, state);
	}
	for (int ri = 0; ri < nr; ri++) {
		int i = n <= VERIFY_FULL_MAX_N ? ri : rows[ri];

		for (int ci = 0; ci < nc; ci++) {
			int j = n <= VERIFY_FULL_MAX_N ? ci : cols[ci];
			double ref = 0, mag = 0, c, e;

			for (int k = 0; k < n; k++) {
				double p = bf_dtype_load(job->dtype, job->a_host,
						      (size_t)i * n + k) *
					   bf_dtype_load(job->dtype, job->b_host,
						      (size_t)k * n + j);
				ref += p;
				mag += fabs(p);
			}
			c = bf_dtype_load(res->c_dtype, res->c_host,
				       (size_t)i * n + j);
			e = fabs(c - ref) / (mag > 0 ? mag : 1.0);
			if (isnan(e))
				e = INFINITY;
			if (e > v.max_rel_error)
				v.max_rel_error = e;
			v.verified_elements++;
		}
	}
	if (v.nonfinite_elements == 0 && v.max_rel_error <= v.tolerance)
		v.status = BF_STATUS_PASS;
	*out = v;
}

/* A gemm record that did not run: only device, dtype, n, status and
 * reason (median_ms and gflops encode as null); needed/free bytes after a
 * fit refusal (NaN: none). Caller frees with bf_record_free. */
static void unrun_record(struct bf_record *rec, const struct device *dev,
			 enum bf_dtype dt, int n, enum bf_status status,
			 const char *reason)
{
	char label[16];
	struct bf_rec_gemm *g = &rec->u.gemm;

	bf_record_init(rec, BF_REC_GEMM);
	g->device = bf_xstrdup(device_label(dev, label, sizeof(label)));
	g->dtype = bf_xstrdup(bf_dtype_name(dt));
	g->n = n;
	g->status = status;
	g->reason = bf_xstrdup(reason);
}

/* Emits a skipped gemm record and remembers the outcome. */
static void emit_skipped(struct report *r, struct gemm_sweep *s,
			 const struct device *dev, enum bf_dtype dt, int n,
			 const char *reason, double needed, double free_b)
{
	struct gemm_outcome *oc = &s->items[s->count++];
	struct bf_record rec;

	unrun_record(&rec, dev, dt, n, BF_STATUS_SKIPPED, reason);
	if (needed > 0) {
		rec.u.gemm.needed_bytes = needed;
		rec.u.gemm.free_bytes = free_b;
	}
	report_emit_record(r, &rec);
	bf_record_free(&rec);
	*oc = (struct gemm_outcome){ *dev, dt, n, BF_STATUS_SKIPPED, NAN };
}

/* Runs and reports one (device, dtype, n) GEMM. a32/b32: fp32 inputs. */
static void run_one(struct report *r, struct gemm_sweep *s,
		    const struct sweep_device *sd, enum bf_dtype dt, int n,
		    const float *a32, const float *b32,
		    const struct agent_opts *o)
{
	const struct backend *be = backend_for(sd->dev.kind);
	size_t nn = (size_t)n * (size_t)n, eb = bf_dtype_element_bytes(dt);
	int iters = sd->dev.kind == DEVICE_CPU ? o->cpu_iters : o->iters;
	int warmup = sd->dev.kind == DEVICE_CPU ? o->cpu_warmup : o->warmup;
	struct gemm_job job = { dt, n, warmup, iters, NULL, NULL };
	struct gemm_result res = { 0 };
	struct bf_stats_summary st;
	struct gemm_verify_result v;
	char detail[512] = "", label[16];
	uint64_t free_b = 0, total_b = 0;
	double needed, gflops, tol = gemm_tolerance(dt);
	enum bf_status status;
	struct bf_record rec;
	struct bf_rec_gemm *g;
	enum bf_err err;

	if (!be || !sd->usable) {
		emit_skipped(r, s, &sd->dev, dt, n, sd->reason, 0, 0);
		return;
	}
	if (be->gemm_supports(sd->dev.index, dt, detail, sizeof(detail)) != BF_OK) {
		emit_skipped(r, s, &sd->dev, dt, n, detail, 0, 0);
		return;
	}
	/* Fit check before allocating: A, B, C on the device (plus cuBLAS
	 * headroom on a GPU; the host copies are already counted for CPU). */
	needed = (double)(3 * nn * eb) +
		 (sd->dev.kind == DEVICE_CPU ? 0 : (double)GPU_HEADROOM_BYTES);
	if (be->mem_info(sd->dev.index, &free_b, &total_b) == BF_OK &&
	    needed > (double)free_b) {
		snprintf(detail, sizeof(detail),
			 "operands need %.0f MiB, %s has %.0f MiB free",
			 needed / MIB, device_label(&sd->dev, label, sizeof(label)),
			 (double)free_b / MIB);
		emit_skipped(r, s, &sd->dev, dt, n, detail, needed, (double)free_b);
		return;
	}
	if (dt == BF_DTYPE_FP32 || dt == BF_DTYPE_TF32) {
		/* Read only by the backend and the verification. */
		job.a_host = a32;
		job.b_host = b32;
	} else {
		job.a_host = convert_input(a32, nn, dt);
		job.b_host = convert_input(b32, nn, dt);
	}
	res.samples_ms = bf_xcalloc((size_t)iters, sizeof(double));
	if (!job.a_host || !job.b_host) {
		err = bf_fail(detail, sizeof(detail), BF_ERR_NOMEM,
			      "host allocation for %s inputs failed",
			      bf_dtype_name(dt));
	} else {
		err = be->gemm_run(sd->dev.index, &job, &res, detail,
				   sizeof(detail));
	}
	if (err != BF_OK) {
		/* Could not run (out of memory, a CUDA error): a failed
		 * result with the reason, and the sweep goes on. */
		unrun_record(&rec, &sd->dev, dt, n,
			     err == BF_ERR_TOO_BIG ? BF_STATUS_SKIPPED :
						     BF_STATUS_FAIL,
			     detail);
		report_emit_record(r, &rec);
		bf_record_free(&rec);
		s->items[s->count++] = (struct gemm_outcome){
			sd->dev, dt, n,
			err == BF_ERR_TOO_BIG ? BF_STATUS_SKIPPED : BF_STATUS_FAIL,
			NAN };
		goto out;
	}
	gemm_verify(&job, &res, o->seed, &v);
	st = bf_stats_summarize(res.samples_ms, (size_t)iters);
	/* FLOPs of an n x n x n GEMM: n^3 multiply-adds = 2 n^3. */
	gflops = 2.0 * (double)n * n * n / (st.median / 1e3) / 1e9;
	status = v.status;

	bf_record_init(&rec, BF_REC_GEMM);
	g = &rec.u.gemm;
	g->device = bf_xstrdup(device_label(&sd->dev, label, sizeof(label)));
	g->dtype = bf_xstrdup(bf_dtype_name(dt));
	g->n = n;
	g->status = status;
	if (status != BF_STATUS_PASS) {
		if (v.nonfinite_elements)
			snprintf(detail, sizeof(detail),
				 "%lld non-finite elements in C",
				 (long long)v.nonfinite_elements);
		else
			snprintf(detail, sizeof(detail),
				 "max relative error %.3g above tolerance %.3g",
				 v.max_rel_error, tol);
		g->reason = bf_xstrdup(detail);
	}
	g->measured = 1;
	g->library = bf_xstrdup(be->gemm_library());
	g->math_mode = bf_xstrdup(res.math_mode);
	g->c_dtype = bf_xstrdup(bf_dtype_name(res.c_dtype));
	g->warmup = job.warmup;
	g->iters = iters;
	g->samples_ms = res.samples_ms; /* lent: res frees it below */
	g->nsamples = iters;
	g->median_ms = st.median;
	g->min_ms = st.min;
	g->max_ms = st.max;
	g->gflops = gflops;
	g->peak_mib = res.peak_bytes >= 0 ? (double)res.peak_bytes / MIB : NAN;
	g->operand_bytes = (double)(2 * nn * eb +
				    nn * bf_dtype_element_bytes(res.c_dtype));
	g->max_rel_error = v.max_rel_error;
	g->tolerance = tol;
	g->verified_elements = (double)v.verified_elements;
	g->nonfinite_elements = (double)v.nonfinite_elements;
	report_emit_record(r, &rec);
	g->samples_ms = NULL;
	bf_record_free(&rec);
	s->items[s->count++] =
		(struct gemm_outcome){ sd->dev, dt, n, status, gflops };
out:
	free(res.c_host);
	free(res.samples_ms);
	if (job.a_host != a32)
		free((void *)job.a_host);
	if (job.b_host != b32)
		free((void *)job.b_host);
}

void gemm_sweep_run(struct report *r, const struct sweep_device *devs,
		    int ndevices, const struct agent_opts *o,
		    struct gemm_sweep *out)
{
	out->items = bf_xcalloc((size_t)gemm_count(ndevices, o) + 1,
			     sizeof(*out->items));
	out->count = 0;
	for (int si = 0; si < o->nsizes; si++) {
		int n = o->sizes[si];
		size_t nn = (size_t)n * (size_t)n;
		float *a32 = hostinfo_alloc_operand(nn * sizeof(float));
		float *b32 = hostinfo_alloc_operand(nn * sizeof(float));

		if (!a32 || !b32) {
			char reason[128];

			snprintf(reason, sizeof(reason),
				 "host allocation of 2 x %.0f MiB for inputs failed",
				 (double)nn * 4 / MIB);
			for (int d = 0; d < ndevices; d++)
				for (int t = 0; t < o->ndtypes; t++)
					emit_skipped(r, out, &devs[d].dev,
						     o->dtypes[t], n, reason,
						     0, 0);
		} else {
			gemm_fill_uniform(a32, nn, o->seed, 0);
			gemm_fill_uniform(b32, nn, o->seed, 1);
			for (int d = 0; d < ndevices; d++)
				for (int t = 0; t < o->ndtypes; t++)
					run_one(r, out, &devs[d], o->dtypes[t],
						n, a32, b32, o);
		}
		free(a32);
		free(b32);
	}
}

static const struct gemm_outcome *find(const struct gemm_sweep *s,
				       enum device_kind kind, int index,
				       enum bf_dtype dt, int n)
{
	for (int i = 0; i < s->count; i++) {
		const struct gemm_outcome *g = &s->items[i];

		if (g->dev.kind == kind && g->dev.index == index &&
		    g->dtype == dt && g->n == n && g->status == BF_STATUS_PASS)
			return g;
	}
	return NULL;
}

static void add_ratio(struct bf_rec_summary *sum, const char *kind,
		      const struct device *dev, enum bf_dtype dt, int n,
		      double value)
{
	struct bf_rec_ratio *x;
	char label[16];

	sum->ratios = bf_xrealloc(sum->ratios, (size_t)(sum->nratios + 1) *
						       sizeof(*sum->ratios));
	x = &sum->ratios[sum->nratios++];
	x->kind = bf_xstrdup(kind);
	x->device = bf_xstrdup(device_label(dev, label, sizeof(label)));
	x->dtype = bf_xstrdup(bf_dtype_name(dt));
	x->n = n;
	x->value = value;
}

void gemm_ratios(const struct gemm_sweep *s, struct bf_rec_summary *sum)
{
	for (int i = 0; i < s->count; i++) {
		const struct gemm_outcome *g = &s->items[i], *base;

		if (g->status != BF_STATUS_PASS)
			continue;
		if (g->dtype == BF_DTYPE_FP32 && g->dev.kind == DEVICE_CUDA) {
			base = find(s, DEVICE_CPU, 0, BF_DTYPE_FP32, g->n);
			if (base)
				add_ratio(sum, BF_RATIO_GPU_VS_CPU, &g->dev,
					  g->dtype, g->n,
					  bf_speed_ratio(g->gflops, base->gflops));
		}
		if (g->dtype != BF_DTYPE_FP32) {
			base = find(s, g->dev.kind, g->dev.index, BF_DTYPE_FP32,
				    g->n);
			if (base)
				add_ratio(sum, BF_RATIO_VS_FP32, &g->dev,
					  g->dtype, g->n,
					  bf_speed_ratio(g->gflops, base->gflops));
		}
	}
}

void gemm_sweep_free(struct gemm_sweep *s)
{
	free(s->items);
	s->items = NULL;
	s->count = 0;
}
