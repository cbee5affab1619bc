// SPDX-License-Identifier: GPL-2.0
/*
 * The record's boots (db_boot_put, db_boot_get): what a boot put in comes
 * back out whole (status, evidence, every case with its kind, status and
 * diagnostic, in order), attempts count up per tree, and a failed boot
 * keeps its status and evidence but no cases. A record from before
 * migration 0010 keeps its reports, in their own table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "basic/xalloc.h"
#include "record/db.h"
#include "testdb.h"

static const struct tree_key key = {
	.tree = "1111111111111111111111111111111111111111",
	.config = "c0ffee",
	.suite = "5u17e",
};

static void test_boot_round_trip(void **state)
{
	struct testdb *f = *state;
	struct case_result cases[] = {
		{ .name = "test.pl", .quirk = false, .status = CASE_FAIL, .diagnostic = "ran /bin/sh" },
		{ .name = "empty", .quirk = true, .status = CASE_QUIRK_CHANGED, .diagnostic = "argv[1]=\"\"" },
		{ .name = "exact", .quirk = false, .status = CASE_PASS, .diagnostic = "" },
	};
	struct db_boot in = DB_BOOT_INIT, out = DB_BOOT_INIT;
	bool found = true;

	in.status = BOOT_OK;
	in.ktap.cases = cases;
	in.ktap.n_cases = 3;
	in.ktap.planned = 3;
	in.ktap.complete = true;
	assert_int_equal(db_boot_get(f->db, &key, 1, &found, &out), 0);
	assert_false(found);
	assert_int_equal(db_boot_put(f->db, &key, &in, "tcg", 2.5), 0);
	assert_int_equal(db_boot_get(f->db, &key, 1, &found, &out), 0);
	assert_true(found);
	assert_false(out.failed);
	assert_int_equal(out.status, BOOT_OK);
	assert_string_equal(out.evidence.buf, "");
	assert_true(out.ktap.complete);
	assert_int_equal(out.ktap.n_cases, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(out.ktap.cases[i].name, cases[i].name);
		assert_int_equal(out.ktap.cases[i].quirk, cases[i].quirk);
		assert_int_equal(out.ktap.cases[i].status, cases[i].status);
		assert_string_equal(out.ktap.cases[i].diagnostic, cases[i].diagnostic);
	}
	db_boot_release(&out);
	/* the next boot of the same tree is attempt 2 */
	assert_int_equal(db_boot_get(f->db, &key, 2, &found, &out), 0);
	assert_false(found);
}

static void test_failed_boot(void **state)
{
	struct testdb *f = *state;
	struct db_boot in = DB_BOOT_INIT, out = DB_BOOT_INIT;
	bool found = false;

	in.failed = true;
	in.status = BOOT_PANIC;
	assert_int_equal(strbuf_adds(&in.evidence, "Kernel panic - not syncing: VFS"), 0);
	assert_int_equal(db_boot_put(f->db, &key, &in, "tcg", 1.0), 0);
	assert_int_equal(db_boot_put(f->db, &key, &in, "tcg", 1.0), 0);
	assert_int_equal(db_boot_get(f->db, &key, 2, &found, &out), 0);
	assert_true(found);
	assert_true(out.failed);
	assert_string_equal(boot_status_name(out.status), "panic");
	assert_string_equal(out.evidence.buf, "Kernel panic - not syncing: VFS");
	assert_int_equal(out.ktap.n_cases, 0);
	db_boot_release(&out);
	db_boot_release(&in);
}

/* A build put in comes back with its status, first error and time. */
static void test_build_round_trip(void **state)
{
	struct testdb *f = *state;
	struct strbuf first_error = STRBUF_INIT;
	sqlite3_stmt *st;
	bool found, ok;

	assert_int_equal(db_build_get(f->db, &key, &found, &ok, &first_error), 0);
	assert_false(found);
	assert_int_equal(db_build_put(f->db, &key, false, "fs/x.c:1:1: error: nope", 12.5), 0);
	assert_int_equal(db_build_get(f->db, &key, &found, &ok, &first_error), 0);
	assert_true(found);
	assert_false(ok);
	assert_string_equal(first_error.buf, "fs/x.c:1:1: error: nope");
	assert_int_equal(sqlite3_prepare_v2(f->db, "SELECT seconds FROM build WHERE tree = ?", -1, &st,
					    NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, key.tree, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_true(sqlite3_column_double(st, 0) == 12.5);
	sqlite3_finalize(st);

	strbuf_reset(&first_error);
	assert_int_equal(db_build_put(f->db, &key, true, NULL, 3.0), 0);
	assert_int_equal(db_build_get(f->db, &key, &found, &ok, &first_error), 0);
	assert_true(found);
	assert_true(ok);
	assert_string_equal(first_error.buf, "");
	strbuf_release(&first_error);
}

/*
 * A record at @path as the gate left it before migration @name (its first
 * four digits): every earlier migration applied, and user_version saying so.
 */
static sqlite3 *old_record(const char *path, const char *name)
{
	char version[64];
	sqlite3 *db;
	size_t i;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	for (i = 0; i < db_migration_count && strncmp(db_migrations[i].name, name, 4); i++)
		assert_int_equal(sqlite3_exec(db, db_migrations[i].sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(i, (size_t)atoi(name) - 1);
	snprintf(version, sizeof(version), "PRAGMA user_version=%zu;", i);
	assert_int_equal(sqlite3_exec(db, version, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

/*
 * Migration 0010 on a record made before it: every stored report moves to
 * run_report, a run without one gets no row, and the run table keeps no
 * report column.
 */
static void test_reports_move_out(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/old.db", f->dir);
	sqlite3 *old, *db = NULL;
	sqlite3_stmt *st;

	old = old_record(path, "0010");
	assert_int_equal(sqlite3_exec(old, "INSERT INTO snapshot (id, queue, source, content_hash) VALUES (1, 'q', '/q', 'h');"
				      "INSERT INTO run (id, snapshot_id, base, suite, verdict, report) VALUES"
				      " (1, 1, '6.1.192', 's', 'drop', '{\"run\":1}'),"
				      " (2, 1, '6.1.192', 's', 'running', NULL);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(old);

	assert_int_equal(db_open(path, &db, &err), 0);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(run_id || ' ' || report, ';') FROM run_report",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "1 {\"run\":1}");
	sqlite3_finalize(st);
	assert_int_not_equal(sqlite3_prepare_v2(db, "SELECT report FROM run", -1, &st, NULL), SQLITE_OK);
	sqlite3_finalize(st);
	db_close(db);
	unlink(path);
	free(path);
	strbuf_release(&err);
}

/*
 * Migration 0011 on a record made before it: each webhook delivery keeps
 * its job and gains that job's queue, so a redelivery of an old push is
 * still recognised, and the same delivery may now queue a second queue.
 */
static void test_deliveries_gain_queue(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/old.db", f->dir);
	sqlite3 *old, *db = NULL;
	sqlite3_stmt *st;

	old = old_record(path, "0011");
	assert_int_equal(sqlite3_exec(old, "INSERT INTO job (id, queue, trigger, state) VALUES"
				      " (4, 'stable-6.1', 'webhook', 'done');"
				      "INSERT INTO delivery (id, job_id) VALUES ('push-1', 4);",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(old);

	assert_int_equal(db_open(path, &db, &err), 0);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id || ' ' || queue || ' ' || job_id FROM delivery",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "push-1 stable-6.1 4");
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_exec(db, "INSERT INTO delivery (id, queue, job_id) VALUES ('push-1', 'stable-6.12', 4)",
				      NULL, NULL, NULL), SQLITE_OK);
	db_close(db);
	unlink(path);
	free(path);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_boot_round_trip, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_failed_boot, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_build_round_trip, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_reports_move_out, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_deliveries_gain_queue, testdb_setup, testdb_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
