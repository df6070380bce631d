/* Host facts for the host record; see hostinfo.h. */
#include "hostinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "schema.h"

static void add_string_or_null(cJSON *obj, const char *key, const char *v)
{
	if (v && *v)
		cJSON_AddStringToObject(obj, key, v);
	else
		cJSON_AddNullToObject(obj, key);
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

void hostinfo_describe(cJSON *host)
{
	struct utsname u;
	char buf[256];
	uint64_t avail, total;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int have_uname = uname(&u) == 0;

	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		add_string_or_null(host, BF_KEY_HOSTNAME, buf);
	} else {
		cJSON_AddNullToObject(host, BF_KEY_HOSTNAME);
	}
	if (read_keyed_line("/etc/os-release", "PRETTY_NAME", '=', buf,
			    sizeof(buf)) == 0)
		add_string_or_null(host, BF_KEY_OS, buf);
	else
		cJSON_AddNullToObject(host, BF_KEY_OS);
	add_string_or_null(host, BF_KEY_KERNEL, have_uname ? u.release : NULL);
	add_string_or_null(host, BF_KEY_ARCH, have_uname ? u.machine : NULL);
	/* x86 names the model; aarch64 kernels often do not, so fall back
	 * to the first "Model name" lscpu-style key some kernels print. */
	if (read_keyed_line("/proc/cpuinfo", "model name", ':', buf,
			    sizeof(buf)) == 0 ||
	    read_keyed_line("/proc/cpuinfo", "Model name", ':', buf,
			    sizeof(buf)) == 0)
		add_string_or_null(host, BF_KEY_CPU_MODEL, buf);
	else
		cJSON_AddNullToObject(host, BF_KEY_CPU_MODEL);
	if (cores > 0)
		cJSON_AddNumberToObject(host, BF_KEY_CPU_CORES, (double)cores);
	else
		cJSON_AddNullToObject(host, BF_KEY_CPU_CORES);
	if (hostinfo_memory(&avail, &total) == BF_OK)
		cJSON_AddNumberToObject(host, BF_KEY_MEMORY_BYTES, (double)total);
	else
		cJSON_AddNullToObject(host, BF_KEY_MEMORY_BYTES);
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
