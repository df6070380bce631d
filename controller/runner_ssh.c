/*
 * A remote host over SSH: connect (remote_ssh.c), then deploy the agent
 * and run it.
 *
 * Deploy: the agent's sources are embedded in ctl; on the host they live
 * in <workdir>/<source hash>/ (workdir defaults to ~/.cache/benchfleet,
 * created 0700). When that directory has a built agent, it is reused.
 * Otherwise a preflight says what the host lacks (with the command that
 * installs it on that distribution), the sources are uploaded over SFTP
 * into a staging directory, built there with the host's own compiler and
 * CMake (CUDA when nvcc and cuBLAS are there, /usr/local/cuda/bin
 * included), and only a successful build is renamed into place, so a
 * half-written or half-built agent never runs.
 *
 * Every word that reaches the remote shell is quoted (remote_quote).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "embedded.h"
#include "remote_ssh.h"
#include "runner.h"
#include "session.h"
#include "xmalloc.h"

#define DEFAULT_WORKDIR "~/.cache/benchfleet"
/* How much of a failed build's log comes back into the host's archived
 * log before the staging directory (and build.log with it) is removed:
 * enough for a compiler error that scrolled past under make -j, bounded
 * for a build that printed megabytes. */
#define BUILD_LOG_LINES 1000

static char *env_prefix(const struct host_ctx *h);

/* Collects "key=value" lines printed by the preflight script. */
struct probe {
	char home[1024];
	char os[64];
	char missing[256];
	int cached;
	int cuda;
	int got_home;
};

static enum bf_err probe_line(void *arg, const char *line, size_t len,
			      int truncated)
{
	struct probe *p = arg;

	if (strncmp(line, "home=", 5) == 0) {
		snprintf(p->home, sizeof(p->home), "%s", line + 5);
		p->got_home = 1;
	} else if (strncmp(line, "os=", 3) == 0) {
		snprintf(p->os, sizeof(p->os), "%s", line + 3);
	} else if (strncmp(line, "missing=", 8) == 0) {
		snprintf(p->missing, sizeof(p->missing), "%s", line + 8);
	} else if (strcmp(line, "cached=1") == 0) {
		p->cached = 1;
	} else if (strcmp(line, "cuda=1") == 0) {
		p->cuda = 1;
	}
	return BF_OK;
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

/* The command that installs what the preflight found missing. */
static void install_hint(const struct probe *p, char *out, size_t len)
{
	static const struct {
		const char *item, *deb, *rpm, *arch;
	} pkgs[] = {
		{ "compiler", "build-essential", "gcc", "gcc" },
		{ "cmake", "cmake", "cmake", "cmake" },
		{ "pkg-config", "pkg-config", "pkgconf", "pkgconf" },
		{ "cjson", "libcjson-dev", "cjson-devel", "cjson" },
		{ "openblas", "libopenblas-dev", "openblas-devel", "openblas" },
	};
	int deb = strstr("debian ubuntu linuxmint pop raspbian", p->os) != NULL && *p->os;
	int rpm = strstr("fedora rhel centos rocky almalinux amzn ol", p->os) != NULL && *p->os;
	int arch = strcmp(p->os, "arch") == 0;
	size_t off;

	off = (size_t)snprintf(out, len, "%s",
			       deb ? "sudo apt-get install -y" :
			       rpm ? "sudo dnf install -y" :
			       arch ? "sudo pacman -S --needed" :
				      "install:");
	for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]) && off < len; i++)
		if (strstr(p->missing, pkgs[i].item))
			off += (size_t)snprintf(out + off, len - off, " %s",
						deb ? pkgs[i].deb :
						rpm ? pkgs[i].rpm :
						arch ? pkgs[i].arch : pkgs[i].item);
}

/* Keeps the last lines of a failed build's log (printed by the script). */
struct tail_buf {
	struct host_ctx *h;
	char text[2048];
};

static enum bf_err tail_line(void *arg, const char *line, size_t len,
			     int truncated)
{
	struct tail_buf *t = arg;
	size_t have = strlen(t->text), need = len + 1;

	fprintf(t->h->log, "build: %s\n", line);
	if (need >= sizeof(t->text))
		return BF_OK;
	if (have + need >= sizeof(t->text)) {
		/* Drop the oldest whole lines: a line cut at its front would
		 * read as a different line. */
		size_t drop = have + need + 1 - sizeof(t->text);
		const char *keep = t->text + drop;

		if (t->text[drop - 1] != '\n') {
			keep = strchr(keep, '\n');
			keep = keep ? keep + 1 : t->text + have;
		}
		memmove(t->text, keep, strlen(keep) + 1);
		have = strlen(t->text);
	}
	snprintf(t->text + have, sizeof(t->text) - have, "%s%s", have ? "\n" : "",
		 line);
	return BF_OK;
}

/* The newest whole lines of text that fit in room bytes (NUL included),
 * as a pointer into text; when even the last line does not fit, its end.
 * The end of a build log is where the error is. */
static const char *tail_that_fits(const char *text, size_t room)
{
	size_t len = strlen(text);
	const char *p, *nl;

	if (room == 0 || len < room)
		return text;
	p = text + len - (room - 1);
	if (p[-1] == '\n')
		return p;
	nl = strchr(p, '\n');
	return nl ? nl + 1 : p;
}

static enum bf_err upload_sources(struct host_ctx *h, struct remote *r,
				  const char *staging, char *detail,
				  size_t detail_len)
{
	enum bf_err err = BF_OK;

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
		free(path);
	}
	return err;
}

static enum bf_err deploy(struct host_ctx *h, struct remote *r,
			  const char *workdir, char **agent_dir,
			  char *detail, size_t detail_len)
{
	struct probe p = { .cached = 0 };
	struct remote_exec_cb cb = { probe_line, &p, 0 };
	struct remote_exec_result res;
	struct tail_buf tail = { h, "" };
	char *final_sh = shell_dir(workdir, embedded_agent_hash);
	char *env = env_prefix(h);
	char *cmd = NULL, *staging_sh = NULL, *staging_sftp = NULL, *base_sftp = NULL;
	char sub[96], hint[512];
	unsigned int rnd = 0;
	enum bf_err err;

	session_progress(h, HOST_DEPLOYING, NULL);
	/* Preflight: home directory (for SFTP paths), cache hit, and what a
	 * build would need. nvcc is looked for in /usr/local/cuda/bin too,
	 * where a DGX Spark keeps it off PATH. */
	cmd = bf_xasprintf(
		"d=%s; echo \"home=$HOME\"; "
		/* Staging directories of deploys that were cut off (Ctrl-C,
		 * a dropped connection) are swept after a day. */
		"find \"$(dirname \"$d\")\" -maxdepth 1 -name '*.tmp-*' -mmin +1440 "
		"-exec rm -rf {} + 2>/dev/null; "
		"if [ -x \"$d/build/bin/agent\" ]; then echo cached=1; exit 0; fi; "
		"%sm=; "
		"command -v cc >/dev/null 2>&1 || m=\"$m compiler\"; "
		"command -v cmake >/dev/null 2>&1 || m=\"$m cmake\"; "
		"if command -v pkg-config >/dev/null 2>&1; then "
		"pkg-config --exists libcjson || m=\"$m cjson\"; "
		"pkg-config --exists openblas || m=\"$m openblas\"; "
		"else m=\"$m pkg-config cjson openblas\"; fi; "
		"command -v nvcc >/dev/null 2>&1 && echo cuda=1; "
		"[ -r /etc/os-release ] && . /etc/os-release; echo \"os=$ID\"; "
		"echo \"missing=$m\"",
		final_sh, env);
	err = remote_exec(r, cmd, &cb, &res, detail, detail_len);
	if (err != BF_OK)
		goto out;
	if (res.exit_status != 0 || !p.got_home) {
		err = bf_fail(detail, detail_len, BF_ERR_REMOTE,
			      "preflight failed (exit %d): %.200s",
			      res.exit_status, res.stderr_tail);
		goto out;
	}
	*agent_dir = bf_xstrdup(final_sh);
	if (p.cached)
		goto out;
	if (p.missing[0]) {
		install_hint(&p, hint, sizeof(hint));
		err = bf_fail(detail, detail_len, BF_ERR_BUILD,
			      "host lacks%s to build the agent; install with: %s",
			      p.missing, hint);
		goto out;
	}
	if (!p.cuda)
		fprintf(h->log, "preflight: no nvcc on PATH or in /usr/local/cuda/bin: building without CUDA\n");

	/* Upload into a staging directory unique to this deploy. */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (unsigned int)h->index;
	snprintf(sub, sizeof(sub), "%s.tmp-%08x", embedded_agent_hash, rnd);
	base_sftp = sftp_dir(workdir, p.home, "");
	staging_sftp = sftp_dir(workdir, p.home, sub);
	staging_sh = shell_dir(workdir, sub);
	err = remote_mkdir_p(r, base_sftp, 0700, detail, detail_len);
	if (err == BF_OK)
		err = upload_sources(h, r, staging_sftp, detail, detail_len);
	if (err != BF_OK)
		goto out;

	session_progress(h, HOST_BUILDING, NULL);
	free(cmd);
	cmd = bf_xasprintf(
		"cd %s || exit 1; %s"
		"{ cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "
		"-DBF_BUILD_CONTROLLER=OFF -DBF_BUILD_TESTS=OFF "
		"-DBF_AGENT_SOURCE_HASH=%s && "
		"cmake --build build -j\"$(nproc 2>/dev/null || echo 2)\"; } "
		">build.log 2>&1; rc=$?; "
		"if [ $rc -ne 0 ] || [ ! -x build/bin/agent ]; then tail -n %d build.log; "
		"cd .. && rm -rf %s; exit 1; fi; cd .. || exit 1; "
		/* Another ctl may have finished the same hash first: keep its. */
		"mv -T %s %s 2>/dev/null || rm -rf %s; [ -x %s/build/bin/agent ]",
		staging_sh, env, embedded_agent_hash, BUILD_LOG_LINES, staging_sh,
		staging_sh, final_sh, staging_sh, final_sh);
	cb.on_line = tail_line;
	cb.arg = &tail;
	err = remote_exec(r, cmd, &cb, &res, detail, detail_len);
	fflush(h->log);
	if (err == BF_OK && res.exit_status != 0) {
		/* The message becomes the host's reason, which the model keeps
		 * in a fixed buffer (and the archive with it): keep its last
		 * lines, not its first, when it is cut. The host's log has
		 * more (BUILD_LOG_LINES). */
		static const char head[] =
			"agent build failed on the host; last lines of build.log:\n";
		size_t cap = SESSION_REASON_BYTES;

		if (detail_len < cap)
			cap = detail_len;
		err = bf_fail(detail, detail_len, BF_ERR_BUILD, "%s%s", head,
			      tail_that_fits(tail.text, cap > sizeof(head) ?
							cap - (sizeof(head) - 1) : 0));
	}
out:
	free(cmd);
	free(env);
	free(final_sh);
	free(staging_sh);
	free(staging_sftp);
	free(base_sftp);
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

/* Shell assignments for the host's environment: /usr/local/cuda/bin at
 * the end of PATH (nvcc lives there on a DGX Spark), the inventory's
 * path_prepend in front, its env values quoted. Used for the preflight,
 * the build and the run alike, so all three see the same toolchain.
 * Caller frees. */
static char *env_prefix(const struct host_ctx *h)
{
	static const char name_chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
	struct cmd_buf b = { bf_xmalloc(256), 0, 256 };

	b.s[0] = '\0';
	cmd_append(&b, "PATH=\"$PATH:/usr/local/cuda/bin\"; ");
	for (int i = h->inv ? h->inv->npath - 1 : -1; i >= 0; i--) {
		char *q = remote_quote(h->inv->path_prepend[i]);

		cmd_append(&b, "PATH=%s:\"$PATH\"; ", q);
		free(q);
	}
	cmd_append(&b, "export PATH; ");
	for (int i = 0; h->inv && i < h->inv->nenv; i++) {
		const char *name = h->inv->env_name[i];
		char *q;

		/* Values are quoted; a name that is not a shell name is
		 * refused by inventory.c, and skipped here as well. */
		if (!*name || strspn(name, name_chars) != strlen(name))
			continue;
		q = remote_quote(h->inv->env_value[i]);
		cmd_append(&b, "%s=%s; export %s; ", name, q, name);
		free(q);
	}
	return b.s;
}

/* The command that runs the agent: cd, environment, then exec, so that
 * the agent is the channel's own process. */
static char *run_command(const struct host_ctx *h, const char *agent_dir)
{
	char *const *args = h->agent_argv;
	char *env = env_prefix(h);
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
	struct remote_exec_cb cb = { session_feed_line, h, BF_RECORD_MAX_BYTES };
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
	err = remote_exec(r, cmd, &cb, &res, detail, detail_len);
	if (res.stderr_tail && res.stderr_tail_bytes) {
		fputs(res.stderr_tail, h->log);
		fflush(h->log);
	}
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

const struct runner runner_ssh = {
	.name = "ssh",
	.run = run_ssh,
};
