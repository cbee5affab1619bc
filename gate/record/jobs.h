/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jobs: the daemon's job rows (db.h's schema), every statement that reads
 * or moves one. A job is queued (by a webhook or a poll), superseded by a
 * newer one for the same queue while it waits, running while a worker
 * gates it, then done (with its run) or failed.
 *
 * An attempt without a verdict (the worker exited 2, the gate could not
 * decide, or the worker died) is an infrastructure failure: a full disk, a
 * fetch that timed out, a QEMU that did not start. It is retried with a
 * wait that doubles per failed attempt (jobs_retry_delay(): 30 s, 60 s,
 * 120 s, ... at most JOBS_RETRY_CAP), until [server] retry-max has passed
 * since the job's first failed attempt: the last try comes at that
 * ceiling, and when it fails too the job ends failed with its last error.
 * The worker does not say which no-verdict errors are permanent (a queue
 * no longer configured, a queue that cannot be read), so every one is
 * retried the same way; a patch that does not apply or build is a verdict
 * (drop), not an error. The row keeps when the next try is due
 * (next_try_at) and why (error) for /api/jobs/ID and the page.
 *
 * A job found running when the daemon starts was interrupted, and is
 * queued again to run at once.
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
#include <time.h>

#include "basic/strbuf.h"
#include "parse/config.h"

/* The wait after a job's first failed attempt, and the most any one wait lasts (seconds). */
#define JOBS_RETRY_FIRST 30
#define JOBS_RETRY_CAP 3600

/* Room for a time as the rows hold it: "2026-12-06T02:10:25Z". */
#define JOBS_TIME_MAX 24

/*
 * The wait before the next try of a job that has failed @failed_attempts
 * times (at least 1): JOBS_RETRY_FIRST doubled per failed attempt before
 * the last, at most JOBS_RETRY_CAP.
 */
long long jobs_retry_delay(long long failed_attempts);

/* The stable review thread a job's reply answers; either may be NULL. */
struct job_thread {
	const char *in_reply_to;	/* the review message's Message-ID */
	const char *subject;		/* its subject */
};

/*
 * Queue a job for @queue, answering @thread (NULL: none); a newer job
 * supersedes queued, not started ones. A @delivery seen before for @queue
 * gives its job with *ret_duplicate (one delivery may queue a job for each
 * queue on a repository). 0, or -errno with @err.
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
 * The oldest queued job due at @now into *ret_job (0: none): one waiting
 * to retry is not due before its next_try_at, and one whose queue has a
 * job running waits for it (a queue's jobs run one at a time, in order).
 * @skip, when given, passes over the jobs of the queues it says yes to.
 */
int jobs_next_queued(sqlite3 *db, time_t now, bool (*skip)(void *arg, const char *queue),
		     void *arg, int64_t *ret_job);
/* *ret_pending: @queue has a job queued or running. */
int jobs_queue_pending(sqlite3 *db, const char *queue, bool *ret_pending);

/* A worker takes job @job: running, one attempt more, its error and next_try_at cleared. */
int jobs_start(sqlite3 *db, int64_t job);
/* The worker could not be started at @now: queued again, due JOBS_RETRY_FIRST s later. */
int jobs_requeue(sqlite3 *db, int64_t job, time_t now);
/*
 * The worker ended without a verdict at @now: queued again, due
 * jobs_retry_delay(attempts) later but not after @retry_max seconds past
 * the job's first failed attempt (@now for the first); failed when @now
 * is already there. The error the worker recorded is kept (else @why,
 * else "the worker ended without a verdict"). A job no longer running is
 * left as it is (0).
 */
int jobs_worker_failed(sqlite3 *db, int64_t job, long long retry_max, time_t now,
		       const char *why);
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
 * @ret_state, when it finished in @ret_finished_at (ISO 8601 UTC, empty
 * when not recorded), and the run's report in *ret_report (a new
 * reference; NULL when the stored text is not JSON). 0, or -EIO.
 */
int jobs_latest_report(sqlite3 *db, const char *queue, int64_t *ret_job,
		       char ret_state[JOBS_STATE_MAX], char ret_finished_at[JOBS_TIME_MAX],
		       json_t **ret_report);
/* The state of @queue's newest job still queued or running into @ret_state, "" when none. 0, or -EIO. */
int jobs_pending_state(sqlite3 *db, const char *queue, char ret_state[JOBS_STATE_MAX]);

/* A queued job waiting to retry, as the page shows it. */
struct job_retry {
	int64_t job;				/* 0: none */
	char next_try_at[JOBS_TIME_MAX];	/* ISO 8601 UTC */
	long long attempt;			/* the number of the next try */
	char *reason;				/* the last attempt's error */
};

/*
 * @queue's queued job that waits to retry, the one due last (a newer
 * job supersedes it, so there is mostly one), into @ret (ret->job 0:
 * none; release with jobs_retry_release()). 0, or -EIO.
 */
int jobs_queue_retry(sqlite3 *db, const char *queue, struct job_retry *ret);
void jobs_retry_release(struct job_retry *retry);

/* What a failed call's @r means, for a log line: SQLite's message for -EIO. */
const char *jobs_strerror(sqlite3 *db, int r);

/*
 * The job as /api/jobs/ID shows it (a new reference), or NULL when there
 * is none; "progress" is null unless the job is running; "next_try_at"
 * (ISO 8601 UTC) is when a queued job waiting to retry is due, null
 * otherwise, and "error" why its last attempt failed; "first_failed_at"
 * is when retry-max counts from.
 */
json_t *jobs_get_json(sqlite3 *db, int64_t job);

#endif
