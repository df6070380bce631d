/*
 * The rated peak and the bound of a device (peak.h), from the probe and
 * the tables (peak_probe.c, peak_cpu_table.c, peak_gpu_table.c).
 */
#include "hardware/peak.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"

static void peak_clear(struct peak *out)
{
	memset(out, 0, sizeof(*out));
	out->gflops = out->bound_gflops = NAN;
}

static void peak_unknown(struct peak *out, const char *why)
{
	out->gflops = out->bound_gflops = NAN;
	snprintf(out->basis, sizeof(out->basis), "%s", why);
	snprintf(out->bound_basis, sizeof(out->bound_basis), "%s", why);
}

/* --- CPU ---------------------------------------------------------------- */

static void cluster_clock(struct cpu_peak_cluster *c)
{
	double cpufreq =
		c->topo.max_khz > 0 ? (double)c->topo.max_khz / 1e6 : NAN;
	double measured = c->probe.clock_ghz;
	double mhz = c->topo.cpuinfo_mhz > 0 ? c->topo.cpuinfo_mhz / 1000 : NAN;

	c->clock_ghz = NAN;
	c->clock_source[0] = '\0';
	if (cpufreq > 0) {
		c->clock_ghz = cpufreq;
		snprintf(c->clock_source, sizeof(c->clock_source),
			 "cpufreq max");
	}
	/* A VM often has no cpufreq, or reports the nominal clock while the
	 * core turbos above it: the measurement wins when it is higher. */
	if (measured > 0 && !(c->clock_ghz >= measured)) {
		c->clock_ghz = measured;
		snprintf(c->clock_source, sizeof(c->clock_source), "measured");
	}
	/* A measurement on a loaded machine reads low; cpu MHz (the nominal
	 * clock in a VM) is the floor. */
	if (mhz > 0 && !(c->clock_ghz >= mhz)) {
		c->clock_ghz = mhz;
		snprintf(c->clock_source, sizeof(c->clock_source),
			 "/proc/cpuinfo cpu MHz");
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "2x Zen 4", "10x Cortex-A725 + 10x Cortex-X925": cores summed per
 * microarchitecture name, names sorted; "" when one is unknown. */
static void model_product(struct cpu_peak_model *m)
{
	const char *names[CPU_CLUSTERS_MAX];
	int n = 0;

	m->product[0] = '\0';
	for (int k = 0; k < m->nclusters; k++) {
		int seen = 0;

		if (!m->c[k].uarch)
			return;
		for (int i = 0; i < n; i++)
			seen |= strcmp(names[i], m->c[k].uarch->name) == 0;
		if (!seen)
			names[n++] = m->c[k].uarch->name;
	}
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	for (int i = 0; i < n; i++) {
		int cores = 0;

		for (int k = 0; k < m->nclusters; k++)
			if (strcmp(m->c[k].uarch->name, names[i]) == 0)
				cores += m->c[k].topo.cores;
		bf_text_appendf(m->product, sizeof(m->product), "%s%dx %s",
				i ? " + " : "", cores, names[i]);
	}
}

static void probe_none(struct peak_probe_result *r)
{
	memset(r, 0, sizeof(*r));
	r->clock_ghz = NAN;
	r->fp32.flop_per_cycle = r->fp32.flop_per_instr = NAN;
	r->bf16.flop_per_cycle = r->bf16.flop_per_instr = NAN;
	r->fp16.flop_per_cycle = r->fp16.flop_per_instr = NAN;
	r->elapsed_ms = NAN;
}

void peak_cpu_model_init(const struct cpu_layout *l, struct cpu_peak_model *m)
{
	memset(m, 0, sizeof(*m));
	m->nclusters = l->nclusters;
	for (int k = 0; k < l->nclusters; k++) {
		struct cpu_peak_cluster *c = &m->c[k];

		c->topo = l->c[k];
		c->uarch = cpu_uarch_find(&c->topo.id);
		probe_none(&c->probe);
		snprintf(c->probe_why, sizeof(c->probe_why), "not probed");
		cluster_clock(c);
	}
	model_product(m);
}

void peak_cpu_model_set_probe(struct cpu_peak_model *m, int k,
			      const struct peak_probe_result *r,
			      const char *why)
{
	struct cpu_peak_cluster *c;

	if (k < 0 || k >= m->nclusters)
		return;
	c = &m->c[k];
	if (r) {
		c->probe = *r;
		c->probe_why[0] = '\0';
	} else {
		probe_none(&c->probe);
		snprintf(c->probe_why, sizeof(c->probe_why), "%s",
			 why ? why : "not probed");
	}
	cluster_clock(c);
}

void peak_cpu_probe(struct cpu_peak_model *m)
{
	int *cpus = calloc(CPU_SETSIZE, sizeof(*cpus));
	int ncpus = cpus ? cpu_affinity_list(cpus, CPU_SETSIZE) : 0;
	struct cpu_layout layout;

	if (cpu_layout_read("", ncpus > 0 ? cpus : NULL, ncpus, &layout) != 0)
		memset(&layout, 0, sizeof(layout));
	free(cpus);
	peak_cpu_model_init(&layout, m);
	for (int k = 0; k < m->nclusters; k++) {
		struct peak_probe_result r;
		char why[96] = "";

		if (peak_probe_run(m->nclusters > 1 ? m->c[k].topo.cpu : -1, &r,
				   why, sizeof(why)) == BF_OK)
			peak_cpu_model_set_probe(m, k, &r, NULL);
		else
			peak_cpu_model_set_probe(m, k, NULL, why);
		if (r.elapsed_ms > 0)
			m->probe_ms += r.elapsed_ms;
	}
}

/* The features that give a CPU native instructions for dtype. */
static unsigned dtype_features(enum bf_dtype dtype)
{
	if (dtype == BF_DTYPE_BF16)
		return CPU_FEAT_AVX512_BF16 | CPU_FEAT_AMX_BF16 | CPU_FEAT_BF16;
	if (dtype == BF_DTYPE_FP16)
		return CPU_FEAT_AVX512_FP16 | CPU_FEAT_AMX_FP16 |
		       CPU_FEAT_ASIMDHP;
	return 0;
}

/* No table row, no probe: SIMD width x 2 FMA pipes x 2 FLOP on x86 (4
 * pipes of 128 bits on AArch64, the most of today's Cortex-X and
 * Neoverse V cores), times 2 for 16-bit instructions (4 for BFMMLA): the
 * figure of the old model, an upper estimate. */
static double isa_estimate(const struct cpu_cluster *t, enum bf_dtype dtype,
			   const char **what)
{
	double fp32;
	unsigned f = t->features;

	if (t->id.arch == CPU_ARCH_ARM) {
		fp32 = 32;
		*what = "4 x 128-bit FMA pipes assumed";
	} else if (f & CPU_FEAT_AVX512F) {
		fp32 = 64;
		*what = "avx512f, 2 FMA pipes assumed";
	} else if (f & CPU_FEAT_AVX) {
		fp32 = 32;
		*what = "avx, 2 FMA pipes assumed";
	} else {
		fp32 = 16;
		*what = "sse, 2 FMA pipes assumed";
	}
	if (dtype == BF_DTYPE_BF16 && (f & CPU_FEAT_BF16))
		return fp32 * 4;
	if (dtype != BF_DTYPE_FP32 && (f & dtype_features(dtype)))
		return fp32 * 2;
	return fp32;
}

struct cluster_rate {
	double rate, bound; /* FLOP/cycle/core; NaN unknown */
	const char *method; /* "probe", "table", "isa" */
	char note[200];
	char disagree[200];
};

/* Cluster c's FLOP/cycle/core for dtype: the probe's when it ran (the
 * table's when the unit is one the probe does not run), the table's
 * otherwise, the ISA estimate last. */
static void cluster_rate(const struct cpu_peak_cluster *c, enum bf_dtype dtype,
			 struct cluster_rate *out)
{
	const struct cpu_uarch *u = c->uarch;
	int native = (c->topo.features & dtype_features(dtype)) != 0;
	const struct peak_probe_rate *pr = &c->probe.fp32;
	struct cpu_rate_range tr = { 0, 0 };
	unsigned unprobed = 0;
	char range[32];
	double pv;

	memset(out, 0, sizeof(*out));
	out->rate = out->bound = NAN;
	if (u) {
		tr = u->fp32;
		if (dtype != BF_DTYPE_FP32 && native) {
			tr = dtype == BF_DTYPE_BF16 ? u->bf16 : u->fp16;
			unprobed = u->unprobed_feature & c->topo.features &
				   dtype_features(dtype);
		}
	}
	/* Without native instructions a 16-bit GEMM runs on the fp32 units
	 * (converted): the fp32 rate is its rate. */
	if (dtype == BF_DTYPE_BF16 && native)
		pr = &c->probe.bf16;
	else if (dtype == BF_DTYPE_FP16 && native)
		pr = &c->probe.fp16;
	pv = peak_probe_round(pr->flop_per_cycle, pr->flop_per_instr);
	if (tr.hi > tr.lo)
		snprintf(range, sizeof(range), "%.0f-%.0f", tr.lo, tr.hi);
	else
		snprintf(range, sizeof(range), "%.0f", tr.hi);
	if (tr.hi > 0 && unprobed) {
		out->rate = tr.hi;
		out->method = "table";
		snprintf(out->note, sizeof(out->note),
			 "table %s: %s, a unit the probe does not run (AMX)",
			 u->name, range);
	} else if (pv > 0) {
		out->rate = pv;
		out->method = "probe";
		snprintf(out->note, sizeof(out->note),
			 "probe: %s %.1f measured", pr->isa,
			 pr->flop_per_cycle);
		if (tr.hi > 0)
			bf_text_appendf(out->note, sizeof(out->note),
					"; table %s: %s", u->name, range);
		else
			bf_text_appendf(out->note, sizeof(out->note),
					"; no table figure");
		if (tr.hi > 0 && (pv * PEAK_DISAGREE_FACTOR < tr.lo ||
				  pv > tr.hi * PEAK_DISAGREE_FACTOR))
			snprintf(
				out->disagree, sizeof(out->disagree),
				"%s %s: probe %.0f FLOP/cycle/core, table %s (%s)",
				u->name, bf_dtype_name(dtype), pv, range,
				u->source);
	} else if (tr.hi > 0) {
		out->rate = tr.hi;
		out->method = "table";
		snprintf(out->note, sizeof(out->note), "table %s: %s%s; %s",
			 u->name, range,
			 tr.hi > tr.lo ? ", the larger taken" : "",
			 c->probe_why);
	} else {
		const char *what;

		out->rate = isa_estimate(&c->topo, dtype, &what);
		out->method = "isa";
		snprintf(out->note, sizeof(out->note),
			 "no probe (%s), no table row: %s", c->probe_why, what);
	}
	out->bound = fmax(out->rate, tr.hi);
}

/* "Zen 4", or the id where the table has no row. */
static void cluster_name(const struct cpu_peak_cluster *c, char *buf,
			 size_t len)
{
	if (c->uarch)
		snprintf(buf, len, "%s", c->uarch->name);
	else if (c->topo.id.arch == CPU_ARCH_ARM)
		snprintf(buf, len, "arm implementer 0x%x part 0x%x",
			 c->topo.id.family, c->topo.id.model);
	else
		snprintf(buf, len, "%s family %d model %d",
			 c->topo.id.vendor[0] ? c->topo.id.vendor : "x86",
			 c->topo.id.family, c->topo.id.model);
}

void peak_cpu(const struct cpu_peak_model *m, enum bf_dtype dtype,
	      struct peak *out)
{
	double sum = 0, bound = 0;
	int have[3] = { 0, 0, 0 };

	peak_clear(out);
	snprintf(out->product, sizeof(out->product), "%s", m->product);
	if (dtype != BF_DTYPE_FP32 && dtype != BF_DTYPE_BF16 &&
	    dtype != BF_DTYPE_FP16) {
		peak_unknown(out, "no CPU GEMM for this dtype");
		return;
	}
	if (m->nclusters == 0) {
		peak_unknown(out,
			     "CPU cores unknown (/proc/cpuinfo unreadable)");
		return;
	}
	for (int k = 0; k < m->nclusters; k++) {
		const struct cpu_peak_cluster *c = &m->c[k];
		struct cluster_rate r;
		char name[64];

		cluster_rate(c, dtype, &r);
		cluster_name(c, name, sizeof(name));
		if (!(c->clock_ghz > 0) || c->topo.cores <= 0) {
			char why[160];

			snprintf(why, sizeof(why), "%s: clock or cores unknown",
				 name);
			peak_unknown(out, why);
			out->method[0] = '\0';
			return;
		}
		have[strcmp(r.method, "probe") == 0 ? 0 :
		     strcmp(r.method, "table") == 0 ? 1 :
						      2] = 1;
		sum += c->topo.cores * r.rate * c->clock_ghz;
		bound += c->topo.cores * r.bound * c->clock_ghz;
		bf_text_appendf(
			out->basis, sizeof(out->basis),
			"%s%d %s core%s x %.0f FLOP/cycle (%s) x %.3f GHz (%s)",
			k ? " + " : "", c->topo.cores, name,
			c->topo.cores == 1 ? "" : "s", r.rate, r.note,
			c->clock_ghz, c->clock_source);
		bf_text_appendf(out->bound_basis, sizeof(out->bound_basis),
				"%s%d x %.0f x %.3f GHz", k ? " + " : "",
				c->topo.cores, r.bound, c->clock_ghz);
		if (r.disagree[0])
			bf_text_appendf(out->disagreement,
					sizeof(out->disagreement), "%s%s",
					out->disagreement[0] ? "; " : "",
					r.disagree);
	}
	bf_text_appendf(
		out->bound_basis, sizeof(out->bound_basis),
		" (cores x the larger of probe and table FLOP/cycle x clock)");
	out->gflops = sum;
	out->bound_gflops = bound;
	for (int i = 0; i < 3; i++)
		if (have[i])
			bf_text_appendf(out->method, sizeof(out->method),
					"%s%s", out->method[0] ? "+" : "",
					i == 0 ? "probe" :
					i == 1 ? "table" :
						 "isa");
}

/* --- GPU ---------------------------------------------------------------- */

int peak_gpu_geforce_halves(const char *name, int major, enum bf_dtype dtype)
{
	if (!name || !strstr(name, "GeForce"))
		return 0;
	if (dtype != BF_DTYPE_TF32 && dtype != BF_DTYPE_FP16 &&
	    dtype != BF_DTYPE_BF16 && dtype != BF_DTYPE_FP8)
		return 0;
	/* bf16 on Turing is the fp32 units' rate, not a tensor one. */
	if (major < 8 && dtype != BF_DTYPE_FP16)
		return 0;
	return major == 7 || major == 8 || major == 12;
}

void peak_gpu(const struct gpu_peak_input *in, enum bf_dtype dtype,
	      struct peak *out)
{
	const struct gpu_product *p = gpu_product_find(in->name);
	const char *src = NULL;
	double arch = gpu_arch_rate(in->major, in->minor, dtype, &src);
	double clock = in->clock_ghz > 0 ? in->clock_ghz : NAN, top = clock;
	const char *top_src = "cudaDevAttrClockRate";
	int sms = in->sm_count;

	peak_clear(out);
	snprintf(out->product, sizeof(out->product), "%s",
		 in->name ? in->name : "");
	if (in->max_clock_ghz > 0 && !(top >= in->max_clock_ghz)) {
		top = in->max_clock_ghz;
		top_src = "NVML maximum SM clock";
	}
	if (sms <= 0) {
		peak_unknown(out, "SM count unknown");
		return;
	}
	if (p) {
		int rate = 0;
		double mhz = 0;
		double tflops = gpu_product_tflops(p, dtype, &rate, &mhz);

		if (!(tflops > 0) || rate <= 0) {
			char why[160];

			snprintf(why, sizeof(why),
				 "%s has no %s GEMM path "
				 "(product table)",
				 in->name, bf_dtype_name(dtype));
			peak_unknown(out, why);
			return;
		}
		out->gflops = tflops * 1e3 *
			      (sms != p->sms ? (double)sms / p->sms : 1);
		snprintf(out->method, sizeof(out->method), "product");
		snprintf(
			out->basis, sizeof(out->basis),
			"%s: %.4g TFLOP/s %s dense%s = %d SMs x %d FLOP/cycle/SM "
			"x %.3f GHz (%s)",
			in->name, tflops, bf_dtype_name(dtype),
			dtype == BF_DTYPE_FP16 || dtype == BF_DTYPE_BF16 ?
				", fp32 accumulate" :
				"",
			p->sms, rate, mhz / 1e3, p->source);
		if (sms != p->sms)
			bf_text_appendf(out->basis, sizeof(out->basis),
					"; x %d/%d SMs on this device", sms,
					p->sms);
		if (!(top >= mhz / 1e3)) {
			top = mhz / 1e3;
			top_src = "the published figure's clock";
		}
		out->bound_gflops = sms * (double)rate * top;
		snprintf(out->bound_basis, sizeof(out->bound_basis),
			 "%d SMs x %d FLOP/cycle/SM x %.3f GHz (%s)", sms, rate,
			 top, top_src);
		return;
	}
	if (!(arch > 0)) {
		char why[160];

		snprintf(why, sizeof(why),
			 "no %s rate for compute capability %d.%d in the table",
			 bf_dtype_name(dtype), in->major, in->minor);
		peak_unknown(out, why);
		return;
	}
	if (!(clock > 0)) {
		peak_unknown(out, "clock unknown (cudaDevAttrClockRate)");
		return;
	}
	if (peak_gpu_geforce_halves(in->name, in->major, dtype)) {
		/* GeForce runs tensor math with fp32 accumulate at half the
		 * professional parts' rate (GA102 whitepaper appendix A, Ada
		 * whitepaper appendix A, RTX Blackwell whitepaper appendix
		 * A; Turing's TU102 likewise): the RTX 3090/4090/5090 rows
		 * show it, and every other GeForce card has it too. */
		arch /= 2;
		src = "GeForce: half the professional parts' tensor rate at "
		      "fp32 accumulate (GA102/Ada/RTX Blackwell whitepapers)";
	}
	out->gflops = sms * arch * clock;
	snprintf(out->method, sizeof(out->method), "derived");
	snprintf(
		out->basis, sizeof(out->basis),
		"%d SMs x %.0f FLOP/cycle/SM (%s, cc %d.%d) x %.3f GHz "
		"(cudaDevAttrClockRate): no published figure for \"%s\" in the "
		"product table, an upper estimate (the rate of the fastest part "
		"of its capability, at the highest clock)",
		sms, arch, src, in->major, in->minor, clock,
		in->name ? in->name : "?");
	out->bound_gflops = sms * arch * top;
	snprintf(out->bound_basis, sizeof(out->bound_basis),
		 "%d SMs x %.0f FLOP/cycle/SM x %.3f GHz (%s)", sms, arch, top,
		 top_src);
}
