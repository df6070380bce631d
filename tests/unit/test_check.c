/*
 * Unit tests for ctl check's results (controller/model/check.c) and files
 * (controller/view/check_export.c): the reason line is at most 100 bytes
 * of printable ASCII whatever a host sends (escape sequences, newlines,
 * UTF-8 product names, very long reasons); the exit status is the worst
 * result's (failed 1, slow 7, unknown 8); a host stopped by --budget is
 * "unknown: budget exceeded"; NFD names and values are Kubernetes label
 * values; Prometheus label values are escaped.
 */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/check.h"
#include "schema.h"
#include "view/check_export.h"

static void assert_reason_ok(const char *s)
{
	size_t n = strlen(s);

	assert_true(n <= CHECK_REASON_MAX);
	for (size_t i = 0; i < n; i++)
		assert_true((unsigned char)s[i] >= 0x20 &&
			    (unsigned char)s[i] <= 0x7e);
}

static void test_reason_hostile(void **state)
{
	char buf[CHECK_REASON_MAX + 1], big[600];
	size_t n;

	(void)state;
	n = check_reason_format(buf, "benchfleet: %s ok: %s", "cuda:0",
				"bf16 410 TFLOP/s = 0.52 of 7 peers");
	assert_string_equal(buf,
			    "benchfleet: cuda:0 ok: bf16 410 TFLOP/s = 0.52 of 7 peers");
	assert_int_equal(n, strlen(buf));
	/* Escape sequences, newlines, UTF-8 (a product name), DEL. */
	check_reason_format(buf, "benchfleet: %s failed: %s",
			    "cuda:\x1b[2J0", "NVIDIA \xe2\x84\xa2 H100\nReason=x\r\x7f");
	assert_string_equal(buf, "benchfleet: cuda:?[2J0 failed: NVIDIA ??? "
				 "H100?Reason=x??");
	assert_reason_ok(buf);
	/* A long reason is cut at 100 bytes, ending "...". */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	n = check_reason_format(buf, "benchfleet: could not run: %s", big);
	assert_int_equal(n, CHECK_REASON_MAX);
	assert_reason_ok(buf);
	assert_memory_equal(buf + CHECK_REASON_MAX - 3, "...", 3);
	/* Longer than the formatter's own buffer too. */
	{
		char *huge = malloc(5000);

		memset(huge, '\n', 4999);
		huge[4999] = '\0';
		n = check_reason_format(buf, "%s", huge);
		assert_int_equal(n, CHECK_REASON_MAX);
		assert_reason_ok(buf);
		free(huge);
	}
	/* Exactly 100 bytes stays whole. */
	memset(big, 'y', 100);
	big[100] = '\0';
	assert_int_equal(check_reason_format(buf, "%s", big), 100);
	assert_string_equal(buf, big);
}

static void test_label_value(void **state)
{
	char buf[64], long_in[200];

	(void)state;
	assert_string_equal(check_label_value(buf, "cuda"), "cuda");
	assert_string_equal(check_label_value(buf, "20261204T113532Z-94e2"),
			    "20261204T113532Z-94e2");
	assert_string_equal(check_label_value(buf, "-a b/c=d\n-"), "a-b-c-d");
	assert_string_equal(check_label_value(buf, "\xe2\x84\xa2"), "unknown");
	assert_string_equal(check_label_value(buf, ""), "unknown");
	memset(long_in, 'z', sizeof(long_in) - 1);
	long_in[sizeof(long_in) - 1] = '\0';
	assert_int_equal(strlen(check_label_value(buf, long_in)), 63);
}

/* A run of two hosts: h0 stopped by the budget, h1 done with cuda:0 ok
 * (bf16) and cuda:1 slow (bf16 at half its peers) and a cpu row whose
 * product name is hostile and unknown. */
struct fixture {
	struct archive_host hosts[2];
	struct archive_run run;
	struct verdict_input in[3];
	struct verdict out[3];
	int host[3];
	struct verdict_run vr;
};

static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->hosts[0].name = "h0";
	f->hosts[0].status = "failed";
	f->hosts[0].reason = "budget exceeded (--budget 1 s): agent stopped";
	f->hosts[1].name = "h1\x1b[31m";
	f->hosts[1].status = "done";
	f->run.hosts = f->hosts;
	f->run.nhosts = 2;
	f->run.run_id = "20261204T000000Z-abcd";
	for (int i = 0; i < 3; i++) {
		f->host[i] = 1;
		f->in[i].host = "h1";
		f->in[i].dtype = "bf16";
		f->in[i].n = 4096;
		f->out[i].peer_ratio = f->out[i].ref_ratio_high =
			f->out[i].hist_ratio = NAN;
		/* Never NULL, as verdict_compute leaves them (verdict.h);
		 * literals: the fixture is never verdict_clear'd. */
		f->out[i].reasons = f->out[i].missing = "";
	}
	f->in[0].device = "cuda:0";
	f->in[0].gflops = 800000;
	f->out[0].kind = VERDICT_OK;
	f->out[0].npeers = 1;
	f->out[0].peer_ratio = 2.0;
	f->in[1].device = "cuda:1";
	f->in[1].gflops = 400000;
	f->out[1].kind = VERDICT_SLOW;
	f->out[1].npeers = 1;
	f->out[1].peer_ratio = 0.5;
	f->in[2].device = "cpu";
	f->in[2].dtype = "fp32";
	f->in[2].gflops = 150;
	f->out[2].kind = VERDICT_UNKNOWN;
	f->out[2].missing =
		"no published reference for Intel\xe2\x84\xa2 \x1b]0;x\x07 fp32";
	f->vr.in = f->in;
	f->vr.out = f->out;
	f->vr.host = f->host;
	f->vr.n = 3;
}

static void test_results(void **state)
{
	struct fixture f;
	struct check_result *res;
	int n, status;

	(void)state;
	fixture_init(&f);
	status = check_results(&f.run, &f.vr, &res, &n);
	assert_int_equal(status, BF_EXIT_SLOW);
	assert_int_equal(n, 4);
	assert_int_equal(res[0].host, 0);
	assert_int_equal(res[0].kind, CHECK_UNKNOWN);
	assert_string_equal(res[0].reason, "benchfleet: unknown: budget exceeded "
					   "(--budget 1 s): agent stopped");
	assert_string_equal(res[1].reason,
			    "benchfleet: cuda:0 ok: bf16 800 TFLOP/s = 2.00 of 1 peer");
	assert_int_equal(res[2].kind, CHECK_SLOW);
	assert_string_equal(res[2].reason,
			    "benchfleet: cuda:1 slow: bf16 400 TFLOP/s = 0.50 of 1 peer");
	assert_int_equal(res[3].kind, CHECK_UNKNOWN);
	for (int i = 0; i < n; i++)
		assert_reason_ok(res[i].reason);
	free(res);
	/* A failed row outranks the slow one; without both, unknown is 8,
	 * and all ok is 0. */
	f.out[0].kind = VERDICT_FAILED;
	assert_int_equal(check_results(&f.run, &f.vr, &res, &n),
			 BF_EXIT_CHECKS_FAILED);
	free(res);
	f.out[0].kind = VERDICT_OK;
	f.out[1].kind = VERDICT_OK;
	assert_int_equal(check_results(&f.run, &f.vr, &res, &n), BF_EXIT_UNKNOWN);
	free(res);
	f.out[2].kind = VERDICT_OK;
	f.hosts[0].status = "done";
	f.hosts[0].reason = NULL;
	/* h0 done but with nothing measured: unknown. */
	assert_int_equal(check_results(&f.run, &f.vr, &res, &n), BF_EXIT_UNKNOWN);
	assert_string_equal(res[0].reason, "benchfleet: unknown: no GEMM measured");
	free(res);
	f.run.nhosts = 1;
	f.run.hosts = &f.hosts[1];
	for (int i = 0; i < 3; i++)
		f.host[i] = 0;
	assert_int_equal(check_results(&f.run, &f.vr, &res, &n), BF_EXIT_OK);
	free(res);
	/* An uncertain slow is unknown, not slow. */
	f.out[1].kind = VERDICT_SLOW;
	f.out[1].uncertain = 1;
	assert_int_equal(check_results(&f.run, &f.vr, &res, &n), BF_EXIT_UNKNOWN);
	free(res);
}

static void test_nfd(void **state)
{
	struct fixture f;
	struct check_result *res;
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	int n, lines = 0;
	FILE *mem;

	(void)state;
	fixture_init(&f);
	f.run.nhosts = 1;
	f.run.hosts = &f.hosts[1];
	for (int i = 0; i < 3; i++)
		f.host[i] = 0;
	check_results(&f.run, &f.vr, &res, &n);
	mem = open_memstream(&text, &len);
	assert_int_equal(check_export_nfd(mem, &f.run, &f.vr, res, n, 0), 0);
	fclose(mem);
	assert_non_null(strstr(text, "\nbenchfleet-verdict=slow\n"));
	assert_non_null(strstr(text, "\nbenchfleet-cuda-bf16-verdict=slow\n"));
	assert_non_null(strstr(text, "\nbenchfleet-cuda-bf16-tflops=400\n"));
	assert_non_null(strstr(text, "\nbenchfleet-cpu-fp32-verdict=unknown\n"));
	assert_non_null(strstr(text, "\nbenchfleet-cpu-fp32-tflops=0.150\n"));
	/* Every line a comment or name=value, both label-safe. */
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		lines++;
		if (line[0] == '#')
			continue;
		assert_non_null(eq);
		assert_true(eq - line <= 63);
		assert_true(strlen(eq + 1) <= 63);
		for (char *p = line; *p; p++)
			assert_true(isalnum((unsigned char)*p) || *p == '-' ||
				    *p == '.' || *p == '_' || p == eq);
		assert_true(isalnum((unsigned char)line[0]));
		assert_true(isalnum((unsigned char)eq[1]));
		assert_true(isalnum((unsigned char)line[strlen(line) - 1]));
	}
	assert_int_equal(lines, 7);
	free(text);
	free(res);
}

static void test_prometheus(void **state)
{
	struct fixture f;
	struct check_result *res;
	char *text = NULL;
	size_t len = 0;
	int n;
	FILE *mem;

	(void)state;
	fixture_init(&f);
	f.hosts[1].name = "h\"1\\\n";
	check_results(&f.run, &f.vr, &res, &n);
	mem = open_memstream(&text, &len);
	assert_int_equal(check_export_prometheus(mem, &f.run, &f.vr, res, n,
						 1000.5), 0);
	fclose(mem);
	/* FLOP/s in base units, the label value escaped. */
	assert_non_null(strstr(text,
		"benchfleet_check_gemm_flops{host=\"h\\\"1\\\\\\n\","
		"device=\"cuda:1\",dtype=\"bf16\",n=\"4096\"} 400000000000000\n"));
	assert_non_null(strstr(text,
		"benchfleet_check_peer_ratio{host=\"h\\\"1\\\\\\n\","
		"device=\"cuda:1\",dtype=\"bf16\",n=\"4096\"} 0.5\n"));
	assert_non_null(strstr(text, "verdict=\"slow\"} 1\n"));
	assert_non_null(strstr(text,
		"benchfleet_check_status{host=\"h0\",status=\"unknown\"} 1\n"));
	assert_non_null(strstr(text,
		"benchfleet_check_timestamp_seconds{host=\"h0\"} 1000.500\n"));
	assert_non_null(strstr(text, "# TYPE benchfleet_check_gemm_flops gauge\n"));
	for (size_t i = 0; i < len; i++)
		assert_true(text[i] == '\n' ||
			    ((unsigned char)text[i] >= 0x20 &&
			     (unsigned char)text[i] <= 0x7e));
	free(text);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason_hostile),
		cmocka_unit_test(test_label_value),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_nfd),
		cmocka_unit_test(test_prometheus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
