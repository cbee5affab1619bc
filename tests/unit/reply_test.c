// SPDX-License-Identifier: GPL-2.0
/*
 * reply_render(): the answer on the stable review thread, from reports
 * built with the keys and values gate_run() writes (gate/verdict/gate.c):
 * the exact drop lines and no Tested-by with a drop; Tested-by and the
 * summary without; the 72-column rule; threading headers; a long and a
 * non-ASCII subject folded and encoded; header injection refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output/reply.h"

#define UPSTREAM "8099b047ecc431518b9bb6bdbba3549bbecdc343"
#define DROP_FILE "exec-load_script-don-t-blindly-truncate-shebang-string.patch"
#define DROP_SUBJECT "exec: load_script: don't blindly truncate shebang string"
#define LONG_ARGV "argv[1]=\"-I/nix/store/x6yyav38jgr924nkna6zf5fjlvdb9q4y-perl5.28.1-Test-Simple-1.0/lib/perl5/site_perl\""

static json_t *patch(const char *name, const char *subject, const char *status, const char *reason)
{
	return json_pack("{s:s, s:n, s:s?, s:n, s:n, s:n, s:s, s:s?, s:[], s:[],"
			 " s:{s:s, s:I, s:s}, s:s, s:s}",
			 "name", name, "upstream", "subject", subject, "author", "date",
			 "message_id", "status", status, "reason", reason, "regressions", "changes",
			 "apply", "status", "applied", "offset", (json_int_t)0, "message", "",
			 "evidence", "", "steps", "");
}

static json_t *case_json(const char *name, const char *status)
{
	return json_pack("{s:s, s:s, s:s}", "name", name, "kind", "contract", "status", status);
}

/* A report as gate_run() writes it: with a drop when @drop. */
static json_t *make_report(bool drop)
{
	json_t *patches = json_array(), *drops = json_array(), *cases = json_array(), *p, *report;

	json_array_append_new(patches, patch("binfmts-document-linux_binprm.patch",
					     "binfmts: say what struct linux_binprm holds", "ok", NULL));
	p = patch(DROP_FILE, DROP_SUBJECT, drop ? "drop" : "ok", drop ? "regression" : NULL);
	json_object_set_new(p, "upstream", json_string(UPSTREAM));
	if (drop) {
		json_array_append_new(json_object_get(p, "regressions"), json_string("test.pl"));
		json_array_append_new(json_object_get(p, "regressions"), json_string("exact-trunc-arg"));
		json_object_set_new(p, "evidence", json_string(
			"test.pl: base pass; with the patch fail: expected " LONG_ARGV
			" (187 bytes), got errno ENOEXEC\n"
			"exact-trunc-arg: base pass; with the patch fail: expected "
			"argv[1]=\"./binfmt_script-exact-trunc-arg\", got errno ENOEXEC\n"));
		json_object_set_new(p, "steps", json_string(
			"base + 2 patches up to " DROP_FILE ": regression in test.pl exact-trunc-arg\n"
			"clean without it: base + 1 patches up to binfmts-document-linux_binprm.patch\n"));
		json_array_append_new(drops, json_string(DROP_FILE));
	}
	json_array_append_new(patches, p);
	p = patch("exec-trim-blanks.patch", "exec: trim trailing blanks without a newline", "ok", NULL);
	json_array_append_new(json_object_get(p, "changes"), json_string("quirk-blank-no-newline"));
	json_object_set_new(p, "evidence", json_string(
		"quirk-blank-no-newline: base argv[1]=\"\"; with the patch argv[1]=\"./script\""));
	json_array_append_new(patches, p);

	json_array_append_new(cases, case_json("exact", "pass"));
	json_array_append_new(cases, case_json("test.pl", drop ? "fail" : "pass"));
	json_array_append_new(cases, case_json("exact-trunc-arg", drop ? "fail" : "pass"));
	json_array_append_new(cases, case_json("quirk-blank-no-newline", "quirk-changed"));
	json_array_append_new(cases, case_json("overlong-line", "pass"));	/* fixed */
	json_array_append_new(cases, case_json("slow-boot", "error"));	/* flaky */
	json_array_append_new(cases, case_json("broken-on-base", "fail"));

	report = json_pack("{s:I, s:s, s:s, s:s, s:s, s:n, s:n, s:s, s:s, s:s, s:o, s:o,"
			   " s:s, s:s, s:s, s:s, s:o, s:s, s:[s, s], s:[s],"
			   " s:{s:I, s:I, s:I, s:I, s:I, s:f, s:s}}",
			   "run", (json_int_t)7, "queue", "queue-6.1", "base", "6.1.192",
			   "verdict", drop ? "drop" : "pass", "source", "/srv/stable-queue", "ref",
			   "commit", "snapshot", "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed",
			   "kept_tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
			   "kept_commit", "c0ffee0000000000000000000000000000000000",
			   "patches", patches, "drop", drops,
			   "base_commit", "a3e35d358d6384b8f3fc9a7fc29b58b1edc29f37",
			   "config", "tinyconfig+shebang.config",
			   "compiler", "gcc (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40",
			   "suite", "32af0e91673163e499153086cf157c19a657065f9eaf38b3acda91cbdcc361de",
			   "cases", cases, "queue_outcome", "booted",
			   "base_failing", "overlong-line", "broken-on-base", "flaky", "slow-boot",
			   "stats", "builds", (json_int_t)4, "boots", (json_int_t)6,
			   "evaluations", (json_int_t)7, "reruns", (json_int_t)1,
			   "same_kernel", (json_int_t)0, "seconds", 140.1, "accel", "tcg");
	assert_non_null(report);
	return report;
}

static const struct render_options fixed = {
	.from = "Gate Lab <lab@gate.example.org>",
	.to = "stable@vger.kernel.org",
	.message_id = "backport-gate.run-7.0123456789abcdef@gate.example.org",
	.date = 1733400000,	/* Thu, 05 Dec 2024 12:00:00 +0000 */
};

static char *render(const json_t *report, const struct render_options *opts)
{
	struct report_input in = { .report = report };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int r = reply_render(&in, opts, &out, &err);

	if (r != 0)
		fail_msg("reply_render: %d %s", r, err.buf);
	strbuf_release(&err);
	return strbuf_detach(&out, NULL);
}

static const char *body_of(const char *mail)
{
	const char *b = strstr(mail, "\n\n");

	assert_non_null(b);
	return b + 2;
}

/* Lines of @text starting with @prefix, joined with "\n". */
static char *lines_with(const char *text, const char *prefix)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (!strncmp(p, prefix, strlen(prefix)))
			strbuf_addf(&out, "%s%.*s", out.len ? "\n" : "", (int)n, p);
		p += n + (nl ? 1 : 0);
	}
	return strbuf_detach(&out, NULL);
}

static void assert_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("%s: expected\n%s\ngot\n%s", what, want, got);
}

static void assert_has(const char *what, const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("%s: no \"%s\" in\n%s", what, needle, text);
}

static void test_drop_headers(void **state)
{
	json_t *report = make_report(true);
	char *mail = render(report, &fixed);
	const char *want =
		"From: Gate Lab <lab@gate.example.org>\n"
		"To: stable@vger.kernel.org\n"
		"Subject: [backport-gate] queue-6.1 on 6.1.192: 1 to drop\n"
		"Date: Thu, 05 Dec 2024 12:00:00 +0000\n"
		"Message-ID: <backport-gate.run-7.0123456789abcdef@gate.example.org>\n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=utf-8\n"
		"Content-Transfer-Encoding: 8bit\n"
		"\n";

	(void)state;
	if (strncmp(mail, want, strlen(want)) != 0)
		fail_msg("headers: expected\n%s\ngot\n%.*s", want, (int)strlen(want), mail);
	free(mail);
	json_decref(report);
}

static void test_drop_lines(void **state)
{
	json_t *report = make_report(true);
	char *mail = render(report, &fixed), *drops = lines_with(body_of(mail), "Please drop:");
	char *tested = lines_with(body_of(mail), "Tested-by:");

	(void)state;
	assert_str("drop lines", drops, "Please drop: " DROP_FILE " (\"" DROP_SUBJECT "\")");
	assert_str("no Tested-by with a drop", tested, "");
	assert_has("regressions", mail, "Regressions (compared to 6.1.192):\n\n* " DROP_FILE "\n");
	assert_has("subject", mail, "  subject:  " DROP_SUBJECT "\n");
	assert_has("upstream", mail, "  upstream: " UPSTREAM "\n");
	assert_has("reason", mail, "  reason:   regression\n");
	assert_has("cases", mail, "  cases:    test.pl, exact-trunc-arg\n");
	/* one evidence line per case, the quoted argv kept whole */
	assert_has("evidence", mail, "  evidence:\n    test.pl: base pass; with the patch fail: expected\n      "
		   LONG_ARGV "\n      (187 bytes), got errno ENOEXEC\n");
	assert_has("bisection", mail, "  bisection:\n    base + 2 patches up to\n      " DROP_FILE
		   ":\n      regression in test.pl exact-trunc-arg\n");
	assert_has("behaviour change", mail, "* exec-trim-blanks.patch\n");
	assert_has("fix", mail, "fixed (failing on base, passing with the queue): overlong-line");
	assert_has("flaky", mail, "* flaky (a fresh boot did not reproduce them; not blamed): slow-boot");
	/* 7 cases: pass exact, overlong-line, the changed quirk; fail the two regressions; skip base-broken and flaky */
	assert_has("summary", mail, "total: 7, pass: 3, fail: 2, skip: 2\n");
	free(drops);
	free(tested);
	free(mail);
	json_decref(report);
}

static void test_pass_tested_by(void **state)
{
	json_t *report = make_report(false);
	char *mail = render(report, &fixed), *tested = lines_with(body_of(mail), "Tested-by:");
	char *drops = lines_with(body_of(mail), "Please drop:");
	struct render_options defaults = fixed;

	(void)state;
	assert_str("Tested-by", tested, "Tested-by: Gate Lab <lab@gate.example.org>");
	assert_str("no drop lines", drops, "");
	assert_has("subject", mail, "Subject: [backport-gate] queue-6.1 on 6.1.192: nothing to drop\n");
	assert_has("no regressions", mail, "Regressions (compared to 6.1.192):\n  none\n");
	assert_has("summary", mail, "total: 7, pass: 5, fail: 0, skip: 2\n");
	assert_has("tested: base", mail, "  base:        6.1.192, commit a3e35d358d6384b8f3fc9a7fc29b58b1edc29f37\n");
	assert_has("tested: accel", mail, "  qemu:        x86_64, accelerator tcg\n");
	free(tested);
	free(mail);
	free(drops);

	/* the identity defaults to backport-gate at this host */
	defaults.from = NULL;
	mail = render(report, &defaults);
	tested = lines_with(body_of(mail), "Tested-by: backport-gate <backport-gate@");
	assert_true(strlen(tested) > strlen("Tested-by: backport-gate <backport-gate@>"));
	assert_has("From", mail, "From: backport-gate <backport-gate@");
	free(tested);
	free(mail);
	json_decref(report);
}

/* Every line within 72 columns, but quoted argv evidence and the drop trailer. */
static void test_72_columns(void **state)
{
	json_t *report = make_report(true);
	struct render_options opts = fixed;
	char *mail;
	const char *p;

	(void)state;
	opts.subject = "[PATCH 6.1 000/321] 6.1.193-rc1 review with a subject far longer than any "
		       "mail client would show on one line";
	mail = render(report, &opts);
	for (p = mail; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > REPLY_WIDTH && strncmp(p, "Please drop: ", 13) != 0 && !memchr(p, '"', n))
			fail_msg("a line of %zu columns: %.*s", n, (int)n, p);
		if (n > REPLY_WIDTH && memchr(p, '"', n) && !strstr(p, LONG_ARGV) &&
		    strncmp(p, "Please drop: ", 13) != 0)
			fail_msg("a quoted line longer than its argv demands: %.*s", (int)n, p);
		p += n + (nl ? 1 : 0);
	}
	free(mail);
	json_decref(report);
}

static void test_threading(void **state)
{
	json_t *report = make_report(true);
	struct render_options opts = fixed;
	char *mail;

	(void)state;
	opts.in_reply_to = "20241203120000.123456-1-gregkh@linuxfoundation.org";
	opts.cc = "Greg Kroah-Hartman <gregkh@linuxfoundation.org>";
	opts.subject = "[PATCH 6.1 000/321] 6.1.193-rc1 review";
	mail = render(report, &opts);
	assert_has("Cc", mail, "\nCc: Greg Kroah-Hartman <gregkh@linuxfoundation.org>\n");
	assert_has("Subject", mail, "\nSubject: Re: [PATCH 6.1 000/321] 6.1.193-rc1 review\n");
	assert_has("In-Reply-To", mail,
		   "\nIn-Reply-To: <20241203120000.123456-1-gregkh@linuxfoundation.org>\n"
		   "References: <20241203120000.123456-1-gregkh@linuxfoundation.org>\n");
	free(mail);

	/* brackets given are kept, a subject with Re: gets no second one */
	opts.in_reply_to = "<abc@example.org>";
	opts.subject = "Re: [PATCH 6.1 000/321] 6.1.193-rc1 review";
	mail = render(report, &opts);
	assert_has("In-Reply-To", mail, "\nIn-Reply-To: <abc@example.org>\nReferences: <abc@example.org>\n");
	assert_has("one Re:", mail, "\nSubject: Re: [PATCH 6.1 000/321] 6.1.193-rc1 review\n");
	free(mail);

	/* none without a thread */
	mail = render(report, &fixed);
	assert_null(strstr(mail, "In-Reply-To:"));
	assert_null(strstr(mail, "References:"));
	assert_null(strstr(mail, "Cc:"));
	free(mail);
	json_decref(report);
}

static void test_subject_folding(void **state)
{
	json_t *report = make_report(false);
	struct render_options opts = fixed;
	struct strbuf unfolded = STRBUF_INIT;
	char *mail;
	const char *p, *end;

	(void)state;
	opts.subject = "[PATCH 6.1 000/321] 6.1.193-rc1 review, with words enough to need folding "
		       "twice over: one two three four five six seven eight nine ten";
	mail = render(report, &opts);
	p = strstr(mail, "\nSubject: ") + 1;
	end = strstr(p, "\nDate: ");
	assert_non_null(end);
	/* every line of it within 72 columns, a continuation starts with a space */
	for (const char *q = p; q < end;) {
		const char *nl = strchr(q, '\n');

		if (nl - q > REPLY_WIDTH)
			fail_msg("folded Subject line of %d columns: %.*s", (int)(nl - q), (int)(nl - q), q);
		if (q != p && *q != ' ')
			fail_msg("a continuation line without a leading space: %.*s", (int)(nl - q), q);
		strbuf_addf(&unfolded, "%.*s", (int)(nl - q), q);
		q = nl + 1;
	}
	assert_true(strchr(p, '\n') < end);	/* it was folded */
	{
		char *want = malloc(strlen(opts.subject) + 20);

		sprintf(want, "Subject: Re: %s", opts.subject);
		assert_str("unfolded Subject", unfolded.buf, want);
		free(want);
	}
	strbuf_release(&unfolded);
	free(mail);

	/* bytes outside ASCII: RFC 2047 words, folded between them */
	opts.subject = "[PATCH 6.1 000/321] 6.1.193-rc1 review — Grüße aus Köln";
	mail = render(report, &opts);
	assert_has("encoded Subject", mail, "Subject: =?UTF-8?B?");
	for (p = mail; p < body_of(mail); p++)
		if ((unsigned char)*p >= 0x80)
			fail_msg("a byte outside ASCII in the headers:\n%s", mail);
	free(mail);
	json_decref(report);
}

static void test_refuses_line_breaks(void **state)
{
	json_t *report = make_report(false);
	struct report_input in = { .report = report };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct render_options opts = fixed;

	(void)state;
	opts.to = "a@example.org\r\nBcc: victim@example.org";
	assert_int_equal(reply_render(&in, &opts, &out, &err), -EINVAL);
	assert_str("error", err.buf, "reply: --to holds a line break");
	strbuf_release(&out);
	strbuf_release(&err);
	json_decref(report);
}

static void test_no_verdict(void **state)
{
	json_t *report = json_pack("{s:I, s:s, s:s, s:s, s:s, s:[], s:[]}", "run", (json_int_t)9,
				   "queue", "queue-6.1", "base", "6.1.192", "verdict", "error",
				   "error", "build: disk full", "patches", "drop");
	char *mail = render(report, &fixed);

	(void)state;
	assert_has("subject", mail, "Subject: [backport-gate] queue-6.1 on 6.1.192: no verdict\n");
	assert_has("why", mail, "  build: disk full\n");
	assert_null(strstr(mail, "Tested-by:"));
	assert_null(strstr(mail, "Please drop:"));
	free(mail);
	json_decref(report);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_headers),
		cmocka_unit_test(test_drop_lines),
		cmocka_unit_test(test_pass_tested_by),
		cmocka_unit_test(test_72_columns),
		cmocka_unit_test(test_threading),
		cmocka_unit_test(test_subject_folding),
		cmocka_unit_test(test_refuses_line_breaks),
		cmocka_unit_test(test_no_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
