// SPDX-License-Identifier: GPL-2.0
/*
 * The Slurm executor (exec/executor.h): each tree is one step
 * (exec/step.h) that a cluster node runs as a Slurm job (exec/slurm.h).
 * The step's folder is written under the spool (slurm_options, default
 * <cache>/linux-X.Y/steps), which every node must see; it is removed once
 * its result is read, and kept, for the evidence, when the step failed.
 * Its build runs the whole step; inputs and boot are then what that step
 * found, kept until the next build.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "exec/executor.h"
#include "exec/step.h"

struct slurm_backend {
	unsigned step_serial;		/* names the step folders of this process */
	struct exec_eval last;		/* the last build's step, for inputs and boot */
	char last_tree[GIT_OID_HEXSZ + 1];
};

static void remove_folder(const char *dir)
{
	const char *argv[] = { "rm", "-rf", "--", dir, NULL };
	struct child c = { .argv = argv, .timeout_sec = 120 };
	struct child_result res;

	child_run(&c, &res);
}

/* Write the step for @t into a new folder of @spool, *ret_dir, and note it in x->steps. */
static int step_prepare(struct executor *x, const char *spool, const char *base_hex,
			const struct exec_tree *t, char **ret_dir, struct strbuf *err)
{
	struct slurm_backend *b = x->backend;
	char *dir = xasprintf("%s/%d-%u", spool, (int)getpid(), ++b->step_serial);
	struct executor_step *s;
	int r;

	*ret_dir = dir;
	remove_folder(dir);	/* a folder of an earlier process with this pid */
	r = step_write(dir, x->env, x->env->tarball, base_hex, x->snap, t->subset, t->n, t->hex,
		       err);
	if (r < 0)
		return r;
	x->steps = xreallocarray(x->steps, x->n_steps + 1, sizeof(*x->steps));
	s = &x->steps[x->n_steps++];
	memset(s, 0, sizeof(*s));
	snprintf(s->tree, sizeof(s->tree), "%s", t->hex);
	s->patches = t->n;
	fprintf(stderr, "# step for tree %.12s (%zu patch%s): submitting to Slurm\n", t->hex, t->n,
		t->n == 1 ? "" : "es");
	return 0;
}

/* A node's result.json as an evaluation. */
static int take_result(const struct step_result *res, struct exec_eval *e, const char *dir,
		       struct strbuf *err)
{
	if (!res->has_build) {
		strbuf_addf(err, "slurm executor: the step in %s has no build", dir);
		return -EIO;
	}
	e->build.built = res->built;
	e->build.status = res->build_ok ? BUILD_OK : BUILD_FAILED;
	e->build.seconds = res->build_seconds;
	strbuf_adds(&e->build.first_error, res->first_error ? res->first_error : "");
	if (!res->build_ok)
		return 0;
	strlist_extend(&e->inputs, &res->inputs);
	strlist_sort_unique(&e->inputs);
	if (!res->has_boot) {
		strbuf_addf(err, "slurm executor: the step in %s built the tree but has no boot",
			    dir);
		return -EIO;
	}
	e->booted = true;
	e->boot.status = res->boot_status;
	e->boot.seconds = res->boot_seconds;
	snprintf(e->boot.accel, sizeof(e->boot.accel), "%s", res->accel ? res->accel : "");
	strbuf_adds(&e->boot.console, res->ktap ? res->ktap : "");
	strbuf_adds(&e->boot.evidence, res->evidence ? res->evidence : "");
	return 0;
}

/* Read step @dir's result for @tree_hex into @e; the folder goes once it is read. */
static int step_collect(struct executor_step *s, const char *dir, const char *tree_hex,
			struct exec_eval *e, struct strbuf *err)
{
	struct step_result res;
	int r = step_result_read(dir, &res, err);

	if (r < 0)
		return r;
	if (strcmp(res.tree, tree_hex) != 0) {
		strbuf_addf(err, "slurm executor: the step in %s built tree %.12s, not %.12s", dir,
			    res.tree, tree_hex);
		r = -EIO;
	} else if (res.apply_failed) {
		strbuf_addf(err, "slurm executor: on %s, %s did not apply (%s), though it applies "
			    "here", res.host, res.apply_failed, res.apply_why);
		r = -EIO;
	} else {
		r = take_result(&res, e, dir, err);
	}
	if (r == 0) {
		snprintf(s->host, sizeof(s->host), "%s", res.host);
		remove_folder(dir);
	}
	step_result_release(&res);
	return r;
}

static int slurm_run_batch(struct executor *x, const struct exec_tree *trees, size_t k,
			   struct exec_eval *ret, struct strbuf *err)
{
	char base_hex[GIT_OID_HEXSZ + 1];
	char *spool = x->slurm->spool ? xstrdup(x->slurm->spool) :
		      xasprintf("%s/steps", x->env->dir);
	char **dirs = xcalloc(k ? k : 1, sizeof(*dirs));
	struct slurm_outcome *outs = xcalloc(k ? k : 1, sizeof(*outs));
	struct strbuf *errs = xcalloc(k ? k : 1, sizeof(*errs));
	int *rs = xcalloc(k ? k : 1, sizeof(*rs));
	size_t first = x->n_steps;
	int r = 0;

	if (mkdir(spool, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		strbuf_addf(err, "slurm executor: cannot create the spool %s: %s", spool,
			    strerror(errno));
		goto out;
	}
	if (tree_id_hex(x->tree, &x->tree->base, base_hex) < 0) {
		strbuf_addf(err, "slurm executor: cannot read the base tree of %s", x->env->src);
		r = -EIO;
		goto out;
	}
	for (size_t i = 0; i < k && r == 0; i++)
		r = step_prepare(x, spool, base_hex, &trees[i], &dirs[i], err);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < k; i++)
		strbuf_init(&errs[i], 0);
	/* the wait uses nothing in the cache: another run of this tree may go on meanwhile */
	kernel_env_unlock(x->env);
	slurm_run_steps(x->slurm, (const char *const *)dirs, k, outs, rs, errs);
	for (size_t i = 0; i < k; i++) {
		struct executor_step *s = &x->steps[first + i];

		s->slurm = outs[i];
		if (rs[i] == 0)
			rs[i] = step_collect(s, dirs[i], trees[i].hex, &ret[i], &errs[i]);
		if (rs[i] < 0 && r == 0) {
			r = rs[i];
			strbuf_addf(err, "%s (the step is kept in %s)", errs[i].buf, dirs[i]);
		}
	}
	{
		/* the run's own error, if any, comes first: it ends without a verdict either way */
		struct strbuf lock_err = STRBUF_INIT;
		int lr = kernel_env_relock(x->env, &lock_err);

		if (lr < 0 && r == 0) {
			r = lr;
			strbuf_addf(err, "%s", lock_err.buf);
		}
		strbuf_release(&lock_err);
	}
	for (size_t i = 0; i < k; i++)
		strbuf_release(&errs[i]);
out:
	for (size_t i = 0; i < k; i++)
		free(dirs[i]);
	free(dirs);
	free(outs);
	free(errs);
	free(rs);
	free(spool);
	return r;
}

static int slurm_open(struct executor *x, struct strbuf *err)
{
	struct slurm_backend *b = xcalloc(1, sizeof(*b));

	if (!x->slurm || !x->snap) {
		strbuf_addf(err, "slurm executor: opened without its options or a queue");
		free(b);
		return -EINVAL;
	}
	exec_eval_init(&b->last);
	x->backend = b;
	x->workers = x->slurm->workers > 1 ? x->slurm->workers : 1;
	return 0;
}

static void slurm_close(struct executor *x)
{
	struct slurm_backend *b = x->backend;

	if (b)
		exec_eval_release(&b->last);
	free(b);
}

static int slurm_build(struct executor *x, const struct exec_tree *t, struct exec_build *ret,
		       struct strbuf *err)
{
	struct slurm_backend *b = x->backend;
	int r;

	exec_eval_release(&b->last);
	b->last_tree[0] = '\0';
	r = executor_run_batch(x, t, 1, &b->last, err);
	if (r < 0) {
		exec_eval_init(&b->last);
		return r;
	}
	memcpy(b->last_tree, t->hex, sizeof(b->last_tree));
	ret->built = b->last.build.built;
	ret->status = b->last.build.status;
	ret->seconds = b->last.build.seconds;
	strbuf_adds(&ret->first_error, b->last.build.first_error.buf);
	return 0;
}

static int slurm_inputs(struct executor *x, const struct exec_tree *t, struct strlist *ret,
			struct strbuf *err)
{
	struct slurm_backend *b = x->backend;

	(void)err;
	if (strcmp(b->last_tree, t->hex) != 0 || b->last.build.status != BUILD_OK)
		return 1;
	strlist_extend(ret, &b->last.inputs);
	return 0;
}

static int slurm_boot(struct executor *x, const struct exec_tree *t, struct exec_boot *ret,
		      struct strbuf *err)
{
	struct slurm_backend *b = x->backend;

	if (strcmp(b->last_tree, t->hex) != 0 || !b->last.booted) {
		strbuf_addf(err, "slurm executor: no step booted tree %.12s", t->hex);
		return -EINVAL;
	}
	ret->status = b->last.boot.status;
	ret->seconds = b->last.boot.seconds;
	memcpy(ret->accel, b->last.boot.accel, sizeof(ret->accel));
	strbuf_adds(&ret->console, b->last.boot.console.buf);
	strbuf_adds(&ret->evidence, b->last.boot.evidence.buf);
	return 0;
}

const struct executor_ops executor_slurm_ops = {
	.name = "slurm",
	.has_steps = true,
	.open = slurm_open,
	.close = slurm_close,
	.build = slurm_build,
	.inputs = slurm_inputs,
	.boot = slurm_boot,
	.run_batch = slurm_run_batch,
};
