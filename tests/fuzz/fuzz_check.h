/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_check: what every fuzz target uses to turn a broken contract into a
 * crash libFuzzer records. A sanitizer catches memory errors by itself; a
 * check catches a parser that returns something its header says it never
 * does. A failing check prints what it expected and what it got.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define fuzz_check(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,	\
				__LINE__, #cond);				\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			abort();						\
		}								\
	} while (0)

/* A heap copy of @len bytes at @data with a NUL after them. Aborts on OOM. */
static inline char *fuzz_dup(const void *data, size_t len)
{
	char *copy = malloc(len + 1);

	if (!copy)
		abort();
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	return copy;
}

/* True when @s holds no byte that would start a new line in a log. */
static inline bool fuzz_one_line(const char *s)
{
	return !strpbrk(s, "\n\r");
}

#endif
