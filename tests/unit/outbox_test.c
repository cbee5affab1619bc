// SPDX-License-Identifier: GPL-2.0
/*
 * The outbox's rows (record/outbox.h): a notification is added once per
 * run and receiver, is due from the start, oldest first and at most as
 * many as asked; a failed attempt makes it due again at the time given,
 * until the last attempt fails it for good; a sent one is due no more.
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

#include "record/outbox.h"
#include "testdb.h"

/* A run for the rows to name (outbox.run_id references it): run 1. */
static const char one_run[] =
	"INSERT INTO snapshot (queue, source, content_hash) VALUES ('6.1', '/q', 'h');"
	" INSERT INTO run (snapshot_id, base, suite, verdict) VALUES (1, '6.1.192', 's', 'pass');";

/* The state of row @id, as the record holds it: "pending 3 HTTP 500", say. */
static void assert_row(sqlite3 *db, int64_t id, const char *want)
{
	char sql[160], got[160] = "(no row)";
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql), "SELECT state || ' ' || attempts || ' ' || COALESCE(last_error, '-')"
		 " FROM outbox WHERE id = %lld", (long long)id);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(got, sizeof(got), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (strcmp(got, want))
		fail_msg("outbox row %lld: expected \"%s\", got \"%s\"", (long long)id, want, got);
}

static size_t due(sqlite3 *db, double now, int max, struct outbox_entry **ret)
{
	size_t n;

	assert_int_equal(outbox_due(db, now, max, ret, &n), 0);
	return n;
}

static void test_add_and_due(void **state)
{
	struct testdb *f = *state;
	struct outbox_entry *e;

	assert_int_equal(sqlite3_exec(f->db, one_run, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(due(f->db, 1000, 5, &e), 0);
	assert_null(e);
	assert_int_equal(outbox_add(f->db, 1, "http://a.example/", "{\"run\":1}"), 0);
	assert_int_equal(outbox_add(f->db, 1, "http://b.example/", "{\"run\":1}"), 0);
	/* the same run to the same receiver again: still one row */
	assert_int_equal(outbox_add(f->db, 1, "http://a.example/", "{\"other\":1}"), 0);
	assert_int_equal(due(f->db, 1000, 5, &e), 2);
	assert_string_equal(e[0].url, "http://a.example/");
	assert_string_equal(e[0].body, "{\"run\":1}");
	assert_int_equal(e[0].attempts, 0);
	assert_string_equal(e[1].url, "http://b.example/");
	assert_true(e[0].id < e[1].id);
	outbox_entries_free(e, 2);
	assert_int_equal(due(f->db, 1000, 1, &e), 1);
	assert_string_equal(e[0].url, "http://a.example/");
	outbox_entries_free(e, 1);
	/* a run that does not exist: the foreign key refuses it */
	assert_int_equal(outbox_add(f->db, 2, "http://a.example/", "{}"), -EIO);
}

static void test_attempts(void **state)
{
	struct testdb *f = *state;
	struct outbox_entry *e;
	int64_t a, b;
	char want[64];

	assert_int_equal(sqlite3_exec(f->db, one_run, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(outbox_add(f->db, 1, "http://a.example/", "{}"), 0);
	assert_int_equal(outbox_add(f->db, 1, "http://b.example/", "{}"), 0);
	assert_int_equal(due(f->db, 1000, 5, &e), 2);
	a = e[0].id;
	b = e[1].id;
	outbox_entries_free(e, 2);

	assert_int_equal(outbox_mark_failed(f->db, a, 1, 1002, "HTTP 500"), 0);
	assert_row(f->db, a, "pending 1 HTTP 500");
	assert_int_equal(outbox_mark_sent(f->db, b, 1), 0);
	assert_row(f->db, b, "sent 1 -");
	/* not before the time given, then with the attempts so far */
	assert_int_equal(due(f->db, 1001, 5, &e), 0);
	assert_int_equal(due(f->db, 1002, 5, &e), 1);
	assert_int_equal(e[0].id, a);
	assert_int_equal(e[0].attempts, 1);
	outbox_entries_free(e, 1);

	for (int attempt = 2; attempt < OUTBOX_MAX_ATTEMPTS; attempt++)
		assert_int_equal(outbox_mark_failed(f->db, a, attempt, 1002, "timeout"), 0);
	snprintf(want, sizeof(want), "pending %d timeout", OUTBOX_MAX_ATTEMPTS - 1);
	assert_row(f->db, a, want);
	assert_int_equal(outbox_mark_failed(f->db, a, OUTBOX_MAX_ATTEMPTS, 1002, "refused"), 0);
	snprintf(want, sizeof(want), "failed %d refused", OUTBOX_MAX_ATTEMPTS);
	assert_row(f->db, a, want);
	assert_int_equal(due(f->db, 1e12, 5, &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_and_due, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_attempts, testdb_setup, testdb_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
