/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strlist: the one list of strings (case names, tree paths, the files a
 * build read). The list owns copies of what is added; items stay in the
 * order added until strlist_sort_unique().
 *
 *   struct strlist l = STRLIST_INIT;
 *   strlist_append(&l, "fs/exec.c");
 *   for (size_t i = 0; i < l.n; i++) ... l.items[i] ...
 *   strlist_release(&l);
 *
 * Out of memory aborts, as in xalloc.h.
 */
#ifndef GATE_STRLIST_H
#define GATE_STRLIST_H

#include <stdbool.h>
#include <stddef.h>

struct strlist {
	char **items;
	size_t n, alloc;
};

#define STRLIST_INIT { NULL, 0, 0 }

void strlist_append(struct strlist *list, const char *s);
/* Append @len bytes of @s as one item. */
void strlist_appendn(struct strlist *list, const char *s, size_t len);
/* Append @s unless the list already holds it (a linear search). */
void strlist_add_unique(struct strlist *list, const char *s);
bool strlist_has(const struct strlist *list, const char *s);
/* Append every item of @from. */
void strlist_extend(struct strlist *list, const struct strlist *from);
/* Append every non-empty line of @text. */
void strlist_split_lines(struct strlist *list, const char *text);
/* Sort (strcmp order) and drop duplicates. */
void strlist_sort_unique(struct strlist *list);
/* Free the items and the array; @list is empty again, ready for reuse. */
void strlist_release(struct strlist *list);

#endif
