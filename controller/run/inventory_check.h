/*
 * inventory_check: which inventory values may reach the host (a remote
 * shell, the agent's CMake build on the host, the make and nvcc it runs),
 * so that every one is inert there or refused before anything runs. ctl
 * quotes what it puts in a command (remote_quote), but the build reads
 * some values again unquoted: nvcc runs its compile steps through a shell
 * with the source path in them, so a workdir of "~/wa$(touch x)" ran
 * `touch x` on the host (CMake's CUDA compiler check, every .cu file);
 * GNU make turns every environment variable into a make variable and
 * expands "$(shell ...)" in any it references; CMake pastes CC, CFLAGS
 * and their kind into its build commands as they are; bash expands
 * BASH_ENV's value. Measured here with CMake 3.25 and nvcc 13.0: paths
 * of letters, digits and "/._+@=-" build; ' ' and ',' split nvcc's
 * options, ':' breaks make's rules, '$' and '`' run commands.
 */
#ifndef BF_INVENTORY_CHECK_H
#define BF_INVENTORY_CHECK_H

#include <stddef.h>

/*
 * A directory the agent is built in or whose programs the build may run
 * (workdir, path_prepend): letters, digits and "/._+@=-", after an
 * optional leading "~" or "~/" (the remote HOME). Returns 1 when path
 * is one; otherwise 0 with the reason in why ("'$' is not allowed
 * (...)").
 */
int inv_path_ok(const char *path, char *why, size_t why_len);

/*
 * An env value for variable name: never "$", "`" or a control character
 * (make and shells expand or split on them); for the variables the build
 * reads as commands, flags or paths (CC, CFLAGS, PATH, MAKEFLAGS,
 * CMAKE_*, NVCC_*, ...: inv_env_is_build's list), also no character a
 * shell or make treats specially: letters, digits, blanks and
 * "/._+@=-,:" only. Returns 1, or 0 with the reason in why.
 */
int inv_env_value_ok(const char *name, const char *value, char *why,
		     size_t why_len);

/* Whether the build (CMake, make, nvcc, the compilers, the shells that
 * run them) reads variable name as a command, flags or a path. */
int inv_env_is_build(const char *name);

#endif
