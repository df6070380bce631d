/*
 * --human: renders the same records the NDJSON stream carries as a
 * readable report (the layout of the seed's tables), from the typed
 * records of common/record.h that the encoder writes them from. Missing
 * values print as "n/a", never 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/report.h"
#include "record.h"
#include "schema.h"
#include "xmalloc.h"

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = get(o, k);

	return cJSON_IsString(v) ? v->valuestring : "n/a";
}

/* v with `decimals` digits after the point, or "n/a" when missing (NaN:
 * the record's null or an absent key). */
static void num(char *buf, size_t len, double v, int decimals)
{
	if (isfinite(v))
		snprintf(buf, len, "%.*f", decimals, v);
	else
		snprintf(buf, len, "n/a");
}

/* s, or "n/a" for a missing (NULL) string. */
static const char *or_na(const char *s)
{
	return s ? s : "n/a";
}

/* bytes as "%.1f GiB", or "n/a" when NaN. */
static void gib(char *buf, size_t len, double bytes)
{
	if (isnan(bytes))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.1f GiB", bytes / 1073741824.0);
}

/* v with no decimals, or "n/a" when NaN. */
static void whole(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.0f", v);
}

static void print_host(FILE *out, const struct bf_rec_host *h)
{
	char mem[32], cores[16], thr[16];

	gib(mem, sizeof(mem), h->memory_bytes);
	whole(cores, sizeof(cores), h->cpu_cores);
	whole(thr, sizeof(thr), h->openblas_threads);
	fprintf(out, "=== host ===\n%s  %s  %s  kernel %s\ncpu: %s, %s cores, %s\n",
		or_na(h->hostname), or_na(h->os), or_na(h->arch),
		or_na(h->kernel), or_na(h->cpu_model), cores, mem);
	fprintf(out, "openblas %s, core %s, %s threads\n",
		or_na(h->openblas_version), or_na(h->openblas_core), thr);
	if (strcmp(or_na(h->cuda_status), BF_STATUS_SKIPPED_STR) == 0)
		fprintf(out, "cuda: skipped: %s\n", or_na(h->cuda_reason));
	else
		fprintf(out, "cuda: driver %s (CUDA %s), runtime %s, cuBLAS %s\n",
			or_na(h->cuda_driver_version),
			or_na(h->cuda_driver_cuda_version),
			or_na(h->cuda_runtime_version),
			or_na(h->cuda_cublas_version));
	for (int i = 0; i < h->ngpus; i++) {
		const struct bf_rec_gpu *g = &h->gpus[i];
		char gmem[32];

		gib(gmem, sizeof(gmem), g->memory_bytes);
		fprintf(out, "cuda:%d: %s, compute %s, %s%s\n", (int)g->index,
			or_na(g->name), or_na(g->compute_capability), gmem,
			g->unified_memory == 1 ? " (unified with host)" : "");
	}
}

static void print_shape(FILE *out, const cJSON *arr)
{
	const cJSON *v;
	int n = 0;

	fputc('(', out);
	cJSON_ArrayForEach(v, arr)
		fprintf(out, "%s%.0f", n++ ? ", " : "", v->valuedouble);
	fputs(n == 1 ? ",)" : ")", out);
}

/* A number of a check's free-form "got" value; 0 when absent. */
static double got_num(const cJSON *got, const char *key)
{
	const cJSON *v = get(got, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void print_check(FILE *out, const struct bf_rec_check *c)
{
	static int header;

	if (!header++)
		fprintf(out, "\n=== checks ===\n");
	fprintf(out, "%-4s %-7s %-26s", c->status == BF_STATUS_PASS ? "ok" :
		c->status == BF_STATUS_FAIL ? "FAIL" : "skip",
		or_na(c->device), or_na(c->name));
	if (c->name && strncmp(c->name, "props.", 6) == 0 &&
	    cJSON_IsObject(c->got)) {
		fprintf(out, " rank=%.0f shape=", got_num(c->got, "rank"));
		print_shape(out, get(c->got, "shape"));
		fprintf(out, " dtype=%s elem=%.0fB total=%.0fB",
			str(c->got, BF_KEY_DTYPE),
			got_num(c->got, "element_bytes"),
			got_num(c->got, "total_bytes"));
	}
	if (c->has_metrics)
		fprintf(out, " H2D %.1f/%.1f GB/s, D2H %.1f/%.1f GB/s (pageable/pinned)",
			c->metrics.h2d_pageable_gbps, c->metrics.h2d_pinned_gbps,
			c->metrics.d2h_pageable_gbps, c->metrics.d2h_pinned_gbps);
	if (c->reason)
		fprintf(out, " (%s)", c->reason);
	fputc('\n', out);
}

static void print_limits(FILE *out, const struct bf_rec_float_limits *l)
{
	static int header;

	if (!header++)
		fprintf(out, "\n=== float limits ===\n");
	fprintf(out, "%-5s max=%.3e eps=%.3e smallest_normal=%.3e bits=%d\n",
		or_na(l->dtype), l->max, l->eps, l->smallest_normal, l->bits);
}

/* The peaks seen, one per device and dtype, printed before the summary:
 * where each %peak comes from (docs/schema.md, "Peaks, bounds and
 * references"). Strings owned (whole, never cut); the process prints one
 * report, so they live until it exits. */
#define HUMAN_PEAKS_MAX 16
static struct {
	char *device, *dtype, *method;
	double rated, bound;
	char *basis, *bound_basis, *disagreement, *reference;
	double reference_gflops;
} peaks[HUMAN_PEAKS_MAX];
static int npeaks;

static char *dup_or(const char *s, const char *dflt)
{
	return bf_xstrdup(s ? s : dflt);
}

static void remember_peak(const struct bf_rec_gemm *g)
{
	if (!g->measured || !g->peak_basis)
		return;
	for (int i = 0; i < npeaks; i++)
		if (strcmp(peaks[i].device, or_na(g->device)) == 0 &&
		    strcmp(peaks[i].dtype, or_na(g->dtype)) == 0)
			return;
	if (npeaks == HUMAN_PEAKS_MAX)
		return;
	peaks[npeaks].device = dup_or(g->device, "n/a");
	peaks[npeaks].dtype = dup_or(g->dtype, "n/a");
	peaks[npeaks].method = dup_or(g->peak_method, "n/a");
	peaks[npeaks].rated = g->peak_gflops;
	peaks[npeaks].bound = g->peak_method ? g->peak_bound_gflops : NAN;
	peaks[npeaks].basis = dup_or(g->peak_basis, "n/a");
	peaks[npeaks].bound_basis = dup_or(g->peak_method ?
						   g->peak_bound_basis :
						   NULL,
					   "n/a");
	peaks[npeaks].disagreement = dup_or(g->peak_method ?
						    g->peak_disagreement :
						    NULL,
					    "");
	peaks[npeaks].reference = dup_or(g->reference_source, "");
	peaks[npeaks].reference_gflops =
		g->reference_source ? g->reference_gflops : NAN;
	npeaks++;
}

static void print_peaks(FILE *out)
{
	if (npeaks == 0)
		return;
	fprintf(out, "\n=== peaks (%%peak is of the rated peak; a result above "
		     "1.1 x the bound is invalid) ===\n");
	for (int i = 0; i < npeaks; i++) {
		char rated[32], bound[32];

		num(rated, sizeof(rated), peaks[i].rated, 1);
		num(bound, sizeof(bound), peaks[i].bound, 1);
		fprintf(out, "%s %s: rated %s GFLOP/s (%s): %s\n",
			peaks[i].device, peaks[i].dtype, rated, peaks[i].method,
			peaks[i].basis);
		fprintf(out, "  bound %s GFLOP/s: %s\n", bound,
			peaks[i].bound_basis);
		if (peaks[i].disagreement[0])
			fprintf(out, "  probe and table disagree: %s\n",
				peaks[i].disagreement);
		if (peaks[i].reference[0])
			fprintf(out, "  reference %.1f GFLOP/s at this n: %s\n",
				peaks[i].reference_gflops, peaks[i].reference);
	}
}

/* 100 x a fraction with one decimal, or "n/a". */
static void pct(char *buf, size_t len, double fraction)
{
	num(buf, len, 100 * fraction, 1);
}

static void print_gemm(FILE *out, const struct bf_rec_gemm *g)
{
	static int header;
	char med[32], gf[32], peak[32], ai[32], roof[32], frac[32];
	char pk[32], ref[32];
	/* What the record carries: an unmeasured row only its median and
	 * GFLOP/s; the roofline with the bandwidth; %peak with a peak,
	 * vs_ref with a reference (record_encode.c, encode_gemm). */
	int roofline = g->measured && g->bandwidth_kind;

	if (!header++)
		fprintf(out,
			"\n=== GEMM (median of timed iterations; roofline: "
			"min(peak, FLOP/B x bandwidth); vs_ref: %% of a "
			"published measurement) ===\n"
			"%-7s %-5s %6s %11s %11s %9s %8s %11s %-7s %6s %6s "
			"%6s  %s\n",
			"device", "dtype", "n", "median_ms", "GFLOP/s",
			"peak_MiB", "FLOP/B", "roofline", "bound", "%roof",
			"%peak", "vs_ref", "check");
	num(med, sizeof(med), g->median_ms, 3);
	num(gf, sizeof(gf), g->gflops, 1);
	num(peak, sizeof(peak), g->measured ? g->peak_mib : NAN, 0);
	num(ai, sizeof(ai), roofline ? g->arithmetic_intensity : NAN, 1);
	num(roof, sizeof(roof), roofline ? g->roofline_gflops : NAN, 1);
	pct(frac, sizeof(frac), roofline ? g->fraction_of_roofline : NAN);
	pct(pk, sizeof(pk), g->measured && g->peak_basis ?
				    g->fraction_of_peak : NAN);
	pct(ref, sizeof(ref), g->measured && g->reference_source ?
				      g->fraction_of_reference : NAN);
	fprintf(out, "%-7s %-5s %6d %11s %11s %9s %8s %11s %-7s %6s %6s %6s  %s",
		or_na(g->device), or_na(g->dtype), g->n, med, gf, peak, ai,
		roof, or_na(roofline ? g->bound : NULL), frac, pk, ref,
		bf_schema_status_name(g->status));
	if (g->measured && g->reference_source && g->below_reference == 1)
		fprintf(out, ", below reference");
	if (g->reason)
		fprintf(out, " (%s)", g->reason);
	fputc('\n', out);
	remember_peak(g);
}

static void print_bandwidth(FILE *out, const struct bf_rec_bandwidth *b)
{
	static int header;
	char gbps[32], mib[32], med[32], thr[16];

	if (!header++)
		fprintf(out, "\n=== memory bandwidth (median; GB/s = 1e9 B/s, "
			     "bytes read + written) ===\n"
			     "%-7s %-13s %10s %10s %8s %7s  %s\n", "device", "kind",
			"array_MiB", "median_ms", "GB/s", "threads", "check");
	num(gbps, sizeof(gbps), b->median_gbps, 1);
	num(med, sizeof(med), b->measured ? b->median_ms : NAN, 3);
	num(thr, sizeof(thr), b->measured ? b->threads : NAN, 0);
	num(mib, sizeof(mib), b->measured ? b->array_bytes / 1048576.0 : NAN,
	    1);
	fprintf(out, "%-7s %-13s %10s %10s %8s %7s  %s", or_na(b->device),
		or_na(b->kind), mib, med, gbps, thr,
		bf_schema_status_name(b->status));
	if (b->reason)
		fprintf(out, " (%s)", b->reason);
	fputc('\n', out);
}

static void print_batching(FILE *out, const struct bf_rec_batching *b)
{
	static int header;
	char one[32], batch[32], one_rps[32], batch_rps[32], sp[32];

	if (!header++)
		fprintf(out, "\n=== batching: 20 one-row calls vs one (20, 30) "
			     "batch, model 30-16-relu-1 ===\n"
			     "%-7s %-5s %12s %12s %12s %12s %8s  %s\n", "device",
			"dtype", "one_row_ms", "batch_ms", "one_rows/s",
			"batch_rows/s", "speedup", "check");
	num(one, sizeof(one), b->measured ? b->single_ms : NAN, 4);
	num(batch, sizeof(batch), b->measured ? b->batch_ms : NAN, 4);
	num(one_rps, sizeof(one_rps), b->measured ? b->single_rows_per_s : NAN,
	    0);
	num(batch_rps, sizeof(batch_rps),
	    b->measured ? b->batch_rows_per_s : NAN, 0);
	num(sp, sizeof(sp), b->speedup, 1);
	fprintf(out, "%-7s %-5s %12s %12s %12s %12s %8s  %s", or_na(b->device),
		or_na(b->dtype), one, batch, one_rps, batch_rps, sp,
		bf_schema_status_name(b->status));
	if (b->reason)
		fprintf(out, " (%s)", b->reason);
	fputc('\n', out);
}

static void print_summary(FILE *out, const struct bf_rec_summary *s)
{
	print_peaks(out);
	fprintf(out, "\n=== summary ===\n");
	for (int i = 0; i < s->nratios; i++) {
		const struct bf_rec_ratio *r = &s->ratios[i];
		char v[32];

		num(v, sizeof(v), r->value,
		    strcmp(or_na(r->kind), BF_RATIO_GPU_VS_CPU) == 0 ? 1 : 2);
		if (strcmp(or_na(r->kind), BF_RATIO_GPU_VS_CPU) == 0)
			fprintf(out, "%s vs cpu at fp32, n=%d: %sx\n",
				or_na(r->device), r->n, v);
		else
			fprintf(out, "%s %s vs fp32, n=%d: %sx\n",
				or_na(r->device), or_na(r->dtype), r->n, v);
	}
	fprintf(out, "checks: %d passed, %d failed, %.0f skipped; "
		     "GEMM: %d passed, %d failed, %.0f skipped\n",
		s->checks_passed, s->checks_failed,
		isnan(s->checks_skipped) ? 0 : s->checks_skipped,
		s->gemm_passed, s->gemm_failed,
		isnan(s->gemm_skipped) ? 0 : s->gemm_skipped);
}

void human_print(FILE *out, const struct bf_record *r)
{
	switch (r->type) {
	case BF_REC_HOST:
		print_host(out, &r->u.host);
		break;
	case BF_REC_CHECK:
		print_check(out, &r->u.check);
		break;
	case BF_REC_FLOAT_LIMITS:
		print_limits(out, &r->u.float_limits);
		break;
	case BF_REC_GEMM:
		print_gemm(out, &r->u.gemm);
		break;
	case BF_REC_BANDWIDTH:
		print_bandwidth(out, &r->u.bandwidth);
		break;
	case BF_REC_BATCHING:
		print_batching(out, &r->u.batching);
		break;
	case BF_REC_SUMMARY:
		print_summary(out, &r->u.summary);
		break;
	default: /* the plan: nothing to print */
		break;
	}
}
