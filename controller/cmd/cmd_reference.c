/*
 * ctl reference list [PRODUCT] | add RUN-ID [HOST]: the reference files
 * the verdict compares with (docs/verdict.md). list prints every range
 * ctl reads (the shipped file, hosts/references/, the XDG folder's) with
 * its sources; add turns a run the user trusts into a team reference:
 * one row per product, dtype and n of its passing GEMM records (of HOST
 * only, when given), the range from the lowest to the highest
 * per-iteration TFLOP/s of those records (reliable ones unless
 * --unreliable), the run's id, date, hosts and
 * agent kept as its source, written to hosts/references/run-RUN-ID.json
 * (or --to DIR).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "archive/archive_read.h"
#include "archive/paths.h"
#include "cmd/ctl.h"
#include "model/references.h"
#include "xmalloc.h"

static const char reference_usage[] =
	"usage: ctl reference list [PRODUCT] [--hosts-dir DIR]\n"
	"       ctl reference add RUN-ID [HOST] [--results DIR] [--hosts-dir DIR]\n"
	"                         [--to DIR] [--force] [--unreliable]\n"
	"\n"
	"The reference ranges the verdict compares each device with (see\n"
	"docs/verdict.md): the shipped file (data/references.json, installed as\n"
	"share/benchfleet/references.json), then hosts/references/*.json, then\n"
	"$XDG_CONFIG_HOME/benchfleet/references/*.json; a later file's rows for a\n"
	"product, dtype and n replace the earlier ones (\"mode\": \"add\" joins them).\n"
	"list: every range (lowest to highest figure, its sources; \"one source\n"
	"only\" where it has one), those whose product contains PRODUCT.\n"
	"add: a run you trust becomes a team reference: one row per product, dtype\n"
	"and n of its passing GEMM rows (of HOST only, when given), its range the\n"
	"lowest to highest per-iteration TFLOP/s, the run id, date, hosts and agent\n"
	"kept as its source; written to DIR/references/run-RUN-ID.json (DIR: the\n"
	"inventory, --hosts-dir, or --to DIR itself). --force replaces that file.\n"
	"Rows the agent marked unreliable (? in the tables) are left out unless\n"
	"--unreliable. --help: this text.\n"
	"\n"
	"Examples:\n"
	"  ctl reference list H100\n"
	"  ctl reference add 20261201T0435 node3\n"
	"\n"
	"Exit status: 0 done, 2 bad arguments, no such run, a run with no passing\n"
	"GEMM row or a bad reference file, 4 could not write (one line on stderr\n"
	"says why).\n";

static int list(const char *hosts, const char *filter)
{
	struct ref_set s;
	char err[512];
	int missing, shown = 0;

	if (references_load(&s, hosts, &missing, err, sizeof(err)) != BF_OK) {
		ctl_error("reference: %s", err);
		return BF_EXIT_USAGE;
	}
	if (missing)
		printf("note: %s: not found (no published references)\n",
		       ctl_references_file());
	for (int i = 0; i < s.nranges; i++) {
		const struct verdict_ref *r = &s.ranges[i];
		int idx[64], k;

		if (filter && !strstr(r->product, filter))
			continue;
		shown++;
		if (r->n > 0)
			printf("%s %s n=%d: %.4g-%.4g TFLOP/s, %s (%d source%s%s)\n",
			       r->product, r->dtype, r->n, r->low_gflops / 1000,
			       r->high_gflops / 1000, r->label, r->nsources,
			       r->nsources == 1 ? "" : "s",
			       r->nsources == 1 ? ": one source only" : "");
		else
			printf("%s %s best over sizes: %.4g TFLOP/s (listed, "
			       "never compared: not a result at one n)\n",
			       r->product, r->dtype, r->high_gflops / 1000);
		k = references_rows_of(&s, r, idx, 64);
		for (int j = 0; j < k; j++) {
			const struct ref_row *w = &s.rows[idx[j]];

			printf("  %s: %.4g", w->source, w->low_gflops / 1000);
			if (w->high_gflops > w->low_gflops)
				printf("-%.4g", w->high_gflops / 1000);
			printf(" TFLOP/s%s%s%s%s\n", *w->tool ? ", " : "",
			       w->tool, *w->link ? ", " : "", w->link);
		}
	}
	if (!shown)
		printf("no references%s%s\n", filter ? " for " : "",
		       filter ? filter : "");
	references_free(&s);
	return BF_EXIT_OK;
}

/* One product, dtype and n of the run: every passing iteration's
 * TFLOP/s. */
struct group {
	const char *product, *dtype;
	int n;
	double lo, hi;
	double *med; /* the records' medians, TFLOP/s */
	int nmed;
};

static double median_of(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void add_gemm(struct group **gs, int *ng, const char *product,
		     const struct bf_rec_gemm *g)
{
	struct group *x = NULL;
	double flop = 2.0 * g->n * (double)g->n * g->n;

	for (int i = 0; i < *ng && !x; i++)
		if ((*gs)[i].n == g->n && strcmp((*gs)[i].product, product) == 0 &&
		    strcmp((*gs)[i].dtype, g->dtype) == 0)
			x = &(*gs)[i];
	if (!x) {
		*gs = bf_xrealloc(*gs, sizeof(**gs) * (size_t)(*ng + 1));
		x = &(*gs)[(*ng)++];
		memset(x, 0, sizeof(*x));
		x->product = product;
		x->dtype = g->dtype;
		x->n = g->n;
		x->lo = INFINITY;
		x->hi = 0;
	}
	for (int i = 0; i < g->nsamples; i++) {
		double tf = flop / (g->samples_ms[i] * 1e-3) / 1e12;

		if (tf < x->lo)
			x->lo = tf;
		if (tf > x->hi)
			x->hi = tf;
	}
	x->med = bf_xrealloc(x->med, sizeof(double) * (size_t)(x->nmed + 1));
	x->med[x->nmed++] = g->gflops / 1000;
}

static int add(const char *results, const char *hosts, const char *to,
	       int force, int unreliable, const char *id_arg,
	       const char *host)
{
	char detail[512], *id = NULL, *dir = NULL, *out_dir, *path, *text;
	struct archive_run *run = NULL;
	struct group *gs = NULL;
	int ng = 0, nhost = 0, rc = BF_EXIT_OK;
	cJSON *doc, *srcs, *src, *refs, *names;
	char *agent = NULL;
	FILE *f;
	struct stat st;

	if (archive_find_run(results, id_arg, &id, detail, sizeof(detail)) !=
	    BF_OK) {
		ctl_error("reference: %s", detail);
		return BF_EXIT_USAGE;
	}
	dir = bf_xasprintf("%s/%s", results, id);
	if (archive_load_run(dir, &run, detail, sizeof(detail)) != BF_OK) {
		ctl_error("reference: %s", detail);
		free(dir);
		free(id);
		return BF_EXIT_USAGE;
	}
	names = cJSON_CreateArray();
	for (int i = 0; i < run->nhosts; i++) {
		const struct archive_host *h = &run->hosts[i];
		int took = 0;

		if (host && strcmp(h->name, host) != 0)
			continue;
		nhost++;
		for (int k = 0; k < h->nrecords; k++) {
			const struct bf_rec_gemm *g = &h->records[k].u.gemm;
			const char *p;

			if (h->records[k].type != BF_REC_GEMM ||
			    g->status != BF_STATUS_PASS || !g->measured ||
			    g->nsamples < 1 || !(g->gflops > 0) ||
			    (g->reliable == 0 && !unreliable))
				continue;
			p = references_product(h->host_record, g->device);
			if (!p)
				continue;
			add_gemm(&gs, &ng, p, g);
			took = 1;
		}
		if (took) {
			cJSON_AddItemToArray(names, cJSON_CreateString(h->name));
			if (!agent && h->host_record &&
			    h->host_record->agent_version)
				agent = bf_xasprintf(
					"benchfleet agent %s (sources %s)",
					h->host_record->agent_version,
					h->host_record->agent_source_hash ?
						h->host_record->agent_source_hash :
						"unknown");
		}
	}
	if (host && !nhost) {
		ctl_error("reference: %s: no host '%s' in run %s", id_arg, host, id);
		rc = BF_EXIT_USAGE;
	} else if (!ng) {
		ctl_error("reference: run %s: no passing%s GEMM row of a known "
			  "product%s%s",
			  id, unreliable ? "" : ", reliable", host ? " on " : "",
			  host ? host : "");
		rc = BF_EXIT_USAGE;
	}
	if (rc != BF_EXIT_OK) {
		cJSON_Delete(names);
		goto done;
	}
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", REFERENCES_SCHEMA);
	srcs = cJSON_AddObjectToObject(doc, "sources");
	{
		char *sid = bf_xasprintf("run:%s", id);

		src = cJSON_AddObjectToObject(srcs, sid);
		free(sid);
	}
	cJSON_AddStringToObject(src, "tool", agent ? agent : "benchfleet agent");
	cJSON_AddStringToObject(src, "link", run->dir);
	cJSON_AddStringToObject(src, "date", run->started_at);
	cJSON_AddItemToObject(src, "hosts", names);
	cJSON_AddStringToObject(src, "note",
				"team reference made by ctl reference add: the "
				"range is the lowest to highest per-iteration "
				"TFLOP/s of the run's passing, reliable rows");
	refs = cJSON_AddArrayToObject(doc, "references");
	for (int i = 0; i < ng; i++) {
		cJSON *r = cJSON_CreateObject(), *sm;
		char *sid = bf_xasprintf("run:%s", id);

		cJSON_AddStringToObject(r, "product", gs[i].product);
		cJSON_AddStringToObject(r, "dtype", gs[i].dtype);
		cJSON_AddNumberToObject(r, "n", gs[i].n);
		cJSON_AddNumberToObject(r, "tflops",
					median_of(gs[i].med, gs[i].nmed));
		sm = cJSON_AddArrayToObject(r, "samples");
		cJSON_AddItemToArray(sm, cJSON_CreateNumber(gs[i].lo));
		cJSON_AddItemToArray(sm, cJSON_CreateNumber(gs[i].hi));
		cJSON_AddStringToObject(r, "source", sid);
		free(sid);
		cJSON_AddItemToArray(refs, r);
	}
	text = cJSON_Print(doc);
	cJSON_Delete(doc);
	out_dir = to ? bf_xstrdup(to) : bf_xasprintf("%s/references", hosts);
	if (!to && mkdir(out_dir, 0755) != 0 && errno != EEXIST) {
		ctl_error("reference: %s: %s", out_dir, strerror(errno));
		rc = BF_EXIT_INTERNAL;
	}
	path = bf_xasprintf("%s/run-%s.json", out_dir, id);
	if (rc == BF_EXIT_OK && !force && lstat(path, &st) == 0) {
		ctl_error("reference: %s: exists (--force replaces it)", path);
		rc = BF_EXIT_USAGE;
	}
	if (rc == BF_EXIT_OK) {
		f = fopen(path, "w");
		if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0 ||
		    fclose(f) != 0) {
			ctl_error("reference: %s: %s", path,
				  strerror(errno ? errno : EIO));
			rc = BF_EXIT_INTERNAL;
		} else {
			printf("wrote %s: %d reference%s from run %s\n", path, ng,
			       ng == 1 ? "" : "s", id);
		}
	}
	free(text);
	free(out_dir);
	free(path);
done:
	for (int i = 0; i < ng; i++)
		free(gs[i].med);
	free(gs);
	free(agent);
	archive_run_free(run);
	free(dir);
	free(id);
	return rc;
}

enum { O_RESULTS, O_HOSTS, O_TO, O_FORCE, O_UNRELIABLE };
static const struct ctl_opt reference_opts[] = {
	[O_RESULTS] = { "results", 0, CTL_OPT_VALUE },
	[O_HOSTS] = { "hosts-dir", 0, CTL_OPT_VALUE },
	[O_TO] = { "to", 0, CTL_OPT_VALUE },
	[O_FORCE] = { "force", 0, CTL_OPT_FLAG },
	[O_UNRELIABLE] = { "unreliable", 0, CTL_OPT_FLAG },
};

static int reference_exec(const struct ctl_args *a)
{
	const char *results = NULL, *hosts = NULL, *to = NULL;
	const char *sub = a->npos ? a->pos[0] : NULL;
	int force = ctl_args_count(a, O_FORCE) > 0;
	int unreliable = ctl_args_count(a, O_UNRELIABLE) > 0;
	int nargs = a->npos;

	if (ctl_args_dir(a, O_RESULTS, &results) ||
	    ctl_args_dir(a, O_HOSTS, &hosts) || ctl_args_dir(a, O_TO, &to))
		return BF_EXIT_USAGE;
	hosts = ctl_hosts_dir(hosts, NULL);
	if (sub && strcmp(sub, "list") == 0 && nargs <= 2)
		return list(hosts, nargs == 2 ? a->pos[1] : NULL);
	if (sub && strcmp(sub, "add") == 0 && (nargs == 2 || nargs == 3))
		return add(ctl_results_dir(results), hosts, to, force, unreliable,
			   a->pos[1], nargs == 3 ? a->pos[2] : NULL);
	ctl_error("reference: want 'list [PRODUCT]' or 'add RUN-ID [HOST]' "
		  "(see ctl reference --help)");
	return BF_EXIT_USAGE;
}

const struct ctl_command cmd_reference_entry = {
	.name = "reference",
	.summary = "list the reference ranges the verdict uses; make a team reference from a run",
	.args = { CTL_OPTS(reference_opts), .usage = reference_usage },
	.exec = reference_exec,
};
