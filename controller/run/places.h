/*
 * The hosts of a command line as places ctl reaches (ctl doctor, ctl
 * clean): each argument a host, a group of them or a Slurm cluster, from
 * the inventory (inventory_resolve), else an SSH target.
 */
#ifndef BF_PLACES_H
#define BF_PLACES_H

#include "bf_error.h"
#include "run/inventory.h"

struct place {
	const char *label;  /* the host's or cluster's name, for messages */
	const char *target; /* SSH target; NULL: this machine */
	const struct inv_host *host;	 /* the inventory's host, or NULL */
	const struct inv_group *cluster; /* a Slurm cluster (target: its
					  * login host), or NULL */
};

/* The places of args, each once, in order, into *out (n of them; caller
 * frees the array, whose strings are args' or inv's). "local" is this
 * machine; a Slurm cluster (by name or CLUSTER:nodes) is its login host
 * once. Errors as inventory_resolve's (BF_ERR_USAGE with one line). */
enum bf_err places_resolve(struct inventory *inv, int nargs, char *const *args,
			   struct place **out, int *n, char *detail,
			   size_t detail_len);

/* The inventory of hosts_dir (--hosts-dir, or NULL for ctl_hosts_dir's
 * default) into *inv (zeroed first), then places_resolve of args. On
 * error (the inventory's or places_resolve's, one line in detail) *inv
 * is freed and nothing is left to free; else the caller frees *out and
 * inventory_free(inv). */
enum bf_err places_load(const char *hosts_dir, int nargs, char *const *args,
			struct inventory *inv, struct place **out, int *n,
			char *detail, size_t detail_len);

#endif
