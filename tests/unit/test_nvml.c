/*
 * Unit tests for agent/hardware/nvml.c: reason bits named, the throttled verdict
 * from before/after readings, the "NVML absent" path, which is what
 * this machine (no NVIDIA driver) exercises for real, and the readings as
 * the gemm record's device_state (device_state_fill, then the one
 * encoder, common/record_encode.c).
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "hardware/nvml.h"
#include "record.h"

static void test_reason_names(void **state)
{
	char buf[128];

	assert_string_equal(nvml_reason_names(0, buf, sizeof(buf)), "none");
	assert_string_equal(nvml_reason_names(-1, buf, sizeof(buf)), "unknown");
	assert_string_equal(nvml_reason_names(0x4 | 0x40, buf, sizeof(buf)),
			    "sw_power_cap,hw_thermal");
	assert_string_equal(nvml_reason_names(0x1 | 0x1000, buf, sizeof(buf)),
			    "gpu_idle,other(0x1000)");
}

static struct gpu_state reading(int known, int64_t reasons)
{
	struct gpu_state s;

	memset(&s, 0, sizeof(s));
	s.known = known;
	s.event_reasons = reasons;
	s.power_violation_ns = s.thermal_violation_ns = NAN;
	return s;
}

static void test_throttled(void **state)
{
	struct gpu_state idle = reading(1, (int64_t)NVML_REASON_GPU_IDLE);
	struct gpu_state busy = reading(1, 0);
	struct gpu_state capped = reading(1, (int64_t)NVML_REASON_SW_POWER_CAP);
	struct gpu_state hot = reading(1, (int64_t)NVML_REASON_HW_THERMAL);
	struct gpu_state unknown = reading(0, -1);

	/* Idle before and busy after is the normal row. */
	assert_int_equal(nvml_throttled(&idle, NULL, &busy), 0);
	assert_int_equal(nvml_throttled(&busy, NULL, &capped), 1);
	assert_int_equal(nvml_throttled(&hot, NULL, &busy), 1);
	assert_int_equal(nvml_throttled(&unknown, NULL, &unknown), -1);
	assert_int_equal(nvml_throttled(&unknown, NULL, &capped), 1);
	assert_int_equal(nvml_throttled(NULL, NULL, &busy), 0);
	/* The review's case: idle before and after, capped only while the
	 * row ran. The before/after readings alone miss it. */
	assert_int_equal(nvml_throttled(&idle, NULL, &idle), 0);
	assert_int_equal(nvml_throttled(&idle, &capped, &idle), 1);
	assert_int_equal(nvml_throttled(&idle, &busy, &idle), 0);
	assert_int_equal(nvml_throttled(&unknown, &hot, &unknown), 1);
}

/* A power cap with the clock near its maximum is the boost at work, not
 * throttling (the first H200 run: sw_power_cap at 1935 of 1980 MHz, 80 %
 * of peak); below 0.90 of it, or with heat, it is. */
static void test_power_cap_at_full_clock(void **state)
{
	struct gpu_state idle = reading(1, (int64_t)NVML_REASON_GPU_IDLE);
	struct gpu_state capped = reading(1, (int64_t)NVML_REASON_SW_POWER_CAP);
	struct gpu_state hot = reading(1, (int64_t)NVML_REASON_HW_THERMAL);

	(void)state;
	idle.sm_clock_mhz = idle.sm_clock_max_mhz = 1980;
	capped.sm_clock_max_mhz = hot.sm_clock_max_mhz = 1980;
	capped.sm_clock_mhz = hot.sm_clock_mhz = 1935;
	assert_int_equal(nvml_throttled(&idle, &capped, &idle), 0);
	capped.sm_clock_mhz = 1780; /* 0.899 */
	assert_int_equal(nvml_throttled(&idle, &capped, &idle), 1);
	assert_int_equal(nvml_throttled(&idle, &hot, &idle), 1);
	/* The power violation counter: 581 ms of 1 s, judged by during's
	 * clock. */
	idle.power_violation_ns = 0;
	idle.read_ns = 0;
	capped.event_reasons = 0;
	capped.sm_clock_mhz = 1935;
	{
		struct gpu_state after = idle;

		after.read_ns = 1000000000;
		after.power_violation_ns = 581e6;
		assert_int_equal(nvml_throttled(&idle, &capped, &after), 0);
		capped.sm_clock_mhz = 1500;
		assert_int_equal(nvml_throttled(&idle, &capped, &after), 1);
		/* no clock known anywhere: the counter's word is taken */
		idle.sm_clock_mhz = after.sm_clock_mhz = 0;
		assert_int_equal(nvml_throttled(&idle, NULL, &after), 1);
	}
}

static void test_violation_counters(void **state)
{
	/* 3 s row: more than 1 % (30 ms) held down is throttled. */
	assert_int_equal(nvml_violation_throttled(1e9, 1e9 + 31e6, 3e9), 1);
	assert_int_equal(nvml_violation_throttled(1e9, 1e9 + 29e6, 3e9), 0);
	assert_int_equal(nvml_violation_throttled(5e6, 5e6, 3e9), 0);
	assert_int_equal(nvml_violation_throttled(NAN, 5e6, 3e9), -1);
	assert_int_equal(nvml_violation_throttled(0, 5e6, 0), -1);
	{
		/* Idle readings both sides (no reason bit), but the power
		 * counter moved by 0.5 s of a 2 s row: throttled. */
		struct gpu_state b = reading(1, (int64_t)NVML_REASON_GPU_IDLE);
		struct gpu_state a = b;

		b.power_violation_ns = 7e9;
		b.thermal_violation_ns = 1e9;
		b.read_ns = 100000000000ull;
		a.power_violation_ns = 7.5e9;
		a.thermal_violation_ns = 1e9;
		a.read_ns = b.read_ns + 2000000000ull;
		assert_int_equal(nvml_throttled(&b, NULL, &a), 1);
		a.power_violation_ns = 7e9 + 1e6; /* 1 ms of 2 s */
		assert_int_equal(nvml_throttled(&b, NULL, &a), 0);
		a.thermal_violation_ns = 1e9 + 0.1e9; /* 100 ms: thermal */
		assert_int_equal(nvml_throttled(&b, NULL, &a), 1);
		/* Counters alone, reasons unknown, still give a verdict. */
		a.event_reasons = b.event_reasons = -1;
		assert_int_equal(nvml_throttled(&b, NULL, &a), 1);
		a.thermal_violation_ns = 1e9;
		assert_int_equal(nvml_throttled(&b, NULL, &a), 0);
	}
}

static void test_absent_or_unknown_gpu(void **state)
{
	/* Without the driver (this machine) or with a bus id no GPU has,
	 * every field is unknown and the reason says why; never a crash. */
	struct gpu_state s;
	char v[96];

	nvml_read("0000:ff:1f.7", &s);
	assert_int_equal(s.known, 0);
	assert_true(strlen(s.reason) > 0);
	assert_true(isnan(s.sm_clock_mhz) && isnan(s.power_w));
	assert_int_equal(s.persistence, -1);
	assert_int_equal(s.event_reasons, -1);
	nvml_read(NULL, &s);
	assert_int_equal(s.known, 0);
	if (nvml_driver_version(v, sizeof(v)) == 0)
		assert_true(strlen(v) > 0);
	{
		/* The energy counter likewise: -1 with a reason, *mj kept. */
		uint64_t mj = 12345;
		char why[160] = "";

		assert_int_equal(nvml_energy_mj("0000:ff:1f.7", &mj, why,
						sizeof(why)), -1);
		assert_true(strlen(why) > 0);
		assert_true(mj == 12345);
		why[0] = '\0';
		assert_int_equal(nvml_energy_mj(NULL, &mj, why, sizeof(why)), -1);
		assert_true(strlen(why) > 0);
	}
}

/* dir/rel holding text, its folders made. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[512], cmd[1200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A cpufreq tree of its own (so the figures are known on any machine,
 * one without cpufreq too): the governor of cpu0, and the mean of the
 * frequencies of the CPUs this process may run on, 0 and unreadable
 * ones left out; CPUs outside the affinity mask are not read. */
static void test_cpu_state(void **state)
{
	struct cpu_state c;
	char dir[64] = "/tmp/bf-test-cpufreq-XXXXXX", rel[96], cmd[128];
	cpu_set_t set;
	int allowed[CPU_SETSIZE], n = 0;
	double want = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			allowed[n++] = cpu;
	assert_true(n >= 1);
	/* no cpufreq at all (a VM): unknown, not nonsense */
	cpu_state_read_at(dir, &c);
	assert_true(isnan(c.freq_mhz));
	assert_string_equal(c.governor, "");
	put(dir, "cpu0/cpufreq/scaling_governor", "performance\n");
	for (int i = 0; i < n; i++) {
		char khz[32];

		snprintf(rel, sizeof(rel), "cpu%d/cpufreq/scaling_cur_freq",
			 allowed[i]);
		snprintf(khz, sizeof(khz), "%d\n", 2000000 + 100000 * i);
		put(dir, rel, khz);
		want += (2000000 + 100000 * i) / 1000.0;
	}
	/* a CPU outside the mask: never read */
	snprintf(rel, sizeof(rel), "cpu%d/cpufreq/scaling_cur_freq",
		 CPU_SETSIZE - 1);
	if (!CPU_ISSET(CPU_SETSIZE - 1, &set))
		put(dir, rel, "9000000\n");
	cpu_state_read_at(dir, &c);
	assert_string_equal(c.governor, "performance");
	assert_true(fabs(c.freq_mhz - want / n) < 1e-9);
	/* a CPU reading 0 (offline) is left out of the mean */
	if (n >= 2) {
		snprintf(rel, sizeof(rel), "cpu%d/cpufreq/scaling_cur_freq",
			 allowed[n - 1]);
		put(dir, rel, "0\n");
		want -= (2000000 + 100000 * (n - 1)) / 1000.0;
		cpu_state_read_at(dir, &c);
		assert_true(fabs(c.freq_mhz - want / (n - 1)) < 1e-9);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	/* this machine's own: unknown or a frequency */
	cpu_state_read(&c);
	assert_true(isnan(c.freq_mhz) || (c.freq_mhz > 100 && c.freq_mhz < 10000));
}

/* The device_state of a gemm record as the agent writes it: readings
 * filled by device_state_fill, encoded by bf_record_encode, keys in the
 * agent's order. */
static char *device_state_line(const struct device_state *before,
			       const struct device_state *during,
			       const struct device_state *after,
			       int *throttled)
{
	struct bf_record r;
	cJSON *doc;
	char *line;

	bf_record_init(&r, BF_REC_GEMM);
	r.u.gemm.measured = 1;
	r.u.gemm.device = strdup("cuda:0");
	r.u.gemm.dtype = strdup("bf16");
	*throttled = r.u.gemm.throttled = device_state_fill(
		before, during, after, &r.u.gemm.device_state);
	doc = bf_record_encode(&r);
	line = cJSON_PrintUnformatted(cJSON_GetObjectItem(doc, "device_state"));
	cJSON_Delete(doc);
	bf_record_free(&r);
	return line;
}

static void gpu_reading(struct device_state *d, double sm, int64_t reasons,
			double power_violation_ns, uint64_t read_ns)
{
	memset(d, 0, sizeof(*d));
	d->is_gpu = 1;
	d->gpu.known = 1;
	d->gpu.sm_clock_mhz = sm;
	d->gpu.sm_clock_max_mhz = 1980;
	d->gpu.mem_clock_mhz = 3201;
	d->gpu.mem_clock_max_mhz = 3201;
	d->gpu.power_w = 587.5;
	d->gpu.power_limit_w = 700;
	d->gpu.temperature_c = NAN;
	d->gpu.persistence = 1;
	d->gpu.mig = 0;
	d->gpu.ecc = -1;
	d->gpu.event_reasons = reasons;
	d->gpu.power_violation_ns = power_violation_ns;
	d->gpu.thermal_violation_ns = NAN;
	d->gpu.read_ns = read_ns;
}

static void test_device_state_record(void **state)
{
	struct device_state b, du, a, cpu;
	char *line;
	int throttled;

	(void)state;
	/* A GPU held at 1650 of 1980 MHz by the power cap during the row,
	 * 40 of 1000 ms of power violation: throttled. Unknown readings are
	 * null; the thermal counter is unknown. */
	gpu_reading(&b, 1980, 0, 1e9, 1000000000ull);
	gpu_reading(&du, 1650, (int64_t)NVML_REASON_SW_POWER_CAP, NAN, 0);
	gpu_reading(&a, 1980, 0, 1.04e9, 2000000000ull);
	line = device_state_line(&b, &du, &a, &throttled);
	assert_int_equal(throttled, 1);
	assert_string_equal(line,
		"{\"before\":{\"sm_clock_mhz\":1980,\"sm_clock_max_mhz\":1980,"
		"\"mem_clock_mhz\":3201,\"mem_clock_max_mhz\":3201,"
		"\"power_w\":587.5,\"power_limit_w\":700,\"temperature_c\":null,"
		"\"persistence_mode\":true,\"mig_mode\":false,\"ecc_mode\":null,"
		"\"clock_event_reasons\":\"none\"},"
		"\"during\":{\"sm_clock_mhz\":1650,\"sm_clock_max_mhz\":1980,"
		"\"mem_clock_mhz\":3201,\"mem_clock_max_mhz\":3201,"
		"\"power_w\":587.5,\"power_limit_w\":700,\"temperature_c\":null,"
		"\"persistence_mode\":true,\"mig_mode\":false,\"ecc_mode\":null,"
		"\"clock_event_reasons\":\"sw_power_cap\"},"
		"\"after\":{\"sm_clock_mhz\":1980,\"sm_clock_max_mhz\":1980,"
		"\"mem_clock_mhz\":3201,\"mem_clock_max_mhz\":3201,"
		"\"power_w\":587.5,\"power_limit_w\":700,\"temperature_c\":null,"
		"\"persistence_mode\":true,\"mig_mode\":false,\"ecc_mode\":null,"
		"\"clock_event_reasons\":\"none\"},"
		"\"power_violation_ms\":40,\"thermal_violation_ms\":null,"
		"\"throttled\":true}");
	free(line);

	/* NVML absent: its reason once per reading, no "during", counters
	 * null, throttled unknown. */
	memset(&b, 0, sizeof(b));
	b.is_gpu = 1;
	snprintf(b.gpu.reason, sizeof(b.gpu.reason), "%s",
		 "NVML: libnvidia-ml.so.1 not found");
	line = device_state_line(&b, NULL, &b, &throttled);
	assert_int_equal(throttled, -1);
	assert_string_equal(line,
		"{\"before\":{\"reason\":\"NVML: libnvidia-ml.so.1 not found\"},"
		"\"after\":{\"reason\":\"NVML: libnvidia-ml.so.1 not found\"},"
		"\"power_violation_ms\":null,\"thermal_violation_ms\":null,"
		"\"throttled\":null}");
	free(line);

	/* A CPU: governor (null without cpufreq) and mean clock; no
	 * counters; a GPU-less "during" is left out. */
	memset(&cpu, 0, sizeof(cpu));
	cpu.cpu.freq_mhz = 2100.5;
	memset(&a, 0, sizeof(a));
	snprintf(a.cpu.governor, sizeof(a.cpu.governor), "performance");
	a.cpu.freq_mhz = NAN;
	line = device_state_line(&cpu, &cpu, &a, &throttled);
	assert_int_equal(throttled, -1);
	assert_string_equal(line,
		"{\"before\":{\"governor\":null,\"freq_mhz\":2100.5},"
		"\"after\":{\"governor\":\"performance\",\"freq_mhz\":null},"
		"\"throttled\":null}");
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason_names),
		cmocka_unit_test(test_throttled),
		cmocka_unit_test(test_power_cap_at_full_clock),
		cmocka_unit_test(test_violation_counters),
		cmocka_unit_test(test_absent_or_unknown_gpu),
		cmocka_unit_test(test_cpu_state),
		cmocka_unit_test(test_device_state_record),
	};

	return cmocka_run_group_tests_name("nvml", tests, NULL, NULL);
}
