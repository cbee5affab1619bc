// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "exec/slurm.h"
#include "kernel/compile_check.h"
#include "output/report.h"
#include "parse/config.h"
#include "record/db.h"
#include "source/defaults.h"
#include "verdict/gate.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: backport-gate run --queue SRC [--series DIR] [--tree PACKAGE|TARBALL]\n"
		   "                         [--ref REF] [--json FILE] [--cache DIR] [--db FILE]\n"
		   "                         [--drop-on-quirk] [--config-check NAME|PATH|none]...\n"
		   "                         [--config-check-max N] [--executor local|slurm]\n"
		   "                         [--workers W] [--config FILE]\n");
}

static int write_json(const char *path, json_t *report)
{
	char *tmp;
	int r = 0;

	tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	if (json_dump_file(report, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
	    rename(tmp, path) < 0) {
		fprintf(stderr, "backport-gate: --json: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
		r = -EIO;
	}
	free(tmp);
	return r;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "queue", required_argument, NULL, 'q' },
		{ "series", required_argument, NULL, 's' },
		{ "tree", required_argument, NULL, 't' },
		{ "ref", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "cache", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "drop-on-quirk", no_argument, NULL, 'Q' },
		{ "config-check", required_argument, NULL, 'C' },
		{ "config-check-max", required_argument, NULL, 'M' },
		{ "executor", required_argument, NULL, 'x' },
		{ "config", required_argument, NULL, 'f' },
		{ "workers", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct queue_request req = { 0 };
	struct gate_options opts = { 0 };
	const char *json_path = NULL, *db_path = NULL, *cache = default_cache();
	struct queue_snapshot snap = { 0 };
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *top = suite_top(), *db_default = NULL;
	const char *tree = NULL;
	struct target target = { 0 };
	char *checks[COMPILE_CHECK_CONFIGS_MAX];
	char *config_paths[COMPILE_CHECK_CONFIGS_MAX] = { 0 };
	char *config_names[COMPILE_CHECK_CONFIGS_MAX] = { 0 };
	size_t n_checks = 0, n_configs = 0;
	bool checks_named = false;	/* --config-check given, even "none" */
	const char *executor = NULL, *config_path = NULL;
	struct gate_config cfg = { 0 };
	struct slurm_options slurm;
	unsigned workers = 0;		/* --workers; 0: the config's */
	sqlite3 *db = NULL;
	json_t *report = NULL;
	int c, r, status = EXIT_NO_VERDICT;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'q': req.source = optarg; break;
		case 's': req.series_dir = optarg; break;
		case 't': tree = optarg; break;
		case 'r': req.ref = optarg; break;
		case 'j': json_path = optarg; break;
		case 'c': cache = optarg; break;
		case 'd': db_path = optarg; break;
		case 'Q': opts.drop_on_quirk = true; break;
		case 'C':
			checks_named = true;
			if (strcmp(optarg, "none") == 0) {
				n_checks = 0;
			} else if (n_checks == COMPILE_CHECK_CONFIGS_MAX) {
				fprintf(stderr, "backport-gate run: --config-check: at most %d\n",
					COMPILE_CHECK_CONFIGS_MAX);
				free(top);
				return EXIT_NO_VERDICT;
			} else {
				checks[n_checks++] = optarg;
			}
			break;
		case 'M':
			if (config_parse_check_max(optarg, &opts.config_check_max) < 0) {
				fprintf(stderr, "backport-gate run: --config-check-max: '%s' is not a "
					"number from 1 to %d\n", optarg, CONFIG_CHECK_MAX_LIMIT);
				free(top);
				return EXIT_NO_VERDICT;
			}
			break;
		case 'x':
			if (strcmp(optarg, "local") && strcmp(optarg, "slurm")) {
				fprintf(stderr, "backport-gate run: --executor: '%s' is neither local "
					"nor slurm\n", optarg);
				free(top);
				return EXIT_NO_VERDICT;
			}
			executor = optarg;
			break;
		case 'f': config_path = optarg; break;
		case 'W':
			if (config_parse_workers(optarg, &workers) < 0) {
				fprintf(stderr, "backport-gate run: --workers: '%s' is not a number "
					"from 1 to %d\n", optarg, CONFIG_EXECUTOR_WORKERS_MAX);
				free(top);
				return EXIT_NO_VERDICT;
			}
			break;
		case 'h': usage(stdout); free(top); return 0;
		default: usage(stderr); free(top); return EXIT_NO_VERDICT;
		}
	}
	if (!req.source || optind != argc) {
		fprintf(stderr, "backport-gate run: %s\n",
			!req.source ? "--queue is required" : "unexpected argument");
		usage(stderr);
		free(top);
		return EXIT_NO_VERDICT;
	}
	/* [executor] of a daemon's config; --executor chooses the kind */
	if (config_path) {
		r = config_load(config_path, &cfg, &err);
		if (r < 0)
			goto fail;
	}
	if (executor ? !strcmp(executor, "slurm") : cfg.executor.slurm) {
		slurm_options_from_config(&cfg.executor, &slurm);
		if (workers)
			slurm.workers = workers;
		opts.slurm = &slurm;
	} else if (workers > 1) {
		strbuf_addf(&err, "--workers: steps run at once only with the Slurm executor "
			    "(--executor slurm)");
		r = -EINVAL;
		goto fail;
	}
	/* the tree follows the series folder, and the folder the tree */
	r = target_resolve(&target, tree, req.series_dir, &err);
	if (r == 0)
		r = target_check(&target, &err);
	if (r < 0)
		goto fail;
	opts.target = &target;
	if (checks_named) {
		r = compile_check_resolve_all(target.version, checks, n_checks, config_paths,
					      config_names, &n_configs, &err);
		if (r < 0)
			goto fail;
	} else {
		struct strbuf notice = STRBUF_INIT;

		compile_check_default(target.version, config_paths, config_names, &n_configs,
				      &notice);
		if (notice.len)
			fprintf(stderr, "backport-gate run: %s\n", notice.buf);
		strbuf_release(&notice);
	}
	opts.config_paths = config_paths;
	opts.config_names = config_names;
	opts.n_configs = n_configs;
	req.default_series_dir = target.series_dir;
	req.cache = cache;

	r = queue_load(&req, &snap, &err);
	if (r < 0)
		goto fail;
	if (!db_path) {
		db_default = xasprintf("%s/gate.db", cache);
		db_path = db_default;
		if (access(cache, F_OK) < 0 && mkdir(cache, 0755) < 0 && errno != EEXIST) {
			strbuf_addf(&err, "cache: cannot create %s: %s", cache, strerror(errno));
			goto fail;
		}
	}
	r = db_open(db_path, &db, &err);
	if (r < 0)
		goto fail;
	r = gate_snapshot(top, cache, db, &snap, &opts, &report, &err);
	if (report) {
		report_render_text(report, &text);
		fputs(text.buf, stdout);
		if (json_path && write_json(json_path, report) < 0 && r == 0)
			r = -EIO;
	}
	if (r < 0)
		goto fail;
	status = json_array_size(json_object_get(report, "drop")) ? EXIT_DROP : EXIT_PASS;
	goto out;
fail:
	fprintf(stderr, "backport-gate run: %s\n", err.buf[0] ? err.buf : strerror(-r));
	status = EXIT_NO_VERDICT;
out:
	json_decref(report);
	db_close(db);
	queue_snapshot_release(&snap);
	strbuf_release(&err);
	strbuf_release(&text);
	free(db_default);
	target_release(&target);
	config_release(&cfg);
	for (size_t i = 0; i < n_configs; i++) {
		free(config_paths[i]);
		free(config_names[i]);
	}
	free(top);
	return status;
}
