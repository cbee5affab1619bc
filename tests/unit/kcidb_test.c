// SPDX-License-Identifier: GPL-2.0
/*
 * kcidb_render(): KCIDB I/O JSON v5.3 from a report as gate_run() writes
 * it and the sequences record/sequence.h reads: a checkout per sequence
 * (patchset_hash as KCIDB defines it, a failed apply as valid false), a
 * build per kernel built (a failed build as status FAIL), a test per boot
 * and per case with the v5.3 status names; ids that link up; no null
 * anywhere; an origin outside KCIDB's pattern refused.
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

#include "basic/hash.h"
#include "output/kcidb.h"

#define H1 "819eeed79f56367a4ade2118eda37e1839b23859f92614776d3a2e14e6fd8dc5"
#define H2 "d38aa7c2a921520ff6aff9b38d1bb70701f5e6a3c3028914abbe4675fca68fa5"
/* sha256sum of "H1\nH2\n", as `sha256sum *.patch | cut -c-64 | sha256sum` gives it */
#define H12 "61888c8f045ed08fc48cb566c7cf6f90ca34f49c9867344e9beb978458ab9ed3"
#define BASE "a3e35d358d6384b8f3fc9a7fc29b58b1edc29f37"

static json_t *report(void)
{
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:n, s:[{s:s, s:s, s:{s:s}}, {s:s, s:s, s:{s:s}},"
			 " {s:s, s:s, s:{s:s}}], s:s, s:s, s:s}",
			 "run", (json_int_t)4, "queue", "queue-6.1", "base", "6.1.192",
			 "verdict", "drop", "source", "/srv/queues/queue-6.1", "ref",
			 "patches",
			 "name", "0001-first.patch", "status", "ok", "apply", "message", "",
			 "name", "0002-second.patch", "status", "drop", "apply", "message", "",
			 "name", "0003-no-apply.patch", "status", "drop", "apply", "message",
			 "hunk 1 of fs/exec.c does not match",
			 "config", "tinyconfig+shebang.config", "compiler", "gcc 12.2.0",
			 "suite", "32af0e91673163e4");
}

static json_t *patch_ref(int position, const char *name, const char *hash)
{
	return json_pack("{s:i, s:s, s:s}", "position", position, "name", name, "content_hash", hash);
}

static json_t *sequences(void)
{
	json_t *seqs = json_array(), *s;

	/* base: built under another database (no build row), booted once */
	s = json_pack("{s:i, s:[], s:s, s:s, s:s, s:[{s:i, s:s, s:s, s:f, s:s, s:s,"
		      " s:[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}]}]}",
		      "position", 1, "patches", "commit", BASE, "tree", "597284f8dd5cc503abab1b9e94d4dc4e92bc8931",
		      "judged_at", "2024-12-05T12:00:00Z", "boots", "attempt", 1, "status", "ok",
		      "accel", "tcg", "seconds", 2.0, "created_at", "2024-12-05T12:00:02Z",
		      "evidence", "",
		      "cases", "name", "test.pl", "kind", "contract", "status", "pass", "diagnostic", "",
		      "name", "quirk-blank", "kind", "quirk", "status", "pass", "diagnostic", "");
	assert_non_null(s);
	json_array_append_new(seqs, s);
	/* base + both: built (100 s), booted twice, a regression and a changed quirk */
	s = json_pack("{s:i, s:[o, o], s:s, s:s, s:s, s:{s:s, s:f, s:s},"
		      " s:[{s:i, s:s, s:s, s:f, s:s, s:s, s:[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}]},"
		      "    {s:i, s:s, s:s, s:s, s:[]}]}",
		      "position", 2, "patches", patch_ref(1, "0001-first.patch", H1),
		      patch_ref(2, "0002-second.patch", H2),
		      "commit", "7de201ccc8569777315b80dd32cb40d0a6eaffde",
		      "tree", "baa5de025423a4e683725ed42eeabd4df5d47e7f", "judged_at", "2024-12-05T12:00:03Z",
		      "build", "status", "ok", "seconds", 100.0, "created_at", "2024-12-05T12:01:43Z",
		      "boots", "attempt", 1, "status", "ok", "accel", "tcg", "seconds", 2.0,
		      "created_at", "2024-12-05T12:01:46Z", "evidence", "",
		      "cases", "name", "test.pl", "kind", "contract", "status", "fail",
		      "diagnostic", "expected argv[1]=\"-I\", got errno ENOEXEC",
		      "name", "quirk-blank", "kind", "quirk", "status", "quirk-changed",
		      "diagnostic", "expected argv[1]=\"\", got \"./s\"",
		      "attempt", 2, "status", "panic", "created_at", "2024-12-05T12:01:50Z",
		      "evidence", "Kernel panic - not syncing: VFS", "cases");
	assert_non_null(s);
	json_array_append_new(seqs, s);
	/* base + first: the build failed */
	s = json_pack("{s:i, s:[o], s:s, s:s, s:s, s:{s:s, s:s, s:f, s:s}, s:[]}",
		      "position", 3, "patches", patch_ref(1, "0001-first.patch", H1),
		      "commit", "1111111111111111111111111111111111111111",
		      "tree", "2222222222222222222222222222222222222222", "judged_at", "2024-12-05T12:02:00Z",
		      "build", "status", "failed", "first_error", "fs/exec.c:12: error: expected ';'",
		      "seconds", 5.5, "created_at", "2024-12-05T12:02:06Z", "boots");
	assert_non_null(s);
	json_array_append_new(seqs, s);
	/* base + first + third: the third does not apply */
	s = json_pack("{s:i, s:[o, o], s:i, s:s}", "position", 4, "patches",
		      patch_ref(1, "0001-first.patch", H1), patch_ref(3, "0003-no-apply.patch", H2),
		      "apply_failed", 3, "judged_at", "2024-12-05T12:03:00Z");
	assert_non_null(s);
	json_array_append_new(seqs, s);
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:o}", "run", (json_int_t)4,
			 "started_at", "2024-12-05T11:59:59Z", "base_commit", BASE,
			 "suite", "32af0e91673163e4", "source", "/srv/queues/queue-6.1", "sequences", seqs);
}

static json_t *render(const char *origin)
{
	json_t *r = report(), *s = sequences(), *doc;
	struct report_input in = { .report = r, .sequences = s };
	struct render_options opts = { .origin = origin };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	json_error_t je;

	if (kcidb_render(&in, &opts, &out, &err) != 0)
		fail_msg("kcidb_render: %s", err.buf);
	doc = json_loads(out.buf, 0, &je);
	if (!doc)
		fail_msg("not JSON: %s\n%s", je.text, out.buf);
	strbuf_release(&out);
	strbuf_release(&err);
	json_decref(r);
	json_decref(s);
	return doc;
}

static const json_t *find(const json_t *doc, const char *kind, const char *id)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(doc, kind), i, o)
		if (!strcmp(json_string_value(json_object_get(o, "id")), id))
			return o;
	fail_msg("no %s with id %s", kind, id);
	return NULL;
}

static void assert_key(const json_t *o, const char *key, const char *want)
{
	const char *got = json_string_value(json_object_get(o, key));

	if (!got || strcmp(got, want) != 0)
		fail_msg("%s: expected \"%s\", got \"%s\"", key, want, got ? got : "(absent)");
}

static void assert_no_null(const json_t *v, const char *at)
{
	const char *key;
	json_t *x;
	size_t i;

	if (json_is_null(v))
		fail_msg("null at %s", at);
	json_object_foreach((json_t *)v, key, x)
		assert_no_null(x, key);
	json_array_foreach(v, i, x)
		assert_no_null(x, at);
}

static void test_patchset_hash(void **state)
{
	const char *hashes[] = { H1, H2 };
	char out[65];

	(void)state;
	kcidb_patchset_hash(hashes, 2, out);
	assert_string_equal(out, H12);
	kcidb_patchset_hash(hashes, 0, out);
	assert_string_equal(out, "");
}

static void test_checkouts(void **state)
{
	json_t *doc = render(NULL);
	const json_t *c;

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "version"), "major")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "version"), "minor")), 3);
	assert_int_equal(json_array_size(json_object_get(doc, "checkouts")), 4);
	c = find(doc, "checkouts", "backport_gate:run4.seq1");
	assert_key(c, "origin", "backport_gate");
	assert_key(c, "tree_name", "linux-source-6.1");
	assert_key(c, "git_commit_hash", BASE);
	assert_key(c, "patchset_hash", "");
	assert_key(c, "start_time", "2024-12-05T12:00:00Z");
	assert_true(json_is_true(json_object_get(c, "valid")));
	c = find(doc, "checkouts", "backport_gate:run4.seq2");
	assert_key(c, "patchset_hash", H12);
	assert_key(json_array_get(json_object_get(c, "patchset_files"), 1), "url",
		   "file:///srv/queues/queue-6.1/0002-second.patch");
	assert_key(json_array_get(json_object_get(c, "patchset_files"), 1), "name", "0002-second.patch");
	/* a patch that does not apply: an invalid checkout saying why, and no build */
	c = find(doc, "checkouts", "backport_gate:run4.seq4");
	assert_true(json_is_false(json_object_get(c, "valid")));
	assert_key(c, "log_excerpt", "0003-no-apply.patch: hunk 1 of fs/exec.c does not match\n");
	assert_no_null(doc, "");
	json_decref(doc);
}

static void test_builds(void **state)
{
	json_t *doc = render("lab_one");
	const json_t *b;

	(void)state;
	assert_int_equal(json_array_size(json_object_get(doc, "builds")), 3);
	b = find(doc, "builds", "lab_one:run4.seq1.build");
	assert_key(b, "checkout_id", "lab_one:run4.seq1");
	assert_key(b, "status", "PASS");
	assert_null(json_object_get(b, "duration"));	/* not timed by this database */
	b = find(doc, "builds", "lab_one:run4.seq2.build");
	assert_key(b, "origin", "lab_one");
	assert_key(b, "architecture", "x86_64");
	assert_key(b, "config_name", "tinyconfig+shebang.config");
	assert_key(b, "compiler", "gcc 12.2.0");
	assert_key(b, "start_time", "2024-12-05T12:00:03Z");
	assert_true(json_number_value(json_object_get(b, "duration")) == 100.0);
	assert_key(b, "status", "PASS");
	b = find(doc, "builds", "lab_one:run4.seq3.build");
	assert_key(b, "status", "FAIL");
	assert_key(b, "log_excerpt", "fs/exec.c:12: error: expected ';'");
	json_decref(doc);
}

static void test_tests(void **state)
{
	json_t *doc = render(NULL);
	const json_t *t, *builds = json_object_get(doc, "builds"), *checkouts = json_object_get(doc, "checkouts");
	size_t i, k;
	json_t *o, *x;

	(void)state;
	/* base: suite + 2 cases; base + both: boot 1 suite + 2 cases, boot 2 (panic) suite alone */
	assert_int_equal(json_array_size(json_object_get(doc, "tests")), 3 + 3 + 1);
	t = find(doc, "tests", "backport_gate:run4.seq2.boot1.test_pl");
	assert_key(t, "build_id", "backport_gate:run4.seq2.build");
	assert_key(t, "path", "shebang.test_pl");
	assert_key(t, "status", "FAIL");
	assert_key(t, "log_excerpt", "expected argv[1]=\"-I\", got errno ENOEXEC");
	assert_key(json_object_get(t, "misc"), "case", "test.pl");
	assert_key(json_object_get(t, "environment"), "comment", "QEMU x86_64 (tcg), the shebang suite as init");
	assert_key(t, "start_time", "2024-12-05T12:01:44Z");
	assert_null(json_object_get(t, "duration"));
	t = find(doc, "tests", "backport_gate:run4.seq2.boot1.quirk_blank");
	assert_key(t, "status", "DONE");
	t = find(doc, "tests", "backport_gate:run4.seq2.boot1");
	assert_key(t, "path", "shebang");
	assert_key(t, "status", "FAIL");
	assert_true(json_number_value(json_object_get(t, "duration")) == 2.0);
	t = find(doc, "tests", "backport_gate:run4.seq2.boot2");
	assert_key(t, "status", "FAIL");
	assert_key(t, "log_excerpt", "Kernel panic - not syncing: VFS");
	t = find(doc, "tests", "backport_gate:run4.seq1.boot1");
	assert_key(t, "status", "PASS");
	/* ids link up: every test's build, every build's checkout */
	json_array_foreach(json_object_get(doc, "tests"), i, o) {
		bool found = false;

		json_array_foreach(builds, k, x)
			found |= json_equal(json_object_get(x, "id"), json_object_get(o, "build_id"));
		if (!found)
			fail_msg("test %s: no build %s", json_string_value(json_object_get(o, "id")),
				 json_string_value(json_object_get(o, "build_id")));
	}
	json_array_foreach(builds, i, o) {
		bool found = false;

		json_array_foreach(checkouts, k, x)
			found |= json_equal(json_object_get(x, "id"), json_object_get(o, "checkout_id"));
		if (!found)
			fail_msg("build %s: no checkout", json_string_value(json_object_get(o, "id")));
	}
	json_decref(doc);
}

static void test_refusals(void **state)
{
	json_t *r = report(), *s = sequences();
	struct report_input in = { .report = r, .sequences = s };
	struct render_options opts = { .origin = "Lab-One" };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	assert_int_equal(kcidb_render(&in, &opts, &out, &err), -EINVAL);
	assert_string_equal(err.buf, "kcidb: origin 'Lab-One' is not KCIDB's [a-z0-9_]+");
	strbuf_reset(&err);
	in.sequences = NULL;
	opts.origin = NULL;
	assert_int_equal(kcidb_render(&in, &opts, &out, &err), -EINVAL);
	assert_string_equal(err.buf, "kcidb: needs a report with a run and that run's sequences");
	assert_int_equal(out.len, 0);
	strbuf_release(&out);
	strbuf_release(&err);
	json_decref(r);
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patchset_hash),
		cmocka_unit_test(test_checkouts),
		cmocka_unit_test(test_builds),
		cmocka_unit_test(test_tests),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
