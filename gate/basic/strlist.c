// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "basic/strlist.h"
#include "basic/xalloc.h"

static void append_owned(struct strlist *list, char *s)
{
	if (list->n == list->alloc) {
		list->alloc = list->alloc ? list->alloc * 2 : 16;
		list->items = xreallocarray(list->items, list->alloc, sizeof(*list->items));
	}
	list->items[list->n++] = s;
}

void strlist_append(struct strlist *list, const char *s)
{
	append_owned(list, xstrdup(s));
}

void strlist_appendn(struct strlist *list, const char *s, size_t len)
{
	append_owned(list, xstrndup(s, len));
}

bool strlist_has(const struct strlist *list, const char *s)
{
	for (size_t i = 0; i < list->n; i++)
		if (strcmp(list->items[i], s) == 0)
			return true;
	return false;
}

void strlist_add_unique(struct strlist *list, const char *s)
{
	if (!strlist_has(list, s))
		strlist_append(list, s);
}

void strlist_extend(struct strlist *list, const struct strlist *from)
{
	size_t n = from->n;	/* @from may be @list */

	for (size_t i = 0; i < n; i++)
		strlist_append(list, from->items[i]);
}

void strlist_split_lines(struct strlist *list, const char *text)
{
	for (const char *p = text; *p;) {
		const char *end = strchrnul(p, '\n');

		if (end > p)
			strlist_appendn(list, p, (size_t)(end - p));
		p = *end ? end + 1 : end;
	}
}

static int item_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strlist_sort_unique(struct strlist *list)
{
	size_t w = 0;

	if (!list->n)
		return;
	qsort(list->items, list->n, sizeof(*list->items), item_cmp);
	for (size_t i = 0; i < list->n; i++) {
		if (w > 0 && strcmp(list->items[w - 1], list->items[i]) == 0) {
			free(list->items[i]);
			continue;
		}
		list->items[w++] = list->items[i];
	}
	list->n = w;
}

void strlist_release(struct strlist *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->items[i]);
	free(list->items);
	list->items = NULL;
	list->n = list->alloc = 0;
}
