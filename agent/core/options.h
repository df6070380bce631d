/* The agent's command line, parsed into a plain struct with the agent's
 * defaults filled in (pure; unit-tested). */
#ifndef BF_AGENT_OPTIONS_H
#define BF_AGENT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "bf_error.h"
#include "dtype.h"

#include "agent_opts.h"

/* The option table and its limits are common/agent_opts.h's, shared with
 * ctl; these are the agent's names for them. */
#define AGENT_MAX_SIZES BF_AGENT_MAX_SIZES
#define AGENT_MAX_DTYPES BF_AGENT_MAX_DTYPES
#define AGENT_MAX_N BF_AGENT_MAX_N

enum agent_devices {
	AGENT_DEV_CPU = BF_AGENT_DEV_CPU,
	AGENT_DEV_CUDA = BF_AGENT_DEV_CUDA,
	AGENT_DEV_ALL = BF_AGENT_DEV_ALL
};

struct agent_opts {
	int sizes[AGENT_MAX_SIZES];   /* GEMM n values, in order given */
	int nsizes;
	enum bf_dtype dtypes[AGENT_MAX_DTYPES];
	int ndtypes;
	int iters;        /* timed GPU iterations (default 20) */
	int warmup;       /* untimed iterations before timing (default 5) */
	int cpu_iters;    /* timed CPU iterations; default
			   * min(iters, max(3, iters/4)) */
	int cpu_warmup;   /* untimed CPU iterations; default --warmup when
			   * given, else 1 */
	int devices;      /* AGENT_DEV_* mask; default all present */
	uint64_t seed;    /* input data seed (default 1) */
	int transfer_mib; /* H2D/D2H check buffer, MiB (default 64) */
	int human;        /* readable table instead of NDJSON */
	int checks;       /* run tensor checks (default 1) */
	int gemm;         /* run the GEMM sweep (default 1) */
	int exit_on_hangup; /* exit when the reader of stdout goes away */
	int cold_cache;     /* flush the caches before every timed GEMM */
	int bandwidth;      /* measure memory bandwidth first (default 1) */
	int bandwidth_mib;  /* working set of each bandwidth measurement,
			     * MiB; 0: the default sizes (bandwidth.h) */
	int batching;       /* run the seed's batching case (default 1) */
	int help;         /* --help given: print usage, exit 0 */
	int version;      /* --version given */
};

/* Parses argv into *o (defaults first). On a bad argument returns
 * BF_ERR_USAGE with a one-line message naming the argument and why in
 * detail. Does not print or exit. Uses getopt_long, so resets optind. */
enum bf_err agent_opts_parse(int argc, char **argv, struct agent_opts *o,
			     char *detail, size_t detail_len);

/* The usage text (static). */
const char *agent_usage(void);

#endif
