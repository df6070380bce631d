/*
 * --human: renders the same records the NDJSON stream carries as a
 * readable report (the layout of the seed's tables). Missing values print
 * as "n/a", never 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/report.h"

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = get(o, k);

	return cJSON_IsString(v) ? v->valuestring : "n/a";
}

/* A number with `decimals` digits after the point, or "n/a". */
static void num(char *buf, size_t len, const cJSON *o, const char *k,
		int decimals)
{
	const cJSON *v = get(o, k);

	if (cJSON_IsNumber(v))
		snprintf(buf, len, "%.*f", decimals, v->valuedouble);
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

static void print_check(FILE *out, const cJSON *rec)
{
	static int header;
	const char *status = str(rec, BF_KEY_STATUS);
	const cJSON *got = get(rec, BF_KEY_GOT), *m = get(rec, BF_KEY_METRICS);

	if (!header++)
		fprintf(out, "\n=== checks ===\n");
	fprintf(out, "%-4s %-7s %-26s", strcmp(status, "pass") == 0 ? "ok" :
		strcmp(status, "fail") == 0 ? "FAIL" : "skip",
		str(rec, BF_KEY_DEVICE), str(rec, BF_KEY_NAME));
	if (strncmp(str(rec, BF_KEY_NAME), "props.", 6) == 0 &&
	    cJSON_IsObject(got)) {
		fprintf(out, " rank=%.0f shape=", get(got, "rank")->valuedouble);
		print_shape(out, get(got, "shape"));
		fprintf(out, " dtype=%s elem=%.0fB total=%.0fB",
			str(got, BF_KEY_DTYPE),
			get(got, "element_bytes")->valuedouble,
			get(got, "total_bytes")->valuedouble);
	}
	if (cJSON_IsObject(m))
		fprintf(out, " H2D %.1f/%.1f GB/s, D2H %.1f/%.1f GB/s (pageable/pinned)",
			get(m, BF_KEY_H2D_PAGEABLE_GBPS)->valuedouble,
			get(m, BF_KEY_H2D_PINNED_GBPS)->valuedouble,
			get(m, BF_KEY_D2H_PAGEABLE_GBPS)->valuedouble,
			get(m, BF_KEY_D2H_PINNED_GBPS)->valuedouble);
	if (cJSON_IsString(get(rec, BF_KEY_REASON)))
		fprintf(out, " (%s)", str(rec, BF_KEY_REASON));
	fputc('\n', out);
}

static void print_limits(FILE *out, const cJSON *rec)
{
	static int header;

	if (!header++)
		fprintf(out, "\n=== float limits ===\n");
	fprintf(out, "%-5s max=%.3e eps=%.3e smallest_normal=%.3e bits=%.0f\n",
		str(rec, BF_KEY_DTYPE), get(rec, BF_KEY_MAX)->valuedouble,
		get(rec, BF_KEY_EPS)->valuedouble,
		get(rec, BF_KEY_SMALLEST_NORMAL)->valuedouble,
		get(rec, BF_KEY_BITS)->valuedouble);
}

/* The peaks seen, one per device and dtype, printed before the summary:
 * where each %peak comes from (docs/schema.md, "Peaks, bounds and
 * references"). */
#define HUMAN_PEAKS_MAX 16
static struct {
	char device[16], dtype[8], method[24];
	double rated, bound;
	char basis[640], bound_basis[320], disagreement[256], reference[320];
	double reference_gflops;
} peaks[HUMAN_PEAKS_MAX];
static int npeaks;

static void remember_peak(const cJSON *rec)
{
	const cJSON *v;

	if (!cJSON_IsString(get(rec, BF_KEY_PEAK_BASIS)))
		return;
	for (int i = 0; i < npeaks; i++)
		if (strcmp(peaks[i].device, str(rec, BF_KEY_DEVICE)) == 0 &&
		    strcmp(peaks[i].dtype, str(rec, BF_KEY_DTYPE)) == 0)
			return;
	if (npeaks == HUMAN_PEAKS_MAX)
		return;
	snprintf(peaks[npeaks].device, sizeof(peaks[npeaks].device), "%s",
		 str(rec, BF_KEY_DEVICE));
	snprintf(peaks[npeaks].dtype, sizeof(peaks[npeaks].dtype), "%s",
		 str(rec, BF_KEY_DTYPE));
	snprintf(peaks[npeaks].method, sizeof(peaks[npeaks].method), "%s",
		 str(rec, BF_KEY_PEAK_METHOD));
	v = get(rec, BF_KEY_PEAK_GFLOPS);
	peaks[npeaks].rated = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	v = get(rec, BF_KEY_PEAK_BOUND_GFLOPS);
	peaks[npeaks].bound = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	snprintf(peaks[npeaks].basis, sizeof(peaks[npeaks].basis), "%s",
		 str(rec, BF_KEY_PEAK_BASIS));
	snprintf(peaks[npeaks].bound_basis, sizeof(peaks[npeaks].bound_basis),
		 "%s", str(rec, BF_KEY_PEAK_BOUND_BASIS));
	v = get(rec, BF_KEY_PEAK_DISAGREEMENT);
	snprintf(peaks[npeaks].disagreement, sizeof(peaks[npeaks].disagreement),
		 "%s", cJSON_IsString(v) ? v->valuestring : "");
	v = get(rec, BF_KEY_REFERENCE_SOURCE);
	snprintf(peaks[npeaks].reference, sizeof(peaks[npeaks].reference), "%s",
		 cJSON_IsString(v) ? v->valuestring : "");
	v = get(rec, BF_KEY_REFERENCE_GFLOPS);
	peaks[npeaks].reference_gflops =
		cJSON_IsNumber(v) ? v->valuedouble : NAN;
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

		snprintf(rated, sizeof(rated),
			 isnan(peaks[i].rated) ? "n/a" : "%.1f",
			 peaks[i].rated);
		snprintf(bound, sizeof(bound),
			 isnan(peaks[i].bound) ? "n/a" : "%.1f",
			 peaks[i].bound);
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
static void pct(char *buf, size_t len, const cJSON *rec, const char *key)
{
	const cJSON *f = get(rec, key);

	if (cJSON_IsNumber(f))
		snprintf(buf, len, "%.1f", 100 * f->valuedouble);
	else
		snprintf(buf, len, "n/a");
}

static void print_gemm(FILE *out, const cJSON *rec)
{
	static int header;
	char med[32], gf[32], peak[32], ai[32], roof[32], frac[32];
	char pk[32], ref[32];
	const cJSON *below = get(rec, BF_KEY_BELOW_REFERENCE);

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
	num(med, sizeof(med), rec, BF_KEY_MEDIAN_MS, 3);
	num(gf, sizeof(gf), rec, BF_KEY_GFLOPS, 1);
	num(peak, sizeof(peak), rec, BF_KEY_PEAK_MIB, 0);
	num(ai, sizeof(ai), rec, BF_KEY_ARITHMETIC_INTENSITY, 1);
	num(roof, sizeof(roof), rec, BF_KEY_ROOFLINE_GFLOPS, 1);
	pct(frac, sizeof(frac), rec, BF_KEY_FRACTION_OF_ROOFLINE);
	pct(pk, sizeof(pk), rec, BF_KEY_FRACTION_OF_PEAK);
	pct(ref, sizeof(ref), rec, BF_KEY_FRACTION_OF_REFERENCE);
	fprintf(out,
		"%-7s %-5s %6.0f %11s %11s %9s %8s %11s %-7s %6s %6s %6s  %s",
		str(rec, BF_KEY_DEVICE), str(rec, BF_KEY_DTYPE),
		get(rec, BF_KEY_N)->valuedouble, med, gf, peak, ai, roof,
		str(rec, BF_KEY_BOUND), frac, pk, ref, str(rec, BF_KEY_STATUS));
	if (cJSON_IsTrue(below))
		fprintf(out, ", below reference");
	if (cJSON_IsString(get(rec, BF_KEY_REASON)))
		fprintf(out, " (%s)", str(rec, BF_KEY_REASON));
	fputc('\n', out);
	remember_peak(rec);
}

static void print_bandwidth(FILE *out, const cJSON *rec)
{
	static int header;
	char gbps[32], mib[32], med[32], thr[16];
	const cJSON *ab = get(rec, BF_KEY_ARRAY_BYTES);

	if (!header++)
		fprintf(out, "\n=== memory bandwidth (median; GB/s = 1e9 B/s, "
			     "bytes read + written) ===\n"
			     "%-7s %-13s %10s %10s %8s %7s  %s\n", "device", "kind",
			"array_MiB", "median_ms", "GB/s", "threads", "check");
	num(gbps, sizeof(gbps), rec, BF_KEY_MEDIAN_GBPS, 1);
	num(med, sizeof(med), rec, BF_KEY_MEDIAN_MS, 3);
	num(thr, sizeof(thr), rec, BF_KEY_THREADS, 0);
	if (cJSON_IsNumber(ab))
		snprintf(mib, sizeof(mib), "%.1f", ab->valuedouble / 1048576.0);
	else
		snprintf(mib, sizeof(mib), "n/a");
	fprintf(out, "%-7s %-13s %10s %10s %8s %7s  %s", str(rec, BF_KEY_DEVICE),
		str(rec, BF_KEY_KIND), mib, med, gbps, thr,
		str(rec, BF_KEY_STATUS));
	if (cJSON_IsString(get(rec, BF_KEY_REASON)))
		fprintf(out, " (%s)", str(rec, BF_KEY_REASON));
	fputc('\n', out);
}

static void print_batching(FILE *out, const cJSON *rec)
{
	static int header;
	char one[32], batch[32], one_rps[32], batch_rps[32], sp[32];

	if (!header++)
		fprintf(out, "\n=== batching: 20 one-row calls vs one (20, 30) "
			     "batch, model 30-16-relu-1 ===\n"
			     "%-7s %-5s %12s %12s %12s %12s %8s  %s\n", "device",
			"dtype", "one_row_ms", "batch_ms", "one_rows/s",
			"batch_rows/s", "speedup", "check");
	num(one, sizeof(one), rec, BF_KEY_SINGLE_MS, 4);
	num(batch, sizeof(batch), rec, BF_KEY_BATCH_MS, 4);
	num(one_rps, sizeof(one_rps), rec, BF_KEY_SINGLE_ROWS_PER_S, 0);
	num(batch_rps, sizeof(batch_rps), rec, BF_KEY_BATCH_ROWS_PER_S, 0);
	num(sp, sizeof(sp), rec, BF_KEY_SPEEDUP, 1);
	fprintf(out, "%-7s %-5s %12s %12s %12s %12s %8s  %s",
		str(rec, BF_KEY_DEVICE), str(rec, BF_KEY_DTYPE), one, batch,
		one_rps, batch_rps, sp, str(rec, BF_KEY_STATUS));
	if (cJSON_IsString(get(rec, BF_KEY_REASON)))
		fprintf(out, " (%s)", str(rec, BF_KEY_REASON));
	fputc('\n', out);
}

static void print_summary(FILE *out, const cJSON *rec)
{
	const cJSON *r;

	print_peaks(out);
	fprintf(out, "\n=== summary ===\n");
	cJSON_ArrayForEach(r, get(rec, BF_KEY_RATIOS)) {
		if (strcmp(str(r, BF_KEY_KIND), BF_RATIO_GPU_VS_CPU) == 0)
			fprintf(out, "%s vs cpu at fp32, n=%.0f: %.1fx\n",
				str(r, BF_KEY_DEVICE), get(r, BF_KEY_N)->valuedouble,
				get(r, BF_KEY_VALUE)->valuedouble);
		else
			fprintf(out, "%s %s vs fp32, n=%.0f: %.2fx\n",
				str(r, BF_KEY_DEVICE), str(r, BF_KEY_DTYPE),
				get(r, BF_KEY_N)->valuedouble,
				get(r, BF_KEY_VALUE)->valuedouble);
	}
	fprintf(out, "checks: %.0f passed, %.0f failed, %.0f skipped; "
		     "GEMM: %.0f passed, %.0f failed, %.0f skipped\n",
		get(rec, BF_KEY_CHECKS_PASSED)->valuedouble,
		get(rec, BF_KEY_CHECKS_FAILED)->valuedouble,
		get(rec, BF_KEY_CHECKS_SKIPPED)->valuedouble,
		get(rec, BF_KEY_GEMM_PASSED)->valuedouble,
		get(rec, BF_KEY_GEMM_FAILED)->valuedouble,
		get(rec, BF_KEY_GEMM_SKIPPED)->valuedouble);
}

void human_print(FILE *out, const struct bf_record *r, const cJSON *rec)
{
	const char *type = str(rec, BF_KEY_TYPE);

	if (r->type == BF_REC_HOST)
		print_host(out, &r->u.host);
	else if (strcmp(type, BF_TYPE_CHECK) == 0)
		print_check(out, rec);
	else if (strcmp(type, BF_TYPE_FLOAT_LIMITS) == 0)
		print_limits(out, rec);
	else if (strcmp(type, BF_TYPE_GEMM) == 0)
		print_gemm(out, rec);
	else if (strcmp(type, BF_TYPE_BANDWIDTH) == 0)
		print_bandwidth(out, rec);
	else if (strcmp(type, BF_TYPE_BATCHING) == 0)
		print_batching(out, rec);
	else if (strcmp(type, BF_TYPE_SUMMARY) == 0)
		print_summary(out, rec);
}
