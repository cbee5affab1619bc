// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "output/report.h"
#include "pipeline/defaults.h"
#include "record/db.h"
#include "record/history.h"

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
	report = history_run_report(db, run, &err);
	if (!report) {
		if (errno == ENOENT)
			strbuf_addf(&err, " in %s", db_path);
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
	db_close(db);
	strbuf_release(&err);
	strbuf_release(&text);
	free(db_default);
	return status;
}
