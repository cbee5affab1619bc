// SPDX-License-Identifier: GPL-2.0
/*
 * basic/sql: one letter per parameter binds it as given (a NULL string as
 * SQL NULL, numbered parameters by their number), and a format that does
 * not match the statement is refused before anything is bound; a
 * statement rebound runs again with the new values.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "basic/sql.h"

static sqlite3 *open_table(void)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sql_exec(db, "CREATE TABLE t (i INTEGER, d REAL, s TEXT)", ""), 0);
	return db;
}

static void test_binds_each_kind(void **state)
{
	sqlite3 *db = open_table();
	sqlite3_stmt *st;

	(void)state;
	assert_int_equal(sql_exec(db, "INSERT INTO t VALUES (?, ?, ?)", "ids", (sqlite3_int64)7, 2.5,
				  "seven"), 0);
	assert_int_equal(sql_exec(db, "INSERT INTO t VALUES (?3, ?2, ?1)", "sdi", (const char *)NULL,
				  0.5, (sqlite3_int64)8), 0);
	assert_int_equal(sql_prepare(db, &st, "SELECT i, d, s FROM t WHERE i > ? ORDER BY i", "i",
				     (sqlite3_int64)0), 0);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), 7);
	assert_true(sqlite3_column_double(st, 1) == 2.5);
	assert_string_equal((const char *)sqlite3_column_text(st, 2), "seven");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), 8);
	assert_true(sqlite3_column_double(st, 1) == 0.5);
	assert_int_equal(sqlite3_column_type(st, 2), SQLITE_NULL);
	assert_int_equal(sql_step_done(st), 0);	/* no third row */
	sqlite3_close(db);
}

static void test_format_must_match(void **state)
{
	sqlite3 *db = open_table();
	sqlite3_stmt *st = (sqlite3_stmt *)&st;

	(void)state;
	/* one letter short: the third value would be read from nowhere */
	assert_int_equal(sql_exec(db, "INSERT INTO t VALUES (?, ?, ?)", "id", (sqlite3_int64)1, 1.0),
			 -EINVAL);
	assert_int_equal(sql_prepare(db, &st, "SELECT * FROM t WHERE i = ?", "ii", (sqlite3_int64)1,
				     (sqlite3_int64)2), -EINVAL);
	assert_null(st);
	assert_int_equal(sql_exec(db, "SELECT no_such_column FROM t", ""), -EIO);
	assert_int_equal(sql_prepare(db, &st, "SELECT count(*) FROM t", ""), 0);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_rebind(void **state)
{
	sqlite3 *db = open_table();
	sqlite3_stmt *st;

	(void)state;
	assert_int_equal(sql_exec(db, "INSERT INTO t VALUES (1, 0, 'one'), (2, 0, 'two')", ""), 0);
	assert_int_equal(sql_prepare(db, &st, "SELECT s FROM t WHERE i = ?", "i", (sqlite3_int64)1), 0);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "one");
	/* mid-way through the rows, as a caller that needs only the first is */
	assert_int_equal(sql_rebind(st, "i", (sqlite3_int64)2), 0);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "two");
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	assert_int_equal(sql_rebind(st, "s", (const char *)NULL), 0);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	assert_int_equal(sql_rebind(st, "ii", (sqlite3_int64)1, (sqlite3_int64)2), -EINVAL);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binds_each_kind),
		cmocka_unit_test(test_format_must_match),
		cmocka_unit_test(test_rebind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
