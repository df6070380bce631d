/*
 * The one encoder of the agent's records, from the typed structs of
 * record.h to JSON (bf_record_encode), and the exact printing of their
 * numbers (bf_json_exact_numbers). Keys are written in the order the
 * agent always has, so a record's line stays byte for byte what it was
 * before the types.
 */
#include "record.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "xmalloc.h"

/* --- writing JSON ---------------------------------------------------- */

static cJSON *checked(cJSON *o)
{
	if (!o) /* cJSON reports allocation failure as NULL */
		bf_xmalloc((size_t)-1);
	return o;
}

static void add_str_or_null(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

/* A number the schema always carries: null when missing (NaN, Inf). */
static void add_num_or_null(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* An optional number: left out when missing. */
static void add_num_opt(cJSON *o, const char *key, double v)
{
	if (!isnan(v))
		cJSON_AddNumberToObject(o, key, v);
}

/* A flag the schema always carries: null when unknown (-1). */
static void add_flag_or_null(cJSON *o, const char *key, int v)
{
	if (v >= 0)
		cJSON_AddBoolToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* One reading of a device_state, keys in the order the agent has always
 * written them (docs/schema.md, device_state). */
static cJSON *state_encode(const struct bf_rec_state *st)
{
	cJSON *o = checked(cJSON_CreateObject());

	if (!st->is_gpu) {
		add_str_or_null(o, "governor", st->governor);
		add_num_or_null(o, "freq_mhz", st->freq_mhz);
		return o;
	}
	if (st->reason) {
		cJSON_AddStringToObject(o, BF_KEY_REASON, st->reason);
		return o;
	}
	add_num_or_null(o, "sm_clock_mhz", st->sm_clock_mhz);
	add_num_or_null(o, "sm_clock_max_mhz", st->sm_clock_max_mhz);
	add_num_or_null(o, "mem_clock_mhz", st->mem_clock_mhz);
	add_num_or_null(o, "mem_clock_max_mhz", st->mem_clock_max_mhz);
	add_num_or_null(o, "power_w", st->power_w);
	add_num_or_null(o, "power_limit_w", st->power_limit_w);
	add_num_or_null(o, "temperature_c", st->temperature_c);
	add_flag_or_null(o, "persistence_mode", st->persistence_mode);
	add_flag_or_null(o, "mig_mode", st->mig_mode);
	add_flag_or_null(o, "ecc_mode", st->ecc_mode);
	add_str_or_null(o, "clock_event_reasons", st->clock_event_reasons);
	return o;
}

/* The gemm record's device_state: before, during (when read), after, a
 * GPU's violation counters, throttled (1, 0, -1 null). */
static cJSON *device_state_encode(const struct bf_rec_device_state *ds,
				  int throttled)
{
	cJSON *o = checked(cJSON_CreateObject());

	cJSON_AddItemToObject(o, BF_KEY_BEFORE, state_encode(&ds->before));
	if (ds->has_during)
		cJSON_AddItemToObject(o, "during", state_encode(&ds->during));
	cJSON_AddItemToObject(o, BF_KEY_AFTER, state_encode(&ds->after));
	if (ds->before.is_gpu) {
		add_num_or_null(o, "power_violation_ms", ds->power_violation_ms);
		add_num_or_null(o, "thermal_violation_ms",
				ds->thermal_violation_ms);
	}
	add_flag_or_null(o, BF_KEY_THROTTLED, throttled);
	return o;
}

cJSON *bf_rec_options_encode(const struct bf_rec_options *o)
{
	cJSON *opts = checked(cJSON_CreateObject()), *arr;

	arr = cJSON_AddArrayToObject(opts, BF_KEY_SIZES);
	for (int i = 0; i < o->nsizes; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(o->sizes[i]));
	arr = cJSON_AddArrayToObject(opts, BF_KEY_DTYPES);
	for (int i = 0; i < o->ndtypes; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(o->dtypes[i]));
	add_num_opt(opts, BF_KEY_ITERS, o->iters);
	add_num_opt(opts, BF_KEY_CPU_ITERS, o->cpu_iters);
	add_num_opt(opts, BF_KEY_WARMUP, o->warmup);
	add_num_opt(opts, BF_KEY_CPU_WARMUP, o->cpu_warmup);
	add_num_opt(opts, BF_KEY_SEED, o->seed);
	if (o->cold_cache)
		cJSON_AddBoolToObject(opts, BF_KEY_COLD_CACHE, 1);
	if (o->no_bandwidth)
		cJSON_AddBoolToObject(opts, BF_KEY_NO_BANDWIDTH, 1);
	if (o->bandwidth_mib > 0)
		cJSON_AddNumberToObject(opts, BF_KEY_BANDWIDTH_MIB, o->bandwidth_mib);
	if (o->no_batching)
		cJSON_AddBoolToObject(opts, BF_KEY_NO_BATCHING, 1);
	if (o->device[0])
		cJSON_AddStringToObject(opts, BF_KEY_DEVICE, o->device);
	return opts;
}

/* {"NAME": "value" | null, ...} in the list's order. */
static void add_env(cJSON *o, const char *key, const struct bf_rec_env *env,
		    int n)
{
	cJSON *e = checked(cJSON_AddObjectToObject(o, key));

	for (int i = 0; i < n; i++)
		add_str_or_null(e, env[i].name, env[i].value);
}

/* A boolean the schema always carries: null when unknown (-1). */
static void add_bool_or_null(cJSON *o, const char *key, int v)
{
	if (v >= 0)
		cJSON_AddBoolToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void encode_gpu(cJSON *arr, const struct bf_rec_gpu *d)
{
	cJSON *g = checked(cJSON_CreateObject());

	cJSON_AddItemToArray(arr, g);
	add_num_or_null(g, BF_KEY_INDEX, d->index);
	add_str_or_null(g, BF_KEY_NAME, d->name);
	add_num_or_null(g, BF_KEY_MEMORY_BYTES, d->memory_bytes);
	add_str_or_null(g, BF_KEY_COMPUTE_CAPABILITY, d->compute_capability);
	add_str_or_null(g, BF_KEY_PCI_BUS_ID, d->pci_bus_id);
	add_str_or_null(g, BF_KEY_UUID, d->uuid);
	add_num_or_null(g, BF_KEY_CLOCK_MHZ, d->clock_mhz);
	add_num_or_null(g, BF_KEY_SM_COUNT, d->sm_count);
	add_bool_or_null(g, BF_KEY_UNIFIED_MEMORY, d->unified_memory);
}

static void encode_host(cJSON *o, const struct bf_rec_host *h)
{
	cJSON *x = checked(cJSON_AddObjectToObject(o, BF_KEY_AGENT));

	add_str_or_null(x, BF_KEY_VERSION, h->agent_version);
	add_str_or_null(x, BF_KEY_SOURCE_HASH, h->agent_source_hash);
	x = checked(cJSON_AddObjectToObject(o, BF_KEY_CJSON));
	add_str_or_null(x, BF_KEY_VERSION, h->cjson_version);
	add_str_or_null(x, BF_KEY_SOURCE, h->cjson_source);
	add_env(o, BF_KEY_ENV, h->env, h->nenv);
	add_str_or_null(o, BF_KEY_HOSTNAME, h->hostname);
	add_str_or_null(o, BF_KEY_OS, h->os);
	add_str_or_null(o, BF_KEY_KERNEL, h->kernel);
	add_str_or_null(o, BF_KEY_ARCH, h->arch);
	add_str_or_null(o, BF_KEY_CPU_MODEL, h->cpu_model);
	add_num_or_null(o, BF_KEY_CPU_CORES, h->cpu_cores);
	add_num_or_null(o, BF_KEY_MEMORY_BYTES, h->memory_bytes);
	x = checked(cJSON_AddObjectToObject(o, BF_KEY_OPENBLAS));
	add_str_or_null(x, BF_KEY_VERSION, h->openblas_version);
	add_str_or_null(x, BF_KEY_CORE, h->openblas_core);
	add_str_or_null(x, BF_KEY_CORE_REPLACED, h->openblas_core_replaced);
	add_num_or_null(x, BF_KEY_THREADS, h->openblas_threads);
	add_str_or_null(x, BF_KEY_CONFIG, h->openblas_config);
	add_bool_or_null(x, BF_KEY_SBGEMM, h->openblas_sbgemm);
	add_bool_or_null(x, BF_KEY_SHGEMM, h->openblas_shgemm);
	add_env(x, BF_KEY_ENV, h->openblas_env, h->nopenblas_env);
	x = checked(cJSON_AddObjectToObject(o, BF_KEY_CUDA));
	if (h->cuda_libraries) {
		add_str_or_null(x, BF_KEY_DRIVER_VERSION, h->cuda_driver_version);
		add_str_or_null(x, BF_KEY_DRIVER_CUDA_VERSION,
				h->cuda_driver_cuda_version);
		add_str_or_null(x, BF_KEY_RUNTIME_VERSION, h->cuda_runtime_version);
		add_str_or_null(x, BF_KEY_CUBLAS_VERSION, h->cuda_cublas_version);
		add_str_or_null(x, BF_KEY_CUDA_ARCHITECTURES,
				h->cuda_architectures);
		add_str_or_null(x, BF_KEY_TF32_OVERRIDE, h->cuda_tf32_override);
	}
	add_str_or_null(x, BF_KEY_STATUS, h->cuda_status);
	add_str_or_null(x, BF_KEY_REASON, h->cuda_reason);
	x = checked(cJSON_AddArrayToObject(o, BF_KEY_GPUS));
	for (int i = 0; i < h->ngpus; i++)
		encode_gpu(x, &h->gpus[i]);
	if (h->options.present)
		cJSON_AddItemToObject(o, BF_KEY_OPTIONS,
				      bf_rec_options_encode(&h->options));
}

static void encode_plan(cJSON *o, const struct bf_rec_plan *p)
{
	cJSON *arr = cJSON_AddArrayToObject(o, BF_KEY_DEVICES);

	for (int i = 0; i < p->ndevices; i++) {
		cJSON *d = checked(cJSON_CreateObject());

		cJSON_AddItemToArray(arr, d);
		cJSON_AddStringToObject(d, BF_KEY_DEVICE, p->devices[i].device);
		cJSON_AddStringToObject(d, BF_KEY_STATUS,
					bf_schema_status_name(p->devices[i].status));
		add_str_or_null(d, BF_KEY_REASON, p->devices[i].reason);
	}
	cJSON_AddNumberToObject(o, BF_KEY_CHECKS_TOTAL, p->checks_total);
	cJSON_AddNumberToObject(o, BF_KEY_GEMM_TOTAL, p->gemm_total);
	if (p->bandwidth_total >= 0)
		cJSON_AddNumberToObject(o, BF_KEY_BANDWIDTH_TOTAL, p->bandwidth_total);
	if (p->batching_total >= 0)
		cJSON_AddNumberToObject(o, BF_KEY_BATCHING_TOTAL, p->batching_total);
}

static void encode_check(cJSON *o, const struct bf_rec_check *c)
{
	cJSON_AddStringToObject(o, BF_KEY_NAME, c->name);
	cJSON_AddStringToObject(o, BF_KEY_DEVICE, c->device);
	cJSON_AddStringToObject(o, BF_KEY_STATUS, bf_schema_status_name(c->status));
	cJSON_AddItemToObject(o, BF_KEY_EXPECTED,
			      checked(c->expected ? cJSON_Duplicate(c->expected, 1) :
						    cJSON_CreateNull()));
	cJSON_AddItemToObject(o, BF_KEY_GOT,
			      checked(c->got ? cJSON_Duplicate(c->got, 1) :
					       cJSON_CreateNull()));
	add_str_or_null(o, BF_KEY_REASON, c->reason);
	if (c->has_metrics) {
		cJSON *m = cJSON_AddObjectToObject(o, BF_KEY_METRICS);

		add_num_or_null(m, BF_KEY_BYTES, c->metrics.bytes);
		add_num_or_null(m, BF_KEY_H2D_PAGEABLE_GBPS, c->metrics.h2d_pageable_gbps);
		add_num_or_null(m, BF_KEY_D2H_PAGEABLE_GBPS, c->metrics.d2h_pageable_gbps);
		add_num_or_null(m, BF_KEY_H2D_PINNED_GBPS, c->metrics.h2d_pinned_gbps);
		add_num_or_null(m, BF_KEY_D2H_PINNED_GBPS, c->metrics.d2h_pinned_gbps);
	}
}

static void encode_limits(cJSON *o, const struct bf_rec_float_limits *l)
{
	cJSON_AddStringToObject(o, BF_KEY_DTYPE, l->dtype);
	cJSON_AddNumberToObject(o, BF_KEY_BITS, l->bits);
	add_num_opt(o, BF_KEY_EXPONENT_BITS, l->exponent_bits);
	add_num_opt(o, BF_KEY_MANTISSA_BITS, l->mantissa_bits);
	add_num_or_null(o, BF_KEY_MAX, l->max);
	add_num_or_null(o, BF_KEY_EPS, l->eps);
	add_num_or_null(o, BF_KEY_SMALLEST_NORMAL, l->smallest_normal);
	add_num_opt(o, BF_KEY_SMALLEST_SUBNORMAL, l->smallest_subnormal);
}

static void encode_gemm(cJSON *o, const struct bf_rec_gemm *g)
{
	cJSON *samples;

	cJSON_AddStringToObject(o, BF_KEY_DEVICE, g->device);
	cJSON_AddStringToObject(o, BF_KEY_DTYPE, g->dtype);
	cJSON_AddNumberToObject(o, BF_KEY_N, g->n);
	cJSON_AddStringToObject(o, BF_KEY_STATUS, bf_schema_status_name(g->status));
	add_str_or_null(o, BF_KEY_REASON, g->reason);
	if (!g->measured) {
		add_num_or_null(o, BF_KEY_MEDIAN_MS, g->median_ms);
		add_num_or_null(o, BF_KEY_GFLOPS, g->gflops);
		add_num_opt(o, BF_KEY_NEEDED_BYTES, g->needed_bytes);
		add_num_opt(o, BF_KEY_FREE_BYTES, g->free_bytes);
		return;
	}
	add_str_or_null(o, BF_KEY_LIBRARY, g->library);
	add_str_or_null(o, BF_KEY_MATH_MODE, g->math_mode);
	add_str_or_null(o, BF_KEY_C_DTYPE, g->c_dtype);
	cJSON_AddNumberToObject(o, BF_KEY_WARMUP, g->warmup);
	cJSON_AddNumberToObject(o, BF_KEY_ITERS, g->iters);
	samples = cJSON_AddArrayToObject(o, BF_KEY_SAMPLES_MS);
	for (int i = 0; i < g->nsamples; i++)
		cJSON_AddItemToArray(samples, checked(cJSON_CreateNumber(g->samples_ms[i])));
	add_num_or_null(o, BF_KEY_MEDIAN_MS, g->median_ms);
	add_num_or_null(o, BF_KEY_MIN_MS, g->min_ms);
	add_num_or_null(o, BF_KEY_MAX_MS, g->max_ms);
	add_num_or_null(o, BF_KEY_GFLOPS, g->gflops);
	add_num_or_null(o, BF_KEY_PEAK_MIB, g->peak_mib);
	add_num_or_null(o, BF_KEY_OPERAND_BYTES, g->operand_bytes);
	add_num_or_null(o, BF_KEY_MAX_REL_ERROR, g->max_rel_error);
	add_num_or_null(o, BF_KEY_TOLERANCE, g->tolerance);
	add_num_opt(o, BF_KEY_OUTPUT_ROUNDOFF, g->output_roundoff);
	add_num_opt(o, BF_KEY_VERIFY_SEED, g->verify_seed);
	add_num_or_null(o, BF_KEY_VERIFIED_ELEMENTS, g->verified_elements);
	add_num_or_null(o, BF_KEY_NONFINITE_ELEMENTS, g->nonfinite_elements);
	if (g->peak_basis) {
		add_num_or_null(o, BF_KEY_PEAK_GFLOPS, g->peak_gflops);
		add_str_or_null(o, BF_KEY_PEAK_BASIS, g->peak_basis);
		add_num_or_null(o, BF_KEY_FRACTION_OF_PEAK, g->fraction_of_peak);
	}
	if (g->peak_method) {
		add_str_or_null(o, BF_KEY_PEAK_METHOD, g->peak_method);
		add_num_or_null(o, BF_KEY_PEAK_BOUND_GFLOPS,
				g->peak_bound_gflops);
		add_str_or_null(o, BF_KEY_PEAK_BOUND_BASIS,
				g->peak_bound_basis);
		add_str_or_null(o, BF_KEY_PEAK_DISAGREEMENT,
				g->peak_disagreement);
	}
	if (g->reference_source) {
		add_num_or_null(o, BF_KEY_REFERENCE_GFLOPS,
				g->reference_gflops);
		add_str_or_null(o, BF_KEY_REFERENCE_SOURCE,
				g->reference_source);
		add_num_or_null(o, BF_KEY_FRACTION_OF_REFERENCE,
				g->fraction_of_reference);
		if (g->below_reference >= 0)
			cJSON_AddBoolToObject(o, BF_KEY_BELOW_REFERENCE,
					      g->below_reference);
		else
			cJSON_AddNullToObject(o, BF_KEY_BELOW_REFERENCE);
	}
	if (g->timing)
		add_str_or_null(o, BF_KEY_TIMING, g->timing);
	if (g->reliable >= 0) {
		cJSON *arr;

		cJSON_AddBoolToObject(o, BF_KEY_RELIABLE, g->reliable);
		arr = cJSON_AddArrayToObject(o, BF_KEY_UNRELIABLE_REASONS);
		for (int i = 0; i < g->nunreliable; i++)
			cJSON_AddItemToArray(arr, checked(cJSON_CreateString(
							  g->unreliable_reasons[i])));
		add_num_or_null(o, BF_KEY_SPREAD, g->spread);
	}
	if (g->device_state.present)
		cJSON_AddItemToObject(o, BF_KEY_DEVICE_STATE,
				      device_state_encode(&g->device_state,
							  g->throttled));
	if (g->bandwidth_kind) {
		add_str_or_null(o, BF_KEY_BANDWIDTH_KIND, g->bandwidth_kind);
		add_num_or_null(o, BF_KEY_BANDWIDTH_GBPS, g->bandwidth_gbps);
		add_num_or_null(o, BF_KEY_ARITHMETIC_INTENSITY,
				g->arithmetic_intensity);
		add_num_or_null(o, BF_KEY_ROOFLINE_GFLOPS, g->roofline_gflops);
		add_str_or_null(o, BF_KEY_BOUND, g->bound);
		add_num_or_null(o, BF_KEY_FRACTION_OF_ROOFLINE,
				g->fraction_of_roofline);
	}
	if (g->warmup_calls >= 0)
		cJSON_AddNumberToObject(o, BF_KEY_WARMUP_CALLS, g->warmup_calls);
	add_num_opt(o, BF_KEY_WARMUP_MS, g->warmup_ms);
	if (g->energy_source) {
		cJSON *e = checked(cJSON_AddObjectToObject(o, BF_KEY_ENERGY));

		cJSON_AddStringToObject(e, BF_KEY_SOURCE, g->energy_source);
		add_num_or_null(e, BF_KEY_JOULES, g->energy_j);
		add_num_or_null(e, BF_KEY_SECONDS, g->energy_s);
		add_num_or_null(e, BF_KEY_GEMMS, g->energy_gemms);
		add_num_or_null(e, BF_KEY_WATTS, g->energy_w);
		add_num_or_null(e, BF_KEY_GFLOP_PER_JOULE, g->gflop_per_joule);
		add_str_or_null(e, BF_KEY_REASON, g->energy_reason);
	}
}

/* An array of numbers (NaN and infinity written as null by cJSON). */
static void add_num_array(cJSON *o, const char *key, const double *v, int n)
{
	cJSON *arr = cJSON_AddArrayToObject(o, key);

	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, checked(cJSON_CreateNumber(v[i])));
}

static void encode_bandwidth(cJSON *o, const struct bf_rec_bandwidth *b)
{
	cJSON_AddStringToObject(o, BF_KEY_DEVICE, b->device);
	cJSON_AddStringToObject(o, BF_KEY_KIND, b->kind);
	cJSON_AddStringToObject(o, BF_KEY_STATUS, bf_schema_status_name(b->status));
	add_str_or_null(o, BF_KEY_REASON, b->reason);
	add_num_or_null(o, BF_KEY_MEDIAN_GBPS, b->median_gbps);
	if (!b->measured) {
		add_num_opt(o, BF_KEY_NEEDED_BYTES, b->needed_bytes);
		add_num_opt(o, BF_KEY_FREE_BYTES, b->free_bytes);
		return;
	}
	add_str_or_null(o, BF_KEY_DTYPE, b->dtype);
	add_num_or_null(o, BF_KEY_ARRAY_BYTES, b->array_bytes);
	add_num_or_null(o, BF_KEY_BYTES, b->bytes);
	add_str_or_null(o, BF_KEY_COUNTING, b->counting);
	add_num_or_null(o, BF_KEY_THREADS, b->threads);
	cJSON_AddNumberToObject(o, BF_KEY_WARMUP, b->warmup);
	cJSON_AddNumberToObject(o, BF_KEY_ITERS, b->iters);
	add_num_array(o, BF_KEY_SAMPLES_MS, b->samples_ms, b->nsamples);
	add_num_or_null(o, BF_KEY_MEDIAN_MS, b->median_ms);
	add_num_or_null(o, BF_KEY_MIN_MS, b->min_ms);
	add_num_or_null(o, BF_KEY_MAX_MS, b->max_ms);
	add_str_or_null(o, BF_KEY_TIMING, b->timing);
}

static void encode_batching(cJSON *o, const struct bf_rec_batching *b)
{
	cJSON *arr;

	cJSON_AddStringToObject(o, BF_KEY_DEVICE, b->device);
	cJSON_AddStringToObject(o, BF_KEY_DTYPE, b->dtype);
	cJSON_AddStringToObject(o, BF_KEY_STATUS, bf_schema_status_name(b->status));
	add_str_or_null(o, BF_KEY_REASON, b->reason);
	add_num_or_null(o, BF_KEY_SPEEDUP, b->speedup);
	if (!b->measured)
		return;
	add_str_or_null(o, BF_KEY_MODEL, b->model);
	arr = cJSON_AddArrayToObject(o, BF_KEY_LAYERS);
	for (int i = 0; i < b->nlayers; i++)
		cJSON_AddItemToArray(arr, checked(cJSON_CreateNumber(b->layers[i])));
	cJSON_AddNumberToObject(o, BF_KEY_ROWS, b->rows);
	cJSON_AddNumberToObject(o, BF_KEY_FEATURES, b->features);
	add_str_or_null(o, BF_KEY_LIBRARY, b->library);
	add_str_or_null(o, BF_KEY_MATH_MODE, b->math_mode);
	add_str_or_null(o, BF_KEY_TIMING, b->timing);
	cJSON_AddNumberToObject(o, BF_KEY_WARMUP, b->warmup);
	cJSON_AddNumberToObject(o, BF_KEY_ITERS, b->iters);
	add_num_array(o, BF_KEY_SINGLE_SAMPLES_MS, b->single_samples_ms,
		      b->nsingle);
	add_num_array(o, BF_KEY_BATCH_SAMPLES_MS, b->batch_samples_ms, b->nbatch);
	add_num_or_null(o, BF_KEY_SINGLE_MS, b->single_ms);
	add_num_or_null(o, BF_KEY_BATCH_MS, b->batch_ms);
	add_num_or_null(o, BF_KEY_SINGLE_ROWS_PER_S, b->single_rows_per_s);
	add_num_or_null(o, BF_KEY_BATCH_ROWS_PER_S, b->batch_rows_per_s);
	add_num_or_null(o, BF_KEY_MAX_ABS_DIFF, b->max_abs_diff);
	add_num_or_null(o, BF_KEY_MAX_ABS_ERROR, b->max_abs_error);
	add_num_or_null(o, BF_KEY_TOLERANCE, b->tolerance);
	add_num_array(o, BF_KEY_SCORES, b->scores, b->nscores);
	add_num_array(o, BF_KEY_EXPECTED_SCORES, b->expected_scores,
		      b->nexpected);
}

static void encode_summary(cJSON *o, const struct bf_rec_summary *s)
{
	cJSON *arr = cJSON_AddArrayToObject(o, BF_KEY_RATIOS);

	for (int i = 0; i < s->nratios; i++) {
		const struct bf_rec_ratio *x = &s->ratios[i];
		cJSON *r = checked(cJSON_CreateObject());

		cJSON_AddItemToArray(arr, r);
		cJSON_AddStringToObject(r, BF_KEY_KIND, x->kind);
		cJSON_AddStringToObject(r, BF_KEY_DEVICE, x->device);
		cJSON_AddStringToObject(r, BF_KEY_DTYPE, x->dtype);
		cJSON_AddNumberToObject(r, BF_KEY_N, x->n);
		/* cJSON writes a non-finite number as null, as before. */
		cJSON_AddNumberToObject(r, BF_KEY_VALUE, x->value);
	}
	cJSON_AddNumberToObject(o, BF_KEY_CHECKS_PASSED, s->checks_passed);
	cJSON_AddNumberToObject(o, BF_KEY_CHECKS_FAILED, s->checks_failed);
	add_num_opt(o, BF_KEY_CHECKS_SKIPPED, s->checks_skipped);
	cJSON_AddNumberToObject(o, BF_KEY_GEMM_PASSED, s->gemm_passed);
	cJSON_AddNumberToObject(o, BF_KEY_GEMM_FAILED, s->gemm_failed);
	add_num_opt(o, BF_KEY_GEMM_SKIPPED, s->gemm_skipped);
	cJSON_AddNumberToObject(o, BF_KEY_EXIT_STATUS, s->exit_status);
	add_num_opt(o, BF_KEY_WALL_MS, s->wall_ms);
	add_num_opt(o, BF_KEY_BANDWIDTH_PASSED, s->bandwidth_passed);
	add_num_opt(o, BF_KEY_BANDWIDTH_FAILED, s->bandwidth_failed);
	add_num_opt(o, BF_KEY_BANDWIDTH_SKIPPED, s->bandwidth_skipped);
	add_num_opt(o, BF_KEY_BATCHING_PASSED, s->batching_passed);
	add_num_opt(o, BF_KEY_BATCHING_FAILED, s->batching_failed);
	add_num_opt(o, BF_KEY_BATCHING_SKIPPED, s->batching_skipped);
}

cJSON *bf_record_encode(const struct bf_record *r)
{
	cJSON *o;

	if ((int)r->type < 0 || r->type >= BF_REC__COUNT)
		return NULL;
	o = checked(cJSON_CreateObject());
	cJSON_AddNumberToObject(o, BF_KEY_SCHEMA, BF_SCHEMA_VERSION);
	cJSON_AddStringToObject(o, BF_KEY_TYPE, bf_schema_type_name(r->type));
	cJSON_AddNumberToObject(o, BF_KEY_SEQ, r->seq > 0 ? r->seq : 0);
	switch (r->type) {
	case BF_REC_HOST:
		encode_host(o, &r->u.host);
		break;
	case BF_REC_PLAN:
		encode_plan(o, &r->u.plan);
		break;
	case BF_REC_CHECK:
		encode_check(o, &r->u.check);
		break;
	case BF_REC_FLOAT_LIMITS:
		encode_limits(o, &r->u.float_limits);
		break;
	case BF_REC_GEMM:
		encode_gemm(o, &r->u.gemm);
		break;
	case BF_REC_SUMMARY:
		encode_summary(o, &r->u.summary);
		break;
	case BF_REC_BANDWIDTH:
		encode_bandwidth(o, &r->u.bandwidth);
		break;
	case BF_REC_BATCHING:
		encode_batching(o, &r->u.batching);
		break;
	default:
		break;
	}
	return o;
}

/*
 * cJSON 1.7.15 prints a number with %1.15g when that reads back within one
 * DBL_EPSILON of the value (relative), so a double can come back one unit
 * in the last place off, and -0 prints as 0. An exact text for every
 * finite double: the shortest of 15, 16 and 17 significant digits that
 * strtod reads back bit for bit (17 always does: IEEE 754-2008 5.12.2).
 * Written into a cJSON raw item, which cJSON prints verbatim; this is the
 * text cJSON's own printer produces, only checked exactly.
 */
static cJSON *exact_number_item(double d)
{
	char buf[40];

	for (int digits = 15; digits <= 17; digits++) {
		double back;

		snprintf(buf, sizeof(buf), "%.*g", digits, d);
		back = strtod(buf, NULL);
		if (memcmp(&back, &d, sizeof(d)) == 0)
			break;
	}
	return checked(cJSON_CreateRaw(buf));
}

/* Whether cJSON prints d exactly by itself: an integer it writes with %d
 * (not -0), or a value outside JSON (NaN, infinities: written null). */
static int cjson_prints_exactly(const cJSON *item)
{
	double d = item->valuedouble;

	if (!isfinite(d))
		return 1;
	return d == (double)item->valueint && !(d == 0 && signbit(d));
}

void bf_json_print_exact(FILE *f, cJSON *doc)
{
	char *text;

	bf_json_exact_numbers(doc);
	text = cJSON_Print(doc);
	if (!text)
		bf_xmalloc_fatal("bf_json_print_exact");
	fputs(text, f);
	fputc('\n', f);
	cJSON_free(text);
	cJSON_Delete(doc);
}

void bf_json_exact_numbers(cJSON *tree)
{
	cJSON *child, *next;

	if (!tree)
		return;
	for (child = tree->child; child; child = next) {
		next = child->next;
		if (cJSON_IsNumber(child) && !cjson_prints_exactly(child)) {
			/* The item becomes raw in place, keeping its key and
			 * place; the text moves over, allocated by cJSON. */
			cJSON *raw = exact_number_item(child->valuedouble);

			child->type = cJSON_Raw |
				      (child->type & cJSON_StringIsConst);
			child->valuestring = raw->valuestring;
			raw->valuestring = NULL;
			cJSON_Delete(raw);
		} else {
			bf_json_exact_numbers(child);
		}
	}
}
