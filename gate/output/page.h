/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page: the HTML page a maintainer reads at GET /: a table "By queue and
 * branch" with one row (class "branch") per queue and stable branch in the
 * record: its latest finished run, verdict, base release and drops
 * (history_branches()); then each configured queue's latest verdict, its
 * drop list with reasons and evidence, and links into the history API.
 * Everything from the record is HTML-escaped; a record that cannot be read
 * is said so on the page, which is still whole.
 */
#ifndef GATE_PAGE_H
#define GATE_PAGE_H

#include <sqlite3.h>

#include "basic/strbuf.h"
#include "parse/config.h"

void page_render(sqlite3 *db, const struct gate_config *cfg, struct strbuf *out);

#endif
