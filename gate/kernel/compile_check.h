/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compile_check: compile what a candidate tree changes, as a distribution
 * configuration builds it. The booted test kernel is tinyconfig; stable
 * backports that do not compile usually break code tinyconfig leaves out.
 *
 * Per configuration (Debian's linux-config-X.Y, or any .config file) and
 * base there is one prepared build directory, <dir>/cc/<name>: the
 * config, `make olddefconfig`, `make prepare`, and the list of objects
 * that configuration builds, read from a dry run (`make -n vmlinux
 * modules`) in the still empty directory. Kbuild compiles any single
 * object it is asked for, built by the config or not; the list is what
 * says which ones the config really builds. The stamp .bg-cc names the
 * config's sha256 and the base tree; when either differs, the directory
 * is prepared again. Candidates are checked out into their own source
 * tree, <dir>/cc/src (tree_open_shared()), so make's timestamps there
 * stay true whatever the test kernel's build slots do to env->src.
 *
 * For a tree, the objects checked are:
 *  - each changed .c or .S file's object, when the config builds it
 *    (when it does not, the file is skipped and said so);
 *  - a .c or .S file the tree adds to base, in a folder where the config
 *    builds objects: no list made from base names it, so kbuild is asked
 *    on the candidate (make -n of the folder) whether the config builds
 *    it now, as a Makefile line added with it says;
 *  - for a changed header, the objects of the config whose source
 *    includes it, nearest first (those including it directly, then
 *    through one header, and so on), at most @max_objects per header;
 *    the report says when that bound cut the list. Includes are read
 *    from the base tree, #include "x" next to the file then <x> under
 *    include/, arch/x86/include/ and their uapi/ folders.
 * Only errors count. Each tree's result is kept in <dir>/cc/<name>/verdicts
 * (emptied when the directory is prepared again), so a later run recalls
 * it instead of compiling. An object that fails on the candidate is compiled
 * on base too: one that fails there as well is not the candidate's
 * fault, is left out of every later check of the run, and is named in
 * the result.
 *
 * A coordinator that gave the cache lock up while it waited for Slurm
 * steps (kernel_env_relock()) may find cc/src and the directories as
 * another run of the same tree left them: what this struct remembered of
 * them is then forgotten, and cc/src is checked out whole again.
 *
 *   compile_check_resolve()  NAME or PATH to the config file (exit-2 errors)
 *   compile_check_resolve_all()  the same for each of several
 *   compile_check_default()  the config when none is named: Debian's amd64
 *   compile_check_open()     ready to check trees of @base (nothing is built yet)
 *   compile_check_plan()     what checking the files a patch touches compiles
 *   compile_check_tree()     check one tree
 */
#ifndef GATE_COMPILE_CHECK_H
#define GATE_COMPILE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "source/tree.h"
#include "source/workspace.h"

#define COMPILE_CHECK_MAX_OBJECTS 200
#define COMPILE_CHECK_CONFIGS_MAX 8

struct include_index;

struct cc_config {
	char *name;		/* "amd64", or the file name of a PATH */
	char *path;		/* the config file, .xz or plain */
	char stamp[65];		/* sha256 of @path's bytes */
	char *dir;		/* <env->dir>/cc/<name> */
	bool ready;		/* prepared for the base, @objects read */
	struct strlist objects;	/* sorted: every object the config builds, paths folded */
	struct strlist aliases;	/* "object make-target" where kbuild names it through ".." */
	struct strlist base_failing;	/* objects that fail on base too */
};

struct compile_check {
	struct kernel_env *env;
	struct kernel_tree *base;	/* the base repository */
	struct kernel_tree src;		/* <dir>/cc/src: candidates are checked out here */
	bool src_open;
	bool head_known;
	git_oid head;			/* the commit checked out in @src */
	unsigned lock_epoch;		/* env's, when @head and the configs' lists were known */
	struct cc_config configs[COMPILE_CHECK_CONFIGS_MAX];
	size_t n;
	unsigned max_objects;		/* per changed header (the caller may lower or raise it) */
	struct include_index *includes;	/* read from base the first time a header needs it */
	unsigned objects_compiled;	/* objects handed to make, all trees and configs */
	unsigned checks;		/* trees compiled, per config */
	unsigned recalled;		/* trees an earlier run had checked, per config */
	double setup_seconds;		/* preparing build directories, this run */
	double check_seconds;		/* in compile_check_tree(), set-up excluded */
};

/* What checking one patch's (or one tree's) changed files compiles, per config. */
struct cc_plan {
	struct strlist objects[COMPILE_CHECK_CONFIGS_MAX];
	/*
	 * Objects of sources the change adds in a folder the config builds
	 * from: the list of base cannot say whether they are built, so
	 * kbuild is asked on the candidate (compile_check_tree()).
	 */
	struct strlist added[COMPILE_CHECK_CONFIGS_MAX];
	struct strlist skipped;		/* "path (config NAME does not build it)" */
	bool cut[COMPILE_CHECK_CONFIGS_MAX];	/* a header reached more than max_objects */
};

void cc_plan_release(struct cc_plan *plan);

/*
 * The config file @spec names for the tree of @version: a PATH (it has a
 * '/'), or a NAME of Debian's linux-config-<version> package: "amd64",
 * "cloud-amd64", "rt-amd64" (config.amd64_none_amd64.xz, ...). A file
 * that cannot be read, or a package that is not installed, is an error
 * that names the package to install. 0 with *ret_path and *ret_name
 * (the caller frees both), or -ENOENT with @err.
 */
int compile_check_resolve(const char *version, const char *spec, char **ret_path,
			  char **ret_name, struct strbuf *err);

/*
 * compile_check_resolve() for each of @specs (@n, at most
 * COMPILE_CHECK_CONFIGS_MAX): *ret_n of them resolved into @paths and
 * @names, which the caller frees, also when the next one failed. 0, or
 * the first failure's -ENOENT with @err.
 */
int compile_check_resolve_all(const char *version, char *const *specs, size_t n, char **paths,
			      char **names, size_t *ret_n, struct strbuf *err);

/*
 * The check a run gets when it names no config (neither a NAME, a PATH
 * nor "none"): Debian's amd64 config of the tree's linux-config-<version>
 * package, resolved into @paths[0] and @names[0] (*ret_n 1), which the
 * caller frees. Without that package, or for a tree that is no
 * linux-source-X.Y, there is no check (*ret_n 0) and @notice says why and
 * how to get one.
 */
void compile_check_default(const char *version, char **paths, char **names, size_t *ret_n,
			   struct strbuf *notice);

/*
 * Get ready to check trees of @base under the configs @paths/@names (n
 * of them, at most COMPILE_CHECK_CONFIGS_MAX). Nothing is prepared or
 * checked out before a tree needs it. 0, or -errno with @err.
 */
int compile_check_open(struct compile_check *cc, struct kernel_env *env,
		       struct kernel_tree *base, char *const *paths, char *const *names,
		       size_t n, struct strbuf *err);
void compile_check_close(struct compile_check *cc);

/*
 * The objects a change to @paths (tree-relative) makes the check compile,
 * per config, into @plan (cc_plan_release() it). Prepares the configs'
 * build directories the first time. 0, or -errno with @err.
 */
int compile_check_plan(struct compile_check *cc, const struct strlist *paths,
		       struct cc_plan *plan, struct strbuf *err);

/*
 * Check @commit: check it out into cc/src and compile, per config, what
 * its differences from base reach. *ret_ok false: @evidence names the
 * config and quotes the first compiler error with its file and line.
 * -errno (@err) for an infrastructure failure (a full disk, make timing
 * out): no verdict may be drawn from it.
 */
int compile_check_tree(struct compile_check *cc, const git_oid *commit, bool *ret_ok,
		       struct strbuf *evidence, struct strbuf *err);

#endif
