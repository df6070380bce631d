/*
 * The verdict as text, first in ctl show's and ctl run's final output
 * (docs/verdict.md): one line per host and device, the device's worst
 * row deciding ("node3 cuda:5 SLOW: bf16 n=4096 410 TFLOP/s, 0.52 of
 * its 7 peers (median 789 TFLOP/s; below 0.90): ..."; "spark cuda:0 ok:
 * bf16 n=4096 87.2 TFLOP/s, 0.98-1.00 of published GB10 results ..."),
 * then one note per reason rows were skipped for ("cuda: no NVIDIA
 * driver on hb1, hb2, local"; a device class none of whose rows was
 * measured is named without its dtypes), then a summary line ("verdict:
 * 7 ok, 1 slow of 8 devices"). Text from hosts is already sanitised by
 * the archive readers.
 */
#ifndef BF_VERDICT_TEXT_H
#define BF_VERDICT_TEXT_H

#include <stdio.h>

#include "archive/archive_read.h"
#include "model/verdict_run.h"

/* Counts of devices per verdict (VERDICT_FAILED + 1 entries), and of
 * devices whose verdict is a confident slow (not uncertain). */
struct verdict_text_counts {
	int kind[VERDICT_FAILED + 1];
	int slow_confident;
	int devices;
};

/* Prints vr's lines for run to f; fills *c (may be NULL). */
void verdict_text_print(FILE *f, const struct archive_run *run,
			const struct verdict_run *vr,
			struct verdict_text_counts *c);

#endif
