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
 * This file is the folder's format, both sides of it; doing a step is
 * exec/node.h's.
 *
 *   step_write()        the coordinator's side: a folder for base plus some patches
 *   step_spec_read()    the node's side: step.json
 *   step_spec_check()   the node's base, config, suite and patches are the step's
 *   step_result_write() the node's side again: result.json
 *   step_result_read()  the coordinator's side again: read result.json
 */
#ifndef GATE_STEP_H
#define GATE_STEP_H

#include <stddef.h>

#include <jansson.h>
#include <stdbool.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "exec/outcome.h"
#include "parse/ktap.h"
#include "source/queue.h"
#include "source/tree.h"
#include "source/workspace.h"

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

/* step.json, read and checked for shape; the strings point into @root. */
struct step_spec {
	json_t *root;
	const char *tree, *base_tree, *config, *suite, *expect_tree;
	json_t *patches;
};

/* Read @dir/step.json. 0, or -EINVAL with "step: PATH: why" in @err. */
int step_spec_read(const char *dir, struct step_spec *s, struct strbuf *err);
void step_spec_release(struct step_spec *s);

/*
 * Refuse (-EINVAL, "step refused: ..." in @err) a step whose config,
 * suite or base tree are not @env's and @tree's, or whose patches are not
 * @snap's (the folder's series, read back) by name and sha256.
 */
int step_spec_check(const struct step_spec *s, const struct kernel_env *env,
		    struct kernel_tree *tree, const struct queue_snapshot *snap,
		    struct strbuf *err);

/*
 * Write @dir/result.json atomically: @applied (in order), the patch that
 * did not apply (@apply_failed, @apply_why; NULL: none), and @outcome's
 * build and boot (NULL: no build, as when a patch did not apply).
 */
int step_result_write(const char *dir, const char *host, const struct kernel_env *env,
		      const char *tree_hex, const struct applied_patch *applied, size_t n_applied,
		      const char *apply_failed, const char *apply_why,
		      const struct exec_eval *outcome, struct strbuf *err);

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
