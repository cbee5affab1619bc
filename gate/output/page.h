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
 * The pages of one run, one patch and a search follow page_render(). Each
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

/* A page that says only @message under @title (both escaped), with the search box. */
void page_render_message(struct strbuf *out, const char *title, const char *message);

#endif
