/*
 * Unit tests for controller/run/machine.c: which hosts of a run are one
 * machine. The identity lines a host prints (machine id and boot id, each
 * checked for its form), this machine's own from its files, the rule (the
 * same boot id, or the same host key) and the groups,
 * named by their first host, joined through a host that matches two
 * others.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run/machine.h"

#define MID "3d1219c7c4c5404aaa1f6d2a48adfda4"
#define BOOT "6612b1d6-8b48-4f85-a761-661a0d5c81d8"

static struct machine_id id_of(const char *mid, const char *boot,
			       const char *key)
{
	struct machine_id id;

	memset(&id, 0, sizeof(id));
	snprintf(id.machine_id, sizeof(id.machine_id), "%s", mid);
	snprintf(id.boot_id, sizeof(id.boot_id), "%s", boot);
	snprintf(id.host_key, sizeof(id.host_key), "%s", key);
	return id;
}

static void test_lines(void **state)
{
	struct machine_id id;

	(void)state;
	memset(&id, 0, sizeof(id));
	machine_id_line(&id, "machine_id=" MID);
	machine_id_line(&id, "boot_id=" BOOT);
	machine_id_line(&id, "something=else");
	assert_string_equal(id.machine_id, MID);
	assert_string_equal(id.boot_id, BOOT);
	/* Not of their form: left unknown. */
	memset(&id, 0, sizeof(id));
	machine_id_line(&id, "machine_id=");
	machine_id_line(&id, "machine_id=" MID "0");
	machine_id_line(&id, "machine_id=3D1219C7C4C5404AAA1F6D2A48ADFDA4");
	machine_id_line(&id, "machine_id=uninitialized");
	machine_id_line(&id, "boot_id=6612b1d6x8b48-4f85-a761-661a0d5c81d8");
	machine_id_line(&id, "boot_id=6612b1d6-8b48-4f85-a761-661a0d5c81d");
	machine_id_line(&id, "boot_id=$(reboot)");
	assert_string_equal(id.machine_id, "");
	assert_string_equal(id.boot_id, "");
	assert_non_null(strstr(machine_id_command(), "/etc/machine-id"));
	assert_non_null(strstr(machine_id_command(),
			       "/proc/sys/kernel/random/boot_id"));
}

static void test_local(void **state)
{
	struct machine_id a, b;
	char want[64] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	(void)state;
	machine_id_local(&a);
	machine_id_local(&b);
	assert_string_equal(a.host_key, "");
	if (f) {
		if (fgets(want, sizeof(want), f))
			want[strcspn(want, "\n")] = '\0';
		fclose(f);
		assert_string_equal(a.boot_id, want);
	}
	assert_int_equal(machine_id_same(&a, &b), a.boot_id[0] != '\0');
}

static void test_same(void **state)
{
	struct machine_id a = id_of(MID, BOOT, "SHA256:aaa");
	struct machine_id b = id_of(MID, BOOT, "SHA256:bbb");
	struct machine_id rebooted = id_of(MID, "00000000-8b48-4f85-a761-661a0d5c81d8",
					   "SHA256:ccc");
	/* Another container of the same kernel: its own machine id. */
	struct machine_id container = id_of("00000000000000000000000000000000",
					    BOOT, "SHA256:ddd");
	struct machine_id clone = id_of(MID,
					"11111111-8b48-4f85-a761-661a0d5c81d8",
					"SHA256:eee");
	struct machine_id no_ids = id_of("", "", "SHA256:aaa");
	struct machine_id nothing = id_of("", "", "");

	(void)state;
	assert_true(machine_id_same(&a, &b));          /* two sshd's, one box */
	assert_false(machine_id_same(&a, &rebooted));  /* same image, other boot */
	assert_false(machine_id_same(&a, &clone));     /* one image, two boxes */
	assert_true(machine_id_same(&a, &container));  /* one kernel */
	assert_true(machine_id_same(&a, &no_ids));     /* the same host key */
	assert_true(machine_id_same(&no_ids, &a));
	assert_false(machine_id_same(&nothing, &nothing)); /* unknown is no match */
	assert_false(machine_id_same(&no_ids, &clone));
}

static void test_groups(void **state)
{
	/* 0 and 2 one box by boot id, 3 reaches 2's sshd (same key, no ids),
	 * 1 (same image, another boot) and 4 elsewhere, 5 not identified though it would match. */
	struct machine_id ids[6] = {
		id_of(MID, BOOT, "SHA256:k0"),
		id_of(MID, "11111111-8b48-4f85-a761-661a0d5c81d8", "SHA256:k1"),
		id_of(MID, BOOT, "SHA256:k2"),
		id_of("", "", "SHA256:k2"),
		id_of("", "", ""),
		id_of(MID, BOOT, "SHA256:k0"),
	};
	int known[6] = { 1, 1, 1, 1, 1, 0 };
	int group[6];

	(void)state;
	machine_groups(ids, known, 6, group);
	assert_int_equal(group[0], 0);
	assert_int_equal(group[1], 1);
	assert_int_equal(group[2], 0);
	assert_int_equal(group[3], 0);
	assert_int_equal(group[4], 4);
	assert_int_equal(group[5], 5);
	/* Joined through the later host: 3 matches 0 only by key, 0 matches
	 * 2 only by ids, given in the other order. */
	{
		struct machine_id j[3] = {
			id_of("", "", "SHA256:x"),
			id_of(MID, BOOT, "SHA256:y"),
			id_of(MID, BOOT, "SHA256:x"),
		};
		int k[3] = { 1, 1, 1 }, g[3];

		machine_groups(j, k, 3, g);
		assert_int_equal(g[0], 0);
		assert_int_equal(g[1], 0);
		assert_int_equal(g[2], 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
