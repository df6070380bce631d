/*
 * The seed's batching case (see batching.h and mlp.h). Per device: the
 * backend runs warm-up rounds, then timed rounds of 20 one-row calls
 * followed by one 20-row call; the medians give the latency per call
 * (ms), the throughput (rows/s) and the speed-up of batching. The scores
 * are integers exact in fp16 and fp32 (mlp.h), so the tolerance is 0: the
 * batch's scores must equal the one-row calls' and the float64
 * reference's exactly.
 */
#include "workloads/batching.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"
#include "workloads/mlp.h"
#include "xmalloc.h"

int batching_count(int ndevices)
{
	return ndevices;
}

enum bf_dtype batching_dtype(enum device_kind kind)
{
	return kind == DEVICE_CPU ? BF_DTYPE_FP32 : BF_DTYPE_FP16;
}

static void emit_unrun(struct report *r, const char *device, enum bf_dtype dt,
		       enum bf_status status, const char *reason)
{
	struct bf_record rec;

	bf_record_init(&rec, BF_REC_BATCHING);
	rec.u.batching.device = bf_xstrdup(device);
	rec.u.batching.dtype = bf_xstrdup(bf_dtype_name(dt));
	rec.u.batching.status = status;
	rec.u.batching.reason = bf_xstrdup(reason);
	report_emit_record(r, &rec);
	bf_record_free(&rec);
}

static void run_one(struct report *r, const struct sweep_device *sd,
		    const struct agent_opts *o)
{
	const struct backend *be = backend_for(sd->dev.kind);
	enum bf_dtype dt = batching_dtype(sd->dev.kind);
	float x[MLP_ROWS * MLP_IN], w1[MLP_IN * MLP_HID], w2[MLP_HID * MLP_OUTPUTS];
	float single[MLP_ROWS * MLP_OUTPUTS], batch[MLP_ROWS * MLP_OUTPUTS];
	double ref[MLP_ROWS * MLP_OUTPUTS];
	int warmup = sd->dev.kind == DEVICE_CPU ? o->cpu_warmup : o->warmup;
	struct mlp_job job = {
		.dtype = dt, .rows = MLP_ROWS, .in = MLP_IN, .hidden = MLP_HID,
		.out = MLP_OUTPUTS, .x = x, .w1 = w1, .w2 = w2,
		.warmup = warmup, .iters = o->iters,
	};
	struct mlp_result res = { .single_out = single, .batch_out = batch };
	static const int layers[] = { MLP_FEATURES, MLP_HIDDEN, MLP_OUTPUTS };
	struct bf_rec_batching *b;
	struct bf_record rec;
	char label[16], detail[512] = "";
	double diff = 0, error = 0;
	enum bf_err err;

	device_label(&sd->dev, label, sizeof(label));
	if (!be || !sd->usable || !be->mlp_run) {
		emit_unrun(r, label, dt, BF_STATUS_SKIPPED,
			   sd->usable ? "this backend runs no model" : sd->reason);
		return;
	}
	mlp_fill(x, w1, w2);
	mlp_forward_ref(MLP_ROWS, x, w1, w2, ref);
	for (int i = 0; i < MLP_ROWS * MLP_OUTPUTS; i++)
		single[i] = batch[i] = NAN; /* a score never written fails */
	res.single_ms = bf_xcalloc((size_t)job.iters, sizeof(double));
	res.batch_ms = bf_xcalloc((size_t)job.iters, sizeof(double));
	err = be->mlp_run(sd->dev.index, &job, &res, detail, sizeof(detail));
	if (err != BF_OK) {
		emit_unrun(r, label, dt,
			   err == BF_ERR_UNSUPPORTED ? BF_STATUS_SKIPPED :
						       BF_STATUS_FAIL,
			   detail);
		goto out;
	}
	/* Outside the timed region. NaN compares false: count it as an
	 * infinite difference. */
	for (int i = 0; i < MLP_ROWS * MLP_OUTPUTS; i++) {
		double d = fabs((double)batch[i] - (double)single[i]);
		double e1 = fabs((double)batch[i] - ref[i]);
		double e2 = fabs((double)single[i] - ref[i]);

		if (!(d <= diff))
			diff = isnan(d) ? INFINITY : d;
		if (!(e1 <= error))
			error = isnan(e1) ? INFINITY : e1;
		if (!(e2 <= error))
			error = isnan(e2) ? INFINITY : e2;
	}

	bf_record_init(&rec, BF_REC_BATCHING);
	b = &rec.u.batching;
	b->device = bf_xstrdup(label);
	b->dtype = bf_xstrdup(bf_dtype_name(dt));
	b->measured = 1;
	b->tolerance = 0; /* integer scores, exact in fp16 and fp32 */
	b->max_abs_diff = diff;
	b->max_abs_error = error;
	b->status = diff <= b->tolerance && error <= b->tolerance ?
			    BF_STATUS_PASS :
			    BF_STATUS_FAIL;
	if (b->status != BF_STATUS_PASS) {
		snprintf(detail, sizeof(detail),
			 "scores differ: batch vs one-row calls by %.6g, from "
			 "the exact scores by %.6g (tolerance 0)",
			 diff, error);
		b->reason = bf_xstrdup(detail);
	}
	b->model = bf_xstrdup("30-16-relu-1");
	b->layers = bf_xcalloc(3, sizeof(int));
	for (int i = 0; i < 3; i++)
		b->layers[i] = layers[i];
	b->nlayers = 3;
	b->rows = MLP_ROWS;
	b->features = MLP_FEATURES;
	b->library = bf_xstrdup(be->gemm_library());
	b->math_mode = bf_xstrdup(res.math_mode);
	b->timing = bf_xstrdup(res.timing);
	b->warmup = warmup;
	b->iters = job.iters;
	b->single_samples_ms = res.single_ms; /* lent: freed below */
	b->nsingle = job.iters;
	b->batch_samples_ms = res.batch_ms;
	b->nbatch = job.iters;
	b->single_ms = bf_stats_median(res.single_ms, (size_t)job.iters);
	b->batch_ms = bf_stats_median(res.batch_ms, (size_t)job.iters);
	b->single_rows_per_s = 1e3 / b->single_ms;
	b->batch_rows_per_s = MLP_ROWS * 1e3 / b->batch_ms;
	/* A wrong result has no speed worth showing. */
	b->speedup = b->status == BF_STATUS_PASS ?
			     b->batch_rows_per_s / b->single_rows_per_s :
			     NAN;
	b->scores = bf_xcalloc(MLP_ROWS * MLP_OUTPUTS, sizeof(double));
	b->expected_scores = bf_xcalloc(MLP_ROWS * MLP_OUTPUTS, sizeof(double));
	for (int i = 0; i < MLP_ROWS * MLP_OUTPUTS; i++) {
		b->scores[i] = batch[i];
		b->expected_scores[i] = ref[i];
	}
	b->nscores = b->nexpected = MLP_ROWS * MLP_OUTPUTS;
	report_emit_record(r, &rec);
	b->single_samples_ms = b->batch_samples_ms = NULL;
	bf_record_free(&rec);
out:
	free(res.single_ms);
	free(res.batch_ms);
}

void batching_run(struct report *r, const struct sweep_device *devs,
		  int ndevices, const struct agent_opts *o)
{
	for (int d = 0; d < ndevices; d++)
		run_one(r, &devs[d], o);
}
