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

/* What a build uses, as the preflight names it in `missing` (the build
 * cannot go without it: a compiler, CMake, make or else ninja) and in
 * `lacks` (it goes without: pkg-config; cJSON, for which the copy ctl
 * ships is built; OpenBLAS, without which the CPU GEMMs are skipped). */
enum preflight_item {
	PF_COMPILER,  /* cc */
	PF_MAKE,      /* make, else ninja (the build then uses -G Ninja) */
	PF_CMAKE,     /* cmake, 3.18 or newer */
	PF_PKGCONFIG, /* pkg-config */
	PF_CJSON,     /* libcjson: pkg-config's, or header and library */
	PF_OPENBLAS,  /* openblas: pkg-config's, or cblas.h and library */
	PF_ITEMS
};

/* The preflight's answer; every string NUL-terminated, "" when absent. */
struct preflight {
	char home[1024];
	int got_home;
	int home_too_long;	      /* HOME was 1024 bytes or more: refused,
				       * never cut (preflight_run says so) */
	int uid;		      /* -1: not said */
	char os_id[64];		      /* os-release ID, e.g. "debian" */
	char os_like[128];	      /* ID_LIKE, e.g. "rhel centos fedora" */
	char os_version[64];	      /* VERSION_ID, terminal-safe */
	char os_name[128];	      /* PRETTY_NAME, terminal-safe */
	/* Toolchain parts; "" when not found; one over 255 bytes is its
	 * start, "..." and the FNV-1a hash of the whole ("...#<16 hex>"),
	 * so that a cut part still tells toolchains apart. */
	char tc[PF_TC_PARTS][256];
	char make[128];		      /* `make --version`'s first line */
	char cmake[128];	      /* `cmake --version`'s first line */
	char ninja[64];		      /* `ninja --version`, "" when none */
	char pkgconfig[64];	      /* `pkg-config --version` */
	/* pkg-config --modversion; "found" when found without it */
	char cjson[64], openblas[64];
	int cublas;		      /* 1: libcublas beside nvcc's toolkit */
	char onednn[32];	      /* oneDNN's version ("2.6.3"); "" none */
	unsigned missing;	      /* 1u << enum preflight_item */
	unsigned lacks;		      /* the same bits, for what is optional */
	char built[4096];	      /* "\n<dir>\n..." with a built agent */
	/* "\n<dir> <why>\n...": a deploy directory whose agent is not
	 * executable ("mode -rw-r--r--") or missing ("no agent"). */
	char damaged[4096];
	/* "benchfleet-<uid>": the workdir is a shared sticky directory and
	 * ctl's files go in this private directory in it (deployed.h's
	 * DEPLOYED_SHARED_SH); "" otherwise. */
	char workdir_sub[64];
	/* "<mode> <owner uid>" of a workdir group or others can write (or of
	 * a private directory not this login's, or a link): refused, never
	 * changed; "<mode> (not a directory)". */
	char workdir_unsafe[96];
	char workdir_state[96]; /* "absent" or "<mode> <owner uid>" */
	/* "<dir>: <the shell's error>": no file can be written there (a
	 * read-only file system, no permission). */
	char cannot_write[512];
	/* "<dir>" where a file made executable could not be run, and
	 * whether findmnt named the mount noexec. */
	char noexec_dir[512];
	char noexec_opts[256]; /* findmnt's mount options, "" if unknown;
				* over 255 bytes it ends in "..." */
	int noexec_named;      /* the whole options hold "noexec" */
	int begun;	       /* PREFLIGHT_MARK was seen */
	/* stdout lines before PREFLIGHT_MARK (the login shell's own: a
	 * startup file that prints, a ForceCommand, nologin's message),
	 * joined by " / ", terminal-safe; its first line in noise_first. */
	char noise[512];
	int noise_lines;
	int noise_cut;	       /* lines were left out of noise (it ends in
				* " / ...") */
};

/* The preflight's first line: stdout before it is not the command's. */
#define PREFLIGHT_MARK ":bf-preflight"

/* The preflight as a shell command. work_sh is the workdir as a shell
 * word (runner_ssh.c's shell_dir), env the host's environment
 * assignments (env_prefix). The same checks in both modes, each trying
 * what ctl run does there: a shared sticky workdir (/tmp) is replaced by
 * the login's private directory in it (workdir_sub); a workdir group or
 * others can write is refused, never chmodded (workdir_unsafe); a file
 * is written there and run (cannot_write, noexec_*), then removed. With
 * look_only 0 (a deploy) the workdir is created (0700, parents too;
 * a private one in a shared directory with plain mkdir) and staging
 * directories older than a day are swept; with look_only 1 (`ctl
 * doctor`) nothing is made but the probe, which is written in the
 * nearest directory above a workdir not there yet. Caller frees. */
char *preflight_command(const char *work_sh, const char *env, int look_only);

/* remote_exec's line callback (remote_ssh.h's remote_line_fn) filling the
 * struct preflight that arg points to (zeroed, uid -1, by the caller). */
enum bf_err preflight_line(void *arg, const char *line, size_t len,
			   int truncated);

/* Runs preflight_command on r and parses it into *p. BF_OK when the
 * command ran and said where the home is; otherwise the remote layer's
 * error, or BF_ERR_REMOTE "preflight failed (exit N): <what the host
 * printed on stderr, then on stdout>" (a ForceCommand internal-sftp's
 * "This service allows sftp connections only.", nologin's "This account
 * is currently not available."), or "...: the host printed nothing", or
 * BF_ERR_REMOTE when the host's HOME is too long for p->home. */
enum bf_err preflight_run(struct remote *r, const char *work_sh,
			  const char *env, int look_only, struct preflight *p,
			  char *detail, size_t detail_len);

/* As preflight_problem, its cause whole (never cut: the workdir and the
 * host's own words can be long), in a new string the caller frees; NULL
 * when there is no problem. */
char *preflight_problem_text(const struct preflight *p, const char *workdir);

/* Whether the host, as the preflight found it, cannot run the agent
 * where ctl would put it: 1 and the cause, actionable, into out (len
 * bytes) when the login shell prints to stdout before a command (SFTP
 * cannot work then: OpenSSH's sftp says the same), the workdir is unsafe
 * (refused, its mode never changed), nothing can be written there (a
 * read-only file system) or nothing run (noexec); else 0 and "". A cause
 * longer than len is cut there and ends in "...". workdir
 * is the workdir as configured, for the messages. ctl run, ctl where and
 * ctl doctor all decide with this. */
int preflight_problem(const struct preflight *p, const char *workdir,
		      char *out, size_t len);

/* The directory ctl's files go in: workdir, or workdir/<workdir_sub>
 * when it is a shared one. Caller frees. */
char *preflight_workdir(const struct preflight *p, const char *workdir);

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

/* The command that installs one item (enum preflight_item) on this
 * host's distribution, as preflight_install_hint names it ("sudo
 * apt-get install -y libopenblas-dev"), into out; "" where the
 * distribution's names are not known. For what the build goes without
 * (p->lacks). */
void preflight_optional_hint(const struct preflight *p, unsigned item,
			     char *out, size_t len);

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
