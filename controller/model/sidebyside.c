/* Hosts side by side; see sidebyside.h. */
#include "model/sidebyside.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "xmalloc.h"

long sbs_device_rank(const char *device)
{
	char *end;
	long k;

	if (strcmp(device, "cpu") == 0)
		return 0;
	if (strncmp(device, "cuda:", 5) != 0 || !isdigit((unsigned char)device[5]))
		return -1;
	k = strtol(device + 5, &end, 10);
	return *end || k < 0 || k > 1000000 ? -1 : 1 + k;
}

/* Row keys before sorting: where each first appeared, for the devices
 * and dtypes ordered "as first seen". */
struct key {
	const struct model_row *r; /* the first snapshot row with this key */
	long device_rank;          /* sbs_device_rank, or 1e7 + first seen */
	int dtype_seen;            /* first appearance of the dtype */
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;

	if (a->device_rank != b->device_rank)
		return a->device_rank < b->device_rank ? -1 : 1;
	if (a->dtype_seen != b->dtype_seen)
		return a->dtype_seen < b->dtype_seen ? -1 : 1;
	if (a->r->n != b->r->n)
		return a->r->n < b->r->n ? -1 : 1;
	if (a->r->occurrence != b->r->occurrence)
		return a->r->occurrence < b->r->occurrence ? -1 : 1;
	return 0;
}

static int same_key(const struct model_row *a, const struct model_row *b)
{
	return a->n == b->n && a->occurrence == b->occurrence &&
	       a->dtype == b->dtype && strcmp(a->device, b->device) == 0;
}

void sbs_build(const struct model_snapshot *snap, struct sbs_table *t)
{
	struct key *keys = bf_xcalloc((size_t)snap->nrows + 1, sizeof(*keys));
	/* Distinct device names and dtypes in order of first appearance,
	 * walking hosts in the command line's order. */
	const char **devices = bf_xcalloc((size_t)snap->nrows + 1, sizeof(char *));
	enum bf_dtype *dtypes = bf_xcalloc((size_t)snap->nrows + 1,
					   sizeof(*dtypes));
	int nkeys = 0, ndevices = 0, ndtypes = 0;

	memset(t, 0, sizeof(*t));
	t->nhosts = snap->nhosts;
	t->ref = snap->ref_host >= 0 && snap->ref_host < snap->nhosts ?
			 snap->ref_host : 0;
	for (int h = 0; h < snap->nhosts; h++)
		for (int i = 0; i < snap->nrows; i++) {
			const struct model_row *r = &snap->rows[i];
			int k, d;

			if (r->host != h)
				continue;
			for (k = 0; k < nkeys && !same_key(keys[k].r, r); k++)
				;
			if (k < nkeys)
				continue;
			for (d = 0; d < ndevices && strcmp(devices[d], r->device); d++)
				;
			if (d == ndevices)
				devices[ndevices++] = r->device;
			keys[nkeys].r = r;
			keys[nkeys].device_rank = sbs_device_rank(r->device);
			if (keys[nkeys].device_rank < 0)
				keys[nkeys].device_rank = 10000000L + d;
			for (d = 0; d < ndtypes && dtypes[d] != r->dtype; d++)
				;
			if (d == ndtypes)
				dtypes[ndtypes++] = r->dtype;
			keys[nkeys].dtype_seen = d;
			nkeys++;
		}
	qsort(keys, (size_t)nkeys, sizeof(*keys), key_cmp);
	t->nrows = nkeys;
	t->rows = bf_xcalloc((size_t)nkeys + 1, sizeof(*t->rows));
	t->cells = bf_xcalloc((size_t)nkeys * (size_t)(snap->nhosts + 1) + 1,
			      sizeof(*t->cells));
	for (int k = 0; k < nkeys; k++) {
		struct sbs_row *row = &t->rows[k];
		int *cell = &t->cells[(size_t)k * (size_t)snap->nhosts];

		memcpy(row->device, keys[k].r->device, sizeof(row->device));
		row->dtype = keys[k].r->dtype;
		row->n = keys[k].r->n;
		row->occurrence = keys[k].r->occurrence;
		row->cell = cell;
		for (int h = 0; h < snap->nhosts; h++)
			cell[h] = -1;
		for (int i = 0; i < snap->nrows; i++) {
			const struct model_row *r = &snap->rows[i];

			if (r->host >= 0 && r->host < snap->nhosts &&
			    cell[r->host] < 0 && same_key(r, keys[k].r))
				cell[r->host] = i;
		}
	}
	free(dtypes);
	free(devices);
	free(keys);
}

void sbs_free(struct sbs_table *t)
{
	free(t->rows);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

const struct model_row *sbs_cell(const struct model_snapshot *snap,
				 const struct sbs_table *t, int r, int host)
{
	int i;

	if (r < 0 || r >= t->nrows || host < 0 || host >= t->nhosts)
		return NULL;
	i = t->rows[r].cell[host];
	return i >= 0 && i < snap->nrows ? &snap->rows[i] : NULL;
}

double sbs_ratio(const struct model_snapshot *snap, const struct sbs_table *t,
		 int r, int host, int *unreliable)
{
	const struct model_row *a = sbs_cell(snap, t, r, host);
	const struct model_row *b = sbs_cell(snap, t, r, t->ref);

	if (unreliable)
		*unreliable = 0;
	if (host == t->ref || !a || !b || a->status != BF_STATUS_PASS ||
	    b->status != BF_STATUS_PASS || isnan(a->gflops) || isnan(b->gflops))
		return NAN;
	if (unreliable)
		*unreliable = a->reliable == 0 || b->reliable == 0;
	return bf_speed_ratio(a->gflops, b->gflops);
}
