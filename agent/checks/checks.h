/*
 * Tensor checks and float-limit checks. Each check compares a value the
 * agent computes on a device with an exact expected value (from the seed
 * facts, IEEE 754 and bfloat16), and emits one "check" record. Checks sit
 * in an explicit table with an applies() filter (nvbandwidth's test-case
 * table is the model), so the plan can count them before they run.
 */
#ifndef BF_CHECKS_H
#define BF_CHECKS_H

#include "backends/backend.h"
#include "core/options.h"
#include "core/report.h"

/* Number of tensor checks that apply to dev (for the plan record). */
int checks_count(const struct device *dev);

/* Runs every tensor check that applies to dev, one record each. */
void checks_run_device(struct report *r, const struct device *dev,
		       const struct agent_opts *o);

/* Number of float-limit checks (device-independent). */
int checks_limits_count(void);

/* Emits a float_limits record and a check record for fp32, fp16, bf16
 * (and a float_limits record for tf32). */
void checks_run_limits(struct report *r);

#endif
