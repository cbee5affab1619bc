// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "record/db.h"
#include "record/jobs.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

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

int64_t jobs_already_gated(sqlite3 *db, const char *queue, const char *hash, int64_t job)
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

int jobs_record_done(sqlite3 *db, const struct queue_config *q, int64_t job, json_t *report)
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

int jobs_set_snapshot(sqlite3 *db, int64_t job, const char *content_hash, const char *commit)
{
	return job_set(db, job, "UPDATE job SET content_hash = ?1, commit_id = ?2 WHERE id = ?3",
		       content_hash, commit);
}

int jobs_done_as(sqlite3 *db, int64_t job, int64_t earlier_run)
{
	char run[32];

	snprintf(run, sizeof(run), "%lld", (long long)earlier_run);
	return job_set(db, job, "UPDATE job SET state = 'done', run_id = ?1, error = ?2, "
		       "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?3",
		       run, "snapshot already gated");
}

int jobs_set_error(sqlite3 *db, int64_t job, const char *error)
{
	return job_set(db, job, "UPDATE job SET error = ?1 WHERE id = ?3", error, NULL);
}

int jobs_get_queue(sqlite3 *db, int64_t job, char **ret_queue, struct strbuf *err)
{
	sqlite3_stmt *st;

	*ret_queue = NULL;
	if (sqlite3_prepare_v2(db, "SELECT queue FROM job WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return db_error(db, "reading the job", err);
	sqlite3_bind_int64(st, 1, job);
	if (sqlite3_step(st) == SQLITE_ROW)
		*ret_queue = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

int64_t jobs_next_queued(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t job = 0;

	if (sqlite3_prepare_v2(db, "SELECT id FROM job WHERE state = 'queued' AND "
			       "(started_at IS NULL OR COALESCE(finished_at, started_at) < "
			       "strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-30 seconds')) "
			       "ORDER BY id LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		job = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return job;
}

bool jobs_queue_pending(sqlite3 *db, const char *queue)
{
	sqlite3_stmt *st;
	bool pending = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM job WHERE queue = ? AND state IN ('queued', 'running')",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, queue, -1, SQLITE_STATIC);
	pending = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return pending;
}

/* One statement whose only parameter is the job. */
static int job_sql(sqlite3 *db, const char *sql, int64_t job)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, job);
	return step_done(st);
}

int jobs_start(sqlite3 *db, int64_t job)
{
	return job_sql(db, "UPDATE job SET state = 'running', attempts = attempts + 1, "
		       "error = NULL, started_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), "
		       "finished_at = NULL WHERE id = ?", job);
}

int jobs_requeue(sqlite3 *db, int64_t job)
{
	return job_sql(db, "UPDATE job SET state = 'queued' WHERE id = ?", job);
}

int jobs_worker_failed(sqlite3 *db, int64_t job)
{
	return job_sql(db, "UPDATE job SET state = CASE WHEN attempts >= " STRINGIFY(JOBS_MAX_ATTEMPTS)
		       " THEN 'failed' ELSE 'queued' END, "
		       "error = COALESCE(error, 'the worker ended without a verdict'), "
		       "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') "
		       "WHERE id = ? AND state = 'running'", job);
}

int jobs_interrupted(sqlite3 *db, int64_t job)
{
	return job_sql(db, "UPDATE job SET state = 'queued' WHERE id = ? AND state = 'running'", job);
}

int jobs_recover(sqlite3 *db)
{
	if (sqlite3_exec(db, "UPDATE job SET state = 'queued', started_at = NULL WHERE state = 'running';"
			 "UPDATE run SET verdict = 'error', error = 'interrupted: the daemon or its worker was killed', "
			 "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE verdict = 'running'",
			 NULL, NULL, NULL) != SQLITE_OK)
		return -EIO;
	return 0;
}

json_t *jobs_get_json(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st;
	json_t *o = NULL;

	if (sqlite3_prepare_v2(db, "SELECT id, queue, trigger, state, attempts, run_id, error, created_at, "
			       "started_at, finished_at, content_hash FROM job WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		static const char *const keys[] = { "job", "queue", "trigger", "state", "attempts", "run",
						     "error", "created_at", "started_at", "finished_at",
						     "snapshot" };

		o = json_object();
		for (int i = 0; i < 11; i++) {
			json_t *v;

			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER: v = json_integer(sqlite3_column_int64(st, i)); break;
			case SQLITE_NULL: v = json_null(); break;
			default: v = json_string((const char *)sqlite3_column_text(st, i)); break;
			}
			json_object_set_new(o, keys[i], v);
		}
	}
	sqlite3_finalize(st);
	return o;
}
