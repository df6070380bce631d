/*
 * Unit tests for controller/run/preflight.c's reading of a host's answer
 * (issue 22) and controller/run/deployed.c's names: the install command
 * for each distribution family (apt-get, dnf with EPEL on RHEL's
 * rebuilds, zypper, pacman), by os-release ID and by ID_LIKE, sudo only
 * when the login is not root, an unknown or missing os-release; an ID
 * that is not os-release(5)'s characters ignored (never printed); CMake
 * older than 3.18 counted as missing; what the CUDA line says; the forms
 * of ctl's deployed directories and nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/deployed.h"
#include "run/preflight.h"

/* A preflight answer from its lines, as preflight_run parses them. */
static void feed(struct preflight *p, const char *const *lines)
{
	memset(p, 0, sizeof(*p));
	p->uid = -1;
	assert_int_equal(preflight_line(p, PREFLIGHT_MARK,
					strlen(PREFLIGHT_MARK), 0),
			 BF_OK);
	for (int i = 0; lines[i]; i++)
		assert_int_equal(
			preflight_line(p, lines[i], strlen(lines[i]), 0),
			BF_OK);
}

static void hint_for(const char *const *lines, const char *want)
{
	struct preflight p;
	char out[1024];

	feed(&p, lines);
	preflight_install_hint(&p, out, sizeof(out));
	assert_string_equal(out, want);
}

static void test_families(void **state)
{
	(void)state;
	hint_for((const char *const[]){ "uid=1000", "os=debian",
					"missing= cmake cjson", NULL },
		 "install with: sudo apt-get install -y cmake libcjson-dev");
	/* Ubuntu by its ID, Mint by ID_LIKE; root needs no sudo. */
	hint_for((const char *const[]){ "uid=0", "os=ubuntu",
					"missing= compiler", NULL },
		 "install with: apt-get install -y build-essential");
	hint_for(
		(const char *const[]){
			"uid=5", "os=linuxmint", "os_like=ubuntu debian",
			"missing= pkg-config cjson openblas", NULL },
		"install with: sudo apt-get install -y pkg-config libcjson-dev "
		"libopenblas-dev");
	hint_for(
		(const char *const[]){ "uid=5", "os=fedora",
				       "missing= cjson openblas", NULL },
		"install with: sudo dnf install -y cjson-devel openblas-devel");
	hint_for((const char *const[]){ "uid=0", "os=rocky",
					"os_like=rhel centos fedora",
					"missing= cjson", NULL },
		 "install with: dnf install -y cjson-devel (cjson-devel and "
		 "openblas-devel come from EPEL: dnf install -y epel-release)");
	hint_for((const char *const[]){ "uid=5", "os=opensuse-tumbleweed",
					"os_like=opensuse suse",
					"missing= compiler make cjson", NULL },
		 "install with: sudo zypper install -y gcc make cJSON-devel");
	hint_for((const char *const[]){ "uid=5", "os=endeavouros",
					"os_like=arch",
					"missing= cmake openblas", NULL },
		 "install with: sudo pacman -S --needed cmake openblas");
	hint_for((const char *const[]){ "uid=5", "os=alpine", "missing= cmake",
					NULL },
		 "no package names known for distribution 'alpine' (os-release "
		 "ID): install CMake 3.18 or newer with its package manager");
	hint_for((const char *const[]){ "uid=5", "os=", "missing= make", NULL },
		 "no os-release on the host: install make (or ninja) with its "
		 "package "
		 "manager");
	hint_for(
		(const char *const[]){ "uid=5", "os=debian", "missing=", NULL },
		"");
}

static void test_untrusted_os_words(void **state)
{
	struct preflight p;
	char out[1024];

	(void)state;
	/* Not os-release's characters: dropped, never printed. */
	feed(&p, (const char *const[]){ "uid=5", "os=deb$(reboot)",
					"os_like=debian;rm", "missing= cmake",
					NULL });
	assert_string_equal(p.os_id, "");
	assert_string_equal(p.os_like, "");
	preflight_install_hint(&p, out, sizeof(out));
	assert_null(strstr(out, "reboot"));
	/* A PRETTY_NAME with an escape sequence is made terminal-safe. */
	feed(&p, (const char *const[]){ "os_name=Debian \033[2J", NULL });
	assert_null(strchr(p.os_name, '\033'));
	/* An unknown word in missing= is not a piece. */
	feed(&p, (const char *const[]){ "missing= cmake rm-rf", NULL });
	assert_int_equal(p.missing, 1u << PF_CMAKE);
}

/* What the build goes without (issue 32): lacks= is parsed apart from
 * missing=, never makes a host unready, and has its install command. */
static void test_optional(void **state)
{
	struct preflight p;
	char out[256];

	(void)state;
	feed(&p, (const char *const[]){ "uid=1000", "os=debian",
					"ninja=1.11.1", "pkgconfig=",
					"cjson=", "openblas=found",
					"missing=", "lacks= pkg-config cjson",
					NULL });
	assert_int_equal(p.missing, 0);
	assert_int_equal(p.lacks, 1u << PF_PKGCONFIG | 1u << PF_CJSON);
	assert_string_equal(p.ninja, "1.11.1");
	assert_string_equal(p.openblas, "found");
	preflight_install_hint(&p, out, sizeof(out));
	assert_string_equal(out, "");
	preflight_optional_hint(&p, PF_OPENBLAS, out, sizeof(out));
	assert_string_equal(out, "sudo apt-get install -y libopenblas-dev");
	feed(&p, (const char *const[]){ "uid=0", "os=fedora", NULL });
	preflight_optional_hint(&p, PF_OPENBLAS, out, sizeof(out));
	assert_string_equal(out, "dnf install -y openblas-devel");
	feed(&p, (const char *const[]){ "uid=0", "os=alpine", NULL });
	preflight_optional_hint(&p, PF_OPENBLAS, out, sizeof(out));
	assert_string_equal(out, "");
}

static void test_cmake_version(void **state)
{
	struct preflight p;
	char out[512];

	(void)state;
	/* cmake is there (not in missing=), but 3.16 is older than 3.18. */
	feed(&p, (const char *const[]){ "cmake=cmake version 3.16.3",
					"missing=", NULL });
	assert_int_equal(p.missing, 1u << PF_CMAKE);
	preflight_missing_text(&p, out, sizeof(out));
	assert_string_equal(out, "CMake 3.18 or newer (this host has cmake "
				 "version 3.16.3)");
	feed(&p, (const char *const[]){ "cmake=cmake version 3.18.0",
					"missing=", NULL });
	assert_int_equal(p.missing, 0);
	feed(&p, (const char *const[]){ "cmake=cmake version 4.0.2", NULL });
	assert_int_equal(p.missing, 0);
}

static void test_cuda_text(void **state)
{
	struct preflight p;
	char out[512];

	(void)state;
	feed(&p, (const char *const[]){ "tc_cuda=", NULL });
	preflight_cuda_text(&p, out, sizeof(out));
	assert_non_null(strstr(out, "no CUDA toolkit"));
	assert_non_null(strstr(out, "CPU only"));
	feed(&p,
	     (const char *const[]){
		     "tc_cuda=Cuda compilation tools, release 12.4, V12.4.131",
		     "cublas=yes", NULL });
	preflight_cuda_text(&p, out, sizeof(out));
	assert_string_equal(out, "CUDA toolkit found (Cuda compilation tools, "
				 "release 12.4, V12.4.131; cuBLAS found): the "
				 "agent is built with CUDA");
	feed(&p, (const char *const[]){ "tc_cuda=release 12.4", "cublas=no",
					NULL });
	preflight_cuda_text(&p, out, sizeof(out));
	assert_non_null(strstr(out, "but no cuBLAS"));
}

static void test_onednn_text(void **state)
{
	struct preflight p;
	char out[512];

	(void)state;
	feed(&p, (const char *const[]){ "onednn=2.6.3", NULL });
	assert_string_equal(p.onednn, "2.6.3");
	preflight_onednn_text(&p, out, sizeof(out));
	assert_string_equal(out, "oneDNN 2.6.3 found: the agent runs the CPU's "
				 "bf16/fp16 GEMMs through it where OpenBLAS "
				 "has none");
	feed(&p, (const char *const[]){ "onednn=", "os=debian", "uid=1000",
					NULL });
	preflight_onednn_text(&p, out, sizeof(out));
	assert_string_equal(out, "no oneDNN (libdnnl-dev): the agent is built "
				 "without it, and CPU bf16/fp16 rows are "
				 "skipped unless OpenBLAS has sbgemm/shgemm "
				 "(install with: sudo apt-get install -y "
				 "libdnnl-dev)");
	/* Not Debian's family: no package name guessed. */
	feed(&p, (const char *const[]){ "onednn=", "os=fedora", NULL });
	preflight_onednn_text(&p, out, sizeof(out));
	assert_null(strstr(out, "install with"));
	assert_non_null(strstr(out, "no oneDNN (libdnnl-dev)"));
	/* A host's text that is not a version is not taken for one. */
	feed(&p, (const char *const[]){ "onednn=2.6.3\033[2J", NULL });
	assert_string_equal(p.onednn, "");
}

static void test_toolchain_key_stable(void **state)
{
	struct preflight p;
	char a[17], b[17];

	(void)state;
	feed(&p, (const char *const[]){
			 "tc_arch=x86_64", "tc_cc=cc (Debian 12.2.0-14) 12.2.0",
			 "tc_cuda=", "tc_libs=1.7.15 0.3.21", NULL });
	preflight_toolchain_key(&p, a);
	assert_int_equal(strlen(a), 16);
	/* The parts ctl does not hash (os, make, ...) leave it alone. */
	preflight_line(&p, "os=debian", 9, 0);
	preflight_line(&p, "make=GNU Make 4.3", 17, 0);
	preflight_toolchain_key(&p, b);
	assert_string_equal(a, b);
	preflight_line(&p, "tc_cuda=release 12.4", 20, 0);
	preflight_toolchain_key(&p, b);
	assert_string_not_equal(a, b);
}

/* What the login shell printed before the mark is kept and named (issue
 * 28), also when it lacks its newline; after the mark, unknown lines are
 * ignored. */
static void test_shell_noise(void **state)
{
	struct preflight p;
	char out[2048];

	(void)state;
	memset(&p, 0, sizeof(p));
	p.uid = -1;
	preflight_line(&p, "hello from bashrc", 17, 0);
	preflight_line(&p, "", 0, 0);
	preflight_line(&p, "motd\x1b[31m" PREFLIGHT_MARK,
		       strlen("motd\x1b[31m" PREFLIGHT_MARK), 0);
	preflight_line(&p, "home=/h", 7, 0);
	preflight_line(&p, "whatever", 8, 0);
	assert_int_equal(p.begun, 1);
	assert_int_equal(p.noise_lines, 2);
	assert_string_equal(p.noise, "hello from bashrc / motd?[31m");
	assert_int_equal(preflight_problem(&p, "~/w", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "the remote shell produces output for "
				    "non-interactive sessions (it printed "
				    "\"hello from bashrc / motd?[31m\""));
}

/* Each problem in its words, the first that applies; none: 0 and "". */
static void test_problems(void **state)
{
	struct preflight p;
	char out[2048], *dir;

	(void)state;
	feed(&p, (const char *const[]){ "home=/h", NULL });
	assert_int_equal(preflight_problem(&p, "/w", out, sizeof(out)), 0);
	assert_string_equal(out, "");
	dir = preflight_workdir(&p, "/tmp/");
	assert_string_equal(dir, "/tmp/");
	free(dir);

	feed(&p, (const char *const[]){ "workdir_sub=benchfleet-0",
					"workdir_state=drwx------ 0", NULL });
	dir = preflight_workdir(&p, "/tmp/");
	assert_string_equal(dir, "/tmp/benchfleet-0");
	free(dir);
	assert_int_equal(preflight_problem(&p, "/tmp", out, sizeof(out)), 0);

	feed(&p, (const char *const[]){ "workdir_sub=benchfleet-0",
					"workdir_unsafe=drwxr-xr-x 65534",
					NULL });
	assert_int_equal(preflight_problem(&p, "/tmp", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "private directory benchfleet-0 in it is "
				    "not safe (mode and owner uid: "
				    "drwxr-xr-x 65534"));

	feed(&p, (const char *const[]){ "workdir_unsafe=drwxrwxrwx 0", NULL });
	assert_int_equal(preflight_problem(&p, "/w", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "workdir /w is writable by group or "
				    "others"));

	feed(&p, (const char *const[]){
			 "cannot_write=/h: sh: 1: cannot create /h/.bf-probe.1: "
			 "Read-only file system", NULL });
	assert_int_equal(preflight_problem(&p, "~/w", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "cannot write where the workdir ~/w goes "
				    "(/h: sh: 1: cannot create /h/.bf-probe.1:"
				    " Read-only file system)"));

	feed(&p, (const char *const[]){ "noexec=rw,nosuid,noexec,relatime /h",
					NULL });
	assert_string_equal(p.noexec_dir, "/h");
	assert_int_equal(preflight_problem(&p, "~/w", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "programs cannot be run from /h: its file "
				    "system is mounted noexec (mount options "
				    "rw,nosuid,noexec,relatime)"));

	/* No findmnt: the cause is asked, not asserted. */
	feed(&p, (const char *const[]){ "noexec= /h", NULL });
	assert_int_equal(preflight_problem(&p, "~/w", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "(is its file system mounted noexec?)"));
	/* "noexecx" is not the option. */
	feed(&p, (const char *const[]){ "noexec=rw,noexecx /h", NULL });
	assert_int_equal(preflight_problem(&p, "~/w", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "mounted noexec? mount options rw,"));
}

/* Issue 28: what the host says reaches the user whole or marked cut. A
 * 300-byte line the login shell prints ended at 255 bytes with no mark;
 * lines past noise's room were dropped unsaid; "noexec" after the 255th
 * byte of an overlay's mount options was missed (the cause then only
 * asked); two toolchain parts alike in their first 255 bytes gave one
 * cache key; a long HOME was cut (a wrong path). */
static void test_long_answers(void **state)
{
	struct preflight p, q;
	char line[320], opts[400], out[64], key_p[17], key_q[17];
	char *text, *workdir;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.uid = -1;
	memset(line, 'b', 300);
	memcpy(line, "banner ", 7);
	line[300] = '\0';
	preflight_line(&p, line, 300, 0);
	assert_int_equal(strlen(p.noise), 255);
	assert_memory_equal(p.noise, "banner bbb", 10);
	assert_string_equal(p.noise + 252, "...");
	/* More lines than fit: one " / ..." says so. */
	for (int i = 0; i < 10; i++)
		preflight_line(&p, "another line of the login shell's", 34, 0);
	assert_int_equal(p.noise_lines, 11);
	assert_true(strlen(p.noise) < sizeof(p.noise));
	assert_string_equal(p.noise + strlen(p.noise) - 6, " / ...");
	assert_int_equal(p.noise_cut, 1);
	preflight_line(&p, "more", 4, 0);
	assert_string_equal(p.noise + strlen(p.noise) - 6, " / ...");
	assert_null(strstr(p.noise, "more"));

	/* The problem with a 2000-byte workdir, whole; cut marked. */
	feed(&p, (const char *const[]){ "cannot_write=/h: read-only", NULL });
	workdir = calloc(2001, 1);
	assert_non_null(workdir);
	memset(workdir, 'w', 2000);
	workdir[0] = '/';
	text = preflight_problem_text(&p, workdir);
	assert_non_null(text);
	assert_non_null(strstr(text, workdir));
	assert_non_null(strstr(text, "make it writable"));
	free(text);
	assert_int_equal(preflight_problem(&p, workdir, out, sizeof(out)), 1);
	assert_string_equal(out + sizeof(out) - 4, "...");
	free(workdir);
	feed(&p, (const char *const[]){ "home=/h", NULL });
	assert_null(preflight_problem_text(&p, "/w"));

	/* "noexec" at the end of 330 bytes of overlay options. */
	memset(line, 'l', 300);
	line[300] = '\0';
	snprintf(opts, sizeof(opts), "noexec=rw,relatime,lowerdir=%s,noexec /h",
		 line);
	feed(&p, (const char *const[]){ opts, NULL });
	assert_int_equal(p.noexec_named, 1);
	assert_string_equal(p.noexec_opts + strlen(p.noexec_opts) - 3, "...");
	text = preflight_problem_text(&p, "~/w");
	assert_non_null(text);
	assert_non_null(strstr(text, "its file system is mounted noexec"));
	free(text);

	/* Toolchain parts alike for 290 bytes: two keys; short: as before. */
	memset(line, 'c', 300);
	memcpy(line, "tc_cc=", 6);
	line[300] = '\0';
	feed(&p, (const char *const[]){ line, NULL });
	line[299] = 'd';
	feed(&q, (const char *const[]){ line, NULL });
	assert_int_equal(strlen(p.tc[PF_TC_CC]), 255);
	assert_non_null(strstr(p.tc[PF_TC_CC], "...#"));
	preflight_toolchain_key(&p, key_p);
	preflight_toolchain_key(&q, key_q);
	assert_string_not_equal(key_p, key_q);
	feed(&p, (const char *const[]){ "tc_cc=gcc 12.2.0", NULL });
	assert_string_equal(p.tc[PF_TC_CC], "gcc 12.2.0");

	/* A HOME too long for p->home is refused, not cut. */
	text = calloc(1100, 1);
	assert_non_null(text);
	memcpy(text, "home=/", 6);
	memset(text + 6, 'h', 1090);
	feed(&p, (const char *const[]){ text, NULL });
	assert_int_equal(p.got_home, 0);
	assert_int_equal(p.home_too_long, 1);
	assert_string_equal(p.home, "");
	free(text);
}

static void test_deployed_names(void **state)
{
	(void)state;
	assert_int_equal(
		deployed_name_kind(DEPLOYED_SSH,
				   "0123456789abcdef-fedcba9876543210"),
		1);
	assert_int_equal(
		deployed_name_kind(
			DEPLOYED_SSH,
			"0123456789abcdef-fedcba9876543210.tmp-0badf00d"),
		2);
	assert_int_equal(deployed_name_kind(DEPLOYED_SLURM, "0123456789abcdef"),
			 1);
	assert_int_equal(deployed_name_kind(DEPLOYED_SLURM,
					    "0123456789abcdef.tmp-00000000"),
			 2);
	/* Anything else is not ctl's. */
	static const char *const not_ours[] = {
		"",
		"junk",
		"0123456789abcdef",
		"0123456789ABCDEF-fedcba9876543210",
		"0123456789abcdef-fedcba987654321",
		"0123456789abcdef-fedcba98765432100",
		"0123456789abcdef-fedcba9876543210.tmp-",
		"0123456789abcdef-fedcba9876543210.tmp-0badf00dx",
		"0123456789abcdef-fedcba9876543210;rm -rf x",
		"../0123456789abcdef",
		"0123456789abcdef-fedcba9876543210/..",
	};
	for (size_t i = 0; i < sizeof(not_ours) / sizeof(not_ours[0]); i++)
		assert_int_equal(deployed_name_kind(DEPLOYED_SSH, not_ours[i]),
				 0);
	assert_int_equal(
		deployed_name_kind(DEPLOYED_SLURM,
				   "0123456789abcdef-fedcba9876543210"),
		0);
	assert_int_equal(deployed_name_kind(DEPLOYED_SLURM, "0123456789abcde"),
			 0);
}

static void test_shell_dir(void **state)
{
	char *s;

	(void)state;
	s = deployed_shell_dir("~/.cache/benchfleet");
	assert_string_equal(s, "\"$HOME\"/.cache/benchfleet");
	free(s);
	s = deployed_shell_dir("~/wa$(touch x)");
	assert_string_equal(s, "\"$HOME\"/'wa$(touch x)'");
	free(s);
	s = deployed_shell_dir("/scratch/it's");
	assert_string_equal(s, "'/scratch/it'\\''s'");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_untrusted_os_words),
		cmocka_unit_test(test_optional),
		cmocka_unit_test(test_cmake_version),
		cmocka_unit_test(test_cuda_text),
		cmocka_unit_test(test_onednn_text),
		cmocka_unit_test(test_toolchain_key_stable),
		cmocka_unit_test(test_shell_noise),
		cmocka_unit_test(test_problems),
		cmocka_unit_test(test_long_answers),
		cmocka_unit_test(test_deployed_names),
		cmocka_unit_test(test_shell_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
