/*
 * Allocation wrappers for small bookkeeping allocations: they abort with a
 * message on out-of-memory instead of returning NULL (tmux's xmalloc.c is
 * the model). Never use them for benchmark buffers, whose failure must be
 * reported as a result instead.
 */
#ifndef BF_XMALLOC_H
#define BF_XMALLOC_H

#include <stddef.h>

/* Called before aborting on out-of-memory (the controller restores the
 * terminal here). NULL by default. */
extern void (*bf_xmalloc_fatal_hook)(void);

/* The one out-of-memory path, which the functions below take when an
 * allocation fails: calls bf_xmalloc_fatal_hook, prints "out of memory:
 * <what>" on stderr, abort()s. For code that learns of a failed
 * bookkeeping allocation from elsewhere (a NULL from a library). Does not
 * return. */
_Noreturn void bf_xmalloc_fatal(const char *what);

/* Makes cJSON allocate through bf_xmalloc (and free with free(), so that
 * cJSON_free and free stay interchangeable): an out-of-memory inside cJSON
 * takes the fatal path above instead of returning NULL. Call once at the
 * start of main, before any thread starts and before any cJSON call
 * (cJSON_InitHooks sets globals). */
void bf_xmalloc_init_cjson(void);

void *bf_xmalloc(size_t size);                 /* caller frees */
void *bf_xcalloc(size_t nmemb, size_t size);   /* caller frees; zeroed */
void *bf_xrealloc(void *ptr, size_t size);     /* caller frees */
char *bf_xstrdup(const char *s);               /* caller frees; NULL -> NULL */
/* printf into a new string; caller frees. */
char *bf_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Frees a NULL-terminated array of strings and the strings; NULL-safe. */
void bf_xfree_strv(char **v);

#endif
