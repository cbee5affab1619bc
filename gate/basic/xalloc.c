// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"

char *xstrdup(const char *s)
{
	char *out = strdup(s);

	if (!out)
		abort();
	return out;
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
