/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run: the rows one gate run writes (db.h's schema), every statement that
 * writes them. A run starts, then ends with a verdict or an error:
 *
 *   run_start()           the snapshot, its patches, and the run row with
 *                         verdict 'running'
 *   run_record_verdict()  every patch's apply_result and verdict row, and
 *                         the run's verdict, report and counts
 *   run_record_error()    the run's verdict 'error', why, and its counts
 *
 * Each is one transaction (run_record_error() one statement), so a run is
 * whole or absent: a process killed at any moment leaves either no run,
 * or a run still 'running' (or 'error') with no verdict or apply_result
 * row, never a pass or a drop with rows missing. A run left 'running' by
 * a killed process is ended as an error by run_reap(), which every run
 * calls first; the daemon's start also ends them (jobs.h:
 * jobs_recover()).
 *
 * Each waits for another writer up to the busy timeout db_open() sets.
 * Every function returns 0, or a negative errno with one line in @err
 * naming what was being recorded and SQLite's reason ("database:
 * recording the verdict: database is locked"): -EIO for a database
 * error, -EINVAL for a statement whose parameters do not match (a bug),
 * -ENOENT when the run to end is not in the record.
 * Nothing here logs.
 */
#ifndef GATE_RUN_H
#define GATE_RUN_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "record/sequence.h"

/* One entry of the queue as the record keeps it; NULL for what is unknown. */
struct run_patch {
	const char *name;		/* as in the series */
	const char *upstream;		/* the upstream sha */
	const char *subject;
	const char *author;
	const char *date;
	const char *message_id;
	const char *content_hash;	/* NULL when it was not read */
	const char *error;		/* why it cannot be used; NULL when it can */
};

/* The queue snapshot a run gates. */
struct run_snapshot {
	const char *queue;		/* the series folder, e.g. queue-6.1 */
	const char *source;
	const char *ref;		/* NULL for a plain directory */
	const char *commit;		/* NULL for a plain directory */
	const char *content_hash;	/* series + every patch */
	const struct run_patch *patches;
	size_t n;
};

/*
 * Record @snap (kept once per queue and content: a snapshot gated before
 * is reused with its patch rows) and a new run of it on base release
 * @base with suite @suite, verdict 'running', in one transaction.
 * *ret_run is the run's id; @ret_patch_ids (@snap->n of them, the
 * caller's) the patch rows' ids in series order, for
 * run_record_verdict().
 */
int run_start(sqlite3 *db, const struct run_snapshot *snap, const char *base, const char *suite,
	      int64_t *ret_run, int64_t *ret_patch_ids, struct strbuf *err);

/* What a run cost, for its row. */
struct run_stats {
	unsigned builds, boots, evaluations;
	double seconds;
};

/* One patch's result: how it applied and its verdict (judge.h's names). */
struct run_patch_result {
	const char *apply_status;	/* applied, offset, already, failed or refused */
	int64_t offset;			/* lines the hunks moved */
	const char *apply_message;
	const char *status;		/* ok, drop or not-exercised */
	const char *reason;		/* NULL unless dropped */
	const struct strlist *regressions;	/* case names; kept as a JSON array */
	const struct strlist *changes;
	const char *evidence;
	const char *steps;
};

/* Everything a verdict writes. */
struct run_verdict {
	int64_t run;
	const int64_t *patch_ids;	/* from run_start(), series order */
	const struct run_patch_result *patches;
	size_t n;
	const char *verdict;		/* pass or drop */
	json_t *report;			/* the whole report, kept as compact JSON */
	struct run_stats stats;
	const char *kept_tree, *kept_commit;
	const char *base_commit;	/* what every sequence shares (sequence.h) */
	const char *config;		/* the builds' config key */
	const struct run_sequence *sequences;	/* every sequence judged, in order */
	size_t n_sequences;
};

/*
 * End run @v->run with its verdict: one apply_result and one verdict row
 * per patch, every judged sequence (sequence.h), and the run's verdict,
 * report, counts and finish time; all in one transaction, rolled back
 * when any statement fails.
 */
int run_record_verdict(sqlite3 *db, const struct run_verdict *v, struct strbuf *err);

/*
 * End run @run without a verdict: 'error', @error (why), @report (what is
 * known; may be NULL), the counts and the finish time.
 */
int run_record_error(sqlite3 *db, int64_t run, const char *error, json_t *report,
		     const struct run_stats *stats, struct strbuf *err);

/*
 * End as errors ("interrupted: ...") the runs still 'running' whose
 * process is gone: each records its owner (the machine's boot id and its
 * pid), and one from an earlier boot, or whose pid is no longer alive,
 * will never end. Runs made before owners were recorded are left alone.
 * *ret_reaped counts those ended.
 */
int run_reap(sqlite3 *db, unsigned *ret_reaped, struct strbuf *err);

#endif
