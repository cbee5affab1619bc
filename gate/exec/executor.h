/* SPDX-License-Identifier: GPL-2.0 */
/*
 * executor: where a candidate tree is built and booted. It is the one
 * door to build directories, kbuild's files and the cluster: the oracle
 * (verdict/oracle.h), evaluate_tree() (exec/evaluate.h) and the gate ask
 * it, and none of them knows which backend answers.
 *
 * A backend is an ops table (struct executor_ops); executor_open() picks
 * one:
 *  - local (exec/backend_local.c), the default: a tree is built in the
 *    build slot that suits it (kernel/slots.h: incremental builds through
 *    ccache-cc), and a tree a clean slot already holds is not built again;
 *  - naive (kernel_env_naive()), the strategy a person scripts by hand:
 *    the tree is checked out into its own source folder and built from
 *    scratch (make clean first) with plain gcc, every time;
 *  - slurm (exec/backend_slurm.c), with slurm options: the whole
 *    evaluation of a tree (apply, build, boot) is one step (exec/step.h)
 *    that a cluster node runs as a Slurm job (exec/slurm.h). Its build
 *    runs the step; its inputs and boot are what the step found. Several
 *    trees' steps run at once through run_batch.
 *
 *   executor_open()     choose and open the backend
 *   executor_cost()     what building a tree would cost, when the backend can tell
 *   executor_build()    make a build of the tree exist (unless one does)
 *   executor_inputs()   every tree file that build read
 *   executor_boot()     boot that build with the suite
 *   executor_run_batch() build and boot several trees at once (x->workers > 1)
 */
#ifndef GATE_EXECUTOR_H
#define GATE_EXECUTOR_H

#include <stdbool.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "exec/outcome.h"
#include "exec/slurm.h"
#include "source/queue.h"
#include "source/tree.h"
#include "source/workspace.h"

/* One tree to build: base plus @n patches of the executor's snapshot. */
struct exec_tree {
	git_oid commit;			/* base plus the patches, applied here */
	git_oid id;			/* its git tree */
	char hex[GIT_OID_HEXSZ + 1];	/* @id in hex */
	const size_t *subset;		/* indices into x->snap, in order */
	size_t n;
};

/* One step run as a Slurm job, for the report's "steps". */
struct executor_step {
	char tree[GIT_OID_HEXSZ + 1];	/* the candidate's git tree */
	size_t patches;			/* how many patches on top of base */
	char host[64];			/* the node whose result was read */
	struct slurm_outcome slurm;	/* every attempt, with its job id */
};

struct executor;

/*
 * A backend. Each operation returns 0, or -errno with a message in @err
 * (an infrastructure failure: no verdict may be drawn from it). A tree
 * that does not compile or boot is a result, not an error.
 */
struct executor_ops {
	const char *name;		/* the report's stats.executor */
	bool has_steps;			/* its work is the report's "steps" */
	int (*open)(struct executor *x, struct strbuf *err);
	void (*close)(struct executor *x);
	/* 0 with *ret_objects, or 1 when it cannot tell. */
	int (*cost)(struct executor *x, const struct exec_tree *t, unsigned *ret_objects,
		    struct strbuf *err);
	int (*build)(struct executor *x, const struct exec_tree *t, struct exec_build *ret,
		     struct strbuf *err);
	/* 0 with @ret filled, or 1 when no build of @t is at hand to read. */
	int (*inputs)(struct executor *x, const struct exec_tree *t, struct strlist *ret,
		      struct strbuf *err);
	/* Boot the build of @t, the last one built. */
	int (*boot)(struct executor *x, const struct exec_tree *t, struct exec_boot *ret,
		    struct strbuf *err);
	/* Optional: evaluate @k trees at once; every @ret[i] to release on 0. */
	int (*run_batch)(struct executor *x, const struct exec_tree *trees, size_t k,
			 struct exec_eval *ret, struct strbuf *err);
};

struct executor {
	const struct executor_ops *ops;
	void *backend;			/* the backend's own state */
	struct kernel_env *env;
	struct kernel_tree *tree;	/* the base repository: commits come from it */
	const struct queue_snapshot *snap;	/* what exec_tree.subset indexes (may be NULL) */
	const struct slurm_options *slurm;	/* the slurm backend's options */
	unsigned workers;		/* trees run_batch takes at once; 1 without it */
	struct executor_step *steps;	/* the slurm backend's steps, in order */
	size_t n_steps;
};

/*
 * Open the backend for @env: naive when env->naive, slurm with @slurm,
 * local otherwise. @snap (may be NULL for a backend without steps) is
 * the queue whose patches exec_tree.subset names. 0, or -errno with @err.
 */
int executor_open(struct executor *x, struct kernel_env *env, struct kernel_tree *tree,
		  const struct queue_snapshot *snap, const struct slurm_options *slurm,
		  struct strbuf *err);
/* Open @x with @ops: for tests that bring a backend of their own. */
int executor_open_ops(struct executor *x, const struct executor_ops *ops, struct kernel_env *env,
		      struct kernel_tree *tree, const struct queue_snapshot *snap,
		      struct strbuf *err);
void executor_close(struct executor *x);

/* @t for @commit (and @subset, @n): its tree id read from the repository. */
int exec_tree_set(struct executor *x, struct exec_tree *t, const git_oid *commit,
		  const size_t *subset, size_t n, struct strbuf *err);

int executor_cost(struct executor *x, const struct exec_tree *t, unsigned *ret_objects,
		  struct strbuf *err);
/* @ret initialised by the caller (exec_build_init()). */
int executor_build(struct executor *x, const struct exec_tree *t, struct exec_build *ret,
		   struct strbuf *err);
int executor_inputs(struct executor *x, const struct exec_tree *t, struct strlist *ret,
		    struct strbuf *err);
/* @ret initialised by the caller (exec_boot_init()). */
int executor_boot(struct executor *x, const struct exec_tree *t, struct exec_boot *ret,
		  struct strbuf *err);
/* Only when x->workers > 1. @ret: @k of them, initialised here. */
int executor_run_batch(struct executor *x, const struct exec_tree *trees, size_t k,
		       struct exec_eval *ret, struct strbuf *err);

/* The backends executor_open() chooses from. */
extern const struct executor_ops executor_local_ops, executor_naive_ops, executor_slurm_ops;

#endif
