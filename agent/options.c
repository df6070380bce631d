/* Command-line parsing for the agent; see options.h. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bf_parse.h"
#include "xmalloc.h"

const char *agent_usage(void)
{
	return "usage: agent [--size N | --sizes N,N,...] [--dtypes fp32,fp16,bf16,tf32]\n"
	       "             [--iters N] [--warmup N] [--cpu-iters N] [--cpu-warmup N]\n"
	       "             [--device cpu|cuda|all]\n"
	       "             [--seed N] [--transfer-mib N] [--no-checks] [--no-gemm]\n"
	       "             [--human] [--exit-on-hangup] [--help] [--version]\n"
	       "\n"
	       "Runs tensor checks and a GEMM sweep on every device present and writes\n"
	       "one JSON record per line to stdout (see docs/schema.md); --human prints\n"
	       "a table instead. Defaults: --size 4096 --iters 20 --warmup 5\n"
	       "--dtypes fp32,fp16,bf16, CPU iterations max(3, iters/4), CPU warm-up\n"
	       "the --warmup given, else 1.\n"
	       "Exit status: 0 all passed, 1 a check failed, 2 usage error, 4 could not run.\n";
}

static enum bf_err int_arg(const char *name, const char *s, long min, long max,
			   int *out, char *detail, size_t detail_len)
{
	long v;

	if (bf_parse_long(s, min, max, &v) < 0)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s '%s': expected an integer from %ld to %ld",
			       name, s, min, max);
	*out = (int)v;
	return BF_OK;
}

static enum bf_err parse_sizes(const char *name, const char *s,
			       struct agent_opts *o, char *detail,
			       size_t detail_len)
{
	char *copy = bf_xstrdup(s), *rest = copy, *tok;
	enum bf_err err = BF_OK;

	o->nsizes = 0;
	if (*s == '\0')
		rest = NULL; /* reported below as "no size given" */
	/* strsep, not strtok: "64,,128" has an empty item, which is an
	 * error rather than something to skip. */
	while (err == BF_OK && (tok = strsep(&rest, ",")) != NULL) {
		if (*tok == '\0') {
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "%s '%s': empty item in the list", name, s);
			break;
		}
		if (o->nsizes == AGENT_MAX_SIZES) {
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "%s: at most %d sizes", name,
				      AGENT_MAX_SIZES);
			break;
		}
		err = int_arg(name, tok, 1, AGENT_MAX_N,
			      &o->sizes[o->nsizes++], detail, detail_len);
	}
	if (err == BF_OK && o->nsizes == 0)
		err = bf_fail(detail, detail_len, BF_ERR_USAGE,
			      "%s '%s': no size given", name, s);
	free(copy);
	return err;
}

static enum bf_err parse_dtypes(const char *s, struct agent_opts *o,
				char *detail, size_t detail_len)
{
	char *copy = bf_xstrdup(s), *save = NULL, *tok;
	enum bf_err err = BF_OK;
	enum bf_dtype dt;

	o->ndtypes = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (bf_dtype_parse(tok, &dt) < 0 ||
		    (dt != BF_DTYPE_FP32 && dt != BF_DTYPE_FP16 &&
		     dt != BF_DTYPE_BF16 && dt != BF_DTYPE_TF32)) {
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "--dtypes '%s': unknown dtype '%s' (use fp32, fp16, bf16, tf32)",
				      s, tok);
			break;
		}
		for (int i = 0; i < o->ndtypes; i++)
			if (o->dtypes[i] == dt)
				goto next; /* ignore repeats */
		o->dtypes[o->ndtypes++] = dt;
next:;
	}
	if (err == BF_OK && o->ndtypes == 0)
		err = bf_fail(detail, detail_len, BF_ERR_USAGE,
			      "--dtypes '%s': no dtype given", s);
	free(copy);
	return err;
}

enum bf_err agent_opts_parse(int argc, char **argv, struct agent_opts *o,
			     char *detail, size_t detail_len)
{
	enum { O_SIZE = 256, O_SIZES, O_DTYPES, O_ITERS, O_WARMUP, O_CPU_ITERS, O_CPU_WARMUP,
	       O_DEVICE, O_SEED, O_TRANSFER, O_HUMAN, O_NO_CHECKS, O_NO_GEMM,
	       O_HANGUP, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, O_SIZE },
		{ "sizes", required_argument, NULL, O_SIZES },
		{ "dtypes", required_argument, NULL, O_DTYPES },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "cpu-iters", required_argument, NULL, O_CPU_ITERS },
		{ "cpu-warmup", required_argument, NULL, O_CPU_WARMUP },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "transfer-mib", required_argument, NULL, O_TRANSFER },
		{ "human", no_argument, NULL, O_HUMAN },
		{ "no-checks", no_argument, NULL, O_NO_CHECKS },
		{ "no-gemm", no_argument, NULL, O_NO_GEMM },
		{ "exit-on-hangup", no_argument, NULL, O_HANGUP },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	enum bf_err err = BF_OK;
	int sizes_given = 0, warmup_given = 0, c;
	long seed;

	memset(o, 0, sizeof(*o));
	o->sizes[0] = 4096;
	o->nsizes = 1;
	o->dtypes[0] = BF_DTYPE_FP32;
	o->dtypes[1] = BF_DTYPE_FP16;
	o->dtypes[2] = BF_DTYPE_BF16;
	o->ndtypes = 3;
	o->iters = 20;
	o->warmup = 5;
	o->cpu_iters = -1;
	o->cpu_warmup = -1;
	o->devices = AGENT_DEV_ALL;
	o->seed = 1;
	o->transfer_mib = 64;
	o->checks = 1;
	o->gemm = 1;

	optind = 0; /* glibc: full reinitialisation, so tests can call twice */
	opterr = 0;
	while (err == BF_OK &&
	       (c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case O_SIZE:
		case O_SIZES:
			if (sizes_given++)
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "--size/--sizes: give only one");
			err = parse_sizes(c == O_SIZE ? "--size" : "--sizes",
					  optarg, o, detail, detail_len);
			if (err == BF_OK && c == O_SIZE && o->nsizes != 1)
				err = bf_fail(detail, detail_len, BF_ERR_USAGE,
					      "--size '%s': one size; use --sizes for a list",
					      optarg);
			break;
		case O_DTYPES:
			err = parse_dtypes(optarg, o, detail, detail_len);
			break;
		case O_ITERS:
			err = int_arg("--iters", optarg, 1, 100000, &o->iters,
				      detail, detail_len);
			break;
		case O_WARMUP:
			err = int_arg("--warmup", optarg, 0, 100000, &o->warmup,
				      detail, detail_len);
			warmup_given = 1;
			break;
		case O_CPU_WARMUP:
			err = int_arg("--cpu-warmup", optarg, 0, 100000,
				      &o->cpu_warmup, detail, detail_len);
			break;
		case O_CPU_ITERS:
			err = int_arg("--cpu-iters", optarg, 1, 100000,
				      &o->cpu_iters, detail, detail_len);
			break;
		case O_DEVICE:
			if (strcmp(optarg, "cpu") == 0)
				o->devices = AGENT_DEV_CPU;
			else if (strcmp(optarg, "cuda") == 0 ||
				 strcmp(optarg, "gpu") == 0)
				o->devices = AGENT_DEV_CUDA;
			else if (strcmp(optarg, "all") == 0)
				o->devices = AGENT_DEV_ALL;
			else
				err = bf_fail(detail, detail_len, BF_ERR_USAGE,
					      "--device '%s': expected cpu, cuda or all",
					      optarg);
			break;
		case O_SEED:
			if (bf_parse_long(optarg, 0, 2147483647L, &seed) < 0)
				err = bf_fail(detail, detail_len, BF_ERR_USAGE,
					      "--seed '%s': expected an integer from 0 to 2147483647",
					      optarg);
			else
				o->seed = (uint64_t)seed;
			break;
		case O_TRANSFER:
			err = int_arg("--transfer-mib", optarg, 1, 65536,
				      &o->transfer_mib, detail, detail_len);
			break;
		case O_HUMAN:
			o->human = 1;
			break;
		case O_NO_CHECKS:
			o->checks = 0;
			break;
		case O_NO_GEMM:
			o->gemm = 0;
			break;
		case O_HANGUP:
			o->exit_on_hangup = 1;
			break;
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
		default:
			/* getopt_long leaves optopt at the character of an
			 * unknown short option (optind may still point at
			 * "-xy", so argv[optind - 1] is not it), at the
			 * option's value for a long option given a value it
			 * does not take, and at 0 for an unknown long one. */
			if (optopt >= O_SIZE)
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
		}
	}
	if (err == BF_OK && optind < argc)
		err = bf_fail(detail, detail_len, BF_ERR_USAGE,
			      "'%s': unexpected argument", argv[optind]);
	if (err == BF_OK && o->cpu_iters < 0) {
		/* The seed's protocol: CPU GEMMs are slow, so fewer samples,
		 * max(3, iters/4), but never more than asked for. */
		int c_it = o->iters / 4 > 3 ? o->iters / 4 : 3;

		o->cpu_iters = c_it < o->iters ? c_it : o->iters;
	}
	if (err == BF_OK && o->cpu_warmup < 0)
		/* One untimed CPU GEMM is the warm-up a CPU needs: the first
		 * call starts OpenBLAS's threads and faults in C's pages;
		 * later calls run at the same speed. Five at n = 4096 cost
		 * as much as the timed ones. An explicit --warmup still
		 * applies to every device. */
		o->cpu_warmup = warmup_given ? o->warmup : 1;
	return err;
}
