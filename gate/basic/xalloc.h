/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation helpers that abort on out-of-memory, as strbuf does: the gate
 * has nothing sensible to do without memory, and every caller is spared a
 * branch it could not test.
 */
#ifndef GATE_XALLOC_H
#define GATE_XALLOC_H

char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
