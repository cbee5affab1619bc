// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/strlist.h"
#include "output/page.h"
#include "record/history.h"
#include "record/jobs.h"
#include "source/queue.h"
#include "source/target.h"

/* The case grid (render_case_grid()): runs of the queue looked at, changes shown. */
#define CASE_GRID_RUNS 200
#define CASE_GRID_COLUMNS 20

static void esc(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': strbuf_adds(out, "&lt;"); break;
		case '>': strbuf_adds(out, "&gt;"); break;
		case '&': strbuf_adds(out, "&amp;"); break;
		case '"': strbuf_adds(out, "&quot;"); break;
		case '\'': strbuf_adds(out, "&#39;"); break;
		default: strbuf_addch(out, *s);
		}
	}
}

/* A path segment for a link: only characters that need no escaping. */
static void url_segment(struct strbuf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.')
			strbuf_addch(out, (char)c);
		else
			strbuf_addf(out, "%%%c%c", hex[c >> 4], hex[c & 15]);
	}
}

/* "next try at ... (attempt N): REASON" for @q's job waiting to retry, if any. */
static void render_retry(sqlite3 *db, const struct queue_config *q, struct strbuf *out)
{
	struct job_retry retry;

	if (jobs_queue_retry(db, q->name, &retry) < 0 || !retry.job)
		return;
	strbuf_addf(out, "<p class=\"retry\">Job <a href=\"/api/jobs/%lld\">%lld</a>: next try at ",
		    (long long)retry.job, (long long)retry.job);
	esc(out, retry.next_try_at);
	strbuf_addf(out, " (attempt %lld): ", retry.attempt);
	esc(out, retry.reason);
	strbuf_adds(out, "</p>");
	jobs_retry_release(&retry);
}

/* A JSON value as text: a string as it is, anything else as compact JSON. */
static void esc_json(struct strbuf *out, const json_t *v)
{
	char *text;

	if (!v || json_is_null(v))
		return;
	if (json_is_string(v)) {
		esc(out, json_string_value(v));
		return;
	}
	text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	esc(out, text);
	free(text);
}

static const char *get_string(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* <a href="PREFIX/NAME">NAME</a>, the name escaped as a path segment and as text. */
static void link_to(struct strbuf *out, const char *prefix, const char *name)
{
	strbuf_addf(out, "<a href=\"%s", prefix);
	url_segment(out, name);
	strbuf_adds(out, "\">");
	esc(out, name);
	strbuf_adds(out, "</a>");
}

/* Seconds as a person reads them: "45 s", "4 min 15 s", "2 h 3 min". */
static void add_duration(struct strbuf *out, double seconds)
{
	long long s = (long long)(seconds + 0.5);

	if (s < 60)
		strbuf_addf(out, "%lld s", s);
	else if (s < 3600)
		strbuf_addf(out, "%lld min %lld s", s / 60, s % 60);
	else
		strbuf_addf(out, "%lld h %lld min", s / 3600, s % 3600 / 60);
}

/*
 * The top of every page: its title (escaped; NULL for the front page),
 * the style, and the search box. @query: what the box holds, or NULL.
 */
static void page_head(struct strbuf *out, const char *title, const char *query)
{
	strbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
	if (title) {
		esc(out, title);
		strbuf_adds(out, " - ");
	}
	strbuf_adds(out, "backport-gate</title><style>"
		    "body{font-family:sans-serif;margin:2em;color:#222}"
		    "table{border-collapse:collapse;width:100%}"
		    "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
		    "tr.drop{background:#fdd}tr.not-exercised{color:#777}"
		    ".verdict.drop strong{color:#b00}.verdict.pass strong{color:#070}"
		    "pre{white-space:pre-wrap;margin:0;font-size:85%}"
		    "section.dropped{border-left:4px solid #b00;padding-left:1em;margin:1em 0}"
		    "table.facts{width:auto}table.facts th{background:#f4f4f4}"
		    "form.search{float:right}form.search input[type=search]{width:22em}"
		    "nav.pager{margin:.5em 0}figure.plot{margin:1em 0}figure.plot svg{max-width:100%;height:auto}"
		    "tr.regressed,tr.regression{background:#fdd}tr.changed{background:#ffd}"
		    "</style></head><body>\n"
		    "<form class=\"search\" method=\"get\" action=\"/search\">"
		    "<input type=\"search\" name=\"q\" placeholder=\"upstream sha, file name or subject words\" value=\"");
	esc(out, query);
	strbuf_adds(out, "\"> <button type=\"submit\">Search</button></form>\n");
	/* the other pages lead back to the front */
	strbuf_adds(out, title ? "<h1><a href=\"/\">backport-gate</a></h1>\n" : "<h1>backport-gate</h1>\n");
}

static void page_foot(struct strbuf *out)
{
	strbuf_adds(out, "</body></html>\n");
}

/*
 * One history: a run made from the command line for @q's source, series
 * folder and branch whose verdict came after @after (the latest job's end;
 * "" for none), or NULL. Such runs are keyed by the record's source
 * (queue_source_key()) and series folder (queue_folder()).
 */
static json_t *later_cli_run(sqlite3 *db, const struct queue_config *q, const char *after)
{
	struct strbuf err = STRBUF_INIT;
	struct target target = { 0 };
	char *source = queue_source_key(q->url), *folder;
	json_t *report = NULL;

	if (target_resolve(&target, q->tree, q->series, &err) == 0) {
		folder = queue_folder(&(struct queue_request){ .source = q->url,
				.series_dir = q->series, .default_series_dir = target.series_dir });
		report = history_latest_unjobbed(db, source, folder, target.version,
						 after[0] ? after : NULL, &err);
		free(folder);
	}
	target_release(&target);
	free(source);
	strbuf_release(&err);
	return report;
}

static void render_queue(sqlite3 *db, const struct queue_config *q, struct strbuf *out)
{
	char state[JOBS_STATE_MAX], pending_state[JOBS_STATE_MAX], finished[JOBS_TIME_MAX];
	char *progress;
	int64_t job;
	json_t *report, *p, *cli;
	const char *verdict;
	size_t i;

	strbuf_adds(out, "<section class=\"queue\"><h2>");
	esc(out, q->name);
	strbuf_adds(out, "</h2><p class=\"source\">");
	esc(out, q->url);
	strbuf_adds(out, "</p>");
	if (jobs_latest_report(db, q->name, &job, state, finished, &report) < 0 ||
	    jobs_pending_state(db, q->name, pending_state) < 0) {
		strbuf_adds(out, "<p class=\"state\">The record cannot be read: ");
		esc(out, sqlite3_errmsg(db));
		strbuf_adds(out, "</p></section>\n");
		json_decref(report);
		return;
	}
	if (pending_state[0])
		strbuf_addf(out, "<p class=\"pending\">A newer job is %s.</p>", pending_state);
	render_retry(db, q, out);
	if (jobs_running_progress(db, q->name, &progress) == 0 && progress) {
		/* what its worker said last, a few seconds ago at most */
		strbuf_adds(out, "<p class=\"progress\">Running: ");
		esc(out, progress);
		strbuf_adds(out, "</p>");
		free(progress);
	}
	cli = later_cli_run(db, q, finished);
	if (cli) {
		json_decref(report);
		report = cli;
	}
	if (!report) {
		strbuf_addf(out, "<p class=\"state\">%s%s</p></section>\n", job ? state : "never gated",
			    job ? " (latest job has no verdict yet)" : "");
		return;
	}
	verdict = json_string_value(json_object_get(report, "verdict"));
	strbuf_adds(out, "<p class=\"verdict ");
	esc(out, verdict ? verdict : "error");
	strbuf_addf(out, "\">Run <a href=\"/runs/%lld\">%lld</a> on ",
		    (long long)json_integer_value(json_object_get(report, "run")),
		    (long long)json_integer_value(json_object_get(report, "run")));
	esc(out, json_string_value(json_object_get(report, "base")));
	strbuf_addf(out, ": <strong>%s</strong>, %zu of %zu patches to drop%s</p>\n",
		    verdict && !strcmp(verdict, "drop") ? "DROP" : verdict && !strcmp(verdict, "pass") ? "PASS" : "NO VERDICT",
		    json_array_size(json_object_get(report, "drop")),
		    json_array_size(json_object_get(report, "patches")),
		    cli ? " (run from the command line)" : "");
	if (get_string(report, "queue")) {
		/* the record keys runs by series folder, which the configured name is not */
		strbuf_adds(out, "<p class=\"timeline\">Every run of ");
		link_to(out, "/queues/", get_string(report, "queue"));
		strbuf_adds(out, "</p>\n");
	}
	if (json_string_value(json_object_get(report, "kept_tree"))) {
		strbuf_adds(out, "<p class=\"kept\">Kept tree <code>");
		esc(out, json_string_value(json_object_get(report, "kept_tree")));
		strbuf_addf(out, "</code> (<code>backport-gate export %lld DIR</code> writes it)</p>\n",
			    (long long)json_integer_value(json_object_get(report, "run")));
	}
	strbuf_adds(out, "<table><tr><th>patch</th><th>status</th><th>reason</th><th>cases</th><th>evidence</th></tr>\n");
	json_array_foreach(json_object_get(report, "patches"), i, p) {
		const char *status = json_string_value(json_object_get(p, "status"));
		json_t *c;
		size_t k;

		strbuf_adds(out, "<tr class=\"");
		esc(out, status);
		strbuf_adds(out, "\"><td><a href=\"/patches/");
		url_segment(out, json_string_value(json_object_get(p, "name")));
		strbuf_adds(out, "\">");
		esc(out, json_string_value(json_object_get(p, "name")));
		strbuf_adds(out, "</a></td><td>");
		esc(out, status);
		strbuf_adds(out, "</td><td>");
		esc(out, json_string_value(json_object_get(p, "reason")));
		strbuf_adds(out, "</td><td>");
		json_array_foreach(json_object_get(p, "regressions"), k, c) {
			strbuf_adds(out, "<a href=\"/cases/");
			url_segment(out, json_string_value(c));
			strbuf_adds(out, "\">");
			esc(out, json_string_value(c));
			strbuf_adds(out, "</a> ");
		}
		json_array_foreach(json_object_get(p, "changes"), k, c) {
			strbuf_adds(out, "<a class=\"change\" href=\"/cases/");
			url_segment(out, json_string_value(c));
			strbuf_adds(out, "\">");
			esc(out, json_string_value(c));
			strbuf_adds(out, " (changed)</a> ");
		}
		strbuf_adds(out, "</td><td><pre>");
		esc(out, json_string_value(json_object_get(p, "evidence")));
		strbuf_adds(out, "</pre></td></tr>\n");
	}
	strbuf_adds(out, "</table></section>\n");
	json_decref(report);
}

/* Every queue in the record on every branch: its latest finished run there. */
static void render_branches(sqlite3 *db, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	json_t *answer = history_branches(db, &err), *b;
	size_t i;

	strbuf_adds(out, "<section class=\"branches\"><h2>By queue and branch</h2>\n");
	if (!answer) {
		strbuf_adds(out, "<p class=\"state\">The record cannot be read: ");
		esc(out, err.buf);
		strbuf_adds(out, "</p></section>\n");
		strbuf_release(&err);
		return;
	}
	if (!json_array_size(json_object_get(answer, "branches")))
		strbuf_adds(out, "<p class=\"state\">No finished run yet.</p>\n");
	else
		strbuf_adds(out, "<table><tr><th>queue</th><th>branch</th><th>latest run</th><th>verdict</th>"
			    "<th>base</th><th>drops</th></tr>\n");
	json_array_foreach(json_object_get(answer, "branches"), i, b) {
		long long run = json_integer_value(json_object_get(b, "run"));

		strbuf_adds(out, "<tr class=\"branch\"><td>");
		link_to(out, "/queues/", json_string_value(json_object_get(b, "queue")));
		strbuf_adds(out, "</td><td>");
		esc(out, json_string_value(json_object_get(b, "branch")));
		strbuf_addf(out, "</td><td><a href=\"/runs/%lld\">%lld</a></td><td>", run, run);
		esc(out, json_string_value(json_object_get(b, "verdict")));
		strbuf_adds(out, "</td><td>");
		esc(out, json_string_value(json_object_get(b, "base")));
		strbuf_addf(out, "</td><td>%lld</td></tr>\n",
			    (long long)json_integer_value(json_object_get(b, "drops")));
	}
	if (json_array_size(json_object_get(answer, "branches")))
		strbuf_adds(out, "</table>\n");
	strbuf_adds(out, "</section>\n");
	json_decref(answer);
	strbuf_release(&err);
}

void page_render(sqlite3 *db, const struct gate_config *cfg, struct strbuf *out)
{
	page_head(out, NULL, NULL);
	strbuf_adds(out, "<p>Latest verdict of each stable queue. History: <a href=\"/regressions\">open regressions</a>, "
		    "<a href=\"/api/runs\">runs</a> (JSON); a queue's page is /queues/NAME, a run's /runs/ID, "
		    "a patch's /patches/NAME or /patches/SHA, a case's /cases/NAME.</p>\n");
	render_branches(db, out);
	for (size_t i = 0; i < cfg->n_queues; i++)
		render_queue(db, &cfg->queues[i], out);
	if (!cfg->n_queues)
		strbuf_adds(out, "<p>No queue is configured.</p>\n");
	page_foot(out);
}

/* A page that says only why there is nothing to show, with the search box. */
void page_render_message(struct strbuf *out, const char *title, const char *message)
{
	page_head(out, title, NULL);
	strbuf_adds(out, "<h2>");
	esc(out, title);
	strbuf_adds(out, "</h2>\n<p class=\"state\">");
	esc(out, message);
	strbuf_adds(out, "</p>\n");
	page_foot(out);
}

static void fact_row(struct strbuf *out, const char *label, const char *value)
{
	if (!value)
		return;
	strbuf_addf(out, "<tr><th>%s</th><td>", label);
	esc(out, value);
	strbuf_adds(out, "</td></tr>\n");
}

/* A case name links to its page; @changed marks a quirk a patch changed. */
static void case_links(struct strbuf *out, const json_t *names, bool changed)
{
	size_t i;
	json_t *c;

	json_array_foreach(names, i, c) {
		strbuf_addf(out, "<a%s href=\"/cases/", changed ? " class=\"change\"" : "");
		url_segment(out, json_string_value(c));
		strbuf_adds(out, "\">");
		esc(out, json_string_value(c));
		strbuf_adds(out, changed ? " (changed)</a> " : "</a> ");
	}
}

/* "applied at offset 3", from a patch's "apply" object, when the report has one. */
static void apply_text(struct strbuf *out, const json_t *apply)
{
	const json_t *offset = json_object_get(apply, "offset");

	if (!apply)
		return;
	esc_json(out, json_object_get(apply, "status"));
	if (json_is_integer(offset))
		strbuf_addf(out, ", offset %lld", (long long)json_integer_value(offset));
	if (get_string(apply, "message") && *get_string(apply, "message")) {
		strbuf_adds(out, ": ");
		esc(out, get_string(apply, "message"));
	}
}

/*
 * A patch's "compile_check", when the report has one: each configuration
 * with the objects compiled in it, and what was skipped. Kept generic:
 * values that are not the shape gate_run() writes are shown as JSON.
 */
static void compile_check_text(struct strbuf *out, const json_t *check)
{
	const json_t *skipped = json_object_get(check, "skipped");
	size_t i, k;
	json_t *config, *object;

	if (!check)
		return;
	strbuf_adds(out, "<ul class=\"compile-check\">");
	json_array_foreach(json_object_get(check, "configs"), i, config) {
		strbuf_adds(out, "<li>");
		if (!json_is_object(config)) {
			esc_json(out, config);
			strbuf_adds(out, "</li>");
			continue;
		}
		esc_json(out, json_object_get(config, "name"));
		strbuf_adds(out, ": ");
		json_array_foreach(json_object_get(config, "objects"), k, object) {
			strbuf_adds(out, k ? ", <code>" : "<code>");
			esc_json(out, object);
			strbuf_adds(out, "</code>");
		}
		if (!json_array_size(json_object_get(config, "objects")))
			strbuf_adds(out, "no object");
		if (json_is_true(json_object_get(config, "cut")))
			strbuf_adds(out, " (list cut)");
		strbuf_adds(out, "</li>");
	}
	if (json_array_size(skipped)) {
		strbuf_adds(out, "<li>skipped: ");
		json_array_foreach(skipped, i, object) {
			if (i)
				strbuf_adds(out, ", ");
			esc_json(out, object);
		}
		strbuf_adds(out, "</li>");
	}
	strbuf_adds(out, "</ul>");
}

/* One dropped patch: what it is, why it was dropped, the evidence and the bisection. */
static void render_dropped(struct strbuf *out, const json_t *p)
{
	const char *name = get_string(p, "name");
	const char *evidence = get_string(p, "evidence"), *steps = get_string(p, "steps");

	strbuf_adds(out, "<section class=\"dropped\" id=\"patch-");
	url_segment(out, name);
	strbuf_adds(out, "\"><h3>");
	link_to(out, "/patches/", name);
	strbuf_adds(out, "</h3>\n<p class=\"subject\">");
	esc(out, get_string(p, "subject"));
	if (get_string(p, "author")) {
		strbuf_adds(out, " &mdash; ");
		esc(out, get_string(p, "author"));
	}
	strbuf_adds(out, "</p>\n<p class=\"reason\">Dropped: <strong>");
	esc(out, get_string(p, "reason") ? get_string(p, "reason") : "no reason recorded");
	strbuf_adds(out, "</strong>");
	if (get_string(p, "upstream")) {
		strbuf_adds(out, "; upstream ");
		link_to(out, "/patches/", get_string(p, "upstream"));
	}
	strbuf_adds(out, "</p>\n");
	if (json_array_size(json_object_get(p, "regressions")) || json_array_size(json_object_get(p, "changes"))) {
		strbuf_adds(out, "<p class=\"cases\">Cases: ");
		case_links(out, json_object_get(p, "regressions"), false);
		case_links(out, json_object_get(p, "changes"), true);
		strbuf_adds(out, "</p>\n");
	}
	if (json_object_get(p, "apply")) {
		strbuf_adds(out, "<p class=\"apply\">Apply: ");
		apply_text(out, json_object_get(p, "apply"));
		strbuf_adds(out, "</p>\n");
	}
	if (json_object_get(p, "compile_check")) {
		strbuf_adds(out, "<div>Compile check:");
		compile_check_text(out, json_object_get(p, "compile_check"));
		strbuf_adds(out, "</div>\n");
	}
	strbuf_adds(out, "<h4>Evidence</h4>\n<pre class=\"evidence\">");
	esc(out, evidence && *evidence ? evidence : "(none recorded)");
	strbuf_adds(out, "</pre>\n");
	if (steps && *steps) {
		strbuf_adds(out, "<h4>Bisection steps</h4>\n<pre class=\"steps\">");
		esc(out, steps);
		strbuf_adds(out, "</pre>\n");
	}
	strbuf_adds(out, "</section>\n");
}

/* The facts of the run, from its line in the record (@summary, may be NULL) and its report. */
static void render_run_facts(struct strbuf *out, const json_t *report, const json_t *summary)
{
	const json_t *stats = json_object_get(report, "stats");
	const json_t *seconds = json_object_get(summary, "seconds");
	const json_t *builds = json_object_get(summary, "builds"), *boots = json_object_get(summary, "boots");
	const char *verdict = get_string(report, "verdict");
	size_t i;
	json_t *c;

	if (!json_is_number(seconds))
		seconds = json_object_get(stats, "seconds");
	if (!json_is_integer(builds))
		builds = json_object_get(stats, "builds");
	if (!json_is_integer(boots))
		boots = json_object_get(stats, "boots");
	strbuf_adds(out, "<table class=\"facts\">\n");
	fact_row(out, "queue", get_string(summary, "queue") ? get_string(summary, "queue") : get_string(report, "queue"));
	fact_row(out, "source", get_string(report, "source"));
	fact_row(out, "ref", get_string(report, "ref"));
	fact_row(out, "commit", get_string(report, "commit"));
	fact_row(out, "base", get_string(report, "base"));
	fact_row(out, "branch", get_string(summary, "branch"));
	strbuf_adds(out, "<tr><th>verdict</th><td class=\"verdict ");
	esc(out, verdict ? verdict : "error");
	strbuf_adds(out, "\"><strong>");
	esc(out, verdict ? verdict : "none");
	strbuf_addf(out, "</strong>, %zu of %zu patches dropped</td></tr>\n",
		    json_array_size(json_object_get(report, "drop")),
		    json_array_size(json_object_get(report, "patches")));
	fact_row(out, "error", get_string(summary, "error"));
	fact_row(out, "started", get_string(summary, "started_at"));
	fact_row(out, "finished", get_string(summary, "finished_at"));
	if (json_is_number(seconds)) {
		strbuf_adds(out, "<tr><th>time to verdict</th><td>");
		add_duration(out, json_number_value(seconds));
		strbuf_adds(out, "</td></tr>\n");
	}
	if (json_is_integer(builds) || json_is_integer(boots))
		strbuf_addf(out, "<tr><th>builds and boots</th><td>%lld builds, %lld boots</td></tr>\n",
			    (long long)json_integer_value(builds), (long long)json_integer_value(boots));
	fact_row(out, "config", get_string(report, "config"));
	if (json_array_size(json_object_get(report, "config_checks"))) {
		strbuf_adds(out, "<tr><th>configs checked</th><td>");
		json_array_foreach(json_object_get(report, "config_checks"), i, c) {
			if (i)
				strbuf_adds(out, ", ");
			esc_json(out, c);
		}
		strbuf_adds(out, "</td></tr>\n");
	}
	fact_row(out, "compiler", get_string(report, "compiler"));
	if (get_string(report, "kept_tree")) {
		strbuf_adds(out, "<tr><th>kept tree</th><td><code>");
		esc(out, get_string(report, "kept_tree"));
		strbuf_addf(out, "</code> (<code>backport-gate export %lld DIR</code> writes it)</td></tr>\n",
			    (long long)json_integer_value(json_object_get(report, "run")));
	}
	fact_row(out, "kept commit", get_string(report, "kept_commit"));
	strbuf_adds(out, "</table>\n");
}

int page_render_run(sqlite3 *db, int64_t run, struct strbuf *out)
{
	struct history_filter one = { .run = run };
	struct strbuf err = STRBUF_INIT, title = STRBUF_INIT;
	json_t *report, *runs, *p;
	size_t i, kept = 0;
	int r = 0;

	strbuf_addf(&title, "Run %lld", (long long)run);
	report = history_run_report(db, run, &err);
	if (!report) {
		r = -errno;
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	/* the times and costs are the record's; a record that cannot say them still shows the report */
	strbuf_reset(&err);
	runs = history_runs(db, &one, &err);
	page_head(out, title.buf, NULL);
	strbuf_addf(out, "<h2>Run %lld</h2>\n<p class=\"links\"><a href=\"/api/runs/%lld\">JSON report</a>, "
		    "<a href=\"/api/runs/%lld/reply\">reply on the review thread</a> (the mail), "
		    "<a href=\"/api/runs/%lld/kcidb\">KCIDB submission</a> (JSON)</p>\n",
		    (long long)run, (long long)run, (long long)run, (long long)run);
	if (!runs) {
		strbuf_adds(out, "<p class=\"state\">The run's times cannot be read: ");
		esc(out, err.buf);
		strbuf_adds(out, "</p>\n");
	}
	render_run_facts(out, report, json_array_get(json_object_get(runs, "runs"), 0));
	json_decref(runs);

	strbuf_addf(out, "<h2>Dropped (%zu)</h2>\n", json_array_size(json_object_get(report, "drop")));
	json_array_foreach(json_object_get(report, "patches"), i, p)
		if (!strcmp(get_string(p, "status") ? get_string(p, "status") : "", "drop"))
			render_dropped(out, p);
	if (!json_array_size(json_object_get(report, "drop")))
		strbuf_adds(out, "<p class=\"state\">Nothing dropped.</p>\n");

	strbuf_adds(out, "<h2>Kept</h2>\n<table class=\"kept\"><tr><th>patch</th><th>subject</th><th>status</th>"
		    "<th>apply</th><th>compile check</th></tr>\n");
	json_array_foreach(json_object_get(report, "patches"), i, p) {
		const char *status = get_string(p, "status");

		if (status && !strcmp(status, "drop"))
			continue;
		kept++;
		strbuf_adds(out, "<tr class=\"");
		esc(out, status);
		strbuf_adds(out, "\" id=\"patch-");
		url_segment(out, get_string(p, "name"));
		strbuf_adds(out, "\"><td>");
		link_to(out, "/patches/", get_string(p, "name"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(p, "subject"));
		strbuf_adds(out, "</td><td>");
		esc(out, status);
		strbuf_adds(out, "</td><td>");
		apply_text(out, json_object_get(p, "apply"));
		strbuf_adds(out, "</td><td>");
		compile_check_text(out, json_object_get(p, "compile_check"));
		strbuf_adds(out, "</td></tr>\n");
	}
	strbuf_adds(out, "</table>\n");
	if (!kept)
		strbuf_adds(out, "<p class=\"state\">Nothing kept.</p>\n");
	page_foot(out);
	json_decref(report);
out:
	strbuf_release(&err);
	strbuf_release(&title);
	return r;
}

/* "run N (DATE)" linking to the run's page at the patch, for first seen and the like. */
static void verdict_link(struct strbuf *out, const json_t *v)
{
	long long run = json_integer_value(json_object_get(v, "run"));

	if (!v) {
		strbuf_adds(out, "never");
		return;
	}
	strbuf_addf(out, "<a href=\"/runs/%lld#patch-", run);
	url_segment(out, get_string(v, "name"));
	strbuf_addf(out, "\">run %lld</a> on ", run);
	esc(out, get_string(v, "base"));
	strbuf_adds(out, ", ");
	esc(out, get_string(v, "started_at"));
}

int page_render_patch(sqlite3 *db, const char *key, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT, title = STRBUF_INIT;
	json_t *answer = history_patch(db, key, &err), *verdicts, *v, *newest;
	json_t *last_dropped = NULL, *last_kept = NULL;
	size_t i, n;
	int r = 0;

	strbuf_addf(&title, "Patch %s", key ? key : "");
	if (!answer) {
		r = -errno;
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	verdicts = json_object_get(answer, "verdicts");
	n = json_array_size(verdicts);
	if (!n) {
		r = -ENOENT;
		strbuf_reset(&err);
		strbuf_addf(&err, "No run judged a patch whose %s is %s.",
			    strcmp(get_string(answer, "match"), "upstream") ? "file name" : "upstream sha", key);
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	/* newest first: the first drop and the first keep are the last ones */
	json_array_foreach(verdicts, i, v) {
		const char *status = get_string(v, "status");

		if (!last_dropped && status && !strcmp(status, "drop"))
			last_dropped = v;
		if (!last_kept && status && strcmp(status, "drop"))
			last_kept = v;
	}
	newest = json_array_get(verdicts, 0);
	page_head(out, title.buf, key);
	strbuf_adds(out, "<h2>");
	esc(out, key);
	strbuf_adds(out, "</h2>\n<p class=\"subject\">");
	esc(out, get_string(newest, "subject"));
	if (get_string(newest, "author")) {
		strbuf_adds(out, " &mdash; ");
		esc(out, get_string(newest, "author"));
	}
	strbuf_adds(out, "</p>\n<p class=\"links\"><a href=\"/api/patches/");
	url_segment(out, key);
	strbuf_adds(out, "\">JSON</a></p>\n<table class=\"facts\">\n");
	if (get_string(newest, "upstream")) {
		strbuf_adds(out, "<tr><th>upstream</th><td>");
		link_to(out, "/patches/", get_string(newest, "upstream"));
		strbuf_adds(out, "</td></tr>\n");
	}
	strbuf_adds(out, "<tr><th>first seen</th><td>");
	verdict_link(out, json_array_get(verdicts, n - 1));
	strbuf_adds(out, "</td></tr>\n<tr><th>last dropped</th><td>");
	verdict_link(out, last_dropped);
	strbuf_adds(out, "</td></tr>\n<tr><th>last kept</th><td>");
	verdict_link(out, last_kept);
	strbuf_addf(out, "</td></tr>\n<tr><th>verdicts</th><td>%zu</td></tr>\n</table>\n", n);

	strbuf_adds(out, "<h2>By branch</h2>\n<table class=\"branches\"><tr><th>branch</th><th>base</th>"
		    "<th>latest run</th><th>queue</th><th>status</th><th>reason</th></tr>\n");
	json_array_foreach(json_object_get(answer, "branches"), i, v) {
		long long run = json_integer_value(json_object_get(v, "run"));

		strbuf_adds(out, "<tr class=\"");
		esc(out, get_string(v, "status"));
		strbuf_adds(out, "\"><td>");
		esc(out, get_string(v, "branch"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(v, "base"));
		strbuf_addf(out, "</td><td><a href=\"/runs/%lld\">%lld</a></td><td>", run, run);
		esc(out, get_string(v, "queue"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(v, "status"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(v, "reason"));
		strbuf_adds(out, "</td></tr>\n");
	}
	strbuf_adds(out, "</table>\n");

	strbuf_adds(out, "<h2>Every verdict</h2>\n<table class=\"verdicts\"><tr><th>run</th><th>queue</th>"
		    "<th>base</th><th>started</th><th>file name</th><th>status</th><th>reason</th>"
		    "<th>cases</th><th>evidence</th></tr>\n");
	json_array_foreach(verdicts, i, v) {
		long long run = json_integer_value(json_object_get(v, "run"));

		strbuf_adds(out, "<tr class=\"");
		esc(out, get_string(v, "status"));
		strbuf_addf(out, "\"><td><a href=\"/runs/%lld\">%lld</a></td><td>", run, run);
		esc(out, get_string(v, "queue"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(v, "base"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(v, "started_at"));
		strbuf_adds(out, "</td><td>");
		link_to(out, "/patches/", get_string(v, "name"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(v, "status"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(v, "reason"));
		strbuf_adds(out, "</td><td>");
		case_links(out, json_object_get(v, "regressions"), false);
		case_links(out, json_object_get(v, "changes"), true);
		strbuf_adds(out, "</td><td>");
		if (get_string(v, "evidence") && *get_string(v, "evidence")) {
			strbuf_adds(out, "<pre>");
			esc(out, get_string(v, "evidence"));
			strbuf_addf(out, "</pre><a href=\"/runs/%lld#patch-", run);
			url_segment(out, get_string(v, "name"));
			strbuf_adds(out, "\">in the run</a>");
		}
		strbuf_adds(out, "</td></tr>\n");
	}
	strbuf_adds(out, "</table>\n");
	page_foot(out);
out:
	json_decref(answer);
	strbuf_release(&err);
	strbuf_release(&title);
	return r;
}

static bool is_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	if (n < min || n > max)
		return false;
	return strspn(s, "0123456789abcdefABCDEF") == n;
}

/* The patch page that @q names by itself, if any: a sha, or a file name some run judged. */
static bool search_target(sqlite3 *db, const char *q, const json_t *found, struct strbuf *ret_location)
{
	struct strbuf err = STRBUF_INIT;
	const char *upstream = NULL;
	json_t *answer, *p;
	bool named = false;
	size_t i;

	if (is_hex(q, 12, 40)) {
		named = true;
	} else {
		/* a file name may hold spaces: the record says whether it is one */
		answer = history_patch(db, q, &err);
		named = json_array_size(json_object_get(answer, "verdicts")) > 0;
		json_decref(answer);
	}
	if (named) {
		strbuf_adds(ret_location, "/patches/");
		url_segment(ret_location, q);
	} else if (is_hex(q, 7, 11)) {
		/* a short sha too short for history_patch(): the one upstream it starts */
		json_array_foreach(json_object_get(found, "patches"), i, p) {
			const char *u = get_string(p, "upstream");

			if (!u || (upstream && strcasecmp(u, upstream)))
				break;
			upstream = u;
		}
		if (upstream && i == json_array_size(json_object_get(found, "patches"))) {
			strbuf_adds(ret_location, "/patches/");
			url_segment(ret_location, upstream);
			named = true;
		}
	}
	strbuf_release(&err);
	return named;
}

int page_render_search(sqlite3 *db, const char *query, struct strbuf *out, struct strbuf *ret_location)
{
	struct strbuf err = STRBUF_INIT, q = STRBUF_INIT;
	json_t *found = NULL, *p;
	size_t i;
	int r = 0;

	/* the query without the white space around it */
	if (query) {
		query += strspn(query, " \t\r\n");
		strbuf_adds(&q, query);
		while (q.len && strchr(" \t\r\n", q.buf[q.len - 1]))
			q.buf[--q.len] = '\0';
	}
	if (!q.len) {
		page_head(out, "Search", NULL);
		strbuf_adds(out, "<h2>Search</h2>\n<p class=\"state\">Give an upstream sha (7 to 40 hex digits), "
			    "a patch file name or words of a subject.</p>\n");
		page_foot(out);
		goto out;
	}
	found = is_hex(q.buf, 12, 40) ? NULL : history_search(db, q.buf, &err);
	r = found ? 0 : -errno;
	if (search_target(db, q.buf, found, ret_location)) {
		r = 0;
		goto out;
	}
	if (!found) {
		page_render_message(out, "Search", err.buf);
		goto out;
	}
	page_head(out, "Search", q.buf);
	strbuf_adds(out, "<h2>Patches whose subject holds ");
	esc(out, q.buf);
	strbuf_adds(out, "</h2>\n");
	if (!json_array_size(json_object_get(found, "patches"))) {
		strbuf_adds(out, "<p class=\"state\">No patch found.</p>\n");
	} else {
		strbuf_adds(out, "<table class=\"found\"><tr><th>patch</th><th>subject</th><th>upstream</th>"
			    "<th>runs</th><th>last run</th></tr>\n");
		json_array_foreach(json_object_get(found, "patches"), i, p) {
			long long last = json_integer_value(json_object_get(p, "last_run"));

			strbuf_adds(out, "<tr><td>");
			link_to(out, "/patches/", get_string(p, "name"));
			strbuf_adds(out, "</td><td>");
			esc(out, get_string(p, "subject"));
			strbuf_adds(out, "</td><td>");
			if (get_string(p, "upstream"))
				link_to(out, "/patches/", get_string(p, "upstream"));
			strbuf_addf(out, "</td><td>%lld</td><td><a href=\"/runs/%lld\">%lld</a></td></tr>\n",
				    (long long)json_integer_value(json_object_get(p, "runs")), last, last);
		}
		strbuf_adds(out, "</table>\n");
		if (json_is_true(json_object_get(found, "more")))
			strbuf_addf(out, "<p class=\"state\">Only the %d most recently judged are shown; "
				    "more words narrow the search.</p>\n", HISTORY_SEARCH_MAX);
	}
	page_foot(out);
out:
	json_decref(found);
	strbuf_release(&err);
	strbuf_release(&q);
	return r;
}

/*
 * ?page=N of a list: NULL or empty is the first page; anything but a
 * whole number from 1 is refused. 0 with *ret_page, or -EINVAL.
 */
static int parse_page_number(const char *value, int64_t *ret_page)
{
	char *end;
	long long n;

	*ret_page = 1;
	if (!value || !*value)
		return 0;
	if (*value < '0' || *value > '9')
		return -EINVAL;
	errno = 0;
	n = strtoll(value, &end, 10);
	/* beyond this the offset would overflow; no list is that long */
	if (*end || errno || n < 1 || n > INT64_MAX / PAGE_ROWS)
		return -EINVAL;
	*ret_page = n;
	return 0;
}

/*
 * "Newer" and "older" links of a list of @total rows, newest first, on
 * page @page of PAGE_ROWS rows; @path is the page's own, already a safe
 * href. Nothing when it all fits on one page.
 */
static void pager(struct strbuf *out, const char *path, int64_t page, int64_t total)
{
	int64_t pages = total ? (total + PAGE_ROWS - 1) / PAGE_ROWS : 1;

	/* @path may carry a query already (?branch=) */
	const char *sep = strchr(path, '?') ? "&amp;" : "?";

	if (pages <= 1 && page <= 1)
		return;
	strbuf_adds(out, "<nav class=\"pager\">");
	if (page > 1)
		strbuf_addf(out, "<a rel=\"prev\" href=\"%s%spage=%lld\">&larr; newer</a> ", path, sep,
			    (long long)(page > pages ? pages : page - 1));
	strbuf_addf(out, "page %lld of %lld", (long long)page, (long long)pages);
	if (page < pages)
		strbuf_addf(out, " <a rel=\"next\" href=\"%s%spage=%lld\">older &rarr;</a>", path, sep,
			    (long long)page + 1);
	strbuf_adds(out, "</nav>\n");
}

/* @prefix and @name as an href, the name percent-encoded: for pager(). */
static void page_path(struct strbuf *out, const char *prefix, const char *name)
{
	strbuf_adds(out, prefix);
	url_segment(out, name);
}

/*
 * The plot of the runs on one page of a queue's timeline, oldest at the
 * left: a bar per run for its builds (right scale) and a line through its
 * time to verdict (left scale). Only numbers from the record are drawn,
 * formatted here, so nothing in the SVG comes from a patch or a guest.
 */
static void render_plot(struct strbuf *out, const json_t *runs)
{
	const double width = 720, height = 220, left = 70, right = 50, top = 20, bottom = 40;
	const double plot_w = width - left - right, plot_h = height - top - bottom;
	size_t n = json_array_size(runs), i;
	double max_seconds = 0, max_builds = 0, step;
	bool any_seconds = false;
	json_t *run;

	if (!n)
		return;
	json_array_foreach(runs, i, run) {
		const json_t *seconds = json_object_get(run, "seconds");

		if (json_is_number(seconds)) {
			any_seconds = true;
			if (json_number_value(seconds) > max_seconds)
				max_seconds = json_number_value(seconds);
		}
		if (json_integer_value(json_object_get(run, "builds")) > max_builds)
			max_builds = (double)json_integer_value(json_object_get(run, "builds"));
	}
	if (max_seconds <= 0)
		max_seconds = 1;
	if (max_builds <= 0)
		max_builds = 1;
	step = plot_w / (double)n;
	strbuf_addf(out, "<figure class=\"plot\"><svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
		    "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		    "aria-label=\"time to verdict and builds per run\">\n", width, height, width, height);
	/* the axes: time at the left, builds at the right, runs along the bottom */
	strbuf_addf(out, "<g class=\"axes\" stroke=\"#444\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>\n",
		    left, top, left, top + plot_h, left, top + plot_h, left + plot_w, top + plot_h,
		    left + plot_w, top, left + plot_w, top + plot_h);
	strbuf_adds(out, "<g class=\"labels\" font-size=\"11\" fill=\"#222\">");
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 4, top + 4);
	add_duration(out, max_seconds);
	strbuf_addf(out, "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>", left - 4, top + plot_h);
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\">%.0f build%s</text>", left + plot_w + 4, top + 4, max_builds,
		    max_builds == 1 ? "" : "s");
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\">0</text>", left + plot_w + 4, top + plot_h);
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#06c\">time to verdict</text>", left, top - 6);
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#b80\">builds</text>",
		    left + plot_w, top - 6);
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\">run %lld</text>", left, top + plot_h + 16,
		    (long long)json_integer_value(json_object_get(json_array_get(runs, n - 1), "run")));
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">run %lld</text>", left + plot_w,
		    top + plot_h + 16, (long long)json_integer_value(json_object_get(json_array_get(runs, 0), "run")));
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">runs, oldest to newest</text>",
		    left + plot_w / 2, top + plot_h + 32);
	strbuf_adds(out, "</g>\n<g class=\"builds\" fill=\"#fc6\">");
	/* the list is newest first; the plot reads left to right in time */
	for (i = 0; i < n; i++) {
		const json_t *r = json_array_get(runs, n - 1 - i);
		double builds = (double)json_integer_value(json_object_get(r, "builds"));
		double h = plot_h * builds / max_builds;

		strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
			    "<title>run %lld: %.0f builds</title></rect>",
			    left + step * (double)i + step * 0.2, top + plot_h - h, step * 0.6, h,
			    (long long)json_integer_value(json_object_get(r, "run")), builds);
	}
	strbuf_adds(out, "</g>\n");
	if (any_seconds) {
		strbuf_adds(out, "<polyline class=\"seconds\" fill=\"none\" stroke=\"#06c\" stroke-width=\"2\" points=\"");
		for (i = 0; i < n; i++) {
			const json_t *seconds = json_object_get(json_array_get(runs, n - 1 - i), "seconds");

			if (json_is_number(seconds))
				strbuf_addf(out, "%.1f,%.1f ", left + step * ((double)i + 0.5),
					    top + plot_h - plot_h * json_number_value(seconds) / max_seconds);
		}
		strbuf_adds(out, "\"/>\n<g class=\"seconds\" fill=\"#06c\">");
		/* a dot per run too: a line through one run draws nothing */
		for (i = 0; i < n; i++) {
			const json_t *r = json_array_get(runs, n - 1 - i), *seconds = json_object_get(r, "seconds");

			if (!json_is_number(seconds))
				continue;
			strbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>run %lld: ",
				    left + step * ((double)i + 0.5),
				    top + plot_h - plot_h * json_number_value(seconds) / max_seconds,
				    (long long)json_integer_value(json_object_get(r, "run")));
			add_duration(out, json_number_value(seconds));
			strbuf_adds(out, "</title></circle>");
		}
		strbuf_adds(out, "</g>\n");
	}
	strbuf_adds(out, "</svg><figcaption>Time to verdict (line, left scale) and builds (bars, right scale) "
		    "of the runs on this page.</figcaption></figure>\n");
}

/*
 * A bar of choices, "LABEL: all · A · B" in a paragraph of class @class:
 * the one @chosen (NULL: all) in bold, "all" linked to @prefix + @name
 * (encoded), each other value to the same with "?@key=VALUE".
 */
static void choice_links(struct strbuf *out, const char *class, const char *label, const char *prefix,
			 const char *name, const char *key, const struct strlist *values,
			 const char *chosen)
{
	strbuf_addf(out, "<p class=\"%s\">%s: ", class, label);
	if (chosen) {
		strbuf_addf(out, "<a href=\"%s", prefix);
		url_segment(out, name);
		strbuf_adds(out, "\">all</a>");
	} else {
		strbuf_adds(out, "<strong>all</strong>");
	}
	for (size_t i = 0; i < values->n; i++) {
		strbuf_adds(out, " &middot; ");
		if (chosen && !strcmp(chosen, values->items[i])) {
			strbuf_adds(out, "<strong>");
			esc(out, values->items[i]);
			strbuf_adds(out, "</strong>");
			continue;
		}
		strbuf_addf(out, "<a href=\"%s", prefix);
		url_segment(out, name);
		strbuf_addf(out, "?%s=", key);
		url_segment(out, values->items[i]);
		strbuf_adds(out, "\">");
		esc(out, values->items[i]);
		strbuf_adds(out, "</a>");
	}
	strbuf_adds(out, "</p>\n");
}

/*
 * From history_branches(): the queues of the record, or with @queue the
 * branches that queue was gated on, each once, in its order (queue, then
 * release order).
 */
static void branch_table_values(sqlite3 *db, const char *queue, struct strlist *ret)
{
	struct strbuf err = STRBUF_INIT;
	json_t *answer = history_branches(db, &err), *b;
	size_t i;

	json_array_foreach(json_object_get(answer, "branches"), i, b) {
		const char *q = get_string(b, "queue"), *branch = get_string(b, "branch");

		if (!queue && q)
			strlist_add_unique(ret, q);
		else if (queue && q && branch && !strcmp(q, queue))
			strlist_add_unique(ret, branch);
	}
	json_decref(answer);
	strbuf_release(&err);
}

int page_render_queue(sqlite3 *db, const char *queue, const char *branch, const char *page_number,
		      struct strbuf *out)
{
	struct history_filter f = { .queue = queue, .limit = PAGE_ROWS };
	struct strbuf err = STRBUF_INIT, title = STRBUF_INIT, path = STRBUF_INIT;
	json_t *answer = NULL, *runs, *run, *name;
	int64_t page, total;
	size_t i, k;
	int r = 0;

	strbuf_addf(&title, "Queue %s", queue ? queue : "");
	if (!queue || !*queue) {
		r = -EINVAL;
		page_render_message(out, title.buf, "No queue named: the page of a queue is /queues/NAME.");
		goto out;
	}
	if (parse_page_number(page_number, &page) < 0) {
		r = -EINVAL;
		strbuf_addf(&err, "'%s' is not a page number (1, 2, ...).", page_number);
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	f.offset = (page - 1) * PAGE_ROWS;
	if (branch && !*branch)
		branch = NULL;
	f.branch = branch;
	answer = history_runs(db, &f, &err);
	if (!answer) {
		r = -errno;
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	runs = json_object_get(answer, "runs");
	total = json_integer_value(json_object_get(answer, "total"));
	if (!total) {
		r = -ENOENT;
		strbuf_addf(&err, "No run of a queue named %s%s%s is in the record.", queue,
			    branch ? " on branch " : "", branch ? branch : "");
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	page_path(&path, "/queues/", queue);
	if (branch) {
		strbuf_adds(&path, "?branch=");
		url_segment(&path, branch);
	}
	page_head(out, title.buf, NULL);
	strbuf_adds(out, "<h2>Queue ");
	esc(out, queue);
	if (branch) {
		strbuf_adds(out, " on ");
		esc(out, branch);
	}
	strbuf_addf(out, "</h2>\n<p class=\"links\">%lld runs, newest first. <a href=\"/api/runs?queue=",
		    (long long)total);
	url_segment(out, queue);
	if (branch) {
		strbuf_adds(out, "&amp;branch=");
		url_segment(out, branch);
	}
	strbuf_addf(out, "&amp;limit=%d&amp;offset=%lld\">JSON</a></p>\n", PAGE_ROWS, (long long)f.offset);
	{
		struct strlist branches = STRLIST_INIT;

		branch_table_values(db, queue, &branches);
		choice_links(out, "branches", "Branches", "/queues/", queue, "branch", &branches, branch);
		strlist_release(&branches);
	}
	if (!json_array_size(runs)) {
		r = -ENOENT;
		strbuf_addf(out, "<p class=\"state\">No run on page %lld.</p>\n", (long long)page);
		pager(out, path.buf, page, total);
		page_foot(out);
		goto out;
	}
	render_plot(out, runs);
	pager(out, path.buf, page, total);
	strbuf_adds(out, "<table class=\"timeline\"><tr><th>run</th><th>branch</th><th>started</th><th>base</th>"
		    "<th>verdict</th><th>drops</th><th>time to verdict</th><th>builds</th><th>boots</th>"
		    "<th>source</th></tr>\n");
	json_array_foreach(runs, i, run) {
		long long id = json_integer_value(json_object_get(run, "run"));
		const json_t *seconds = json_object_get(run, "seconds");

		strbuf_adds(out, "<tr class=\"run ");
		esc(out, get_string(run, "verdict"));
		strbuf_addf(out, "\"><td><a href=\"/runs/%lld\">%lld</a></td><td>", id, id);
		esc(out, get_string(run, "branch"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(run, "started_at"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(run, "base"));
		strbuf_adds(out, "</td><td class=\"verdict ");
		esc(out, get_string(run, "verdict"));
		strbuf_adds(out, "\"><strong>");
		esc(out, get_string(run, "verdict"));
		strbuf_adds(out, "</strong>");
		if (get_string(run, "error")) {
			strbuf_adds(out, ": ");
			esc(out, get_string(run, "error"));
		}
		strbuf_adds(out, "</td><td class=\"drops\">");
		json_array_foreach(json_object_get(run, "drop"), k, name) {
			strbuf_addf(out, "%s<a href=\"/runs/%lld#patch-", k ? "<br>" : "", id);
			url_segment(out, json_string_value(name));
			strbuf_adds(out, "\">&#9656;</a> ");
			link_to(out, "/patches/", json_string_value(name));
		}
		strbuf_adds(out, "</td><td>");
		if (json_is_number(seconds))
			add_duration(out, json_number_value(seconds));
		strbuf_addf(out, "</td><td>%lld</td><td>%lld</td><td>",
			    (long long)json_integer_value(json_object_get(run, "builds")),
			    (long long)json_integer_value(json_object_get(run, "boots")));
		esc(out, get_string(run, "source"));
		strbuf_adds(out, "</td></tr>\n");
	}
	strbuf_adds(out, "</table>\n");
	pager(out, path.buf, page, total);
	page_foot(out);
out:
	json_decref(answer);
	strbuf_release(&err);
	strbuf_release(&title);
	strbuf_release(&path);
	return r;
}

/* Whether @patches (a JSON array of names) holds @name. */
static bool names_hold(const json_t *patches, const char *name)
{
	size_t i;
	json_t *p;

	json_array_foreach(patches, i, p)
		if (json_string_value(p) && !strcmp(json_string_value(p), name))
			return true;
	return false;
}

/*
 * The grid of queue @queue for case @name: of the queue's newest
 * CASE_GRID_RUNS finished runs, those where the case's outcome differs
 * from the run before (the oldest one looked at, when it is not a pass)
 * are the columns, oldest to newest, the newest CASE_GRID_COLUMNS of
 * them; the patches those runs blame are the rows, and a cell says
 * whether that run blamed that patch.
 */
static void render_case_grid(sqlite3 *db, struct strbuf *out, const char *name, const char *queue)
{
	struct strbuf err = STRBUF_INIT;
	struct strlist rows = STRLIST_INIT;
	json_t *answer = history_case_in(db, name, queue, CASE_GRID_RUNS, 0, &err), *runs, *run;
	const json_t *cols[CASE_GRID_COLUMNS];
	const char *before = NULL;
	size_t n, n_cols = 0, first = 0, i, k;

	strbuf_adds(out, "<h3>Where it changed in ");
	esc(out, queue);
	strbuf_adds(out, "</h3>\n");
	if (!answer) {
		strbuf_adds(out, "<p class=\"state\">The record cannot be read: ");
		esc(out, err.buf);
		strbuf_adds(out, "</p>\n");
		strbuf_release(&err);
		return;
	}
	runs = json_object_get(answer, "runs");
	n = json_array_size(runs);
	/* oldest to newest; a ring of the newest CASE_GRID_COLUMNS changes */
	for (i = n; i-- > 0;) {
		const char *outcome = get_string(json_array_get(runs, i), "outcome");

		if (outcome && (before ? strcmp(before, outcome) != 0 : strcmp(outcome, "pass") != 0)) {
			cols[(first + n_cols) % CASE_GRID_COLUMNS] = json_array_get(runs, i);
			if (n_cols < CASE_GRID_COLUMNS)
				n_cols++;
			else
				first = (first + 1) % CASE_GRID_COLUMNS;
		}
		before = outcome;
	}
	if (!n_cols) {
		strbuf_addf(out, "<p class=\"state\">No change in the newest %zu finished runs of the queue%s.</p>\n",
			    n, n ? ": it passed in every one" : "");
		goto out;
	}
	for (i = 0; i < n_cols; i++)
		json_array_foreach(json_object_get(cols[(first + i) % CASE_GRID_COLUMNS], "patches"), k, run)
			if (json_string_value(run))
				strlist_add_unique(&rows, json_string_value(run));
	strbuf_addf(out, "<p class=\"links\">The runs, of its newest %zu, where the outcome changed "
		    "(oldest first), and the patches they blamed.</p>\n<table class=\"case-grid\"><tr><th>patch</th>", n);
	for (i = 0; i < n_cols; i++) {
		const json_t *col = cols[(first + i) % CASE_GRID_COLUMNS];
		long long id = json_integer_value(json_object_get(col, "run"));

		strbuf_addf(out, "<th><a href=\"/runs/%lld\">%lld</a><br>", id, id);
		esc(out, get_string(col, "outcome"));
		strbuf_adds(out, "</th>");
	}
	strbuf_adds(out, "</tr>\n");
	for (k = 0; k < rows.n; k++) {
		strbuf_adds(out, "<tr><td>");
		link_to(out, "/patches/", rows.items[k]);
		strbuf_adds(out, "</td>");
		for (i = 0; i < n_cols; i++) {
			const json_t *col = cols[(first + i) % CASE_GRID_COLUMNS];

			if (names_hold(json_object_get(col, "patches"), rows.items[k])) {
				strbuf_adds(out, "<td class=\"");
				esc(out, get_string(col, "outcome"));
				strbuf_adds(out, "\">");
				esc(out, get_string(col, "outcome"));
				strbuf_adds(out, "</td>");
			} else {
				strbuf_adds(out, "<td></td>");
			}
		}
		strbuf_adds(out, "</tr>\n");
	}
	strbuf_adds(out, "</table>\n");
out:
	strlist_release(&rows);
	json_decref(answer);
	strbuf_release(&err);
}

int page_render_case(sqlite3 *db, const char *name, const char *queue, const char *page_number,
		     struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT, title = STRBUF_INIT, path = STRBUF_INIT;
	json_t *answer = NULL, *runs, *run;
	int64_t page, total;
	size_t i;
	int r = 0;

	if (queue && !*queue)
		queue = NULL;
	strbuf_addf(&title, "Case %s", name ? name : "");
	if (parse_page_number(page_number, &page) < 0) {
		r = -EINVAL;
		strbuf_addf(&err, "'%s' is not a page number (1, 2, ...).", page_number);
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	answer = history_case_in(db, name, queue, PAGE_ROWS, (page - 1) * PAGE_ROWS, &err);
	if (!answer) {
		r = -errno;
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	runs = json_object_get(answer, "runs");
	total = json_integer_value(json_object_get(answer, "total"));
	if (!total && json_is_null(json_object_get(answer, "kind"))) {
		r = -ENOENT;
		strbuf_addf(&err, "No case named %s in the record: no boot ran it and no verdict names it.", name);
		page_render_message(out, title.buf, err.buf);
		goto out;
	}
	page_path(&path, "/cases/", name);
	if (queue) {
		strbuf_adds(&path, "?queue=");
		url_segment(&path, queue);
	}
	page_head(out, title.buf, NULL);
	strbuf_adds(out, "<h2>Case ");
	esc(out, name);
	if (queue) {
		strbuf_adds(out, " in ");
		esc(out, queue);
	}
	strbuf_adds(out, "</h2>\n");
	{
		struct strlist queues = STRLIST_INIT;

		branch_table_values(db, NULL, &queues);
		choice_links(out, "queues", "By queue", "/cases/", name, "queue", &queues, queue);
		strlist_release(&queues);
	}
	if (queue && total)
		render_case_grid(db, out, name, queue);
	strbuf_adds(out, "<p class=\"links\">");
	if (get_string(answer, "kind")) {
		strbuf_adds(out, "A ");
		esc(out, get_string(answer, "kind"));
		strbuf_adds(out, " case; ");
	}
	strbuf_addf(out, "its outcome in %lld finished runs, newest first. <a href=\"/api/cases/", (long long)total);
	url_segment(out, name);
	strbuf_addf(out, "?limit=%d&amp;offset=%lld", PAGE_ROWS, (long long)(page - 1) * PAGE_ROWS);
	if (queue) {
		strbuf_adds(out, "&amp;queue=");
		url_segment(out, queue);
	}
	strbuf_adds(out, "\">JSON</a></p>\n");
	if (!json_array_size(runs)) {
		if (total)
			r = -ENOENT;
		strbuf_addf(out, "<p class=\"state\">%s</p>\n", total ? "No run on this page." : "No finished run yet.");
		pager(out, path.buf, page, total);
		page_foot(out);
		goto out;
	}
	pager(out, path.buf, page, total);
	strbuf_adds(out, "<table class=\"case-runs\"><tr><th>run</th><th>queue</th><th>started</th><th>outcome</th>"
		    "<th>on base</th><th>with the queue</th><th>patches</th></tr>\n");
	json_array_foreach(runs, i, run) {
		long long id = json_integer_value(json_object_get(run, "run"));
		size_t k;
		json_t *patch;

		strbuf_adds(out, "<tr class=\"");
		esc(out, get_string(run, "outcome"));
		strbuf_addf(out, "\"><td><a href=\"/runs/%lld\">%lld</a></td><td>", id, id);
		link_to(out, "/queues/", get_string(run, "queue"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(run, "started_at"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(run, "outcome"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(run, "base") ? get_string(run, "base") : "-");
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(run, "candidate") ? get_string(run, "candidate") : "-");
		strbuf_adds(out, "</td><td>");
		json_array_foreach(json_object_get(run, "patches"), k, patch) {
			if (k)
				strbuf_adds(out, ", ");
			link_to(out, "/patches/", json_string_value(patch));
			strbuf_addf(out, " (<a href=\"/runs/%lld#patch-", id);
			url_segment(out, json_string_value(patch));
			strbuf_adds(out, "\">evidence</a>)");
		}
		strbuf_adds(out, "</td></tr>\n");
	}
	strbuf_adds(out, "</table>\n");
	pager(out, path.buf, page, total);
	page_foot(out);
out:
	json_decref(answer);
	strbuf_release(&err);
	strbuf_release(&title);
	strbuf_release(&path);
	return r;
}

int page_render_regressions(sqlite3 *db, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	json_t *answer = history_regressions(db, false, &err), *q, *p;
	size_t i, k, n_open = 0, n_clean = 0;
	int r = 0;

	if (!answer) {
		r = -errno;
		page_render_message(out, "Open regressions", err.buf);
		goto out;
	}
	page_head(out, "Open regressions", NULL);
	strbuf_adds(out, "<h2>Open regressions</h2>\n<p class=\"links\">What the latest finished run of each queue "
		    "on each branch dropped for a regression, a build or a boot failure; a later clean run closes it. "
		    "<a href=\"/api/regressions\">JSON</a></p>\n");
	json_array_foreach(json_object_get(answer, "queues"), i, q)
		n_open += json_array_size(json_object_get(q, "open"));
	if (n_open)
		strbuf_adds(out, "<table class=\"open\"><tr><th>queue</th><th>branch</th><th>run</th><th>started</th>"
			    "<th>patch</th><th>upstream</th><th>reason</th><th>cases</th></tr>\n");
	json_array_foreach(json_object_get(answer, "queues"), i, q) {
		long long run = json_integer_value(json_object_get(q, "run"));

		json_array_foreach(json_object_get(q, "open"), k, p) {
			strbuf_adds(out, "<tr class=\"regression\"><td>");
			link_to(out, "/queues/", get_string(q, "queue"));
			strbuf_adds(out, "</td><td>");
			esc(out, get_string(q, "branch"));
			strbuf_addf(out, "</td><td><a href=\"/runs/%lld\">%lld</a> on ", run, run);
			esc(out, get_string(q, "base"));
			strbuf_adds(out, "</td><td>");
			esc(out, get_string(q, "started_at"));
			strbuf_addf(out, "</td><td><a href=\"/runs/%lld#patch-", run);
			url_segment(out, get_string(p, "patch"));
			strbuf_adds(out, "\">&#9656;</a> ");
			link_to(out, "/patches/", get_string(p, "patch"));
			strbuf_adds(out, "</td><td>");
			if (get_string(p, "upstream"))
				link_to(out, "/patches/", get_string(p, "upstream"));
			strbuf_adds(out, "</td><td>");
			esc(out, get_string(p, "reason"));
			strbuf_adds(out, "</td><td>");
			case_links(out, json_object_get(p, "cases"), false);
			strbuf_adds(out, "</td></tr>\n");
		}
	}
	if (n_open)
		strbuf_adds(out, "</table>\n");
	else
		strbuf_adds(out, "<p class=\"state\">Nothing is open.</p>\n");

	json_array_foreach(json_object_get(answer, "queues"), i, q) {
		long long run = json_integer_value(json_object_get(q, "run"));

		if (json_array_size(json_object_get(q, "open")))
			continue;
		if (!n_clean++)
			strbuf_adds(out, "<h2>Nothing open</h2>\n<table class=\"clean\"><tr><th>queue</th><th>branch</th>"
				    "<th>latest run</th><th>verdict</th></tr>\n");
		strbuf_adds(out, "<tr class=\"clean\"><td>");
		link_to(out, "/queues/", get_string(q, "queue"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(q, "branch"));
		strbuf_addf(out, "</td><td><a href=\"/runs/%lld\">%lld</a> on ", run, run);
		esc(out, get_string(q, "base"));
		strbuf_adds(out, "</td><td>");
		esc(out, get_string(q, "verdict"));
		strbuf_adds(out, "</td></tr>\n");
	}
	if (n_clean)
		strbuf_adds(out, "</table>\n");
	page_foot(out);
out:
	json_decref(answer);
	strbuf_release(&err);
	return r;
}
