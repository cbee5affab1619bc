// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle with a fake executor (exec/executor.h's ops table), on a
 * small real git repository, a real queue folder and a real record: no
 * kernel is built or booted. The fake "builds" a tree by looking at which
 * patches it holds (a name with "break" does not compile) and "boots" it
 * into KTAP where the case exec-long fails when a patch named "regress"
 * is in. Its builds read fs/exec.c and include/hdr.h (and lib/util.c when
 * told to), as a kernel build's .cmd files would say.
 *
 * What is checked is what the judge and the record see: apply failures
 * named, build failures, regressions in the KTAP, the memo and the record
 * sparing builds, the same-kernel shortcut (and its positive partner), a
 * batch for the prefetch, the cost, and a whole judge run's drop.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "basic/xalloc.h"
#include "exec/executor.h"
#include "verdict/oracle.h"
#include "testdb.h"

#define EXEC_V1 "int exec(void)\n{\n\treturn 1;\n}\n"
#define UTIL_V1 "int util(void)\n{\n\treturn 2;\n}\n"
#define HDR_V1 "#define HDR 1\n"

/* The patches, in series order; each is a real diff against the base below. */
static const struct {
	const char *name, *text;
} patches[] = {
	{ "0001-exec-benign.patch",
	  "Subject: [PATCH] exec: a benign change\n\n---\n"
	  "--- a/fs/exec.c\n+++ b/fs/exec.c\n@@ -1,4 +1,4 @@\n int exec(void)\n {\n-\treturn 1;\n"
	  "+\treturn 1; /* benign */\n }\n" },
	{ "0002-exec-regress.patch",
	  "Subject: [PATCH] exec: the regression\n\n---\n"
	  "--- a/include/hdr.h\n+++ b/include/hdr.h\n@@ -1 +1 @@\n-#define HDR 1\n+#define HDR 2\n" },
	{ "0003-lib-untouched.patch",
	  "Subject: [PATCH] lib: nothing the build reads\n\n---\n"
	  "--- a/lib/util.c\n+++ b/lib/util.c\n@@ -1,4 +1,4 @@\n int util(void)\n {\n-\treturn 2;\n"
	  "+\treturn 3;\n }\n" },
	{ "0004-no-apply.patch",
	  "Subject: [PATCH] exec: made against another tree\n\n---\n"
	  "--- a/fs/exec.c\n+++ b/fs/exec.c\n@@ -1,4 +1,4 @@\n int exec(void)\n {\n-\treturn 7;\n"
	  "+\treturn 8;\n }\n" },
	{ "0005-break-build.patch",
	  "Subject: [PATCH] lib: does not compile\n\n---\n"
	  "--- /dev/null\n+++ b/lib/broken.c\n@@ -0,0 +1 @@\n"
	  "+int broken(void) { return no_such_symbol; }\n" },
};
#define N_PATCHES (sizeof(patches) / sizeof(*patches))

struct fake {
	unsigned builds, boots, batches, batch_trees, inputs_asked;
	bool reads_lib;			/* the fake build reads lib/util.c too */
	bool held;			/* a build is at hand */
	char held_tree[GIT_OID_HEXSZ + 1];
	unsigned cost;			/* what cost() says for a tree it has not built */
};

struct fixture {
	char *dir;
	struct testdb tdb;
	struct kernel_env env;
	struct kernel_tree tree;
	struct queue_snapshot snap;
	struct fake fake;
	struct executor x;
	struct oracle o;
};

static bool holds(const struct executor *x, const struct exec_tree *t, const char *word)
{
	for (size_t i = 0; i < t->n; i++)
		if (strstr(x->snap->patches[t->subset[i]].name, word))
			return true;
	return false;
}

static int fake_build(struct executor *x, const struct exec_tree *t, struct exec_build *ret,
		      struct strbuf *err)
{
	struct fake *f = x->backend;

	(void)err;
	ret->built = !(f->held && !strcmp(f->held_tree, t->hex));
	if (ret->built)
		f->builds++;
	ret->seconds = 0.5;
	ret->status = holds(x, t, "break") ? BUILD_FAILED : BUILD_OK;
	if (ret->status == BUILD_FAILED)
		strbuf_adds(&ret->first_error, "lib/broken.c:1:27: error: 'no_such_symbol' undeclared");
	f->held = ret->status == BUILD_OK;
	memcpy(f->held_tree, t->hex, sizeof(f->held_tree));
	return 0;
}

static int fake_inputs(struct executor *x, const struct exec_tree *t, struct strlist *ret,
		       struct strbuf *err)
{
	struct fake *f = x->backend;

	(void)err;
	f->inputs_asked++;
	if (!f->held || strcmp(f->held_tree, t->hex))
		return 1;
	strlist_append(ret, "fs/exec.c");
	strlist_append(ret, "include/hdr.h");
	if (f->reads_lib)
		strlist_append(ret, "lib/util.c");
	return 0;
}

static int fake_boot(struct executor *x, const struct exec_tree *t, struct exec_boot *ret,
		     struct strbuf *err)
{
	struct fake *f = x->backend;
	bool regress = holds(x, t, "regress");

	(void)err;
	f->boots++;
	ret->status = BOOT_OK;
	ret->seconds = 1.5;
	snprintf(ret->accel, sizeof(ret->accel), "tcg");
	strbuf_addf(&ret->console,
		    "KTAP version 1\n1..2\n# case exec-basic kind=contract\nok 1 exec-basic\n"
		    "# case exec-long kind=contract\n%s 2 exec-long%s\n# Totals: pass:%d fail:%d\n",
		    regress ? "not ok" : "ok",
		    regress ? " # expected the interpreter to run, got errno ENOEXEC" : "",
		    regress ? 1 : 2, regress ? 1 : 0);
	return 0;
}

static int fake_cost(struct executor *x, const struct exec_tree *t, unsigned *ret_objects,
		     struct strbuf *err)
{
	struct fake *f = x->backend;

	(void)t;
	(void)err;
	*ret_objects = f->cost;
	return 0;
}

static int fake_batch(struct executor *x, const struct exec_tree *trees, size_t k,
		      struct exec_eval *ret, struct strbuf *err)
{
	struct fake *f = x->backend;
	int r = 0;

	f->batches++;
	f->batch_trees += k;
	for (size_t i = 0; i < k && r == 0; i++) {
		r = fake_build(x, &trees[i], &ret[i].build, err);
		if (r == 0 && ret[i].build.status == BUILD_OK) {
			r = fake_inputs(x, &trees[i], &ret[i].inputs, err);
			if (r == 0)
				r = fake_boot(x, &trees[i], &ret[i].boot, err);
			ret[i].booted = r == 0;
		}
	}
	return r;
}

static const struct executor_ops fake_ops = {
	.name = "fake", .build = fake_build, .inputs = fake_inputs, .boot = fake_boot,
	.cost = fake_cost, .run_batch = fake_batch,
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The base commit: fs/exec.c, include/hdr.h, lib/util.c. */
static void commit_base(struct fixture *fx)
{
	const struct { const char *dir, *name, *text; } files[] = {
		{ "fs", "exec.c", EXEC_V1 }, { "include", "hdr.h", HDR_V1 },
		{ "lib", "util.c", UTIL_V1 },
	};
	git_treebuilder *top;
	git_signature *sig;
	git_oid blob, sub, root;
	git_tree *t;

	assert_int_equal(git_treebuilder_new(&top, fx->tree.repo, NULL), 0);
	for (size_t i = 0; i < 3; i++) {
		git_treebuilder *tb;

		assert_int_equal(git_treebuilder_new(&tb, fx->tree.repo, NULL), 0);
		assert_int_equal(git_blob_create_from_buffer(&blob, fx->tree.repo, files[i].text,
							     strlen(files[i].text)), 0);
		assert_int_equal(git_treebuilder_insert(NULL, tb, files[i].name, &blob,
							GIT_FILEMODE_BLOB), 0);
		assert_int_equal(git_treebuilder_write(&sub, tb), 0);
		git_treebuilder_free(tb);
		assert_int_equal(git_treebuilder_insert(NULL, top, files[i].dir, &sub,
							GIT_FILEMODE_TREE), 0);
	}
	assert_int_equal(git_treebuilder_write(&root, top), 0);
	git_treebuilder_free(top);
	assert_int_equal(git_tree_lookup(&t, fx->tree.repo, &root), 0);
	assert_int_equal(git_signature_new(&sig, "t", "t@t", 0, 0), 0);
	assert_int_equal(git_commit_create(&fx->tree.base, fx->tree.repo, NULL, sig, sig, NULL,
					   "base", t, 0, NULL), 0);
	git_signature_free(sig);
	git_tree_free(t);
}

static void load_queue(struct fixture *fx)
{
	char *qdir = xasprintf("%s/queue", fx->dir), *path;
	struct strbuf series = STRBUF_INIT, err = STRBUF_INIT;
	struct queue_request req = { .source = qdir, .series_dir = ".", .default_series_dir = ".",
				     .cache = fx->dir };

	assert_int_equal(mkdir(qdir, 0755), 0);
	for (size_t i = 0; i < N_PATCHES; i++) {
		path = xasprintf("%s/%s", qdir, patches[i].name);
		write_file(path, patches[i].text);
		free(path);
		strbuf_addf(&series, "%s\n", patches[i].name);
	}
	path = xasprintf("%s/series", qdir);
	write_file(path, series.buf);
	free(path);
	if (queue_load(&req, &fx->snap, &err) < 0)
		fail_msg("queue_load: %s", err.buf);
	assert_int_equal(fx->snap.n, N_PATCHES);
	strbuf_release(&series);
	strbuf_release(&err);
	free(qdir);
}

static void open_oracle(struct fixture *fx)
{
	struct strbuf err = STRBUF_INIT;

	memset(&fx->fake, 0, sizeof(fx->fake));
	assert_int_equal(executor_open_ops(&fx->x, &fake_ops, &fx->env, &fx->tree, &fx->snap, &err),
			 0);
	fx->x.backend = &fx->fake;
	fx->x.workers = 2;
	assert_int_equal(oracle_open(&fx->o, &fx->x, fx->tdb.db, &fx->snap, &err), 0);
	strbuf_release(&err);
}

static void close_oracle(struct fixture *fx)
{
	oracle_close(&fx->o);
	fx->x.backend = NULL;
	executor_close(&fx->x);
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	char tmpl[] = "/tmp/oracle-test.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	fx->dir = xstrdup(tmpl);
	assert_int_equal(testdb_open(&fx->tdb, "oracle-test"), 0);
	fx->env.dir = xstrdup(fx->dir);
	fx->env.src = xasprintf("%s/src", fx->dir);
	fx->env.build = xasprintf("%s/build", fx->dir);
	fx->env.config_stamp = xstrdup("cfg");
	fx->env.suite_version = xstrdup("suite");
	git_libgit2_init();
	assert_int_equal(git_repository_init(&fx->tree.repo, fx->env.src, 0), 0);
	fx->tree.workdir = xstrdup(fx->env.src);
	commit_base(fx);
	load_queue(fx);
	open_oracle(fx);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char *cmd = xasprintf("rm -rf '%s'", fx->dir);

	close_oracle(fx);
	queue_snapshot_release(&fx->snap);
	if (fx->tree.index)
		git_index_free(fx->tree.index);
	git_repository_free(fx->tree.repo);
	free(fx->tree.workdir);
	git_libgit2_shutdown();
	testdb_close(&fx->tdb);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(fx->env.dir);
	free(fx->env.src);
	free(fx->env.build);
	free(fx->env.config_stamp);
	free(fx->env.suite_version);
	free(fx->dir);
	free(fx);
	return 0;
}

static const struct judge_eval *eval(struct fixture *fx, const size_t *subset, size_t n)
{
	struct strbuf err = STRBUF_INIT;
	const struct judge_eval *e = NULL;

	if (oracle_evaluate(&fx->o, subset, n, &e, &err) < 0)
		fail_msg("oracle_evaluate: %s", err.buf);
	strbuf_release(&err);
	return e;
}

/* "ok" / "fail" of case @name in @e's KTAP. */
static const char *case_result(const struct judge_eval *e, const char *name)
{
	for (size_t i = 0; i < e->ktap.n_cases; i++)
		if (!strcmp(e->ktap.cases[i].name, name))
			return e->ktap.cases[i].status == CASE_PASS ? "ok" : "fail";
	return "absent";
}

static void test_stages_answered(void **state)
{
	struct fixture *fx = *state;
	const size_t benign[] = { 0 }, regress[] = { 0, 1 }, no_apply[] = { 0, 3 },
		     broken[] = { 4 };
	const struct judge_eval *e;

	e = eval(fx, NULL, 0);
	assert_false(e->apply_failed || e->build_failed || e->boot_failed);
	assert_string_equal(case_result(e, "exec-long"), "ok");

	e = eval(fx, regress, 2);
	assert_false(e->build_failed || e->boot_failed);
	assert_string_equal(case_result(e, "exec-basic"), "ok");
	assert_string_equal(case_result(e, "exec-long"), "fail");

	e = eval(fx, no_apply, 2);
	assert_true(e->apply_failed);
	assert_int_equal(e->apply_failed_at, 3);
	if (!strstr(e->apply_message.buf, "fs/exec.c"))
		fail_msg("expected the apply message to name fs/exec.c, got '%s'",
			 e->apply_message.buf);

	e = eval(fx, broken, 1);
	assert_true(e->build_failed);
	assert_string_equal(e->build_error.buf,
			    "lib/broken.c:1:27: error: 'no_such_symbol' undeclared");

	e = eval(fx, benign, 1);
	assert_string_equal(case_result(e, "exec-long"), "ok");
	/* base, regress, broken, benign were built; no_apply was not; broken not booted */
	assert_int_equal(fx->fake.builds, 4);
	assert_int_equal(fx->fake.boots, 3);
	assert_int_equal(fx->o.builds, 4);
	assert_int_equal(fx->o.boots, 3);
}

static void test_memo_and_record_spare_builds(void **state)
{
	struct fixture *fx = *state;
	const size_t regress[] = { 0, 1 }, broken[] = { 4 };
	const struct judge_eval *e;

	eval(fx, regress, 2);
	eval(fx, broken, 1);
	eval(fx, regress, 2);
	assert_int_equal(fx->fake.builds, 2);
	assert_int_equal(fx->fake.boots, 1);

	/* a second run on the same record: nothing is built or booted again */
	close_oracle(fx);
	open_oracle(fx);
	e = eval(fx, regress, 2);
	assert_string_equal(case_result(e, "exec-long"), "fail");
	e = eval(fx, broken, 1);
	assert_true(e->build_failed);
	assert_int_equal(fx->fake.builds, 0);
	assert_int_equal(fx->fake.boots, 0);
}

static void judge_patches(struct fixture *fx, struct judge_patch *jp, bool lib_exercised)
{
	for (size_t i = 0; i < N_PATCHES; i++) {
		jp[i].name = fx->snap.patches[i].name;
		jp[i].upstream = "";
		jp[i].exercised = !strstr(jp[i].name, "lib-") || lib_exercised;
	}
	jp[3].unusable = true;		/* does not apply: refused before judging */
	fx->o.jp = jp;
}

static void test_same_kernel_shortcut(void **state)
{
	struct fixture *fx = *state;
	const size_t with_lib[] = { 0, 2 };
	const struct strlist *used;
	struct strbuf err = STRBUF_INIT;
	struct judge_patch jp[N_PATCHES] = { 0 };
	const struct judge_eval *e;

	judge_patches(fx, jp, false);
	assert_int_equal(oracle_base(&fx->o, &used, &err), 0);
	assert_int_equal(used->n, 2);
	assert_string_equal(used->items[0], "fs/exec.c");
	/* base + 0 is built; + 2 changes only lib/util.c, which that build did not read */
	e = eval(fx, with_lib, 2);
	assert_string_equal(case_result(e, "exec-long"), "ok");
	assert_int_equal(fx->o.same_kernel, 1);
	assert_int_equal(fx->fake.builds, 2);
	strbuf_release(&err);
}

static void test_same_kernel_not_when_read(void **state)
{
	struct fixture *fx = *state;
	const size_t with_lib[] = { 0, 2 };
	const struct strlist *used;
	struct strbuf err = STRBUF_INIT;
	struct judge_patch jp[N_PATCHES] = { 0 };

	/* the positive partner: the build reads lib/util.c, so + 2 is built */
	fx->fake.reads_lib = true;
	judge_patches(fx, jp, false);
	assert_int_equal(oracle_base(&fx->o, &used, &err), 0);
	assert_int_equal(used->n, 3);
	eval(fx, with_lib, 2);
	assert_int_equal(fx->o.same_kernel, 0);
	assert_int_equal(fx->fake.builds, 3);
	strbuf_release(&err);
}

static void test_prefetch_runs_a_batch(void **state)
{
	struct fixture *fx = *state;
	const size_t a[] = { 0 }, b[] = { 0, 1 };
	const size_t *subsets[] = { a, b };
	const size_t ns[] = { 1, 2 };
	const bool fresh[] = { false, false };
	struct judge_oracle jo = oracle_judge(&fx->o);
	struct strbuf err = STRBUF_INIT;
	const struct judge_eval *e;

	assert_int_equal(jo.workers, 2);
	assert_int_equal(jo.prefetch(jo.ctx, subsets, ns, fresh, 2, &err), 0);
	assert_int_equal(fx->fake.batches, 1);
	assert_int_equal(fx->fake.batch_trees, 2);
	assert_int_equal(fx->o.rounds, 1);
	/* both are answered from the memo now */
	e = eval(fx, b, 2);
	assert_string_equal(case_result(e, "exec-long"), "fail");
	eval(fx, a, 1);
	assert_int_equal(fx->fake.builds, 2);
	assert_int_equal(fx->o.rounds, 1);
	strbuf_release(&err);
}

static void test_cost_is_the_executors_until_answered(void **state)
{
	struct fixture *fx = *state;
	const size_t a[] = { 0 }, no_apply[] = { 3 };
	struct judge_oracle jo = oracle_judge(&fx->o);
	struct strbuf err = STRBUF_INIT;
	unsigned objects = 99;

	fx->fake.cost = 42;
	assert_int_equal(jo.cost(jo.ctx, a, 1, &objects, &err), 0);
	assert_int_equal(objects, 42);
	assert_int_equal(jo.cost(jo.ctx, no_apply, 1, &objects, &err), 0);
	assert_int_equal(objects, 0);
	eval(fx, a, 1);
	assert_int_equal(jo.cost(jo.ctx, a, 1, &objects, &err), 0);
	assert_int_equal(objects, 0);
	strbuf_release(&err);
}

static void test_judge_drops_the_regression(void **state)
{
	struct fixture *fx = *state;
	struct judge_patch jp[N_PATCHES] = { 0 };
	struct judge_options opts = { 0 };
	struct judge_oracle jo;
	struct judge_result result;
	const struct strlist *used;
	struct strbuf err = STRBUF_INIT;

	judge_patches(fx, jp, true);
	judge_result_init(&result, N_PATCHES);
	assert_int_equal(oracle_base(&fx->o, &used, &err), 0);
	jo = oracle_judge(&fx->o);
	if (judge_run(jp, N_PATCHES, &opts, &jo, &result, &err) < 0)
		fail_msg("judge_run: %s", err.buf);
	assert_int_equal(result.verdicts[0].status, PATCH_OK);
	assert_int_equal(result.verdicts[1].status, PATCH_DROP);
	assert_int_equal(result.verdicts[1].reason, REASON_REGRESSION);
	assert_int_equal(result.verdicts[1].regressions.n, 1);
	assert_string_equal(result.verdicts[1].regressions.items[0], "exec-long");
	assert_int_equal(result.verdicts[2].status, PATCH_OK);
	assert_int_equal(result.verdicts[4].status, PATCH_DROP);
	assert_int_equal(result.verdicts[4].reason, REASON_BUILD);
	judge_result_release(&result);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stages_answered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memo_and_record_spare_builds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_kernel_shortcut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_kernel_not_when_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefetch_runs_a_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cost_is_the_executors_until_answered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_judge_drops_the_regression, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
