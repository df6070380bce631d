/*
 * hosts/: the project's inventory of hosts and groups, as JSON files read
 * with cJSON (format in hosts/README.md). Every *.json file in the
 * directory is read, in name order; a later definition of the same host or
 * group is an error, so two files cannot silently disagree.
 */
#ifndef BF_INVENTORY_H
#define BF_INVENTORY_H

#include <stddef.h>

#include "agent_opts.h"
#include "bf_error.h"

#define INV_MAX_ENV 32
#define INV_MAX_PATH 8

struct inv_host {
	char *name;        /* the name used on the command line */
	char *ssh;         /* SSH target: alias or [user@]host[:port] */
	char *workdir;     /* remote cache dir; NULL = ~/.cache/benchfleet */
	char *description;
	char *path_prepend[INV_MAX_PATH]; /* added in front of PATH */
	int npath;
	char *env_name[INV_MAX_ENV];      /* literal environment values */
	char *env_value[INV_MAX_ENV];
	int nenv;
	/* Agent options for this host, given in its "defaults" (checked
	 * against common/agent_opts.h's table when read): the command line
	 * overrides each, and the agent's own defaults fill the rest. */
	struct bf_agent_optset defaults;
};

/* A Slurm cluster: a group of "kind": "slurm" (hosts/README.md). Its
 * members are its task ranks, named "NAME/0" .. "NAME/<nodes-1>" until
 * each task says which node it runs on (runner_slurm.c). */
struct inv_slurm {
	char *login;       /* SSH alias or [user@]host[:port]; "local" */
	char *partition;   /* NULL: the cluster's default */
	int nodes;         /* one agent per node, 1..1024 */
	char *gres;        /* --gres, e.g. "gpu:1"; NULL */
	char *time;        /* --time, e.g. "00:30:00"; NULL */
	char *account;     /* --account; NULL */
	char *nodelist;    /* --nodelist; NULL */
	char *only_nodes;  /* "NAME:node,node" on the command line: these
			    * nodes (--nodelist), one rank each; NULL */
	char *workdir;     /* shared by login and compute nodes; NULL =
			    * ~/.cache/benchfleet-slurm on the login host */
	char *target;      /* "slurm:NAME", run.json's target */
	struct bf_agent_optset defaults;
};

struct inv_group {
	char *name;
	char *file;        /* the file that defines it, for messages */
	char **members;
	int nmembers;
	struct inv_slurm *slurm; /* NULL: a plain group of hosts */
};

struct inventory {
	struct inv_host *hosts;
	int nhosts;
	struct inv_group *groups;
	int ngroups;
};

/* Reads every *.json in dir into *inv. A missing directory is an empty
 * inventory (BF_OK) unless given_by is not NULL: what chose dir
 * ("--hosts-dir"), for "hosts directory DIR (--hosts-dir): No such file
 * or directory" (BF_ERR_USAGE). Errors: BF_ERR_PARSE (not JSON, wrong
 * types, unknown key) and BF_ERR_USAGE (a name defined twice, a host and
 * a group of one name, a host or group named local, a group with no hosts
 * or naming an unknown host, a host's ssh or a cluster's login that is no
 * SSH target (remote_target_check), a default the agent would refuse:
 * "file: host NAME: defaults: warmup '-1': expected an integer from 0 to
 * 100000"), with "file: what" in detail; BF_ERR_IO. Caller frees with inventory_free,
 * also on error. */
enum bf_err inventory_load(const char *dir, const char *given_by,
			   struct inventory *inv, char *detail,
			   size_t detail_len);

/* Parses one JSON document (from file `origin`, for messages) into inv. */
enum bf_err inventory_parse(const char *json, const char *origin,
			    struct inventory *inv, char *detail,
			    size_t detail_len);

const struct inv_host *inventory_host(const struct inventory *inv,
				      const char *name);
const struct inv_group *inventory_group(const struct inventory *inv,
					const char *name);

/* The Slurm cluster whose task rank `name` is ("NAME/<rank>", a member of
 * a slurm group), with the rank in *rank; NULL for any other name. */
const struct inv_group *inventory_slurm_rank(const struct inventory *inv,
					     const char *name, int *rank);

/* The hosts of a command line: each arg a host, or a group expanded to
 * its members, each host once, in order, into names (at most max; the
 * strings are args' or inv's). "NAME:node1,node2" names nodes of Slurm
 * cluster NAME: its first ranks, one per node, and the cluster's
 * only_nodes set to the list. A name that is not local, an inventory host
 * or a cluster's rank is an SSH target, checked with remote_target_check
 * (nothing is contacted). Errors: BF_ERR_USAGE ("host 'me@': empty user
 * or host name", too many hosts, a bad node list, a cluster both whole
 * and by nodes). */
enum bf_err inventory_resolve(struct inventory *inv, int nargs,
			      char *const *args, const char **names, int max,
			      int *count, char *detail, size_t detail_len);

void inventory_free(struct inventory *inv);

/*
 * The agent's arguments for each of nhosts hosts named names[i]: the
 * options given to ctl (given), then the host's inventory defaults (or
 * its Slurm cluster's), validated as a whole by common/agent_opts and
 * written as the agent's argv (with --exit-on-hangup). Returns an array of
 * nhosts NULL-terminated argvs (free each with bf_xfree_strv, then the
 * array), or NULL with a one-line message in detail ("HOST: --iters '0':
 * expected ...") when the agent would refuse one.
 */
char ***inventory_agent_argvs(const struct inventory *inv,
			      const struct bf_agent_optset *given, int nhosts,
			      const char *const *names, char *detail,
			      size_t detail_len);

#endif
