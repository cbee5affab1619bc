// SPDX-License-Identifier: GPL-2.0
/*
 * Build slots on a small real git repository: which slot a tree is built
 * in, when a slot is copied and which one is replaced, what the stamps
 * say, and the file times make will see. Builds are simulated: a "build"
 * writes the config stamp and an object file into the chosen slot.
 *
 * The repository has hdr.h (named by 150 fake .cmd files, a widely
 * included header), a.c (named by one) and doc.txt (by none).
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
#include "kernel/slots.h"

struct fixture {
	char *dir;
	struct kernel_env env;
	struct kernel_tree tree;
	git_oid parent;
	bool have_parent;
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, path) < 0)
		return xstrdup("(none)");
	return strbuf_detach(&sb, NULL);
}

/* A commit whose tree has the three files with these contents. */
static void commit_doc(struct fixture *fx, const char *hdr, const char *a, const char *doc,
		       git_oid *ret_commit, git_oid *ret_tree)
{
	git_treebuilder *tb;
	git_oid blob, tree_oid;
	git_tree *t;
	git_commit *parent = NULL;
	git_signature *sig;
	const struct { const char *name, *text; } files[] = {
		{ "a.c", a }, { "doc.txt", doc }, { "hdr.h", hdr },
	};

	assert_int_equal(git_treebuilder_new(&tb, fx->tree.repo, NULL), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(git_blob_create_from_buffer(&blob, fx->tree.repo, files[i].text,
							     strlen(files[i].text)), 0);
		assert_int_equal(git_treebuilder_insert(NULL, tb, files[i].name, &blob,
							GIT_FILEMODE_BLOB), 0);
	}
	assert_int_equal(git_treebuilder_write(&tree_oid, tb), 0);
	git_treebuilder_free(tb);
	assert_int_equal(git_tree_lookup(&t, fx->tree.repo, &tree_oid), 0);
	assert_int_equal(git_signature_new(&sig, "t", "t@t", 0, 0), 0);
	if (fx->have_parent)
		assert_int_equal(git_commit_lookup(&parent, fx->tree.repo, &fx->parent), 0);
	assert_int_equal(git_commit_create(ret_commit, fx->tree.repo, NULL, sig, sig, NULL, "c", t,
					   parent ? 1 : 0, (const git_commit **)&parent), 0);
	git_commit_free(parent);
	git_signature_free(sig);
	git_tree_free(t);
	git_oid_cpy(&fx->parent, ret_commit);
	fx->have_parent = true;
	git_oid_cpy(ret_tree, &tree_oid);
}

static void commit(struct fixture *fx, const char *hdr, const char *a, git_oid *ret_commit,
		   git_oid *ret_tree)
{
	commit_doc(fx, hdr, a, "docs\n", ret_commit, ret_tree);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char tmpl[] = "/tmp/slots-test.XXXXXX";

	assert_non_null(fx);
	assert_non_null(mkdtemp(tmpl));
	fx->dir = xstrdup(tmpl);
	fx->env.dir = xstrdup(fx->dir);
	fx->env.src = xasprintf("%s/src", fx->dir);
	fx->env.build = xasprintf("%s/build", fx->dir);
	fx->env.config_stamp = xstrdup("cfg");
	assert_int_equal(mkdir(fx->env.src, 0755), 0);
	assert_int_equal(mkdir(fx->env.build, 0755), 0);
	git_libgit2_init();
	assert_int_equal(git_repository_init(&fx->tree.repo, fx->env.src, 0), 0);
	fx->tree.workdir = xstrdup(fx->env.src);
	unsetenv("BG_BUILD_SLOTS");
	unsetenv("BG_SLOT_COPY_OBJECTS");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char *cmd = xasprintf("rm -rf '%s'", fx->dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	git_repository_free(fx->tree.repo);
	free(fx->tree.workdir);
	git_libgit2_shutdown();
	free(fx->env.dir);
	free(fx->env.src);
	free(fx->env.build);
	free(fx->env.config_stamp);
	free(fx->dir);
	free(fx);
	return 0;
}

/* What a build leaves: the config stamp, an object, and .cmd files naming
 * the sources (150 for hdr.h, 1 for a.c). */
static void fake_build(struct fixture *fx)
{
	char *p = xasprintf("%s/.bg-config", fx->env.build);

	write_file(p, "cfg\n");
	free(p);
	p = xasprintf("%s/a.o", fx->env.build);
	write_file(p, "object\n");
	free(p);
	for (int i = 0; i < 150; i++) {
		char *text = xasprintf("deps := %s/hdr.h%s%s%s\n", fx->env.src, i ? "" : " ",
				       i ? "" : fx->env.src, i ? "" : "/a.c");

		p = xasprintf("%s/.o%d.cmd", fx->env.build, i);
		write_file(p, text);
		free(p);
		free(text);
	}
}

static char *stamp_of(struct fixture *fx, const char *slot)
{
	char *p = xasprintf("%s/%s/.bg-tree", fx->dir, slot);
	char *text = read_text(p);

	free(p);
	return text;
}

static char *hex(const git_oid *oid)
{
	char buf[GIT_OID_HEXSZ + 1];

	git_oid_tostr(buf, sizeof(buf), oid);
	return xstrdup(buf);
}

static time_t mtime_of(struct fixture *fx, const char *file)
{
	char *p = xasprintf("%s/%s", fx->env.src, file);
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	free(p);
	return st.st_mtime;
}

static void prepare_build(struct fixture *fx, struct build_slots *s, const git_oid *c,
			  const git_oid *t, bool ok)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(slots_prepare(s, c, t, &err), 0);
	fake_build(fx);
	assert_int_equal(slots_finish(s, ok, &err), 0);
	strbuf_release(&err);
}

static void expect_stamp(struct fixture *fx, const char *slot, const git_oid *t1,
			 const git_oid *t2, bool dirty)
{
	char *h1 = hex(t1), *h2 = t2 ? hex(t2) : NULL;
	char *want = xasprintf("%s\n%s%s%s", h1, h2 ? h2 : "", h2 ? "\n" : "", dirty ? "-\n" : "");
	char *got = stamp_of(fx, slot);

	assert_string_equal(got, want);
	free(got);
	free(want);
	free(h1);
	free(h2);
}

static void test_header_change_builds_in_a_copy(void **state)
{
	struct fixture *fx = *state;
	struct build_slots s;
	struct strbuf err = STRBUF_INIT;
	git_oid c1, t1, c2, t2, c3, t3;
	char *path;

	commit(fx, "v1\n", "a1\n", &c1, &t1);
	commit(fx, "v2\n", "a1\n", &c2, &t2);
	commit(fx, "v1\n", "a2\n", &c3, &t3);
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);

	/* an empty pool: the first slot, stamped dirty until the build ends */
	assert_false(slots_select_built(&s, &t1));
	assert_int_equal(slots_prepare(&s, &c1, &t1, &err), 0);
	path = xasprintf("%s/build", fx->dir);
	assert_string_equal(fx->env.build, path);
	free(path);
	expect_stamp(fx, "build", &t1, NULL, true);
	fake_build(fx);
	assert_int_equal(slots_finish(&s, true, &err), 0);
	expect_stamp(fx, "build", &t1, NULL, false);
	assert_true(slots_select_built(&s, &t1));

	/* hdr.h reaches 150 objects: t1's objects are kept in a copy */
	prepare_build(fx, &s, &c2, &t2, true);
	path = xasprintf("%s/build", fx->dir);
	assert_string_equal(fx->env.build, path);
	assert_int_equal(s.copies, 1);
	expect_stamp(fx, "build", &t2, NULL, false);
	expect_stamp(fx, "build-1", &t1, NULL, false);
	assert_true(mtime_of(fx, "hdr.h") > SLOT_OLD_MTIME);
	assert_int_equal(mtime_of(fx, "a.c"), SLOT_OLD_MTIME);
	assert_int_equal(mtime_of(fx, "doc.txt"), SLOT_OLD_MTIME);

	/* back across the header: t1's slot is swapped in, nothing to build */
	assert_true(slots_select_built(&s, &t1));
	assert_string_equal(fx->env.build, path);
	free(path);
	expect_stamp(fx, "build", &t1, NULL, false);
	expect_stamp(fx, "build-1", &t2, NULL, false);

	/*
	 * t3 (a.c changed, hdr.h as in t1) is one object from t1's slot: no
	 * copy. The checkout wrote hdr.h back to v1, but that is what this
	 * slot's objects were built from: it must look old to make, and a.c
	 * new.
	 */
	prepare_build(fx, &s, &c3, &t3, true);
	assert_int_equal(s.copies, 1);
	assert_int_equal(mtime_of(fx, "hdr.h"), SLOT_OLD_MTIME);
	assert_true(mtime_of(fx, "a.c") > SLOT_OLD_MTIME);
	expect_stamp(fx, "build", &t3, NULL, false);
	expect_stamp(fx, "build-1", &t2, NULL, false);
	slots_close(&s);
	strbuf_release(&err);
}

/*
 * slots_cost(): what the closest slot would recompile, by the .cmd files
 * that name each differing file; nothing on disk changes.
 */
static void test_cost_is_what_the_closest_slot_recompiles(void **state)
{
	struct fixture *fx = *state;
	struct build_slots s;
	struct strbuf err = STRBUF_INIT;
	git_oid c1, t1, c2, t2, c3, t3, c4, t4;
	unsigned objects = 7;
	char *before, *after;
	time_t hdr_time;

	commit(fx, "v1\n", "a1\n", &c1, &t1);
	commit(fx, "v2\n", "a1\n", &c2, &t2);
	commit(fx, "v1\n", "a2\n", &c3, &t3);
	commit(fx, "v2\n", "a2\n", &c4, &t4);
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	assert_int_equal(slots_cost(&s, &t1, &objects, &err), 0);
	assert_int_equal(objects, SLOTS_COST_ALL);

	prepare_build(fx, &s, &c1, &t1, true);
	assert_int_equal(slots_cost(&s, &t1, &objects, &err), 0);
	assert_int_equal(objects, 0);
	assert_int_equal(slots_cost(&s, &t2, &objects, &err), 0);
	assert_int_equal(objects, 150);	/* hdr.h: 150 .cmd files name it */
	assert_int_equal(slots_cost(&s, &t3, &objects, &err), 0);
	assert_int_equal(objects, 1);	/* a.c: one */
	assert_int_equal(slots_cost(&s, &t4, &objects, &err), 0);
	assert_int_equal(objects, 151);

	/* t2 built beside t1 (a copy is kept): both cost nothing, t4 one object from t2 */
	prepare_build(fx, &s, &c2, &t2, true);
	before = stamp_of(fx, "build");
	hdr_time = mtime_of(fx, "hdr.h");
	assert_int_equal(slots_cost(&s, &t1, &objects, &err), 0);
	assert_int_equal(objects, 0);
	assert_int_equal(slots_cost(&s, &t2, &objects, &err), 0);
	assert_int_equal(objects, 0);
	assert_int_equal(slots_cost(&s, &t4, &objects, &err), 0);
	assert_int_equal(objects, 1);
	assert_int_equal(slots_cost(&s, &t3, &objects, &err), 0);
	assert_int_equal(objects, 1);
	after = stamp_of(fx, "build");
	assert_string_equal(after, before);
	assert_int_equal(mtime_of(fx, "hdr.h"), hdr_time);
	free(before);
	free(after);

	/* a slot whose build failed holds a mixture: it is no answer for its tree */
	prepare_build(fx, &s, &c4, &t4, false);
	assert_int_equal(slots_cost(&s, &t4, &objects, &err), 0);
	assert_true(objects > 0);
	slots_close(&s);
	strbuf_release(&err);
}

static void test_failed_build_leaves_a_mixture(void **state)
{
	struct fixture *fx = *state;
	struct build_slots s;
	struct strbuf err = STRBUF_INIT;
	git_oid c1, t1, c2, t2, c3, t3;

	commit(fx, "v1\n", "a1\n", &c1, &t1);
	commit(fx, "v1\n", "a2\n", &c2, &t2);
	commit(fx, "v1\n", "a1\n", &c3, &t3);	/* the same tree as t1 */
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	prepare_build(fx, &s, &c1, &t1, true);
	prepare_build(fx, &s, &c2, &t2, false);
	expect_stamp(fx, "build", &t1, &t2, true);
	assert_false(slots_select_built(&s, &t2));
	assert_false(slots_select_built(&s, &t1));

	/*
	 * Back to t1's content: a.c is what t1 had, but the failed build may
	 * have compiled a2 into the slot, so a.c must look new.
	 */
	assert_int_equal(slots_prepare(&s, &c3, &t3, &err), 0);
	assert_true(mtime_of(fx, "a.c") > SLOT_OLD_MTIME);
	assert_int_equal(mtime_of(fx, "hdr.h"), SLOT_OLD_MTIME);
	fake_build(fx);
	assert_int_equal(slots_finish(&s, true, &err), 0);
	expect_stamp(fx, "build", &t1, NULL, false);
	slots_close(&s);

	/* read back from disk by a later run */
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	assert_true(slots_select_built(&s, &t1));
	slots_close(&s);
	strbuf_release(&err);
}

static void test_full_pool_replaces_least_recently_used(void **state)
{
	struct fixture *fx = *state;
	struct build_slots s;
	struct strbuf err = STRBUF_INIT;
	git_oid c1, t1, c2, t2, c3, t3;

	setenv("BG_BUILD_SLOTS", "2", 1);
	commit(fx, "v1\n", "a1\n", &c1, &t1);
	commit(fx, "v2\n", "a1\n", &c2, &t2);
	commit(fx, "v3\n", "a1\n", &c3, &t3);
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	prepare_build(fx, &s, &c1, &t1, true);
	prepare_build(fx, &s, &c2, &t2, true);	/* t1 kept in build-1 */
	sleep(1);	/* stamps' mtimes order the slots */
	assert_true(slots_select_built(&s, &t1));

	/* v3: 150 objects from either; t2's slot was used longest ago */
	prepare_build(fx, &s, &c3, &t3, true);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.copies, 2);
	expect_stamp(fx, "build", &t3, NULL, false);
	expect_stamp(fx, "build-1", &t1, NULL, false);
	slots_close(&s);
	strbuf_release(&err);
}

static void test_untrusted_slot_emptied(void **state)
{
	struct fixture *fx = *state;
	struct build_slots s;
	struct strbuf err = STRBUF_INIT;
	char *obj = xasprintf("%s/a.o", fx->env.build);
	char *stamp = xasprintf("%s/.bg-tree", fx->env.build);

	/* objects of unknown origin, then a stamp naming no tree the repository has */
	write_file(obj, "object\n");
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	assert_int_equal(access(obj, F_OK), -1);
	slots_close(&s);
	write_file(obj, "object\n");
	write_file(stamp, "0123456789012345678901234567890123456789\n");
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	assert_int_equal(access(obj, F_OK), -1);
	assert_int_equal(access(stamp, F_OK), -1);
	slots_close(&s);
	free(obj);
	free(stamp);
	strbuf_release(&err);
}

/*
 * A swap cut short after its first rename leaves no build directory, only
 * build.swap: opening the slots puts it back. A slot configured from
 * another fragment does not hold the tree's kernel.
 */
static void test_swap_cut_short_and_other_config(void **state)
{
	struct fixture *fx = *state;
	struct build_slots s;
	struct strbuf err = STRBUF_INIT;
	char *swap = xasprintf("%s.swap", fx->env.build);
	char *cfg = xasprintf("%s/.bg-config", fx->env.build);
	git_oid c1, t1;

	commit(fx, "v1\n", "a1\n", &c1, &t1);
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	prepare_build(fx, &s, &c1, &t1, true);
	slots_close(&s);

	assert_int_equal(rename(fx->env.build, swap), 0);
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	assert_int_equal(access(swap, F_OK), -1);
	expect_stamp(fx, "build", &t1, NULL, false);
	assert_true(slots_select_built(&s, &t1));
	slots_close(&s);

	write_file(cfg, "other\n");
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	assert_false(slots_select_built(&s, &t1));
	slots_close(&s);
	free(swap);
	free(cfg);
	strbuf_release(&err);
}

static char *src_text(struct fixture *fx, const char *file)
{
	char *p = xasprintf("%s/%s", fx->env.src, file);
	char *text = read_text(p);

	free(p);
	return text;
}

/*
 * After the first step, a struct checks out and ages only what changed.
 * A file made new for one step and untouched by the next (doc.txt) must
 * still go back to old; the working tree must hold each step's content.
 * A new struct trusts nothing: an edit made between runs is undone.
 */
static void test_later_steps_touch_only_changes(void **state)
{
	struct fixture *fx = *state;
	struct build_slots s;
	struct strbuf err = STRBUF_INIT;
	git_oid c1, t1, c2, t2, c3, t3;
	char *text;

	commit_doc(fx, "v1\n", "a1\n", "d1\n", &c1, &t1);
	commit_doc(fx, "v1\n", "a1\n", "d2\n", &c2, &t2);
	commit_doc(fx, "v1\n", "a2\n", "d2\n", &c3, &t3);
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	prepare_build(fx, &s, &c1, &t1, true);
	assert_true(s.known);	/* an empty slot: every time set all the same */
	assert_int_equal(mtime_of(fx, "a.c"), SLOT_OLD_MTIME);
	prepare_build(fx, &s, &c2, &t2, true);
	assert_true(s.known);
	assert_true(mtime_of(fx, "doc.txt") > SLOT_OLD_MTIME);
	prepare_build(fx, &s, &c3, &t3, true);
	assert_int_equal(s.copies, 0);
	assert_int_equal(mtime_of(fx, "doc.txt"), SLOT_OLD_MTIME);
	assert_int_equal(mtime_of(fx, "hdr.h"), SLOT_OLD_MTIME);
	assert_true(mtime_of(fx, "a.c") > SLOT_OLD_MTIME);
	text = src_text(fx, "a.c");
	assert_string_equal(text, "a2\n");
	free(text);
	text = src_text(fx, "doc.txt");
	assert_string_equal(text, "d2\n");
	free(text);

	/* and back: both files written again, only they look new */
	prepare_build(fx, &s, &c1, &t1, true);
	text = src_text(fx, "a.c");
	assert_string_equal(text, "a1\n");
	free(text);
	text = src_text(fx, "doc.txt");
	assert_string_equal(text, "d1\n");
	free(text);
	assert_true(mtime_of(fx, "a.c") > SLOT_OLD_MTIME);
	assert_true(mtime_of(fx, "doc.txt") > SLOT_OLD_MTIME);
	assert_int_equal(mtime_of(fx, "hdr.h"), SLOT_OLD_MTIME);
	slots_close(&s);

	/* a new struct (the next process) starts from the times this one kept */
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	assert_true(s.known);
	assert_true(git_oid_equal(&s.head, &t1));
	assert_true(strlist_has(&s.fresh, "a.c") && strlist_has(&s.fresh, "doc.txt"));
	prepare_build(fx, &s, &c3, &t3, true);
	text = src_text(fx, "a.c");
	assert_string_equal(text, "a2\n");
	free(text);
	assert_int_equal(mtime_of(fx, "hdr.h"), SLOT_OLD_MTIME);
	assert_true(mtime_of(fx, "a.c") > SLOT_OLD_MTIME);
	assert_true(mtime_of(fx, "doc.txt") > SLOT_OLD_MTIME);	/* both differ from t1 */
	slots_close(&s);

	/*
	 * An edit behind the gate's back, same size, staged (git's index is
	 * written anew): the record is not believed, and a new struct
	 * restores the file.
	 */
	text = xasprintf("%s/hdr.h", fx->env.src);
	write_file(text, "zz\n");
	free(text);
	{
		git_index *index = NULL;

		assert_int_equal(git_repository_index(&index, fx->tree.repo), 0);
		assert_int_equal(git_index_add_bypath(index, "hdr.h"), 0);
		assert_int_equal(git_index_write(index), 0);
		git_index_free(index);
	}
	assert_int_equal(slots_open(&s, &fx->env, &fx->tree, &err), 0);
	assert_false(s.known);
	prepare_build(fx, &s, &c1, &t1, true);
	text = src_text(fx, "hdr.h");
	assert_string_equal(text, "v1\n");
	free(text);
	assert_int_equal(mtime_of(fx, "hdr.h"), SLOT_OLD_MTIME);
	slots_close(&s);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_header_change_builds_in_a_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cost_is_what_the_closest_slot_recompiles, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_build_leaves_a_mixture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_pool_replaces_least_recently_used, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_slot_emptied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_later_steps_touch_only_changes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_swap_cut_short_and_other_config, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
