/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page: the HTML page a maintainer reads at GET /: a table "By queue and
 * branch" with one row (class "branch") per queue and stable branch in the
 * record: its latest finished run, verdict, base release and drops
 * (history_branches()); then each configured queue's latest verdict, its
 * drop list with reasons and evidence, and links into the history API.
 * Everything from the record is HTML-escaped (text and attributes; the
 * names in links are percent-encoded path segments); a record that cannot
 * be read is said so on the page, which is still whole. Every page has a
 * search box (GET /search?q=) and no script.
 *
 * The pages of one run, one patch, a search, a queue, a case and the
 * open regressions follow page_render(). Each
 * appends a whole page to @out, also when there is nothing to show (the
 * page then says why), and returns 0, or the negative errno of the
 * history.h function that failed, for the server's status code: -ENOENT
 * no such run, or no run judged that patch; -EAGAIN the run is still
 * running; -EINVAL a bad key or query; -EIO the record failed.
 */
#ifndef GATE_PAGE_H
#define GATE_PAGE_H

#include <sqlite3.h>
#include <stdint.h>

#include "basic/strbuf.h"
#include "parse/config.h"

void page_render(sqlite3 *db, const struct gate_config *cfg, struct strbuf *out);

/*
 * GET /runs/ID: the run's facts (queue, base, verdict, times, builds and
 * boots, kept tree), then each dropped patch with its reason, cases,
 * evidence and bisection steps, then the kept patches with their status,
 * apply offset and compile check, from history_run_report().
 */
int page_render_run(sqlite3 *db, int64_t run, struct strbuf *out);

/*
 * GET /patches/KEY: every verdict of the patch named by @key (file name
 * or upstream sha, as history_patch()), by branch and in full, and when
 * it was first seen, last dropped and last kept.
 */
int page_render_patch(sqlite3 *db, const char *key, struct strbuf *out);

/*
 * GET /search?q=: @query naming one patch by itself (an upstream sha of
 * 12 to 40 hex digits, a file name some run judged, or 7 to 11 hex digits
 * that start one upstream) puts its page's path in @ret_location and
 * nothing in @out: the server redirects. Otherwise the page lists the
 * patches history_search() finds.
 */
int page_render_search(sqlite3 *db, const char *query, struct strbuf *out, struct strbuf *ret_location);

/* Rows on one page of a list; ?page=N (from 1) picks the page. */
#define PAGE_ROWS 50

/*
 * GET /queues/NAME?branch=B&page=N: the runs of the queue whose series
 * folder is @queue (snapshot.queue, as history_runs()'s filter and the
 * front page's table name it), on stable branch @branch only unless it is
 * NULL or empty, PAGE_ROWS a page, newest first: links to the queue's
 * runs on each branch it was gated on, an SVG plot of time to verdict and
 * builds per run, then a timeline table (run, branch, start, base,
 * verdict, drops linked to their patches, time to verdict, builds, boots,
 * source) between "newer" and "older" links. @page_number is the raw
 * ?page= (NULL: 1). -EINVAL for a page that is not a whole number from 1
 * or a branch that is not MAJOR.MINOR; -ENOENT when the record has no run
 * of @queue (on @branch), or none on that page.
 */
int page_render_queue(sqlite3 *db, const char *queue, const char *branch, const char *page_number,
		      struct strbuf *out);

/*
 * GET /cases/NAME?queue=Q&page=N: the case's outcome in each finished
 * run (of queue @queue only, unless it is NULL or empty), PAGE_ROWS a
 * page, from history_case_in(): run, queue, start, outcome, its status on
 * the base tree and with the queue where a boot recorded them, the
 * patches blamed; links to the case in each queue; for one queue, first
 * a grid of the patches blamed by the runs where the case's outcome
 * changed, among the queue's newest 200. -ENOENT for a case the record
 * does not know, or a page past the last; -EINVAL as page_render_queue().
 */
int page_render_case(sqlite3 *db, const char *name, const char *queue, const char *page_number,
		     struct strbuf *out);

/*
 * GET /regressions: history_regressions() as a page: one row per patch
 * left open by the latest finished run of a queue on a branch, then the
 * queues and branches with nothing open.
 */
int page_render_regressions(sqlite3 *db, struct strbuf *out);

/* A page that says only @message under @title (both escaped), with the search box. */
void page_render_message(struct strbuf *out, const char *title, const char *message);

#endif
