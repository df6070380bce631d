/*
 * GPU state through NVML, the library behind nvidia-smi, loaded at run
 * time (dlopen of libnvidia-ml.so.1) so that the agent builds and runs
 * where it is absent: then every reading is "unknown" with the reason, not
 * an error. Also the CPU's frequency governor and clock, so that both kinds
 * of device record the state they ran in.
 *
 * Read before, during (halfway through the timed loop) and after each GEMM
 * row, and the power and thermal violation counters differenced over it:
 * a row during which the clocks were held down for power or heat is
 * flagged, since its GFLOP/s describe the cooling, not the chip.
 */
#ifndef BF_NVML_H
#define BF_NVML_H

#include <stddef.h>
#include <stdint.h>

/* NVML's clock-event ("throttle") reason bits (nvml.h,
 * nvmlClocksEventReason*), as returned by
 * nvmlDeviceGetCurrentClocksEventReasons. */
#define NVML_REASON_GPU_IDLE 0x1ull
#define NVML_REASON_APP_CLOCKS 0x2ull
#define NVML_REASON_SW_POWER_CAP 0x4ull
#define NVML_REASON_HW_SLOWDOWN 0x8ull
#define NVML_REASON_SYNC_BOOST 0x10ull
#define NVML_REASON_SW_THERMAL 0x20ull
#define NVML_REASON_HW_THERMAL 0x40ull
#define NVML_REASON_HW_POWER_BRAKE 0x80ull
#define NVML_REASON_DISPLAY_CLOCKS 0x100ull
/* The reasons that mean the clocks were held below what the load asked
 * for: power cap, hardware slowdown, thermal, power brake. */
#define NVML_REASONS_THROTTLED                                               \
	(NVML_REASON_SW_POWER_CAP | NVML_REASON_HW_SLOWDOWN |                \
	 NVML_REASON_SW_THERMAL | NVML_REASON_HW_THERMAL |                   \
	 NVML_REASON_HW_POWER_BRAKE)

/* One reading of a GPU. Numbers are NaN, flags -1, when unknown. */
struct gpu_state {
	int known;               /* 0: NVML absent or failed; see reason */
	char reason[128];
	char uuid[96];           /* "GPU-8f1c...", "" unknown */
	double sm_clock_mhz, sm_clock_max_mhz;
	double mem_clock_mhz, mem_clock_max_mhz;
	double power_w, power_limit_w; /* board draw and enforced limit, W */
	double temperature_c;
	int persistence;         /* persistence mode on (1) / off (0) */
	int mig;                 /* MIG mode on / off */
	int ecc;                 /* ECC mode on / off */
	int64_t event_reasons;   /* NVML_REASON_* bits; -1 unknown */
	/* nvmlDeviceGetViolationStatus's cumulative time the clocks were
	 * held below the requested ones for power (NVML_PERF_POLICY_POWER,
	 * 0) and heat (NVML_PERF_POLICY_THERMAL, 1), ns; NaN unknown. */
	double power_violation_ns, thermal_violation_ns;
	uint64_t read_ns;        /* when read (CLOCK_MONOTONIC, ns) */
};

/* A row counts as throttled by the violation counters when the clocks
 * were held down for more than this fraction of the time between the
 * readings: a counter that moved by a few µs of a 3 s row is a boundary
 * effect, 1 % of it is lost throughput worth a flag. */
#define NVML_VIOLATION_FRACTION 0.01

/* Reads the GPU whose PCI bus id ("0000:3b:00.0", from
 * cudaDeviceGetPCIBusId) is given. Always fills *out; out->known is 0,
 * with the reason, when NVML cannot be loaded or does not know the GPU.
 * Loads NVML once per process (thread-safe); cheap afterwards (about a
 * dozen NVML calls, each under a millisecond on a local GPU). */
void nvml_read(const char *pci_bus_id, struct gpu_state *out);

/* The GPU's energy counter (nvmlDeviceGetTotalEnergyConsumption: board
 * energy in millijoules since the driver was loaded; Volta and newer)
 * into *mj. 0 on success; -1 with the reason in reason (reason_len
 * bytes) when NVML is absent, does not know the GPU or the GPU has no
 * counter (NVML_ERROR_NOT_SUPPORTED). The counter is refreshed only every
 * few tens of ms (Yang et al., "Part-time Power Measurements: nvidia-smi's
 * Lack of Attention", arXiv:2312.02741): difference two readings at least
 * some hundreds of ms apart (energy.h). Thread-safe. */
int nvml_energy_mj(const char *pci_bus_id, uint64_t *mj, char *reason,
		   size_t reason_len);

/* The driver version ("580.95.05") into buf; -1 when NVML is absent. */
int nvml_driver_version(char *buf, size_t len);

/* Names of the set reason bits, comma-separated ("sw_power_cap,
 * hw_thermal"), into buf; "none" when mask is 0, "unknown" when < 0. */
const char *nvml_reason_names(int64_t mask, char *buf, size_t len);

/* Whether a violation counter's advance from before_ns to after_ns
 * (nvmlViolationTime_t.violationTime, ns) over a window of window_ns is
 * throttling: 1 when it exceeds NVML_VIOLATION_FRACTION of the window,
 * 0 when not, -1 when either reading is NaN or the window is not
 * positive. Pure. */
int nvml_violation_throttled(double before_ns, double after_ns,
			     double window_ns);

/* A power cap alone (sw_power_cap, or the power violation counter)
 * counts as throttling only where the SM clock was held below this
 * fraction of its maximum: a GPU at its power limit trims its boost by a
 * few per cent as a matter of course. The first H200 run (bench/
 * RESULTS.md, 2026-12-04) read sw_power_cap and 581 ms of power
 * violation on every n >= 4096 tensor row at 1935 of 1980 MHz (0.98)
 * while reaching 80 % of the rated bf16 peak. Heat and hardware reasons
 * count at any clock. */
#define NVML_POWER_CAP_CLOCK_FRACTION 0.90

/* 1 when a row whose state was `before`, `during` (may be NULL) and
 * `after` ran throttled: any reading has a thermal, hardware-slowdown or
 * power-brake reason, or the thermal violation counter advanced from
 * before to after by more than NVML_VIOLATION_FRACTION of the time
 * between them (nvml_violation_throttled); or the power cap held the
 * clock down: a reading with sw_power_cap, or a power violation counter
 * past that fraction, where the SM clock (of that reading; of `during`,
 * else the lowest known, for the counter) is below
 * NVML_POWER_CAP_CLOCK_FRACTION of its maximum or unknown. 0 when none
 * did; -1 when nothing is known. Pure. */
int nvml_throttled(const struct gpu_state *before,
		   const struct gpu_state *during,
		   const struct gpu_state *after);

/* The CPU side: scaling_governor of CPU 0 and the mean scaling_cur_freq
 * over the CPUs this process may use, from cpufreq in sysfs. */
struct cpu_state {
	char governor[32];   /* "performance", "" unknown (no cpufreq: a VM) */
	double freq_mhz;     /* NaN unknown */
};
void cpu_state_read(struct cpu_state *out);
/* The same from the cpufreq tree under cpu_dir (cpu_state_read's is
 * "/sys/devices/system/cpu"; a test's own tree elsewhere): cpu_dir's
 * cpu0/cpufreq/scaling_governor, and cpuN/cpufreq/scaling_cur_freq (kHz)
 * for each CPU N in this process's affinity mask, those above 0 averaged
 * (MHz). Missing files: "" and NaN. */
void cpu_state_read_at(const char *cpu_dir, struct cpu_state *out);

/* One reading of the device a GEMM ran on: a GPU's or the CPU's. */
struct device_state {
	int is_gpu;
	struct gpu_state gpu;
	struct cpu_state cpu;
};

struct bf_rec_device_state;

/* Fills *out (initialised here; the caller frees it with
 * bf_rec_device_state_free, or with its record) with the gemm record's
 * device_state from the readings before, during (may be NULL, or not a
 * known GPU reading: then left out) and after a row: each reading as
 * record.h's bf_rec_state (clock event reasons by name, NVML's reason
 * when it read nothing) and, for a GPU, the violation counters' advance
 * over the row in ms (NaN unknown). Returns nvml_throttled's verdict for
 * a GPU (1, 0, -1) and -1 for a CPU (cpufreq does not say). */
int device_state_fill(const struct device_state *before,
		      const struct device_state *during,
		      const struct device_state *after,
		      struct bf_rec_device_state *out);

#endif
