/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evaluate: one tree, start to end, with the gate's own stages: base plus
 * the first patches of a series applied as the gate applies them, built
 * and booted through an executor (exec/executor.h), the suite's KTAP
 * read off the console. `backport-gate boot` and a node's step
 * (exec/node.h) are this; the oracle asks the executor for the same
 * stages one at a time, between its memos and the record.
 */
#ifndef GATE_EVALUATE_H
#define GATE_EVALUATE_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"
#include "exec/executor.h"
#include "exec/outcome.h"
#include "source/queue.h"

struct evaluate_options {
	const char *label;		/* in each commit's message: "<label>, patch N: name" */
	bool say;			/* progress lines ("# applied x") on stderr */
	bool want_inputs;		/* read what the build read (outcome.inputs) */
	/* refuse (-EINVAL) to build a tree other than this one; NULL: any */
	const char *expect_tree;
};

struct tree_evaluation {
	struct applied_patch *applied;	/* in series order */
	size_t n_applied;
	const char *apply_failed;	/* the patch that did not apply; NULL: all did */
	char *apply_why;		/* the applier's message */
	char *apply_file;		/* the file it names, or NULL */
	struct exec_tree tree;		/* base plus what applied: commit and tree */
	bool has_build;			/* false when a patch did not apply */
	struct exec_eval outcome;	/* build, inputs, boot */
};

/*
 * Apply the first @upto patches of @snap onto x->tree's base, then build
 * and (when it built) boot the result through @x. A patch that does not
 * apply, a build that fails, a guest that panics: all are results in
 * @ret (release it with tree_evaluation_release(), whatever the return).
 * -errno with @err: a patch that could not be read, repository trouble,
 * @opts->expect_tree not met, or the executor's infrastructure failure.
 */
int evaluate_tree(struct executor *x, const struct queue_snapshot *snap, size_t upto,
		  const struct evaluate_options *opts, struct tree_evaluation *ret,
		  struct strbuf *err);
void tree_evaluation_release(struct tree_evaluation *ev);

#endif
