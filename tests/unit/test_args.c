/*
 * Unit tests for controller/base/args.c, the one parser of every ctl
 * command's arguments: positionals in place among the options (ctl run's
 * order), after options only (ctl hosts) or anywhere; repeated options
 * kept in order; the one-line errors for an unknown option, a missing
 * value, a flag given a value; --, --help; the typed values. And that
 * ctl run's table agrees with the agent's on which of its options take a
 * value (common/agent_opts.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_opts.h"
#include "base/args.h"
#include "base/cli.h"
#include "cmd/ctl.h"
#include "schema.h"

enum { O_JOBS = CTL_HOPT_COUNT, O_NAMES, O_OUT, O_TAG, O_LAST };
static const struct ctl_opt opts[] = {
	CTL_HOST_OPTS,
	[O_JOBS] = { "jobs", 0, CTL_OPT_VALUE },
	[O_NAMES] = { "names", 0, CTL_OPT_FLAG },
	[O_OUT] = { "output", 'o', CTL_OPT_VALUE },
	[O_TAG] = { "tag", 0, CTL_OPT_LIST },
	[O_LAST] = { "last", 0, CTL_OPT_VALUE },
};

static struct ctl_args_spec spec(enum ctl_args_order order)
{
	return (struct ctl_args_spec){ opts, (int)(sizeof(opts) / sizeof(opts[0])),
				       order, "usage: ctl t\n" };
}

/* stderr (or stdout) of parsing argv, into buf; the parse's result. */
static int parse_capturing(int fd, const struct ctl_args_spec *sp,
			   char **argv, struct ctl_args *a, char *buf,
			   size_t len)
{
	int argc = 0, saved, rc;
	FILE *tmp = tmpfile();
	size_t n;

	while (argv[argc])
		argc++;
	assert_non_null(tmp);
	fflush(fd == 1 ? stdout : stderr);
	saved = dup(fd);
	dup2(fileno(tmp), fd);
	rc = ctl_args_parse("t", sp, argc, argv, a);
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return rc;
}

static int parse(const struct ctl_args_spec *sp, char **argv,
		 struct ctl_args *a)
{
	char err[512];
	int rc = parse_capturing(2, sp, argv, a, err, sizeof(err));

	if (rc != CTL_ARGS_OK)
		print_message("parse: %s", err);
	return rc;
}

/* ctl run's order: hosts in place between the options, every value of
 * a repeated option kept, its words (first, end) as typed. */
static void test_in_order(void **state)
{
	struct ctl_args_spec sp = spec(CTL_ARGS_IN_ORDER);
	char *argv[] = { "t", "h1", "--jobs", "3", "h2", "--tag=a", "-o",
			 "f", "--tag", "b", "--names", "h3", "--jobs=4", NULL };
	struct ctl_args a;

	(void)state;
	assert_int_equal(parse(&sp, argv, &a), CTL_ARGS_OK);
	assert_int_equal(a.npos, 3);
	assert_string_equal(a.pos[0], "h1");
	assert_string_equal(a.pos[1], "h2");
	assert_string_equal(a.pos[2], "h3");
	assert_int_equal(a.n, 9);
	assert_int_equal(a.v[0].opt, CTL_ARG_POS);
	assert_int_equal(a.v[1].opt, O_JOBS);
	assert_string_equal(a.v[1].value, "3");
	assert_int_equal(a.v[1].first, 2);
	assert_int_equal(a.v[1].end, 4);
	assert_int_equal(a.v[2].opt, CTL_ARG_POS);
	assert_int_equal(a.v[3].opt, O_TAG);
	assert_string_equal(a.v[3].value, "a");
	assert_int_equal(a.v[4].opt, O_OUT);
	assert_string_equal(a.v[4].value, "f");
	assert_int_equal(a.v[5].opt, O_TAG);
	assert_string_equal(a.v[5].value, "b");
	assert_int_equal(a.v[6].opt, O_NAMES);
	assert_null(a.v[6].value);
	assert_int_equal(ctl_args_count(&a, O_TAG), 2);
	assert_int_equal(ctl_args_count(&a, O_NAMES), 1);
	assert_int_equal(ctl_args_count(&a, O_LAST), 0);
	assert_string_equal(ctl_args_value(&a, O_JOBS), "4");
	assert_null(ctl_args_value(&a, O_LAST));
	ctl_args_free(&a);
}

/* In getopt's "-" mode the words after -- are not read (as ctl run has
 * always had it); elsewhere they are positionals, options or not. */
static void test_double_dash(void **state)
{
	struct ctl_args_spec in = spec(CTL_ARGS_IN_ORDER);
	struct ctl_args_spec perm = spec(CTL_ARGS_PERMUTE);
	char *argv1[] = { "t", "h1", "--", "h2", "--jobs", NULL };
	char *argv2[] = { "t", "h1", "--names", "--", "--jobs", "h2", NULL };
	struct ctl_args a;

	(void)state;
	assert_int_equal(parse(&in, argv1, &a), CTL_ARGS_OK);
	assert_int_equal(a.npos, 1);
	assert_string_equal(a.pos[0], "h1");
	ctl_args_free(&a);
	assert_int_equal(parse(&perm, argv2, &a), CTL_ARGS_OK);
	assert_int_equal(a.npos, 3);
	assert_string_equal(a.pos[0], "h1");
	assert_string_equal(a.pos[1], "--jobs");
	assert_string_equal(a.pos[2], "h2");
	assert_int_equal(ctl_args_count(&a, O_NAMES), 1);
	assert_int_equal(ctl_args_count(&a, O_JOBS), 0);
	ctl_args_free(&a);
}

/* ctl hosts' order: the first positional ends the options. */
static void test_stop(void **state)
{
	struct ctl_args_spec sp = spec(CTL_ARGS_STOP);
	char *argv[] = { "t", "--names", "x", "--jobs", "3", NULL };
	struct ctl_args a;

	(void)state;
	assert_int_equal(parse(&sp, argv, &a), CTL_ARGS_OK);
	assert_int_equal(a.npos, 3);
	assert_string_equal(a.pos[0], "x");
	assert_string_equal(a.pos[1], "--jobs");
	assert_int_equal(ctl_args_count(&a, O_JOBS), 0);
	ctl_args_free(&a);
}

/* The errors, in ctl_option_error's words, and nothing to free. */
static void test_errors(void **state)
{
	struct ctl_args_spec sp = spec(CTL_ARGS_PERMUTE);
	char *unknown_long[] = { "t", "h", "--frob", NULL };
	char *unknown_short[] = { "t", "-x", NULL };
	char *missing_long[] = { "t", "--jobs", NULL };
	char *missing_short[] = { "t", "-o", NULL };
	char *flag_value[] = { "t", "--names=1", NULL };
	char *ambiguous[] = { "t", "--h", NULL };
	char err[512];
	struct ctl_args a;

	(void)state;
	assert_int_equal(parse_capturing(2, &sp, unknown_long, &a, err,
					 sizeof(err)), CTL_ARGS_ERROR);
	assert_string_equal(err, "ctl: --frob: unknown option (see ctl t --help)\n");
	assert_null(a.v);
	assert_int_equal(parse_capturing(2, &sp, unknown_short, &a, err,
					 sizeof(err)), CTL_ARGS_ERROR);
	assert_string_equal(err, "ctl: -x: unknown option (see ctl t --help)\n");
	assert_int_equal(parse_capturing(2, &sp, missing_long, &a, err,
					 sizeof(err)), CTL_ARGS_ERROR);
	assert_string_equal(err, "ctl: --jobs: needs a value\n");
	assert_int_equal(parse_capturing(2, &sp, missing_short, &a, err,
					 sizeof(err)), CTL_ARGS_ERROR);
	assert_string_equal(err, "ctl: -o: needs a value\n");
	assert_int_equal(parse_capturing(2, &sp, flag_value, &a, err,
					 sizeof(err)), CTL_ARGS_ERROR);
	assert_string_equal(err, "ctl: --names=1: takes no value (see ctl t --help)\n");
	/* --h: --hosts-dir or --help? neither, said as typed */
	assert_int_equal(parse_capturing(2, &sp, ambiguous, &a, err,
					 sizeof(err)), CTL_ARGS_ERROR);
	assert_string_equal(err, "ctl: --h: unknown option (see ctl t --help)\n");
}

/* --help prints the usage on stdout, once, whatever follows it; a
 * unique prefix is a long option. */
static void test_help(void **state)
{
	struct ctl_args_spec sp = spec(CTL_ARGS_IN_ORDER);
	char *argv[] = { "t", "h1", "--he", "--frob", NULL };
	char *prefix[] = { "t", "--na", "--out", "x", NULL };
	char out[512];
	struct ctl_args a;

	(void)state;
	assert_int_equal(parse_capturing(1, &sp, argv, &a, out, sizeof(out)),
			 CTL_ARGS_HELP);
	assert_string_equal(out, "usage: ctl t\n");
	assert_null(a.v);
	assert_int_equal(parse(&sp, prefix, &a), CTL_ARGS_OK);
	assert_int_equal(ctl_args_count(&a, O_NAMES), 1);
	assert_string_equal(ctl_args_value(&a, O_OUT), "x");
	ctl_args_free(&a);
}

/* The typed values: every value checked in order, the last kept; the
 * host options. */
static void test_typed(void **state)
{
	struct ctl_args_spec sp = spec(CTL_ARGS_IN_ORDER);
	char *good[] = { "t", "--jobs", "3", "--jobs", "5", "--timeout", "9",
			 "--accept-new-host-keys", "--hosts-dir", "d", NULL };
	char *bad_first[] = { "t", "--jobs", "x", "--jobs", "5", NULL };
	char *bad_dir[] = { "t", "--hosts-dir=", NULL };
	struct ctl_host_opts ho = { .timeout_s = 30 };
	struct ctl_args a;
	int jobs = 0;

	(void)state;
	assert_int_equal(parse(&sp, good, &a), CTL_ARGS_OK);
	assert_int_equal(ctl_args_int(&a, O_JOBS, 1, 64, &jobs), 0);
	assert_int_equal(jobs, 5);
	assert_int_equal(ctl_args_host(&a, &ho), 0);
	assert_int_equal(ho.timeout_s, 9);
	assert_int_equal(ho.accept_new_host_keys, 1);
	assert_string_equal(ho.hosts_dir, "d");
	assert_null(ho.ssh_config);
	ctl_args_free(&a);
	jobs = 0;
	assert_int_equal(parse(&sp, bad_first, &a), CTL_ARGS_OK);
	assert_int_equal(ctl_args_int(&a, O_JOBS, 1, 64, &jobs), -1);
	assert_int_equal(jobs, 0);
	ctl_args_free(&a);
	assert_int_equal(parse(&sp, bad_dir, &a), CTL_ARGS_OK);
	assert_int_equal(ctl_args_host(&a, &ho), -1);
	ctl_args_free(&a);
}

/* ctl run's agent options take a value exactly when the agent's do. */
static void test_run_agent_options(void **state)
{
	const struct ctl_args_spec *sp = &cmd_run_entry.args;
	int nagent = 0;

	(void)state;
	for (int i = 0; i < sp->nopts; i++) {
		const struct bf_agent_opt *o = sp->opts[i].name ?
			bf_agent_opt_find(sp->opts[i].name) : NULL;

		if (!o)
			continue;
		nagent++;
		assert_int_equal(sp->opts[i].arg == CTL_OPT_FLAG,
				 o->type == BF_AOT_FLAG);
	}
	assert_int_equal(nagent, 12);
}

/* Issue 28: ctl's one-line error is never cut (it was cut at 8 KiB with
 * no mark: the end of a long reason, often what to do, was lost). */
static void test_error_whole(void **state)
{
	size_t n = 10000;
	char *big = calloc(n + 1, 1), *got = calloc(n + 64, 1);
	FILE *f = tmpfile();
	int saved = dup(2);

	(void)state;
	assert_non_null(big);
	assert_non_null(got);
	assert_non_null(f);
	memset(big, 'y', n);
	fflush(stderr);
	assert_true(dup2(fileno(f), 2) == 2);
	ctl_error("%s: the end says what to do", big);
	fflush(stderr);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	rewind(f);
	assert_int_equal(fread(got, 1, n + 63, f), 5 + n + 25 + 1);
	fclose(f);
	assert_memory_equal(got, "ctl: yyy", 8);
	assert_string_equal(got + 5 + n, ": the end says what to do\n");
	free(got);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_double_dash),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_typed),
		cmocka_unit_test(test_run_agent_options),
		cmocka_unit_test(test_error_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
