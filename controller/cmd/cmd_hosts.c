/*
 * ctl hosts: the inventory's names (the JSON files of hosts/, run/inventory.h),
 * one per line with what each is; what the shell completions offer beside
 * ~/.ssh/config's aliases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "cmd/ctl.h"
#include "run/inventory.h"
#include "schema.h"
#include "view/texttable.h"
#include "xmalloc.h"

static const char hosts_usage[] =
	"usage: ctl hosts [--names] [--hosts-dir DIR]\n"
	"\n"
	"Lists the inventory (default: see ctl --help), one name per line: each\n"
	"host with its SSH target and description, each group with its members,\n"
	"each Slurm cluster with its login host and nodes; local is always there.\n"
	"Any other name ctl run is given is an SSH target (an alias from\n"
	"~/.ssh/config, [user@]host[:port]).\n"
	"\n"
	"  --names          the names only (for shell completion)\n"
	"  --hosts-dir DIR  the inventory\n"
	"  --help           this text\n"
	"\n"
	"Example:\n"
	"  ctl hosts --hosts-dir ~/lab/hosts\n"
	"\n"
	"Exit status: 0 listed, 2 bad arguments or an inventory that does not\n"
	"parse (one line says where), 4 could not write the list.\n";

/* One line "NAME  KIND  WHAT", all terminal-safe and whole. */
static void name_line(const char *name, const char *kind, const char *what)
{
	char *n = bf_text_sanitize_dup(name);
	char *w = bf_text_sanitize_dup(what ? what : "");
	int pad;

	/* Padded to 20 cells of the terminal, not 20 bytes: a CJK name
	 * keeps the columns after it where the others have them. */
	pad = 20 - texttable_text_width(n);
	printf("%s%*s %-6s %s\n", n, pad > 0 ? pad : 0, "", kind, w);
	free(n);
	free(w);
}

/* puts of name, terminal-safe and whole (shell completion takes it). */
static void name_only(const char *name)
{
	char *n = bf_text_sanitize_dup(name);

	puts(n);
	free(n);
}

enum { O_NAMES, O_HOSTS_DIR };
static const struct ctl_opt hosts_opts[] = {
	[O_NAMES] = { "names", 0, CTL_OPT_FLAG },
	[O_HOSTS_DIR] = { "hosts-dir", 0, CTL_OPT_VALUE },
};

static int hosts_exec(const struct ctl_args *a)
{
	const char *dir = NULL, *by;
	struct inventory inv;
	char detail[512], *buf;
	int names = ctl_args_count(a, O_NAMES) > 0;

	if (ctl_args_dir(a, O_HOSTS_DIR, &dir))
		return BF_EXIT_USAGE;
	if (a->npos) {
		ctl_error("hosts: '%s': unexpected argument", a->pos[0]);
		return BF_EXIT_USAGE;
	}
	memset(&inv, 0, sizeof(inv));
	dir = ctl_hosts_dir(dir, &by);
	if (inventory_load(dir, by, &inv, detail, sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		inventory_free(&inv);
		return BF_EXIT_USAGE;
	}
	if (names) {
		puts("local");
		for (int i = 0; i < inv.nhosts; i++)
			name_only(inv.hosts[i].name);
		for (int i = 0; i < inv.ngroups; i++)
			name_only(inv.groups[i].name);
		inventory_free(&inv);
		return BF_EXIT_OK;
	}
	name_line("local", "host",
		  "this machine (the agent beside ctl, no SSH)");
	for (int i = 0; i < inv.nhosts; i++) {
		const struct inv_host *h = &inv.hosts[i];

		buf = bf_xasprintf("ssh %s%s%s", h->ssh,
				   h->description ? ": " : "",
				   h->description ? h->description : "");
		name_line(h->name, "host", buf);
		free(buf);
	}
	for (int i = 0; i < inv.ngroups; i++) {
		const struct inv_group *g = &inv.groups[i];

		if (g->slurm) {
			buf = bf_xasprintf("login %s, %d node%s%s%s",
					   g->slurm->login, g->slurm->nodes,
					   g->slurm->nodes == 1 ? "" : "s",
					   g->slurm->partition ?
						   ", partition " : "",
					   g->slurm->partition ?
						   g->slurm->partition : "");
			name_line(g->name, "slurm", buf);
			free(buf);
			continue;
		}
		/* Every member, whole, however many. */
		buf = bf_xstrdup("");
		for (int k = 0; k < g->nmembers; k++) {
			char *more = bf_xasprintf("%s%s%s", buf, k ? " " : "",
						  g->members[k]);

			free(buf);
			buf = more;
		}
		name_line(g->name, "group", buf);
		free(buf);
	}
	inventory_free(&inv);
	return BF_EXIT_OK;
}

const struct ctl_command cmd_hosts_entry = {
	.name = "hosts",
	.summary = "list the inventory's hosts, groups and Slurm clusters",
	/* Options first: the first other word is unexpected. */
	.args = { CTL_OPTS(hosts_opts), .order = CTL_ARGS_STOP,
		  .usage = hosts_usage },
	.exec = hosts_exec,
};
