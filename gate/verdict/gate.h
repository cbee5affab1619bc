/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gate: one queue snapshot, from patches to verdict.
 *
 * Applies the queue once in order (one commit per patch, recording
 * applied / offset / already applied / does not apply), works out which
 * patches touch what the test kernel compiles, and hands the judge an
 * oracle that turns "base plus these patches" into a build and a boot,
 * reusing any result recorded for the same git tree. Every successful
 * build records the files it read; a sequence that ends in not-exercised
 * patches touching none of the files read by the build of the sequence
 * without them (a prefix, so every patch applies as in the whole) makes
 * the same kernel, and gets that result without a build
 * (stats.same_kernel counts these). Everything it learns goes into the
 * database; the report is a JSON object (report.h renders it for people).
 */
#ifndef GATE_GATE_H
#define GATE_GATE_H

#include <jansson.h>
#include <sqlite3.h>

#include "exec/slurm.h"
#include "source/queue.h"
#include "source/tree.h"
#include "source/workspace.h"

struct gate_options {
	bool drop_on_quirk;
	const struct target *target;	/* the tree to gate against; NULL: the default */
	/*
	 * The configurations the compile check builds under (compile_check.h,
	 * resolved by compile_check_resolve()); n_configs 0: no compile check.
	 */
	char *const *config_paths, *const *config_names;
	size_t n_configs;
	unsigned config_check_max;	/* objects per changed header; 0: the default */
	/*
	 * The Slurm executor (executor.h): each evaluation is a step a node
	 * runs as a Slurm job; NULL: this machine builds and boots.
	 */
	const struct slurm_options *slurm;
};

/*
 * Gate @snap. Returns 0 with *ret_report (a new reference; the caller
 * decrefs) whose "verdict" is "pass" or "drop", or -errno with @err when
 * no verdict could be reached; then *ret_report, if set, holds the error
 * report that was recorded.
 */
int gate_run(struct kernel_env *env, struct kernel_tree *tree, sqlite3 *db,
	     const struct queue_snapshot *snap, const struct gate_options *opts,
	     json_t **ret_report, struct strbuf *err);

/*
 * gate_run() with its set-up: check the packages, take the cache lock,
 * open (extracting and importing the first time) the kernel tree under
 * @cache, gate @snap, release it all. Same returns as gate_run().
 */
int gate_snapshot(const char *top, const char *cache, sqlite3 *db,
		  const struct queue_snapshot *snap, const struct gate_options *opts,
		  json_t **ret_report, struct strbuf *err);

#endif
