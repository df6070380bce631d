/*
 * The preflight: one shell command run on a host before the agent is
 * deployed there (runner_ssh.c) or on its own (`ctl doctor`). It says
 * where the host's home is, what its toolchain is (the parts of the
 * build cache's key), which builds of this ctl's agent sources are there,
 * what a build would lack, and the host's distribution (/etc/os-release,
 * else /usr/lib/os-release: the os-release(5) rule), so that ctl can name
 * each missing piece with the command that installs it there.
 *
 * Everything the host prints is data: preflight_line keeps each value in
 * a bounded buffer, the distribution's ID and ID_LIKE only when they are
 * made of os-release(5)'s characters for them ([a-z0-9._-], words by
 * spaces), and nothing of it reaches a shell again (the install command is
 * made from this file's own package names).
 */
#ifndef BF_PREFLIGHT_H
#define BF_PREFLIGHT_H

#include <stddef.h>

#include "bf_error.h"

struct remote;
struct inv_host;

/* What the build cache's toolchain key covers, in the order it is hashed
 * (runner_ssh.c's header comment says why). */
enum preflight_tc {
	PF_TC_ARCH,
	PF_TC_CC,
	PF_TC_CUDA,
	PF_TC_LIBS,
	PF_TC_GPUS,  /* the GPUs' compute capabilities (nvidia-smi) */
	PF_TC_PARTS
};
/* "arch", "compiler", "nvcc", "libs", "gpus". */
extern const char *const preflight_tc_names[PF_TC_PARTS];

/* What a build needs, as the preflight names it in `missing`. */
enum preflight_item {
	PF_COMPILER,  /* cc */
	PF_MAKE,      /* make (CMake's default generator) */
	PF_CMAKE,     /* cmake, 3.18 or newer */
	PF_PKGCONFIG, /* pkg-config */
	PF_CJSON,     /* libcjson (pkg-config) */
	PF_OPENBLAS,  /* openblas (pkg-config) */
	PF_ITEMS
};

/* The preflight's answer; every string NUL-terminated, "" when absent. */
struct preflight {
	char home[1024];
	int got_home;
	int uid;		      /* -1: not said */
	char os_id[64];		      /* os-release ID, e.g. "debian" */
	char os_like[128];	      /* ID_LIKE, e.g. "rhel centos fedora" */
	char os_version[64];	      /* VERSION_ID, terminal-safe */
	char os_name[128];	      /* PRETTY_NAME, terminal-safe */
	char tc[PF_TC_PARTS][256];    /* toolchain parts; "" when not found */
	char make[128];		      /* `make --version`'s first line */
	char cmake[128];	      /* `cmake --version`'s first line */
	char cjson[64], openblas[64]; /* pkg-config --modversion */
	int cublas;		      /* 1: libcublas beside nvcc's toolkit */
	char onednn[32];	      /* oneDNN's version ("2.6.3"); "" none */
	unsigned missing;	      /* 1u << enum preflight_item */
	char built[4096];	      /* "\n<dir>\n..." with a built agent */
	/* "\n<dir> <why>\n...": a deploy directory whose agent is not
	 * executable ("mode -rw-r--r--") or missing ("no agent"). */
	char damaged[4096];
	char workdir_fixed[64];	      /* its mode before chmod 0700 */
	char workdir_unsafe[96];      /* "<mode> <owner uid>": refused */
	char workdir_state[96]; /* look-only: "absent" or "<mode> <uid>" */
};

/* The preflight as a shell command. work_sh is the workdir as a shell
 * word (runner_ssh.c's shell_dir), env the host's environment
 * assignments (env_prefix). With look_only 0 (a deploy) the workdir is
 * created 0700, a group- or world-writable one made 0700 when the login
 * owns it (workdir_fixed) and refused otherwise (workdir_unsafe), and
 * staging directories older than a day are swept; with look_only 1
 * (`ctl doctor`) nothing on the host is changed and workdir_state says
 * what is there. Caller frees. */
char *preflight_command(const char *work_sh, const char *env, int look_only);

/* remote_exec's line callback (remote_ssh.h's remote_line_fn) filling the
 * struct preflight that arg points to (zeroed, uid -1, by the caller). */
enum bf_err preflight_line(void *arg, const char *line, size_t len,
			   int truncated);

/* Runs preflight_command on r and parses it into *p. BF_OK when the
 * command ran and said where the home is; otherwise the remote layer's
 * error, or BF_ERR_REMOTE "preflight failed (exit N): <stderr>". */
enum bf_err preflight_run(struct remote *r, const char *work_sh,
			  const char *env, int look_only, struct preflight *p,
			  char *detail, size_t detail_len);

/* Shell assignments for a host's environment (inv: its inventory entry,
 * or NULL): /usr/local/cuda/bin at the end of PATH (nvcc lives there on a
 * DGX Spark), the inventory's path_prepend in front, its env values
 * quoted (remote_quote); a name that is no shell name is skipped. The
 * preflight, the build and the run all start with it. Caller frees. */
char *preflight_env(const struct inv_host *inv);

/* The toolchain key: FNV-1a 64 over the parts, 16 hex digits and a NUL. */
void preflight_toolchain_key(const struct preflight *p, char out[17]);

/* Whether the name of a directory under the workdir is one of the builds
 * the preflight listed. */
int preflight_is_built(const struct preflight *p, const char *name);

/* Whether the build name is one the preflight found damaged (its agent
 * not executable, or missing), and why ("mode -rw-r--r--", "no agent")
 * into why (len bytes). */
int preflight_damaged(const struct preflight *p, const char *name, char *why,
		      size_t len);

/* The missing pieces in words: "a C compiler (cc), CMake 3.18 or newer
 * (this host has 3.16.3), cJSON (libcjson)", into out. "" when none. */
void preflight_missing_text(const struct preflight *p, char *out, size_t len);

/* What installs the missing pieces on this host's distribution, into
 * out: "install with: sudo apt-get install -y cmake libcjson-dev"
 * (apt-get for Debian and its derivatives, dnf for Fedora and RHEL's
 * family, zypper for openSUSE and SLES, pacman for Arch; no sudo for
 * root), the family chosen by os-release's ID, else by the first word of
 * ID_LIKE that names one. Another distribution gets "no package names
 * known for distribution 'x' (os-release ID): install <the pieces> with
 * its package manager". "" when nothing is missing. */
void preflight_install_hint(const struct preflight *p, char *out, size_t len);

/* Whether the CUDA toolkit was found, in words: "CUDA toolkit found
 * (Cuda compilation tools, release 12.4, V12.4.131; cuBLAS found)" or
 * "no CUDA toolkit (nvcc not in $CUDACXX, PATH or /usr/local/cuda/bin):
 * the agent is built for the CPU only", into out. */
void preflight_cuda_text(const struct preflight *p, char *out, size_t len);

/* Whether oneDNN (libdnnl-dev, optional: the CPU's bf16/fp16 GEMMs where
 * OpenBLAS has no sbgemm/shgemm) was found, in words, into out: "oneDNN
 * 2.6.3 found: ..." or "no oneDNN (libdnnl-dev): the agent is built
 * without it, and CPU bf16/fp16 rows are skipped unless OpenBLAS has
 * sbgemm/shgemm", with the apt-get command on Debian and its
 * derivatives (Debian packages it for amd64, arm64, ppc64el and s390x:
 * packages.debian.org/src:onednn). */
void preflight_onednn_text(const struct preflight *p, char *out, size_t len);

#endif
