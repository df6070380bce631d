/* A host's archived runs as series with change points; see history.h. */
#include "model/history.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/compare.h"
#include "record.h"
#include "bf_text.h"
#include "xmalloc.h"

/* Threads that load runs and search series at once, at most. */
#define HISTORY_THREADS_MAX 8

static int same(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The settings index of host record hr, added when new. */
static int settings_of(struct history *h, const struct bf_rec_host *hr)
{
	for (int k = 0; k < h->nsettings; k++)
		if (bf_rec_options_equal(&h->settings[k]->options, &hr->options))
			return k;
	h->settings = bf_xrealloc(h->settings, (size_t)(h->nsettings + 1) *
						       sizeof(*h->settings));
	h->settings[h->nsettings] = hr;
	return h->nsettings++;
}

/* g's dtype parsed into *dt: 1, or 0 when it has none this ctl knows
 * (the reader refuses such a record, so none reaches here). */
static int gemm_dtype(const struct bf_rec_gemm *g, enum bf_dtype *dt)
{
	return g->dtype && bf_dtype_parse(g->dtype, dt) == 0;
}

static struct history_series *series_of(struct history *h,
					const struct bf_rec_gemm *g,
					enum bf_dtype dt, int occurrence,
					int settings)
{
	struct history_series *s;

	for (int i = 0; i < h->nseries; i++) {
		s = &h->series[i];
		if (s->n == g->n && s->occurrence == occurrence &&
		    s->settings == settings && s->dtype == dt &&
		    same(s->device, g->device))
			return s;
	}
	h->series = bf_xrealloc(h->series, (size_t)(h->nseries + 1) *
						   sizeof(*h->series));
	s = &h->series[h->nseries++];
	memset(s, 0, sizeof(*s));
	/* fits: add_run takes no record whose device does not */
	snprintf(s->device, sizeof(s->device), "%s", g->device ? g->device : "");
	s->dtype = dt;
	s->n = g->n;
	s->occurrence = occurrence;
	s->settings = settings;
	return s;
}

static int wanted(const struct history_filter *f, const struct bf_rec_gemm *g)
{
	if (!f)
		return 1;
	return (!f->device || same(f->device, g->device)) &&
	       (!f->dtype || same(f->dtype, g->dtype)) &&
	       (f->n <= 0 || f->n == g->n);
}

/* The points of one run's host: every passing, measured gemm record. */
static void add_run(struct history *h, int run, const struct archive_host *ah,
		    const struct history_filter *filter)
{
	int settings = settings_of(h, ah->host_record);

	for (int i = 0; i < ah->nrecords; i++) {
		const struct bf_record *rec = &ah->records[i];
		const struct bf_rec_gemm *g = &rec->u.gemm;
		struct history_series *s;
		struct history_point *p;
		int occurrence = 1;
		enum bf_dtype dt, odt;

		/* A device name is a series' key, never cut: one longer
		 * than history_series.device holds (the schema's "cuda:N"
		 * does not bound N's digits; real ones are short) is left
		 * out rather than cut into another's. */
		if (rec->type != BF_REC_GEMM || g->status != BF_STATUS_PASS ||
		    !g->measured || g->nsamples < 1 || !wanted(filter, g) ||
		    !gemm_dtype(g, &dt) ||
		    strlen(g->device ? g->device : "") >=
			    sizeof(((struct history_series *)0)->device))
			continue;
		/* A size the sweep repeats: its k-th row, as compare keys it. */
		for (int j = 0; j < i; j++) {
			const struct bf_record *o = &ah->records[j];

			occurrence += o->type == BF_REC_GEMM && o->u.gemm.n == g->n &&
				      same(o->u.gemm.device, g->device) &&
				      gemm_dtype(&o->u.gemm, &odt) && odt == dt;
		}
		s = series_of(h, g, dt, occurrence, settings);
		s->points = bf_xrealloc(s->points, (size_t)(s->npoints + 1) *
							   sizeof(*s->points));
		p = &s->points[s->npoints++];
		memset(p, 0, sizeof(*p));
		p->run = run;
		p->median_gflops = g->gflops;
		p->spread = g->spread;
		p->throttled = g->throttled;
		p->reliable = g->reliable;
		p->samples = bf_xcalloc((size_t)g->nsamples, sizeof(*p->samples));
		for (int k = 0; k < g->nsamples; k++)
			if (g->samples_ms[k] > 0)
				p->samples[p->nsamples++] =
					bf_gemm_gflops(g->n, g->samples_ms[k]);
		if (p->nsamples == 0)
			s->npoints--, free(p->samples);
	}
}

/* The provenance that differs between the host's runs either side of a
 * change: compare's (model/compare.c), and the rows' throttling. */
static void change_provenance(const struct history *h,
			      const struct history_series *s,
			      struct history_change *c)
{
	const struct history_point *a = &s->points[c->cp.at - 1];
	const struct history_point *b = &s->points[c->cp.at];
	struct compare_column cols[2];
	struct compare_table *t;

	memset(cols, 0, sizeof(cols));
	cols[0].run = h->runs[a->run];
	cols[0].host = archive_run_host(h->runs[a->run], h->host);
	cols[1].run = h->runs[b->run];
	cols[1].host = archive_run_host(h->runs[b->run], h->host);
	t = compare_build(cols, 2, 0.05);
	c->prov = bf_xcalloc((size_t)t->nprov + 2, sizeof(*c->prov));
	for (int i = 0; i < t->nprov; i++) {
		struct history_prov *p = &c->prov[c->nprov++];

		p->key = bf_xstrdup(t->prov[i].key);
		p->before = t->prov[i].values[0] ? bf_xstrdup(t->prov[i].values[0]) : NULL;
		p->after = t->prov[i].values[1] ? bf_xstrdup(t->prov[i].values[1]) : NULL;
	}
	compare_free(t);
	if (a->throttled != b->throttled && (a->throttled >= 0 || b->throttled >= 0)) {
		struct history_prov *p = &c->prov[c->nprov++];
		static const char *const word[] = { "no", "yes" };

		p->key = bf_xstrdup("throttled");
		p->before = a->throttled >= 0 ? bf_xstrdup(word[a->throttled]) : NULL;
		p->after = b->throttled >= 0 ? bf_xstrdup(word[b->throttled]) : NULL;
	}
}

static void find_changes(struct history *h, struct history_series *s,
			 const struct cp_options *o)
{
	struct cp_run *runs = bf_xcalloc((size_t)s->npoints + 1, sizeof(*runs));
	struct cp_point *pts;
	int n;

	for (int i = 0; i < s->npoints; i++) {
		runs[i].x = s->points[i].samples;
		runs[i].n = s->points[i].nsamples;
	}
	pts = bf_xcalloc((size_t)s->npoints + 1, sizeof(*pts));
	n = changepoint_find(runs, s->npoints, o, pts, s->npoints);
	{
		/* The change as ctl history prints the stretches around it:
		 * medians of the runs' record gflops, stretch by stretch. */
		double *med = bf_xcalloc((size_t)s->npoints + 1, sizeof(*med));

		for (int i = 0; i < s->npoints; i++)
			med[i] = s->points[i].median_gflops;
		changepoint_stretch_medians(med, s->npoints, pts,
					    n < s->npoints ? n : s->npoints);
		free(med);
	}
	s->changes = bf_xcalloc((size_t)n + 1, sizeof(*s->changes));
	for (int i = 0; i < n; i++) {
		struct history_change *c = &s->changes[s->nchanges++];

		c->cp = pts[i];
		change_provenance(h, s, c);
	}
	free(pts);
	free(runs);
}

/* Work shared by the threads of history_load: an index each takes the
 * next item by. */
struct history_work {
	atomic_int next;
	int count;
	const char *results_dir;
	char **ids;                   /* loading: run ids, newest first */
	struct archive_run **loaded;  /* loading: per id, NULL when unreadable */
	struct history *h;            /* searching */
	const struct cp_options *o;
};

static void *load_runs(void *arg)
{
	struct history_work *w = arg;
	int i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->count) {
		char *dir = bf_xasprintf("%s/%s", w->results_dir, w->ids[i]);
		char why[512];

		if (archive_load_run(dir, &w->loaded[i], why, sizeof(why)) != BF_OK)
			w->loaded[i] = NULL;
		free(dir);
	}
	return NULL;
}

static void *search_series(void *arg)
{
	struct history_work *w = arg;
	int i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->count)
		find_changes(w->h, &w->h->series[i], w->o);
	return NULL;
}

/* Runs fn over w's items on up to the CPUs' number of threads (this one
 * among them). */
static void run_parallel(void *(*fn)(void *), struct history_work *w)
{
	pthread_t t[HISTORY_THREADS_MAX];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cpus < 1 ? 1 : cpus > HISTORY_THREADS_MAX ? HISTORY_THREADS_MAX :
							     (int)cpus, started = 0;

	atomic_store(&w->next, 0);
	for (int k = 1; k < n && k < w->count; k++)
		if (pthread_create(&t[started], NULL, fn, w) == 0)
			started++;
	fn(w);
	for (int k = 0; k < started; k++)
		pthread_join(t[k], NULL);
}

enum bf_err history_load(const char *results_dir, const char *host, int last,
			 const struct history_filter *filter,
			 const struct cp_options *o, struct history **out,
			 char *detail, size_t detail_len)
{
	struct history_work w;
	struct history *h;
	char **ids = NULL, **damaged = NULL;
	int count = 0;
	enum bf_err err;

	*out = NULL;
	err = archive_runs_with_host(results_dir, host, last > 0 ? last : INT_MAX,
				     &ids, &count, &damaged, detail,
				     detail_len);
	if (err != BF_OK)
		return err;
	if (count == 0) {
		bf_xfree_strv(ids);
		bf_xfree_strv(damaged);
		return bf_fail(detail, detail_len, BF_ERR_NOT_FOUND,
			       "%s: no run with host %s", results_dir, host);
	}
	h = bf_xcalloc(1, sizeof(*h));
	h->host = bf_xstrdup(host);
	{
		size_t ndamaged = 0;

		while (damaged[ndamaged])
			ndamaged++;
		/* At most a line per damaged run and two per run loaded. */
		h->skipped = bf_xcalloc(ndamaged + (size_t)count * 2 + 1,
					sizeof(*h->skipped));
	}
	for (char **d = damaged; *d; d++)
		h->skipped[h->nskipped++] = bf_xasprintf("skipped run %s", *d);
	bf_xfree_strv(damaged);
	h->runs = bf_xcalloc((size_t)count, sizeof(*h->runs));
	/* Parsing a thousand host files is most of the time: in parallel
	 * (archive_load_run is reentrant), then in order. */
	memset(&w, 0, sizeof(w));
	w.count = count;
	w.results_dir = results_dir;
	w.ids = ids;
	w.loaded = bf_xcalloc((size_t)count, sizeof(*w.loaded));
	run_parallel(load_runs, &w);
	/* Newest first from the archive: oldest first here. */
	for (int i = count - 1; i >= 0; i--) {
		struct archive_run *run = w.loaded[i];
		const struct archive_host *ah = run ? archive_run_host(run, host) :
						      NULL;

		if (!ah || !ah->host_record) {
			char name[256];

			bf_text_sanitize(name, sizeof(name), host);
			h->skipped[h->nskipped++] =
				!run ? bf_xasprintf("skipped run %s: not readable",
						    ids[i]) :
				ah && ah->read_error ?
				bf_xasprintf("skipped run %s: %s: records not read: %s",
					     run->run_id, name, ah->read_error) :
				bf_xasprintf("skipped run %s: %s: %s",
					     run->run_id, name,
					     ah ? "no host record" : "not in it");
			h->skipped[h->nskipped] = NULL;
			archive_run_free(run);
			continue;
		}
		if (ah->bad_lines) {
			char name[256];

			h->skipped[h->nskipped++] = bf_xasprintf(
				"run %s: %s: %d unreadable line%s skipped",
				run->run_id,
				bf_text_sanitize(name, sizeof(name), host),
				ah->bad_lines, ah->bad_lines == 1 ? "" : "s");
			h->skipped[h->nskipped] = NULL;
		}
		h->runs[h->nruns] = run;
		add_run(h, h->nruns, ah, filter);
		h->nruns++;
	}
	free(w.loaded);
	bf_xfree_strv(ids);
	/* Each series on its own: also in parallel. */
	memset(&w, 0, sizeof(w));
	w.count = h->nseries;
	w.h = h;
	w.o = o;
	run_parallel(search_series, &w);
	*out = h;
	return BF_OK;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	bf_xfree_strv(h->skipped);
	for (int i = 0; i < h->nseries; i++) {
		struct history_series *s = &h->series[i];

		for (int k = 0; k < s->npoints; k++)
			free(s->points[k].samples);
		free(s->points);
		for (int k = 0; k < s->nchanges; k++) {
			for (int j = 0; j < s->changes[k].nprov; j++) {
				free(s->changes[k].prov[j].key);
				free(s->changes[k].prov[j].before);
				free(s->changes[k].prov[j].after);
			}
			free(s->changes[k].prov);
		}
		free(s->changes);
	}
	free(h->series);
	for (int i = 0; i < h->nruns; i++)
		archive_run_free(h->runs[i]);
	free(h->runs);
	free(h->settings);
	free(h->host);
	free(h);
}

const char *history_settings_change(const struct history *h, int k)
{
	if (k <= 0 || k >= h->nsettings)
		return NULL;
	return bf_rec_options_differ(&h->settings[k - 1]->options,
				     &h->settings[k]->options);
}

int history_is_regression(const struct history_change *c, double pct)
{
	return c->cp.change < -pct / 100.0;
}
