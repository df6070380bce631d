/*
 * ctl compare's provenance of the peaks and references (compare.h,
 * compare_add_peak_provenance): a %peak or a vs ref that moved because
 * the figure it divides by changed (a new agent's peak model, a different
 * product behind the same name, a reference added to the table) is a
 * configuration change, not a speed change, and is listed as one.
 */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "xmalloc.h"

/* The first measured gemm record of h for device and dtype (and n when
 * n > 0) that carries a peak (n == 0) or a reference (n > 0); NULL. */
static const struct bf_rec_gemm *find_gemm(const struct archive_host *h,
					   const char *device,
					   const char *dtype, int n)
{
	for (int i = 0; h && i < h->nrecords; i++) {
		const struct bf_rec_gemm *g = &h->records[i].u.gemm;

		if (h->records[i].type != BF_REC_GEMM || !g->measured ||
		    !g->device || !g->dtype || strcmp(g->device, device) != 0 ||
		    strcmp(g->dtype, dtype) != 0)
			continue;
		if (n == 0 && g->peak_basis)
			return g;
		if (n > 0 && g->n == n)
			return g;
	}
	return NULL;
}

/* A column's value for one key: the peak "236.5 GFLOP/s (probe)", the
 * reference "817.0 GFLOP/s: SOURCE" or "none"; NULL when the column has
 * no such record. Caller frees. */
static char *value_of(const struct archive_host *h, const char *device,
		      const char *dtype, int n)
{
	const struct bf_rec_gemm *g = find_gemm(h, device, dtype, n);

	if (!g)
		return NULL;
	if (n == 0)
		return isnan(g->peak_gflops) ?
			       bf_xasprintf("unknown (%s)",
					    g->peak_method ? g->peak_method :
							     "n/a") :
			       bf_xasprintf("%.1f GFLOP/s (%s)", g->peak_gflops,
					    g->peak_method ? g->peak_method :
							     "older agent");
	if (!g->reference_source)
		return bf_xstrdup("none");
	return bf_xasprintf("%.1f GFLOP/s: %s", g->reference_gflops,
			    g->reference_source);
}

/* A rated peak moves by up to this much between runs of one machine when
 * its clock is measured (a VM without cpufreq): 3.57 to 3.695 GHz (3.4 %)
 * on this project's VM, whose host clocks down when its other cores are
 * busy. A change below it is not a change of the peak. */
#define PEAK_SAME_REL 0.05

/* Whether two columns' peaks for a key are the same: same method, and
 * figures within PEAK_SAME_REL (both unknown counts as the same). */
static int same_peak(const struct bf_rec_gemm *a, const struct bf_rec_gemm *b)
{
	const char *ma = a->peak_method ? a->peak_method : "",
		   *mb = b->peak_method ? b->peak_method : "";

	if (strcmp(ma, mb) != 0 ||
	    isnan(a->peak_gflops) != isnan(b->peak_gflops))
		return 0;
	return isnan(a->peak_gflops) ||
	       fabs(a->peak_gflops - b->peak_gflops) <=
		       PEAK_SAME_REL * fmax(a->peak_gflops, b->peak_gflops);
}

/* Adds the row for (device, dtype, n) when two columns have values and
 * they differ. */
static void add_key(struct compare_table *t, const char *name,
		    const char *device, const char *dtype, int n)
{
	char **values = bf_xcalloc((size_t)t->ncols, sizeof(*values));
	char key[48];
	int present = 0, differs = 0, first = -1;

	for (int c = 0; c < t->ncols; c++) {
		values[c] = value_of(compare_column_host(t, c, name), device,
				     dtype, n);
		if (!values[c])
			continue;
		present++;
		if (first < 0)
			first = c;
		else if (n == 0 ? !same_peak(find_gemm(compare_column_host(
							       t, first, name),
						       device, dtype, 0),
					     find_gemm(compare_column_host(
							       t, c, name),
						       device, dtype, 0)) :
				  strcmp(values[first], values[c]) != 0)
			differs = 1;
	}
	if (n == 0)
		snprintf(key, sizeof(key), "peak %.15s %.7s", device, dtype);
	else
		snprintf(key, sizeof(key), "reference %.15s %.7s n=%d", device,
			 dtype, n);
	compare_add_prov(t, name, key, values, present, differs);
}

void compare_add_peak_provenance(struct compare_table *t, const char *name)
{
	/* Each (device, dtype) once, then each (device, dtype, n), in the
	 * order first seen over the columns. */
	for (int pass = 0; pass < 2; pass++)
		for (int c = 0; c < t->ncols; c++) {
			const struct archive_host *h =
				compare_column_host(t, c, name);

			for (int i = 0; h && i < h->nrecords; i++) {
				const struct bf_rec_gemm *g =
					&h->records[i].u.gemm;
				int n = pass ? g->n : 0, seen = 0;

				if (h->records[i].type != BF_REC_GEMM ||
				    !g->measured || !g->device || !g->dtype)
					continue;
				/* seen earlier in this column or an earlier one
				 */
				for (int k = 0; k <= c && !seen; k++) {
					const struct archive_host *o =
						compare_column_host(t, k, name);
					int upto =
						k == c ? i :
							 (o ? o->nrecords : 0);

					for (int j = 0; o && j < upto && !seen;
					     j++) {
						const struct bf_rec_gemm *e =
							&o->records[j].u.gemm;

						seen = o->records[j].type ==
							       BF_REC_GEMM &&
						       e->measured &&
						       e->device && e->dtype &&
						       strcmp(e->device,
							      g->device) == 0 &&
						       strcmp(e->dtype,
							      g->dtype) == 0 &&
						       (!pass || e->n == g->n);
					}
				}
				if (!seen)
					add_key(t, name, g->device, g->dtype,
						n);
			}
		}
}
