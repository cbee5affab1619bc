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
#include <errno.h>
#include <jansson.h>

#include "basic/sql.h"
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
	"<tr class=\"branch\"><td><a href=\"/queues/shebang-2019\">shebang-2019</a></td><td>6.1</td><td><a href=\"/runs/2\">2</a></td>" \
	"<td>drop</td><td>6.1.192</td><td>1</td></tr>"
#define ROW_612 \
	"<tr class=\"branch\"><td><a href=\"/queues/shebang-2019\">shebang-2019</a></td><td>6.12</td><td><a href=\"/runs/3\">3</a></td>" \
	"<td>pass</td><td>6.12.118</td><td>0</td></tr>"
#define ROW_ESCAPED \
	"<tr class=\"branch\"><td><a href=\"/queues/a%3Cb%3E%26c\">a&lt;b&gt;&amp;c</a></td><td>6.6</td><td><a href=\"/runs/5\">5</a></td>" \
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


/*
 * Hostile text from a patch and a guest: a file name, a subject and
 * evidence carrying a script and an attribute break-out. The pages hold
 * no element of theirs, only the escaped text and percent-encoded links.
 */
#define SCRIPT "<script>alert(1)</script>"
#define IMG "\"><img src=x onerror=alert(1)>"
#define HOSTILE_NAME "0001-" SCRIPT IMG ".patch"
#define KEPT_NAME "0002-" IMG ".patch"
#define SCRIPT_ESCAPED "&lt;script&gt;alert(1)&lt;/script&gt;"
#define IMG_ESCAPED "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"
#define NAME_IN_URL "0001-%3Cscript%3Ealert%281%29%3C%2Fscript%3E%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.patch"
#define HOSTILE_SHA "8099b047ecc431518b9bb6bdbba3549bbecdc343"
#define CASE_NAME_ESCAPED "test.pl" IMG_ESCAPED

static void hostile_record(sqlite3 *db)
{
	json_t *report = json_pack(
		"{s:i, s:s, s:s, s:s, s:s, s:[s], s:{s:i, s:i, s:f}, s:[{s:s, s:s, s:s, s:s, s:s, s:s, s:[s], s:[],"
		" s:{s:s, s:i, s:s}, s:s, s:s, s:{s:[{s:s, s:[s], s:b}], s:[]}},"
		" {s:s, s:n, s:s, s:s, s:s, s:n, s:[], s:[], s:{s:s, s:i, s:s}, s:s, s:s}],"
		" s:[s], s:s}",
		"run", 1, "queue", "queue-6.1", "base", "6.1.192", "verdict", "drop", "source", "q/" SCRIPT,
		"config_checks", "amd64" IMG, "stats", "builds", 3, "boots", 4, "seconds", 255.2,
		"patches",
		"name", HOSTILE_NAME, "upstream", HOSTILE_SHA, "subject", "exec: " SCRIPT IMG, "author", SCRIPT " <a@b>",
		"status", "drop", "reason", "regression", "regressions", "test.pl" IMG, "changes",
		"apply", "status", "applied", "offset", 3, "message", IMG,
		"evidence", "console: " SCRIPT IMG "\nexpected argv[1]=\"-a\"", "steps", "base + 1 patch: " SCRIPT,
		"compile_check", "configs", "name", "amd64", "objects", "fs/" IMG ".o", "cut", 0, "skipped",
		"name", KEPT_NAME, "upstream", "subject", "docs: " IMG, "author", "x", "status", "ok",
		"reason", "regressions", "changes", "apply", "status", "applied", "offset", -2, "message", "",
		"evidence", "", "steps", "",
		"drop", HOSTILE_NAME, "kept_tree", "1111111111111111111111111111111111111111");
	char *text = json_dumps(report, JSON_COMPACT);

	if (!report || !text)
		fail_msg("the hostile report cannot be made: json_pack failed");
	if (sql_exec(db, "INSERT INTO snapshot (id, queue, source, content_hash) VALUES"
		     " (1, 'queue-6.1', 'q', 'h1')", NULL) < 0)
		fail_msg("the snapshot: %s", sqlite3_errmsg(db));
	if (sql_exec(db, "INSERT INTO run (id, snapshot_id, base, suite, verdict, builds, boots, started_at,"
		     " finished_at, seconds) VALUES (1, 1, '6.1.192', 's', 'drop', 3, 4,"
		     " '2026-02-02T10:00:00Z', '2026-02-02T10:04:15Z', 255.2)", NULL) < 0 ||
	    sql_exec(db, "INSERT INTO run_report (run_id, report) VALUES (1, ?)", "s", text) < 0)
		fail_msg("the hostile run: %s", sqlite3_errmsg(db));
	if (sql_exec(db, "INSERT INTO patch (id, snapshot_id, position, name, upstream, subject, author) VALUES"
		     " (1, 1, 1, ?, ?, ?, ?), (2, 1, 2, ?, NULL, ?, 'x')", "ssssss", HOSTILE_NAME, HOSTILE_SHA,
		     "exec: " SCRIPT IMG, SCRIPT " <a@b>", KEPT_NAME, "docs: " IMG) < 0)
		fail_msg("the hostile patches: %s", sqlite3_errmsg(db));
	if (sql_exec(db, "INSERT INTO verdict (run_id, patch_id, status, reason, regressions, evidence) VALUES"
		     " (1, 1, 'drop', 'regression', ?, ?), (1, 2, 'ok', NULL, '[]', '')", "ss",
		     "[\"test.pl" "\\\"><img src=x onerror=alert(1)>" "\"]", "console: " SCRIPT IMG) < 0)
		fail_msg("the hostile verdicts: %s", sqlite3_errmsg(db));
	free(text);
	json_decref(report);
}

/* No element and no attribute of the hostile text made it into @page as markup. */
static void expect_inert(const char *page, const char *what)
{
	if (strstr(page, "<script") || strstr(page, "<img"))
		fail_msg("%s: expected no <script and no <img, got\n%s", what, page);
	expect_contains(page, SCRIPT_ESCAPED);
	expect_contains(page, IMG_ESCAPED);
}

static void test_run_page(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT;
	const char *dropped, *kept;

	hostile_record(t->db);
	assert_int_equal(page_render_run(t->db, 1, &page), 0);
	expect_inert(page.buf, "run 1");
	expect_contains(page.buf, "<title>Run 1 - backport-gate</title>");
	expect_contains(page.buf, "<a href=\"/api/runs/1\">JSON report</a>");
	expect_contains(page.buf, "<tr><th>started</th><td>2026-02-02T10:00:00Z</td></tr>");
	expect_contains(page.buf, "<tr><th>time to verdict</th><td>4 min 15 s</td></tr>");
	expect_contains(page.buf, "<tr><th>builds and boots</th><td>3 builds, 4 boots</td></tr>");
	expect_contains(page.buf, "<tr><th>configs checked</th><td>amd64" IMG_ESCAPED "</td></tr>");
	expect_contains(page.buf, "<code>1111111111111111111111111111111111111111</code>");
	/* the drop first, its link encoded, then its evidence and steps */
	dropped = expect_contains(page.buf, "<h2>Dropped (1)</h2>\n<section class=\"dropped\" id=\"patch-"
				  NAME_IN_URL "\"><h3><a href=\"/patches/" NAME_IN_URL "\">0001-"
				  SCRIPT_ESCAPED IMG_ESCAPED ".patch</a></h3>");
	expect_contains(page.buf, "<p class=\"subject\">exec: " SCRIPT_ESCAPED IMG_ESCAPED " &mdash; "
			SCRIPT_ESCAPED " &lt;a@b&gt;</p>");
	expect_contains(page.buf, "<a href=\"/cases/test.pl%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E\">");
	expect_contains(page.buf, "<pre class=\"evidence\">console: " SCRIPT_ESCAPED IMG_ESCAPED
			"\nexpected argv[1]=&quot;-a&quot;</pre>");
	expect_contains(page.buf, "<pre class=\"steps\">base + 1 patch: " SCRIPT_ESCAPED "</pre>");
	expect_contains(page.buf, "<p class=\"apply\">Apply: applied, offset 3: " IMG_ESCAPED "</p>");
	expect_contains(page.buf, "<li>amd64: <code>fs/" IMG_ESCAPED ".o</code></li>");
	/* then the kept one, with its offset */
	kept = expect_contains(page.buf, "<td>docs: " IMG_ESCAPED "</td><td>ok</td><td>applied, offset -2</td>");
	if (!(dropped < kept))
		fail_msg("expected the drop list before the kept patches:\n%s", page.buf);
	strbuf_release(&page);
}

static void test_run_page_unknown(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT;

	assert_int_equal(page_render_run(t->db, 99, &page), -ENOENT);
	expect_contains(page.buf, "<h2>Run 99</h2>\n<p class=\"state\">no run 99</p>\n</body></html>\n");
	strbuf_reset(&page);
	if (sqlite3_exec(t->db, "INSERT INTO snapshot (id, queue, source, content_hash) VALUES (1, 'q', 'q', 'h');"
			 "INSERT INTO run (id, snapshot_id, base, suite, verdict) VALUES (2, 1, '6.1.1', 's', 'running')",
			 NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("a running run: %s", sqlite3_errmsg(t->db));
	assert_int_equal(page_render_run(t->db, 2, &page), -EAGAIN);
	expect_contains(page.buf, "run 2 has no report yet (its verdict is running)");
	strbuf_release(&page);
}

static void test_patch_page(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT;

	hostile_record(t->db);
	assert_int_equal(page_render_patch(t->db, HOSTILE_NAME, &page), 0);
	expect_inert(page.buf, "the patch by name");
	expect_contains(page.buf, "value=\"0001-" SCRIPT_ESCAPED IMG_ESCAPED ".patch\"");
	expect_contains(page.buf, "<tr><th>first seen</th><td><a href=\"/runs/1#patch-" NAME_IN_URL
			"\">run 1</a> on 6.1.192, 2026-02-02T10:00:00Z</td></tr>\n"
			"<tr><th>last dropped</th><td><a href=\"/runs/1#patch-" NAME_IN_URL
			"\">run 1</a> on 6.1.192, 2026-02-02T10:00:00Z</td></tr>\n"
			"<tr><th>last kept</th><td>never</td></tr>");
	expect_contains(page.buf, "<tr class=\"drop\"><td>6.1</td><td>6.1.192</td><td><a href=\"/runs/1\">1</a></td>"
			"<td>queue-6.1</td><td>drop</td><td>regression</td></tr>");
	expect_contains(page.buf, "<pre>console: " SCRIPT_ESCAPED IMG_ESCAPED "</pre>");
	strbuf_reset(&page);
	/* by upstream: the same verdict */
	assert_int_equal(page_render_patch(t->db, HOSTILE_SHA, &page), 0);
	expect_inert(page.buf, "the patch by upstream");
	strbuf_reset(&page);
	assert_int_equal(page_render_patch(t->db, "never-seen.patch", &page), -ENOENT);
	expect_contains(page.buf, "No run judged a patch whose file name is never-seen.patch.");
	strbuf_release(&page);
}

static void test_search_page(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT, location = STRBUF_INIT;

	hostile_record(t->db);
	/* words of a subject: the list */
	assert_int_equal(page_render_search(t->db, " EXEC alert(1) ", &page, &location), 0);
	assert_string_equal(location.buf, "");
	expect_inert(page.buf, "search for words");
	expect_contains(page.buf, "<tr><td><a href=\"/patches/" NAME_IN_URL "\">");
	expect_contains(page.buf, "<td>1</td><td><a href=\"/runs/1\">1</a></td></tr>");
	strbuf_reset(&page);
	/* the hostile query itself is escaped where the page repeats it */
	assert_int_equal(page_render_search(t->db, SCRIPT IMG " nothing", &page, &location), 0);
	if (strstr(page.buf, "<script") || strstr(page.buf, "<img"))
		fail_msg("search: the query came back as markup:\n%s", page.buf);
	expect_contains(page.buf, "value=\"" SCRIPT_ESCAPED IMG_ESCAPED " nothing\"");
	expect_contains(page.buf, "<p class=\"state\">No patch found.</p>");
	strbuf_reset(&page);
	/* a file name, a sha, a short sha: the patch's page */
	assert_int_equal(page_render_search(t->db, HOSTILE_NAME, &page, &location), 0);
	assert_string_equal(location.buf, "/patches/" NAME_IN_URL);
	assert_int_equal(page.len, 0);
	strbuf_reset(&location);
	assert_int_equal(page_render_search(t->db, "8099B047ECC4", &page, &location), 0);
	assert_string_equal(location.buf, "/patches/8099B047ECC4");
	strbuf_reset(&location);
	assert_int_equal(page_render_search(t->db, "8099b04", &page, &location), 0);
	assert_string_equal(location.buf, "/patches/" HOSTILE_SHA);
	strbuf_reset(&location);
	/* no query: the page says what to give */
	assert_int_equal(page_render_search(t->db, "  ", &page, &location), 0);
	expect_contains(page.buf, "Give an upstream sha");
	strbuf_release(&page);
	strbuf_release(&location);
}


/* Every page kind carries the search box. */
static void expect_search_box(const char *page, const char *what)
{
	if (!strstr(page, "<form class=\"search\" method=\"get\" action=\"/search\"><input type=\"search\" name=\"q\""))
		fail_msg("%s: expected the search box, got\n%s", what, page);
}

/*
 * A long record: queue-6.1 ran 120 times, an hour apart (run N at hour N),
 * each a minute and N seconds long with N % 5 builds; every third run
 * dropped shebang.patch for test.pl, the others kept it.
 */
static void long_record(sqlite3 *db)
{
	char *msg = NULL;

	if (sqlite3_exec(db,
			 "INSERT INTO snapshot (id, queue, source, content_hash) VALUES (1, 'queue-6.1', 'q', 'h1');"
			 "INSERT INTO patch (id, snapshot_id, position, name) VALUES (1, 1, 1, 'good.patch'),"
			 " (2, 1, 2, 'shebang.patch');"
			 "INSERT INTO run (id, snapshot_id, base, suite, verdict, builds, boots, started_at, seconds)"
			 " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)"
			 " SELECT i, 1, '6.1.192', 's', CASE WHEN i % 3 = 0 THEN 'drop' ELSE 'pass' END, i % 5, 2,"
			 " strftime('%Y-%m-%dT%H:%M:%SZ', '2026-01-01', '+' || i || ' hours'), 60 + i FROM n;"
			 "INSERT INTO verdict (run_id, patch_id, status, reason, regressions)"
			 " SELECT id, 2, CASE verdict WHEN 'drop' THEN 'drop' ELSE 'ok' END,"
			 " CASE verdict WHEN 'drop' THEN 'regression' END,"
			 " CASE verdict WHEN 'drop' THEN '[\"test.pl\"]' ELSE '[]' END FROM run;",
			 NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("the long record: %s", msg);
}

static void test_queue_page(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT;
	const char *newest, *older;

	long_record(t->db);
	assert_int_equal(page_render_queue(t->db, "queue-6.1", NULL, NULL, &page), 0);
	expect_search_box(page.buf, "queue page 1");
	expect_contains(page.buf, "<title>Queue queue-6.1 - backport-gate</title>");
	expect_contains(page.buf, "<p class=\"links\">120 runs, newest first. "
			"<a href=\"/api/runs?queue=queue-6.1&amp;limit=50&amp;offset=0\">JSON</a></p>");
	/* 50 rows, the newest first: run 120, a drop, its patch linked twice (evidence, history) */
	if (count(page.buf, "<tr class=\"run ") != 50)
		fail_msg("expected 50 runs on page 1, got %zu:\n%s", count(page.buf, "<tr class=\"run "), page.buf);
	newest = expect_contains(page.buf, "<tr class=\"run drop\"><td><a href=\"/runs/120\">120</a></td>"
				 "<td>6.1</td><td>2026-01-06T00:00:00Z</td><td>6.1.192</td>"
				 "<td class=\"verdict drop\"><strong>drop</strong></td><td class=\"drops\">"
				 "<a href=\"/runs/120#patch-shebang.patch\">&#9656;</a> "
				 "<a href=\"/patches/shebang.patch\">shebang.patch</a></td>"
				 "<td>3 min 0 s</td><td>0</td><td>2</td><td>q</td></tr>");
	older = expect_contains(page.buf, "<a href=\"/runs/71\">71</a>");
	if (!(newest < older) || strstr(page.buf, "<a href=\"/runs/70\">"))
		fail_msg("expected runs 120 down to 71 on page 1:\n%s", page.buf);
	expect_contains(page.buf, "<nav class=\"pager\">page 1 of 3 "
			"<a rel=\"next\" href=\"/queues/queue-6.1?page=2\">older &rarr;</a></nav>");
	if (strstr(page.buf, "rel=\"prev\""))
		fail_msg("expected no link to newer runs on page 1:\n%s", page.buf);
	/* the plot: a bar per run, a line through the times, scales labelled */
	expect_contains(page.buf, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	if (count(page.buf, "<rect ") != 50)
		fail_msg("expected 50 bars, got %zu:\n%s", count(page.buf, "<rect "), page.buf);
	expect_contains(page.buf, "<title>run 120: 0 builds</title>");
	expect_contains(page.buf, "<title>run 119: 4 builds</title>");
	expect_contains(page.buf, "<polyline class=\"seconds\"");
	expect_contains(page.buf, "<title>run 120: 3 min 0 s</title></circle>");
	if (count(page.buf, "<circle ") != 50)
		fail_msg("expected a dot per run, got %zu:\n%s", count(page.buf, "<circle "), page.buf);
	expect_contains(page.buf, ">3 min 0 s</text>");	/* the longest on the page: run 120 */
	expect_contains(page.buf, ">4 builds</text>");
	expect_contains(page.buf, ">run 71</text>");
	expect_contains(page.buf, ">run 120</text>");
	if (count(page.buf, "<polyline") != 1 || strstr(page.buf, "<script") || strstr(page.buf, "href=\"http"))
		fail_msg("expected one polyline, no script and no external asset:\n%s", page.buf);

	/* the last page: 20 runs, a link back, none further */
	strbuf_reset(&page);
	assert_int_equal(page_render_queue(t->db, "queue-6.1", NULL, "3", &page), 0);
	if (count(page.buf, "<tr class=\"run ") != 20)
		fail_msg("expected 20 runs on page 3, got %zu:\n%s", count(page.buf, "<tr class=\"run "), page.buf);
	expect_contains(page.buf, "<nav class=\"pager\"><a rel=\"prev\" href=\"/queues/queue-6.1?page=2\">&larr; newer</a> "
			"page 3 of 3</nav>");
	expect_contains(page.buf, "<a href=\"/runs/1\">1</a>");
	if (strstr(page.buf, "rel=\"next\""))
		fail_msg("expected no link to older runs on the last page:\n%s", page.buf);

	/* past the end: said so, with a way back to the last page */
	strbuf_reset(&page);
	assert_int_equal(page_render_queue(t->db, "queue-6.1", NULL, "4", &page), -ENOENT);
	expect_contains(page.buf, "<p class=\"state\">No run on page 4.</p>\n<nav class=\"pager\">"
			"<a rel=\"prev\" href=\"/queues/queue-6.1?page=3\">&larr; newer</a> page 4 of 3</nav>");
	for (const char *const *bad = (const char *const[]){ "0", "-1", "2x", "abc", " 2", "99999999999999999999",
							    NULL }; *bad; bad++) {
		strbuf_reset(&page);
		if (page_render_queue(t->db, "queue-6.1", NULL, *bad, &page) != -EINVAL)
			fail_msg("expected ?page=%s to be refused with -EINVAL", *bad);
		expect_contains(page.buf, "is not a page number");
	}
	strbuf_reset(&page);
	assert_int_equal(page_render_queue(t->db, "queue-6.6", NULL, NULL, &page), -ENOENT);
	expect_contains(page.buf, "No run of a queue named queue-6.6 is in the record.");
	expect_search_box(page.buf, "unknown queue");

	/* one branch: its runs, the pager keeping it, links to all and to each branch */
	strbuf_reset(&page);
	expect_contains(page_render_queue(t->db, "queue-6.1", NULL, NULL, &page) == 0 ? page.buf : "",
			"<p class=\"branches\">Branches: <strong>all</strong> &middot; "
			"<a href=\"/queues/queue-6.1?branch=6.1\">6.1</a></p>");
	strbuf_reset(&page);
	assert_int_equal(page_render_queue(t->db, "queue-6.1", "6.1", "2", &page), 0);
	expect_contains(page.buf, "<h2>Queue queue-6.1 on 6.1</h2>");
	expect_contains(page.buf, "<a href=\"/api/runs?queue=queue-6.1&amp;branch=6.1&amp;limit=50&amp;offset=50\">");
	expect_contains(page.buf, "<p class=\"branches\">Branches: <a href=\"/queues/queue-6.1\">all</a> &middot; "
			"<strong>6.1</strong></p>");
	expect_contains(page.buf, "<a rel=\"prev\" href=\"/queues/queue-6.1?branch=6.1&amp;page=1\">&larr; newer</a>");
	expect_contains(page.buf, "<a rel=\"next\" href=\"/queues/queue-6.1?branch=6.1&amp;page=3\">older &rarr;</a>");
	strbuf_reset(&page);
	assert_int_equal(page_render_queue(t->db, "queue-6.1", "6.12", NULL, &page), -ENOENT);
	expect_contains(page.buf, "No run of a queue named queue-6.1 on branch 6.12 is in the record.");
	strbuf_reset(&page);
	assert_int_equal(page_render_queue(t->db, "queue-6.1", "six", NULL, &page), -EINVAL);
	expect_contains(page.buf, "is not a stable branch");
	strbuf_release(&page);
}

/* A queue whose name (a series folder read from a hostile directory) carries markup. */
static void test_queue_page_hostile(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT;

	hostile_record(t->db);
	if (sql_exec(t->db, "UPDATE snapshot SET queue = ?, source = ? WHERE id = 1", "ss", HOSTILE_NAME,
		     "q/" SCRIPT) < 0)
		fail_msg("UPDATE snapshot: %s", sqlite3_errmsg(t->db));
	assert_int_equal(page_render_queue(t->db, HOSTILE_NAME, NULL, "1", &page), 0);
	expect_inert(page.buf, "the hostile queue");
	expect_contains(page.buf, "<title>Queue 0001-" SCRIPT_ESCAPED IMG_ESCAPED ".patch - backport-gate</title>");
	expect_contains(page.buf, "<a href=\"/api/runs?queue=" NAME_IN_URL "&amp;limit=50&amp;offset=0\">JSON</a>");
	expect_contains(page.buf, "<a href=\"/runs/1#patch-" NAME_IN_URL "\">&#9656;</a> <a href=\"/patches/"
			NAME_IN_URL "\">0001-" SCRIPT_ESCAPED IMG_ESCAPED ".patch</a>");
	expect_contains(page.buf, "<td>4 min 15 s</td><td>3</td><td>4</td><td>q/" SCRIPT_ESCAPED "</td></tr>");
	/* one run: nothing to page through */
	if (strstr(page.buf, "class=\"pager\""))
		fail_msg("expected no pager for one run:\n%s", page.buf);
	strbuf_release(&page);
}

#define CASE_NAME "test.pl" IMG
#define CASE_IN_URL "test.pl%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E"

static void test_case_page(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT;

	hostile_record(t->db);
	/* the run page links its cases here */
	assert_int_equal(page_render_run(t->db, 1, &page), 0);
	expect_contains(page.buf, "<a href=\"/cases/" CASE_IN_URL "\">" CASE_NAME_ESCAPED "</a>");
	strbuf_reset(&page);
	assert_int_equal(page_render_case(t->db, CASE_NAME, NULL, NULL, &page), 0);
	expect_inert(page.buf, "the hostile case");
	expect_search_box(page.buf, "case page");
	expect_contains(page.buf, "<h2>Case " CASE_NAME_ESCAPED "</h2>");
	expect_contains(page.buf, "its outcome in 1 finished runs, newest first. <a href=\"/api/cases/" CASE_IN_URL
			"?limit=50&amp;offset=0\">JSON</a>");
	/* no boot recorded it: its outcome on base and with the queue are unknown */
	expect_contains(page.buf, "<tr class=\"regressed\"><td><a href=\"/runs/1\">1</a></td>"
			"<td><a href=\"/queues/queue-6.1\">queue-6.1</a></td><td>2026-02-02T10:00:00Z</td>"
			"<td>regressed</td><td>-</td><td>-</td><td><a href=\"/patches/" NAME_IN_URL "\">0001-"
			SCRIPT_ESCAPED IMG_ESCAPED ".patch</a> (<a href=\"/runs/1#patch-" NAME_IN_URL
			"\">evidence</a>)</td></tr>");
	strbuf_reset(&page);
	assert_int_equal(page_render_case(t->db, "no-such-case", NULL, NULL, &page), -ENOENT);
	expect_contains(page.buf, "No case named no-such-case in the record");
	strbuf_release(&page);
}

/* The case's outcome with the queue and on base, where boots recorded it; its pages. */
static void test_case_page_outcomes_and_pages(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT;

	long_record(t->db);
	if (sqlite3_exec(t->db,
			 "UPDATE run SET config = 'c' WHERE id = 120;"
			 "INSERT INTO run_sequence (run_id, position, patches, tree, judged_at) VALUES"
			 " (120, 1, '[]', 'tb', 'x'), (120, 2, '[1,2]', 'tq', 'x');"
			 "INSERT INTO boot (id, tree, config, suite, attempt, status) VALUES"
			 " (1, 'tb', 'c', 's', 1, 'ok'), (2, 'tq', 'c', 's', 1, 'ok');"
			 "INSERT INTO case_result (boot_id, name, kind, status) VALUES"
			 " (1, 'test.pl', 'contract', 'pass'), (2, 'test.pl', 'contract', 'fail');",
			 NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("the boots: %s", sqlite3_errmsg(t->db));
	assert_int_equal(page_render_case(t->db, "test.pl", NULL, NULL, &page), 0);
	expect_contains(page.buf, "A contract case; its outcome in 120 finished runs");
	expect_contains(page.buf, "<tr class=\"regressed\"><td><a href=\"/runs/120\">120</a></td>"
			"<td><a href=\"/queues/queue-6.1\">queue-6.1</a></td><td>2026-01-06T00:00:00Z</td>"
			"<td>regressed</td><td>pass</td><td>fail</td>");
	expect_contains(page.buf, "<tr class=\"pass\"><td><a href=\"/runs/119\">119</a></td>");
	if (count(page.buf, "<tr class=\"regressed\">") + count(page.buf, "<tr class=\"pass\">") != 50)
		fail_msg("expected 50 runs on the case's first page:\n%s", page.buf);
	expect_contains(page.buf, "page 1 of 3 <a rel=\"next\" href=\"/cases/test.pl?page=2\">older &rarr;</a>");
	strbuf_reset(&page);
	assert_int_equal(page_render_case(t->db, "test.pl", NULL, "3", &page), 0);
	if (count(page.buf, "<tr class=\"regressed\">") + count(page.buf, "<tr class=\"pass\">") != 20)
		fail_msg("expected 20 runs on the case's last page:\n%s", page.buf);
	expect_contains(page.buf, "<a rel=\"prev\" href=\"/cases/test.pl?page=2\">&larr; newer</a> page 3 of 3</nav>");
	expect_contains(page.buf, "<td>-</td><td>-</td>");
	strbuf_reset(&page);
	assert_int_equal(page_render_case(t->db, "test.pl", NULL, "4", &page), -ENOENT);
	expect_contains(page.buf, "No run on this page.");
	strbuf_reset(&page);
	assert_int_equal(page_render_case(t->db, "test.pl", NULL, "x", &page), -EINVAL);

	/* by queue: the links, and the grid of the runs where the outcome changed */
	strbuf_reset(&page);
	assert_int_equal(page_render_case(t->db, "test.pl", NULL, NULL, &page), 0);
	expect_contains(page.buf, "<p class=\"queues\">By queue: <strong>all</strong> &middot; "
			"<a href=\"/cases/test.pl?queue=queue-6.1\">queue-6.1</a></p>");
	if (strstr(page.buf, "case-grid"))
		fail_msg("expected no grid without a queue:\n%s", page.buf);
	strbuf_reset(&page);
	assert_int_equal(page_render_case(t->db, "test.pl", "queue-6.1", NULL, &page), 0);
	expect_contains(page.buf, "<h2>Case test.pl in queue-6.1</h2>");
	expect_contains(page.buf, "By queue: <a href=\"/cases/test.pl\">all</a> &middot; <strong>queue-6.1</strong>");
	/* every third run regressed: of the newest 20 changes, run 91 (back to pass) is the oldest */
	if (count(page.buf, "<th><a href=\"/runs/") != 20)
		fail_msg("expected 20 changes in the grid:\n%s", page.buf);
	expect_contains(page.buf, "<table class=\"case-grid\"><tr><th>patch</th><th><a href=\"/runs/91\">91</a><br>pass</th>"
			"<th><a href=\"/runs/93\">93</a><br>regressed</th>");
	expect_contains(page.buf, "<th><a href=\"/runs/120\">120</a><br>regressed</th></tr>");
	expect_contains(page.buf, "<tr><td><a href=\"/patches/shebang.patch\">shebang.patch</a></td><td></td>"
			"<td class=\"regressed\">regressed</td>");
	if (count(page.buf, "<tr><td><a href=\"/patches/") != 1)
		fail_msg("expected one patch row (only shebang.patch is blamed):\n%s", page.buf);
	expect_contains(page.buf, "page 1 of 3 <a rel=\"next\" href=\"/cases/test.pl?queue=queue-6.1&amp;page=2\">");
	strbuf_release(&page);
}

static void test_regressions_page(void **state)
{
	struct testdb *t = *state;
	struct gate_config cfg = { 0 };
	struct strbuf page = STRBUF_INIT;

	hostile_record(t->db);
	/* the front page leads here */
	render(t->db, &cfg, &page);
	expect_contains(page.buf, "<a href=\"/regressions\">open regressions</a>");
	strbuf_reset(&page);
	assert_int_equal(page_render_regressions(t->db, &page), 0);
	expect_inert(page.buf, "open regressions");
	expect_search_box(page.buf, "open regressions");
	expect_contains(page.buf, "<a href=\"/api/regressions\">JSON</a>");
	expect_contains(page.buf, "<tr class=\"regression\"><td><a href=\"/queues/queue-6.1\">queue-6.1</a></td>"
			"<td>6.1</td><td><a href=\"/runs/1\">1</a> on 6.1.192</td><td>2026-02-02T10:00:00Z</td>"
			"<td><a href=\"/runs/1#patch-" NAME_IN_URL "\">&#9656;</a> <a href=\"/patches/" NAME_IN_URL
			"\">0001-" SCRIPT_ESCAPED IMG_ESCAPED ".patch</a></td>"
			"<td><a href=\"/patches/" HOSTILE_SHA "\">" HOSTILE_SHA "</a></td><td>regression</td>"
			"<td><a href=\"/cases/" CASE_IN_URL "\">" CASE_NAME_ESCAPED "</a> </td></tr>");
	if (strstr(page.buf, "Nothing is open") || strstr(page.buf, "<h2>Nothing open</h2>"))
		fail_msg("expected only the open regression:\n%s", page.buf);
	strbuf_release(&page);
}

/* A record where nothing is open: the queues and branches are listed as such. */
static void test_regressions_page_nothing_open(void **state)
{
	struct testdb *t = *state;
	struct strbuf page = STRBUF_INIT;
	char *msg = NULL;

	assert_int_equal(page_render_regressions(t->db, &page), 0);
	expect_contains(page.buf, "<p class=\"state\">Nothing is open.</p>\n</body>");
	strbuf_reset(&page);
	if (sqlite3_exec(t->db, fixture_sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("fixture: %s", msg);
	/* run 2's drop has no cases recorded and stays open; the others are clean */
	assert_int_equal(page_render_regressions(t->db, &page), 0);
	expect_contains(page.buf, "<td><a href=\"/runs/2#patch-shebang.patch\">&#9656;</a> "
			"<a href=\"/patches/shebang.patch\">shebang.patch</a></td><td></td><td>regression</td><td></td></tr>");
	expect_contains(page.buf, "<h2>Nothing open</h2>");
	expect_contains(page.buf, "<tr class=\"clean\"><td><a href=\"/queues/a%3Cb%3E%26c\">a&lt;b&gt;&amp;c</a></td>"
			"<td>6.6</td><td><a href=\"/runs/5\">5</a> on 6.6.60</td><td>pass</td></tr>");
	expect_contains(page.buf, "<tr class=\"clean\"><td><a href=\"/queues/shebang-2019\">shebang-2019</a></td>"
			"<td>6.12</td><td><a href=\"/runs/3\">3</a> on 6.12.118</td><td>pass</td></tr>");
	if (count(page.buf, "<tr class=\"clean\">") != 2)
		fail_msg("expected 2 queues and branches with nothing open:\n%s", page.buf);
	strbuf_release(&page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_record, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_rows_per_queue_and_branch, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_retry_waiting, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_record, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_run_page, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_run_page_unknown, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_patch_page, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_search_page, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_queue_page, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_queue_page_hostile, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_case_page, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_case_page_outcomes_and_pages, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_regressions_page, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_regressions_page_nothing_open, testdb_setup, testdb_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
