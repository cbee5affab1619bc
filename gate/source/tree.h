/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tree: the packaged kernel tree as a git repository (libgit2).
 *
 * The tarball is extracted once into the cache and imported as the base
 * commit (tag "base"); every candidate patch becomes one commit on top of
 * its predecessor, applied in memory through an index, so any prefix of a
 * queue is a commit that can be checked out. Checking out rewrites only
 * the files that differ, which keeps the kernel build incremental.
 */
#ifndef GATE_TREE_H
#define GATE_TREE_H

#include <git2.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "parse/patch.h"
#include "source/apply.h"
#include "source/workspace.h"

struct kernel_tree {
	git_repository *repo;
	git_oid base;		/* the base commit */
	char *workdir;
	/* the index of the last commit applied to, reused by the next apply */
	git_index *index;
	git_oid index_commit;
	bool index_valid;
};

/* Open the tree under env->src, extracting and importing it the first time. */
int tree_open(struct kernel_tree *tree, const struct kernel_env *env, struct strbuf *err);
void tree_close(struct kernel_tree *tree);

/*
 * Open (creating it the first time) a second repository whose working
 * tree is @dir and which reads @base's objects (git's "alternates", as
 * `git clone --shared` makes): every commit of @base can be checked out
 * into @dir with tree_checkout(), which keeps @dir's own index and
 * HEAD, and nothing of @base's working tree, index or HEAD is touched.
 * 0, or -errno with a message in @err.
 */
int tree_open_shared(struct kernel_tree *tree, const struct kernel_tree *base, const char *dir,
		     struct strbuf *err);

/*
 * Apply @patch on top of commit @parent. On APPLY_CLEAN or APPLY_OFFSET a
 * commit with @message is created and returned in @ret_commit; on
 * APPLY_ALREADY @ret_commit is @parent; on APPLY_FAILED it is untouched.
 * Returns 0 with @outcome filled, or -errno (repository trouble, @err).
 */
int tree_apply(struct kernel_tree *tree, const git_oid *parent, const struct patch *patch,
	       const char *message, git_oid *ret_commit, struct apply_outcome *outcome,
	       struct strbuf *err);

/*
 * Make the working tree match @commit; only differing files are written.
 * With @only NULL every file is compared (stat, then content when the stat
 * differs from the index), which also undoes edits made behind the gate's
 * back. With @only, just those paths are looked at: for a caller that
 * knows the working tree and index match another commit and @only holds
 * every path that differs between the two (tree_diff_paths()).
 */
int tree_checkout(struct kernel_tree *tree, const git_oid *commit, const struct strlist *only,
		  struct strbuf *err);

/* The tree id of @commit, as 40 hex digits in @out. */
int tree_id_hex(struct kernel_tree *tree, const git_oid *commit, char out[GIT_OID_HEXSZ + 1]);

/*
 * Append to @out every path whose content or mode differs between the
 * trees @a and @b (tree ids, not commits). 0, or -EIO with a message in
 * @err (a tree that is not in the repository).
 */
int tree_diff_paths(struct kernel_tree *tree, const git_oid *a, const git_oid *b,
		    struct strlist *out, struct strbuf *err);

/* true when @index (the repository's) holds @path with stat data other than @st's. */
bool tree_index_stale(git_index *index, const char *path, const struct stat *st);

/*
 * Record the current stat data of @paths in the repository's index
 * without reading them: for files whose times changed but whose content
 * is what the last checkout wrote. The next checkout then trusts them.
 */
int tree_index_restat(struct kernel_tree *tree, const struct strlist *paths,
		      struct strbuf *err);

#endif
