// SPDX-License-Identifier: GPL-2.0
/* series_parse(): which lines of a stable-queue series name usable patches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parse/series.h"

/*
 * Parse a copy of @len bytes in a buffer of exactly that size, with no
 * NUL after it, so an over-read shows up under valgrind.
 */
static int parse_bytes(const char *bytes, size_t len, struct series *series,
		       struct strbuf *err)
{
	char *copy = malloc(len ? len : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, bytes, len);
	r = series_parse(copy, len, "queue-6.1/series", series, err);
	free(copy);
	return r;
}

#define PARSE(s, series, err) parse_bytes(s, sizeof(s) - 1, series, err)

/* So that a failing "no error" check prints the error it got. */
static const char *or_null(const char *s)
{
	return s ? s : "(null)";
}

static void assert_entry(const struct series *series, size_t i, const char *name,
			 unsigned line, const char *error)
{
	assert_true(i < series->n_entries);
	assert_string_equal(series->entries[i].name, name);
	assert_int_equal(series->entries[i].line, line);
	assert_string_equal(or_null(series->entries[i].error), or_null(error));
}

static void test_comments_blanks_crlf(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	assert_int_equal(PARSE("# 6.1.78 queue\r\n"
			       "\r\n"
			       "exec-load_script-don-t-blindly-truncate-shebang-string.patch\r\n"
			       "   \t\r\n"
			       "  # indented comment\n"
			       "\tnet-fix-foo.patch   # needed by the next one\r\n"
			       "net-fix-bar.patch\t#tab comment\n"
			       "drm-amd-revert-something\n"
			       "a#b.patch\n"
			       "fs-hash#tag.patch#notacomment\n"
			       "last-without-newline.patch",
			       &series, &err), 0);
	assert_string_equal(err.buf, "");
	assert_int_equal(series.n_entries, 7);
	assert_entry(&series, 0, "exec-load_script-don-t-blindly-truncate-shebang-string.patch", 3, NULL);
	assert_entry(&series, 1, "net-fix-foo.patch", 6, NULL);
	assert_entry(&series, 2, "net-fix-bar.patch", 7, NULL);
	assert_entry(&series, 3, "drm-amd-revert-something", 8, NULL);
	assert_entry(&series, 4, "a#b.patch", 9, NULL);
	assert_entry(&series, 5, "fs-hash#tag.patch#notacomment", 10, NULL);
	assert_entry(&series, 6, "last-without-newline.patch", 11, NULL);
	series_release(&series);
	assert_null(series.entries);
	assert_int_equal(series.n_entries, 0);
}

static void test_last_line(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	assert_int_equal(PARSE("a.patch\nb.patch", &series, &err), 0);
	assert_int_equal(series.n_entries, 2);
	assert_entry(&series, 1, "b.patch", 2, NULL);
	series_release(&series);

	assert_int_equal(PARSE("a.patch\n\n\n", &series, &err), 0);
	assert_int_equal(series.n_entries, 1);
	assert_entry(&series, 0, "a.patch", 1, NULL);
	series_release(&series);
	assert_string_equal(err.buf, "");
}

static void test_empty(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	assert_int_equal(series_parse(NULL, 0, "queue-6.1/series", &series, &err), 0);
	assert_int_equal(series.n_entries, 0);
	series_release(&series);

	assert_int_equal(PARSE("", &series, &err), 0);
	assert_int_equal(series.n_entries, 0);
	series_release(&series);

	assert_int_equal(PARSE("# nothing queued yet\n\n  \r\n#a.patch\n", &series, &err), 0);
	assert_int_equal(series.n_entries, 0);
	series_release(&series);
	assert_string_equal(err.buf, "");

	series.entries = (struct series_entry *)&series;	/* garbage in */
	series.n_entries = 42;
	assert_int_equal(series_parse(NULL, 3, "queue-6.1/series", &series, &err), -EINVAL);
	assert_null(series.entries);
	assert_int_equal(series.n_entries, 0);
	assert_string_equal(err.buf, "queue-6.1/series: no series text to parse");
	strbuf_release(&err);
}

static void test_unsafe_names(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	assert_int_equal(PARSE("ok-1.patch\n"
			       "/etc/passwd\n"
			       "../x.patch\n"
			       "sub/../../y.patch\n"
			       "sub/..\n"
			       "two words.patch\n"
			       "..dots-are-fine..patch\n"
			       "./sub/fine.patch\n"
			       "ok-2.patch\n",
			       &series, &err), 0);
	assert_string_equal(err.buf, "");
	assert_int_equal(series.n_entries, 9);
	assert_entry(&series, 0, "ok-1.patch", 1, NULL);
	assert_entry(&series, 1, "/etc/passwd", 2,
		     "queue-6.1/series:2: \"/etc/passwd\" is an absolute path");
	assert_entry(&series, 2, "../x.patch", 3,
		     "queue-6.1/series:3: \"../x.patch\" leaves the queue directory");
	assert_entry(&series, 3, "sub/../../y.patch", 4,
		     "queue-6.1/series:4: \"sub/../../y.patch\" leaves the queue directory");
	assert_entry(&series, 4, "sub/..", 5,
		     "queue-6.1/series:5: \"sub/..\" leaves the queue directory");
	/* quilt reads the second word as an option to patch */
	assert_entry(&series, 5, "two", 6,
		     "queue-6.1/series:6: \"two\" has option \"words.patch\", which the gate "
		     "does not support (only -pN)");
	assert_entry(&series, 6, "..dots-are-fine..patch", 7, NULL);
	assert_entry(&series, 7, "./sub/fine.patch", 8, NULL);
	assert_entry(&series, 8, "ok-2.patch", 9, NULL);
	series_release(&series);
}

static void assert_strip(const struct series *series, size_t i, unsigned strip)
{
	assert_true(i < series->n_entries);
	if (series->entries[i].strip != strip)
		fail_msg("entry %zu (%s): expected strip level %u, got %u", i,
			 series->entries[i].name, strip, series->entries[i].strip);
}

static void test_quilt_options(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	assert_int_equal(PARSE("plain.patch\n"
			       "bugfix/x86/p0.patch -p0\n"
			       "p1.patch\t-p1   # as the default\n"
			       "p2.patch -p2\n"
			       "p12.patch -p12\r\n"
			       "reverse.patch -R\n"
			       "fuzzy.patch --fuzz=3\n"
			       "two-p.patch -p0 -p1\n"
			       "big-p.patch -p100\n"
			       "bare-p.patch -p\n"
			       "p1-and-r.patch -p1 -R # reverted\n",
			       &series, &err), 0);
	assert_string_equal(err.buf, "");
	assert_int_equal(series.n_entries, 11);
	assert_entry(&series, 0, "plain.patch", 1, NULL);
	assert_strip(&series, 0, 1);
	assert_entry(&series, 1, "bugfix/x86/p0.patch", 2, NULL);
	assert_strip(&series, 1, 0);
	assert_entry(&series, 2, "p1.patch", 3, NULL);
	assert_strip(&series, 2, 1);
	assert_entry(&series, 3, "p2.patch", 4, NULL);
	assert_strip(&series, 3, 2);
	assert_entry(&series, 4, "p12.patch", 5, NULL);
	assert_strip(&series, 4, 12);
	assert_entry(&series, 5, "reverse.patch", 6,
		     "queue-6.1/series:6: \"reverse.patch\" has option \"-R\", which the gate "
		     "does not support (only -pN)");
	assert_entry(&series, 6, "fuzzy.patch", 7,
		     "queue-6.1/series:7: \"fuzzy.patch\" has option \"--fuzz=3\", which the gate "
		     "does not support (only -pN)");
	assert_entry(&series, 7, "two-p.patch", 8,
		     "queue-6.1/series:8: \"two-p.patch\" has more than one -p option");
	assert_entry(&series, 8, "big-p.patch", 9,
		     "queue-6.1/series:9: \"big-p.patch\" has option \"-p100\", which the gate "
		     "does not support (only -pN)");
	assert_entry(&series, 9, "bare-p.patch", 10,
		     "queue-6.1/series:10: \"bare-p.patch\" has option \"-p\", which the gate "
		     "does not support (only -pN)");
	assert_entry(&series, 10, "p1-and-r.patch", 11,
		     "queue-6.1/series:11: \"p1-and-r.patch\" has option \"-R\", which the gate "
		     "does not support (only -pN)");
	series_release(&series);
}

static void test_duplicates(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	assert_int_equal(PARSE("# dup test\n"
			       "z.patch\n"
			       "a.patch\n"
			       "b.patch\n"
			       "../a.patch\n"
			       "../a.patch\n"
			       "c.patch\n"
			       "\n"
			       "a.patch   # again\n"
			       "a.patch\n",
			       &series, &err), 0);
	assert_int_equal(series.n_entries, 8);
	assert_entry(&series, 0, "z.patch", 2, NULL);
	assert_entry(&series, 1, "a.patch", 3, NULL);
	assert_entry(&series, 2, "b.patch", 4, NULL);
	/* an unusable name reports why, not that it is repeated */
	assert_entry(&series, 3, "../a.patch", 5,
		     "queue-6.1/series:5: \"../a.patch\" leaves the queue directory");
	assert_entry(&series, 4, "../a.patch", 6,
		     "queue-6.1/series:6: \"../a.patch\" leaves the queue directory");
	assert_entry(&series, 5, "c.patch", 7, NULL);
	assert_entry(&series, 6, "a.patch", 9,
		     "queue-6.1/series:9: \"a.patch\" is listed twice (first on line 3)");
	assert_entry(&series, 7, "a.patch", 10,
		     "queue-6.1/series:10: \"a.patch\" is listed twice (first on line 3)");
	series_release(&series);
}

static void test_origin_default(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;
	static const char text[] = "a.patch\n/abs.patch\n";

	(void)state;
	assert_int_equal(series_parse(text, sizeof(text) - 1, NULL, &series, &err), 0);
	assert_int_equal(series.n_entries, 2);
	assert_entry(&series, 1, "/abs.patch", 2, "series:2: \"/abs.patch\" is an absolute path");
	series_release(&series);
}

static void test_long_name(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT;
	struct series series;
	char name[300];

	(void)state;
	memset(name, 'x', sizeof(name));
	/* exactly SERIES_NAME_MAX is fine, one more is not */
	strbuf_add(&text, name, SERIES_NAME_MAX);
	strbuf_adds(&text, "\n");
	strbuf_add(&text, name, SERIES_NAME_MAX + 1);
	strbuf_adds(&text, "\n");
	assert_int_equal(parse_bytes(text.buf, text.len, &series, &err), 0);
	assert_int_equal(series.n_entries, 2);
	assert_string_equal(or_null(series.entries[0].error), "(null)");
	assert_int_equal(strlen(series.entries[1].name), SERIES_NAME_MAX + 1);
	/* the message shows the start of the name, not all 256 bytes */
	strbuf_adds(&want, "queue-6.1/series:2: \"");
	strbuf_add(&want, name, 80);
	strbuf_adds(&want, "\"... is 256 bytes long, more than 255");
	assert_string_equal(or_null(series.entries[1].error), want.buf);
	series_release(&series);
	strbuf_release(&text);
	strbuf_release(&want);
}

static void test_not_text(void **state)
{
	static const char text[] = "a.patch\n"
				   "\0\0\x01\x7f\n"
				   "# comment with a \0 in it\n"
				   "b\0c.patch   # trailing\r\n"
				   "d.patch\n";
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	assert_int_equal(parse_bytes(text, sizeof(text) - 1, &series, &err), 0);
	assert_int_equal(series.n_entries, 5);
	assert_entry(&series, 0, "a.patch", 1, NULL);
	assert_entry(&series, 1, "\\0\\0\x01\x7f", 2,
		     "queue-6.1/series:2: \"\\0\\0\\x01\\x7f\" contains a NUL byte (is this a text file?)");
	assert_entry(&series, 2, "# comment with a \\0 in it", 3,
		     "queue-6.1/series:3: \"# comment with a \\0 in it\" contains a NUL byte (is this a text file?)");
	assert_entry(&series, 3, "b\\0c.patch   # trailing", 4,
		     "queue-6.1/series:4: \"b\\0c.patch   # trailing\" contains a NUL byte (is this a text file?)");
	assert_entry(&series, 4, "d.patch", 5, NULL);
	series_release(&series);
}

static void test_quoting_in_messages(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	assert_int_equal(PARSE("/tmp/\"q\"\\\x1b[31m.patch\n", &series, &err), 0);
	assert_int_equal(series.n_entries, 1);
	assert_string_equal(or_null(series.entries[0].error),
			    "queue-6.1/series:1: \"/tmp/\\\"q\\\"\\\\\\x1b[31m.patch\" is an absolute path");
	series_release(&series);
}

static void append_entries(struct strbuf *sb, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(strbuf_addf(sb, "p-%05u.patch\n", i), 0);
}

static void test_entry_cap(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	struct series series;

	(void)state;
	strbuf_adds(&text, "# header\n");
	append_entries(&text, SERIES_MAX_ENTRIES);
	assert_int_equal(parse_bytes(text.buf, text.len, &series, &err), 0);
	assert_int_equal(series.n_entries, SERIES_MAX_ENTRIES);
	assert_entry(&series, SERIES_MAX_ENTRIES - 1, "p-09999.patch", SERIES_MAX_ENTRIES + 1, NULL);
	series_release(&series);
	assert_string_equal(err.buf, "");

	strbuf_adds(&text, "one-too-many.patch\n");
	assert_int_equal(parse_bytes(text.buf, text.len, &series, &err), -E2BIG);
	assert_null(series.entries);
	assert_int_equal(series.n_entries, 0);
	assert_string_equal(err.buf, "queue-6.1/series:10002: more than 10000 entries in one series");
	series_release(&series);	/* harmless on the emptied series */
	strbuf_release(&text);
	strbuf_release(&err);
}

static void test_byte_cap(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;
	char *text = malloc(SERIES_MAX_BYTES + 1);

	(void)state;
	assert_non_null(text);
	/* 4 MiB of comment lines and one name is fine ... */
	memset(text, '#', SERIES_MAX_BYTES + 1);
	for (size_t i = 63; i < SERIES_MAX_BYTES; i += 64)
		text[i] = '\n';
	memcpy(text, "a.patch\n", 8);
	assert_int_equal(series_parse(text, SERIES_MAX_BYTES, "queue-6.1/series", &series, &err), 0);
	assert_int_equal(series.n_entries, 1);
	series_release(&series);
	assert_string_equal(err.buf, "");

	/* ... one byte more is not */
	assert_int_equal(series_parse(text, SERIES_MAX_BYTES + 1, "queue-6.1/series", &series, &err),
			 -E2BIG);
	assert_int_equal(series.n_entries, 0);
	assert_string_equal(err.buf,
			    "queue-6.1/series: 4194305 bytes, more than the 4194304-byte limit for a series file");
	strbuf_release(&err);
	free(text);
}

/* Every prefix of a real-looking series parses; nothing is read past it. */
static void test_every_prefix(void **state)
{
	static const char text[] = "# 6.1\r\nexec-fix.patch\r\n../bad.patch # no\r\n"
				   "exec-fix.patch\r\nnet\0x.patch\r\n  last.patch  ";
	struct strbuf err = STRBUF_INIT;
	struct series series;

	(void)state;
	for (size_t len = 0; len <= sizeof(text) - 1; len++) {
		assert_int_equal(parse_bytes(text, len, &series, &err), 0);
		assert_true(series.n_entries <= 5);
		for (size_t i = 0; i < series.n_entries; i++)
			assert_non_null(series.entries[i].name);
		series_release(&series);
	}
	assert_string_equal(err.buf, "");
}

/* Random bytes: never a crash, every entry has a line in range. */
static void test_random_bytes(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct series series;
	static const char alphabet[] = "ab./#\n\r\t \0\x80\xff";
	char text[512];
	unsigned seed = 1;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(rand_r(&seed) % sizeof(text));

		for (size_t i = 0; i < len; i++)
			text[i] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
		assert_int_equal(parse_bytes(text, len, &series, &err), 0);
		for (size_t i = 0; i < series.n_entries; i++) {
			assert_true(series.entries[i].line >= 1);
			assert_true(series.entries[i].line <= len);
		}
		series_release(&series);
	}
	assert_string_equal(err.buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comments_blanks_crlf),
		cmocka_unit_test(test_last_line),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_unsafe_names),
		cmocka_unit_test(test_quilt_options),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_origin_default),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_not_text),
		cmocka_unit_test(test_quoting_in_messages),
		cmocka_unit_test(test_entry_cap),
		cmocka_unit_test(test_byte_cap),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_random_bytes),
	};

	return cmocka_run_group_tests_name("series", tests, NULL, NULL);
}
