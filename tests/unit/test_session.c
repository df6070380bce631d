/*
 * Unit tests of ctl's run plumbing that needs no host: the inventory's
 * per-host agent defaults, read through the agent's option table
 * (controller/inventory.c), and the one reading of an agent's exit status
 * (session_agent_outcome in controller/session.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctl.h"
#include "inventory.h"
#include "schema.h"
#include "session.h"

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
	{ "\"cpu_iters\": 0", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: cpu_iters '0': expected an integer from 1 to 100000" },
	{ "\"sizes\": \"64,x\"", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: sizes 'x': expected an integer from 1 to 65536" },
	{ "\"dtypes\": \"fp8\"", BF_ERR_USAGE,
	  "hosts/x.json: host a: defaults: dtypes 'fp8': unknown dtype 'fp8' (use fp32, fp16, bf16, tf32)" },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inventory_defaults),
		cmocka_unit_test(test_inventory_bad_defaults),
		cmocka_unit_test(test_agent_outcome),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
