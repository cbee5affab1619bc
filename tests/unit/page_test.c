// SPDX-License-Identifier: GPL-2.0
/*
 * The page's table "By queue and branch", rendered from a record made by
 * hand: shebang-2019 dropped one patch on 6.1.192 (run 2, after a clean
 * run 1 on 6.1.190) and kept everything on 6.12.118 (run 3), then failed
 * with an error on 6.1.193 (run 4, which judged nothing); a queue whose
 * name needs escaping passed on 6.6.60 (run 5). The rows are compared
 * whole, as the browser gets them. A queue's job waiting to retry says
 * when and why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output/page.h"
#include "testdb.h"

static const char fixture_sql[] =
	"INSERT INTO snapshot (id, queue, source, content_hash) VALUES"
	" (1, 'shebang-2019', 'patches/queues/shebang-2019', 'h1'),"
	" (2, 'a<b>&c', 'patches/queues/x', 'h2');"
	"INSERT INTO patch (id, snapshot_id, position, name) VALUES"
	" (1, 1, 1, 'good.patch'), (2, 1, 2, 'shebang.patch'), (3, 2, 1, 'x.patch');"
	"INSERT INTO run (id, snapshot_id, base, suite, verdict, started_at, finished_at) VALUES"
	" (1, 1, '6.1.190', 's', 'pass', '2026-02-01T10:00:00Z', '2026-02-01T10:05:00Z'),"
	" (2, 1, '6.1.192', 's', 'drop', '2026-02-02T10:00:00Z', '2026-02-02T10:05:00Z'),"
	" (3, 1, '6.12.118', 's', 'pass', '2026-02-03T10:00:00Z', '2026-02-03T10:05:00Z'),"
	" (4, 1, '6.1.193', 's', 'error', '2026-02-04T10:00:00Z', '2026-02-04T10:00:01Z'),"
	" (5, 2, '6.6.60', 's', 'pass', '2026-02-05T10:00:00Z', '2026-02-05T10:05:00Z');"
	"INSERT INTO verdict (run_id, patch_id, status, reason) VALUES"
	" (1, 1, 'ok', NULL), (1, 2, 'ok', NULL),"
	" (2, 1, 'ok', NULL), (2, 2, 'drop', 'regression'),"
	" (3, 1, 'ok', NULL), (3, 2, 'ok', NULL),"
	" (5, 3, 'ok', NULL);";

#define ROW_61 \
	"<tr class=\"branch\"><td>shebang-2019</td><td>6.1</td><td><a href=\"/api/runs/2\">2</a></td>" \
	"<td>drop</td><td>6.1.192</td><td>1</td></tr>"
#define ROW_612 \
	"<tr class=\"branch\"><td>shebang-2019</td><td>6.12</td><td><a href=\"/api/runs/3\">3</a></td>" \
	"<td>pass</td><td>6.12.118</td><td>0</td></tr>"
#define ROW_ESCAPED \
	"<tr class=\"branch\"><td>a&lt;b&gt;&amp;c</td><td>6.6</td><td><a href=\"/api/runs/5\">5</a></td>" \
	"<td>pass</td><td>6.6.60</td><td>0</td></tr>"

static const char *expect_contains(const char *page, const char *want)
{
	const char *at = strstr(page, want);

	if (!at)
		fail_msg("expected the page to contain\n  %s\ngot\n%s", want, page);
	return at;
}

static size_t count(const char *page, const char *what)
{
	size_t n = 0;

	for (const char *at = page; (at = strstr(at, what)); at += strlen(what))
		n++;
	return n;
}

static void render(sqlite3 *db, const struct gate_config *cfg, struct strbuf *out)
{
	strbuf_reset(out);
	page_render(db, cfg, out);
}

static void test_rows_per_queue_and_branch(void **state)
{
	struct testdb *t = *state;
	struct gate_config cfg = { 0 };
	struct strbuf page = STRBUF_INIT;
	char *msg = NULL;
	const char *table, *row61, *row612, *escaped;

	if (sqlite3_exec(t->db, fixture_sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("fixture: %s", msg);
	render(t->db, &cfg, &page);
	table = expect_contains(page.buf, "<h2>By queue and branch</h2>\n<table><tr><th>queue</th><th>branch</th>"
				"<th>latest run</th><th>verdict</th><th>base</th><th>drops</th></tr>\n");
	/* one row per queue and branch: run 1 is older and run 4 judged nothing */
	if (count(page.buf, "<tr class=\"branch\">") != 3)
		fail_msg("expected 3 branch rows, got %zu:\n%s", count(page.buf, "<tr class=\"branch\">"), page.buf);
	escaped = expect_contains(page.buf, ROW_ESCAPED);
	row61 = expect_contains(page.buf, ROW_61);
	row612 = expect_contains(page.buf, ROW_612);
	/* by queue name, then branches in release order, after the heading */
	if (!(table < escaped && escaped < row61 && row61 < row612))
		fail_msg("expected the rows in the order a<b>&c 6.6, shebang-2019 6.1, 6.12:\n%s", page.buf);
	/* the rest of the page is still there */
	expect_contains(page.buf, "<p>No queue is configured.</p>\n</body></html>\n");
	strbuf_release(&page);
}

static void test_empty_record(void **state)
{
	struct testdb *t = *state;
	struct gate_config cfg = { 0 };
	struct strbuf page = STRBUF_INIT;

	render(t->db, &cfg, &page);
	expect_contains(page.buf, "<h2>By queue and branch</h2>\n<p class=\"state\">No finished run yet.</p>\n");
	if (count(page.buf, "<tr class=\"branch\">"))
		fail_msg("expected no branch row in an empty record, got:\n%s", page.buf);
	strbuf_release(&page);
}

/* A queued job waiting to retry: when it is due, its attempt, and why (escaped). */
static void test_retry_waiting(void **state)
{
	struct testdb *t = *state;
	struct gate_config cfg = { .n_queues = 1 };
	struct strbuf page = STRBUF_INIT;
	char *msg = NULL;

	cfg.queues[0].name = (char *)"stable-6.1";
	cfg.queues[0].url = (char *)"/srv/stable-queue";
	if (sqlite3_exec(t->db, "INSERT INTO job (id, queue, trigger, state, attempts, error, next_try_at) "
			 "VALUES (7, 'stable-6.1', 'poll', 'queued', 2, 'build: disk <full>', "
			 "'2026-12-06T03:00:00Z'), (8, 'other', 'poll', 'queued', 1, 'x', "
			 "'2026-12-06T04:00:00Z')", NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("fixture: %s", msg);
	render(t->db, &cfg, &page);
	expect_contains(page.buf, "<p class=\"retry\">Job <a href=\"/api/jobs/7\">7</a>: next try at "
			"2026-12-06T03:00:00Z (attempt 3): build: disk &lt;full&gt;</p>");
	if (count(page.buf, "next try at") != 1)
		fail_msg("expected one retry line (queue other is not configured), got:\n%s", page.buf);
	/* once it runs, it no longer waits */
	if (sqlite3_exec(t->db, "UPDATE job SET state = 'running', next_try_at = NULL WHERE id = 7",
			 NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("UPDATE: %s", msg);
	render(t->db, &cfg, &page);
	if (count(page.buf, "next try at"))
		fail_msg("expected no retry line for a running job, got:\n%s", page.buf);
	strbuf_release(&page);
}

/* A record that cannot answer: the page says what failed and is still whole. */
static void test_unreadable_record(void **state)
{
	struct testdb *t = *state;
	struct gate_config cfg = { 0 };
	struct strbuf page = STRBUF_INIT;
	char *msg = NULL;

	if (sqlite3_exec(t->db, "DROP TABLE verdict", NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("DROP TABLE verdict: %s", msg);
	render(t->db, &cfg, &page);
	expect_contains(page.buf, "<h2>By queue and branch</h2>\n<p class=\"state\">The record cannot be read: "
			"database: reading runs: no such table: verdict</p></section>\n");
	expect_contains(page.buf, "</body></html>\n");
	strbuf_release(&page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_record, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_rows_per_queue_and_branch, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_retry_waiting, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_record, testdb_setup, testdb_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
