// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "record/db.h"
#include "record/history.h"
#include "source/defaults.h"
#include "source/export.h"

/*
 * backport-gate export [--db FILE] [--cache DIR] RUN DIR: write the tree a
 * run keeps (base plus every kept patch) as plain files into DIR.
 */
int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "cache", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_path = NULL, *cache = default_cache(), *commit;
	struct strbuf err = STRBUF_INIT;
	char *db_default = NULL, *end;
	unsigned long files;
	json_t *report = NULL;
	sqlite3 *db = NULL;
	long long run;
	int c, status = EXIT_NO_VERDICT;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'd')
			db_path = optarg;
		else if (c == 'c')
			cache = optarg;
		else
			goto usage;
	}
	if (optind != argc - 2)
		goto usage;
	run = strtoll(argv[optind], &end, 10);
	if (*end || run <= 0) {
		fprintf(stderr, "backport-gate export: '%s' is not a run number\n", argv[optind]);
		return EXIT_NO_VERDICT;
	}
	if (!db_path) {
		db_default = xasprintf("%s/gate.db", cache);
		db_path = db_default;
	}
	if (db_open(db_path, &db, &err) < 0)
		goto fail;
	report = history_run_report(db, run, &err);
	if (!report)
		goto fail;
	commit = json_string_value(json_object_get(report, "kept_commit"));
	if (!commit) {
		strbuf_addf(&err, "run %lld has no kept tree (its verdict is %s; runs made before "
			    "kept trees were recorded have none)", run,
			    json_string_value(json_object_get(report, "verdict")) ?: "unknown");
		goto fail;
	}
	if (export_commit(cache, commit, argv[optind + 1], &files, &err) < 0)
		goto fail;
	printf("run %lld: kept tree %s (commit %.12s), %lu files written to %s\n", run,
	       json_string_value(json_object_get(report, "kept_tree")) ?: "?", commit, files,
	       argv[optind + 1]);
	status = 0;
	goto out;
usage:
	fprintf(stderr, "usage: backport-gate export [--db FILE] [--cache DIR] RUN DIR\n");
	return EXIT_NO_VERDICT;
fail:
	fprintf(stderr, "backport-gate export: %s\n", err.buf);
out:
	json_decref(report);
	db_close(db);
	strbuf_release(&err);
	free(db_default);
	return status;
}
