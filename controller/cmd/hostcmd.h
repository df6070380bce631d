/*
 * The skeleton of the commands that reach hosts (run, where, doctor,
 * clean, check): their host options and host names read the same way
 * from the parsed command line, and, for doctor and clean, the places
 * of those hosts visited one after another.
 */
#ifndef BF_HOSTCMD_H
#define BF_HOSTCMD_H

#include "base/args.h"
#include "run/places.h"
#include "run/session.h"

/* At most this many hosts on one command line (run, where, check). */
#define HOSTCMD_MAX_HOSTS 1024

/*
 * The host options of a (CTL_HOST_OPTS: ctl_args_host, into ho, whose
 * timeout_s holds the default) and its hosts, a->pos: at most max (0: no
 * limit). Returns 0, or -1 after one line: a bad host option's, or "too
 * many hosts: at most MAX".
 */
int hostcmd_args(const struct ctl_args *a, int max, struct ctl_host_opts *ho);

/* 0 when a names a host, else -1 after "COMMAND: no host given (try:
 * ctl COMMAND TRY_ARGS)". */
int hostcmd_need_host(const struct ctl_args *a, const char *try_args);

/* ctl run's and where's: the host options ho into opts (-F, --timeout,
 * --accept-new-host-keys; the inventory's directory, ctl_hosts_dir's
 * choice, with *by saying what chose it). */
void hostcmd_run_opts(const struct ctl_host_opts *ho, struct run_opts *opts,
		      const char **by);

/* ctl run's and where's: the inventory of opts->hosts_dir (by: what
 * chose it) into *inv, and a's hosts resolved by it into *names (caller
 * frees; *nhosts of them, at most HOSTCMD_MAX_HOSTS, groups expanded:
 * inventory_resolve). Returns 0, or -1 after one line (the inventory's
 * error, an unknown host); either way the caller frees *names and *inv
 * (inventory_free). */
int hostcmd_resolve(const struct ctl_args *a, const struct run_opts *opts,
		    const char *by, struct inventory *inv, const char ***names,
		    int *nhosts);

/* What a command does at one place (the i-th, from 0): its exit status;
 * BF_EXIT_INTERRUPTED stops the rest. */
typedef int (*hostcmd_place_fn)(const struct place *p, int i,
				const struct ctl_host_opts *ho, void *arg);

/*
 * ctl doctor's and clean's skeleton: hostcmd_args (no limit) and
 * hostcmd_need_host (with try_args), the places
 * of the hosts (places_load, from --hosts-dir's inventory), the signals
 * caught (ctl_catch_signals), then one(place, i, ho, arg) for each place
 * in order, stdout flushed after each. Returns BF_EXIT_USAGE after one
 * line for bad options or hosts, else the last place's status that was
 * not BF_EXIT_OK (BF_EXIT_INTERRUPTED as soon as one place's is), or
 * BF_EXIT_OK.
 */
int hostcmd_each_place(const struct ctl_args *a, const char *try_args,
		       hostcmd_place_fn one, void *arg);

/*
 * Prints "LABEL: WHAT" and a reason that may hold what a host or ssh said
 * (detail, NUL-terminated, any length): each of its lines sanitised for
 * the terminal (bf_text_sanitize_dup: no escape sequence from a host
 * reaches it), whole, the first after WHAT, the others indented by two
 * spaces under it, empty lines dropped. what may be "" (then "LABEL:
 * detail"); label NULL prints WHAT alone. No errors.
 */
void hostcmd_print_reason(const char *label, const char *what,
			  const char *detail);

#endif
