// SPDX-License-Identifier: GPL-2.0
/*
 * The rows of a run (record/run.h): run_start() writes the snapshot, its
 * patches and a 'running' run, and reuses a snapshot gated before;
 * run_record_verdict() writes every patch's rows and the verdict, or
 * nothing at all when a statement fails or the database stays locked;
 * run_record_error() ends a run as an error.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/db.h"
#include "record/run.h"
#include "testdb.h"

/* The first column of @sql's rows, joined with ",", NULL as "-". */
static char *query(sqlite3 *db, const char *sql)
{
	struct strbuf out = STRBUF_INIT;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		strbuf_addf(&out, "%s%s", out.len ? "," : "", v ? v : "-");
	}
	sqlite3_finalize(st);
	return strbuf_detach(&out, NULL);
}

#define assert_query(db, sql, expected) do {			\
	char *got_ = query(db, sql);				\
	assert_string_equal(got_, expected);			\
	free(got_);						\
} while (0)

static const struct run_patch patches[] = {
	{ .name = "0001-a.patch", .upstream = "0123456789abcdef0123456789abcdef01234567",
	  .subject = "a: fix", .author = "A <a@a>", .content_hash = "h1" },
	{ .name = "0002-b.patch", .error = "not a patch" },
};
static const struct run_snapshot snap = {
	.queue = "queue-6.1", .source = "/q", .content_hash = "snap1",
	.patches = patches, .n = 2,
};

static struct strlist regs = { 0 };

static struct run_patch_result results[] = {
	{ .apply_status = "applied", .apply_message = "", .status = "drop", .reason = "regression",
	  .regressions = &regs, .evidence = "case x failed", .steps = "" },
	{ .apply_status = "refused", .apply_message = "refused: not a patch", .status = "drop",
	  .reason = "apply", .evidence = "not a patch\n", .steps = "" },
};

static void start(struct testdb *f, int64_t *ret_run, int64_t *ids)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(run_start(f->db, &snap, "6.1.99", "suite1", ret_run, ids, &err), 0);
	assert_string_equal(err.buf, "");
	strbuf_release(&err);
}

static void test_start_and_verdict(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	int64_t run, ids[2];
	json_t *report = json_pack("{s:s}", "verdict", "drop");
	struct run_verdict v = { .patch_ids = ids, .patches = results, .n = 2, .verdict = "drop",
				 .report = report, .stats = { 1, 2, 3, 4.5 },
				 .kept_tree = "t", .kept_commit = "c" };

	strlist_append(&regs, "case-x");
	strlist_append(&regs, "case-y");
	start(f, &run, ids);
	assert_int_equal(run, 1);
	assert_query(f->db, "SELECT verdict FROM run", "running");
	assert_query(f->db, "SELECT name || ':' || COALESCE(upstream, '-') || ':' || COALESCE(error, '-') "
		     "FROM patch ORDER BY position",
		     "0001-a.patch:0123456789abcdef0123456789abcdef01234567:-,0002-b.patch:-:not a patch");
	v.run = run;
	assert_int_equal(run_record_verdict(f->db, &v, &err), 0);
	assert_query(f->db, "SELECT verdict || ' ' || report || ' ' || builds || ' ' || boots || ' ' || "
		     "evaluations || ' ' || kept_tree FROM run JOIN run_report ON run_id = id",
		     "drop {\"verdict\":\"drop\"} 1 2 3 t");
	assert_query(f->db, "SELECT status || ':' || COALESCE(reason, '-') || ':' || regressions || ':' || "
		     "changes FROM verdict ORDER BY patch_id",
		     "drop:regression:[\"case-x\",\"case-y\"]:[],drop:apply:[]:[]");
	assert_query(f->db, "SELECT status FROM apply_result ORDER BY patch_id", "applied,refused");
	strlist_release(&regs);
	json_decref(report);
	strbuf_release(&err);
}

static void test_snapshot_reused(void **state)
{
	struct testdb *f = *state;
	int64_t run1, run2, ids1[2], ids2[2];

	start(f, &run1, ids1);
	start(f, &run2, ids2);
	assert_int_not_equal(run1, run2);
	assert_memory_equal(ids1, ids2, sizeof(ids1));
	assert_query(f->db, "SELECT COUNT(*) FROM snapshot", "1");
	assert_query(f->db, "SELECT COUNT(*) FROM patch", "2");
	assert_query(f->db, "SELECT COUNT(*) FROM run", "2");
}

/* The second patch's rows fail (no such patch): none of the verdict is kept. */
static void test_verdict_whole_or_absent(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	int64_t run, ids[2];
	json_t *report = json_object();
	struct run_verdict v = { .patch_ids = ids, .patches = results, .n = 2, .verdict = "drop",
				 .report = report };

	start(f, &run, ids);
	v.run = run;
	ids[1] = 9999;
	assert_int_equal(run_record_verdict(f->db, &v, &err), -EIO);
	assert_string_equal(err.buf, "database: recording the verdict: FOREIGN KEY constraint failed");
	assert_query(f->db, "SELECT verdict FROM run", "running");
	assert_query(f->db, "SELECT COUNT(*) FROM verdict", "0");
	assert_query(f->db, "SELECT COUNT(*) FROM apply_result", "0");
	json_decref(report);
	strbuf_release(&err);
}

/* Another process holds the write lock past the busy timeout: nothing is written. */
static void test_verdict_locked(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	int64_t run, ids[2];
	json_t *report = json_object();
	struct run_verdict v = { .patch_ids = ids, .patches = results, .n = 2, .verdict = "drop",
				 .report = report };
	sqlite3 *other;

	start(f, &run, ids);
	v.run = run;
	assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_busy_timeout(f->db, 50);
	assert_int_equal(run_record_verdict(f->db, &v, &err), -EIO);
	assert_string_equal(err.buf, "database: recording the verdict: database is locked");
	assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	assert_query(f->db, "SELECT verdict FROM run", "running");
	assert_query(f->db, "SELECT COUNT(*) FROM verdict", "0");
	json_decref(report);
	strbuf_release(&err);
}

static void test_error(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct run_stats stats = { 2, 1, 0, 3.0 };
	int64_t run, ids[2];
	json_t *report = json_object();
	struct run_verdict v = { .run = 42, .patch_ids = ids, .patches = results, .n = 0,
				 .verdict = "pass", .report = report };

	start(f, &run, ids);
	assert_int_equal(run_record_error(f->db, run, "build: no space left", NULL, &stats, &err), 0);
	assert_query(f->db, "SELECT verdict || ':' || error || ':' || builds || ':' || "
		     "COALESCE(report, '-') FROM run LEFT JOIN run_report ON run_id = id",
		     "error:build: no space left:2:-");
	assert_int_equal(run_record_verdict(f->db, &v, &err), -ENOENT);
	assert_string_equal(err.buf, "database: recording the verdict: run 42 is not in the record");
	json_decref(report);
	strbuf_release(&err);
}

/* A run whose process is gone is ended; one whose process lives, or with no owner, is not. */
static void test_reap(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT, boot = STRBUF_INIT;
	int64_t ids[2], mine, dead, other_boot, unowned;
	unsigned reaped;
	char *sql;
	pid_t child;

	start(f, &mine, ids);	/* owned by this process, which lives */
	start(f, &dead, ids);
	start(f, &other_boot, ids);
	start(f, &unowned, ids);
	assert_int_equal(strbuf_read_file(&boot, "/proc/sys/kernel/random/boot_id"), 0);
	strbuf_rtrim(&boot);
	/* a pid that was alive and is gone: a child, reaped */
	child = fork();
	if (child == 0)
		_exit(0);
	assert_true(child > 0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	sql = sqlite3_mprintf("UPDATE run SET owner = '%q:%d' WHERE id = %lld; "
			      "UPDATE run SET owner = '00000000-0000-0000-0000-000000000000:%d' "
			      "WHERE id = %lld; UPDATE run SET owner = NULL WHERE id = %lld",
			      boot.buf, (int)child, (long long)dead, (int)getpid(),
			      (long long)other_boot, (long long)unowned);
	assert_int_equal(sqlite3_exec(f->db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(sql);

	assert_int_equal(run_reap(f->db, &reaped, &err), 0);
	assert_int_equal(reaped, 2);
	assert_query(f->db, "SELECT verdict FROM run ORDER BY id", "running,error,error,running");
	assert_query(f->db, "SELECT COUNT(*) FROM run WHERE error LIKE 'interrupted: %' AND "
		     "finished_at IS NOT NULL", "2");
	/* a second pass finds nothing more */
	assert_int_equal(run_reap(f->db, &reaped, &err), 0);
	assert_int_equal(reaped, 0);
	strbuf_release(&boot);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_start_and_verdict, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_reused, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_verdict_whole_or_absent, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_verdict_locked, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_error, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_reap, testdb_setup, testdb_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
