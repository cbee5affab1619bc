/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history: the questions people ask the record (db.h's schema), answered
 * as JSON objects shaped for the HTTP API; `backport-gate history` prints
 * the same objects for people.
 *
 * Every function reads through the open handle @db and writes nothing. It
 * returns a new reference (the caller json_decref()s it), or NULL with a
 * one-line message in @err and errno set to say which kind of failure it
 * was, so a server can map it onto a status code:
 *
 *   EINVAL  a bad argument (the message names it and what is accepted)
 *   ENOENT  no such run
 *   EAGAIN  the run exists but has no report yet (it is still running)
 *   EIO     the database failed, or a stored value is not what gate_run()
 *           writes (the message names the run)
 *
 * No transaction is held open across the statements of one answer, so a
 * connection may be shared with other threads (SQLITE_OPEN_FULLMUTEX); an
 * answer read while a run is being recorded can be a moment out of step
 * (a "total" counting a run its page does not show yet).
 *
 * Times are the record's ISO 8601 UTC strings ("2026-12-03T07:06:08Z").
 * "Newest first" means by run.started_at, then by run id. A run is
 * finished when its verdict is pass or drop: error runs judged nothing,
 * running ones have not judged yet.
 *
 * A run's "branch" is the stable branch of its base release, MAJOR.MINOR
 * (base 6.1.192: branch 6.1; 6.12.118: 6.12). Lists of branches are in
 * release order: 6.1, 6.6, 6.12.
 */
#ifndef GATE_HISTORY_H
#define GATE_HISTORY_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/strbuf.h"

#define HISTORY_LIMIT_DEFAULT 50
#define HISTORY_LIMIT_MAX 500

struct history_filter {
	const char *queue;	/* NULL: any; else equal to snapshot.queue */
	const char *verdict;	/* NULL: any; else pass, drop, error or running */
	const char *branch;	/* NULL: any; else MAJOR.MINOR ("6.12"): runs whose
				 * base is that branch's release (6.12.118) */
	const char *since;	/* NULL: any; else runs started at or after this
				 * ISO date or date-time: 2026-12-03,
				 * 2026-12-03T07:00, "2026-12-03 07:00:05",
				 * ...+02:00; UTC unless it names an offset */
	int64_t run;		/* 0: any; else only the run of this id */
	int64_t limit;		/* 0: HISTORY_LIMIT_DEFAULT; above
				 * HISTORY_LIMIT_MAX is clamped to it */
	int64_t offset;		/* matching runs to skip, newest first */
};

/*
 * The one reading of a limit or an offset, for the CLI (--limit, --offset)
 * and the API (?limit=, &offset=): a decimal count, whole, not negative;
 * a limit of 0 is refused too (one above HISTORY_LIMIT_MAX is clamped by
 * history_runs()). 0 with *ret, or -EINVAL with a message naming @name
 * ("limit: 'abc' is not a count") in @err.
 */
int history_parse_limit(const char *name, const char *value, int64_t *ret, struct strbuf *err);
int history_parse_offset(const char *name, const char *value, int64_t *ret, struct strbuf *err);

/*
 * Runs matching @f (NULL: no filter), newest first:
 *
 *   {"runs": [{"run", "queue", "source", "ref", "commit", "base",
 *              "branch", "verdict", "started_at", "finished_at", "seconds",
 *              "builds", "boots", "error", "drop": [patch names]}...],
 *    "total": N, "limit": L, "offset": O}
 *
 * total counts every matching run (not just this page); limit is the one
 * applied (after defaulting and clamping). ref, commit, finished_at,
 * seconds and error are null when the record has none; drop lists the
 * patches the run's verdicts dropped, in series order. EINVAL for an
 * unknown verdict, a since that is not a date, a branch that is not
 * MAJOR.MINOR, a negative limit or offset.
 */
json_t *history_runs(sqlite3 *db, const struct history_filter *f, struct strbuf *err);

/*
 * The JSON report run @run recorded (docs/CONTRACTS.md's shape, as gate_run()
 * wrote it). ENOENT "no run N"; EAGAIN while it is still running.
 */
json_t *history_run_report(sqlite3 *db, int64_t run, struct strbuf *err);

/*
 * Every verdict a patch ever got, in every queue and run, newest first
 * (within a run, in series order):
 *
 *   {"key": @key, "match": "upstream" | "name",
 *    "verdicts": [{"run", "queue", "started_at", "finished_at", "base",
 *                  "branch", "name", "upstream", "subject", "status",
 *                  "reason", "regressions": [...], "changes": [...],
 *                  "evidence", "author", "date", "message_id"}...],
 *    "branches": [{"branch", "base", "run", "queue", "name", "status",
 *                  "reason", "started_at", "finished_at"}...]}
 *
 * status is the verdict's: ok, drop or not-exercised; reason is null but
 * for a drop (apply, build, boot, regression, dependency). "branches"
 * says which branches the patch was judged on and how: one entry per
 * branch, in release order, each the patch's newest verdict on that
 * branch (the first of "verdicts" there), whichever queue gave it.
 *
 * A @key of 12 to 40 hex digits is an upstream sha: it matches every
 * patch whose upstream starts with it, ignoring case ("match":
 * "upstream"). Anything else is a file name, matched exactly against the
 * name in the series ("match": "name"). A patch never seen gives an empty
 * list, not an error. EINVAL for an empty key.
 */
json_t *history_patch(sqlite3 *db, const char *key, struct strbuf *err);

/*
 * One suite case across the finished runs, newest first, @limit of them
 * (0: every one; above HISTORY_LIMIT_MAX is clamped to it) after skipping
 * @offset:
 *
 *   {"case": @name, "kind": "contract" | "quirk" | null, "total": N,
 *    "runs": [{"run", "queue", "started_at",
 *              "outcome": "pass" | "regressed" | "changed",
 *              "patches": [names], "base", "candidate"}...]}
 *
 * "regressed": the patches whose verdict lists the case in its
 * regressions; "changed": none did, but these patches changed the quirk
 * case (verdict changes); "pass": no verdict of the run names the case
 * (patches is empty). kind is what a boot recorded the case as, null when
 * no recorded boot ran it. A case that no boot and no verdict ever named
 * (a typo, say) has an empty "runs" and a total of 0, rather than a
 * "pass" for every run; otherwise total counts every finished run.
 *
 * base and candidate are the case's status (pass, fail, quirk-changed,
 * error) in the first boot of the run's base tree (its sequence of no
 * patch) and of its largest judged sequence (the whole queue, when it
 * applied), with the run's config and suite; null where the record has
 * no such boot (a run made before migration 0006, a tree that did not
 * build or boot). EINVAL for an empty name, a negative limit or offset.
 */
json_t *history_case(sqlite3 *db, const char *name, int64_t limit, int64_t offset, struct strbuf *err);
/* The same over the runs of one queue (series folder) @queue; NULL: every queue. */
json_t *history_case_in(sqlite3 *db, const char *name, const char *queue, int64_t limit,
			int64_t offset, struct strbuf *err);

/*
 * Per queue and branch (by queue name, then branch in release order),
 * what the latest finished run of that queue on that branch left open:
 *
 *   {"queues": [{"queue", "branch", "base", "run", "started_at", "verdict",
 *                "open": [{"patch", "upstream", "cases": [...],
 *                          "reason"}...]}...]}
 *
 * open lists the patches that run dropped for a regression, a build or a
 * boot failure (series order); a later clean run of the queue on the same
 * branch closes them, so its list is empty. A run on another branch
 * closes nothing: a patch open on 6.1 stays open there when 6.12 keeps
 * it. Drops for apply and dependency are not regressions of the kernel
 * and are left out. A queue and branch with no finished run is not
 * listed; with @open_only neither is one with nothing open.
 */
json_t *history_regressions(sqlite3 *db, bool open_only, struct strbuf *err);

/*
 * Per queue and branch (ordered as history_regressions()'s), the latest
 * finished run, for the page's table:
 *
 *   {"branches": [{"queue", "branch", "run", "base", "verdict",
 *                  "started_at", "finished_at", "drops": N}...]}
 *
 * verdict is pass or drop; drops counts the patches that run dropped,
 * for any reason. An empty record gives an empty list.
 */
json_t *history_branches(sqlite3 *db, struct strbuf *err);

/*
 * One history for the command line and the daemon: the newest finished
 * run (pass or drop) on stable branch @branch (MAJOR.MINOR) of the
 * snapshots read from @source's series folder @queue (snapshot.source
 * and snapshot.queue) that no daemon job recorded, finished after @after
 * (ISO 8601 UTC as the record writes it; NULL: any time). Its report;
 * ENOENT (@err left empty) when there is none.
 */
json_t *history_latest_unjobbed(sqlite3 *db, const char *source, const char *queue,
				const char *branch, const char *after, struct strbuf *err);

#define HISTORY_SEARCH_MAX 100

/*
 * The patches whose subject holds every word of @words (split at white
 * space, compared ignoring ASCII case), for the search box; a single
 * word of 7 to 40 hex digits also finds the patches whose upstream
 * starts with it. One entry per file name and upstream, the most
 * recently judged first, at most HISTORY_SEARCH_MAX:
 *
 *   {"query": @words, "patches": [{"name", "upstream", "subject",
 *                                  "author", "runs": N, "last_run"}...],
 *    "more": true | false}
 *
 * runs counts the runs that judged it; more says that the list was cut
 * at HISTORY_SEARCH_MAX. Only patches some run judged are listed.
 * EINVAL when @words has no word.
 */
json_t *history_search(sqlite3 *db, const char *words, struct strbuf *err);

#endif
