/*
 * Unit tests for controller/remote/remote_target.c: splitting "[user@]host[:port]"
 * the way ssh(1) reads it, including IPv6 in brackets and bare, the last
 * '@' as the user separator, and every refusal with its error code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/remote_target.h"

/* Parses spec and checks the parts; want_user NULL: no user. */
static void expect_ok(const char *spec, const char *want_user,
		      const char *want_host, int want_port)
{
	char *user = (char *)"junk", *host = (char *)"junk";
	int port = -1;
	char detail[256] = "";
	enum bf_err err;

	err = remote_target_parse(spec, &user, &host, &port, detail,
				  sizeof detail);
	if (err != BF_OK)
		fail_msg("%s: %s (%s)", spec, bf_err_str(err), detail);
	if (want_user)
		assert_non_null(user);
	if (want_user && strcmp(user, want_user) != 0)
		fail_msg("%s: user [%s], want [%s]", spec, user, want_user);
	if (!want_user && user)
		fail_msg("%s: user [%s], want none", spec, user);
	assert_non_null(host);
	if (strcmp(host, want_host) != 0)
		fail_msg("%s: host [%s], want [%s]", spec, host, want_host);
	assert_int_equal(port, want_port);
	free(user);
	free(host);
}

/* Parses spec, which must be refused with want (outputs NULL/0 and a
 * detail that names spec). */
static void expect_err(const char *spec, enum bf_err want)
{
	char *user = (char *)"junk", *host = (char *)"junk";
	int port = -1;
	char detail[256] = "";
	enum bf_err err;

	err = remote_target_parse(spec, &user, &host, &port, detail,
				  sizeof detail);
	if (err != want)
		fail_msg("%s: got %s, want %s", spec, bf_err_str(err),
			 bf_err_str(want));
	assert_null(user);
	assert_null(host);
	assert_int_equal(port, 0);
	if (!strstr(detail, spec))
		fail_msg("%s: detail [%s] does not name it", spec, detail);
}

static void test_plain(void **state)
{
	(void)state;
	expect_ok("bfhost1", NULL, "bfhost1", 0);
	expect_ok("box.lan", NULL, "box.lan", 0);
	expect_ok("10.0.0.7", NULL, "10.0.0.7", 0);
}

static void test_user_and_port(void **state)
{
	(void)state;
	expect_ok("me@box.lan", "me", "box.lan", 0);
	expect_ok("box.lan:2222", NULL, "box.lan", 2222);
	expect_ok("me@box.lan:2222", "me", "box.lan", 2222);
	expect_ok("h:1", NULL, "h", 1);
	expect_ok("h:65535", NULL, "h", 65535);
	/* The last '@' separates: a user name may hold one. */
	expect_ok("a@b@host", "a@b", "host", 0);
}

static void test_ipv6(void **state)
{
	(void)state;
	expect_ok("[::1]:22", NULL, "::1", 22);
	expect_ok("[::1]", NULL, "::1", 0);
	expect_ok("me@[fe80::1]:2222", "me", "fe80::1", 2222);
	/* Bare IPv6: two or more colons and no brackets, no port. */
	expect_ok("::1", NULL, "::1", 0);
	expect_ok("me@2001:db8::5", "me", "2001:db8::5", 0);
}

static void test_refused(void **state)
{
	(void)state;
	expect_err("", BF_ERR_USAGE);
	expect_err("@host", BF_ERR_USAGE);
	expect_err("me@", BF_ERR_USAGE);
	expect_err(":22", BF_ERR_USAGE);
	expect_err("[]:22", BF_ERR_USAGE);
	expect_err("[::1", BF_ERR_USAGE);
	expect_err("[::1]x", BF_ERR_USAGE);
	expect_err("host:", BF_ERR_USAGE);
	expect_err("host:0", BF_ERR_USAGE);
	expect_err("host:65536", BF_ERR_USAGE);
	expect_err("host:22x", BF_ERR_USAGE);
	expect_err("host:-1", BF_ERR_USAGE);
	expect_err("host:99999999999999999999", BF_ERR_USAGE);
	expect_err("[::1]:", BF_ERR_USAGE);
}

/* remote_target_check: what ctl run refuses before anything is made, which
 * is what OpenSSH's ssh(1) refuses on its command line (misc.c's
 * valid_hostname and valid_ruser; `ssh -G -- NAME` of OpenSSH 9.2p1 gives
 * the same answer for the user and host of every name here: the ":port"
 * and "[address]" syntax is ctl's own). */
static void test_check(void **state)
{
	static const char *const good[] = { "bfhost1", "me@box.lan:2222",
		"[::1]:22", "fe80::1%eth0", "a_b-c.d", "plus+1", "my_host",
		/* a 69-character alias, and a 64-character label: ssh takes
		 * both (getaddrinfo decides what resolves) */
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.x",
		"a..b", "x.", "a*b", "a!b", "a#b", "a=b", "a~b", "a[b",
		/* user names ssh takes: '$', a blank, '@', '\\' inside */
		"a$b@h", "a b@h", "a@b@h", "a\\b@h", "first.last@h",
		NULL };
	static const char *const bad[] = { "me@", ":22", "host:99999", "a b",
		"x:a", "-oProxyCommand=x", "h;rm", "", "a,b", "a$b", "a`b",
		"h$(touch x)", "h`touch x`", "a{b}", "a|b", "a&b", "a<b",
		"a\\b", "a'b", "a\"b", "a\tb", "a\nb",
		/* user names ssh refuses */
		"-u@h", "a -b@h", "a\\@h", "a;b@h", "a`b@h", "a(b@h",
		"a'b@h", "a\x01b@h",
		NULL };
	char detail[256];

	(void)state;
	for (int i = 0; good[i]; i++)
		if (remote_target_check(good[i], detail, sizeof detail) !=
		    BF_OK)
			fail_msg("%s: refused: %s", good[i], detail);
	for (int i = 0; bad[i]; i++) {
		detail[0] = '\0';
		if (remote_target_check(bad[i], detail, sizeof detail) !=
		    BF_ERR_USAGE)
			fail_msg("%s: not refused", bad[i]);
		if (!strstr(detail, bad[i]))
			fail_msg("%s: detail [%s] does not name it", bad[i],
				 detail);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_user_and_port),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
