/*
 * remote_match: '*' and '?' patterns in linear passes (remote_match.h).
 */
#include "remote/remote_match.h"

#include <stddef.h>

int remote_match_pattern(const char *s, const char *p)
{
	const char *star = NULL; /* just after the last '*' seen */
	const char *from = NULL; /* where that '*''s run ends now */

	while (*s) {
		if (*p == '*') {
			star = ++p;
			from = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++from;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}
