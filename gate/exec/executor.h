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
 * Or, with @slurm set after executor_open(), the Slurm executor: the
 * whole evaluation of a tree (apply, build, boot) is one step (step.h)
 * that a cluster node runs as a Slurm job (slurm.h). The step's folder is
 * written under the spool (slurm_options, default <cache>/linux-X.Y/steps),
 * which every node must see; it is removed once its result is read, and
 * kept, for the evidence, when the step failed.
 *
 *   executor_open()      read the slots, or open the naive source tree
 *   executor_cost()      what building a tree would cost here, when it can tell
 *   executor_build()     check @commit out and build it (unless built)
 *   executor_boot()      boot the last build with the suite
 *   executor_run_step()  the Slurm executor: a step for base plus patches
 *   executor_run_steps() several of them at once
 */
#ifndef GATE_EXECUTOR_H
#define GATE_EXECUTOR_H

#include <stdbool.h>

#include "basic/strbuf.h"
#include "parse/ktap.h"
#include "kernel/boot.h"
#include "kernel/build.h"
#include "source/workspace.h"
#include "source/queue.h"
#include "kernel/slots.h"
#include "exec/slurm.h"
#include "exec/step.h"
#include "source/tree.h"

/* One step run as a Slurm job, for the report's "steps". */
struct executor_step {
	char tree[GIT_OID_HEXSZ + 1];	/* the candidate's git tree */
	size_t patches;			/* how many patches on top of base */
	char host[64];			/* the node whose result was read */
	struct slurm_outcome slurm;	/* every attempt, with its job id */
};

struct executor {
	struct kernel_env *env;
	struct kernel_tree *tree;	/* the base repository: commits come from it */
	struct build_slots slots;	/* not naive */
	struct kernel_tree naive_tree;	/* naive: env->src, sharing @tree's objects */
	unsigned builds, boots;		/* steps started */
	const struct slurm_options *slurm;	/* set after open: the Slurm executor */
	struct executor_step *steps;	/* the Slurm executor's steps, in order */
	size_t n_steps;
	unsigned step_serial;		/* names the step folders of this process */
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
 * About how many objects executor_build() of @tree_id would compile
 * (slots_cost()), in *ret_objects: 0. 1 when this executor cannot tell
 * (naive builds compile everything; a Slurm node's slots are its own).
 * -errno with @err.
 */
int executor_cost(struct executor *x, const git_oid *tree_id, unsigned *ret_objects,
		  struct strbuf *err);

/*
 * Boot what the last executor_build() left in env->build, as
 * kernel_boot() (boot.h) does.
 */
int executor_boot(struct executor *x, struct strbuf *console, enum boot_status *ret_status,
		  struct strbuf *evidence, struct strbuf *err);

/*
 * The Slurm executor: evaluate base plus @subset (@n indices into @snap,
 * in order), git tree @tree_hex, on a node; @res gets its result.json
 * (step_result_release() it). Its steps and attempts are added to
 * x->steps. 0, or -errno with @err: no node gave a result, and nothing
 * may be concluded about the tree.
 */
int executor_run_step(struct executor *x, const struct queue_snapshot *snap,
		      const size_t *subset, size_t n, const char *tree_hex,
		      struct step_result *res, struct strbuf *err);

/*
 * executor_run_step() for @k trees at once: all are submitted, then
 * waited for together (slurm_run_steps()). 0 with every @res[i] to
 * release, or -errno with @err naming the first step that failed, and
 * no result to release.
 */
int executor_run_steps(struct executor *x, const struct queue_snapshot *snap,
		       const size_t *const *subsets, const size_t *ns,
		       char (*const trees)[GIT_OID_HEXSZ + 1], size_t k,
		       struct step_result *res, struct strbuf *err);

#endif
