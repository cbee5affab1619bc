/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jobs: the daemon's job rows (db.h's schema), every statement that reads
 * or moves one. A job is queued (by a webhook or a poll), superseded by a
 * newer one for the same queue while it waits, running while a worker
 * gates it, then done (with its run) or, after JOBS_MAX_ATTEMPTS attempts
 * without a verdict, failed. A job found running when the daemon starts
 * was interrupted, and is queued again.
 *
 * Every function that moves or reads a job returns 0 or a negative errno:
 * -EIO for a database error (sqlite3_errmsg() says which), -ENOENT when
 * the job to change does not exist, -ENOMEM. Nothing here logs: the
 * caller does, naming the job.
 */
#ifndef GATE_JOBS_H
#define GATE_JOBS_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/strbuf.h"
#include "parse/config.h"

/* A job without a verdict is tried this often, 30 s apart. */
#define JOBS_MAX_ATTEMPTS 3

/* The stable review thread a job's reply answers; either may be NULL. */
struct job_thread {
	const char *in_reply_to;	/* the review message's Message-ID */
	const char *subject;		/* its subject */
};

/*
 * Queue a job for @queue, answering @thread (NULL: none); a newer job
 * supersedes queued, not started ones. A @delivery seen before gives its
 * job with *ret_duplicate. 0, or -errno with @err.
 */
int jobs_enqueue(sqlite3 *db, const char *queue, const char *trigger, const char *delivery,
		 const struct job_thread *thread, int64_t *ret_job, bool *ret_duplicate,
		 struct strbuf *err);

/*
 * The thread job @job answers, as given to jobs_enqueue(): new strings
 * into *ret_in_reply_to and *ret_subject (NULL when not given).
 */
int jobs_get_thread(sqlite3 *db, int64_t job, char **ret_in_reply_to, char **ret_subject);

/*
 * The oldest queued job into *ret_job (0: none); one whose attempt failed
 * waits 30 s from that attempt's end.
 */
int jobs_next_queued(sqlite3 *db, int64_t *ret_job);
/* *ret_pending: @queue has a job queued or running. */
int jobs_queue_pending(sqlite3 *db, const char *queue, bool *ret_pending);

/* A worker takes job @job: running, one attempt more, its error cleared. */
int jobs_start(sqlite3 *db, int64_t job);
/* The worker could not be started: queued again. */
int jobs_requeue(sqlite3 *db, int64_t job);
/*
 * The worker ended without a verdict: queued again, or failed after the
 * last attempt. A job no longer running is left as it is (0).
 */
int jobs_worker_failed(sqlite3 *db, int64_t job);
/* The daemon stops under a running job: queued again (it runs after the restart); as above. */
int jobs_interrupted(sqlite3 *db, int64_t job);
/*
 * At start: every job still running was interrupted by a crash or a
 * kill, and is queued again; every run still running ends as an error
 * (one transaction).
 */
int jobs_recover(sqlite3 *db);

/* The queue job @job gates into *ret_queue (caller frees; NULL: no such job). 0, or -errno with @err. */
int jobs_get_queue(sqlite3 *db, int64_t job, char **ret_queue, struct strbuf *err);
/*
 * The job that gated run @run into *ret_job: the newest done job whose run
 * it is (0: none, as for a run made by `backport-gate run`). 0 or -EIO.
 */
int jobs_for_run(sqlite3 *db, int64_t run, int64_t *ret_job);
/* The snapshot the job read: its content hash and commit (NULL for a directory). */
int jobs_set_snapshot(sqlite3 *db, int64_t job, const char *content_hash, const char *commit);
/* *ret_run: the run of an earlier job that gated the same snapshot of @queue, or 0. */
int jobs_already_gated(sqlite3 *db, const char *queue, const char *content_hash, int64_t job,
		       int64_t *ret_run);
/* The job is done with an earlier job's run: the snapshot was already gated. */
int jobs_done_as(sqlite3 *db, int64_t job, int64_t earlier_run);
/*
 * What the worker of running job @job is doing ("build 812/1290 objects,
 * ~1 min left"), written by the worker as it goes (at most every few
 * seconds) and cleared when the job starts again; /api/jobs/ID and the
 * page show it only while the job runs.
 */
int jobs_set_progress(sqlite3 *db, int64_t job, const char *progress);
/* @queue's running job's progress into *ret_progress (caller frees; NULL: none). 0, or -EIO. */
int jobs_running_progress(sqlite3 *db, const char *queue, char **ret_progress);
/* Why the job has no verdict, for /api/jobs and the page. */
int jobs_set_error(sqlite3 *db, int64_t job, const char *error);
/* The reply on the review thread a verdict sends (record/outbox.h). */
struct job_mail {
	const char *relay;	/* smtp:// or smtps:// URL */
	const char *mail_from;	/* the envelope sender, a bare address */
	const char *rcpt;	/* the recipients, one bare address per line */
	const char *message;	/* the whole RFC 5322 message */
};

/*
 * The job is done with the run of @report, and @q's notifications of it
 * (its webhooks, and @mail unless NULL) are in the outbox: together or
 * not at all (one transaction).
 */
int jobs_record_done(sqlite3 *db, const struct queue_config *q, int64_t job, json_t *report,
		     const struct job_mail *mail);

/* Room for a job's state: queued, running, done, failed or superseded. */
#define JOBS_STATE_MAX 16

/*
 * @queue's latest verdict: the newest job of @queue whose run has a
 * report. *ret_job is 0 when there is none; else the job, its state in
 * @ret_state, and the run's report in *ret_report (a new reference; NULL
 * when the stored text is not JSON). 0, or -EIO.
 */
int jobs_latest_report(sqlite3 *db, const char *queue, int64_t *ret_job,
		       char ret_state[JOBS_STATE_MAX], json_t **ret_report);
/* The state of @queue's newest job still queued or running into @ret_state, "" when none. 0, or -EIO. */
int jobs_pending_state(sqlite3 *db, const char *queue, char ret_state[JOBS_STATE_MAX]);

/* What a failed call's @r means, for a log line: SQLite's message for -EIO. */
const char *jobs_strerror(sqlite3 *db, int r);

/*
 * The job as /api/jobs/ID shows it (a new reference), or NULL when there
 * is none; "progress" is null unless the job is running.
 */
json_t *jobs_get_json(sqlite3 *db, int64_t job);

#endif
