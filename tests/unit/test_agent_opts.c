/*
 * Unit tests for common/agent_opts.c, the agent's option table that the
 * agent and ctl share: each value parsed and refused in the agent's words,
 * a whole set validated, merged with defaults, and written as the agent's
 * argv that the agent's own parser reads back to the same options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent_opts.h"
#include "core/options.h"
#include "xmalloc.h"

static enum bf_err set_opt(struct bf_agent_optset *s, const char *name,
			   const char *value, char *d, size_t len)
{
	const struct bf_agent_opt *o = bf_agent_opt_find(name);

	assert_non_null(o);
	d[0] = '\0';
	return bf_agent_opt_parse(o, NULL, value, s, d, len);
}

static void test_table(void **state)
{
	/* Every option the agent's usage names is in the table. */
	static const char *const names[] = { "size", "sizes", "dtypes",
		"device", "iters", "cpu-iters", "cpu-warmup", "warmup", "seed",
		"transfer-mib", "human", "no-checks", "no-gemm",
		"exit-on-hangup", NULL };

	for (int i = 0; names[i]; i++) {
		char flag[40];

		assert_non_null(bf_agent_opt_find(names[i]));
		snprintf(flag, sizeof(flag), "--%s", names[i]);
		assert_non_null(strstr(agent_usage(), flag));
	}
	assert_null(bf_agent_opt_find("help"));
	assert_null(bf_agent_opt_find("bogus"));
	assert_ptr_equal(bf_agent_opt_find_key("cpu_iters"),
			 bf_agent_opt_find("cpu-iters"));
	assert_ptr_equal(bf_agent_opt_find_key("warmup"),
			 bf_agent_opt_find("warmup"));
	assert_null(bf_agent_opt_find_key("size")); /* only "sizes" */
	assert_null(bf_agent_opt_find_key("seed"));
}

static void test_parse(void **state)
{
	struct bf_agent_optset s;
	char d[256];

	memset(&s, 0, sizeof(s));
	assert_int_equal(set_opt(&s, "warmup", "0", d, sizeof(d)), BF_OK);
	assert_true(bf_agent_optset_has(&s, BF_AF_WARMUP));
	assert_int_equal(s.warmup, 0);
	assert_false(bf_agent_optset_has(&s, BF_AF_ITERS));
	assert_int_equal(set_opt(&s, "sizes", "64,96", d, sizeof(d)), BF_OK);
	assert_int_equal(s.nsizes, 2);
	assert_int_equal(s.sizes[1], 96);
	assert_int_equal(set_opt(&s, "size", "128", d, sizeof(d)),
			 BF_ERR_USAGE);
	assert_string_equal(d, "--size/--sizes: give only one");
	assert_int_equal(set_opt(&s, "dtypes", "bf16,float32,bf16", d,
				 sizeof(d)), BF_OK);
	assert_int_equal(s.ndtypes, 2);
	assert_int_equal(s.dtypes[0], BF_DTYPE_BF16);
	assert_int_equal(s.dtypes[1], BF_DTYPE_FP32);
	assert_int_equal(set_opt(&s, "device", "gpu", d, sizeof(d)), BF_OK);
	assert_int_equal(s.devices, BF_AGENT_DEV_CUDA);
	assert_int_equal(set_opt(&s, "seed", "2147483647", d, sizeof(d)), BF_OK);
	assert_int_equal(s.seed, 2147483647L);
	assert_int_equal(set_opt(&s, "human", NULL, d, sizeof(d)), BF_OK);
	assert_true(bf_agent_optset_has(&s, BF_AF_HUMAN));

	/* The agent's words, and a label of the caller's choosing. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(set_opt(&s, "size", "abc", d, sizeof(d)), BF_ERR_USAGE);
	assert_string_equal(d, "--size 'abc': expected an integer from 1 to 65536");
	assert_false(bf_agent_optset_has(&s, BF_AF_SIZES));
	assert_int_equal(bf_agent_opt_parse(bf_agent_opt_find("cpu-warmup"),
					    "cpu_warmup", "-1", &s, d,
					    sizeof(d)), BF_ERR_USAGE);
	assert_string_equal(d, "cpu_warmup '-1': expected an integer from 0 to 100000");
	assert_int_equal(set_opt(&s, "iters", "1.5", d, sizeof(d)), BF_ERR_USAGE);
	assert_int_equal(set_opt(&s, "device", "tpu", d, sizeof(d)), BF_ERR_USAGE);
	assert_string_equal(d, "--device 'tpu': expected cpu, cuda or all");
	assert_int_equal(s.given, 0);
}

static void test_validate(void **state)
{
	struct bf_agent_optset s;
	char d[256];

	memset(&s, 0, sizeof(s));
	assert_int_equal(bf_agent_optset_validate(&s, d, sizeof(d)), BF_OK);
	/* Values not given are not looked at. */
	s.iters = 0;
	s.nsizes = 0;
	assert_int_equal(bf_agent_optset_validate(&s, d, sizeof(d)), BF_OK);
	s.given = 1u << BF_AF_ITERS;
	assert_int_equal(bf_agent_optset_validate(&s, d, sizeof(d)),
			 BF_ERR_USAGE);
	assert_string_equal(d, "--iters '0': expected an integer from 1 to 100000");
	s.iters = 3;
	s.given |= 1u << BF_AF_SIZES;
	assert_int_equal(bf_agent_optset_validate(&s, d, sizeof(d)),
			 BF_ERR_USAGE);
	s.nsizes = 1;
	s.sizes[0] = 65537;
	assert_int_equal(bf_agent_optset_validate(&s, d, sizeof(d)),
			 BF_ERR_USAGE);
	assert_string_equal(d, "--sizes '65537': expected an integer from 1 to 65536");
	s.sizes[0] = 512;
	s.given |= 1u << BF_AF_DTYPES;
	s.ndtypes = 1;
	s.dtypes[0] = BF_DTYPE_INT8;
	assert_int_equal(bf_agent_optset_validate(&s, d, sizeof(d)),
			 BF_ERR_USAGE);
	s.dtypes[0] = BF_DTYPE_TF32;
	s.given |= 1u << BF_AF_DEVICE;
	s.devices = 4;
	assert_int_equal(bf_agent_optset_validate(&s, d, sizeof(d)),
			 BF_ERR_USAGE);
	s.devices = BF_AGENT_DEV_ALL;
	assert_int_equal(bf_agent_optset_validate(&s, d, sizeof(d)), BF_OK);
}

static void test_merge(void **state)
{
	struct bf_agent_optset cmd, def;
	char d[256];

	memset(&cmd, 0, sizeof(cmd));
	memset(&def, 0, sizeof(def));
	assert_int_equal(set_opt(&cmd, "iters", "7", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&def, "iters", "20", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&def, "warmup", "0", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&def, "sizes", "1024,4096", d, sizeof(d)), BF_OK);
	bf_agent_optset_merge(&cmd, &def);
	assert_int_equal(cmd.iters, 7);   /* the command line wins */
	assert_int_equal(cmd.warmup, 0);  /* 0 is a value */
	assert_true(bf_agent_optset_has(&cmd, BF_AF_WARMUP));
	assert_int_equal(cmd.nsizes, 2);
	assert_int_equal(cmd.sizes[1], 4096);
	assert_false(bf_agent_optset_has(&cmd, BF_AF_CPU_ITERS));
}

/* --no-bandwidth and --bandwidth-mib contradict each other: a set with
 * both is refused; one given replaces the other's default. */
static void test_exclusive(void **state)
{
	struct bf_agent_optset cmd, def;
	char d[256];

	(void)state;
	memset(&cmd, 0, sizeof(cmd));
	memset(&def, 0, sizeof(def));
	assert_int_equal(set_opt(&cmd, "no-bandwidth", NULL, d, sizeof(d)),
			 BF_OK);
	assert_int_equal(set_opt(&cmd, "bandwidth-mib", "8", d, sizeof(d)),
			 BF_OK);
	assert_int_equal(bf_agent_optset_validate(&cmd, d, sizeof(d)),
			 BF_ERR_USAGE);
	assert_string_equal(d, "--no-bandwidth and --bandwidth-mib: "
			       "give only one");
	assert_int_equal(bf_agent_field_replaces(BF_AF_NO_BANDWIDTH),
			 (1u << BF_AF_NO_BANDWIDTH) |
				 (1u << BF_AF_BANDWIDTH_MIB));
	assert_int_equal(bf_agent_field_replaces(BF_AF_ITERS),
			 1u << BF_AF_ITERS);
	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(set_opt(&cmd, "no-bandwidth", NULL, d, sizeof(d)),
			 BF_OK);
	assert_int_equal(set_opt(&def, "bandwidth-mib", "8", d, sizeof(d)),
			 BF_OK);
	bf_agent_optset_merge(&cmd, &def);
	assert_false(bf_agent_optset_has(&cmd, BF_AF_BANDWIDTH_MIB));
	assert_int_equal(bf_agent_optset_validate(&cmd, d, sizeof(d)), BF_OK);
}

/* to-argv, then the agent's own parser: the same options come back. */
static void test_round_trip(void **state)
{
	struct bf_agent_optset s;
	struct agent_opts o;
	char d[256], **argv, *full[40];
	int argc = 0;

	memset(&s, 0, sizeof(s));
	assert_int_equal(set_opt(&s, "size", "96", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "dtypes", "float16,tf32", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "device", "cpu", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "iters", "6", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "cpu-iters", "4", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "cpu-warmup", "2", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "warmup", "0", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "seed", "9", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "transfer-mib", "3", d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "exit-on-hangup", NULL, d, sizeof(d)), BF_OK);
	assert_int_equal(set_opt(&s, "no-checks", NULL, d, sizeof(d)), BF_OK);
	argv = bf_agent_optset_to_argv(&s);

	/* Flags first, then the values in table order; sizes as --sizes. */
	assert_string_equal(argv[0], "--exit-on-hangup");
	assert_string_equal(argv[1], "--no-checks");
	assert_string_equal(argv[2], "--sizes");
	assert_string_equal(argv[3], "96");
	assert_string_equal(argv[4], "--dtypes");
	assert_string_equal(argv[5], "fp16,tf32");
	assert_string_equal(argv[6], "--device");
	assert_string_equal(argv[7], "cpu");

	full[argc++] = "agent";
	for (int i = 0; argv[i]; i++)
		full[argc++] = argv[i];
	full[argc] = NULL;
	assert_int_equal(agent_opts_parse(argc, full, &o, d, sizeof(d)), BF_OK);
	assert_int_equal(o.nsizes, 1);
	assert_int_equal(o.sizes[0], 96);
	assert_int_equal(o.ndtypes, 2);
	assert_int_equal(o.dtypes[0], BF_DTYPE_FP16);
	assert_int_equal(o.dtypes[1], BF_DTYPE_TF32);
	assert_int_equal(o.devices, AGENT_DEV_CPU);
	assert_int_equal(o.iters, 6);
	assert_int_equal(o.cpu_iters, 4);
	assert_int_equal(o.cpu_warmup, 2);
	assert_int_equal(o.warmup, 0);
	assert_int_equal(o.seed, 9);
	assert_int_equal(o.transfer_mib, 3);
	assert_true(o.exit_on_hangup && !o.checks && o.gemm && !o.human);
	bf_xfree_strv(argv);

	/* Nothing given: no arguments at all (the agent's defaults). */
	memset(&s, 0, sizeof(s));
	argv = bf_agent_optset_to_argv(&s);
	assert_null(argv[0]);
	bf_xfree_strv(argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_exclusive),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
