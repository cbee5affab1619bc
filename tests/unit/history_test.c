// SPDX-License-Identifier: GPL-2.0
/*
 * The questions asked of the record, against a small record made by hand:
 * queue-6.1 drops shebang.patch for a regression in run 1, then run 2 of
 * the same queue (with a revert) is clean and run 5 is still running;
 * queue-6.6 carries the same upstream commit under another file name and
 * drops it for a regression in run 3 (plus a patch that breaks the build),
 * then run 4 fails with an error. Every answer is compared whole where it
 * is small, and by its run ids where it is long. A second record (the
 * tests of branches) has one queue judged on 6.1, 6.6 and 6.12.
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

#include "record/db.h"
#include "record/history.h"
#include "testdb.h"

#define SHEBANG_SHA "8099b047ecc431518b9bb6bdbba3549bbecdc343"

static const char fixture_sql[] =
	"INSERT INTO snapshot (id, queue, source, ref, commit_id, content_hash, created_at) VALUES"
	" (1, 'queue-6.1', 'https://git.example/stable-queue.git', 'master', 'c1c1', 'h1', '2026-01-01T09:00:00Z'),"
	" (2, 'queue-6.1', 'https://git.example/stable-queue.git', 'master', 'c2c2', 'h2', '2026-01-02T09:00:00Z'),"
	" (3, 'queue-6.6', 'patches/queues/b', NULL, NULL, 'h3', '2026-01-03T09:00:00Z');"
	"INSERT INTO patch (id, snapshot_id, position, name, upstream, subject) VALUES"
	" (1, 1, 1, 'good.patch', NULL, 'docs: fix a typo'),"
	" (2, 1, 2, 'shebang.patch', '" SHEBANG_SHA "', 'exec: do not truncate'),"
	" (3, 1, 3, 'quirk.patch', 'aaaaaaaaaaaabbbbbbbbbbbbccccccccccccdddd', 'exec: change a quirk'),"
	" (4, 2, 1, 'good.patch', NULL, 'docs: fix a typo'),"
	" (5, 2, 2, 'shebang.patch', '" SHEBANG_SHA "', 'exec: do not truncate'),"
	" (6, 2, 3, 'revert-shebang.patch', 'cb5b020a8d38f77209d0472a0fea755299a8ec78', 'Revert exec'),"
	/* the same commit as written by another queue: another name, upper case */
	" (7, 3, 1, 'exec-shebang-6.6.patch', upper('" SHEBANG_SHA "'), 'exec: do not truncate'),"
	" (8, 3, 2, 'broken.patch', NULL, 'fs: use a missing symbol');"
	"INSERT INTO run (id, snapshot_id, base, suite, verdict, error, builds, boots, started_at,"
	" finished_at, seconds) VALUES"
	" (1, 1, '6.1.192', 's1', 'drop', NULL, 3, 4, '2026-01-01T10:00:00Z', '2026-01-01T10:05:00Z', 300.5),"
	" (2, 2, '6.1.192', 's1', 'pass', NULL, 1, 1, '2026-01-02T10:00:00Z', '2026-01-02T10:01:00Z', 60.25),"
	" (3, 3, '6.6.50', 's1', 'drop', NULL, 2, 2, '2026-01-03T10:00:00Z', '2026-01-03T10:02:00Z', 120.0),"
	" (4, 3, '6.6.50', 's1', 'error', 'boot: /dev/kvm: permission denied',"
	"  0, 0, '2026-01-04T10:00:00Z', '2026-01-04T10:00:01Z', 1.0),"
	" (5, 2, '6.1.192', 's1', 'running', NULL, 0, 0, '2026-01-05T10:00:00Z', NULL, NULL);"
	/* run 5, still running, has no report yet */
	"INSERT INTO run_report (run_id, report) VALUES"
	" (1, '{\"run\": 1, \"verdict\": \"drop\", \"drop\": [\"shebang.patch\"]}'),"
	" (2, '{\"run\": 2, \"verdict\": \"pass\", \"drop\": []}'),"
	" (3, '{\"run\": 3, \"verdict\": \"drop\"}'),"
	" (4, '{\"run\": 4, \"verdict\": \"error\"}');"
	"UPDATE run SET kept_tree = '1111111111111111111111111111111111111111',"
	" kept_commit = '2222222222222222222222222222222222222222' WHERE id = 1;"
	"UPDATE patch SET author = 'A U Thor <author@example.org>', date = 'Mon, 2 Dec 2024 10:00:00 +0100',"
	" message_id = '20241202-1-author@example.org' WHERE id = 2;"
	"INSERT INTO verdict (run_id, patch_id, status, reason, regressions, changes, evidence) VALUES"
	" (1, 1, 'ok', NULL, '[]', '[]', ''),"
	" (1, 2, 'drop', 'regression', '[\"test.pl\", \"exact-trunc-arg\", \"nixos-2019\"]', '[]', 'test.pl: fail'),"
	" (1, 3, 'ok', NULL, '[]', '[\"empty\"]', 'empty: changed'),"
	" (2, 4, 'ok', NULL, '[]', '[]', ''),"
	" (2, 5, 'ok', NULL, '[]', '[]', ''),"
	" (2, 6, 'ok', NULL, '[]', '[]', ''),"
	" (3, 7, 'drop', 'regression', '[\"test.pl\"]', '[]', 'test.pl: fail on 6.6'),"
	/* compiler output is not always UTF-8 */
	" (3, 8, 'drop', 'build', '[]', '[]', 'fs/x.c:1: error ' || CAST(X'ff' AS TEXT));"
	"INSERT INTO boot (id, tree, config, suite, attempt, status) VALUES (1, 't', 'c', 's1', 1, 'ok');"
	/* nixos-2019 is named by a verdict only: no boot recorded it */
	"INSERT INTO case_result (boot_id, name, kind, status) VALUES"
	" (1, 'test.pl', 'contract', 'pass'), (1, 'exact-trunc-arg', 'contract', 'pass'),"
	" (1, 'empty', 'quirk', 'pass'), (1, 'argv-plain', 'contract', 'pass');";

/* The record, with fixture_sql in it, shared by every test (none writes). */
static int setup(void **state)
{
	struct testdb *f;
	char *msg = NULL;

	if (testdb_setup(state) < 0)
		return -1;
	f = *state;
	if (sqlite3_exec(f->db, fixture_sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "fixture: %s\n", msg);
		sqlite3_free(msg);
		testdb_teardown(state);
		return -1;
	}
	return 0;
}

/*
 * @actual against @expected, JSON written with ' for " to stay readable
 * here; both are printed, canonical, when they differ.
 */
static void expect_json(const json_t *actual, const char *expected)
{
	char *text = strdup(expected), *want_text, *got_text;
	json_error_t je;
	json_t *want;

	assert_non_null(text);
	for (char *c = text; *c; c++)
		if (*c == '\'')
			*c = '"';
	want = json_loads(text, 0, &je);
	if (!want)
		fail_msg("expected JSON does not parse: %s: %s", je.text, text);
	assert_non_null(actual);
	want_text = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	got_text = json_dumps(actual, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	assert_string_equal(got_text, want_text);
	free(want_text);
	free(got_text);
	json_decref(want);
	free(text);
}

/* The "run" of every element of @array, comma-separated: "5,4,3". */
#define expect_runs(array, expected) expect_runs_in(array, expected, "")

static void expect_runs_in(const json_t *array, const char *expected, const char *context)
{
	struct strbuf ids = STRBUF_INIT;
	size_t i;
	json_t *v;

	if (!json_is_array(array))
		fail_msg("%sexpected runs \"%s\", got no list", context, expected);
	json_array_foreach(array, i, v)
		strbuf_addf(&ids, "%s%lld", i ? "," : "", (long long)json_integer_value(json_object_get(v, "run")));
	if (strcmp(ids.buf, expected))
		fail_msg("%sexpected runs \"%s\", got \"%s\"", context, expected, ids.buf);
	strbuf_release(&ids);
}

static void expect_int(const json_t *obj, const char *key, long long expected)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		fail_msg("\"%s\": expected the integer %lld, got %s", key, expected, v ? "another type" : "nothing");
	assert_int_equal(json_integer_value(v), expected);
}

/* @answer is NULL, errno is @errnum and the message mentions @words. */
static void expect_failure(json_t *answer, int errnum, struct strbuf *err, const char *words)
{
	int saved = errno;

	if (answer) {
		char *text = json_dumps(answer, JSON_COMPACT);

		fail_msg("expected a failure mentioning \"%s\", got %s", words, text);
	}
	assert_int_equal(saved, errnum);
	if (!strstr(err->buf, words))
		fail_msg("expected a message mentioning \"%s\", got \"%s\"", words, err->buf);
	strbuf_reset(err);
}

static json_t *runs_with(sqlite3 *db, const char *queue, const char *verdict, const char *since,
			 int64_t limit, int64_t offset)
{
	struct history_filter f = { .queue = queue, .verdict = verdict, .since = since, .limit = limit,
				     .offset = offset };
	struct strbuf err = STRBUF_INIT;
	json_t *answer = history_runs(db, &f, &err);

	if (!answer)
		fail_msg("history_runs: %s", err.buf);
	strbuf_release(&err);
	return answer;
}

static void test_runs_newest_first(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	json_t *answer = history_runs(f->db, NULL, &err), *runs;

	assert_non_null(answer);
	runs = json_object_get(answer, "runs");
	expect_runs(runs, "5,4,3,2,1");
	expect_int(answer, "total", 5);
	expect_int(answer, "limit", 50);
	expect_int(answer, "offset", 0);
	expect_json(json_array_get(runs, 4),
		    "{'run': 1, 'queue': 'queue-6.1', 'source': 'https://git.example/stable-queue.git',"
		    " 'ref': 'master', 'commit': 'c1c1', 'base': '6.1.192', 'branch': '6.1', 'verdict': 'drop',"
		    " 'started_at': '2026-01-01T10:00:00Z', 'finished_at': '2026-01-01T10:05:00Z',"
		    " 'seconds': 300.5, 'builds': 3, 'boots': 4, 'error': null,"
		    " 'kept_tree': '1111111111111111111111111111111111111111',"
		    " 'kept_commit': '2222222222222222222222222222222222222222', 'drop': ['shebang.patch']}");
	/* drops in series order; an error run; a run that has not finished */
	expect_json(json_object_get(json_array_get(runs, 2), "drop"),
		    "['exec-shebang-6.6.patch', 'broken.patch']");
	expect_json(json_array_get(runs, 1),
		    "{'run': 4, 'queue': 'queue-6.6', 'source': 'patches/queues/b', 'ref': null, 'commit': null,"
		    " 'base': '6.6.50', 'branch': '6.6', 'verdict': 'error', 'started_at': '2026-01-04T10:00:00Z',"
		    " 'finished_at': '2026-01-04T10:00:01Z', 'seconds': 1.0, 'builds': 0, 'boots': 0,"
		    " 'error': 'boot: /dev/kvm: permission denied', 'kept_tree': null, 'kept_commit': null,"
		    " 'drop': []}");
	expect_json(json_array_get(runs, 0),
		    "{'run': 5, 'queue': 'queue-6.1', 'source': 'https://git.example/stable-queue.git',"
		    " 'ref': 'master', 'commit': 'c2c2', 'base': '6.1.192', 'branch': '6.1', 'verdict': 'running',"
		    " 'started_at': '2026-01-05T10:00:00Z', 'finished_at': null, 'seconds': null,"
		    " 'builds': 0, 'boots': 0, 'error': null, 'kept_tree': null, 'kept_commit': null,"
		    " 'drop': []}");
	json_decref(answer);
	strbuf_release(&err);
}

static void test_runs_filters(void **state)
{
	static const struct {
		const char *queue, *verdict, *since, *runs;
		long long total;
	} cases[] = {
		{ "queue-6.1", NULL, NULL, "5,2,1", 3 },
		{ "queue-6.6", "drop", NULL, "3", 1 },
		{ NULL, "error", NULL, "4", 1 },
		{ NULL, "running", NULL, "5", 1 },
		{ NULL, "pass", NULL, "2", 1 },
		{ "queue-5.15", NULL, NULL, "", 0 },
		{ NULL, NULL, "2026-01-03", "5,4,3", 3 },
		/* the boundary is included; the ISO variants all mean the same instant */
		{ NULL, NULL, "2026-01-03T10:00:00Z", "5,4,3", 3 },
		{ NULL, NULL, "2026-01-03 10:00:01", "5,4", 2 },
		{ NULL, NULL, "2026-01-03T12:00:00+02:00", "5,4,3", 3 },
		{ NULL, NULL, "2026-01-03T10:00", "5,4,3", 3 },
		{ "queue-6.1", "drop", "2026-01-01", "1", 1 },
		{ NULL, NULL, "2027-01-01", "", 0 },
	};
	struct testdb *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *answer = runs_with(f->db, cases[i].queue, cases[i].verdict, cases[i].since, 0, 0);
		char context[160];

		snprintf(context, sizeof(context), "queue %s, verdict %s, since %s: ",
			 cases[i].queue ? cases[i].queue : "any", cases[i].verdict ? cases[i].verdict : "any",
			 cases[i].since ? cases[i].since : "any");
		expect_runs_in(json_object_get(answer, "runs"), cases[i].runs, context);
		expect_int(answer, "total", cases[i].total);
		json_decref(answer);
	}
}

/* One run by its id, as a run's page reads it; an unknown id is no run. */
static void test_runs_by_id(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct history_filter one = { .run = 3 }, none = { .run = 99 }, wrong_queue = { .run = 3, .queue = "queue-6.1" };
	json_t *answer;

	answer = history_runs(f->db, &one, &err);
	expect_runs(json_object_get(answer, "runs"), "3");
	expect_int(json_array_get(json_object_get(answer, "runs"), 0), "builds", 2);
	expect_int(answer, "total", 1);
	json_decref(answer);
	answer = history_runs(f->db, &none, &err);
	expect_runs(json_object_get(answer, "runs"), "");
	json_decref(answer);
	answer = history_runs(f->db, &wrong_queue, &err);
	expect_runs(json_object_get(answer, "runs"), "");
	json_decref(answer);
	strbuf_release(&err);
}

static void test_runs_pages(void **state)
{
	struct testdb *f = *state;
	json_t *answer;

	answer = runs_with(f->db, NULL, NULL, NULL, 2, 1);
	expect_runs(json_object_get(answer, "runs"), "4,3");
	expect_int(answer, "total", 5);
	expect_int(answer, "limit", 2);
	expect_int(answer, "offset", 1);
	json_decref(answer);

	answer = runs_with(f->db, NULL, NULL, NULL, 2, 4);
	expect_runs(json_object_get(answer, "runs"), "1");
	expect_int(answer, "total", 5);
	json_decref(answer);

	/* past the end: an empty page, the total still counted */
	answer = runs_with(f->db, NULL, NULL, NULL, 0, 10);
	expect_runs(json_object_get(answer, "runs"), "");
	expect_int(answer, "total", 5);
	expect_int(answer, "offset", 10);
	json_decref(answer);

	answer = runs_with(f->db, "queue-6.1", NULL, NULL, 1, 1);
	expect_runs(json_object_get(answer, "runs"), "2");
	expect_int(answer, "total", 3);
	json_decref(answer);

	/* a limit past the maximum is clamped, and the answer says so */
	answer = runs_with(f->db, NULL, NULL, NULL, 100000, 0);
	expect_int(answer, "limit", HISTORY_LIMIT_MAX);
	expect_runs(json_object_get(answer, "runs"), "5,4,3,2,1");
	json_decref(answer);
}

/* A branch is the base release's MAJOR.MINOR: 6.1 is not 6.12, nor 6.10. */
static void test_runs_by_branch(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct history_filter b61 = { .branch = "6.1" }, b66 = { .branch = "6.6" };
	struct history_filter b612 = { .branch = "6.12" }, drops61 = { .branch = "6.1", .verdict = "drop" };
	struct history_filter release = { .branch = "6.1.192" }, major = { .branch = "6" };
	json_t *answer;

	answer = history_runs(f->db, &b61, &err);
	expect_runs(json_object_get(answer, "runs"), "5,2,1");
	expect_int(answer, "total", 3);
	json_decref(answer);
	answer = history_runs(f->db, &b66, &err);
	expect_runs(json_object_get(answer, "runs"), "4,3");
	json_decref(answer);
	answer = history_runs(f->db, &b612, &err);
	expect_runs(json_object_get(answer, "runs"), "");
	expect_int(answer, "total", 0);
	json_decref(answer);
	answer = history_runs(f->db, &drops61, &err);
	expect_runs(json_object_get(answer, "runs"), "1");
	json_decref(answer);
	expect_failure(history_runs(f->db, &release, &err), EINVAL, &err,
		       "branch: '6.1.192' is not a stable branch (MAJOR.MINOR, such as 6.1 or 6.12)");
	expect_failure(history_runs(f->db, &major, &err), EINVAL, &err, "branch: '6' is not");
	strbuf_release(&err);
}

static void test_runs_bad_filters(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct history_filter bad_verdict = { .verdict = "passed" };
	struct history_filter words = { .since = "yesterday" };
	struct history_filter month = { .since = "2026-13-01" };
	struct history_filter julian = { .since = "2461000.5" };
	struct history_filter injection = { .queue = "x' OR 1=1 --" };
	struct history_filter limit = { .limit = -1 };
	struct history_filter offset = { .offset = -3 };
	json_t *answer;

	expect_failure(history_runs(f->db, &bad_verdict, &err), EINVAL, &err,
		       "verdict: 'passed' is not one of pass, drop, error, running");
	expect_failure(history_runs(f->db, &words, &err), EINVAL, &err, "since: 'yesterday' is not a date");
	expect_failure(history_runs(f->db, &month, &err), EINVAL, &err, "since: '2026-13-01'");
	expect_failure(history_runs(f->db, &julian, &err), EINVAL, &err, "since: '2461000.5'");
	expect_failure(history_runs(f->db, &limit, &err), EINVAL, &err, "limit: -1 is negative");
	expect_failure(history_runs(f->db, &offset, &err), EINVAL, &err, "offset: -3 is negative");
	/* a queue name is a value, never SQL */
	answer = history_runs(f->db, &injection, &err);
	expect_runs(json_object_get(answer, "runs"), "");
	expect_int(answer, "total", 0);
	json_decref(answer);
	strbuf_release(&err);
}

static void test_run_report(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	json_t *answer = history_run_report(f->db, 1, &err);

	expect_json(answer, "{'run': 1, 'verdict': 'drop', 'drop': ['shebang.patch']}");
	json_decref(answer);
	expect_failure(history_run_report(f->db, 99, &err), ENOENT, &err, "no run 99");
	expect_failure(history_run_report(f->db, 5, &err), EAGAIN, &err,
		       "run 5 has no report yet (its verdict is running)");
	strbuf_release(&err);
}

static const char verdict_run1_shebang[] =
	"{'run': 1, 'queue': 'queue-6.1', 'started_at': '2026-01-01T10:00:00Z',"
	" 'finished_at': '2026-01-01T10:05:00Z', 'base': '6.1.192', 'branch': '6.1', 'name': 'shebang.patch',"
	" 'upstream': '" SHEBANG_SHA "', 'subject': 'exec: do not truncate', 'status': 'drop',"
	" 'reason': 'regression', 'regressions': ['test.pl', 'exact-trunc-arg', 'nixos-2019'],"
	" 'changes': [], 'evidence': 'test.pl: fail', 'author': 'A U Thor <author@example.org>',"
	" 'date': 'Mon, 2 Dec 2024 10:00:00 +0100', 'message_id': '20241202-1-author@example.org'}";

static void test_patch_by_upstream(void **state)
{
	static const char *const keys[] = {
		"8099b047ecc4", "8099B047ECC4", "8099b047ecc43151", SHEBANG_SHA,
	};
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;

	/* any prefix from 12 digits, either case, in both queues under both names */
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *answer = history_patch(f->db, keys[i], &err), *verdicts;
		char context[80];

		snprintf(context, sizeof(context), "key %s: ", keys[i]);
		if (!answer)
			fail_msg("%s%s", context, err.buf);
		verdicts = json_object_get(answer, "verdicts");
		assert_string_equal(json_string_value(json_object_get(answer, "key")), keys[i]);
		assert_string_equal(json_string_value(json_object_get(answer, "match")), "upstream");
		expect_runs_in(verdicts, "3,2,1", context);
		expect_json(json_array_get(verdicts, 0),
			    "{'run': 3, 'queue': 'queue-6.6', 'started_at': '2026-01-03T10:00:00Z',"
			    " 'finished_at': '2026-01-03T10:02:00Z', 'base': '6.6.50', 'branch': '6.6',"
			    " 'name': 'exec-shebang-6.6.patch', 'upstream': '8099B047ECC431518B9BB6BDBBA3549BBECDC343',"
			    " 'subject': 'exec: do not truncate', 'status': 'drop', 'reason': 'regression',"
			    " 'regressions': ['test.pl'], 'changes': [], 'evidence': 'test.pl: fail on 6.6',"
			    " 'author': null, 'date': null, 'message_id': null}");
		assert_string_equal(json_string_value(json_object_get(json_array_get(verdicts, 1), "status")), "ok");
		expect_json(json_array_get(verdicts, 2), verdict_run1_shebang);
		/* judged on two branches: on 6.1 the newest is run 2's ok, not run 1's drop */
		expect_json(json_object_get(answer, "branches"),
			    "[{'branch': '6.1', 'base': '6.1.192', 'run': 2, 'queue': 'queue-6.1',"
			    "  'name': 'shebang.patch', 'status': 'ok', 'reason': null,"
			    "  'started_at': '2026-01-02T10:00:00Z', 'finished_at': '2026-01-02T10:01:00Z'},"
			    " {'branch': '6.6', 'base': '6.6.50', 'run': 3, 'queue': 'queue-6.6',"
			    "  'name': 'exec-shebang-6.6.patch', 'status': 'drop', 'reason': 'regression',"
			    "  'started_at': '2026-01-03T10:00:00Z', 'finished_at': '2026-01-03T10:02:00Z'}]");
		json_decref(answer);
	}
	strbuf_release(&err);
}

static void test_patch_by_name(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	json_t *answer;

	answer = history_patch(f->db, "shebang.patch", &err);
	assert_string_equal(json_string_value(json_object_get(answer, "match")), "name");
	expect_runs(json_object_get(answer, "verdicts"), "2,1");
	expect_json(json_array_get(json_object_get(answer, "verdicts"), 1), verdict_run1_shebang);
	json_decref(answer);

	/* bytes that are not UTF-8 do not cost the answer */
	answer = history_patch(f->db, "broken.patch", &err);
	expect_json(answer,
		    "{'key': 'broken.patch', 'match': 'name', 'verdicts': [{'run': 3, 'queue': 'queue-6.6',"
		    " 'started_at': '2026-01-03T10:00:00Z', 'finished_at': '2026-01-03T10:02:00Z',"
		    " 'base': '6.6.50', 'branch': '6.6', 'name': 'broken.patch', 'upstream': null,"
		    " 'subject': 'fs: use a missing symbol', 'status': 'drop', 'reason': 'build',"
		    " 'regressions': [], 'changes': [], 'evidence': 'fs/x.c:1: error ?',"
		    " 'author': null, 'date': null, 'message_id': null}],"
		    " 'branches': [{'branch': '6.6', 'base': '6.6.50', 'run': 3, 'queue': 'queue-6.6',"
		    "  'name': 'broken.patch', 'status': 'drop', 'reason': 'build',"
		    "  'started_at': '2026-01-03T10:00:00Z', 'finished_at': '2026-01-03T10:02:00Z'}]}");
	json_decref(answer);

	/* never seen: an empty list, whichever way the key is read */
	answer = history_patch(f->db, "8099b04", &err);
	expect_json(answer, "{'key': '8099b04', 'match': 'name', 'verdicts': [], 'branches': []}");
	json_decref(answer);
	answer = history_patch(f->db, "ffffffffffff", &err);
	expect_json(answer, "{'key': 'ffffffffffff', 'match': 'upstream', 'verdicts': [], 'branches': []}");
	json_decref(answer);
	answer = history_patch(f->db, "%", &err);
	expect_json(answer, "{'key': '%', 'match': 'name', 'verdicts': [], 'branches': []}");
	json_decref(answer);

	expect_failure(history_patch(f->db, "", &err), EINVAL, &err, "patch: the key is empty");
	expect_failure(history_patch(f->db, "bad\xff.patch", &err), EINVAL, &err, "not UTF-8");
	strbuf_release(&err);
}

static void test_case_history(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	json_t *answer;

	/* error and running runs judged nothing and are left out */
	answer = history_case(f->db, "test.pl", 0, 0, &err);
	expect_json(answer,
		    "{'case': 'test.pl', 'kind': 'contract', 'total': 3, 'runs': ["
		    " {'run': 3, 'queue': 'queue-6.6', 'started_at': '2026-01-03T10:00:00Z',"
		    "  'outcome': 'regressed', 'patches': ['exec-shebang-6.6.patch'], 'base': null, 'candidate': null},"
		    " {'run': 2, 'queue': 'queue-6.1', 'started_at': '2026-01-02T10:00:00Z',"
		    "  'outcome': 'pass', 'patches': [], 'base': null, 'candidate': null},"
		    " {'run': 1, 'queue': 'queue-6.1', 'started_at': '2026-01-01T10:00:00Z',"
		    "  'outcome': 'regressed', 'patches': ['shebang.patch'], 'base': null, 'candidate': null}]}");
	json_decref(answer);

	answer = history_case(f->db, "empty", 0, 0, &err);
	expect_json(answer,
		    "{'case': 'empty', 'kind': 'quirk', 'total': 3, 'runs': ["
		    " {'run': 3, 'queue': 'queue-6.6', 'started_at': '2026-01-03T10:00:00Z',"
		    "  'outcome': 'pass', 'patches': [], 'base': null, 'candidate': null},"
		    " {'run': 2, 'queue': 'queue-6.1', 'started_at': '2026-01-02T10:00:00Z',"
		    "  'outcome': 'pass', 'patches': [], 'base': null, 'candidate': null},"
		    " {'run': 1, 'queue': 'queue-6.1', 'started_at': '2026-01-01T10:00:00Z',"
		    "  'outcome': 'changed', 'patches': ['quirk.patch'], 'base': null, 'candidate': null}]}");
	json_decref(answer);

	/* named by a verdict, never recorded by a boot: known, of no recorded kind */
	answer = history_case(f->db, "nixos-2019", 0, 0, &err);
	assert_true(json_is_null(json_object_get(answer, "kind")));
	expect_runs(json_object_get(answer, "runs"), "3,2,1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(answer, "runs"), 2),
							      "outcome")), "regressed");
	json_decref(answer);

	answer = history_case(f->db, "argv-plain", 0, 0, &err);
	expect_runs(json_object_get(answer, "runs"), "3,2,1");
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(answer, "runs"), i),
								      "outcome")), "pass");
	json_decref(answer);

	/* a name nothing knows is not "pass" everywhere */
	answer = history_case(f->db, "test.p", 0, 0, &err);
	expect_json(answer, "{'case': 'test.p', 'kind': null, 'total': 0, 'runs': []}");
	json_decref(answer);

	expect_failure(history_case(f->db, "", 0, 0, &err), EINVAL, &err, "case: the name is empty");
	expect_failure(history_case(f->db, "test.pl", -1, 0, &err), EINVAL, &err, "limit: -1 is negative");
	expect_failure(history_case(f->db, "test.pl", 1, -2, &err), EINVAL, &err, "offset: -2 is negative");
	strbuf_release(&err);
}

/* One page of a case's runs: the total still counts them all. */
static void test_case_pages(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	json_t *answer;

	answer = history_case(f->db, "test.pl", 2, 0, &err);
	expect_runs(json_object_get(answer, "runs"), "3,2");
	expect_int(answer, "total", 3);
	json_decref(answer);
	answer = history_case(f->db, "test.pl", 2, 2, &err);
	expect_runs(json_object_get(answer, "runs"), "1");
	json_decref(answer);
	answer = history_case(f->db, "test.pl", 2, 3, &err);
	expect_runs(json_object_get(answer, "runs"), "");
	expect_int(answer, "total", 3);
	json_decref(answer);
	strbuf_release(&err);
}

/*
 * The case's status on the run's base tree and with its largest sequence,
 * where a boot recorded them: run 1 judged base (tree tb), the whole queue
 * (tq) and one patch (t1); the candidate is the whole queue's boot, its
 * first attempt. A boot of another config is not the run's.
 */
static void test_case_base_and_candidate(void **state)
{
	struct testdb t;
	struct strbuf err = STRBUF_INIT;
	char *msg = NULL;
	json_t *answer, *run;

	(void)state;
	assert_int_equal(testdb_open(&t, "history_test_outcomes"), 0);
	if (sqlite3_exec(t.db,
			 "INSERT INTO snapshot (id, queue, source, content_hash) VALUES (1, 'queue-6.1', 'q', 'h');"
			 "INSERT INTO patch (id, snapshot_id, position, name) VALUES (1, 1, 1, 'a.patch'),"
			 " (2, 1, 2, 'shebang.patch');"
			 "INSERT INTO run (id, snapshot_id, base, suite, verdict, config, started_at) VALUES"
			 " (1, 1, '6.1.192', 's1', 'drop', 'c1', '2026-01-01T10:00:00Z'),"
			 " (2, 1, '6.1.192', 's1', 'pass', NULL, '2026-01-02T10:00:00Z');"
			 "INSERT INTO run_sequence (run_id, position, patches, tree, judged_at) VALUES"
			 " (1, 1, '[]', 'tb', 'x'), (1, 2, '[1,2]', 'tq', 'x'), (1, 3, '[2]', 't1', 'x');"
			 "INSERT INTO verdict (run_id, patch_id, status, reason, regressions) VALUES"
			 " (1, 2, 'drop', 'regression', '[\"test.pl\"]');"
			 "INSERT INTO boot (id, tree, config, suite, attempt, status) VALUES"
			 " (1, 'tb', 'c1', 's1', 1, 'ok'), (2, 'tq', 'c1', 's1', 2, 'ok'),"
			 " (3, 'tq', 'c1', 's1', 1, 'ok'), (4, 't1', 'c1', 's1', 1, 'ok'),"
			 " (5, 'tb', 'other', 's1', 1, 'ok');"
			 "INSERT INTO case_result (boot_id, name, kind, status) VALUES"
			 " (1, 'test.pl', 'contract', 'pass'), (2, 'test.pl', 'contract', 'error'),"
			 " (3, 'test.pl', 'contract', 'fail'), (4, 'test.pl', 'contract', 'fail'),"
			 " (5, 'test.pl', 'contract', 'error');",
			 NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("fixture: %s", msg);
	answer = history_case(t.db, "test.pl", 0, 0, &err);
	assert_non_null(answer);
	/* run 2 has no config (made before migration 0006): nothing to say */
	run = json_array_get(json_object_get(answer, "runs"), 0);
	expect_json(run, "{'run': 2, 'queue': 'queue-6.1', 'started_at': '2026-01-02T10:00:00Z',"
		    " 'outcome': 'pass', 'patches': [], 'base': null, 'candidate': null}");
	run = json_array_get(json_object_get(answer, "runs"), 1);
	expect_json(run, "{'run': 1, 'queue': 'queue-6.1', 'started_at': '2026-01-01T10:00:00Z',"
		    " 'outcome': 'regressed', 'patches': ['shebang.patch'], 'base': 'pass', 'candidate': 'fail'}");
	json_decref(answer);
	testdb_close(&t);
	strbuf_release(&err);
}

static void test_regressions(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	json_t *answer;

	/*
	 * queue-6.1: the clean run 2 closed run 1's regression (the running
	 * run 5 has not finished); queue-6.6: the error run 4 decided
	 * nothing, so run 3's drops stay open.
	 */
	answer = history_regressions(f->db, false, &err);
	expect_json(answer,
		    "{'queues': ["
		    " {'queue': 'queue-6.1', 'branch': '6.1', 'base': '6.1.192', 'run': 2,"
		    "  'started_at': '2026-01-02T10:00:00Z', 'verdict': 'pass', 'open': []},"
		    " {'queue': 'queue-6.6', 'branch': '6.6', 'base': '6.6.50', 'run': 3,"
		    "  'started_at': '2026-01-03T10:00:00Z', 'verdict': 'drop',"
		    "  'open': [{'patch': 'exec-shebang-6.6.patch', 'upstream': '8099B047ECC431518B9BB6BDBBA3549BBECDC343',"
		    "            'cases': ['test.pl'], 'reason': 'regression'},"
		    "           {'patch': 'broken.patch', 'upstream': null, 'cases': [], 'reason': 'build'}]}]}");
	json_decref(answer);

	answer = history_regressions(f->db, true, &err);
	assert_non_null(answer);
	assert_int_equal(json_array_size(json_object_get(answer, "queues")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(answer, "queues"), 0),
							      "queue")), "queue-6.6");
	json_decref(answer);
	strbuf_release(&err);
}

/*
 * One queue judged on several branches: shebang-2019 keeps shebang.patch
 * on 6.1.190 (run 1), drops it for a regression on 6.1.192 (run 2), keeps
 * it on 6.12.118 (run 3) and on 6.6.60 (run 4); run 6 on 6.1 ends in an
 * error. Another queue, queue-6.12, dropped it for a build failure on
 * 6.12.117 before that (run 5).
 */
static const char branches_sql[] =
	"INSERT INTO snapshot (id, queue, source, content_hash) VALUES"
	" (1, 'shebang-2019', 'patches/queues/shebang-2019', 'h1'),"
	" (2, 'queue-6.12', 'https://git.example/stable-queue.git', 'h2');"
	"INSERT INTO patch (id, snapshot_id, position, name, upstream, subject) VALUES"
	" (1, 1, 1, 'good.patch', NULL, 'docs: fix a typo'),"
	" (2, 1, 2, 'shebang.patch', '" SHEBANG_SHA "', 'exec: do not truncate'),"
	" (3, 2, 1, 'shebang.patch', '" SHEBANG_SHA "', 'exec: do not truncate');"
	"INSERT INTO run (id, snapshot_id, base, suite, verdict, error, started_at, finished_at) VALUES"
	" (1, 1, '6.1.190', 's1', 'pass', NULL, '2026-02-01T10:00:00Z', '2026-02-01T10:05:00Z'),"
	" (2, 1, '6.1.192', 's1', 'drop', NULL, '2026-02-02T10:00:00Z', '2026-02-02T10:05:00Z'),"
	" (3, 1, '6.12.118', 's1', 'pass', NULL, '2026-02-03T10:00:00Z', '2026-02-03T10:05:00Z'),"
	" (4, 1, '6.6.60', 's1', 'pass', NULL, '2026-02-04T10:00:00Z', '2026-02-04T10:05:00Z'),"
	" (5, 2, '6.12.117', 's1', 'drop', NULL, '2026-01-30T10:00:00Z', '2026-01-30T10:05:00Z'),"
	" (6, 1, '6.1.193', 's1', 'error', 'build: make: killed', '2026-02-05T10:00:00Z',"
	"  '2026-02-05T10:00:01Z');"
	"INSERT INTO verdict (run_id, patch_id, status, reason, regressions) VALUES"
	" (1, 1, 'ok', NULL, '[]'), (1, 2, 'ok', NULL, '[]'),"
	" (2, 1, 'ok', NULL, '[]'), (2, 2, 'drop', 'regression', '[\"test.pl\"]'),"
	" (3, 1, 'ok', NULL, '[]'), (3, 2, 'ok', NULL, '[]'),"
	" (4, 1, 'ok', NULL, '[]'), (4, 2, 'ok', NULL, '[]'),"
	" (5, 3, 'drop', 'build', '[]');";

static void open_branches_record(struct testdb *t)
{
	char *msg = NULL;

	assert_int_equal(testdb_open(t, "history_test_branches"), 0);
	if (sqlite3_exec(t->db, branches_sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("branches fixture: %s", msg);
}

/* "RUN:BRANCH" of every element of @array, comma-separated. */
static void expect_run_branches(const json_t *array, const char *expected)
{
	struct strbuf got = STRBUF_INIT;
	size_t i;
	json_t *v;

	json_array_foreach(array, i, v)
		strbuf_addf(&got, "%s%lld:%s", i ? "," : "", (long long)json_integer_value(json_object_get(v, "run")),
			    json_string_value(json_object_get(v, "branch")) ?: "(none)");
	if (strcmp(got.buf, expected))
		fail_msg("expected run:branch \"%s\", got \"%s\"", expected, got.buf);
	strbuf_release(&got);
}

/* Dropped on 6.1, kept on 6.6 and 6.12: each branch has its own newest verdict. */
static void test_patch_per_branch(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct testdb t;
	json_t *answer;

	(void)state;
	open_branches_record(&t);
	answer = history_patch(t.db, SHEBANG_SHA, &err);
	if (!answer)
		fail_msg("history_patch: %s", err.buf);
	/* error run 6 judged nothing, so it has no verdict */
	expect_run_branches(json_object_get(answer, "verdicts"), "4:6.6,3:6.12,2:6.1,1:6.1,5:6.12");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(answer, "verdicts"), 2),
							      "base")), "6.1.192");
	/* release order (6.6 before 6.12); on 6.1 the drop of run 2 is newer than the ok of run 1 */
	expect_json(json_object_get(answer, "branches"),
		    "[{'branch': '6.1', 'base': '6.1.192', 'run': 2, 'queue': 'shebang-2019',"
		    "  'name': 'shebang.patch', 'status': 'drop', 'reason': 'regression',"
		    "  'started_at': '2026-02-02T10:00:00Z', 'finished_at': '2026-02-02T10:05:00Z'},"
		    " {'branch': '6.6', 'base': '6.6.60', 'run': 4, 'queue': 'shebang-2019',"
		    "  'name': 'shebang.patch', 'status': 'ok', 'reason': null,"
		    "  'started_at': '2026-02-04T10:00:00Z', 'finished_at': '2026-02-04T10:05:00Z'},"
		    " {'branch': '6.12', 'base': '6.12.118', 'run': 3, 'queue': 'shebang-2019',"
		    "  'name': 'shebang.patch', 'status': 'ok', 'reason': null,"
		    "  'started_at': '2026-02-03T10:00:00Z', 'finished_at': '2026-02-03T10:05:00Z'}]");
	json_decref(answer);

	/* the same by file name: both queues call it shebang.patch */
	answer = history_patch(t.db, "shebang.patch", &err);
	expect_run_branches(json_object_get(answer, "branches"), "2:6.1,4:6.6,3:6.12");
	json_decref(answer);
	testdb_close(&t);
	strbuf_release(&err);
}

/*
 * --open per queue and branch: the 6.1 drop of run 2 stays open although
 * 6.6 and 6.12 ran clean later (grouped by queue alone, the newest run,
 * 4 on 6.6, would have closed it), and the error run 6 on 6.1 closes
 * nothing.
 */
static void test_regressions_per_branch(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct testdb t;
	json_t *answer;

	(void)state;
	open_branches_record(&t);
	answer = history_regressions(t.db, false, &err);
	expect_json(answer,
		    "{'queues': ["
		    " {'queue': 'queue-6.12', 'branch': '6.12', 'base': '6.12.117', 'run': 5,"
		    "  'started_at': '2026-01-30T10:00:00Z', 'verdict': 'drop',"
		    "  'open': [{'patch': 'shebang.patch', 'upstream': '" SHEBANG_SHA "', 'cases': [],"
		    "            'reason': 'build'}]},"
		    " {'queue': 'shebang-2019', 'branch': '6.1', 'base': '6.1.192', 'run': 2,"
		    "  'started_at': '2026-02-02T10:00:00Z', 'verdict': 'drop',"
		    "  'open': [{'patch': 'shebang.patch', 'upstream': '" SHEBANG_SHA "', 'cases': ['test.pl'],"
		    "            'reason': 'regression'}]},"
		    " {'queue': 'shebang-2019', 'branch': '6.6', 'base': '6.6.60', 'run': 4,"
		    "  'started_at': '2026-02-04T10:00:00Z', 'verdict': 'pass', 'open': []},"
		    " {'queue': 'shebang-2019', 'branch': '6.12', 'base': '6.12.118', 'run': 3,"
		    "  'started_at': '2026-02-03T10:00:00Z', 'verdict': 'pass', 'open': []}]}");
	json_decref(answer);

	answer = history_regressions(t.db, true, &err);
	expect_run_branches(json_object_get(answer, "queues"), "5:6.12,2:6.1");
	json_decref(answer);
	testdb_close(&t);
	strbuf_release(&err);
}

static void test_runs_carry_branch(void **state)
{
	struct history_filter b612 = { .branch = "6.12" };
	struct strbuf err = STRBUF_INIT;
	struct testdb t;
	json_t *answer;

	(void)state;
	open_branches_record(&t);
	answer = history_runs(t.db, NULL, &err);
	expect_run_branches(json_object_get(answer, "runs"), "6:6.1,4:6.6,3:6.12,2:6.1,1:6.1,5:6.12");
	json_decref(answer);
	answer = history_runs(t.db, &b612, &err);
	expect_run_branches(json_object_get(answer, "runs"), "3:6.12,5:6.12");
	json_decref(answer);
	testdb_close(&t);
	strbuf_release(&err);
}

/* The page's table: the latest finished run per queue and branch, with its drops counted. */
static void test_branches(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct testdb t;
	json_t *answer;

	(void)state;
	open_branches_record(&t);
	answer = history_branches(t.db, &err);
	if (!answer)
		fail_msg("history_branches: %s", err.buf);
	expect_json(answer,
		    "{'branches': ["
		    " {'queue': 'queue-6.12', 'branch': '6.12', 'run': 5, 'base': '6.12.117', 'verdict': 'drop',"
		    "  'started_at': '2026-01-30T10:00:00Z', 'finished_at': '2026-01-30T10:05:00Z', 'drops': 1},"
		    " {'queue': 'shebang-2019', 'branch': '6.1', 'run': 2, 'base': '6.1.192', 'verdict': 'drop',"
		    "  'started_at': '2026-02-02T10:00:00Z', 'finished_at': '2026-02-02T10:05:00Z', 'drops': 1},"
		    " {'queue': 'shebang-2019', 'branch': '6.6', 'run': 4, 'base': '6.6.60', 'verdict': 'pass',"
		    "  'started_at': '2026-02-04T10:00:00Z', 'finished_at': '2026-02-04T10:05:00Z', 'drops': 0},"
		    " {'queue': 'shebang-2019', 'branch': '6.12', 'run': 3, 'base': '6.12.118', 'verdict': 'pass',"
		    "  'started_at': '2026-02-03T10:00:00Z', 'finished_at': '2026-02-03T10:05:00Z', 'drops': 0}]}");
	json_decref(answer);
	testdb_close(&t);
	strbuf_release(&err);
}

/* A record with nothing in it answers every question with empty lists. */
static void test_empty_record(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct testdb empty;
	json_t *answer;

	(void)state;
	assert_int_equal(testdb_open(&empty, "history_test_empty"), 0);
	answer = history_runs(empty.db, NULL, &err);
	expect_json(answer, "{'runs': [], 'total': 0, 'limit': 50, 'offset': 0}");
	json_decref(answer);
	answer = history_regressions(empty.db, false, &err);
	expect_json(answer, "{'queues': []}");
	json_decref(answer);
	answer = history_branches(empty.db, &err);
	expect_json(answer, "{'branches': []}");
	json_decref(answer);
	answer = history_case(empty.db, "test.pl", 0, 0, &err);
	expect_json(answer, "{'case': 'test.pl', 'kind': null, 'total': 0, 'runs': []}");
	json_decref(answer);
	expect_failure(history_run_report(empty.db, 1, &err), ENOENT, &err, "no run 1");
	testdb_close(&empty);
	strbuf_release(&err);
}

/* The one reading of --limit/--offset and ?limit=/&offset=. */
static void test_parse_limit_offset(void **state)
{
	static const char *const bad[] = { "abc", "", "-1", "5x", "1.5", "99999999999999999999" };
	struct strbuf err = STRBUF_INIT;
	int64_t n = -7;

	(void)state;
	assert_int_equal(history_parse_limit("limit", "20", &n, &err), 0);
	assert_int_equal(n, 20);
	assert_int_equal(history_parse_limit("limit", "100000", &n, &err), 0);
	assert_int_equal(n, 100000);	/* history_runs() clamps it */
	assert_int_equal(history_parse_offset("offset", "0", &n, &err), 0);
	assert_int_equal(n, 0);
	assert_string_equal(err.buf, "");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];

		strbuf_reset(&err);
		n = -7;
		assert_int_equal(history_parse_limit("limit", bad[i], &n, &err), -EINVAL);
		snprintf(want, sizeof(want), "limit: '%s' is not a count", bad[i]);
		assert_string_equal(err.buf, want);
		assert_int_equal(n, -7);
		strbuf_reset(&err);
		assert_int_equal(history_parse_offset("--offset", bad[i], &n, &err), -EINVAL);
		snprintf(want, sizeof(want), "--offset: '%s' is not a count", bad[i]);
		assert_string_equal(err.buf, want);
	}
	strbuf_reset(&err);
	assert_int_equal(history_parse_limit("--limit", "0", &n, &err), -EINVAL);
	assert_string_equal(err.buf, "--limit: 0 runs is no answer (1 to 500)");
	strbuf_release(&err);
}


/* Words of a subject, any case and order; a short sha; nothing found. */
static void test_search(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	json_t *answer;

	answer = history_search(f->db, "  truncate\tEXEC ", &err);
	expect_json(answer,
		    "{'query': '  truncate\\tEXEC ', 'more': false, 'patches': ["
		    "{'name': 'exec-shebang-6.6.patch', 'upstream': '" "8099B047ECC431518B9BB6BDBBA3549BBECDC343" "',"
		    " 'subject': 'exec: do not truncate', 'author': null, 'runs': 1, 'last_run': 3},"
		    "{'name': 'shebang.patch', 'upstream': '" SHEBANG_SHA "', 'subject': 'exec: do not truncate',"
		    " 'author': 'A U Thor <author@example.org>', 'runs': 2, 'last_run': 2}]}");
	json_decref(answer);
	/* 7 hex digits: the upstream prefix, in either case */
	answer = history_search(f->db, "8099b04", &err);
	if (json_array_size(json_object_get(answer, "patches")) != 2 ||
	    strcmp(json_string_value(json_object_get(json_array_get(json_object_get(answer, "patches"), 0), "name")),
		   "exec-shebang-6.6.patch") ||
	    strcmp(json_string_value(json_object_get(json_array_get(json_object_get(answer, "patches"), 1), "name")),
		   "shebang.patch"))
		fail_msg("search 8099b04: expected exec-shebang-6.6.patch and shebang.patch, got %s",
			 json_dumps(answer, JSON_COMPACT));
	json_decref(answer);
	answer = history_search(f->db, "cb5b020", &err);
	expect_json(json_object_get(answer, "patches"),
		    "[{'name': 'revert-shebang.patch', 'upstream': 'cb5b020a8d38f77209d0472a0fea755299a8ec78',"
		    " 'subject': 'Revert exec', 'author': null, 'runs': 1, 'last_run': 2}]");
	json_decref(answer);
	/* a sha prefix among other words is a word of the subject, found nowhere */
	answer = history_search(f->db, "cb5b020 exec", &err);
	expect_json(json_object_get(answer, "patches"), "[]");
	json_decref(answer);
	/* % and _ are matched as written, not as LIKE patterns */
	answer = history_search(f->db, "%", &err);
	expect_json(json_object_get(answer, "patches"), "[]");
	json_decref(answer);
	/* a word that is not UTF-8 is in no stored subject */
	answer = history_search(f->db, "exec \xff", &err);
	expect_json(json_object_get(answer, "patches"), "[]");
	json_decref(answer);
	expect_failure(history_search(f->db, " \t", &err), EINVAL, &err, "search: no word to look for");
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_newest_first),
		cmocka_unit_test(test_runs_filters),
		cmocka_unit_test(test_runs_by_id),
		cmocka_unit_test(test_runs_pages),
		cmocka_unit_test(test_runs_by_branch),
		cmocka_unit_test(test_runs_bad_filters),
		cmocka_unit_test(test_parse_limit_offset),
		cmocka_unit_test(test_run_report),
		cmocka_unit_test(test_patch_by_upstream),
		cmocka_unit_test(test_patch_by_name),
		cmocka_unit_test(test_case_history),
		cmocka_unit_test(test_case_pages),
		cmocka_unit_test(test_case_base_and_candidate),
		cmocka_unit_test(test_regressions),
		cmocka_unit_test(test_patch_per_branch),
		cmocka_unit_test(test_regressions_per_branch),
		cmocka_unit_test(test_runs_carry_branch),
		cmocka_unit_test(test_branches),
		cmocka_unit_test(test_empty_record),
		cmocka_unit_test(test_search),
	};

	return cmocka_run_group_tests(tests, setup, testdb_teardown);
}
