/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strbuf: the one growable string type. Always NUL-terminated; a buffer
 * can carry a hard cap (bytes, excluding the NUL) so nothing read from a
 * queue or the network grows without bound.
 *
 *   struct strbuf sb = STRBUF_INIT;
 *   strbuf_addf(&sb, "%s: %d", name, n);
 *   ... use sb.buf ...
 *   strbuf_release(&sb);
 */
#ifndef GATE_STRBUF_H
#define GATE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;	/* never NULL after init: "" until something is added */
	size_t len;
	size_t alloc;
	size_t cap;	/* 0: no cap; else appends past cap fail with -E2BIG */
};

extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0, 0 }

void strbuf_init(struct strbuf *sb, size_t cap);
void strbuf_release(struct strbuf *sb);
/* Hand the buffer to the caller (to free()); @sb is reset to empty. */
char *strbuf_detach(struct strbuf *sb, size_t *ret_len);
void strbuf_reset(struct strbuf *sb);

/* Appends return 0, or -E2BIG past the cap (nothing is appended then). */
int strbuf_add(struct strbuf *sb, const void *data, size_t len);
int strbuf_adds(struct strbuf *sb, const char *s);
int strbuf_addch(struct strbuf *sb, char c);
int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);

/* Read a whole file; -errno on failure, -E2BIG past the cap. */
int strbuf_read_file(struct strbuf *sb, const char *path);

/* Write @sb as the whole content of @path (created 0644 or truncated); -errno. */
int strbuf_write_file(const struct strbuf *sb, const char *path);

/* Drop trailing whitespace. */
void strbuf_rtrim(struct strbuf *sb);

#endif
