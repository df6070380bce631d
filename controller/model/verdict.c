/* The verdict per device, dtype and n; see verdict.h and docs/verdict.md. */
#include "model/verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "model/changepoint.h"
#include "xmalloc.h"

const char *verdict_kind_name(enum verdict_kind k)
{
	switch (k) {
	case VERDICT_OK: return "ok";
	case VERDICT_UNKNOWN: return "unknown";
	case VERDICT_SLOW: return "slow";
	case VERDICT_FAILED: return "failed";
	case VERDICT_NONE: break;
	}
	return "";
}

static int str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static int empty(const char *s)
{
	return !s || !*s;
}

/* Field by field: a set (finite, above 0) field of o replaces t's. */
static void apply(struct verdict_thresholds *t,
		  const struct verdict_thresholds *o)
{
	if (isfinite(o->peer_fraction) && o->peer_fraction > 0)
		t->peer_fraction = o->peer_fraction;
	if (o->min_peers > 0)
		t->min_peers = o->min_peers;
	if (isfinite(o->reference_tolerance) && o->reference_tolerance > 0)
		t->reference_tolerance = o->reference_tolerance;
	if (isfinite(o->history_fraction) && o->history_fraction > 0)
		t->history_fraction = o->history_fraction;
	if (isfinite(o->history_sigmas) && o->history_sigmas > 0)
		t->history_sigmas = o->history_sigmas;
	if (o->history_min_runs > 0)
		t->history_min_runs = o->history_min_runs;
}

struct verdict_thresholds verdict_thresholds_for(
	const struct verdict_thresholds *def, const struct verdict_override *ov,
	int nov, const char *product, const char *dtype)
{
	static const struct verdict_thresholds dflt = VERDICT_THRESHOLDS_DEFAULT;
	struct verdict_thresholds t = def ? *def : dflt;

	/* Least specific first, so the most specific is applied last:
	 * dtype only, product only, product and dtype. */
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < nov; i++) {
			int hp = !empty(ov[i].product), hd = !empty(ov[i].dtype);

			if ((pass == 0 && (hp || !hd)) ||
			    (pass == 1 && (!hp || hd)) ||
			    (pass == 2 && (!hp || !hd)))
				continue;
			if (hp && !str_eq(ov[i].product, product))
				continue;
			if (hd && !str_eq(ov[i].dtype, dtype))
				continue;
			apply(&t, &ov[i].t);
		}
	return t;
}

/* Appends "; "-separated formatted text to *buf (a string of
 * verdict.h's, grown: whole, never cut). */
__attribute__((format(printf, 2, 3))) static void add(char **buf,
						      const char *fmt, ...)
{
	va_list ap;
	char *item, *joined;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	item = bf_xmalloc(n > 0 ? (size_t)n + 1 : 1);
	item[0] = '\0';
	va_start(ap, fmt);
	if (n > 0) /* fits: the n + 1 bytes vsnprintf counted */
		vsnprintf(item, (size_t)n + 1, fmt, ap);
	va_end(ap);
	joined = bf_xasprintf("%s%s%s", *buf ? *buf : "",
			      *buf && **buf ? "; " : "", item);
	free(item);
	free(*buf);
	*buf = joined;
}

/* GFLOP/s as people read it: "789 TFLOP/s", "87.2 TFLOP/s", "512
 * GFLOP/s". */
static void rate(double gflops, char *buf, size_t len)
{
	double v = gflops >= 1000 ? gflops / 1000 : gflops;
	const char *unit = gflops >= 1000 ? "TFLOP/s" : "GFLOP/s";

	/* A figure from a record has no upper bound (1e300 GFLOP/s takes
	 * 298 digits): a cut ends in "...". */
	if (v >= 100)
		bf_text_fmt(buf, len, "%.0f %s", v, unit);
	else if (v >= 10)
		bf_text_fmt(buf, len, "%.1f %s", v, unit);
	else
		bf_text_fmt(buf, len, "%.2f %s", v, unit);
}

/* Whether a row is a measurement another row may be compared with. */
static int measured(const struct verdict_input *r)
{
	return r->status == BF_STATUS_PASS && !r->invalid &&
	       isfinite(r->gflops) && r->gflops > 0 &&
	       !(isfinite(r->bound_gflops) && r->gflops > r->bound_gflops);
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static const struct verdict_input *sort_rows;

/* By peer key, dtype, n, occurrence, then gflops. */
static int peer_cmp(const void *pa, const void *pb)
{
	const struct verdict_input *a = &sort_rows[*(const int *)pa];
	const struct verdict_input *b = &sort_rows[*(const int *)pb];
	int c = cmp_str(a->peer_key, b->peer_key);

	if (c)
		return c;
	if ((c = cmp_str(a->dtype, b->dtype)))
		return c;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	if (a->occurrence != b->occurrence)
		return a->occurrence < b->occurrence ? -1 : 1;
	if (a->gflops != b->gflops)
		return a->gflops < b->gflops ? -1 : 1;
	return *(const int *)pa - *(const int *)pb;
}

static int same_group(const struct verdict_input *a,
		      const struct verdict_input *b)
{
	return cmp_str(a->peer_key, b->peer_key) == 0 &&
	       cmp_str(a->dtype, b->dtype) == 0 && a->n == b->n &&
	       a->occurrence == b->occurrence;
}

static int int_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	return (a > b) - (a < b);
}

/* The k-th (0-based) of the ascending v[0..g) with position skip left
 * out. */
static double without(const double *v, int skip, int k)
{
	return v[k < skip ? k : k + 1];
}

/* Median of the ascending v[0..g) less v[skip]; g >= 2. */
static double median_without(const double *v, int g, int skip)
{
	int m = g - 1;

	if (m % 2)
		return without(v, skip, m / 2);
	return (without(v, skip, m / 2 - 1) + without(v, skip, m / 2)) / 2;
}

/* Fills out[*].npeers, peer_median, peers for every measured row. */
static void peers(const struct verdict_input *in, int n, struct verdict *out)
{
	int *idx = bf_xmalloc(sizeof(int) * ((size_t)n + 1));
	int *byin = bf_xmalloc(sizeof(int) * ((size_t)n + 1));
	double *v = bf_xmalloc(sizeof(double) * ((size_t)n + 1));
	int m = 0;

	for (int i = 0; i < n; i++)
		if (measured(&in[i]) && !empty(in[i].peer_key))
			idx[m++] = i;
	sort_rows = in;
	qsort(idx, (size_t)m, sizeof(int), peer_cmp);
	for (int s = 0, e; s < m; s = e) {
		int g;

		for (e = s + 1; e < m && same_group(&in[idx[s]], &in[idx[e]]);
		     e++)
			;
		g = e - s;
		if (g < 2)
			continue;
		for (int k = 0; k < g; k++) {
			v[k] = in[idx[s + k]].gflops;
			byin[k] = idx[s + k];
		}
		/* Peers are named in the caller's order (hosts as given). */
		qsort(byin, (size_t)g, sizeof(int), int_cmp);
		for (int k = 0; k < g; k++) {
			struct verdict *o = &out[idx[s + k]];
			int named = 0;

			o->npeers = g - 1;
			o->peer_median = median_without(v, g, k);
			o->peers[0] = 0;
			for (int j = 0; j < g; j++) {
				const struct verdict_input *p = &in[byin[j]];

				if (byin[j] == idx[s + k])
					continue;
				/* Host names have no bound: a cut ends in
				 * "..." (a list shown, not a key). */
				if (named == VERDICT_MAX_NAMED_PEERS) {
					bf_text_appendf(o->peers,
							sizeof(o->peers),
							" and %d more",
							g - 1 - named);
					break;
				}
				bf_text_appendf(o->peers, sizeof(o->peers),
						"%s%s %s", named ? ", " : "",
						p->host ? p->host : "?",
						p->device ? p->device : "?");
				named++;
			}
		}
	}
	free(idx);
	free(byin);
	free(v);
}

static int dbl_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* The history since its last change point into o (nhistory, hist_median,
 * hist_sigma). */
static void history(const struct verdict_input *r, struct verdict *o)
{
	int nh = 0, from = 0, k = 0;
	double lo, hi;
	struct cp_run *runs;
	double *vals;

	if (!r->history || r->nhistory <= 0)
		return;
	runs = bf_xmalloc(sizeof(*runs) * (size_t)r->nhistory);
	vals = bf_xmalloc(sizeof(double) * (size_t)r->nhistory * 2);
	for (int i = 0; i < r->nhistory; i++)
		if (isfinite(r->history[i]) && r->history[i] > 0) {
			runs[nh].x = &r->history[i];
			runs[nh].n = 1;
			nh++;
		}
	/* A change point needs medians either side 5 % apart
	 * (CP_OPTIONS_DEFAULT's min_change); when every run is within 5 %
	 * of the lowest none can be, and the permutation test is skipped. */
	lo = INFINITY;
	hi = 0;
	for (int i = 0; i < nh; i++) {
		if (runs[i].x[0] < lo)
			lo = runs[i].x[0];
		if (runs[i].x[0] > hi)
			hi = runs[i].x[0];
	}
	if (nh >= 4 && hi - lo >= 0.05 * lo) {
		struct cp_point cp[16];
		int found = changepoint_find(runs, nh, NULL, cp, 16);

		if (found > 16)
			found = 16;
		if (found > 0)
			from = cp[found - 1].at;
	}
	for (int i = from; i < nh; i++)
		vals[k++] = runs[i].x[0];
	if (k > 0) {
		double med, *dev = vals + nh;

		qsort(vals, (size_t)k, sizeof(double), dbl_cmp);
		med = k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2;
		for (int i = 0; i < k; i++)
			dev[i] = fabs(vals[i] - med);
		qsort(dev, (size_t)k, sizeof(double), dbl_cmp);
		o->nhistory = k;
		o->hist_median = med;
		o->hist_sigma = 1.4826 * (k % 2 ? dev[k / 2]
					  : (dev[k / 2 - 1] + dev[k / 2]) / 2);
	}
	free(runs);
	free(vals);
}

static const struct verdict_ref *find_ref(const struct verdict_input *r,
					  const struct verdict_ref *refs,
					  int nrefs)
{
	if (empty(r->product))
		return NULL;
	for (int i = 0; i < nrefs; i++)
		if (refs[i].n == r->n && str_eq(refs[i].dtype, r->dtype) &&
		    str_eq(refs[i].product, r->product))
			return &refs[i];
	return NULL;
}

static void judge(const struct verdict_input *r, struct verdict *o,
		  const struct verdict_thresholds *t,
		  const struct verdict_ref *ref)
{
	int slow = 0, ok = 0;
	char a[32], b[32];

	o->gflops = r->gflops;
	o->uncertain = r->reliable == 0;
	o->peak_ratio = isfinite(r->peak_gflops) && r->peak_gflops > 0 &&
				isfinite(r->gflops)
			? r->gflops / r->peak_gflops
			: NAN;
	if (r->status == BF_STATUS_SKIPPED) {
		o->kind = VERDICT_NONE;
		add(&o->reasons, "skipped: %s",
		    empty(r->reason) ? "no reason given" : r->reason);
		return;
	}
	if (r->status == BF_STATUS_FAIL || r->invalid) {
		o->kind = VERDICT_FAILED;
		add(&o->reasons, "%s",
		    empty(r->reason) ? "failed" : r->reason);
		return;
	}
	if (!isfinite(r->gflops) || r->gflops <= 0) {
		o->kind = VERDICT_UNKNOWN;
		add(&o->missing, "no measurement");
		return;
	}
	if (isfinite(r->bound_gflops) && r->gflops > r->bound_gflops) {
		rate(r->bound_gflops, a, sizeof(a));
		o->kind = VERDICT_FAILED;
		add(&o->reasons,
		    "above the most the device can do (%s): a wrong measurement",
		    a);
		return;
	}

	/* peers */
	if (o->npeers >= t->min_peers && o->peer_median > 0) {
		o->peer_ratio = r->gflops / o->peer_median;
		rate(o->peer_median, a, sizeof(a));
		if (o->peer_ratio < t->peer_fraction) {
			slow = 1;
			add(&o->reasons,
			    "%.2f of its %d peers (median %s; below %.2f): %s",
			    o->peer_ratio, o->npeers, a, t->peer_fraction,
			    o->peers);
		} else {
			ok = 1;
			add(&o->reasons,
			    "%.2f of its %d peers (median %s)", o->peer_ratio,
			    o->npeers, a);
		}
	} else {
		if (empty(r->peer_key))
			add(&o->missing,
			    "no peers (product unknown)");
		else
			add(&o->missing,
			    "no peers (%d other device%s of this product; %d "
			    "needed)",
			    o->npeers, o->npeers == 1 ? "" : "s", t->min_peers);
		o->npeers = o->npeers >= t->min_peers ? o->npeers : 0;
		o->peer_median = o->npeers ? o->peer_median : NAN;
		o->peer_ratio = NAN;
	}

	/* reference */
	if (ref && ref->low_gflops > 0 && ref->high_gflops >= ref->low_gflops) {
		const char *lab = empty(ref->label) ? "published results"
						    : ref->label;

		o->has_ref = 1;
		o->ref_low = ref->low_gflops;
		o->ref_high = ref->high_gflops;
		o->ref_sources = ref->nsources;
		o->ref_label = ref->label;
		o->ref_ratio_low = r->gflops / ref->high_gflops;
		o->ref_ratio_high = r->gflops / ref->low_gflops;
		rate(ref->low_gflops, a, sizeof(a));
		rate(ref->high_gflops, b, sizeof(b));
		if (r->gflops < ref->low_gflops * t->reference_tolerance) {
			slow = 1;
			add(&o->reasons,
			    "%.2f-%.2f of %s (%s-%s%s; below %.2f of its low "
			    "end)",
			    o->ref_ratio_low, o->ref_ratio_high, lab, a, b,
			    ref->nsources <= 1 ? ", one source only" : "",
			    t->reference_tolerance);
		} else {
			ok = 1;
			add(&o->reasons,
			    "%.2f-%.2f of %s (%s-%s%s)", o->ref_ratio_low,
			    o->ref_ratio_high, lab, a, b,
			    ref->nsources <= 1 ? ", one source only" : "");
		}
	} else if (empty(r->product)) {
		add(&o->missing,
		    "no published reference (product unknown)");
	} else {
		add(&o->missing,
		    "no published reference for %s %s n=%d", r->product,
		    r->dtype ? r->dtype : "?", r->n);
	}

	/* history */
	history(r, o);
	if (o->nhistory >= t->history_min_runs && o->hist_median > 0) {
		double lim = o->hist_median * t->history_fraction;
		double noise = o->hist_median - t->history_sigmas * o->hist_sigma;

		if (noise < lim)
			lim = noise;
		o->hist_ratio = r->gflops / o->hist_median;
		rate(o->hist_median, a, sizeof(a));
		if (r->gflops < lim) {
			slow = 1;
			add(&o->reasons,
			    "%.2f of its last %d runs (median %s, beyond their "
			    "noise)",
			    o->hist_ratio, o->nhistory, a);
		} else {
			ok = 1;
			add(&o->reasons,
			    "%.2f of its last %d runs (median %s)",
			    o->hist_ratio, o->nhistory, a);
		}
	} else {
		if (o->nhistory > 0)
			add(&o->missing,
			    "history too short (%d run%s since its last change; "
			    "%d needed)",
			    o->nhistory, o->nhistory == 1 ? "" : "s",
			    t->history_min_runs);
		else
			add(&o->missing,
			    "no earlier runs with these settings");
		o->nhistory = 0;
		o->hist_median = o->hist_sigma = o->hist_ratio = NAN;
	}

	/* rated: shown, never a verdict of its own below the bound */
	if (isfinite(o->peak_ratio))
		add(&o->reasons, "%.2f of rated peak",
		    o->peak_ratio);

	o->kind = slow ? VERDICT_SLOW : ok ? VERDICT_OK : VERDICT_UNKNOWN;
}

void verdict_compute(const struct verdict_input *in, int n,
		     const struct verdict_thresholds *def,
		     const struct verdict_override *ov, int nov,
		     const struct verdict_ref *refs, int nrefs,
		     struct verdict *out)
{
	for (int i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].reasons = bf_xstrdup("");
		out[i].missing = bf_xstrdup("");
		out[i].peer_median = out[i].peer_ratio = NAN;
		out[i].ref_low = out[i].ref_high = NAN;
		out[i].ref_ratio_low = out[i].ref_ratio_high = NAN;
		out[i].hist_median = out[i].hist_sigma = NAN;
		out[i].hist_ratio = out[i].peak_ratio = NAN;
		out[i].gflops = NAN;
	}
	if (n <= 0)
		return;
	peers(in, n, out);
	for (int i = 0; i < n; i++) {
		struct verdict_thresholds t = verdict_thresholds_for(
			def, ov, nov, in[i].product, in[i].dtype);

		judge(&in[i], &out[i], &t, find_ref(&in[i], refs, nrefs));
	}
}

void verdict_clear(struct verdict *v, int n)
{
	for (int i = 0; v && i < n; i++) {
		free(v[i].reasons);
		free(v[i].missing);
		v[i].reasons = v[i].missing = NULL;
	}
}

void verdict_counts(const struct verdict *out, int n, int *counts,
		    int *slow_confident)
{
	for (int k = 0; k <= VERDICT_FAILED; k++)
		counts[k] = 0;
	if (slow_confident)
		*slow_confident = 0;
	for (int i = 0; i < n; i++) {
		counts[out[i].kind]++;
		if (slow_confident && out[i].kind == VERDICT_SLOW &&
		    !out[i].uncertain)
			(*slow_confident)++;
	}
}

/* How bad a kind is for a device: failed, slow, ok, unknown, none. */
static int severity(enum verdict_kind k)
{
	switch (k) {
	case VERDICT_FAILED: return 4;
	case VERDICT_SLOW: return 3;
	case VERDICT_OK: return 2;
	case VERDICT_UNKNOWN: return 1;
	case VERDICT_NONE: break;
	}
	return 0;
}

/* The lowest ratio a row was judged by (peers, reference, history). */
static double low_ratio(const struct verdict *v)
{
	double r = INFINITY;

	if (isfinite(v->peer_ratio) && v->peer_ratio < r)
		r = v->peer_ratio;
	if (isfinite(v->ref_ratio_low) && v->ref_ratio_low < r)
		r = v->ref_ratio_low;
	if (isfinite(v->hist_ratio) && v->hist_ratio < r)
		r = v->hist_ratio;
	return r;
}

int verdict_device_pick(const struct verdict *out, const int *idx, int k)
{
	int best = -1;

	for (int j = 0; j < k; j++) {
		const struct verdict *v = &out[idx[j]];
		int s = severity(v->kind);

		if (s == 0)
			continue;
		if (best < 0 || s > severity(out[best].kind) ||
		    (s == severity(out[best].kind) &&
		     low_ratio(v) < low_ratio(&out[best])))
			best = idx[j];
	}
	return best;
}
