// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"

static void *check(void *p)
{
	if (!p)
		abort();	/* out of memory: nothing sensible to do here */
	return p;
}

void *xmalloc(size_t size)
{
	return check(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return check(realloc(p, size ? size : 1));
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		abort();
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	return check(strdup(s));
}

char *xstrndup(const char *s, size_t len)
{
	return check(strndup(s, len));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&out, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	return out;
}
