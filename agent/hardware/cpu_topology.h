/*
 * The CPU cores this process may run on, grouped into clusters of one core
 * type and one maximum clock, as the kernel describes them: /proc/cpuinfo
 * (x86: vendor_id, cpu family, model, flags; aarch64: CPU implementer,
 * CPU part, Features, one block per logical CPU), sysfs topology
 * (physical_package_id, core_id: SMT siblings count once), cpufreq
 * (cpuinfo_max_freq of each CPU's policy) and, on Intel hybrid parts, the
 * perf PMU lists /sys/devices/cpu_core/cpus and cpu_atom/cpus (which
 * logical CPUs are P- and E-cores: /proc/cpuinfo gives both the same
 * family and model).
 *
 * Every reader takes a root directory ("" for this machine), so that the
 * tests can feed a synthetic /proc/cpuinfo and sysfs tree (a DGX Spark's
 * 10 Cortex-X925 + 10 Cortex-A725 at 3.9/4.0 and 2.8 GHz, a Zen 4) from a
 * temporary directory. Pure apart from reading those files.
 */
#ifndef BF_CPU_TOPOLOGY_H
#define BF_CPU_TOPOLOGY_H

#include <stddef.h>

#define CPU_CLUSTERS_MAX 16

enum cpu_arch {
	CPU_ARCH_UNKNOWN = 0,
	CPU_ARCH_X86,
	CPU_ARCH_ARM
};

/* x86 hybrid core types (the PMU the kernel files a CPU under). */
enum cpu_core_type {
	CPU_CORE_ANY = 0,
	CPU_CORE_BIG,
	CPU_CORE_SMALL
};

/* SIMD and matrix features, from the flags (x86) or Features (aarch64)
 * words of /proc/cpuinfo. */
enum {
	CPU_FEAT_AVX = 1u << 0,
	CPU_FEAT_FMA = 1u << 1,
	CPU_FEAT_AVX2 = 1u << 2,
	CPU_FEAT_AVX512F = 1u << 3,
	CPU_FEAT_AVX512_BF16 = 1u << 4, /* vdpbf16ps */
	CPU_FEAT_AVX512_FP16 = 1u << 5, /* vfmadd...ph */
	CPU_FEAT_AMX_BF16 = 1u << 6,	/* AMX TMUL tdpbf16ps */
	CPU_FEAT_AMX_FP16 = 1u << 7,	/* AMX TMUL tdpfp16ps */
	CPU_FEAT_ASIMD = 1u << 8,	/* NEON */
	CPU_FEAT_ASIMDHP = 1u << 9,	/* NEON fp16 arithmetic */
	CPU_FEAT_SVE = 1u << 10,
	CPU_FEAT_BF16 = 1u << 11, /* aarch64 BFMMLA / BFDOT */
};

/* What identifies a core's microarchitecture. */
struct cpu_id {
	enum cpu_arch arch;
	char vendor[16];	      /* x86 vendor_id ("AuthenticAMD",
				       * "GenuineIntel"); "" on aarch64 */
	int family;		      /* x86 cpu family; aarch64 CPU implementer
				       * (0x41 Arm, 0x46 Fujitsu, 0x4e NVIDIA,
				       * 0xc0 Ampere); -1 unknown */
	int model;		      /* x86 model; aarch64 CPU part (0xd85
				       * Cortex-X925); -1 unknown */
	enum cpu_core_type core_type; /* x86 hybrid; CPU_CORE_ANY elsewhere */
};

/* One cluster: cores of one cpu_id and one maximum clock. */
struct cpu_cluster {
	struct cpu_id id;
	int cores;	    /* physical cores of it this process may use */
	int logical;	    /* logical CPUs of it this process may use */
	int cpu;	    /* its lowest logical CPU (where to probe) */
	long max_khz;	    /* cpufreq cpuinfo_max_freq, kHz; -1 unknown
			     * (no cpufreq: most VMs) */
	double cpuinfo_mhz; /* the largest "cpu MHz" of its CPUs; 0 */
	unsigned features;  /* CPU_FEAT_* of its lowest CPU */
};

struct cpu_layout {
	int nclusters;
	struct cpu_cluster c[CPU_CLUSTERS_MAX]; /* in order of first CPU */
	int cores;				/* sum of c[].cores */
	int truncated; /* more kinds than CPU_CLUSTERS_MAX: the rest
			* are counted in the last cluster */
};

/*
 * Reads the layout of the logical CPUs cpus[0..ncpus) (the process's
 * affinity set) from root + "/proc/cpuinfo" and root + "/sys/devices/...";
 * cpus NULL means every CPU /proc/cpuinfo lists. Physical cores are the
 * distinct (physical_package_id, core_id) pairs of a cluster; where the
 * topology files are missing each logical CPU counts as a core. Returns 0,
 * or -1 when /proc/cpuinfo cannot be read or lists none of the CPUs (out
 * is then empty). Allocates nothing that outlives the call.
 */
int cpu_layout_read(const char *root, const int *cpus, int ncpus,
		    struct cpu_layout *out);

/* The logical CPUs this process may run on (sched_getaffinity), in
 * rising order, into cpus (cap entries); returns how many, 0 when the
 * call fails. */
int cpu_affinity_list(int *cpus, int cap);

/* Parses a sysfs CPU list ("0-3,8,10-11") into a bitmap of nbits bits
 * (set: bits[cpu / 64] >> (cpu % 64) & 1). Returns the number of CPUs
 * set, -1 on a malformed list. */
int cpu_list_parse(const char *list, unsigned long long *bits, int nbits);

#endif
