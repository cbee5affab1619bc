// SPDX-License-Identifier: GPL-2.0
/*
 * The renderers of a run: report_render_text() (the text a person reads
 * after `backport-gate run`) and page_render() (the HTML page at /, from
 * the record). The reports are built with the keys and values gate_run()
 * writes (gate/verdict/gate.c): a dropped patch with its reason,
 * regressions, evidence and bisection; a kept one applied at an offset;
 * one already applied; one that changed a quirk; base failures, flaky
 * cases, the kept tree and the cost. The page must escape everything that
 * comes from the record.
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

#include "basic/sql.h"
#include "output/page.h"
#include "output/report.h"
#include "record/db.h"
#include "record/jobs.h"
#include "testdb.h"

#define UPSTREAM "8099b047ecc431518b9bb6bdbba3549bbecdc343"
#define HOSTILE "<script>alert(\"x\")&'</script>"
#define HOSTILE_ESCAPED "&lt;script&gt;alert(&quot;x&quot;)&amp;&#39;&lt;/script&gt;"

/* One patch object as gate_run() writes it. */
static json_t *patch(const char *name, const char *status, const char *reason, const char *apply,
		     json_int_t offset)
{
	return json_pack("{s:s, s:n, s:n, s:n, s:n, s:n, s:s, s:s?, s:[], s:[],"
			 " s:{s:s, s:I, s:s}, s:s, s:s}",
			 "name", name, "upstream", "subject", "author", "date", "message_id",
			 "status", status, "reason", reason, "regressions", "changes",
			 "apply", "status", apply, "offset", offset, "message", "",
			 "evidence", "", "steps", "");
}

static void set_str(json_t *o, const char *key, const char *value)
{
	json_object_set_new(o, key, json_string(value));
}

static void add_names(json_t *o, const char *key, const char *a, const char *b)
{
	json_t *arr = json_object_get(o, key);

	json_array_append_new(arr, json_string(a));
	if (b)
		json_array_append_new(arr, json_string(b));
}

/*
 * A drop: the 2019 change regresses two cases; three patches kept; one
 * of them changes a quirk. With @subject as the dropped patch's subject.
 */
static json_t *drop_report(const char *subject, const char *evidence)
{
	json_t *patches = json_array(), *drop = json_array(), *report, *p;

	p = patch("exec-load_script-don-t-blindly-truncate-shebang-string.patch", "drop",
		  "regression", "applied", 0);
	set_str(p, "upstream", UPSTREAM);
	set_str(p, "subject", subject);
	set_str(p, "author", "Oleg Nesterov <oleg@redhat.com>");
	set_str(p, "date", "Thu, 3 Jan 2019 15:28:07 -0800");
	set_str(p, "message_id", "20190103232807.1234-1-oleg@redhat.com");
	add_names(p, "regressions", "test.pl", "long-interp");
	/* a dropped patch's quirk changes are no "behaviour change" of the kept queue */
	add_names(p, "changes", "dropped-quirk", NULL);
	set_str(p, "evidence", evidence);
	set_str(p, "steps", "1-4: regress\n1-2: pass");
	json_array_append_new(patches, p);
	json_array_append_new(drop, json_string("exec-load_script-don-t-blindly-truncate-shebang-string.patch"));

	p = patch("binfmts-say-what-linux_binprm-holds.patch", "ok", NULL, "offset", 3);
	set_str(p, "subject", "binfmts: say what struct linux_binprm holds");
	json_array_append_new(patches, p);
	p = patch("fork-fix-a-comment.patch", "not-exercised", NULL, "already", 0);
	json_array_append_new(patches, p);
	p = patch("exec-quote-the-interpreter.patch", "ok", NULL, "applied", 0);
	add_names(p, "changes", "empty-arg", NULL);
	set_str(p, "evidence", "empty-arg: argv[1]=\"\" before, absent after");
	json_array_append_new(patches, p);

	report = json_pack("{s:I, s:s, s:s, s:s, s:s, s:n, s:n, s:s, s:s, s:s, s:o, s:o,"
			   " s:[s], s:[s, s], s:{s:I, s:I, s:I, s:I, s:I, s:f, s:s}}",
			   "run", (json_int_t)7, "queue", "queue-6.1", "base", "6.1.192",
			   "verdict", "drop", "source", "/srv/stable-queue", "ref", "commit",
			   "snapshot", "5eed", "kept_tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
			   "kept_commit", "c0ffee0000000000000000000000000000000000",
			   "patches", patches, "drop", drop,
			   "base_failing", "overlong-line", "flaky", "slow-boot", "timer",
			   "stats", "builds", (json_int_t)3, "boots", (json_int_t)4,
			   "evaluations", (json_int_t)5, "reruns", (json_int_t)1,
			   "same_kernel", (json_int_t)0, "seconds", 93.25, "accel", "kvm");
	assert_non_null(report);
	return report;
}

static void kept_line(struct strbuf *sb, const char *name, const char *rest)
{
	strbuf_addf(sb, "  %-60s %s\n", name, rest);
}

static void assert_text(const char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("rendered:\n%s\nexpected:\n%s", got, want);
}

static void test_text_drop(void **state)
{
	json_t *report = drop_report("exec: load_script: don't blindly truncate shebang string",
				     "test.pl: ran /bin/sh, not the interpreter\nlong-interp: ENOEXEC");
	struct strbuf out = STRBUF_INIT, want = STRBUF_INIT;

	(void)state;
	report_render_text(report, &out);
	strbuf_adds(&want,
		    "backport-gate run 7: queue-6.1 on 6.1.192: DROP 1 of 4 patches\n"
		    "\n"
		    "Drop:\n"
		    "  exec-load_script-don-t-blindly-truncate-shebang-string.patch  [regression]\n"
		    "      \"exec: load_script: don't blindly truncate shebang string\"\n"
		    "      from Oleg Nesterov <oleg@redhat.com>, Thu, 3 Jan 2019 15:28:07 -0800\n"
		    "      message-id <20190103232807.1234-1-oleg@redhat.com>\n"
		    "      upstream " UPSTREAM "\n"
		    "      regressed: test.pl, long-interp\n"
		    "      test.pl: ran /bin/sh, not the interpreter\n"
		    "      long-interp: ENOEXEC\n"
		    "      bisection:\n"
		    "        1-4: regress\n"
		    "        1-2: pass\n"
		    "\n"
		    "Behaviour changes (quirks of the base, reported, not dropped):\n"
		    "  exec-quote-the-interpreter.patch changes empty-arg\n"
		    "      empty-arg: argv[1]=\"\" before, absent after\n"
		    "\n"
		    "Kept: 2 ok, 1 not exercised by the test kernel\n");
	kept_line(&want, "binfmts-say-what-linux_binprm-holds.patch",
		  "ok (applied at an offset of 3 lines)");
	kept_line(&want, "fork-fix-a-comment.patch", "not-exercised (already applied)");
	kept_line(&want, "exec-quote-the-interpreter.patch", "ok");
	strbuf_adds(&want,
		    "\n"
		    "Failing on base already (never blamed): overlong-line\n"
		    "\n"
		    "Flaky (a fresh boot did not reproduce them; not blamed): slow-boot, timer\n"
		    "\n"
		    "Kept tree: 4b825dc642cb6eb9a060e54bf8d69288fbee4904 (commit "
		    "c0ffee0000000000000000000000000000000000; backport-gate export 7 DIR writes it)\n"
		    "\n"
		    "Cost: 3 kernel builds, 4 boots (kvm), 5 sequences judged, 93.2 s\n");
	assert_text(out.buf, want.buf);
	strbuf_release(&out);
	strbuf_release(&want);
	json_decref(report);
}

/* A dropped patch that is no mail (no subject, author, ...: JSON nulls) gets no such lines. */
static void test_text_drop_without_header(void **state)
{
	json_t *report = drop_report("x", "panic: VFS");
	json_t *p = json_array_get(json_object_get(report, "patches"), 0);
	struct strbuf out = STRBUF_INIT;
	static const char *const absent[] = { "\"x\"", "from ", "message-id", "upstream", "(null)",
					      "bisection" };
	static const char *const header_keys[] = { "subject", "author", "date", "message_id",
						   "upstream" };

	(void)state;
	for (size_t i = 0; i < sizeof(header_keys) / sizeof(header_keys[0]); i++)
		json_object_set_new(p, header_keys[i], json_null());
	set_str(p, "reason", "boot");
	json_object_set_new(p, "regressions", json_array());
	set_str(p, "steps", "");
	report_render_text(report, &out);
	if (!strstr(out.buf, "\nDrop:\n"
			     "  exec-load_script-don-t-blindly-truncate-shebang-string.patch  [boot]\n"
			     "      panic: VFS\n\n"))
		fail_msg("no drop entry of reason boot with its evidence in:\n%s", out.buf);
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		if (strstr(out.buf, absent[i]))
			fail_msg("\"%s\" in a drop without it:\n%s", absent[i], out.buf);
	strbuf_release(&out);
	json_decref(report);
}

static void test_text_pass(void **state)
{
	json_t *report = drop_report("s", "");
	json_t *patches = json_object_get(report, "patches");
	struct strbuf out = STRBUF_INIT;

	(void)state;
	/* nothing dropped, no quirk changed, nothing failing or flaky */
	json_array_remove(patches, 3);
	json_array_remove(patches, 0);
	json_array_clear(json_object_get(report, "drop"));
	json_array_clear(json_object_get(report, "base_failing"));
	json_array_clear(json_object_get(report, "flaky"));
	set_str(report, "verdict", "pass");
	report_render_text(report, &out);
	if (strncmp(out.buf, "backport-gate run 7: queue-6.1 on 6.1.192: PASS, nothing to drop (2 patches)\n\nKept: 1 ok, 1 not exercised",
		    strlen("backport-gate run 7: queue-6.1 on 6.1.192: PASS, nothing to drop (2 patches)\n\nKept: 1 ok, 1 not exercised")) != 0)
		fail_msg("not a pass with its kept list first:\n%s", out.buf);
	assert_null(strstr(out.buf, "Drop:"));
	assert_null(strstr(out.buf, "Behaviour changes"));
	assert_null(strstr(out.buf, "Failing on base"));
	assert_null(strstr(out.buf, "Flaky"));
	assert_non_null(strstr(out.buf, "Cost: "));
	strbuf_release(&out);
	json_decref(report);
}

/* A run without a verdict: its error, and nothing else (as gate_run() writes one). */
static void test_text_error(void **state)
{
	json_t *report = json_pack("{s:I, s:s, s:s, s:s, s:s, s:[], s:[]}", "run", (json_int_t)9,
				   "queue", "queue-6.1", "base", "6.1.192", "verdict", "error",
				   "error", "build: no space left on device in /var/cache", "patches",
				   "drop");
	struct strbuf out = STRBUF_INIT;

	(void)state;
	report_render_text(report, &out);
	assert_text(out.buf, "backport-gate run 9: queue-6.1 on 6.1.192: NO VERDICT\n"
			     "  build: no space left on device in /var/cache\n");
	strbuf_release(&out);
	json_decref(report);
}

/* ---- the page ---- */

struct fixture {
	struct testdb t;
	struct gate_config cfg;
	struct strbuf out;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || testdb_open(&f->t, "report_test") < 0) {
		free(f);
		return -1;
	}
	f->cfg.queues[0].name = "6.1";
	f->cfg.queues[0].url = "https://git.example.org/stable-queue.git";
	f->cfg.n_queues = 1;
	strbuf_init(&f->out, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	strbuf_release(&f->out);
	testdb_close(&f->t);
	free(f);
	return 0;
}

/* Record @report as the run of a done job of @queue, as the daemon does; the run's id is the report's. */
static void record(struct fixture *f, const char *queue, json_t *report)
{
	char *text = json_dumps(report, JSON_COMPACT);
	json_int_t run = json_integer_value(json_object_get(report, "run"));
	const char *verdict = json_string_value(json_object_get(report, "verdict"));

	/* the run's column takes only the verdicts gate_run() writes */
	if (!verdict || (strcmp(verdict, "pass") && strcmp(verdict, "drop")))
		verdict = "error";

	assert_non_null(text);
	assert_int_equal(sql_exec(f->t.db, "INSERT OR IGNORE INTO snapshot (queue, source, content_hash) "
				  "VALUES (?, '/q', ?)", "ss", queue, text), 0);
	assert_int_equal(sql_exec(f->t.db, "INSERT INTO run (id, snapshot_id, base, suite, verdict) "
				  "VALUES (?, (SELECT id FROM snapshot WHERE content_hash = ?), "
				  "'6.1.192', 's', ?)", "iss", (sqlite3_int64)run, text, verdict), 0);
	assert_int_equal(sql_exec(f->t.db, "INSERT INTO run_report (run_id, report) VALUES (?, ?)", "is",
				  (sqlite3_int64)run, text), 0);
	assert_int_equal(sql_exec(f->t.db, "INSERT INTO job (queue, trigger, state, attempts, run_id) "
				  "VALUES (?, 'poll', 'done', 1, ?)", "si", queue, (sqlite3_int64)run), 0);
	free(text);
}

static void render(struct fixture *f)
{
	strbuf_reset(&f->out);
	page_render(f->t.db, &f->cfg, &f->out);
	assert_non_null(strstr(f->out.buf, "<!DOCTYPE html>"));
	assert_non_null(strstr(f->out.buf, "</body></html>\n"));
}

static void assert_has(const struct fixture *f, const char *want)
{
	if (!strstr(f->out.buf, want))
		fail_msg("expected in the page: %s\npage:\n%s", want, f->out.buf);
}

static void assert_lacks(const struct fixture *f, const char *unwanted)
{
	if (strstr(f->out.buf, unwanted))
		fail_msg("not expected in the page: %s\npage:\n%s", unwanted, f->out.buf);
}

static void test_page_drop_list(void **state)
{
	struct fixture *f = *state;
	json_t *report = drop_report("s", "test.pl: ran /bin/sh");

	record(f, "6.1", report);
	render(f);
	assert_has(f, "<h2>6.1</h2><p class=\"source\">https://git.example.org/stable-queue.git</p>");
	assert_has(f, "<p class=\"verdict drop\">Run <a href=\"/runs/7\">7</a> on 6.1.192: "
		      "<strong>DROP</strong>, 1 of 4 patches to drop</p>");
	assert_has(f, "<p class=\"kept\">Kept tree <code>4b825dc642cb6eb9a060e54bf8d69288fbee4904</code>");
	/* the dropped patch: its row, reason, regressions linked, evidence */
	assert_has(f, "<tr class=\"drop\"><td><a href=\"/patches/"
		      "exec-load_script-don-t-blindly-truncate-shebang-string.patch\">"
		      "exec-load_script-don-t-blindly-truncate-shebang-string.patch</a></td>"
		      "<td>drop</td><td>regression</td><td>"
		      "<a href=\"/cases/test.pl\">test.pl</a> "
		      "<a href=\"/cases/long-interp\">long-interp</a> "
		      "<a class=\"change\" href=\"/cases/dropped-quirk\">dropped-quirk (changed)</a> </td>"
		      "<td><pre>test.pl: ran /bin/sh</pre></td></tr>");
	/* kept ones: no reason; a quirk change marked as such */
	assert_has(f, "<tr class=\"ok\"><td><a href=\"/patches/binfmts-say-what-linux_binprm-holds.patch\">"
		      "binfmts-say-what-linux_binprm-holds.patch</a></td><td>ok</td><td></td><td></td>");
	assert_has(f, "<tr class=\"not-exercised\">");
	assert_has(f, "<a class=\"change\" href=\"/cases/empty-arg\">empty-arg (changed)</a>");
	assert_lacks(f, "A newer job is");
	json_decref(report);
}

/* Everything from the record is escaped: in text, in attributes, in links. */
static void test_page_escapes(void **state)
{
	struct fixture *f = *state;
	json_t *report = drop_report("s", "console: " HOSTILE);
	json_t *p = json_array_get(json_object_get(report, "patches"), 0);
	json_t *kept = json_array_get(json_object_get(report, "patches"), 1);

	f->cfg.queues[0].name = "6.1&<b>";
	f->cfg.queues[0].url = "https://example.org/q?a=1&b=\"2\"";
	set_str(p, "name", "a " HOSTILE ".patch");
	set_str(p, "reason", "regression<br>");
	json_array_clear(json_object_get(p, "regressions"));
	add_names(p, "regressions", "case/<i>", NULL);
	set_str(report, "base", "6.1.192<img src=x>");
	set_str(report, "kept_tree", "<tree>");
	/* not values gate_run() writes, but the page must not trust the record */
	set_str(kept, "status", "ok\"><script>x</script>");
	set_str(report, "verdict", "drop\"><script>v</script>");
	record(f, "6.1&<b>", report);
	render(f);

	assert_lacks(f, "<script>");
	assert_lacks(f, "<b>");
	assert_lacks(f, "<i>");
	assert_lacks(f, "<img");
	assert_lacks(f, "<br>");
	assert_lacks(f, "<tree>");
	assert_has(f, "<h2>6.1&amp;&lt;b&gt;</h2>");
	assert_has(f, "<p class=\"source\">https://example.org/q?a=1&amp;b=&quot;2&quot;</p>");
	assert_has(f, "on 6.1.192&lt;img src=x&gt;: ");
	assert_has(f, "Kept tree <code>&lt;tree&gt;</code>");
	assert_has(f, ">a " HOSTILE_ESCAPED ".patch</a>");
	assert_has(f, "<td>regression&lt;br&gt;</td>");
	assert_has(f, "<pre>console: " HOSTILE_ESCAPED "</pre>");
	/* in a link, a path segment: every byte but [A-Za-z0-9._-] percent-encoded */
	assert_has(f, "<a href=\"/patches/a%20%3Cscript%3Ealert%28%22x%22%29%26%27%3C%2Fscript%3E.patch\">");
	assert_has(f, "<a href=\"/cases/case%2F%3Ci%3E\">case/&lt;i&gt;</a>");
	/* and in a class attribute */
	assert_has(f, "<tr class=\"ok&quot;&gt;&lt;script&gt;x&lt;/script&gt;\">");
	assert_has(f, "<p class=\"verdict drop&quot;&gt;&lt;script&gt;v&lt;/script&gt;\">Run ");
	assert_has(f, "<strong>NO VERDICT</strong>");
	json_decref(report);
}

/* Each queue shows its latest verdict; a newer job waiting is said; a queue never gated says so. */
static void test_page_queues(void **state)
{
	struct fixture *f = *state;
	json_t *old = drop_report("s", "old evidence");
	json_t *pass = json_pack("{s:I, s:s, s:s, s:s, s:[{s:s, s:s, s:n, s:[], s:[], s:s}], s:[]}",
				 "run", (json_int_t)8, "queue", "queue-6.1", "base", "6.1.193",
				 "verdict", "pass", "patches", "name", "a.patch", "status", "ok",
				 "reason", "regressions", "changes", "evidence", "", "drop");
	struct strbuf err = STRBUF_INIT;
	int64_t job;
	bool duplicate;

	f->cfg.queues[1].name = "5.15";
	f->cfg.queues[1].url = "/srv/queue-5.15";
	f->cfg.n_queues = 2;
	record(f, "6.1", old);
	record(f, "6.1", pass);
	render(f);
	assert_has(f, "<p class=\"verdict pass\">Run <a href=\"/runs/8\">8</a> on 6.1.193: "
		      "<strong>PASS</strong>, 0 of 1 patches to drop</p>");
	assert_lacks(f, "old evidence");
	assert_has(f, "<h2>5.15</h2><p class=\"source\">/srv/queue-5.15</p>"
		      "<p class=\"state\">never gated</p></section>");
	/* 6.1 comes before 5.15, as configured */
	assert_true(strstr(f->out.buf, "<h2>6.1</h2>") < strstr(f->out.buf, "<h2>5.15</h2>"));

	assert_int_equal(jobs_enqueue(f->t.db, "6.1", "webhook", NULL, NULL, &job, &duplicate, &err), 0);
	render(f);
	assert_has(f, "<p class=\"pending\">A newer job is queued.</p>");
	assert_has(f, "<strong>PASS</strong>");

	f->cfg.n_queues = 0;
	render(f);
	assert_has(f, "<p>No queue is configured.</p>");
	strbuf_release(&err);
	json_decref(old);
	json_decref(pass);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_drop),
		cmocka_unit_test(test_text_drop_without_header),
		cmocka_unit_test(test_text_pass),
		cmocka_unit_test(test_text_error),
		cmocka_unit_test_setup_teardown(test_page_drop_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_escapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_queues, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
