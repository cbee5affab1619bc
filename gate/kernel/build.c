// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/progress.h"
#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "kernel/build.h"
#include "kernel/quick.h"

/*
 * The fixed build metadata that makes identical sources hit ccache. make
 * compiles with kernel-tests/ccache-cc (ccache in depend mode where that
 * is safe), so that every run shares results.
 */
static const char *const kbuild_env[] = {
	"KBUILD_BUILD_TIMESTAMP=2019-02-18 00:00:00 UTC",
	"KBUILD_BUILD_USER=backport-gate",
	"KBUILD_BUILD_HOST=backport-gate",
	/* not the count of links in that directory: the same tree, the same kernel */
	"KBUILD_BUILD_VERSION=1",
	"LC_ALL=C",		/* the compiler's messages in ASCII, whatever the caller's locale */
	NULL,
};

const char *const *kernel_build_env(void)
{
	return kbuild_env;
}

/*
 * A build's progress: the objects make has compiled, counted from its log
 * as it grows. With V=0, make says "  CC      fs/binfmt_script.o" for each
 * (AS, HOSTCC and LD of an object alike).
 */
struct build_watch {
	const char *log;
	struct file_lines lines;
	unsigned long objects;
};

static bool is_object_line(const char *line, size_t len)
{
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\r'))
		len--;
	return len > 4 && line[0] == ' ' && line[1] == ' ' && line[2] >= 'A' && line[2] <= 'Z' &&
	       line[len - 2] == '.' && line[len - 1] == 'o' && memchr(line + 2, ' ', len - 2);
}

static void build_tick(void *arg)
{
	struct build_watch *w = arg;

	w->objects += file_lines_count(&w->lines, w->log, is_object_line);
	progress_update(progress_stderr(), w->objects);
}

/*
 * A make that did not end by itself (killed with the gate, its node lost,
 * stopped at its timeout) can leave files cut short: a .cmd file that
 * every later make stops on ("unterminated variable reference"), an
 * object newer than its sources that make would link. MAKE_MARK in a
 * build directory says a make runs there. Whoever finds it before
 * starting one removes every file written since the mark was made, and
 * make writes them again; only .config (kconfig writes it whole, by a
 * rename) and the gate's stamps (.bg-*, written the same way) stay.
 */
#define MAKE_MARK ".bg-make"

/* nftw() takes no argument for its callback: one scrub at a time (no make runs on another thread) */
static struct {
	struct timespec since;
	unsigned long removed;
	int error;
} scrub;

static bool not_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

static int scrub_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *name = path + ftw->base;

	if (type != FTW_F && type != FTW_SL)
		return 0;
	if (ftw->level == 1 && (!strcmp(name, ".config") || !strncmp(name, ".bg-", 4)))
		return 0;
	if (!not_before(&st->st_mtim, &scrub.since))
		return 0;
	if (unlink(path) == 0)
		scrub.removed++;
	else if (errno != ENOENT && !scrub.error)
		scrub.error = errno;
	return 0;
}

/*
 * Make @build ready for a make: undo what an interrupted one left (see
 * MAKE_MARK), then mark it. 0, or -errno with @err.
 */
static int make_begin(const char *build, const char *mark, struct strbuf *err)
{
	struct stat st;
	int fd, e;

	if (mkdir(build, 0755) < 0 && errno != EEXIST) {
		e = errno;
		strbuf_addf(err, "build: cannot create %s: %s", build, strerror(e));
		return -e;
	}
	if (stat(mark, &st) == 0) {
		scrub.since = st.st_mtim;
		scrub.removed = 0;
		scrub.error = 0;
		if (nftw(build, scrub_one, 32, FTW_PHYS) < 0 && !scrub.error)
			scrub.error = errno;
		if (scrub.error) {
			strbuf_addf(err, "build: an earlier make in %s did not end, and what it "
				    "wrote cannot be removed: %s", build, strerror(scrub.error));
			return -scrub.error;
		}
		fprintf(stderr, "# build: an earlier make in %s did not end (killed or stopped "
			"at its timeout): removed the %lu files it wrote, to be made again\n",
			build, scrub.removed);
	}
	fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || futimens(fd, NULL) < 0) {
		e = errno;
		if (fd >= 0)
			close(fd);
		strbuf_addf(err, "build: cannot write %s: %s", mark, strerror(e));
		return -e;
	}
	close(fd);
	return 0;
}

int kernel_make_begin(const char *build, struct strbuf *err)
{
	char *mark = xasprintf("%s/%s", build, MAKE_MARK);
	int r = make_begin(build, mark, err);

	free(mark);
	return r;
}

void kernel_make_end(const char *build)
{
	char *mark = xasprintf("%s/%s", build, MAKE_MARK);

	unlink(mark);
	free(mark);
}

int kernel_make(struct kernel_env *env, const char *src, const char *build,
		const char *const *targets, const char *log, int timeout_sec,
		void (*tick)(void *tick_arg), void *tick_arg,
		struct child_result *res, struct strbuf *err)
{
	char *o_arg = xasprintf("O=%s", build);
	char *jobs = xasprintf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	char *ccache_dir = xasprintf("CCACHE_DIR=%s", env->ccache_dir);
	char *cc = xasprintf("CC=%s", env->cc);
	char *mark = xasprintf("%s/%s", build, MAKE_MARK);
	size_t n_targets = 0, n = 0, e = 0;
	const char **argv, *envv[8];
	struct child c = { .env = envv, .output_path = log, .timeout_sec = timeout_sec };
	int r;

	while (targets[n_targets])
		n_targets++;
	argv = xcalloc(n_targets + 8, sizeof(*argv));
	argv[n++] = "make";
	argv[n++] = "-C";
	argv[n++] = src;
	argv[n++] = o_arg;
	argv[n++] = jobs;
	argv[n++] = cc;
	for (size_t i = 0; i < n_targets; i++)
		argv[n++] = targets[i];
	argv[n] = NULL;
	c.argv = argv;
	for (size_t i = 0; kbuild_env[i]; i++)
		envv[e++] = kbuild_env[i];
	envv[e++] = ccache_dir;
	envv[e] = NULL;
	r = make_begin(build, mark, err);
	if (r < 0)
		goto out;
	r = tick ? child_run_ticking(&c, 1000, tick, tick_arg, res) : child_run(&c, res);
	if (r < 0) {
		strbuf_addf(err, "build: cannot start make: %s", strerror(-r));
		unlink(mark);
	} else if (res->exec_errno || res->timed_out || res->signal) {
		child_describe(&c, res, err);
		/* a make that was stopped keeps the mark: the next one cleans up after it */
		if (res->exec_errno)
			unlink(mark);
		r = -EIO;
	} else {
		unlink(mark);
	}
out:
	free(mark);
	free(argv);
	free(o_arg);
	free(jobs);
	free(ccache_dir);
	free(cc);
	return r;
}

static int run_make(struct kernel_env *env, const char *const *targets, const char *log,
		    struct build_watch *watch, struct child_result *res, struct strbuf *err)
{
	return kernel_make(env, env->src, env->build, targets, log, env->build_timeout,
			   watch ? build_tick : NULL, watch, res, err);
}

/* Remove everything in env->build; whether that worked. */
static bool empty_build(struct kernel_env *env)
{
	const char *argv[] = { "find", env->build, "-mindepth", "1", "-delete", NULL };
	struct child c = { .argv = argv, .timeout_sec = 300 };
	struct child_result res;

	return child_run(&c, &res) == 0 && child_ok(&res);
}

int kernel_clean(struct kernel_env *env, struct strbuf *err)
{
	const char *targets[] = { "-s", "clean", NULL };
	char *log = xasprintf("%s/clean.log", env->work);
	struct child_result res;
	int r;

	r = run_make(env, targets, log, NULL, &res, err);
	if (r == 0 && !child_ok(&res)) {
		/*
		 * make clean visits every folder a Makefile names, built or
		 * not; a tree with one removed (Debian's orig tarballs lack
		 * the non-free drivers their series unhooks) cannot be
		 * cleaned that way, but emptying the folder is cleaner still.
		 */
		fprintf(stderr, "# naive: make clean failed (see %s); emptying %s instead\n", log,
			env->build);
		if (!empty_build(env)) {
			strbuf_addf(err, "build: make clean failed (see %s), and so did emptying %s",
				    log, env->build);
			r = -EIO;
		}
	}
	free(log);
	return r;
}

bool kernel_config_current(const struct kernel_env *env)
{
	char *stamp_path = xasprintf("%s/.bg-config", env->build);
	char *config = xasprintf("%s/.config", env->build);
	struct strbuf stamp = STRBUF_INIT;
	bool current;

	strbuf_read_file(&stamp, stamp_path);
	strbuf_rtrim(&stamp);
	current = access(config, R_OK) == 0 && strcmp(stamp.buf, env->config_stamp) == 0;
	strbuf_release(&stamp);
	free(stamp_path);
	free(config);
	return current;
}

static int configure(struct kernel_env *env, struct strbuf *err)
{
	char *stamp_path = xasprintf("%s/.bg-config", env->build);
	char *config = xasprintf("%s/.config", env->build);
	char *log = xasprintf("%s/config.log", env->work);
	struct strbuf cfg = STRBUF_INIT, frag = STRBUF_INIT;
	struct child_result res;
	int r = 0;

	if (kernel_config_current(env))
		goto out;

	{
		const char *t1[] = { "-s", "tinyconfig", NULL };
		char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", env->src);
		const char *margv[] = { merge, "-m", "-O", env->build, config, env->fragment, NULL };
		struct child mc = { .argv = margv, .output_path = log, .timeout_sec = 300 };
		const char *t2[] = { "-s", "olddefconfig", NULL };

		r = run_make(env, t1, log, NULL, &res, err);
		if (r == 0 && !child_ok(&res)) {
			strbuf_addf(err, "config: make tinyconfig failed (see %s)", log);
			r = -EIO;
		}
		if (r == 0) {
			r = child_run(&mc, &res);
			if (r < 0 || !child_ok(&res)) {
				strbuf_addf(err, "config: merge_config.sh failed (see %s)", log);
				r = -EIO;
			}
		}
		free(merge);
		if (r == 0)
			r = run_make(env, t2, log, NULL, &res, err);
		if (r == 0 && !child_ok(&res)) {
			strbuf_addf(err, "config: make olddefconfig failed (see %s)", log);
			r = -EIO;
		}
	}
	if (r < 0)
		goto out;
	/* Every "=y" of the fragment must have taken. */
	strbuf_read_file(&frag, env->fragment);
	strbuf_read_file(&cfg, config);
	for (char *line = frag.buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "CONFIG_", 7) == 0 && strstr(line, "=y")) {
			char *needle = xasprintf("\n%s\n", line);

			if (!strstr(cfg.buf, needle)) {
				strbuf_addf(err, "config: %s from %s did not take", line, env->fragment);
				r = -EINVAL;
			}
			free(needle);
			if (r < 0)
				goto out;
		}
	}
	{
		FILE *f = fopen(stamp_path, "we");

		if (!f || fprintf(f, "%s\n", env->config_stamp) < 0 || fclose(f) != 0) {
			strbuf_addf(err, "config: cannot write %s", stamp_path);
			r = -EIO;
		}
	}
out:
	strbuf_release(&cfg);
	strbuf_release(&frag);
	free(stamp_path);
	free(config);
	free(log);
	return r;
}

void kernel_first_error(const char *src, const char *log, struct strbuf *out)
{
	static const char *const patterns[] = {
		": error: ", ": fatal error: ", "undefined reference", "ld: ", "Error ", NULL,
	};
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb, 64 * 1024 * 1024);
	strbuf_read_file(&sb, log);
	for (size_t p = 0; patterns[p]; p++) {
		char *hit = strstr(sb.buf, patterns[p]);
		char *start, *end;
		size_t prefix = strlen(src);

		if (!hit)
			continue;
		start = hit;
		while (start > sb.buf && start[-1] != '\n')
			start--;
		end = strchr(hit, '\n');
		if (!end)
			end = sb.buf + sb.len;
		if ((size_t)(end - start) > prefix && strncmp(start, src, prefix) == 0 &&
		    start[prefix] == '/')
			start += prefix + 1;
		strbuf_add(out, start, (size_t)(end - start));
		break;
	}
	if (!out->len)
		strbuf_addf(out, "make failed (see %s)", log);
	strbuf_release(&sb);
}

/*
 * A full disk is the machine's fault, not the patch's: -ENOSPC when @log
 * says so, else 0. make leaves objects half-written by then, which the
 * next build would trust, so the build directory is emptied (ccache
 * makes the full rebuild cheap).
 */
static int no_space(struct kernel_env *env, const char *log, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	bool full;

	strbuf_init(&text, 64 * 1024 * 1024);
	strbuf_read_file(&text, log);
	full = strstr(text.buf, "No space left on device") != NULL;
	strbuf_release(&text);
	if (!full)
		return 0;
	strbuf_reset(err);
	strbuf_addf(err, "build: no space left on device in %s (see %s); the build directory "
		    "was emptied for the next build", env->build, log);
	empty_build(env);
	return -ENOSPC;
}

int kernel_no_space(struct kernel_env *env, const char *log, struct strbuf *err)
{
	return no_space(env, log, err);
}

int kernel_build(struct kernel_env *env, enum build_status *ret_status,
		 struct strbuf *first_error, struct strbuf *err)
{
	const char *targets[] = { "vmlinux", NULL };
	char *log = xasprintf("%s/build.log", env->work);
	char *quick_env = xasprintf("%s/%s", env->build, QUICK_ENV);
	char *vmlinux = NULL, *stats = NULL;
	const char *stats_key = env->naive ? "build-naive" : "build";
	struct build_watch watch = { .log = log };
	struct progress *p = progress_stderr();
	unsigned long total;
	long expected_ms, took_ms;
	struct child_result res;
	bool full;
	int r;

	r = configure(env, err);
	if (r < 0) {
		char *config_log = xasprintf("%s/config.log", env->work);

		if (no_space(env, config_log, err) < 0)
			r = -ENOSPC;
		free(config_log);
		goto out;
	}
	/*
	 * Only a build from an empty build directory is measured and
	 * expected again: what an incremental one compiles depends on the
	 * change.
	 */
	vmlinux = xasprintf("%s/vmlinux", env->build);
	stats = xasprintf("%s/progress-stats", env->dir);
	full = access(vmlinux, F_OK) != 0;
	if (!full || progress_stats_load(stats, stats_key, &total, &expected_ms) < 0)
		total = 0, expected_ms = 0;
	progress_begin(p, "build", "objects", total, expected_ms);
	/* what make changes may change kbuild's environment: read it again */
	unlink(quick_env);
	r = run_make(env, targets, log, &watch, &res, err);
	took_ms = p->now_ms() - p->start_ms;
	progress_end(p);
	file_lines_release(&watch.lines);
	if (r < 0)
		goto out;
	if (full && child_ok(&res) && watch.objects) {
		int e = progress_stats_save(stats, stats_key, watch.objects, took_ms);

		/* only an estimate is lost: said, not failed */
		if (e < 0)
			fprintf(stderr, "build: cannot write %s (the next build's progress estimate): %s\n",
				stats, strerror(-e));
	}
	if (child_ok(&res)) {
		*ret_status = BUILD_OK;
	} else {
		r = no_space(env, log, err);
		if (r == 0) {
			*ret_status = BUILD_FAILED;
			kernel_first_error(env->src, log, first_error);
		}
	}
out:
	free(vmlinux);
	free(stats);
	free(log);
	free(quick_env);
	return r;
}

int kernel_strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The paths named by a build's .cmd files, each counted once per file: an
 * open-addressing hash table. A build's 1,500 .cmd files name about
 * 400,000 paths but only a few thousand distinct ones, so counting here
 * beats collecting and sorting them all (which took 0.18 s of CPU a
 * build; this, find included, 0.1 s of wall time).
 */
struct path_count {
	char *path;
	unsigned count;
	unsigned last;		/* the .cmd file that counted it last */
};

struct path_counts {
	struct path_count *slot;
	size_t cap, n;		/* cap: a power of two */
};

static size_t path_hash(const char *p, size_t len)
{
	size_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

static void path_counts_grow(struct path_counts *pc)
{
	struct path_counts bigger = { .cap = pc->cap ? pc->cap * 2 : 4096, .n = pc->n };

	bigger.slot = xcalloc(bigger.cap, sizeof(*bigger.slot));
	for (size_t i = 0; i < pc->cap; i++) {
		size_t j;

		if (!pc->slot[i].path)
			continue;
		j = path_hash(pc->slot[i].path, strlen(pc->slot[i].path)) & (bigger.cap - 1);
		while (bigger.slot[j].path)
			j = (j + 1) & (bigger.cap - 1);
		bigger.slot[j] = pc->slot[i];
	}
	free(pc->slot);
	*pc = bigger;
}

static int path_count_cmp(const void *a, const void *b)
{
	return strcmp(((const struct path_count *)a)->path, ((const struct path_count *)b)->path);
}

/* Count @p (@len bytes) once for .cmd file number @file. */
static void path_counts_add(struct path_counts *pc, const char *p, size_t len, unsigned file)
{
	size_t j;

	if (2 * (pc->n + 1) > pc->cap)
		path_counts_grow(pc);
	j = path_hash(p, len) & (pc->cap - 1);
	for (; pc->slot[j].path; j = (j + 1) & (pc->cap - 1)) {
		struct path_count *e = &pc->slot[j];

		if (strncmp(e->path, p, len) == 0 && e->path[len] == '\0') {
			if (e->last != file) {
				e->count++;
				e->last = file;
			}
			return;
		}
	}
	pc->slot[j].path = xstrndup(p, len);
	pc->slot[j].count = 1;
	pc->slot[j].last = file;
	pc->n++;
}

int kernel_cmd_files(const char *build, struct strbuf *list)
{
	const char *argv[] = { "find", build, "-name", "*.cmd", "-type", "f", NULL };
	struct child c = { .argv = argv, .timeout_sec = 120, .capture = list };
	struct child_result res;
	int r;

	strbuf_init(list, 64 * 1024 * 1024);
	r = child_run(&c, &res);
	if (r < 0)
		return r;
	return child_ok(&res) ? 0 : -EIO;
}

const char *kernel_cmd_path(const char *pos, const char *src, size_t src_len,
			    const char **ret_path, size_t *ret_len)
{
	for (const char *p = strstr(pos, src); p; p = strstr(p + 1, src)) {
		const char *q;

		if (p[src_len] != '/')
			continue;
		q = p + src_len + 1;
		p = q;
		while (*p && *p != ' ' && *p != '\n' && *p != '\t' && *p != ')' && *p != ',')
			p++;
		*ret_path = q;
		*ret_len = (size_t)(p - q);
		return p;
	}
	return NULL;
}

int kernel_used_counts(struct kernel_env *env, const char *build, char ***ret_files,
		       unsigned **ret_counts, size_t *ret_n)
{
	struct strbuf list = STRBUF_INIT, cmd = STRBUF_INIT;
	struct path_counts pc = { 0 };
	size_t prefix = strlen(env->src), n = 0;
	unsigned file = 0;
	char **files;
	unsigned *counts;
	int r;

	r = kernel_cmd_files(build, &list);
	if (r < 0) {
		strbuf_release(&list);
		return r;
	}
	for (char *path = list.buf, *next; path && *path; path = next) {
		const char *p, *name;
		size_t len;

		next = strchr(path, '\n');
		if (next)
			*next++ = '\0';
		strbuf_reset(&cmd);
		if (strbuf_read_file(&cmd, path) < 0)
			continue;
		file++;
		for (p = cmd.buf; (p = kernel_cmd_path(p, env->src, prefix, &name, &len));)
			path_counts_add(&pc, name, len, file);
	}
	strbuf_release(&list);
	strbuf_release(&cmd);
	/* pack the table, sort by path */
	for (size_t i = 0; i < pc.cap; i++)
		if (pc.slot[i].path)
			pc.slot[n++] = pc.slot[i];
	if (n > 1)
		qsort(pc.slot, n, sizeof(*pc.slot), path_count_cmp);
	files = xcalloc(n, sizeof(*files));
	counts = xcalloc(n, sizeof(*counts));
	for (size_t i = 0; i < n; i++) {
		files[i] = pc.slot[i].path;
		counts[i] = pc.slot[i].count;
	}
	free(pc.slot);
	*ret_files = files;
	*ret_n = n;
	if (ret_counts)
		*ret_counts = counts;
	else
		free(counts);
	return 0;
}

int kernel_used_files(struct kernel_env *env, struct strlist *ret_files)
{
	char **files;
	size_t n;
	int r = kernel_used_counts(env, env->build, &files, NULL, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		strlist_append(ret_files, files[i]);
		free(files[i]);
	}
	free(files);
	return 0;
}

bool kernel_path_is_rule(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "Kconfig", 7) == 0 || strncmp(base, "Makefile", 8) == 0 ||
	       strncmp(base, "Kbuild", 6) == 0;
}

bool kernel_path_exercised(const struct strlist *used, const char *path)
{
	/* Build rules and configuration reach everything: always exercised. */
	if (kernel_path_is_rule(path))
		return true;
	return bsearch(&path, used->items, used->n, sizeof(*used->items), kernel_strcmp_ptr) != NULL;
}
