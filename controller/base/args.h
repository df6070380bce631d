/*
 * ctl's one command-line parser: a command's options are data (struct
 * ctl_opt rows, as tmux's cmd_entry .args), and ctl_args_parse reads
 * argv by them for every command in one place, before the command runs.
 * The command then reads the parsed arguments (struct ctl_args): each
 * option's values in command-line order, the positional words in order.
 * Nothing here knows a command: the table and the usage text are the
 * caller's.
 */
#ifndef BF_ARGS_H
#define BF_ARGS_H

#include "base/cli.h"

/* What an option takes. */
enum ctl_opt_arg {
	CTL_OPT_FLAG,  /* no value (--json) */
	CTL_OPT_VALUE, /* one value; given again, the last counts (--jobs) */
	CTL_OPT_LIST   /* a value that may repeat, each one kept (--history) */
};

/* One option of a command. */
struct ctl_opt {
	const char *name; /* long name without "--", NULL: short only (-F) */
	char letter;      /* short option's letter, '\0' none */
	enum ctl_opt_arg arg;
};

/* Where the positional words may stand (getopt's optstring prefix). */
enum ctl_args_order {
	/* Among the options anywhere; -- ends the options ("" optstring). */
	CTL_ARGS_PERMUTE,
	/* Among the options, kept in place between them (getopt's "-"):
	 * ctl run HOST --size 1 HOST keeps the command line's order. The
	 * words after -- are not read (as getopt's "-" mode leaves them). */
	CTL_ARGS_IN_ORDER,
	/* Options first: the first positional word and all after it are
	 * positional (getopt's "+"). */
	CTL_ARGS_STOP
};

/* A command's arguments as data: its options (at most CTL_ARGS_MAXOPTS;
 * --help is every command's and not in the table), where its positional
 * words stand, and the text --help prints. */
#define CTL_ARGS_MAXOPTS 48
struct ctl_args_spec {
	const struct ctl_opt *opts;
	int nopts;
	enum ctl_args_order order;
	const char *usage; /* printed as is on stdout for --help */
};

/* The options of every command that reaches hosts (run, where, doctor,
 * clean, check): -F SSH_CONFIG, --timeout SECONDS,
 * --accept-new-host-keys, --hosts-dir DIR. A command puts
 * CTL_HOST_OPTS first in its table (its own options from
 * CTL_HOPT_COUNT on) and reads them with ctl_args_host. */
enum { CTL_HOPT_F, CTL_HOPT_TIMEOUT, CTL_HOPT_ACCEPT_NEW, CTL_HOPT_HOSTS_DIR,
       CTL_HOPT_COUNT };
#define CTL_HOST_OPTS                                                       \
	[CTL_HOPT_F] = { NULL, 'F', CTL_OPT_VALUE },                        \
	[CTL_HOPT_TIMEOUT] = { "timeout", 0, CTL_OPT_VALUE },               \
	[CTL_HOPT_ACCEPT_NEW] = { "accept-new-host-keys", 0, CTL_OPT_FLAG }, \
	[CTL_HOPT_HOSTS_DIR] = { "hosts-dir", 0, CTL_OPT_VALUE }

/* One word (or option with its value) of the command line. */
struct ctl_arg {
	int opt;           /* index into spec->opts; CTL_ARG_POS: positional */
	char *value;       /* the option's value (NULL for a flag), or the
			    * positional word; points into argv */
	int first, end;    /* its words: argv[first] up to argv[end - 1]
			    * (CTL_ARGS_IN_ORDER: exact; else as getopt
			    * had them) */
};
#define CTL_ARG_POS (-1)

/* The parsed command line. */
struct ctl_args {
	const char *command;           /* "run", for errors */
	const struct ctl_args_spec *spec;
	int argc;                      /* the command line parsed, argv[0] */
	char **argv;                   /* the command's name (not owned) */
	struct ctl_arg *v;             /* options and positionals, in
					* command-line order; n entries */
	int n;
	char **pos;                    /* the positional words in order, */
	int npos;                      /* npos entries; point into argv */
};

/* The outcome of ctl_args_parse besides success. */
enum { CTL_ARGS_OK = 0, CTL_ARGS_HELP = 1, CTL_ARGS_ERROR = -1 };

/*
 * Parses argv (argc words, argv[0] the command's name) by spec into a,
 * with getopt_long's rules (a long option by a unique prefix, a short
 * option's value in the same word or the next, --opt=value), the
 * positionals as spec->order says. Returns CTL_ARGS_OK (free a with
 * ctl_args_free), CTL_ARGS_HELP after printing spec->usage on stdout
 * for --help (the first --help seen; the command exits 0), or
 * CTL_ARGS_ERROR after the one-line error of ctl_option_error for an
 * unknown option, an option without its value or a flag given one
 * (naming command; the command exits BF_EXIT_USAGE). a is empty
 * (nothing to free) but for CTL_ARGS_OK. argv must outlive a.
 */
int ctl_args_parse(const char *command, const struct ctl_args_spec *spec,
		   int argc, char **argv, struct ctl_args *a);

void ctl_args_free(struct ctl_args *a);

/* How many times option opt was given. */
int ctl_args_count(const struct ctl_args *a, int opt);

/* Option opt's last value; NULL when it was not given (or is a flag). */
const char *ctl_args_value(const struct ctl_args *a, int opt);

/*
 * Typed values. Each reads every value of option opt in command-line
 * order (as a getopt loop would have) and keeps the last; the error
 * names the option as "--name" ("-L" for a short-only one). Return 0
 * (*out untouched when the option was not given), or -1 after the
 * one-line error of ctl_parse_int, ctl_parse_number or ctl_parse_dir
 * (base/cli.h) for the first bad value.
 */
int ctl_args_int(const struct ctl_args *a, int opt, int min, int max,
		 int *out);
int ctl_args_number(const struct ctl_args *a, int opt, double min,
		    double max, double *out);
int ctl_args_dir(const struct ctl_args *a, int opt, const char **out);
/* Option opt, whose one value is the word `want` (--fail-on slow): *out
 * = 1 when it was given, else untouched; -1 after "COMMAND: --name:
 * 'VALUE': want 'WANT'" for any other value. */
int ctl_args_word(const struct ctl_args *a, int opt, const char *want,
		  int *out);

/* The host options (CTL_HOST_OPTS, at the start of the table) into o,
 * whose timeout_s holds the default: 0, or -1 after a one-line error
 * (-F a file that cannot be read, a timeout outside 1 to 86400 s, an
 * empty --hosts-dir). */
int ctl_args_host(const struct ctl_args *a, struct ctl_host_opts *o);

#endif
