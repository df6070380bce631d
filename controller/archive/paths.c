/*
 * Where results/ and hosts/ are, for every command (README, "Where
 * results and hosts are"; `ctl --help`). For each of the two, the first
 * that applies:
 *
 *  1. the command line's --results DIR (--hosts-dir DIR);
 *  2. $BENCHFLEET_RESULTS_DIR ($BENCHFLEET_HOSTS_DIR), when set and not
 *     empty;
 *  3. ./results (./hosts) when it is a directory;
 *  4. a checkout build (ctl run from the build tree it was built in,
 *     BF_BINARY_DIR/bin): results/ (hosts/) of the benchfleet checkout,
 *     the nearest directory at or above the current one that holds hosts/
 *     and results/README.md, else the checkout ctl was built from
 *     (BF_SOURCE_DIR), if it is still one;
 *     an installed ctl (any other place: cmake --install, the .deb):
 *     $XDG_DATA_HOME/benchfleet/results, default
 *     ~/.local/share/benchfleet/results, and $XDG_CONFIG_HOME/benchfleet/
 *     hosts, default ~/.config/benchfleet/hosts (the XDG Base Directory
 *     Specification 0.8: results are data, the inventory configuration;
 *     a relative XDG value is ignored, as the specification says);
 *  5. ./results (./hosts), which ctl run creates.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/paths.h"
#include "xmalloc.h"

#ifndef BF_SOURCE_DIR
#define BF_SOURCE_DIR ""
#endif
#ifndef BF_BINARY_DIR
#define BF_BINARY_DIR ""
#endif
#ifndef BF_DATA_DIR
#define BF_DATA_DIR ""
#endif

/* The build's own directories are paths, shorter than PATH_MAX: the
 * buffers below that hold them with a suffix are sized on that. */
_Static_assert(sizeof(BF_SOURCE_DIR) <= PATH_MAX &&
		       sizeof(BF_BINARY_DIR) <= PATH_MAX &&
		       sizeof(BF_DATA_DIR) <= PATH_MAX,
	       "the build's directories are under PATH_MAX");

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A benchfleet checkout: hosts/ and results/README.md. dir is under
 * PATH_MAX bytes (getcwd's, or BF_SOURCE_DIR: ctl_checkout_dir). */
static int is_checkout(const char *dir)
{
	char p[PATH_MAX + 32];
	struct stat st;

	/* fits: dir is under PATH_MAX, "/hosts" 6 bytes. */
	snprintf(p, sizeof(p), "%s/hosts", dir);
	if (!is_dir(p))
		return 0;
	/* fits: dir is under PATH_MAX, "/results/README.md" 18 bytes. */
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
				/* fits: getcwd's dir, as long as found. */
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
		/* fits: its length was checked above. */
		snprintf(found, sizeof(found), "%s", BF_SOURCE_DIR);
		return found;
	}
	return NULL;
}

int ctl_is_checkout_build(void)
{
	static int answer = -1;
	char exe[PATH_MAX], bin[PATH_MAX + 8], *slash;
	ssize_t n;

	if (answer >= 0)
		return answer;
	answer = 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !BF_BINARY_DIR[0] ||
	    strlen(BF_BINARY_DIR) + 5 > sizeof(bin))
		return answer;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return answer;
	*slash = '\0';
	/* fits: its length was checked above. */
	snprintf(bin, sizeof(bin), "%s/bin", BF_BINARY_DIR);
	{
		char real[PATH_MAX];

		answer = realpath(bin, real) && strcmp(real, exe) == 0;
	}
	return answer;
}

/* An installed ctl's directory under an XDG base (xdg_env, else
 * $HOME/fallback), "benchfleet/<name>", into buf; NULL when neither
 * gives an absolute directory. */
static const char *xdg_dir(const char *xdg_env, const char *fallback,
			   const char *name, char *buf, size_t len)
{
	const char *base = getenv(xdg_env), *home = getenv("HOME");
	int n;

	if (base && base[0] == '/')
		n = snprintf(buf, len, "%s/benchfleet/%s", base, name);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/%s/benchfleet/%s",
			     strcmp(home, "/") ? home : "", fallback, name);
	else
		return NULL;
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/* The XDG results directory that ctl_results_dir chose (rule 4 of an
 * installed ctl), or NULL. */
static const char *results_xdg;

void ctl_results_dir_prepare(const char *dir)
{
	char *p;

	if (!results_xdg || strcmp(dir, results_xdg) != 0)
		return;
	p = bf_xstrdup(dir);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			break;
		*s = '/';
	}
	free(p);
}

/* The rule above for one directory: given by option opt, else by the
 * variable env, else ./name or the checkout's. *given_by (when not NULL)
 * gets opt or env when one of them chose it, else NULL. */
static const char *locate(const char *given, const char *opt, const char *env,
			  const char *name, char *buf, size_t len,
			  const char **given_by)
{
	const char *v = getenv(env), *root, *xdg;

	if (given_by)
		*given_by = given ? opt : v && *v ? env : NULL;
	if (given)
		return given;
	if (v && *v)
		return v;
	if (is_dir(name))
		return name;
	if (!ctl_is_checkout_build()) {
		int results = strcmp(name, "results") == 0;

		xdg = xdg_dir(results ? "XDG_DATA_HOME" : "XDG_CONFIG_HOME",
			      results ? ".local/share" : ".config", name, buf,
			      len);
		return xdg ? xdg : name;
	}
	root = ctl_checkout_dir();
	if (root && snprintf(buf, len, "%s%s%s", root,
			     strcmp(root, "/") ? "/" : "", name) < (int)len)
		return buf;
	return name;
}

const char *ctl_results_dir(const char *given)
{
	static char buf[PATH_MAX + 16];
	const char *dir = locate(given, "--results", "BENCHFLEET_RESULTS_DIR",
				 "results", buf, sizeof(buf), NULL);

	results_xdg = dir == buf && !ctl_is_checkout_build() ? buf : NULL;
	return dir;
}

const char *ctl_hosts_dir(const char *given, const char **given_by)
{
	static char buf[PATH_MAX + 16];

	return locate(given, "--hosts-dir", "BENCHFLEET_HOSTS_DIR", "hosts",
		      buf, sizeof(buf), given_by);
}

const char *ctl_references_file(void)
{
	static char buf[PATH_MAX + 64];
	const char *v = getenv("BENCHFLEET_REFERENCES");

	if (v && *v)
		return v;
	if (ctl_is_checkout_build()) {
		/* fits: BF_SOURCE_DIR is under PATH_MAX (asserted above). */
		snprintf(buf, sizeof(buf), "%s/data/references.json",
			 BF_SOURCE_DIR);
		return buf;
	}
	/* fits: BF_DATA_DIR is under PATH_MAX (asserted above). */
	snprintf(buf, sizeof(buf), "%s/benchfleet/references.json",
		 BF_DATA_DIR);
	return buf;
}

const char *ctl_config_references_dir(void)
{
	static char buf[PATH_MAX + 64];

	return xdg_dir("XDG_CONFIG_HOME", ".config", "references", buf,
		       sizeof(buf));
}
