/* Inventory of hosts and groups from the JSON files in hosts/; see inventory.h. */
#include "run/inventory.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json_text.h"
#include "remote/remote_target.h"
#include "run/inventory_check.h"
#include "xmalloc.h"

const struct inv_host *inventory_host(const struct inventory *inv,
				      const char *name)
{
	for (int i = 0; i < inv->nhosts; i++)
		if (strcmp(inv->hosts[i].name, name) == 0)
			return &inv->hosts[i];
	return NULL;
}

const struct inv_group *inventory_group(const struct inventory *inv,
					const char *name)
{
	for (int i = 0; i < inv->ngroups; i++)
		if (strcmp(inv->groups[i].name, name) == 0)
			return &inv->groups[i];
	return NULL;
}

/* "NAME:node,node" of a Slurm cluster NAME: the cluster (NULL when arg
 * is no such thing) and the number of nodes in *nodes (0: a bad list). */
static struct inv_group *slurm_nodes_arg(struct inventory *inv,
					 const char *arg, int *nodes)
{
	const char *colon = strchr(arg, ':'), *p;

	*nodes = 0;
	if (!colon || inventory_host(inv, arg))
		return NULL;
	for (int i = 0; i < inv->ngroups; i++) {
		struct inv_group *g = &inv->groups[i];

		if (!g->slurm || strlen(g->name) != (size_t)(colon - arg) ||
		    strncmp(g->name, arg, (size_t)(colon - arg)) != 0)
			continue;
		/* Node names one by one: letters, digits, '.', '_', '-'. */
		for (p = colon + 1;; p++) {
			size_t len = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "abcdefghijklmnopqrstuvwxyz"
					       "0123456789._-");

			if (len == 0 || (p[len] != ',' && p[len] != '\0')) {
				*nodes = 0;
				break;
			}
			(*nodes)++;
			p += len;
			if (!*p)
				break;
		}
		return g;
	}
	return NULL;
}

enum bf_err inventory_resolve(struct inventory *inv, int nargs,
			      char *const *args, const char **names, int max,
			      int *count, char *detail, size_t detail_len)
{
	int n = 0;

	for (int i = 0; i < nargs; i++) {
		const struct inv_group *g = inventory_group(inv, args[i]);
		int nmem = g ? g->nmembers : 1, nodes = 0;
		struct inv_group *by_nodes = g ? NULL :
			slurm_nodes_arg(inv, args[i], &nodes);

		if (by_nodes) {
			if (nodes == 0 || nodes > by_nodes->nmembers)
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "%s: 1 to %d node names of cluster "
					       "%s, separated by commas",
					       args[i], by_nodes->nmembers,
					       by_nodes->name);
			if (by_nodes->slurm->only_nodes)
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "%s: cluster %s given twice",
					       args[i], by_nodes->name);
			for (int j = 0; j < n; j++)
				for (int k = 0; k < by_nodes->nmembers; k++)
					if (strcmp(names[j],
						   by_nodes->members[k]) == 0)
						return bf_fail(detail, detail_len,
							       BF_ERR_USAGE,
							       "%s: cluster %s given twice",
							       args[i], by_nodes->name);
			by_nodes->slurm->only_nodes =
				bf_xstrdup(strchr(args[i], ':') + 1);
			g = by_nodes;
			nmem = nodes;
		} else if (g && g->slurm && g->slurm->only_nodes) {
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "%s: cluster given twice", args[i]);
		}

		for (int k = 0; k < nmem; k++) {
			const char *name = g ? g->members[k] : args[i];
			int dup = 0;

			int rank;

			/* Not the inventory's: an SSH target, which must be
			 * one before anything is made. */
			if (strcmp(name, "local") != 0 &&
			    !inventory_host(inv, name) &&
			    !inventory_slurm_rank(inv, name, &rank)) {
				enum bf_err err = remote_target_check(
					name, detail, detail_len);

				if (err != BF_OK)
					return err;
			}
			for (int j = 0; j < n; j++)
				dup |= strcmp(names[j], name) == 0;
			if (dup)
				continue; /* a host once per run */
			if (n == max)
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "too many hosts: at most %d", max);
			names[n++] = name;
		}
	}
	*count = n;
	return BF_OK;
}

const struct inv_group *inventory_slurm_rank(const struct inventory *inv,
					     const char *name, int *rank)
{
	for (int i = 0; inv && i < inv->ngroups; i++) {
		const struct inv_group *g = &inv->groups[i];

		for (int k = 0; g->slurm && k < g->nmembers; k++)
			if (strcmp(g->members[k], name) == 0) {
				*rank = k;
				return g;
			}
	}
	return NULL;
}

static enum bf_err bad(char *detail, size_t len, const char *origin,
		       const char *what, const char *name)
{
	return bf_fail(detail, len, BF_ERR_PARSE, "%s: %s%s%s", origin, what,
		       name ? ": " : "", name ? name : "");
}

/* Copies a string member; absent is fine (NULL), wrong type is an error. */
static int get_string(const cJSON *obj, const char *key, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return -1;
	*out = bf_xstrdup(v->valuestring);
	return 0;
}

static int known_key(const char *k, const char *const *keys)
{
	for (; *keys; keys++)
		if (strcmp(k, *keys) == 0)
			return 1;
	return 0;
}

/* The host's "defaults", each value parsed and checked by the agent's own
 * option table (common/agent_opts.c), so that 0 is a value and a value
 * the agent would refuse stops the run before it starts. A number is
 * given to it as written in json (the file doc was parsed from), not as
 * the double it was read into: 9007199254740993 is refused as itself,
 * not as 9007199254740992. */
static enum bf_err parse_defaults(const cJSON *d, const char *origin,
				  const char *host, struct bf_agent_optset *set,
				  const char *json, const cJSON *doc,
				  char *detail, size_t detail_len)
{
	const cJSON *e;

	if (!cJSON_IsObject(d))
		return bad(detail, detail_len, origin,
			   "defaults must be an object", host);
	cJSON_ArrayForEach(e, d) {
		const struct bf_agent_opt *o = bf_agent_opt_find_key(e->string);
		char value[64], given[64], why[256];
		const char *text = value;
		struct bf_agent_optset scratch;
		int want_number;

		if (!o)
			return bf_fail(detail, detail_len, BF_ERR_PARSE,
				       "%s: host %s: unknown key in defaults: %s",
				       origin, host, e->string);
		want_number = o->type == BF_AOT_INT;
		if (want_number && cJSON_IsNumber(e)) {
			/* %.17g keeps 1.5 and 1e20 as they are, for the
			 * parser to refuse in its own words, and 10.0 reads
			 * as 10. */
			snprintf(value, sizeof(value), "%.17g", e->valuedouble);
		} else if (!want_number && cJSON_IsString(e)) {
			text = e->valuestring;
		} else {
			return bf_fail(detail, detail_len, BF_ERR_PARSE,
				       "%s: host %s: defaults: %s: expected %s",
				       origin, host, e->string,
				       want_number ? "a number" : "a string");
		}
		if (bf_agent_opt_parse(o, e->string, text, set, why,
				       sizeof(why)) == BF_OK)
			continue;
		/* Refused: in the words of the number as written, not of
		 * the double it was read into (9007199254740993 is no
		 * 9007199254740992, 1e400 no inf). */
		scratch = *set;
		if (text == value &&
		    bf_json_number_text(json, strlen(json), doc, e, given,
					sizeof(given)) == 0 &&
		    strcmp(given, value) != 0)
			(void)bf_agent_opt_parse(o, e->string, given, &scratch,
						 why, sizeof(why));
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s: host %s: defaults: %s", origin, host, why);
	}
	return BF_OK;
}

/* A POSIX shell variable name: [A-Za-z_][A-Za-z0-9_]*. Anything else
 * cannot be exported by the remote shell (and could be code). */
static int env_name_ok(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static enum bf_err parse_host(const cJSON *h, const char *origin,
			      struct inv_host *out, const char *json,
			      const cJSON *doc, char *detail, size_t detail_len)
{
	static const char *const host_keys[] = { "ssh", "workdir",
		"description", "path_prepend", "env", "defaults", NULL };
	const cJSON *v, *e;
	char why[512];

	if (!cJSON_IsObject(h))
		return bad(detail, detail_len, origin, "host is not an object",
			   h->string);
	cJSON_ArrayForEach(v, h)
		if (!known_key(v->string, host_keys))
			return bad(detail, detail_len, origin, "unknown key",
				   v->string);
	if (get_string(h, "ssh", &out->ssh) < 0 ||
	    get_string(h, "workdir", &out->workdir) < 0 ||
	    get_string(h, "description", &out->description) < 0)
		return bad(detail, detail_len, origin,
			   "ssh, workdir and description must be strings",
			   h->string);
	if (!out->ssh)
		out->ssh = bf_xstrdup(out->name);
	if (remote_target_check(out->ssh, why, sizeof(why)) != BF_OK)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s: host %s: ssh: %s", origin, out->name, why);
	if (out->workdir && !inv_path_ok(out->workdir, why, sizeof(why)))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s: host %s: workdir '%s': %s", origin,
			       out->name, out->workdir, why);
	v = cJSON_GetObjectItemCaseSensitive(h, "path_prepend");
	if (v) {
		if (!cJSON_IsArray(v))
			return bad(detail, detail_len, origin,
				   "path_prepend must be an array", h->string);
		cJSON_ArrayForEach(e, v) {
			if (!cJSON_IsString(e) || out->npath == INV_MAX_PATH)
				return bad(detail, detail_len, origin,
					   "path_prepend: strings, at most 8",
					   h->string);
			if (!inv_path_ok(e->valuestring, why, sizeof(why)))
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "%s: host %s: path_prepend "
					       "'%s': %s", origin, out->name,
					       e->valuestring, why);
			out->path_prepend[out->npath++] = bf_xstrdup(e->valuestring);
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(h, "env");
	if (v) {
		if (!cJSON_IsObject(v))
			return bad(detail, detail_len, origin,
				   "env must be an object", h->string);
		cJSON_ArrayForEach(e, v) {
			if (!cJSON_IsString(e) || out->nenv == INV_MAX_ENV)
				return bad(detail, detail_len, origin,
					   "env: string values, at most 32",
					   h->string);
			if (!env_name_ok(e->string))
				return bf_fail(detail, detail_len, BF_ERR_PARSE,
					       "%s: host %s: env: '%s' is not a variable name (letters, digits, _; not starting with a digit)",
					       origin, h->string, e->string);
			if (!inv_env_value_ok(e->string, e->valuestring, why,
					      sizeof(why)))
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "%s: host %s: env: %s: %s",
					       origin, out->name, e->string,
					       why);
			out->env_name[out->nenv] = bf_xstrdup(e->string);
			out->env_value[out->nenv++] = bf_xstrdup(e->valuestring);
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(h, "defaults");
	if (v)
		return parse_defaults(v, origin, h->string, &out->defaults,
				      json, doc, detail, detail_len);
	return BF_OK;
}

/* A group of "kind": "slurm": the cluster's settings, and its members
 * made up as its task ranks. */
static enum bf_err parse_slurm(const cJSON *g, const char *origin,
			       struct inv_group *out, const char *json,
			       const cJSON *doc, char *detail,
			       size_t detail_len)
{
	static const char *const keys[] = { "kind", "login", "partition",
		"nodes", "gres", "time", "account", "nodelist", "workdir",
		"description", "defaults", NULL };
	struct inv_slurm *sl = bf_xcalloc(1, sizeof(*sl));
	const cJSON *v, *kind = cJSON_GetObjectItemCaseSensitive(g, "kind");
	char *desc = NULL, why[512];

	out->slurm = sl;
	sl->target = bf_xasprintf("slurm:%s", g->string);
	if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "slurm") != 0)
		return bad(detail, detail_len, origin,
			   "a group object needs \"kind\": \"slurm\"", g->string);
	cJSON_ArrayForEach(v, g)
		if (!known_key(v->string, keys))
			return bad(detail, detail_len, origin, "unknown key",
				   v->string);
	if (get_string(g, "login", &sl->login) < 0 ||
	    get_string(g, "partition", &sl->partition) < 0 ||
	    get_string(g, "gres", &sl->gres) < 0 ||
	    get_string(g, "time", &sl->time) < 0 ||
	    get_string(g, "account", &sl->account) < 0 ||
	    get_string(g, "nodelist", &sl->nodelist) < 0 ||
	    get_string(g, "workdir", &sl->workdir) < 0 ||
	    get_string(g, "description", &desc) < 0) {
		free(desc);
		return bad(detail, detail_len, origin,
			   "slurm: login, partition, gres, time, account, "
			   "nodelist, workdir and description must be strings",
			   g->string);
	}
	free(desc);
	if (!sl->login)
		return bad(detail, detail_len, origin,
			   "slurm: login is required (an SSH alias, or \"local\")",
			   g->string);
	if (strcmp(sl->login, "local") != 0 &&
	    remote_target_check(sl->login, why, sizeof(why)) != BF_OK)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s: cluster %s: login: %s", origin, g->string,
			       why);
	if (sl->workdir && !inv_path_ok(sl->workdir, why, sizeof(why)))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s: cluster %s: workdir '%s': %s", origin,
			       g->string, sl->workdir, why);
	v = cJSON_GetObjectItemCaseSensitive(g, "nodes");
	sl->nodes = 1;
	if (v && (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
		  v->valuedouble > 1024 || v->valuedouble != (int)v->valuedouble))
		return bad(detail, detail_len, origin,
			   "slurm: nodes must be an integer from 1 to 1024",
			   g->string);
	if (v)
		sl->nodes = v->valueint;
	out->members = bf_xcalloc((size_t)sl->nodes + 1, sizeof(char *));
	for (int k = 0; k < sl->nodes; k++)
		out->members[out->nmembers++] =
			bf_xasprintf("%s/%d", g->string, k);
	v = cJSON_GetObjectItemCaseSensitive(g, "defaults");
	if (v)
		return parse_defaults(v, origin, g->string, &sl->defaults,
				      json, doc, detail, detail_len);
	return BF_OK;
}

/* Whether `name`, about to be defined as a `what` ("host", "group"),
 * may be: not "local" (ctl's own machine) and no host's or group's name
 * yet. BF_OK, or BF_ERR_USAGE with "origin: why" in detail. */
static enum bf_err name_taken(const struct inventory *inv, const char *name,
			      const char *what, const char *origin,
			      char *detail, size_t detail_len)
{
	const char *other = inventory_host(inv, name) ? "host" :
			    inventory_group(inv, name) ? "group" : NULL;

	if (strcmp(name, "local") == 0)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s: %s name local is reserved for this machine",
			       origin, what);
	if (other && strcmp(other, what) == 0)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s: %s defined twice: %s", origin, what, name);
	if (other)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s: %s %s: a %s has that name", origin, what,
			       name, other);
	return BF_OK;
}

enum bf_err inventory_parse(const char *json, const char *origin,
			    struct inventory *inv, char *detail,
			    size_t detail_len)
{
	cJSON *doc = cJSON_ParseWithOpts(json, NULL, 1);
	const cJSON *hosts, *groups, *h, *g, *m;
	enum bf_err err = BF_OK;

	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return bad(detail, detail_len, origin, "not a JSON object", NULL);
	}
	cJSON_ArrayForEach(h, doc)
		if (strcmp(h->string, "hosts") != 0 &&
		    strcmp(h->string, "groups") != 0 &&
		    strcmp(h->string, "comment") != 0) {
			err = bad(detail, detail_len, origin, "unknown key", h->string);
			goto out;
		}
	hosts = cJSON_GetObjectItemCaseSensitive(doc, "hosts");
	groups = cJSON_GetObjectItemCaseSensitive(doc, "groups");
	if ((hosts && !cJSON_IsObject(hosts)) || (groups && !cJSON_IsObject(groups))) {
		err = bad(detail, detail_len, origin,
			  "hosts and groups must be objects", NULL);
		goto out;
	}
	cJSON_ArrayForEach(h, hosts) {
		struct inv_host *ih;

		err = name_taken(inv, h->string, "host", origin, detail,
				 detail_len);
		if (err != BF_OK)
			goto out;
		inv->hosts = bf_xrealloc(inv->hosts, (size_t)(inv->nhosts + 1) *
							  sizeof(*inv->hosts));
		ih = &inv->hosts[inv->nhosts++];
		memset(ih, 0, sizeof(*ih));
		ih->name = bf_xstrdup(h->string);
		err = parse_host(h, origin, ih, json, doc, detail, detail_len);
		if (err != BF_OK)
			goto out;
	}
	cJSON_ArrayForEach(g, groups) {
		struct inv_group *ig;

		if (!cJSON_IsArray(g) && !cJSON_IsObject(g)) {
			err = bad(detail, detail_len, origin,
				  "group is not an array of host names (or a "
				  "Slurm cluster's object)", g->string);
			goto out;
		}
		err = name_taken(inv, g->string, "group", origin, detail,
				 detail_len);
		if (err != BF_OK)
			goto out;
		if (cJSON_IsArray(g) && cJSON_GetArraySize(g) == 0) {
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "%s: group %s has no hosts", origin,
				      g->string);
			goto out;
		}
		inv->groups = bf_xrealloc(inv->groups, (size_t)(inv->ngroups + 1) *
							    sizeof(*inv->groups));
		ig = &inv->groups[inv->ngroups++];
		memset(ig, 0, sizeof(*ig));
		ig->name = bf_xstrdup(g->string);
		ig->file = bf_xstrdup(origin);
		if (cJSON_IsObject(g)) {
			err = parse_slurm(g, origin, ig, json, doc, detail,
					  detail_len);
			if (err != BF_OK)
				goto out;
			continue;
		}
		ig->members = bf_xcalloc((size_t)cJSON_GetArraySize(g) + 1,
				      sizeof(char *));
		cJSON_ArrayForEach(m, g) {
			if (!cJSON_IsString(m)) {
				err = bad(detail, detail_len, origin,
					  "group members must be strings", g->string);
				goto out;
			}
			ig->members[ig->nmembers++] = bf_xstrdup(m->valuestring);
		}
	}
out:
	cJSON_Delete(doc);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *read_file(const char *path, size_t max)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = bf_xmalloc(max + 1);
	n = fread(buf, 1, max, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

enum bf_err inventory_load(const char *dir, const char *given_by,
			   struct inventory *inv, char *detail,
			   size_t detail_len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	enum bf_err err = BF_OK;

	memset(inv, 0, sizeof(*inv));
	if (!d && errno == ENOENT && given_by)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "hosts directory %s (%s): %s", dir, given_by,
			       strerror(errno));
	if (!d)
		return errno == ENOENT ? BF_OK :
		       bf_fail(detail, detail_len, BF_ERR_IO, "%s: %s", dir,
			       strerror(errno));
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 5 && strcmp(de->d_name + l - 5, ".json") == 0) {
			names = bf_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = bf_xasprintf("%s/%s", dir, de->d_name);
		}
	}
	closedir(d);
	if (n > 0) /* qsort(NULL, 0, ...) is undefined behaviour */
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && err == BF_OK; i++) {
		/* An inventory is a few KiB; 1 MiB bounds a wrong file. */
		char *text = read_file(names[i], 1 << 20);

		if (!text)
			err = bf_fail(detail, detail_len, BF_ERR_IO, "%s: %s",
				      names[i], strerror(errno));
		else
			err = inventory_parse(text, names[i], inv, detail,
					      detail_len);
		free(text);
	}
	for (int g = 0; err == BF_OK && g < inv->ngroups; g++)
		for (int k = 0; !inv->groups[g].slurm &&
				k < inv->groups[g].nmembers; k++)
			if (!inventory_host(inv, inv->groups[g].members[k]) &&
			    strcmp(inv->groups[g].members[k], "local") != 0) {
				err = bf_fail(detail, detail_len, BF_ERR_USAGE,
					      "%s: group %s names unknown "
					      "host %s", inv->groups[g].file,
					      inv->groups[g].name,
					      inv->groups[g].members[k]);
				break;
			}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

void inventory_free(struct inventory *inv)
{
	for (int i = 0; i < inv->nhosts; i++) {
		struct inv_host *h = &inv->hosts[i];

		free(h->name);
		free(h->ssh);
		free(h->workdir);
		free(h->description);
		for (int k = 0; k < h->npath; k++)
			free(h->path_prepend[k]);
		for (int k = 0; k < h->nenv; k++) {
			free(h->env_name[k]);
			free(h->env_value[k]);
		}
	}
	for (int i = 0; i < inv->ngroups; i++) {
		for (int k = 0; k < inv->groups[i].nmembers; k++)
			free(inv->groups[i].members[k]);
		free(inv->groups[i].members);
		free(inv->groups[i].name);
		free(inv->groups[i].file);
		if (inv->groups[i].slurm) {
			struct inv_slurm *sl = inv->groups[i].slurm;

			free(sl->login);
			free(sl->partition);
			free(sl->gres);
			free(sl->time);
			free(sl->account);
			free(sl->nodelist);
			free(sl->only_nodes);
			free(sl->workdir);
			free(sl->target);
			free(sl);
		}
	}
	free(inv->hosts);
	free(inv->groups);
	memset(inv, 0, sizeof(*inv));
}

/* One host's agent arguments: ctl's options, then the host's inventory
 * defaults (or its cluster's), checked as a whole. */
static char **host_agent_argv(const struct bf_agent_optset *given,
			      const struct inv_host *inv,
			      const struct inv_group *cluster, char *detail,
			      size_t detail_len)
{
	struct bf_agent_optset set = *given;
	char why[256];

	if (inv)
		bf_agent_optset_merge(&set, &inv->defaults);
	if (cluster)
		bf_agent_optset_merge(&set, &cluster->slurm->defaults);
	/* The agent stops when ctl or its connection goes away. */
	set.given |= 1u << BF_AF_EXIT_ON_HANGUP;
	if (bf_agent_optset_validate(&set, why, sizeof(why)) != BF_OK) {
		bf_fail(detail, detail_len, BF_ERR_USAGE, "%s%s%s",
			inv ? inv->name : "", inv ? ": " : "", why);
		return NULL;
	}
	return bf_agent_optset_to_argv(&set);
}

char ***inventory_agent_argvs(const struct inventory *inv,
			      const struct bf_agent_optset *given, int nhosts,
			      const char *const *names, char *detail,
			      size_t detail_len)
{
	char ***argvs = bf_xcalloc((size_t)nhosts + 1, sizeof(*argvs));

	for (int i = 0; i < nhosts; i++) {
		int rank;

		argvs[i] = host_agent_argv(given, inventory_host(inv, names[i]),
					   inventory_slurm_rank(inv, names[i],
								&rank),
					   detail, detail_len);
		if (!argvs[i]) {
			for (int k = 0; k < i; k++)
				bf_xfree_strv(argvs[k]);
			free(argvs);
			return NULL;
		}
	}
	return argvs;
}
