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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
