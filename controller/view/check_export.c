/* ctl check's Prometheus and NFD files; see check_export.h. */
#include "view/check_export.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

/* A label value as the exposition format quotes it: \ " and newline
 * escaped; other bytes as they are (the format is UTF-8; a byte that is
 * not printable ASCII becomes '?', so that the file is ASCII). */
static void label(FILE *f, const char *name, const char *value, int first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (const unsigned char *p = (const unsigned char *)(value ? value : "");
	     *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '"')
			fputs("\\\"", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p >= 0x20 && *p <= 0x7e ? *p : '?', f);
	}
	fputc('"', f);
}

static void row_labels(FILE *f, const struct archive_run *run,
		       const struct verdict_run *vr, int i)
{
	char n[16];

	snprintf(n, sizeof(n), "%d", vr->in[i].n);
	fputc('{', f);
	label(f, "host", run->hosts[vr->host[i]].name, 1);
	label(f, "device", vr->in[i].device, 0);
	label(f, "dtype", vr->in[i].dtype, 0);
	label(f, "n", n, 0);
}

static void help(FILE *f, const char *name, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, text, name);
}

/* One metric of every judged row: which 0 gflops (FLOP/s), 1 peer ratio,
 * 2 reference ratio. Rows without the figure are left out. */
static void row_metric(FILE *f, const struct archive_run *run,
		       const struct verdict_run *vr, int which)
{
	for (int i = 0; i < vr->n; i++) {
		const struct verdict *v = &vr->out[i];
		double x = which == 0 ? vr->in[i].gflops * 1e9 :
			   which == 1 ? (v->npeers ? v->peer_ratio : NAN) :
			   (v->has_ref ? v->ref_ratio_high : NAN);

		if (v->kind == VERDICT_NONE || !isfinite(x))
			continue;
		fprintf(f, "benchfleet_check_%s",
			which == 0 ? "gemm_flops" :
			which == 1 ? "peer_ratio" : "reference_ratio");
		row_labels(f, run, vr, i);
		fprintf(f, "} %.17g\n", x);
	}
}

static enum check_kind host_kind(const struct check_result *res, int nres,
				 int host)
{
	enum check_kind k = CHECK_OK;
	int any = 0;

	for (int i = 0; i < nres; i++)
		if (res[i].host == host) {
			any = 1;
			if (res[i].kind > k)
				k = res[i].kind;
		}
	return any ? k : CHECK_UNKNOWN;
}

int check_export_prometheus(FILE *f, const struct archive_run *run,
			    const struct verdict_run *vr,
			    const struct check_result *res, int nres, double now)
{
	static const enum verdict_kind kinds[] = {
		VERDICT_OK, VERDICT_SLOW, VERDICT_FAILED, VERDICT_UNKNOWN
	};
	static const enum check_kind ckinds[] = {
		CHECK_OK, CHECK_SLOW, CHECK_FAILED, CHECK_UNKNOWN
	};

	help(f, "benchfleet_check_gemm_flops",
	     "Median GEMM throughput of the check in FLOP/s.");
	row_metric(f, run, vr, 0);
	help(f, "benchfleet_check_peer_ratio",
	     "GEMM throughput over the median of the device's peers.");
	row_metric(f, run, vr, 1);
	help(f, "benchfleet_check_reference_ratio",
	     "GEMM throughput over the top of the published reference range.");
	row_metric(f, run, vr, 2);
	help(f, "benchfleet_check_verdict",
	     "1 for the GEMM row's verdict (ok, slow, failed, unknown), else 0.");
	for (int i = 0; i < vr->n; i++) {
		if (vr->out[i].kind == VERDICT_NONE)
			continue;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			fprintf(f, "benchfleet_check_verdict");
			row_labels(f, run, vr, i);
			label(f, "verdict", verdict_kind_name(kinds[k]), 0);
			fprintf(f, "} %d\n", vr->out[i].kind == kinds[k]);
		}
	}
	help(f, "benchfleet_check_bandwidth_bytes_per_second",
	     "Median memory bandwidth of the check in bytes per second.");
	for (int h = 0; h < run->nhosts; h++)
		for (int k = 0; k < run->hosts[h].nrecords; k++) {
			const struct bf_record *r = &run->hosts[h].records[k];

			if (r->type != BF_REC_BANDWIDTH ||
			    r->u.bandwidth.status != BF_STATUS_PASS ||
			    !isfinite(r->u.bandwidth.median_gbps))
				continue;
			fputs("benchfleet_check_bandwidth_bytes_per_second{", f);
			label(f, "host", run->hosts[h].name, 1);
			label(f, "device", r->u.bandwidth.device, 0);
			label(f, "kind", r->u.bandwidth.kind, 0);
			fprintf(f, "} %.17g\n", r->u.bandwidth.median_gbps * 1e9);
		}
	help(f, "benchfleet_check_status",
	     "1 for the host's check result (ok, slow, failed, unknown), else 0.");
	for (int h = 0; h < run->nhosts; h++) {
		enum check_kind hk = host_kind(res, nres, h);

		for (size_t k = 0; k < sizeof(ckinds) / sizeof(ckinds[0]); k++) {
			fputs("benchfleet_check_status{", f);
			label(f, "host", run->hosts[h].name, 1);
			label(f, "status", check_kind_name(ckinds[k]), 0);
			fprintf(f, "} %d\n", hk == ckinds[k]);
		}
	}
	help(f, "benchfleet_check_timestamp_seconds",
	     "When the check's results were written, Unix time in seconds.");
	for (int h = 0; h < run->nhosts; h++) {
		fputs("benchfleet_check_timestamp_seconds{", f);
		label(f, "host", run->hosts[h].name, 1);
		fprintf(f, "} %.3f\n", now);
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

char *check_label_value(char *buf, const char *s)
{
	size_t n = 0, start = 0;

	for (const char *p = s ? s : ""; *p && n < 63; p++) {
		unsigned char c = (unsigned char)*p;

		buf[n++] = (char)(isalnum(c) && c < 0x80 ? c :
				  c == '.' || c == '_' || c == '-' ? c : '-');
	}
	while (n > 0 && !isalnum((unsigned char)buf[n - 1]))
		n--;
	while (start < n && !isalnum((unsigned char)buf[start]))
		start++;
	memmove(buf, buf + start, n - start);
	n -= start;
	buf[n] = '\0';
	if (n == 0)
		memcpy(buf, "unknown", sizeof("unknown"));
	return buf;
}

/* "cuda" of "cuda:0"; the whole name when it has no colon. */
static size_t class_len(const char *device)
{
	const char *colon = strchr(device, ':');

	return colon ? (size_t)(colon - device) : strlen(device);
}

int check_export_nfd(FILE *f, const struct archive_run *run,
		     const struct verdict_run *vr, const struct check_result *res,
		     int nres, int host)
{
	char a[64], b[64], v[64];

	fprintf(f, "# benchfleet check (ctl check; docs/kubernetes.md)\n");
	fprintf(f, "benchfleet-verdict=%s\n",
		check_kind_name(host_kind(res, nres, host)));
	fprintf(f, "benchfleet-run=%s\n", check_label_value(v, run->run_id));
	for (int i = 0; i < vr->n; i++) {
		enum check_kind worst = CHECK_OK;
		double slowest = INFINITY;
		size_t cl;
		int seen = 0;
		char cls[64];

		if (vr->host[i] != host || vr->out[i].kind == VERDICT_NONE)
			continue;
		cl = class_len(vr->in[i].device);
		/* fits: a record's device matches docs/schema.json's
		 * ^(cpu|cuda:[0-9]+)$ (bf_schema_parse_record): cl is 3 or 4 */
		snprintf(cls, sizeof(cls), "%.*s", (int)(cl < 63 ? cl : 63),
			 vr->in[i].device);
		/* Each class and dtype once: the first row of it. */
		for (int j = 0; j < i && !seen; j++)
			seen = vr->host[j] == host &&
			       vr->out[j].kind != VERDICT_NONE &&
			       class_len(vr->in[j].device) == cl &&
			       strncmp(vr->in[j].device, cls, cl) == 0 &&
			       strcmp(vr->in[j].dtype, vr->in[i].dtype) == 0;
		if (seen)
			continue;
		for (int j = i; j < vr->n; j++) {
			const struct verdict *o = &vr->out[j];
			enum check_kind k;

			if (vr->host[j] != host || o->kind == VERDICT_NONE ||
			    class_len(vr->in[j].device) != cl ||
			    strncmp(vr->in[j].device, cls, cl) != 0 ||
			    strcmp(vr->in[j].dtype, vr->in[i].dtype) != 0)
				continue;
			k = o->kind == VERDICT_OK ? CHECK_OK :
			    o->kind == VERDICT_FAILED ? CHECK_FAILED :
			    o->kind == VERDICT_SLOW && !o->uncertain ? CHECK_SLOW :
								      CHECK_UNKNOWN;
			if (k > worst)
				worst = k;
			if (isfinite(vr->in[j].gflops) && vr->in[j].gflops < slowest)
				slowest = vr->in[j].gflops;
		}
		/* The name's part after the prefix stays within 63
		 * characters: "benchfleet-" 11, "-verdict" 8, 20 + 1 + 20. */
		/* fits: cls is "cpu" or "cuda" (above), never cut: a key */
		snprintf(v, 21, "%.20s", cls);
		check_label_value(a, v);
		/* fits: a dtype name of the schema's enum, 5 bytes at most */
		snprintf(v, 21, "%.20s", vr->in[i].dtype);
		check_label_value(b, v);
		fprintf(f, "benchfleet-%s-%s-verdict=%s\n", a, b,
			check_kind_name(worst));
		/* Fixed notation: an exponent's '+' is no label value. */
		if (isfinite(slowest))
			fprintf(f, "benchfleet-%s-%s-tflops=%.*f\n", a, b,
				slowest >= 100e3 ? 0 : slowest >= 10e3 ? 1 : 3,
				slowest / 1000);
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
