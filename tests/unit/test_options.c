/*
 * Unit tests for agent/core/options.c: the defaults, every accepted form, and
 * each bad argument, which must give BF_ERR_USAGE with a one-line message
 * that names the argument (the agent prints it as is and exits 2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/options.h"

#define MAX_ARGS 32

/* Parses a NULL-terminated list of arguments (argv[0] added). getopt_long
 * permutes argv, so the strings are copied into writable storage. */
static enum bf_err parse(struct agent_opts *o, char *detail, size_t len, ...)
{
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	const char *a;
	enum bf_err err;
	va_list ap;

	argv[argc++] = strdup("agent");
	va_start(ap, len);
	while ((a = va_arg(ap, const char *)) != NULL && argc <= MAX_ARGS)
		argv[argc++] = strdup(a);
	va_end(ap);
	argv[argc] = NULL;
	detail[0] = '\0';
	err = agent_opts_parse(argc, argv, o, detail, len);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return err;
}

static void test_defaults(void **state)
{
	struct agent_opts o;
	char d[256];

	assert_int_equal(parse(&o, d, sizeof(d), NULL), BF_OK);
	assert_int_equal(o.nsizes, 1);
	assert_int_equal(o.sizes[0], 4096);
	assert_int_equal(o.ndtypes, 3);
	assert_int_equal(o.dtypes[0], BF_DTYPE_FP32);
	assert_int_equal(o.dtypes[1], BF_DTYPE_FP16);
	assert_int_equal(o.dtypes[2], BF_DTYPE_BF16);
	assert_int_equal(o.iters, 20);
	assert_int_equal(o.warmup, 5);
	assert_int_equal(o.cpu_iters, 5); /* max(3, 20 / 4) */
	assert_int_equal(o.cpu_warmup, 1); /* no --warmup given */
	assert_int_equal(o.devices, AGENT_DEV_ALL);
	assert_int_equal(o.seed, 1);
	assert_int_equal(o.transfer_mib, 64);
	assert_int_equal(o.human, 0);
	assert_int_equal(o.checks, 1);
	assert_int_equal(o.gemm, 1);
	assert_int_equal(o.help, 0);
	assert_int_equal(o.version, 0);
}

static void test_accepted(void **state)
{
	struct agent_opts o;
	char d[256];

	assert_int_equal(parse(&o, d, sizeof(d), "--sizes", "64,128,1024",
			       "--dtypes", "bf16,fp32,tf32,fp32", "--iters", "8",
			       "--warmup", "0", "--device", "cpu", "--seed",
			       "7", "--transfer-mib", "3", "--human",
			       "--no-checks", "--no-gemm", NULL),
			 BF_OK);
	assert_int_equal(o.nsizes, 3);
	assert_int_equal(o.sizes[0], 64);
	assert_int_equal(o.sizes[1], 128);
	assert_int_equal(o.sizes[2], 1024);
	assert_int_equal(o.ndtypes, 3); /* the repeated fp32 is dropped */
	assert_int_equal(o.dtypes[0], BF_DTYPE_BF16);
	assert_int_equal(o.dtypes[1], BF_DTYPE_FP32);
	assert_int_equal(o.dtypes[2], BF_DTYPE_TF32);
	assert_int_equal(o.iters, 8);
	assert_int_equal(o.warmup, 0);
	assert_int_equal(o.cpu_iters, 3); /* max(3, 8 / 4) */
	assert_int_equal(o.cpu_warmup, 0); /* the --warmup given */
	assert_int_equal(o.devices, AGENT_DEV_CPU);
	assert_int_equal(o.seed, 7);
	assert_int_equal(o.transfer_mib, 3);
	assert_true(o.human && !o.checks && !o.gemm);

	/* The --opt=value form, the aliases, and cpu_iters never above
	 * iters. */
	assert_int_equal(parse(&o, d, sizeof(d), "--size=256", "--iters=2",
			       "--device=gpu", "--dtypes=float16", NULL),
			 BF_OK);
	assert_int_equal(o.sizes[0], 256);
	assert_int_equal(o.cpu_iters, 2);
	assert_int_equal(o.devices, AGENT_DEV_CUDA);
	assert_int_equal(o.dtypes[0], BF_DTYPE_FP16);
	assert_int_equal(parse(&o, d, sizeof(d), "--iters", "40", "--device",
			       "all", NULL),
			 BF_OK);
	assert_int_equal(o.cpu_iters, 10);
	assert_int_equal(o.devices, AGENT_DEV_ALL);
	assert_int_equal(parse(&o, d, sizeof(d), "--cpu-iters", "7", NULL),
			 BF_OK);
	assert_int_equal(o.cpu_iters, 7);
	assert_int_equal(parse(&o, d, sizeof(d), "--cpu-warmup", "3", "--warmup",
			       "9", NULL),
			 BF_OK);
	assert_int_equal(o.cpu_warmup, 3);
	assert_int_equal(o.warmup, 9);
	assert_int_equal(parse(&o, d, sizeof(d), "--warmup", "9", NULL), BF_OK);
	assert_int_equal(o.cpu_warmup, 9);
	assert_int_equal(parse(&o, d, sizeof(d), "--size", "65536", NULL),
			 BF_OK);
	assert_int_equal(parse(&o, d, sizeof(d), "--help", NULL), BF_OK);
	assert_true(o.help);
	assert_int_equal(parse(&o, d, sizeof(d), "--version", NULL), BF_OK);
	assert_true(o.version);
}

struct bad_case {
	const char *args[4];
	const char *message; /* the whole detail text */
};

static const struct bad_case bad_cases[] = {
	{ { "--size", "0" }, "--size '0': expected an integer from 1 to 65536" },
	{ { "--size", "-5" }, "--size '-5': expected an integer from 1 to 65536" },
	{ { "--size", "abc" }, "--size 'abc': expected an integer from 1 to 65536" },
	{ { "--size", "1.5" }, "--size '1.5': expected an integer from 1 to 65536" },
	{ { "--size", "65537" }, "--size '65537': expected an integer from 1 to 65536" },
	{ { "--size", "99999999999999999999999" },
	  "--size '99999999999999999999999': expected an integer from 1 to 65536" },
	{ { "--size", "" }, "--size '': no size given" },
	{ { "--sizes", "64,,128" }, "--sizes '64,,128': empty item in the list" },
	{ { "--sizes", "64," }, "--sizes '64,': empty item in the list" },
	{ { "--size", "64,128" }, "--size '64,128': one size; use --sizes for a list" },
	{ { "--sizes", "64,x" }, "--sizes 'x': expected an integer from 1 to 65536" },
	{ { "--size", "64", "--sizes", "128" }, "--size/--sizes: give only one" },
	{ { "--dtypes", "fp4" },
	  "--dtypes 'fp4': unknown dtype 'fp4' (use fp32, fp16, bf16, tf32, fp8)" },
	{ { "--dtypes", "fp32,int8" },
	  "--dtypes 'fp32,int8': unknown dtype 'int8' (use fp32, fp16, bf16, tf32, fp8)" },
	{ { "--dtypes", "," }, "--dtypes ',': no dtype given" },
	{ { "--device", "tpu" }, "--device 'tpu': expected cpu, cuda or all" },
	{ { "--iters", "0" }, "--iters '0': expected an integer from 1 to 100000" },
	{ { "--warmup", "-1" }, "--warmup '-1': expected an integer from 0 to 100000" },
	{ { "--cpu-iters", "0" }, "--cpu-iters '0': expected an integer from 1 to 100000" },
	{ { "--cpu-warmup", "-1" }, "--cpu-warmup '-1': expected an integer from 0 to 100000" },
	{ { "--seed", "x" }, "--seed 'x': expected an integer from 0 to 2147483647" },
	{ { "--transfer-mib", "0" },
	  "--transfer-mib '0': expected an integer from 1 to 65536" },
	{ { "--size" }, "--size: needs a value" },
	{ { "--iters" }, "--iters: needs a value" },
	{ { "--bogus" }, "--bogus: unknown option" },
	{ { "--bogus=3" }, "--bogus=3: unknown option" },
	{ { "-x" }, "-x: unknown option" },
	{ { "-xy" }, "-x: unknown option" },
	{ { "--human=1" }, "--human=1: takes no value" },
	{ { "extra" }, "'extra': unexpected argument" },
	{ { "--size", "64", "extra" }, "'extra': unexpected argument" },
};

static void test_bad_arguments(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct agent_opts o;
		char d[256];
		enum bf_err err = parse(&o, d, sizeof(d), b->args[0], b->args[1],
					b->args[2], b->args[3], NULL);

		if (err != BF_ERR_USAGE)
			fail_msg("case %zu (%s ...): got %d, want BF_ERR_USAGE",
				 i, b->args[0], err);
		if (strcmp(d, b->message) != 0)
			fail_msg("case %zu: message \"%s\", want \"%s\"", i, d,
				 b->message);
		assert_null(strchr(d, '\n')); /* one line */
	}
}

static void test_usage_text(void **state)
{
	const char *u = agent_usage();

	assert_non_null(strstr(u, "usage: agent"));
	/* Every option the parser accepts is in the usage text. */
	assert_non_null(strstr(u, "--sizes"));
	assert_non_null(strstr(u, "--dtypes"));
	assert_non_null(strstr(u, "--cpu-iters"));
	assert_non_null(strstr(u, "--cpu-warmup"));
	assert_non_null(strstr(u, "--transfer-mib"));
	assert_non_null(strstr(u, "--human"));
	assert_non_null(strstr(u, "--no-checks"));
	assert_non_null(strstr(u, "--no-gemm"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_usage_text),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
