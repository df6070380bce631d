/*
 * A remote host over SSH: connect (remote_ssh.c), then deploy the agent
 * and run it.
 *
 * Deploy: the agent's sources are embedded in ctl; on the host they are
 * built in <workdir>/<source hash>-<toolchain key>/ (workdir defaults to
 * ~/.cache/benchfleet, created 0700; in a shared sticky directory such as
 * /tmp, ctl's files go in the login's private benchfleet-<uid> in it; one
 * writable by group or others is refused, its mode never changed: ctl
 * changes the mode of nothing it did not make). The toolchain
 * key hashes what decides the binary: the machine (uname -m), the C
 * compiler's version line, nvcc's (or none: no CUDA), the cJSON and
 * OpenBLAS versions from pkg-config, and the GPUs' compute capabilities
 * (nvidia-smi --query-gpu=compute_cap: the CUDA code is built for them,
 * cmake/cuda_architectures.cmake), as seen with the host's environment.
 * So two hosts sharing one home over NFS (x86_64 and aarch64, or an H200
 * and a T4 node) never run each other's agent, and a host that gained the
 * CUDA toolkit builds again, with CUDA. When that directory has a built agent, it is reused.
 * Otherwise a preflight says what the host lacks (with the command that
 * installs it on that distribution), the sources are uploaded over SFTP
 * into a staging directory, built there with the host's own compiler and
 * CMake (CUDA when nvcc and cuBLAS are there, /usr/local/cuda/bin
 * included), and only a successful build is renamed into place, so a
 * half-written or half-built agent never runs. The build runs in a
 * session of its own under a watcher that writes a heartbeat line each
 * second: once ctl is gone (Ctrl-C, a dropped connection) the write fails
 * and the watcher kills the build's process group and removes the staging
 * directory, which sshd's signal forwarding would not do for root logins.
 * `ctl where` (runner_ssh_where) runs the same preflight and names the
 * same directory, without uploading, building or running.
 *
 * The connection uses one channel at a time (exec, SFTP, exec, exec), so
 * a server with MaxSessions 1 is enough.
 *
 * Every word that reaches the remote shell is quoted (remote_quote).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "bf_text.h"
#include "remote/remote_ssh.h"
#include "run/agent_stderr.h"
#include "run/build_log.h"
#include "run/deployed.h"
#include "run/embedded.h"
#include "run/inventory_check.h"
#include "run/preflight.h"
#include "run/runner.h"
#include "run/session.h"
#include "xmalloc.h"

/* The longest build-failure reason, NUL included: the cause and the
 * build log's last lines (the reason's excerpt of the log, which the
 * host's log file holds whole). */
#define BUILD_REASON_BYTES 512

#define DEFAULT_WORKDIR "~/.cache/benchfleet"
/* How much of a failed build's log comes back into the host's archived
 * log before the staging directory (and build.log with it) is removed:
 * enough for a compiler error that scrolled past under make -j, bounded
 * for a build that printed megabytes. */
#define BUILD_LOG_LINES 1000

static char *env_prefix(const struct inv_host *inv);

/* One line about the host that is not a state change (the toolchain key),
 * printed as session_progress prints, unless the live table draws; the
 * host's log has it either way. */
static void host_note(struct host_ctx *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void host_note(struct host_ctx *h, const char *fmt, ...)
{
	char *text, *safe;
	va_list ap;

	/* Whole: it names workdirs, which can be long. */
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		bf_xmalloc_fatal("vasprintf");
	va_end(ap);
	safe = bf_text_sanitize_dup(text);
	free(text);
	fprintf(h->log, "%s\n", safe);
	fflush(h->log);
	if (!h->quiet) {
		pthread_mutex_lock(h->print_lock);
		printf("[%s] %s\n", h->name, safe);
		fflush(stdout);
		pthread_mutex_unlock(h->print_lock);
	}
	free(safe);
}

/* The workdir as a shell word: a leading "~/" becomes "$HOME"/, the rest
 * is quoted. Caller frees. */
static char *shell_dir(const char *workdir, const char *sub)
{
	char *rest, *q, *out;

	if (strcmp(workdir, "~") == 0 || strncmp(workdir, "~/", 2) == 0) {
		rest = bf_xasprintf("%s/%s", workdir[1] ? workdir + 2 : "", sub);
		q = remote_quote(rest);
		out = bf_xasprintf("\"$HOME\"/%s", q);
	} else {
		rest = bf_xasprintf("%s/%s", workdir, sub);
		q = remote_quote(rest);
		out = bf_xstrdup(q);
	}
	free(rest);
	free(q);
	return out;
}

/* The workdir as an absolute SFTP path (SFTP does not expand "~"). */
static char *sftp_dir(const char *workdir, const char *home, const char *sub)
{
	if (strcmp(workdir, "~") == 0 || strncmp(workdir, "~/", 2) == 0)
		return bf_xasprintf("%s/%s%s%s", home, workdir[1] ? workdir + 2 : "",
				 workdir[1] ? "/" : "", sub);
	return bf_xasprintf("%s/%s", workdir, sub);
}

/* A line of the build's output: progress to the session, the rest to
 * the host's log and into the tail (build_log.h). */
struct tail_buf {
	struct host_ctx *h;
	struct build_log log;
};

static enum bf_err tail_line(void *arg, const char *line, size_t len,
			     int truncated)
{
	struct tail_buf *t = arg;
	int done, total, percent;

	(void)truncated;
	switch (build_log_line(&t->log, line, len, &done, &total, &percent)) {
	case BUILD_LINE_PROGRESS:
		session_build_progress(t->h, done, total, percent);
		break;
	case BUILD_LINE_HEARTBEAT:
		break;
	case BUILD_LINE_CAUSE:
		fprintf(t->h->log, "build: %s\n", t->log.ctl_cause);
		break;
	case BUILD_LINE_TEXT:
		fprintf(t->h->log, "build: %s\n", line);
		break;
	}
	return BF_OK;
}

static enum bf_err upload_sources(struct host_ctx *h, struct remote *r,
				  const char *staging, char *detail,
				  size_t detail_len)
{
	enum bf_err err = BF_OK;
	long long total = 0, done = 0;

	for (size_t i = 0; i < embedded_agent_file_count; i++)
		total += (long long)embedded_agent_files[i].size;
	session_upload_progress(h, 0, total);
	for (size_t i = 0; i < embedded_agent_file_count && err == BF_OK; i++) {
		const struct embedded_file *f = &embedded_agent_files[i];
		char *path = bf_xasprintf("%s/%s", staging, f->path);
		char *slash = strrchr(path, '/');

		*slash = '\0';
		err = remote_mkdir_p(r, path, 0700, detail, detail_len);
		*slash = '/';
		if (err == BF_OK)
			err = remote_upload(r, path, f->data, f->size, 0644,
					    detail, detail_len);
		if (err == BF_OK) {
			done += (long long)f->size;
			session_upload_progress(h, done, total);
		}
		free(path);
	}
	return err;
}

/* The build, in the staging directory: CMake in a session of its own
 * (setsid, where there is one) writing build.log, and a watcher that
 * prints BUILD_HEARTBEAT each second. SIGPIPE is ignored (after the build
 * started, which keeps the default), so a heartbeat to a closed channel
 * fails instead of killing the shell: the watcher then stops the build's
 * process group, and the shell, once the build is gone, removes the
 * staging directory. A failed build prints its log's tail; a successful
 * one is renamed into place. Caller frees. */
static char *build_command(const char *staging_sh, const char *final_sh,
			   const char *env)
{
	/* Ninja where make is missing and ninja is there (an air-gapped
	 * GPU node with CMake and ninja from pip, say). */
	char *inner = bf_xasprintf(
		"g=; if ! command -v make >/dev/null 2>&1 && "
		"command -v ninja >/dev/null 2>&1; then g=Ninja; fi; "
		"cmake ${g:+-G \"$g\"} -S . -B build -DCMAKE_BUILD_TYPE=Release "
		"-DBF_BUILD_CONTROLLER=OFF -DBF_BUILD_TESTS=OFF "
		"-DBF_AGENT_SOURCE_HASH=%s && "
		"cmake --build build -j\"$(nproc 2>/dev/null || echo 2)\"",
		embedded_agent_hash);
	char *inner_q = remote_quote(inner);
	char *cmd = bf_xasprintf(
		"cd %s || exit 1; %s"
		"s=; command -v setsid >/dev/null 2>&1 && s=setsid; "
		"$s sh -c %s </dev/null >build.log 2>&1 & b=$!; "
		"trap '' PIPE; "
		/* sleep's output goes elsewhere: one left from the last round
		 * must not hold the channel open once the shell is done. */
		"( while sleep 1 </dev/null >/dev/null 2>&1; do "
		/* The last progress mark ([ 45%%] or [12/40]) so far. */
		"p=$(grep -oE '^\\[ *[0-9]+%%\\]|^\\[[0-9]+/[0-9]+\\]' build.log "
		"2>/dev/null | tail -n 1); "
		"echo \"%s $p\" || { kill -TERM -\"$b\" \"$b\"; "
		"sleep 2; kill -KILL -\"$b\" \"$b\"; exit 0; } 2>/dev/null; "
		"done ) & k=$!; "
		"wait \"$b\"; rc=$?; kill \"$k\" 2>/dev/null; "
		"if [ $rc -ne 0 ] || [ ! -x build/bin/agent ]; then "
		"tail -n %d build.log; "
		"[ $rc -eq 0 ] && echo \"" BUILD_CAUSE " the build ended well "
		"but left no executable agent: "
		"$(ls -ld build/bin/agent 2>&1 | cut -c1-300)\"; "
		"cd .. && rm -rf %s; exit 1; fi; "
		"cd .. || exit 1; "
		/* Another ctl may have finished the same build first: keep
		 * its; a damaged one (no executable agent) goes. */
		"[ -x %s/build/bin/agent ] || rm -rf %s; "
		"mv -T %s %s 2>/dev/null || rm -rf %s; "
		"[ -x %s/build/bin/agent ] || "
		"{ echo \"" BUILD_CAUSE " the agent is not executable after "
		"the build: $(ls -ld %s/build/bin/agent 2>&1 | cut -c1-300) "
		"(a noexec mount?)\"; exit 1; }",
		staging_sh, env, inner_q, BUILD_HEARTBEAT, BUILD_LOG_LINES,
		staging_sh, final_sh, final_sh, staging_sh, final_sh,
		staging_sh, final_sh, final_sh);

	free(inner);
	free(inner_q);
	return cmd;
}

/* The deploy's preflight (run/preflight.c, with inv's environment) on r,
 * and what it decides: *p as the host answered, key (the toolchain key)
 * and name ("<source hash>-<key>", the agent's directory under workdir:
 * the one place that names it, for ctl run and ctl where). Errors:
 * remote_exec's; BF_ERR_REMOTE when the preflight failed or the workdir
 * is unsafe (detail says which). */
static enum bf_err preflight(const struct inv_host *inv, struct remote *r,
			     const char *workdir, struct preflight *p,
			     char key[17], char name[160], char **dir,
			     char *detail, size_t detail_len)
{
	char *work_sh = deployed_shell_dir(workdir);
	char *env = env_prefix(inv);
	char *why = NULL;
	enum bf_err err;

	*dir = NULL;
	err = preflight_run(r, work_sh, env, 0, p, detail, detail_len);
	if (err == BF_OK && (why = preflight_problem_text(p, workdir)))
		err = bf_fail(detail, detail_len, BF_ERR_REMOTE, "%s", why);
	free(why);
	if (err == BF_OK) {
		preflight_toolchain_key(p, key);
		/* A directory's name: never cut. The hash is 16 hex digits
		 * (CMakeLists.txt's BF_AGENT_HASH), the key 16. */
		if (snprintf(name, 160, "%s-%s", embedded_agent_hash, key) >=
		    160)
			err = bf_fail(detail, detail_len, BF_ERR_BUILD,
				      "the agent's source hash is too long");
		*dir = preflight_workdir(p, workdir);
	}
	free(env);
	free(work_sh);
	return err;
}

static enum bf_err deploy(struct host_ctx *h, struct remote *r,
			  const char *conf_workdir, char **agent_dir,
			  char *detail, size_t detail_len)
{
	char *workdir = NULL;
	struct preflight p;
	struct remote_exec_cb cb = { .on_line = NULL };
	struct remote_exec_result res;
	struct tail_buf tail = { .h = h };
	char *env = env_prefix(h->inv);
	char *cmd = NULL, *final_sh = NULL, *staging_sh = NULL;
	char *staging_sftp = NULL;
	char key[17], name[160], sub[192], hint[768], what[512], cuda[384];
	unsigned int rnd = 0;
	enum bf_err err;

	session_progress(h, HOST_DEPLOYING, NULL);
	err = preflight(h->inv, r, conf_workdir, &p, key, name, &workdir,
			detail, detail_len);
	if (err != BF_OK)
		goto out;
	if (p.workdir_sub[0])
		host_note(h, "workdir %s is shared (mode %s): using this "
			  "login's private directory %s in it", conf_workdir,
			  p.workdir_state, workdir);
	/* The inventory's workdir was checked (inventory_check.h); a "~"
	 * one lies under the host's HOME, which must pass the same test. */
	if (workdir[0] == '~' && !inv_path_ok(p.home, hint, sizeof(hint))) {
		char home[201];

		/* At most 200 bytes of it, a cut marked: the advice after
		 * it must fit in the reason. */
		(void)bf_text_fmt(home, sizeof(home), "%s", p.home);
		err = bf_fail(detail, detail_len, BF_ERR_REMOTE,
			      "workdir %s is under the host's HOME %s: %s; "
			      "set an absolute \"workdir\" for this host",
			      workdir, home, hint);
		goto out;
	}

	final_sh = shell_dir(workdir, name);
	host_note(h, "cache key %s (%s %s, %s %s, %s %s, %s %s, %s %s)%s", key,
		  preflight_tc_names[PF_TC_ARCH],
		  p.tc[PF_TC_ARCH][0] ? p.tc[PF_TC_ARCH] : "?",
		  preflight_tc_names[PF_TC_CC],
		  p.tc[PF_TC_CC][0] ? p.tc[PF_TC_CC] : "none",
		  preflight_tc_names[PF_TC_CUDA],
		  p.tc[PF_TC_CUDA][0] ? p.tc[PF_TC_CUDA] : "none",
		  preflight_tc_names[PF_TC_LIBS],
		  p.tc[PF_TC_LIBS][0] ? p.tc[PF_TC_LIBS] : "none",
		  preflight_tc_names[PF_TC_GPUS],
		  p.tc[PF_TC_GPUS][0] ? p.tc[PF_TC_GPUS] : "none",
		  preflight_is_built(&p, name) ? ": cached" : "");
	*agent_dir = bf_xstrdup(final_sh);
	if (preflight_is_built(&p, name))
		goto out;
	preflight_cuda_text(&p, cuda, sizeof(cuda));
	if (p.missing) {
		preflight_missing_text(&p, what, sizeof(what));
		preflight_install_hint(&p, hint, sizeof(hint));
		err = bf_fail(detail, detail_len, BF_ERR_BUILD,
			      "host lacks %s to build the agent; %s; %s", what,
			      hint, cuda);
		goto out;
	}
	fprintf(h->log, "preflight: %s\n", cuda);
	if (preflight_damaged(&p, name, hint, sizeof(hint)))
		host_note(h, "cached agent %s/build/bin/agent is not "
			  "executable (%s): building it again", name, hint);

	/* Upload into a staging directory unique to this deploy. */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (unsigned int)h->index;
	/* fits: name is under 160 bytes (its array), ".tmp-" and 8 hex
	 * digits take 13: 173 < 192. */
	snprintf(sub, sizeof(sub), "%s.tmp-%08x", name, rnd);
	staging_sftp = sftp_dir(workdir, p.home, sub);
	staging_sh = shell_dir(workdir, sub);
	err = upload_sources(h, r, staging_sftp, detail, detail_len);
	if (err != BF_OK)
		goto out;

	session_progress(h, HOST_BUILDING, NULL);
	free(cmd);
	cmd = build_command(staging_sh, final_sh, env);
	cb.on_line = tail_line;
	cb.arg = &tail;
	err = remote_exec(r, cmd, &cb, &res, detail, detail_len);
	fflush(h->log);
	if (err == BF_OK && res.exit_status != 0) {
		/* The message becomes the host's reason (the table's and
		 * run.json's): the cause first, then as many of the log's
		 * last lines (not its first) as fit BUILD_REASON_BYTES, an
		 * excerpt. The host's log has more (BUILD_LOG_LINES). */
		const char *full_cause = build_log_cause(&tail.log);
		char cut_cause[301], *cause = NULL;

		/* At most 300 bytes of the cause, a cut marked ("..."): the
		 * log's last lines must fit after it. */
		if (full_cause) {
			(void)bf_text_fmt(cut_cause, sizeof(cut_cause), "%s",
					  full_cause);
			cause = cut_cause;
		}
		/* An empty log gets no heading of its own; without a cause
		 * either, the exit status is all there is to say. */
		char *head = cause && tail.log.text[0] ?
			bf_xasprintf("agent build failed on the host: %s\n"
				     "last lines of build.log:\n", cause) :
			cause ?
			bf_xasprintf("agent build failed on the host: %s",
				     cause) :
			!tail.log.text[0] ?
			bf_xasprintf("agent build failed on the host: the "
				     "build command exited with status %d and "
				     "printed nothing", res.exit_status) :
			bf_xstrdup("agent build failed on the host; last "
				   "lines of build.log:\n");
		size_t cap = BUILD_REASON_BYTES, head_len = strlen(head);

		if (detail_len < cap)
			cap = detail_len;
		err = bf_fail(detail, detail_len, BF_ERR_BUILD, "%s%s", head,
			      build_log_tail(tail.log.text, cap > head_len + 1 ?
							cap - head_len : 0));
		free(head);
	}
out:
	free(workdir);
	free(cmd);
	free(env);
	free(final_sh);
	free(staging_sh);
	free(staging_sftp);
	return err;
}

/* A growing command string. */
struct cmd_buf {
	char *s;
	size_t len, cap;
};

static void cmd_append(struct cmd_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void cmd_append(struct cmd_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap * 2 + (size_t)n;
		b->s = bf_xrealloc(b->s, b->cap);
	}
	b->len += (size_t)n;
}

/* The host's environment as shell assignments (preflight_env). Used for
 * the preflight, the build and the run alike, so all three see the same
 * toolchain. Caller frees. */
static char *env_prefix(const struct inv_host *inv)
{
	return preflight_env(inv);
}

/* The command that runs the agent: cd, environment, then exec, so that
 * the agent is the channel's own process. */
static char *run_command(const struct host_ctx *h, const char *agent_dir)
{
	char *const *args = h->agent_argv;
	char *env = env_prefix(h->inv);
	struct cmd_buf b = { bf_xmalloc(1024), 0, 1024 };

	cmd_append(&b, "cd %s || exit 127; %sexec ./build/bin/agent", agent_dir,
		   env);
	for (int i = 0; args[i]; i++) {
		char *q = remote_quote(args[i]);

		cmd_append(&b, " %s", q);
		free(q);
	}
	free(env);
	return b.s;
}

/* remote_exec's on_stderr for the agent's run. */
static void ssh_stderr(void *arg, const char *buf, size_t n)
{
	agent_stderr_write(arg, buf, n);
}

static enum bf_err run_ssh(struct host_ctx *h, char *detail, size_t detail_len)
{
	struct remote_opts ro = {
		.host = h->target,
		.ssh_config = h->opts->ssh_config,
		.known_hosts = NULL,
		.timeout_s = h->opts->timeout_s,
		.accept_new_host_keys = h->opts->accept_new_host_keys,
		.cancel = h->cancel,
	};
	struct agent_stderr es;
	struct remote_exec_cb cb = {
		.on_line = session_feed_line, .arg = h,
		.line_max_bytes = BF_RECORD_MAX_BYTES,
		.on_stderr = ssh_stderr, .stderr_arg = &es,
	};
	struct remote_exec_result res;
	const char *workdir = h->inv && h->inv->workdir ? h->inv->workdir :
							  DEFAULT_WORKDIR;
	struct remote *r = NULL;
	char *agent_dir = NULL, *cmd = NULL;
	enum bf_err err;

	session_progress(h, HOST_CONNECTING, NULL);
	err = remote_connect(&r, &ro, detail, detail_len);
	if (err != BF_OK)
		goto out;
	session_set_fingerprint(h, remote_fingerprint(r));
	if (remote_host_key_added(r))
		fprintf(h->log, "host key %s added to known_hosts\n",
			remote_fingerprint(r));
	err = deploy(h, r, workdir, &agent_dir, detail, detail_len);
	if (err != BF_OK)
		goto out;
	session_progress(h, HOST_RUNNING, NULL);
	cmd = run_command(h, agent_dir);
	/* stderr into the log as it arrives, as ctl run local has it. */
	agent_stderr_init(&es, h);
	err = remote_exec(r, cmd, &cb, &res, detail, detail_len);
	agent_stderr_end(&es);
	if (err != BF_OK)
		goto out;
	err = session_agent_ended(h, res.exit_status, res.exit_signal,
				  res.stderr_tail, detail, detail_len);
out:
	free(cmd);
	free(agent_dir);
	remote_free(r);
	return err;
}

static enum bf_err identity_line(void *arg, const char *line, size_t len,
				 int truncated)
{
	(void)len;
	(void)truncated;
	machine_id_line(arg, line);
	return BF_OK;
}

/* Which machine h reaches (run/machine.h): a connection of its own (its
 * host key checked and, with --accept-new-host-keys, recorded, as the
 * run's connection would), one command for the machine and boot ids,
 * closed again: an idle connection kept while other hosts of the same
 * machine run could be dropped by the server's keep-alive. A host that
 * answers the connection but not the command is a machine of its own
 * (logged). */
static enum bf_err identify_ssh(struct host_ctx *h, struct machine_id *id,
				char *detail, size_t detail_len)
{
	struct remote_opts ro = {
		.host = h->target,
		.ssh_config = h->opts->ssh_config,
		.known_hosts = NULL,
		.timeout_s = h->opts->timeout_s,
		.accept_new_host_keys = h->opts->accept_new_host_keys,
		.cancel = h->cancel,
	};
	struct remote_exec_cb cb = { .on_line = identity_line, .arg = id,
				     .line_max_bytes = 4096 };
	struct remote_exec_result res;
	struct remote *r = NULL;
	char why[512];
	enum bf_err err;

	session_progress(h, HOST_CONNECTING, NULL);
	err = remote_connect(&r, &ro, detail, detail_len);
	if (err != BF_OK)
		return err;
	/* fits: "SHA256:" and 43 base64 digits (remote_ssh.h) in 128. */
	snprintf(id->host_key, sizeof(id->host_key), "%s", remote_fingerprint(r));
	session_set_fingerprint(h, remote_fingerprint(r));
	if (remote_host_key_added(r))
		fprintf(h->log, "host key %s added to known_hosts\n",
			remote_fingerprint(r));
	err = remote_exec(r, machine_id_command(), &cb, &res, why, sizeof(why));
	if (err == BF_ERR_INTERRUPTED) {
		(void)bf_text_fmt(detail, detail_len, "%s", why);
	} else if (err != BF_OK) {
		fprintf(h->log, "machine id: %s\n", why);
		err = BF_OK;
	}
	fprintf(h->log, "machine id %s, boot id %s, host key %s\n",
		id->machine_id[0] ? id->machine_id : "unknown",
		id->boot_id[0] ? id->boot_id : "unknown", id->host_key);
	fflush(h->log);
	remote_free(r);
	return err;
}

const struct runner runner_ssh = {
	.name = "ssh",
	.run = run_ssh,
	.identify = identify_ssh,
};

enum bf_err runner_ssh_where(const char *target, const struct inv_host *inv,
			     const struct run_opts *opts,
			     const atomic_int *cancel, char **agent, int *built,
			     char *detail, size_t detail_len)
{
	struct remote_opts ro = {
		.host = target,
		.ssh_config = opts->ssh_config,
		.known_hosts = NULL,
		.timeout_s = opts->timeout_s,
		.accept_new_host_keys = opts->accept_new_host_keys,
		.cancel = cancel,
	};
	const char *workdir = inv && inv->workdir ? inv->workdir :
						     DEFAULT_WORKDIR;
	struct remote *r = NULL;
	struct preflight p;
	char key[17], name[160], *dir, *eff = NULL;
	enum bf_err err;

	*agent = NULL;
	*built = 0;
	err = remote_connect(&r, &ro, detail, detail_len);
	if (err == BF_OK)
		err = preflight(inv, r, workdir, &p, key, name, &eff, detail,
				detail_len);
	if (err == BF_OK) {
		dir = sftp_dir(eff, p.home, name);
		*agent = bf_xasprintf("%s/build/bin/agent", dir);
		*built = preflight_is_built(&p, name);
		free(dir);
	}
	free(eff);
	remote_free(r);
	return err;
}
