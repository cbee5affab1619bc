// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "kernel/build.h"
#include "kernel/slots.h"

#define COST_EMPTY SLOTS_COST_ALL	/* an empty slot: everything is compiled */
#define SLOT_CMD_TIMEOUT 600

static unsigned env_unsigned(const char *name, unsigned fallback, unsigned lo, unsigned hi)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return fallback;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return fallback;
	return (unsigned)n;
}

static char *slot_path(const struct kernel_env *env, size_t k)
{
	return k == 0 ? xasprintf("%s/build", env->dir) : xasprintf("%s/build-%zu", env->dir, k);
}

static int run_tool(const char *const *argv, const char *what, const char *path,
		    struct strbuf *err)
{
	struct child c = { .argv = argv, .timeout_sec = SLOT_CMD_TIMEOUT };
	struct child_result res;
	int r = child_run(&c, &res);

	if (r < 0 || !child_ok(&res)) {
		strbuf_addf(err, "build slots: %s %s: ", what, path);
		if (r < 0)
			strbuf_addf(err, "%s", strerror(-r));
		else
			child_describe(&c, &res, err);
		return -EIO;
	}
	return 0;
}

/* Remove everything in the slot: its objects can no longer be trusted. */
static int slot_empty(struct build_slot *slot, struct strbuf *err)
{
	const char *argv[] = { "find", slot->path, "-mindepth", "1", "-delete", NULL };

	slot->n_trees = 0;
	slot->dirty = false;
	return run_tool(argv, "emptying", slot->path, err);
}

static bool dir_has_files(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool any = false;

	while (d && !any && (de = readdir(d)))
		any = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return any;
}

/* Parse the stamp: true when every line is a tree the repository has. */
static bool read_stamp(struct build_slots *s, struct build_slot *slot)
{
	char *path = xasprintf("%s/%s", slot->path, SLOT_STAMP);
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	bool ok = false;

	slot->n_trees = 0;
	slot->dirty = false;
	strbuf_init(&text, 4096);
	if (strbuf_read_file(&text, path) < 0 || stat(path, &st) < 0)
		goto out;
	slot->used = st.st_mtime;
	ok = true;
	for (char *line = text.buf, *next; ok && line && *line; line = next) {
		git_tree *t = NULL;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strcmp(line, "-"))
			slot->dirty = true;
		else if (slot->dirty || slot->n_trees == SLOT_TREES_MAX || strlen(line) != GIT_OID_HEXSZ ||
		    git_oid_fromstr(&slot->trees[slot->n_trees], line) < 0 ||
		    git_tree_lookup(&t, s->tree->repo, &slot->trees[slot->n_trees]) < 0)
			ok = false;
		else
			slot->n_trees++;
		git_tree_free(t);
	}
	ok = ok && slot->n_trees > 0;
out:
	if (!ok)
		slot->n_trees = 0;
	strbuf_release(&text);
	free(path);
	return ok;
}

/* Write the slot's trees as its stamp (atomically); the stamp's mtime marks it used. */
static int write_stamp(struct build_slot *slot, struct strbuf *err)
{
	char *path = xasprintf("%s/%s", slot->path, SLOT_STAMP);
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "we");
	int r = 0;

	for (size_t i = 0; f && i < slot->n_trees; i++) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &slot->trees[i]);
		fprintf(f, "%s\n", hex);
	}
	if (f && slot->dirty)
		fprintf(f, "-\n");
	if (!f || fclose(f) != 0 || rename(tmp, path) < 0) {
		strbuf_addf(err, "build slots: cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		r = -EIO;
	}
	slot->used = time(NULL);
	free(path);
	free(tmp);
	return r;
}

/*
 * A swap cut short (swap_in()) leaves <build>.swap: it goes back to
 * env->build if that is missing, else to a free slot name, else away.
 */
static int recover_swap(struct kernel_env *env, struct strbuf *err)
{
	char *swap = xasprintf("%s.swap", env->build);
	struct stat st;
	int r = 0;

	if (stat(swap, &st) < 0)
		goto out;
	if (stat(env->build, &st) < 0) {
		if (rename(swap, env->build) < 0)
			r = -errno;
		goto out;
	}
	for (size_t k = 1; k < SLOTS_MAX; k++) {
		char *path = slot_path(env, k);
		bool moved = stat(path, &st) < 0 && rename(swap, path) == 0;

		free(path);
		if (moved)
			goto out;
	}
	{
		const char *argv[] = { "rm", "-rf", swap, NULL };

		r = run_tool(argv, "removing", swap, err);
	}
out:
	if (r < 0 && !err->len)
		strbuf_addf(err, "build slots: cannot move %s back: %s", swap, strerror(-r));
	free(swap);
	return r;
}

/* Where slots_prepare() keeps the source tree's times for the next process. */
static char *src_times_path(const struct build_slots *s)
{
	return xasprintf("%s/%s", s->env->dir, SLOT_SRC_TIMES);
}

/* git's index file of the source tree: every checkout writes it anew. */
static int index_stat(const struct build_slots *s, struct stat *st)
{
	char *path = xasprintf("%sindex", git_repository_path(s->tree->repo));
	int r = stat(path, st) < 0 ? -errno : 0;

	free(path);
	return r;
}

/* true when HEAD of the source tree is a commit of tree @want */
static bool head_is(const struct build_slots *s, const git_oid *want)
{
	git_reference *head = NULL;
	git_object *tree = NULL;
	bool same = git_repository_head(&head, s->tree->repo) == 0 &&
		    git_reference_peel(&tree, head, GIT_OBJECT_TREE) == 0 &&
		    git_oid_equal(git_object_id(tree), want);

	git_object_free(tree);
	git_reference_free(head);
	return same;
}

/*
 * Believe SLOT_SRC_TIMES when it describes the tree as it is: HEAD is its
 * tree and git's index is the very file it names (inode, size, mtime).
 * Anything else that changed the tree wrote the index again.
 */
static void src_times_read(struct build_slots *s)
{
	char *path = src_times_path(s);
	struct strbuf text = STRBUF_INIT;
	unsigned long long ino, size;
	long long sec, nsec;
	char hex[GIT_OID_HEXSZ + 1];
	char *line, *rest;
	struct stat st;
	git_oid head;

	if (strbuf_read_file(&text, path) < 0)
		goto out;
	line = text.buf;
	rest = strchr(line, '\n');
	if (!rest || sscanf(line, "tree %40s", hex) != 1 || git_oid_fromstr(&head, hex) < 0)
		goto out;
	line = rest + 1;
	rest = strchr(line, '\n');
	if (!rest || sscanf(line, "index %llu %llu %lld %lld", &ino, &size, &sec, &nsec) != 4)
		goto out;
	if (index_stat(s, &st) < 0 || st.st_ino != ino || (unsigned long long)st.st_size != size ||
	    st.st_mtim.tv_sec != sec || st.st_mtim.tv_nsec != nsec || !head_is(s, &head))
		goto out;
	strlist_split_lines(&s->fresh, rest + 1);
	git_oid_cpy(&s->head, &head);
	s->known = true;
out:
	strbuf_release(&text);
	free(path);
}

/* Forget the kept times, before the tree changes: -errno when they stay. */
static int src_times_forget(struct build_slots *s, struct strbuf *err)
{
	char *path = src_times_path(s);
	int r = 0;

	if (unlink(path) < 0 && errno != ENOENT) {
		strbuf_addf(err, "build slots: cannot remove %s: %s", path, strerror(errno));
		r = -errno;
	}
	free(path);
	return r;
}

/*
 * Keep s->head, s->fresh and the index's identity for the next process
 * (atomically). Not keeping them only costs that process a walk.
 */
static void src_times_write(struct build_slots *s)
{
	char *path = src_times_path(s);
	char *tmp = xasprintf("%s.tmp", path);
	struct strbuf text = STRBUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	struct stat st;

	for (size_t i = 0; i < s->fresh.n; i++)
		if (strchr(s->fresh.items[i], '\n'))
			goto out;	/* one path per line cannot say it */
	if (index_stat(s, &st) < 0)
		goto out;
	git_oid_tostr(hex, sizeof(hex), &s->head);
	strbuf_addf(&text, "tree %s\nindex %llu %llu %lld %lld\n", hex,
		    (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec);
	for (size_t i = 0; i < s->fresh.n; i++)
		strbuf_addf(&text, "%s\n", s->fresh.items[i]);
	if (strbuf_write_file(&text, tmp) < 0 || rename(tmp, path) < 0) {
		fprintf(stderr, "# build slots: cannot keep the source times in %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
	}
out:
	strbuf_release(&text);
	free(tmp);
	free(path);
}

int slots_open(struct build_slots *s, struct kernel_env *env, struct kernel_tree *tree,
	       struct strbuf *err)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->env = env;
	s->tree = tree;
	s->current = -1;
	s->max = env_unsigned("BG_BUILD_SLOTS", 3, 1, SLOTS_MAX);
	s->copy_objects = env_unsigned("BG_SLOT_COPY_OBJECTS", 100, 1, UINT_MAX - 1);
	r = recover_swap(env, err);
	if (r < 0)
		return r;
	for (size_t k = 0; k < s->max; k++) {
		struct build_slot *slot = &s->slot[s->n];
		struct stat st;

		slot->path = slot_path(env, k);
		if (stat(slot->path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			if (k == 0) {
				strbuf_addf(err, "build slots: %s is not a directory", slot->path);
				free(slot->path);
				slot->path = NULL;
				return -ENOENT;
			}
			free(slot->path);
			slot->path = NULL;
			continue;
		}
		s->n++;
		if (!read_stamp(s, slot) && dir_has_files(slot->path)) {
			fprintf(stderr, "# build slot %s has no valid %s: emptying it\n", slot->path,
				SLOT_STAMP);
			r = slot_empty(slot, err);
			if (r < 0)
				return r;
		}
	}
	src_times_read(s);
	return 0;
}

void slots_close(struct build_slots *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->slot[i].path);
	for (size_t i = 0; i < s->n_weights; i++)
		free(s->weight_paths[i]);
	free(s->weight_paths);
	free(s->weights);
	strlist_release(&s->fresh);
	strlist_release(&s->changed);
	memset(s, 0, sizeof(*s));
	s->current = -1;
}

/* The slot at env->build (the directory every build uses). */
static size_t active(const struct build_slots *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->slot[i].path, s->env->build) == 0)
			return i;
	return 0;	/* slots_open() makes sure there is one */
}

/*
 * Move slot @i to env->build, parking the one there in @i's directory.
 * Builds always run in env->build, so the absolute paths a build records
 * (objtool's dependency files have them) stay true for every slot.
 */
static int swap_in(struct build_slots *s, size_t i, struct strbuf *err)
{
	size_t a = active(s);
	char *swap, *tmp;
	int r = 0;

	s->current = (int)i;
	if (a == i)
		return 0;
	swap = xasprintf("%s.swap", s->env->build);
	if (rename(s->slot[i].path, swap) < 0 || rename(s->env->build, s->slot[i].path) < 0 ||
	    rename(swap, s->env->build) < 0) {
		strbuf_addf(err, "build slots: cannot swap %s into %s: %s", s->slot[i].path,
			    s->env->build, strerror(errno));
		r = -errno;
	} else {
		tmp = s->slot[i].path;
		s->slot[i].path = s->slot[a].path;
		s->slot[a].path = tmp;
	}
	free(swap);
	return r;
}

/* The slot was configured from the current fragment (kernel_build()'s stamp). */
static bool config_current(const struct build_slots *s, const struct build_slot *slot)
{
	char *path = xasprintf("%s/.bg-config", slot->path);
	struct strbuf stamp = STRBUF_INIT;
	bool same;

	strbuf_read_file(&stamp, path);
	strbuf_rtrim(&stamp);
	same = strcmp(stamp.buf, s->env->config_stamp) == 0;
	strbuf_release(&stamp);
	free(path);
	return same;
}

bool slots_select_built(struct build_slots *s, const git_oid *tree_id)
{
	for (size_t i = 0; i < s->n; i++) {
		struct build_slot *slot = &s->slot[i];
		struct strbuf err = STRBUF_INIT;

		if (slot->dirty || slot->n_trees != 1 || !git_oid_equal(&slot->trees[0], tree_id) ||
		    !config_current(s, slot))
			continue;
		if (swap_in(s, i, &err) < 0) {
			/* the tree is simply built again, in whatever is at env->build */
			fprintf(stderr, "# %s\n", err.buf);
			strbuf_release(&err);
			return false;
		}
		slot = &s->slot[active(s)];
		/* mark it used; a failure only weakens eviction order */
		write_stamp(slot, &err);
		strbuf_release(&err);
		return true;
	}
	return false;
}

static int weight_cmp(const void *key, const void *elem)
{
	return strcmp(key, *(char *const *)elem);
}

/* Objects a change to @path recompiles, roughly. */
static unsigned weight(const struct build_slots *s, const char *path)
{
	char **hit = s->n_weights ? bsearch(path, s->weight_paths, s->n_weights,
					    sizeof(*s->weight_paths), weight_cmp) : NULL;

	if (hit)
		return s->weights[hit - s->weight_paths];
	/* build rules reach everything the directory builds */
	return kernel_path_is_rule(path) ? 1 : 0;
}

/* The files differing between @tree_id and any tree of @slot, in @out. */
static int slot_diff(struct build_slots *s, const struct build_slot *slot, const git_oid *tree_id,
		     struct strlist *out, struct strbuf *err)
{
	for (size_t t = 0; t < slot->n_trees; t++) {
		int r = tree_diff_paths(s->tree, &slot->trees[t], tree_id, out, err);

		if (r < 0)
			return r;
	}
	strlist_sort_unique(out);
	return 0;
}

static unsigned diff_cost(const struct build_slots *s, const struct strlist *diff)
{
	unsigned long long cost = 0;

	for (size_t i = 0; i < diff->n; i++)
		cost += weight(s, diff->items[i]);
	return cost >= COST_EMPTY ? COST_EMPTY - 1 : (unsigned)cost;
}

static void read_weights(struct build_slots *s, const struct build_slot *from)
{
	s->weights_read = true;
	if (kernel_used_counts(s->env, from->path, &s->weight_paths, &s->weights,
			       &s->n_weights) < 0) {
		s->weight_paths = NULL;
		s->weights = NULL;
		s->n_weights = 0;
	}
}

/* Copy slot @from into @to (emptied first), objects and timestamps alike. */
static int slot_copy(struct build_slots *s, struct build_slot *from, struct build_slot *to,
		     struct strbuf *err)
{
	char *src = xasprintf("%s/.", from->path);
	const char *argv[] = { "cp", "-a", src, to->path, NULL };
	int r = 0;

	if (to->n_trees || dir_has_files(to->path))
		r = slot_empty(to, err);
	if (r == 0)
		r = run_tool(argv, "copying into", to->path, err);
	free(src);
	if (r < 0)
		return r;
	memcpy(to->trees, from->trees, sizeof(to->trees));
	to->n_trees = from->n_trees;
	to->dirty = from->dirty;
	s->copies++;
	return 0;
}

/* A slot to copy into: a new directory while there is room, else the least recently used. */
static int copy_target(struct build_slots *s, size_t best, size_t *ret, struct strbuf *err)
{
	size_t lru = best;

	if (s->n < s->max) {
		struct build_slot *slot = &s->slot[s->n];

		/* the first free build-<k> name */
		for (size_t k = 1; k < SLOTS_MAX; k++) {
			bool taken = false;

			free(slot->path);
			slot->path = slot_path(s->env, k);
			for (size_t i = 0; i < s->n; i++)
				taken = taken || strcmp(s->slot[i].path, slot->path) == 0;
			if (!taken)
				break;
		}
		if (mkdir(slot->path, 0755) < 0 && errno != EEXIST) {
			strbuf_addf(err, "build slots: cannot create %s: %s", slot->path,
				    strerror(errno));
			return -errno;
		}
		slot->n_trees = 0;
		*ret = s->n++;
		return 0;
	}
	for (size_t i = 0; i < s->n; i++)
		if (i != best && (lru == best || s->slot[i].used < s->slot[lru].used))
			lru = i;
	*ret = lru;
	return 0;
}

/*
 * Every regular file under @dirfd: mtime SLOT_OLD_MTIME unless it already
 * is. The paths changed, and those whose times the index does not know
 * yet, are added to @changed.
 */
static int age_tree(git_index *index, int dirfd, const char *rel, struct strlist *changed,
		    struct strbuf *err)
{
	const struct timespec old[2] = { { SLOT_OLD_MTIME, 0 }, { SLOT_OLD_MTIME, 0 } };
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		strbuf_addf(err, "build slots: cannot read %s: %s", rel, strerror(errno));
		close(dirfd);
		return -errno;
	}
	while (r == 0 && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!*rel && !strcmp(de->d_name, ".git")))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* gone meanwhile: nothing to age */
		if (S_ISDIR(st.st_mode)) {
			int fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			char *child = xasprintf("%s%s%s", rel, *rel ? "/" : "", de->d_name);

			if (fd < 0) {
				strbuf_addf(err, "build slots: cannot open %s: %s", child,
					    strerror(errno));
				r = -errno;
			} else {
				r = age_tree(index, fd, child, changed, err);
			}
			free(child);
		} else if (S_ISREG(st.st_mode)) {
			char *child = xasprintf("%s%s%s", rel, *rel ? "/" : "", de->d_name);

			if (st.st_mtim.tv_sec != SLOT_OLD_MTIME || st.st_mtim.tv_nsec != 0) {
				if (utimensat(dirfd, de->d_name, old, 0) < 0) {
					strbuf_addf(err, "build slots: cannot set the time of %s: %s",
						    child, strerror(errno));
					r = -errno;
				}
				strlist_append(changed, child);
			} else if (tree_index_stale(index, child, &st)) {
				strlist_append(changed, child);
			}
			free(child);
		}
	}
	closedir(d);
	return r;
}

/* Set @paths (those that exist) to SLOT_OLD_MTIME and add them to @changed. */
static int age_paths(const char *src, const struct strlist *paths, struct strlist *changed,
		     struct strbuf *err)
{
	const struct timespec old[2] = { { SLOT_OLD_MTIME, 0 }, { SLOT_OLD_MTIME, 0 } };

	for (size_t i = 0; i < paths->n; i++) {
		char *path = xasprintf("%s/%s", src, paths->items[i]);
		int r = utimensat(AT_FDCWD, path, old, AT_SYMLINK_NOFOLLOW);

		if (r < 0 && errno != ENOENT) {
			strbuf_addf(err, "build slots: cannot set the time of %s: %s", path,
				    strerror(errno));
			r = -errno;
			free(path);
			return r;
		}
		free(path);
		strlist_append(changed, paths->items[i]);
	}
	return 0;
}

/*
 * The timestamps that make a slot's objects exact for what is checked out:
 * the files in @diff new, every other file old. Their content is what the
 * checkout wrote, so git's index gets their new times too: otherwise the
 * next checkout reads every one of them again to learn it is unchanged.
 * With @moved (the paths the checkout looked at, s->known being true) only
 * those and s->fresh can be other than old; else every file is visited.
 */
static int set_times(struct build_slots *s, const struct strlist *diff,
		     const struct strlist *moved, struct strbuf *err)
{
	const char *src = s->env->src;
	struct strlist changed = { 0 };
	int r;

	if (moved) {
		r = age_paths(src, &s->fresh, &changed, err);
		if (r == 0)
			r = age_paths(src, moved, &changed, err);
	} else {
		git_index *index = NULL;
		int fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0) {
			strbuf_addf(err, "build slots: cannot open %s: %s", src, strerror(errno));
			return -errno;
		}
		if (git_repository_index(&index, s->tree->repo) < 0) {
			strbuf_addf(err, "build slots: cannot read the index of %s", src);
			close(fd);
			return -EIO;
		}
		r = age_tree(index, fd, "", &changed, err);
		git_index_free(index);
	}
	for (size_t i = 0; r == 0 && i < diff->n; i++) {
		char *path = xasprintf("%s/%s", src, diff->items[i]);

		/* a file the tree no longer has is simply missing: make sees that */
		if (utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW) < 0 && errno != ENOENT) {
			strbuf_addf(err, "build slots: cannot set the time of %s: %s", path,
				    strerror(errno));
			r = -errno;
		}
		strlist_append(&changed, diff->items[i]);
		free(path);
	}
	if (r == 0) {
		strlist_sort_unique(&changed);
		r = tree_index_restat(s->tree, &changed, err);
	}
	strlist_release(&changed);
	return r;
}

/*
 * The slot closest to @tree_id: *ret_best, the objects it would recompile
 * (COST_EMPTY: every slot is empty) and, unless @best_diff is NULL, the
 * files that differ from it.
 */
static int closest_slot(struct build_slots *s, const git_oid *tree_id, size_t *ret_best,
			unsigned *ret_cost, struct strlist *best_diff, struct strbuf *err)
{
	struct strlist diff = { 0 };
	int r = 0;

	*ret_best = 0;
	*ret_cost = COST_EMPTY;
	for (size_t i = 0; i < s->n; i++) {
		const struct build_slot *slot = &s->slot[i];
		unsigned cost = COST_EMPTY;

		if (slot->n_trees) {
			if (!s->weights_read)
				read_weights(s, slot);
			strlist_release(&diff);
			r = slot_diff(s, slot, tree_id, &diff, err);
			if (r < 0)
				break;
			cost = diff_cost(s, &diff);
		}
		if (i == 0 || cost < *ret_cost ||
		    (cost == *ret_cost && slot->used > s->slot[*ret_best].used)) {
			*ret_best = i;
			*ret_cost = cost;
			if (best_diff) {
				strlist_release(best_diff);
				*best_diff = diff;
				memset(&diff, 0, sizeof(diff));
			}
		}
	}
	strlist_release(&diff);
	return r;
}

int slots_cost(struct build_slots *s, const git_oid *tree_id, unsigned *ret_objects,
	       struct strbuf *err)
{
	size_t best;
	unsigned cost;
	int r;

	for (size_t i = 0; i < s->n; i++) {
		const struct build_slot *slot = &s->slot[i];

		if (slot->n_trees == 1 && !slot->dirty && git_oid_equal(&slot->trees[0], tree_id) &&
		    config_current(s, slot)) {
			*ret_objects = 0;
			return 0;
		}
	}
	r = closest_slot(s, tree_id, &best, &cost, NULL, err);
	if (r < 0)
		return r;
	*ret_objects = cost;
	return 0;
}

int slots_prepare(struct build_slots *s, const git_oid *commit, const git_oid *tree_id,
		  struct strbuf *err)
{
	struct strlist best_diff = { 0 }, moved = { 0 };
	unsigned best_cost;
	bool was_known;
	size_t best;
	struct build_slot *slot;
	int r;

	r = closest_slot(s, tree_id, &best, &best_cost, &best_diff, err);
	if (r < 0)
		goto out;
	if (best_cost != COST_EMPTY && best_cost >= s->copy_objects && s->max > 1) {
		size_t park = best;

		/* best stays as it is in a copy; the tree is built over the original */
		r = copy_target(s, best, &park, err);
		if (r == 0)
			r = swap_in(s, best, err);
		if (r == 0) {
			fprintf(stderr, "# build slot: about %u objects to recompile; keeping a copy "
				"of %s's objects in %s\n", best_cost, s->env->build,
				s->slot[park].path);
			r = slot_copy(s, &s->slot[best], &s->slot[park], err);
		}
	} else {
		r = swap_in(s, best, err);
	}
	if (r < 0)
		goto out;
	slot = &s->slot[best];
	strlist_release(&s->changed);
	s->changed_known = slot->n_trees == 1 && !slot->dirty && config_current(s, slot);
	if (s->changed_known) {
		strlist_extend(&s->changed, &best_diff);
		strlist_sort_unique(&s->changed);
	}
	if (s->known) {
		r = tree_diff_paths(s->tree, &s->head, tree_id, &moved, err);
		if (r < 0)
			goto out;
	}
	/* known again only once the checkout and the times are done */
	was_known = s->known;
	s->known = false;
	r = src_times_forget(s, err);
	if (r < 0)
		goto out;
	if (!was_known)
		fprintf(stderr, "# build slots: no record of the times in %s: setting every file's\n",
			s->env->src);
	r = tree_checkout(s->tree, commit, was_known ? &moved : NULL, err);
	if (r < 0)
		goto out;
	/*
	 * An empty slot builds every file whatever the times; they are set
	 * all the same, for the slots after it (the walk is nothing beside
	 * a whole build).
	 */
	r = set_times(s, &best_diff, was_known ? &moved : NULL, err);
	if (r < 0)
		goto out;
	strlist_release(&s->fresh);
	strlist_extend(&s->fresh, &best_diff);
	s->known = true;
	git_oid_cpy(&s->head, tree_id);
	src_times_write(s);
	/* stamp it dirty first: a build that never finishes leaves a mixture */
	if (slot->n_trees == SLOT_TREES_MAX) {
		r = slot_empty(slot, err);
		if (r < 0)
			goto out;
	}
	{
		bool have = false;

		for (size_t t = 0; t < slot->n_trees; t++)
			have = have || git_oid_equal(&slot->trees[t], tree_id);
		if (!have)
			git_oid_cpy(&slot->trees[slot->n_trees++], tree_id);
	}
	slot->dirty = true;
	r = write_stamp(slot, err);
	if (r < 0)
		goto out;
	git_oid_cpy(&s->building, tree_id);
out:
	strlist_release(&best_diff);
	strlist_release(&moved);
	return r;
}

int slots_finish(struct build_slots *s, bool ok, struct strbuf *err)
{
	struct build_slot *slot;

	if (s->current < 0)
		return 0;
	slot = &s->slot[s->current];
	if (!ok)
		return 0;	/* the dirty stamp stays: the objects are a mixture */
	git_oid_cpy(&slot->trees[0], &s->building);
	slot->n_trees = 1;
	slot->dirty = false;
	return write_stamp(slot, err);
}
