/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation helpers that abort on out-of-memory, as strbuf does: the gate
 * has nothing sensible to do without memory, and every caller is spared a
 * branch it could not test. Each never returns NULL; a size of 0 gives a
 * valid pointer to free().
 */
#ifndef GATE_XALLOC_H
#define GATE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
/* realloc(); @p may be NULL. */
void *xrealloc(void *p, size_t size);
/* realloc() to @n elements of @size, aborting when n * size overflows. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
/* At most @len bytes of @s, NUL-terminated. */
char *xstrndup(const char *s, size_t len);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
