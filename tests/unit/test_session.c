/*
 * Unit tests of ctl's run plumbing that needs no host: the inventory's
 * per-host agent defaults, read through the agent's option table
 * (controller/run/inventory.c), and the one reading of an agent's exit status
 * (session_agent_outcome in controller/run/session_host.c); the model's entry
 * checks (controller/model/model.c: numbers out of range, duplicate seqs,
 * completeness, terminal-safe text) and the host timeout's arithmetic
 * (session_silence_limit_s).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "cmd/ctl.h"
#include "model/model.h"
#include "record.h"
#include "run/inventory.h"
#include "run/inventory_check.h"
#include "run/session.h"
#include "schema.h"

/* ctl.c, which defines it, is ctl's main: not linked here. */
void ctl_error(const char *fmt, ...)
{
	(void)fmt;
}

static enum bf_err parse(const char *json, struct inventory *inv, char *d,
			 size_t len)
{
	memset(inv, 0, sizeof(*inv));
	d[0] = '\0';
	return inventory_parse(json, "hosts/x.json", inv, d, len);
}

static void test_inventory_defaults(void **state)
{
	struct inventory inv;
	const struct bf_agent_optset *s;
	char d[512];

	assert_int_equal(parse("{\"hosts\": {\"a\": {\"defaults\": {"
			       "\"warmup\": 0, \"cpu_iters\": 4, \"cpu_warmup\": 0,"
			       "\"sizes\": \"64,96\", \"dtypes\": \"fp32\","
			       "\"device\": \"cpu\", \"iters\": 6}}}}",
			       &inv, d, sizeof(d)), BF_OK);
	s = &inv.hosts[0].defaults;
	assert_true(bf_agent_optset_has(s, BF_AF_WARMUP));
	assert_int_equal(s->warmup, 0); /* 0 is a value, not "unset" */
	assert_int_equal(s->cpu_iters, 4);
	assert_true(bf_agent_optset_has(s, BF_AF_CPU_WARMUP));
	assert_int_equal(s->cpu_warmup, 0);
	assert_int_equal(s->nsizes, 2);
	assert_int_equal(s->iters, 6);
	assert_int_equal(s->devices, BF_AGENT_DEV_CPU);
	assert_false(bf_agent_optset_has(s, BF_AF_SEED));
	inventory_free(&inv);

	/* No defaults: nothing given. */
	assert_int_equal(parse("{\"hosts\": {\"a\": {}}}", &inv, d, sizeof(d)),
			 BF_OK);
	assert_int_equal(inv.hosts[0].defaults.given, 0);
	inventory_free(&inv);
}

struct bad_default {
	const char *defaults;
	enum bf_err err;
	const char *message;
};

static const struct bad_default bad_defaults[] = {
	{ "\"warmup\": -1", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: warmup '-1': expected an integer from 0 to 100000" },
	{ "\"iters\": 1.5", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: iters '1.5': expected an integer from 1 to 100000" },
	/* Refused as written, not as the double read (2^53, inf). */
	{ "\"iters\": 9007199254740993", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: iters '9007199254740993': expected an integer from 1 to 100000" },
	{ "\"warmup\": 1e400", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: warmup '1e400': expected an integer from 0 to 100000" },
	{ "\"cpu_warmup\": 12345678901234567890", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: cpu_warmup '12345678901234567890': expected an integer from 0 to 100000" },
	{ "\"cpu_iters\": -0.0", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: cpu_iters '-0.0': expected an integer from 1 to 100000" },
	{ "\"cpu_iters\": 0", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: cpu_iters '0': expected an integer from 1 to 100000" },
	{ "\"sizes\": \"64,x\"", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: sizes 'x': expected an integer from 1 to 65536" },
	{ "\"dtypes\": \"fp4\"", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: dtypes 'fp4': unknown dtype 'fp4' (use fp32, fp16, bf16, tf32, fp8)" },
	{ "\"device\": \"tpu\"", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: device 'tpu': expected cpu, cuda or all" },
	{ "\"iters\": \"6\"", BF_ERR_PARSE,
	  "hosts/x.json: host a: defaults: iters: expected a number" },
	{ "\"sizes\": 64", BF_ERR_PARSE,
	  "hosts/x.json: host a: defaults: sizes: expected a string" },
	{ "\"seed\": 1", BF_ERR_PARSE,
	  "hosts/x.json: host a: unknown key in defaults: seed" },
};

static void test_inventory_bad_defaults(void **state)
{
	for (size_t i = 0; i < sizeof(bad_defaults) / sizeof(bad_defaults[0]); i++) {
		char json[256], d[512];
		struct inventory inv;
		enum bf_err err;

		snprintf(json, sizeof(json),
			 "{\"hosts\": {\"a\": {\"defaults\": {%s}}}}",
			 bad_defaults[i].defaults);
		err = parse(json, &inv, d, sizeof(d));
		if (err != bad_defaults[i].err || strcmp(d, bad_defaults[i].message))
			fail_msg("case %zu: got %d \"%s\", want %d \"%s\"", i,
				 err, d, bad_defaults[i].err,
				 bad_defaults[i].message);
		inventory_free(&inv);
	}
}

static void test_agent_outcome(void **state)
{
	char r[256];

	assert_int_equal(session_agent_outcome(BF_EXIT_OK, NULL, NULL, r,
					       sizeof(r)), AGENT_OUTCOME_OK);
	assert_string_equal(r, "");
	assert_int_equal(session_agent_outcome(BF_EXIT_CHECKS_FAILED, NULL,
					       "noise\n", r, sizeof(r)),
			 AGENT_OUTCOME_CHECKS_FAILED);
	assert_string_equal(r, "");
	assert_int_equal(session_agent_outcome(BF_EXIT_INTERNAL, NULL,
					       "x\nagent: cannot run: no\n\n",
					       r, sizeof(r)),
			 AGENT_OUTCOME_FAILED);
	assert_string_equal(r, "agent exited with status 4: agent: cannot run: no");
	assert_int_equal(session_agent_outcome(BF_EXIT_USAGE, NULL, "", r,
					       sizeof(r)), AGENT_OUTCOME_FAILED);
	assert_string_equal(r, "agent exited with status 2");
	assert_int_equal(session_agent_outcome(-1, "KILL", "bye", r, sizeof(r)),
			 AGENT_OUTCOME_FAILED);
	assert_string_equal(r, "agent killed by signal KILL");
	assert_int_equal(session_agent_outcome(-1, NULL, NULL, r, sizeof(r)),
			 AGENT_OUTCOME_FAILED);
	assert_string_equal(r, "agent ended without an exit status");
	/* No reason buffer: the outcome alone. */
	assert_int_equal(session_agent_outcome(1, NULL, NULL, NULL, 0),
			 AGENT_OUTCOME_CHECKS_FAILED);
}

/* Issue 28: the agent's last stderr line is its reason, whole: a 300-byte
 * line (a long path in it) was cut at 255 bytes without a mark. Into a
 * buffer too short even for the whole reason, the cut ends in "...". */
static void test_agent_outcome_long_last_line(void **state)
{
	char last[301], tail[400], r[1024], want[400], small[64];

	(void)state;
	memset(last, 'p', 300);
	memcpy(last, "agent: cannot open /", 20);
	memcpy(last + 287, "/data: ENOENT", 13);
	last[300] = '\0';
	snprintf(tail, sizeof(tail), "earlier\n%s\n", last);
	assert_int_equal(session_agent_outcome(BF_EXIT_INTERNAL, NULL, tail, r,
					       sizeof(r)),
			 AGENT_OUTCOME_FAILED);
	snprintf(want, sizeof(want), "agent exited with status 4: %s", last);
	assert_string_equal(r, want);
	assert_int_equal(strlen(r), 28 + 300);
	/* Cut visibly where the caller's buffer ends. */
	assert_int_equal(session_agent_outcome(BF_EXIT_INTERNAL, NULL, tail,
					       small, sizeof(small)),
			 AGENT_OUTCOME_FAILED);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, "agent exited with status 4: agent: cannot",
			    41);
	assert_string_equal(small + sizeof(small) - 4, "...");
	/* A signal's name from a remote ssh server is text too. */
	assert_int_equal(session_agent_outcome(-1, last, NULL, small,
					       sizeof(small)),
			 AGENT_OUTCOME_FAILED);
	assert_string_equal(small + sizeof(small) - 4, "...");
}

static void test_inventory_env_names(void **state)
{
	static const char *const bad[] = { "A;x", "1A", "", "A B", "A=B",
					   "$(x)" };
	struct inventory inv;
	char json[256], d[512];

	snprintf(json, sizeof(json),
		 "{\"hosts\": {\"a\": {\"env\": {\"_A1\": \"v;x\"}}}}");
	assert_int_equal(parse(json, &inv, d, sizeof(d)), BF_OK);
	inventory_free(&inv);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(json, sizeof(json),
			 "{\"hosts\": {\"a\": {\"env\": {\"%s\": \"v\"}}}}",
			 bad[i]);
		assert_int_equal(parse(json, &inv, d, sizeof(d)), BF_ERR_PARSE);
		assert_non_null(strstr(d, "host a: env: '"));
		assert_non_null(strstr(d, "is not a variable name"));
		inventory_free(&inv);
	}
}

/* Which env names the build reads (controller/run/inventory_check.c):
 * whole names and the NVCC_*, CMAKE_*, CUDAToolkit_*, PKG_CONFIG*
 * prefixes, matched from the start and case-sensitively. */
static void test_env_is_build(void **state)
{
	static const char *const build[] = {
		"CC", "CFLAGS", "PATH", "MAKEFLAGS", "LD_PRELOAD", "BASH_ENV",
		"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN",
		"NVCC_", "CMAKE_C_FLAGS", "CMAKE_BUILD_PARALLEL_LEVEL",
		"CMAKE_", "CUDAToolkit_ROOT", "PKG_CONFIG_PATH", "PKG_CONFIG",
		"TMPDIR", "HOME", "CUDA_PATH",
	};
	static const char *const other[] = {
		"OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "NVCC", "CMAKE",
		"XNVCC_FLAGS", "MY_CMAKE_X", "nvcc_prepend_flags", "cmake_x",
		"CCX", "PATHX", "XPATH", "C", "", "CUDAToolkit", "ENVX",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(build) / sizeof(build[0]); i++)
		if (!inv_env_is_build(build[i]))
			fail_msg("%s should be a build variable", build[i]);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (inv_env_is_build(other[i]))
			fail_msg("%s should not be a build variable", other[i]);
}

/* Values: anything but $, ` and control characters for other variables;
 * for the build's, letters, digits, blanks and / . _ + @ = - , : only. */
static void test_env_values(void **state)
{
	char why[400];

	(void)state;
	/* other variables take ; | ' " ( ) but never $ ` or newline */
	assert_int_equal(inv_env_value_ok("OMP_PLACES", "{0};x|y'(\")", why,
					  sizeof(why)), 1);
	assert_int_equal(inv_env_value_ok("OMP_PLACES", "a$b", why,
					  sizeof(why)), 0);
	assert_non_null(strstr(why, "'$' is not allowed in an env value"));
	assert_int_equal(inv_env_value_ok("X", "a`b", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "'`'"));
	assert_int_equal(inv_env_value_ok("X", "a\nb", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "byte 0x0a"));
	assert_int_equal(inv_env_value_ok("X", "a\tb", why, sizeof(why)), 1);
	/* the build's: flags with blanks, commas and colons build */
	assert_int_equal(inv_env_value_ok("NVCC_APPEND_FLAGS",
					  "-O3 -Xcompiler=-fPIC,-g", why,
					  sizeof(why)), 1);
	assert_int_equal(inv_env_value_ok("CMAKE_PREFIX_PATH",
					  "/opt/a:/opt/b", why, sizeof(why)),
			 1);
	/* ... but a ; or | that nvcc's shell or CMake's command runs */
	assert_int_equal(inv_env_value_ok("NVCC_PREPEND_FLAGS",
					  "-O3;touch x", why, sizeof(why)), 0);
	assert_string_equal(
		why, "';' is not allowed in NVCC_PREPEND_FLAGS (letters, "
		     "digits, blanks and / . _ + @ = - , : only): the agent's "
		     "build on the host reads it as a command, flags or a "
		     "path, unquoted");
	assert_int_equal(inv_env_value_ok("CMAKE_C_FLAGS", "-O2|x", why,
					  sizeof(why)), 0);
	assert_non_null(strstr(why, "'|' is not allowed in CMAKE_C_FLAGS"));
	assert_int_equal(inv_env_value_ok("CMAKE_C_COMPILER", "gcc'x", why,
					  sizeof(why)), 0);
	assert_int_equal(inv_env_value_ok("CC", "gcc>x", why, sizeof(why)),
			 0);
	/* the same characters are fine where the build does not look */
	assert_int_equal(inv_env_value_ok("MY_FLAGS", "-O3;touch x", why,
					  sizeof(why)), 1);
}

/* workdir and path_prepend: letters, digits and / . _ + @ = - after an
 * optional ~/; no blank (nvcc splits its options on it), no , : $. */
static void test_paths(void **state)
{
	static const char *const good[] = {
		"~", "~/", "~/bf", "/opt/cuda-12.4/bin", "~/a_b+c@d=e-f.g",
		"relative/dir",
	};
	static const char *const bad[] = {
		"~/my dir", "/opt/a\tb", "~/a,b", "/a:b", "~/a$(x)", "~/a`x`",
		"~user/x", "a;b", "~/\x01", "~/a\nb", "",
	};
	char why[400];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!inv_path_ok(good[i], why, sizeof(why)))
			fail_msg("'%s' refused: %s", good[i], why);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (inv_path_ok(bad[i], why, sizeof(why)))
			fail_msg("'%s' taken", bad[i]);
	assert_int_equal(inv_path_ok("~/my dir", why, sizeof(why)), 0);
	assert_string_equal(
		why, "' ' is not allowed in a directory the agent is built in "
		     "or from (letters, digits and / . _ + @ = - only, after an "
		     "optional leading ~/): the host's nvcc and make read it "
		     "again, unquoted");
	assert_int_equal(inv_path_ok("/opt/a\tb", why, sizeof(why)), 0);
	assert_non_null(strstr(why, "byte 0x09 is not allowed"));
	assert_int_equal(inv_path_ok("", why, sizeof(why)), 0);
	assert_string_equal(why, "empty");
}

/* The inventory reader applies those checks to each field, naming it. */
static void test_inventory_build_values(void **state)
{
	static const struct {
		const char *host, *want;
	} cases[] = {
		{ "\"workdir\": \"~/bf dir\"",
		  "hosts/x.json: host a: workdir '~/bf dir': ' ' is not allowed" },
		{ "\"path_prepend\": [\"/opt/ok\", \"/opt/cuda 12/bin\"]",
		  "hosts/x.json: host a: path_prepend '/opt/cuda 12/bin': ' ' is "
		  "not allowed" },
		{ "\"env\": {\"NVCC_PREPEND_FLAGS\": \"-O3;id\"}",
		  "hosts/x.json: host a: env: NVCC_PREPEND_FLAGS: ';' is not "
		  "allowed in NVCC_PREPEND_FLAGS" },
		{ "\"env\": {\"CMAKE_CUDA_FLAGS\": \"-g|id\"}",
		  "hosts/x.json: host a: env: CMAKE_CUDA_FLAGS: '|' is not "
		  "allowed" },
		{ "\"env\": {\"OMP_X\": \"$(id)\"}",
		  "hosts/x.json: host a: env: OMP_X: '$' is not allowed" },
	};
	struct inventory inv;
	char json[512], d[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(json, sizeof(json), "{\"hosts\": {\"a\": {%s}}}",
			 cases[i].host);
		assert_int_equal(parse(json, &inv, d, sizeof(d)), BF_ERR_USAGE);
		if (strncmp(d, cases[i].want, strlen(cases[i].want)) != 0)
			fail_msg("case %zu: got '%s'", i, d);
		inventory_free(&inv);
	}
	snprintf(json, sizeof(json),
		 "{\"hosts\": {\"a\": {\"workdir\": \"~/bf-1\", "
		 "\"path_prepend\": [\"/opt/cuda-12/bin\"], \"env\": "
		 "{\"NVCC_APPEND_FLAGS\": \"-O3 -g\", \"OMP_X\": \"a;b\"}}}}");
	assert_int_equal(parse(json, &inv, d, sizeof(d)), BF_OK);
	inventory_free(&inv);
}

static const char *const names[] = { "h" };

static void add(struct model *m, struct bf_record *r, int seq,
		enum model_added want)
{
	r->seq = seq;
	assert_int_equal(model_add_record(m, 0, r), want);
}

static void test_model_ranges(void **state)
{
	struct model m;
	struct bf_record r;
	struct model_host h;

	model_init(&m, 1, names);
	bf_record_init(&r, BF_REC_PLAN);
	r.u.plan.gemm_total = INT_MIN; /* what an undefined cast once gave */
	add(&m, &r, 1, MODEL_REJECTED_RANGE);
	r.u.plan.gemm_total = INT_MAX;
	add(&m, &r, 1, MODEL_REJECTED_RANGE);
	r.u.plan.gemm_total = 3;
	r.u.plan.checks_total = -1;
	add(&m, &r, 1, MODEL_REJECTED_RANGE);
	r.u.plan.checks_total = 0;
	add(&m, &r, INT_MAX, MODEL_REJECTED_RANGE);
	add(&m, &r, -2, MODEL_REJECTED_RANGE);
	add(&m, &r, 1, MODEL_ADDED_PROGRESS);
	bf_record_free(&r);
	bf_record_init(&r, BF_REC_GEMM);
	for (int n = INT_MIN; n <= 0; n = n / 2 + (n < -1 ? 0 : 1)) {
		r.u.gemm.n = n;
		add(&m, &r, 2, MODEL_REJECTED_RANGE);
		if (n == 0)
			break;
	}
	r.u.gemm.n = MODEL_MAX_N + 1;
	add(&m, &r, 2, MODEL_REJECTED_RANGE);
	model_host_get(&m, 0, &h);
	assert_int_equal(h.records, 1); /* the plan only */
	assert_int_equal(h.gemm_total, 3);
	assert_int_equal(h.gemm_done, 0);
	bf_record_free(&r);
	model_free(&m);
}

static void test_model_completeness(void **state)
{
	struct model m;
	struct bf_record r;
	struct model_host h;
	char why[256];

	model_init(&m, 1, names);
	assert_int_equal(model_host_complete(&m, 0, why, sizeof(why)), 0);
	assert_string_equal(why, "no plan record, no summary record");
	bf_record_init(&r, BF_REC_HOST);
	add(&m, &r, 0, MODEL_ADDED);
	bf_record_free(&r);
	bf_record_init(&r, BF_REC_PLAN);
	r.u.plan.gemm_total = 3;
	add(&m, &r, 1, MODEL_ADDED_PROGRESS);
	bf_record_free(&r);
	bf_record_init(&r, BF_REC_GEMM);
	r.u.gemm.device = strdup("cpu");
	r.u.gemm.dtype = strdup("fp32");
	r.u.gemm.n = 64;
	add(&m, &r, 2, MODEL_ADDED_PROGRESS);
	/* Sent again: ignored, not counted. */
	add(&m, &r, 2, MODEL_REJECTED_DUPLICATE);
	add(&m, &r, 2, MODEL_REJECTED_DUPLICATE);
	add(&m, &r, 4, MODEL_ADDED_PROGRESS); /* seq 3 lost */
	bf_record_free(&r);
	bf_record_init(&r, BF_REC_SUMMARY);
	add(&m, &r, 5, MODEL_ADDED);
	bf_record_free(&r);
	model_host_get(&m, 0, &h);
	assert_int_equal(h.gemm_done, 2);
	assert_int_equal(h.records, 5);
	assert_int_equal(h.duplicates, 2);
	assert_int_equal(model_host_complete(&m, 0, why, sizeof(why)), 0);
	assert_string_equal(why, "2 of 3 gemm records, seq 3 missing, "
				 "2 duplicate records");
	model_free(&m);

	/* Everything once: complete. */
	model_init(&m, 1, names);
	bf_record_init(&r, BF_REC_PLAN);
	r.u.plan.gemm_total = 0;
	add(&m, &r, 0, MODEL_ADDED_PROGRESS);
	bf_record_free(&r);
	bf_record_init(&r, BF_REC_SUMMARY);
	add(&m, &r, 1, MODEL_ADDED);
	bf_record_free(&r);
	assert_int_equal(model_host_complete(&m, 0, why, sizeof(why)), 1);
	assert_string_equal(why, "");
	model_free(&m);

	/* Many seqs missing: the first three and a count. */
	model_init(&m, 1, names);
	bf_record_init(&r, BF_REC_SUMMARY);
	add(&m, &r, 9, MODEL_ADDED);
	bf_record_free(&r);
	assert_int_equal(model_host_complete(&m, 0, why, sizeof(why)), 0);
	assert_string_equal(why, "no plan record, seq 0, 1, 2 and 6 more missing");
	model_free(&m);
}

static void test_model_text_is_sanitised(void **state)
{
	struct model m;
	struct bf_record r;
	struct model_host h;
	struct model_snapshot snap = { 0 };

	model_init(&m, 1, names);
	bf_record_init(&r, BF_REC_HOST);
	r.u.host.hostname = strdup("a\x1b]0;t\x07" "b");
	r.u.host.agent_source_hash = strdup("\x1b[2J");
	add(&m, &r, -1, MODEL_ADDED);
	bf_record_free(&r);
	bf_record_init(&r, BF_REC_GEMM);
	r.u.gemm.device = strdup("cpu\x1b");
	r.u.gemm.dtype = strdup("fp32");
	r.u.gemm.n = 8;
	r.u.gemm.reason = strdup("caf\xc3\xa9 \xff\x1b[31m");
	add(&m, &r, -1, MODEL_ADDED_PROGRESS);
	bf_record_free(&r);
	model_set_state(&m, 0, HOST_FAILED,
			"build failed:\n\x1b[31mline 1\nline\x9b" "2");
	model_host_get(&m, 0, &h);
	assert_string_equal(h.hostname, "a?]0;t?b");
	assert_string_equal(h.agent_hash, "?[2J");
	/* Line breaks of a reason stay; everything else is clean. */
	assert_string_equal(h.reason, "build failed:\n?[31mline 1\nline?2");
	model_snapshot_update(&m, &snap);
	assert_string_equal(snap.rows[0].device, "cpu?");
	assert_string_equal(snap.rows[0].reason, "caf\xc3\xa9 ??[31m");
	model_snapshot_free(&snap);
	model_free(&m);
}

static void test_silence_limit(void **state)
{
	/* No floor: no limit, whatever the estimate. */
	assert_true(session_silence_limit_s(0, 1.0, 1000) == 0);
	/* No estimate yet: the floor. */
	assert_true(session_silence_limit_s(60, 0, 4096) == 60);
	/* 1 ns per n^3 at n = 1000 is 1 s: ten times that is under the
	 * floor; at n = 4000 it is 64 s, ten times 640 s. */
	assert_true(session_silence_limit_s(60, 1e-9, 1000) == 60);
	assert_true(fabs(session_silence_limit_s(60, 1e-9, 4000) - 640) < 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inventory_defaults),
		cmocka_unit_test(test_inventory_bad_defaults),
		cmocka_unit_test(test_agent_outcome),
		cmocka_unit_test(test_agent_outcome_long_last_line),
		cmocka_unit_test(test_inventory_env_names),
		cmocka_unit_test(test_env_is_build),
		cmocka_unit_test(test_env_values),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_inventory_build_values),
		cmocka_unit_test(test_model_ranges),
		cmocka_unit_test(test_model_completeness),
		cmocka_unit_test(test_model_text_is_sanitised),
		cmocka_unit_test(test_silence_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
