/*
 * ctl check's results as files for other tools (docs/health-checks.md,
 * docs/kubernetes.md):
 *
 *  - the Prometheus text exposition format (prometheus.io/docs/
 *    instrumenting/exposition_formats; names after prometheus.io/docs/
 *    practices/naming: base units, _ratio, _seconds), for node_exporter's
 *    textfile collector;
 *  - a Node Feature Discovery local feature file (nfd-worker's local
 *    source, features.d/: one "name=value" per line; a name without a
 *    prefix becomes feature.node.kubernetes.io/<name>), whose names and
 *    values are Kubernetes label values: at most 63 characters of
 *    [A-Za-z0-9._-], beginning and ending alphanumeric.
 *
 * Writers to a stream the caller opened (cmd_check.c writes a temporary
 * file and renames it). They return 0, or -1 when a write failed (errno
 * set; the stream's error flag).
 */
#ifndef BF_CHECK_EXPORT_H
#define BF_CHECK_EXPORT_H

#include <stdio.h>

#include "archive/archive_read.h"
#include "model/check.h"
#include "model/verdict_run.h"

/*
 * Metrics of every judged GEMM row (labels host, device, dtype, n):
 * benchfleet_check_gemm_flops (FLOP/s, the median), _peer_ratio,
 * _reference_ratio (over the top of the range), _verdict (a state set:
 * one series per verdict, 1 for the row's); of every measured bandwidth
 * (labels host, device, kind): benchfleet_check_bandwidth_bytes_per_second;
 * per host: benchfleet_check_status (a state set of ok, slow, failed,
 * unknown) and benchfleet_check_timestamp_seconds (now, Unix time).
 * Label values are escaped as the format says (\\, \", \n).
 */
int check_export_prometheus(FILE *f, const struct archive_run *run,
			    const struct verdict_run *vr,
			    const struct check_result *res, int nres, double now);

/*
 * The feature file of host (an index into run->hosts): benchfleet-verdict
 * (the host's worst: ok, slow, failed, unknown), and per device class
 * ("cuda", "cpu") and dtype with a verdict: benchfleet-CLASS-DTYPE-verdict
 * (the worst of the class's devices) and benchfleet-CLASS-DTYPE-tflops
 * (the slowest device's median, TFLOP/s to 3 significant digits), and
 * benchfleet-run (the run id as a label value).
 */
int check_export_nfd(FILE *f, const struct archive_run *run,
		     const struct verdict_run *vr, const struct check_result *res,
		     int nres, int host);

/* s as a Kubernetes label value into buf (64 bytes): characters outside
 * [A-Za-z0-9._-] become '-', cut at 63, non-alphanumeric ends dropped;
 * "unknown" when nothing is left. Returns buf. */
char *check_label_value(char *buf, const char *s);

#endif
