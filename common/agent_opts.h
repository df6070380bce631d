/*
 * The agent's options, described once for both binaries: the agent parses
 * its command line through this table (agent/core/options.c), and ctl validates
 * `ctl run` options and the inventory's per-host defaults through it before
 * any host is touched, then builds the agent's argv from it. So a value is
 * refused in the same words wherever it is given, and a value ctl accepts
 * is one the agent accepts.
 *
 * An option set (struct bf_agent_optset) holds the values given, each with
 * a "given" bit; what is not given is left to the agent's own defaults
 * (agent/core/options.c says what they are).
 */
#ifndef BF_AGENT_OPTS_H
#define BF_AGENT_OPTS_H

#include <getopt.h>
#include <stddef.h>

#include "bf_error.h"
#include "dtype.h"

#define BF_AGENT_MAX_SIZES 16
#define BF_AGENT_MAX_DTYPES 5
#define BF_AGENT_MAX_N 65536 /* n*n elements must fit a 32-bit BLAS int */
#define BF_AGENT_MAX_ITERS 100000

/* Device selection, as a mask. */
enum bf_agent_devices {
	BF_AGENT_DEV_CPU = 1,
	BF_AGENT_DEV_CUDA = 2,
	BF_AGENT_DEV_ALL = 3
};

/* The fields of an option set; --size and --sizes both set SIZES. */
enum bf_agent_field {
	BF_AF_SIZES = 0,
	BF_AF_DTYPES,
	BF_AF_DEVICE,
	BF_AF_ITERS,
	BF_AF_CPU_ITERS,
	BF_AF_CPU_WARMUP,
	BF_AF_WARMUP,
	BF_AF_SEED,
	BF_AF_TRANSFER_MIB,
	BF_AF_HUMAN,
	BF_AF_NO_CHECKS,
	BF_AF_NO_GEMM,
	BF_AF_EXIT_ON_HANGUP,
	BF_AF_COLD_CACHE,
	BF_AF_BANDWIDTH_MIB,
	BF_AF_NO_BANDWIDTH,
	BF_AF_NO_BATCHING,
	BF_AF__COUNT
};

/* How a value is written and checked. */
enum bf_agent_opt_type {
	BF_AOT_INT,        /* a decimal integer in [min, max] */
	BF_AOT_SIZE,       /* one GEMM n in [min, max] */
	BF_AOT_SIZE_LIST,  /* "n,n,...": each in [min, max], at most
			    * BF_AGENT_MAX_SIZES, no empty item */
	BF_AOT_DTYPE_LIST, /* "fp32,bf16": GEMM dtypes, repeats dropped */
	BF_AOT_DEVICE,     /* cpu | cuda (alias gpu) | all */
	BF_AOT_FLAG        /* no value */
};

/* One row of the table: an option as the agent spells it. */
struct bf_agent_opt {
	const char *name;      /* long option without "--": "cpu-iters" */
	const char *inv_key;   /* key in the inventory's "defaults", or NULL
				* when the inventory cannot set it */
	enum bf_agent_field field;
	enum bf_agent_opt_type type;
	long min, max;         /* INT, SIZE, SIZE_LIST: the range of a value */
};

/* Which options there are, in the order the agent's argv is written;
 * the array ends with a row whose name is NULL. Static. */
extern const struct bf_agent_opt bf_agent_opt_table[];

/* The row for a long option name ("iters", no "--"), NULL if none. */
const struct bf_agent_opt *bf_agent_opt_find(const char *name);
/* The row for an inventory defaults key ("cpu_iters"), NULL if none. */
const struct bf_agent_opt *bf_agent_opt_find_key(const char *key);
/* Row t as a getopt_long option (flag: no_argument, else
 * required_argument) whose value is base + t's index in the table, so
 * that bf_agent_opt_table[c - base] is the row getopt_long answered. */
struct option bf_agent_opt_longopt(const struct bf_agent_opt *t, int base);

/* Values given (a field counts only when its bit is set in `given`). */
struct bf_agent_optset {
	unsigned given;                  /* 1u << enum bf_agent_field */
	int sizes[BF_AGENT_MAX_SIZES];   /* GEMM n values, in order given */
	int nsizes;
	enum bf_dtype dtypes[BF_AGENT_MAX_DTYPES];
	int ndtypes;
	int devices;                     /* enum bf_agent_devices */
	int iters, cpu_iters, cpu_warmup, warmup;
	long seed;
	int transfer_mib;
	int bandwidth_mib;
	/* BF_AOT_FLAG fields are set by their given bit alone. */
};

static inline int bf_agent_optset_has(const struct bf_agent_optset *s,
				      enum bf_agent_field f)
{
	return (s->given >> f) & 1u;
}

/*
 * Parses and checks one value of `opt` (NULL for a flag) into *set and
 * marks the field given. `label` names the value in messages; NULL means
 * "--<name>" as the agent spells it. Giving sizes twice (--size and
 * --sizes) is an error; any other option given again replaces its value.
 * Errors: BF_ERR_USAGE with one line in detail, the agent's own words:
 * "--size 'abc': expected an integer from 1 to 65536". Pure.
 */
enum bf_err bf_agent_opt_parse(const struct bf_agent_opt *opt,
			       const char *label, const char *value,
			       struct bf_agent_optset *set, char *detail,
			       size_t detail_len);

/* Checks every given field of a set built any way (ranges, counts, known
 * dtypes and devices) and that it holds no two fields that contradict
 * each other (--no-bandwidth and --bandwidth-mib: "--no-bandwidth and
 * --bandwidth-mib: give only one"). BF_OK or BF_ERR_USAGE with one line in
 * detail, worded as bf_agent_opt_parse words it. Pure. */
enum bf_err bf_agent_optset_validate(const struct bf_agent_optset *set,
				     char *detail, size_t detail_len);

/* The fields (as a mask of 1u << field) that a value given for f replaces:
 * f itself and any field that contradicts it (--no-bandwidth replaces
 * --bandwidth-mib and the other way round). Pure. */
unsigned bf_agent_field_replaces(enum bf_agent_field f);

/* Copies into *set each field that defaults has and set neither has nor
 * replaces (bf_agent_field_replaces). */
void bf_agent_optset_merge(struct bf_agent_optset *set,
			   const struct bf_agent_optset *defaults);

/* The agent's arguments for the given fields (after the program name):
 * flags first, then "--sizes 64,96", "--dtypes fp32,bf16", "--device cpu",
 * "--iters 6", ... in table order; sizes always as --sizes. Parsing the
 * result gives the same set back. NULL-terminated; caller frees with
 * bf_xfree_strv. */
char **bf_agent_optset_to_argv(const struct bf_agent_optset *set);

#endif
