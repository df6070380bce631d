/*
 * The one parser of ctl's command lines: a command's option table (data)
 * made into getopt_long's, read once, into struct ctl_args. See args.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/args.h"
#include "bf_text.h"
#include "xmalloc.h"

/* getopt_long's answer for a long option without a short letter: 256 and
 * up, as ctl_option_error needs (cli.h); --help's is the last. */
#define LONG_CODE(i) (256 + (i))
#define HELP_CODE LONG_CODE(CTL_ARGS_MAXOPTS)

static const char order_prefix[] = { [CTL_ARGS_PERMUTE] = '\0',
				     [CTL_ARGS_IN_ORDER] = '-',
				     [CTL_ARGS_STOP] = '+' };

/* spec as getopt_long's short options and long table (longopts holds
 * nopts + 2 rows). */
static void getopt_tables(const struct ctl_args_spec *spec, char *shortopts,
			  struct option *longopts)
{
	int n = 0, k = 0;

	if (order_prefix[spec->order])
		shortopts[k++] = order_prefix[spec->order];
	shortopts[k++] = ':';
	for (int i = 0; i < spec->nopts; i++) {
		const struct ctl_opt *o = &spec->opts[i];
		int has_arg = o->arg == CTL_OPT_FLAG ? no_argument :
			      required_argument;

		if (o->letter) {
			shortopts[k++] = o->letter;
			if (has_arg)
				shortopts[k++] = ':';
		}
		if (o->name)
			longopts[n++] = (struct option){
				o->name, has_arg, NULL,
				o->letter ? o->letter : LONG_CODE(i)
			};
	}
	shortopts[k] = '\0';
	longopts[n++] = (struct option){ "help", no_argument, NULL, HELP_CODE };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* The option getopt_long answered c for; -1 none. */
static int option_index(const struct ctl_args_spec *spec, int c)
{
	if (c >= LONG_CODE(0) && c < LONG_CODE(spec->nopts))
		return c - LONG_CODE(0);
	for (int i = 0; i < spec->nopts; i++)
		if (spec->opts[i].letter && spec->opts[i].letter == c)
			return i;
	return -1;
}

static void add(struct ctl_args *a, int opt, char *value, int first,
		int end, int *cap)
{
	if (a->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		a->v = bf_xrealloc(a->v, (size_t)*cap * sizeof(*a->v));
	}
	a->v[a->n++] = (struct ctl_arg){ opt, value, first, end };
}

int ctl_args_parse(const char *command, const struct ctl_args_spec *spec,
		   int argc, char **argv, struct ctl_args *a)
{
	char shortopts[2 + 3 * CTL_ARGS_MAXOPTS + 1];
	struct option longopts[CTL_ARGS_MAXOPTS + 2];
	int c, prev = 1, cap = 0, np = 0;

	memset(a, 0, sizeof(*a));
	if (spec->nopts > CTL_ARGS_MAXOPTS)
		abort(); /* a table too long is the program's fault */
	getopt_tables(spec, shortopts, longopts);
	a->command = command;
	a->spec = spec;
	a->argc = argc;
	a->argv = argv;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int i = option_index(spec, c);

		if (c == 1) {
			add(a, CTL_ARG_POS, optarg, prev, optind, &cap);
		} else if (i >= 0) {
			add(a, i, spec->opts[i].arg == CTL_OPT_FLAG ? NULL :
				  optarg, prev, optind, &cap);
		} else if (c == HELP_CODE) {
			ctl_args_free(a);
			fputs(spec->usage, stdout);
			return CTL_ARGS_HELP;
		} else {
			ctl_args_free(a);
			ctl_option_error(command, c, argv);
			return CTL_ARGS_ERROR;
		}
		prev = optind;
	}
	/* In getopt's "-" mode the words after -- were never arguments. */
	if (spec->order != CTL_ARGS_IN_ORDER)
		for (int i = optind; i < argc; i++)
			add(a, CTL_ARG_POS, argv[i], i, i + 1, &cap);
	a->pos = bf_xcalloc((size_t)a->n + 1, sizeof(*a->pos));
	for (int i = 0; i < a->n; i++)
		if (a->v[i].opt == CTL_ARG_POS)
			a->pos[np++] = a->v[i].value;
	a->npos = np;
	return CTL_ARGS_OK;
}

void ctl_args_free(struct ctl_args *a)
{
	free(a->v);
	free(a->pos);
	memset(a, 0, sizeof(*a));
}

int ctl_args_count(const struct ctl_args *a, int opt)
{
	int n = 0;

	for (int i = 0; i < a->n; i++)
		n += a->v[i].opt == opt;
	return n;
}

const char *ctl_args_value(const struct ctl_args *a, int opt)
{
	const char *v = NULL;

	for (int i = 0; i < a->n; i++)
		if (a->v[i].opt == opt)
			v = a->v[i].value;
	return v;
}

/* "--name" or "-L" of option opt, into buf. */
static const char *optname(const struct ctl_args *a, int opt, char *buf,
			   size_t len)
{
	const struct ctl_opt *o = &a->spec->opts[opt];

	if (o->name) /* shown only: a cut would end in "..." */
		(void)bf_text_fmt(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->letter);
	return buf;
}

int ctl_args_int(const struct ctl_args *a, int opt, int min, int max,
		 int *out)
{
	char name[64];

	for (int i = 0; i < a->n; i++)
		if (a->v[i].opt == opt &&
		    ctl_parse_int(optname(a, opt, name, sizeof(name)),
				  a->v[i].value, min, max, out))
			return -1;
	return 0;
}

int ctl_args_number(const struct ctl_args *a, int opt, double min,
		    double max, double *out)
{
	char name[64];

	for (int i = 0; i < a->n; i++)
		if (a->v[i].opt == opt &&
		    ctl_parse_number(optname(a, opt, name, sizeof(name)),
				     a->v[i].value, min, max, out))
			return -1;
	return 0;
}

int ctl_args_dir(const struct ctl_args *a, int opt, const char **out)
{
	char name[64];

	for (int i = 0; i < a->n; i++)
		if (a->v[i].opt == opt &&
		    ctl_parse_dir(optname(a, opt, name, sizeof(name)),
				  a->v[i].value, out))
			return -1;
	return 0;
}

int ctl_args_word(const struct ctl_args *a, int opt, const char *want,
		  int *out)
{
	char name[64];

	for (int i = 0; i < a->n; i++) {
		if (a->v[i].opt != opt)
			continue;
		if (strcmp(a->v[i].value, want) != 0) {
			ctl_error("%s: %s: '%s': want '%s'", a->command,
				  optname(a, opt, name, sizeof(name)),
				  a->v[i].value, want);
			return -1;
		}
		*out = 1;
	}
	return 0;
}

int ctl_args_host(const struct ctl_args *a, struct ctl_host_opts *o)
{
	for (int i = 0; i < a->n; i++) {
		const char *v = a->v[i].value;

		switch (a->v[i].opt) {
		case CTL_HOPT_F:
			if (access(v, R_OK) != 0) {
				ctl_error("-F %s: %s", v, strerror(errno));
				return -1;
			}
			o->ssh_config = v;
			break;
		case CTL_HOPT_TIMEOUT:
			if (ctl_parse_int("--timeout", v, 1, 86400,
					  &o->timeout_s))
				return -1;
			break;
		case CTL_HOPT_ACCEPT_NEW:
			o->accept_new_host_keys = 1;
			break;
		case CTL_HOPT_HOSTS_DIR:
			if (ctl_parse_dir("--hosts-dir", v, &o->hosts_dir))
				return -1;
			break;
		}
	}
	return 0;
}
