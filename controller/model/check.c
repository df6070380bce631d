/* ctl check's results from a run's verdict; see check.h. */
#include "model/check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "schema.h"
#include "xmalloc.h"

const char *check_kind_name(enum check_kind k)
{
	switch (k) {
	case CHECK_OK: return "ok";
	case CHECK_UNKNOWN: return "unknown";
	case CHECK_SLOW: return "slow";
	case CHECK_FAILED: return "failed";
	}
	return "unknown";
}

size_t check_reason_format(char *buf, const char *fmt, ...)
{
	char wide[1024];
	va_list ap;
	size_t n;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(wide, sizeof(wide), fmt, ap);
	va_end(ap);
	if (w < 0)
		wide[0] = '\0';
	n = strlen(wide);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)wide[i];

		if (c < 0x20 || c > 0x7e)
			wide[i] = '?';
	}
	if (n > CHECK_REASON_MAX || (w > 0 && (size_t)w > n)) {
		n = CHECK_REASON_MAX;
		memcpy(wide + n - 3, "...", 3);
	}
	memcpy(buf, wide, n);
	buf[n] = '\0';
	return n;
}

/* gflops as "410 TFLOP/s", "153 GFLOP/s", "9.81 GFLOP/s". */
static void rate(double gflops, char *buf, size_t len)
{
	double v = gflops >= 1000 ? gflops / 1000 : gflops;
	const char *unit = gflops >= 1000 ? "TFLOP/s" : "GFLOP/s";

	/* A figure from a record has no upper bound (1e300 GFLOP/s takes
	 * 298 digits): a cut ends in "...". */
	if (!isfinite(gflops))
		bf_text_fmt(buf, len, "n/a");
	else if (v >= 100)
		bf_text_fmt(buf, len, "%.0f %s", v, unit);
	else if (v >= 10)
		bf_text_fmt(buf, len, "%.1f %s", v, unit);
	else
		bf_text_fmt(buf, len, "%.2f %s", v, unit);
}

/* The comparison with the lowest ratio: "= 0.52 of 7 peers", "= 0.80 of
 * its reference", "= 0.93 of its history (4 runs)"; "" when none. */
static void lowest_comparison(const struct verdict *v, char *buf, size_t len)
{
	double best = INFINITY;

	buf[0] = '\0';
	if (v->npeers > 0 && isfinite(v->peer_ratio)) {
		best = v->peer_ratio;
		bf_text_fmt(buf, len, " = %.2f of %d peer%s", v->peer_ratio,
			    v->npeers, v->npeers == 1 ? "" : "s");
	}
	if (v->has_ref && isfinite(v->ref_ratio_high) &&
	    v->ref_ratio_high < best) {
		best = v->ref_ratio_high;
		bf_text_fmt(buf, len, " = %.2f of its reference",
			    v->ref_ratio_high);
	}
	if (v->nhistory > 0 && isfinite(v->hist_ratio) && v->hist_ratio < best)
		bf_text_fmt(buf, len, " = %.2f of its history (%d run%s)",
			    v->hist_ratio, v->nhistory,
			    v->nhistory == 1 ? "" : "s");
}

static enum check_kind kind_of(const struct verdict *v)
{
	switch (v->kind) {
	case VERDICT_OK: return CHECK_OK;
	case VERDICT_SLOW: return v->uncertain ? CHECK_UNKNOWN : CHECK_SLOW;
	case VERDICT_FAILED: return CHECK_FAILED;
	case VERDICT_UNKNOWN:
	case VERDICT_NONE: break;
	}
	return CHECK_UNKNOWN;
}

static void device_reason(const struct verdict_run *vr, int row,
			  enum check_kind kind, char *buf)
{
	const struct verdict_input *in = &vr->in[row];
	const struct verdict *v = &vr->out[row];
	char r[32], cmp[96];

	rate(in->gflops, r, sizeof(r));
	lowest_comparison(v, cmp, sizeof(cmp));
	switch (kind) {
	case CHECK_FAILED:
		check_reason_format(buf, "benchfleet: %s failed: %s %s",
				    in->device, in->dtype,
				    in->reason && *in->reason ? in->reason :
				    v->reasons[0] ? v->reasons : "failed");
		break;
	case CHECK_UNKNOWN:
		if (v->kind == VERDICT_SLOW) /* uncertain */
			check_reason_format(buf, "benchfleet: %s unknown: %s %s%s"
					    " (unreliable)", in->device,
					    in->dtype, r, cmp);
		else
			check_reason_format(buf, "benchfleet: %s unknown: %s %s, %s",
					    in->device, in->dtype, r,
					    v->missing[0] ? v->missing :
					    "no comparison");
		break;
	default:
		check_reason_format(buf, "benchfleet: %s %s: %s %s%s",
				    in->device, check_kind_name(kind),
				    in->dtype, r, cmp);
		break;
	}
}

/* The first failed check record of host h on device (NULL: any). */
static const struct bf_rec_check *failed_check(const struct archive_host *h,
					       const char *device)
{
	for (int k = 0; k < h->nrecords; k++) {
		const struct bf_record *r = &h->records[k];

		if (r->type == BF_REC_CHECK && r->u.check.status == BF_STATUS_FAIL &&
		    (!device || (r->u.check.device &&
				 strcmp(r->u.check.device, device) == 0)))
			return &r->u.check;
	}
	return NULL;
}

int check_status(enum check_kind k)
{
	switch (k) {
	case CHECK_OK: return BF_EXIT_OK;
	case CHECK_UNKNOWN: return BF_EXIT_UNKNOWN;
	case CHECK_SLOW: return BF_EXIT_SLOW;
	case CHECK_FAILED: return BF_EXIT_CHECKS_FAILED;
	}
	return BF_EXIT_UNKNOWN;
}

int check_results(const struct archive_run *run, const struct verdict_run *vr,
		  struct check_result **out, int *n)
{
	int cap = vr->n + 2 * run->nhosts + 1, cnt = 0;
	struct check_result *res = bf_xcalloc((size_t)cap, sizeof(*res));
	int *idx = bf_xcalloc((size_t)vr->n + 1, sizeof(int));
	int *used = bf_xcalloc((size_t)vr->n + 1, sizeof(int));
	enum check_kind worst = CHECK_OK;

	for (int h = 0; h < run->nhosts; h++) {
		const struct archive_host *ah = &run->hosts[h];
		int first = cnt;

		if (strcmp(ah->status, "done") != 0) {
			struct check_result *c = &res[cnt++];
			const char *why = ah->reason ? ah->reason : ah->status;

			c->host = h;
			c->row = -1;
			c->kind = CHECK_UNKNOWN;
			if (strncmp(why, CHECK_BUDGET_EXCEEDED,
				    strlen(CHECK_BUDGET_EXCEEDED)) == 0)
				check_reason_format(c->reason,
						    "benchfleet: unknown: %s", why);
			else
				check_reason_format(c->reason,
						    "benchfleet: could not run: %s",
						    why);
			if (worst < c->kind)
				worst = c->kind;
			continue;
		}
		for (int i = 0; i < vr->n; i++) {
			int k = 0, pick;
			struct check_result *c;
			const struct bf_rec_check *fc;

			if (used[i] || vr->host[i] != h)
				continue;
			for (int j = i; j < vr->n; j++)
				if (!used[j] && vr->host[j] == h &&
				    strcmp(vr->in[j].device, vr->in[i].device) == 0) {
					used[j] = 1;
					idx[k++] = j;
				}
			pick = verdict_device_pick(vr->out, idx, k);
			if (pick < 0)
				continue; /* every row skipped */
			c = &res[cnt++];
			c->host = h;
			c->device = vr->in[pick].device;
			c->row = pick;
			c->kind = kind_of(&vr->out[pick]);
			fc = failed_check(ah, c->device);
			if (fc && c->kind != CHECK_FAILED) {
				c->kind = CHECK_FAILED;
				check_reason_format(c->reason,
						    "benchfleet: %s failed: check %s%s%s",
						    c->device, fc->name ? fc->name : "?",
						    fc->reason ? ": " : "",
						    fc->reason ? fc->reason : "");
			} else {
				device_reason(vr, pick, c->kind, c->reason);
			}
			if (worst < c->kind)
				worst = c->kind;
		}
		if (cnt == first) {
			/* Nothing measured: no device to judge. */
			struct check_result *c = &res[cnt++];
			const struct bf_rec_check *fc = failed_check(ah, NULL);

			c->host = h;
			c->row = -1;
			c->kind = fc ? CHECK_FAILED : CHECK_UNKNOWN;
			if (fc)
				check_reason_format(c->reason,
						    "benchfleet: failed: check %s",
						    fc->name ? fc->name : "?");
			else
				check_reason_format(c->reason, "benchfleet: unknown: "
						    "no GEMM measured");
			if (worst < c->kind)
				worst = c->kind;
		}
	}
	free(idx);
	free(used);
	*out = res;
	*n = cnt;
	return check_status(worst);
}
