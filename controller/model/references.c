/* Reference files: parsing and ranges; see references.h. */
#include "model/references.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bf_text.h"
#include "dtype.h"
#include "xmalloc.h"

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number member: NaN when absent; 1 into *bad when present but not a
 * number. */
static double num_of(const cJSON *o, const char *key, int *bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return NAN;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
		*bad = 1;
		return NAN;
	}
	return v->valuedouble;
}

static char *dup_or_empty(const char *s)
{
	return bf_xstrdup(s ? s : "");
}

static void row_free(struct ref_row *r)
{
	free(r->product);
	free(r->dtype);
	free(r->source);
	free(r->tool);
	free(r->link);
	free(r->date);
}

static int same_key(const struct ref_row *a, const char *product,
		    const char *dtype, int n)
{
	return a->n == n && strcmp(a->product, product) == 0 &&
	       strcmp(a->dtype, dtype) == 0;
}

/* A threshold entry's fields, each checked: fractions in (0, 1], counts
 * 1..1000, sigmas (0, 100]. */
static int parse_thresholds(const cJSON *e, struct verdict_thresholds *t,
			    const char **what)
{
	int bad = 0;
	double v;

	memset(t, 0, sizeof(*t));
	t->peer_fraction = num_of(e, "peer_fraction", &bad);
	t->reference_tolerance = num_of(e, "reference_tolerance", &bad);
	t->history_fraction = num_of(e, "history_fraction", &bad);
	t->history_sigmas = num_of(e, "history_sigmas", &bad);
	if (bad) {
		*what = "a threshold is not a number";
		return -1;
	}
	if ((isfinite(t->peer_fraction) &&
	     (t->peer_fraction <= 0 || t->peer_fraction > 1)) ||
	    (isfinite(t->reference_tolerance) &&
	     (t->reference_tolerance <= 0 || t->reference_tolerance > 1)) ||
	    (isfinite(t->history_fraction) &&
	     (t->history_fraction <= 0 || t->history_fraction > 1))) {
		*what = "a fraction is not in (0, 1]";
		return -1;
	}
	if (isfinite(t->history_sigmas) &&
	    (t->history_sigmas <= 0 || t->history_sigmas > 100)) {
		*what = "history_sigmas is not in (0, 100]";
		return -1;
	}
	v = num_of(e, "min_peers", &bad);
	if (isfinite(v)) {
		if (v != floor(v) || v < 1 || v > 1000) {
			*what = "min_peers is not a whole number 1..1000";
			return -1;
		}
		t->min_peers = (int)v;
	}
	v = num_of(e, "history_min_runs", &bad);
	if (isfinite(v)) {
		if (v != floor(v) || v < 1 || v > 1000) {
			*what = "history_min_runs is not a whole number 1..1000";
			return -1;
		}
		t->history_min_runs = (int)v;
	}
	if (bad) {
		*what = "a threshold is not a number";
		return -1;
	}
	return 0;
}

enum bf_err references_parse(struct ref_set *s, const char *text,
			     const char *name, char *err, size_t err_len)
{
	cJSON *root = cJSON_Parse(text ? text : "");
	enum bf_err e;

	/* name is a path (up to PATH_MAX) and the callers' err 512 bytes:
	 * a cut ends in "..." (bf_text_fmt), never silent. */
	if (!root) {
		bf_text_fmt(err, err_len, "%s: not a JSON object", name);
		return BF_ERR_PARSE;
	}
	e = references_parse_json(s, root, name, err, err_len);
	cJSON_Delete(root);
	return e;
}

/* The samples' range of a reference row: [*lo, *hi] widened from tf
 * by each sample (TFLOP/s above 0); 1 when samples is present and not
 * an array of such numbers. */
static int sample_range(const cJSON *samples, double tf, double *lo,
			double *hi)
{
	const cJSON *x;

	*lo = *hi = tf;
	if (!samples)
		return 0;
	if (!cJSON_IsArray(samples))
		return 1;
	cJSON_ArrayForEach(x, samples)
	{
		if (!cJSON_IsNumber(x) || !(x->valuedouble > 0))
			return 1;
		if (!(x->valuedouble >= *lo))
			*lo = x->valuedouble;
		if (!(x->valuedouble <= *hi))
			*hi = x->valuedouble;
	}
	return 0;
}

/* references[i] (e) into *out, its source looked up in srcs (nfile: the
 * file's index). NULL, or why it is refused (in whybuf, whylen bytes). */
static const char *parse_reference(const cJSON *e, int i, const cJSON *srcs,
				   int nfile, struct ref_row *out,
				   char *whybuf, size_t whylen)
{
	const char *p = str_of(e, "product");
	const char *d = str_of(e, "dtype");
	const char *src = str_of(e, "source");
	int best = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		e, "best_over_sizes"));
	const cJSON *sobj;
	int bad = 0;
	double n = num_of(e, "n", &bad);
	double tf = num_of(e, "tflops", &bad);
	double lo, hi;
	enum bf_dtype dt;

	/* A best over sizes is listed, never matched (n 0). */
	if (!isfinite(n) && best)
		n = 0;
	bad |= sample_range(cJSON_GetObjectItemCaseSensitive(e, "samples"),
			    tf, &lo, &hi);
	if (!cJSON_IsObject(e) || !p || !*p || !d || bad ||
	    !(n >= 0 && n <= 1048576 && n == floor(n)) || (n == 0 && !best) ||
	    !(tf > 0) || !src || !*src) {
		snprintf(whybuf, whylen,
			 "references[%d] needs product, dtype, n 1..1048576, "
			 "tflops above 0 and source",
			 i);
		return whybuf;
	}
	if (bf_dtype_parse(d, &dt) != 0) {
		snprintf(whybuf, whylen, "references[%d]: unknown dtype", i);
		return whybuf;
	}
	sobj = srcs ? cJSON_GetObjectItemCaseSensitive(srcs, src) : NULL;
	if (!sobj || !cJSON_IsObject(sobj)) {
		snprintf(whybuf, whylen,
			 "references[%d]: source is not in sources", i);
		return whybuf;
	}
	out->product = bf_xstrdup(p);
	out->dtype = bf_xstrdup(bf_dtype_name(dt));
	out->n = (int)n;
	out->low_gflops = lo * 1000;
	out->high_gflops = hi * 1000;
	out->source = bf_xstrdup(src);
	out->tool = dup_or_empty(str_of(sobj, "tool"));
	out->link = dup_or_empty(str_of(sobj, "link"));
	out->date = dup_or_empty(str_of(sobj, "date"));
	out->file = nfile;
	return NULL;
}

/* thresholds[i] (e) into *out. NULL, or why it is refused (in whybuf). */
static const char *parse_override(const cJSON *e, int i,
				  struct verdict_override *out, char *whybuf,
				  size_t whylen)
{
	const char *p = str_of(e, "product");
	const char *d = str_of(e, "dtype");
	const char *why = NULL;
	enum bf_dtype dt;

	if (!cJSON_IsObject(e) || parse_thresholds(e, &out->t, &why) != 0) {
		/* fits: why is one of parse_thresholds' texts (< 50 bytes),
		 * i an int */
		snprintf(whybuf, whylen, "thresholds[%d]: %s", i,
			 why ? why : "not an object");
		return whybuf;
	}
	if (d && bf_dtype_parse(d, &dt) != 0) {
		snprintf(whybuf, whylen, "thresholds[%d]: unknown dtype", i);
		return whybuf;
	}
	out->product = p ? bf_xstrdup(p) : NULL;
	out->dtype = d ? bf_xstrdup(bf_dtype_name(dt)) : NULL;
	return NULL;
}

/* Why a reference file's top level is refused, or NULL. */
static const char *check_top(const char *schema, const char *mode,
			     const cJSON *refs, const cJSON *srcs,
			     const cJSON *ths)
{
	if (!schema || strcmp(schema, REFERENCES_SCHEMA) != 0)
		return "schema is not \"" REFERENCES_SCHEMA "\"";
	if (mode && strcmp(mode, "replace") && strcmp(mode, "add"))
		return "mode is neither \"replace\" nor \"add\"";
	if (refs && !cJSON_IsArray(refs))
		return "references is not an array";
	if (srcs && !cJSON_IsObject(srcs))
		return "sources is not an object";
	if (ths && !cJSON_IsArray(ths))
		return "thresholds is not an array";
	return NULL;
}

/* Adds a parsed file's rows (add, nadd) and overrides (ov, nov) to s,
 * taking them over; without join ("replace"), the earlier files' rows
 * of every key the file has are dropped first. */
static void merge_file(struct ref_set *s, struct ref_row *add, int nadd,
		       struct verdict_override *ov, int nov, int join)
{
	if (!join) {
		int w = 0;

		for (int r = 0; r < s->nrows; r++) {
			int hit = 0;

			for (int k = 0; k < nadd && !hit; k++)
				hit = same_key(&s->rows[r], add[k].product,
					       add[k].dtype, add[k].n);
			if (hit)
				row_free(&s->rows[r]);
			else
				s->rows[w++] = s->rows[r];
		}
		s->nrows = w;
	}
	if (s->nrows + nadd > s->rows_cap) {
		s->rows_cap = (s->nrows + nadd) * 2 + 8;
		s->rows = bf_xrealloc(s->rows, sizeof(*s->rows) *
						       (size_t)s->rows_cap);
	}
	if (nadd)
		memcpy(s->rows + s->nrows, add, sizeof(*add) * (size_t)nadd);
	s->nrows += nadd;
	free(add);
	s->ov = bf_xrealloc(s->ov, sizeof(*s->ov) * (size_t)(s->nov + nov + 1));
	if (nov)
		memcpy(s->ov + s->nov, ov, sizeof(*ov) * (size_t)nov);
	s->nov += nov;
	free(ov);
	s->nfiles++;
}

enum bf_err references_parse_json(struct ref_set *s, const struct cJSON *root,
				  const char *name, char *err, size_t err_len)
{
	const cJSON *refs, *srcs, *ths, *e, *list;
	const char *mode, *why;
	struct ref_row *add;
	struct verdict_override *ov;
	int nadd = 0, nov = 0, i = 0;
	char whybuf[160];

	/* As references_parse: a cut of a long path ends in "...". */
	if (!root || !cJSON_IsObject(root)) {
		bf_text_fmt(err, err_len, "%s: not a JSON object", name);
		return BF_ERR_PARSE;
	}
	mode = str_of(root, "mode");
	refs = cJSON_GetObjectItemCaseSensitive(root, "references");
	srcs = cJSON_GetObjectItemCaseSensitive(root, "sources");
	ths = cJSON_GetObjectItemCaseSensitive(root, "thresholds");
	why = check_top(str_of(root, "schema"), mode, refs, srcs, ths);
	add = bf_xcalloc((size_t)cJSON_GetArraySize(refs) + 1, sizeof(*add));
	ov = bf_xcalloc((size_t)cJSON_GetArraySize(ths) + 1, sizeof(*ov));
	list = why ? NULL : refs;
	cJSON_ArrayForEach(e, list)
	{
		why = parse_reference(e, i++, srcs, s->nfiles, &add[nadd],
				      whybuf, sizeof(whybuf));
		if (why)
			break;
		nadd++;
	}
	i = 0;
	list = why ? NULL : ths;
	cJSON_ArrayForEach(e, list)
	{
		why = parse_override(e, i++, &ov[nov], whybuf, sizeof(whybuf));
		if (why)
			break;
		nov++;
	}
	if (why) {
		/* name a path: a cut ends in "..." (see references_parse) */
		bf_text_fmt(err, err_len, "%s: %s", name, why);
		for (int k = 0; k < nadd; k++)
			row_free(&add[k]);
		for (int k = 0; k < nov; k++) {
			free((char *)ov[k].product);
			free((char *)ov[k].dtype);
		}
		free(add);
		free(ov);
		return BF_ERR_PARSE;
	}
	merge_file(s, add, nadd, ov, nov, mode && strcmp(mode, "add") == 0);
	return BF_OK;
}

static void free_ranges(struct ref_set *s)
{
	for (int i = 0; i < s->nranges; i++)
		free(s->labels[i]);
	free(s->labels);
	free(s->ranges);
	s->labels = NULL;
	s->ranges = NULL;
	s->nranges = 0;
}

void references_finish(struct ref_set *s)
{
	free_ranges(s);
	s->ranges = bf_xcalloc((size_t)s->nrows + 1, sizeof(*s->ranges));
	s->labels = bf_xcalloc((size_t)s->nrows + 1, sizeof(char *));
	for (int r = 0; r < s->nrows; r++) {
		const struct ref_row *row = &s->rows[r];
		struct verdict_ref *g = NULL;
		int team = 1, nsrc = 0;
		const char *p;

		for (int k = 0; k < s->nranges && !g; k++)
			if (same_key(row, s->ranges[k].product,
				     s->ranges[k].dtype, s->ranges[k].n))
				g = &s->ranges[k];
		if (g)
			continue;
		g = &s->ranges[s->nranges];
		g->product = row->product;
		g->dtype = row->dtype;
		g->n = row->n;
		g->low_gflops = row->low_gflops;
		g->high_gflops = row->high_gflops;
		for (int k = r; k < s->nrows; k++) {
			const struct ref_row *o = &s->rows[k];
			int seen = 0;

			if (!same_key(o, row->product, row->dtype, row->n))
				continue;
			if (o->low_gflops < g->low_gflops)
				g->low_gflops = o->low_gflops;
			if (o->high_gflops > g->high_gflops)
				g->high_gflops = o->high_gflops;
			for (int j = r; j < k && !seen; j++)
				seen = same_key(&s->rows[j], row->product,
						row->dtype, row->n) &&
				       strcmp(s->rows[j].source, o->source) == 0;
			nsrc += !seen;
			if (strncmp(o->source, "run:", 4) != 0)
				team = 0;
		}
		g->nsources = nsrc;
		p = row->product;
		if (strncmp(p, "NVIDIA ", 7) == 0)
			p += 7;
		s->labels[s->nranges] =
			team ? bf_xasprintf("team reference %s", row->source + 4)
			     : bf_xasprintf("published %s results", p);
		g->label = s->labels[s->nranges];
		s->nranges++;
	}
}

int references_rows_of(const struct ref_set *s, const struct verdict_ref *r,
		       int *idx, int max)
{
	int k = 0;

	for (int i = 0; i < s->nrows; i++)
		if (same_key(&s->rows[i], r->product, r->dtype, r->n)) {
			if (k < max)
				idx[k] = i;
			k++;
		}
	return k < max ? k : max;
}

void references_free(struct ref_set *s)
{
	if (!s)
		return;
	free_ranges(s);
	for (int i = 0; i < s->nrows; i++)
		row_free(&s->rows[i]);
	free(s->rows);
	for (int i = 0; i < s->nov; i++) {
		free((char *)s->ov[i].product);
		free((char *)s->ov[i].dtype);
	}
	free(s->ov);
	memset(s, 0, sizeof(*s));
}

const char *references_product(const struct bf_rec_host *h, const char *device)
{
	char *end;
	long k;

	if (!h || !device)
		return NULL;
	if (strcmp(device, "cpu") == 0)
		return h->cpu_model && *h->cpu_model ? h->cpu_model : NULL;
	if (strncmp(device, "cuda:", 5) != 0)
		return NULL;
	k = strtol(device + 5, &end, 10);
	if (*end || end == device + 5 || k < 0)
		return NULL;
	for (int i = 0; i < h->ngpus; i++)
		if (h->gpus[i].index == (double)k && h->gpus[i].name &&
		    *h->gpus[i].name)
			return h->gpus[i].name;
	return NULL;
}
