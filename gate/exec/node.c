// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/xalloc.h"
#include "exec/evaluate.h"
#include "exec/node.h"
#include "exec/step.h"
#include "source/defaults.h"
#include "source/target.h"

/* Evaluate the step's tree with @env and @tree, and write its result. */
static int evaluate_step(const char *dir, const struct step_spec *spec, struct kernel_env *env,
			 struct kernel_tree *tree, const struct queue_snapshot *snap,
			 struct strbuf *err)
{
	struct evaluate_options opts = { .label = "step", .want_inputs = true,
					 .expect_tree = spec->expect_tree };
	struct strbuf why = STRBUF_INIT;
	struct tree_evaluation ev;
	struct executor x = { 0 };
	char host[256] = "";
	int r;

	r = executor_open(&x, env, tree, snap, NULL, err);
	if (r < 0)
		return r;
	r = evaluate_tree(&x, snap, snap->n, &opts, &ev, &why);
	if (r == -EINVAL)	/* the patches were checked: only the tree is refused here */
		strbuf_addf(err, "step refused: %s", why.buf);
	else if (r < 0)
		strbuf_addf(err, "%s", why.buf);
	if (r == 0) {
		gethostname(host, sizeof(host) - 1);
		r = step_result_write(dir, host, env, ev.tree.hex, ev.applied,
				      ev.n_applied, ev.apply_failed, ev.apply_why,
				      ev.has_build ? &ev.outcome : NULL, err);
	}
	tree_evaluation_release(&ev);
	executor_close(&x);
	strbuf_release(&why);
	return r;
}

int step_run(const char *dir, const char *cache, const char *ccache, struct strbuf *err)
{
	struct queue_request req = { .source = dir, .series_dir = ".", .default_series_dir = ".",
				     .cache = cache };
	struct queue_snapshot snap = { 0 };
	struct step_spec spec = { 0 };
	struct target target = { 0 };
	struct kernel_env env;
	struct kernel_tree tree = { 0 };
	char *top = suite_top();
	bool env_open = false, tree_open_ok = false;
	int r;

	r = step_spec_read(dir, &spec, err);
	if (r == 0)
		r = target_resolve(&target, spec.tree, NULL, err);
	if (r == 0)
		r = target_check(&target, err);
	if (r == 0)
		r = queue_load(&req, &snap, err);
	if (r == 0 && (r = kernel_env_init(&env, top, cache, &target, err)) == 0)
		env_open = true;
	if (r == 0 && ccache) {
		free(env.ccache_dir);
		env.ccache_dir = xstrdup(ccache);
	}
	if (r == 0 && (r = tree_open(&tree, &env, err)) == 0)
		tree_open_ok = true;
	if (r == 0)
		r = step_spec_check(&spec, &env, &tree, &snap, err);
	if (r == 0)
		r = evaluate_step(dir, &spec, &env, &tree, &snap, err);
	step_spec_release(&spec);
	if (tree_open_ok)
		tree_close(&tree);
	if (env_open)
		kernel_env_release(&env);
	queue_snapshot_release(&snap);
	target_release(&target);
	free(top);
	return r;
}
