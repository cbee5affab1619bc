/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sequence: the sequences a run judged (base plus a subset of its queue),
 * and, for a report, what the record knows of each: the build of its tree
 * and the boots of that build, with every case. Schema:
 * db/migrations/0006-run-sequences.sql.
 */
#ifndef GATE_SEQUENCE_H
#define GATE_SEQUENCE_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/strbuf.h"

/* One judged sequence, as gate_run() recorded it. */
struct run_sequence {
	const size_t *patches;	/* 0-based series indexes, ascending */
	size_t n_patches;
	const char *commit;	/* 40 hex, or NULL when a patch did not apply */
	const char *tree;	/* 40 hex, or NULL as @commit */
	long apply_failed;	/* 0-based index that did not apply, or -1 */
	const char *judged_at;	/* ISO 8601 UTC */
};

/*
 * Record what every sequence of run @run_id shares (@base_commit, the
 * @config key) and sequence number @position (1-based). Part of the
 * caller's transaction when one is open. 0 or -EIO (db_error() says why).
 */
int run_sequence_put(sqlite3 *db, int64_t run_id, size_t position,
		     const struct run_sequence *seq);
int run_sequence_set_base(sqlite3 *db, int64_t run_id, const char *base_commit,
			  const char *config);

/*
 * What the record knows of run @run's sequences:
 *
 *   {"run", "started_at", "finished_at", "base_commit", "config", "suite",
 *    "source", "sequences": [{"position", "patches": [{"position", "name",
 *         "content_hash"}...], "commit", "tree", "apply_failed": position,
 *         "judged_at",
 *         "build": {"status": "ok"|"failed", "first_error", "seconds",
 *                   "created_at"},
 *         "boots": [{"attempt", "status", "accel", "seconds", "created_at",
 *                    "evidence", "cases": [{"name", "kind", "status",
 *                    "diagnostic"}...]}...]}...]}
 *
 * in judging order. A key whose value the record lacks is absent (never
 * null): commit and tree when a patch did not apply, build when the
 * kernel was built under another database or not at all, a boot's
 * seconds and accel when unknown. boots lists the boots of the
 * sequence's tree (with the run's config and suite) recorded before the
 * run finished, in attempt order. A run recorded before
 * 0006-run-sequences has an empty "sequences". Returns a new reference,
 * or NULL with @err and errno: ENOENT (no such run), EAGAIN (still
 * running), EIO (the database failed).
 */
json_t *run_sequences_json(sqlite3 *db, int64_t run, struct strbuf *err);

#endif
