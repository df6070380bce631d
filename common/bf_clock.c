/* Clock helpers; see bf_clock.h. */
#include "bf_clock.h"

#include <stdio.h>
#include <time.h>

uint64_t bf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *bf_utc_iso8601(char *buf, uint64_t *unix_ms_out)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 32 - n, ".%03dZ", (int)(ts.tv_nsec / 1000000));
	if (unix_ms_out)
		*unix_ms_out = (uint64_t)ts.tv_sec * 1000u +
			       (uint64_t)ts.tv_nsec / 1000000u;
	return buf;
}
