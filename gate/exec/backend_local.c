// SPDX-License-Identifier: GPL-2.0
/*
 * The local and naive executors (exec/executor.h): builds in this
 * machine's cache, boots in this machine's QEMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/clock.h"
#include "basic/xalloc.h"
#include "exec/executor.h"
#include "kernel/quick.h"
#include "kernel/slots.h"

static void say_building(struct executor *x, const struct exec_tree *t)
{
	fprintf(stderr, "# building tree %.12s in %s\n", t->hex, x->env->build);
}

static int boot_here(struct executor *x, const struct exec_tree *t, struct exec_boot *ret,
		     struct strbuf *err)
{
	double start = now_seconds();
	int r;

	(void)t;
	r = kernel_boot(x->env, &ret->console, &ret->status, &ret->evidence, err);
	ret->seconds = now_seconds() - start;
	snprintf(ret->accel, sizeof(ret->accel), "%s", x->env->accel);
	return r;
}

/* What the build in env->build read (its .cmd files): none is an error. */
static int read_inputs(struct executor *x, struct strlist *ret, struct strbuf *err)
{
	int r = kernel_used_files(x->env, ret);

	if (r == 0 && ret->n == 0)
		r = -ENOENT;
	if (r < 0)
		strbuf_addf(err, "impact: cannot read the build's dependency files in %s",
			    x->env->build);
	return r;
}

/* The local executor: build slots (kernel/slots.h). */

static int local_open(struct executor *x, struct strbuf *err)
{
	struct build_slots *slots = xcalloc(1, sizeof(*slots));
	int r = slots_open(slots, x->env, x->tree, err);

	if (r < 0) {
		free(slots);
		return r;
	}
	x->backend = slots;
	return 0;
}

static void local_close(struct executor *x)
{
	if (x->backend)
		slots_close(x->backend);
	free(x->backend);
}

static int local_cost(struct executor *x, const struct exec_tree *t, unsigned *ret_objects,
		      struct strbuf *err)
{
	return slots_cost(x->backend, &t->id, ret_objects, err);
}

static int local_build(struct executor *x, const struct exec_tree *t, struct exec_build *ret,
		       struct strbuf *err)
{
	struct build_slots *slots = x->backend;
	double start = now_seconds();
	int r;

	ret->built = false;
	ret->status = BUILD_OK;
	if (slots_select_built(slots, &t->id))
		return 0;	/* built before, perhaps by another run */
	r = slots_prepare(slots, &t->commit, &t->id, err);
	if (r < 0)
		return r;
	ret->built = true;
	say_building(x, t);
	if (slots->changed_known) {
		bool quick = false;

		r = quick_build(x->env, &slots->changed, &quick, &ret->status, &ret->first_error,
				err);
		if (r == 0 && !quick)
			r = kernel_build(x->env, &ret->status, &ret->first_error, err);
	} else {
		r = kernel_build(x->env, &ret->status, &ret->first_error, err);
	}
	ret->seconds = now_seconds() - start;
	if (r < 0)
		return r;
	return slots_finish(slots, ret->status == BUILD_OK, err);
}

/* What a build read, when a clean slot holds the tree (it is swapped in). */
static int local_inputs(struct executor *x, const struct exec_tree *t, struct strlist *ret,
			struct strbuf *err)
{
	if (!slots_select_built(x->backend, &t->id))
		return 1;
	return read_inputs(x, ret, err);
}

const struct executor_ops executor_local_ops = {
	.name = "local",
	.open = local_open,
	.close = local_close,
	.cost = local_cost,
	.build = local_build,
	.inputs = local_inputs,
	.boot = boot_here,
};

/*
 * The naive executor: its own source folder (sharing the base
 * repository's objects), make clean and a whole build every time.
 */

struct naive {
	struct kernel_tree tree;	/* env->src */
	git_oid built;			/* the tree the build folder holds */
	bool holds;
};

static int naive_open(struct executor *x, struct strbuf *err)
{
	struct naive *n = xcalloc(1, sizeof(*n));
	int r = tree_open_shared(&n->tree, x->tree, x->env->src, err);

	if (r < 0) {
		free(n);
		return r;
	}
	x->backend = n;
	return 0;
}

static void naive_close(struct executor *x)
{
	struct naive *n = x->backend;

	if (n)
		tree_close(&n->tree);
	free(n);
}

static int naive_build(struct executor *x, const struct exec_tree *t, struct exec_build *ret,
		       struct strbuf *err)
{
	struct naive *n = x->backend;
	double start = now_seconds();
	int r = tree_checkout(&n->tree, &t->commit, NULL, err);

	n->holds = false;
	if (r < 0)
		return r;
	fprintf(stderr, "# naive: make clean in %s\n", x->env->build);
	r = kernel_clean(x->env, err);
	if (r < 0)
		return r;
	ret->built = true;
	say_building(x, t);
	r = kernel_build(x->env, &ret->status, &ret->first_error, err);
	ret->seconds = now_seconds() - start;
	if (r == 0 && ret->status == BUILD_OK) {
		n->built = t->id;
		n->holds = true;
	}
	return r;
}

static int naive_inputs(struct executor *x, const struct exec_tree *t, struct strlist *ret,
			struct strbuf *err)
{
	struct naive *n = x->backend;

	if (!n->holds || !git_oid_equal(&n->built, &t->id))
		return 1;
	return read_inputs(x, ret, err);
}

const struct executor_ops executor_naive_ops = {
	.name = "naive",
	.open = naive_open,
	.close = naive_close,
	.build = naive_build,
	.inputs = naive_inputs,
	.boot = boot_here,
};
