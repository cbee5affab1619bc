// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "daemon/mailer.h"
#include "daemon/smtp.h"
#include "output/format.h"
#include "record/db.h"
#include "record/history.h"
#include "record/jobs.h"
#include "record/sequence.h"
#include "source/defaults.h"

static void usage(void)
{
	fprintf(stderr, "usage: backport-gate report RUN [--format %s] [--json] [--db FILE]\n"
		"         [--from ADDR] [--to ADDR] [--cc ADDR] [--in-reply-to MSGID]\n"
		"         [--subject SUBJECT] [--origin NAME]\n"
		"       backport-gate report RUN --send [--config FILE] [--db FILE] [--from ADDR]\n"
		"         [--to ADDR] [--cc ADDR] [--in-reply-to MSGID] [--subject SUBJECT]\n",
		report_format_names());
}

/*
 * --send: mail @report's reply through the relay of @config_path's
 * [report] section (daemon/mailer.h says who gets it). When the daemon
 * gated the run, its job names the queue (whose review-list it goes to)
 * and the review thread it answers, unless @opts gives them. 0, or
 * -errno with @err.
 */
static int send_reply(sqlite3 *db, const char *config_path, const struct render_options *opts,
		      const json_t *report, struct strbuf *err)
{
	struct mailer_request req = { .from = opts->from, .to = opts->to, .cc = opts->cc,
				      .in_reply_to = opts->in_reply_to, .subject = opts->subject };
	struct mailer_mail mail = MAILER_MAIL_INIT;
	const struct queue_config *q = NULL;
	char *queue = NULL, *in_reply_to = NULL, *subject = NULL;
	struct gate_config cfg;
	struct smtp_relay relay;
	int64_t run = json_integer_value(json_object_get(report, "run")), job;
	int r;

	r = config_load(config_path, &cfg, err);
	if (r < 0)
		return r;
	if (!cfg.report.smtp) {
		strbuf_addf(err, "%s: no [report] smtp relay to send through", config_path);
		r = -EINVAL;
		goto out;
	}
	r = jobs_for_run(db, run, &job);
	if (r == 0 && job)
		r = jobs_get_queue(db, job, &queue, err);
	if (r == 0 && job)
		r = jobs_get_thread(db, job, &in_reply_to, &subject);
	if (r < 0) {
		if (!err->len)
			strbuf_addf(err, "reading the job of run %lld: %s", (long long)run,
				    sqlite3_errmsg(db));
		goto out;
	}
	if (queue)
		q = config_queue(&cfg, queue);
	if (!req.in_reply_to)
		req.in_reply_to = in_reply_to;
	if (!req.subject)
		req.subject = subject;
	req.report = &cfg.report;
	req.review_list = q ? q->review_list : NULL;
	r = mailer_build(&req, report, &mail, err);
	if (r < 0)
		goto out;
	relay = (struct smtp_relay){ cfg.report.smtp, cfg.report.user, cfg.report.password_file,
				     cfg.report.starttls };
	r = smtp_send(&relay, mail.mail_from.buf, &mail.rcpt, mail.message.buf, err);
	if (r == 0) {
		fprintf(stderr, "backport-gate report: run %lld's reply mailed via %s to",
			(long long)run, relay.url);
		for (size_t i = 0; i < mail.rcpt.n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", mail.rcpt.items[i]);
		fputc('\n', stderr);
	}
out:
	mailer_mail_release(&mail);
	config_release(&cfg);
	free(queue);
	free(in_reply_to);
	free(subject);
	return r;
}

/*
 * backport-gate report RUN [--format text|json|reply|kcidb] [--db FILE]
 * ...: a recorded run, again, in one of output/format.h's formats; with
 * --send, its reply mailed instead of printed. The exit status is the
 * run's verdict (0 pass, 1 drop), else 2, as for run; 2 also when the
 * mail was not sent.
 */
int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "db", required_argument, NULL, 'd' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 't' },
		{ "cc", required_argument, NULL, 'c' },
		{ "in-reply-to", required_argument, NULL, 'i' },
		{ "subject", required_argument, NULL, 's' },
		{ "origin", required_argument, NULL, 'o' },
		{ "send", no_argument, NULL, 'S' },
		{ "config", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config_path = "/etc/backport-gate/gate.conf";
	bool send = false, format_given = false;
	const struct report_format *format;
	struct render_options opts = { 0 };
	struct report_input in = { 0 };
	const char *db_path = NULL, *format_name = "text";
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *db_default = NULL, *end;
	sqlite3 *db = NULL;
	json_t *report = NULL, *sequences = NULL;
	long long run;
	int c, status = EXIT_NO_VERDICT;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': format_name = "json"; format_given = true; break;
		case 'f': format_name = optarg; format_given = true; break;
		case 'S': send = true; break;
		case 'C': config_path = optarg; break;
		case 'd': db_path = optarg; break;
		case 'F': opts.from = optarg; break;
		case 't': opts.to = optarg; break;
		case 'c': opts.cc = optarg; break;
		case 'i': opts.in_reply_to = optarg; break;
		case 's': opts.subject = optarg; break;
		case 'o': opts.origin = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	if (send && format_given && strcmp(format_name, "reply")) {
		fprintf(stderr, "backport-gate report: --send mails the reply; --format %s "
			"cannot be sent\n", format_name);
		return EXIT_NO_VERDICT;
	}
	if (send)
		format_name = "reply";
	format = report_format_find(format_name);
	if (!format) {
		fprintf(stderr, "backport-gate report: unknown format '%s' (%s)\n", format_name,
			report_format_names());
		return EXIT_NO_VERDICT;
	}
	run = strtoll(argv[optind], &end, 10);
	if (*end || run <= 0) {
		fprintf(stderr, "backport-gate report: '%s' is not a run number\n", argv[optind]);
		return EXIT_NO_VERDICT;
	}
	if (!db_path) {
		db_default = xasprintf("%s/gate.db", default_cache());
		db_path = db_default;
	}
	if (db_open(db_path, &db, &err) < 0)
		goto fail;
	report = history_run_report(db, run, &err);
	if (!report) {
		if (errno == ENOENT)
			strbuf_addf(&err, " in %s", db_path);
		goto fail;
	}
	if (format->needs_sequences) {
		sequences = run_sequences_json(db, run, &err);
		if (!sequences)
			goto fail;
	}
	in.report = report;
	in.sequences = sequences;
	if (send) {
		if (send_reply(db, config_path, &opts, report, &err) < 0)
			goto fail;
	} else {
		if (format->render(&in, &opts, &text, &err) < 0)
			goto fail;
		fputs(text.buf, stdout);
	}
	{
		const char *v = json_string_value(json_object_get(report, "verdict"));

		status = v && !strcmp(v, "pass") ? EXIT_PASS : v && !strcmp(v, "drop") ? EXIT_DROP
										  : EXIT_NO_VERDICT;
	}
	goto out;
usage:
	usage();
	return EXIT_NO_VERDICT;
fail:
	fprintf(stderr, "backport-gate report: %s\n", err.buf);
out:
	json_decref(report);
	json_decref(sequences);
	db_close(db);
	strbuf_release(&err);
	strbuf_release(&text);
	free(db_default);
	return status;
}
