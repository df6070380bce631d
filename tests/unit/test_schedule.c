/*
 * Unit tests for controller/run/schedule.c: the same-machine schedule of
 * a run, on made-up hosts (no threads, no runner). Hosts of one machine
 * run one at a time, in the command line's order, unless
 * --concurrent-same-machine; hosts of different machines run at once; a
 * host that was not identified is a machine of its own and a host whose
 * identify failed starts at once (to fail); nobody starts before every
 * host before it has answered, and a host that shares its machine waits
 * for the machines to be said.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run/schedule.h"

/* Two boot ids: two machines. */
#define BOOT_A "6612b1d6-8b48-4f85-a761-661a0d5c81d8"
#define BOOT_B "0a6c4b0e-2a5f-4f0e-9d1b-3c2f4e5d6a7b"

static struct machine_id boot(const char *boot_id)
{
	struct machine_id id;

	memset(&id, 0, sizeof(id));
	snprintf(id.boot_id, sizeof(id.boot_id), "%s", boot_id);
	return id;
}

/* Every host identified as boots[k] (NULL: not identified), and the
 * machines said. */
static void answer_all(struct sched *s, const char *const *boots)
{
	for (int k = 0; k < s->n; k++) {
		struct machine_id id = boot(boots[k] ? boots[k] : "");
		int last = sched_answered(s, k, boots[k] ? &id : NULL, 0);

		assert_int_equal(last, k == s->n - 1);
	}
	sched_said(s);
}

/* Takes the next host, checking that it is `want`. */
static void take(struct sched *s, int want)
{
	int k = sched_next(s, NULL);

	assert_int_equal(k, want);
	if (k >= 0)
		sched_started(s, k);
}

/* Two hosts of one machine: one at a time, the first first; the second
 * is said to wait for the first. */
static void test_one_machine_one_at_a_time(void **state)
{
	const char *boots[] = { BOOT_A, BOOT_A };
	struct sched s;
	int wait_for[2], blocker;

	(void)state;
	sched_init(&s, 2, 0);
	answer_all(&s, boots);
	assert_int_equal(s.hosts[1].group, 0);
	take(&s, 0);
	assert_int_equal(sched_next(&s, wait_for), SCHED_NONE_NOW);
	assert_int_equal(wait_for[0], -1);
	assert_int_equal(wait_for[1], 0);
	assert_false(sched_may_start(&s, 1, &blocker));
	assert_int_equal(blocker, 0);
	sched_ended(&s, 0);
	take(&s, 1);
	assert_int_equal(sched_next(&s, wait_for), SCHED_NONE_LEFT);
	sched_free(&s);
}

/* The same with --concurrent-same-machine: both at once. */
static void test_concurrent_same_machine(void **state)
{
	const char *boots[] = { BOOT_A, BOOT_A };
	struct sched s;

	(void)state;
	sched_init(&s, 2, 1);
	answer_all(&s, boots);
	take(&s, 0);
	take(&s, 1);
	take(&s, SCHED_NONE_LEFT);
	sched_free(&s);
}

/* Different machines run at once; hosts A1 B A2: A2 waits for A1, not
 * for B, and starts once A1 ends although B still runs. */
static void test_machines_in_parallel(void **state)
{
	const char *boots[] = { BOOT_A, BOOT_B, BOOT_A };
	struct sched s;
	int wait_for[3];

	(void)state;
	sched_init(&s, 3, 0);
	answer_all(&s, boots);
	assert_int_equal(s.hosts[1].group, 1);
	assert_int_equal(s.hosts[2].group, 0);
	take(&s, 0);
	take(&s, 1);
	assert_int_equal(sched_next(&s, wait_for), SCHED_NONE_NOW);
	assert_int_equal(wait_for[2], 0);
	sched_ended(&s, 0);
	take(&s, 2);
	sched_free(&s);
}

/* Hosts that were not identified are machines of their own: they run at
 * once, and before the machines are said. */
static void test_unidentified(void **state)
{
	struct sched s;

	(void)state;
	sched_init(&s, 2, 0);
	assert_int_equal(sched_answered(&s, 0, NULL, 0), 0);
	assert_int_equal(sched_answered(&s, 1, NULL, 0), 1);
	/* a second answer is ignored */
	assert_int_equal(sched_answered(&s, 1, NULL, 0), 0);
	assert_int_equal(s.hosts[1].group, 1);
	take(&s, 0);
	take(&s, 1);
	take(&s, SCHED_NONE_LEFT);
	sched_free(&s);
}

/* The order: host 1 does not start before host 0 has answered, even when
 * host 0's machine is another; a host whose identify failed starts at
 * once, to fail. Hosts of one machine wait for the machines to be said
 * (the line before their turns), with nobody named to wait for. */
static void test_order(void **state)
{
	struct machine_id a = boot(BOOT_A), b = boot(BOOT_B);
	struct sched s;
	int wait_for[3], blocker;

	(void)state;
	sched_init(&s, 3, 0);
	take(&s, SCHED_NONE_NOW);
	assert_int_equal(sched_answered(&s, 1, &b, 0), 0);
	take(&s, SCHED_NONE_NOW); /* host 0 has not answered */
	assert_int_equal(sched_answered(&s, 2, NULL, 1), 0);
	assert_true(s.hosts[2].failed);
	take(&s, 2); /* failed: starts at once */
	assert_int_equal(sched_answered(&s, 0, &a, 0), 1);
	take(&s, 0); /* alone on its machine: no need to wait for the say */
	take(&s, 1);
	take(&s, SCHED_NONE_LEFT);
	sched_free(&s);

	sched_init(&s, 3, 0);
	assert_int_equal(sched_answered(&s, 0, &a, 0), 0);
	assert_int_equal(sched_answered(&s, 1, &a, 0), 0);
	assert_int_equal(sched_answered(&s, 2, &b, 0), 1);
	assert_int_equal(sched_next(&s, wait_for), 2);
	assert_int_equal(wait_for[0], -1);
	assert_int_equal(wait_for[1], -1);
	assert_false(sched_may_start(&s, 0, &blocker));
	assert_int_equal(blocker, -1);
	sched_said(&s);
	take(&s, 0);
	sched_free(&s);
}

/* Three hosts of one machine: in the command line's order, one at a
 * time; while the first runs both others wait for it, then the third
 * waits for the second (before it, still to run). */
static void test_three_of_one_machine(void **state)
{
	struct machine_id a = boot(BOOT_A);
	struct sched s;
	int wait_for[3];

	(void)state;
	sched_init(&s, 3, 0);
	sched_answered(&s, 0, &a, 0);
	sched_answered(&s, 1, &a, 0);
	sched_answered(&s, 2, &a, 0);
	sched_said(&s);
	take(&s, 0);
	assert_int_equal(sched_next(&s, wait_for), SCHED_NONE_NOW);
	assert_int_equal(wait_for[1], 0);
	assert_int_equal(wait_for[2], 0); /* host 0 runs */
	sched_ended(&s, 0);
	assert_int_equal(sched_next(&s, wait_for), 1);
	sched_started(&s, 1);
	assert_int_equal(sched_next(&s, wait_for), SCHED_NONE_NOW);
	assert_int_equal(wait_for[2], 1);
	sched_ended(&s, 1);
	take(&s, 2);
	sched_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_machine_one_at_a_time),
		cmocka_unit_test(test_concurrent_same_machine),
		cmocka_unit_test(test_machines_in_parallel),
		cmocka_unit_test(test_unidentified),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_three_of_one_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
