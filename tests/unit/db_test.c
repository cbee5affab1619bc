// SPDX-License-Identifier: GPL-2.0
/*
 * The record's boots (db_boot_put, db_boot_get): what a boot put in comes
 * back out whole (status, evidence, every case with its kind, status and
 * diagnostic, in order), attempts count up per tree, and a failed boot
 * keeps its status and evidence but no cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_boot_round_trip, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_failed_boot, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_build_round_trip, testdb_setup, testdb_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
