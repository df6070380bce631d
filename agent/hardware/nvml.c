/*
 * NVML loaded at run time (see nvml.h). The prototypes below are NVML's
 * stable C ABI as nvml.h declares them (NVML API Reference, "Device
 * Queries"); the header itself is not needed, so the agent builds without
 * the driver's development files. Every NVML call returns 0
 * (NVML_SUCCESS) on success.
 */
#include "hardware/nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_clock.h"
#include "hardware/hostinfo.h"
#include "record.h"
#include "xmalloc.h"

typedef void *nvml_device;
typedef int (*fn_void)(void);
typedef int (*fn_by_pci)(const char *, nvml_device *);
typedef int (*fn_str)(nvml_device, char *, unsigned int);
typedef int (*fn_clock)(nvml_device, int, unsigned int *);
typedef int (*fn_uint)(nvml_device, unsigned int *);
typedef int (*fn_uint2)(nvml_device, unsigned int *, unsigned int *);
typedef int (*fn_ull)(nvml_device, unsigned long long *);
typedef int (*fn_sys_str)(char *, unsigned int);
typedef const char *(*fn_err_str)(int);
/* nvmlViolationTime_t (nvml.h): referenceTime, a CPU timestamp in µs,
 * and violationTime, the cumulative time in ns. */
struct nvml_violation_time {
	unsigned long long reference_time;
	unsigned long long violation_time;
};
typedef int (*fn_violation)(nvml_device, int, struct nvml_violation_time *);
enum { NVML_PERF_POLICY_POWER = 0, NVML_PERF_POLICY_THERMAL = 1 };

enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

/* nvmlTemperature_v1_t and its version word, as nvml.h (CUDA 13.0)
 * defines them: NVML_STRUCT_VERSION(Temperature, 1) is the struct's size
 * with the version number in the top byte. */
struct nvml_temperature_v1 {
	unsigned int version;
	int sensor_type; /* nvmlTemperatureSensors_t */
	int temperature; /* degrees C */
};
#define NVML_TEMPERATURE_V1                                                  \
	((unsigned int)(sizeof(struct nvml_temperature_v1) | (1u << 24)))
typedef int (*fn_temp_v)(nvml_device, struct nvml_temperature_v1 *);

static struct {
	int loaded;        /* 1 ok, -1 failed (reason) */
	char reason[96];
	fn_by_pci by_pci;
	fn_str uuid;
	fn_clock clock, max_clock, temperature;
	fn_temp_v temperature_v;
	fn_ull energy;
	fn_err_str error_string;
	fn_uint power, power_limit, persistence;
	fn_uint2 mig, ecc;
	fn_ull reasons;
	fn_sys_str driver_version;
	fn_violation violation;
} nv;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

#define SYM(type, name) ((type)(uintptr_t)dlsym(lib, name))

/* Loads NVML and initialises it for the life of the process (NVML's own
 * state is process-wide; nvmlShutdown at exit would gain nothing). */
static void nv_load(void)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	fn_void init;

	if (!lib) {
		nv.loaded = -1;
		snprintf(nv.reason, sizeof(nv.reason),
			 "NVML not available (libnvidia-ml.so.1 not found)");
		return;
	}
	init = SYM(fn_void, "nvmlInit_v2");
	nv.by_pci = SYM(fn_by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
	if (!init || !nv.by_pci || init() != 0) {
		nv.loaded = -1;
		snprintf(nv.reason, sizeof(nv.reason), "NVML failed to initialise");
		return;
	}
	nv.uuid = SYM(fn_str, "nvmlDeviceGetUUID");
	nv.clock = SYM(fn_clock, "nvmlDeviceGetClockInfo");
	nv.max_clock = SYM(fn_clock, "nvmlDeviceGetMaxClockInfo");
	/* CUDA 13's nvml.h deprecates nvmlDeviceGetTemperature and
	 * nvmlDeviceGetCurrentClocksThrottleReasons (DEPRECATED(13.0)):
	 * their replacements are used, the old names only on a driver
	 * too old to have the new ones. */
	nv.temperature_v = SYM(fn_temp_v, "nvmlDeviceGetTemperatureV");
	if (!nv.temperature_v)
		nv.temperature = SYM(fn_clock, "nvmlDeviceGetTemperature");
	/* mJ since the driver was loaded; Volta and newer (nvml.h). */
	nv.energy = SYM(fn_ull, "nvmlDeviceGetTotalEnergyConsumption");
	nv.error_string = SYM(fn_err_str, "nvmlErrorString");
	nv.power = SYM(fn_uint, "nvmlDeviceGetPowerUsage");
	nv.power_limit = SYM(fn_uint, "nvmlDeviceGetEnforcedPowerLimit");
	nv.persistence = SYM(fn_uint, "nvmlDeviceGetPersistenceMode");
	nv.mig = SYM(fn_uint2, "nvmlDeviceGetMigMode");
	nv.ecc = SYM(fn_uint2, "nvmlDeviceGetEccMode");
	/* Renamed in CUDA 12.2's NVML; older drivers have only the second. */
	nv.reasons = SYM(fn_ull, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!nv.reasons)
		nv.reasons = SYM(fn_ull, "nvmlDeviceGetCurrentClocksThrottleReasons");
	nv.driver_version = SYM(fn_sys_str, "nvmlSystemGetDriverVersion");
	nv.violation = SYM(fn_violation, "nvmlDeviceGetViolationStatus");
	nv.loaded = 1;
}

static double mhz(fn_clock f, nvml_device d, int which)
{
	unsigned int v;

	return f && f(d, which, &v) == 0 ? (double)v : NAN;
}

static double watts(fn_uint f, nvml_device d)
{
	unsigned int mw;

	return f && f(d, &mw) == 0 ? mw / 1000.0 : NAN;
}

/* The GPU temperature in degrees C; NaN unknown. */
static double temperature_c(nvml_device d)
{
	struct nvml_temperature_v1 t = { NVML_TEMPERATURE_V1,
					 NVML_TEMPERATURE_GPU, 0 };

	if (nv.temperature_v)
		return nv.temperature_v(d, &t) == 0 ? (double)t.temperature : NAN;
	return mhz(nv.temperature, d, NVML_TEMPERATURE_GPU);
}

/* A violation counter in ns; NaN unknown (not supported: GeForce). */
static double violation_ns(nvml_device d, int policy)
{
	struct nvml_violation_time v = { 0, 0 };

	return nv.violation && nv.violation(d, policy, &v) == 0 ?
		       (double)v.violation_time :
		       NAN;
}

static int mode(fn_uint2 f, nvml_device d)
{
	unsigned int cur, pending;

	return f && f(d, &cur, &pending) == 0 ? (int)(cur != 0) : -1;
}

void nvml_read(const char *pci_bus_id, struct gpu_state *out)
{
	nvml_device d = NULL;
	unsigned int v;
	unsigned long long r;

	memset(out, 0, sizeof(*out));
	out->sm_clock_mhz = out->sm_clock_max_mhz = NAN;
	out->mem_clock_mhz = out->mem_clock_max_mhz = NAN;
	out->power_w = out->power_limit_w = out->temperature_c = NAN;
	out->persistence = out->mig = out->ecc = -1;
	out->event_reasons = -1;
	out->power_violation_ns = out->thermal_violation_ns = NAN;
	out->read_ns = bf_now_ns();
	pthread_once(&nv_once, nv_load);
	if (nv.loaded != 1) {
		snprintf(out->reason, sizeof(out->reason), "%s", nv.reason);
		return;
	}
	if (!pci_bus_id || nv.by_pci(pci_bus_id, &d) != 0) {
		snprintf(out->reason, sizeof(out->reason),
			 "NVML does not know the GPU at PCI %s",
			 pci_bus_id ? pci_bus_id : "(unknown)");
		return;
	}
	out->known = 1;
	if (nv.uuid && nv.uuid(d, out->uuid, sizeof(out->uuid)) != 0)
		out->uuid[0] = '\0';
	out->sm_clock_mhz = mhz(nv.clock, d, NVML_CLOCK_SM);
	out->sm_clock_max_mhz = mhz(nv.max_clock, d, NVML_CLOCK_SM);
	out->mem_clock_mhz = mhz(nv.clock, d, NVML_CLOCK_MEM);
	out->mem_clock_max_mhz = mhz(nv.max_clock, d, NVML_CLOCK_MEM);
	out->temperature_c = temperature_c(d);
	out->power_w = watts(nv.power, d);
	out->power_limit_w = watts(nv.power_limit, d);
	if (nv.persistence && nv.persistence(d, &v) == 0)
		out->persistence = v != 0;
	out->mig = mode(nv.mig, d);
	out->ecc = mode(nv.ecc, d);
	if (nv.reasons && nv.reasons(d, &r) == 0)
		out->event_reasons = (int64_t)(r & 0x7fffffffffffffffull);
	out->power_violation_ns = violation_ns(d, NVML_PERF_POLICY_POWER);
	out->thermal_violation_ns = violation_ns(d, NVML_PERF_POLICY_THERMAL);
	out->read_ns = bf_now_ns();
}

int nvml_energy_mj(const char *pci_bus_id, uint64_t *mj, char *reason,
		   size_t reason_len)
{
	nvml_device d = NULL;
	unsigned long long v = 0;
	int rc;

	pthread_once(&nv_once, nv_load);
	if (nv.loaded != 1) {
		snprintf(reason, reason_len, "%s", nv.reason);
		return -1;
	}
	if (!nv.energy) {
		snprintf(reason, reason_len, "NVML has no "
			 "nvmlDeviceGetTotalEnergyConsumption (driver too old)");
		return -1;
	}
	if (!pci_bus_id || nv.by_pci(pci_bus_id, &d) != 0) {
		snprintf(reason, reason_len, "NVML does not know the GPU at PCI %s",
			 pci_bus_id ? pci_bus_id : "(unknown)");
		return -1;
	}
	rc = nv.energy(d, &v);
	if (rc != 0) {
		const char *why = nv.error_string ? nv.error_string(rc) : NULL;

		snprintf(reason, reason_len,
			 "nvmlDeviceGetTotalEnergyConsumption: %s (NVML error %d)",
			 why ? why : "failed", rc);
		return -1;
	}
	*mj = v;
	return 0;
}

int nvml_driver_version(char *buf, size_t len)
{
	char v[96];

	pthread_once(&nv_once, nv_load);
	if (nv.loaded != 1 || !nv.driver_version ||
	    nv.driver_version(v, sizeof(v)) != 0)
		return -1;
	snprintf(buf, len, "%s", v);
	return 0;
}

const char *nvml_reason_names(int64_t mask, char *buf, size_t len)
{
	static const struct { int64_t bit; const char *name; } names[] = {
		{ (int64_t)NVML_REASON_GPU_IDLE, "gpu_idle" },
		{ (int64_t)NVML_REASON_APP_CLOCKS, "applications_clocks" },
		{ (int64_t)NVML_REASON_SW_POWER_CAP, "sw_power_cap" },
		{ (int64_t)NVML_REASON_HW_SLOWDOWN, "hw_slowdown" },
		{ (int64_t)NVML_REASON_SYNC_BOOST, "sync_boost" },
		{ (int64_t)NVML_REASON_SW_THERMAL, "sw_thermal" },
		{ (int64_t)NVML_REASON_HW_THERMAL, "hw_thermal" },
		{ (int64_t)NVML_REASON_HW_POWER_BRAKE, "hw_power_brake" },
		{ (int64_t)NVML_REASON_DISPLAY_CLOCKS, "display_clocks" },
	};
	size_t used = 0;

	if (!buf || len == 0) /* (and GCC's -fsanitize inlining sees buf) */
		return buf;
	buf[0] = '\0';
	if (mask < 0) {
		snprintf(buf, len, "unknown");
		return buf;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(mask & names[i].bit))
			continue;
		if (snprintf(buf + used, len - used, "%s%s", used ? "," : "",
			     names[i].name) >= (int)(len - used))
			return buf; /* cut: the buffer is full */
		used = strlen(buf);
		mask &= ~names[i].bit;
	}
	if (mask && snprintf(buf + used, len - used, "%sother(0x%llx)",
			     used ? "," : "", (unsigned long long)mask) < 0)
		buf[used] = '\0';
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

int nvml_violation_throttled(double before_ns, double after_ns,
			     double window_ns)
{
	if (isnan(before_ns) || isnan(after_ns) || !(window_ns > 0))
		return -1;
	return after_ns - before_ns > NVML_VIOLATION_FRACTION * window_ns;
}

/* Whether reading s shows its SM clock held down by a power cap: below
 * NVML_POWER_CAP_CLOCK_FRACTION of its maximum, or either figure
 * unknown (then the cap's word is taken). */
static int clock_held(const struct gpu_state *s)
{
	if (!(s->sm_clock_mhz > 0) || !(s->sm_clock_max_mhz > 0))
		return 1;
	return s->sm_clock_mhz <
	       NVML_POWER_CAP_CLOCK_FRACTION * s->sm_clock_max_mhz;
}

int nvml_throttled(const struct gpu_state *before,
		   const struct gpu_state *during,
		   const struct gpu_state *after)
{
	int known = 0, throttled = 0;
	const struct gpu_state *s[3] = { before, during, after };
	const struct gpu_state *clock = NULL;
	const int64_t heat = (int64_t)(NVML_REASONS_THROTTLED &
				       ~NVML_REASON_SW_POWER_CAP);

	for (int i = 0; i < 3; i++) {
		if (!s[i] || !s[i]->known)
			continue;
		/* The clock the power counter is judged by: during's, else
		 * the lowest known one. */
		if (s[i]->sm_clock_mhz > 0 && s[i]->sm_clock_max_mhz > 0 &&
		    (!clock || i == 1 ||
		     (clock != during &&
		      s[i]->sm_clock_mhz < clock->sm_clock_mhz)))
			clock = s[i];
		if (s[i]->event_reasons < 0)
			continue;
		known = 1;
		throttled |= (s[i]->event_reasons & heat) != 0;
		throttled |= (s[i]->event_reasons &
			      (int64_t)NVML_REASON_SW_POWER_CAP) &&
			     clock_held(s[i]);
	}
	if (before && after && before->known && after->known) {
		double window = (double)(after->read_ns - before->read_ns);
		int p = nvml_violation_throttled(before->power_violation_ns,
						 after->power_violation_ns,
						 window);
		int t = nvml_violation_throttled(before->thermal_violation_ns,
						 after->thermal_violation_ns,
						 window);

		known |= p >= 0 || t >= 0;
		throttled |= t == 1;
		throttled |= p == 1 && (!clock || clock_held(clock));
	}
	return known ? throttled : -1;
}

void cpu_state_read(struct cpu_state *out)
{
	cpu_state_read_at("/sys/devices/system/cpu", out);
}

void cpu_state_read_at(const char *cpu_dir, struct cpu_state *out)
{
	char path[4200];
	FILE *f;
	cpu_set_t set;
	double sum = 0;
	int count = 0;

	snprintf(path, sizeof(path), "%s/cpu0/cpufreq/scaling_governor",
		 cpu_dir);
	f = fopen(path, "r");
	out->governor[0] = '\0';
	out->freq_mhz = NAN;
	if (f) {
		if (fgets(out->governor, sizeof(out->governor), f))
			out->governor[strcspn(out->governor, "\n")] = '\0';
		fclose(f);
	}
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		long khz;

		if (!CPU_ISSET(cpu, &set))
			continue;
		snprintf(path, sizeof(path),
			 "%s/cpu%d/cpufreq/scaling_cur_freq", cpu_dir, cpu);
		khz = hostinfo_read_long(path);
		if (khz > 0) {
			sum += (double)khz / 1000.0;
			count++;
		}
	}
	if (count)
		out->freq_mhz = sum / count;
}

/* A violation counter's advance in ms, NaN unknown. */
static double violation_ms(const struct device_state *b,
			   const struct device_state *a, int thermal)
{
	if (!b->is_gpu || !b->gpu.known || !a->gpu.known)
		return NAN;
	return thermal ? (a->gpu.thermal_violation_ns -
			  b->gpu.thermal_violation_ns) / 1e6 :
			 (a->gpu.power_violation_ns - b->gpu.power_violation_ns) /
				 1e6;
}

/* One reading as the record carries it. */
static void state_fill(const struct device_state *d, struct bf_rec_state *st)
{
	char names[160];

	bf_rec_state_init(st);
	if (!d->is_gpu) {
		st->governor = d->cpu.governor[0] ?
				       bf_xstrdup(d->cpu.governor) :
				       NULL;
		st->freq_mhz = d->cpu.freq_mhz;
		return;
	}
	st->is_gpu = 1;
	if (!d->gpu.known) {
		st->reason = bf_xstrdup(d->gpu.reason);
		return;
	}
	st->sm_clock_mhz = d->gpu.sm_clock_mhz;
	st->sm_clock_max_mhz = d->gpu.sm_clock_max_mhz;
	st->mem_clock_mhz = d->gpu.mem_clock_mhz;
	st->mem_clock_max_mhz = d->gpu.mem_clock_max_mhz;
	st->power_w = d->gpu.power_w;
	st->power_limit_w = d->gpu.power_limit_w;
	st->temperature_c = d->gpu.temperature_c;
	st->persistence_mode = d->gpu.persistence;
	st->mig_mode = d->gpu.mig;
	st->ecc_mode = d->gpu.ecc;
	if (d->gpu.event_reasons >= 0)
		st->clock_event_reasons = bf_xstrdup(nvml_reason_names(
			d->gpu.event_reasons, names, sizeof(names)));
}

int device_state_fill(const struct device_state *before,
		      const struct device_state *during,
		      const struct device_state *after,
		      struct bf_rec_device_state *out)
{
	int have_during = during && during->is_gpu && during->gpu.known;

	bf_rec_device_state_init(out);
	out->present = 1;
	state_fill(before, &out->before);
	out->has_during = have_during;
	if (have_during)
		state_fill(during, &out->during);
	state_fill(after, &out->after);
	if (before->is_gpu) {
		out->power_violation_ms = violation_ms(before, after, 0);
		out->thermal_violation_ms = violation_ms(before, after, 1);
	}
	return before->is_gpu ? nvml_throttled(&before->gpu,
					       have_during ? &during->gpu :
							     NULL,
					       &after->gpu) :
				-1;
}

