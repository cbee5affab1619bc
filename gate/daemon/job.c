// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/progress.h"
#include "daemon/job.h"
#include "daemon/mailer.h"
#include "exec/slurm.h"
#include "kernel/compile_check.h"
#include "record/db.h"
#include "record/jobs.h"
#include "source/defaults.h"
#include "source/queue.h"
#include "verdict/gate.h"

/*
 * Record the verdict of @job with its notifications: the webhooks, and
 * the reply on the review thread when @q has a review-list. A reply that
 * cannot be made (it cannot, once the configuration loaded, short of a
 * bug) is said in the log; the verdict is recorded all the same.
 */
static int record_done(sqlite3 *db, const struct gate_config *cfg, const struct queue_config *q,
		       int64_t job_id, json_t *report)
{
	struct mailer_request req = { .report = &cfg->report, .review_list = q->review_list };
	struct mailer_mail mail = MAILER_MAIL_INIT;
	struct strbuf why = STRBUF_INIT;
	struct job_mail jm = { 0 };
	char *in_reply_to = NULL, *subject = NULL, *rcpt = NULL;
	int r;

	if (q->review_list) {
		r = jobs_get_thread(db, job_id, &in_reply_to, &subject);
		if (r < 0)
			goto out;
		req.in_reply_to = in_reply_to;
		req.subject = subject;
		if (mailer_build(&req, report, &mail, &why) < 0) {
			fprintf(stderr, "job %lld: run %lld: no reply mailed: %s\n", (long long)job_id,
				(long long)json_integer_value(json_object_get(report, "run")), why.buf);
		} else {
			rcpt = mailer_rcpt_lines(&mail);
			jm = (struct job_mail){ cfg->report.smtp, mail.mail_from.buf, rcpt,
						mail.message.buf };
		}
	}
	r = jobs_record_done(db, q, job_id, report, jm.relay ? &jm : NULL);
out:
	mailer_mail_release(&mail);
	strbuf_release(&why);
	free(in_reply_to);
	free(subject);
	free(rcpt);
	return r;
}

/* The job's progress goes into its row, where the daemon reads it (jobs.h). */
struct progress_row {
	sqlite3 *db;
	int64_t job;
	bool failed;		/* said once: a lost progress line fails no job */
};

static void progress_to_row(void *arg, const char *line)
{
	struct progress_row *row = arg;
	int r = jobs_set_progress(row->db, row->job, line);

	if (r < 0 && !row->failed) {
		fprintf(stderr, "job %lld: recording its progress: %s\n", (long long)row->job,
			jobs_strerror(row->db, r));
		row->failed = true;
	}
}

int job_execute(const struct gate_config *cfg, int64_t job_id, struct strbuf *err)
{
	struct progress *progress = progress_stderr();
	struct progress_row row = { .job = job_id };
	struct queue_snapshot snap = { 0 };
	struct gate_options opts = { .drop_on_quirk = cfg->drop_on_quirk };
	const struct queue_config *q;
	struct queue_request req = { 0 };
	struct strbuf why = STRBUF_INIT;
	char *queue = NULL, *top = suite_top();
	struct target target = { 0 };
	char *config_paths[CONFIG_MAX_CHECKS] = { 0 }, *config_names[CONFIG_MAX_CHECKS] = { 0 };
	size_t n_configs = 0;
	struct slurm_options slurm;
	sqlite3 *db = NULL;
	json_t *report = NULL;
	int64_t earlier;
	int r;

	r = db_open(cfg->database, &db, err);
	if (r < 0)
		goto out;
	r = jobs_get_queue(db, job_id, &queue, err);
	if (r < 0)
		goto out;
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
	r = target_resolve(&target, q->tree, q->series, err);
	if (r < 0)
		goto out;
	opts.target = &target;
	if (q->config_check_named) {
		r = compile_check_resolve_all(target.version, q->config_checks,
					      q->n_config_checks, config_paths, config_names,
					      &n_configs, err);
		if (r < 0)
			goto out;
	} else {
		compile_check_default(target.version, config_paths, config_names, &n_configs,
				      &why);
		if (why.len)
			fprintf(stderr, "job %lld: queue %s: %s\n", (long long)job_id, queue,
				why.buf);
		strbuf_reset(&why);
	}
	opts.config_paths = config_paths;
	opts.config_names = config_names;
	opts.n_configs = n_configs;
	opts.config_check_max = q->config_check_max;
	if (cfg->executor.slurm) {
		slurm_options_from_config(&cfg->executor, &slurm);
		opts.slurm = &slurm;
	}
	req.default_series_dir = target.series_dir;
	req.cache = cfg->cache;
	r = queue_load(&req, &snap, &why);
	if (r < 0) {
		/* "queue NAME: what failed", once */
		strbuf_addf(err, "queue %s: %s", queue,
			    strncmp(why.buf, "queue: ", 7) == 0 ? why.buf + 7 : why.buf);
		goto out;
	}
	r = jobs_set_snapshot(db, job_id, snap.content_hash, snap.commit[0] ? snap.commit : NULL);
	if (r < 0) {
		strbuf_addf(err, "recording the job's snapshot: %s", jobs_strerror(db, r));
		goto out;
	}
	/* The same content twice is one job. */
	r = jobs_already_gated(db, queue, snap.content_hash, job_id, &earlier);
	if (r < 0) {
		strbuf_addf(err, "looking for an earlier run of the snapshot: %s", jobs_strerror(db, r));
		goto out;
	}
	if (earlier) {
		r = jobs_done_as(db, job_id, earlier);
		if (r < 0)
			strbuf_addf(err, "recording the job done as run %lld: %s", (long long)earlier,
				    jobs_strerror(db, r));
		goto out;
	}
	row.db = db;
	progress->sink = progress_to_row;
	progress->sink_arg = &row;
	r = gate_snapshot(top, cfg->cache, db, &snap, &opts, &report, err);
	progress->sink = NULL;
	if (r < 0)
		goto out;
	r = record_done(db, cfg, q, job_id, report);
	if (r < 0)
		strbuf_addf(err, "recording the verdict of run %lld: %s",
			    (long long)json_integer_value(json_object_get(report, "run")), jobs_strerror(db, r));
out:
	/* Why there is no verdict, for /api/jobs and the page; the job is retried. */
	if (r < 0 && db && queue) {
		int e = jobs_set_error(db, job_id, err->buf);

		if (e < 0)
			fprintf(stderr, "job %lld: recording why it has no verdict: %s\n",
				(long long)job_id, jobs_strerror(db, e));
	}
	strbuf_release(&why);
	json_decref(report);
	queue_snapshot_release(&snap);
	db_close(db);
	free(queue);
	free(top);
	target_release(&target);
	for (size_t i = 0; i < n_configs; i++) {
		free(config_paths[i]);
		free(config_names[i]);
	}
	return r;
}
