// SPDX-License-Identifier: GPL-2.0
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
#include "kernel/quick.h"

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
	free(x->steps);
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
	if (x->slots.changed_known) {
		bool quick = false;

		r = quick_build(x->env, &x->slots.changed, &quick, ret_status, first_error, err);
		if (r < 0)
			return r;
		if (quick)
			return slots_finish(&x->slots, *ret_status == BUILD_OK, err);
	}
	r = kernel_build(x->env, ret_status, first_error, err);
	if (r < 0)
		return r;
	return slots_finish(&x->slots, *ret_status == BUILD_OK, err);
}

int executor_cost(struct executor *x, const git_oid *tree_id, unsigned *ret_objects,
		  struct strbuf *err)
{
	if (x->env->naive || x->slurm)
		return 1;
	return slots_cost(&x->slots, tree_id, ret_objects, err);
}

int executor_boot(struct executor *x, struct strbuf *console, enum boot_status *ret_status,
		  struct strbuf *evidence, struct strbuf *err)
{
	x->boots++;
	return kernel_boot(x->env, console, ret_status, evidence, err);
}

static void remove_folder(const char *dir)
{
	const char *argv[] = { "rm", "-rf", "--", dir, NULL };
	struct child c = { .argv = argv, .timeout_sec = 120 };
	struct child_result res;

	child_run(&c, &res);
}

/* Write step @i's folder into @dirs[i] and note it in x->steps. */
static int step_prepare(struct executor *x, const char *spool, const char *base_hex,
			const struct queue_snapshot *snap, const size_t *subset, size_t n,
			const char *tree_hex, char **ret_dir, struct strbuf *err)
{
	char *dir = xasprintf("%s/%d-%u", spool, (int)getpid(), ++x->step_serial);
	struct executor_step *s;
	int r;

	*ret_dir = dir;
	remove_folder(dir);	/* a folder of an earlier process with this pid */
	r = step_write(dir, x->env, x->env->tarball, base_hex, snap, subset, n, tree_hex, err);
	if (r < 0)
		return r;
	x->steps = xreallocarray(x->steps, x->n_steps + 1, sizeof(*x->steps));
	s = &x->steps[x->n_steps++];
	memset(s, 0, sizeof(*s));
	snprintf(s->tree, sizeof(s->tree), "%s", tree_hex);
	s->patches = n;
	fprintf(stderr, "# step for tree %.12s (%zu patch%s): submitting to Slurm\n", tree_hex, n,
		n == 1 ? "" : "es");
	return 0;
}

/* Read step @dir's result for @tree_hex into @res; the folder goes once it is read. */
static int step_collect(struct executor_step *s, const char *dir, const char *tree_hex,
			struct step_result *res, struct strbuf *err)
{
	int r = step_result_read(dir, res, err);

	if (r == 0 && strcmp(res->tree, tree_hex) != 0) {
		strbuf_addf(err, "slurm executor: the step in %s built tree %.12s, not %.12s", dir,
			    res->tree, tree_hex);
		r = -EIO;
	}
	if (r == 0 && res->apply_failed) {
		strbuf_addf(err, "slurm executor: on %s, %s did not apply (%s), though it applies "
			    "here", res->host, res->apply_failed, res->apply_why);
		r = -EIO;
	}
	if (r < 0) {
		step_result_release(res);
		return r;
	}
	snprintf(s->host, sizeof(s->host), "%s", res->host);
	remove_folder(dir);
	return 0;
}

int executor_run_steps(struct executor *x, const struct queue_snapshot *snap,
		       const size_t *const *subsets, const size_t *ns, char (*const trees)[GIT_OID_HEXSZ + 1],
		       size_t k, struct step_result *res, struct strbuf *err)
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

	memset(res, 0, k * sizeof(*res));
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
		r = step_prepare(x, spool, base_hex, snap, subsets[i], ns[i], trees[i], &dirs[i], err);
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
			rs[i] = step_collect(s, dirs[i], trees[i], &res[i], &errs[i]);
		if (rs[i] < 0 && r == 0) {
			r = rs[i];
			strbuf_addf(err, "%s (the step is kept in %s)", errs[i].buf, dirs[i]);
		}
		if (rs[i] == 0) {
			x->builds += res[i].has_build && res[i].built;
			x->boots += res[i].has_boot;
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
	if (r < 0)
		for (size_t i = 0; i < k; i++)
			if (rs[i] == 0)
				step_result_release(&res[i]);
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

int executor_run_step(struct executor *x, const struct queue_snapshot *snap,
		      const size_t *subset, size_t n, const char *tree_hex,
		      struct step_result *res, struct strbuf *err)
{
	char tree[1][GIT_OID_HEXSZ + 1];

	snprintf(tree[0], sizeof(tree[0]), "%s", tree_hex);
	return executor_run_steps(x, snap, &subset, &n, tree, 1, res, err);
}
