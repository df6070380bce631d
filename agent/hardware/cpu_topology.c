/* The CPU's clusters from /proc/cpuinfo and sysfs; see cpu_topology.h. */
#include "hardware/cpu_topology.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

#define CPU_MAX 4096 /* logical CPUs read; Linux's NR_CPUS default max */

/* One logical CPU as /proc/cpuinfo and sysfs describe it. */
struct cpu_info {
	int present; /* /proc/cpuinfo has a block for it */
	struct cpu_id id;
	unsigned features;
	double mhz; /* "cpu MHz"; 0 */
};

/* 1 when the whitespace-separated word occurs in list. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || isspace((unsigned char)p[-1])) &&
		    (p[n] == '\0' || isspace((unsigned char)p[n])))
			return 1;
	return 0;
}

static unsigned features_of(const char *words)
{
	static const struct {
		const char *word;
		unsigned bit;
	} map[] = {
		{ "avx", CPU_FEAT_AVX },
		{ "fma", CPU_FEAT_FMA },
		{ "avx2", CPU_FEAT_AVX2 },
		{ "avx512f", CPU_FEAT_AVX512F },
		{ "avx512_bf16", CPU_FEAT_AVX512_BF16 },
		{ "avx512_fp16", CPU_FEAT_AVX512_FP16 },
		{ "amx_bf16", CPU_FEAT_AMX_BF16 },
		{ "amx_fp16", CPU_FEAT_AMX_FP16 },
		{ "asimd", CPU_FEAT_ASIMD },
		{ "asimdhp", CPU_FEAT_ASIMDHP },
		{ "sve", CPU_FEAT_SVE },
		{ "bf16", CPU_FEAT_BF16 },
	};
	unsigned f = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (has_word(words, map[i].word))
			f |= map[i].bit;
	return f;
}

/* A cpuinfo number: decimal, or hex with 0x (aarch64's implementer and
 * part); -1 when it is not one. */
static int parse_int(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (end == s || v < 0 || v > 0xffffff)
		return -1;
	return (int)v;
}

static void cpu_info_init(struct cpu_info *c)
{
	memset(c, 0, sizeof(*c));
	c->id.family = c->id.model = -1;
}

/* Reads root/proc/cpuinfo into info[0..CPU_MAX). Returns the number of
 * CPU blocks, -1 when unreadable. */
static int read_cpuinfo(const char *root, struct cpu_info *info)
{
	char path[4096];
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	int cur = -1, blocks = 0;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *key_end, *val;
		struct cpu_info *c;

		if (!colon)
			continue;
		key_end = colon;
		while (key_end > line && isspace((unsigned char)key_end[-1]))
			key_end--;
		*key_end = '\0';
		val = colon + 1;
		while (*val == ' ' || *val == '\t')
			val++;
		val[strcspn(val, "\n")] = '\0';
		if (strcmp(line, "processor") == 0) {
			int n = parse_int(val);

			cur = n >= 0 && n < CPU_MAX ? n : -1;
			if (cur >= 0) {
				cpu_info_init(&info[cur]);
				info[cur].present = 1;
				blocks++;
			}
			continue;
		}
		if (cur < 0)
			continue;
		c = &info[cur];
		if (strcmp(line, "vendor_id") == 0) {
			c->id.arch = CPU_ARCH_X86;
			snprintf(c->id.vendor, sizeof(c->id.vendor), "%s", val);
		} else if (strcmp(line, "cpu family") == 0) {
			c->id.family = parse_int(val);
		} else if (strcmp(line, "model") == 0) {
			c->id.model = parse_int(val);
		} else if (strcmp(line, "CPU implementer") == 0) {
			c->id.arch = CPU_ARCH_ARM;
			c->id.family = parse_int(val);
		} else if (strcmp(line, "CPU part") == 0) {
			c->id.arch = CPU_ARCH_ARM;
			c->id.model = parse_int(val);
		} else if (strcmp(line, "flags") == 0 ||
			   strcmp(line, "Features") == 0) {
			c->features = features_of(val);
		} else if (strcmp(line, "cpu MHz") == 0) {
			c->mhz = strtod(val, NULL);
		}
	}
	free(line);
	fclose(f);
	return blocks;
}

/* The first integer of root/rel; -1 when missing or not a number. */
static long read_long_at(const char *root, const char *rel)
{
	char path[4096];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int cpu_list_parse(const char *list, unsigned long long *bits, int nbits)
{
	const char *p = list;
	int count = 0;

	memset(bits, 0, (size_t)(nbits + 63) / 64 * sizeof(*bits));
	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi;

		if (end == p || lo < 0)
			return -1;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return -1;
			p = end;
		}
		for (long c = lo; c <= hi && c < nbits; c++) {
			if (!(bits[c / 64] >> (c % 64) & 1))
				count++;
			bits[c / 64] |= 1ull << (c % 64);
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return count;
}

/* Marks the CPUs of an Intel hybrid part's PMU list (root/sys/devices/
 * cpu_core/cpus or cpu_atom/cpus) with type. */
static void read_core_types(const char *root, struct cpu_info *info)
{
	static const struct {
		const char *pmu;
		enum cpu_core_type type;
	} pmus[] = { { "cpu_core", CPU_CORE_BIG },
		     { "cpu_atom", CPU_CORE_SMALL } };
	unsigned long long *bits = bf_xcalloc(CPU_MAX / 64, sizeof(*bits));

	for (size_t k = 0; k < sizeof(pmus) / sizeof(pmus[0]); k++) {
		char path[4096], buf[4096] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys/devices/%s/cpus", root,
			 pmus[k].pmu);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) &&
		    cpu_list_parse(buf, bits, CPU_MAX) > 0)
			for (int c = 0; c < CPU_MAX; c++)
				if (bits[c / 64] >> (c % 64) & 1 &&
				    info[c].present)
					info[c].id.core_type = pmus[k].type;
		fclose(f);
	}
	free(bits);
}

static int same_kind(const struct cpu_cluster *cl, const struct cpu_info *c,
		     long max_khz)
{
	return cl->id.arch == c->id.arch &&
	       strcmp(cl->id.vendor, c->id.vendor) == 0 &&
	       cl->id.family == c->id.family && cl->id.model == c->id.model &&
	       cl->id.core_type == c->id.core_type && cl->max_khz == max_khz;
}

int cpu_layout_read(const char *root, const int *cpus, int ncpus,
		    struct cpu_layout *out)
{
	struct cpu_info *info = bf_xcalloc(CPU_MAX, sizeof(*info));
	/* (package, core) keys seen, per cluster, to count SMT once */
	long *keys = bf_xcalloc(CPU_MAX, sizeof(*keys));
	int *key_cluster = bf_xcalloc(CPU_MAX, sizeof(*key_cluster));
	int nkeys = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	if (read_cpuinfo(root, info) <= 0)
		goto out;
	read_core_types(root, info);
	for (int i = 0; i < (cpus ? ncpus : CPU_MAX); i++) {
		int cpu = cpus ? cpus[i] : i;
		struct cpu_info *c;
		struct cpu_cluster *cl = NULL;
		char rel[128];
		long max_khz, pkg, core;
		int k, dup = 0;

		if (cpu < 0 || cpu >= CPU_MAX || !info[cpu].present)
			continue;
		c = &info[cpu];
		snprintf(
			rel, sizeof(rel),
			"/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq",
			cpu);
		max_khz = read_long_at(root, rel);
		if (max_khz <= 0)
			max_khz = -1;
		for (k = 0; k < out->nclusters; k++)
			if (same_kind(&out->c[k], c, max_khz))
				break;
		if (k == out->nclusters) {
			if (out->nclusters == CPU_CLUSTERS_MAX) {
				out->truncated = 1;
				k = CPU_CLUSTERS_MAX - 1;
			} else {
				cl = &out->c[out->nclusters++];
				cl->id = c->id;
				cl->max_khz = max_khz;
				cl->cpu = cpu;
				cl->features = c->features;
			}
		}
		cl = &out->c[k];
		if (cpu < cl->cpu)
			cl->cpu = cpu;
		cl->logical++;
		if (c->mhz > cl->cpuinfo_mhz)
			cl->cpuinfo_mhz = c->mhz;
		snprintf(
			rel, sizeof(rel),
			"/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			cpu);
		pkg = read_long_at(root, rel);
		snprintf(rel, sizeof(rel),
			 "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
		core = read_long_at(root, rel);
		if (pkg >= 0 && core >= 0) {
			long key = pkg << 24 | (core & 0xffffff);

			for (int j = 0; j < nkeys && !dup; j++)
				dup = keys[j] == key && key_cluster[j] == k;
			if (!dup && nkeys < CPU_MAX) {
				keys[nkeys] = key;
				key_cluster[nkeys++] = k;
			}
		}
		if (!dup)
			cl->cores++;
	}
	for (int k = 0; k < out->nclusters; k++)
		out->cores += out->c[k].cores;
	rc = out->nclusters > 0 ? 0 : -1;
out:
	free(key_cluster);
	free(keys);
	free(info);
	return rc;
}

int cpu_affinity_list(int *cpus, int cap)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < cap; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}
