/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lines: reading untrusted text one line at a time, for the parsers.
 *
 *   struct line_reader r = { text, text + len };
 *   struct line l;
 *
 *   while (line_next(&r, &l))
 *           if (line_starts_with(l, "Subject:")) ...
 *
 * A line is a pointer and a length into the caller's bytes (not
 * NUL-terminated), without its "\n" and a "\r" before it; a last line
 * without "\n" still counts. Nothing is read past the end given. The
 * character tests are ASCII only: the locale must not change what a
 * header name or a blank is.
 */
#ifndef GATE_PARSE_LINES_H
#define GATE_PARSE_LINES_H

#include <stdbool.h>
#include <stddef.h>

struct line {
	const char *p;
	size_t len;
};

struct line_reader {
	const char *pos, *end;
};

/* The next line into @ret; false at the end of the text. */
bool line_next(struct line_reader *r, struct line *ret);
bool line_starts_with(struct line l, const char *prefix);
/* Empty, or only blanks. */
bool line_is_blank(struct line l);

/* Space, tab, '\r', '\v' or '\f'. */
bool char_is_blank(char c);
char char_to_lower(char c);
/* The first @len bytes of @a and @b are equal, ASCII case ignored. */
bool text_equal_ci(const char *a, const char *b, size_t len);

#endif
