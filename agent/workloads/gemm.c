/*
 * The GEMM sweep. Per size, inputs are seeded uniform values in [-1, 1)
 * (never zeros), shared by every device and rounded to each dtype; the
 * backend warms up, times `iters` synchronised iterations and returns C;
 * verification then runs outside the timed region.
 *
 * Verification: every element of C is scanned for NaN/Inf (C was poisoned
 * with NaN before every iteration, so an element the last call did not
 * write fails), and a sample of rows x columns is compared with a float64
 * reference computed from the very inputs the device saw (after rounding
 * to the dtype). The error model follows Higham, "Accuracy and Stability
 * of Numerical Algorithms" (2nd ed., 2002), 3.5: the computed product
 * satisfies |c^ - c| <= gamma |A||B| componentwise, and rounding the
 * result into C's dtype adds at most u_out |c| (plus half the smallest
 * subnormal spacing for results that underflow). So each element's error
 * is judged as
 *
 *     e_ij = max(0, |c_ij - ref_ij| - u_out |ref_ij| - eta_out)
 *            / ((1 + u_out) sum_k |a_ik b_kj|)
 *
 * and must not exceed gamma. gamma is not the worst-case n u of 3.5, which
 * is so loose that fp16 accumulation or a dropped product would pass, but
 * the probabilistic bound lambda sqrt(K) u_acc of Higham and Mary, "A New
 * Approach to Probabilistic Rounding Error Analysis", SIAM J. Sci. Comput.
 * 41(5), 2019, Theorem 2.4, with lambda = 16 (a failure probability far
 * below 1e-50 per element for independent roundings; the margin also
 * covers the truncating adders of tensor cores, Fasi et al., PeerJ Comput.
 * Sci. 7:e330, 2021). u_acc is fp32's 2^-24: every backend accumulates in
 * fp32 (CUBLAS_COMPUTE_32F*, cblas_sgemm/sbgemm/shgemm, oneDNN's
 * bf16/f16 matmul with an f32 destination). TF32 adds the
 * rounding of both inputs to 10 mantissa bits, 2 x 2^-10 (allowing
 * truncation, which is double round-to-nearest's 2^-11).
 *
 * fp8 (e4m3): each input is quantised with a per-tensor power-of-two
 * scale (gemm_fp8_quantise), the device computes s_a s_b sum_k a_q b_q
 * (cuBLASLt's A/B scale pointers, fp32 accumulation, bf16 output), and
 * the reference is that very sum in float64 on the quantised values, the
 * scales exact powers of two. A product of two e4m3 values (4 significant
 * bits each) is exact in fp32, so gamma is fp32 accumulation's alone, as
 * for fp16 and bf16. cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM is left
 * off, which promotes the tensor cores' partial sums to fp32 periodically
 * (cuBLAS Library, cublasLtMatmulDescAttributes_t); a GPU whose FP8
 * accumulation is narrower than that (DeepSeek-V3 report,
 * arXiv:2412.19437, 3.3.2: about 14 bits between promotions on H800)
 * fails the check with the error it shows, rather than passing under a
 * bound loose enough to miss a wrong scale.
 */
#include "workloads/gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "bf_clock.h"
#include "hardware/hostinfo.h"
#include "hardware/reference.h"
#include "workloads/gemm_fp64.h"
#include "stats.h"
#include "workloads/roofline.h"
#include "xmalloc.h"

#define MIB (1024.0 * 1024.0)
/* Headroom for cuBLAS's workspace and the CUDA context's own allocations
 * when deciding whether operands fit (cuBLAS documents workspaces of up
 * to 32 MiB on Hopper; twice that is kept free). */
#define GPU_HEADROOM_BYTES (64ull << 20)
#define VERIFY_FULL_MAX_N 64
#define VERIFY_SAMPLE 32
#define VERIFY_SIDE_MAX (VERIFY_FULL_MAX_N > VERIFY_SAMPLE ? \
			 VERIFY_FULL_MAX_N : VERIFY_SAMPLE)

/* Unit roundoff of an output dtype: half an ulp of 1, relative. */
double gemm_output_roundoff(enum bf_dtype c_dtype)
{
	switch (c_dtype) {
	case BF_DTYPE_FP32:
	case BF_DTYPE_TF32: /* cuBLAS's TF32 mode stores fp32 C */
		return 0x1p-24;
	case BF_DTYPE_FP16:
		return 0x1p-11;
	case BF_DTYPE_BF16:
		return 0x1p-8;
	default:
		return 0;
	}
}

/* Half the spacing of the dtype's subnormals: the absolute error of
 * rounding a result that underflows. */
static double output_underflow(enum bf_dtype c_dtype)
{
	switch (c_dtype) {
	case BF_DTYPE_FP16:
		return 0x1p-25;
	case BF_DTYPE_BF16:
		return 0x1p-134;
	default:
		return 0x1p-150;
	}
}

double gemm_tolerance(enum bf_dtype dtype, int k)
{
	const double lambda = GEMM_TOLERANCE_LAMBDA, u_acc = 0x1p-24;
	double gamma = lambda * sqrt(k > 1 ? (double)k : 1.0) * u_acc;

	switch (dtype) {
	case BF_DTYPE_FP32:
	case BF_DTYPE_FP16:
	case BF_DTYPE_BF16:
	case BF_DTYPE_FP8: /* products of e4m3 values are exact in fp32 */
		return gamma; /* the inputs are exactly the stored values */
	case BF_DTYPE_TF32:
		return gamma + 2 * 0x1p-10;
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

double gemm_fp8_quantise(const float *src, size_t count, uint8_t *dst)
{
	double amax = 0, scale;
	int e;

	for (size_t i = 0; i < count; i++)
		if (fabs((double)src[i]) > amax)
			amax = fabs((double)src[i]);
	if (!(amax > 0) || !isfinite(amax)) {
		scale = 1.0;
	} else {
		/* The least 2^e with amax / 2^e <= 448. */
		(void)frexp(amax / 448.0, &e); /* amax/448 = f 2^e, f in [0.5, 1) */
		scale = ldexp(1.0, amax / 448.0 == ldexp(0.5, e) ? e - 1 : e);
	}
	for (size_t i = 0; i < count; i++)
		dst[i] = bf_to_fp8_e4m3((double)src[i] / scale);
	return scale;
}

/* A 16-bit or fp8 dtype's input in its storage format; caller frees.
 * NULL on OOM. fp32 and tf32 GEMMs read the fp32 inputs themselves (no
 * copy). fp8's dequantisation scale goes to *scale (else 1). */
static void *convert_input(const float *src, size_t count, enum bf_dtype dt,
			   double *scale)
{
	uint16_t *out;

	*scale = 1.0;
	if (dt == BF_DTYPE_FP8) {
		uint8_t *q = hostinfo_alloc_operand(count);

		if (q)
			*scale = gemm_fp8_quantise(src, count, q);
		return q;
	}
	out = hostinfo_alloc_operand(count * sizeof(uint16_t));
	if (!out)
		return NULL;
	for (size_t i = 0; i < count; i++)
		out[i] = dt == BF_DTYPE_FP16 ? bf_fp32_to_fp16(src[i]) :
					       bf_fp32_to_bf16(src[i]);
	return out;
}

/* count indices in [0, n): the edges first (0, 1, n-2, n-1, where BLAS
 * kernels handle partial tiles), then distinct values drawn from state. */
static void pick_indices(int n, int *idx, int count, unsigned short *state)
{
	const int edges[] = { 0, n - 1, 1, n - 2 };
	int have = 0;

	for (int e = 0; e < 4 && have < count; e++) {
		int dup = 0;

		for (int i = 0; i < have; i++)
			dup |= idx[i] == edges[e];
		if (!dup && edges[e] >= 0)
			idx[have++] = edges[e];
	}
	while (have < count) {
		int v = (int)(erand48(state) * n), dup = 0;

		for (int i = 0; i < have; i++)
			dup |= idx[i] == v;
		if (!dup)
			idx[have++] = v;
	}
}

void gemm_verify(const struct gemm_job *job, const void *c_host,
		 enum bf_dtype c_dtype, uint64_t seed,
		 struct gemm_verify_result *out)
{
	struct gemm_verify_result v = { 0, gemm_tolerance(job->dtype, job->n),
					gemm_output_roundoff(c_dtype), 0, 0,
					BF_STATUS_FAIL };
	/* Every element up to VERIFY_FULL_MAX_N, else the sample. */
	int n = job->n, nr, nc, rows[VERIFY_SIDE_MAX], cols[VERIFY_SIDE_MAX];
	double refs[VERIFY_SIDE_MAX * VERIFY_SIDE_MAX];
	double mags[VERIFY_SIDE_MAX * VERIFY_SIDE_MAX];
	size_t nn = (size_t)n * (size_t)n;
	double eta = output_underflow(c_dtype);
	unsigned short state[3] = { (unsigned short)seed,
				    (unsigned short)(seed >> 16),
				    (unsigned short)(seed >> 32) ^ 0xabcd };

	v.nonfinite_elements = gemm_count_nonfinite(c_dtype, c_host, nn);
	if (n <= VERIFY_FULL_MAX_N) {
		nr = nc = n; /* every element */
		for (int i = 0; i < n; i++)
			rows[i] = cols[i] = i;
	} else {
		nr = nc = VERIFY_SAMPLE;
		pick_indices(n, rows, nr, state);
		pick_indices(n, cols, nc, state);
	}
	gemm_sample_reference(job->dtype, job->a_host, job->b_host, n, rows,
			      nr, cols, nc, refs, mags);
	if (job->dtype == BF_DTYPE_FP8) {
		/* The scales are powers of two: exact. */
		double s = (job->a_scale > 0 ? job->a_scale : 1.0) *
			   (job->b_scale > 0 ? job->b_scale : 1.0);

		for (int i = 0; i < nr * nc; i++) {
			refs[i] *= s;
			mags[i] *= s;
		}
	}
	for (int ri = 0; ri < nr; ri++) {
		int i = rows[ri];

		for (int ci = 0; ci < nc; ci++) {
			int j = cols[ci];
			double ref = refs[ri * nc + ci];
			double mag = mags[ri * nc + ci], c, e;

			c = bf_dtype_load(c_dtype, c_host, (size_t)i * n + j);
			e = fabs(c - ref) - v.output_roundoff * fabs(ref) - eta;
			if (isnan(e))
				e = INFINITY; /* before the clamp, which drops NaN */
			e = (e > 0 ? e : 0) /
			    ((mag > 0 ? mag : 1.0) * (1 + v.output_roundoff));
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

double gemm_flops(int n)
{
	return bf_gemm_flops(n);
}

int gemm_above_bound(double gflops, const struct peak *peak, char *why,
		     size_t why_len)
{
	if (!isfinite(peak->bound_gflops) ||
	    !(gflops > GEMM_PEAK_MARGIN * peak->bound_gflops))
		return 0;
	if (why_len)
		snprintf(why, why_len,
			 "%.0f GFLOP/s is above the device's theoretical peak of "
			 "%.0f GFLOP/s (%s): the timing or the GEMM is wrong",
			 gflops, peak->bound_gflops, peak->bound_basis);
	return 1;
}

double gemm_operand_bytes(int n, enum bf_dtype dtype, enum bf_dtype c_dtype)
{
	double nn = (double)n * (double)n;

	return nn * (2.0 * (double)bf_dtype_element_bytes(dtype) +
		     (double)bf_dtype_element_bytes(c_dtype));
}

void gemm_reliability(struct bf_rec_gemm *g, int warmup, double median,
		      double min, double max)
{
	char why[4][96];
	int n = 0;

	g->spread = bf_stats_spread(median, min, max);
	if (g->nsamples < 2)
		snprintf(why[n++], sizeof(why[0]),
			 "one sample: no spread to judge it by");
	if (warmup < 1)
		snprintf(why[n++], sizeof(why[0]),
			 "no warm-up: the first call pays for set-up");
	if (g->spread > GEMM_SPREAD_MAX)
		snprintf(why[n++], sizeof(why[0]),
			 "spread %.0f%% of the median (above %.0f%%)",
			 100 * g->spread, 100 * GEMM_SPREAD_MAX);
	if (g->throttled == 1)
		snprintf(why[n++], sizeof(why[0]),
			 "clocks held down during the row (see device_state)");
	g->reliable = n == 0;
	g->unreliable_reasons = bf_xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++)
		g->unreliable_reasons[g->nunreliable++] = bf_xstrdup(why[i]);
}

/* The one wording of "does not fit": "operands need 192 MiB, cpu has
 * 100 MiB free (cgroup memory limit)". */
static void does_not_fit(char *out, size_t len, double needed, uint64_t free_b,
			 const char *limit, const char *device)
{
	snprintf(out, len, "does not fit: operands need %.0f MiB, %s has %.0f MiB free%s%s%s",
		 needed / MIB, device, (double)free_b / MIB,
		 limit && *limit ? " (" : "", limit ? limit : "",
		 limit && *limit ? ")" : "");
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

/* The published measurement of this product, dtype and n (reference.h),
 * and how this result compares: g's reference fields stay unset when the
 * table has none. A result that did not pass (gflops NaN) has no
 * verdict. */
static void gemm_reference_fill(struct bf_rec_gemm *g, const struct peak *peak,
				int is_gpu, enum bf_dtype dt, int n,
				double gflops)
{
	const struct gemm_reference *ref =
		reference_find(peak->product, is_gpu, dt, n);
	char text[320];

	if (!ref)
		return;
	reference_describe(ref, text, sizeof(text));
	g->reference_gflops = ref->tflops * 1e3;
	g->reference_source = bf_xstrdup(text);
	g->fraction_of_reference = gflops / g->reference_gflops;
	g->below_reference = isnan(g->fraction_of_reference) ?
				     -1 :
				     g->fraction_of_reference <
					     BF_REFERENCE_HEALTHY_FRACTION;
}

/* The fit check, before allocating: bytes one (device, dtype, n) GEMM
 * needs beyond what is allocated already. CPU: C and the first timed C
 * (fp32), plus 16-bit copies of A and B for fp16/bf16 (the fp32 inputs
 * are allocated and counted in the free figure). GPU: A, B and C on the
 * device (fp8's C is bf16) plus cuBLAS's headroom. */
static double operand_need(enum device_kind kind, enum bf_dtype dt, int n)
{
	size_t nn = (size_t)n * (size_t)n, eb = bf_dtype_element_bytes(dt);

	if (kind == DEVICE_CPU)
		return (double)(2 * nn * sizeof(float)) +
		       (eb == sizeof(float) ? 0 : (double)(2 * nn * eb));
	return (double)(2 * nn * eb) +
	       (double)(nn * (dt == BF_DTYPE_FP8 ? 2 : eb)) +
	       (double)GPU_HEADROOM_BYTES;
}

/* Emits the "does not fit" skip when the device's free memory (now) is
 * below needed bytes, with `why` (the library's words, may be NULL)
 * appended; returns 1 when it did. always: emit even when the figures say
 * it fits (the library refused the allocation). */
static int skip_unless_fits(struct report *r, struct gemm_sweep *s,
			    const struct backend *be,
			    const struct sweep_device *sd, enum bf_dtype dt,
			    int n, double needed, const char *why, int always)
{
	uint64_t free_b = 0, total_b = 0;
	char limit[64] = "", detail[512], label[16];
	int known = be->mem_info(sd->dev.index, &free_b, &total_b, limit,
				 sizeof(limit)) == BF_OK;

	if (!always && (!known || needed <= (double)free_b))
		return 0;
	if (!known)
		free_b = 0;
	does_not_fit(detail, sizeof(detail), needed, free_b, limit,
		     device_label(&sd->dev, label, sizeof(label)));
	if (why)
		snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
			 " (%.255s)", why);
	emit_skipped(r, s, &sd->dev, dt, n, detail, needed, (double)free_b);
	return 1;
}

/* The last timed C checked, and the first timed one's when there was one
 * (C is poisoned before every call, so a library that computes only once
 * leaves NaN behind): the worse of the two, with first_failed set when
 * the first failed and the last passed. */
static void verify_timed(const struct gemm_job *job,
			 const struct gemm_result *res, uint64_t seed,
			 struct gemm_verify_result *v, int *first_failed)
{
	struct gemm_verify_result v1;

	*first_failed = 0;
	gemm_verify(job, res->c_host, res->c_dtype, seed, v);
	if (!res->c_first_host)
		return;
	gemm_verify(job, res->c_first_host, res->c_dtype, seed + 1, &v1);
	if (v1.status != BF_STATUS_PASS && v->status == BF_STATUS_PASS)
		*first_failed = 1;
	if (v1.nonfinite_elements > v->nonfinite_elements)
		v->nonfinite_elements = v1.nonfinite_elements;
	if (v1.max_rel_error > v->max_rel_error)
		v->max_rel_error = v1.max_rel_error;
	v->verified_elements += v1.verified_elements;
	if (v1.status != BF_STATUS_PASS)
		v->status = BF_STATUS_FAIL;
}

enum bf_status gemm_judge(const struct gemm_measured *m, double *gflops,
			  char *reason, size_t len)
{
	const struct gemm_verify_result *v = &m->verify;
	enum bf_status status = v->status;

	if (len)
		reason[0] = '\0';
	*gflops = gemm_flops(m->job->n) / (m->stats.median / 1e3) / 1e9;
	/* Faster than the hardware can be: the timing or the library is
	 * wrong, and the number must not be shown as a result. */
	if (status == BF_STATUS_PASS &&
	    gemm_above_bound(*gflops, &m->peak, reason, len))
		status = BF_STATUS_FAIL;
	else if (status != BF_STATUS_PASS && v->nonfinite_elements)
		snprintf(reason, len, "%lld non-finite elements in C%s",
			 (long long)v->nonfinite_elements,
			 m->first_failed ? " of the first timed iteration" : "");
	else if (status != BF_STATUS_PASS)
		snprintf(reason, len,
			 "max relative error %.3g above tolerance %.3g%s",
			 v->max_rel_error, v->tolerance,
			 m->first_failed ? " in the first timed iteration" : "");
	/* A result that failed has no speed worth showing. */
	if (status != BF_STATUS_PASS)
		*gflops = NAN;
	return status;
}

/* The energy fields of g from the timed loop's window (energy.h), when
 * one was read; per joule only for a result that passed. */
static void fill_energy(struct bf_rec_gemm *g, const struct energy_window *e,
			int n)
{
	if (!e->source[0])
		return;
	g->energy_source = bf_xstrdup(e->source);
	g->energy_reason = e->reason[0] ? bf_xstrdup(e->reason) : NULL;
	g->energy_j = e->joules;
	g->energy_s = e->seconds;
	g->energy_gemms = e->gemms;
	g->energy_w = e->joules > 0 && e->seconds > 0 ? e->joules / e->seconds :
							NAN;
	g->gflop_per_joule = g->status == BF_STATUS_PASS && e->joules > 0 ?
				     e->gemms * gemm_flops(n) / 1e9 / e->joules :
				     NAN;
}

/* The peak, bound and roofline fields of g (gflops may be NaN). */
static void fill_bounds(struct bf_rec_gemm *g, const struct gemm_measured *m,
			enum device_kind kind, double gflops)
{
	const struct peak *peak = &m->peak;

	g->peak_gflops = peak->gflops;
	g->peak_basis = bf_xstrdup(peak->basis);
	g->fraction_of_peak = gflops / peak->gflops; /* NaN when either is */
	g->peak_method = bf_xstrdup(peak->method[0] ? peak->method : "unknown");
	g->peak_bound_gflops = peak->bound_gflops;
	g->peak_bound_basis = bf_xstrdup(peak->bound_basis);
	g->peak_disagreement =
		peak->disagreement[0] ? bf_xstrdup(peak->disagreement) : NULL;
	gemm_reference_fill(g, peak, kind != DEVICE_CPU, m->job->dtype,
			    m->job->n, gflops);
	if (m->bandwidth_kind) {
		struct roofline rl;
		const char *bound;

		roofline_place(gemm_flops(m->job->n), g->operand_bytes,
			       peak->gflops, m->bandwidth_gbps, gflops, &rl);
		bound = roofline_bound_name(rl.bound);
		g->bandwidth_kind = bf_xstrdup(m->bandwidth_kind);
		g->bandwidth_gbps = m->bandwidth_gbps;
		g->arithmetic_intensity = rl.arithmetic_intensity;
		g->roofline_gflops = rl.roofline_gflops;
		g->bound = bound ? bf_xstrdup(bound) : NULL;
		g->fraction_of_roofline = rl.fraction;
	}
}

void gemm_fill_record(struct bf_record *rec, const struct device *dev,
		      const struct gemm_measured *m, enum bf_status status,
		      const char *reason, double gflops)
{
	const struct gemm_job *job = m->job;
	const struct gemm_result *res = m->res;
	const struct gemm_verify_result *v = &m->verify;
	struct bf_rec_gemm *g;
	char label[16];

	bf_record_init(rec, BF_REC_GEMM);
	g = &rec->u.gemm;
	g->device = bf_xstrdup(device_label(dev, label, sizeof(label)));
	g->dtype = bf_xstrdup(bf_dtype_name(job->dtype));
	g->n = job->n;
	g->status = status;
	if (status != BF_STATUS_PASS)
		g->reason = bf_xstrdup(reason);
	g->measured = 1;
	g->library = bf_xstrdup(m->library);
	g->math_mode = bf_xstrdup(res->math_mode);
	g->c_dtype = bf_xstrdup(bf_dtype_name(res->c_dtype));
	g->warmup = job->warmup;
	g->warmup_calls = res->warmup_done > job->warmup ? res->warmup_done :
							   job->warmup;
	g->warmup_ms = res->warmup_ms;
	g->iters = job->iters;
	g->samples_ms = res->samples_ms; /* lent: the caller unsets it */
	g->nsamples = job->iters;
	g->median_ms = m->stats.median;
	g->min_ms = m->stats.min;
	g->max_ms = m->stats.max;
	g->gflops = gflops;
	g->peak_mib = res->peak_bytes >= 0 ? (double)res->peak_bytes / MIB : NAN;
	g->operand_bytes = gemm_operand_bytes(job->n, job->dtype, res->c_dtype);
	g->max_rel_error = v->max_rel_error;
	g->tolerance = v->tolerance;
	g->output_roundoff = v->output_roundoff;
	g->verify_seed = (double)m->verify_seed;
	g->verified_elements = (double)v->verified_elements;
	g->nonfinite_elements = (double)v->nonfinite_elements;
	fill_bounds(g, m, dev->kind, gflops);
	g->timing = bf_xstrdup(res->timing[0] ? res->timing : "unknown");
	g->throttled = device_state_fill(&m->before, &res->during, &m->after,
					 &g->device_state);
	gemm_reliability(g, g->warmup_calls, m->stats.median, m->stats.min,
			 m->stats.max);
	fill_energy(g, &res->energy, job->n);
}

/* Reports a run that did not measure (err from gemm_run, detail its
 * words): "does not fit" for an allocation refused after the fit check
 * (fragmentation, another process), skipped for a dtype the library
 * refuses here (cuBLAS's bf16 on an older GPU), else failed with the
 * reason (a CUDA error); the sweep goes on. */
static void report_unrun(struct report *r, struct gemm_sweep *s,
			 const struct backend *be,
			 const struct sweep_device *sd, enum bf_dtype dt,
			 int n, enum bf_err err, const char *detail)
{
	struct bf_record rec;

	if (err == BF_ERR_TOO_BIG || err == BF_ERR_NOMEM) {
		skip_unless_fits(r, s, be, sd, dt, n, operand_need(sd->dev.kind,
								   dt, n),
				 detail, 1);
		return;
	}
	if (err == BF_ERR_UNSUPPORTED) {
		emit_skipped(r, s, &sd->dev, dt, n, detail, 0, 0);
		return;
	}
	unrun_record(&rec, &sd->dev, dt, n, BF_STATUS_FAIL, detail);
	report_emit_record(r, &rec);
	bf_record_free(&rec);
	s->items[s->count++] =
		(struct gemm_outcome){ sd->dev, dt, n, BF_STATUS_FAIL, NAN };
}

/* Runs and reports one (device, dtype, n) GEMM in its phases: fit, run,
 * verify, judge, fill the record. a32/b32: the fp32 inputs, n x n. */
static void run_one(struct report *r, struct gemm_sweep *s,
		    const struct sweep_device *sd, enum bf_dtype dt, int n,
		    const float *a32, const float *b32,
		    const struct agent_opts *o, uint64_t verify_seed)
{
	const struct backend *be = backend_for(sd->dev.kind), *gbe;
	size_t nn = (size_t)n * (size_t)n;
	int cpu = sd->dev.kind == DEVICE_CPU;
	struct gemm_job job = { .dtype = dt, .n = n,
				.warmup = cpu ? o->cpu_warmup : o->warmup,
				.iters = cpu ? o->cpu_iters : o->iters,
				.cold_cache = o->cold_cache };
	struct gemm_result res = { 0 };
	struct gemm_measured m = { .job = &job, .res = &res,
				   .verify_seed = verify_seed,
				   .bandwidth_kind = sd->bandwidth_kind,
				   .bandwidth_gbps = sd->bandwidth_gbps };
	char detail[512] = "";
	double gflops;
	enum bf_status status;
	struct bf_record rec;
	enum bf_err err;

	if (!be || !sd->usable) {
		emit_skipped(r, s, &sd->dev, dt, n, sd->reason, 0, 0);
		return;
	}
	/* The library that runs this dtype here: the device's own, or
	 * oneDNN for the CPU's bf16/fp16 where OpenBLAS has none. */
	gbe = backend_gemm_for(sd->dev.kind, sd->dev.index, dt, detail,
			       sizeof(detail));
	if (!gbe) {
		emit_skipped(r, s, &sd->dev, dt, n, detail, 0, 0);
		return;
	}
	if (skip_unless_fits(r, s, be, sd, dt, n, operand_need(sd->dev.kind,
							       dt, n),
			     NULL, 0))
		return;
	if (dt == BF_DTYPE_FP32 || dt == BF_DTYPE_TF32) {
		/* Read only by the backend and the verification. */
		job.a_host = a32;
		job.b_host = b32;
	} else {
		job.a_host = convert_input(a32, nn, dt, &job.a_scale);
		job.b_host = convert_input(b32, nn, dt, &job.b_scale);
	}
	res.samples_ms = bf_xcalloc((size_t)job.iters, sizeof(double));
	res.warmup_ms = NAN; /* unless the backend measures it */
	if (!job.a_host || !job.b_host) {
		err = bf_fail(detail, sizeof(detail), BF_ERR_NOMEM,
			      "host allocation for %s inputs failed",
			      bf_dtype_name(dt));
	} else {
		be->read_state(sd->dev.index, &m.before);
		err = gbe->gemm_run(sd->dev.index, &job, &res, detail,
				    sizeof(detail));
		be->read_state(sd->dev.index, &m.after);
	}
	if (err != BF_OK) {
		report_unrun(r, s, be, sd, dt, n, err, detail);
		goto out;
	}
	verify_timed(&job, &res, verify_seed, &m.verify, &m.first_failed);
	m.stats = bf_stats_summarize(res.samples_ms, (size_t)job.iters);
	be->peak(sd->dev.index, dt, &m.peak);
	m.library = gbe->gemm_library();
	status = gemm_judge(&m, &gflops, detail, sizeof(detail));
	gemm_fill_record(&rec, &sd->dev, &m, status, detail, gflops);
	report_emit_record(r, &rec);
	rec.u.gemm.samples_ms = NULL;
	bf_record_free(&rec);
	s->items[s->count++] =
		(struct gemm_outcome){ sd->dev, dt, n, status, gflops };
out:
	free(res.c_host);
	free(res.c_first_host);
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
	uint64_t verify_seed = 0;

	out->items = bf_xcalloc((size_t)gemm_count(ndevices, o) + 1,
			     sizeof(*out->items));
	out->count = 0;
	/* Sampled positions differ from run to run (the seed is recorded in
	 * every gemm record): a library wrong only where the previous run
	 * did not look is found eventually. 48 bits, so JSON keeps it exact. */
	if (getrandom(&verify_seed, sizeof(verify_seed), 0) !=
	    (ssize_t)sizeof(verify_seed))
		verify_seed = bf_now_ns();
	verify_seed &= (UINT64_C(1) << 48) - 1;
	for (int si = 0; si < o->nsizes; si++) {
		int n = o->sizes[si];
		size_t nn = (size_t)n * (size_t)n;
		double in_bytes = 2.0 * (double)nn * sizeof(float);
		uint64_t room = 0;
		char limit[64] = "";
		float *a32 = NULL, *b32 = NULL;
		int fits = hostinfo_memory_room(&room, limit, sizeof(limit)) !=
				   BF_OK ||
			   in_bytes <= (double)room;

		/* The fp32 inputs are checked against the host's room before
		 * they are allocated, like every operand after them. */
		if (fits) {
			a32 = hostinfo_alloc_operand(nn * sizeof(float));
			b32 = hostinfo_alloc_operand(nn * sizeof(float));
			if (!a32 || !b32)
				hostinfo_memory_room(&room, limit, sizeof(limit));
		}
		if (!a32 || !b32) {
			char reason[256];

			does_not_fit(reason, sizeof(reason), in_bytes, room,
				     limit, "the host (fp32 inputs)");
			for (int d = 0; d < ndevices; d++)
				for (int t = 0; t < o->ndtypes; t++)
					emit_skipped(r, out, &devs[d].dev,
						     o->dtypes[t], n, reason,
						     in_bytes, (double)room);
		} else {
			gemm_fill_uniform(a32, nn, o->seed, 0);
			gemm_fill_uniform(b32, nn, o->seed, 1);
			for (int d = 0; d < ndevices; d++)
				for (int t = 0; t < o->ndtypes; t++)
					run_one(r, out, &devs[d], o->dtypes[t],
						n, a32, b32, o, verify_seed);
		}
		free(a32);
		free(b32);
	}
}

/* How many results before items[i] have its device, dtype and n: 0 for
 * the first of a size, 1 for a repeated size's second (--sizes
 * 4096,4096), ... */
static int occurrence(const struct gemm_sweep *s, int i)
{
	const struct gemm_outcome *g = &s->items[i];
	int occ = 0;

	for (int j = 0; j < i; j++) {
		const struct gemm_outcome *o = &s->items[j];

		occ += o->dev.kind == g->dev.kind &&
		       o->dev.index == g->dev.index && o->dtype == g->dtype &&
		       o->n == g->n;
	}
	return occ;
}

/* The base of a ratio: the occ-th result (0-based, in sweep order) of
 * that device, dtype and n, when it passed; else NULL. Like is paired
 * with like, as ctl's run model pairs rows (model.c, recompute_ratios):
 * a repeated size's second result over its base's second. */
static const struct gemm_outcome *find(const struct gemm_sweep *s,
				       enum device_kind kind, int index,
				       enum bf_dtype dt, int n, int occ)
{
	for (int i = 0; i < s->count; i++) {
		const struct gemm_outcome *g = &s->items[i];

		if (g->dev.kind == kind && g->dev.index == index &&
		    g->dtype == dt && g->n == n && occ-- == 0)
			return g->status == BF_STATUS_PASS ? g : NULL;
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

		for (int k = 0; k < BF_RATIO_KIND__COUNT; k++) {
			struct bf_ratio_base b;

			if (!bf_ratio_wanted((enum bf_ratio_kind)k, g->dtype,
					     g->status,
					     g->dev.kind == DEVICE_CUDA, &b))
				continue;
			base = b.on_cpu ?
				       find(s, DEVICE_CPU, 0, b.dtype, g->n,
					    occurrence(s, i)) :
				       find(s, g->dev.kind, g->dev.index, b.dtype,
					    g->n, occurrence(s, i));
			if (base)
				add_ratio(sum,
					  bf_ratio_kind_name((enum bf_ratio_kind)k),
					  &g->dev, g->dtype, g->n,
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
