/* SPDX-License-Identifier: GPL-2.0 */
/*
 * executor: where a candidate tree is built and booted. The gate's
 * pipeline (gate.h) and `backport-gate boot` ask it for the two steps of
 * evaluating a tree, and count them; neither knows build directories.
 *
 * This is the local executor, on this machine's cache:
 *  - by default a tree is built in the build slot that suits it
 *    (slots.h: incremental builds through ccache-cc), and a tree a clean
 *    slot already holds is not built again;
 *  - naive (kernel_env_naive()), the strategy a person scripts by hand:
 *    the tree is checked out into its own source folder and built from
 *    scratch (make clean first) with plain gcc, every time.
 *
 *   executor_open()    read the slots, or open the naive source tree
 *   executor_build()   check @commit out and build it (unless built)
 *   executor_boot()    boot the last build with the suite
 */
#ifndef GATE_EXECUTOR_H
#define GATE_EXECUTOR_H

#include <stdbool.h>

#include "basic/strbuf.h"
#include "parse/ktap.h"
#include "pipeline/boot.h"
#include "pipeline/build.h"
#include "pipeline/kernel.h"
#include "pipeline/slots.h"
#include "pipeline/tree.h"

struct executor {
	struct kernel_env *env;
	struct kernel_tree *tree;	/* the base repository: commits come from it */
	struct build_slots slots;	/* not naive */
	struct kernel_tree naive_tree;	/* naive: env->src, sharing @tree's objects */
	unsigned builds, boots;		/* steps started */
};

/*
 * Get ready to build commits of @tree in @env's folders. 0, or -errno with
 * a message in @err.
 */
int executor_open(struct executor *x, struct kernel_env *env, struct kernel_tree *tree,
		  struct strbuf *err);
void executor_close(struct executor *x);

/*
 * Make env->build hold a build of @commit (tree @tree_id). *ret_built is
 * false when a slot already held it (nothing was built, *ret_status is
 * BUILD_OK). Otherwise @commit is checked out and built: *ret_status says
 * whether it compiled, @first_error where it did not. -errno (@err) for
 * an infrastructure failure: no verdict may be drawn from it.
 */
int executor_build(struct executor *x, const git_oid *commit, const git_oid *tree_id,
		   bool *ret_built, enum build_status *ret_status, struct strbuf *first_error,
		   struct strbuf *err);

/*
 * Boot what the last executor_build() left in env->build, as
 * kernel_boot() (boot.h) does.
 */
int executor_boot(struct executor *x, struct strbuf *console, enum boot_status *ret_status,
		  struct strbuf *evidence, struct strbuf *err);

#endif
