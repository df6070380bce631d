/*
 * ctl clean HOST...: removes what ctl run deployed on the hosts (the
 * agent builds under their workdirs, run/deployed.h says which names are
 * ctl's), listing each with its size; --dry-run lists only. Hosts one
 * after another, each reached as ctl run reaches it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "cmd/ctl.h"
#include "cmd/hostcmd.h"
#include "remote/remote_ssh.h"
#include "run/deployed.h"
#include "run/embedded.h"
#include "run/inventory.h"
#include "run/places.h"
#include "run/slurm_login.h"
#include "schema.h"
#include "xmalloc.h"

static const char clean_usage[] =
	"usage: ctl clean HOST... [--dry-run] [--keep-current] [-F SSH_CONFIG]\n"
	"                 [--timeout SECONDS] [--accept-new-host-keys]\n"
	"                 [--hosts-dir DIR]\n"
	"\n"
	"Removes what ctl run deployed on each HOST, and lists it with its size:\n"
	"the agent builds in the host's workdir (~/.cache/benchfleet, or the\n"
	"inventory's \"workdir\"; one directory, about 14 MiB, per agent source\n"
	"version and toolchain) and in the Slurm workdir ~/.cache/benchfleet-slurm\n"
	"(a Slurm cluster: its login host's, or the cluster's \"workdir\"), and the\n"
	"staging directories of deploys cut short. Only names of ctl's own form\n"
	"are touched; anything else there is left and counted. In a shared\n"
	"workdir (mode 1777, as /tmp) ctl's files are in this login's private\n"
	"benchfleet-<uid> there. A default workdir or private directory left\n"
	"empty is removed; an inventory's workdir is kept. The next ctl run\n"
	"builds the agent again.\n"
	"\n"
	"  --dry-run                list what would be removed; remove nothing\n"
	"  --keep-current           keep the builds of this ctl's agent sources\n"
	"                           (remove only older versions')\n"
	"  -F SSH_CONFIG            ssh_config to read instead of ~/.ssh/config\n"
	"  --timeout SECONDS        bound on connecting and on each answer\n"
	"                           (default 30)\n"
	"  --accept-new-host-keys   record an unknown host key in known_hosts\n"
	"                           (default: refuse it, naming its fingerprint)\n"
	"  --hosts-dir DIR          the inventory (default: see ctl --help)\n"
	"  --help                   this text\n"
	"\n"
	"Examples:\n"
	"  ctl clean spark --dry-run\n"
	"  ctl clean lab --keep-current       # every host of group lab\n"
	"\n"
	"Exit status: 0 cleaned (or nothing there), 2 usage error, 3 some host\n"
	"could not be reached or cleaned (its line says why), 4 could not write\n"
	"the list, 130 interrupted.\n";

static void print_size(long long kib)
{
	if (kib < 0)
		printf("? MiB");
	else
		printf("%.1f MiB", (double)kib / 1024.0);
}

/* Drops the entries of this ctl's agent sources (--keep-current). */
static void keep_current(struct deployed_dir *d)
{
	size_t hl = strlen(embedded_agent_hash);
	int k = 0;

	for (int e = 0; e < d->nentries; e++) {
		const char *name = d->entries[e].name;

		if (strncmp(name, embedded_agent_hash, hl) == 0 &&
		    !d->entries[e].staging)
			continue;
		d->entries[k++] = d->entries[e];
	}
	d->nentries = k;
}

static int clean_one(const struct place *pl, const struct ctl_host_opts *o,
		     int dry_run, int keep)
{
	struct remote_opts ro = {
		.host = pl->target,
		.ssh_config = o->ssh_config,
		.timeout_s = o->timeout_s,
		.accept_new_host_keys = o->accept_new_host_keys,
		.cancel = &ctl_interrupted,
	};
	struct login l = { NULL, "" };
	struct deployed_dir dirs[2];
	int ndirs = 0, count = 0, status = BF_EXIT_OK;
	long long total = 0;
	char detail[1024];
	enum bf_err err;

	memset(dirs, 0, sizeof(dirs));
	if (!pl->target && !pl->cluster) {
		printf("local: nothing deployed (ctl run local runs the agent "
		       "beside ctl)\n");
		return BF_EXIT_OK;
	}
	if (pl->cluster) {
		dirs[ndirs++] = (struct deployed_dir){
			.workdir = pl->cluster->slurm->workdir ?
					   pl->cluster->slurm->workdir :
					   DEPLOYED_WORKDIR_SLURM,
			.layout = DEPLOYED_SLURM,
		};
	} else {
		dirs[ndirs++] = (struct deployed_dir){
			.workdir = pl->host && pl->host->workdir ?
					   pl->host->workdir :
					   DEPLOYED_WORKDIR_SSH,
			.layout = DEPLOYED_SSH,
		};
		dirs[ndirs++] = (struct deployed_dir){
			.workdir = DEPLOYED_WORKDIR_SLURM,
			.layout = DEPLOYED_SLURM,
		};
	}
	if (pl->target) {
		err = remote_connect(&l.r, &ro, detail, sizeof(detail));
		if (err != BF_OK) {
			hostcmd_print_reason(pl->label, "cannot connect: ",
					     detail);
			return err == BF_ERR_INTERRUPTED ? BF_EXIT_INTERRUPTED :
							   BF_EXIT_HOSTS_FAILED;
		}
	}
	err = deployed_list(&l, dirs, ndirs, &ctl_interrupted, detail,
			    sizeof(detail));
	if (err != BF_OK) {
		hostcmd_print_reason(pl->label, "", detail);
		status = err == BF_ERR_INTERRUPTED ? BF_EXIT_INTERRUPTED :
						     BF_EXIT_HOSTS_FAILED;
		goto out;
	}
	for (int i = 0; i < ndirs; i++) {
		struct deployed_dir *d = &dirs[i];

		if (keep)
			keep_current(d);
		for (int e = 0; e < d->nentries; e++) {
			printf("%s: %s %s%s%s/%s  ", pl->label,
			       dry_run ? "would remove" : "removing",
			       d->workdir, d->sub[0] ? "/" : "", d->sub,
			       d->entries[e].name);
			print_size(d->entries[e].kib);
			printf("%s\n", d->entries[e].staging ?
					       "  (staging, a deploy cut short "
					       "or under way)" :
					       "");
			count++;
			if (d->entries[e].kib > 0)
				total += d->entries[e].kib;
		}
		if (d->others)
			printf("%s: %s%s%s: %d other entr%s, not ctl's, left\n",
			       pl->label, d->workdir, d->sub[0] ? "/" : "",
			       d->sub, d->others,
			       d->others == 1 ? "y" : "ies");
	}
	fflush(stdout);
	if (count && !dry_run) {
		err = deployed_remove(&l, dirs, ndirs, &ctl_interrupted, detail,
				      sizeof(detail));
		if (err != BF_OK) {
			hostcmd_print_reason(pl->label, "", detail);
			status = err == BF_ERR_INTERRUPTED ?
					 BF_EXIT_INTERRUPTED :
					 BF_EXIT_HOSTS_FAILED;
			goto out;
		}
	}
	if (count == 0) {
		printf("%s: nothing of ctl's deployed (", pl->label);
		for (int i = 0; i < ndirs; i++)
			printf("%s%s%s%s%s", i ? ", " : "", dirs[i].workdir,
			       dirs[i].sub[0] ? "/" : "", dirs[i].sub,
			       dirs[i].exists ? "" : " absent");
		printf(")\n");
	} else {
		printf("%s: %s %d director%s, ", pl->label,
		       dry_run ? "would remove" : "removed", count,
		       count == 1 ? "y" : "ies");
		print_size(total);
		printf("\n");
	}
out:
	deployed_free(dirs, ndirs);
	remote_free(l.r);
	return status;
}

enum { O_DRY = CTL_HOPT_COUNT, O_KEEP };
static const struct ctl_opt clean_opts[] = {
	CTL_HOST_OPTS,
	[O_DRY] = { "dry-run", 0, CTL_OPT_FLAG },
	[O_KEEP] = { "keep-current", 0, CTL_OPT_FLAG },
};

/* One place for hostcmd_each_place; arg is the parsed command line. */
static int clean_place(const struct place *pl, int i,
		       const struct ctl_host_opts *o, void *arg)
{
	const struct ctl_args *a = arg;

	(void)i;
	return clean_one(pl, o, ctl_args_count(a, O_DRY) > 0,
			 ctl_args_count(a, O_KEEP) > 0);
}

static int clean_exec(const struct ctl_args *a)
{
	return hostcmd_each_place(a, "HOST --dry-run", clean_place,
				  (void *)a);
}

const struct ctl_command cmd_clean_entry = {
	.name = "clean",
	.summary = "remove the agent builds ctl deployed on hosts (--dry-run lists them)",
	/* hosts and options may mix */
	.args = { CTL_OPTS(clean_opts), .order = CTL_ARGS_IN_ORDER,
		  .usage = clean_usage },
	.exec = clean_exec,
};
