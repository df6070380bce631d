/* Abort-on-OOM allocation for bookkeeping; see xmalloc.h. */
#include "xmalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

void (*bf_xmalloc_fatal_hook)(void);

_Noreturn void bf_xmalloc_fatal(const char *what)
{
	if (bf_xmalloc_fatal_hook)
		bf_xmalloc_fatal_hook();
	fprintf(stderr, "out of memory: %s\n", what ? what : "?");
	abort();
}

static _Noreturn void oom(size_t size)
{
	char what[64];

	snprintf(what, sizeof what, "allocating %zu bytes failed", size);
	bf_xmalloc_fatal(what);
}

void bf_xmalloc_init_cjson(void)
{
	cJSON_Hooks hooks = { .malloc_fn = bf_xmalloc, .free_fn = free };

	cJSON_InitHooks(&hooks);
}

void *bf_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *bf_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *bf_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

char *bf_xstrdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		oom(strlen(s) + 1);
	return p;
}

char *bf_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	return p;
}

void bf_xfree_strv(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}
