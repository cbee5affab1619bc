// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "exec/evaluate.h"

/* Apply the first @upto patches onto base; ret->tree.commit is the last that applied. */
static int apply_series(struct executor *x, const struct queue_snapshot *snap, size_t upto,
			const struct evaluate_options *opts, struct tree_evaluation *ret,
			struct strbuf *err)
{
	git_oid commit = x->tree->base;
	int r = 0;

	ret->applied = xcalloc(upto ? upto : 1, sizeof(*ret->applied));
	for (size_t i = 0; i < upto && r == 0 && !ret->apply_failed; i++) {
		const struct queue_patch *p = &snap->patches[i];
		struct apply_outcome outcome = { 0 };
		char *message;
		git_oid next;

		if (p->error) {
			strbuf_addf(err, "patches: %s", p->error);
			return -EINVAL;
		}
		strbuf_init(&outcome.message, 0);
		message = xasprintf("%s\n\n%s, patch %zu: %s\n",
				    p->header.subject ? p->header.subject : p->name,
				    opts->label ? opts->label : "evaluate", i + 1, p->name);
		r = tree_apply(x->tree, &commit, &p->parsed, message, &next, &outcome, err);
		free(message);
		if (r < 0) {
			/* the applier's words name what could not be read */
		} else if (outcome.status == APPLY_FAILED) {
			ret->apply_failed = p->name;
			ret->apply_why = xstrdup(outcome.message.len ? outcome.message.buf :
						 outcome.file ? outcome.file : "does not apply");
			ret->apply_file = outcome.file ? xstrdup(outcome.file) : NULL;
		} else {
			ret->applied[ret->n_applied++] = (struct applied_patch){
				.name = p->name, .status = outcome.status, .offset = outcome.offset };
			if (opts->say)
				fprintf(stderr, "# %s %s\n",
					outcome.status == APPLY_ALREADY ? "already applied" : "applied",
					p->name);
			commit = next;
		}
		apply_outcome_release(&outcome);
	}
	git_oid_cpy(&ret->tree.commit, &commit);
	return r;
}

int evaluate_tree(struct executor *x, const struct queue_snapshot *snap, size_t upto,
		  const struct evaluate_options *opts, struct tree_evaluation *ret,
		  struct strbuf *err)
{
	size_t *subset = NULL;
	git_oid commit;
	int r;

	memset(ret, 0, sizeof(*ret));
	exec_eval_init(&ret->outcome);
	r = apply_series(x, snap, upto, opts, ret, err);
	if (r < 0)
		return r;
	subset = xcalloc(upto ? upto : 1, sizeof(*subset));
	for (size_t i = 0; i < upto; i++)
		subset[i] = i;
	commit = ret->tree.commit;
	/* the tree is named even when a patch did not apply: what did apply */
	r = exec_tree_set(x, &ret->tree, &commit, subset, upto, err);
	if (r < 0 || ret->apply_failed)
		goto out;
	if (opts->expect_tree && strcmp(opts->expect_tree, ret->tree.hex) != 0) {
		strbuf_addf(err, "base plus the patches is tree %.12s here, the %s expects %.12s",
			    ret->tree.hex, opts->label ? opts->label : "caller", opts->expect_tree);
		r = -EINVAL;
		goto out;
	}
	ret->has_build = true;
	r = executor_build(x, &ret->tree, &ret->outcome.build, err);
	if (r < 0)
		goto out;
	if (opts->say && ret->outcome.build.built)
		fprintf(stderr, "# built in %.0f s\n", ret->outcome.build.seconds);
	else if (opts->say)
		fprintf(stderr, "# tree %.12s is already built in %s\n", ret->tree.hex,
			x->env->build);
	if (ret->outcome.build.status != BUILD_OK)
		goto out;
	if (opts->want_inputs) {
		r = executor_inputs(x, &ret->tree, &ret->outcome.inputs, err);
		if (r > 0) {
			strbuf_addf(err, "evaluate: no build of tree %.12s to read its inputs from",
				    ret->tree.hex);
			r = -ENOENT;
		}
		if (r < 0)
			goto out;
	}
	r = executor_boot(x, &ret->tree, &ret->outcome.boot, err);
	if (r < 0)
		goto out;
	ret->outcome.booted = true;
	if (opts->say)
		fprintf(stderr, "# booted with %s: %.0f ms to verdict\n", ret->outcome.boot.accel,
			ret->outcome.boot.seconds * 1000);
out:
	ret->tree.subset = NULL;	/* @subset is gone when this returns */
	free(subset);
	return r;
}

void tree_evaluation_release(struct tree_evaluation *ev)
{
	free(ev->applied);
	free(ev->apply_why);
	free(ev->apply_file);
	exec_eval_release(&ev->outcome);
	memset(ev, 0, sizeof(*ev));
}
