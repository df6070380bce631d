/* The hosts of a command line as places; see places.h. */
#include "run/places.h"

#include <stdlib.h>
#include <string.h>

#include "archive/paths.h"
#include "xmalloc.h"

#define MAX_PLACES 1024

enum bf_err places_resolve(struct inventory *inv, int nargs, char *const *args,
			   struct place **out, int *n, char *detail,
			   size_t detail_len)
{
	const char **names = bf_xcalloc(MAX_PLACES, sizeof(*names));
	struct place *p = bf_xcalloc(MAX_PLACES, sizeof(*p));
	int count = 0, np = 0;
	enum bf_err err;

	*out = NULL;
	*n = 0;
	err = inventory_resolve(inv, nargs, args, names, MAX_PLACES, &count,
				detail, detail_len);
	for (int i = 0; err == BF_OK && i < count; i++) {
		const struct inv_group *g;
		int rank, dup = 0;

		if (strcmp(names[i], "local") == 0) {
			p[np++] = (struct place){ "local", NULL, NULL, NULL };
		} else if ((g = inventory_slurm_rank(inv, names[i], &rank))) {
			for (int j = 0; j < np; j++)
				dup |= p[j].cluster == g;
			if (!dup)
				p[np++] =
					(struct place){ g->name,
							strcmp(g->slurm->login,
							       "local") == 0 ?
								NULL :
								g->slurm->login,
							NULL, g };
		} else {
			const struct inv_host *h =
				inventory_host(inv, names[i]);

			p[np++] =
				(struct place){ names[i],
						h && h->ssh ? h->ssh : names[i],
						h, NULL };
		}
	}
	free(names);
	if (err != BF_OK) {
		free(p);
		return err;
	}
	*out = p;
	*n = np;
	return BF_OK;
}

enum bf_err places_load(const char *hosts_dir, int nargs, char *const *args,
			struct inventory *inv, struct place **out, int *n,
			char *detail, size_t detail_len)
{
	const char *by;
	enum bf_err err;

	memset(inv, 0, sizeof(*inv));
	hosts_dir = ctl_hosts_dir(hosts_dir, &by);
	err = inventory_load(hosts_dir, by, inv, detail, detail_len);
	if (err == BF_OK)
		err = places_resolve(inv, nargs, args, out, n, detail,
				     detail_len);
	if (err != BF_OK)
		inventory_free(inv);
	return err;
}
