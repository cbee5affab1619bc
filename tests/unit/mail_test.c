// SPDX-License-Identifier: GPL-2.0
/* mail_parse(), mailbox_parse(): list mails and mboxes as git mailinfo reads them. */
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

#include "basic/strbuf.h"
#include "parse/mail.h"
#include "parse/patch.h"
#include "parse/patch_header.h"

/* So that a failing NULL check prints the string it got. */
static const char *or_null(const char *s)
{
	return s ? s : "(null)";
}

/*
 * The fixtures live in tests/data/mail of the source tree: found by
 * walking up from the test binary (build/tests/, build/asan/tests/ or
 * another BUILD), so the test does not depend on the directory it runs in.
 */
static void fixture_path(const char *name, char *ret, size_t size)
{
	char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	assert_true(n > 0);
	dir[n] = '\0';
	for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
		*slash = '\0';
		if (snprintf(ret, size, "%s/tests/data/mail/%s", dir, name) >= (int)size)
			continue;
		if (access(ret, R_OK) == 0)
			return;
	}
	fail_msg("fixture %s not found above the test binary", name);
}

static void load(const char *name, struct strbuf *sb)
{
	char path[PATH_MAX];

	fixture_path(name, path, sizeof(path));
	strbuf_reset(sb);
	assert_int_equal(strbuf_read_file(sb, path), 0);
}

/* Parse a copy in a buffer of exactly @len bytes: ASan sees any over-read. */
static int parse_exact(const char *bytes, size_t len, struct mail *m, struct strbuf *err)
{
	char *copy = malloc(len ? len : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, bytes, len);
	r = mail_parse(copy, len, m, err);
	free(copy);
	return r;
}

static void parse_fixture(const char *name, struct mail *m)
{
	struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
	int r;

	load(name, &raw);
	r = parse_exact(raw.buf, raw.len, m, &err);
	if (r != 0)
		fail_msg("%s: mail_parse returned %d: %s", name, r, err.buf);
	strbuf_release(&raw);
	strbuf_release(&err);
}

/* patch_parse() over the decoded text: each file and its hunk counts. */
static void check_patch(const struct mail *m, size_t n_files, const char *const *paths,
			const unsigned (*hunks)[4])
{
	struct strbuf err = STRBUF_INIT;
	struct patch p;
	int r = patch_parse(m->text, m->len, &p, &err);

	if (r != 0)
		fail_msg("patch_parse returned %d: %s", r, err.buf);
	assert_int_equal(p.n_files, n_files);
	for (size_t i = 0; i < n_files; i++) {
		const struct patch_hunk *h;

		assert_string_equal(or_null(p.files[i].new_path), paths[i]);
		assert_int_equal(p.files[i].n_hunks, 1);
		h = &p.files[i].hunks[0];
		assert_int_equal(h->old_start, hunks[i][0]);
		assert_int_equal(h->old_count, hunks[i][1]);
		assert_int_equal(h->new_start, hunks[i][2]);
		assert_int_equal(h->new_count, hunks[i][3]);
	}
	patch_release(&p);
	strbuf_release(&err);
}

static bool text_has(const struct mail *m, const char *needle)
{
	return memmem(m->text, m->len, needle, strlen(needle)) != NULL;
}

#define assert_text_has(m, needle) \
	do { \
		if (!text_has(m, needle)) \
			fail_msg("decoded text lacks \"%s\":\n%s", needle, (m)->text); \
	} while (0)
#define assert_text_lacks(m, needle) \
	do { \
		if (text_has(m, needle)) \
			fail_msg("decoded text has \"%s\":\n%s", needle, (m)->text); \
	} while (0)

/*
 * A raw list mail: transport headers first, a folded "Re: [PATCH v2 3/7]"
 * subject, "From:   Name <addr>", reply text and quoted lines (one quoting
 * a diff header) before the patch, a Mutt "-- " signature after it.
 */
static void test_raw_list_reply(void **state)
{
	static const char *const paths[] = { "fs/binfmt_script.c" };
	static const unsigned hunks[][4] = { { 58, 6, 58, 12 } };
	struct strbuf raw = STRBUF_INIT;
	struct mail m;

	(void)state;
	parse_fixture("raw-list-reply.eml", &m);
	assert_string_equal(or_null(m.subject),
			    "exec: load_script: don't blindly truncate shebang string");
	assert_string_equal(or_null(m.author), "Oleg Nesterov <oleg@redhat.com>");
	assert_string_equal(or_null(m.date), "Mon, 12 Nov 2018 17:09:31 +0100");
	assert_string_equal(or_null(m.message_id), "20181112160931.GA28463@redhat.com");
	assert_true(m.has_diff);
	assert_false(m.is_cover_letter);
	/* the decoded text opens with the clean headers, transport ones gone */
	assert_true(!strncmp(m.text, "From: Oleg Nesterov <oleg@redhat.com>\n", 38));
	assert_text_lacks(&m, "Received:");
	check_patch(&m, 1, paths, hunks);
	mail_release(&m);

	load("raw-list-reply.eml", &raw);
	assert_false(mail_is_mbox(raw.buf, raw.len));
	assert_true(mail_has_headers(raw.buf, raw.len));
	/* plain 8-bit text: the queue keeps its bytes as they are */
	assert_false(mail_needs_decoding(raw.buf, raw.len));
	strbuf_release(&raw);
}

/* quoted-printable: soft line breaks inside diff lines, "=20", a Q-encoded subject and From. */
static void test_quoted_printable(void **state)
{
	static const char *const paths[] = { "Documentation/admin-guide/binfmt-misc.rst" };
	static const unsigned hunks[][4] = { { 9, 7, 9, 7 } };
	struct strbuf raw = STRBUF_INIT;
	struct mail m;

	(void)state;
	parse_fixture("quoted-printable.eml", &m);
	assert_string_equal(or_null(m.subject),
			    "docs: binfmt-misc: replace \u2018aka\u2019 in the introduction");
	assert_string_equal(or_null(m.author), "Ilpo J\u00e4rvinen <ilpo.jarvinen@linux.intel.com>");
	assert_string_equal(or_null(m.date), "Tue, 3 Dec 2024 11:11:52 +0200");
	assert_string_equal(or_null(m.message_id),
			    "20241203091152.1934-1-ilpo.jarvinen@linux.intel.com");
	assert_text_has(&m, "Signed-off-by: Ilpo J\u00e4rvinen <ilpo.jarvinen@linux.intel.com>\n");
	assert_text_has(&m, "\n with which binary. Binfmt_misc recognises the binary-type by "
			"matching some bytes\n");
	assert_text_lacks(&m, "=20");
	check_patch(&m, 1, paths, hunks);
	mail_release(&m);

	load("quoted-printable.eml", &raw);
	assert_true(mail_needs_decoding(raw.buf, raw.len));
	strbuf_release(&raw);
}

/* base64 in ISO-8859-1: the message becomes UTF-8; a B-encoded Latin-1 From. */
static void test_base64_latin1(void **state)
{
	static const char *const paths[] = { "kernel/fork.c" };
	static const unsigned hunks[][4] = { { 10, 7, 10, 7 } };
	struct mail m;

	(void)state;
	parse_fixture("base64-latin1.eml", &m);
	assert_string_equal(or_null(m.subject),
			    "fork: do not point at entry.S in the header comment");
	assert_string_equal(or_null(m.author),
			    "Uwe Kleine-K\u00f6nig <u.kleine-koenig@pengutronix.de>");
	assert_string_equal(or_null(m.date), "Wed, 4 Dec 2024 08:29:57 +0100");
	assert_string_equal(or_null(m.message_id),
			    "20241204072957.2117-2-u.kleine-koenig@pengutronix.de");
	assert_text_has(&m, "Signed-off-by: Uwe Kleine-K\u00f6nig <u.kleine-koenig@pengutronix.de>");
	check_patch(&m, 1, paths, hunks);
	mail_release(&m);
}

/* multipart/mixed: the text part, then the text/x-patch part; the image is dropped. */
static void test_multipart_attachment(void **state)
{
	static const char *const paths[] = { "include/linux/binfmts.h" };
	static const unsigned hunks[][4] = { { 13, 7, 13, 8 } };
	struct mail m;

	(void)state;
	parse_fixture("multipart-attachment.eml", &m);
	assert_string_equal(or_null(m.subject), "binfmts: say what struct linux_binprm holds");
	/* git drops the quotes of a quoted display name */
	assert_string_equal(or_null(m.author), "Doe, Jane <jane.doe@gmail.com>");
	assert_string_equal(or_null(m.message_id),
			    "CAF7q1xN8p5mZ2j3w0aQe8uH1kP9vYt4rL6sD0cB2nM5fG7hJ3Q@mail.gmail.com");
	assert_text_has(&m, "Name the parts a binary format handler reads.\n");
	assert_text_has(&m, "Signed-off-by: Jane Doe <jane.doe@gmail.com>\n");
	assert_text_lacks(&m, "IHDR");
	assert_text_lacks(&m, "--000000000000a1b2c3061871b2f4");
	assert_text_lacks(&m, "Content-Type");
	check_patch(&m, 1, paths, hunks);
	mail_release(&m);
}

static void parse_box(const char *name, struct mailbox *box)
{
	struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
	int r;

	load(name, &raw);
	assert_true(mail_is_mbox(raw.buf, raw.len));
	r = mailbox_parse(raw.buf, raw.len, box, &err);
	if (r != 0)
		fail_msg("%s: mailbox_parse returned %d: %s", name, r, err.buf);
	/* each message's raw bytes start at its separator line */
	for (size_t i = 0; i < box->n; i++) {
		assert_true(box->mails[i].raw_offset + box->mails[i].raw_len <= raw.len);
		assert_memory_equal(raw.buf + box->mails[i].raw_offset, "From ", 5);
	}
	strbuf_release(&raw);
	strbuf_release(&err);
}

/* git format-patch --cover-letter --stdout: the cover is skipped, 3 patches in order. */
static void test_format_patch_mbox(void **state)
{
	static const char *const exec_path[] = { "fs/exec.c" };
	static const char *const e1000_path[] = { "drivers/net/ethernet/intel/e1000/e1000_main.c" };
	static const char *const fork_path[] = { "kernel/fork.c" };
	static const unsigned exec_hunk[][4] = { { 1809, 7, 1809, 7 } };
	static const unsigned e1000_hunk[][4] = { { 199, 7, 199, 7 } };
	static const unsigned fork_hunk[][4] = { { 10, 7, 10, 7 } };
	struct mailbox box;

	(void)state;
	parse_box("format-patch-series.mbox", &box);
	assert_int_equal(box.n, 3);
	assert_int_equal(box.n_cover_letters, 1);
	assert_string_equal(or_null(box.mails[0].subject),
			    "exec: fix the binfmt rewrite limit in a comment");
	assert_string_equal(or_null(box.mails[1].subject),
			    "e1000: reword the kernel-doc of e1000_get_hw_dev()");
	assert_string_equal(or_null(box.mails[2].subject),
			    "fork: do not point at entry.S in the header comment");
	assert_string_equal(or_null(box.mails[0].author), "Jane Doe <jane@example.org>");
	/* the in-body From: names the author */
	assert_string_equal(or_null(box.mails[1].author), "John Roe <john@example.org>");
	assert_string_equal(or_null(box.mails[2].date), "Mon, 2 Dec 2024 10:00:03 +0100");
	assert_null(box.mails[0].message_id);
	check_patch(&box.mails[0], 1, exec_path, exec_hunk);
	check_patch(&box.mails[1], 1, e1000_path, e1000_hunk);
	check_patch(&box.mails[2], 1, fork_path, fork_hunk);
	mailbox_release(&box);
}

/* b4 am: "From git@z" separators, Message-Id: and Link: trailers, a Q-encoded From. */
static void test_b4_mbox(void **state)
{
	static const char *const binfmts_path[] = { "include/linux/binfmts.h" };
	static const char *const docs_path[] = { "Documentation/admin-guide/binfmt-misc.rst" };
	static const unsigned binfmts_hunk[][4] = { { 13, 7, 13, 8 } };
	static const unsigned docs_hunk[][4] = { { 9, 7, 9, 7 } };
	struct mailbox box;

	(void)state;
	parse_box("b4-am.mbx", &box);
	assert_int_equal(box.n, 2);
	assert_int_equal(box.n_cover_letters, 0);
	assert_string_equal(or_null(box.mails[0].subject),
			    "binfmts: say what struct linux_binprm holds");
	assert_string_equal(or_null(box.mails[0].message_id),
			    "20241209-binprm-doc-v2-1-0b1c2d3e4f50@example.org");
	assert_string_equal(or_null(box.mails[1].author), "Ren\u00e9 Doe <rene@example.org>");
	assert_string_equal(or_null(box.mails[1].date), "Mon, 09 Dec 2024 12:00:02 +0100");
	assert_string_equal(or_null(box.mails[1].message_id),
			    "20241209-binprm-doc-v2-2-0b1c2d3e4f50@example.org");
	assert_text_has(&box.mails[1], "Link: https://lore.kernel.org/r/"
			"20241209-binprm-doc-v2-2-0b1c2d3e4f50@example.org\n");
	check_patch(&box.mails[0], 1, binfmts_path, binfmts_hunk);
	check_patch(&box.mails[1], 1, docs_path, docs_hunk);
	mailbox_release(&box);
}

/* public-inbox mboxrd: ">From " loses one '>', the "[PATCH 0/1]" cover is skipped. */
static void test_mboxrd(void **state)
{
	static const char *const exec_path[] = { "fs/exec.c" };
	static const unsigned exec_hunk[][4] = { { 1809, 7, 1809, 7 } };
	struct mailbox box;

	(void)state;
	parse_box("lore-thread.mboxrd", &box);
	assert_int_equal(box.n, 1);
	assert_int_equal(box.n_cover_letters, 1);
	assert_string_equal(or_null(box.mails[0].message_id), "20241210080000.1-1-jane@example.org");
	assert_text_has(&box.mails[0], "\nFrom the loop in exec_binprm()");
	assert_text_has(&box.mails[0], "\n>From here on");
	check_patch(&box.mails[0], 1, exec_path, exec_hunk);
	mailbox_release(&box);
}

static void expect_subject(const char *header, const char *want)
{
	struct strbuf text = STRBUF_INIT;
	struct mail m;

	strbuf_addf(&text, "Subject: %s\n\nbody\n", header);
	assert_int_equal(mail_parse(text.buf, text.len, &m, NULL), 0);
	assert_string_equal(or_null(m.subject), want);
	mail_release(&m);
	strbuf_release(&text);
}

/* git's cleanup_subject() */
static void test_subject_cleanup(void **state)
{
	(void)state;
	expect_subject("Re: [PATCH v2 3/7] mm: fix foo", "mm: fix foo");
	expect_subject("RE: re: [PATCH]  [media]\tfoo:  bar", "foo: bar");
	expect_subject("Re: Re: Revert \"x\"", "Revert \"x\"");
	expect_subject("[PATCH 6.1 012/345] net: sched: fix", "net: sched: fix");
	expect_subject("foo [not a prefix]", "foo [not a prefix]");
	expect_subject("[unclosed foo", "[unclosed foo");
	expect_subject("=?UTF-8?q?Re=3A_=5BPATCH=5D_caf=C3=A9?=", "caf\u00e9");
	expect_subject("[PATCH]", "(null)");
}

static void expect_author(const char *header, const char *want)
{
	struct strbuf text = STRBUF_INIT;
	struct mail m;

	strbuf_addf(&text, "From: %s\n\nbody\n", header);
	assert_int_equal(mail_parse(text.buf, text.len, &m, NULL), 0);
	assert_string_equal(or_null(m.author), want);
	mail_release(&m);
	strbuf_release(&text);
}

/* git's handle_from() and get_sane_name() */
static void test_author_normalized(void **state)
{
	(void)state;
	expect_author("  Jane    Q.   Doe   <jane@example.org>", "Jane Q. Doe <jane@example.org>");
	expect_author("\"Doe, Jane\" <jane@example.org>", "Doe, Jane <jane@example.org>");
	expect_author("\"J. \\\"JD\\\" Doe\" <jd@example.org>", "J. \"JD\" Doe <jd@example.org>");
	expect_author("jane@example.org (Jane Doe)", "Jane Doe <jane@example.org>");
	expect_author("<jane@example.org>", "jane@example.org <jane@example.org>");
	expect_author("Al <al@example.org>", "al@example.org <al@example.org>");
	expect_author("=?ISO-8859-1?Q?J=F6rg_R=F6del?= <joro@8bytes.org>",
		      "J\u00f6rg R\u00f6del <joro@8bytes.org>");
	expect_author("=?utf-8?b?5byg5LiJ?= <zhang@example.org>",
		      "\u5f20\u4e09 <zhang@example.org>");
	expect_author("Jane Doe", "Jane Doe");
}

/* Headers: any order, any case, folded; an in-body header wins; CRLF lines. */
static void test_headers(void **state)
{
	static const char text[] =
		"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\r\n"
		"X-Foo: bar\r\n"
		"received: from a\r\n"
		"\tby b\r\n"
		"MESSAGE-ID:\r\n"
		" <id@host>\r\n"
		"subject: [PATCH]\r\n"
		"   folded  \r\n"
		"\tsubject\r\n"
		"DATE: Mon,  2 Dec 2024\r\n"
		"  10:00:00 +0100\r\n"
		"from: Sender <s@example.org>\r\n"
		"\r\n"
		"\r\n"
		"From: Real Author <real@example.org>\r\n"
		"Subject: [PATCH 6.1] the real\r\n"
		" subject\r\n"
		"\r\n"
		"body\r\n";
	struct mail m;

	(void)state;
	assert_int_equal(mail_parse(text, sizeof(text) - 1, &m, NULL), 0);
	assert_string_equal(or_null(m.subject), "the real subject");
	assert_string_equal(or_null(m.author), "Real Author <real@example.org>");
	assert_string_equal(or_null(m.date), "Mon, 2 Dec 2024 10:00:00 +0100");
	assert_string_equal(or_null(m.message_id), "id@host");
	mail_release(&m);
}

/* windows-1252 "smart quotes" become UTF-8; the diff keeps its bytes. */
static void test_windows_1252(void **state)
{
	static const char text[] =
		"From: A Person <ap@example.org>\n"
		"Subject: [PATCH] x: quote it\n"
		"Content-Type: text/plain; charset=windows-1252\n"
		"\n"
		"Use \x93quotes\x94.\n"
		"---\n"
		"diff --git a/x b/x\n"
		"--- a/x\n"
		"+++ b/x\n"
		"@@ -1 +1 @@\n"
		"-caf\xe9\n"
		"+caf\xe9!\n";
	struct mail m;

	(void)state;
	assert_int_equal(mail_parse(text, sizeof(text) - 1, &m, NULL), 0);
	assert_text_has(&m, "Use \u201cquotes\u201d.\n");
	assert_text_has(&m, "\n-caf\xe9\n+caf\xe9!\n");
	assert_true(m.has_diff);
	mail_release(&m);
	assert_true(mail_needs_decoding(text, sizeof(text) - 1));
}

static void expect_error(const char *text, size_t len, int want, const char *message)
{
	struct strbuf err = STRBUF_INIT;
	struct mail m;

	assert_int_equal(mail_parse(text, len, &m, &err), want);
	if (!strstr(err.buf, message))
		fail_msg("expected an error with \"%s\", got \"%s\"", message, err.buf);
	assert_null(m.text);
	assert_null(m.subject);
	mail_release(&m);
	strbuf_release(&err);
}

static void test_errors(void **state)
{
	static const char unknown[] = "Subject: x\nContent-Type: text/plain; charset=x-no-such-42\n"
				      "\nbody\n";
	struct strbuf big = STRBUF_INIT;
	struct mailbox box;

	(void)state;
	expect_error(unknown, sizeof(unknown) - 1, -EINVAL,
		     "mail: cannot convert from charset 'x-no-such-42' to UTF-8");
	expect_error(NULL, 3, -EINVAL, "mail: no input");

	strbuf_adds(&big, "Subject: x\n");
	while (big.len <= PATCH_HEADER_MAX_BYTES)
		strbuf_adds(&big, "Received: from somewhere by somewhere else\n");
	strbuf_adds(&big, "\nbody\n");
	expect_error(big.buf, big.len, -E2BIG, "mail: header block is larger than 65536 bytes");

	strbuf_reset(&big);
	strbuf_adds(&big, "Subject: x\n\n");
	while (big.len <= PATCH_MAX_BYTES)
		strbuf_adds(&big, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n");
	expect_error(big.buf, big.len, -E2BIG, "mail: message is larger than 16777216 bytes");

	/* multipart nested past MAIL_MAX_DEPTH */
	strbuf_reset(&big);
	strbuf_adds(&big, "Subject: x\nContent-Type: multipart/mixed; boundary=b0\n\n");
	for (int i = 0; i <= MAIL_MAX_DEPTH; i++)
		strbuf_addf(&big, "--b%d\nContent-Type: multipart/mixed; boundary=b%d\n\n", i, i + 1);
	expect_error(big.buf, big.len, -E2BIG, "mail: multipart nested deeper than 8");

	/* an mbox names the message that failed */
	strbuf_reset(&big);
	strbuf_adds(&big, "From git@z Thu Jan  1 00:00:00 1970\nSubject: [PATCH 1/2] a\n\n"
		    "diff --git a/a b/a\n\n"
		    "From git@z Thu Jan  1 00:00:00 1970\nSubject: [PATCH 2/2] b\n"
		    "Content-Type: text/plain; charset=x-no-such-42\n\nb\n");
	assert_int_equal(mailbox_parse(big.buf, big.len, &box, NULL), -EINVAL);
	assert_int_equal(box.n, 0);
	{
		struct strbuf err = STRBUF_INIT;

		assert_int_equal(mailbox_parse(big.buf, big.len, &box, &err), -EINVAL);
		assert_string_equal(err.buf, "mail: message 2: cannot convert from charset "
				    "'x-no-such-42' to UTF-8");
		strbuf_release(&err);
	}
	strbuf_release(&big);
}

/* Not an mbox: one message, or a "From " line in a body that is no separator. */
static void test_not_mbox(void **state)
{
	static const char one[] = "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 "
				  "00:00:00 2001\nSubject: x\n\nFrom the start of it.\n"
				  "From now on, no date here\n";
	struct mailbox box;

	(void)state;
	assert_false(mail_is_mbox(one, sizeof(one) - 1));
	assert_int_equal(mailbox_parse(one, sizeof(one) - 1, &box, NULL), 0);
	assert_int_equal(box.n, 1);
	assert_string_equal(or_null(box.mails[0].subject), "x");
	mailbox_release(&box);
	assert_false(mail_has_headers("Fixes: 0123456789ab (\"x\")\n\nbody\n", 31));
	assert_false(mail_has_headers("From now on, frob() checks.\n\n--- a/x\n", 38));
}

/*
 * Every prefix of every fixture, in a buffer of exactly that size: no
 * crash, no over-read (ASan), and a result or an error message.
 */
static void test_every_prefix(void **state)
{
	static const char *const names[] = {
		"raw-list-reply.eml", "quoted-printable.eml", "base64-latin1.eml",
		"multipart-attachment.eml", "format-patch-series.mbox", "b4-am.mbx",
		"lore-thread.mboxrd",
	};
	struct strbuf raw = STRBUF_INIT;

	(void)state;
	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		load(names[f], &raw);
		for (size_t len = 0; len <= raw.len; len += 1 + len / 512) {
			char *copy = malloc(len ? len : 1);
			struct strbuf err = STRBUF_INIT;
			struct mailbox box;
			struct mail m;

			assert_non_null(copy);
			memcpy(copy, raw.buf, len);
			if (mail_parse(copy, len, &m, &err) == 0)
				assert_non_null(m.text);
			else
				assert_true(err.len > 0);
			mail_release(&m);
			mailbox_parse(copy, len, &box, NULL);
			mailbox_release(&box);
			mail_has_headers(copy, len);
			mail_needs_decoding(copy, len);
			mail_is_mbox(copy, len);
			strbuf_release(&err);
			free(copy);
		}
	}
	strbuf_release(&raw);
}

/* Random MIME-ish tokens: no crash, no over-read, no leak. */
static void test_random_tokens(void **state)
{
	static const char *const words[] = {
		"From ", "From: ", "Subject: ", "Content-Type: ", "multipart/mixed; boundary=",
		"\"b\"", "b", "--b", "--b--", "text/x-patch", "charset=", "iso-8859-1",
		"Content-Transfer-Encoding: ", "base64", "quoted-printable", "=?", "?=", "?q?",
		"?B?", "=3D", "=\n", "=", "_", "[PATCH]", "Re:", "<", ">", "@", "\"", "\\", "(",
		")", "\n", "\r\n", " ", "\t", "diff --git a/x b/x\n", "--- a/x\n+++ b/x\n",
		"@@ -1 +1 @@\n", "Mon Sep 17 00:00:00 2001", ">From ", "\0", "\xe9", "0/3]",
	};
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	unsigned seed = 11, parsed = 0;

	(void)state;
	for (int round = 0; round < 4000; round++) {
		int n = rand_r(&seed) % 80;
		struct mailbox box;
		struct mail m;

		strbuf_reset(&text);
		for (int i = 0; i < n; i++) {
			const char *w = words[rand_r(&seed) % (sizeof(words) / sizeof(words[0]))];

			strbuf_add(&text, w, *w ? strlen(w) : 1);
		}
		int r;

		r = parse_exact(text.buf, text.len, &m, &err);
		/* the contract: a message, or a negative errno with one line saying why */
		if (r > 0 || (r < 0 && (!err.len || strchr(err.buf, '\n'))))
			fail_msg("round %d: mail_parse returned %d with '%s'", round, r, err.buf);
		if (r == 0 && !m.text)
			fail_msg("round %d: mail_parse succeeded with no text", round);
		mail_release(&m);
		strbuf_reset(&err);
		r = mailbox_parse(text.buf, text.len, &box, &err);
		if (r > 0 || (r < 0 && !err.len))
			fail_msg("round %d: mailbox_parse returned %d with '%s'", round, r, err.buf);
		if (r == 0 && text.len && box.n + box.n_cover_letters == 0)
			fail_msg("round %d: mailbox_parse gave no message for %zu bytes", round,
				 text.len);
		mailbox_release(&box);
		strbuf_reset(&err);
		parsed += r == 0;
	}
	/* most random texts are still mails: the parser is not refusing everything */
	if (parsed < 2000)
		fail_msg("only %u of 4000 random texts parsed", parsed);
	strbuf_release(&err);
	strbuf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_list_reply),
		cmocka_unit_test(test_quoted_printable),
		cmocka_unit_test(test_base64_latin1),
		cmocka_unit_test(test_multipart_attachment),
		cmocka_unit_test(test_format_patch_mbox),
		cmocka_unit_test(test_b4_mbox),
		cmocka_unit_test(test_mboxrd),
		cmocka_unit_test(test_subject_cleanup),
		cmocka_unit_test(test_author_normalized),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_windows_1252),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_not_mbox),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_random_tokens),
	};

	return cmocka_run_group_tests_name("mail", tests, NULL, NULL);
}
