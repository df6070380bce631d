/*
 * Memory bandwidth per device, measured before the GEMM sweep so that
 * every gemm record can be placed on the device's roofline
 * (roofline.h): the STREAM triad on the CPU, a device-to-device copy and
 * the four host <-> device copies on a GPU. One "bandwidth" record per
 * (device, kind) with every sample, the median and GB/s (1e9 bytes/s).
 */
#ifndef BF_BANDWIDTH_H
#define BF_BANDWIDTH_H

#include <stddef.h>

#include "workloads/gemm.h"

/* Timed and untimed passes of every measurement: fixed, not --iters (a
 * long GEMM sweep with --iters 400 need not stream gigabytes 400 times);
 * ten samples give a median as nvbandwidth's default does. */
#define BW_ITERS 10
#define BW_WARMUP 1

/* "triad", "d2d", "h2d_pageable", ...; static. */
const char *bandwidth_kind_name(enum bw_kind k);

/* The kinds a device of `kind` measures, in record order, into kinds
 * (BW__COUNT entries); returns how many. */
int bandwidth_kinds(enum device_kind kind, enum bw_kind *kinds);

/* Records bandwidth_run will emit for these devices (unusable ones give a
 * skipped record per kind). */
int bandwidth_count(const struct sweep_device *devs, int ndevices);

/* Bytes of each array (triad) or buffer (copies), before the fit check:
 * with bandwidth_mib > 0, that many MiB split over the kind's arrays (3
 * for the triad, 2 for a copy); else for the triad max(4 x llc_bytes,
 * 256 MiB / 3), so each array is four times the last-level cache (STREAM's
 * rule) and the three together at least 256 MiB, and for a GPU copy 256
 * MiB. A multiple of 64 bytes. Pure. */
size_t bandwidth_array_bytes(enum bw_kind kind, size_t llc_bytes,
			     int bandwidth_mib);

/* Measures every kind of every device and emits the records; a usable
 * device's roofline kind (triad, d2d) that passed sets its
 * bandwidth_kind and bandwidth_gbps for the sweep. */
void bandwidth_run(struct report *r, struct sweep_device *devs, int ndevices,
		   const struct agent_opts *o);

#endif
