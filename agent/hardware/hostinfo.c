/* Host facts for the host record; see hostinfo.h. */
#include "hardware/hostinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <math.h>

#include "record.h"
#include "xmalloc.h"

/* v, owned, or NULL when v is NULL or "": the record's null. */
static char *dup_or_null(const char *v)
{
	return v && *v ? bf_xstrdup(v) : NULL;
}

/* Value of the first line "key<sep>value" in file, trimmed, into out.
 * Returns 0 when found. */
static int read_keyed_line(const char *path, const char *key, char sep,
			   char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t klen = strlen(key);
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + klen;

		if (strncmp(line, key, klen) != 0)
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != sep)
			continue;
		p++;
		while (*p == ' ' || *p == '\t' || *p == '"')
			p++;
		p[strcspn(p, "\"\n")] = '\0';
		snprintf(out, len, "%s", p);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

/* A /proc/self/status or /proc/meminfo field in kB, as bytes; -1. */
static int64_t read_kb(const char *path, const char *key)
{
	char buf[64];

	if (read_keyed_line(path, key, ':', buf, sizeof(buf)) < 0)
		return -1;
	return (int64_t)strtoll(buf, NULL, 10) * 1024;
}

enum bf_err hostinfo_memory(uint64_t *available_bytes, uint64_t *total_bytes)
{
	int64_t avail = read_kb("/proc/meminfo", "MemAvailable");
	int64_t total = read_kb("/proc/meminfo", "MemTotal");

	if (avail < 0 || total < 0)
		return BF_ERR_IO;
	*available_bytes = (uint64_t)avail;
	*total_bytes = (uint64_t)total;
	return BF_OK;
}

size_t hostinfo_llc_bytes(void)
{
	size_t best = 0;

	for (int i = 0; i < 8; i++) {
		char path[96], buf[32] = "";
		FILE *f;
		char *end;
		unsigned long v;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			v = strtoul(buf, &end, 10);
			if (*end == 'K')
				v <<= 10;
			else if (*end == 'M')
				v <<= 20;
			if (v > best)
				best = v;
		}
		fclose(f);
	}
	return best ? best : (size_t)64 << 20;
}

long hostinfo_read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* One number from a file ("max" reads as -1: no limit); -2 unreadable. */
static int64_t read_limit(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[64] = "";
	int64_t v = -2;

	if (!f)
		return -2;
	if (fgets(buf, sizeof(buf), f)) {
		if (strncmp(buf, "max", 3) == 0)
			v = -1;
		else if (buf[0] >= '0' && buf[0] <= '9')
			v = (int64_t)strtoll(buf, NULL, 10);
	}
	fclose(f);
	return v;
}

/* Room left under this process's cgroup memory limits, the tightest over
 * its cgroup and every ancestor (cgroup v2: memory.max - memory.current;
 * v1: memory.limit_in_bytes - memory.usage_in_bytes of the memory
 * controller's hierarchy). -1 when no limit applies or none is readable. */
static int64_t cgroup_room(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[1024], path[1200];
	int64_t best = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *base, *rel;
		char *colon1, *colon2;
		int v2;

		line[strcspn(line, "\n")] = '\0';
		colon1 = strchr(line, ':');
		if (!colon1 || !(colon2 = strchr(colon1 + 1, ':')))
			continue;
		*colon2 = '\0';
		v2 = strcmp(line, "0") == 0 && colon2 == colon1 + 1;
		if (!v2 && !strstr(colon1 + 1, "memory"))
			continue;
		rel = colon2[1] == '/' ? colon2 + 1 : "/";
		/* v2 at /sys/fs/cgroup, or at .../unified in hybrid mode */
		base = !v2 ? "/sys/fs/cgroup/memory" :
		       access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 ?
			     "/sys/fs/cgroup" :
			     "/sys/fs/cgroup/unified";
		/* From the process's own cgroup up to the root. */
		snprintf(path, sizeof(path), "%s%s", base, rel);
		for (;;) {
			char file[1300];
			int64_t max, cur;
			char *slash;

			snprintf(file, sizeof(file), "%s/%s", path,
				 v2 ? "memory.max" : "memory.limit_in_bytes");
			max = read_limit(file);
			snprintf(file, sizeof(file), "%s/%s", path,
				 v2 ? "memory.current" : "memory.usage_in_bytes");
			cur = read_limit(file);
			/* v1 reports "no limit" as a huge page-rounded number */
			if (max >= 0 && max < (INT64_C(1) << 60) && cur >= 0) {
				int64_t room = max > cur ? max - cur : 0;

				if (best < 0 || room < best)
					best = room;
			}
			slash = strrchr(path, '/');
			if (!slash || (size_t)(slash - path) < strlen(base))
				break;
			*slash = '\0';
		}
	}
	fclose(f);
	return best;
}

enum bf_err hostinfo_memory_room(uint64_t *room_bytes, char *what,
				 size_t what_len)
{
	uint64_t avail, total;
	int64_t cg = cgroup_room(), vm = read_kb("/proc/self/status", "VmSize");
	struct rlimit rl;

	if (hostinfo_memory(&avail, &total) != BF_OK)
		return BF_ERR_IO;
	*room_bytes = avail;
	snprintf(what, what_len, "MemAvailable");
	if (cg >= 0 && (uint64_t)cg < *room_bytes) {
		*room_bytes = (uint64_t)cg;
		snprintf(what, what_len, "cgroup memory limit");
	}
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    vm >= 0) {
		uint64_t left = rl.rlim_cur > (uint64_t)vm ? rl.rlim_cur - (uint64_t)vm : 0;

		if (left < *room_bytes) {
			*room_bytes = left;
			snprintf(what, what_len, "RLIMIT_AS");
		}
	}
	return BF_OK;
}

int64_t hostinfo_rss_bytes(void)
{
	return read_kb("/proc/self/status", "VmRSS");
}

int64_t hostinfo_peak_rss_bytes(void)
{
	return read_kb("/proc/self/status", "VmHWM");
}

void hostinfo_reset_peak_rss(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (!f)
		return;
	fputs("5", f);
	fclose(f);
}

static void hostinfo_describe_system(struct bf_rec_host *host);

/* The environment variables that can change a GEMM's speed or result:
 * which GPUs are visible, cuBLAS's workspace and emulation settings
 * (CUBLAS_EMULATE_SINGLE_PRECISION and CUBLAS_EMULATION_STRATEGY let
 * cuBLAS 12.9+ run an fp32 GEMM as BF16x9 emulation on Blackwell: cuBLAS
 * Library, "Floating Point Emulation"), TF32 forced on or off, CUDA's
 * lazy module loading (CUDA_MODULE_LOADING=EAGER moves kernel loading
 * out of the first call: CUDA C++ Programming Guide, "Lazy Loading"),
 * preloaded libraries (a shim can replace any BLAS call), and
 * OpenBLAS's/OpenMP's core and thread choices. Recorded whether set or
 * not (null), so that ctl compare can show a difference either way. */
static const char *const recorded_env[] = {
	"CUDA_VISIBLE_DEVICES", "CUBLAS_WORKSPACE_CONFIG",
	"CUBLAS_EMULATE_SINGLE_PRECISION", "CUBLAS_EMULATION_STRATEGY",
	"NVIDIA_TF32_OVERRIDE", "CUDA_MODULE_LOADING", "LD_PRELOAD",
	"GOTO_NUM_THREADS",
	"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
	"OMP_NUM_THREADS",
};

void hostinfo_env(const char *const *names, int n, int empty_is_unset,
		  struct bf_rec_env **out, int *nout)
{
	*out = bf_xcalloc((size_t)n + 1, sizeof(**out));
	for (int i = 0; i < n; i++) {
		const char *v = getenv(names[i]);

		(*out)[i].name = bf_xstrdup(names[i]);
		(*out)[i].value = empty_is_unset ? dup_or_null(v) :
				  v ? bf_xstrdup(v) : NULL;
	}
	*nout = n;
}

void hostinfo_describe(struct bf_rec_host *host)
{
	hostinfo_env(recorded_env,
		     (int)(sizeof(recorded_env) / sizeof(recorded_env[0])), 1,
		     &host->env, &host->nenv);
	hostinfo_describe_system(host);
}

static void hostinfo_describe_system(struct bf_rec_host *host)
{
	struct utsname u;
	char buf[256];
	uint64_t avail, total;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int have_uname = uname(&u) == 0;

	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		host->hostname = dup_or_null(buf);
	}
	if (read_keyed_line("/etc/os-release", "PRETTY_NAME", '=', buf,
			    sizeof(buf)) == 0)
		host->os = dup_or_null(buf);
	host->kernel = dup_or_null(have_uname ? u.release : NULL);
	host->arch = dup_or_null(have_uname ? u.machine : NULL);
	/* x86 names the model; aarch64 kernels often do not, so fall back
	 * to the first "Model name" lscpu-style key some kernels print. */
	if (read_keyed_line("/proc/cpuinfo", "model name", ':', buf,
			    sizeof(buf)) == 0 ||
	    read_keyed_line("/proc/cpuinfo", "Model name", ':', buf,
			    sizeof(buf)) == 0)
		host->cpu_model = dup_or_null(buf);
	host->cpu_cores = cores > 0 ? (double)cores : NAN;
	host->memory_bytes = hostinfo_memory(&avail, &total) == BF_OK ?
				     (double)total : NAN;
}

void *hostinfo_alloc_operand(size_t bytes)
{
	const size_t huge = (size_t)2 << 20;
	size_t rounded;
	void *p;

	if (bytes < huge)
		return malloc(bytes ? bytes : 1);
	rounded = (bytes + huge - 1) & ~(huge - 1);
	p = aligned_alloc(huge, rounded);
#ifdef MADV_HUGEPAGE
	/* Advice only: without THP (or with it "always" on) nothing
	 * changes. */
	if (p)
		(void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
	return p;
}
