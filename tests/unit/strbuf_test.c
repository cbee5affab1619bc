// SPDX-License-Identifier: GPL-2.0
/*
 * strbuf: the one string type. Appends grow it and keep it NUL-terminated;
 * a capped buffer refuses an append that would pass the cap with -E2BIG
 * and appends nothing of it (no silent truncation); reset, detach and
 * release leave it empty and usable; read_file appends a whole file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "basic/strbuf.h"

/* What every strbuf is, whatever happened to it: buf non-NULL and NUL at len. */
static void assert_sane(const struct strbuf *sb)
{
	assert_non_null(sb->buf);
	assert_int_equal(sb->buf[sb->len], '\0');
}

static void test_init_is_empty(void **state)
{
	struct strbuf a = STRBUF_INIT, b;

	(void)state;
	assert_sane(&a);
	assert_string_equal(a.buf, "");
	assert_int_equal(a.len, 0);
	strbuf_init(&b, 16);
	assert_sane(&b);
	assert_string_equal(b.buf, "");
	assert_int_equal(b.len, 0);
	/* never written to: release, reset and rtrim are harmless */
	strbuf_reset(&a);
	strbuf_rtrim(&a);
	strbuf_release(&a);
	strbuf_release(&b);
	assert_string_equal(a.buf, "");
	assert_string_equal(b.buf, "");
}

static void test_appends(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	static const char bytes[] = { 'x', '\0', 'y' };

	(void)state;
	assert_int_equal(strbuf_adds(&sb, "fs/exec.c"), 0);
	assert_int_equal(strbuf_addch(&sb, ':'), 0);
	assert_int_equal(strbuf_addf(&sb, "%d: %s", 1815, "hunk"), 0);
	assert_int_equal(strbuf_add(&sb, " 2", 2), 0);
	assert_string_equal(sb.buf, "fs/exec.c:1815: hunk 2");
	assert_int_equal(sb.len, strlen("fs/exec.c:1815: hunk 2"));
	assert_sane(&sb);

	/* empty appends change nothing and succeed */
	assert_int_equal(strbuf_adds(&sb, ""), 0);
	assert_int_equal(strbuf_add(&sb, "ignored", 0), 0);
	assert_int_equal(strbuf_addf(&sb, "%s", ""), 0);
	assert_string_equal(sb.buf, "fs/exec.c:1815: hunk 2");

	/* strbuf_add takes bytes, a NUL among them included */
	strbuf_reset(&sb);
	assert_int_equal(strbuf_add(&sb, bytes, sizeof(bytes)), 0);
	assert_int_equal(sb.len, 3);
	assert_memory_equal(sb.buf, bytes, sizeof(bytes));
	assert_sane(&sb);
	strbuf_release(&sb);
}

static void test_growth(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const size_t n = 100000;
	char *big = malloc(1 << 20);

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(strbuf_addch(&sb, (char)('a' + i % 26)), 0);
	assert_int_equal(sb.len, n);
	assert_true(sb.alloc > sb.len);
	for (size_t i = 0; i < n; i++)
		if (sb.buf[i] != (char)('a' + i % 26))
			fail_msg("byte %zu: expected '%c', got '%c'", i, (char)('a' + i % 26), sb.buf[i]);
	assert_sane(&sb);

	/* one large append, then a formatted one larger than any small guess */
	memset(big, 'z', 1 << 20);
	assert_int_equal(strbuf_add(&sb, big, 1 << 20), 0);
	assert_int_equal(sb.len, n + (1 << 20));
	assert_int_equal(sb.buf[n], 'z');
	assert_int_equal(sb.buf[sb.len - 1], 'z');
	assert_int_equal(strbuf_addf(&sb, "%5000s|", "end"), 0);
	assert_int_equal(sb.len, n + (1 << 20) + 5001);
	assert_string_equal(sb.buf + sb.len - 4, "end|");
	assert_sane(&sb);
	free(big);
	strbuf_release(&sb);
}

static void test_cap_at_and_past(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 8);
	/* up to the cap exactly: accepted */
	assert_int_equal(strbuf_adds(&sb, "1234"), 0);
	assert_int_equal(strbuf_addf(&sb, "%d", 5678), 0);
	assert_string_equal(sb.buf, "12345678");
	assert_int_equal(sb.len, 8);
	/* at the cap an empty append still succeeds */
	assert_int_equal(strbuf_add(&sb, "", 0), 0);
	/* one byte past it: refused by every append, and nothing is added */
	assert_int_equal(strbuf_addch(&sb, '9'), -E2BIG);
	assert_int_equal(strbuf_adds(&sb, "9"), -E2BIG);
	assert_int_equal(strbuf_add(&sb, "9", 1), -E2BIG);
	assert_int_equal(strbuf_addf(&sb, "%d", 9), -E2BIG);
	assert_string_equal(sb.buf, "12345678");
	assert_int_equal(sb.len, 8);
	assert_sane(&sb);
	strbuf_release(&sb);
}

/* An append that would straddle the cap is refused whole, not truncated to fit. */
static void test_cap_no_truncation(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, 8);
	assert_int_equal(strbuf_adds(&sb, "abc"), 0);
	assert_int_equal(strbuf_adds(&sb, "defghi"), -E2BIG);
	assert_string_equal(sb.buf, "abc");
	assert_int_equal(strbuf_addf(&sb, "%s-%d", "defg", 12), -E2BIG);
	assert_string_equal(sb.buf, "abc");
	assert_int_equal(sb.len, 3);
	/* what still fits does */
	assert_int_equal(strbuf_adds(&sb, "defgh"), 0);
	assert_string_equal(sb.buf, "abcdefgh");
	/* a length that would overflow size_t is past any cap, not a wrap */
	assert_int_equal(strbuf_add(&sb, "x", SIZE_MAX), -E2BIG);
	assert_string_equal(sb.buf, "abcdefgh");
	strbuf_release(&sb);

	/* the cap counts what the buffer holds, not what was ever added */
	strbuf_init(&sb, 4);
	assert_int_equal(strbuf_adds(&sb, "abcd"), 0);
	strbuf_reset(&sb);
	assert_int_equal(strbuf_adds(&sb, "efgh"), 0);
	assert_string_equal(sb.buf, "efgh");
	assert_int_equal(strbuf_addch(&sb, 'i'), -E2BIG);
	strbuf_release(&sb);
}

static void test_reset_and_release(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(strbuf_adds(&sb, "some text"), 0);
	strbuf_reset(&sb);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	assert_int_equal(strbuf_adds(&sb, "again"), 0);
	assert_string_equal(sb.buf, "again");

	strbuf_release(&sb);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	/* released: reusable, and releasing twice is harmless */
	assert_int_equal(strbuf_adds(&sb, "third"), 0);
	assert_string_equal(sb.buf, "third");
	strbuf_release(&sb);
	strbuf_release(&sb);
	assert_string_equal(sb.buf, "");
}

static void test_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = 99;
	char *s;

	(void)state;
	assert_int_equal(strbuf_addf(&sb, "run %d", 42), 0);
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "run 42");
	assert_int_equal(len, 6);
	/* the buffer is the caller's now: sb is empty and independent of it */
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	assert_int_equal(strbuf_adds(&sb, "next"), 0);
	assert_string_equal(s, "run 42");
	free(s);
	strbuf_release(&sb);

	/* an empty buffer detaches as a string the caller can free, too */
	s = strbuf_detach(&sb, &len);
	assert_non_null(s);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
	s = strbuf_detach(&sb, NULL);
	assert_string_equal(s, "");
	free(s);
}

static void test_rtrim(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "abc \t\r\n\n", "abc" },
		{ "a b  c", "a b  c" },
		{ "  lead", "  lead" },
		{ "line\r\n", "line" },
		{ " \t\n", "" },
		{ "", "" },
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		assert_int_equal(strbuf_adds(&sb, cases[i].in), 0);
		strbuf_rtrim(&sb);
		if (strcmp(sb.buf, cases[i].out) != 0)
			fail_msg("rtrim(\"%s\"): expected \"%s\", got \"%s\"", cases[i].in,
				 cases[i].out, sb.buf);
		assert_int_equal(sb.len, strlen(cases[i].out));
		assert_sane(&sb);
	}
	strbuf_release(&sb);
}

struct tmp {
	char dir[64];
	char path[96];
};

static void write_tmp(struct tmp *t, const void *data, size_t len)
{
	FILE *f;

	strcpy(t->dir, "/tmp/strbuf_test.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/file", t->dir);
	f = fopen(t->path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void remove_tmp(struct tmp *t)
{
	unlink(t->path);
	rmdir(t->dir);
}

static void test_read_file(void **state)
{
	static const char data[] = "line 1\n\0binary\xff\nlast";
	struct strbuf sb = STRBUF_INIT;
	struct tmp t;

	(void)state;
	write_tmp(&t, data, sizeof(data) - 1);
	/* appended to what the buffer holds, every byte of it */
	assert_int_equal(strbuf_adds(&sb, ">"), 0);
	assert_int_equal(strbuf_read_file(&sb, t.path), 0);
	assert_int_equal(sb.len, sizeof(data));
	assert_int_equal(sb.buf[0], '>');
	assert_memory_equal(sb.buf + 1, data, sizeof(data) - 1);
	assert_sane(&sb);

	/* a file that is not there: -ENOENT, the buffer as it was */
	assert_int_equal(strbuf_read_file(&sb, "/nonexistent/strbuf_test"), -ENOENT);
	assert_int_equal(sb.len, sizeof(data));
	/* a directory cannot be read as a file */
	assert_int_equal(strbuf_read_file(&sb, t.dir), -EISDIR);
	strbuf_release(&sb);
	remove_tmp(&t);
}

static void test_read_file_cap(void **state)
{
	const size_t size = 200000;	/* several reads' worth */
	char *data = malloc(size);
	struct strbuf sb;
	struct tmp t;
	int r;

	(void)state;
	assert_non_null(data);
	for (size_t i = 0; i < size; i++)
		data[i] = (char)('0' + i % 10);
	write_tmp(&t, data, size);

	/* exactly at the cap: read whole */
	strbuf_init(&sb, size);
	assert_int_equal(strbuf_read_file(&sb, t.path), 0);
	assert_int_equal(sb.len, size);
	assert_memory_equal(sb.buf, data, size);
	strbuf_release(&sb);

	/* past it: -E2BIG; what was kept is within the cap and a prefix of the file */
	strbuf_init(&sb, size - 1);
	r = strbuf_read_file(&sb, t.path);
	assert_int_equal(r, -E2BIG);
	assert_true(sb.len <= size - 1);
	assert_memory_equal(sb.buf, data, sb.len);
	assert_sane(&sb);
	strbuf_release(&sb);

	strbuf_init(&sb, 10);
	assert_int_equal(strbuf_read_file(&sb, t.path), -E2BIG);
	assert_true(sb.len <= 10);
	assert_sane(&sb);
	strbuf_release(&sb);
	free(data);
	remove_tmp(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_is_empty),
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_cap_at_and_past),
		cmocka_unit_test(test_cap_no_truncation),
		cmocka_unit_test(test_reset_and_release),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_rtrim),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_file_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
