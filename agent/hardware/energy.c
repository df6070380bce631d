/*
 * Energy counters for GEMM rows (see energy.h): NVML's for a GPU, RAPL's
 * powercap files for the CPU.
 */
#include "hardware/energy.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bf_clock.h"
#include "hardware/nvml.h"

#define DEFAULT_POWERCAP "/sys/class/powercap"

/* One unsigned decimal from a sysfs file; 0 on success, else errno. */
static int read_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	unsigned long long x;
	int e = 0;

	if (!f)
		return errno ? errno : EIO;
	if (fscanf(f, "%llu", &x) == 1)
		*v = x;
	else
		e = ferror(f) && errno ? errno : EINVAL;
	fclose(f);
	return e;
}

/* Whether name is a package domain, "intel-rapl:N" (no ":M" after). */
static int package_domain(const char *name, int *index)
{
	char *end;
	long n;

	if (strncmp(name, "intel-rapl:", 11) != 0)
		return 0;
	errno = 0;
	n = strtol(name + 11, &end, 10);
	if (end == name + 11 || *end != '\0' || errno || n < 0 ||
	    n >= ENERGY_RAPL_MAX)
		return 0;
	*index = (int)n;
	return 1;
}

int energy_rapl_read(const char *root, struct rapl_reading *out,
		     char *reason, size_t reason_len)
{
	int have[ENERGY_RAPL_MAX] = { 0 };
	struct dirent *de;
	DIR *d;

	memset(out, 0, sizeof(*out));
	if (!root)
		root = DEFAULT_POWERCAP;
	d = opendir(root);
	if (!d) {
		snprintf(reason, reason_len, "RAPL: %s: %s", root, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		int i;

		if (package_domain(de->d_name, &i))
			have[i] = 1;
	}
	closedir(d);
	/* In index order, so two readings pair domain for domain. */
	for (int i = 0; i < ENERGY_RAPL_MAX; i++) {
		char path[512];
		int e;

		if (!have[i])
			continue;
		snprintf(path, sizeof(path), "%s/intel-rapl:%d/energy_uj", root, i);
		if ((e = read_u64(path, &out->energy_uj[out->count])) != 0) {
			snprintf(reason, reason_len, "RAPL: %s: %s%s", path,
				 strerror(e),
				 e == EACCES ? " (root only since Linux 5.10, "
					       "CVE-2020-8694)" : "");
			return -1;
		}
		snprintf(path, sizeof(path),
			 "%s/intel-rapl:%d/max_energy_range_uj", root, i);
		if ((e = read_u64(path, &out->max_energy_range_uj[out->count])) != 0) {
			snprintf(reason, reason_len, "RAPL: %s: %s", path,
				 strerror(e));
			return -1;
		}
		out->count++;
	}
	if (out->count == 0) {
		snprintf(reason, reason_len,
			 "RAPL: no intel-rapl:N package domain under %s", root);
		return -1;
	}
	return 0;
}

double energy_rapl_joules(const struct rapl_reading *before,
			  const struct rapl_reading *after)
{
	double uj = 0;

	if (before->count != after->count || before->count == 0)
		return NAN;
	for (int i = 0; i < before->count; i++) {
		uint64_t a = before->energy_uj[i], b = after->energy_uj[i];
		uint64_t range = after->max_energy_range_uj[i];

		if (b >= a)
			uj += (double)(b - a);
		else if (range > a)
			uj += (double)(range - a) + (double)b; /* wrapped once */
		else
			return NAN;
	}
	return uj / 1e6;
}

double energy_window_max_error(double window_ms, double tick_ms)
{
	return tick_ms / window_ms;
}

double energy_window_min_ms(double tick_ms, double max_error)
{
	return max_error > 0 ? tick_ms / max_error : NAN;
}

void energy_ticks_add(struct energy_ticks *t, uint64_t ns, uint64_t v)
{
	if (t->readings++ == 0) {
		t->prev = v;
		return;
	}
	if (v < t->prev) { /* reset: start again from here */
		t->edges = 0;
		t->prev = v;
		return;
	}
	if (v != t->prev) {
		if (t->edges++ == 0) {
			t->first = v;
			t->first_ns = ns;
		}
		t->last = v;
		t->last_ns = ns;
	}
	t->prev = v;
}

int energy_ticks_enough(const struct energy_ticks *t, double min_ms)
{
	return t->edges >= 2 && energy_ticks_ms(t) >= min_ms;
}

uint64_t energy_ticks_delta(const struct energy_ticks *t)
{
	return t->edges >= 2 ? t->last - t->first : 0;
}

double energy_ticks_ms(const struct energy_ticks *t)
{
	return t->edges >= 2 ? (double)(t->last_ns - t->first_ns) / 1e6 : 0;
}

/* One reading of the GPU's counter into the meter's ticks; 0 or -1
 * (m->ok cleared, the reason in m->reason). */
static int gpu_poll(struct energy_meter *m)
{
	uint64_t mj = 0;

	if (!m->ok)
		return -1;
	if (nvml_energy_mj(m->pci_bus_id[0] ? m->pci_bus_id : NULL, &mj,
			   m->reason, sizeof(m->reason)) != 0) {
		m->ok = 0;
		return -1;
	}
	energy_ticks_add(&m->ticks, bf_now_ns(), mj);
	return 0;
}

void energy_meter_start_gpu(struct energy_meter *m, const char *pci_bus_id)
{
	const struct timespec half_ms = { 0, 500000 };
	uint64_t t0;

	memset(m, 0, sizeof(*m));
	m->gpu = 1;
	m->ok = 1;
	if (pci_bus_id)
		snprintf(m->pci_bus_id, sizeof(m->pci_bus_id), "%s", pci_bus_id);
	t0 = bf_now_ns();
	/* Until the counter moves: the window starts on an update. */
	while (gpu_poll(m) == 0 && m->ticks.edges == 0 &&
	       (double)(bf_now_ns() - t0) / 1e6 < 3 * ENERGY_NVML_TICK_MS)
		nanosleep(&half_ms, NULL);
	m->start_mj = m->ticks.prev;
	m->start_ns = bf_now_ns();
}

void energy_meter_start_cpu(struct energy_meter *m, const char *powercap_root)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->root, sizeof(m->root), "%s",
		 powercap_root ? powercap_root : DEFAULT_POWERCAP);
	m->ok = energy_rapl_read(m->root, &m->start_rapl, m->reason,
				 sizeof(m->reason)) == 0;
	m->start_ns = bf_now_ns();
}

double energy_meter_elapsed_ms(const struct energy_meter *m)
{
	return (double)(bf_now_ns() - m->start_ns) / 1e6;
}

int energy_meter_poll(struct energy_meter *m, double calls)
{
	int edges = m->ticks.edges;

	if (!m->gpu)
		return energy_meter_elapsed_ms(m) >= ENERGY_CPU_MIN_MS;
	if (gpu_poll(m) != 0)
		return 1;
	if (m->ticks.edges != edges) {
		if (m->ticks.edges == 1) /* the start was not on an update */
			m->calls_first = calls;
		m->calls_last = calls;
	}
	if (energy_ticks_enough(&m->ticks, ENERGY_GPU_MIN_MS))
		return 1;
	/* A counter that does not move is reported, not waited on. */
	return energy_meter_elapsed_ms(m) >=
	       ENERGY_GPU_MIN_MS + 10 * ENERGY_NVML_TICK_MS;
}

void energy_meter_stop(struct energy_meter *m, double gemms,
		       struct energy_window *out)
{
	double ms = energy_meter_elapsed_ms(m);
	double min_ms = m->gpu ? ENERGY_GPU_MIN_MS : ENERGY_CPU_MIN_MS;

	memset(out, 0, sizeof(*out));
	out->joules = NAN;
	out->seconds = ms / 1e3;
	out->gemms = gemms;
	if (m->gpu) {
		snprintf(out->source, sizeof(out->source),
			 "NVML nvmlDeviceGetTotalEnergyConsumption (board), "
			 "between counter updates");
		if (m->ok && m->ticks.edges >= 2) {
			ms = energy_ticks_ms(&m->ticks);
			out->seconds = ms / 1e3;
			out->joules = (double)energy_ticks_delta(&m->ticks) / 1e3;
			out->gemms = m->calls_last - m->calls_first;
		} else if (m->ok) {
			snprintf(m->reason, sizeof(m->reason),
				 "NVML energy counter moved %d times in "
				 "%.0f ms (needs 2 updates)",
				 m->ticks.edges, ms);
		}
	} else {
		struct rapl_reading end;

		snprintf(out->source, sizeof(out->source),
			 "RAPL package energy_uj (whole sockets)");
		if (m->ok && energy_rapl_read(m->root, &end, m->reason,
					      sizeof(m->reason)) == 0) {
			out->joules = energy_rapl_joules(&m->start_rapl, &end);
			if (isnan(out->joules))
				snprintf(m->reason, sizeof(m->reason),
					 "RAPL: domains changed or a counter "
					 "went backwards within the window");
			else if (end.count > 1)
				snprintf(out->source, sizeof(out->source),
					 "RAPL package energy_uj (%d sockets)",
					 end.count);
		}
	}
	if (!isnan(out->joules) && ms < min_ms) {
		out->joules = NAN;
		snprintf(m->reason, sizeof(m->reason),
			 "window of %.1f ms is under the %.0f ms the counter "
			 "needs", ms, min_ms);
	} else if (!m->gpu && out->joules == 0) {
		/* A package that ran GEMMs for min_ms or more used energy:
		 * a counter that never moved is not updated here (a VM's
		 * emulated RAPL), not 0 J. */
		out->joules = NAN;
		snprintf(m->reason, sizeof(m->reason),
			 "RAPL: package energy_uj did not advance in %.1f ms "
			 "(the counter is not updated here)", ms);
	}
	if (isnan(out->joules))
		snprintf(out->reason, sizeof(out->reason), "%s",
			 m->reason[0] ? m->reason : "energy counter unreadable");
}
