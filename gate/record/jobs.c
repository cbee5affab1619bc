// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/sql.h"
#include "basic/xalloc.h"
#include "record/db.h"
#include "record/jobs.h"
#include "record/outbox.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* A statement that must change a job's row: -ENOENT when it changed none. */
static int job_update(sqlite3 *db, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sql_vprepare(db, &st, sql, fmt, ap);
	va_end(ap);
	if (r == 0)
		r = sql_step_done(st);
	if (r == 0 && sqlite3_changes(db) == 0)
		r = -ENOENT;
	return r;
}

int jobs_enqueue(sqlite3 *db, const char *queue, const char *trigger, const char *delivery,
		 const struct job_thread *thread, int64_t *ret_job, bool *ret_duplicate,
		 struct strbuf *err)
{
	const struct job_thread none = { 0 };
	sqlite3_stmt *st;
	int r;

	*ret_duplicate = false;
	if (db_begin(db) < 0)
		return db_error(db, "queueing a job", err);
	if (delivery) {
		r = sql_prepare(db, &st, "SELECT job_id FROM delivery WHERE id = ? AND queue = ?",
				"ss", delivery, queue);
		if (r < 0)
			goto out;
		if (sqlite3_step(st) == SQLITE_ROW) {
			*ret_job = sqlite3_column_int64(st, 0);
			*ret_duplicate = true;
		}
		sqlite3_finalize(st);
		if (*ret_duplicate)
			goto out;
	}
	/* A newer snapshot of the queue supersedes one still waiting. */
	r = sql_exec(db, "UPDATE job SET state = 'superseded' WHERE queue = ? AND state = 'queued'",
		     "s", queue);
	if (r == 0)
		r = sql_exec(db, "INSERT INTO job (queue, trigger, state, in_reply_to, review_subject) "
			     "VALUES (?, ?, 'queued', ?, ?)", "ssss", queue, trigger,
			     (thread ? thread : &none)->in_reply_to, (thread ? thread : &none)->subject);
	if (r < 0)
		goto out;
	*ret_job = sqlite3_last_insert_rowid(db);
	if (delivery)
		r = sql_exec(db, "INSERT INTO delivery (id, queue, job_id) VALUES (?, ?, ?)", "ssi",
			     delivery, queue, (sqlite3_int64)*ret_job);
out:
	if (r == 0 && db_commit(db) == 0)
		return 0;
	r = db_error(db, "queueing a job", err);
	db_rollback(db);
	return r;
}

int jobs_get_thread(sqlite3 *db, int64_t job, char **ret_in_reply_to, char **ret_subject)
{
	sqlite3_stmt *st;
	int rc;

	*ret_in_reply_to = NULL;
	*ret_subject = NULL;
	if (sql_prepare(db, &st, "SELECT in_reply_to, review_subject FROM job WHERE id = ?", "i",
			(sqlite3_int64)job) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *a = sqlite3_column_text(st, 0), *b = sqlite3_column_text(st, 1);

		*ret_in_reply_to = a ? xstrdup((const char *)a) : NULL;
		*ret_subject = b ? xstrdup((const char *)b) : NULL;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : -EIO;
}

int jobs_already_gated(sqlite3 *db, const char *queue, const char *hash, int64_t job,
		       int64_t *ret_run)
{
	sqlite3_stmt *st;
	int rc;

	*ret_run = 0;
	if (sql_prepare(db, &st, "SELECT run_id FROM job WHERE queue = ? AND content_hash = ? AND "
			"state = 'done' AND run_id IS NOT NULL AND id != ? ORDER BY id DESC LIMIT 1",
			"ssi", queue, hash, (sqlite3_int64)job) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret_run = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int jobs_record_done(sqlite3 *db, const struct queue_config *q, int64_t job, json_t *report,
		     const struct job_mail *mail)
{
	sqlite3_int64 run = json_integer_value(json_object_get(report, "run"));
	char *body = json_dumps(report, JSON_COMPACT);
	int r;

	if (!body)
		return -ENOMEM;
	r = db_begin(db);
	if (r == 0)
		r = job_update(db, "UPDATE job SET state = 'done', run_id = ?, error = NULL, "
			       "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
			       "ii", run, (sqlite3_int64)job);
	for (size_t i = 0; r == 0 && i < q->n_notify; i++)
		r = outbox_add(db, run, q->notify[i], body);
	if (r == 0 && mail)
		r = outbox_add_mail(db, run, mail->relay, mail->mail_from, mail->rcpt, mail->message);
	if (r == 0)
		r = db_commit(db);
	if (r < 0)
		db_rollback(db);
	free(body);
	return r;
}

int jobs_set_snapshot(sqlite3 *db, int64_t job, const char *content_hash, const char *commit)
{
	return job_update(db, "UPDATE job SET content_hash = ?, commit_id = ? WHERE id = ?",
			  "ssi", content_hash, commit, (sqlite3_int64)job);
}

int jobs_done_as(sqlite3 *db, int64_t job, int64_t earlier_run)
{
	return job_update(db, "UPDATE job SET state = 'done', run_id = ?, "
			  "error = 'snapshot already gated', "
			  "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
			  "ii", (sqlite3_int64)earlier_run, (sqlite3_int64)job);
}

int jobs_set_error(sqlite3 *db, int64_t job, const char *error)
{
	return job_update(db, "UPDATE job SET error = ? WHERE id = ?", "si", error,
			  (sqlite3_int64)job);
}

int jobs_get_queue(sqlite3 *db, int64_t job, char **ret_queue, struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc;

	*ret_queue = NULL;
	if (sql_prepare(db, &st, "SELECT queue FROM job WHERE id = ?", "i", (sqlite3_int64)job) < 0)
		return db_error(db, "reading the job", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret_queue = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_error(db, "reading the job", err);
}

int jobs_for_run(sqlite3 *db, int64_t run, int64_t *ret_job)
{
	sqlite3_stmt *st;
	int rc;

	*ret_job = 0;
	if (sql_prepare(db, &st, "SELECT id FROM job WHERE run_id = ? AND state = 'done' "
			"ORDER BY id DESC LIMIT 1", "i", (sqlite3_int64)run) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret_job = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

/* @t as the schema writes times: ISO 8601 UTC, to the second. */
static void iso_time(time_t t, char ret[JOBS_TIME_MAX])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(ret, JOBS_TIME_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

long long jobs_retry_delay(long long failed_attempts)
{
	long long delay = JOBS_RETRY_FIRST;

	for (long long i = 1; i < failed_attempts && delay < JOBS_RETRY_CAP; i++)
		delay *= 2;
	return delay < JOBS_RETRY_CAP ? delay : JOBS_RETRY_CAP;
}

int jobs_next_queued(sqlite3 *db, time_t now, bool (*skip)(void *arg, const char *queue),
		     void *arg, int64_t *ret_job)
{
	char at[JOBS_TIME_MAX];
	sqlite3_stmt *st;
	int rc;

	*ret_job = 0;
	iso_time(now, at);
	/* the text form orders as the times do */
	if (sql_prepare(db, &st, "SELECT id, queue FROM job WHERE state = 'queued' AND "
			"(next_try_at IS NULL OR next_try_at <= ?) AND queue NOT IN "
			"(SELECT queue FROM job WHERE state = 'running') ORDER BY id", "s", at) < 0)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (skip && skip(arg, (const char *)sqlite3_column_text(st, 1)))
			continue;
		*ret_job = sqlite3_column_int64(st, 0);
		break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int jobs_queue_pending(sqlite3 *db, const char *queue, bool *ret_pending)
{
	sqlite3_stmt *st;
	int rc;

	*ret_pending = false;
	if (sql_prepare(db, &st, "SELECT 1 FROM job WHERE queue = ? AND state IN ('queued', 'running')",
			"s", queue) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	*ret_pending = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int jobs_start(sqlite3 *db, int64_t job)
{
	return job_update(db, "UPDATE job SET state = 'running', attempts = attempts + 1, "
			  "error = NULL, progress = NULL, started_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), "
			  "finished_at = NULL, next_try_at = NULL WHERE id = ?", "i", (sqlite3_int64)job);
}

int jobs_set_progress(sqlite3 *db, int64_t job, const char *progress)
{
	return job_update(db, "UPDATE job SET progress = ? WHERE id = ?", "si", progress,
			  (sqlite3_int64)job);
}

int jobs_running_progress(sqlite3 *db, const char *queue, char **ret_progress)
{
	sqlite3_stmt *st;
	int rc;

	*ret_progress = NULL;
	if (sql_prepare(db, &st, "SELECT progress FROM job WHERE queue = ? AND state = 'running' "
			"AND progress IS NOT NULL ORDER BY id DESC LIMIT 1", "s", queue) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret_progress = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int jobs_requeue(sqlite3 *db, int64_t job, time_t now)
{
	char at[JOBS_TIME_MAX];

	iso_time(now + JOBS_RETRY_FIRST, at);
	return job_update(db, "UPDATE job SET state = 'queued', next_try_at = ? WHERE id = ?", "si",
			  at, (sqlite3_int64)job);
}

/* A job no longer running (it ended another way meanwhile) is left as it is. */
int jobs_worker_failed(sqlite3 *db, int64_t job, long long retry_max, time_t now,
		       const char *why)
{
	char next_at[JOBS_TIME_MAX], first_at[JOBS_TIME_MAX], now_at[JOBS_TIME_MAX];
	long long attempts, first_failed, deadline;
	sqlite3_stmt *st;
	time_t next;
	bool give_up;
	int rc;

	if (sql_prepare(db, &st, "SELECT attempts, CAST(strftime('%s', first_failed_at) AS INTEGER) "
			"FROM job WHERE id = ? AND state = 'running'", "i", (sqlite3_int64)job) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? 0 : -EIO;
	}
	attempts = sqlite3_column_int64(st, 0);
	first_failed = sqlite3_column_type(st, 1) == SQLITE_NULL ? (long long)now :
		       sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);

	/* the last try comes at the ceiling itself, not a whole delay short of it */
	deadline = first_failed + retry_max;
	give_up = (long long)now >= deadline;
	next = now + jobs_retry_delay(attempts);
	if ((long long)next > deadline)
		next = (time_t)deadline;
	iso_time(next, next_at);
	iso_time(first_failed, first_at);
	iso_time(now, now_at);
	return sql_exec(db, "UPDATE job SET state = ?, next_try_at = ?, "
			"first_failed_at = COALESCE(first_failed_at, ?), "
			"error = COALESCE(error, ?), "
			"finished_at = ? WHERE id = ? AND state = 'running'", "sssssi",
			give_up ? "failed" : "queued", give_up ? NULL : next_at, first_at,
			why ? why : "the worker ended without a verdict", now_at, (sqlite3_int64)job);
}

int jobs_interrupted(sqlite3 *db, int64_t job)
{
	/* the attempt did not fail: no wait before it runs again (jobs_start() cleared next_try_at) */
	return sql_exec(db, "UPDATE job SET state = 'queued' "
			"WHERE id = ? AND state = 'running'", "i", (sqlite3_int64)job);
}

int jobs_recover(sqlite3 *db)
{
	int r = db_begin(db);

	if (r == 0)
		r = sql_exec(db, "UPDATE job SET state = 'queued', next_try_at = NULL WHERE state = 'running'", "");
	if (r == 0)
		r = sql_exec(db, "UPDATE run SET verdict = 'error', "
			     "error = 'interrupted: the daemon or its worker was killed', "
			     "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE verdict = 'running'", "");
	if (r == 0)
		r = db_commit(db);
	if (r < 0)
		db_rollback(db);
	return r;
}

int jobs_latest_report(sqlite3 *db, const char *queue, int64_t *ret_job,
		       char ret_state[JOBS_STATE_MAX], char ret_finished_at[JOBS_TIME_MAX],
		       json_t **ret_report)
{
	sqlite3_stmt *st;
	int rc;

	*ret_job = 0;
	ret_state[0] = '\0';
	ret_finished_at[0] = '\0';
	*ret_report = NULL;
	/* the latest verdict; a newer job still waiting or running is jobs_pending_state()'s */
	if (sql_prepare(db, &st, "SELECT job.id, job.state, rr.report, job.finished_at FROM job "
			"JOIN run_report rr ON rr.run_id = job.run_id "
			"WHERE job.queue = ? ORDER BY job.id DESC LIMIT 1", "s", queue) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret_job = sqlite3_column_int64(st, 0);
		snprintf(ret_state, JOBS_STATE_MAX, "%s", (const char *)sqlite3_column_text(st, 1));
		if (sqlite3_column_text(st, 3))
			snprintf(ret_finished_at, JOBS_TIME_MAX, "%s",
				 (const char *)sqlite3_column_text(st, 3));
		if (sqlite3_column_text(st, 2))
			*ret_report = json_loads((const char *)sqlite3_column_text(st, 2), 0, NULL);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int jobs_pending_state(sqlite3 *db, const char *queue, char ret_state[JOBS_STATE_MAX])
{
	sqlite3_stmt *st;
	int rc;

	ret_state[0] = '\0';
	if (sql_prepare(db, &st, "SELECT state FROM job WHERE queue = ? AND state IN ('queued', 'running') "
			"ORDER BY id DESC LIMIT 1", "s", queue) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(ret_state, JOBS_STATE_MAX, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int jobs_queue_retry(sqlite3 *db, const char *queue, struct job_retry *ret)
{
	sqlite3_stmt *st;
	int rc;

	memset(ret, 0, sizeof(*ret));
	if (sql_prepare(db, &st, "SELECT id, next_try_at, attempts, error FROM job WHERE queue = ? "
			"AND state = 'queued' AND next_try_at IS NOT NULL "
			"ORDER BY next_try_at DESC, id DESC LIMIT 1",
			"s", queue) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *error = sqlite3_column_text(st, 3);

		ret->job = sqlite3_column_int64(st, 0);
		snprintf(ret->next_try_at, sizeof(ret->next_try_at), "%s",
			 (const char *)sqlite3_column_text(st, 1));
		ret->attempt = sqlite3_column_int64(st, 2) + 1;
		ret->reason = xstrdup(error ? (const char *)error : "no reason recorded");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

void jobs_retry_release(struct job_retry *retry)
{
	free(retry->reason);
	retry->reason = NULL;
}

const char *jobs_strerror(sqlite3 *db, int r)
{
	if (r == -ENOENT)
		return "no such job";
	return r == -EIO ? sqlite3_errmsg(db) : strerror(-r);
}

json_t *jobs_get_json(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st;
	json_t *o = NULL;

	/* the worker's last word on a job no longer running is stale: null */
	if (sql_prepare(db, &st, "SELECT id, queue, trigger, state, attempts, run_id, error, created_at, "
			"started_at, finished_at, content_hash, "
			"CASE WHEN state = 'running' THEN progress END, "
			"CASE WHEN state = 'queued' THEN next_try_at END, first_failed_at "
			"FROM job WHERE id = ?", "i",
			(sqlite3_int64)id) < 0)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW) {
		static const char *const keys[] = { "job", "queue", "trigger", "state", "attempts", "run",
						     "error", "created_at", "started_at", "finished_at",
						     "snapshot", "progress", "next_try_at", "first_failed_at" };

		o = json_object();
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
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
