// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/git_error.h"
#include "basic/progress.h"
#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "source/tree.h"

#define EXTRACT_TIMEOUT 900

/*
 * Add every file under @dir (relative @rel) to @index. Debian's top-level
 * .gitignore hides everything and libgit2 1.5's add_all with FORCE fails
 * on this tree (libgit2 issue 6517), so files are added one by one.
 */
static int add_tree(git_index *index, const char *root, const char *rel, unsigned long *added,
		    struct strbuf *err)
{
	char *path;
	DIR *d;
	struct dirent *de;
	int r = 0;

	path = xasprintf("%s%s%s", root, rel[0] ? "/" : "", rel);
	d = opendir(path);
	if (!d) {
		strbuf_addf(err, "import: cannot read %s: %s", path, strerror(errno));
		free(path);
		return -errno;
	}
	while (r == 0 && (de = readdir(d))) {
		char *child;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!rel[0] && !strcmp(de->d_name, ".git")))
			continue;
		child = xasprintf("%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			strbuf_addf(err, "import: cannot stat %s: %s", child, strerror(errno));
			r = -errno;
		} else if (S_ISDIR(st.st_mode)) {
			r = add_tree(index, root, child, added, err);
		} else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
			if (git_index_add_bypath(index, child) < 0) {
				git_error_add(err, child);
				r = -EIO;
			}
			progress_update(progress_stderr(), ++*added);
		}
		free(child);
	}
	closedir(d);
	free(path);
	return r;
}

/* tar -v names each member it extracts on a line of its own; directories end in '/'. */
static bool is_file_line(const char *line, size_t len)
{
	return len && line[len - 1] != '/';
}

struct extract_watch {
	const char *log;
	struct file_lines lines;
	unsigned long files;
};

static void extract_tick(void *arg)
{
	struct extract_watch *w = arg;

	w->files += file_lines_count(&w->lines, w->log, is_file_line);
	progress_update(progress_stderr(), w->files);
}

static int import(struct kernel_tree *tree, const struct kernel_env *env, struct strbuf *err)
{
	char *tmp, *top = NULL;
	git_index *index = NULL;
	git_signature *sig = NULL;
	git_tree *gtree = NULL;
	git_oid tree_oid;
	git_reference *ref = NULL;
	DIR *d;
	struct dirent *de;
	struct progress *progress = progress_stderr();
	char *log, *stats;
	unsigned long files = 0, added = 0;
	int r = 0, e;

	tmp = xasprintf("%s.tmp", env->src);
	log = xasprintf("%s/extract.log", env->dir);
	stats = xasprintf("%s/progress-stats", env->dir);
	{
		const char *rm[] = { "rm", "-rf", tmp, env->src, NULL };
		const char *mk[] = { "mkdir", "-p", tmp, NULL };
		const char *tar[] = { "tar", "-xvJf", env->tarball, "-C", tmp, NULL };
		struct child c1 = { .argv = rm, .timeout_sec = 600 };
		struct child c2 = { .argv = mk, .timeout_sec = 60 };
		struct child c3 = { .argv = tar, .output_path = log, .timeout_sec = EXTRACT_TIMEOUT };
		struct extract_watch watch = { .log = log };
		unsigned long total;
		long expected_ms, took_ms;
		struct child_result res;
		int run;

		fprintf(stderr, "# extracting %s into %s\n", env->tarball, env->src);
		if (child_run(&c1, &res) < 0 || !child_ok(&res) ||
		    child_run(&c2, &res) < 0 || !child_ok(&res)) {
			strbuf_addf(err, "extract: cannot prepare %s", tmp);
			r = -EIO;
			goto out;
		}
		/* the member count of the last extraction: the same tarball, most likely */
		if (progress_stats_load(stats, "extract", &total, &expected_ms) < 0)
			total = 0, expected_ms = 0;
		progress_begin(progress, "extract", "files", total, expected_ms);
		run = child_run_ticking(&c3, 1000, extract_tick, &watch, &res);
		took_ms = progress->now_ms() - progress->start_ms;
		progress_end(progress);
		file_lines_release(&watch.lines);
		if (run < 0 || !child_ok(&res)) {
			strbuf_addf(err, "extract: ");
			child_describe(&c3, &res, err);
			strbuf_addf(err, " on %s (see %s)", env->tarball, log);
			r = -EIO;
			goto out;
		}
		files = watch.files;
		e = progress_stats_save(stats, "extract", files, took_ms);
		/* only an estimate is lost: said, not failed */
		if (e < 0)
			fprintf(stderr, "extract: cannot write %s (the next extraction's progress estimate): %s\n",
				stats, strerror(-e));
	}
	d = opendir(tmp);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			top = xasprintf("%s/%s", tmp, de->d_name);
			break;
		}
	if (d)
		closedir(d);
	if (!top || rename(top, env->src) < 0) {
		strbuf_addf(err, "extract: %s holds no kernel tree", env->tarball);
		r = -EINVAL;
		goto out;
	}
	rmdir(tmp);

	fprintf(stderr, "# importing %s into git (the base commit)\n", env->src);
	if (git_repository_init(&tree->repo, env->src, 0) < 0 ||
	    git_repository_index(&index, tree->repo) < 0) {
		git_error_add(err, env->src);
		r = -EIO;
		goto out;
	}
	/* every file tar extracted, and nothing else, is added */
	progress_begin(progress, "import", "files", files, 0);
	r = add_tree(index, env->src, "", &added, err);
	progress_end(progress);
	if (r < 0)
		goto out;
	if (git_index_write(index) < 0 || git_index_write_tree(&tree_oid, index) < 0 ||
	    git_tree_lookup(&gtree, tree->repo, &tree_oid) < 0 ||
	    git_signature_new(&sig, "backport-gate", "backport-gate@localhost", 0, 0) < 0 ||
	    git_commit_create(&tree->base, tree->repo, "HEAD", sig, sig, NULL,
			      "linux-source as packaged", gtree, 0, NULL) < 0 ||
	    git_reference_create(&ref, tree->repo, "refs/tags/base", &tree->base, 1, NULL) < 0) {
		git_error_add(err, "import");
		r = -EIO;
	}
out:
	git_reference_free(ref);
	git_tree_free(gtree);
	git_signature_free(sig);
	git_index_free(index);
	free(top);
	free(tmp);
	free(log);
	free(stats);
	return r;
}

/*
 * A run stopped in the middle of a checkout leaves .git/index.lock, and
 * every later checkout would fail on it. Trees are opened under the cache
 * lock (source/workspace.h), so no other process is writing that index: the file
 * is stale and goes.
 */
static void drop_stale_index_lock(git_repository *repo)
{
	char *lock = xasprintf("%sindex.lock", git_repository_path(repo));

	if (unlink(lock) == 0)
		fprintf(stderr, "# tree: removed %s, left by a run that was stopped\n", lock);
	free(lock);
}

int tree_open(struct kernel_tree *tree, const struct kernel_env *env, struct strbuf *err)
{
	git_object *obj = NULL;

	memset(tree, 0, sizeof(*tree));
	git_libgit2_init();
	/*
	 * libgit2 caches no tree over 4 KiB by default, and the kernel's big
	 * directories are larger: every apply, diff and checkout inflated and
	 * hashed them again. Kept, they cost a few MiB.
	 */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)1 << 20);
	tree->workdir = xstrdup(env->src);
	if (git_repository_open(&tree->repo, env->src) == 0 &&
	    git_revparse_single(&obj, tree->repo, "refs/tags/base^{commit}") == 0) {
		git_oid_cpy(&tree->base, git_object_id(obj));
		git_object_free(obj);
		drop_stale_index_lock(tree->repo);
		return 0;
	}
	/* Half an import (or none): start over from the tarball. */
	git_repository_free(tree->repo);
	tree->repo = NULL;
	return import(tree, env, err);
}

int tree_open_shared(struct kernel_tree *tree, const struct kernel_tree *base, const char *dir,
		     struct strbuf *err)
{
	const char *objects = git_repository_path(base->repo);
	char *alternates = xasprintf("%s/.git/objects/info/alternates", dir);
	struct strbuf want = STRBUF_INIT, have = STRBUF_INIT;
	int r = 0;

	memset(tree, 0, sizeof(*tree));
	git_oid_cpy(&tree->base, &base->base);
	tree->workdir = xstrdup(dir);
	strbuf_addf(&want, "%sobjects\n", objects);
	if (git_repository_init(&tree->repo, dir, false) < 0) {
		git_error_add(err, dir);
		r = -EIO;
		goto out;
	}
	strbuf_read_file(&have, alternates);
	if (strcmp(have.buf, want.buf) != 0) {
		r = strbuf_write_file(&want, alternates);
		if (r < 0) {
			strbuf_addf(err, "tree: cannot write %s: %s", alternates, strerror(-r));
			goto out;
		}
		/* reopened, so that its object database reads the alternate */
		git_repository_free(tree->repo);
		tree->repo = NULL;
		if (git_repository_open(&tree->repo, dir) < 0) {
			git_error_add(err, dir);
			r = -EIO;
		}
	}
out:
	if (r < 0)
		tree_close(tree);
	else
		drop_stale_index_lock(tree->repo);
	strbuf_release(&want);
	strbuf_release(&have);
	free(alternates);
	return r;
}

void tree_close(struct kernel_tree *tree)
{
	git_index_free(tree->index);
	git_repository_free(tree->repo);
	free(tree->workdir);
	memset(tree, 0, sizeof(*tree));
}

struct index_store {
	git_repository *repo;
	git_index *index;
};

static int store_read(void *ctx, const char *path, struct strbuf *ret_content, unsigned *ret_mode)
{
	struct index_store *s = ctx;
	const git_index_entry *e = git_index_get_bypath(s->index, path, 0);
	git_blob *blob;
	int r;

	if (!e)
		return -ENOENT;
	if (git_blob_lookup(&blob, s->repo, &e->id) < 0)
		return -EIO;
	r = strbuf_add(ret_content, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	*ret_mode = e->mode;
	git_blob_free(blob);
	return r;
}

static int store_write(void *ctx, const char *path, const char *content, size_t len, unsigned mode)
{
	struct index_store *s = ctx;
	git_index_entry e;

	memset(&e, 0, sizeof(e));
	if (git_blob_create_from_buffer(&e.id, s->repo, content, len) < 0)
		return -EIO;
	e.path = path;
	e.mode = mode ? mode : GIT_FILEMODE_BLOB;
	return git_index_add(s->index, &e) < 0 ? -EIO : 0;
}

static int store_remove(void *ctx, const char *path)
{
	struct index_store *s = ctx;

	return git_index_remove_bypath(s->index, path) < 0 ? -EIO : 0;
}

static const struct apply_store_ops index_store_ops = {
	.read = store_read,
	.write = store_write,
	.remove = store_remove,
};

/* Point tree->index at @commit's tree, reusing it when it already is. */
static int load_index(struct kernel_tree *tree, const git_oid *commit, struct strbuf *err)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	int r = 0;

	if (tree->index_valid && git_oid_equal(&tree->index_commit, commit))
		return 0;
	tree->index_valid = false;
	if (!tree->index && git_index_new(&tree->index) < 0) {
		git_error_add(err, "index");
		return -EIO;
	}
	if (git_commit_lookup(&c, tree->repo, commit) < 0 || git_commit_tree(&t, c) < 0 ||
	    git_index_read_tree(tree->index, t) < 0) {
		git_error_add(err, "index");
		r = -EIO;
	} else {
		git_oid_cpy(&tree->index_commit, commit);
		tree->index_valid = true;
	}
	git_tree_free(t);
	git_commit_free(c);
	return r;
}

int tree_apply(struct kernel_tree *tree, const git_oid *parent, const struct patch *patch,
	       const char *message, git_oid *ret_commit, struct apply_outcome *outcome,
	       struct strbuf *err)
{
	struct index_store store;
	git_signature *sig = NULL;
	git_commit *parent_commit = NULL;
	git_tree *new_tree = NULL;
	git_oid tree_oid;
	int r;

	r = load_index(tree, parent, err);
	if (r < 0)
		return r;
	store.repo = tree->repo;
	store.index = tree->index;
	r = patch_apply(patch, &index_store_ops, &store, outcome);
	if (r < 0) {
		strbuf_addf(err, "apply: repository error: %s", strerror(-r));
		tree->index_valid = false;
		return r;
	}
	if (outcome->status == APPLY_ALREADY) {
		git_oid_cpy(ret_commit, parent);
		return 0;
	}
	if (outcome->status == APPLY_FAILED)
		return 0;	/* nothing was written: the index still matches @parent */
	/* Fixed identity and time: the same patches give the same commits. */
	if (git_index_write_tree_to(&tree_oid, tree->index, tree->repo) < 0 ||
	    git_tree_lookup(&new_tree, tree->repo, &tree_oid) < 0 ||
	    git_commit_lookup(&parent_commit, tree->repo, parent) < 0 ||
	    git_signature_new(&sig, "backport-gate", "backport-gate@localhost", 0, 0) < 0 ||
	    git_commit_create(ret_commit, tree->repo, NULL, sig, sig, NULL, message, new_tree, 1,
			      (const git_commit **)&parent_commit) < 0) {
		git_error_add(err, "apply: commit");
		tree->index_valid = false;
		r = -EIO;
	} else {
		git_oid_cpy(&tree->index_commit, ret_commit);
	}
	git_signature_free(sig);
	git_commit_free(parent_commit);
	git_tree_free(new_tree);
	return r;
}

int tree_checkout(struct kernel_tree *tree, const git_oid *commit, const struct strlist *only,
		  struct strbuf *err)
{
	git_checkout_options opts;
	git_commit *c = NULL;
	int r = 0;

	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (only) {
		/* an empty pathspec would mean every path */
		if (!only->n) {
			if (git_repository_set_head_detached(tree->repo, commit) < 0) {
				git_error_add(err, "checkout");
				return -EIO;
			}
			return 0;
		}
		opts.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
		opts.paths.strings = only->items;
		opts.paths.count = only->n;
	}
	if (git_commit_lookup(&c, tree->repo, commit) < 0 ||
	    git_checkout_tree(tree->repo, (const git_object *)c, &opts) < 0 ||
	    git_repository_set_head_detached(tree->repo, commit) < 0) {
		git_error_add(err, "checkout");
		r = -EIO;
	}
	git_commit_free(c);
	return r;
}

int tree_id_hex(struct kernel_tree *tree, const git_oid *commit, char out[GIT_OID_HEXSZ + 1])
{
	git_commit *c = NULL;

	if (git_commit_lookup(&c, tree->repo, commit) < 0)
		return -EIO;
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

int tree_diff_paths(struct kernel_tree *tree, const git_oid *a, const git_oid *b,
		    struct strlist *out, struct strbuf *err)
{
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	int r = 0;

	if (git_oid_equal(a, b))
		return 0;
	if (git_tree_lookup(&ta, tree->repo, a) < 0 || git_tree_lookup(&tb, tree->repo, b) < 0 ||
	    git_diff_tree_to_tree(&diff, tree->repo, ta, tb, NULL) < 0) {
		char ha[GIT_OID_HEXSZ + 1], hb[GIT_OID_HEXSZ + 1];

		git_oid_tostr(ha, sizeof(ha), a);
		git_oid_tostr(hb, sizeof(hb), b);
		git_error_add(err, "diff");
		strbuf_addf(err, " (trees %.12s and %.12s)", ha, hb);
		r = -EIO;
		goto out;
	}
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		strlist_append(out, d->old_file.path);
		if (strcmp(d->old_file.path, d->new_file.path) != 0)
			strlist_append(out, d->new_file.path);
	}
out:
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	return r;
}

bool tree_index_stale(git_index *index, const char *path, const struct stat *st)
{
	const git_index_entry *e = git_index_get_bypath(index, path, 0);

	return e && (e->mtime.seconds != (int32_t)st->st_mtim.tv_sec ||
		     e->mtime.nanoseconds != (uint32_t)st->st_mtim.tv_nsec ||
		     e->ctime.seconds != (int32_t)st->st_ctim.tv_sec ||
		     e->ctime.nanoseconds != (uint32_t)st->st_ctim.tv_nsec ||
		     e->ino != (uint32_t)st->st_ino);
}

int tree_index_restat(struct kernel_tree *tree, const struct strlist *paths, struct strbuf *err)
{
	git_index *index = NULL;
	int r = 0;

	if (!paths->n)
		return 0;
	if (git_repository_index(&index, tree->repo) < 0) {
		git_error_add(err, "index");
		return -EIO;
	}
	for (size_t i = 0; i < paths->n; i++) {
		const git_index_entry *e = git_index_get_bypath(index, paths->items[i], 0);
		char *path = xasprintf("%s/%s", tree->workdir, paths->items[i]);
		git_index_entry ne;
		struct stat st;

		if (e && lstat(path, &st) == 0 && (size_t)st.st_size == e->file_size) {
			ne = *e;
			ne.ctime.seconds = (int32_t)st.st_ctim.tv_sec;
			ne.ctime.nanoseconds = (uint32_t)st.st_ctim.tv_nsec;
			ne.mtime.seconds = (int32_t)st.st_mtim.tv_sec;
			ne.mtime.nanoseconds = (uint32_t)st.st_mtim.tv_nsec;
			ne.dev = (uint32_t)st.st_dev;
			ne.ino = (uint32_t)st.st_ino;
			if (git_index_add(index, &ne) < 0)
				r = -EIO;
		}
		free(path);
		if (r < 0)
			break;
	}
	if (r == 0 && git_index_write(index) < 0)
		r = -EIO;
	if (r < 0)
		git_error_add(err, "index");
	git_index_free(index);
	return r;
}
