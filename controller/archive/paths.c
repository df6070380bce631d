/*
 * Where results/ and hosts/ are, for every command (README, "Where
 * results and hosts are"; `ctl --help`). For each of the two, the first
 * that applies:
 *
 *  1. the command line's --results DIR (--hosts-dir DIR);
 *  2. $BENCHFLEET_RESULTS_DIR ($BENCHFLEET_HOSTS_DIR), when set and not
 *     empty;
 *  3. ./results (./hosts) when it is a directory;
 *  4. results/ (hosts/) of the benchfleet checkout: the nearest directory
 *     at or above the current one that holds hosts/ and results/README.md,
 *     else the checkout ctl was built from (BF_SOURCE_DIR), if it is still
 *     one;
 *  5. ./results (./hosts), which ctl run creates.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/paths.h"

#ifndef BF_SOURCE_DIR
#define BF_SOURCE_DIR ""
#endif

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A benchfleet checkout: hosts/ and results/README.md. */
static int is_checkout(const char *dir)
{
	char p[PATH_MAX + 32];
	struct stat st;

	snprintf(p, sizeof(p), "%s/hosts", dir);
	if (!is_dir(p))
		return 0;
	snprintf(p, sizeof(p), "%s/results/README.md", dir);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

const char *ctl_checkout_dir(void)
{
	static char found[PATH_MAX];
	static int looked;
	char dir[PATH_MAX];

	if (looked)
		return found[0] ? found : NULL;
	looked = 1;
	if (getcwd(dir, sizeof(dir))) {
		for (;;) {
			char *slash;

			if (is_checkout(dir[0] ? dir : "/")) {
				snprintf(found, sizeof(found), "%s", dir[0] ? dir : "/");
				return found;
			}
			slash = strrchr(dir, '/');
			if (!slash || dir[0] == '\0')
				break;
			*slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
		}
	}
	if (BF_SOURCE_DIR[0] && strlen(BF_SOURCE_DIR) < sizeof(found) &&
	    is_checkout(BF_SOURCE_DIR)) {
		snprintf(found, sizeof(found), "%s", BF_SOURCE_DIR);
		return found;
	}
	return NULL;
}

/* The rule above for one directory: given by option opt, else by the
 * variable env, else ./name or the checkout's. *given_by (when not NULL)
 * gets opt or env when one of them chose it, else NULL. */
static const char *locate(const char *given, const char *opt, const char *env,
			  const char *name, char *buf, size_t len,
			  const char **given_by)
{
	const char *v = getenv(env), *root;

	if (given_by)
		*given_by = given ? opt : v && *v ? env : NULL;
	if (given)
		return given;
	if (v && *v)
		return v;
	if (is_dir(name))
		return name;
	root = ctl_checkout_dir();
	if (root && snprintf(buf, len, "%s%s%s", root,
			     strcmp(root, "/") ? "/" : "", name) < (int)len)
		return buf;
	return name;
}

const char *ctl_results_dir(const char *given)
{
	static char buf[PATH_MAX + 16];

	return locate(given, "--results", "BENCHFLEET_RESULTS_DIR", "results",
		      buf, sizeof(buf), NULL);
}

const char *ctl_hosts_dir(const char *given, const char **given_by)
{
	static char buf[PATH_MAX + 16];

	return locate(given, "--hosts-dir", "BENCHFLEET_HOSTS_DIR", "hosts",
		      buf, sizeof(buf), given_by);
}
