/*
 * Unit tests for controller/remote/remote_knownhosts.c, ctl's own
 * known_hosts reader (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"): the name a
 * host is listed under, host patterns (comma lists, "*" and "?", "!"
 * negation winning wherever it stands, "[host]:port" literally, case),
 * hashed names (vectors made with OpenSSH 9.2p1's `ssh-keygen -H`), and
 * the verdicts over several files (unknown, ok, changed, other type,
 * revoked winning, where the deciding line is), markers, comments, a
 * missing file, an unreadable one, lines longer than 16 KiB (one line
 * each, issue 28), and lines ctl appends read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "remote/remote_knownhosts.h"

#define ED "ssh-ed25519"
/* Two Ed25519 keys made with ssh-keygen -t ed25519. */
#define KEY1 "AAAAC3NzaC1lZDI1NTE5AAAAIM8hQqTspC5c0wjI/Bi1JYWeJPnh68Pg9UPibqL15mLB"
#define KEY2 "AAAAC3NzaC1lZDI1NTE5AAAAID0CTFYvLNsWZdGscSxSntVmxYJqs2YcNHpvhoyVcW3I"
/* ssh-keygen -H of "127.0.0.1 ..." and "[127.0.0.1]:2222 ...". */
#define HASH_LOCAL "|1|Fk1MrFBKCIAsoaPMOc5fkEJaZS0=|igyr1yZzGebAILwsbfl0GDGnzA8="
#define HASH_2222 "|1|gfoi863J7uVMkXDyf/LG0O6+TWk=|6bDQ2XgUQA3HUCYfi1fchDHupfE="

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/bf-test-kh-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* dir/name holding text; returns its path (static, one per name slot). */
static const char *file(int slot, const char *name, const char *text)
{
	static char paths[4][128];
	FILE *f;

	snprintf(paths[slot], sizeof(paths[slot]), "%s/%s", dir, name);
	f = fopen(paths[slot], "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return paths[slot];
}

static void test_name(void **state)
{
	char *s, long_host[2001], want[2020];

	(void)state;
	s = remote_kh_name("host", 22);
	assert_string_equal(s, "host");
	free(s);
	s = remote_kh_name("host", 0);
	assert_string_equal(s, "host");
	free(s);
	s = remote_kh_name("10.0.0.1", 2222);
	assert_string_equal(s, "[10.0.0.1]:2222");
	free(s);
	/* Whole however long (issue 28): it is the key lines match by. */
	memset(long_host, 'h', sizeof long_host - 1);
	long_host[sizeof long_host - 1] = '\0';
	snprintf(want, sizeof want, "[%s]:2222", long_host);
	s = remote_kh_name(long_host, 2222);
	assert_string_equal(s, want);
	free(s);
}

static struct remote_kh_match check(const char *const *files, size_t n,
				    const char *name, const char *type,
				    const char *key)
{
	struct remote_kh_match m;
	char d[300] = "";

	memset(&m, 0xff, sizeof(m));
	assert_int_equal(remote_kh_check(files, n, name, type, key, &m, d,
					 sizeof(d)),
			 BF_OK);
	return m;
}

static void test_patterns(void **state)
{
	static const struct {
		const char *patterns, *name;
		int want;
	} cases[] = {
		{ "host", "host", 1 },
		{ "host", "host1", 0 },
		{ "host1", "host", 0 },
		{ "HoSt.Example", "host.example", 1 },
		{ "host.example", "HOST.EXAMPLE", 1 },
		{ "a,b,host", "host", 1 },
		{ "a,,host", "host", 1 },
		{ "a,b", "host", 0 },
		{ "*.example", "h.example", 1 },
		{ "*.example", "example", 0 },
		{ "h?st", "host", 1 },
		{ "h?st", "hst", 0 },
		{ "*", "anything", 1 },
		{ "*,!bad", "bad", 0 },
		{ "!bad,*", "bad", 0 },
		{ "!bad,*", "good", 1 },
		{ "!bad", "good", 0 },   /* a negation alone matches nothing */
		{ "[h]:2222", "[h]:2222", 1 },
		{ "[h]:2222", "h", 0 },
		{ "h", "[h]:2222", 0 },
		{ "[h]:*", "[h]:2222", 1 },
		{ "[h?", "[hx", 1 },      /* "[" is no class: literal */
		{ HASH_LOCAL, "127.0.0.1", 1 },
		{ HASH_LOCAL, "127.0.0.2", 0 },
		{ HASH_LOCAL, "[127.0.0.1]:2222", 0 },
		{ HASH_2222, "[127.0.0.1]:2222", 1 },
		{ "|1|Fk1MrFBKCIAsoaPMOc5fkEJaZS0=|igyr1yZzGebAILwsbfl0GDGnyA8=",
		  "127.0.0.1", 0 },      /* one bit of the hash changed */
		{ "|1|Fk1MrFBKCIAsoaPMOc5fkEJaZS0=", "127.0.0.1", 0 },
		{ "|1|short|igyr1yZzGebAILwsbfl0GDGnzA8=", "127.0.0.1", 0 },
	};

	(void)state;
	/* Through the lookup ctl calls: a file whose one line lists the
	 * patterns knows the name, or not. */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char line[256];
		const char *f[1];
		struct remote_kh_match m;

		snprintf(line, sizeof(line), "%s " ED " " KEY1 "\n",
			 cases[i].patterns);
		f[0] = file(0, "patterns", line);
		m = check(f, 1, cases[i].name, ED, KEY1);
		if ((m.state == REMOTE_KH_OK) != cases[i].want)
			fail_msg("'%s' against '%s': expected %d",
				 cases[i].patterns, cases[i].name,
				 cases[i].want);
	}
}

static void test_verdicts(void **state)
{
	const char *f[3];
	struct remote_kh_match m;

	(void)state;
	f[0] = file(0, "user",
		    "# a comment\n"
		    "\n"
		    "other " ED " " KEY2 "\n"
		    "host " ED " " KEY1 "\n"
		    "changed " ED " " KEY2 "\n"
		    "rsaonly ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC\n"
		    "@cert-authority cahost " ED " " KEY1 "\n"
		    HASH_2222 " " ED " " KEY1 "\n");
	f[1] = file(1, "global",
		    "@revoked revokedhost " ED " " KEY1 "\n"
		    "revokedhost " ED " " KEY1 "\n");
	f[2] = "/nonexistent/known_hosts"; /* missing: skipped */
	m = check(f, 3, "host", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_OK);
	assert_string_equal(m.file, f[0]);
	assert_int_equal(m.line, 4);
	m = check(f, 3, "nohost", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_UNKNOWN);
	assert_string_equal(m.file, "");
	m = check(f, 3, "changed", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_CHANGED);
	assert_int_equal(m.line, 5);
	m = check(f, 3, "rsaonly", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_OTHER);
	/* a CA line is no plain key for the host */
	m = check(f, 3, "cahost", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_UNKNOWN);
	/* the hashed [127.0.0.1]:2222, not 127.0.0.1 on port 22 */
	m = check(f, 3, "[127.0.0.1]:2222", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_OK);
	assert_int_equal(m.line, 8);
	m = check(f, 3, "127.0.0.1", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_UNKNOWN);
	/* revoked wins over the plain line that holds the same key */
	m = check(f, 3, "revokedhost", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_REVOKED);
	assert_string_equal(m.file, f[1]);
	assert_int_equal(m.line, 1);
	/* ... in whichever file: revoked in the second file, ok in the
	 * first */
	f[1] = file(1, "global2", "@revoked host " ED " " KEY1 "\n");
	m = check(f, 2, "host", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_REVOKED);
	/* ok wins over changed: another line with this key */
	f[1] = file(1, "global3", "host " ED " " KEY2 "\n");
	m = check(f, 2, "host", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_OK);
	m = check(f, 2, "host", ED, KEY2);
	assert_int_equal(m.state, REMOTE_KH_OK);
	assert_string_equal(m.file, f[1]);
	/* the same key twice: the first line is the one named, as ssh */
	f[1] = file(1, "global4", "x " ED " " KEY2 "\nhost " ED " " KEY1 "\n");
	m = check(f, 2, "host", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_OK);
	assert_string_equal(m.file, f[0]);
	assert_int_equal(m.line, 4);
}

static void test_scan(void **state)
{
	const char *f[1];
	int marks = -1;
	char types[64], d[300];

	(void)state;
	f[0] = file(0, "scan",
		    "@cert-authority h " ED " " KEY1 "\n"
		    "@revoked h " ED " " KEY2 "\n"
		    "h " ED " " KEY1 "\n"
		    "h ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC\n"
		    "other ecdsa-sha2-nistp256 AAAA\n");
	assert_int_equal(remote_kh_scan(f, 1, "h", &marks, types,
					sizeof(types), d, sizeof(d)),
			 BF_OK);
	assert_int_equal(marks, REMOTE_KH_HAS_CA | REMOTE_KH_HAS_REVOKED);
	assert_string_equal(types, " " ED " ssh-rsa ");
	assert_int_equal(remote_kh_scan(f, 1, "other", &marks, types,
					sizeof(types), d, sizeof(d)),
			 BF_OK);
	assert_int_equal(marks, 0);
	assert_string_equal(types, " ecdsa-sha2-nistp256 ");
}

/* A line longer than any buffer is one line: a comment of 20000 bytes
 * ending in "evil ssh-ed25519 KEY1" knows no host (a 16 KiB buffer cut
 * it, and its tail read as a line of its own trusted KEY1 for "evil"),
 * and a long host list's last name is found on that line's number. */
static void test_long_lines(void **state)
{
	size_t pad = 20000;
	char *text = malloc(pad + 512);
	const char *f[1];
	struct remote_kh_match m;

	(void)state;
	assert_non_null(text);
	text[0] = '#';
	memset(text + 1, 'x', pad - 1);
	snprintf(text + pad, 512, " evil " ED " " KEY1 "\n");
	f[0] = file(0, "long", text);
	m = check(f, 1, "evil", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_UNKNOWN);
	/* "a,a,a,...,far host": the name after 20000 bytes of patterns. */
	for (size_t i = 0; i < pad; i += 2)
		memcpy(text + i, "a,", 2);
	snprintf(text + pad, 512, "far " ED " " KEY1 "\nnext " ED " " KEY2
		 "\n");
	f[0] = file(0, "long", text);
	m = check(f, 1, "far", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_OK);
	assert_int_equal(m.line, 1);
	m = check(f, 1, "next", ED, KEY2);
	assert_int_equal(m.state, REMOTE_KH_OK);
	assert_int_equal(m.line, 2);
	free(text);
}

static void test_unreadable(void **state)
{
	const char *f[1];
	struct remote_kh_match m;
	char d[300] = "";

	(void)state;
	f[0] = dir; /* a directory: opens, cannot be read */
	assert_int_equal(remote_kh_check(f, 1, "h", ED, KEY1, &m, d,
					 sizeof(d)),
			 BF_ERR_IO);
	assert_non_null(strstr(d, dir));
	assert_non_null(strstr(d, "Is a directory"));
}

static void test_add_read_back(void **state)
{
	char path[128], d[300] = "", line[512];
	const char *f[1] = { path };
	struct remote_kh_match m;
	struct stat st;
	FILE *fp;

	(void)state;
	snprintf(path, sizeof(path), "%s/.ssh/known_hosts", dir);
	assert_int_equal(remote_kh_add(path, "[h]:2222", ED, KEY1, 0, d,
				       sizeof(d)),
			 BF_OK);
	assert_int_equal(remote_kh_add(path, "hashed.example", ED, KEY2, 1, d,
				       sizeof(d)),
			 BF_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_string_equal(line, "[h]:2222 " ED " " KEY1 "\n");
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	/* hashed: no name in clear, "|1|salt|hash", matched by name */
	assert_null(strstr(line, "hashed.example"));
	assert_memory_equal(line, "|1|", 3);
	m = check(f, 1, "[h]:2222", ED, KEY1);
	assert_int_equal(m.state, REMOTE_KH_OK);
	m = check(f, 1, "hashed.example", ED, KEY2);
	assert_int_equal(m.state, REMOTE_KH_OK);
	assert_int_equal(m.line, 2);
	m = check(f, 1, "hashed.example2", ED, KEY2);
	assert_int_equal(m.state, REMOTE_KH_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test_setup_teardown(test_verdicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_lines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_add_read_back, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
