// SPDX-License-Identifier: GPL-2.0
/*
 * jobs: the daemon's job rows in a real database. A job is queued,
 * superseded by a newer one while it waits, running with one attempt
 * more each start, queued again after a failed attempt (30 s later, twice
 * as long after each further one, at most JOBS_RETRY_CAP) or an
 * interruption (at once), failed once retry-max has passed since its first
 * failed attempt, done with its run and its notifications in the outbox;
 * the oldest queued job that is due runs next; at start, every job left
 * running is queued again.
 *
 * Time is the functions' @now, so no test sleeps. Jobs are read back
 * through jobs_get_json(), as /api/jobs shows them. What the header keeps
 * out of it (the run and outbox rows) is set up or read with plain SQL on
 * db.h's schema.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "record/db.h"
#include "record/jobs.h"
#include "record/outbox.h"
#include "testdb.h"

static int64_t enqueue(sqlite3 *db, const char *queue, const char *trigger, const char *delivery,
		       bool *ret_duplicate)
{
	struct strbuf err = STRBUF_INIT;
	bool duplicate = true;
	int64_t job = 0;
	int r = jobs_enqueue(db, queue, trigger, delivery, NULL, &job, &duplicate, &err);

	if (r != 0)
		fail_msg("jobs_enqueue(%s): %d: %s", queue, r, err.buf);
	strbuf_release(&err);
	if (ret_duplicate)
		*ret_duplicate = duplicate;
	else
		assert_false(duplicate);
	assert_true(job > 0);
	return job;
}

/* The job jobs_next_queued() picks at @now. */
static int64_t next_queued_at(sqlite3 *db, time_t now)
{
	int64_t job = -1;

	assert_int_equal(jobs_next_queued(db, now, NULL, NULL, &job), 0);
	return job;
}

static int64_t next_queued(sqlite3 *db)
{
	return next_queued_at(db, time(NULL));
}

/* [server] retry-max's default, as most tests run with it. */
#define RETRY_MAX (6 * 3600)

/* One field of the job as /api/jobs/ID shows it: strings as they are, numbers in decimal. */
static const char *field(sqlite3 *db, int64_t job, const char *key)
{
	static char buf[256];
	json_t *o = jobs_get_json(db, job), *v;

	if (!o)
		fail_msg("job %lld: jobs_get_json found none", (long long)job);
	v = json_object_get(o, key);
	if (json_is_string(v))
		snprintf(buf, sizeof(buf), "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
	else if (json_is_null(v))
		snprintf(buf, sizeof(buf), "(null)");
	else
		fail_msg("job %lld: no \"%s\" in its JSON", (long long)job, key);
	json_decref(o);
	return buf;
}

#define assert_field(db, job, key, want) assert_string_equal(field(db, job, key), want)

/* @t as the rows hold times. */
static const char *iso(time_t t)
{
	static char buf[JOBS_TIME_MAX];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* A snapshot and a run of it with @verdict (as gate_run records one); its id. */
static int64_t add_run(sqlite3 *db, const char *hash, const char *verdict)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO snapshot (queue, source, content_hash) "
		 "VALUES ('6.1', '/q', '%s'); INSERT INTO run (snapshot_id, base, suite, verdict) "
		 "VALUES ((SELECT id FROM snapshot WHERE content_hash = '%s'), '6.1.192', 's', '%s')",
		 hash, hash, verdict);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	return sqlite3_last_insert_rowid(db);
}

/* The first column of the first row of @sql, as text ("(null)" for NULL, "" for no row). */
static const char *query(sqlite3 *db, const char *sql)
{
	static char buf[256];
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	buf[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, sizeof(buf), "%s", sqlite3_column_text(st, 0) ?
			 (const char *)sqlite3_column_text(st, 0) : "(null)");
	sqlite3_finalize(st);
	return buf;
}

static void test_enqueue(void **state)
{
	struct testdb *f = *state;
	struct strbuf err = STRBUF_INIT;
	bool pending = true;
	char *queue = NULL;
	int64_t job;

	assert_int_equal(next_queued(f->db), 0);
	assert_int_equal(jobs_queue_pending(f->db, "6.1", &pending), 0);
	assert_false(pending);

	job = enqueue(f->db, "6.1", "webhook", NULL, NULL);
	assert_field(f->db, job, "queue", "6.1");
	assert_field(f->db, job, "trigger", "webhook");
	assert_field(f->db, job, "state", "queued");
	assert_field(f->db, job, "attempts", "0");
	assert_field(f->db, job, "run", "(null)");
	assert_field(f->db, job, "error", "(null)");
	assert_int_equal(jobs_queue_pending(f->db, "6.1", &pending), 0);
	assert_true(pending);
	assert_int_equal(jobs_queue_pending(f->db, "5.15", &pending), 0);
	assert_false(pending);

	assert_int_equal(jobs_get_queue(f->db, job, &queue, &err), 0);
	assert_string_equal(queue, "6.1");
	free(queue);
	assert_int_equal(jobs_get_queue(f->db, job + 100, &queue, &err), 0);
	assert_null(queue);
	assert_null(jobs_get_json(f->db, job + 100));
	assert_int_equal(next_queued(f->db), job);
	strbuf_release(&err);
}

/* A newer job supersedes one still waiting for the same queue, not a running one nor another queue's. */
static void test_supersede(void **state)
{
	struct testdb *f = *state;
	int64_t a1, b1, a2, a3;

	a1 = enqueue(f->db, "6.1", "poll", NULL, NULL);
	b1 = enqueue(f->db, "5.15", "poll", NULL, NULL);
	a2 = enqueue(f->db, "6.1", "webhook", NULL, NULL);
	assert_field(f->db, a1, "state", "superseded");
	assert_field(f->db, b1, "state", "queued");
	assert_field(f->db, a2, "state", "queued");
	/* the oldest queued job runs first: 5.15's, then 6.1's newer one */
	assert_int_equal(next_queued(f->db), b1);
	assert_int_equal(jobs_start(f->db, b1), 0);
	assert_int_equal(next_queued(f->db), a2);

	assert_int_equal(jobs_start(f->db, a2), 0);
	a3 = enqueue(f->db, "6.1", "poll", NULL, NULL);
	assert_field(f->db, a2, "state", "running");
	assert_field(f->db, a3, "state", "queued");
	/* not while its queue's a2 runs */
	assert_int_equal(next_queued(f->db), 0);
}

/* A webhook delivery seen before gives its job back, and queues nothing. */
static void test_duplicate_delivery(void **state)
{
	struct testdb *f = *state;
	bool duplicate = true;
	int64_t job, again, other;

	job = enqueue(f->db, "6.1", "webhook", "d-1", &duplicate);
	assert_false(duplicate);
	again = enqueue(f->db, "6.1", "webhook", "d-1", &duplicate);
	assert_true(duplicate);
	assert_int_equal(again, job);
	assert_field(f->db, job, "state", "queued");	/* not superseded by itself */
	assert_int_equal(next_queued(f->db), job);
	/* still a duplicate once the job has run */
	assert_int_equal(jobs_start(f->db, job), 0);
	again = enqueue(f->db, "6.1", "webhook", "d-1", &duplicate);
	assert_true(duplicate);
	assert_int_equal(again, job);
	assert_int_equal(next_queued(f->db), 0);

	other = enqueue(f->db, "6.1", "webhook", "d-2", &duplicate);
	assert_false(duplicate);
	assert_true(other > job);
}

/*
 * One push to a repository with two branches' queues: the delivery queues
 * a job for each, and its redelivery is a duplicate for each, even when
 * the first attempt queued only one of them.
 */
static void test_delivery_per_queue(void **state)
{
	struct testdb *f = *state;
	bool duplicate = true;
	int64_t a, b, again;

	a = enqueue(f->db, "stable-6.1", "webhook", "push-1", &duplicate);
	assert_false(duplicate);
	/* the redelivery after a refusal: 6.1's job is there, 6.12's is new */
	again = enqueue(f->db, "stable-6.1", "webhook", "push-1", &duplicate);
	assert_true(duplicate);
	assert_int_equal(again, a);
	b = enqueue(f->db, "stable-6.12", "webhook", "push-1", &duplicate);
	assert_false(duplicate);
	assert_true(b > a);
	again = enqueue(f->db, "stable-6.12", "webhook", "push-1", &duplicate);
	assert_true(duplicate);
	assert_int_equal(again, b);
	assert_field(f->db, a, "state", "queued");
	assert_field(f->db, b, "state", "queued");
}

static void test_start(void **state)
{
	struct testdb *f = *state;
	int64_t job = enqueue(f->db, "6.1", "poll", NULL, NULL);
	bool pending = false;

	assert_int_equal(jobs_set_error(f->db, job, "fetch failed"), 0);
	assert_field(f->db, job, "error", "fetch failed");
	assert_int_equal(jobs_start(f->db, job), 0);
	assert_field(f->db, job, "state", "running");
	assert_field(f->db, job, "attempts", "1");
	assert_field(f->db, job, "error", "(null)");
	assert_string_not_equal(field(f->db, job, "started_at"), "(null)");
	/* running: not next, but still pending for its queue */
	assert_int_equal(next_queued(f->db), 0);
	assert_int_equal(jobs_queue_pending(f->db, "6.1", &pending), 0);
	assert_true(pending);

	/* no such job */
	assert_int_equal(jobs_start(f->db, job + 1), -ENOENT);
	assert_int_equal(jobs_set_error(f->db, job + 1, "x"), -ENOENT);
	assert_int_equal(jobs_set_snapshot(f->db, job + 1, "h", NULL), -ENOENT);
	assert_string_equal(jobs_strerror(f->db, -ENOENT), "no such job");
}

/* 30 s after the first failed attempt, doubled per failed attempt, never more than the cap. */
static void test_retry_delay(void **state)
{
	static const struct { long long failed, want; } cases[] = {
		{ 1, 30 }, { 2, 60 }, { 3, 120 }, { 4, 240 }, { 7, 1920 },
		{ 8, JOBS_RETRY_CAP }, { 9, JOBS_RETRY_CAP }, { 1000, JOBS_RETRY_CAP },
	};

	(void)state;
	assert_int_equal(JOBS_RETRY_FIRST, 30);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long got = jobs_retry_delay(cases[i].failed);

		if (got != cases[i].want)
			fail_msg("jobs_retry_delay(%lld): expected %lld, got %lld", cases[i].failed,
				 cases[i].want, got);
	}
}

/*
 * Under the default retry-max (6 h), each failed attempt queues the job
 * again with a doubling wait, capped, and not due before it; the last try
 * comes at the ceiling, and the job fails when that one fails too, with
 * the last error, never earlier.
 */
static void test_retries(void **state)
{
	struct testdb *f = *state;
	int64_t job = enqueue(f->db, "6.1", "webhook", NULL, NULL);
	const time_t first = time(NULL);
	time_t now = first;
	bool pending = true;
	char want[32];
	int attempt;

	for (attempt = 1; attempt < 100; attempt++) {
		long long delay = jobs_retry_delay(attempt);
		time_t next = now + delay > first + RETRY_MAX ? first + RETRY_MAX : now + delay;

		assert_int_equal(next_queued_at(f->db, now), job);
		assert_int_equal(jobs_start(f->db, job), 0);
		snprintf(want, sizeof(want), "%d", attempt);
		assert_field(f->db, job, "attempts", want);
		assert_field(f->db, job, "next_try_at", "(null)");
		if (attempt == 2)
			assert_int_equal(jobs_set_error(f->db, job, "build: no space left"), 0);
		assert_int_equal(jobs_worker_failed(f->db, job, RETRY_MAX, now, NULL), 0);
		/* the worker's own reason is kept; else a generic one */
		assert_field(f->db, job, "error", attempt == 2 ? "build: no space left" :
			     "the worker ended without a verdict");
		assert_field(f->db, job, "first_failed_at", iso(first));
		if (now >= first + RETRY_MAX)
			break;
		assert_field(f->db, job, "state", "queued");
		assert_field(f->db, job, "next_try_at", iso(next));
		/* not due a second early */
		assert_int_equal(next_queued_at(f->db, next - 1), 0);
		now = next;
	}
	/* 30 + 60 + ... + 1920 s, four waits of an hour, one cut short at 6 h, the try at 6 h */
	assert_int_equal(attempt, 13);
	assert_int_equal(now, first + RETRY_MAX);
	assert_field(f->db, job, "state", "failed");
	assert_field(f->db, job, "next_try_at", "(null)");
	assert_field(f->db, job, "error", "the worker ended without a verdict");
	assert_int_equal(next_queued_at(f->db, now + 86400), 0);
	assert_int_equal(jobs_queue_pending(f->db, "6.1", &pending), 0);
	assert_false(pending);

	/* a job no longer running is left as it is */
	assert_int_equal(jobs_worker_failed(f->db, job, RETRY_MAX, now, NULL), 0);
	assert_field(f->db, job, "state", "failed");
	assert_int_equal(jobs_interrupted(f->db, job), 0);
	assert_field(f->db, job, "state", "failed");
}

/*
 * A small retry-max: the wait is cut to the ceiling, a failure before it
 * still retries, the one at it is final with the last error.
 */
static void test_retry_max(void **state)
{
	struct testdb *f = *state;
	int64_t job = enqueue(f->db, "6.1", "poll", NULL, NULL);
	const time_t t = time(NULL);
	static const struct { long long fail_at, next; } steps[] = {
		{ 0, 30 }, { 30, 90 }, { 90, 100 }, { 99, 100 },
	};
	struct job_retry retry;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		assert_int_equal(jobs_start(f->db, job), 0);
		assert_int_equal(jobs_set_error(f->db, job, "fetch: timed out after 300 s"), 0);
		assert_int_equal(jobs_worker_failed(f->db, job, 100, t + steps[i].fail_at, NULL), 0);
		assert_field(f->db, job, "state", "queued");
		assert_field(f->db, job, "next_try_at", iso(t + steps[i].next));
	}
	/* what the page shows of it */
	assert_int_equal(jobs_queue_retry(f->db, "6.1", &retry), 0);
	assert_int_equal(retry.job, job);
	assert_string_equal(retry.next_try_at, iso(t + 100));
	assert_int_equal(retry.attempt, 5);
	assert_string_equal(retry.reason, "fetch: timed out after 300 s");
	jobs_retry_release(&retry);
	assert_int_equal(jobs_queue_retry(f->db, "5.15", &retry), 0);
	assert_int_equal(retry.job, 0);

	assert_int_equal(jobs_start(f->db, job), 0);
	/* a running job is not waiting */
	assert_int_equal(jobs_queue_retry(f->db, "6.1", &retry), 0);
	assert_int_equal(retry.job, 0);
	assert_int_equal(jobs_set_error(f->db, job, "boot: qemu-system-x86_64 did not start"), 0);
	assert_int_equal(jobs_worker_failed(f->db, job, 100, t + 100, NULL), 0);
	assert_field(f->db, job, "state", "failed");
	assert_field(f->db, job, "attempts", "5");
	assert_field(f->db, job, "error", "boot: qemu-system-x86_64 did not start");
	assert_field(f->db, job, "first_failed_at", iso(t));
	assert_field(f->db, job, "finished_at", iso(t + 100));
	assert_int_equal(jobs_queue_retry(f->db, "6.1", &retry), 0);
	assert_int_equal(retry.job, 0);
}

/* A waiting retry does not hold up another queue's job. */
static void test_retry_waits_behind(void **state)
{
	struct testdb *f = *state;
	int64_t a = enqueue(f->db, "6.1", "poll", NULL, NULL);
	int64_t b = enqueue(f->db, "5.15", "poll", NULL, NULL);
	const time_t t = time(NULL);

	assert_int_equal(jobs_start(f->db, a), 0);
	assert_int_equal(jobs_worker_failed(f->db, a, RETRY_MAX, t, NULL), 0);
	assert_int_equal(next_queued_at(f->db, t), b);
	assert_int_equal(jobs_start(f->db, b), 0);
	assert_int_equal(next_queued_at(f->db, t + 29), 0);
	assert_int_equal(next_queued_at(f->db, t + 30), a);
}

static bool skip_queue(void *arg, const char *queue)
{
	return strcmp(queue, arg) == 0;
}

/*
 * Several workers: a queue's jobs run one at a time, so the next one is
 * another queue's while it has a job running; the daemon's @skip (a
 * queue whose tree is busy) passes over a queue, and the caller may ask
 * again without it.
 */
static void test_one_per_queue(void **state)
{
	struct testdb *f = *state;
	int64_t a1 = enqueue(f->db, "6.1", "poll", NULL, NULL), a2, b, job = -1;

	assert_int_equal(jobs_start(f->db, a1), 0);
	a2 = enqueue(f->db, "6.1", "webhook", NULL, NULL);
	b = enqueue(f->db, "6.12", "poll", NULL, NULL);
	assert_true(a2 < b);
	assert_int_equal(next_queued(f->db), b);
	assert_int_equal(jobs_next_queued(f->db, time(NULL), skip_queue, "6.12", &job), 0);
	assert_int_equal(job, 0);
	assert_int_equal(jobs_next_queued(f->db, time(NULL), skip_queue, "6.1", &job), 0);
	assert_int_equal(job, b);
	assert_int_equal(jobs_start(f->db, b), 0);
	assert_int_equal(next_queued(f->db), 0);
	/* 6.1's first job ends: its second is next */
	assert_int_equal(jobs_worker_failed(f->db, a1, RETRY_MAX, time(NULL), NULL), 0);
	assert_int_equal(next_queued(f->db), a2);
}

/* A worker that could not be started: queued again 30 s later, the attempt counted. */
static void test_requeue(void **state)
{
	struct testdb *f = *state;
	int64_t job = enqueue(f->db, "6.1", "poll", NULL, NULL);
	const time_t t = time(NULL);

	assert_int_equal(jobs_start(f->db, job), 0);
	assert_int_equal(jobs_requeue(f->db, job, t), 0);
	assert_field(f->db, job, "state", "queued");
	assert_field(f->db, job, "attempts", "1");
	assert_int_equal(next_queued_at(f->db, t + 29), 0);
	assert_int_equal(next_queued_at(f->db, t + 30), job);
	assert_int_equal(jobs_start(f->db, job), 0);
	assert_field(f->db, job, "attempts", "2");
	assert_int_equal(jobs_requeue(f->db, job + 1, t), -ENOENT);
}

/*
 * The worker's progress shows while the job runs, in its JSON and for the
 * page; a job no longer running shows none, and a new attempt starts
 * without the last one's.
 */
static void test_progress(void **state)
{
	struct testdb *f = *state;
	int64_t job = enqueue(f->db, "6.1", "poll", NULL, NULL);
	char *progress = (char *)"unset";

	assert_field(f->db, job, "progress", "(null)");
	assert_int_equal(jobs_start(f->db, job), 0);
	assert_int_equal(jobs_running_progress(f->db, "6.1", &progress), 0);
	assert_null(progress);
	assert_int_equal(jobs_set_progress(f->db, job, "build 812/1290 objects, ~1 min left"), 0);
	assert_field(f->db, job, "progress", "build 812/1290 objects, ~1 min left");
	assert_int_equal(jobs_running_progress(f->db, "6.1", &progress), 0);
	assert_string_equal(progress, "build 812/1290 objects, ~1 min left");
	free(progress);
	assert_int_equal(jobs_running_progress(f->db, "5.15", &progress), 0);
	assert_null(progress);
	assert_int_equal(jobs_set_progress(f->db, job + 1, "build 1 objects"), -ENOENT);

	assert_int_equal(jobs_worker_failed(f->db, job, RETRY_MAX, time(NULL), NULL), 0);
	assert_field(f->db, job, "state", "queued");
	assert_field(f->db, job, "progress", "(null)");
	assert_int_equal(jobs_running_progress(f->db, "6.1", &progress), 0);
	assert_null(progress);
	assert_int_equal(jobs_start(f->db, job), 0);
	assert_field(f->db, job, "progress", "(null)");
}

/* The daemon stops under a running job: it is queued again and runs first after the restart. */
static void test_interrupted(void **state)
{
	struct testdb *f = *state;
	int64_t job = enqueue(f->db, "6.1", "poll", NULL, NULL);
	int64_t later;

	assert_int_equal(jobs_start(f->db, job), 0);
	later = enqueue(f->db, "5.15", "poll", NULL, NULL);
	assert_int_equal(jobs_interrupted(f->db, job), 0);
	assert_field(f->db, job, "state", "queued");
	assert_field(f->db, job, "error", "(null)");
	/* no failed attempt to wait after: it is next, before the later job */
	assert_int_equal(jobs_recover(f->db), 0);
	assert_int_equal(next_queued(f->db), job);
	(void)later;
}

/* At start, every job still running was interrupted: queued again at once, its run ended as an error. */
static void test_recover(void **state)
{
	struct testdb *f = *state;
	int64_t a = enqueue(f->db, "6.1", "poll", NULL, NULL);
	int64_t b = enqueue(f->db, "5.15", "poll", NULL, NULL);
	int64_t c = enqueue(f->db, "4.19", "poll", NULL, NULL);
	int64_t running_run, done_run;
	char sql[128];

	assert_int_equal(jobs_start(f->db, a), 0);
	assert_int_equal(jobs_start(f->db, b), 0);
	running_run = add_run(f->db, "h1", "running");
	done_run = add_run(f->db, "h2", "pass");
	assert_int_equal(jobs_recover(f->db), 0);
	assert_field(f->db, a, "state", "queued");
	assert_field(f->db, b, "state", "queued");
	assert_field(f->db, c, "state", "queued");
	/* attempts are kept: an interrupted attempt was an attempt */
	assert_field(f->db, a, "attempts", "1");
	/* they run at once, oldest first */
	assert_int_equal(next_queued(f->db), a);
	assert_int_equal(jobs_start(f->db, a), 0);
	assert_int_equal(next_queued(f->db), b);

	snprintf(sql, sizeof(sql), "SELECT verdict || ': ' || error FROM run WHERE id = %lld",
		 (long long)running_run);
	assert_string_equal(query(f->db, sql),
			    "error: interrupted: the daemon or its worker was killed");
	snprintf(sql, sizeof(sql), "SELECT verdict FROM run WHERE id = %lld", (long long)done_run);
	assert_string_equal(query(f->db, sql), "pass");
	/* nothing running: nothing to do */
	assert_int_equal(jobs_recover(f->db), 0);
}

/* Done with its run, its notifications in the outbox; the same snapshot later is done with that run. */
static void test_done(void **state)
{
	struct testdb *f = *state;
	char url1[] = "http://127.0.0.1:9/a", url2[] = "http://127.0.0.1:9/b";
	struct queue_config q = { .name = "6.1", .notify = { url1, url2 }, .n_notify = 2 };
	int64_t job = enqueue(f->db, "6.1", "poll", NULL, NULL);
	int64_t run, later, earlier_run = -1;
	json_t *report;
	char sql[160];

	assert_int_equal(jobs_start(f->db, job), 0);
	assert_int_equal(jobs_set_snapshot(f->db, job, "hash-1", NULL), 0);
	assert_field(f->db, job, "snapshot", "hash-1");
	assert_int_equal(jobs_set_error(f->db, job, "first boot timed out"), 0);
	run = add_run(f->db, "hash-1", "pass");
	report = json_pack("{s:I, s:s, s:s}", "run", (json_int_t)run, "queue", "6.1", "verdict", "pass");
	assert_int_equal(jobs_record_done(f->db, &q, job, report, NULL), 0);
	assert_field(f->db, job, "state", "done");
	assert_field(f->db, job, "error", "(null)");
	assert_int_equal(strtoll(field(f->db, job, "run"), NULL, 10), run);
	assert_string_not_equal(field(f->db, job, "finished_at"), "(null)");
	snprintf(sql, sizeof(sql), "SELECT group_concat(url || ' ' || state, ', ') FROM "
		 "(SELECT * FROM outbox WHERE run_id = %lld ORDER BY url)", (long long)run);
	assert_string_equal(query(f->db, sql), "http://127.0.0.1:9/a pending, http://127.0.0.1:9/b pending");
	snprintf(sql, sizeof(sql), "SELECT body FROM outbox WHERE run_id = %lld", (long long)run);
	assert_non_null(strstr(query(f->db, sql), "\"verdict\":\"pass\""));

	/* a later job that reads the same snapshot: already gated, by that run */
	later = enqueue(f->db, "6.1", "poll", NULL, NULL);
	assert_int_equal(jobs_start(f->db, later), 0);
	assert_int_equal(jobs_already_gated(f->db, "6.1", "hash-1", later, &earlier_run), 0);
	assert_int_equal(earlier_run, run);
	/* not for another snapshot, another queue, or the job itself */
	assert_int_equal(jobs_already_gated(f->db, "6.1", "hash-2", later, &earlier_run), 0);
	assert_int_equal(earlier_run, 0);
	assert_int_equal(jobs_already_gated(f->db, "5.15", "hash-1", later, &earlier_run), 0);
	assert_int_equal(earlier_run, 0);
	assert_int_equal(jobs_already_gated(f->db, "6.1", "hash-1", job, &earlier_run), 0);
	assert_int_equal(earlier_run, 0);
	assert_int_equal(jobs_done_as(f->db, later, run), 0);
	assert_field(f->db, later, "state", "done");
	assert_field(f->db, later, "error", "snapshot already gated");
	assert_int_equal(strtoll(field(f->db, later, "run"), NULL, 10), run);
	json_decref(report);
}

/* Done and notified together or not at all: a job that is not there queues no notification. */
static void test_done_all_or_nothing(void **state)
{
	struct testdb *f = *state;
	char url[] = "http://127.0.0.1:9/a";
	struct queue_config q = { .name = "6.1", .notify = { url }, .n_notify = 1 };
	int64_t run = add_run(f->db, "hash-1", "drop");
	json_t *report = json_pack("{s:I}", "run", (json_int_t)run);

	assert_int_equal(jobs_record_done(f->db, &q, 42, report, NULL), -ENOENT);
	assert_string_equal(query(f->db, "SELECT count(*) FROM outbox"), "0");
	json_decref(report);
}

/*
 * A job keeps the review thread its webhook named; its verdict's reply is
 * a mail row of the outbox, beside the webhooks, in the same transaction,
 * and comes back from outbox_due() with its envelope.
 */
static void test_done_with_mail(void **state)
{
	struct testdb *f = *state;
	char url[] = "http://127.0.0.1:9/a";
	struct queue_config q = { .name = "6.1", .notify = { url }, .n_notify = 1 };
	struct job_thread thread = { "<rc1@kernel.org>", "[PATCH 6.1 000/9] 6.1.193-rc1 review" };
	struct job_mail mail = { "smtp://127.0.0.1:2525", "gate@lab.org", "a@b.org\nc@d.org\n",
				 "Subject: x\n\nbody\n" };
	struct strbuf err = STRBUF_INIT;
	struct outbox_entry *due;
	char *in_reply_to, *subject;
	bool duplicate;
	int64_t job = 0, plain, run, found;
	json_t *report;
	size_t n;

	assert_int_equal(jobs_enqueue(f->db, "6.1", "webhook", NULL, &thread, &job, &duplicate, &err), 0);
	assert_int_equal(jobs_get_thread(f->db, job, &in_reply_to, &subject), 0);
	assert_string_equal(in_reply_to, "<rc1@kernel.org>");
	assert_string_equal(subject, "[PATCH 6.1 000/9] 6.1.193-rc1 review");
	free(in_reply_to);
	free(subject);
	plain = enqueue(f->db, "5.15", "poll", NULL, NULL);
	assert_int_equal(jobs_get_thread(f->db, plain, &in_reply_to, &subject), 0);
	assert_null(in_reply_to);
	assert_null(subject);
	assert_int_equal(jobs_get_thread(f->db, 999, &in_reply_to, &subject), -ENOENT);

	assert_int_equal(jobs_start(f->db, job), 0);
	run = add_run(f->db, "hash-1", "drop");
	report = json_pack("{s:I}", "run", (json_int_t)run);
	assert_int_equal(jobs_for_run(f->db, run, &found), 0);
	assert_int_equal(found, 0);	/* not done yet */
	assert_int_equal(jobs_record_done(f->db, &q, job, report, &mail), 0);
	assert_int_equal(jobs_for_run(f->db, run, &found), 0);
	assert_int_equal(found, job);
	assert_int_equal(jobs_for_run(f->db, run + 1, &found), 0);
	assert_int_equal(found, 0);
	assert_int_equal(outbox_due(f->db, 1e12, 10, &due, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(due[0].kind, OUTBOX_WEBHOOK);
	assert_null(due[0].mail_from);
	assert_int_equal(due[1].kind, OUTBOX_MAIL);
	assert_int_equal(due[1].run, run);
	assert_string_equal(due[1].url, "smtp://127.0.0.1:2525");
	assert_string_equal(due[1].mail_from, "gate@lab.org");
	assert_string_equal(due[1].rcpt, "a@b.org\nc@d.org\n");
	assert_string_equal(due[1].body, "Subject: x\n\nbody\n");
	outbox_entries_free(due, n);
	/* once per run and relay */
	assert_int_equal(outbox_add_mail(f->db, run, "smtp://127.0.0.1:2525", "x@y", "z@w\n", "m"), 0);
	assert_string_equal(query(f->db, "SELECT count(*) FROM outbox WHERE kind = 'mail'"), "1");
	json_decref(report);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enqueue, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_supersede, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_delivery, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_delivery_per_queue, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_start, testdb_setup, testdb_teardown),
		cmocka_unit_test(test_retry_delay),
		cmocka_unit_test_setup_teardown(test_retries, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_retry_max, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_retry_waits_behind, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_one_per_queue, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_requeue, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_progress, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_interrupted, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_recover, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_done, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_done_all_or_nothing, testdb_setup, testdb_teardown),
		cmocka_unit_test_setup_teardown(test_done_with_mail, testdb_setup, testdb_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
