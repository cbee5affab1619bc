// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "parse/lines.h"

bool line_next(struct line_reader *r, struct line *ret)
{
	const char *nl;

	if (r->pos >= r->end)
		return false;
	nl = memchr(r->pos, '\n', (size_t)(r->end - r->pos));
	ret->p = r->pos;
	ret->len = (size_t)((nl ? nl : r->end) - r->pos);
	if (ret->len && ret->p[ret->len - 1] == '\r')
		ret->len--;
	r->pos = nl ? nl + 1 : r->end;
	return true;
}

bool line_starts_with(struct line l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l.len >= n && !memcmp(l.p, prefix, n);
}

bool line_is_blank(struct line l)
{
	for (size_t i = 0; i < l.len; i++)
		if (!char_is_blank(l.p[i]))
			return false;
	return true;
}

bool char_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

char char_to_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool text_equal_ci(const char *a, const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (char_to_lower(a[i]) != char_to_lower(b[i]))
			return false;
	return true;
}
