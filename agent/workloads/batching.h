/*
 * The seed's batching case (mlp.h): on each device, the 20 rows scored one
 * at a time (20 calls) and as one (20, 30) batch (one call), fp32 on the
 * CPU (OpenBLAS sgemm) and fp16 on a GPU (cublasGemmEx): latency per call,
 * throughput in rows/s, the speed-up of batching, and the scores checked
 * against the exact ones. One "batching" record per device.
 */
#ifndef BF_BATCHING_H
#define BF_BATCHING_H

#include "workloads/gemm.h"

/* Records batching_run will emit: one per device. */
int batching_count(int ndevices);

/* The dtype a device runs the model in: fp32 on the CPU, fp16 on a GPU
 * (the seed's production setting). */
enum bf_dtype batching_dtype(enum device_kind kind);

/* Runs the case on every device and emits the records. */
void batching_run(struct report *r, const struct sweep_device *devs,
		  int ndevices, const struct agent_opts *o);

#endif
