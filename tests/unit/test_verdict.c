/*
 * Unit tests for controller/model/verdict.c and references.c (issue 30):
 * a fake fleet of 8 same-product GPUs over 2 hosts with one at half speed
 * (slow, naming its 7 peers and their median), a published range, a
 * history step (only the runs after it count), unknown with no
 * comparison (each missing one named), an unreliable row (slow?, never
 * a confident slow), failed rows, thresholds from a reference file,
 * ranges and replace/add across files, and bad files.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dtype.h"
#include "hardware/reference.h"
#include "model/references.h"
#include "model/verdict.h"

#define H100 "NVIDIA H100 80GB HBM3"
#define H100_KEY "NVIDIA H100 80GB HBM3, 80 GiB"

static const char *names[8] = { "cuda:0", "cuda:1", "cuda:2", "cuda:3",
				"cuda:0", "cuda:1", "cuda:2", "cuda:3" };

/* 8 H100s, node1 cuda:0-3 and node2 cuda:0-3, bf16 n=4096, at 780 + 2k
 * GFLOP/s x 1000, node2 cuda:1 (row 5) at half its speed. */
static void fleet(struct verdict_input *in)
{
	for (int i = 0; i < 8; i++) {
		memset(&in[i], 0, sizeof(in[i]));
		in[i].host = i < 4 ? "node1" : "node2";
		in[i].device = names[i];
		in[i].product = H100;
		in[i].peer_key = H100_KEY;
		in[i].dtype = "bf16";
		in[i].n = 4096;
		in[i].occurrence = 1;
		in[i].status = BF_STATUS_PASS;
		in[i].gflops = (780.0 + 2 * i) * 1000;
		in[i].peak_gflops = 989e3;
		in[i].bound_gflops = 1979e3;
		in[i].reliable = 1;
	}
	in[5].gflops = 0.5 * in[5].gflops;
}

static void test_fleet_peers(void **state)
{
	struct verdict_input in[8];
	struct verdict out[8];
	int counts[VERDICT_FAILED + 1], confident;
	int idx[4] = { 4, 5, 6, 7 };

	(void)state;
	fleet(in);
	verdict_compute(in, 8, NULL, NULL, 0, NULL, 0, out);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(out[i].npeers, 7);
		assert_int_equal(out[i].kind, i == 5 ? VERDICT_SLOW : VERDICT_OK);
	}
	/* The others of row 5: 780, 782, 784, 786, 788, 792, 794 (x1000):
	 * median 786. */
	assert_true(fabs(out[5].peer_median - 786e3) < 1e-6);
	assert_true(fabs(out[5].peer_ratio - 395e3 / 786e3) < 1e-9);
	/* Row 0's others: 782..794 less 790 halved: 395, 782, 784, 786,
	 * 788, 792, 794: median 786. */
	assert_true(fabs(out[0].peer_median - 786e3) < 1e-6);
	/* Row 7 (794) is not its own peer: 395, 780 .. 792, median 784. */
	assert_true(fabs(out[7].peer_median - 784e3) < 1e-6);
	assert_non_null(strstr(out[5].reasons,
			       "0.50 of its 7 peers (median 786 TFLOP/s"));
	assert_non_null(strstr(out[5].peers, "node1 cuda:0, node1 cuda:1"));
	assert_non_null(strstr(out[5].peers, "node2 cuda:0, node2 cuda:2 and 1 more"));
	assert_null(strstr(out[5].peers, "node2 cuda:1"));
	assert_non_null(strstr(out[5].reasons, "0.40 of rated peak"));
	verdict_counts(out, 8, counts, &confident);
	assert_int_equal(counts[VERDICT_OK], 7);
	assert_int_equal(counts[VERDICT_SLOW], 1);
	assert_int_equal(confident, 1);
	assert_int_equal(verdict_device_pick(out, idx, 4), 5);
	/* Another dtype is no peer: a lone fp32 row has none. */
	in[0].dtype = "fp32";
	verdict_clear(out, 8);
	verdict_compute(in, 8, NULL, NULL, 0, NULL, 0, out);
	assert_int_equal(out[0].kind, VERDICT_UNKNOWN);
	assert_int_equal(out[1].npeers, 6);
	verdict_clear(out, 8);
}

static void test_unreliable(void **state)
{
	struct verdict_input in[8];
	struct verdict out[8];
	int counts[VERDICT_FAILED + 1], confident;

	(void)state;
	fleet(in);
	in[5].reliable = 0;
	verdict_compute(in, 8, NULL, NULL, 0, NULL, 0, out);
	assert_int_equal(out[5].kind, VERDICT_SLOW);
	assert_int_equal(out[5].uncertain, 1);
	assert_int_equal(out[4].uncertain, 0);
	verdict_counts(out, 8, counts, &confident);
	assert_int_equal(counts[VERDICT_SLOW], 1);
	assert_int_equal(confident, 0);
	verdict_clear(out, 8);
}

/* Issue 28: a failed record's 600-byte reason is a verdict's reasons
 * whole, and a skipped one's 2000 bytes are too; 200-byte host names do
 * not fit the 160 bytes of peer names: the cut ends in "..." instead of
 * a silent cut. */
static void test_long_text_marked(void **state)
{
	struct verdict_input in[8];
	struct verdict out[8];
	char reason[601], host[201];
	size_t len;

	(void)state;
	memset(reason, 'x', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	memset(host, 'h', sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	fleet(in);
	in[1].status = BF_STATUS_FAIL;
	in[1].reason = reason;
	in[2].host = host;
	verdict_compute(in, 8, NULL, NULL, 0, NULL, 0, out);
	assert_int_equal(out[1].kind, VERDICT_FAILED);
	/* The reason whole (it was cut at 480 bytes, "..."), as a skipped
	 * row's is, after its "skipped: ". */
	assert_string_equal(out[1].reasons, reason);
	len = strlen(out[0].peers);
	assert_int_equal(len, sizeof(out[0].peers) - 1);
	assert_string_equal(out[0].peers + len - 3, "...");
	verdict_clear(out, 8);
	{
		char *skip = calloc(2001, 1), *want;

		memset(skip, 'y', 2000);
		in[1].status = BF_STATUS_SKIPPED;
		in[1].reason = skip;
		verdict_compute(in, 8, NULL, NULL, 0, NULL, 0, out);
		assert_int_equal(out[1].kind, VERDICT_NONE);
		want = calloc(2100, 1);
		snprintf(want, 2100, "skipped: %s", skip);
		assert_string_equal(out[1].reasons, want);
		free(want);
		free(skip);
		verdict_clear(out, 8);
	}
}

/* Issue 28: a reference file's error names its path, which may be
 * longer than the callers' 512 bytes: the cut ends in "...". */
static void test_long_path_marked(void **state)
{
	struct ref_set s;
	char name[601], err[512];
	size_t len;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(name, 'd', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(references_parse(&s, "[", name, err, sizeof(err)),
			 BF_ERR_PARSE);
	len = strlen(err);
	assert_int_equal(len, sizeof(err) - 1);
	assert_string_equal(err + len - 3, "...");
	assert_memory_equal(err, name, 100);
	references_free(&s);
}

static void test_failed(void **state)
{
	struct verdict_input in[8];
	struct verdict out[8];

	(void)state;
	fleet(in);
	in[1].status = BF_STATUS_FAIL;
	in[1].reason = "verification failed: max rel error 0.5";
	in[2].bound_gflops = 700e3; /* 784 above it */
	in[3].status = BF_STATUS_SKIPPED;
	in[3].reason = "no NVIDIA driver";
	verdict_compute(in, 8, NULL, NULL, 0, NULL, 0, out);
	assert_int_equal(out[1].kind, VERDICT_FAILED);
	assert_string_equal(out[1].reasons,
			    "verification failed: max rel error 0.5");
	assert_int_equal(out[2].kind, VERDICT_FAILED);
	assert_non_null(strstr(out[2].reasons, "above the most"));
	assert_int_equal(out[3].kind, VERDICT_NONE);
	/* None of the three is anyone's peer. */
	assert_int_equal(out[0].npeers, 4);
	verdict_clear(out, 8);
}

static const char *gb10_file =
	"{\"schema\": \"benchfleet-references/1\","
	" \"sources\": {\"SEED\": {\"tool\": \"PyTorch torch.matmul\"},"
	"  \"B\": {\"tool\": \"cuBLAS\", \"link\": \"https://x\"}},"
	" \"references\": ["
	"  {\"product\": \"NVIDIA GB10\", \"dtype\": \"bf16\", \"n\": 4096,"
	"   \"tflops\": 87.2, \"source\": \"SEED\"},"
	"  {\"product\": \"NVIDIA GB10\", \"dtype\": \"bf16\", \"n\": 4096,"
	"   \"tflops\": 89.0, \"source\": \"B\"},"
	"  {\"product\": \"NVIDIA GB10\", \"dtype\": \"fp16\", \"n\": 4096,"
	"   \"tflops\": 88.8, \"source\": \"SEED\"}]}";

static void one_row(struct verdict_input *r, const char *product,
		    const char *dtype, double gflops)
{
	memset(r, 0, sizeof(*r));
	r->host = "spark";
	r->device = "cuda:0";
	r->product = product;
	r->peer_key = product;
	r->dtype = dtype;
	r->n = 4096;
	r->occurrence = 1;
	r->status = BF_STATUS_PASS;
	r->gflops = gflops;
	r->peak_gflops = NAN;
	r->bound_gflops = NAN;
	r->reliable = 1;
}

/* The comparisons disagree: slow beside its peers though within the
 * published range is slow (one slow comparison is enough); a record
 * that contradicts itself is failed; one earlier run is too short a
 * history (two needed) and says so. */
static void test_mixed_invalid_short(void **state)
{
	struct verdict_input in[8], r;
	struct verdict out[8], v;
	struct verdict_ref ref = { H100, "bf16", 4096, 300e3, 320e3, 2,
				   "published H100 results" };
	double one[1] = { 100000 };

	(void)state;
	fleet(in);
	verdict_compute(in, 8, NULL, NULL, 0, &ref, 1, out);
	/* row 5 (395e3) is above the range's low end: ok there */
	assert_non_null(strstr(out[5].reasons, "of published H100 results"));
	assert_null(strstr(out[5].reasons, "below 0.90 of its low end"));
	assert_int_equal(out[5].kind, VERDICT_SLOW);
	assert_int_equal(out[4].kind, VERDICT_OK);
	in[2].invalid = 1;
	in[2].reason = "invalid: gflops is not 2 n^3 / median_ms";
	verdict_clear(out, 8);
	verdict_compute(in, 8, NULL, NULL, 0, &ref, 1, out);
	assert_int_equal(out[2].kind, VERDICT_FAILED);
	assert_string_equal(out[2].reasons,
			    "invalid: gflops is not 2 n^3 / median_ms");
	one_row(&r, "NVIDIA X", "fp32", 100000);
	r.history = one;
	r.nhistory = 1;
	verdict_compute(&r, 1, NULL, NULL, 0, NULL, 0, &v);
	assert_int_equal(v.kind, VERDICT_UNKNOWN);
	assert_int_equal(v.nhistory, 0);
	assert_non_null(strstr(v.missing, "history too short (1 run since its "
					  "last change; 2 needed)"));
	verdict_clear(out, 8);
	verdict_clear(&v, 1);
}

static void test_reference_range(void **state)
{
	struct ref_set s = { 0 };
	struct verdict_input r;
	struct verdict v;
	char err[200];

	(void)state;
	assert_int_equal(references_parse(&s, gb10_file, "gb10.json", err,
					  sizeof(err)),
			 BF_OK);
	references_finish(&s);
	assert_int_equal(s.nranges, 2);
	assert_int_equal(s.ranges[0].nsources, 2);
	assert_true(fabs(s.ranges[0].low_gflops - 87200) < 1e-6);
	assert_true(fabs(s.ranges[0].high_gflops - 89000) < 1e-6);
	assert_int_equal(s.ranges[1].nsources, 1);
	assert_string_equal(s.ranges[0].label, "published GB10 results");

	one_row(&r, "NVIDIA GB10", "bf16", 87200);
	verdict_compute(&r, 1, NULL, NULL, 0, s.ranges, s.nranges, &v);
	assert_int_equal(v.kind, VERDICT_OK);
	assert_non_null(strstr(v.reasons,
			       "0.98-1.00 of published GB10 results"));
	/* 0.90 x 87.2 = 78.48: 78 is slow, 79 is not. */
	r.gflops = 78000;
	verdict_clear(&v, 1);
	verdict_compute(&r, 1, NULL, NULL, 0, s.ranges, s.nranges, &v);
	assert_int_equal(v.kind, VERDICT_SLOW);
	r.gflops = 79000;
	verdict_clear(&v, 1);
	verdict_compute(&r, 1, NULL, NULL, 0, s.ranges, s.nranges, &v);
	assert_int_equal(v.kind, VERDICT_OK);
	/* One source only is said. */
	r.dtype = "fp16";
	verdict_clear(&v, 1);
	verdict_compute(&r, 1, NULL, NULL, 0, s.ranges, s.nranges, &v);
	assert_non_null(strstr(v.reasons, "one source only"));
	references_free(&s);
	verdict_clear(&v, 1);
}

static void test_history_step(void **state)
{
	/* Ten runs at 50 then ten at 100 (+-1): only the ten after the step
	 * count. */
	double h[20];
	struct verdict_input r;
	struct verdict v;

	(void)state;
	for (int i = 0; i < 20; i++)
		h[i] = (i < 10 ? 50000 : 100000) + (i % 3 - 1) * 500;
	one_row(&r, "NVIDIA X", "fp32", 100000);
	r.history = h;
	r.nhistory = 20;
	verdict_compute(&r, 1, NULL, NULL, 0, NULL, 0, &v);
	assert_int_equal(v.kind, VERDICT_OK);
	assert_int_equal(v.nhistory, 10);
	assert_true(fabs(v.hist_median - 100000) < 1e-6);
	assert_non_null(strstr(v.reasons, "1.00 of its last 10 runs"));
	/* 70 is slow against the ten after the step (it would not be
	 * against all twenty: their median is 75). */
	r.gflops = 70000;
	verdict_clear(&v, 1);
	verdict_compute(&r, 1, NULL, NULL, 0, NULL, 0, &v);
	assert_int_equal(v.kind, VERDICT_SLOW);
	assert_non_null(strstr(v.reasons, "beyond their noise"));
	/* Within the noise floor (0.95): 96 is not slow. */
	r.gflops = 96000;
	verdict_clear(&v, 1);
	verdict_compute(&r, 1, NULL, NULL, 0, NULL, 0, &v);
	assert_int_equal(v.kind, VERDICT_OK);
	/* A noisy history widens the band: 100 +- 20 keeps 85 ok. */
	for (int i = 0; i < 10; i++)
		h[i] = 100000 + (i % 2 ? 20000 : -20000);
	r.nhistory = 10;
	r.gflops = 85000;
	verdict_clear(&v, 1);
	verdict_compute(&r, 1, NULL, NULL, 0, NULL, 0, &v);
	assert_int_equal(v.kind, VERDICT_OK);
	verdict_clear(&v, 1);
}

static void test_unknown(void **state)
{
	struct verdict_input r;
	struct verdict v;

	(void)state;
	one_row(&r, "NVIDIA Y", "bf16", 1000);
	r.peer_key = NULL;
	verdict_compute(&r, 1, NULL, NULL, 0, NULL, 0, &v);
	assert_int_equal(v.kind, VERDICT_UNKNOWN);
	assert_string_equal(v.missing,
			    "no peers (product unknown); no published "
			    "reference for NVIDIA Y bf16 n=4096; no earlier "
			    "runs with these settings");
	/* One peer is not enough (two needed). */
	{
		struct verdict_input two[2];
		struct verdict o[2];

		one_row(&two[0], "NVIDIA Y", "bf16", 1000);
		one_row(&two[1], "NVIDIA Y", "bf16", 400);
		two[1].device = "cuda:1";
		verdict_compute(two, 2, NULL, NULL, 0, NULL, 0, o);
		assert_int_equal(o[1].kind, VERDICT_UNKNOWN);
		assert_non_null(strstr(o[1].missing,
				       "no peers (1 other device of this "
				       "product; 2 needed)"));
		verdict_clear(o, 2);
	}
	verdict_clear(&v, 1);
}

static void test_thresholds_file(void **state)
{
	static const char *f =
		"{\"schema\": \"benchfleet-references/1\","
		" \"thresholds\": ["
		"  {\"product\": \"" H100 "\", \"dtype\": \"bf16\","
		"   \"peer_fraction\": 0.4},"
		"  {\"dtype\": \"bf16\", \"peer_fraction\": 0.6,"
		"   \"min_peers\": 3},"
		"  {\"product\": \"" H100 "\", \"history_min_runs\": 4}]}";
	struct ref_set s = { 0 };
	struct verdict_input in[8];
	struct verdict out[8];
	struct verdict_thresholds t;
	char err[200];

	(void)state;
	assert_int_equal(references_parse(&s, f, "t.json", err, sizeof(err)),
			 BF_OK);
	references_finish(&s);
	assert_int_equal(s.nov, 3);
	t = verdict_thresholds_for(NULL, s.ov, s.nov, H100, "bf16");
	assert_true(fabs(t.peer_fraction - 0.4) < 1e-12);
	assert_int_equal(t.min_peers, 3);
	assert_int_equal(t.history_min_runs, 4);
	assert_true(fabs(t.reference_tolerance - 0.90) < 1e-12);
	t = verdict_thresholds_for(NULL, s.ov, s.nov, "NVIDIA A100", "bf16");
	assert_true(fabs(t.peer_fraction - 0.6) < 1e-12);
	t = verdict_thresholds_for(NULL, s.ov, s.nov, "NVIDIA A100", "fp16");
	assert_true(fabs(t.peer_fraction - 0.9) < 1e-12);
	fleet(in);
	verdict_compute(in, 8, NULL, s.ov, s.nov, NULL, 0, out);
	assert_int_equal(out[5].kind, VERDICT_OK); /* 0.50 >= 0.4 */
	references_free(&s);
	verdict_clear(out, 8);
}

static void test_files_replace_add(void **state)
{
	static const char *team =
		"{\"schema\": \"benchfleet-references/1\","
		" \"sources\": {\"run:20260101-000000-abcd\": {}},"
		" \"references\": [{\"product\": \"NVIDIA GB10\","
		"  \"dtype\": \"bf16\", \"n\": 4096, \"tflops\": 80,"
		"  \"samples\": [79, 81.5],"
		"  \"source\": \"run:20260101-000000-abcd\"}]}";
	static const char *more =
		"{\"schema\": \"benchfleet-references/1\", \"mode\": \"add\","
		" \"sources\": {\"C\": {}},"
		" \"references\": [{\"product\": \"NVIDIA GB10\","
		"  \"dtype\": \"bf16\", \"n\": 4096, \"tflops\": 90,"
		"  \"source\": \"C\"}]}";
	struct ref_set s = { 0 };
	char err[200];

	(void)state;
	assert_int_equal(references_parse(&s, gb10_file, "a", err, sizeof(err)),
			 BF_OK);
	assert_int_equal(references_parse(&s, team, "b", err, sizeof(err)),
			 BF_OK);
	references_finish(&s);
	/* The team file replaced both published bf16 rows. */
	assert_int_equal(s.nranges, 2);
	assert_string_equal(s.ranges[1].label,
			    "team reference 20260101-000000-abcd");
	assert_true(fabs(s.ranges[1].low_gflops - 79000) < 1e-6);
	assert_true(fabs(s.ranges[1].high_gflops - 81500) < 1e-6);
	assert_int_equal(references_parse(&s, more, "c", err, sizeof(err)),
			 BF_OK);
	references_finish(&s);
	assert_true(fabs(s.ranges[1].high_gflops - 90000) < 1e-6);
	assert_int_equal(s.ranges[1].nsources, 2);
	assert_string_equal(s.ranges[1].label, "published GB10 results");
	references_free(&s);
}

static void test_bad_files(void **state)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "[", "x.json: not a JSON object" },
		{ "{\"schema\": \"other/1\"}",
		  "x.json: schema is not \"benchfleet-references/1\"" },
		{ "{\"schema\": \"benchfleet-references/1\", \"references\":"
		  " [{\"product\": \"A\", \"dtype\": \"bf16\", \"n\": 0,"
		  " \"tflops\": 1, \"source\": \"S\"}], \"sources\": {\"S\":"
		  " {}}}",
		  "x.json: references[0] needs product, dtype, n 1..1048576, "
		  "tflops above 0 and source" },
		{ "{\"schema\": \"benchfleet-references/1\", \"references\":"
		  " [{\"product\": \"A\", \"dtype\": \"bf17\", \"n\": 8,"
		  " \"tflops\": 1, \"source\": \"S\"}], \"sources\": {\"S\":"
		  " {}}}",
		  "x.json: references[0]: unknown dtype" },
		{ "{\"schema\": \"benchfleet-references/1\", \"references\":"
		  " [{\"product\": \"A\", \"dtype\": \"bf16\", \"n\": 8,"
		  " \"tflops\": 1, \"source\": \"T\"}], \"sources\": {\"S\":"
		  " {}}}",
		  "x.json: references[0]: source is not in sources" },
		{ "{\"schema\": \"benchfleet-references/1\", \"thresholds\":"
		  " [{\"peer_fraction\": 1.5}]}",
		  "x.json: thresholds[0]: a fraction is not in (0, 1]" },
		{ "{\"schema\": \"benchfleet-references/1\", \"thresholds\":"
		  " [{\"min_peers\": 0.5}]}",
		  "x.json: thresholds[0]: min_peers is not a whole number "
		  "1..1000" },
	};
	struct ref_set s = { 0 };
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(references_parse(&s, bad[i].text, "x.json", err,
						  sizeof(err)),
				 BF_ERR_PARSE);
		assert_string_equal(err, bad[i].err);
		assert_int_equal(s.nrows, 0);
		assert_int_equal(s.nfiles, 0);
	}
	references_free(&s);
}

/* The shipped data/references.json parses; the figures are in
 * it with their sources; a best over sizes is never matched. */
static void test_shipped_file(void **state)
{
	struct ref_set s = { 0 };
	char err[300], *text;
	long len;
	FILE *f = fopen(BF_TEST_SOURCE_DIR "/data/references.json", "r");
	int found = 0;

	(void)state;
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_int_equal(references_parse(&s, text, "references.json", err,
					  sizeof(err)),
			 BF_OK);
	free(text);
	references_finish(&s);
	for (int i = 0; i < s.nranges; i++) {
		const struct verdict_ref *r = &s.ranges[i];

		if (strcmp(r->product, H100) == 0 && r->n == 8192 &&
		    strcmp(r->dtype, "bf16") == 0) {
			assert_true(fabs(r->low_gflops - 797510) < 1e-6);
			found++;
		}
		if (strcmp(r->product, "NVIDIA B200") == 0 && r->n == 4096) {
			assert_true(fabs(r->low_gflops - 1410e3) < 1e-6);
			assert_int_equal(r->nsources, 1);
			found++;
		}
		if (strcmp(r->product, "NVIDIA A100-SXM4-40GB") == 0 &&
		    r->n == 8192) {
			assert_true(fabs(r->low_gflops - 254e3) < 1e-6);
			found++;
		}
		if (strcmp(r->product, "NVIDIA H200") == 0 &&
		    strcmp(r->dtype, "bf16") == 0) {
			assert_int_equal(r->n, 0);
			found++;
		}
	}
	assert_int_equal(found, 4);
	/* Every figure the agent still has compiled in (its records'
	 * reference_gflops) is in the file, with the same value. */
	{
		int nt;
		const struct gemm_reference *t = reference_table(&nt);

		for (int i = 0; i < nt; i++) {
			int hit = 0;

			for (int k = 0; k < s.nrows; k++)
				hit |= s.rows[k].n == t[i].n &&
				       strcmp(s.rows[k].product, t[i].product) == 0 &&
				       strcmp(s.rows[k].dtype,
					      bf_dtype_name(t[i].dtype)) == 0 &&
				       fabs(s.rows[k].low_gflops -
					    t[i].tflops * 1000) < 1e-6;
			assert_true(hit);
		}
	}
	references_free(&s);
}

static void test_product(void **state)
{
	struct bf_rec_gpu g[2] = { { .index = 0, .name = "NVIDIA GB10" },
				   { .index = 1, .name = "NVIDIA H100" } };
	struct bf_rec_host h = { .cpu_model = "Xeon", .gpus = g, .ngpus = 2 };

	(void)state;
	assert_string_equal(references_product(&h, "cuda:1"), "NVIDIA H100");
	assert_string_equal(references_product(&h, "cpu"), "Xeon");
	assert_null(references_product(&h, "cuda:2"));
	assert_null(references_product(&h, "cuda:"));
	assert_null(references_product(NULL, "cpu"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleet_peers),
		cmocka_unit_test(test_unreliable),
		cmocka_unit_test(test_failed),
		cmocka_unit_test(test_long_text_marked),
		cmocka_unit_test(test_long_path_marked),
		cmocka_unit_test(test_mixed_invalid_short),
		cmocka_unit_test(test_reference_range),
		cmocka_unit_test(test_history_step),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_thresholds_file),
		cmocka_unit_test(test_files_replace_add),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_shipped_file),
		cmocka_unit_test(test_product),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
