/* What ctl deployed on a host, listed and removed; see deployed.h. */
#include "run/deployed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_parse.h"
#include "bf_text.h"
#include "remote/remote_quote.h"
#include "xmalloc.h"

/* n lower-case hex digits at s. */
static int hex_run(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

int deployed_name_kind(enum deployed_layout layout, const char *name)
{
	/* "<16 hex>-<16 hex>" (SSH) or "<16 hex>" (Slurm), then nothing or
	 * ".tmp-<8 hex>". */
	size_t base = layout == DEPLOYED_SSH ? 33 : 16, len = strlen(name);

	if (len < base || !hex_run(name, 16))
		return 0;
	if (layout == DEPLOYED_SSH &&
	    (name[16] != '-' || !hex_run(name + 17, 16)))
		return 0;
	if (len == base)
		return 1;
	if (len == base + 13 && strncmp(name + base, ".tmp-", 5) == 0 &&
	    hex_run(name + base + 5, 8))
		return 2;
	return 0;
}

/* DEPLOYED_SHARED_SH for ctl run's SSH workdirs; a Slurm workdir is
 * used as it is (runner_slurm.c), so "s=" only. */
static const char *shared_sh(enum deployed_layout layout)
{
	return layout == DEPLOYED_SSH ? DEPLOYED_SHARED_SH : "s=; ";
}

int deployed_default_workdir(const char *workdir)
{
	return strcmp(workdir, DEPLOYED_WORKDIR_SSH) == 0 ||
	       strcmp(workdir, DEPLOYED_WORKDIR_SLURM) == 0;
}

char *deployed_shell_dir(const char *workdir)
{
	char *q, *out;

	if (strcmp(workdir, "~") == 0)
		return bf_xstrdup("\"$HOME\"");
	if (strncmp(workdir, "~/", 2) == 0) {
		q = remote_quote(workdir + 2);
		out = bf_xasprintf("\"$HOME\"/%s", q);
		free(q);
		return out;
	}
	return remote_quote(workdir);
}

/* Lines of the listing: "d<i>" (workdir i exists), "e<i> <kib> <name>"
 * (an entry of ours, by the shell's loose pattern), "o<i>" (an entry
 * that is not). */
struct list_ctx {
	struct deployed_dir *dirs;
	int n;
	/* Other stdout lines, terminal-safe, " / " between them: what a
	 * host that does not run the command says instead (a ForceCommand
	 * internal-sftp, nologin). */
	char said[512];
	int said_cut; /* lines were left out of said (it ends in "...") */
};

/* What keep_said puts in place of the lines that do not fit. */
#define SAID_MORE " / ..."

/* A stdout line that is none of the listing's, kept in c->said (a line
 * over 255 bytes ends in "..."; the lines that do not fit are shown as
 * one " / ..."). */
static void keep_said(struct list_ctx *c, const char *line)
{
	char safe[256];
	size_t have = strlen(c->said);

	bf_text_sanitize(safe, sizeof(safe), line);
	if (!safe[strspn(safe, " \t")] || c->said_cut)
		return;
	/* Room is kept for SAID_MORE after every line taken. */
	if (have + 3 + strlen(safe) + sizeof(SAID_MORE) <= sizeof(c->said))
		/* fits: checked just above. */
		snprintf(c->said + have, sizeof(c->said) - have, "%s%s",
			 have ? " / " : "", safe);
	else {
		c->said_cut = 1;
		(void)bf_text_appendf(c->said, sizeof(c->said), "%s",
				      have ? SAID_MORE : "...");
	}
}

/* One "e<i> <kib> <name>" line into dirs[i]; a name that is not exactly
 * one of ctl's counts as another entry. */
static void add_entry(struct deployed_dir *d, const char *rest)
{
	const char *sp;
	char kib[32], name[64];
	struct deployed_entry *e;
	long v;
	int k;

	if (*rest != ' ' || !(sp = strchr(rest + 1, ' ')) ||
	    (size_t)(sp - rest - 1) >= sizeof(kib) ||
	    strlen(sp + 1) >= sizeof(name)) {
		d->others++;
		return;
	}
	memcpy(kib, rest + 1, (size_t)(sp - rest - 1));
	kib[sp - rest - 1] = '\0';
	/* fits: its length was checked above. */
	snprintf(name, sizeof(name), "%s", sp + 1);
	k = deployed_name_kind(d->layout, name);
	if (!k) {
		/* The shell's glob let it through; it is not ours. */
		d->others++;
		return;
	}
	d->entries = bf_xrealloc(d->entries, (size_t)(d->nentries + 1) *
						     sizeof(*d->entries));
	e = &d->entries[d->nentries++];
	/* fits: name is as long as e->name. */
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->kib = bf_parse_long(kib, 0, 2147483647L, &v) == 0 ? v : -1;
	e->staging = k == 2;
}

static enum bf_err list_line(void *arg, const char *line, size_t len,
			     int truncated)
{
	struct list_ctx *c = arg;
	char kind = line[0];
	char *end;
	long i;

	(void)len;
	if (truncated)
		return BF_OK;
	if (kind != 'd' && kind != 'e' && kind != 'o' && kind != 's') {
		keep_said(c, line);
		return BF_OK;
	}
	i = strtol(line + 1, &end, 10);
	if (end == line + 1 || i < 0 || i >= c->n) {
		keep_said(c, line);
		return BF_OK;
	}
	if (kind == 's') {
		/* "benchfleet-<uid>", nothing else. */
		if (strncmp(end, " benchfleet-", 12) == 0 && end[12] &&
		    strspn(end + 12, "0123456789") == strlen(end + 12) &&
		    strlen(end + 1) < sizeof(c->dirs[i].sub))
			/* fits: checked just above. */
			snprintf(c->dirs[i].sub, sizeof(c->dirs[i].sub), "%s",
				 end + 1);
	} else if (kind == 'd')
		c->dirs[i].exists = 1;
	else if (kind == 'o')
		c->dirs[i].others++;
	else
		add_entry(&c->dirs[i], end);
	return BF_OK;
}

enum bf_err deployed_list(struct login *l, struct deployed_dir *dirs, int n,
			  const atomic_int *cancel, char *detail,
			  size_t detail_len)
{
	struct list_ctx c = { .dirs = dirs, .n = n };
	char *cmd = bf_xstrdup(""), errtail[512];
	enum bf_err err;
	int status;

	for (int i = 0; i < n; i++) {
		char *w = deployed_shell_dir(dirs[i].workdir), *next;
		/* The shell's patterns are loose (any hex-looking name);
		 * list_line holds each name to its exact form. du -sk does not
		 * follow a symbolic link given to it, nor does rm -rf. */
		const char *pat = dirs[i].layout == DEPLOYED_SSH ?
					  "[0-9a-f]*-[0-9a-f]*" :
					  "[0-9a-f]*";

		dirs[i].exists = 0;
		dirs[i].entries = NULL;
		dirs[i].nentries = 0;
		dirs[i].others = 0;
		dirs[i].sub[0] = '\0';
		/* In a shared directory, this login's private one, and only
		 * when it is a directory of this login (DEPLOYED_SHARED_SH). */
		next = bf_xasprintf(
			"%sw=%s; %s"
			"[ -n \"$s\" ] && echo \"s%d $s\"; "
			"if [ -d \"$w\" ] && { [ -z \"$s\" ] || "
			"{ [ ! -L \"$w\" ] && [ -O \"$w\" ]; }; } && cd \"$w\"; "
			"then echo d%d; "
			"for x in * .[!.]*; do [ -e \"$x\" ] || [ -L \"$x\" ] || continue; "
			"case \"$x\" in %s) printf 'e%d %%s %%s\\n' "
			"\"$(du -sk -- \"$x\" 2>/dev/null | cut -f1)\" \"$x\";; "
			"*) echo o%d;; esac; done; cd / || exit 1; fi; ",
			cmd, w, shared_sh(dirs[i].layout), i, i, pat, i, i);
		free(cmd);
		free(w);
		cmd = next;
	}
	{
		char *full = bf_xasprintf("%strue", cmd);

		free(cmd);
		cmd = full;
	}
	err = login_exec(l, cmd, list_line, &c, cancel, &status, errtail,
			 sizeof(errtail), detail, detail_len);
	free(cmd);
	if (err == BF_OK && status != 0) {
		char said[1024];

		bf_text_join_lines(said, sizeof(said), errtail, "; ");
		bf_text_appendf(said, sizeof(said), "%s%s",
				said[0] && c.said[0] ? " / " : "", c.said);
		err = bf_fail(detail, detail_len, BF_ERR_REMOTE,
			      "listing the workdirs failed (exit %d): %s",
			      status, said[0] ? said : "the host printed nothing");
	}
	for (int i = 0; err == BF_OK && i < n; i++)
		for (int a = 1; a < dirs[i].nentries; a++)
			for (int b = a;
			     b > 0 && strcmp(dirs[i].entries[b - 1].name,
					     dirs[i].entries[b].name) > 0;
			     b--) {
				struct deployed_entry t = dirs[i].entries[b];

				dirs[i].entries[b] = dirs[i].entries[b - 1];
				dirs[i].entries[b - 1] = t;
			}
	return err;
}

static enum bf_err ignore_line(void *arg, const char *line, size_t len,
			       int truncated)
{
	(void)arg;
	(void)line;
	(void)len;
	(void)truncated;
	return BF_OK;
}

enum bf_err deployed_remove(struct login *l, const struct deployed_dir *dirs,
			    int n, const atomic_int *cancel, char *detail,
			    size_t detail_len)
{
	char *cmd = bf_xstrdup("rc=0; "), errtail[1024];
	enum bf_err err;
	int status;

	for (int i = 0; i < n; i++) {
		char *w, *next;

		if (!dirs[i].exists || dirs[i].nentries == 0)
			continue;
		w = deployed_shell_dir(dirs[i].workdir);
		next = bf_xasprintf("%sw=%s; %s"
				    "if [ -z \"$s\" ] || { [ ! -L \"$w\" ] && "
				    "[ -O \"$w\" ]; }; then cd \"$w\"; else "
				    "false; fi && { rc1=0; rm -rf --",
				    cmd, w, shared_sh(dirs[i].layout));
		free(cmd);
		cmd = next;
		for (int e = 0; e < dirs[i].nentries; e++) {
			char *q = remote_quote(dirs[i].entries[e].name);

			next = bf_xasprintf("%s %s", cmd, q);
			free(q);
			free(cmd);
			cmd = next;
		}
		/* The directory itself when nothing else is left in it, and
		 * only one ctl names (the default workdir, the private one in
		 * a shared directory): an inventory's workdir may be one ctl
		 * did not make. */
		next = bf_xasprintf("%s || rc1=1; cd / || rc1=1; "
				    "if [ -n \"$s\" ] || [ %d = 1 ]; then "
				    "rmdir \"$w\" 2>/dev/null; fi; "
				    "[ $rc1 = 0 ]; } || rc=1; ",
				    cmd, deployed_default_workdir(dirs[i].workdir));
		free(cmd);
		free(w);
		cmd = next;
	}
	{
		char *full = bf_xasprintf("%sexit $rc", cmd);

		free(cmd);
		cmd = full;
	}
	err = login_exec(l, cmd, ignore_line, NULL, cancel, &status, errtail,
			 sizeof(errtail), detail, detail_len);
	free(cmd);
	if (err == BF_OK && status != 0)
		err = bf_fail(detail, detail_len, BF_ERR_REMOTE,
			      "removing failed (exit %d): %s", status, errtail);
	return err;
}

void deployed_free(struct deployed_dir *dirs, int n)
{
	for (int i = 0; i < n; i++) {
		free(dirs[i].entries);
		dirs[i].entries = NULL;
		dirs[i].nentries = 0;
	}
}
