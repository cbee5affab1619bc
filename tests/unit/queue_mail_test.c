// SPDX-License-Identifier: GPL-2.0
/*
 * queue_load() over tests/data/queues/mail: list mails as series entries
 * (a raw list mail, an mbox of three patches with a cover letter, a
 * quoted-printable mail) become patches named as the black-box test expects.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "basic/hash.h"
#include "basic/strbuf.h"
#include "source/queue.h"

static const char *or_null(const char *s)
{
	return s ? s : "(null)";
}

/* The queue in the source tree, found by walking up from the test binary. */
static void queue_path(char *ret, size_t size)
{
	char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	assert_true(n > 0);
	dir[n] = '\0';
	for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
		*slash = '\0';
		if (snprintf(ret, size, "%s/tests/data/queues/mail", dir) >= (int)size)
			continue;
		if (access(ret, R_OK) == 0)
			return;
	}
	fail_msg("tests/data/queues/mail not found above the test binary");
}

static void test_mail_queue(void **state)
{
	static const struct {
		const char *name, *subject, *author, *path;
	} want[] = {
		{ "binfmts-say-what-struct-linux_binprm-holds.eml",
		  "binfmts: say what struct linux_binprm holds", "Jane Doe <jane@example.org>",
		  "include/linux/binfmts.h" },
		{ "comment-fixes.mbox#1", "exec: fix the binfmt rewrite limit in a comment",
		  "Jane Doe <jane@example.org>", "fs/exec.c" },
		{ "comment-fixes.mbox#2", "e1000: reword the kernel-doc of e1000_get_hw_dev()",
		  "John Roe <john@example.org>", "drivers/net/ethernet/intel/e1000/e1000_main.c" },
		{ "comment-fixes.mbox#3", "fork: do not point at entry.S in the header comment",
		  "Jane Doe <jane@example.org>", "kernel/fork.c" },
		{ "docs-binfmt-misc-replace-aka.eml",
		  "docs: binfmt-misc: replace \u2018aka\u2019 in the introduction",
		  "Ilpo J\u00e4rvinen <ilpo.jarvinen@linux.intel.com>",
		  "Documentation/admin-guide/binfmt-misc.rst" },
	};
	struct queue_request req = { .default_series_dir = "queue-6.1", .cache = "/nonexistent" };
	struct strbuf err = STRBUF_INIT, raw = STRBUF_INIT, path = STRBUF_INIT;
	char source[PATH_MAX], hash[SHA256_HEX_LEN + 1];
	struct queue_snapshot snap;
	int r;

	(void)state;
	queue_path(source, sizeof(source));
	req.source = source;
	r = queue_load(&req, &snap, &err);
	if (r != 0)
		fail_msg("queue_load returned %d: %s", r, err.buf);
	assert_int_equal(snap.n, 5);
	for (size_t i = 0; i < 5; i++) {
		const struct queue_patch *p = &snap.patches[i];

		if (p->error)
			fail_msg("%s: %s", p->name, p->error);
		assert_string_equal(p->name, want[i].name);
		assert_string_equal(or_null(p->header.subject), want[i].subject);
		assert_string_equal(or_null(p->header.author), want[i].author);
		assert_int_equal(p->parsed.n_files, 1);
		assert_string_equal(or_null(p->parsed.files[0].new_path), want[i].path);
		assert_int_equal(p->parsed.files[0].n_hunks, 1);
	}
	/* the mbox's patches all come from series line 3 */
	assert_int_equal(snap.patches[0].series_line, 3);
	assert_int_equal(snap.patches[1].series_line, 4);
	assert_int_equal(snap.patches[3].series_line, 4);
	assert_int_equal(snap.patches[4].series_line, 5);
	assert_string_equal(or_null(snap.patches[0].header.message_id),
			    "20241202090000.4242-1-jane@example.org");
	assert_string_equal(or_null(snap.patches[0].header.date), "Mon, 2 Dec 2024 10:00:00 +0100");

	/* A decoded mail keeps the hash of its raw bytes. */
	strbuf_addf(&path, "%s/queue-6.1/docs-binfmt-misc-replace-aka.eml", source);
	assert_int_equal(strbuf_read_file(&raw, path.buf), 0);
	sha256_hex(raw.buf, raw.len, hash);
	assert_string_equal(snap.patches[4].hash, hash);
	assert_null(strstr(snap.patches[4].content, "=20"));

	/* An mbox patch: the hash of its message's raw bytes, from its "From " line. */
	strbuf_reset(&path);
	strbuf_reset(&raw);
	strbuf_addf(&path, "%s/queue-6.1/comment-fixes.mbox", source);
	assert_int_equal(strbuf_read_file(&raw, path.buf), 0);
	{
		const char *start = strstr(raw.buf, "From 9a3e5c7b1d2f");
		const char *end = strstr(raw.buf, "From c1d2e3f4a5b6");

		assert_non_null(start);
		assert_non_null(end);
		sha256_hex(start, (size_t)(end - start), hash);
		assert_string_equal(snap.patches[2].hash, hash);
	}
	queue_snapshot_release(&snap);
	strbuf_release(&err);
	strbuf_release(&raw);
	strbuf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mail_queue),
	};

	return cmocka_run_group_tests_name("queue_mail", tests, NULL, NULL);
}
