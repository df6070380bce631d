/*
 * verdict: how long the verdict (controller/model/verdict.c) of a large
 * run takes.
 *
 *   verdict HOSTS GPUS HISTORY ROUNDS     prints one JSON object
 *
 * A synthetic run of HOSTS hosts x GPUS H100s, each with 8 rows (fp32,
 * tf32, fp16, bf16 at n 4096 and 8192) at the published figures
 * (data/references.json's H100 SXM rows, +-1 % by a fixed generator),
 * each row with HISTORY earlier runs (+-1 %); on every host one GPU
 * (cuda:3) runs at half speed. The references are the H100 ranges built
 * through references_parse. Times verdict_compute over all rows ROUNDS
 * times (CLOCK_MONOTONIC; median and range; and the process's CPU
 * time, which a loaded machine does not inflate), and counts the verdicts:
 * every row of the half-speed GPUs must be slow and no other row may be.
 *
 * Built by tests/bench (bench/verdict runs it).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/references.h"
#include "model/verdict.h"

static uint64_t rng = 7;

static double uniform(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static const char *refs_text =
	"{\"schema\": \"benchfleet-references/1\","
	" \"sources\": {\"TPTD79\": {}},"
	" \"references\": ["
	"{\"product\": \"NVIDIA H100 80GB HBM3\", \"dtype\": \"fp32\","
	" \"n\": 4096, \"tflops\": 51.9, \"source\": \"TPTD79\"},"
	"{\"product\": \"NVIDIA H100 80GB HBM3\", \"dtype\": \"tf32\","
	" \"n\": 4096, \"tflops\": 402, \"source\": \"TPTD79\"},"
	"{\"product\": \"NVIDIA H100 80GB HBM3\", \"dtype\": \"fp16\","
	" \"n\": 4096, \"tflops\": 760, \"source\": \"TPTD79\"},"
	"{\"product\": \"NVIDIA H100 80GB HBM3\", \"dtype\": \"bf16\","
	" \"n\": 4096, \"tflops\": 789, \"source\": \"TPTD79\"},"
	"{\"product\": \"NVIDIA H100 80GB HBM3\", \"dtype\": \"fp32\","
	" \"n\": 8192, \"tflops\": 51.8, \"source\": \"TPTD79\"},"
	"{\"product\": \"NVIDIA H100 80GB HBM3\", \"dtype\": \"tf32\","
	" \"n\": 8192, \"tflops\": 372, \"source\": \"TPTD79\"},"
	"{\"product\": \"NVIDIA H100 80GB HBM3\", \"dtype\": \"fp16\","
	" \"n\": 8192, \"tflops\": 736, \"source\": \"TPTD79\"},"
	"{\"product\": \"NVIDIA H100 80GB HBM3\", \"dtype\": \"bf16\","
	" \"n\": 8192, \"tflops\": 798, \"source\": \"TPTD79\"}]}";

int main(int argc, char **argv)
{
	static const char *dtypes[4] = { "fp32", "tf32", "fp16", "bf16" };
	static const double tflops[2][4] = { { 51.9, 402, 760, 789 },
					     { 51.8, 372, 736, 798 } };
	int hosts = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 512;
	int gpus = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 8;
	int nhist = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 10;
	int rounds = argc > 4 ? (int)strtol(argv[4], NULL, 10) : 5;
	int n, k = 0, counts[VERDICT_FAILED + 1], wrong = 0;
	struct verdict_input *in;
	struct verdict *out;
	double *hist, *walls, *cpus;
	char (*names)[16], (*devs)[16], err[200];
	struct ref_set refs = { 0 };

	if (hosts < 1 || gpus < 4 || nhist < 0 || rounds < 1 ||
	    hosts > 100000 || gpus > 64 || nhist > 1000 || rounds > 100) {
		fprintf(stderr, "verdict: HOSTS 1.., GPUS 4..64, HISTORY "
				"0..1000, ROUNDS 1..100\n");
		return 2;
	}
	if (references_parse(&refs, refs_text, "bench", err, sizeof(err))) {
		fprintf(stderr, "verdict: %s\n", err);
		return 1;
	}
	references_finish(&refs);
	n = hosts * gpus * 8;
	in = calloc((size_t)n, sizeof(*in));
	out = calloc((size_t)n, sizeof(*out));
	hist = calloc((size_t)n * (size_t)(nhist + 1), sizeof(double));
	walls = calloc((size_t)rounds, sizeof(double));
	cpus = calloc((size_t)rounds, sizeof(double));
	names = calloc((size_t)hosts, sizeof(*names));
	devs = calloc((size_t)gpus, sizeof(*devs));
	if (!in || !out || !hist || !walls || !cpus || !names || !devs)
		return 1;
	for (int g = 0; g < gpus; g++)
		snprintf(devs[g], sizeof(devs[g]), "cuda:%d", g);
	for (int h = 0; h < hosts; h++) {
		snprintf(names[h], sizeof(names[h]), "node%d", h + 1);
		for (int g = 0; g < gpus; g++)
			for (int s = 0; s < 2; s++)
				for (int d = 0; d < 4; d++, k++) {
					struct verdict_input *r = &in[k];
					double base = tflops[s][d] * 1000;

					r->host = names[h];
					r->device = devs[g];
					r->product = "NVIDIA H100 80GB HBM3";
					r->peer_key = "NVIDIA H100 80GB HBM3, 80 GiB";
					r->dtype = dtypes[d];
					r->n = s ? 8192 : 4096;
					r->occurrence = 1;
					r->status = BF_STATUS_PASS;
					r->gflops = base * (0.99 + 0.02 * uniform()) *
						    (g == 3 ? 0.5 : 1);
					r->peak_gflops = 989e3;
					r->bound_gflops = 1979e3;
					r->reliable = 1;
					r->history = hist + (size_t)k * (size_t)(nhist + 1);
					r->nhistory = nhist;
					for (int j = 0; j < nhist; j++)
						hist[(size_t)k * (size_t)(nhist + 1) + (size_t)j] =
							base * (0.99 + 0.02 * uniform());
				}
	}
	for (int i = 0; i < rounds; i++) {
		double t = now_s(), c = cpu_s();

		verdict_compute(in, n, NULL, refs.ov, refs.nov, refs.ranges,
				refs.nranges, out);
		walls[i] = now_s() - t;
		cpus[i] = cpu_s() - c;
	}
	verdict_counts(out, n, counts, NULL);
	for (int i = 0; i < n; i++) {
		int half = strcmp(in[i].device, "cuda:3") == 0;

		wrong += half != (out[i].kind == VERDICT_SLOW);
	}
	qsort(walls, (size_t)rounds, sizeof(double), dbl_cmp);
	qsort(cpus, (size_t)rounds, sizeof(double), dbl_cmp);
	printf("{\"hosts\": %d, \"gpus\": %d, \"rows\": %d, \"history\": %d, "
	       "\"rounds\": %d, \"wall_median_s\": %.6f, \"wall_min_s\": %.6f, "
	       "\"wall_max_s\": %.6f, \"cpu_median_s\": %.6f, \"ok\": %d, \"slow\": %d, "
	       "\"unknown\": %d, \"failed\": %d, \"wrong\": %d}\n",
	       hosts, gpus, n, nhist, rounds, walls[rounds / 2], walls[0],
	       walls[rounds - 1], cpus[rounds / 2], counts[VERDICT_OK], counts[VERDICT_SLOW],
	       counts[VERDICT_UNKNOWN], counts[VERDICT_FAILED], wrong);
	references_free(&refs);
	free(in);
	free(out);
	free(hist);
	free(walls);
	free(cpus);
	free(names);
	free(devs);
	return wrong ? 1 : 0;
}
