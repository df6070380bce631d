/* The verdict as text; see verdict_text.h. */
#include "view/verdict_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "xmalloc.h"

static void rate(double gflops, char *buf, size_t len)
{
	double v = gflops >= 1000 ? gflops / 1000 : gflops;
	const char *unit = gflops >= 1000 ? "TFLOP/s" : "GFLOP/s";

	/* A figure of an archive's (1e300 is finite): a cut ends in "..." */
	if (!isfinite(gflops))
		snprintf(buf, len, "n/a");
	else if (v >= 100)
		bf_text_fmt(buf, len, "%.0f %s", v, unit);
	else if (v >= 10)
		bf_text_fmt(buf, len, "%.1f %s", v, unit);
	else
		bf_text_fmt(buf, len, "%.2f %s", v, unit);
}

static const char *shout(const struct verdict *v)
{
	switch (v->kind) {
	case VERDICT_SLOW: return v->uncertain ? "SLOW?" : "SLOW";
	case VERDICT_FAILED: return "FAILED";
	case VERDICT_OK: return v->uncertain ? "ok?" : "ok";
	case VERDICT_UNKNOWN: return "unknown";
	case VERDICT_NONE: break;
	}
	return "";
}

/* The device class of a device: "cuda" of "cuda:0", "cpu". */
static size_t class_len(const char *device)
{
	const char *colon = strchr(device, ':');

	return colon ? (size_t)(colon - device) : strlen(device);
}

static int has_measured(const struct verdict_run *vr, const char *device,
			size_t cl)
{
	for (int i = 0; i < vr->n; i++)
		if (vr->out[i].kind != VERDICT_NONE &&
		    strncmp(vr->in[i].device, device, cl) == 0 &&
		    class_len(vr->in[i].device) == cl)
			return 1;
	return 0;
}

/* One note per (device class, reason) of the skipped rows, naming the
 * hosts (and the dtypes, when the class was measured somewhere). */
static void skipped_notes(FILE *f, const struct archive_run *run,
			  const struct verdict_run *vr)
{
	int *done = bf_xcalloc((size_t)vr->n + 1, sizeof(int));

	for (int i = 0; i < vr->n; i++) {
		const struct verdict_input *a = &vr->in[i];
		size_t cl = class_len(a->device);
		const char *why = a->reason && *a->reason ? a->reason
							  : "no reason given";
		int measured = has_measured(vr, a->device, cl), first = 1;

		if (done[i] || vr->out[i].kind != VERDICT_NONE)
			continue;
		fprintf(f, "%.*s", (int)cl, a->device);
		if (measured) {
			/* the dtypes, each once */
			for (int j = i; j < vr->n; j++) {
				const struct verdict_input *b = &vr->in[j];
				int seen = 0;

				if (vr->out[j].kind != VERDICT_NONE ||
				    class_len(b->device) != cl ||
				    strncmp(b->device, a->device, cl) ||
				    strcmp(b->reason ? b->reason : "",
					   a->reason ? a->reason : ""))
					continue;
				for (int m = i; m < j && !seen; m++)
					seen = vr->out[m].kind == VERDICT_NONE &&
					       class_len(vr->in[m].device) == cl &&
					       !strncmp(vr->in[m].device,
							a->device, cl) &&
					       !strcmp(vr->in[m].reason ?
							       vr->in[m].reason :
							       "",
						       a->reason ? a->reason :
								   "") &&
					       !strcmp(vr->in[m].dtype, b->dtype);
				if (!seen)
					fprintf(f, "%s%s", first ? " " : ", ",
						b->dtype);
				first = 0;
			}
		}
		fprintf(f, ": %s on", why);
		first = 1;
		for (int h = 0; h < run->nhosts; h++) {
			int on = 0;

			for (int j = i; j < vr->n; j++) {
				const struct verdict_input *b = &vr->in[j];

				if (vr->out[j].kind != VERDICT_NONE ||
				    class_len(b->device) != cl ||
				    strncmp(b->device, a->device, cl) ||
				    strcmp(b->reason ? b->reason : "",
					   a->reason ? a->reason : ""))
					continue;
				done[j] = 1;
				on |= vr->host[j] == h;
			}
			if (on) {
				fprintf(f, "%s%s", first ? " " : ", ",
					run->hosts[h].name);
				first = 0;
			}
		}
		fputc('\n', f);
	}
	free(done);
}

void verdict_text_print(FILE *f, const struct archive_run *run,
			const struct verdict_run *vr,
			struct verdict_text_counts *c)
{
	struct verdict_text_counts local;
	int *idx = bf_xcalloc((size_t)vr->n + 1, sizeof(int));
	int *used = bf_xcalloc((size_t)vr->n + 1, sizeof(int));

	if (!c)
		c = &local;
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < vr->n; i++) {
		int k = 0, pick;
		const struct verdict *v;
		const struct verdict_input *in;
		char r[32];

		if (used[i])
			continue;
		for (int j = i; j < vr->n; j++)
			if (!used[j] && vr->host[j] == vr->host[i] &&
			    strcmp(vr->in[j].device, vr->in[i].device) == 0) {
				used[j] = 1;
				idx[k++] = j;
			}
		pick = verdict_device_pick(vr->out, idx, k);
		if (pick < 0)
			continue; /* every row skipped: a note below */
		v = &vr->out[pick];
		in = &vr->in[pick];
		c->devices++;
		c->kind[v->kind]++;
		if (v->kind == VERDICT_SLOW && !v->uncertain)
			c->slow_confident++;
		rate(in->gflops, r, sizeof(r));
		fprintf(f, "%s %s %s: %s n=%d %s", in->host, in->device,
			shout(v), in->dtype, in->n, r);
		if (v->reasons[0])
			fprintf(f, ", %s", v->reasons);
		if (v->kind == VERDICT_UNKNOWN && v->missing[0])
			fprintf(f, "%s%s", v->reasons[0] ? "; " : ", ",
				v->missing);
		if (k > 1) {
			int others[VERDICT_FAILED + 1] = { 0 };

			for (int j = 0; j < k; j++)
				if (idx[j] != pick)
					others[vr->out[idx[j]].kind]++;
			fprintf(f, " (other rows:");
			for (int t = VERDICT_FAILED, first = 1; t > VERDICT_NONE;
			     t--)
				if (others[t]) {
					fprintf(f, "%s %d %s", first ? "" : ",",
						others[t],
						verdict_kind_name(
							(enum verdict_kind)t));
					first = 0;
				}
			if (others[VERDICT_NONE])
				fprintf(f, "%s%d skipped",
					k - 1 > others[VERDICT_NONE] ? ", " : " ",
					others[VERDICT_NONE]);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	skipped_notes(f, run, vr);
	if (c->devices) {
		fprintf(f, "verdict: %d device%s:", c->devices,
			c->devices == 1 ? "" : "s");
		for (int t = VERDICT_OK, first = 1; t <= VERDICT_FAILED; t++)
			if (c->kind[t]) {
				fprintf(f, "%s %d %s", first ? "" : ",",
					c->kind[t],
					verdict_kind_name((enum verdict_kind)t));
				first = 0;
			}
		fputc('\n', f);
	}
	if (vr->refs_missing)
		fprintf(f, "note: no published references (the reference "
			   "file was not found)\n");
	free(idx);
	free(used);
}
