/*
 * ctl check HOST...: a short, bounded ctl run (the tensor checks, the
 * bandwidth, one GEMM size per dtype) under a time budget per host, read
 * back as one verdict line per host and device that a scheduler can keep
 * as a drain reason (model/check.h), with an exit status per outcome;
 * archived as a run tagged "check". For a node checking itself (`ctl
 * check local`): --drain / --resume through scontrol, --node-labels (an
 * NFD feature file) and, for any, --prometheus (node_exporter's textfile
 * collector). docs/health-checks.md and docs/kubernetes.md say how sites
 * wire it in.
 *
 * The run is cmd_run's (cmd_run_hooked: the same deploy, runners and
 * archive) with the check's options; this file parses, builds that
 * command line, prints the results and writes the files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "archive/archive_read.h"
#include "base/proc.h"
#include "base/tail.h"
#include "bf_text.h"
#include "cmd/ctl.h"
#include "cmd/hostcmd.h"
#include "model/check.h"
#include "model/verdict_run.h"
#include "run/inventory.h"
#include "view/check_export.h"
#include "xmalloc.h"

static const char check_usage[] =
	"usage: ctl check HOST... [OPTION...]\n"
	"       ctl check local [--drain] [--resume] [--node-labels FILE] [OPTION...]\n"
	"       ctl check CLUSTER [--drain] [--resume] [OPTION...]\n"
	"\n"
	"A health check: a short ctl run on every HOST (the agent's tensor\n"
	"checks, its bandwidth measurements and one GEMM size per dtype, with\n"
	"the samples its verdict needs), each host's agent bounded by --budget,\n"
	"then one line per host and device with its verdict against its peers,\n"
	"the published and team references and its history (docs/verdict.md):\n"
	"  [HOST] benchfleet: cuda:3 slow: bf16 410 TFLOP/s = 0.52 of 7 peers\n"
	"Each line after \"[HOST] \" is at most 100 bytes of plain ASCII, fit\n"
	"for a node's drain reason. A host that could not be checked has one\n"
	"line: \"benchfleet: unknown: budget exceeded (--budget 60 s): agent\n"
	"stopped\" or \"benchfleet: could not run: WHY\". The run is archived,\n"
	"tagged check (ctl list, ctl history and ctl report show it). HOST is\n"
	"as for ctl run (local: this machine, no SSH). docs/health-checks.md:\n"
	"Slurm's Prolog, Epilog and HealthCheckProgram; docs/kubernetes.md.\n"
	"\n"
	"The check:\n"
	"  --budget SECONDS     how long each host's agent may run, from its start\n"
	"                       (after the deploy and build), 1 to 86400 (default\n"
	"                       60); when it runs out the agent is stopped and the\n"
	"                       host is unknown: budget exceeded\n"
	"  --size N             the GEMM size (default 4096: the size of most\n"
	"                       published references, where a GPU nears its peak)\n"
	"  --dtypes LIST        the GEMM dtypes (default: the agent's)\n"
	"  --device cpu|cuda|all  the devices (default all)\n"
	"  --iters N            timed GEMMs per GPU dtype (default 20; the CPU 5)\n"
	"\n"
	"What to do with the result (--drain and --resume: ctl check local, or\n"
	"Slurm clusters of the inventory whose login is local, each node by its\n"
	"own lines, all nodes of one product each other's peers; --node and\n"
	"--node-labels: ctl check local only):\n"
	"  --drain              on a slow or failed check, drain the Slurm node\n"
	"                       with its worst line as its reason (scontrol update\n"
	"                       NodeName=NODE State=DRAIN Reason=LINE), and print\n"
	"                       drained NODE: LINE\n"
	"  --resume             on an ok check, resume the node if it is drained\n"
	"                       with a reason of benchfleet's (\"benchfleet: ...\");\n"
	"                       another drain is left alone\n"
	"  --node NAME          the Slurm node (default $SLURMD_NODENAME, else the\n"
	"                       short host name)\n"
	"  --node-labels FILE   write a Node Feature Discovery feature file\n"
	"                       (features.d; docs/kubernetes.md)\n"
	"  --prometheus FILE    write the figures and verdicts in Prometheus's text\n"
	"                       format (for node_exporter's textfile collector)\n"
	"  FILEs are written to FILE.tmp and renamed, so a reader never sees half.\n"
	"\n"
	"How ctl runs it:\n"
	"  --timeout SECONDS    bound on connecting (default 30)\n"
	"  -F SSH_CONFIG        ssh_config to read instead of ~/.ssh/config\n"
	"  --accept-new-host-keys  as for ctl run\n"
	"  --results DIR        the archive (default: see ctl --help)\n"
	"  --hosts-dir DIR      the inventory and its references/\n"
	"  --help               this text\n"
	"\n"
	"Examples:\n"
	"  ctl check local --drain --resume          # a Slurm HealthCheckProgram\n"
	"  ctl check gpu1 gpu2 gpu3 --budget 120\n"
	"  ctl check mycluster --drain               # from its login host\n"
	"\n"
	"Exit status: 0 every device ok, 1 failed (a check, a GEMM's\n"
	"verification, a figure above the device's bound), 2 usage error, 4 a\n"
	"FILE, stdout or scontrol could not be written or run, 7 slow (a\n"
	"confident slow against peers, reference or history), 8 unknown: a host\n"
	"could not be checked (did not run, budget exceeded, the archive could\n"
	"not be written) or a device could not be judged (no peers, reference or\n"
	"history; an unreliable slow), 130 interrupted. The worst wins: 1, then\n"
	"7, then 8.\n";

/* Writes a file through FILE.tmp and a rename (the textfile collector's
 * and nfd-worker's readers never see half a file). which: 0 Prometheus,
 * 1 NFD. Returns 0 or -1 after the one-line error. */
static int write_file(const char *path, int which,
		      const struct archive_run *run,
		      const struct verdict_run *vr,
		      const struct check_result *res, int nres)
{
	char *tmp = bf_xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	struct timespec ts;
	int rc;

	if (!f) {
		ctl_error("check: %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	rc = which == 0 ?
		check_export_prometheus(f, run, vr, res, nres,
					(double)ts.tv_sec + ts.tv_nsec / 1e9) :
		check_export_nfd(f, run, vr, res, nres, 0);
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0) {
		ctl_error("check: %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

/* The absolute path of prog on $PATH; NULL when none (caller frees). */
static char *find_program(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *dir, *found = NULL;

	copy = bf_xstrdup(path && *path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = bf_xasprintf("%s/%s", *dir ? dir : ".", prog);

		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

struct collect {
	char buf[8192];
	size_t len;
};

static enum bf_err collect_line(void *arg, const char *line, size_t len,
				int truncated)
{
	struct collect *c = arg;

	(void)truncated;
	if (c->len + len + 2 < sizeof(c->buf)) {
		memcpy(c->buf + c->len, line, len);
		c->len += len;
		c->buf[c->len++] = '\n';
		c->buf[c->len] = '\0';
	}
	return BF_OK;
}

/* scontrol's stderr, into a struct tail (base/tail.h). */
static void collect_err(void *arg, const char *buf, size_t n)
{
	tail_append(arg, buf, n);
}

/* Runs scontrol with args (NULL-terminated, after "scontrol"); its stdout
 * into out (may be NULL). Returns 0, or -1 after the one-line error. */
static int scontrol(const char *const *args, struct collect *out)
{
	char *path = find_program("scontrol");
	char *argv[16], tail[256] = "", detail[256];
	struct tail errs;
	struct collect local;
	int n = 0, status = 0, stopped = 0;
	size_t len;

	if (!path) {
		ctl_error("check: scontrol: not found on PATH");
		return -1;
	}
	argv[n++] = path;
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	memset(&local, 0, sizeof(local));
	if (tail_init(&errs, TAIL_STDERR_BYTES) != 0) {
		ctl_error("check: scontrol: out of memory");
		free(path);
		return -1;
	}
	if (proc_run_lines(path, argv, NULL, 4096, collect_line,
			   out ? out : &local, collect_err, &errs, NULL,
			   &status, &stopped, detail,
			   sizeof(detail)) != BF_OK) {
		ctl_error("check: %s", detail);
		tail_free(&errs);
		free(path);
		return -1;
	}
	free(path);
	{
		size_t got;
		const char *text = tail_text(&errs, &got);

		tail_keep_end(tail, sizeof(tail), text, got);
	}
	tail_free(&errs);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		len = strlen(tail);
		while (len && (tail[len - 1] == '\n' || tail[len - 1] == '\r'))
			tail[--len] = '\0';
		ctl_error("check: scontrol %s: %s", args[0],
			  tail[0] ? tail : "failed");
		return -1;
	}
	return 0;
}

/* The Slurm node this is: --node, $SLURMD_NODENAME, or the short host
 * name; whole (it names the node scontrol drains). Caller frees. */
static char *node_name(const char *given)
{
	const char *env = getenv("SLURMD_NODENAME");
	char host[256], *buf, *dot;

	if (given)
		return bf_xstrdup(given);
	if (env && *env)
		buf = bf_xstrdup(env);
	/* gethostname: HOST_NAME_MAX (64) bytes at most, host 256 */
	else if (gethostname(host, sizeof(host)) == 0 &&
		 memchr(host, '\0', sizeof(host)))
		buf = bf_xstrdup(host);
	else
		buf = bf_xstrdup("localhost");
	if ((dot = strchr(buf, '.')))
		*dot = '\0';
	return buf;
}

/* Whether scontrol show node's text says it is drained (or draining)
 * with a reason of benchfleet's. */
static int drained_by_us(const char *text)
{
	const char *state = strstr(text, " State=");
	const char *reason = strstr(text, " Reason=");

	if (!state || !reason)
		return 0;
	state += 7;
	/* Within the whole State= word ("IDLE+DRAIN"), however long. */
	return strncmp(reason + 8, "benchfleet:", 11) == 0 &&
	       memmem(state, strcspn(state, " \n"), "DRAIN", 5) != NULL;
}

/* --drain or --resume on node after a check of status, with reason the
 * worst line. Returns 0, or -1 after the error. */
static int drain_or_resume(const char *node, int status, const char *reason,
			   int drain, int resume)
{
	/* Whole: a cut node name would name another node. */
	char *nodearg = bf_xasprintf("NodeName=%s", node);
	char reasonarg[CHECK_REASON_MAX + 16];
	struct collect show;
	int rc = 0;

	if (drain && (status == BF_EXIT_SLOW || status == BF_EXIT_CHECKS_FAILED)) {
		const char *args[] = { "update", nodearg, "State=DRAIN",
				       reasonarg, NULL };

		/* fits: a check's reason is CHECK_REASON_MAX bytes at most
		 * (model/check.c check_reason), or a literal */
		snprintf(reasonarg, sizeof(reasonarg), "Reason=%s", reason);
		if (scontrol(args, NULL) != 0)
			rc = -1;
		else
			printf("drained %s: %s\n", node, reason);
		free(nodearg);
		return rc;
	}
	if (resume && status == BF_EXIT_OK) {
		const char *show_args[] = { "show", "node", node, NULL };
		const char *args[] = { "update", nodearg, "State=RESUME", NULL };

		memset(&show, 0, sizeof(show));
		if (scontrol(show_args, &show) != 0)
			rc = -1;
		else if (!drained_by_us(show.buf))
			printf("not resumed %s: not drained by benchfleet\n", node);
		else if (scontrol(args, NULL) != 0)
			rc = -1;
		else
			printf("resumed %s\n", node);
	}
	free(nodearg);
	return rc;
}

/* The results of the run in dir, printed; the files written. Returns
 * the check's status. */
static int report(const char *dir, const char *results, const char *hosts,
		  const char *prom, const char *labels, int drain, int resume,
		  const char *node, int cluster)
{
	struct archive_run *run = NULL;
	struct verdict_run vr;
	struct check_result *res = NULL;
	char detail[512], label[128], *nodebuf;
	int nres = 0, status, counts[CHECK_FAILED + 1] = { 0 }, worst = -1;

	memset(&vr, 0, sizeof(vr));
	if (archive_load_run(dir, &run, detail, sizeof(detail)) != BF_OK ||
	    verdict_run_compute(run, results, hosts, &vr, detail,
				sizeof(detail)) != BF_OK) {
		ctl_error("check: %s", detail);
		archive_run_free(run);
		return BF_EXIT_UNKNOWN;
	}
	status = check_results(run, &vr, &res, &nres);
	for (int i = 0; i < nres; i++) {
		bf_text_sanitize(label, sizeof(label), run->hosts[res[i].host].name);
		printf("[%s] %s\n", label, res[i].reason);
		counts[res[i].kind]++;
		if (worst < 0 || res[i].kind > res[worst].kind)
			worst = i;
	}
	printf("check %s: %d line%s: %d ok, %d slow, %d failed, %d unknown "
	       "(exit %d)\n", run->run_id, nres, nres == 1 ? "" : "s",
	       counts[CHECK_OK], counts[CHECK_SLOW], counts[CHECK_FAILED],
	       counts[CHECK_UNKNOWN], status);
	fflush(stdout);
	if (prom && write_file(prom, 0, run, &vr, res, nres) != 0 &&
	    status == BF_EXIT_OK)
		status = BF_EXIT_INTERNAL;
	if (labels && write_file(labels, 1, run, &vr, res, nres) != 0 &&
	    status == BF_EXIT_OK)
		status = BF_EXIT_INTERNAL;
	if ((drain || resume) && !cluster) {
		nodebuf = node_name(node);
		if (drain_or_resume(nodebuf, status, worst >= 0 ? res[worst].reason :
				    "benchfleet: no result", drain, resume) != 0 &&
		    status == BF_EXIT_OK)
			status = BF_EXIT_INTERNAL;
		free(nodebuf);
	} else if (drain || resume) {
		/* A cluster's nodes, each by its own worst line: a host named
		 * after its node (SLURMD_NODENAME) once its task started; a
		 * rank that never started ("NAME/0") is no node. */
		for (int h = 0; h < run->nhosts; h++) {
			int w = -1;

			if (strchr(run->hosts[h].name, '/'))
				continue;
			for (int i = 0; i < nres; i++)
				if (res[i].host == h &&
				    (w < 0 || res[i].kind > res[w].kind))
					w = i;
			if (w < 0)
				continue;
			if (drain_or_resume(run->hosts[h].name,
					    check_status(res[w].kind),
					    res[w].reason, drain, resume) != 0 &&
			    status == BF_EXIT_OK)
				status = BF_EXIT_INTERNAL;
		}
	}
	free(res);
	verdict_run_free(&vr);
	archive_run_free(run);
	return status;
}

/* Whether every host argument is a Slurm cluster (CLUSTER or
 * CLUSTER:node,...) of the inventory whose login host is this machine,
 * where ctl's scontrol reaches its controller: 0, or -1 after the
 * one-line error. */
static int local_clusters(const char *hosts_dir, const char *const *args,
			  int nargs)
{
	struct inventory inv;
	const char *by;
	char detail[512];
	int rc = 0;

	memset(&inv, 0, sizeof(inv));
	hosts_dir = ctl_hosts_dir(hosts_dir, &by);
	if (inventory_load(hosts_dir, by, &inv, detail, sizeof(detail)) != BF_OK) {
		ctl_error("%s", detail);
		inventory_free(&inv);
		return -1;
	}
	for (int i = 0; i < nargs && rc == 0; i++) {
		/* Whole: the group's name, looked up. */
		char *name = bf_xasprintf("%.*s", (int)strcspn(args[i], ":"),
					  args[i]);
		const struct inv_group *g;

		g = inventory_group(&inv, name);
		if (!g || !g->slurm) {
			ctl_error("check: --drain, --resume: '%s' is no Slurm "
				  "cluster of the inventory (they are for `ctl "
				  "check local` and for clusters whose login is "
				  "local)", args[i]);
			rc = -1;
		} else if (strcmp(g->slurm->login, "local") != 0) {
			ctl_error("check: --drain, --resume: cluster %s: its "
				  "login is %s, not local (run ctl check on the "
				  "login host)", name, g->slurm->login);
			rc = -1;
		}
		free(name);
	}
	inventory_free(&inv);
	return rc;
}

enum { O_BUDGET = CTL_HOPT_COUNT, O_SIZE, O_DTYPES, O_DEVICE, O_ITERS,
       O_DRAIN, O_RESUME, O_NODE, O_LABELS, O_PROM, O_RESULTS };
static const struct ctl_opt check_opts[] = {
	CTL_HOST_OPTS,
	[O_BUDGET] = { "budget", 0, CTL_OPT_VALUE },
	[O_SIZE] = { "size", 0, CTL_OPT_VALUE },
	[O_DTYPES] = { "dtypes", 0, CTL_OPT_VALUE },
	[O_DEVICE] = { "device", 0, CTL_OPT_VALUE },
	[O_ITERS] = { "iters", 0, CTL_OPT_VALUE },
	[O_DRAIN] = { "drain", 0, CTL_OPT_FLAG },
	[O_RESUME] = { "resume", 0, CTL_OPT_FLAG },
	[O_NODE] = { "node", 0, CTL_OPT_VALUE },
	[O_LABELS] = { "node-labels", 0, CTL_OPT_VALUE },
	[O_PROM] = { "prometheus", 0, CTL_OPT_VALUE },
	[O_RESULTS] = { "results", 0, CTL_OPT_VALUE },
};

/* --node, --node-labels and --prometheus's values, in command-line
 * order: a Slurm node name, a file name. 0, or -1 after one line. */
static int check_names(const struct ctl_args *a)
{
	for (int i = 0; i < a->n; i++) {
		const char *v = a->v[i].value;
		int o = a->v[i].opt;

		if (o == O_NODE && (!v[0] || v[0] == '-' ||
				    strpbrk(v, " \t\n="))) {
			ctl_error("check: --node '%s': not a Slurm node name",
				  v);
			return -1;
		}
		if ((o == O_LABELS || o == O_PROM) && (!v[0] || v[0] == '-')) {
			ctl_error("check: %s '%s': expected a file name",
				  o == O_LABELS ? "--node-labels" :
						  "--prometheus", v);
			return -1;
		}
	}
	return 0;
}

static int check_exec(const struct ctl_args *a)
{
	struct ctl_host_opts ho = { .timeout_s = 30 };
	struct ctl_run_hook hook;
	const char *size = "4096", *dtypes = ctl_args_value(a, O_DTYPES),
		   *device = ctl_args_value(a, O_DEVICE), *iters = "20",
		   *node = ctl_args_value(a, O_NODE),
		   *labels = ctl_args_value(a, O_LABELS),
		   *prom = ctl_args_value(a, O_PROM), *results = NULL, *hosts;
	char budget_s[16], timeout_s[16];
	char **rargv = NULL;
	int nhosts = a->npos, rargc = 0, rc;
	int drain = ctl_args_count(a, O_DRAIN) > 0;
	int resume = ctl_args_count(a, O_RESUME) > 0;
	int budget = 60, results_given, local, cluster = 0;
	char **hostargs = a->pos;

	if (ctl_args_value(a, O_SIZE))
		size = ctl_args_value(a, O_SIZE);
	if (ctl_args_value(a, O_ITERS))
		iters = ctl_args_value(a, O_ITERS);
	if (hostcmd_args(a, HOSTCMD_MAX_HOSTS, &ho) ||
	    ctl_args_int(a, O_BUDGET, 1, 86400, &budget) ||
	    check_names(a) || ctl_args_dir(a, O_RESULTS, &results) ||
	    hostcmd_need_host(a, "local"))
		return BF_EXIT_USAGE;
	local = nhosts == 1 && strcmp(hostargs[0], "local") == 0;
	if ((labels || node) && !local) {
		ctl_error("check: --node and --node-labels are for `ctl check "
			  "local` (the node checks itself)");
		return BF_EXIT_USAGE;
	}
	if ((drain || resume) && !local) {
		if (local_clusters(ho.hosts_dir,
				   (const char *const *)hostargs, nhosts) != 0)
			return BF_EXIT_USAGE;
		cluster = 1;
	}
	results_given = results != NULL;
	results = ctl_results_dir(results);
	hosts = ctl_hosts_dir(ho.hosts_dir, NULL);
	snprintf(budget_s, sizeof(budget_s), "%d", budget);
	snprintf(timeout_s, sizeof(timeout_s), "%d", ho.timeout_s);
	rargv = bf_xcalloc((size_t)nhosts + 48, sizeof(*rargv));
	rargv[rargc++] = "run";
	for (int i = 0; i < nhosts; i++)
		rargv[rargc++] = (char *)hostargs[i];
#define ARG(a) (rargv[rargc++] = (char *)(a))
	ARG("--tag"); ARG("check");
	ARG("--no-tui");
	ARG("--size"); ARG(size);
	ARG("--iters"); ARG(iters);
	ARG("--cpu-iters"); ARG("5");
	ARG("--warmup"); ARG("3");
	ARG("--cpu-warmup"); ARG("1");
	/* 256 MiB: above the last-level cache of most CPUs and the L2 of
	 * GPUs (H100 50 MiB), so memory is what is measured; the agent's own
	 * CPU default, 3 x 4 x the last-level cache, took 28 s of a 2-core
	 * VM's check (256 MiB: 1.5 s). */
	ARG("--bandwidth-mib"); ARG("256");
	ARG("--no-batching");
	ARG("--host-timeout"); ARG(budget_s);
	ARG("--timeout"); ARG(timeout_s);
	if (results_given) { ARG("--results"); ARG(results); }
	if (ho.hosts_dir) { ARG("--hosts-dir"); ARG(ho.hosts_dir); }
	if (dtypes) { ARG("--dtypes"); ARG(dtypes); }
	if (device) { ARG("--device"); ARG(device); }
	if (ho.ssh_config) { ARG("-F"); ARG(ho.ssh_config); }
	if (ho.accept_new_host_keys) ARG("--accept-new-host-keys");
#undef ARG
	rargv[rargc] = NULL;
	memset(&hook, 0, sizeof(hook));
	hook.budget_s = budget;
	rc = cmd_run_hooked(rargc, rargv, &hook);
	if (rc == BF_EXIT_USAGE || rc == BF_EXIT_INTERRUPTED) {
		free(hook.run_dir);
		free(rargv);
		return rc;
	}
	if (!hook.run_dir) { /* nothing ran: the archive */
		free(rargv);
		return BF_EXIT_UNKNOWN;
	}
	rc = report(hook.run_dir, results, hosts, prom, labels, drain, resume,
		    node, cluster);
	free(hook.run_dir);
	free(rargv);
	return rc;
}

const struct ctl_command cmd_check_entry = {
	.name = "check",
	.summary = "a bounded health check of hosts: one verdict line per device, drain/resume, NFD labels, Prometheus",
	/* hosts and options may mix */
	.args = { CTL_OPTS(check_opts), .order = CTL_ARGS_IN_ORDER,
		  .usage = check_usage },
	.exec = check_exec,
};
