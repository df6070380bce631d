/* Shell quoting of remote command words; see remote_quote.h. */
#include "remote/remote_quote.h"

#include <stdlib.h>
#include <string.h>

static int shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("_@%+:,./-", c) != NULL;
}

char *remote_quote(const char *s)
{
	const char *p;
	size_t n = 0, quotes = 0;
	int safe = 1;
	char *out, *o;

	if (!s)
		return NULL;
	for (p = s; *p; p++) {
		n++;
		if (*p == '\'')
			quotes++;
		if (!shell_safe((unsigned char)*p))
			safe = 0;
	}
	if (safe && n > 0)
		return strdup(s);
	/* 'it'\''s': each quote becomes four bytes, plus the outer pair. */
	out = malloc(n + 3 * quotes + 3);
	if (!out)
		return NULL;
	o = out;
	*o++ = '\'';
	for (p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}
