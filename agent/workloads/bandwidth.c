/*
 * Memory bandwidth per device (see bandwidth.h). The protocol is the
 * GEMM's: warm-up passes, then timed ones, every sample kept, the median
 * reported, the output checked after the last pass, outside the timed
 * region. GB/s counts the bytes each kind states in its record's
 * `counting` (STREAM's convention: bytes read plus bytes written, write-
 * allocate traffic not counted), over the median time.
 */
#include "workloads/bandwidth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardware/hostinfo.h"
#include "stats.h"
#include "xmalloc.h"

#define MIB (1024.0 * 1024.0)
/* Smallest array worth timing: below it the result is a cache's. */
#define BW_MIN_ARRAY_BYTES ((size_t)64 << 10)

static const char *const kind_names[BW__COUNT] = {
	[BW_TRIAD] = BF_BW_TRIAD,
	[BW_D2D] = BF_BW_D2D,
	[BW_H2D_PAGEABLE] = BF_BW_H2D_PAGEABLE,
	[BW_D2H_PAGEABLE] = BF_BW_D2H_PAGEABLE,
	[BW_H2D_PINNED] = BF_BW_H2D_PINNED,
	[BW_D2H_PINNED] = BF_BW_D2H_PINNED,
};

const char *bandwidth_kind_name(enum bw_kind k)
{
	return (int)k >= 0 && k < BW__COUNT ? kind_names[k] : "unknown";
}

int bandwidth_kinds(enum device_kind kind, enum bw_kind *kinds)
{
	if (kind == DEVICE_CPU) {
		kinds[0] = BW_TRIAD;
		return 1;
	}
	kinds[0] = BW_D2D;
	kinds[1] = BW_H2D_PAGEABLE;
	kinds[2] = BW_D2H_PAGEABLE;
	kinds[3] = BW_H2D_PINNED;
	kinds[4] = BW_D2H_PINNED;
	return 5;
}

int bandwidth_count(const struct sweep_device *devs, int ndevices)
{
	enum bw_kind kinds[BW__COUNT];
	int n = 0;

	for (int i = 0; i < ndevices; i++)
		n += bandwidth_kinds(devs[i].dev.kind, kinds);
	return n;
}

/* Arrays (triad) or buffers (copies) a kind holds at once. */
static int arrays_of(enum bw_kind kind)
{
	return kind == BW_TRIAD ? 3 : kind == BW_D2D ? 2 : 1;
}

size_t bandwidth_array_bytes(enum bw_kind kind, size_t llc_bytes,
			     int bandwidth_mib)
{
	size_t bytes;

	if (bandwidth_mib > 0)
		bytes = ((size_t)bandwidth_mib << 20) / (size_t)arrays_of(kind);
	else if (kind == BW_TRIAD)
		bytes = 4 * llc_bytes > ((size_t)256 << 20) / 3 ?
				4 * llc_bytes :
				((size_t)256 << 20) / 3;
	else
		bytes = (size_t)256 << 20;
	return bytes & ~(size_t)63;
}

/* A bandwidth record that did not run. Caller frees. */
static void unrun_record(struct bf_record *rec, const char *device,
			 enum bw_kind kind, enum bf_status status,
			 const char *reason)
{
	bf_record_init(rec, BF_REC_BANDWIDTH);
	rec->u.bandwidth.device = bf_xstrdup(device);
	rec->u.bandwidth.kind = bf_xstrdup(bandwidth_kind_name(kind));
	rec->u.bandwidth.status = status;
	rec->u.bandwidth.reason = bf_xstrdup(reason);
}

static void emit_unrun(struct report *r, const char *device, enum bw_kind kind,
		       enum bf_status status, const char *reason,
		       double needed, double free_b)
{
	struct bf_record rec;

	unrun_record(&rec, device, kind, status, reason);
	if (needed > 0) {
		rec.u.bandwidth.needed_bytes = needed;
		rec.u.bandwidth.free_bytes = free_b;
	}
	report_emit_record(r, &rec);
	bf_record_free(&rec);
}

/* The array size after the fit check: the whole working set in at most
 * half of the free memory (host memory for the triad and the host side
 * of a transfer, the device's for its buffers), so the measurement never
 * pushes the machine into swap. 0 when not even BW_MIN_ARRAY_BYTES fits;
 * *needed and *free_b then say why. */
static size_t fit_array(const struct backend *be, const struct device *dev,
			enum bw_kind kind, size_t want, double *needed,
			double *free_b, char *limit, size_t limit_len)
{
	uint64_t room = 0, total = 0;
	int arrays = arrays_of(kind);
	size_t fit;

	*needed = (double)want * arrays;
	*free_b = NAN;
	if (be->mem_info(dev->index, &room, &total, limit, limit_len) != BF_OK)
		return want; /* unknown: try, and an allocation failure says */
	if (kind != BW_TRIAD && kind != BW_D2D) {
		/* A transfer also needs its host buffer and a copy back. */
		uint64_t host = 0;
		char what[64];

		if (hostinfo_memory_room(&host, what, sizeof(what)) == BF_OK &&
		    host / 2 < room)
			room = host / 2 > 0 ? host / 2 : 0;
	}
	*free_b = (double)room;
	fit = (size_t)(room / 2 / (uint64_t)arrays) & ~(size_t)63;
	if (fit >= want)
		return want;
	return fit >= BW_MIN_ARRAY_BYTES ? fit : 0;
}

/* Runs and reports one (device, kind). Returns the median GB/s when it
 * passed, else NaN. */
static double run_one(struct report *r, const struct sweep_device *sd,
		      enum bw_kind kind, const struct agent_opts *o)
{
	const struct backend *be = backend_for(sd->dev.kind);
	struct bw_job job = { .kind = kind, .warmup = BW_WARMUP,
			      .iters = BW_ITERS };
	struct bw_result res = { 0 };
	struct bf_stats_summary st;
	struct bf_rec_bandwidth *b;
	struct bf_record rec;
	char label[16], detail[512] = "", limit[64] = "";
	double needed, free_b, gbps;
	enum bf_err err;

	device_label(&sd->dev, label, sizeof(label));
	if (!be || !sd->usable || !be->bandwidth) {
		emit_unrun(r, label, kind, BF_STATUS_SKIPPED,
			   sd->usable ? "this backend measures no bandwidth" :
					sd->reason,
			   0, 0);
		return NAN;
	}
	job.array_bytes = fit_array(be, &sd->dev, kind,
				    bandwidth_array_bytes(kind, hostinfo_llc_bytes(),
							  o->bandwidth_mib),
				    &needed, &free_b, limit, sizeof(limit));
	if (job.array_bytes == 0) {
		snprintf(detail, sizeof(detail),
			 "does not fit: %d x %.0f MiB needs twice that free, "
			 "%s has %.0f MiB free%s%s%s",
			 arrays_of(kind), needed / arrays_of(kind) / MIB, label,
			 free_b / MIB, *limit ? " (" : "", limit,
			 *limit ? ")" : "");
		emit_unrun(r, label, kind, BF_STATUS_SKIPPED, detail, needed,
			   free_b);
		return NAN;
	}
	res.samples_ms = bf_xcalloc((size_t)job.iters, sizeof(double));
	err = be->bandwidth(sd->dev.index, &job, &res, detail, sizeof(detail));
	if (err != BF_OK) {
		/* Out of memory although the check passed: skipped, as a
		 * GEMM's "does not fit"; any other error failed. */
		char why[600];

		snprintf(why, sizeof(why), "%s%s",
			 err == BF_ERR_NOMEM ? "does not fit: " : "", detail);
		emit_unrun(r, label, kind,
			   err == BF_ERR_NOMEM || err == BF_ERR_UNSUPPORTED ?
				   BF_STATUS_SKIPPED :
				   BF_STATUS_FAIL,
			   why, err == BF_ERR_NOMEM ? needed : 0, free_b);
		free(res.samples_ms);
		return NAN;
	}
	st = bf_stats_summarize(res.samples_ms, (size_t)job.iters);
	gbps = res.bytes / (st.median / 1e3) / 1e9;

	bf_record_init(&rec, BF_REC_BANDWIDTH);
	b = &rec.u.bandwidth;
	b->device = bf_xstrdup(label);
	b->kind = bf_xstrdup(bandwidth_kind_name(kind));
	b->status = res.verified ? BF_STATUS_PASS : BF_STATUS_FAIL;
	if (!res.verified)
		b->reason = bf_xstrdup(kind == BW_TRIAD ?
			"the arrays did not hold b + s c after the last pass" :
			"the copy's destination differs from its source");
	/* A wrong result has no speed worth showing, as with GEMMs. */
	b->median_gbps = res.verified ? gbps : NAN;
	b->measured = 1;
	b->dtype = kind == BW_TRIAD ? bf_xstrdup("fp64") : NULL;
	b->array_bytes = (double)job.array_bytes;
	b->bytes = res.bytes;
	b->counting = bf_xstrdup(res.counting);
	b->threads = res.threads > 0 ? res.threads : NAN;
	b->warmup = job.warmup;
	b->iters = job.iters;
	b->samples_ms = res.samples_ms; /* lent: freed below */
	b->nsamples = job.iters;
	b->median_ms = st.median;
	b->min_ms = st.min;
	b->max_ms = st.max;
	b->timing = bf_xstrdup(res.timing);
	report_emit_record(r, &rec);
	b->samples_ms = NULL;
	bf_record_free(&rec);
	free(res.samples_ms);
	return res.verified ? gbps : NAN;
}

void bandwidth_run(struct report *r, struct sweep_device *devs, int ndevices,
		   const struct agent_opts *o)
{
	for (int d = 0; d < ndevices; d++) {
		enum bw_kind kinds[BW__COUNT];
		int n = bandwidth_kinds(devs[d].dev.kind, kinds);

		for (int k = 0; k < n; k++) {
			double gbps = run_one(r, &devs[d], kinds[k], o);

			/* The roofline's bandwidth: the device's own memory
			 * (the first kind: triad, d2d). */
			if (k == 0 && isfinite(gbps)) {
				devs[d].bandwidth_kind = bandwidth_kind_name(kinds[k]);
				devs[d].bandwidth_gbps = gbps;
			}
		}
	}
}
