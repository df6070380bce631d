/*
 * Typed records (see record.h): a record's life from the agent's JSON to
 * its free: initialised (every field absent: NaN, NULL or -1), decoded
 * by the one decoder of the agent's JSON (the reader has checked the
 * record against docs/schema.json first, schema.c), freed. Its one
 * encoder is record_encode.c; comparing records is record_compare.c's.
 */
#include "record.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bf_text.h"
#include "xmalloc.h"

/* --- reading JSON ---------------------------------------------------- */

/*
 * The members of the record being decoded, by key: a gemm record has
 * some 45 members and its decoder asks for about 55 keys, so a scan per
 * key (cJSON_GetObjectItemCaseSensitive) cost more than the parse itself.
 * An open-addressing table of the object's members keyed by FNV-1a of
 * the key (Fowler, Noll, Vo; the 32-bit parameters of
 * http://www.isthe.com/chongo/tech/comp/fnv/), built once per record;
 * the first of a repeated key is kept, as cJSON's lookup finds it. Only
 * the top-level object of the record being decoded (thread-local), and
 * only when it has at most KEY_INDEX_MAX members; get() falls back to
 * cJSON's scan for everything else.
 */
#define KEY_INDEX_SLOTS 128 /* a power of two */
#define KEY_INDEX_MAX 96

struct key_index {
	const cJSON *object;
	const cJSON *slot[KEY_INDEX_SLOTS];
};

static _Thread_local const struct key_index *decoding;

static uint32_t key_hash(const char *key)
{
	uint32_t h = 2166136261u;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h;
}

/* Indexes o's members into x; 0 when o has more than KEY_INDEX_MAX. */
static int key_index_build(struct key_index *x, const cJSON *o)
{
	const cJSON *e;
	int n = 0;

	memset(x, 0, sizeof(*x));
	cJSON_ArrayForEach(e, o) {
		uint32_t i;

		if (!e->string)
			continue;
		if (++n > KEY_INDEX_MAX)
			return 0;
		for (i = key_hash(e->string) & (KEY_INDEX_SLOTS - 1);
		     x->slot[i]; i = (i + 1) & (KEY_INDEX_SLOTS - 1))
			if (strcmp(x->slot[i]->string, e->string) == 0)
				break;
		if (!x->slot[i])
			x->slot[i] = e;
	}
	x->object = o;
	return 1;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	const struct key_index *x = decoding;

	if (x && o && x->object == o) {
		for (uint32_t i = key_hash(key) & (KEY_INDEX_SLOTS - 1);
		     x->slot[i]; i = (i + 1) & (KEY_INDEX_SLOTS - 1))
			if (strcmp(x->slot[i]->string, key) == 0)
				return x->slot[i];
		return NULL;
	}
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A copy of the string at key, NULL when absent, null or not a string. */
static char *dup_str(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return cJSON_IsString(v) ? bf_xstrdup(v->valuestring) : NULL;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A number as an int: 0 when it is absent, not a whole number or outside
 * int's range. bf_schema_parse_record refuses such records; the check here
 * keeps the cast defined for JSON that did not pass through it. */
static int int_of(double v)
{
	return bf_schema_int_ok(v, INT_MIN, INT_MAX) ? (int)v : 0;
}

/* A required number (validated by bf_schema_parse_record) as an int. */
static int req_int(const cJSON *o, const char *key)
{
	return int_of(num(o, key));
}

static int boolean(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

/* One reading of a device_state (bf_rec_state): a CPU's has "governor"
 * or "freq_mhz", a GPU's the NVML fields or only "reason". */
static void parse_state(const cJSON *o, struct bf_rec_state *st)
{
	bf_rec_state_init(st);
	if (!cJSON_IsObject(o))
		return;
	if (get(o, "governor") || get(o, "freq_mhz")) {
		st->governor = dup_str(o, "governor");
		st->freq_mhz = num(o, "freq_mhz");
		return;
	}
	st->is_gpu = 1;
	st->reason = dup_str(o, BF_KEY_REASON);
	st->sm_clock_mhz = num(o, "sm_clock_mhz");
	st->sm_clock_max_mhz = num(o, "sm_clock_max_mhz");
	st->mem_clock_mhz = num(o, "mem_clock_mhz");
	st->mem_clock_max_mhz = num(o, "mem_clock_max_mhz");
	st->power_w = num(o, "power_w");
	st->power_limit_w = num(o, "power_limit_w");
	st->temperature_c = num(o, "temperature_c");
	st->persistence_mode = boolean(o, "persistence_mode");
	st->mig_mode = boolean(o, "mig_mode");
	st->ecc_mode = boolean(o, "ecc_mode");
	st->clock_event_reasons = dup_str(o, "clock_event_reasons");
}

/* A gemm record's device_state object into *ds; returns its throttled
 * (1, 0, -1 null or absent). */
static int parse_device_state(const cJSON *o, struct bf_rec_device_state *ds)
{
	bf_rec_device_state_init(ds);
	ds->present = 1;
	parse_state(get(o, BF_KEY_BEFORE), &ds->before);
	ds->has_during = cJSON_IsObject(get(o, "during"));
	if (ds->has_during)
		parse_state(get(o, "during"), &ds->during);
	parse_state(get(o, BF_KEY_AFTER), &ds->after);
	ds->power_violation_ms = num(o, "power_violation_ms");
	ds->thermal_violation_ms = num(o, "thermal_violation_ms");
	return boolean(o, BF_KEY_THROTTLED);
}

void bf_rec_state_init(struct bf_rec_state *st)
{
	memset(st, 0, sizeof(*st));
	st->freq_mhz = NAN;
	st->sm_clock_mhz = st->sm_clock_max_mhz = NAN;
	st->mem_clock_mhz = st->mem_clock_max_mhz = NAN;
	st->power_w = st->power_limit_w = st->temperature_c = NAN;
	st->persistence_mode = st->mig_mode = st->ecc_mode = -1;
}

void bf_rec_device_state_init(struct bf_rec_device_state *ds)
{
	memset(ds, 0, sizeof(*ds));
	bf_rec_state_init(&ds->before);
	bf_rec_state_init(&ds->during);
	bf_rec_state_init(&ds->after);
	ds->power_violation_ms = ds->thermal_violation_ms = NAN;
}

static void state_free(struct bf_rec_state *st)
{
	free(st->governor);
	free(st->reason);
	free(st->clock_event_reasons);
}

void bf_rec_device_state_free(struct bf_rec_device_state *ds)
{
	state_free(&ds->before);
	state_free(&ds->during);
	state_free(&ds->after);
	bf_rec_device_state_init(ds);
}

/* An optional count: -1 when absent, null or not a number. */
static int opt_int(const cJSON *o, const char *key)
{
	double v = num(o, key);

	return isfinite(v) && v >= 0 && v < 2e9 ? (int)v : -1;
}

/* The numbers of the array at key, owned (null elements read as NaN);
 * NULL with *n = 0 when key is not an array. */
static double *num_array(const cJSON *o, const char *key, int *n)
{
	const cJSON *arr = get(o, key), *v;
	double *out;

	*n = 0;
	if (!cJSON_IsArray(arr))
		return NULL;
	out = bf_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*out));
	cJSON_ArrayForEach(v, arr)
		out[(*n)++] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	return out;
}

static enum bf_status status_of(const cJSON *o, enum bf_status dflt)
{
	const cJSON *v = get(o, BF_KEY_STATUS);
	enum bf_status st = dflt;

	if (cJSON_IsString(v))
		bf_schema_status_parse(v->valuestring, &st);
	return st;
}

static void decode_options(const cJSON *o, struct bf_rec_options *out)
{
	const cJSON *arr, *v;
	int i;

	memset(out, 0, sizeof(*out));
	out->iters = out->cpu_iters = out->warmup = out->cpu_warmup = NAN;
	out->seed = out->bandwidth_mib = NAN;
	if (!cJSON_IsObject(o))
		return;
	out->present = 1;
	arr = get(o, BF_KEY_SIZES);
	if (cJSON_IsArray(arr)) {
		out->sizes = bf_xcalloc((size_t)cJSON_GetArraySize(arr) + 1,
					sizeof(*out->sizes));
		i = 0;
		cJSON_ArrayForEach(v, arr)
			out->sizes[i++] = cJSON_IsNumber(v) ? int_of(v->valuedouble) : 0;
		out->nsizes = i;
	}
	arr = get(o, BF_KEY_DTYPES);
	if (cJSON_IsArray(arr)) {
		out->dtypes = bf_xcalloc((size_t)cJSON_GetArraySize(arr) + 1,
					 sizeof(*out->dtypes));
		i = 0;
		cJSON_ArrayForEach(v, arr)
			out->dtypes[i++] = bf_xstrdup(cJSON_IsString(v) ?
							      v->valuestring : "");
		out->ndtypes = i;
	}
	out->iters = num(o, BF_KEY_ITERS);
	out->cpu_iters = num(o, BF_KEY_CPU_ITERS);
	out->warmup = num(o, BF_KEY_WARMUP);
	out->cpu_warmup = num(o, BF_KEY_CPU_WARMUP);
	out->seed = num(o, BF_KEY_SEED);
	out->cold_cache = boolean(o, BF_KEY_COLD_CACHE) == 1;
	out->no_bandwidth = boolean(o, BF_KEY_NO_BANDWIDTH) == 1;
	out->bandwidth_mib = num(o, BF_KEY_BANDWIDTH_MIB);
	out->no_batching = boolean(o, BF_KEY_NO_BATCHING) == 1;
	v = get(o, BF_KEY_DEVICE);
	/* The schema allows "cpu" and "cuda" only; anything longer is cut
	 * ending in "...", so it never reads as either. */
	if (cJSON_IsString(v))
		(void)bf_text_fmt(out->device, sizeof(out->device), "%s",
				  v->valuestring);
}

/* An object of variables, {"NAME": "value" | null, ...}, in its order
 * into *out (owned); *n entries. */
static void decode_env(const cJSON *obj, struct bf_rec_env **out, int *n)
{
	const cJSON *e;

	if (!cJSON_IsObject(obj))
		return;
	*out = bf_xcalloc((size_t)cJSON_GetArraySize(obj) + 1, sizeof(**out));
	cJSON_ArrayForEach(e, obj) {
		struct bf_rec_env *x = &(*out)[(*n)++];

		x->name = bf_xstrdup(e->string ? e->string : "");
		x->value = cJSON_IsString(e) ? bf_xstrdup(e->valuestring) : NULL;
	}
}

static void decode_gpu(const cJSON *g, struct bf_rec_gpu *d)
{
	d->index = num(g, BF_KEY_INDEX);
	d->name = dup_str(g, BF_KEY_NAME);
	d->memory_bytes = num(g, BF_KEY_MEMORY_BYTES);
	d->compute_capability = dup_str(g, BF_KEY_COMPUTE_CAPABILITY);
	d->pci_bus_id = dup_str(g, BF_KEY_PCI_BUS_ID);
	d->uuid = dup_str(g, BF_KEY_UUID);
	d->clock_mhz = num(g, BF_KEY_CLOCK_MHZ);
	d->sm_count = num(g, BF_KEY_SM_COUNT);
	d->unified_memory = boolean(g, BF_KEY_UNIFIED_MEMORY);
}

static void decode_host(const cJSON *j, struct bf_rec_host *h)
{
	const cJSON *agent = get(j, BF_KEY_AGENT), *ob = get(j, BF_KEY_OPENBLAS);
	const cJSON *cu = get(j, BF_KEY_CUDA), *gpus = get(j, BF_KEY_GPUS), *g;
	const cJSON *cj = get(j, BF_KEY_CJSON);

	h->agent_version = dup_str(agent, BF_KEY_VERSION);
	h->agent_source_hash = dup_str(agent, BF_KEY_SOURCE_HASH);
	h->cjson_version = dup_str(cj, BF_KEY_VERSION);
	h->cjson_source = dup_str(cj, BF_KEY_SOURCE);
	decode_env(get(j, BF_KEY_ENV), &h->env, &h->nenv);
	h->hostname = dup_str(j, BF_KEY_HOSTNAME);
	h->os = dup_str(j, BF_KEY_OS);
	h->kernel = dup_str(j, BF_KEY_KERNEL);
	h->arch = dup_str(j, BF_KEY_ARCH);
	h->cpu_model = dup_str(j, BF_KEY_CPU_MODEL);
	h->cpu_cores = num(j, BF_KEY_CPU_CORES);
	h->memory_bytes = num(j, BF_KEY_MEMORY_BYTES);
	h->openblas_version = dup_str(ob, BF_KEY_VERSION);
	h->openblas_core = dup_str(ob, BF_KEY_CORE);
	h->openblas_core_replaced = dup_str(ob, BF_KEY_CORE_REPLACED);
	h->openblas_config = dup_str(ob, BF_KEY_CONFIG);
	h->openblas_threads = num(ob, BF_KEY_THREADS);
	h->openblas_sbgemm = boolean(ob, BF_KEY_SBGEMM);
	h->openblas_shgemm = boolean(ob, BF_KEY_SHGEMM);
	decode_env(get(ob, BF_KEY_ENV), &h->openblas_env, &h->nopenblas_env);
	h->cuda_libraries = get(cu, BF_KEY_CUBLAS_VERSION) != NULL;
	h->cuda_status = dup_str(cu, BF_KEY_STATUS);
	h->cuda_reason = dup_str(cu, BF_KEY_REASON);
	h->cuda_driver_version = dup_str(cu, BF_KEY_DRIVER_VERSION);
	h->cuda_driver_cuda_version = dup_str(cu, BF_KEY_DRIVER_CUDA_VERSION);
	h->cuda_runtime_version = dup_str(cu, BF_KEY_RUNTIME_VERSION);
	h->cuda_cublas_version = dup_str(cu, BF_KEY_CUBLAS_VERSION);
	h->cuda_architectures = dup_str(cu, BF_KEY_CUDA_ARCHITECTURES);
	h->cuda_tf32_override = dup_str(cu, BF_KEY_TF32_OVERRIDE);
	if (cJSON_IsArray(gpus)) {
		h->gpus = bf_xcalloc((size_t)cJSON_GetArraySize(gpus) + 1,
				     sizeof(*h->gpus));
		cJSON_ArrayForEach(g, gpus)
			decode_gpu(g, &h->gpus[h->ngpus++]);
	}
	decode_options(get(j, BF_KEY_OPTIONS), &h->options);
}

static void decode_plan(const cJSON *j, struct bf_rec_plan *p)
{
	const cJSON *devs = get(j, BF_KEY_DEVICES), *d;

	p->devices = bf_xcalloc((size_t)cJSON_GetArraySize(devs) + 1,
				sizeof(*p->devices));
	cJSON_ArrayForEach(d, devs) {
		struct bf_rec_plan_device *pd = &p->devices[p->ndevices++];

		pd->device = dup_str(d, BF_KEY_DEVICE);
		pd->status = status_of(d, BF_STATUS_SKIPPED);
		pd->reason = dup_str(d, BF_KEY_REASON);
	}
	p->checks_total = req_int(j, BF_KEY_CHECKS_TOTAL);
	p->gemm_total = req_int(j, BF_KEY_GEMM_TOTAL);
	p->bandwidth_total = opt_int(j, BF_KEY_BANDWIDTH_TOTAL);
	p->batching_total = opt_int(j, BF_KEY_BATCHING_TOTAL);
}

static void decode_check(const cJSON *j, struct bf_rec_check *c)
{
	const cJSON *v, *m = get(j, BF_KEY_METRICS);

	c->name = dup_str(j, BF_KEY_NAME);
	c->device = dup_str(j, BF_KEY_DEVICE);
	c->status = status_of(j, BF_STATUS_FAIL);
	v = get(j, BF_KEY_EXPECTED);
	c->expected = v && !cJSON_IsNull(v) ? cJSON_Duplicate(v, 1) : NULL;
	v = get(j, BF_KEY_GOT);
	c->got = v && !cJSON_IsNull(v) ? cJSON_Duplicate(v, 1) : NULL;
	c->reason = dup_str(j, BF_KEY_REASON);
	c->has_metrics = cJSON_IsObject(m);
	c->metrics.bytes = num(m, BF_KEY_BYTES);
	c->metrics.h2d_pageable_gbps = num(m, BF_KEY_H2D_PAGEABLE_GBPS);
	c->metrics.d2h_pageable_gbps = num(m, BF_KEY_D2H_PAGEABLE_GBPS);
	c->metrics.h2d_pinned_gbps = num(m, BF_KEY_H2D_PINNED_GBPS);
	c->metrics.d2h_pinned_gbps = num(m, BF_KEY_D2H_PINNED_GBPS);
}

static void decode_limits(const cJSON *j, struct bf_rec_float_limits *l)
{
	l->dtype = dup_str(j, BF_KEY_DTYPE);
	l->bits = req_int(j, BF_KEY_BITS);
	l->exponent_bits = num(j, BF_KEY_EXPONENT_BITS);
	l->mantissa_bits = num(j, BF_KEY_MANTISSA_BITS);
	l->max = num(j, BF_KEY_MAX);
	l->eps = num(j, BF_KEY_EPS);
	l->smallest_normal = num(j, BF_KEY_SMALLEST_NORMAL);
	l->smallest_subnormal = num(j, BF_KEY_SMALLEST_SUBNORMAL);
}

static void decode_gemm(const cJSON *j, struct bf_rec_gemm *g)
{
	const cJSON *samples = get(j, BF_KEY_SAMPLES_MS), *v;

	g->device = dup_str(j, BF_KEY_DEVICE);
	g->dtype = dup_str(j, BF_KEY_DTYPE);
	g->n = req_int(j, BF_KEY_N);
	g->status = status_of(j, BF_STATUS_FAIL);
	g->reason = dup_str(j, BF_KEY_REASON);
	g->median_ms = num(j, BF_KEY_MEDIAN_MS);
	g->gflops = num(j, BF_KEY_GFLOPS);
	g->measured = cJSON_IsArray(samples);
	g->library = dup_str(j, BF_KEY_LIBRARY);
	g->math_mode = dup_str(j, BF_KEY_MATH_MODE);
	g->c_dtype = dup_str(j, BF_KEY_C_DTYPE);
	g->warmup = req_int(j, BF_KEY_WARMUP);
	g->iters = req_int(j, BF_KEY_ITERS);
	if (g->measured) {
		/* bf_schema_parse_record let only times (finite, above 0)
		 * through; for JSON that did not pass through it, every
		 * element keeps its place, a non-number as NaN. */
		g->samples_ms = bf_xcalloc((size_t)cJSON_GetArraySize(samples) + 1,
					   sizeof(*g->samples_ms));
		cJSON_ArrayForEach(v, samples)
			g->samples_ms[g->nsamples++] =
				cJSON_IsNumber(v) ? v->valuedouble : NAN;
	}
	g->min_ms = num(j, BF_KEY_MIN_MS);
	g->max_ms = num(j, BF_KEY_MAX_MS);
	g->peak_mib = num(j, BF_KEY_PEAK_MIB);
	g->operand_bytes = num(j, BF_KEY_OPERAND_BYTES);
	g->max_rel_error = num(j, BF_KEY_MAX_REL_ERROR);
	g->tolerance = num(j, BF_KEY_TOLERANCE);
	g->output_roundoff = num(j, BF_KEY_OUTPUT_ROUNDOFF);
	g->verify_seed = num(j, BF_KEY_VERIFY_SEED);
	g->verified_elements = num(j, BF_KEY_VERIFIED_ELEMENTS);
	g->nonfinite_elements = num(j, BF_KEY_NONFINITE_ELEMENTS);
	g->needed_bytes = num(j, BF_KEY_NEEDED_BYTES);
	g->free_bytes = num(j, BF_KEY_FREE_BYTES);
	g->peak_gflops = num(j, BF_KEY_PEAK_GFLOPS);
	g->peak_basis = dup_str(j, BF_KEY_PEAK_BASIS);
	g->fraction_of_peak = num(j, BF_KEY_FRACTION_OF_PEAK);
	g->peak_method = dup_str(j, BF_KEY_PEAK_METHOD);
	g->peak_bound_gflops = num(j, BF_KEY_PEAK_BOUND_GFLOPS);
	g->peak_bound_basis = dup_str(j, BF_KEY_PEAK_BOUND_BASIS);
	g->peak_disagreement = dup_str(j, BF_KEY_PEAK_DISAGREEMENT);
	g->reference_gflops = num(j, BF_KEY_REFERENCE_GFLOPS);
	g->reference_source = dup_str(j, BF_KEY_REFERENCE_SOURCE);
	g->fraction_of_reference = num(j, BF_KEY_FRACTION_OF_REFERENCE);
	g->below_reference = boolean(j, BF_KEY_BELOW_REFERENCE);
	g->timing = dup_str(j, BF_KEY_TIMING);
	g->reliable = boolean(j, BF_KEY_RELIABLE);
	if (cJSON_IsArray(get(j, BF_KEY_UNRELIABLE_REASONS))) {
		const cJSON *why;

		g->unreliable_reasons = bf_xcalloc(
			(size_t)cJSON_GetArraySize(get(j, BF_KEY_UNRELIABLE_REASONS)) + 1,
			sizeof(char *));
		cJSON_ArrayForEach(why, get(j, BF_KEY_UNRELIABLE_REASONS))
			if (cJSON_IsString(why))
				g->unreliable_reasons[g->nunreliable++] =
					bf_xstrdup(why->valuestring);
	}
	g->spread = num(j, BF_KEY_SPREAD);
	if (cJSON_IsObject(get(j, BF_KEY_DEVICE_STATE)))
		g->throttled = parse_device_state(get(j, BF_KEY_DEVICE_STATE),
						  &g->device_state);
	g->bandwidth_kind = dup_str(j, BF_KEY_BANDWIDTH_KIND);
	g->bandwidth_gbps = num(j, BF_KEY_BANDWIDTH_GBPS);
	g->arithmetic_intensity = num(j, BF_KEY_ARITHMETIC_INTENSITY);
	g->roofline_gflops = num(j, BF_KEY_ROOFLINE_GFLOPS);
	g->bound = dup_str(j, BF_KEY_BOUND);
	g->fraction_of_roofline = num(j, BF_KEY_FRACTION_OF_ROOFLINE);
	if (cJSON_IsNumber(get(j, BF_KEY_WARMUP_CALLS)))
		g->warmup_calls = req_int(j, BF_KEY_WARMUP_CALLS);
	g->warmup_ms = num(j, BF_KEY_WARMUP_MS);
	if (cJSON_IsObject(get(j, BF_KEY_ENERGY))) {
		const cJSON *e = get(j, BF_KEY_ENERGY);

		g->energy_source = dup_str(e, BF_KEY_SOURCE);
		if (!g->energy_source)
			g->energy_source = bf_xstrdup("unknown");
		g->energy_reason = dup_str(e, BF_KEY_REASON);
		g->energy_j = num(e, BF_KEY_JOULES);
		g->energy_s = num(e, BF_KEY_SECONDS);
		g->energy_gemms = num(e, BF_KEY_GEMMS);
		g->energy_w = num(e, BF_KEY_WATTS);
		g->gflop_per_joule = num(e, BF_KEY_GFLOP_PER_JOULE);
	}
}

static void decode_bandwidth(const cJSON *j, struct bf_rec_bandwidth *b)
{
	b->device = dup_str(j, BF_KEY_DEVICE);
	b->kind = dup_str(j, BF_KEY_KIND);
	b->status = status_of(j, BF_STATUS_FAIL);
	b->reason = dup_str(j, BF_KEY_REASON);
	b->median_gbps = num(j, BF_KEY_MEDIAN_GBPS);
	b->samples_ms = num_array(j, BF_KEY_SAMPLES_MS, &b->nsamples);
	b->measured = b->samples_ms != NULL;
	b->dtype = dup_str(j, BF_KEY_DTYPE);
	b->array_bytes = num(j, BF_KEY_ARRAY_BYTES);
	b->bytes = num(j, BF_KEY_BYTES);
	b->counting = dup_str(j, BF_KEY_COUNTING);
	b->threads = num(j, BF_KEY_THREADS);
	b->warmup = req_int(j, BF_KEY_WARMUP);
	b->iters = req_int(j, BF_KEY_ITERS);
	b->median_ms = num(j, BF_KEY_MEDIAN_MS);
	b->min_ms = num(j, BF_KEY_MIN_MS);
	b->max_ms = num(j, BF_KEY_MAX_MS);
	b->timing = dup_str(j, BF_KEY_TIMING);
	b->needed_bytes = num(j, BF_KEY_NEEDED_BYTES);
	b->free_bytes = num(j, BF_KEY_FREE_BYTES);
}

static void decode_batching(const cJSON *j, struct bf_rec_batching *b)
{
	double *layers;
	int n;

	b->device = dup_str(j, BF_KEY_DEVICE);
	b->dtype = dup_str(j, BF_KEY_DTYPE);
	b->status = status_of(j, BF_STATUS_FAIL);
	b->reason = dup_str(j, BF_KEY_REASON);
	b->speedup = num(j, BF_KEY_SPEEDUP);
	b->single_samples_ms = num_array(j, BF_KEY_SINGLE_SAMPLES_MS, &b->nsingle);
	b->batch_samples_ms = num_array(j, BF_KEY_BATCH_SAMPLES_MS, &b->nbatch);
	b->measured = b->single_samples_ms != NULL;
	b->model = dup_str(j, BF_KEY_MODEL);
	layers = num_array(j, BF_KEY_LAYERS, &n);
	if (layers) {
		b->layers = bf_xcalloc((size_t)n + 1, sizeof(*b->layers));
		for (int i = 0; i < n; i++)
			b->layers[i] = isfinite(layers[i]) &&
						       fabs(layers[i]) < 2e9 ?
					       (int)layers[i] :
					       0;
		b->nlayers = n;
		free(layers);
	}
	b->rows = req_int(j, BF_KEY_ROWS);
	b->features = req_int(j, BF_KEY_FEATURES);
	b->library = dup_str(j, BF_KEY_LIBRARY);
	b->math_mode = dup_str(j, BF_KEY_MATH_MODE);
	b->timing = dup_str(j, BF_KEY_TIMING);
	b->warmup = req_int(j, BF_KEY_WARMUP);
	b->iters = req_int(j, BF_KEY_ITERS);
	b->single_ms = num(j, BF_KEY_SINGLE_MS);
	b->batch_ms = num(j, BF_KEY_BATCH_MS);
	b->single_rows_per_s = num(j, BF_KEY_SINGLE_ROWS_PER_S);
	b->batch_rows_per_s = num(j, BF_KEY_BATCH_ROWS_PER_S);
	b->max_abs_diff = num(j, BF_KEY_MAX_ABS_DIFF);
	b->max_abs_error = num(j, BF_KEY_MAX_ABS_ERROR);
	b->tolerance = num(j, BF_KEY_TOLERANCE);
	b->scores = num_array(j, BF_KEY_SCORES, &b->nscores);
	b->expected_scores = num_array(j, BF_KEY_EXPECTED_SCORES, &b->nexpected);
}

static void decode_summary(const cJSON *j, struct bf_rec_summary *s)
{
	const cJSON *ratios = get(j, BF_KEY_RATIOS), *r;

	s->ratios = bf_xcalloc((size_t)cJSON_GetArraySize(ratios) + 1,
			       sizeof(*s->ratios));
	cJSON_ArrayForEach(r, ratios) {
		struct bf_rec_ratio *x = &s->ratios[s->nratios++];

		x->kind = dup_str(r, BF_KEY_KIND);
		x->device = dup_str(r, BF_KEY_DEVICE);
		x->dtype = dup_str(r, BF_KEY_DTYPE);
		x->n = req_int(r, BF_KEY_N);
		x->value = num(r, BF_KEY_VALUE);
	}
	s->checks_passed = req_int(j, BF_KEY_CHECKS_PASSED);
	s->checks_failed = req_int(j, BF_KEY_CHECKS_FAILED);
	s->checks_skipped = num(j, BF_KEY_CHECKS_SKIPPED);
	s->gemm_passed = req_int(j, BF_KEY_GEMM_PASSED);
	s->gemm_failed = req_int(j, BF_KEY_GEMM_FAILED);
	s->gemm_skipped = num(j, BF_KEY_GEMM_SKIPPED);
	s->exit_status = req_int(j, BF_KEY_EXIT_STATUS);
	s->wall_ms = num(j, BF_KEY_WALL_MS);
	s->bandwidth_passed = num(j, BF_KEY_BANDWIDTH_PASSED);
	s->bandwidth_failed = num(j, BF_KEY_BANDWIDTH_FAILED);
	s->bandwidth_skipped = num(j, BF_KEY_BANDWIDTH_SKIPPED);
	s->batching_passed = num(j, BF_KEY_BATCHING_PASSED);
	s->batching_failed = num(j, BF_KEY_BATCHING_FAILED);
	s->batching_skipped = num(j, BF_KEY_BATCHING_SKIPPED);
}

void bf_record_init(struct bf_record *r, enum bf_record_type type)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->seq = -1;
	switch (type) {
	case BF_REC_HOST: {
		struct bf_rec_host *h = &r->u.host;

		h->cpu_cores = h->memory_bytes = h->openblas_threads = NAN;
		h->openblas_sbgemm = h->openblas_shgemm = -1;
		decode_options(NULL, &h->options);
		break;
	}
	case BF_REC_CHECK: {
		struct bf_rec_transfer_metrics *m = &r->u.check.metrics;

		m->bytes = m->h2d_pageable_gbps = m->d2h_pageable_gbps = NAN;
		m->h2d_pinned_gbps = m->d2h_pinned_gbps = NAN;
		break;
	}
	case BF_REC_FLOAT_LIMITS: {
		struct bf_rec_float_limits *l = &r->u.float_limits;

		l->exponent_bits = l->mantissa_bits = NAN;
		l->max = l->eps = l->smallest_normal = NAN;
		l->smallest_subnormal = NAN;
		break;
	}
	case BF_REC_GEMM: {
		struct bf_rec_gemm *g = &r->u.gemm;

		g->median_ms = g->gflops = g->min_ms = g->max_ms = NAN;
		g->peak_mib = g->operand_bytes = g->max_rel_error = NAN;
		g->tolerance = g->verified_elements = NAN;
		g->output_roundoff = g->verify_seed = NAN;
		g->peak_gflops = g->fraction_of_peak = g->spread = NAN;
		g->peak_bound_gflops = g->reference_gflops = NAN;
		g->fraction_of_reference = NAN;
		g->reliable = g->throttled = g->below_reference = -1;
		bf_rec_device_state_init(&g->device_state);
		g->nonfinite_elements = g->needed_bytes = g->free_bytes = NAN;
		g->bandwidth_gbps = g->arithmetic_intensity = NAN;
		g->roofline_gflops = g->fraction_of_roofline = NAN;
		g->warmup_calls = -1;
		g->warmup_ms = g->energy_j = g->energy_s = NAN;
		g->energy_gemms = g->energy_w = g->gflop_per_joule = NAN;
		break;
	}
	case BF_REC_PLAN:
		r->u.plan.bandwidth_total = r->u.plan.batching_total = -1;
		break;
	case BF_REC_BANDWIDTH: {
		struct bf_rec_bandwidth *b = &r->u.bandwidth;

		b->median_gbps = b->array_bytes = b->bytes = b->threads = NAN;
		b->median_ms = b->min_ms = b->max_ms = NAN;
		b->needed_bytes = b->free_bytes = NAN;
		break;
	}
	case BF_REC_BATCHING: {
		struct bf_rec_batching *b = &r->u.batching;

		b->speedup = b->single_ms = b->batch_ms = NAN;
		b->single_rows_per_s = b->batch_rows_per_s = NAN;
		b->max_abs_diff = b->max_abs_error = b->tolerance = NAN;
		break;
	}
	case BF_REC_SUMMARY: {
		struct bf_rec_summary *s = &r->u.summary;

		s->checks_skipped = s->gemm_skipped = s->wall_ms = NAN;
		s->bandwidth_passed = s->bandwidth_failed = NAN;
		s->bandwidth_skipped = s->batching_passed = NAN;
		s->batching_failed = s->batching_skipped = NAN;
		break;
	}
	default:
		break;
	}
}

/* --- freeing --------------------------------------------------------- */

void bf_rec_options_free(struct bf_rec_options *o)
{
	for (int i = 0; i < o->ndtypes; i++)
		free(o->dtypes[i]);
	free(o->dtypes);
	free(o->sizes);
	decode_options(NULL, o);
}

void bf_rec_options_copy(struct bf_rec_options *dst,
			 const struct bf_rec_options *src)
{
	*dst = *src;
	dst->sizes = bf_xcalloc((size_t)src->nsizes + 1, sizeof(*dst->sizes));
	if (src->nsizes)
		memcpy(dst->sizes, src->sizes,
		       (size_t)src->nsizes * sizeof(*dst->sizes));
	dst->dtypes = bf_xcalloc((size_t)src->ndtypes + 1, sizeof(*dst->dtypes));
	for (int i = 0; i < src->ndtypes; i++)
		dst->dtypes[i] = bf_xstrdup(src->dtypes[i]);
}

static void free_env(struct bf_rec_env *env, int n)
{
	for (int i = 0; i < n; i++) {
		free(env[i].name);
		free(env[i].value);
	}
	free(env);
}

static void free_host(struct bf_rec_host *h)
{
	char *const strs[] = {
		h->agent_version, h->agent_source_hash, h->cjson_version,
		h->cjson_source, h->hostname, h->os, h->kernel, h->arch,
		h->cpu_model, h->openblas_version, h->openblas_core,
		h->openblas_core_replaced, h->openblas_config, h->cuda_status,
		h->cuda_reason, h->cuda_driver_version,
		h->cuda_driver_cuda_version, h->cuda_runtime_version,
		h->cuda_cublas_version, h->cuda_architectures,
		h->cuda_tf32_override,
	};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		free(strs[i]);
	for (int i = 0; i < h->ngpus; i++) {
		free(h->gpus[i].name);
		free(h->gpus[i].compute_capability);
		free(h->gpus[i].pci_bus_id);
		free(h->gpus[i].uuid);
	}
	free(h->gpus);
	free_env(h->env, h->nenv);
	free_env(h->openblas_env, h->nopenblas_env);
	bf_rec_options_free(&h->options);
}

void bf_record_free(struct bf_record *r)
{
	if (!r)
		return;
	switch (r->type) {
	case BF_REC_HOST:
		free_host(&r->u.host);
		break;
	case BF_REC_PLAN:
		for (int i = 0; i < r->u.plan.ndevices; i++) {
			free(r->u.plan.devices[i].device);
			free(r->u.plan.devices[i].reason);
		}
		free(r->u.plan.devices);
		break;
	case BF_REC_CHECK:
		free(r->u.check.name);
		free(r->u.check.device);
		free(r->u.check.reason);
		cJSON_Delete(r->u.check.expected);
		cJSON_Delete(r->u.check.got);
		break;
	case BF_REC_FLOAT_LIMITS:
		free(r->u.float_limits.dtype);
		break;
	case BF_REC_GEMM:
		free(r->u.gemm.device);
		free(r->u.gemm.dtype);
		free(r->u.gemm.reason);
		free(r->u.gemm.library);
		free(r->u.gemm.math_mode);
		free(r->u.gemm.energy_source);
		free(r->u.gemm.energy_reason);
		free(r->u.gemm.c_dtype);
		free(r->u.gemm.samples_ms);
		free(r->u.gemm.peak_basis);
		free(r->u.gemm.peak_method);
		free(r->u.gemm.peak_bound_basis);
		free(r->u.gemm.peak_disagreement);
		free(r->u.gemm.reference_source);
		free(r->u.gemm.timing);
		for (int i = 0; i < r->u.gemm.nunreliable; i++)
			free(r->u.gemm.unreliable_reasons[i]);
		free(r->u.gemm.unreliable_reasons);
		bf_rec_device_state_free(&r->u.gemm.device_state);
		free(r->u.gemm.bandwidth_kind);
		free(r->u.gemm.bound);
		break;
	case BF_REC_BANDWIDTH: {
		struct bf_rec_bandwidth *b = &r->u.bandwidth;

		free(b->device);
		free(b->kind);
		free(b->reason);
		free(b->dtype);
		free(b->counting);
		free(b->samples_ms);
		free(b->timing);
		break;
	}
	case BF_REC_BATCHING: {
		struct bf_rec_batching *b = &r->u.batching;

		free(b->device);
		free(b->dtype);
		free(b->reason);
		free(b->model);
		free(b->layers);
		free(b->library);
		free(b->math_mode);
		free(b->timing);
		free(b->single_samples_ms);
		free(b->batch_samples_ms);
		free(b->scores);
		free(b->expected_scores);
		break;
	}
	case BF_REC_SUMMARY:
		for (int i = 0; i < r->u.summary.nratios; i++) {
			free(r->u.summary.ratios[i].kind);
			free(r->u.summary.ratios[i].device);
			free(r->u.summary.ratios[i].dtype);
		}
		free(r->u.summary.ratios);
		break;
	default:
		break;
	}
	bf_record_init(r, r->type);
}


enum bf_err bf_record_decode(const cJSON *json, enum bf_record_type type,
			     struct bf_record *out, char *detail,
			     size_t detail_len)
{
	const cJSON *seq;
	struct key_index index;

	bf_record_init(out, type);
	if (!cJSON_IsObject(json) || (int)type < 0 || type >= BF_REC__COUNT)
		return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
			       "record is not a JSON object of a known type");
	if (key_index_build(&index, json))
		decoding = &index;
	seq = get(json, BF_KEY_SEQ);
	if (cJSON_IsNumber(seq) && bf_schema_int_ok(seq->valuedouble, 0, INT_MAX))
		out->seq = (int)seq->valuedouble;
	switch (type) {
	case BF_REC_HOST:
		decode_host(json, &out->u.host);
		break;
	case BF_REC_PLAN:
		decode_plan(json, &out->u.plan);
		break;
	case BF_REC_CHECK:
		decode_check(json, &out->u.check);
		break;
	case BF_REC_FLOAT_LIMITS:
		decode_limits(json, &out->u.float_limits);
		break;
	case BF_REC_GEMM:
		decode_gemm(json, &out->u.gemm);
		break;
	case BF_REC_SUMMARY:
		decode_summary(json, &out->u.summary);
		break;
	case BF_REC_BANDWIDTH:
		decode_bandwidth(json, &out->u.bandwidth);
		break;
	case BF_REC_BATCHING:
		decode_batching(json, &out->u.batching);
		break;
	default:
		break;
	}
	decoding = NULL;
	return BF_OK;
}

enum bf_err bf_record_parse(const char *line, size_t len,
			    struct bf_record *out, char *detail,
			    size_t detail_len)
{
	enum bf_record_type type;
	enum bf_err err;
	cJSON *json;

	bf_record_init(out, BF_REC_HOST);
	err = bf_schema_parse_record(line, len, &json, &type, detail,
				     detail_len);
	if (err != BF_OK)
		return err;
	err = bf_record_decode(json, type, out, detail, detail_len);
	cJSON_Delete(json);
	return err;
}
