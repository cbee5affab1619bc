// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/hash.h"
#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "kernel/build.h"
#include "kernel/compile_check.h"

#define DRY_RUN_TIMEOUT 900
#define PREPARE_TIMEOUT 900
#define MAX_LEVELS 6

/* Debian's linux-config-X.Y names, and the file each one is. */
static const struct {
	const char *name, *file;
} debian_configs[] = {
	{ "amd64", "config.amd64_none_amd64.xz" },
	{ "cloud-amd64", "config.amd64_none_cloud-amd64.xz" },
	{ "rt-amd64", "config.amd64_rt_amd64.xz" },
};

/* #include edges of the base tree: who includes what, sorted by what. */
struct include_edge {
	char *from, *to;
};

struct include_index {
	struct include_edge *edges;
	size_t n, alloc;
	struct strlist known;	/* sorted: every file scanned */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool sorted_has(const struct strlist *l, const char *s)
{
	return l->n && bsearch(&s, l->items, l->n, sizeof(*l->items), cmp_str) != NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Fold "dir/../" and "./" out of the relative @path, in place. */
static void fold_path(char *path)
{
	char *out = path, *in = path;

	while (*in) {
		if (strncmp(in, "./", 2) == 0 && (in == path || in[-1] == '/')) {
			in += 2;
		} else if (strncmp(in, "../", 3) == 0 && (in == path || in[-1] == '/') &&
			   out > path) {
			out--;
			while (out > path && out[-1] != '/')
				out--;
			in += 3;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
}

/*
 * The make target of object @o under @c: @o itself, or the name kbuild
 * gives it when its Makefile reaches it through ".." (arch/x86/kvm builds
 * virt/kvm's objects as arch/x86/kvm/../../../virt/kvm/x.o).
 */
static const char *object_target(const struct cc_config *c, const char *o)
{
	size_t n = strlen(o);

	for (size_t i = 0; i < c->aliases.n; i++)
		if (strncmp(c->aliases.items[i], o, n) == 0 && c->aliases.items[i][n] == ' ')
			return c->aliases.items[i] + n + 1;
	return o;
}

void cc_plan_release(struct cc_plan *plan)
{
	for (size_t i = 0; i < COMPILE_CHECK_CONFIGS_MAX; i++) {
		strlist_release(&plan->objects[i]);
		strlist_release(&plan->added[i]);
	}
	strlist_release(&plan->skipped);
	memset(plan, 0, sizeof(*plan));
}

/* "6.1": the tree is a linux-source-X.Y, which has a linux-config-X.Y */
static bool package_version(const char *version)
{
	return version[0] && strspn(version, "0123456789.") == strlen(version);
}

int compile_check_resolve(const char *version, const char *spec, char **ret_path,
			  char **ret_name, struct strbuf *err)
{
	char *dir = xasprintf("/usr/src/linux-config-%s", version);
	const char *file = NULL;
	int r = 0;

	*ret_path = *ret_name = NULL;
	if (strchr(spec, '/')) {
		const char *base = strrchr(spec, '/') + 1;

		if (access(spec, R_OK) < 0) {
			strbuf_addf(err, "config-check: cannot read %s: %s", spec, strerror(errno));
			r = -ENOENT;
		} else if (!*base) {
			strbuf_addf(err, "config-check: %s is a folder, not a config file", spec);
			r = -ENOENT;
		} else {
			*ret_path = xstrdup(spec);
			*ret_name = ends_with(base, ".xz") ? xstrndup(base, strlen(base) - 3)
							   : xstrdup(base);
		}
		goto out;
	}
	for (size_t i = 0; i < sizeof(debian_configs) / sizeof(debian_configs[0]); i++)
		if (strcmp(spec, debian_configs[i].name) == 0)
			file = debian_configs[i].file;
	if (!file) {
		strbuf_addf(err, "config-check: unknown configuration '%s': a file path, none, "
			    "or one of Debian's: amd64, cloud-amd64, rt-amd64", spec);
		r = -ENOENT;
		goto out;
	}
	if (!package_version(version)) {
		strbuf_addf(err, "config-check: '%s' names a config of Debian's linux-config-X.Y, "
			    "and tree %s is no linux-source-X.Y; give the config file's path", spec,
			    version);
		r = -ENOENT;
		goto out;
	}
	*ret_path = xasprintf("%s/%s", dir, file);
	if (access(*ret_path, R_OK) < 0) {
		strbuf_addf(err, "config-check: %s: %s; it comes with package linux-config-%s "
			    "(apt-get install linux-config-%s)", *ret_path, strerror(errno),
			    version, version);
		free(*ret_path);
		*ret_path = NULL;
		r = -ENOENT;
		goto out;
	}
	*ret_name = xstrdup(spec);
out:
	free(dir);
	return r;
}

int compile_check_resolve_all(const char *version, char *const *specs, size_t n, char **paths,
			      char **names, size_t *ret_n, struct strbuf *err)
{
	int r = 0;

	*ret_n = 0;
	for (size_t i = 0; i < n && i < COMPILE_CHECK_CONFIGS_MAX && r == 0; i++) {
		r = compile_check_resolve(version, specs[i], &paths[i], &names[i], err);
		*ret_n += r == 0;
	}
	return r;
}

void compile_check_default(const char *version, char **paths, char **names, size_t *ret_n,
			   struct strbuf *notice)
{
	struct strbuf why = STRBUF_INIT;

	*ret_n = 0;
	if (!package_version(version))
		strbuf_addf(notice, "compile check off: tree %s is no linux-source-X.Y, so it has "
			    "no linux-config package; name a config file with --config-check PATH",
			    version);
	else if (compile_check_resolve(version, "amd64", &paths[0], &names[0], &why) == 0)
		*ret_n = 1;
	else	/* the file and the package to install */
		strbuf_addf(notice, "compile check off: %s", why.buf + strlen("config-check: "));
	strbuf_release(&why);
}

int compile_check_open(struct compile_check *cc, struct kernel_env *env,
		       struct kernel_tree *base, char *const *paths, char *const *names,
		       size_t n, struct strbuf *err)
{
	memset(cc, 0, sizeof(*cc));
	cc->env = env;
	cc->base = base;
	cc->lock_epoch = env->lock_epoch;
	cc->max_objects = COMPILE_CHECK_MAX_OBJECTS;
	if (n > COMPILE_CHECK_CONFIGS_MAX) {
		strbuf_addf(err, "config-check: %zu configurations; at most %d", n,
			    COMPILE_CHECK_CONFIGS_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		struct cc_config *c = &cc->configs[i];

		for (size_t j = 0; j < i; j++)
			if (strcmp(cc->configs[j].name, names[i]) == 0) {
				strbuf_addf(err, "config-check: '%s' named twice", names[i]);
				compile_check_close(cc);
				return -EINVAL;
			}
		c->name = xstrdup(names[i]);
		c->path = xstrdup(paths[i]);
		c->dir = xasprintf("%s/cc/%s", env->dir, names[i]);
		cc->n++;
		if (sha256_file_hex(paths[i], c->stamp) < 0) {
			strbuf_addf(err, "config-check: cannot read %s", paths[i]);
			compile_check_close(cc);
			return -EIO;
		}
	}
	return 0;
}

static void include_index_free(struct include_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->n; i++) {
		free(ix->edges[i].from);
		free(ix->edges[i].to);
	}
	free(ix->edges);
	strlist_release(&ix->known);
	free(ix);
}

void compile_check_close(struct compile_check *cc)
{
	for (size_t i = 0; i < cc->n; i++) {
		free(cc->configs[i].name);
		free(cc->configs[i].path);
		free(cc->configs[i].dir);
		strlist_release(&cc->configs[i].objects);
		strlist_release(&cc->configs[i].aliases);
		strlist_release(&cc->configs[i].base_failing);
	}
	if (cc->src_open)
		tree_close(&cc->src);
	include_index_free(cc->includes);
	memset(cc, 0, sizeof(*cc));
}

static int run_tool(const char *const *argv, const char *log, int timeout, const char *what,
		    struct strbuf *err)
{
	struct child c = { .argv = argv, .output_path = log, .timeout_sec = timeout };
	struct child_result res;
	int r = child_run(&c, &res);

	if (r == 0 && !child_ok(&res)) {
		strbuf_addf(err, "config-check: %s failed: ", what);
		child_describe(&c, &res, err);
		r = -EIO;
	} else if (r < 0) {
		strbuf_addf(err, "config-check: %s: cannot start %s: %s", what, argv[0],
			    strerror(-r));
	}
	return r;
}

/*
 * The cache lock was given up and taken back since this struct last
 * looked (source/workspace.h): another run may have checked another tree out into
 * cc/src or prepared a directory for another config of the same name.
 */
static void look_again(struct compile_check *cc)
{
	if (cc->lock_epoch == cc->env->lock_epoch)
		return;
	cc->lock_epoch = cc->env->lock_epoch;
	cc->head_known = false;
	for (size_t i = 0; i < cc->n; i++) {
		struct cc_config *c = &cc->configs[i];

		/* read again from its stamp and list, or prepared again */
		c->ready = false;
		strlist_release(&c->objects);
		strlist_release(&c->aliases);
	}
}

/* Check @commit out into cc/src: the whole tree the first time, then what differs. */
static int checkout(struct compile_check *cc, const git_oid *commit, struct strbuf *err)
{
	struct strlist only = STRLIST_INIT;
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
	git_oid ta, tb;
	int r;

	if (!cc->src_open) {
		char *dir = xasprintf("%s/cc/src", cc->env->dir);
		char *parent = xasprintf("%s/cc", cc->env->dir);

		mkdir(parent, 0755);
		r = tree_open_shared(&cc->src, cc->base, dir, err);
		free(dir);
		free(parent);
		if (r < 0)
			return r;
		cc->src_open = true;
	}
	if (cc->head_known && git_oid_equal(&cc->head, commit))
		return 0;
	if (cc->head_known) {
		r = tree_id_hex(&cc->src, &cc->head, a);
		if (r == 0)
			r = tree_id_hex(&cc->src, commit, b);
		if (r == 0 && (git_oid_fromstr(&ta, a) < 0 || git_oid_fromstr(&tb, b) < 0))
			r = -EIO;
		if (r == 0)
			r = tree_diff_paths(&cc->src, &ta, &tb, &only, err);
		if (r < 0) {
			strlist_release(&only);
			return r;
		}
	} else {
		fprintf(stderr, "# compile check: checking the tree out into %s\n",
			cc->src.workdir);
	}
	r = tree_checkout(&cc->src, commit, cc->head_known ? &only : NULL, err);
	strlist_release(&only);
	if (r < 0)
		return r;
	cc->head = *commit;
	cc->head_known = true;
	return 0;
}

/*
 * " -o path.o " in the dry run's commands (@log, about 180 MB for Debian's
 * amd64 config, read a line at a time): the objects the config builds.
 */
static int read_objects(const char *log, struct strlist *out, struct strlist *aliases)
{
	FILE *f = fopen(log, "re");
	size_t cap = 0;
	char *line = NULL;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		for (const char *p = line; (p = strstr(p, " -o ")); ) {
			const char *start = p + 4, *end = start;

			while (*end && *end != ' ' && *end != '\n' && *end != ';')
				end++;
			if (end - start > 2 && end[-2] == '.' && end[-1] == 'o' && *start != '/' &&
			    *start != '$') {
				char *target = xstrndup(start, (size_t)(end - start));
				char *folded = xstrdup(target);

				fold_path(folded);
				strlist_append(out, folded);
				if (strcmp(folded, target) != 0) {
					char *alias = xasprintf("%s %s", folded, target);

					strlist_append(aliases, alias);
					free(alias);
				}
				free(folded);
				free(target);
			}
			p = end;
		}
	}
	free(line);
	fclose(f);
	strlist_sort_unique(out);
	strlist_sort_unique(aliases);
	return 0;
}

/* Make config @c's build directory ready for base (see the header). */
static int prepare_config(struct compile_check *cc, struct cc_config *c, struct strbuf *err)
{
	char *stamp_path = xasprintf("%s/.bg-cc", c->dir);
	char *objects_path = xasprintf("%s/objects", c->dir);
	char *config = xasprintf("%s/.config", c->dir);
	char *log = xasprintf("%s/cc-%s.log", cc->env->work, c->name);
	char *dry_log = xasprintf("%s/cc-%s-dry.log", cc->env->work, c->name);
	char base_tree[GIT_OID_HEXSZ + 1];
	struct strbuf want = STRBUF_INIT, have = STRBUF_INIT, text = STRBUF_INIT;
	struct child_result res;
	double start = now_seconds();
	int r;

	r = tree_id_hex(cc->base, &cc->base->base, base_tree);
	if (r < 0) {
		strbuf_addf(err, "config-check: cannot read the base tree");
		goto out;
	}
	/* "objects 2": the list folds ".." paths (object_target()) */
	strbuf_addf(&want, "objects 2\nconfig %s\nbase %s\n", c->stamp, base_tree);
	strbuf_read_file(&have, stamp_path);
	if (strcmp(want.buf, have.buf) == 0 && strbuf_read_file(&text, objects_path) == 0) {
		struct strlist lines = STRLIST_INIT;

		/* "object" or "object make-target" (object_target()) per line */
		strlist_split_lines(&lines, text.buf);
		for (size_t i = 0; i < lines.n; i++) {
			char *space = strchr(lines.items[i], ' ');

			if (space)
				strlist_append(&c->aliases, lines.items[i]);
			strlist_appendn(&c->objects, lines.items[i],
					space ? (size_t)(space - lines.items[i]) : strlen(lines.items[i]));
		}
		strlist_release(&lines);
		strlist_sort_unique(&c->objects);
		if (c->objects.n) {
			c->ready = true;
			goto out;
		}
	}
	fprintf(stderr, "# compile check: preparing %s for this base in %s "
		"(olddefconfig, prepare, the list of its objects)\n", c->name, c->dir);
	r = checkout(cc, &cc->base->base, err);
	if (r < 0)
		goto out;
	{
		const char *rm[] = { "rm", "-rf", c->dir, NULL };
		const char *mk[] = { "mkdir", "-p", c->dir, NULL };

		r = run_tool(rm, NULL, 300, "emptying the build directory", err);
		if (r == 0)
			r = run_tool(mk, NULL, 30, "making the build directory", err);
	}
	if (r < 0)
		goto out;
	if (ends_with(c->path, ".xz")) {
		const char *xz[] = { "xz", "-dc", c->path, NULL };

		r = run_tool(xz, config, 120, "uncompressing the config", err);
	} else {
		strbuf_reset(&text);
		r = strbuf_read_file(&text, c->path);
		if (r == 0)
			r = strbuf_write_file(&text, config);
		if (r < 0)
			strbuf_addf(err, "config-check: copying %s to %s: %s", c->path, config,
				    strerror(-r));
	}
	if (r < 0)
		goto out;
	{
		const char *olddef[] = { "-s", "olddefconfig", NULL };
		const char *prep[] = { "-s", "prepare", NULL };
		const char *dry[] = { "-n", "-k", "vmlinux", "modules", NULL };
		const char *const *steps[] = { olddef, prep, dry };
		const char *names[] = { "make olddefconfig", "make prepare", "make -n" };

		for (size_t i = 0; i < 3 && r == 0; i++) {
			r = kernel_make(cc->env, cc->src.workdir, c->dir, steps[i],
					i == 2 ? dry_log : log,
					i == 2 ? DRY_RUN_TIMEOUT : PREPARE_TIMEOUT, NULL, NULL,
					&res, err);
			if (r == 0 && i < 2 && !child_ok(&res)) {
				strbuf_addf(err, "config-check: %s for %s failed (see %s)",
					    names[i], c->name, log);
				r = -EIO;
			}
		}
	}
	if (r < 0)
		goto out;
	/* the dry run ends with an error (nothing it names was built): its commands count */
	r = read_objects(dry_log, &c->objects, &c->aliases);
	if (r == 0 && !c->objects.n)
		r = -ENODATA;
	if (r < 0) {
		strbuf_addf(err, "config-check: the dry run of %s names no object (%s: %s)",
			    c->name, dry_log, strerror(-r));
		goto out;
	}
	unlink(dry_log);
	strbuf_reset(&text);
	for (size_t i = 0; i < c->objects.n; i++) {
		const char *target = object_target(c, c->objects.items[i]);

		if (target == c->objects.items[i])
			strbuf_addf(&text, "%s\n", target);
		else
			strbuf_addf(&text, "%s %s\n", c->objects.items[i], target);
	}
	r = strbuf_write_file(&text, objects_path);
	if (r == 0)
		r = strbuf_write_file(&want, stamp_path);
	if (r < 0) {
		strbuf_addf(err, "config-check: cannot write %s: %s", c->dir, strerror(-r));
		goto out;
	}
	c->ready = true;
	cc->setup_seconds += now_seconds() - start;
	fprintf(stderr, "# compile check: %s ready, %zu objects, in %.0f s\n", c->name,
		c->objects.n, now_seconds() - start);
out:
	strbuf_release(&want);
	strbuf_release(&have);
	strbuf_release(&text);
	free(stamp_path);
	free(objects_path);
	free(config);
	free(log);
	free(dry_log);
	return r;
}

/* ---- the include index ---- */

static void index_add(struct include_index *ix, const char *from, const char *to)
{
	if (ix->n == ix->alloc) {
		ix->alloc = ix->alloc ? 2 * ix->alloc : 4096;
		ix->edges = xreallocarray(ix->edges, ix->alloc, sizeof(*ix->edges));
	}
	ix->edges[ix->n].from = xstrdup(from);
	ix->edges[ix->n].to = xstrdup(to);
	ix->n++;
}

/*
 * Every file under @top/@rel (recursing when @recurse) whose name ends in
 * @suffix, into @out as a tree-relative path.
 */
static void walk(const char *top, const char *rel, bool recurse, const char *suffix,
		 struct strlist *out)
{
	char *path = xasprintf("%s/%s", top, rel);
	DIR *d = opendir(path);
	struct dirent *de;

	free(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *child;

		if (de->d_name[0] == '.')
			continue;
		child = xasprintf("%s/%s", rel, de->d_name);
		if (de->d_type == DT_DIR) {
			if (recurse)
				walk(top, child, true, suffix, out);
		} else if (de->d_type == DT_REG && ends_with(de->d_name, suffix)) {
			strlist_append(out, child);
		}
		free(child);
	}
	closedir(d);
}

/* The tree file an #include names, or NULL: "x" next to @from first, then <x>. */
static char *resolve_include(const struct include_index *ix, const char *from,
			     const char *name, bool quoted)
{
	static const char *const dirs[] = {
		"include", "arch/x86/include", "include/uapi", "arch/x86/include/uapi", NULL,
	};

	if (quoted) {
		const char *slash = strrchr(from, '/');
		char *path = xasprintf("%.*s/%s", slash ? (int)(slash - from) : 0, from, name);
		fold_path(path);
		if (sorted_has(&ix->known, path))
			return path;
		free(path);
	}
	for (size_t i = 0; dirs[i]; i++) {
		char *path = xasprintf("%s/%s", dirs[i], name);

		if (sorted_has(&ix->known, path))
			return path;
		free(path);
	}
	return NULL;
}

static void scan_file(struct include_index *ix, const char *top, const char *rel)
{
	char *path = xasprintf("%s/%s", top, rel);
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, path) == 0) {
		for (char *line = sb.buf; line && *line; ) {
			char *next = strchr(line, '\n'), *p = line, *end;
			char close;

			if (next)
				*next++ = '\0';
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p++ == '#') {
				while (*p == ' ' || *p == '\t')
					p++;
				if (strncmp(p, "include", 7) == 0) {
					p += 7;
					while (*p == ' ' || *p == '\t')
						p++;
					close = *p == '<' ? '>' : *p == '"' ? '"' : 0;
					if (close && (end = strchr(p + 1, close))) {
						char *name = xstrndup(p + 1, (size_t)(end - p - 1));
						char *to = resolve_include(ix, rel, name, close == '"');

						if (to)
							index_add(ix, rel, to);
						free(to);
						free(name);
					}
				}
			}
			line = next;
		}
	}
	strbuf_release(&sb);
	free(path);
}

static int cmp_edge_to(const void *a, const void *b)
{
	const struct include_edge *x = a, *y = b;
	int c = strcmp(x->to, y->to);

	return c ? c : strcmp(x->from, y->from);
}

/*
 * Read base's includes: every header under include/ and arch/x86/include/,
 * and every .c and .h in a folder where a config builds an object.
 */
static int include_index_read(struct compile_check *cc, struct strbuf *err)
{
	struct include_index *ix = xcalloc(1, sizeof(*ix));
	struct strlist dirs = STRLIST_INIT;
	double start = now_seconds();
	int r = checkout(cc, &cc->base->base, err);
	const char *top = cc->src.workdir;	/* once checkout() opened it */

	if (r < 0) {
		free(ix);
		return r;
	}
	walk(top, "include", true, ".h", &ix->known);
	walk(top, "arch/x86/include", true, ".h", &ix->known);
	for (size_t i = 0; i < cc->n; i++)
		for (size_t j = 0; j < cc->configs[i].objects.n; j++) {
			const char *o = cc->configs[i].objects.items[j];
			const char *slash = strrchr(o, '/');

			if (slash)
				strlist_appendn(&dirs, o, (size_t)(slash - o));
		}
	strlist_sort_unique(&dirs);
	for (size_t i = 0; i < dirs.n; i++) {
		if (strncmp(dirs.items[i], "include/", 8) == 0)
			continue;
		walk(top, dirs.items[i], false, ".h", &ix->known);
		walk(top, dirs.items[i], false, ".c", &ix->known);
	}
	strlist_sort_unique(&ix->known);
	for (size_t i = 0; i < ix->known.n; i++)
		scan_file(ix, top, ix->known.items[i]);
	qsort(ix->edges, ix->n, sizeof(*ix->edges), cmp_edge_to);
	strlist_release(&dirs);
	cc->includes = ix;
	fprintf(stderr, "# compile check: read %zu includes of %zu files in %.1f s\n", ix->n,
		ix->known.n, now_seconds() - start);
	return 0;
}

/* The index of the first edge whose target is @to, or ix->n. */
static size_t edges_to(const struct include_index *ix, const char *to)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix->edges[mid].to, to) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The objects of @c whose source includes @header, nearest first, at
 * most @max: into @out. *ret_cut when more were left.
 */
static void header_objects(const struct include_index *ix, const struct cc_config *c,
			   const char *header, unsigned max, struct strlist *out, bool *ret_cut)
{
	struct strlist frontier = STRLIST_INIT, seen = STRLIST_INIT;
	unsigned found = 0;

	strlist_append(&frontier, header);
	strlist_append(&seen, header);
	for (int level = 0; level < MAX_LEVELS && frontier.n; level++) {
		struct strlist next = STRLIST_INIT, objects = STRLIST_INIT;

		for (size_t f = 0; f < frontier.n; f++)
			for (size_t e = edges_to(ix, frontier.items[f]);
			     e < ix->n && strcmp(ix->edges[e].to, frontier.items[f]) == 0; e++)
				strlist_append(&next, ix->edges[e].from);
		strlist_sort_unique(&next);
		strlist_release(&frontier);
		for (size_t i = 0; i < next.n; i++) {
			const char *from = next.items[i];

			if (sorted_has(&seen, from))
				continue;
			if (ends_with(from, ".c")) {
				char *o = xasprintf("%.*so", (int)strlen(from) - 1, from);

				if (sorted_has(&c->objects, o) && !strlist_has(&c->base_failing, o))
					strlist_append(&objects, o);
				free(o);
			} else {
				strlist_append(&frontier, from);
			}
		}
		strlist_extend(&seen, &next);
		strlist_sort_unique(&seen);
		strlist_release(&next);
		for (size_t i = 0; i < objects.n; i++) {
			if (found == max) {
				*ret_cut = true;
				break;
			}
			strlist_add_unique(out, objects.items[i]);
			found++;
		}
		strlist_release(&objects);
		if (*ret_cut)
			break;
	}
	strlist_release(&frontier);
	strlist_release(&seen);
}

/* Whether @path is a file of base (a source a candidate adds is not). */
static bool in_base(const struct compile_check *cc, const char *path)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	bool found = true;	/* unreadable: treated as base's, as before */

	if (git_commit_lookup(&commit, cc->base->repo, &cc->base->base) == 0 &&
	    git_commit_tree(&tree, commit) == 0)
		found = git_tree_entry_bypath(&entry, tree, path) == 0;
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return found;
}

/* Whether @c builds an object in the folder of @path (a new file there may be one). */
static bool builds_in(const struct cc_config *c, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0, lo = 0, hi = c->objects.n;

	if (!n)
		return false;
	while (lo < hi) {	/* the first object not before the folder */
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(c->objects.items[mid], path, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->objects.n && strncmp(c->objects.items[lo], path, n) == 0;
}

int compile_check_plan(struct compile_check *cc, const struct strlist *paths,
		       struct cc_plan *plan, struct strbuf *err)
{
	bool headers = false, sources = false;
	int r;

	memset(plan, 0, sizeof(*plan));
	look_again(cc);
	for (size_t i = 0; i < paths->n; i++) {
		headers |= ends_with(paths->items[i], ".h");
		sources |= ends_with(paths->items[i], ".c") || ends_with(paths->items[i], ".S");
	}
	if (!headers && !sources)
		return 0;
	for (size_t i = 0; i < cc->n; i++)
		if (!cc->configs[i].ready && (r = prepare_config(cc, &cc->configs[i], err)) < 0)
			return r;
	if (headers && !cc->includes && (r = include_index_read(cc, err)) < 0)
		return r;
	for (size_t i = 0; i < cc->n; i++) {
		const struct cc_config *c = &cc->configs[i];

		for (size_t p = 0; p < paths->n; p++) {
			const char *path = paths->items[p];

			if (ends_with(path, ".c") || ends_with(path, ".S")) {
				char *o = xasprintf("%.*so", (int)strlen(path) - 1, path);

				if (!sorted_has(&c->objects, o) && !in_base(cc, path) &&
				    builds_in(c, path)) {
					strlist_add_unique(&plan->added[i], o);
				} else if (!sorted_has(&c->objects, o)) {
					char *why = xasprintf("%s (%s does not build it)", path,
							      c->name);

					strlist_append(&plan->skipped, why);
					free(why);
				} else if (!strlist_has(&c->base_failing, o))
					strlist_add_unique(&plan->objects[i], o);
				free(o);
			} else if (ends_with(path, ".h")) {
				header_objects(cc->includes, c, path, cc->max_objects,
					       &plan->objects[i], &plan->cut[i]);
			}
		}
		strlist_sort_unique(&plan->objects[i]);
	}
	return 0;
}

/* The objects make names as failing: "*** [scripts/Makefile.build:250: x/y.o] Error 1". */
static void failed_objects(const char *log, struct strlist *out)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb, 64 * 1024 * 1024);
	strbuf_read_file(&sb, log);
	for (const char *p = sb.buf; (p = strstr(p, "*** [")); ) {
		const char *end = strchr(p, ']'), *colon;

		p += 5;
		if (!end)
			break;
		colon = memrchr(p, ' ', (size_t)(end - p));
		colon = colon ? colon + 1 : p;
		if (end - colon > 2 && end[-2] == '.' && end[-1] == 'o') {
			char *o = xstrndup(colon, (size_t)(end - colon));

			fold_path(o);
			strlist_append(out, o);
			free(o);
		}
		p = end;
	}
	strlist_sort_unique(out);
	strbuf_release(&sb);
}

static bool log_says_full(const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	bool full;

	strbuf_init(&sb, 64 * 1024 * 1024);
	strbuf_read_file(&sb, log);
	full = strstr(sb.buf, "No space left on device") != NULL;
	strbuf_release(&sb);
	return full;
}

/*
 * The first compiler error of @log in a file of one of @objects (its
 * source, or a header it includes: the line is then the header's), else
 * the first error of all.
 */
static void first_error_of(const char *src, const char *log, const struct strlist *objects,
			   struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t prefix = strlen(src);
	char *first = NULL;

	strbuf_init(&sb, 64 * 1024 * 1024);
	strbuf_read_file(&sb, log);
	for (char *line = sb.buf; line && *line; ) {
		char *next = strchr(line, '\n'), *colon;

		if (next)
			*next++ = '\0';
		if (strncmp(line, src, prefix) == 0 && line[prefix] == '/')
			line += prefix + 1;
		if ((strstr(line, ": error: ") || strstr(line, ": fatal error: ")) &&
		    (colon = strchr(line, ':'))) {
			char *file = xstrndup(line, (size_t)(colon - line)), *o = NULL;

			fold_path(file);
			if (ends_with(file, ".c") || ends_with(file, ".S"))
				o = xasprintf("%.*so", (int)strlen(file) - 1, file);
			if (!first)
				first = xstrdup(line);
			if (o && strlist_has(objects, o)) {
				free(first);
				first = xstrdup(line);
				free(o);
				free(file);
				break;
			}
			free(o);
			free(file);
		}
		line = next;
	}
	if (first)
		strbuf_adds(out, first);
	else
		kernel_first_error(src, log, out);
	free(first);
	strbuf_release(&sb);
}

/* make -k @objects in @c's directory; 0 with *ret_ok, -errno when make could not run. */
static int compile(struct compile_check *cc, struct cc_config *c, const struct strlist *objects,
		   const char *log, bool *ret_ok, struct strbuf *err)
{
	const char **targets = xcalloc(objects->n + 2, sizeof(*targets));
	struct child_result res;
	size_t n = 0;
	int r;

	targets[n++] = "-k";
	for (size_t i = 0; i < objects->n; i++)
		targets[n++] = object_target(c, objects->items[i]);
	targets[n] = NULL;
	r = kernel_make(cc->env, cc->src.workdir, c->dir, targets, log, cc->env->build_timeout,
			NULL, NULL, &res, err);
	free(targets);
	cc->objects_compiled += objects->n;
	if (r < 0)
		return r;
	*ret_ok = child_ok(&res);
	if (!*ret_ok && log_says_full(log)) {
		strbuf_addf(err, "config-check: no space left on device in %s (see %s)", c->dir, log);
		return -ENOSPC;
	}
	return 0;
}

/*
 * @objects failed on the candidate (log @log): those that fail on base as
 * well join c->base_failing; *ret_own gets the others.
 */
static int sort_out_base(struct compile_check *cc, struct cc_config *c, const char *log,
			 struct strlist *ret_own, struct strbuf *err)
{
	struct strlist failed = STRLIST_INIT, on_base = STRLIST_INIT;
	char *base_log = xasprintf("%s/cc-%s-base.log", cc->env->work, c->name);
	bool ok;
	int r;

	failed_objects(log, &failed);
	if (!failed.n) {
		strbuf_addf(err, "config-check: make failed for %s without naming an object that "
			    "did not compile (see %s)", c->name, log);
		r = -EIO;
		goto out;
	}
	r = checkout(cc, &cc->base->base, err);
	if (r == 0)
		r = compile(cc, c, &failed, base_log, &ok, err);
	if (r < 0)
		goto out;
	if (!ok)
		failed_objects(base_log, &on_base);
	for (size_t i = 0; i < failed.n; i++) {
		if (strlist_has(&on_base, failed.items[i])) {
			fprintf(stderr, "# compile check: %s does not compile on base under %s "
				"either: not counted\n", failed.items[i], c->name);
			strlist_add_unique(&c->base_failing, failed.items[i]);
		} else {
			strlist_append(ret_own, failed.items[i]);
		}
	}
out:
	strlist_release(&failed);
	strlist_release(&on_base);
	free(base_log);
	return r;
}

/*
 * Keep in @objects those whose source (.c or .S) is in the checked-out
 * tree @top: a patch that deletes a file leaves nothing of it to compile.
 */
static void present_sources(const char *top, struct strlist *objects)
{
	size_t kept = 0;

	for (size_t i = 0; i < objects->n; i++) {
		char *o = objects->items[i];
		char *c = xasprintf("%s/%.*sc", top, (int)strlen(o) - 1, o);
		char *S = xasprintf("%s/%.*sS", top, (int)strlen(o) - 1, o);

		if (access(c, F_OK) == 0 || access(S, F_OK) == 0)
			objects->items[kept++] = o;
		else
			free(o);
		free(c);
		free(S);
	}
	objects->n = kept;
}

/*
 * With the candidate checked out, kbuild is asked which of @want (a
 * plan's added objects) the config builds now: make -n of their folders,
 * where their objects do not exist yet. Those join @objects. 0, or
 * -errno with @err.
 */
static int added_sources(struct compile_check *cc, struct cc_config *c,
			 const struct strlist *want, struct strlist *objects, struct strbuf *err)
{
	struct strlist found = STRLIST_INIT, aliases = STRLIST_INIT, dirs = STRLIST_INIT;
	struct child_result res;
	const char **argv;
	char *log = xasprintf("%s/cc-%s-added.log", cc->env->work, c->name);
	int r;

	for (size_t i = 0; i < want->n; i++) {
		const char *slash = strrchr(want->items[i], '/');
		char *dir = xstrndup(want->items[i], (size_t)(slash - want->items[i]) + 1);

		strlist_add_unique(&dirs, dir);
		free(dir);
	}
	argv = xcalloc(dirs.n + 3, sizeof(*argv));
	argv[0] = "-n";
	argv[1] = "-k";
	for (size_t i = 0; i < dirs.n; i++)
		argv[2 + i] = dirs.items[i];
	r = kernel_make(cc->env, cc->src.workdir, c->dir, argv, log, DRY_RUN_TIMEOUT, NULL, NULL,
			&res, err);
	if (r == 0)
		r = read_objects(log, &found, &aliases);
	if (r < 0) {
		strbuf_addf(err, "%sconfig-check: asking kbuild which new sources %s builds (%s)",
			    err->len ? "; " : "", c->name, log);
		goto out;
	}
	for (size_t i = 0; i < want->n; i++) {
		bool built = sorted_has(&found, want->items[i]);

		fprintf(stderr, "# compile check: %s: %s is new; the config %s it\n", c->name,
			want->items[i], built ? "builds" : "does not build");
		if (built && !strlist_has(&c->base_failing, want->items[i]))
			strlist_add_unique(objects, want->items[i]);
	}
	strlist_sort_unique(objects);
	unlink(log);
out:
	strlist_release(&found);
	strlist_release(&aliases);
	strlist_release(&dirs);
	free(argv);
	free(log);
	return r;
}

/*
 * A tree's result under @c is kept in <dir>/verdicts/<tree>-<bound>, so that a
 * later run (the daemon's next poll of a queue that grew by one patch)
 * does not compile it again: "<config sha> <base tree> <bound> ok", or
 * "... error" and the first error on the next line. Preparing the
 * directory anew empties it; a line for another config or base is
 * ignored.
 */
static char *verdict_path(const struct compile_check *cc, const struct cc_config *c,
			  const char *tree_hex)
{
	return xasprintf("%s/verdicts/%s-%u", c->dir, tree_hex, cc->max_objects);
}

static bool recall(const struct compile_check *cc, const struct cc_config *c,
		   const char *base_hex, const char *tree_hex, bool *ret_ok,
		   struct strbuf *first_error)
{
	struct strbuf text = STRBUF_INIT, want = STRBUF_INIT;
	char *path = verdict_path(cc, c, tree_hex), *nl;
	bool found = false;

	strbuf_addf(&want, "%s %s %u ", c->stamp, base_hex, cc->max_objects);
	if (strbuf_read_file(&text, path) == 0 && strncmp(text.buf, want.buf, want.len) == 0) {
		nl = strchr(text.buf, '\n');
		if (strncmp(text.buf + want.len, "ok\n", 3) == 0) {
			found = *ret_ok = true;
		} else if (strncmp(text.buf + want.len, "error\n", 6) == 0 && nl && nl[1]) {
			found = true;
			*ret_ok = false;
			strbuf_adds(first_error, nl + 1);
			strbuf_rtrim(first_error);
		}
	}
	strbuf_release(&text);
	strbuf_release(&want);
	free(path);
	return found;
}

/* Keep @ok (@first_error when not) for the tree; a failure to write costs only time. */
static void remember(const struct compile_check *cc, const struct cc_config *c,
		     const char *base_hex, const char *tree_hex, bool ok, const char *first_error)
{
	struct strbuf text = STRBUF_INIT;
	char *dir = xasprintf("%s/verdicts", c->dir), *path = verdict_path(cc, c, tree_hex);
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());

	strbuf_addf(&text, "%s %s %u %s\n", c->stamp, base_hex, cc->max_objects,
		    ok ? "ok" : "error");
	if (!ok)
		strbuf_addf(&text, "%s\n", first_error);
	if ((mkdir(dir, 0755) == 0 || errno == EEXIST) && strbuf_write_file(&text, tmp) == 0 &&
	    rename(tmp, path) == 0)
		goto out;
	fprintf(stderr, "# compile check: %s: cannot keep the result of tree %s in %s: %s\n",
		c->name, tree_hex, dir, strerror(errno));
	unlink(tmp);
out:
	strbuf_release(&text);
	free(dir);
	free(path);
	free(tmp);
}

int compile_check_tree(struct compile_check *cc, const git_oid *commit, bool *ret_ok,
		       struct strbuf *evidence, struct strbuf *err)
{
	char base_hex[GIT_OID_HEXSZ + 1], tree_hex[GIT_OID_HEXSZ + 1];
	struct strlist changed = STRLIST_INIT;
	struct cc_plan plan;
	git_oid base_tree, tree;
	double start = now_seconds(), setup_before = cc->setup_seconds;
	int r;

	*ret_ok = true;
	look_again(cc);
	r = tree_id_hex(cc->base, &cc->base->base, base_hex);
	if (r == 0)
		r = tree_id_hex(cc->base, commit, tree_hex);
	if (r == 0 && (git_oid_fromstr(&base_tree, base_hex) < 0 ||
		       git_oid_fromstr(&tree, tree_hex) < 0))
		r = -EIO;
	if (r < 0) {
		strbuf_addf(err, "config-check: cannot read the tree of a commit");
		return r;
	}
	memset(&plan, 0, sizeof(plan));
	r = tree_diff_paths(cc->base, &base_tree, &tree, &changed, err);
	if (r == 0)
		r = compile_check_plan(cc, &changed, &plan, err);
	strlist_release(&changed);
	if (r < 0) {
		cc_plan_release(&plan);
		return r;
	}
	for (size_t i = 0; i < cc->n && r == 0 && *ret_ok; i++) {
		struct cc_config *c = &cc->configs[i];
		struct strbuf first = STRBUF_INIT;
		char *log;
		struct strlist own = STRLIST_INIT;
		bool ok = true;

		if (!plan.objects[i].n && !plan.added[i].n)
			goto next;
		if (recall(cc, c, base_hex, tree_hex, &ok, &first)) {
			fprintf(stderr, "# compile check: %s: tree %.12s already checked: %s\n",
				c->name, tree_hex, ok ? "compiles" : "does not compile");
			cc->recalled++;
			goto result;
		}
		r = checkout(cc, commit, err);
		if (r == 0 && plan.added[i].n)
			r = added_sources(cc, c, &plan.added[i], &plan.objects[i], err);
		if (r == 0)
			present_sources(cc->src.workdir, &plan.objects[i]);
		/* nothing left: the new sources are not built, or the tree deleted the files */
		if (r == 0 && !plan.objects[i].n)
			remember(cc, c, base_hex, tree_hex, true, "");
		if (r < 0 || !plan.objects[i].n)
			goto result;
		fprintf(stderr, "# compile check: %s: %zu object%s%s\n", c->name,
			plan.objects[i].n, plan.objects[i].n == 1 ? "" : "s",
			plan.cut[i] ? " (a header reaches more: cut at the bound)" : "");
		log = xasprintf("%s/cc-%s.log", cc->env->work, c->name);
		r = compile(cc, c, &plan.objects[i], log, &ok, err);
		if (r == 0 && !ok) {
			r = sort_out_base(cc, c, log, &own, err);
			ok = own.n == 0;
			if (r == 0 && !ok)
				first_error_of(cc->src.workdir, log, &own, &first);
			strbuf_rtrim(&first);
		}
		strlist_release(&own);
		free(log);
		if (r == 0) {
			remember(cc, c, base_hex, tree_hex, ok, first.buf);
			cc->checks++;
		}
result:
		if (r == 0 && !ok) {
			*ret_ok = false;
			strbuf_addf(evidence, "config %s (%s): %s\n", c->name, c->path, first.buf);
		}
next:
		strbuf_release(&first);
	}
	cc_plan_release(&plan);
	cc->check_seconds += now_seconds() - start - (cc->setup_seconds - setup_before);
	return r;
}
