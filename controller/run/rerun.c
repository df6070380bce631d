/*
 * ctl run --rerun-failed RUN-ID: the command line of a new run made of the
 * old run's options, this command line's options, and the old run's hosts
 * that did not complete (see rerun.h). cmd_run.c runs it.
 */
#include "run/rerun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent_opts.h"
#include "archive/archive.h"
#include "archive/archive_read.h"
#include "base/cli.h"
#include "xmalloc.h"

/* Reads the run.json of the run of results_dir that arg names (its id in
 * full or by a unique prefix, as ctl show takes it), its id into *id.
 * Caller frees both (cJSON_Delete, free); NULL with a message printed. */
static cJSON *read_run_json(const char *results_dir, const char *arg,
			    char **id)
{
	char detail[512], *path = NULL, *text = NULL;
	size_t len = 0;
	cJSON *doc = NULL;
	FILE *f;

	if (archive_find_run(results_dir, arg, id, detail, sizeof(detail)) !=
	    BF_OK) {
		ctl_error("--rerun-failed: %s", detail);
		return NULL;
	}
	path = bf_xasprintf("%s/%s/run.json", results_dir, *id);
	f = fopen(path, "rb");
	if (!f) {
		ctl_error("--rerun-failed %s: %s: %s", *id, path,
			  strerror(errno));
		goto out;
	}
	text = bf_xmalloc(1 << 22);
	len = fread(text, 1, (1 << 22) - 1, f);
	fclose(f);
	text[len] = '\0';
	doc = cJSON_ParseWithOpts(text, NULL, 1);
	if (!cJSON_IsObject(doc) ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_COMMAND_LINE)) ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS))) {
		ctl_error("--rerun-failed %s: %s: not a run.json", *id, path);
		cJSON_Delete(doc);
		doc = NULL;
	}
out:
	if (!doc) {
		free(*id);
		*id = NULL;
	}
	free(text);
	free(path);
	return doc;
}

/* The options of a command line, as ctl_args_parse gives them. */
struct given {
	int *codes;       /* each option's index in the table, in order */
	int n;
	unsigned fields;  /* agent fields the options set or replace
			   * (bf_agent_field_replaces) */
};

/* The agent field that option opt of a sets, or -1 when it is ctl's
 * own (or short only, -F). */
static int agent_field(const struct ctl_args *a, int opt)
{
	const char *name = a->spec->opts[opt].name;
	const struct bf_agent_opt *o = name ? bf_agent_opt_find(name) : NULL;

	return o ? (int)o->field : -1;
}

/* Whether an option (opt, agent field f or -1) is one that g gives
 * again: the same option, or an agent option of a field g sets or
 * replaces (--size and --sizes are one setting; --no-bandwidth replaces
 * --bandwidth-mib). */
static int given_again(const struct given *g, int opt, int f)
{
	if (f >= 0 && (g->fields & (1u << f)))
		return 1;
	for (int i = 0; i < g->n; i++)
		if (g->codes[i] == opt)
			return 1;
	return 0;
}

/* The words of a's options (each with its value, as typed), appended to
 * out at *n: all but --rerun-failed (skip_opt) and those that `newer`
 * gives again. Each option copied is added to *seen (when not NULL). */
static void copy_options(const struct ctl_args *a, int skip_opt,
			 const struct given *newer, struct given *seen,
			 char **out, int *n)
{
	for (int k = 0; k < a->n; k++) {
		const struct ctl_arg *v = &a->v[k];
		int f;

		if (v->opt == CTL_ARG_POS || v->opt == skip_opt)
			continue;
		f = agent_field(a, v->opt);
		if (newer && given_again(newer, v->opt, f))
			continue;
		for (int i = v->first; i < v->end; i++)
			out[(*n)++] = a->argv[i];
		if (seen) {
			seen->codes[seen->n++] = v->opt;
			if (f >= 0)
				seen->fields |= bf_agent_field_replaces(f);
		}
	}
}

/* A name Slurm could have given a node (and "NAME:node,..." takes). */
static int plain_node_name(const char *s)
{
	return *s && s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "abcdefghijklmnopqrstuvwxyz0123456789._-")] == '\0';
}

/* The failed nodes of one Slurm cluster in the run being re-run. */
struct rerun_cluster {
	const char *name;
	char *nodes;   /* "node,node" */
	char *arg;     /* "NAME:node,node" */
	int slot;      /* its place among the new run's arguments */
	int whole;     /* a rank that never learnt its node failed */
};

void rerun_args_free(struct rerun_args *ra)
{
	for (int i = 0; i < ra->nfree; i++)
		free(ra->owned[i]);
	free(ra->owned);
	free(ra->argv);
	bf_xfree_strv(ra->old);
	free(ra->run_id);
	memset(ra, 0, sizeof(*ra));
}

int rerun_build(const struct ctl_args *a, const char *run_id,
		const char *results_dir, int rerun_opt, struct rerun_args *ra)
{
	struct ctl_args olda = { 0 };
	int argc = a->argc;
	cJSON *doc, *e;
	char **old = NULL, **nargv = NULL;
	struct rerun_cluster *cl = NULL;
	struct given now = { 0 };
	char **mine;
	int nold = 0, n = 0, nfailed = 0, ncl = 0, nmine = 0;

	memset(ra, 0, sizeof(*ra));
	doc = read_run_json(results_dir, run_id, &ra->run_id);
	if (!doc)
		return -1;
	old = bf_xcalloc((size_t)cJSON_GetArraySize(
				 cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_COMMAND_LINE)) + 2,
			 sizeof(*old));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_COMMAND_LINE))
		if (cJSON_IsString(e))
			old[nold++] = bf_xstrdup(e->valuestring);
	nargv = bf_xcalloc((size_t)(nold + argc +
			   cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS)) + 2),
			   sizeof(*nargv));
	/* per failed host at most: its name, its cluster's name and the
	 * cluster's node-list argument */
	ra->owned = bf_xcalloc(3 * (size_t)cJSON_GetArraySize(
					   cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS)) + 1,
			       sizeof(char *));
	/* This command line's options first, to know what they replace;
	 * then the old run's others go in front of them. */
	now.codes = bf_xcalloc((size_t)a->n + 1, sizeof(*now.codes));
	mine = bf_xcalloc((size_t)argc + 1, sizeof(*mine));
	copy_options(a, rerun_opt, NULL, &now, mine, &nmine);
	nargv[n++] = a->argv[0];
	/* The old run's command line by the same table (a run.json that
	 * ctl wrote parses; one edited so that it does not keeps none of
	 * its options, after the parser's line that says why). */
	if (nold > 0 && ctl_args_parse(a->command, a->spec, nold, old,
				       &olda) == CTL_ARGS_OK) {
		copy_options(&olda, rerun_opt, &now, NULL, nargv, &n);
		ctl_args_free(&olda);
	}
	for (int i = 0; i < nmine; i++)
		nargv[n++] = mine[i];
	free(mine);
	free(now.codes);
	cl = bf_xcalloc((size_t)cJSON_GetArraySize(
				cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS)) + 1,
			sizeof(*cl));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, BF_RUN_HOSTS)) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, BF_RUN_HOST_NAME);
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(e, BF_RUN_HOST_STATUS);
		const cJSON *tg = cJSON_GetObjectItemCaseSensitive(e, BF_RUN_HOST_TARGET);
		char *host;
		int dup = 0;

		if (!cJSON_IsString(name) || (cJSON_IsString(st) &&
		    strcmp(st->valuestring, BF_RUN_HOST_DONE) == 0))
			continue;
		host = ra->owned[ra->nfree++] = bf_xstrdup(name->valuestring);
		if (cJSON_IsString(tg) && strncmp(tg->valuestring, "slurm:", 6) == 0) {
			struct rerun_cluster *c = NULL;

			for (int i = 0; i < ncl && !c; i++)
				if (strcmp(cl[i].name, tg->valuestring + 6) == 0)
					c = &cl[i];
			if (!c) {
				/* Its argument takes this place, made below. */
				c = &cl[ncl++];
				c->name = ra->owned[ra->nfree++] =
					bf_xstrdup(tg->valuestring + 6);
				c->slot = n;
				nargv[n++] = (char *)c->name;
				nfailed++;
			}
			/* "NAME/3": the rank never learnt its node. */
			if (!plain_node_name(host)) {
				c->whole = 1;
			} else if (!c->whole) {
				char *more = bf_xasprintf("%s%s%s",
							  c->nodes ? c->nodes : "",
							  c->nodes ? "," : "", host);

				free(c->nodes);
				c->nodes = more;
			}
			continue;
		}
		for (int i = 0; i < nfailed; i++)
			dup |= strcmp(nargv[n - 1 - i], host) == 0;
		if (!dup) {
			nargv[n++] = host;
			nfailed++;
		}
	}
	for (int i = 0; i < ncl; i++) {
		if (cl[i].whole || !cl[i].nodes) {
			nargv[cl[i].slot] = (char *)cl[i].name;
			continue;
		}
		cl[i].arg = bf_xasprintf("%s:%s", cl[i].name, cl[i].nodes);
		nargv[cl[i].slot] = cl[i].arg;
		ra->owned[ra->nfree++] = cl[i].arg; /* freed with ra */
		cl[i].arg = NULL;
	}
	for (int i = 0; i < ncl; i++) {
		free(cl[i].nodes);
		free(cl[i].arg);
	}
	free(cl);
	cJSON_Delete(doc);
	ra->argv = nargv;
	ra->argc = nfailed ? n : 0;
	ra->old = old;
	return 0;
}
