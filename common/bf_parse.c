/* Strict number parsing; see bf_parse.h. */
#include "bf_parse.h"

#include <errno.h>
#include <stdlib.h>

int bf_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
