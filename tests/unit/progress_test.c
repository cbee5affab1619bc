// SPDX-License-Identifier: GPL-2.0
/*
 * progress: the line of a phase (count, total, time left, the final line
 * with the time taken); a log gets at most one line an interval plus the
 * final one, a terminal one line rewritten in place; a sink gets what a
 * log gets; the stats file keeps one line a phase; counting a growing
 * file's lines waits for a partial line's end. The clock is the test's.
 */
#define _GNU_SOURCE
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

#include "basic/progress.h"

static long fake_now;

static long fake_clock(void)
{
	return fake_now;
}

/* A reporter writing into a memory buffer, on the fake clock at 0. */
struct capture {
	struct progress p;
	char *text;
	size_t len;
	FILE *out;
	char sunk[16][128];
	int nsunk;
};

static void sink(void *arg, const char *line)
{
	struct capture *c = arg;

	if (c->nsunk < 16)
		snprintf(c->sunk[c->nsunk++], sizeof(c->sunk[0]), "%s", line);
}

static void capture_init(struct capture *c, bool tty)
{
	memset(c, 0, sizeof(*c));
	c->out = open_memstream(&c->text, &c->len);
	assert_non_null(c->out);
	progress_init(&c->p, c->out, tty);
	c->p.now_ms = fake_clock;
	fake_now = 0;
}

static const char *capture_text(struct capture *c)
{
	fflush(c->out);
	return c->text;
}

static void capture_release(struct capture *c)
{
	fclose(c->out);
	free(c->text);
}

static void expect_line(const struct progress *p, long now, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	progress_format(p, now, &sb);
	if (strcmp(sb.buf, want) != 0)
		fail_msg("at %ld ms: expected \"%s\", got \"%s\"", now, want, sb.buf);
	strbuf_release(&sb);
}

static void test_format(void **state)
{
	struct capture c;

	(void)state;
	capture_init(&c, false);
	progress_begin(&c.p, "build", "objects", 1000, 0);
	expect_line(&c.p, 0, "build 0/1000 objects");
	c.p.done = 250;
	/* 250 in 30 s: 750 more take 90 s */
	expect_line(&c.p, 30000, "build 250/1000 objects, ~2 min left");
	c.p.done = 900;
	/* 900 in 90 s: 100 more take 10 s */
	expect_line(&c.p, 90000, "build 900/1000 objects, ~10 s left");
	c.p.done = 1000;
	expect_line(&c.p, 95000, "build 1000/1000 objects");
	c.p.done = 1200;	/* more than last time: no estimate, the count as it is */
	expect_line(&c.p, 96000, "build 1200/1000 objects");

	/* nothing done yet: the expected duration less the time spent */
	progress_begin(&c.p, "build", "objects", 1000, 150000);
	expect_line(&c.p, 30000, "build 0/1000 objects, ~2 min left");

	/* no total: the count and the time so far */
	progress_begin(&c.p, "extract", "files", 0, 0);
	c.p.done = 31200;
	expect_line(&c.p, 4000, "extract 31200 files, 4 s so far");
	expect_line(&c.p, 151000, "extract 31200 files, 2 min 31 s so far");

	/* the final line */
	fake_now = 151000;
	progress_end(&c.p);
	expect_line(&c.p, 151000, "extract 31200 files in 2 min 31 s");
	capture_release(&c);
}

static void test_log_rate_limited(void **state)
{
	struct capture c;
	/* at 5 s, 416 done: 584 more take 7 s, said as ~10 s (5 s steps, rounded up) */
	const char *want = "# build 416/1000 objects, ~10 s left\n"
			   "# build 833/1000 objects, ~5 s left\n"
			   "# build 1000 objects in 12 s\n";

	(void)state;
	capture_init(&c, false);
	progress_begin(&c.p, "build", "objects", 1000, 0);
	/* an update every 100 ms for 12 s, 1000 in all: a line at 5 s, at 10 s, the final one */
	for (int i = 1; i <= 120; i++) {
		fake_now = i * 100L;
		progress_update(&c.p, (unsigned long)fake_now / 12);
	}
	progress_end(&c.p);
	assert_string_equal(capture_text(&c), want);
	capture_release(&c);
}

static void test_short_phase_prints_final_line_only(void **state)
{
	struct capture c;

	(void)state;
	capture_init(&c, false);
	progress_begin(&c.p, "import", "files", 80, 0);
	for (unsigned long i = 1; i <= 80; i++) {
		fake_now = (long)i * 10;
		progress_update(&c.p, i);
	}
	progress_end(&c.p);
	assert_string_equal(capture_text(&c), "# import 80 files in 1 s\n");
	capture_release(&c);
}

static void test_tty_rewrites_one_line(void **state)
{
	struct capture c;

	(void)state;
	capture_init(&c, true);
	progress_begin(&c.p, "import", "files", 4, 0);
	fake_now = 1000;
	progress_update(&c.p, 1);
	fake_now = 1100;	/* within 200 ms of the last: not drawn */
	progress_update(&c.p, 2);
	fake_now = 1300;
	progress_update(&c.p, 3);
	fake_now = 2000;
	progress_update(&c.p, 4);
	progress_end(&c.p);
	assert_string_equal(capture_text(&c),
			    "\r# import 1/4 files, ~5 s left\033[K"
			    "\r# import 3/4 files, ~5 s left\033[K"
			    "\r# import 4/4 files\033[K"
			    "\r# import 4 files in 2 s\033[K\n");
	capture_release(&c);
}

static void test_sink_gets_log_lines(void **state)
{
	struct capture c;

	(void)state;
	capture_init(&c, true);
	c.p.sink = sink;
	c.p.sink_arg = &c;
	progress_begin(&c.p, "extract", "files", 100, 0);
	for (int i = 1; i <= 12; i++) {
		fake_now = i * 1000L;
		progress_update(&c.p, (unsigned long)i * 8);
	}
	progress_end(&c.p);
	assert_int_equal(c.nsunk, 3);
	assert_string_equal(c.sunk[0], "extract 40/100 files, ~10 s left");
	assert_string_equal(c.sunk[1], "extract 80/100 files, ~5 s left");
	assert_string_equal(c.sunk[2], "extract 96 files in 12 s");
	capture_release(&c);
}

static void test_silent_without_out(void **state)
{
	struct progress p;

	(void)state;
	progress_init(&p, NULL, false);
	p.now_ms = fake_clock;
	fake_now = 0;
	progress_begin(&p, "build", "objects", 0, 0);
	fake_now = 60000;
	progress_update(&p, 5);
	progress_end(&p);
	/* an update outside a phase changes nothing */
	progress_update(&p, 9);
	assert_int_equal(p.done, 5);
}

static void test_stats_file(void **state)
{
	char dir[] = "/tmp/progress_test.XXXXXX", *path;
	unsigned long count = 0;
	long ms = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_true(asprintf(&path, "%s/stats", dir) > 0);
	assert_int_equal(progress_stats_load(path, "build", &count, &ms), -ENOENT);
	assert_int_equal(progress_stats_save(path, "extract", 80012, 9000), 0);
	assert_int_equal(progress_stats_save(path, "build", 1290, 151000), 0);
	assert_int_equal(progress_stats_save(path, "build", 1301, 148000), 0);
	assert_int_equal(progress_stats_load(path, "build", &count, &ms), 0);
	assert_int_equal(count, 1301);
	assert_int_equal(ms, 148000);
	assert_int_equal(progress_stats_load(path, "extract", &count, &ms), 0);
	assert_int_equal(count, 80012);
	assert_int_equal(ms, 9000);
	assert_int_equal(progress_stats_load(path, "build-naive", &count, &ms), -ENOENT);
	unlink(path);
	rmdir(dir);
	free(path);
}

static bool is_object(const char *line, size_t len)
{
	return len > 2 && line[len - 2] == '.' && line[len - 1] == 'o';
}

static void test_file_lines(void **state)
{
	char dir[] = "/tmp/progress_test.XXXXXX", *path;
	struct file_lines f = { 0 };
	FILE *w;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_true(asprintf(&path, "%s/log", dir) > 0);
	/* not there yet */
	assert_int_equal(file_lines_count(&f, path, is_object), 0);
	w = fopen(path, "w");
	assert_non_null(w);
	fputs("  CC      a.o\n  AR      b.a\n  CC      c", w);
	fflush(w);
	assert_int_equal(file_lines_count(&f, path, is_object), 1);
	/* the partial line ends, and is counted once */
	fputs(".o\n  CC      d.o\n", w);
	fflush(w);
	assert_int_equal(file_lines_count(&f, path, is_object), 2);
	assert_int_equal(file_lines_count(&f, path, is_object), 0);
	fclose(w);
	file_lines_release(&f);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_log_rate_limited),
		cmocka_unit_test(test_short_phase_prints_final_line_only),
		cmocka_unit_test(test_tty_rewrites_one_line),
		cmocka_unit_test(test_sink_gets_log_lines),
		cmocka_unit_test(test_silent_without_out),
		cmocka_unit_test(test_stats_file),
		cmocka_unit_test(test_file_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
