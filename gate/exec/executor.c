// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec/executor.h"

static int open_with(struct executor *x, const struct executor_ops *ops, struct kernel_env *env,
		     struct kernel_tree *tree, const struct queue_snapshot *snap,
		     const struct slurm_options *slurm, struct strbuf *err)
{
	memset(x, 0, sizeof(*x));
	x->ops = ops;
	x->env = env;
	x->tree = tree;
	x->snap = snap;
	x->slurm = slurm;
	x->workers = 1;
	return ops->open ? ops->open(x, err) : 0;
}

int executor_open_ops(struct executor *x, const struct executor_ops *ops, struct kernel_env *env,
		      struct kernel_tree *tree, const struct queue_snapshot *snap,
		      struct strbuf *err)
{
	return open_with(x, ops, env, tree, snap, NULL, err);
}

int executor_open(struct executor *x, struct kernel_env *env, struct kernel_tree *tree,
		  const struct queue_snapshot *snap, const struct slurm_options *slurm,
		  struct strbuf *err)
{
	const struct executor_ops *ops = &executor_local_ops;

	if (env->naive)
		ops = &executor_naive_ops;
	else if (slurm)
		ops = &executor_slurm_ops;
	return open_with(x, ops, env, tree, snap, slurm, err);
}

void executor_close(struct executor *x)
{
	if (x->ops && x->ops->close)
		x->ops->close(x);
	free(x->steps);
	memset(x, 0, sizeof(*x));
}

int exec_tree_set(struct executor *x, struct exec_tree *t, const git_oid *commit,
		  const size_t *subset, size_t n, struct strbuf *err)
{
	memset(t, 0, sizeof(*t));
	git_oid_cpy(&t->commit, commit);
	t->subset = subset;
	t->n = n;
	if (tree_id_hex(x->tree, commit, t->hex) < 0 || git_oid_fromstr(&t->id, t->hex) < 0) {
		strbuf_addf(err, "tree: cannot read the tree of a commit in %s", x->env->src);
		return -EIO;
	}
	return 0;
}

int executor_cost(struct executor *x, const struct exec_tree *t, unsigned *ret_objects,
		  struct strbuf *err)
{
	*ret_objects = 0;
	return x->ops->cost ? x->ops->cost(x, t, ret_objects, err) : 1;
}

int executor_build(struct executor *x, const struct exec_tree *t, struct exec_build *ret,
		   struct strbuf *err)
{
	return x->ops->build(x, t, ret, err);
}

int executor_inputs(struct executor *x, const struct exec_tree *t, struct strlist *ret,
		    struct strbuf *err)
{
	return x->ops->inputs(x, t, ret, err);
}

int executor_boot(struct executor *x, const struct exec_tree *t, struct exec_boot *ret,
		  struct strbuf *err)
{
	return x->ops->boot(x, t, ret, err);
}

int executor_run_batch(struct executor *x, const struct exec_tree *trees, size_t k,
		       struct exec_eval *ret, struct strbuf *err)
{
	int r;

	for (size_t i = 0; i < k; i++)
		exec_eval_init(&ret[i]);
	if (!x->ops->run_batch) {
		strbuf_addf(err, "executor %s: cannot evaluate trees at once", x->ops->name);
		r = -EINVAL;
	} else {
		r = x->ops->run_batch(x, trees, k, ret, err);
	}
	if (r < 0)
		for (size_t i = 0; i < k; i++)
			exec_eval_release(&ret[i]);
	return r;
}
