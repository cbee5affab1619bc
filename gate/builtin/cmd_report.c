// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "output/format.h"
#include "pipeline/defaults.h"
#include "record/db.h"
#include "record/history.h"
#include "record/sequence.h"

static void usage(void)
{
	fprintf(stderr, "usage: backport-gate report RUN [--format %s] [--json] [--db FILE]\n"
		"         [--from ADDR] [--to ADDR] [--cc ADDR] [--in-reply-to MSGID]\n"
		"         [--subject SUBJECT] [--origin NAME]\n", report_format_names());
}

/*
 * backport-gate report RUN [--format text|json|reply|kcidb] [--db FILE]
 * ...: a recorded run, again, in one of output/format.h's formats.
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
		{ NULL, 0, NULL, 0 },
	};
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
		case 'j': format_name = "json"; break;
		case 'f': format_name = optarg; break;
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
	if (format->render(&in, &opts, &text, &err) < 0)
		goto fail;
	fputs(text.buf, stdout);
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
