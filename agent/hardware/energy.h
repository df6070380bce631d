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

/* Shortest window the counters are differenced over. NVML's counter
 * advances about every 100 ms (ENERGY_NVML_TICK_MS; on A100/H100 it
 * also samples only a quarter of each 100 ms: Yang et al., "Part-time
 * Power Measurements: nvidia-smi's Lack of Attention", arXiv:2312.02741,
 * 2023), so a window's two readings are each up to one tick stale and
 * its joules off by up to tick / window (energy_window_max_error: 20 %
 * at 500 ms). A GPU window therefore starts and ends on a counter update
 * (energy_ticks: the counter is polled until it moves) and lasts at
 * least energy_window_min_ms(ENERGY_NVML_TICK_MS, ENERGY_MAX_ERROR),
 * 2 s, the row going on with the same GEMM, untimed, until then, and
 * those calls count. RAPL's counters are updated about every
 * millisecond (Intel SDM vol. 3B, 15.10.1); a CPU window under
 * ENERGY_CPU_MIN_MS is reported as unknown. */
#define ENERGY_NVML_TICK_MS 100.0
#define ENERGY_MAX_ERROR 0.05
#define ENERGY_GPU_MIN_MS 2000.0 /* energy_window_min_ms(100 ms, 5 %) */
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

/* The worst relative error of a window of window_ms differenced from
 * two readings of a counter that advances every tick_ms, neither
 * aligned to an update: tick_ms / window_ms (each reading is up to one
 * tick stale; at constant power the two staleness errors cancel only
 * when equal). 0.2 for 100 ms over 500 ms. Pure. */
double energy_window_max_error(double window_ms, double tick_ms);

/* The shortest window whose energy_window_max_error is at most
 * max_error: tick_ms / max_error (2000 ms for 100 ms and 0.05). NaN for
 * a max_error <= 0. Pure. */
double energy_window_min_ms(double tick_ms, double max_error);

/* Counter updates ("ticks") seen by polling a counter: a window between
 * the first and the last reading at which the value had changed since
 * the reading before, so that both ends fall on an update (to within a
 * poll's spacing) instead of up to a tick after one. */
struct energy_ticks {
	int readings;      /* readings added */
	int edges;         /* readings at which the value had changed */
	uint64_t prev;     /* the last reading's value */
	uint64_t first, last;       /* the value at the first and last edge */
	uint64_t first_ns, last_ns; /* and when they were read */
};

/* Adds a reading (value v, taken at ns, CLOCK_MONOTONIC) to *t, which
 * starts zeroed. A value below the previous one (a counter reset) makes
 * the window restart at this reading. Pure. */
void energy_ticks_add(struct energy_ticks *t, uint64_t ns, uint64_t v);

/* 1 when *t spans at least min_ms between two edges, else 0. Pure. */
int energy_ticks_enough(const struct energy_ticks *t, double min_ms);

/* The counter's advance between the first and last edge (counter
 * units) and the time between them (ms). 0 and 0 with fewer than two
 * edges. Pure. */
uint64_t energy_ticks_delta(const struct energy_ticks *t);
double energy_ticks_ms(const struct energy_ticks *t);

/* A window in progress. */
struct energy_meter {
	int gpu;                  /* 1: NVML counter; 0: RAPL */
	char pci_bus_id[32];
	char root[256];           /* powercap root for the CPU */
	uint64_t start_mj;
	struct energy_ticks ticks; /* GPU: the NVML counter's updates */
	double calls_first, calls_last; /* calls done at the first and the
					 * last update (energy_meter_poll) */
	struct rapl_reading start_rapl;
	uint64_t start_ns;
	int ok;                   /* the start reading succeeded */
	char reason[192];
};

/* Starts a window on the GPU at pci_bus_id (NULL: unknown, giving a
 * reason) or on the CPU's packages under powercap_root (NULL:
 * /sys/class/powercap). A GPU window starts at a counter update: the
 * counter is polled (every 0.5 ms, for at most 3 ticks, 300 ms) until
 * it moves. Never fails: an unreadable counter makes the window's
 * joules unknown. */
void energy_meter_start_gpu(struct energy_meter *m, const char *pci_bus_id);
void energy_meter_start_cpu(struct energy_meter *m, const char *powercap_root);

/* Milliseconds since the window started. */
double energy_meter_elapsed_ms(const struct energy_meter *m);

/* GPU: reads the counter once more (call it after each synchronised
 * call or batch, with `calls`, the calls done since the start) and
 * returns 1 when the window may end: it spans ENERGY_GPU_MIN_MS between
 * two counter updates, or the counter cannot be read, or it has not
 * moved for 10 ticks (then the stop says why). The window's calls are
 * those done between its first and last update, so each end is placed
 * to within one synchronised call. CPU: 1 once ENERGY_CPU_MIN_MS has
 * passed. */
int energy_meter_poll(struct energy_meter *m, double calls);

/* Ends the window: fills *out with the joules (NaN with the reason when
 * a reading failed, the window was too short for the counter, or the
 * counter went backwards), the window's seconds and the calls it held:
 * `gemms` for the CPU (the counter is read again here), the calls
 * between the first and last update for a GPU (energy_meter_poll). */
void energy_meter_stop(struct energy_meter *m, double gemms,
		       struct energy_window *out);

#endif
