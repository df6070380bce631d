/*
 * ctl doctor HOST...: ctl run's preflight on its own (run/preflight.c),
 * changing nothing on the host: what it has to build the agent, what it
 * lacks with the command that installs it there, whether the CUDA
 * toolkit was found, and whether this ctl's agent is built there already.
 * Hosts one after another, each as ctl run reaches it (the inventory's
 * ssh target, path_prepend and env; ssh_config; known_hosts).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bf_text.h"
#include "cmd/ctl.h"
#include "remote/remote_ssh.h"
#include "run/deployed.h"
#include "run/embedded.h"
#include "run/inventory.h"
#include "run/places.h"
#include "run/preflight.h"
#include "schema.h"
#include "xmalloc.h"

static const char doctor_usage[] =
	"usage: ctl doctor HOST... [-F SSH_CONFIG] [--timeout SECONDS]\n"
	"                  [--accept-new-host-keys] [--hosts-dir DIR]\n"
	"\n"
	"Runs ctl run's preflight on each HOST and changes nothing there: connects\n"
	"as ctl run would, then says what the host has to build the agent (its\n"
	"distribution, architecture, C compiler, make, CMake, pkg-config, cJSON,\n"
	"OpenBLAS), whether the CUDA toolkit and cuBLAS were found, the GPUs'\n"
	"compute capabilities (nvidia-smi; part of the build's cache key), what\n"
	"it lacks with the command that installs it there (apt-get, dnf, zypper\n"
	"or pacman, from its /etc/os-release), where ctl deploys (the workdir)\n"
	"and whether this ctl's agent is built there already. HOST is as for ctl\n"
	"run; a Slurm cluster is checked on its login host (its compute nodes\n"
	"build the agent, and are not checked).\n"
	"\n"
	"  -F SSH_CONFIG            ssh_config to read instead of ~/.ssh/config\n"
	"  --timeout SECONDS        bound on connecting and on each answer\n"
	"                           (default 30)\n"
	"  --accept-new-host-keys   record an unknown host key in known_hosts\n"
	"                           (default: refuse it, naming its fingerprint)\n"
	"  --hosts-dir DIR          the inventory (default: see ctl --help)\n"
	"  --help                   this text\n"
	"\n"
	"Example:\n"
	"  ctl doctor spark me@box.lan:2222\n"
	"\n"
	"Exit status: 0 every host can build and run the agent, 2 usage error,\n"
	"3 some host lacks a prerequisite or could not be reached (its lines say\n"
	"which and why), 4 could not write the answer, 130 interrupted.\n";

/* One line "  what  value", the value made terminal-safe. */
static void row(const char *what, const char *value)
{
	char safe[1024];

	bf_text_sanitize(safe, sizeof(safe), value);
	printf("  %-11s %s\n", what, safe);
}

static const char *or_missing(const char *v)
{
	return v && *v ? v : "missing";
}

/* The preflight's answer for one host, printed. 1 when it can build the
 * agent (or has this ctl's built), else 0. */
static int report(const struct preflight *p, const char *workdir, int cluster)
{
	char key[17], name[64], buf[1536], hint[1024], what[512];
	int nbuilt = 0, ours;

	snprintf(buf, sizeof(buf), "%s%s%s%s%s",
		 p->os_name[0] ? p->os_name : "unknown (no os-release)",
		 p->os_id[0] ? " [" : "", p->os_id, p->os_id[0] ? "]" : "", "");
	row("system", buf);
	row("arch", p->tc[PF_TC_ARCH][0] ? p->tc[PF_TC_ARCH] : "?");
	row("compiler", (p->missing & (1u << PF_COMPILER)) ? "missing" :
			p->tc[PF_TC_CC][0]		   ? p->tc[PF_TC_CC] :
							     "cc");
	row("make", (p->missing & (1u << PF_MAKE)) ? "missing" : p->make);
	row("cmake", (p->missing & (1u << PF_CMAKE)) && p->cmake[0] ?
			     "too old" :
			     or_missing(p->cmake));
	row("pkg-config",
	    (p->missing & (1u << PF_PKGCONFIG)) ? "missing" : "found");
	row("cjson", or_missing(p->cjson));
	row("openblas", or_missing(p->openblas));
	preflight_cuda_text(p, buf, sizeof(buf));
	row("cuda", buf);
	row("gpus", p->tc[PF_TC_GPUS][0] ? p->tc[PF_TC_GPUS] :
					   "none seen (nvidia-smi)");

	preflight_toolchain_key(p, key);
	snprintf(name, sizeof(name), "%s-%s", embedded_agent_hash, key);
	ours = preflight_is_built(p, name);
	for (const char *s = p->built; (s = strchr(s, '\n')) && s[1]; s++)
		nbuilt++;
	if (cluster) {
		/* The login host's: its compute nodes build the agent, each
		 * kind its own, under <workdir>/<source hash>/ (not looked
		 * at here). */
		snprintf(buf, sizeof(buf), "%s: %s", workdir,
			 strcmp(p->workdir_state, "absent") == 0 ||
					 !p->workdir_state[0] ?
				 "not there yet (ctl run makes it)" :
				 "there");
		row("workdir", buf);
		ours = 0;
	} else {
		if (strcmp(p->workdir_state, "absent") == 0 ||
		    !p->workdir_state[0])
			snprintf(buf, sizeof(buf),
				 "%s: not there yet (ctl run makes it, 0700)",
				 workdir);
		else
			snprintf(buf, sizeof(buf),
				 "%s: mode %s; %d build%s of this ctl's agent "
				 "sources",
				 workdir, p->workdir_state, nbuilt,
				 nbuilt == 1 ? "" : "s");
		row("workdir", buf);
		snprintf(buf, sizeof(buf), "%s (cache key %s)",
			 ours	    ? "built" :
			 p->missing ? "not built, and cannot be" :
				      "not built yet: ctl run builds it",
			 key);
		row("agent", buf);
	}
	if (cluster) {
		/* What the login host lacks is no answer for the nodes. */
		row("ready", "the login host answers; its compute nodes build "
			     "and run the agent and are not checked here");
		return 1;
	}
	if (!p->missing) {
		row("ready", "yes");
		return 1;
	}
	preflight_missing_text(p, what, sizeof(what));
	preflight_install_hint(p, hint, sizeof(hint));
	/* Both made of this file's words and the host's sanitised ones. */
	if (ours)
		printf("  %-11s yes: this ctl's agent is built; building "
		       "another would need %s; %s\n",
		       "ready", what, hint);
	else
		printf("  %-11s no: lacks %s; %s\n", "ready", what, hint);
	return ours;
}

/* One place: connect, preflight, report. Returns an exit status. */
static int doctor_one(const struct place *pl, const char *ssh_config,
		      int timeout_s, int accept_new)
{
	struct remote_opts ro = {
		.host = pl->target,
		.ssh_config = ssh_config,
		.timeout_s = timeout_s,
		.accept_new_host_keys = accept_new,
		.cancel = &ctl_interrupted,
	};
	const char *workdir;
	struct remote *r = NULL;
	struct preflight p;
	char detail[1024], *work_sh, *env;
	enum bf_err err;
	int ok;

	if (!pl->target) {
		if (pl->cluster)
			printf("%s: a Slurm cluster whose login host is this "
			       "machine: nothing to connect to; its compute "
			       "nodes build the agent\n",
			       pl->label);
		else
			printf("local: ctl run local runs the agent installed "
			       "beside ctl; nothing is deployed or built\n");
		return BF_EXIT_OK;
	}
	workdir = pl->cluster			? (pl->cluster->slurm->workdir ?
							   pl->cluster->slurm->workdir :
							   DEPLOYED_WORKDIR_SLURM) :
		  pl->host && pl->host->workdir ? pl->host->workdir :
						  DEPLOYED_WORKDIR_SSH;
	err = remote_connect(&r, &ro, detail, sizeof(detail));
	if (err != BF_OK) {
		printf("%s: cannot connect: %s\n", pl->label, detail);
		return err == BF_ERR_INTERRUPTED ? BF_EXIT_INTERRUPTED :
						   BF_EXIT_HOSTS_FAILED;
	}
	printf("%s%s%s (%s, host key %s)\n", pl->label,
	       pl->cluster ? ": login host " : "",
	       pl->cluster ? pl->target : "", pl->target,
	       remote_fingerprint(r));
	work_sh = deployed_shell_dir(workdir);
	env = preflight_env(pl->host);
	err = preflight_run(r, work_sh, env, 1, &p, detail, sizeof(detail));
	free(work_sh);
	free(env);
	remote_free(r);
	if (err != BF_OK) {
		printf("  preflight failed: %s\n", detail);
		return err == BF_ERR_INTERRUPTED ? BF_EXIT_INTERRUPTED :
						   BF_EXIT_HOSTS_FAILED;
	}
	ok = report(&p, workdir, pl->cluster != NULL);
	return ok ? BF_EXIT_OK : BF_EXIT_HOSTS_FAILED;
}

int cmd_doctor(int argc, char **argv)
{
	enum {
		O_TIMEOUT = 256,
		O_ACCEPT,
		O_HOSTS_DIR,
		O_HELP
	};
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "accept-new-host-keys", no_argument, NULL, O_ACCEPT },
		{ "hosts-dir", required_argument, NULL, O_HOSTS_DIR },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *ssh_config = NULL, *hosts_dir = NULL, *hosts_by;
	struct inventory inv;
	struct place *places = NULL;
	int c, n = 0, timeout_s = 30, accept_new = 0, status = BF_EXIT_OK;
	char detail[512], **hostargs = bf_xcalloc((size_t)argc, sizeof(char *));
	int nhostargs = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "-:F:", longopts, NULL)) != -1) {
		switch (c) {
		case 1: /* a host, in place: hosts and options may mix */
			hostargs[nhostargs++] = optarg;
			break;
		case 'F':
			if (access(optarg, R_OK) != 0) {
				ctl_error("-F %s: %s", optarg, strerror(errno));
				goto usage;
			}
			ssh_config = optarg;
			break;
		case O_TIMEOUT:
			if (ctl_parse_int("--timeout", optarg, 1, 86400,
					  &timeout_s))
				goto usage;
			break;
		case O_ACCEPT:
			accept_new = 1;
			break;
		case O_HOSTS_DIR:
			if (ctl_parse_dir("--hosts-dir", optarg, &hosts_dir))
				goto usage;
			break;
		case O_HELP:
			fputs(doctor_usage, stdout);
			free(hostargs);
			return BF_EXIT_OK;
		default:
			free(hostargs);
			return ctl_option_error("doctor", c, argv);
		}
	}
	if (nhostargs == 0) {
		ctl_error("doctor: no host given (try: ctl doctor HOST)");
		free(hostargs);
		return BF_EXIT_USAGE;
	}
	memset(&inv, 0, sizeof(inv));
	hosts_dir = ctl_hosts_dir(hosts_dir, &hosts_by);
	if (inventory_load(hosts_dir, hosts_by, &inv, detail, sizeof(detail)) !=
		    BF_OK ||
	    places_resolve(&inv, nhostargs, hostargs, &places, &n, detail,
			   sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		inventory_free(&inv);
		free(hostargs);
		return BF_EXIT_USAGE;
	}
	ctl_catch_signals();
	for (int i = 0; i < n; i++) {
		int s;

		if (i > 0)
			putchar('\n');
		s = doctor_one(&places[i], ssh_config, timeout_s, accept_new);
		fflush(stdout);
		if (s == BF_EXIT_INTERRUPTED) {
			status = s;
			break;
		}
		if (s != BF_EXIT_OK)
			status = s;
	}
	free(places);
	free(hostargs);
	inventory_free(&inv);
	return status;
usage:
	free(hostargs);
	return BF_EXIT_USAGE;
}
