// SPDX-License-Identifier: GPL-2.0
/* patch_header_parse(): what a stable-queue patch says about its origin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "basic/strbuf.h"
#include "parse/patch_header.h"

/*
 * Parse a copy of @len bytes in a buffer of exactly that size, with no
 * NUL after it, so an over-read shows up under valgrind.
 */
static int parse_bytes(const char *bytes, size_t len, struct patch_header *header)
{
	char *copy = malloc(len ? len : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, bytes, len);
	r = patch_header_parse(copy, len, header);
	free(copy);
	return r;
}

static int parse(const char *text, struct patch_header *header)
{
	return parse_bytes(text, strlen(text), header);
}

/* So that a failing NULL check prints the string it got. */
static const char *or_null(const char *s)
{
	return s ? s : "(null)";
}

/* The example from the 4.14/4.19 stable queues, format-patch style. */
static const char shebang_patch[] =
	"From 183d4f096465e5f835c45b908b2ef905dc1f15f9 Mon Sep 17 00:00:00 2001\n"
	"From: Oleg Nesterov <oleg@redhat.com>\n"
	"Date: Thu, 3 Jan 2019 15:28:07 -0800\n"
	"Subject: [PATCH 1/2] exec: load_script: don't blindly truncate shebang\n"
	" string\n"
	"\n"
	"commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n"
	"\n"
	"load_script() simply truncates bprm->buf and this is very wrong if the\n"
	"length of shebang string exceeds BINPRM_BUF_SIZE-2.\n"
	"\n"
	"Link: http://lkml.kernel.org/r/20181112160910.GA28440@redhat.com\n"
	"Signed-off-by: Oleg Nesterov <oleg@redhat.com>\n"
	"Signed-off-by: Greg Kroah-Hartman <gregkh@linuxfoundation.org>\n"
	"---\n"
	" fs/binfmt_script.c | 6 ++++++\n"
	" 1 file changed, 6 insertions(+)\n"
	"\n"
	"diff --git a/fs/binfmt_script.c b/fs/binfmt_script.c\n"
	"index 7cde3f46ad26..e996174cbfc0 100644\n"
	"--- a/fs/binfmt_script.c\n"
	"+++ b/fs/binfmt_script.c\n"
	"@@ -42,9 +42,14 @@ static int load_script(struct linux_binprm *bprm)\n"
	"commit 0000000000000000000000000000000000000000 upstream.\n";

/* An AUTOSEL-style backport: in-body From:, "[ Upstream commit ]", deps. */
static const char autosel_patch[] =
	"From 2b1e3a5c7d9f0123456789abcdef0123456789ab Mon Sep 17 00:00:00 2001\n"
	"From: Sasha Levin <sashal@kernel.org>\n"
	"Date: Mon, 5 Feb 2024 10:11:12 -0500\n"
	"Subject: [PATCH 6.1 012/345] net: sched: fix use-after-free in\n"
	"\ttcf_block_put\n"
	"Message-ID: <20240205151112.1234-12-sashal@kernel.org>\n"
	"\n"
	"From: Jane Hacker <jane@example.org>\n"
	"\n"
	"[  Upstream   commit ABCDEF0123456789abcdef0123456789ABCDEF01 ]\n"
	"\n"
	"The block can be freed while a filter still points at it.\n"
	"\n"
	"Stable-dep-of: 0123456789abcdef0123 (\"foo: bar\")\n"
	"stable-dep-of:   FEDCBA987654 (\"baz: qux quux\")\n"
	"Signed-off-by: Jane Hacker <jane@example.org>\n"
	"Signed-off-by: Sasha Levin <sashal@kernel.org>\n"
	"---\n"
	" net/sched/cls_api.c | 2 +-\n"
	"Stable-dep-of: 111111111111 (\"after the separator: not a trailer\")\n"
	"diff --git a/net/sched/cls_api.c b/net/sched/cls_api.c\n";

static void test_format_patch(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse(shebang_patch, &h), 0);
	assert_string_equal(or_null(h.subject),
			    "exec: load_script: don't blindly truncate shebang string");
	assert_string_equal(or_null(h.author), "Oleg Nesterov <oleg@redhat.com>");
	assert_string_equal(h.upstream, "8099b047ecc431518b9bb6bdbba3549bbecdc343");
	assert_string_equal(h.cherry_picked, "");
	assert_int_equal(h.n_stable_deps, 0);
	assert_false(h.is_revert);
	assert_false(h.stable_only);
	patch_header_release(&h);
	assert_null(h.subject);
	assert_null(h.stable_deps);
}

static char *with_crlf(const char *text)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = text; *p; p++) {
		if (*p == '\n')
			strbuf_addch(&sb, '\r');
		strbuf_addch(&sb, *p);
	}
	return strbuf_detach(&sb, NULL);
}

static void test_crlf(void **state)
{
	char *text = with_crlf(shebang_patch);
	struct patch_header h;

	(void)state;
	assert_int_equal(parse(text, &h), 0);
	assert_string_equal(or_null(h.subject),
			    "exec: load_script: don't blindly truncate shebang string");
	assert_string_equal(or_null(h.author), "Oleg Nesterov <oleg@redhat.com>");
	assert_string_equal(h.upstream, "8099b047ecc431518b9bb6bdbba3549bbecdc343");
	patch_header_release(&h);
	free(text);
}

static void test_upstream_bracket_and_deps(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse(autosel_patch, &h), 0);
	assert_string_equal(or_null(h.subject), "net: sched: fix use-after-free in tcf_block_put");
	/* the in-body From: names the real author, as `git am` takes it */
	assert_string_equal(or_null(h.author), "Jane Hacker <jane@example.org>");
	assert_string_equal(h.upstream, "abcdef0123456789abcdef0123456789abcdef01");
	assert_int_equal(h.n_stable_deps, 2);
	assert_string_equal(h.stable_deps[0], "0123456789abcdef0123");
	assert_string_equal(h.stable_deps[1], "fedcba987654");
	assert_false(h.stable_only);
	patch_header_release(&h);
}

static void test_many_stable_deps(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct patch_header h;
	char want[PATCH_SHA_MAX + 1];

	(void)state;
	strbuf_adds(&text, "Subject: x\n\n[ Upstream commit 0123456789ab ]\n\n");
	for (unsigned i = 0; i < 17; i++)
		strbuf_addf(&text, "Stable-dep-of: %012x (\"dep %u\")\n", 0xabc000u + i, i);
	assert_int_equal(parse_bytes(text.buf, text.len, &h), 0);
	assert_int_equal(h.n_stable_deps, 17);
	for (unsigned i = 0; i < 17; i++) {
		snprintf(want, sizeof(want), "%012x", 0xabc000u + i);
		assert_string_equal(h.stable_deps[i], want);
	}
	patch_header_release(&h);
	strbuf_release(&text);
}

static void test_cherry_picked(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse("From: Ben Backporter <ben@example.org>\n"
			       "Subject: [PATCH 5.15] drm/i915: avoid a NULL deref\n"
			       "\n"
			       "Something was NULL.\n"
			       "\n"
			       "Signed-off-by: Ben Backporter <ben@example.org>\n"
			       "(cherry picked from commit 5DEAD5BEEF1234567890abcdef0123456789abcd)\n"
			       "(cherry picked from commit 111111111111)\n"
			       "diff --git a/x b/x\n", &h), 0);
	assert_string_equal(or_null(h.subject), "drm/i915: avoid a NULL deref");
	assert_string_equal(or_null(h.author), "Ben Backporter <ben@example.org>");
	assert_string_equal(h.upstream, "");
	assert_string_equal(h.cherry_picked, "5dead5beef1234567890abcdef0123456789abcd");
	assert_false(h.stable_only);
	patch_header_release(&h);
}

static void test_stable_only_revert(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse("From foo@baz Tue Feb 12 10:00:00 CET 2019\n"
			       "From: Greg Kroah-Hartman <gregkh@linuxfoundation.org>\n"
			       "Date: Tue, 12 Feb 2019 09:54:23 +0100\n"
			       "Subject: Revert \"exec: load_script: don't blindly truncate shebang string\"\n"
			       "\n"
			       "This reverts commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 which is\n"
			       "commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream, as it breaks\n"
			       "things on 4.19.\n"
			       "\n"
			       "Signed-off-by: Greg Kroah-Hartman <gregkh@linuxfoundation.org>\n"
			       "---\n"
			       " fs/binfmt_script.c | 6 ------\n", &h), 0);
	assert_string_equal(or_null(h.subject),
			    "Revert \"exec: load_script: don't blindly truncate shebang string\"");
	assert_string_equal(h.upstream, "");
	assert_string_equal(h.cherry_picked, "");
	assert_true(h.is_revert);
	assert_true(h.stable_only);
	patch_header_release(&h);
}

static void test_plain_diff(void **state)
{
	struct patch_header h;

	(void)state;
	/* a message, then the diff: the first line is the subject */
	assert_int_equal(parse("\n"
			       "  Fix the frobnicator when the widget is absent.  \n"
			       "\n"
			       "From now on, frob() checks for NULL.\n"
			       "Signed-off-by: A <a@example.org>\n"
			       "Index: linux/drivers/frob.c\n"
			       "===================================================================\n"
			       "--- linux.orig/drivers/frob.c\n", &h), 0);
	assert_string_equal(or_null(h.subject), "Fix the frobnicator when the widget is absent.");
	assert_string_equal(or_null(h.author), "(null)");
	assert_true(h.stable_only);
	assert_false(h.is_revert);
	patch_header_release(&h);

	/* "From now on" is not an mbox line when no header follows it */
	assert_int_equal(parse("From now on, frob() checks for NULL.\n\n--- a/x\n", &h), 0);
	assert_string_equal(or_null(h.subject), "From now on, frob() checks for NULL.");
	assert_string_equal(or_null(h.author), "(null)");
	patch_header_release(&h);

	/* no message at all */
	assert_int_equal(parse("diff --git a/x b/x\n--- a/x\n+++ b/x\n", &h), 0);
	assert_string_equal(or_null(h.subject), "(null)");
	assert_string_equal(or_null(h.author), "(null)");
	assert_string_equal(h.upstream, "");
	assert_true(h.stable_only);
	patch_header_release(&h);

	assert_int_equal(patch_header_parse(NULL, 0, &h), 0);
	assert_string_equal(or_null(h.subject), "(null)");
	assert_true(h.stable_only);
	patch_header_release(&h);

	assert_int_equal(patch_header_parse(NULL, 5, &h), -EINVAL);
	assert_int_equal(patch_header_parse("x", 1, NULL), -EINVAL);
}

static void test_subject_prefixes(void **state)
{
	static const struct {
		const char *text, *subject;
	} cases[] = {
		{ "Subject: [PATCH 6.1 012/345] foo: bar\n\n", "foo: bar" },
		{ "Subject: [PATCH] [media] foo: bar\n\n", "foo: bar" },
		{ "Subject:[PATCH v2 1/3]foo\n\n", "foo" },
		{ "Subject: foo [not a prefix]\n\n", "foo [not a prefix]" },
		{ "Subject: [unclosed foo\n\n", "[unclosed foo" },
		{ "subject:   spaced   \n\n", "spaced" },
		{ "Subject: [PATCH]\n\nfirst line\n", "first line" },
		{ "Subject: a\n  b\n\tc\n\n", "a b c" },
		{ "Subject: a\nSubject: second ignored\n\n", "a" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct patch_header h;

		assert_int_equal(parse(cases[i].text, &h), 0);
		assert_string_equal(or_null(h.subject), cases[i].subject);
		patch_header_release(&h);
	}
}

static void test_malformed_shas_ignored(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse("Subject: x\n"
			       "\n"
			       "commit 8099b047ecc431518b9bb6bdbba3549bbecdcXYZ upstream.\n"
			       "commit xyz upstream.\n"
			       "commit 8099b047ecc upstream.\n"
			       "commit 8099b047ecc431518b9bb6bdbba3549bbecdc3430 upstream.\n"
			       "commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream. and more\n"
			       "commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstreamed.\n"
			       "commit8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n"
			       "[ Upstream commit 8099b047ecc431518b9bb6bdbba3549bbecdc343\n"
			       "[ Upstream commit g099b047ecc431518b9bb6bdbba3549bbecdc343 ]\n"
			       "(cherry picked from commit 8099b047ecc4-31518b9bb)\n"
			       "Stable-dep-of: not-a-sha (\"x\")\n"
			       "Stable-dep-of: 0123456789abcdef0123xyz (\"x\")\n"
			       "Stable-dep-of: 0123456789a (\"eleven digits\")\n",
			       &h), 0);
	assert_string_equal(h.upstream, "");
	assert_string_equal(h.cherry_picked, "");
	assert_int_equal(h.n_stable_deps, 0);
	assert_true(h.stable_only);
	patch_header_release(&h);

	/* the accepted variants, for contrast */
	assert_int_equal(parse("Subject: x\n\n  Commit   8099B047ECC4   Upstream  \n", &h), 0);
	assert_string_equal(h.upstream, "8099b047ecc4");
	patch_header_release(&h);
	assert_int_equal(parse("Subject: x\n\n[Upstream commit 8099b047ecc4]\n", &h), 0);
	assert_string_equal(h.upstream, "8099b047ecc4");
	patch_header_release(&h);
}

/* Headers end at the first blank line; the message holds the shas. */
static void test_shas_only_in_message(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse("From: A <a@example.org>\n"
			       "Subject: [PATCH] x\n"
			       "X-Note: commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n"
			       "\n"
			       "body\n"
			       "---\n"
			       "commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n", &h), 0);
	assert_string_equal(or_null(h.subject), "x");
	assert_string_equal(h.upstream, "");
	assert_true(h.stable_only);
	patch_header_release(&h);
}

/* A NUL byte does not cut a value short, nor stop the parse. */
static void test_nul_bytes(void **state)
{
	static const char text[] = "From: A\0B <a@example.org>\n"
				   "Subject: [PATCH] a\0b\n"
				   "\n"
				   "\0\n"
				   "commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n";
	struct patch_header h;

	(void)state;
	assert_int_equal(parse_bytes(text, sizeof(text) - 1, &h), 0);
	assert_string_equal(or_null(h.author), "A?B <a@example.org>");
	assert_string_equal(or_null(h.subject), "a?b");
	assert_string_equal(h.upstream, "8099b047ecc431518b9bb6bdbba3549bbecdc343");
	patch_header_release(&h);
}

/*
 * Every prefix of a valid patch parses, reads nothing past its end, and
 * never yields a wrong upstream sha ("upstream." must follow it whole).
 */
static void test_every_prefix(void **state)
{
	const char *patches[] = { shebang_patch, autosel_patch };

	(void)state;
	for (size_t p = 0; p < 2; p++) {
		char *crlf = with_crlf(patches[p]);
		const char *texts[] = { patches[p], crlf };

		for (size_t t = 0; t < 2; t++) {
			size_t whole = strlen(texts[t]);

			for (size_t len = 0; len <= whole; len++) {
				struct patch_header h;

				assert_int_equal(parse_bytes(texts[t], len, &h), 0);
				if (h.upstream[0])
					assert_string_equal(h.upstream, p == 0 ?
							    "8099b047ecc431518b9bb6bdbba3549bbecdc343" :
							    "abcdef0123456789abcdef0123456789abcdef01");
				assert_true(h.n_stable_deps <= 2);
				assert_int_equal(h.stable_only, !h.upstream[0] && !h.cherry_picked[0]);
				patch_header_release(&h);
			}
		}
		free(crlf);
	}
}

/* Only complete lines in the first 64 KiB are read. */
static void test_region_cap(void **state)
{
	static const char upstream[] = "commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n";
	struct strbuf text = STRBUF_INIT;
	struct patch_header h;

	(void)state;
	strbuf_adds(&text, "Subject: big\n\n");
	while (text.len < PATCH_HEADER_MAX_BYTES - 200)
		strbuf_adds(&text, "filler filler filler filler filler filler filler\n");
	strbuf_adds(&text, upstream);
	assert_int_equal(parse_bytes(text.buf, text.len, &h), 0);
	assert_string_equal(h.upstream, "8099b047ecc431518b9bb6bdbba3549bbecdc343");
	patch_header_release(&h);

	/* a dependency line cut by the cap is dropped, not read as a short sha */
	strbuf_reset(&text);
	strbuf_adds(&text, "Subject: big\n\n");
	while (text.len < PATCH_HEADER_MAX_BYTES - 20)
		strbuf_adds(&text, "filler\n");
	strbuf_adds(&text, "Stable-dep-of: 0123456789abcdef0123456789abcdef01234567 (\"x\")\n");
	assert_int_equal(parse_bytes(text.buf, text.len, &h), 0);
	assert_int_equal(h.n_stable_deps, 0);
	patch_header_release(&h);

	/* past the cap entirely */
	while (text.len < 2 * PATCH_HEADER_MAX_BYTES)
		strbuf_adds(&text, "filler\n");
	strbuf_adds(&text, upstream);
	assert_int_equal(parse_bytes(text.buf, text.len, &h), 0);
	assert_string_equal(h.upstream, "");
	assert_string_equal(or_null(h.subject), "big");
	patch_header_release(&h);

	/* one huge line without a newline */
	strbuf_reset(&text);
	while (text.len < 3 * PATCH_HEADER_MAX_BYTES)
		strbuf_adds(&text, "xxxxxxxxxxxxxxxx");
	assert_int_equal(parse_bytes(text.buf, text.len, &h), 0);
	assert_string_equal(or_null(h.subject), "(null)");
	patch_header_release(&h);
	strbuf_release(&text);
}

/* Random bytes over a patch-like alphabet: no crash, no over-read. */
static void test_random_bytes(void **state)
{
	static const char *const words[] = {
		"From ", "From: ", "Subject: ", "[PATCH] ", "commit ", " upstream.",
		"[ Upstream commit ", " ]", "(cherry picked from commit ", ")",
		"Stable-dep-of: ", "0123456789abcdef", "ABCDEF", "\n", "\r\n", " ",
		"\t", "---", "--- ", "diff --git ", "Revert \"", "\0",
	};
	struct strbuf text = STRBUF_INIT;
	unsigned seed = 7;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		struct patch_header h;
		int n = rand_r(&seed) % 60;

		strbuf_reset(&text);
		for (int i = 0; i < n; i++) {
			const char *w = words[rand_r(&seed) % (sizeof(words) / sizeof(words[0]))];

			strbuf_add(&text, w, *w ? strlen(w) : 1);
		}
		assert_int_equal(parse_bytes(text.buf, text.len, &h), 0);
		assert_true(strlen(h.upstream) == 0 || strlen(h.upstream) >= PATCH_SHA_MIN);
		patch_header_release(&h);
	}
	strbuf_release(&text);
}

/*
 * A raw list mail: transport headers first (Return-Path:, Received:,
 * DKIM-Signature: folded), "From:   Name <addr>" as vger writes it, a
 * folded "Re: [PATCH v2 3/7]" subject, reply text and quoted lines.
 * Before mail.c this was named "Return-Path: <...>".
 */
static const char list_mail[] =
	"Return-Path: <stable+bounces-12345-greg=kroah.com@vger.kernel.org>\n"
	"X-Original-To: greg@kroah.com\n"
	"Received: from sy.mirrors.kernel.org (sy.mirrors.kernel.org [147.75.48.161])\n"
	"\tby mail.kroah.com (Postfix) with ESMTPS id 9630493B23F\n"
	"\tfor <greg@kroah.com>; Mon, 12 Nov 2018 16:09:40 +0000 (UTC)\n"
	"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/simple; d=redhat.com;\n"
	"\th=From:To:Cc:Subject:Date:In-Reply-To:References:From;\n"
	"\tb=1t552unRzpSoq0v8oBv6r8ivO3u5h0jeh8zwQgPxdtg86q0y5DW6w43NTI/l6+L1R\n"
	"X-Mailing-List: stable@vger.kernel.org\n"
	"Date: Mon, 12 Nov 2018 17:09:31 +0100\n"
	"From:   Oleg Nesterov <oleg@redhat.com>\n"
	"To: Andrew Morton <akpm@linux-foundation.org>\n"
	"Subject: Re: [PATCH v2 3/7] exec: load_script: don't blindly truncate\n"
	" shebang string\n"
	"Message-ID: <20181112160931.GA28463@redhat.com>\n"
	"In-Reply-To: <CAGXu5jKbVQjLj5ztSvsV3QR2XhXNzm4Lkm8NYGAuZhzT9xrX9w@mail.gmail.com>\n"
	"\n"
	"On 11/12, Kees Cook wrote:\n"
	"> Shouldn't this say -ENOEXEC?\n"
	"\n"
	"Yes. Updated changelog below.\n"
	"\n"
	"commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n"
	"\n"
	"Signed-off-by: Oleg Nesterov <oleg@redhat.com>\n"
	"---\n"
	" fs/binfmt_script.c | 6 ++++++\n";

static void test_raw_list_mail(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse(list_mail, &h), 0);
	assert_string_equal(or_null(h.subject),
			    "exec: load_script: don't blindly truncate shebang string");
	assert_string_equal(or_null(h.author), "Oleg Nesterov <oleg@redhat.com>");
	assert_string_equal(or_null(h.date), "Mon, 12 Nov 2018 17:09:31 +0100");
	assert_string_equal(or_null(h.message_id), "20181112160931.GA28463@redhat.com");
	assert_string_equal(h.upstream, "8099b047ecc431518b9bb6bdbba3549bbecdc343");
	assert_false(h.stable_only);
	patch_header_release(&h);
	assert_null(h.date);
	assert_null(h.message_id);
}

/* Date: and Message-ID: of format-patch mails; none for a plain diff. */
static void test_date_and_message_id(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse(shebang_patch, &h), 0);
	assert_string_equal(or_null(h.date), "Thu, 3 Jan 2019 15:28:07 -0800");
	assert_string_equal(or_null(h.message_id), "(null)");
	patch_header_release(&h);

	assert_int_equal(parse(autosel_patch, &h), 0);
	assert_string_equal(or_null(h.date), "Mon, 5 Feb 2024 10:11:12 -0500");
	assert_string_equal(or_null(h.message_id), "20240205151112.1234-12-sashal@kernel.org");
	patch_header_release(&h);

	/* an in-body Date: wins, as git am takes it */
	assert_int_equal(parse("From: Q <q@example.org>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n"
			       "Subject: x\n\nDate: Tue, 2 Jan 2024 00:00:00 +0000\n\nbody\n", &h), 0);
	assert_string_equal(or_null(h.date), "Tue, 2 Jan 2024 00:00:00 +0000");
	patch_header_release(&h);

	assert_int_equal(parse("diff --git a/x b/x\n--- a/x\n+++ b/x\n", &h), 0);
	assert_null(h.date);
	assert_null(h.message_id);
	patch_header_release(&h);
}

/* RFC 2047 words in From: and Subject:, of the mail and in-body, are decoded. */
static void test_encoded_words(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse("From: =?ISO-8859-1?Q?Uwe_Kleine-K=F6nig?= <u@example.org>\n"
			       "Subject: =?UTF-8?q?=5BPATCH=5D=20pwm=3A=20caf=C3=A9?=\n"
			       " =?UTF-8?b?IGZpeA==?=\n"
			       "\n"
			       "[ Upstream commit 0123456789abcdef0123456789abcdef01234567 ]\n", &h), 0);
	assert_string_equal(or_null(h.author), "Uwe Kleine-K\u00f6nig <u@example.org>");
	assert_string_equal(or_null(h.subject), "pwm: caf\u00e9 fix");
	assert_string_equal(h.upstream, "0123456789abcdef0123456789abcdef01234567");
	patch_header_release(&h);

	assert_int_equal(parse("From: Sender <s@example.org>\nSubject: [PATCH] x\n\n"
			       "From: =?UTF-8?q?Ren=C3=A9_Doe?= <rene@example.org>\n\nbody\n", &h), 0);
	assert_string_equal(or_null(h.author), "Ren\u00e9 Doe <rene@example.org>");
	patch_header_release(&h);
}

/* A quoted-printable mail: the commit line is found in the decoded body. */
static void test_quoted_printable_body(void **state)
{
	struct patch_header h;

	(void)state;
	assert_int_equal(parse("Received: from a by b\n"
			       "From: A Person <ap@example.org>\n"
			       "Subject: [PATCH 6.1] x: y\n"
			       "Content-Type: text/plain; charset=UTF-8\n"
			       "Content-Transfer-Encoding: quoted-printable\n"
			       "\n"
			       "commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstr=\n"
			       "eam.\n"
			       "---\n", &h), 0);
	assert_string_equal(h.upstream, "8099b047ecc431518b9bb6bdbba3549bbecdc343");
	assert_string_equal(or_null(h.subject), "x: y");
	patch_header_release(&h);
}

static void test_sha_matches(void **state)
{
	static const char full[] = "8099b047ecc431518b9bb6bdbba3549bbecdc343";

	(void)state;
	assert_true(patch_sha_matches("8099b047ecc4", full));
	assert_true(patch_sha_matches("8099B047ECC431518B9BB6BDBBA3549BBECDC343", full));
	assert_true(patch_sha_matches(full, "8099b047ecc4"));
	assert_false(patch_sha_matches("8099b047ecc", full));		/* 11: too short */
	assert_false(patch_sha_matches("8099b047ecc5", full));
	assert_false(patch_sha_matches("8099b047ecc4 ", full));
	assert_false(patch_sha_matches("8099b047ecc4", "8099b047ecc4zz"));
	assert_false(patch_sha_matches("8099b047ecc431518b9bb6bdbba3549bbecdc3430", full));
	assert_false(patch_sha_matches("", full));
	assert_false(patch_sha_matches(NULL, full));
	assert_false(patch_sha_matches(full, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_patch),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_upstream_bracket_and_deps),
		cmocka_unit_test(test_many_stable_deps),
		cmocka_unit_test(test_cherry_picked),
		cmocka_unit_test(test_stable_only_revert),
		cmocka_unit_test(test_plain_diff),
		cmocka_unit_test(test_subject_prefixes),
		cmocka_unit_test(test_malformed_shas_ignored),
		cmocka_unit_test(test_shas_only_in_message),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_region_cap),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_sha_matches),
		cmocka_unit_test(test_raw_list_mail),
		cmocka_unit_test(test_date_and_message_id),
		cmocka_unit_test(test_encoded_words),
		cmocka_unit_test(test_quoted_printable_body),
	};

	return cmocka_run_group_tests_name("patch_header", tests, NULL, NULL);
}
