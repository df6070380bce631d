/*
 * What the agent reads about the host it runs on, from /proc, uname and
 * /etc/os-release. Every reader returns a "missing" value (NULL or -1) when
 * the source cannot be read, so the record says null rather than a made-up
 * 0 or "". Also how GEMM operands are allocated in host memory.
 */
#ifndef BF_HOSTINFO_H
#define BF_HOSTINFO_H

#include <stddef.h>
#include <stdint.h>

#include "bf_error.h"

struct bf_rec_env;
struct bf_rec_host;

/* Fills host's env (the variables that can change a result, in the
 * record's order; a variable unset or set to "" is NULL), hostname, os,
 * kernel, arch, cpu_model (NULL where unreadable or empty), cpu_cores and
 * memory_bytes (NaN where unreadable). host was bf_record_init'ed; the
 * strings are host's (bf_xstrdup), freed with bf_record_free. Aborts on
 * out-of-memory only. */
void hostinfo_describe(struct bf_rec_host *host);

/* The values of the n variables names[] in this process's environment,
 * in that order, into *out (n entries, owned: each name and value
 * bf_xstrdup'ed, freed by bf_record_free as part of a host record);
 * *nout = n. An unset variable is NULL; so is one set to "" when
 * empty_is_unset. Aborts on out-of-memory only. */
void hostinfo_env(const char *const *names, int n, int empty_is_unset,
		  struct bf_rec_env **out, int *nout);

/* MemAvailable and MemTotal from /proc/meminfo, in bytes. BF_ERR_IO when
 * the file cannot be read or lacks them. */
enum bf_err hostinfo_memory(uint64_t *available_bytes, uint64_t *total_bytes);

/* Host memory this process can still allocate, bytes: the least of
 * MemAvailable, the room under its cgroup's memory limit (v2 memory.max
 * less memory.current, or v1's limit_in_bytes less usage_in_bytes, the
 * tightest of its cgroup and every ancestor) and RLIMIT_AS less its
 * address space in use (VmSize). what (what_len bytes) names the one that
 * limits: "MemAvailable", "cgroup memory limit" or "RLIMIT_AS". BF_ERR_IO
 * when /proc/meminfo is unreadable. */
enum bf_err hostinfo_memory_room(uint64_t *room_bytes, char *what,
				 size_t what_len);

/* Size of the largest CPU cache of CPU 0 (sysfs cache/indexN/size, the
 * last level), bytes; 64 MiB when unreadable (above any L3 per socket of
 * today's server CPUs but AMD's stacked-cache parts). */
size_t hostinfo_llc_bytes(void);

/* The first integer in a one-value file (sysfs, procfs); -1 when the file
 * is missing or does not start with a number. */
long hostinfo_read_long(const char *path);

/* Resident set size of this process (VmRSS), bytes; -1 if unreadable. */
int64_t hostinfo_rss_bytes(void);

/* Resets this process's peak RSS to its current RSS by writing "5" to
 * /proc/self/clear_refs (Linux >= 4.0, Documentation/filesystems/proc.rst).
 * Silently does nothing where that is not allowed. */
void hostinfo_reset_peak_rss(void);

/* Peak resident set size since the last reset (VmHWM), bytes; -1 if
 * unreadable. */
int64_t hostinfo_peak_rss_bytes(void);

/* Host memory for a GEMM operand, freed with free(): from 2 MiB up,
 * 2 MiB-aligned and marked for transparent huge pages (madvise
 * MADV_HUGEPAGE, as numpy does for its arrays), so that OpenBLAS's reads
 * of A and B and writes of C miss the TLB less: 3-5 % at n = 1024-2048
 * measured here. NULL when out of memory. */
void *hostinfo_alloc_operand(size_t bytes);

#endif
