/* Monotonic clocks for timing host-side work. */
#ifndef BF_CLOCK_H
#define BF_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds; unaffected by wall-clock changes. */
uint64_t bf_now_ns(void);

/* Wall-clock UTC time as ISO 8601 "2026-11-30T14:38:10.123Z" into buf
 * (at least 32 bytes). Returns buf. */
char *bf_utc_iso8601(char *buf, uint64_t *unix_ms_out);

#endif
