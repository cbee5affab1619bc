// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "output/report.h"
#include "pipeline/defaults.h"
#include "record/db.h"

/* backport-gate report RUN [--json] [--db FILE]: a recorded run, again. */
int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_path = NULL;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	bool as_json = false;
	char *db_default = NULL, *end;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	json_t *report = NULL;
	long long run;
	int c, status = EXIT_NO_VERDICT;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'j')
			as_json = true;
		else if (c == 'd')
			db_path = optarg;
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;
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
	if (sqlite3_prepare_v2(db, "SELECT report, verdict FROM run WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		db_error(db, "reading runs", &err);
		goto fail;
	}
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) != SQLITE_ROW) {
		strbuf_addf(&err, "no run %lld in %s", run, db_path);
		goto fail;
	}
	if (!sqlite3_column_text(st, 0)) {
		strbuf_addf(&err, "run %lld has no report yet (%s)", run,
			    (const char *)sqlite3_column_text(st, 1));
		goto fail;
	}
	report = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
	if (!report) {
		strbuf_addf(&err, "run %lld: the recorded report is not JSON", run);
		goto fail;
	}
	if (as_json) {
		char *s = json_dumps(report, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		puts(s);
		free(s);
	} else {
		report_render_text(report, &text);
		fputs(text.buf, stdout);
	}
	{
		const char *v = json_string_value(json_object_get(report, "verdict"));

		status = v && !strcmp(v, "pass") ? EXIT_PASS : v && !strcmp(v, "drop") ? EXIT_DROP
										  : EXIT_NO_VERDICT;
	}
	goto out;
usage:
	fprintf(stderr, "usage: backport-gate report RUN [--json] [--db FILE]\n");
	return EXIT_NO_VERDICT;
fail:
	fprintf(stderr, "backport-gate report: %s\n", err.buf);
out:
	json_decref(report);
	sqlite3_finalize(st);
	db_close(db);
	strbuf_release(&err);
	strbuf_release(&text);
	free(db_default);
	return status;
}
