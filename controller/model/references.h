/*
 * Reference files (docs/verdict.md, docs/references.schema.json): the
 * published GEMM measurements and the verdict's thresholds, as data ctl
 * reads (share/benchfleet/references.json, installed with ctl; then
 * hosts/references/ *.json of the inventory; then
 * $XDG_CONFIG_HOME/benchfleet/references/ *.json). This module parses a
 * file's text and builds the ranges verdict.h judges by; the files are
 * found and read by archive/reffiles.c.
 *
 * A file is one JSON object:
 *   { "schema": "benchfleet-references/1",
 *     "mode": "replace" | "add",     optional; "replace" by default
 *     "sources": { ID: { "tool", "link", "date", "note" } },
 *     "references": [ { "product", "dtype", "n", "tflops", "source",
 *                       "samples"?: [tflops...] } ],
 *       (or "best_over_sizes": true for n: listed, never matched)
 *     "thresholds": [ { "product"?, "dtype"?, "peer_fraction"?,
 *                       "min_peers"?, "reference_tolerance"?,
 *                       "history_fraction"?, "history_sigmas"?,
 *                       "history_min_runs"? } ] }
 * Rows of one product, dtype and n form a range (lowest to highest
 * figure, a row with samples contributing its lowest and highest); a
 * later file's rows for a key replace the earlier files' rows for it
 * ("replace"), or join them ("add"). Thresholds of later files are
 * applied after earlier ones.
 */
#ifndef BF_REFERENCES_H
#define BF_REFERENCES_H

#include <stddef.h>

#include "bf_error.h"
#include "model/verdict.h"
#include "record.h"

#define REFERENCES_SCHEMA "benchfleet-references/1"

/* One figure: a source's measurement. Strings owned by the set. */
struct ref_row {
	char *product, *dtype;
	int n;
	double low_gflops, high_gflops; /* one figure: equal */
	char *source;   /* the source's id */
	char *tool, *link, *date; /* from its sources entry; "" unknown */
	int file;       /* which parsed file (0-based) */
};

struct ref_set {
	struct ref_row *rows;
	int nrows, rows_cap;
	struct verdict_override *ov; /* strings owned */
	int nov;
	struct verdict_ref *ranges;  /* built by references_finish; strings
				      * point into rows and labels */
	int nranges;
	char **labels;               /* owned, one per range */
	int nfiles;
};

/* Parses one file's text (name for errors) into s, after the files
 * already in it. On error s is unchanged and "name: why" is in err:
 * BF_ERR_PARSE (not JSON, wrong schema, a row without product, dtype,
 * n 1..1048576, or a tflops above 0; an unknown dtype; a source id not
 * in sources). */
enum bf_err references_parse(struct ref_set *s, const char *text,
			     const char *name, char *err, size_t err_len);

struct cJSON;

/* As references_parse, from a parsed file (root not owned). */
enum bf_err references_parse_json(struct ref_set *s, const struct cJSON *root,
				  const char *name, char *err, size_t err_len);

/* Loads every reference file into s (zeroed first) and builds its
 * ranges: the shipped file (ctl_references_file; missing is no error:
 * *shipped_missing set, may be NULL), then hosts_dir/references/ *.json
 * (NULL: none), then the XDG folder's (ctl_config_references_dir), each
 * folder in name order. BF_OK, or the first file's error ("path: why",
 * BF_ERR_IO / BF_ERR_PARSE) with s freed. Blocks on file I/O. */
enum bf_err references_load(struct ref_set *s, const char *hosts_dir,
			    int *shipped_missing, char *err, size_t err_len);

/* Builds s->ranges from the rows (one per product, dtype and n, in order
 * of first appearance): low and high over the rows, nsources the
 * distinct sources, label "published GB10 results" (the product less a
 * leading "NVIDIA "), or "team reference RUN" when every source id
 * starts with "run:". Call after the last parse; may be called again. */
void references_finish(struct ref_set *s);

/* The rows behind range r (their sources, for docs and --json):
 * indexes into s->rows into idx (at most max); returns how many. */
int references_rows_of(const struct ref_set *s, const struct verdict_ref *r,
		       int *idx, int max);

void references_free(struct ref_set *s);

struct bf_rec_host;

/* The product of device ("cuda:K", "cpu") as the references name it:
 * the host record's GPU name of index K (cudaDeviceProp.name), or its
 * cpu_model; NULL when unknown. Points into h. */
const char *references_product(const struct bf_rec_host *h,
			       const char *device);

#endif
