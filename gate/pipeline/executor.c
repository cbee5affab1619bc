// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/executor.h"

int executor_open(struct executor *x, struct kernel_env *env, struct kernel_tree *tree,
		  struct strbuf *err)
{
	memset(x, 0, sizeof(*x));
	x->env = env;
	x->tree = tree;
	if (env->naive)
		return tree_open_shared(&x->naive_tree, tree, env->src, err);
	return slots_open(&x->slots, env, tree, err);
}

void executor_close(struct executor *x)
{
	if (x->env && x->env->naive)
		tree_close(&x->naive_tree);
	else if (x->env)
		slots_close(&x->slots);
	memset(x, 0, sizeof(*x));
}

static void say_building(struct executor *x, const git_oid *tree_id)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), tree_id);
	fprintf(stderr, "# building tree %.12s in %s\n", hex, x->env->build);
	x->builds++;
}

static int build_naive(struct executor *x, const git_oid *commit, const git_oid *tree_id,
		       enum build_status *ret_status, struct strbuf *first_error,
		       struct strbuf *err)
{
	int r = tree_checkout(&x->naive_tree, commit, NULL, err);

	if (r < 0)
		return r;
	fprintf(stderr, "# naive: make clean in %s\n", x->env->build);
	r = kernel_clean(x->env, err);
	if (r < 0)
		return r;
	say_building(x, tree_id);
	return kernel_build(x->env, ret_status, first_error, err);
}

int executor_build(struct executor *x, const git_oid *commit, const git_oid *tree_id,
		   bool *ret_built, enum build_status *ret_status, struct strbuf *first_error,
		   struct strbuf *err)
{
	int r;

	*ret_built = true;
	if (x->env->naive)
		return build_naive(x, commit, tree_id, ret_status, first_error, err);
	if (slots_select_built(&x->slots, tree_id)) {
		/* built before, perhaps by another run */
		*ret_built = false;
		*ret_status = BUILD_OK;
		return 0;
	}
	r = slots_prepare(&x->slots, commit, tree_id, err);
	if (r < 0)
		return r;
	say_building(x, tree_id);
	r = kernel_build(x->env, ret_status, first_error, err);
	if (r < 0)
		return r;
	return slots_finish(&x->slots, *ret_status == BUILD_OK, err);
}

int executor_boot(struct executor *x, struct strbuf *console, enum boot_status *ret_status,
		  struct strbuf *evidence, struct strbuf *err)
{
	x->boots++;
	return kernel_boot(x->env, console, ret_status, evidence, err);
}
