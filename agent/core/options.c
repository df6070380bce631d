/* Command-line parsing for the agent, through the option table in
 * common/agent_opts.c; see options.h. */
#include "core/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "agent_opts.h"

const char *agent_usage(void)
{
	return "usage: agent [--size N | --sizes N,N,...] [--dtypes fp32,fp16,bf16,tf32,fp8]\n"
	       "             [--iters N] [--warmup N] [--cpu-iters N] [--cpu-warmup N]\n"
	       "             [--device cpu|cuda|all]\n"
	       "             [--seed N] [--transfer-mib N] [--no-checks] [--no-gemm]\n"
	       "             [--cold-cache] [--no-bandwidth | --bandwidth-mib N]\n"
	       "             [--no-batching]\n"
	       "             [--human] [--exit-on-hangup] [--help] [--version]\n"
	       "\n"
	       "Runs tensor checks and a GEMM sweep on every device present and writes\n"
	       "one JSON record per line to stdout (see docs/schema.md); --human prints\n"
	       "tables instead, with each device's rated peak and bound and how they\n"
	       "were derived (the CPU's from a short FMA probe per core cluster).\n"
	       "Defaults: --size 4096 --iters 20 --warmup 5\n"
	       "--dtypes fp32,fp16,bf16, CPU iterations min(iters, max(3, iters/4)),\n"
	       "CPU warm-up the --warmup given, else 1. Before the sweep, memory\n"
	       "bandwidth per device (CPU triad, GPU copies) for the roofline; after\n"
	       "it, the seed's batching case (20 one-row scorings vs one (20, 30)\n"
	       "batch). fp8: e4m3 inputs with per-tensor scales, fp32 accumulation,\n"
	       "bf16 output, through cuBLASLt on GPUs of compute capability 8.9 and\n"
	       "later (n a multiple of 16); skipped with the reason elsewhere and on\n"
	       "the CPU.\n"
	       "Exit status: 0 all passed, 1 a check failed, 2 usage error, 4 could not run.\n";
}

/* The agent's defaults for what the set leaves out (documented in the
 * usage text and options.h). */
static void apply_defaults(const struct bf_agent_optset *s,
			   struct agent_opts *o)
{
	o->sizes[0] = 4096;
	o->nsizes = 1;
	if (bf_agent_optset_has(s, BF_AF_SIZES)) {
		memcpy(o->sizes, s->sizes, sizeof(o->sizes));
		o->nsizes = s->nsizes;
	}
	o->dtypes[0] = BF_DTYPE_FP32;
	o->dtypes[1] = BF_DTYPE_FP16;
	o->dtypes[2] = BF_DTYPE_BF16;
	o->ndtypes = 3;
	if (bf_agent_optset_has(s, BF_AF_DTYPES)) {
		memcpy(o->dtypes, s->dtypes, sizeof(o->dtypes));
		o->ndtypes = s->ndtypes;
	}
	o->devices = bf_agent_optset_has(s, BF_AF_DEVICE) ? s->devices :
							   AGENT_DEV_ALL;
	o->iters = bf_agent_optset_has(s, BF_AF_ITERS) ? s->iters : 20;
	o->warmup = bf_agent_optset_has(s, BF_AF_WARMUP) ? s->warmup : 5;
	o->seed = bf_agent_optset_has(s, BF_AF_SEED) ? (uint64_t)s->seed : 1;
	o->transfer_mib = bf_agent_optset_has(s, BF_AF_TRANSFER_MIB) ?
				  s->transfer_mib : 64;
	o->human = bf_agent_optset_has(s, BF_AF_HUMAN);
	o->checks = !bf_agent_optset_has(s, BF_AF_NO_CHECKS);
	o->gemm = !bf_agent_optset_has(s, BF_AF_NO_GEMM);
	o->exit_on_hangup = bf_agent_optset_has(s, BF_AF_EXIT_ON_HANGUP);
	o->cold_cache = bf_agent_optset_has(s, BF_AF_COLD_CACHE);
	o->bandwidth = !bf_agent_optset_has(s, BF_AF_NO_BANDWIDTH);
	o->bandwidth_mib = bf_agent_optset_has(s, BF_AF_BANDWIDTH_MIB) ?
				   s->bandwidth_mib : 0;
	o->batching = !bf_agent_optset_has(s, BF_AF_NO_BATCHING);
	if (bf_agent_optset_has(s, BF_AF_CPU_ITERS)) {
		o->cpu_iters = s->cpu_iters;
	} else {
		/* The seed's protocol: CPU GEMMs are slow, so fewer samples,
		 * min(iters, max(3, iters/4)): never more than asked for. */
		int c_it = o->iters / 4 > 3 ? o->iters / 4 : 3;

		o->cpu_iters = c_it < o->iters ? c_it : o->iters;
	}
	if (bf_agent_optset_has(s, BF_AF_CPU_WARMUP))
		o->cpu_warmup = s->cpu_warmup;
	else
		/* One untimed CPU GEMM is the warm-up a CPU needs: the first
		 * call starts OpenBLAS's threads and faults in C's pages;
		 * later calls run at the same speed. Five at n = 4096 cost
		 * as much as the timed ones. An explicit --warmup still
		 * applies to every device. */
		o->cpu_warmup = bf_agent_optset_has(s, BF_AF_WARMUP) ? o->warmup : 1;
}

enum bf_err agent_opts_parse(int argc, char **argv, struct agent_opts *o,
			     char *detail, size_t detail_len)
{
	/* getopt_long values: the table's rows from O_TABLE on, in order. */
	enum { O_TABLE = 256, O_HELP = 512, O_VERSION };
	static struct option longopts[BF_AF__COUNT + 8];
	struct bf_agent_optset set;
	enum bf_err err = BF_OK;
	int c, n = 0;

	for (const struct bf_agent_opt *t = bf_agent_opt_table; t->name; t++)
		longopts[n++] = bf_agent_opt_longopt(t, O_TABLE);
	longopts[n++] = (struct option){ "help", no_argument, NULL, O_HELP };
	longopts[n++] = (struct option){ "version", no_argument, NULL, O_VERSION };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };

	memset(o, 0, sizeof(*o));
	memset(&set, 0, sizeof(set));
	optind = 0; /* glibc: full reinitialisation, so tests can call twice */
	opterr = 0;
	while (err == BF_OK &&
	       (c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case O_HELP:
			o->help = 1;
			break;
		case O_VERSION:
			o->version = 1;
			break;
		case ':':
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "%s: needs a value", argv[optind - 1]);
			break;
		case '?':
			/* getopt_long leaves optopt at the character of an
			 * unknown short option (optind may still point at
			 * "-xy", so argv[optind - 1] is not it), at the
			 * option's value for a long option given a value it
			 * does not take, and at 0 for an unknown long one. */
			if (optopt >= O_TABLE)
				err = bf_fail(detail, detail_len, BF_ERR_USAGE,
					      "%s: takes no value",
					      argv[optind - 1]);
			else if (optopt > 0)
				err = bf_fail(detail, detail_len, BF_ERR_USAGE,
					      "-%c: unknown option", optopt);
			else
				err = bf_fail(detail, detail_len, BF_ERR_USAGE,
					      "%s: unknown option",
					      argv[optind - 1]);
			break;
		default:
			err = bf_agent_opt_parse(&bf_agent_opt_table[c - O_TABLE],
						 NULL, optarg, &set, detail,
						 detail_len);
			break;
		}
	}
	if (err == BF_OK && optind < argc)
		err = bf_fail(detail, detail_len, BF_ERR_USAGE,
			      "'%s': unexpected argument", argv[optind]);
	/* The set as a whole: options that contradict each other, in the
	 * words ctl uses for them. */
	if (err == BF_OK)
		err = bf_agent_optset_validate(&set, detail, detail_len);
	if (err != BF_OK)
		return err;
	apply_defaults(&set, o);
	return BF_OK;
}
