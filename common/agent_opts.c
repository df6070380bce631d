/* The agent's option table and its parser; see agent_opts.h. */
#include "agent_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_parse.h"
#include "xmalloc.h"

/* The agent's argv lists flags first and then these in this order, which
 * is the order ctl always wrote them in. */
const struct bf_agent_opt bf_agent_opt_table[] = {
	{ "size", NULL, BF_AF_SIZES, BF_AOT_SIZE, 1, BF_AGENT_MAX_N },
	{ "sizes", "sizes", BF_AF_SIZES, BF_AOT_SIZE_LIST, 1, BF_AGENT_MAX_N },
	{ "dtypes", "dtypes", BF_AF_DTYPES, BF_AOT_DTYPE_LIST, 0, 0 },
	{ "device", "device", BF_AF_DEVICE, BF_AOT_DEVICE, 0, 0 },
	{ "iters", "iters", BF_AF_ITERS, BF_AOT_INT, 1, BF_AGENT_MAX_ITERS },
	{ "cpu-iters", "cpu_iters", BF_AF_CPU_ITERS, BF_AOT_INT, 1,
	  BF_AGENT_MAX_ITERS },
	{ "cpu-warmup", "cpu_warmup", BF_AF_CPU_WARMUP, BF_AOT_INT, 0,
	  BF_AGENT_MAX_ITERS },
	{ "warmup", "warmup", BF_AF_WARMUP, BF_AOT_INT, 0, BF_AGENT_MAX_ITERS },
	{ "seed", NULL, BF_AF_SEED, BF_AOT_INT, 0, 2147483647L },
	{ "transfer-mib", NULL, BF_AF_TRANSFER_MIB, BF_AOT_INT, 1, 65536 },
	{ "bandwidth-mib", "bandwidth_mib", BF_AF_BANDWIDTH_MIB, BF_AOT_INT, 1,
	  65536 },
	{ "exit-on-hangup", NULL, BF_AF_EXIT_ON_HANGUP, BF_AOT_FLAG, 0, 0 },
	{ "human", NULL, BF_AF_HUMAN, BF_AOT_FLAG, 0, 0 },
	{ "no-checks", NULL, BF_AF_NO_CHECKS, BF_AOT_FLAG, 0, 0 },
	{ "no-gemm", NULL, BF_AF_NO_GEMM, BF_AOT_FLAG, 0, 0 },
	{ "cold-cache", NULL, BF_AF_COLD_CACHE, BF_AOT_FLAG, 0, 0 },
	{ "no-bandwidth", NULL, BF_AF_NO_BANDWIDTH, BF_AOT_FLAG, 0, 0 },
	{ "no-batching", NULL, BF_AF_NO_BATCHING, BF_AOT_FLAG, 0, 0 },
	{ NULL, NULL, BF_AF__COUNT, BF_AOT_FLAG, 0, 0 },
};

/* Fields that contradict each other: a set holds one of each pair, and a
 * value given for one replaces the other (bf_agent_field_replaces). */
static const struct {
	enum bf_agent_field a, b;
} exclusive[] = {
	{ BF_AF_NO_BANDWIDTH, BF_AF_BANDWIDTH_MIB },
};

unsigned bf_agent_field_replaces(enum bf_agent_field f)
{
	unsigned mask = 1u << f;

	for (size_t i = 0; i < sizeof(exclusive) / sizeof(exclusive[0]); i++) {
		if (exclusive[i].a == f)
			mask |= 1u << exclusive[i].b;
		if (exclusive[i].b == f)
			mask |= 1u << exclusive[i].a;
	}
	return mask;
}

const struct bf_agent_opt *bf_agent_opt_find(const char *name)
{
	for (const struct bf_agent_opt *o = bf_agent_opt_table; o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

const struct bf_agent_opt *bf_agent_opt_find_key(const char *key)
{
	for (const struct bf_agent_opt *o = bf_agent_opt_table; o->name; o++)
		if (o->inv_key && strcmp(o->inv_key, key) == 0)
			return o;
	return NULL;
}

struct option bf_agent_opt_longopt(const struct bf_agent_opt *t, int base)
{
	return (struct option){
		t->name, t->type == BF_AOT_FLAG ? no_argument : required_argument,
		NULL, base + (int)(t - bf_agent_opt_table)
	};
}

/* The row that writes a field into argv (sizes: --sizes). */
static const struct bf_agent_opt *opt_for_field(enum bf_agent_field f)
{
	for (const struct bf_agent_opt *o = bf_agent_opt_table; o->name; o++)
		if (o->field == f && o->type != BF_AOT_SIZE)
			return o;
	return NULL;
}

static int *int_field(struct bf_agent_optset *s, enum bf_agent_field f)
{
	switch (f) {
	case BF_AF_ITERS:
		return &s->iters;
	case BF_AF_CPU_ITERS:
		return &s->cpu_iters;
	case BF_AF_CPU_WARMUP:
		return &s->cpu_warmup;
	case BF_AF_WARMUP:
		return &s->warmup;
	case BF_AF_TRANSFER_MIB:
		return &s->transfer_mib;
	case BF_AF_BANDWIDTH_MIB:
		return &s->bandwidth_mib;
	default:
		return NULL;
	}
}

/* int_field for reading; the cast only lets the two share one switch. */
static const int *int_field_c(const struct bf_agent_optset *s,
			      enum bf_agent_field f)
{
	return int_field((struct bf_agent_optset *)s, f);
}

static enum bf_err int_value(const char *label, const char *s, long min,
			     long max, long *out, char *detail,
			     size_t detail_len)
{
	if (bf_parse_long(s, min, max, out) < 0)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "%s '%s': expected an integer from %ld to %ld",
			       label, s, min, max);
	return BF_OK;
}

static enum bf_err parse_sizes(const struct bf_agent_opt *opt,
			       const char *label, const char *s,
			       struct bf_agent_optset *set, char *detail,
			       size_t detail_len)
{
	char *copy = bf_xstrdup(s), *rest = copy, *tok;
	enum bf_err err = BF_OK;
	long v;

	set->nsizes = 0;
	if (*s == '\0')
		rest = NULL; /* reported below as "no size given" */
	/* strsep, not strtok: "64,,128" has an empty item, which is an
	 * error rather than something to skip. */
	while (err == BF_OK && (tok = strsep(&rest, ",")) != NULL) {
		if (*tok == '\0') {
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "%s '%s': empty item in the list", label, s);
			break;
		}
		if (set->nsizes == BF_AGENT_MAX_SIZES) {
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "%s: at most %d sizes", label,
				      BF_AGENT_MAX_SIZES);
			break;
		}
		err = int_value(label, tok, opt->min, opt->max, &v, detail,
				detail_len);
		if (err == BF_OK)
			set->sizes[set->nsizes++] = (int)v;
	}
	if (err == BF_OK && set->nsizes == 0)
		err = bf_fail(detail, detail_len, BF_ERR_USAGE,
			      "%s '%s': no size given", label, s);
	if (err == BF_OK && opt->type == BF_AOT_SIZE && set->nsizes != 1)
		err = bf_fail(detail, detail_len, BF_ERR_USAGE,
			      "%s '%s': one size; use --sizes for a list",
			      label, s);
	free(copy);
	return err;
}

/* The GEMM dtypes the agent sweeps. */
static int gemm_dtype(enum bf_dtype dt)
{
	return dt == BF_DTYPE_FP32 || dt == BF_DTYPE_FP16 ||
	       dt == BF_DTYPE_BF16 || dt == BF_DTYPE_TF32 ||
	       dt == BF_DTYPE_FP8;
}

static enum bf_err parse_dtypes(const char *label, const char *s,
				struct bf_agent_optset *set, char *detail,
				size_t detail_len)
{
	char *copy = bf_xstrdup(s), *save = NULL, *tok;
	enum bf_err err = BF_OK;
	enum bf_dtype dt;

	set->ndtypes = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int seen = 0;

		if (bf_dtype_parse(tok, &dt) < 0 || !gemm_dtype(dt)) {
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "%s '%s': unknown dtype '%s' (use fp32, fp16, bf16, tf32, fp8)",
				      label, s, tok);
			break;
		}
		for (int i = 0; i < set->ndtypes; i++)
			seen |= set->dtypes[i] == dt; /* repeats are dropped */
		if (!seen)
			set->dtypes[set->ndtypes++] = dt;
	}
	if (err == BF_OK && set->ndtypes == 0)
		err = bf_fail(detail, detail_len, BF_ERR_USAGE,
			      "%s '%s': no dtype given", label, s);
	free(copy);
	return err;
}

enum bf_err bf_agent_opt_parse(const struct bf_agent_opt *opt,
			       const char *label, const char *value,
			       struct bf_agent_optset *set, char *detail,
			       size_t detail_len)
{
	char flag[40];
	enum bf_err err = BF_OK;
	long v;

	if (!label) {
		/* fits: opt is a row of bf_agent_opt_table, whose names are
		 * 14 bytes at most ("exit-on-hangup"), flag 40 */
		snprintf(flag, sizeof(flag), "--%s", opt->name);
		label = flag;
	}
	switch (opt->type) {
	case BF_AOT_SIZE:
	case BF_AOT_SIZE_LIST:
		if (bf_agent_optset_has(set, BF_AF_SIZES))
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "--size/--sizes: give only one");
		err = parse_sizes(opt, label, value, set, detail, detail_len);
		break;
	case BF_AOT_DTYPE_LIST:
		err = parse_dtypes(label, value, set, detail, detail_len);
		break;
	case BF_AOT_DEVICE:
		if (strcmp(value, "cpu") == 0)
			set->devices = BF_AGENT_DEV_CPU;
		else if (strcmp(value, "cuda") == 0 || strcmp(value, "gpu") == 0)
			set->devices = BF_AGENT_DEV_CUDA;
		else if (strcmp(value, "all") == 0)
			set->devices = BF_AGENT_DEV_ALL;
		else
			err = bf_fail(detail, detail_len, BF_ERR_USAGE,
				      "%s '%s': expected cpu, cuda or all",
				      label, value);
		break;
	case BF_AOT_INT:
		err = int_value(label, value, opt->min, opt->max, &v, detail,
				detail_len);
		if (err == BF_OK && opt->field == BF_AF_SEED)
			set->seed = v;
		else if (err == BF_OK)
			*int_field(set, opt->field) = (int)v;
		break;
	case BF_AOT_FLAG:
		break;
	}
	if (err == BF_OK)
		set->given |= 1u << opt->field;
	return err;
}

static enum bf_err out_of_range(const struct bf_agent_opt *o, long v,
				char *detail, size_t detail_len)
{
	return bf_fail(detail, detail_len, BF_ERR_USAGE,
		       "--%s '%ld': expected an integer from %ld to %ld",
		       o->name, v, o->min, o->max);
}

enum bf_err bf_agent_optset_validate(const struct bf_agent_optset *set,
				     char *detail, size_t detail_len)
{
	for (size_t i = 0; i < sizeof(exclusive) / sizeof(exclusive[0]); i++)
		if (bf_agent_optset_has(set, exclusive[i].a) &&
		    bf_agent_optset_has(set, exclusive[i].b))
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "--%s and --%s: give only one",
				       opt_for_field(exclusive[i].a)->name,
				       opt_for_field(exclusive[i].b)->name);
	for (int f = 0; f < BF_AF__COUNT; f++) {
		const struct bf_agent_opt *o = opt_for_field(f);
		const int *iv;

		if (!bf_agent_optset_has(set, f))
			continue;
		switch (o->type) {
		case BF_AOT_SIZE:
		case BF_AOT_SIZE_LIST:
			if (set->nsizes < 1 || set->nsizes > BF_AGENT_MAX_SIZES)
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "--sizes: from 1 to %d sizes",
					       BF_AGENT_MAX_SIZES);
			for (int i = 0; i < set->nsizes; i++)
				if (set->sizes[i] < o->min || set->sizes[i] > o->max)
					return out_of_range(o, set->sizes[i],
							    detail, detail_len);
			break;
		case BF_AOT_DTYPE_LIST:
			if (set->ndtypes < 1 || set->ndtypes > BF_AGENT_MAX_DTYPES)
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "--dtypes: from 1 to %d dtypes",
					       BF_AGENT_MAX_DTYPES);
			for (int i = 0; i < set->ndtypes; i++)
				if ((int)set->dtypes[i] < 0 ||
				    set->dtypes[i] >= BF_DTYPE__COUNT ||
				    !gemm_dtype(set->dtypes[i]))
					return bf_fail(detail, detail_len,
						       BF_ERR_USAGE,
						       "--dtypes: not a GEMM dtype (use fp32, fp16, bf16, tf32, fp8)");
			break;
		case BF_AOT_DEVICE:
			if (set->devices < BF_AGENT_DEV_CPU ||
			    set->devices > BF_AGENT_DEV_ALL)
				return bf_fail(detail, detail_len, BF_ERR_USAGE,
					       "--device: expected cpu, cuda or all");
			break;
		case BF_AOT_INT:
			iv = int_field_c(set, o->field);
			if (iv && (*iv < o->min || *iv > o->max))
				return out_of_range(o, *iv, detail, detail_len);
			if (!iv && (set->seed < o->min || set->seed > o->max))
				return out_of_range(o, set->seed, detail,
						    detail_len);
			break;
		case BF_AOT_FLAG:
			break;
		}
	}
	return BF_OK;
}

void bf_agent_optset_merge(struct bf_agent_optset *set,
			   const struct bf_agent_optset *defaults)
{
	unsigned replaced = 0, take;

	for (int f = 0; f < BF_AF__COUNT; f++)
		if (bf_agent_optset_has(set, f))
			replaced |= bf_agent_field_replaces(f);
	take = defaults->given & ~replaced;

	if (take & (1u << BF_AF_SIZES)) {
		memcpy(set->sizes, defaults->sizes, sizeof(set->sizes));
		set->nsizes = defaults->nsizes;
	}
	if (take & (1u << BF_AF_DTYPES)) {
		memcpy(set->dtypes, defaults->dtypes, sizeof(set->dtypes));
		set->ndtypes = defaults->ndtypes;
	}
	if (take & (1u << BF_AF_DEVICE))
		set->devices = defaults->devices;
	if (take & (1u << BF_AF_SEED))
		set->seed = defaults->seed;
	for (int f = 0; f < BF_AF__COUNT; f++) {
		int *dst = int_field(set, f);

		if (dst && (take & (1u << f)))
			*dst = *int_field_c(defaults, f);
	}
	set->given |= take;
}

/* Appends s to argv (n entries so far, room for it and the NULL). */
static void push(char ***argv, int *n, char *s)
{
	*argv = bf_xrealloc(*argv, (size_t)(*n + 2) * sizeof(**argv));
	(*argv)[(*n)++] = s;
	(*argv)[*n] = NULL;
}

char **bf_agent_optset_to_argv(const struct bf_agent_optset *set)
{
	char **argv = bf_xcalloc(1, sizeof(*argv));
	int n = 0;

	for (const struct bf_agent_opt *o = bf_agent_opt_table; o->name; o++)
		if (o->type == BF_AOT_FLAG && bf_agent_optset_has(set, o->field))
			push(&argv, &n, bf_xasprintf("--%s", o->name));
	for (const struct bf_agent_opt *o = bf_agent_opt_table; o->name; o++) {
		char *v = NULL;
		const int *iv;

		if (o->type == BF_AOT_FLAG || o->type == BF_AOT_SIZE ||
		    !bf_agent_optset_has(set, o->field))
			continue;
		switch (o->type) {
		case BF_AOT_SIZE_LIST:
			for (int i = 0; i < set->nsizes; i++) {
				char *w = bf_xasprintf("%s%s%d", v ? v : "",
						       i ? "," : "", set->sizes[i]);

				free(v);
				v = w;
			}
			break;
		case BF_AOT_DTYPE_LIST:
			for (int i = 0; i < set->ndtypes; i++) {
				char *w = bf_xasprintf("%s%s%s", v ? v : "",
						       i ? "," : "",
						       bf_dtype_name(set->dtypes[i]));

				free(v);
				v = w;
			}
			break;
		case BF_AOT_DEVICE:
			v = bf_xstrdup(set->devices == BF_AGENT_DEV_CPU ? "cpu" :
				       set->devices == BF_AGENT_DEV_CUDA ? "cuda" :
									  "all");
			break;
		case BF_AOT_INT:
			iv = int_field_c(set, o->field);
			v = iv ? bf_xasprintf("%d", *iv) :
				 bf_xasprintf("%ld", set->seed);
			break;
		default:
			break;
		}
		if (!v)
			continue; /* an empty list: nothing the agent would take */
		push(&argv, &n, bf_xasprintf("--%s", o->name));
		push(&argv, &n, v);
	}
	return argv;
}
