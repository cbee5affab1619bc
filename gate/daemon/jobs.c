// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/commands.h"
#include "daemon/serve.h"
#include "pipeline/gate.h"
#include "pipeline/queue.h"
#include "pipeline/tree.h"
#include "record/db.h"

static int step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int jobs_enqueue(sqlite3 *db, const char *queue, const char *trigger, const char *delivery,
		 int64_t *ret_job, bool *ret_duplicate, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int r = -EIO;

	*ret_duplicate = false;
	if (db_begin(db) < 0)
		return db_error(db, "queueing a job", err);
	if (delivery) {
		if (sqlite3_prepare_v2(db, "SELECT job_id FROM delivery WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_text(st, 1, delivery, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*ret_job = sqlite3_column_int64(st, 0);
			*ret_duplicate = true;
			sqlite3_finalize(st);
			st = NULL;
			r = 0;
			goto out;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	/* A newer snapshot of the queue supersedes one still waiting. */
	if (sqlite3_prepare_v2(db, "UPDATE job SET state = 'superseded' WHERE queue = ? AND state = 'queued'",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, queue, -1, SQLITE_STATIC);
	r = step_done(st);
	st = NULL;
	if (r < 0)
		goto out;
	r = -EIO;
	if (sqlite3_prepare_v2(db, "INSERT INTO job (queue, trigger, state) VALUES (?, ?, 'queued')",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, queue, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, trigger, -1, SQLITE_STATIC);
	if (step_done(st) < 0) {
		st = NULL;
		goto out;
	}
	st = NULL;
	*ret_job = sqlite3_last_insert_rowid(db);
	if (delivery) {
		if (sqlite3_prepare_v2(db, "INSERT INTO delivery (id, job_id) VALUES (?, ?)", -1, &st,
				       NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_text(st, 1, delivery, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, *ret_job);
		r = step_done(st);
		st = NULL;
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	sqlite3_finalize(st);
	if (r == 0 && db_commit(db) == 0)
		return 0;
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return db_error(db, "queueing a job", err);
}

static int job_set(sqlite3 *db, int64_t job, const char *sql, const char *text1, const char *text2)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if (text1)
		sqlite3_bind_text(st, 1, text1, -1, SQLITE_TRANSIENT);
	if (text2)
		sqlite3_bind_text(st, 2, text2, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, job);
	return step_done(st);
}

/* The run of an earlier job that gated the same snapshot of this queue, or 0. */
static int64_t already_gated(sqlite3 *db, const char *queue, const char *hash, int64_t job)
{
	sqlite3_stmt *st;
	int64_t run = 0;

	if (sqlite3_prepare_v2(db, "SELECT run_id FROM job WHERE queue = ? AND content_hash = ? AND "
			       "state = 'done' AND run_id IS NOT NULL AND id != ? ORDER BY id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, queue, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, job);
	if (sqlite3_step(st) == SQLITE_ROW)
		run = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return run;
}

/* The job's verdict and its notifications, together or not at all. */
static int record_done(sqlite3 *db, const struct queue_config *q, int64_t job, json_t *report)
{
	int64_t run = json_integer_value(json_object_get(report, "run"));
	char *body = json_dumps(report, JSON_COMPACT);
	sqlite3_stmt *st = NULL;
	int r = -EIO;

	if (db_begin(db) < 0)
		goto out;
	if (sqlite3_prepare_v2(db, "UPDATE job SET state = 'done', run_id = ?, error = NULL, "
			       "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		goto rollback;
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, job);
	if (step_done(st) < 0) {
		st = NULL;
		goto rollback;
	}
	st = NULL;
	for (size_t i = 0; i < q->n_notify; i++) {
		if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO outbox (run_id, url, body, state) "
				       "VALUES (?, ?, ?, 'pending')", -1, &st, NULL) != SQLITE_OK)
			goto rollback;
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_text(st, 2, q->notify[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, body, -1, SQLITE_STATIC);
		if (step_done(st) < 0) {
			st = NULL;
			goto rollback;
		}
		st = NULL;
	}
	if (db_commit(db) == 0) {
		r = 0;
		goto out;
	}
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
out:
	free(body);
	return r;
}

int job_execute(const struct gate_config *cfg, int64_t job_id, struct strbuf *err)
{
	struct queue_snapshot snap = { 0 };
	struct gate_options opts = { .drop_on_quirk = cfg->drop_on_quirk };
	const struct queue_config *q;
	struct queue_request req = { 0 };
	struct strbuf why = STRBUF_INIT;
	char *queue = NULL, *top = repository_top(), *series_default = default_series_dir();
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	json_t *report = NULL;
	int64_t earlier;
	int r;

	r = db_open(cfg->database, &db, err);
	if (r < 0)
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT queue FROM job WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		r = db_error(db, "reading the job", err);
		goto out;
	}
	sqlite3_bind_int64(st, 1, job_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		queue = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!queue) {
		strbuf_addf(err, "job %lld does not exist", (long long)job_id);
		r = -ENOENT;
		goto out;
	}
	q = config_queue(cfg, queue);
	if (!q) {
		strbuf_addf(err, "job %lld: queue '%s' is no longer configured", (long long)job_id, queue);
		r = -ENOENT;
		goto out;
	}
	req.source = q->url;
	req.ref = q->ref;
	req.series_dir = q->series;
	req.default_series_dir = series_default;
	req.cache = cfg->cache;
	r = queue_load(&req, &snap, &why);
	if (r < 0) {
		/* "queue NAME: what failed", once */
		strbuf_addf(err, "queue %s: %s", queue,
			    strncmp(why.buf, "queue: ", 7) == 0 ? why.buf + 7 : why.buf);
		goto out;
	}
	job_set(db, job_id, "UPDATE job SET content_hash = ?1, commit_id = ?2 WHERE id = ?3",
		snap.content_hash, snap.commit[0] ? snap.commit : NULL);
	/* The same content twice is one job. */
	earlier = already_gated(db, queue, snap.content_hash, job_id);
	if (earlier) {
		char run[32];

		snprintf(run, sizeof(run), "%lld", (long long)earlier);
		r = job_set(db, job_id, "UPDATE job SET state = 'done', run_id = ?1, error = ?2, "
			    "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?3",
			    run, "snapshot already gated");
		goto out;
	}
	r = gate_snapshot(top, cfg->cache, db, &snap, &opts, &report, err);
	if (r < 0)
		goto out;
	r = record_done(db, q, job_id, report);
	if (r < 0)
		db_error(db, "recording the verdict", err);
out:
	/* Why there is no verdict, for /api/jobs and the page; the job is retried. */
	if (r < 0 && db && queue)
		job_set(db, job_id, "UPDATE job SET error = ?1 WHERE id = ?3", err->buf, NULL);
	strbuf_release(&why);
	json_decref(report);
	queue_snapshot_release(&snap);
	db_close(db);
	free(queue);
	free(top);
	free(series_default);
	return r;
}
