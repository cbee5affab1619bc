/* SPDX-License-Identifier: GPL-2.0 */
/*
 * step: one unit of work that any node can run. A step evaluates one
 * candidate tree (base plus an ordered list of patches) with the gate's
 * own stages: apply, build, boot with the suite. A node needs only the
 * packaged tarball, the gate binary and a cache folder: it rebuilds the
 * tree from base and the patches, never from the coordinator's database,
 * and writes no database.
 *
 * A step is a folder the coordinator writes:
 *   step.json  {"format": 1,
 *               "tree": "linux-source-6.1" (or a tarball's path, target.h),
 *               "base_tree": git tree of base (the tarball's identity),
 *               "config": sha256 of the test kernel's config fragment,
 *               "suite": sha256 of the suite's binaries,
 *               "patches": [{"name": "0001-x.patch", "sha256": of its bytes,
 *                            "queue_name": as the queue's series names it}, ...],
 *               "expect_tree": git tree of base plus the patches (optional)}
 *   series     the patch names, one a line, in order
 *   <name>     each patch, as the queue holds it
 * A node refuses a step whose base tree, config or suite differ from its
 * own, or whose patch bytes do not have their hash: nothing is built,
 * and the coordinator learns why. Results of different nodes can then
 * stand for one another.
 *
 * The result, written to <folder>/result.json (atomically):
 *   {"format": 1, "host": name of the node, "tree": candidate's git tree,
 *    "config", "suite": the node's,
 *    "applied": [{"name", "status": "applied"|"offset"|"already",
 *                 "offset": largest in lines}, ...],
 *    "apply_failed": null or {"name", "why"}: no build then,
 *    "build": null or {"status": "ok"|"failed", "built": false when a
 *             build directory already held the tree, "first_error",
 *             "seconds", "inputs": when ok, every tree file the build
 *             read (build.h: kernel_used_files()), sorted},
 *    "boot": null (no boot: apply or build failed) or {"status":
 *            "ok"|"panic"|"timeout"|"incomplete", "accel", "ktap": the
 *            suite's KTAP when ok, "evidence": panic line or console tail,
 *            "seconds"}}
 * A tree that does not apply, build or boot is a result; a node that
 * could not do the work (disk full, QEMU did not start, a refused step)
 * is not, and says why.
 *
 *   step_write()        the coordinator's side: a folder for base plus some patches
 *   step_run()          do the step in a folder and write its result
 *   step_result_read()  the coordinator's side again: read result.json
 */
#ifndef GATE_STEP_H
#define GATE_STEP_H

#include <stddef.h>

#include <jansson.h>
#include <stdbool.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "parse/ktap.h"
#include "source/workspace.h"
#include "source/queue.h"

#define STEP_FORMAT 1

/*
 * Write into @dir (created; it must not hold a step already) the step
 * for base (git tree @base_tree of @tree_spec, a package name or a
 * tarball's path) plus the patches @subset (@n indices into @snap, in
 * order), with @env's config and suite. Each patch is written as the
 * text the gate parsed, under its position and a name safe as a file
 * name ("0001-x.patch"); step.json keeps the queue's name as
 * "queue_name". @expect_tree may be NULL. 0, or -errno with @err.
 */
int step_write(const char *dir, const struct kernel_env *env, const char *tree_spec,
	       const char *base_tree, const struct queue_snapshot *snap, const size_t *subset,
	       size_t n, const char *expect_tree, struct strbuf *err);

/*
 * Do the step in @dir with the cache @cache (defaults.h) and write
 * @dir/result.json. 0, or -errno with one line in @err: the step was
 * refused or could not be done, and there is no result.json.
 */
int step_run(const char *dir, const char *cache, const char *ccache, struct strbuf *err);

/*
 * result.json, read back. The strings point into @root, valid until
 * step_result_release().
 */
struct step_result {
	json_t *root;
	const char *host, *tree;
	const char *apply_failed;	/* the patch that did not apply; NULL: all applied */
	const char *apply_why;
	bool has_build, build_ok, built;
	const char *first_error;
	double build_seconds;
	struct strlist inputs;		/* what the build read, when it built */
	bool has_boot;
	enum boot_status boot_status;
	const char *accel, *ktap, *evidence;
	double boot_seconds;
};

/*
 * Read @dir/result.json. 0, or -EINVAL with "step: PATH: why" in @err for
 * a file that is not a result of this format.
 */
int step_result_read(const char *dir, struct step_result *res, struct strbuf *err);
void step_result_release(struct step_result *res);

#endif
