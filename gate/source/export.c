// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "source/export.h"

struct export_walk {
	git_repository *repo;
	const char *dir;
	unsigned long files;
	struct strbuf *err;
	int error;
};

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_blob(struct export_walk *w, const char *path, const git_tree_entry *entry)
{
	git_filemode_t mode = git_tree_entry_filemode(entry);
	git_blob *blob = NULL;
	const char *content;
	size_t len;
	int fd, r = 0;

	if (git_blob_lookup(&blob, w->repo, git_tree_entry_id(entry)) < 0) {
		strbuf_addf(w->err, "export: %s: cannot read its blob from the repository", path);
		return -EIO;
	}
	content = git_blob_rawcontent(blob);
	len = (size_t)git_blob_rawsize(blob);
	if (mode == GIT_FILEMODE_LINK) {
		char *target = xstrndup(content, len);


		if (symlink(target, path) < 0)
			r = -errno;
		free(target);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
		if (fd < 0) {
			r = -errno;
		} else {
			r = write_all(fd, content, len);
			if (close(fd) < 0 && r == 0)
				r = -errno;
		}
	}
	if (r < 0)
		strbuf_addf(w->err, "export: %s: %s", path, strerror(-r));
	else
		w->files++;
	git_blob_free(blob);
	return r;
}

static int walk_entry(const char *root, const git_tree_entry *entry, void *payload)
{
	struct export_walk *w = payload;
	char *path = xasprintf("%s/%s%s", w->dir, root, git_tree_entry_name(entry));
	int r = 0;

	switch (git_tree_entry_type(entry)) {
	case GIT_OBJECT_TREE:
	case GIT_OBJECT_COMMIT:	/* a submodule: an empty folder, as a checkout leaves it */
		if (mkdir(path, 0755) < 0) {
			r = -errno;
			strbuf_addf(w->err, "export: %s: %s", path, strerror(errno));
		}
		break;
	case GIT_OBJECT_BLOB:
		r = write_blob(w, path, entry);
		break;
	default:
		break;
	}
	free(path);
	if (r < 0) {
		w->error = r;
		return -1;	/* stops the walk */
	}
	return 0;
}

/* 0 when @dir does not exist or is an empty folder, else -EEXIST/-ENOTDIR/-errno. */
static int check_target(const char *dir, bool *ret_exists, struct strbuf *err)
{
	struct dirent *d;
	DIR *dh = opendir(dir);
	int r = 0;

	*ret_exists = false;
	if (!dh) {
		if (errno == ENOENT)
			return 0;
		strbuf_addf(err, "export: %s: %s", dir, strerror(errno));
		return -errno;
	}
	*ret_exists = true;
	while ((d = readdir(dh)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			strbuf_addf(err, "export: %s is not empty (it holds %s): refusing to write into it",
				    dir, d->d_name);
			r = -EEXIST;
			break;
		}
	closedir(dh);
	return r;
}

/* Open the tree repository under @cache that holds @oid. */
static int find_repository(const char *cache, const git_oid *oid, git_repository **ret,
			   struct strbuf *err)
{
	struct dirent *d;
	DIR *dh = opendir(cache);

	*ret = NULL;
	if (!dh) {
		strbuf_addf(err, "export: cannot read the cache %s: %s", cache, strerror(errno));
		return -errno;
	}
	while (!*ret && (d = readdir(dh))) {
		git_repository *repo;
		git_commit *commit;
		char *src;

		if (strncmp(d->d_name, "linux-", 6) != 0)
			continue;
		src = xasprintf("%s/%s/src", cache, d->d_name);
		if (git_repository_open_ext(&repo, src, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0) {
			if (git_commit_lookup(&commit, repo, oid) == 0) {
				git_commit_free(commit);
				*ret = repo;
			} else {
				git_repository_free(repo);
			}
		}
		free(src);
	}
	closedir(dh);
	if (!*ret) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), oid);
		strbuf_addf(err, "export: no tree repository under %s holds commit %s "
			    "(was the run made with another --cache?)", cache, hex);
		return -ENOENT;
	}
	return 0;
}

int export_commit(const char *cache, const char *commit_hex, const char *dir,
		  unsigned long *ret_files, struct strbuf *err)
{
	struct export_walk w = { .err = err };
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	char *partial = NULL;
	bool exists;
	git_oid oid;
	int r;

	*ret_files = 0;
	git_libgit2_init();
	if (git_oid_fromstr(&oid, commit_hex) < 0 || strlen(commit_hex) != GIT_OID_HEXSZ) {
		strbuf_addf(err, "export: '%s' is not a commit id", commit_hex);
		r = -EINVAL;
		goto out;
	}
	r = check_target(dir, &exists, err);
	if (r < 0)
		goto out;
	r = find_repository(cache, &oid, &w.repo, err);
	if (r < 0)
		goto out;
	if (git_commit_lookup(&commit, w.repo, &oid) < 0 || git_commit_tree(&tree, commit) < 0) {
		strbuf_addf(err, "export: cannot read the tree of commit %s", commit_hex);
		r = -EIO;
		goto out;
	}
	partial = xasprintf("%s.partial-%ld", dir, (long)getpid());
	if (mkdir(partial, 0755) < 0) {
		r = -errno;
		strbuf_addf(err, "export: cannot create %s: %s", partial, strerror(errno));
		goto out_free_partial;
	}
	w.dir = partial;
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, walk_entry, &w) < 0) {
		r = w.error ? w.error : -EIO;
		if (!w.error)
			strbuf_addf(err, "export: walking the tree of %s failed", commit_hex);
		goto out_remove;
	}
	/* An empty @dir gives way to the complete tree; a new one appears whole. */
	if ((exists && rmdir(dir) < 0) || rename(partial, dir) < 0) {
		r = -errno;
		strbuf_addf(err, "export: cannot move %s to %s: %s", partial, dir, strerror(errno));
		goto out_remove;
	}
	*ret_files = w.files;
	r = 0;
	goto out_free_partial;
out_remove:
	{
		/* nothing half-done is left behind */
		const char *const argv[] = { "rm", "-rf", "--", partial, NULL };
		struct child rm = { .argv = argv, .timeout_sec = 300 };
		struct child_result res;

		if (child_run(&rm, &res) < 0 || !child_ok(&res))
			strbuf_addf(err, " (and %s could not be removed)", partial);
	}
out_free_partial:
	free(partial);
out:
	git_tree_free(tree);
	git_commit_free(commit);
	git_repository_free(w.repo);
	return r;
}
