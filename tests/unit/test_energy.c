/*
 * Unit tests for agent/hardware/energy.c's RAPL reader, on a fake powercap
 * directory laid out as /sys/class/powercap is (intel-rapl:N/energy_uj
 * and max_energy_range_uj, subdomains intel-rapl:N:M beside them):
 * package domains summed in index order, subdomains left out, a wrap at
 * max_energy_range_uj allowed for, an unreadable or missing counter a
 * reason and not a number, a window too short for the counter
 * unknown, and so a counter that never advanced (with its reason).
 */
#include <math.h>
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

#include "hardware/energy.h"

static char root[64];

static void put(const char *domain, const char *file, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, domain);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s", root, domain, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/bf-powercap-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_packages_summed_subdomains_left_out(void **state)
{
	struct rapl_reading a, b;
	char why[192] = "";

	put("intel-rapl:0", "energy_uj", "1000000\n");
	put("intel-rapl:0", "max_energy_range_uj", "262143328850\n");
	put("intel-rapl:1", "energy_uj", "5000000\n");
	put("intel-rapl:1", "max_energy_range_uj", "262143328850\n");
	/* A core subdomain: part of package 0, not counted again. */
	put("intel-rapl:0:0", "energy_uj", "999\n");
	put("intel-rapl:0:0", "max_energy_range_uj", "262143328850\n");
	assert_int_equal(energy_rapl_read(root, &a, why, sizeof(why)), 0);
	assert_int_equal(a.count, 2);
	assert_true(a.energy_uj[0] == 1000000 && a.energy_uj[1] == 5000000);
	put("intel-rapl:0", "energy_uj", "3500000\n");  /* +2.5 J */
	put("intel-rapl:1", "energy_uj", "5500000\n");  /* +0.5 J */
	put("intel-rapl:0:0", "energy_uj", "99999999\n");
	assert_int_equal(energy_rapl_read(root, &b, why, sizeof(why)), 0);
	assert_true(fabs(energy_rapl_joules(&a, &b) - 3.0) < 1e-12);
}

static void test_wrap_at_max_energy_range(void **state)
{
	struct rapl_reading a, b;
	char why[192];

	put("intel-rapl:0", "energy_uj", "999000\n");
	put("intel-rapl:0", "max_energy_range_uj", "1000000\n");
	assert_int_equal(energy_rapl_read(root, &a, why, sizeof(why)), 0);
	put("intel-rapl:0", "energy_uj", "500\n"); /* wrapped: +1000 + 500 */
	assert_int_equal(energy_rapl_read(root, &b, why, sizeof(why)), 0);
	assert_true(fabs(energy_rapl_joules(&a, &b) - 1500e-6) < 1e-15);
	/* Other domain counts do not pair. */
	b.count = 2;
	assert_true(isnan(energy_rapl_joules(&a, &b)));
}

static void test_missing_and_unreadable(void **state)
{
	struct rapl_reading r;
	char why[192] = "", path[256];

	/* No package domain at all. */
	assert_int_equal(energy_rapl_read(root, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no intel-rapl:N package domain"));
	/* No such directory (a VM, a non-Intel kernel). */
	assert_int_equal(energy_rapl_read("/nonexistent/powercap", &r, why,
					  sizeof(why)), -1);
	assert_non_null(strstr(why, "No such file or directory"));
	/* A counter that is not a number. */
	put("intel-rapl:0", "energy_uj", "garbage\n");
	put("intel-rapl:0", "max_energy_range_uj", "1000000\n");
	assert_int_equal(energy_rapl_read(root, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "intel-rapl:0/energy_uj"));
	/* Mode 000: unreadable unless root (root reads it anyway). */
	put("intel-rapl:0", "energy_uj", "5\n");
	snprintf(path, sizeof(path), "%s/intel-rapl:0/energy_uj", root);
	chmod(path, 0);
	if (geteuid() != 0) {
		assert_int_equal(energy_rapl_read(root, &r, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "CVE-2020-8694"));
	}
	chmod(path, 0600);
}

static void test_meter_windows(void **state)
{
	struct energy_meter m;
	struct energy_window w;

	put("intel-rapl:0", "energy_uj", "1000\n");
	put("intel-rapl:0", "max_energy_range_uj", "262143328850\n");
	/* Read back at once: a window far under ENERGY_CPU_MIN_MS. */
	energy_meter_start_cpu(&m, root);
	put("intel-rapl:0", "energy_uj", "2001000\n");
	energy_meter_stop(&m, 7, &w);
	assert_true(isnan(w.joules));
	assert_non_null(strstr(w.reason, "under the 10 ms"));
	assert_true(w.gemms == 7);
	assert_non_null(strstr(w.source, "RAPL"));
	/* A window long enough: 2 J. */
	put("intel-rapl:0", "energy_uj", "1000\n");
	energy_meter_start_cpu(&m, root);
	put("intel-rapl:0", "energy_uj", "2001000\n");
	usleep((useconds_t)(ENERGY_CPU_MIN_MS * 1000 * 2));
	energy_meter_stop(&m, 3, &w);
	assert_true(fabs(w.joules - 2.0) < 1e-12);
	assert_string_equal(w.reason, "");
	assert_true(w.seconds >= ENERGY_CPU_MIN_MS / 1e3);
	/* A counter that never advances (a VM's RAPL): n/a with the
	 * reason, not 0 J (it was 0 J and no reason). */
	put("intel-rapl:0", "energy_uj", "5000\n");
	energy_meter_start_cpu(&m, root);
	usleep((useconds_t)(ENERGY_CPU_MIN_MS * 1000 * 2));
	energy_meter_stop(&m, 3, &w);
	assert_true(isnan(w.joules));
	assert_non_null(strstr(w.reason, "RAPL: package energy_uj did not "
					 "advance in "));
	assert_non_null(strstr(w.reason, "(the counter is not updated here)"));
	/* A GPU without NVML (this machine): unknown, with NVML's reason. */
	energy_meter_start_gpu(&m, "0000:ff:1f.7");
	energy_meter_stop(&m, 1, &w);
	assert_true(isnan(w.joules));
	assert_true(strlen(w.reason) > 0);
	assert_non_null(strstr(w.source, "NVML"));
}

/* NVML's counter as the review describes it: board energy that moves
 * only every ENERGY_NVML_TICK_MS, updates at phase_ms + k ticks, each
 * to the energy up to that update. The board draws 70 W idle before
 * time 0 and 700 W from 0 on (the row). Its value (mJ) read at t_ms. */
static uint64_t nvml_like_mj(double t_ms, double phase_ms)
{
	double u = phase_ms + floor((t_ms - phase_ms) / ENERGY_NVML_TICK_MS) *
				      ENERGY_NVML_TICK_MS;

	return (uint64_t)(1e9 + (u < 0 ? 70.0 * u : 700.0 * u));
}

static void test_window_lengths(void **state)
{
	/* A 500 ms window of a 100 ms counter: up to 20 % off; 2 s keeps
	 * it to 5 %, and that is the GPU's minimum. */
	assert_true(fabs(energy_window_max_error(500, 100) - 0.2) < 1e-12);
	assert_true(fabs(energy_window_min_ms(ENERGY_NVML_TICK_MS,
					      ENERGY_MAX_ERROR) -
			 ENERGY_GPU_MIN_MS) < 1e-9);
	assert_true(ENERGY_GPU_MIN_MS >= 2000);
	assert_true(isnan(energy_window_min_ms(100, 0)));
}

static void test_ticks_window(void **state)
{
	double worst_naive = 0, worst_ticks = 0;

	/* Polled every 3 ms (one synchronised call), for each phase of the
	 * counter's updates against the window. */
	for (double phase = 1; phase < 100; phase += 7) {
		struct energy_ticks t = { 0 };
		double start = 0, w;
		uint64_t a, b;

		/* The old design: read at 0 and at 500 ms, unaligned. */
		a = nvml_like_mj(0, phase);
		b = nvml_like_mj(500, phase);
		w = (double)(b - a) / 500.0; /* mJ/ms = W */
		worst_naive = fmax(worst_naive, fabs(w - 700) / 700);
		/* Ticks: poll until enough. */
		for (double ms = start; !energy_ticks_enough(&t, ENERGY_GPU_MIN_MS);
		     ms += 3) {
			energy_ticks_add(&t, (uint64_t)(ms * 1e6),
					 nvml_like_mj(ms, phase));
			assert_true(ms < 5000);
		}
		assert_true(t.edges >= 20);
		assert_true(energy_ticks_ms(&t) >= ENERGY_GPU_MIN_MS);
		w = (double)energy_ticks_delta(&t) / energy_ticks_ms(&t);
		worst_ticks = fmax(worst_ticks, fabs(w - 700) / 700);
	}
	/* The review's 20 %, and what whole ticks leave: a poll's 3 ms at
	 * each end of a 2 s window. */
	assert_true(worst_naive > 0.15);
	assert_true(worst_ticks < 2 * 3.0 / ENERGY_GPU_MIN_MS + 1e-9);
}

static void test_ticks_edges(void **state)
{
	struct energy_ticks t = { 0 };

	/* The first reading is no edge: nothing is known of when it moved. */
	energy_ticks_add(&t, 0, 100);
	assert_int_equal(t.edges, 0);
	energy_ticks_add(&t, 1000000, 100);
	assert_int_equal(t.edges, 0);
	energy_ticks_add(&t, 2000000, 170);
	assert_int_equal(t.edges, 1);
	assert_false(energy_ticks_enough(&t, 0));
	assert_true(energy_ticks_delta(&t) == 0);
	energy_ticks_add(&t, 102000000, 240);
	assert_int_equal(t.edges, 2);
	assert_true(energy_ticks_delta(&t) == 70);
	assert_true(fabs(energy_ticks_ms(&t) - 100) < 1e-9);
	assert_true(energy_ticks_enough(&t, 100));
	assert_false(energy_ticks_enough(&t, 101));
	/* A counter that went back (driver reloaded) restarts the window. */
	energy_ticks_add(&t, 103000000, 5);
	assert_int_equal(t.edges, 0);
	energy_ticks_add(&t, 104000000, 9);
	assert_int_equal(t.edges, 1);
	assert_true(t.first == 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_lengths),
		cmocka_unit_test(test_ticks_window),
		cmocka_unit_test(test_ticks_edges),
		cmocka_unit_test_setup_teardown(
			test_packages_summed_subdomains_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrap_at_max_energy_range,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_unreadable,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_meter_windows, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("energy", tests, NULL, NULL);
}
