/* The preflight on a host; see preflight.h. */
#include "run/preflight.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_parse.h"
#include "bf_text.h"
#include "remote/remote_ssh.h"
#include "run/deployed.h"
#include "run/embedded.h"
#include "run/inventory.h"
#include "xmalloc.h"

const char *const preflight_tc_names[PF_TC_PARTS] = {
	"arch", "compiler", "nvcc", "libs", "gpus"
};

/* The words of `missing=`, in enum preflight_item's order. */
static const char *const item_words[PF_ITEMS] = { "compiler", "make",
						  "cmake",    "pkg-config",
						  "cjson",    "openblas" };

/* Each item in words, for messages. */
static const char *const item_text[PF_ITEMS] = {
	"a C compiler (cc)",
	"make (or ninja)",
	"CMake 3.18 or newer",
	"pkg-config",
	"cJSON (libcjson, with its headers)",
	"OpenBLAS (openblas, with its headers)"
};

/* CMake's oldest version the agent's CMakeLists.txt accepts
 * (cmake_minimum_required). */
#define CMAKE_MIN_MAJOR 3
#define CMAKE_MIN_MINOR 18

char *preflight_command(const char *work_sh, const char *env, int look_only)
{
	/* Deploy: the workdir made when absent (0700; in a shared sticky
	 * directory with mkdir alone, which fails on anything already
	 * there); both: whatever is there checked, never changed. */
	const char *make =
		look_only ?
			"" :
			"if [ ! -d \"$w\" ] && [ ! -L \"$w\" ]; then "
			"if [ -n \"$s\" ]; then k=mkdir; else k='mkdir -p'; fi; "
			"e=$( (umask 077 && $k \"$w\") 2>&1 ) || "
			"{ echo \"cannot_write=$w: $e\"; exit 0; }; fi; ";
	const char *sweep =
		look_only ?
			"" :
			/* Staging directories of deploys that were cut off
			 * before their watcher could act are swept after a day.
			 */
			"[ -z \"$u\" ] && find \"$w\" -maxdepth 1 -name '*.tmp-*' "
			"-mmin +1440 -exec rm -rf {} + 2>/dev/null; ";

	return bf_xasprintf(
		/* The marker: stdout before it is the login shell's own. */
		"echo " PREFLIGHT_MARK "; "
		"w=%s; echo \"home=$HOME\"; echo \"uid=$(id -u)\"; %s"
		DEPLOYED_SHARED_SH
		"[ -n \"$s\" ] && echo \"workdir_sub=$s\"; %s"
		"u=; if [ -d \"$w\" ]; then set -- $(ls -ldnL \"$w\"); "
		"echo \"workdir_state=$1 $3\"; "
		"case \"$1\" in ?????w*|????????w*) "
		"u=\"$1 $3\";; *) "
		"if [ -n \"$s\" ] && { [ -L \"$w\" ] || [ \"$3\" != \"$(id -u)\" ]; }; "
		"then u=\"$1 $3\"; fi;; esac; "
		"elif [ -e \"$w\" ] || [ -L \"$w\" ]; then "
		"u=\"$(ls -ldn \"$w\" | cut -c1-10) (not a directory)\"; "
		"else echo \"workdir_state=absent\"; fi; "
		"[ -n \"$u\" ] && echo \"workdir_unsafe=$u\"; "
		/* What run does there: write a file, run one. In the workdir,
		 * or (look-only, none yet) the nearest directory above it,
		 * which is on the same file system; the probe is removed. */
		"if [ -z \"$u\" ]; then "
		"d=$w; while [ ! -d \"$d\" ]; do case \"$d\" in */*) d=${d%%/*}; "
		"d=${d:-/};; *) d=.;; esac; done; f=\"$d/.bf-probe.$$\"; "
		"if e=$( { printf '#!/bin/sh\\nexit 0\\n' >\"$f\"; } 2>&1 ); then "
		"chmod 0700 \"$f\"; "
		"if ! \"$f\" </dev/null >/dev/null 2>&1; then "
		"echo \"noexec=$(findmnt -no OPTIONS -T \"$d\" 2>/dev/null) $d\"; fi; "
		"rm -f \"$f\"; "
		"else echo \"cannot_write=$d: $e\"; fi; fi; %s"
		"echo \"tc_arch=$(uname -m 2>/dev/null)\"; "
		"echo \"tc_cc=$(${CC:-cc} --version 2>/dev/null | head -n 1)\"; "
		"echo \"tc_cuda=$(${CUDACXX:-nvcc} --version 2>/dev/null | grep -i release | head -n 1)\"; "
		/* cJSON and OpenBLAS: pkg-config's versions, else the headers
		 * and libraries where CMake's find_path and find_library look
		 * ("found"); neither is needed (the agent builds with the
		 * cJSON ctl ships, and without OpenBLAS skips CPU GEMMs). */
		"cj=$(pkg-config --modversion libcjson 2>/dev/null); "
		"if [ -z \"$cj\" ]; then h=; l=; "
		"for f in /usr/include/cjson/cJSON.h /usr/local/include/cjson/cJSON.h; "
		"do [ -e \"$f\" ] && h=1; done; "
		"for f in /usr/lib*/libcjson.so /usr/lib/*/libcjson.so /usr/local/lib*/libcjson.so; "
		"do [ -e \"$f\" ] && l=1; done; "
		"[ -n \"$h\" ] && [ -n \"$l\" ] && cj=found; fi; "
		"ob=$(pkg-config --modversion openblas 2>/dev/null); "
		"if [ -z \"$ob\" ]; then h=; l=; "
		"for f in /usr/include/cblas.h /usr/include/*/cblas.h /usr/include/openblas/cblas.h "
		"/usr/local/include/cblas.h /usr/local/include/openblas/cblas.h; "
		"do [ -e \"$f\" ] && h=1; done; "
		"for f in /usr/lib*/libopenblas.so /usr/lib/*/libopenblas.so /usr/local/lib*/libopenblas.so; "
		"do [ -e \"$f\" ] && l=1; done; "
		"[ -n \"$h\" ] && [ -n \"$l\" ] && ob=found; fi; "
		/* oneDNN's version from its header (Debian's libdnnl-dev
		 * ships a CMake package, no .pc file): "" when absent. Part
		 * of the toolchain key, so that installing it builds the
		 * agent again, with it. */
		"d=; for f in /usr/include/oneapi/dnnl/dnnl_version.h "
		"/usr/local/include/oneapi/dnnl/dnnl_version.h; do "
		"[ -z \"$d\" ] && [ -r \"$f\" ] && d=$(awk '/^#define DNNL_VERSION_(MAJOR|MINOR|PATCH) /"
		"{ printf \"%%s%%s\", s, $3; s = \".\" }' \"$f\" 2>/dev/null); done; "
		"echo \"onednn=$d\"; "
		"echo \"tc_libs=$(echo $cj $ob $d)\"; "
		/* Only well-formed "9.0" lines: a failing nvidia-smi prints
		 * its complaint on stdout. */
		"echo \"tc_gpus=$(echo $(nvidia-smi --query-gpu=compute_cap "
		"--format=csv,noheader 2>/dev/null | grep -E '^[0-9]+\\.[0-9]+$' | sort -u))\"; "
		/* A deploy directory whose agent lost its exec bit (or its
		 * file) is named, to be built again. */
		"for x in \"$w\"/%s-*; do "
		"case \"$x\" in *.tmp-*) continue;; esac; "
		"a=\"$x/build/bin/agent\"; "
		"if [ -x \"$a\" ]; then echo \"built=${x##*/}\"; "
		"elif [ -e \"$a\" ]; then "
		"echo \"damaged=${x##*/} mode $(ls -ldL \"$a\" | cut -c1-10)\"; "
		"elif [ -d \"$x\" ]; then echo \"damaged=${x##*/} no agent\"; "
		"fi; done; "
		/* Bounded where timeout(1) is: a tool that never answers
		 * --version must not hold the deploy. */
		"t=; command -v timeout >/dev/null 2>&1 && t='timeout 20'; "
		"echo \"make=$($t make --version 2>/dev/null | head -n 1)\"; "
		"echo \"cmake=$($t cmake --version 2>/dev/null | head -n 1)\"; "
		"echo \"ninja=$($t ninja --version 2>/dev/null | head -n 1)\"; "
		"echo \"pkgconfig=$(pkg-config --version 2>/dev/null)\"; "
		"echo \"cjson=$cj\"; echo \"openblas=$ob\"; "
		/* cuBLAS beside nvcc's toolkit (/usr/local/cuda), or known to
		 * the dynamic linker (Debian's nvidia-cuda-toolkit). */
		"c=no; n=$(command -v \"${CUDACXX:-nvcc}\" 2>/dev/null); "
		"if [ -n \"$n\" ]; then d=${n%%/*}/..; "
		"for l in \"$d\"/lib64/libcublas.so* \"$d\"/lib/libcublas.so* "
		"\"$d\"/targets/*/lib/libcublas.so*; do [ -e \"$l\" ] && c=yes; done; "
		"{ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | "
		"grep -q 'libcublas[.]so' && c=yes; fi; echo \"cublas=$c\"; "
		"m=; "
		"command -v cc >/dev/null 2>&1 || m=\"$m compiler\"; "
		/* make, else ninja: the build uses Ninja where make is
		 * missing (runner_ssh.c, runner_slurm.c). */
		"command -v make >/dev/null 2>&1 || command -v ninja >/dev/null 2>&1 || m=\"$m make\"; "
		"command -v cmake >/dev/null 2>&1 || m=\"$m cmake\"; "
		/* What the build does without, said but not missing. */
		"o=; command -v pkg-config >/dev/null 2>&1 || o=\"$o pkg-config\"; "
		"[ -n \"$cj\" ] || o=\"$o cjson\"; [ -n \"$ob\" ] || o=\"$o openblas\"; "
		"echo \"lacks=$o\"; "
		"( f=/etc/os-release; [ -r \"$f\" ] || f=/usr/lib/os-release; "
		"[ -r \"$f\" ] && . \"$f\"; echo \"os=$ID\"; "
		"echo \"os_like=$ID_LIKE\"; echo \"os_version=$VERSION_ID\"; "
		"echo \"os_name=$PRETTY_NAME\" ); "
		"echo \"missing=$m\"",
		work_sh, env, make, sweep, embedded_agent_hash);
}

/* An os-release ID or ID_LIKE as the host said it, kept only when it is
 * made of the characters os-release(5) allows there (lower-case letters,
 * digits, "._-"; ID_LIKE's words separated by spaces). */
static void keep_os_word(char *out, size_t len, const char *v, int words)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz0123456789._-";
	size_t n = strlen(v);

	out[0] = '\0';
	if (n >= len)
		return;
	for (size_t i = 0; i < n; i++)
		if (!strchr(ok, v[i]) && !(words && v[i] == ' '))
			return;
	memcpy(out, v, n + 1);
}

static void keep_text(char *out, size_t len, const char *v)
{
	bf_text_sanitize(out, len, v);
}

/* Whether the comma-separated list holds word (mount options). */
static int has_word_comma(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ",");

		if (n == wl && strncmp(s, word, wl) == 0)
			return 1;
		s += n;
		s += *s == ',';
	}
	return 0;
}

/* What keep_noise puts in place of the lines that do not fit. */
#define NOISE_MORE " / ..."

/* One stdout line from before the mark, terminal-safe, into p->noise
 * (" / " between lines; a line over 255 bytes ends in "...", and the
 * lines that do not fit are left out, counted, and shown as one " /
 * ..."). Blank lines count for nothing. */
static void keep_noise(struct preflight *p, const char *line)
{
	char safe[256];
	size_t have = strlen(p->noise);

	bf_text_sanitize(safe, sizeof(safe), line);
	if (!safe[strspn(safe, " \t")])
		return;
	p->noise_lines++;
	if (p->noise_cut) /* the lines after one left out are left out */
		return;
	/* Room is kept for NOISE_MORE after every line taken. */
	if (have + 3 + strlen(safe) + sizeof(NOISE_MORE) <= sizeof(p->noise))
		/* fits: checked just above. */
		snprintf(p->noise + have, sizeof(p->noise) - have, "%s%s",
			 have ? " / " : "", safe);
	else {
		p->noise_cut = 1;
		(void)bf_text_appendf(p->noise, sizeof(p->noise), "%s",
				      have ? NOISE_MORE : "...");
	}
}

/* A toolchain part into out (len bytes, len > 64): whole when it fits;
 * else its start (at a character boundary), "..." and the FNV-1a hash of
 * the whole value ("...#0123456789abcdef"), so that the part stays a key
 * (preflight_toolchain_key): two values alike in their first bytes
 * never give one key. */
static void keep_tc(char *out, size_t len, const char *v)
{
	size_t n = strlen(v), keep;
	uint64_t h = 14695981039346656037ULL; /* FNV-1a, as the key's */

	if (n < len) {
		memcpy(out, v, n + 1);
		return;
	}
	for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
		h ^= *c;
		h *= 1099511628211ULL;
	}
	keep = len - 1 - strlen("...#0123456789abcdef");
	while (keep > 0 && ((unsigned char)v[keep] & 0xc0) == 0x80)
		keep--;
	/* fits: keep leaves room for the 20 bytes after it. */
	snprintf(out, len, "%.*s...#%016llx", (int)keep, v,
		 (unsigned long long)h);
}

/* "cmake version 3.25.1" older than CMAKE_MIN_*: 1; newer, or a line
 * that says no version: 0. */
static int cmake_too_old(const char *line)
{
	const char *v = strstr(line, "version ");
	int major = 0, minor = 0;

	if (!v || sscanf(v + 8, "%d.%d", &major, &minor) != 2)
		return 0;
	return major < CMAKE_MIN_MAJOR ||
	       (major == CMAKE_MIN_MAJOR && minor < CMAKE_MIN_MINOR);
}

/* The items named by the space-separated words of list, as bits
 * (1u << enum preflight_item); an unknown word names none. */
static unsigned item_bits(const char *list)
{
	char *copy = bf_xstrdup(list), *save = NULL, *w;
	unsigned bits = 0;

	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		for (int i = 0; i < PF_ITEMS; i++)
			if (strcmp(w, item_words[i]) == 0)
				bits |= 1u << i;
	free(copy);
	return bits;
}

enum bf_err preflight_line(void *arg, const char *line, size_t len,
			   int truncated)
{
	static const char *const tc_keys[PF_TC_PARTS] = {
		"tc_arch=", "tc_cc=", "tc_cuda=", "tc_libs=", "tc_gpus="
	};
	struct preflight *p = arg;
	long v;

	(void)len;
	(void)truncated;
	if (!p->begun) {
		/* A startup file's output may lack its newline, so the mark
		 * ends the line it is on. */
		size_t n = strlen(line), m = strlen(PREFLIGHT_MARK);

		if (n >= m && strcmp(line + n - m, PREFLIGHT_MARK) == 0) {
			char *before;

			p->begun = 1;
			if (n == m)
				return BF_OK;
			before = bf_xasprintf("%.*s", (int)(n - m), line);
			keep_noise(p, before);
			free(before);
		} else {
			keep_noise(p, line);
		}
		return BF_OK;
	}
	if (strncmp(line, "home=", 5) == 0) {
		/* A path: never cut (preflight_run refuses a longer one). */
		p->home_too_long = strlen(line + 5) >= sizeof(p->home);
		if (!p->home_too_long) /* fits: checked just above */
			snprintf(p->home, sizeof(p->home), "%s", line + 5);
		p->got_home = !p->home_too_long;
	} else if (strncmp(line, "uid=", 4) == 0) {
		p->uid = bf_parse_long(line + 4, 0, 2147483647L, &v) == 0 ?
				 (int)v :
				 -1;
	} else if (strncmp(line, "os=", 3) == 0) {
		keep_os_word(p->os_id, sizeof(p->os_id), line + 3, 0);
	} else if (strncmp(line, "os_like=", 8) == 0) {
		keep_os_word(p->os_like, sizeof(p->os_like), line + 8, 1);
	} else if (strncmp(line, "os_version=", 11) == 0) {
		keep_text(p->os_version, sizeof(p->os_version), line + 11);
	} else if (strncmp(line, "os_name=", 8) == 0) {
		keep_text(p->os_name, sizeof(p->os_name), line + 8);
	} else if (strncmp(line, "make=", 5) == 0) {
		keep_text(p->make, sizeof(p->make), line + 5);
	} else if (strncmp(line, "cmake=", 6) == 0) {
		keep_text(p->cmake, sizeof(p->cmake), line + 6);
		if (cmake_too_old(p->cmake))
			p->missing |= 1u << PF_CMAKE;
	} else if (strncmp(line, "cjson=", 6) == 0) {
		keep_text(p->cjson, sizeof(p->cjson), line + 6);
	} else if (strncmp(line, "openblas=", 9) == 0) {
		keep_text(p->openblas, sizeof(p->openblas), line + 9);
	} else if (strncmp(line, "onednn=", 7) == 0) {
		/* Only a version ("2.6.3"): anything else is not one. */
		if (strspn(line + 7, "0123456789.") == strlen(line + 7))
			(void)bf_text_fmt(p->onednn, sizeof(p->onednn), "%s",
					  line + 7);
	} else if (strncmp(line, "cublas=", 7) == 0) {
		p->cublas = strcmp(line + 7, "yes") == 0;
	} else if (strncmp(line, "ninja=", 6) == 0) {
		keep_text(p->ninja, sizeof(p->ninja), line + 6);
	} else if (strncmp(line, "pkgconfig=", 10) == 0) {
		keep_text(p->pkgconfig, sizeof(p->pkgconfig), line + 10);
	} else if (strncmp(line, "missing=", 8) == 0) {
		p->missing |= item_bits(line + 8);
	} else if (strncmp(line, "lacks=", 6) == 0) {
		p->lacks |= item_bits(line + 6);
	} else if (strncmp(line, "built=", 6) == 0) {
		size_t have = strlen(p->built);

		/* Kept only while whole: a cut name could match a shorter
		 * one. More than fits means more builds than anyone keeps. */
		if (have + strlen(line + 6) + 3 < sizeof(p->built))
			/* fits: checked just above. */
			snprintf(p->built + have, sizeof(p->built) - have,
				 "%s%s\n", have ? "" : "\n", line + 6);
	} else if (strncmp(line, "damaged=", 8) == 0) {
		size_t have = strlen(p->damaged);

		if (have + strlen(line + 8) + 3 < sizeof(p->damaged))
			/* fits: checked just above. */
			snprintf(p->damaged + have, sizeof(p->damaged) - have,
				 "%s%s\n", have ? "" : "\n", line + 8);
	} else if (strncmp(line, "workdir_sub=", 12) == 0) {
		keep_text(p->workdir_sub, sizeof(p->workdir_sub), line + 12);
	} else if (strncmp(line, "cannot_write=", 13) == 0) {
		keep_text(p->cannot_write, sizeof(p->cannot_write), line + 13);
	} else if (strncmp(line, "noexec=", 7) == 0) {
		const char *sp = strchr(line + 7, ' ');

		if (sp) {
			/* Whole, for the match: an overlay's options run to
			 * kilobytes, and "noexec" may come after any cut. */
			char *opts = bf_xasprintf("%.*s", (int)(sp - line - 7),
						  line + 7);

			p->noexec_named = has_word_comma(opts, "noexec");
			keep_text(p->noexec_opts, sizeof(p->noexec_opts),
				  opts);
			free(opts);
			keep_text(p->noexec_dir, sizeof(p->noexec_dir),
				  sp + 1);
		}
	} else if (strncmp(line, "workdir_unsafe=", 15) == 0) {
		keep_text(p->workdir_unsafe, sizeof(p->workdir_unsafe),
			  line + 15);
	} else if (strncmp(line, "workdir_state=", 14) == 0) {
		keep_text(p->workdir_state, sizeof(p->workdir_state),
			  line + 14);
	} else {
		for (int i = 0; i < PF_TC_PARTS; i++) {
			size_t k = strlen(tc_keys[i]);

			if (strncmp(line, tc_keys[i], k) == 0)
				keep_tc(p->tc[i], sizeof(p->tc[i]), line + k);
		}
	}
	return BF_OK;
}

enum bf_err preflight_run(struct remote *r, const char *work_sh,
			  const char *env, int look_only, struct preflight *p,
			  char *detail, size_t detail_len)
{
	struct remote_exec_cb cb = { .on_line = preflight_line, .arg = p };
	struct remote_exec_result res;
	char *cmd = preflight_command(work_sh, env, look_only);
	enum bf_err err;

	memset(p, 0, sizeof(*p));
	p->uid = -1;
	err = remote_exec(r, cmd, &cb, &res, detail, detail_len);
	free(cmd);
	if (err != BF_OK)
		return err;
	if (res.exit_status != 0 || !p->got_home || !p->begun) {
		/* What the host said, both streams: a ForceCommand or
		 * nologin prints its reason on stdout. */
		char said_err[512], said[1100];

		if (p->home_too_long && res.exit_status == 0 && p->begun)
			return bf_fail(detail, detail_len, BF_ERR_REMOTE,
				       "the host's HOME is longer than %zu "
				       "bytes: ctl cannot use it",
				       sizeof(p->home) - 1);
		_Static_assert(sizeof(said_err) + 3 + sizeof(p->noise) <=
				       sizeof(said),
			       "both streams fit");
		bf_text_join_lines(said_err, sizeof(said_err),
				   res.stderr_tail, "; ");
		/* fits: said_err and p->noise, " / " between (above). */
		snprintf(said, sizeof(said), "%s%s%s", said_err,
			 said_err[0] && p->noise[0] ? " / " : "", p->noise);
		return bf_fail(detail, detail_len, BF_ERR_REMOTE,
			       "preflight failed (exit %d): %s",
			       res.exit_status,
			       said[0] ? said : "the host printed nothing");
	}
	return BF_OK;
}

char *preflight_problem_text(const struct preflight *p, const char *workdir)
{
	if (p->noise_lines)
		return bf_xasprintf(
			 "the remote shell produces output for "
			 "non-interactive sessions (it printed \"%s\" before "
			 "ctl's command ran): ctl's SFTP upload and the "
			 "agent's output cannot pass through it; make the "
			 "login shell's startup files (e.g. ~/.bashrc) print "
			 "nothing unless the shell is interactive",
			 p->noise);
	if (p->workdir_unsafe[0] && p->workdir_sub[0])
		return bf_xasprintf(
			 "workdir %s is shared (others can write it), and "
			 "this login's private directory %s in it is not "
			 "safe (mode and owner uid: %s; it must be a "
			 "directory of this login that no one else can "
			 "write): refusing to build or run the agent there; "
			 "remove it, or set another \"workdir\" for this host",
			 workdir, p->workdir_sub, p->workdir_unsafe);
	if (p->workdir_unsafe[0])
		return bf_xasprintf(
			 "workdir %s is writable by group or others, or is "
			 "no directory (mode and owner uid: %s): refusing to "
			 "build or run the agent there, and ctl changes no "
			 "mode of a directory it did not make; make it 0700 "
			 "(chmod 0700), or set another \"workdir\" for this "
			 "host (in a shared directory with the sticky bit, "
			 "such as /tmp, ctl uses a private directory of its "
			 "own)",
			 workdir, p->workdir_unsafe);
	if (p->cannot_write[0])
		return bf_xasprintf(
			 "cannot write where the workdir %s goes (%s): ctl "
			 "run builds the agent there; make it writable, or "
			 "set another \"workdir\" for this host",
			 workdir, p->cannot_write);
	if (p->noexec_dir[0] && (p->noexec_named ||
				 has_word_comma(p->noexec_opts, "noexec")))
		return bf_xasprintf(
			 "programs cannot be run from %s: its file system is "
			 "mounted noexec (mount options %s), and ctl run "
			 "builds and runs the agent under the workdir %s; set "
			 "a \"workdir\" for this host on a file system mounted "
			 "without noexec",
			 p->noexec_dir, p->noexec_opts, workdir);
	if (p->noexec_dir[0])
		return bf_xasprintf(
			 "programs cannot be run from %s: a file made "
			 "executable there did not run (is its file system "
			 "mounted noexec?%s%s), and ctl run builds and runs "
			 "the agent under the workdir %s; set a \"workdir\" "
			 "for this host where programs can run",
			 p->noexec_dir,
			 p->noexec_opts[0] ? " mount options " : "",
			 p->noexec_opts, workdir);
	return NULL;
}

int preflight_problem(const struct preflight *p, const char *workdir,
		      char *out, size_t len)
{
	char *text = preflight_problem_text(p, workdir);

	out[0] = '\0';
	if (text)
		(void)bf_text_fmt(out, len, "%s", text);
	free(text);
	return out[0] != '\0';
}

char *preflight_workdir(const struct preflight *p, const char *workdir)
{
	size_t n = strlen(workdir);

	if (!p->workdir_sub[0])
		return bf_xstrdup(workdir);
	while (n > 1 && workdir[n - 1] == '/')
		n--;
	return bf_xasprintf("%.*s/%s", (int)n, workdir, p->workdir_sub);
}

void preflight_toolchain_key(const struct preflight *p, char out[17])
{
	/* FNV-1a (64-bit; offset basis and prime from
	 * http://www.isthe.com/chongo/tech/comp/fnv/) over "name=value\n"
	 * for each part. Not a defence against anyone: it only keeps builds
	 * for different toolchains apart. */
	uint64_t h = 14695981039346656037ULL;

	for (int i = 0; i < PF_TC_PARTS; i++) {
		char *part = bf_xasprintf("%s=%s\n", preflight_tc_names[i],
					  p->tc[i]);

		for (const unsigned char *c = (const unsigned char *)part; *c;
		     c++) {
			h ^= *c;
			h *= 1099511628211ULL;
		}
		free(part);
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

int preflight_is_built(const struct preflight *p, const char *name)
{
	char *needle = bf_xasprintf("\n%s\n", name);
	int found = strstr(p->built, needle) != NULL;

	free(needle);
	return found;
}

int preflight_damaged(const struct preflight *p, const char *name, char *why,
		      size_t len)
{
	char *needle = bf_xasprintf("\n%s ", name);
	const char *at = strstr(p->damaged, needle);

	if (at) {
		at += strlen(needle);
		(void)bf_text_fmt(why, len, "%.*s", (int)strcspn(at, "\n"),
				  at);
	}
	free(needle);
	return at != NULL;
}

void preflight_missing_text(const struct preflight *p, char *out, size_t len)
{
	out[0] = '\0';
	for (int i = 0; i < PF_ITEMS; i++) {
		if (!(p->missing & (1u << i)))
			continue;
		bf_text_appendf(out, len, "%s%s", out[0] ? ", " : "",
				item_text[i]);
		if (i == PF_CMAKE && p->cmake[0])
			bf_text_appendf(out, len, " (this host has %s)",
					p->cmake);
	}
}

/* A package manager and its names for the items. */
struct family {
	const char *install; /* the command, without sudo */
	const char *ids;     /* os-release IDs of the family, by spaces */
	const char *pkgs[PF_ITEMS];
};

/* Package names: Debian 12 (packages.debian.org), Fedora 40 and EPEL 9
 * (packages.fedoraproject.org), openSUSE Tumbleweed (software.opensuse.org),
 * Arch (archlinux.org/packages). */
static const struct family families[] = {
	{ "apt-get install -y",
	  "debian ubuntu",
	  { "build-essential", "make", "cmake", "pkg-config", "libcjson-dev",
	    "libopenblas-dev" } },
	{ "dnf install -y",
	  "fedora rhel centos rocky almalinux ol amzn",
	  { "gcc", "make", "cmake", "pkgconf-pkg-config", "cjson-devel",
	    "openblas-devel" } },
	{ "zypper install -y",
	  "opensuse opensuse-leap opensuse-tumbleweed suse sles sled",
	  { "gcc", "make", "cmake", "pkg-config", "cJSON-devel",
	    "openblas-devel" } },
	{ "pacman -S --needed",
	  "arch manjaro endeavouros",
	  { "gcc", "make", "cmake", "pkgconf", "cjson", "openblas" } },
};

/* Whether word is one of the space-separated words of list. */
static int has_word(const char *list, const char *word, size_t wlen)
{
	for (const char *s = list; *s;) {
		size_t n = strcspn(s, " ");

		if (n == wlen && strncmp(s, word, wlen) == 0)
			return 1;
		s += n;
		s += strspn(s, " ");
	}
	return 0;
}

/* The family of the host's ID, else of the first word of ID_LIKE that
 * names one; NULL when none does. */
static const struct family *family_of(const struct preflight *p)
{
	size_t nf = sizeof(families) / sizeof(families[0]);

	if (p->os_id[0])
		for (size_t i = 0; i < nf; i++)
			if (has_word(families[i].ids, p->os_id,
				     strlen(p->os_id)))
				return &families[i];
	for (const char *s = p->os_like; *s;) {
		size_t n = strcspn(s, " ");

		for (size_t i = 0; n && i < nf; i++)
			if (has_word(families[i].ids, s, n))
				return &families[i];
		s += n;
		s += strspn(s, " ");
	}
	return NULL;
}

void preflight_install_hint(const struct preflight *p, char *out, size_t len)
{
	const struct family *f = family_of(p);

	out[0] = '\0';
	if (!p->missing)
		return;
	if (!f) {
		char what[512];

		preflight_missing_text(p, what, sizeof(what));
		if (p->os_id[0])
			bf_text_appendf(
				out, len,
				"no package names known for "
				"distribution '%s' (os-release ID): install %s "
				"with its package manager",
				p->os_id, what);
		else
			bf_text_appendf(out, len,
					"no os-release on the host: install "
					"%s with its package manager",
					what);
		return;
	}
	bf_text_appendf(out, len, "install with: %s%s",
			p->uid == 0 ? "" : "sudo ", f->install);
	for (int i = 0; i < PF_ITEMS; i++)
		if (p->missing & (1u << i))
			bf_text_appendf(out, len, " %s", f->pkgs[i]);
	/* RHEL and its rebuilds carry cJSON and OpenBLAS in EPEL. */
	if (f == &families[1] && strcmp(p->os_id, "fedora") != 0 &&
	    (p->missing & (1u << PF_CJSON | 1u << PF_OPENBLAS)))
		bf_text_appendf(out, len,
				" (cjson-devel and openblas-devel come from "
				"EPEL: %sdnf install -y epel-release)",
				p->uid == 0 ? "" : "sudo ");
}

void preflight_optional_hint(const struct preflight *p, unsigned item,
			     char *out, size_t len)
{
	const struct family *f = family_of(p);

	out[0] = '\0';
	if (!f || item >= PF_ITEMS)
		return;
	(void)bf_text_fmt(out, len, "%s%s %s", p->uid == 0 ? "" : "sudo ",
			  f->install, f->pkgs[item]);
}

void preflight_cuda_text(const struct preflight *p, char *out, size_t len)
{
	char safe[256];

	if (!p->tc[PF_TC_CUDA][0]) {
		(void)bf_text_fmt(out, len,
			 "no CUDA toolkit (nvcc not in $CUDACXX, PATH "
			 "or /usr/local/cuda/bin): the agent is built for the "
			 "CPU only");
		return;
	}
	bf_text_sanitize(safe, sizeof(safe), p->tc[PF_TC_CUDA]);
	if (p->cublas)
		(void)bf_text_fmt(out, len,
			 "CUDA toolkit found (%s; cuBLAS found): the "
			 "agent is built with CUDA",
			 safe);
	else
		(void)bf_text_fmt(out, len,
			 "CUDA toolkit found (%s) but no cuBLAS: the "
			 "agent is built for the CPU only",
			 safe);
}

void preflight_onednn_text(const struct preflight *p, char *out, size_t len)
{
	const struct family *f = family_of(p);

	if (p->onednn[0]) {
		(void)bf_text_fmt(out, len,
			 "oneDNN %s found: the agent runs the CPU's bf16/fp16 "
			 "GEMMs through it where OpenBLAS has none",
			 p->onednn);
		return;
	}
	(void)bf_text_fmt(out, len,
		 "no oneDNN (libdnnl-dev): the agent is built without it, and "
		 "CPU bf16/fp16 rows are skipped unless OpenBLAS has "
		 "sbgemm/shgemm%s%s%s",
		 f == &families[0] ? " (install with: " : "",
		 f == &families[0] ? (p->uid == 0 ? "" : "sudo ") : "",
		 f == &families[0] ? "apt-get install -y libdnnl-dev)" : "");
}

/* Appends to a malloc'ed string. */
static char *grow(char *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *grow(char *s, const char *fmt, ...)
{
	char *add, *out;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&add, fmt, ap) < 0)
		bf_xmalloc_fatal("vasprintf");
	va_end(ap);
	out = bf_xasprintf("%s%s", s, add);
	free(add);
	free(s);
	return out;
}

char *preflight_env(const struct inv_host *inv)
{
	static const char name_chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
	char *s = bf_xstrdup("PATH=\"$PATH:/usr/local/cuda/bin\"; ");

	for (int i = inv ? inv->npath - 1 : -1; i >= 0; i--) {
		char *q = remote_quote(inv->path_prepend[i]);

		s = grow(s, "PATH=%s:\"$PATH\"; ", q);
		free(q);
	}
	s = grow(s, "export PATH; ");
	for (int i = 0; inv && i < inv->nenv; i++) {
		const char *name = inv->env_name[i];
		char *q;

		/* Values are quoted; a name that is not a shell name is
		 * refused by inventory.c, and skipped here as well. */
		if (!*name || strspn(name, name_chars) != strlen(name))
			continue;
		q = remote_quote(inv->env_value[i]);
		s = grow(s, "%s=%s; export %s; ", name, q, name);
		free(q);
	}
	return s;
}
