// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/page.h"
#include "record/history.h"
#include "record/jobs.h"

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

static void render_queue(sqlite3 *db, const struct queue_config *q, struct strbuf *out)
{
	char state[JOBS_STATE_MAX], pending_state[JOBS_STATE_MAX];
	char *progress;
	int64_t job;
	json_t *report, *p;
	const char *verdict;
	size_t i;

	strbuf_adds(out, "<section class=\"queue\"><h2>");
	esc(out, q->name);
	strbuf_adds(out, "</h2><p class=\"source\">");
	esc(out, q->url);
	strbuf_adds(out, "</p>");
	if (jobs_latest_report(db, q->name, &job, state, &report) < 0 ||
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
	strbuf_addf(out, ": <strong>%s</strong>, %zu of %zu patches to drop</p>\n",
		    verdict && !strcmp(verdict, "drop") ? "DROP" : verdict && !strcmp(verdict, "pass") ? "PASS" : "NO VERDICT",
		    json_array_size(json_object_get(report, "drop")),
		    json_array_size(json_object_get(report, "patches")));
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
			strbuf_adds(out, "<a href=\"/api/cases/");
			url_segment(out, json_string_value(c));
			strbuf_adds(out, "\">");
			esc(out, json_string_value(c));
			strbuf_adds(out, "</a> ");
		}
		json_array_foreach(json_object_get(p, "changes"), k, c) {
			strbuf_adds(out, "<a class=\"change\" href=\"/api/cases/");
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
		esc(out, json_string_value(json_object_get(b, "queue")));
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
	strbuf_adds(out, "<p>Latest verdict of each stable queue. History: <a href=\"/api/runs\">runs</a>, "
		    "<a href=\"/api/regressions\">open regressions</a> (JSON); a run's page is /runs/ID, "
		    "a patch's /patches/NAME or /patches/SHA.</p>\n");
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

/* A case name links to its history in the API; @changed marks a quirk a patch changed. */
static void case_links(struct strbuf *out, const json_t *names, bool changed)
{
	size_t i;
	json_t *c;

	json_array_foreach(names, i, c) {
		strbuf_addf(out, "<a%s href=\"/api/cases/", changed ? " class=\"change\"" : "");
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
	strbuf_addf(out, "<h2>Run %lld</h2>\n<p class=\"links\"><a href=\"/api/runs/%lld\">JSON report</a></p>\n",
		    (long long)run, (long long)run);
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
