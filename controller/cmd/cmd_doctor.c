/*
 * ctl doctor HOST...: ctl run's preflight on its own (run/preflight.c),
 * changing nothing on the host but a probe file it removes again, and
 * deciding with the same preflight_problem as ctl run: what it has to build the agent, what it
 * lacks with the command that installs it there, whether the CUDA
 * toolkit was found, and whether this ctl's agent is built there already.
 * Hosts one after another, each as ctl run reaches it (the inventory's
 * ssh target, path_prepend and env; ssh_config; known_hosts).
 */
#include <stdarg.h>
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
#include "run/preflight.h"
#include "schema.h"
#include "xmalloc.h"

static const char doctor_usage[] =
	"usage: ctl doctor HOST... [-F SSH_CONFIG] [--timeout SECONDS]\n"
	"                  [--accept-new-host-keys] [--hosts-dir DIR]\n"
	"\n"
	"Runs ctl run's preflight on each HOST and changes nothing there: connects\n"
	"as ctl run would, then says what the host has to build the agent (its\n"
	"distribution, architecture, C compiler, make or else ninja, CMake;\n"
	"pkg-config, cJSON and OpenBLAS, which it builds without: the cJSON ctl\n"
	"ships, no CPU GEMMs without OpenBLAS), whether oneDNN was found\n"
	"(optional: the CPU's bf16/fp16 GEMMs where OpenBLAS has none),\n"
	"whether the CUDA toolkit and cuBLAS were found, the GPUs'\n"
	"compute capabilities (nvidia-smi; part of the build's cache key), what\n"
	"it lacks with the command that installs it there (apt-get, dnf, zypper\n"
	"or pacman, from its /etc/os-release), where ctl deploys (the workdir;\n"
	"in a shared sticky one such as /tmp, this login's benchfleet-<uid>),\n"
	"whether a file can be written and run there (a probe file, removed; a\n"
	"read-only or noexec file system is named), whether the login shell\n"
	"prints to stdout for non-interactive sessions (which breaks SFTP), and\n"
	"whether this ctl's agent is built there already. HOST is as for ctl\n"
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

/* One line "  what  value", the value made terminal-safe, whole. */
static void row(const char *what, const char *value)
{
	char *safe = bf_text_sanitize_dup(value);

	printf("  %-11s %s\n", what, safe);
	free(safe);
}

/* row() with a value of printf's, whole (workdir paths are any length). */
static void rowf(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rowf(const char *what, const char *fmt, ...)
{
	va_list ap;
	char *value;

	va_start(ap, fmt);
	if (vasprintf(&value, fmt, ap) < 0)
		bf_xmalloc_fatal("ctl doctor: a line");
	va_end(ap);
	row(what, value);
	free(value);
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
	char *problem;
	int nbuilt = 0, ours;

	/* fits: os_name 128 and os_id 64 bytes (preflight.h), buf 1536 */
	snprintf(buf, sizeof(buf), "%s%s%s%s%s",
		 p->os_name[0] ? p->os_name : "unknown (no os-release)",
		 p->os_id[0] ? " [" : "", p->os_id, p->os_id[0] ? "]" : "", "");
	row("system", buf);
	row("arch", p->tc[PF_TC_ARCH][0] ? p->tc[PF_TC_ARCH] : "?");
	row("compiler", (p->missing & (1u << PF_COMPILER)) ? "missing" :
			p->tc[PF_TC_CC][0]		   ? p->tc[PF_TC_CC] :
							     "cc");
	if (p->make[0])
		row("make", p->make);
	else if (p->ninja[0])
		row("make", "missing: the build uses ninja");
	else
		row("make", "missing");
	row("ninja", or_missing(p->ninja));
	row("cmake", (p->missing & (1u << PF_CMAKE)) && p->cmake[0] ?
			     "too old" :
			     or_missing(p->cmake));
	row("pkg-config", p->pkgconfig[0] ? p->pkgconfig :
			  "missing (not needed: cJSON and OpenBLAS are "
			  "found without it)");
	if (p->cjson[0]) {
		/* fits: cjson is 64 bytes (preflight.h), buf 1536 */
		snprintf(buf, sizeof(buf), "%s (the host's)", p->cjson);
		row("cjson", buf);
	} else {
		row("cjson", "missing: the agent builds with the copy ctl "
			     "ships (cJSON 1.7.15, third_party/cjson)");
	}
	if (p->openblas[0]) {
		row("openblas", p->openblas);
	} else {
		preflight_optional_hint(p, PF_OPENBLAS, hint, sizeof(hint));
		/* fits: hint is 1024 bytes, the words 80, buf 1536 */
		snprintf(buf, sizeof(buf),
			 "missing: the agent builds without it and skips the "
			 "CPU GEMMs%s%s",
			 hint[0] ? "; for them: " : "", hint);
		row("openblas", buf);
	}
	preflight_onednn_text(p, buf, sizeof(buf));
	row("onednn", buf);
	preflight_cuda_text(p, buf, sizeof(buf));
	row("cuda", buf);
	row("gpus", p->tc[PF_TC_GPUS][0] ? p->tc[PF_TC_GPUS] :
					   "none seen (nvidia-smi)");

	preflight_toolchain_key(p, key);
	/* fits: the agent hash is 16 hex digits (CMakeLists.txt
	 * BF_AGENT_HASH), key 16 (preflight_toolchain_key), name 64 */
	snprintf(name, sizeof(name), "%s-%s", embedded_agent_hash, key);
	ours = preflight_is_built(p, name);
	for (const char *s = p->built; (s = strchr(s, '\n')) && s[1]; s++)
		nbuilt++;
	if (cluster) {
		/* The login host's: its compute nodes build the agent, each
		 * kind its own, under <workdir>/<source hash>/ (not looked
		 * at here). */
		rowf("workdir", "%s: %s", workdir,
		     strcmp(p->workdir_state, "absent") == 0 ||
				     !p->workdir_state[0] ?
			     "not there yet (ctl run makes it)" :
			     "there");
		ours = 0;
	} else {
		char *dir = preflight_workdir(p, workdir), *state;

		if (strcmp(p->workdir_state, "absent") == 0 ||
		    !p->workdir_state[0])
			state = bf_xstrdup("not there yet (ctl run makes it, "
					   "0700)");
		else
			state = bf_xasprintf("mode %s; %d build%s of this "
					     "ctl's agent sources",
					     p->workdir_state, nbuilt,
					     nbuilt == 1 ? "" : "s");
		rowf("workdir", "%s: %s%s%s%s", dir, state,
		     p->workdir_sub[0] ? " (" : "",
		     p->workdir_sub[0] ? workdir : "",
		     p->workdir_sub[0] ? " is shared, so ctl uses this "
					 "login's private directory in it)" :
					 "");
		free(state);
		free(dir);
		/* fits: key is 16 hex digits, the words 40, buf 1536 */
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
	problem = preflight_problem_text(p, workdir);
	if (problem) {
		/* What stops ctl run here, whatever is built: whole, as
		 * ctl run says it. */
		printf("  %-11s no: ", "ready");
		fputs(problem, stdout);
		putchar('\n');
		free(problem);
		return 0;
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
static int doctor_one(const struct place *pl, const struct ctl_host_opts *o)
{
	struct remote_opts ro = {
		.host = pl->target,
		.ssh_config = o->ssh_config,
		.timeout_s = o->timeout_s,
		.accept_new_host_keys = o->accept_new_host_keys,
		.cancel = &ctl_interrupted,
	};
	const char *workdir;
	struct remote *r = NULL;
	struct preflight p;
	/* SSH reasons whole up to 8 KiB (bf_fail ends a cut in "...") */
	char detail[8192], *work_sh, *env;
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
		hostcmd_print_reason(pl->label, "cannot connect: ", detail);
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
		hostcmd_print_reason(NULL, "  preflight failed: ", detail);
		return err == BF_ERR_INTERRUPTED ? BF_EXIT_INTERRUPTED :
						   BF_EXIT_HOSTS_FAILED;
	}
	ok = report(&p, workdir, pl->cluster != NULL);
	return ok ? BF_EXIT_OK : BF_EXIT_HOSTS_FAILED;
}

/* One place for hostcmd_each_place: a blank line between places. */
static int doctor_place(const struct place *pl, int i,
			const struct ctl_host_opts *o, void *arg)
{
	(void)arg;
	if (i > 0)
		putchar('\n');
	return doctor_one(pl, o);
}

static int doctor_exec(const struct ctl_args *a)
{
	return hostcmd_each_place(a, "HOST", doctor_place, NULL);
}

static const struct ctl_opt doctor_opts[] = { CTL_HOST_OPTS };

const struct ctl_command cmd_doctor_entry = {
	.name = "doctor",
	.summary = "check what hosts have and lack to build the agent, changing nothing",
	/* hosts and options may mix */
	.args = { CTL_OPTS(doctor_opts), .order = CTL_ARGS_IN_ORDER,
		  .usage = doctor_usage },
	.exec = doctor_exec,
};
