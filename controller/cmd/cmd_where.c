/*
 * ctl where HOST...: where `ctl run` finds (or would build) the agent on
 * each host, and whether it is built there. For an SSH host it asks the
 * host as ctl run's deploy does (runner_ssh_where: connect, the same
 * preflight, the same cache key), so the answer is the directory ctl run
 * would use, whatever goes into the key; for `local`, the binary ctl run
 * local runs. bench/ places its stand-in agents with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bf_text.h"
#include "cmd/ctl.h"
#include "cmd/hostcmd.h"
#include "run/inventory.h"
#include "run/runner.h"
#include "schema.h"
#include "run/session.h"
#include "xmalloc.h"


static const char where_usage[] =
	"usage: ctl where HOST... [--timeout SECONDS] [--accept-new-host-keys]\n"
	"                 [-F SSH_CONFIG] [--hosts-dir DIR]\n"
	"\n"
	"Prints, for each HOST (as ctl run takes them: local, an ssh_config\n"
	"alias, [user@]host[:port], an inventory host or group), one line\n"
	"\n"
	"  HOST<TAB>AGENT<TAB>built|not-built\n"
	"\n"
	"AGENT is the absolute path on that host of the agent binary ctl run\n"
	"runs there: <workdir>/<source hash>-<toolchain key>/build/bin/agent,\n"
	"the workdir being the inventory's or ~/.cache/benchfleet. built: ctl\n"
	"run would run it as it is; not-built: ctl run would upload the sources\n"
	"and build it there first. An SSH host is connected to and asked with\n"
	"ctl run's own preflight (which creates the workdir 0700, as ctl run\n"
	"does, uses a private benchfleet-<uid> in a shared sticky one such as\n"
	"/tmp, and refuses one others can write); nothing is uploaded, built\n"
	"or run. `local` is the agent beside ctl ($BENCHFLEET_AGENT when set).\n"
	"A Slurm cluster is refused: its agent is built on a compute node, in a\n"
	"directory only its job knows.\n"
	"\n"
	"  --timeout SECONDS       bound on connecting and on a silent host\n"
	"                          (default 30)\n"
	"  --accept-new-host-keys  record an unknown host key (as ctl run)\n"
	"  -F SSH_CONFIG           ssh_config file to read (as ssh -F)\n"
	"  --hosts-dir DIR         the inventory (default: see ctl --help)\n"
	"  --help                  this text\n"
	"\n"
	"Example: ctl where spark workstation\n"
	"\n"
	"Exit status: 0 every host answered, 2 usage error (nothing contacted),\n"
	"3 some host could not be asked (one line on stderr per host says why;\n"
	"the others are printed), 4 the answer could not be written, 130\n"
	"interrupted.\n";

/* Prints one host's line, or says on stderr why it cannot. Returns the
 * host's status: BF_EXIT_OK, BF_EXIT_HOSTS_FAILED, BF_EXIT_INTERRUPTED. */
static int where_one(const char *name, const struct inventory *inv,
		     const struct run_opts *opts)
{
	const struct inv_host *h = inventory_host(inv, name);
	/* A host's reason (runner_ssh_where: cut only past 8 KiB, ending
	 * in "..."); what is printed of it is whole. */
	char detail[8192], *safe, *shown;
	char *agent = NULL;
	int built = 0, status = BF_EXIT_OK;
	enum bf_err err = BF_OK;

	if (strcmp(name, "local") == 0) {
		agent = runner_local_agent_path();
		built = access(agent, X_OK) == 0;
	} else {
		err = runner_ssh_where(h ? h->ssh : name, h, opts,
				       &ctl_interrupted, &agent, &built, detail,
				       sizeof(detail));
	}
	if (err == BF_OK && (!bf_text_is_clean(agent) || strchr(agent, '\t'))) {
		/* A path that would not print as it is names another path. */
		shown = bf_text_sanitize_dup(agent);
		err = bf_fail(detail, sizeof(detail), BF_ERR_REMOTE,
			      "agent path '%s' has control characters or "
			      "tabs: not printed", shown);
		free(shown);
	}
	if (err != BF_OK) {
		/* Each '\n' becomes at most "; ": twice the text is room. */
		size_t len = 2 * strlen(detail) + 4;

		safe = bf_xmalloc(len);
		bf_text_join_lines(safe, len, detail, "; ");
		ctl_error("where: %s: %s", name, safe);
		free(safe);
		status = err == BF_ERR_INTERRUPTED ? BF_EXIT_INTERRUPTED :
						     BF_EXIT_HOSTS_FAILED;
	} else {
		printf("%s\t%s\t%s\n", name, agent,
		       built ? "built" : "not-built");
		fflush(stdout);
	}
	free(agent);
	return status;
}

static int where_exec(const struct ctl_args *a)
{
	struct run_opts opts;
	struct ctl_host_opts ho = { .timeout_s = 30 };
	struct inventory inv;
	const char **names = NULL;
	const char *hosts_dir_by;
	int nhosts = 0, status = BF_EXIT_USAGE;

	memset(&opts, 0, sizeof(opts));
	memset(&inv, 0, sizeof(inv));
	if (hostcmd_args(a, HOSTCMD_MAX_HOSTS, &ho) ||
	    hostcmd_need_host(a, "local"))
		return BF_EXIT_USAGE;
	hostcmd_run_opts(&ho, &opts, &hosts_dir_by);
	if (hostcmd_resolve(a, &opts, hosts_dir_by, &inv, &names, &nhosts))
		goto out;
	for (int i = 0; i < nhosts; i++) {
		int rank;
		const struct inv_group *g =
			inventory_slurm_rank(&inv, names[i], &rank);

		if (g) {
			ctl_error("where: %s: a Slurm cluster's agent is built "
				  "on a compute node, in a directory only its "
				  "job knows", g->name);
			goto out;
		}
	}
	ctl_catch_signals();
	status = BF_EXIT_OK;
	for (int i = 0; i < nhosts && status != BF_EXIT_INTERRUPTED; i++) {
		int s = where_one(names[i], &inv, &opts);

		if (s != BF_EXIT_OK)
			status = s;
	}
out:
	free(names);
	inventory_free(&inv);
	return status;
}

static const struct ctl_opt where_opts[] = { CTL_HOST_OPTS };

const struct ctl_command cmd_where_entry = {
	.name = "where",
	.summary = "print where ctl run finds or builds the agent on hosts, and whether it is built",
	/* hosts and options may mix */
	.args = { CTL_OPTS(where_opts), .order = CTL_ARGS_IN_ORDER,
		  .usage = where_usage },
	.exec = where_exec,
};
