// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/strbuf.h"
#include "basic/xalloc.h"

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb, size_t cap)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
	sb->cap = cap;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, sb->cap);
}

char *strbuf_detach(struct strbuf *sb, size_t *ret_len)
{
	char *out = sb->alloc ? sb->buf : xstrdup("");

	if (ret_len)
		*ret_len = sb->len;
	strbuf_init(sb, sb->cap);
	return out;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->buf[0] = '\0';
}

static int grow(struct strbuf *sb, size_t extra)
{
	size_t want;
	char *p;

	if (sb->cap && (extra > sb->cap || sb->len > sb->cap - extra))
		return -E2BIG;
	want = sb->len + extra + 1;
	if (want <= sb->alloc)
		return 0;
	if (want < sb->alloc * 2)
		want = sb->alloc * 2;
	if (want < 64)
		want = 64;
	p = xrealloc(sb->alloc ? sb->buf : NULL, want);
	if (!sb->alloc)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = want;
	return 0;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	int r = grow(sb, len);

	if (r < 0)
		return r;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int strbuf_adds(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

int strbuf_addch(struct strbuf *sb, char c)
{
	return strbuf_add(sb, &c, 1);
}

int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list copy;
	int n, r;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return -EINVAL;
	r = grow(sb, (size_t)n);
	if (r < 0)
		return r;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		r = strbuf_add(sb, chunk, (size_t)n);
		if (r < 0)
			break;
	}
	close(fd);
	return r;
}

int strbuf_write_file(const struct strbuf *sb, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t done = 0;
	int r = 0;

	if (fd < 0)
		return -errno;
	while (done < sb->len) {
		ssize_t n = write(fd, sb->buf + done, sb->len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len > 0 && (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\t' ||
			       sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}
