/*
 * The GEMM sweep (agent/workloads/gemm.c) through a fake backend: a
 * library that says it runs a dtype (gemm_supports) but refuses it when
 * asked (gemm_run's BF_ERR_UNSUPPORTED, as cuBLAS's
 * CUBLAS_STATUS_NOT_SUPPORTED for bf16 on an older GPU) gives a
 * "skipped" record with the library's reason, never "fail"; another
 * error (a CUDA error) gives "fail" with its reason. Only cuBLAS reaches
 * that path on real hardware, hence the fake: this file defines
 * backend_for(), backend_gemm_for() and device_label(), which the static
 * bf_agent's gemm.c calls instead of agent/backends/backend.c's.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "backends/backend.h"
#include "core/options.h"
#include "core/report.h"
#include "workloads/gemm.h"

#define REFUSAL "fake: no fp16 GEMM on this GPU (CUBLAS_STATUS_NOT_SUPPORTED)"
#define CUDA_ERR "fake: cudaErrorLaunchFailure: unspecified launch failure"

static enum bf_err run_result; /* what gemm_run answers */
static int runs;

static enum bf_err fake_supports(int dev, enum bf_dtype dtype, char *detail,
				 size_t len)
{
	(void)dev;
	(void)dtype;
	(void)detail;
	(void)len;
	return BF_OK; /* it says yes, then refuses at run time */
}

static const char *fake_library(void)
{
	return "fakeBLAS 1.0";
}

static enum bf_err fake_mem(int dev, uint64_t *free_b, uint64_t *total_b,
			    char *limit, size_t len)
{
	(void)dev;
	*free_b = *total_b = (uint64_t)1 << 40;
	snprintf(limit, len, "fake");
	return BF_OK;
}

static enum bf_err fake_run(int dev, const struct gemm_job *job,
			    struct gemm_result *res, char *detail, size_t len)
{
	(void)dev;
	(void)job;
	(void)res;
	runs++;
	snprintf(detail, len, "%s",
		 run_result == BF_ERR_UNSUPPORTED ? REFUSAL : CUDA_ERR);
	return run_result;
}

static void fake_peak(int dev, enum bf_dtype dtype, struct peak *out)
{
	(void)dev;
	(void)dtype;
	memset(out, 0, sizeof(*out));
	out->gflops = out->bound_gflops = NAN;
}

static void fake_state(int dev, struct device_state *out)
{
	(void)dev;
	memset(out, 0, sizeof(*out));
}

static const struct backend fake = {
	.name = "fake",
	.mem_info = fake_mem,
	.gemm_supports = fake_supports,
	.gemm_library = fake_library,
	.gemm_run = fake_run,
	.peak = fake_peak,
	.read_state = fake_state,
};

const struct backend *backend_for(enum device_kind kind)
{
	(void)kind;
	return &fake;
}

/* The fake runs every dtype it says it supports (no oneDNN fallback). */
const struct backend *backend_gemm_for(enum device_kind kind, int dev,
				       enum bf_dtype dtype, char *detail,
				       size_t detail_len)
{
	const struct backend *be = backend_for(kind);

	if (be->gemm_supports(dev, dtype, detail, detail_len) == BF_OK)
		return be;
	return NULL;
}

char *device_label(const struct device *d, char *buf, size_t len)
{
	snprintf(buf, len, "cuda:%d", d->index);
	return buf;
}

/* The one gemm record the sweep of one fp16 n = 64 GEMM on cuda:0 wrote,
 * parsed; the caller deletes it. */
static cJSON *sweep_one(void)
{
	struct sweep_device dev;
	struct agent_opts o;
	struct gemm_sweep s = { 0 };
	struct report r;
	char *text = NULL, *line, *save = NULL;
	size_t size = 0;
	cJSON *found = NULL;

	memset(&dev, 0, sizeof(dev));
	dev.dev.kind = DEVICE_CUDA;
	dev.dev.index = 0;
	dev.usable = 1;
	memset(&o, 0, sizeof(o));
	o.sizes[0] = 64;
	o.nsizes = 1;
	o.dtypes[0] = BF_DTYPE_FP16;
	o.ndtypes = 1;
	o.iters = 3;
	o.warmup = 1;
	o.cpu_iters = 3;
	o.cpu_warmup = 1;
	o.seed = 1;
	memset(&r, 0, sizeof(r));
	r.out = open_memstream(&text, &size);
	assert_non_null(r.out);
	runs = 0;
	gemm_sweep_run(&r, &dev, 1, &o, &s);
	fclose(r.out);
	assert_int_equal(runs, 1);
	assert_int_equal(s.count, 1);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		cJSON *j = cJSON_Parse(line);
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "type");

		assert_non_null(j);
		if (cJSON_IsString(t) && strcmp(t->valuestring, "gemm") == 0) {
			assert_null(found);
			found = j;
		} else {
			cJSON_Delete(j);
		}
	}
	gemm_sweep_free(&s);
	free(text);
	assert_non_null(found);
	return found;
}

static const char *str(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	return cJSON_IsString(v) ? v->valuestring : "(none)";
}

static void test_refused_at_run_time_is_skipped(void **state)
{
	cJSON *g;

	(void)state;
	run_result = BF_ERR_UNSUPPORTED;
	g = sweep_one();
	assert_string_equal(str(g, "status"), "skipped");
	assert_string_equal(str(g, "reason"), REFUSAL);
	assert_string_equal(str(g, "device"), "cuda:0");
	assert_string_equal(str(g, "dtype"), "fp16");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(g, "gflops")) ||
		    !cJSON_GetObjectItemCaseSensitive(g, "gflops"));
	cJSON_Delete(g);
}

static void test_other_error_is_a_failure(void **state)
{
	cJSON *g;

	(void)state;
	run_result = BF_ERR_DEVICE;
	g = sweep_one();
	assert_string_equal(str(g, "status"), "fail");
	assert_string_equal(str(g, "reason"), CUDA_ERR);
	cJSON_Delete(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_at_run_time_is_skipped),
		cmocka_unit_test(test_other_error_is_a_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
