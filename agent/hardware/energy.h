/*
 * Energy of a GEMM row: a counter read before and after the timed loop,
 * differenced. A GPU's is NVML's total-energy counter (board energy, mJ,
 * nvml_energy_mj); the CPU's is powercap's RAPL package counters
 * (/sys/class/powercap/intel-rapl:N/energy_uj, µJ, one per socket, the
 * whole package including cores the GEMM did not use; Linux's powercap
 * documentation, Documentation/power/powercap/powercap.rst). A reading
 * that cannot be had is "unknown" with the reason, never 0.
 *
 * None of the tools benchfleet is measured against reports GEMM
 * throughput per joule; these figures are that.
 */
#ifndef BF_ENERGY_H
#define BF_ENERGY_H

#include <stddef.h>
#include <stdint.h>

/* Shortest window the counters are differenced over. NVML's counter is
 * refreshed only every few tens of ms (and on A100/H100 samples a
 * quarter of each 100 ms: Yang et al., "Part-time Power Measurements:
 * nvidia-smi's Lack of Attention", arXiv:2312.02741, 2023), so a GPU row
 * whose timed loop is shorter goes on with the same GEMM, untimed, until
 * this much time has passed, and those calls count. RAPL's counters are
 * updated about every millisecond (Intel SDM vol. 3B, 15.10.1); a CPU
 * window under ENERGY_CPU_MIN_MS is reported as unknown. */
#define ENERGY_GPU_MIN_MS 500.0
#define ENERGY_CPU_MIN_MS 10.0

/* RAPL package domains read at most (sockets). */
#define ENERGY_RAPL_MAX 16

/* The energy over one window, for the record. */
struct energy_window {
	double joules;   /* NaN unknown: see reason */
	double seconds;  /* the window's length (CLOCK_MONOTONIC) */
	double gemms;    /* GEMM calls in the window */
	char source[96]; /* "NVML nvmlDeviceGetTotalEnergyConsumption", ... */
	char reason[192]; /* why joules is unknown; "" when known */
};

/* One reading of the RAPL package counters under root (a powercap
 * directory: /sys/class/powercap, or a test's copy of its layout). */
struct rapl_reading {
	int count;                       /* package domains read */
	uint64_t energy_uj[ENERGY_RAPL_MAX];
	uint64_t max_energy_range_uj[ENERGY_RAPL_MAX]; /* counter wraps here */
};

/* Reads every top-level package domain root/intel-rapl:N (N = 0, 1, ...,
 * its subdomains intel-rapl:N:M left out: they are parts of the package)
 * into *out: energy_uj and max_energy_range_uj. 0 on success; -1 with
 * the reason in reason (reason_len bytes) when there is no domain or one
 * cannot be read (energy_uj is readable by root only since Linux 5.10,
 * CVE-2020-8694). Blocks on sysfs reads only. */
int energy_rapl_read(const char *root, struct rapl_reading *out,
		     char *reason, size_t reason_len);

/* Joules between two readings of the same domains, summed over them; a
 * counter that went down wrapped once at max_energy_range_uj (the window
 * must be shorter than a wrap: at 250 W and 2^32 µJ, 17 s; the kernel's
 * range is usually 2^38 µJ or more). NaN when the readings do not match
 * (other domain counts). Pure. */
double energy_rapl_joules(const struct rapl_reading *before,
			  const struct rapl_reading *after);

/* A window in progress. */
struct energy_meter {
	int gpu;                  /* 1: NVML counter; 0: RAPL */
	char pci_bus_id[32];
	char root[256];           /* powercap root for the CPU */
	uint64_t start_mj;
	struct rapl_reading start_rapl;
	uint64_t start_ns;
	int ok;                   /* the start reading succeeded */
	char reason[192];
};

/* Starts a window on the GPU at pci_bus_id (NULL: unknown, giving a
 * reason) or on the CPU's packages under powercap_root (NULL:
 * /sys/class/powercap). Never fails: an unreadable counter makes the
 * window's joules unknown. */
void energy_meter_start_gpu(struct energy_meter *m, const char *pci_bus_id);
void energy_meter_start_cpu(struct energy_meter *m, const char *powercap_root);

/* Milliseconds since the window started. */
double energy_meter_elapsed_ms(const struct energy_meter *m);

/* Ends the window: reads the counter again, and fills *out with the
 * joules (NaN with the reason when either reading failed, the window was
 * too short for the counter, or the counter went backwards), the
 * window's seconds and `gemms`, the calls it held. */
void energy_meter_stop(struct energy_meter *m, double gemms,
		       struct energy_window *out);

#endif
