/*
 * What the commands that reach hosts share: their hosts and host options,
 * and doctor's and clean's walk over the places. See hostcmd.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/ctl.h"
#include "cmd/hostcmd.h"
#include "bf_text.h"
#include "schema.h"
#include "xmalloc.h"

int hostcmd_args(const struct ctl_args *a, int max, struct ctl_host_opts *ho)
{
	if (ctl_args_host(a, ho))
		return -1;
	if (max && a->npos > max) {
		ctl_error("too many hosts: at most %d", max);
		return -1;
	}
	return 0;
}

int hostcmd_need_host(const struct ctl_args *a, const char *try_args)
{
	if (a->npos == 0) {
		ctl_error("%s: no host given (try: ctl %s %s)", a->command,
			  a->command, try_args);
		return -1;
	}
	return 0;
}

void hostcmd_run_opts(const struct ctl_host_opts *ho, struct run_opts *opts,
		      const char **by)
{
	opts->ssh_config = ho->ssh_config;
	opts->timeout_s = ho->timeout_s;
	opts->accept_new_host_keys = ho->accept_new_host_keys;
	opts->hosts_dir = ctl_hosts_dir(ho->hosts_dir, by);
}

int hostcmd_resolve(const struct ctl_args *a, const struct run_opts *opts,
		    const char *by, struct inventory *inv, const char ***names,
		    int *nhosts)
{
	char detail[512];

	*names = bf_xcalloc(HOSTCMD_MAX_HOSTS, sizeof(**names));
	if (inventory_load(opts->hosts_dir, by, inv, detail,
			   sizeof(detail)) != BF_OK ||
	    inventory_resolve(inv, a->npos, a->pos, *names, HOSTCMD_MAX_HOSTS,
			      nhosts, detail, sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		return -1;
	}
	return 0;
}

int hostcmd_each_place(const struct ctl_args *a, const char *try_args,
		       hostcmd_place_fn one, void *arg)
{
	struct ctl_host_opts ho = { .timeout_s = 30 };
	struct inventory inv;
	struct place *places = NULL;
	char detail[512];
	int n = 0, status = BF_EXIT_OK;

	if (hostcmd_args(a, 0, &ho) || hostcmd_need_host(a, try_args))
		return BF_EXIT_USAGE;
	if (places_load(ho.hosts_dir, a->npos, a->pos, &inv, &places, &n,
			detail, sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		return BF_EXIT_USAGE;
	}
	ctl_catch_signals();
	for (int i = 0; i < n; i++) {
		int s = one(&places[i], i, &ho, arg);

		fflush(stdout);
		if (s == BF_EXIT_INTERRUPTED) {
			status = s;
			break;
		}
		if (s != BF_EXIT_OK)
			status = s;
	}
	free(places);
	inventory_free(&inv);
	return status;
}

void hostcmd_print_reason(const char *label, const char *what,
			  const char *detail)
{
	const char *p = detail ? detail : "";
	int first = 1;

	if (label)
		printf("%s: ", label);
	fputs(what, stdout);
	do {
		size_t n = strcspn(p, "\n");
		char *line = bf_xmalloc(n + 1), *safe;

		memcpy(line, p, n);
		line[n] = '\0';

		if (n > 0 && line[n - 1] == '\r')
			line[n - 1] = '\0';
		if (line[0] || first) {
			safe = bf_text_sanitize_dup(line);
			printf("%s%s", first ? "" : "\n  ", safe);
			free(safe);
			first = 0;
		}
		free(line);
		p += n;
	} while (*p++);
	putchar('\n');
}
