// SPDX-License-Identifier: GPL-2.0
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
	strbuf_addf(out, "\">Run <a href=\"/api/runs/%lld\">%lld</a> on ",
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
		strbuf_adds(out, "\"><td><a href=\"/api/patches/");
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
		strbuf_addf(out, "</td><td><a href=\"/api/runs/%lld\">%lld</a></td><td>", run, run);
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
	strbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<title>backport-gate</title><style>"
		    "body{font-family:sans-serif;margin:2em;color:#222}"
		    "table{border-collapse:collapse;width:100%}"
		    "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
		    "tr.drop{background:#fdd}tr.not-exercised{color:#777}"
		    ".verdict.drop strong{color:#b00}.verdict.pass strong{color:#070}"
		    "pre{white-space:pre-wrap;margin:0;font-size:85%}"
		    "</style></head><body>\n<h1>backport-gate</h1>\n"
		    "<p>Latest verdict of each stable queue. History: <a href=\"/api/runs\">runs</a>, "
		    "<a href=\"/api/regressions\">open regressions</a>.</p>\n");
	render_branches(db, out);
	for (size_t i = 0; i < cfg->n_queues; i++)
		render_queue(db, &cfg->queues[i], out);
	if (!cfg->n_queues)
		strbuf_adds(out, "<p>No queue is configured.</p>\n");
	strbuf_adds(out, "</body></html>\n");
}
