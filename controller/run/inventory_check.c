/* Which inventory values may reach the host; see inventory_check.h. */
#include "run/inventory_check.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bf_text.h"

/* Names (and name prefixes, ending in '*') the build reads as a command,
 * flags or a path: CMake's compiler and flag variables (cmake-env-
 * variables(7)), nvcc's (nvcc --help: NVCC_PREPEND_FLAGS,
 * NVCC_APPEND_FLAGS, NVCC_CCBIN), GNU make's (MAKEFLAGS, MFLAGS,
 * GNUMAKEFLAGS, MAKEFILES), FindCUDAToolkit's (CUDA_PATH,
 * CUDAToolkit_ROOT), pkg-config's, the shells' (BASH_ENV, ENV), and the
 * paths everything runs from. */
static const char *const build_names[] = {
	"CC", "CXX", "CUDACXX", "CUDAHOSTCXX", "CFLAGS", "CXXFLAGS",
	"CPPFLAGS", "CUDAFLAGS", "LDFLAGS", "CUDAARCHS", "CUDA_PATH",
	"CUDA_HOME", "NVCC_*", "MAKE", "MAKEFLAGS", "MFLAGS",
	"GNUMAKEFLAGS", "MAKEFILES", "CMAKE_*", "CUDAToolkit_*",
	"PKG_CONFIG*", "BASH_ENV", "ENV", "HOME", "PATH", "CPATH",
	"C_INCLUDE_PATH", "LIBRARY_PATH", "LD_LIBRARY_PATH", "LD_PRELOAD",
	"TMPDIR", NULL
};

int inv_env_is_build(const char *name)
{
	for (int i = 0; build_names[i]; i++) {
		size_t n = strlen(build_names[i]);

		if (build_names[i][n - 1] == '*' ?
		    strncmp(name, build_names[i], n - 1) == 0 :
		    strcmp(name, build_names[i]) == 0)
			return 1;
	}
	return 0;
}

/* The first character of s not in `allowed` (nor a letter or digit),
 * or NULL. */
static const char *first_bad(const char *s, const char *allowed)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(allowed, *s))
			return s;
	return NULL;
}

/* "'$'" or "byte 0x0a" for the character at c, into buf. */
static const char *shown(const char *c, char *buf, size_t len)
{
	if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
		snprintf(buf, len, "byte 0x%02x", (unsigned char)*c);
	else
		snprintf(buf, len, "'%c'", *c);
	return buf;
}

int inv_path_ok(const char *path, char *why, size_t why_len)
{
	const char *p = path, *bad;
	char c[16];

	if (!*p) {
		snprintf(why, why_len, "empty");
		return 0;
	}
	if (p[0] == '~' && (p[1] == '/' || !p[1]))
		p++;
	bad = first_bad(p, "/._+@=-");
	if (!bad)
		return 1;
	(void)bf_text_fmt(why, why_len, "%s is not allowed in a directory the agent "
		 "is built in or from (letters, digits and / . _ + @ = - "
		 "only, after an optional leading ~/): the host's nvcc and "
		 "make read it again, unquoted", shown(bad, c, sizeof(c)));
	return 0;
}

int inv_env_value_ok(const char *name, const char *value, char *why,
		     size_t why_len)
{
	const char *bad;
	char c[16];

	for (bad = value; *bad; bad++)
		if (*bad == '$' || *bad == '`' ||
		    ((unsigned char)*bad < 0x20 && *bad != '\t') ||
		    *bad == 0x7f)
			break;
	if (*bad) {
		(void)bf_text_fmt(why, why_len, "%s is not allowed in an env value: "
			 "make, which builds the agent on the host, expands "
			 "'$' in every environment variable ($(shell ...) "
			 "runs), and shells '`'", shown(bad, c, sizeof(c)));
		return 0;
	}
	if (!inv_env_is_build(name))
		return 1;
	bad = first_bad(value, " \t/._+@=-,:");
	if (!bad)
		return 1;
	(void)bf_text_fmt(why, why_len, "%s is not allowed in %s (letters, digits, "
		 "blanks and / . _ + @ = - , : only): the agent's build on "
		 "the host reads it as a command, flags or a path, unquoted",
		 shown(bad, c, sizeof(c)), name);
	return 0;
}
