// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/progress.h"
#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "kernel/quick.h"

/* The top-level targets after the archives, in the order kbuild makes them. */
static const char *const link_targets[] = {
	"vmlinux.o", "modules.builtin.modinfo", "modules.builtin", "vmlinux.symvers", "vmlinux",
	NULL,
};

struct quick {
	struct kernel_env *env;
	const char *build;
	char **envv;			/* kbuild's environment, NULL-terminated */
	struct strbuf envbuf;		/* what envv points into */
	char *ccache;			/* envv's CCACHE_DIR */
	struct strlist objects;		/* targets to compile again, build-relative */
	struct strlist archives;	/* to write again, deepest first */
	bool local_export;		/* kbuild checks exported symbols after a compile */
	char *log;
	struct strbuf why;		/* why make must do it */
};

static char *cmd_file(const char *build, const char *target)
{
	const char *slash = strrchr(target, '/');

	if (!slash)
		return xasprintf("%s/.%s.cmd", build, target);
	return xasprintf("%s/%.*s/.%s.cmd", build, (int)(slash - target), target, slash + 1);
}

static char *dep_file(const char *target)
{
	const char *slash = strrchr(target, '/');

	if (!slash)
		return xasprintf(".%s.d", target);
	return xasprintf("%.*s/.%s.d", (int)(slash - target), target, slash + 1);
}

/*
 * The recorded command of @target in @text (a .cmd file): its first line,
 * "cmd_TARGET := COMMAND" (6.1) or "savedcmd_TARGET := COMMAND" (since
 * 6.3), as make-cmd escaped it. NULL when it is not there.
 */
static const char *recorded_command(const char *text, const char *target, size_t *ret_len)
{
	size_t tlen = strlen(target);
	const char *end;

	if (strncmp(text, "savedcmd_", 9) == 0)
		text += 9;
	else if (strncmp(text, "cmd_", 4) == 0)
		text += 4;
	else
		return NULL;
	if (strncmp(text, target, tlen) != 0 || strncmp(text + tlen, " := ", 4) != 0)
		return NULL;
	text += tlen + 4;
	end = strchrnul(text, '\n');
	*ret_len = (size_t)(end - text);
	return text;
}

/*
 * Undo make-cmd's escaping: "$$" is "$", "$(pound)" is "#". Any other
 * reference would have been expanded by make: -EINVAL.
 */
static int unescape(const char *raw, size_t len, struct strbuf *out)
{
	for (size_t i = 0; i < len; i++) {
		if (raw[i] != '$') {
			strbuf_addch(out, raw[i]);
		} else if (i + 1 < len && raw[i + 1] == '$') {
			strbuf_addch(out, '$');
			i++;
		} else if (len - i >= 8 && strncmp(raw + i, "$(pound)", 8) == 0) {
			strbuf_addch(out, '#');
			i += 7;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * For a .cmd file fixdep wrote: where what kbuild appended after it
 * starts (after the "$(deps_TARGET):" line), or NULL when @text is not
 * one. What follows may only be lines "TARGET: $(wildcard FILE)" (the
 * objtool dependency), which are kept.
 */
static const char *fixdep_trailer(const char *text, const char *target)
{
	char *mark = xasprintf("\n$(deps_%s):\n", target);
	char *dep = xasprintf("%s: $(wildcard ", target);
	const char *tail = strstr(text, mark), *p;

	if (tail)
		tail += strlen(mark);
	for (p = tail; p && *p; p = strchrnul(p, '\n'), p += *p == '\n') {
		if (*p == '\n')
			continue;
		if (strncmp(p, dep, strlen(dep)) != 0)
			tail = NULL;
	}
	free(mark);
	free(dep);
	return tail;
}

static void say_why(struct quick *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say_why(struct quick *q, const char *fmt, ...)
{
	va_list ap;

	if (q->why.len)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&q->why, fmt, ap);
	va_end(ap);
}

/*
 * Files no kernel build reads, though they sit where make would have to
 * look: the maintainers' and git's files at the top and .gitignore
 * anywhere, and the user-space trees under tools/ that the kernel's make
 * never enters (perf and the selftests; objtool and the libraries it
 * builds from stay make's). Stable queues carry many changes to them.
 */
static bool path_is_never_built(const char *path)
{
	static const char *const top[] = {
		"MAINTAINERS", "CREDITS", "COPYING", "README", ".mailmap", ".gitattributes",
		".clang-format", ".cocciconfig", ".get_maintainer.ignore", ".rustfmt.toml", NULL
	};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strcmp(base, ".gitignore") || !strncmp(path, "tools/perf/", 11) ||
	    !strncmp(path, "tools/testing/", 14))
		return true;
	for (const char *const *t = top; *t && !strchr(path, '/'); t++)
		if (!strcmp(path, *t))
			return true;
	return false;
}

/* Paths a change to which reaches what no .cmd file records: make must look. */
static bool path_is_outside_cmds(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (path_is_never_built(path))
		return false;
	return kernel_path_is_rule(path) || !strncmp(path, "scripts/", 8) ||
	       !strncmp(path, "tools/", 6) || !strncmp(path, "usr/", 4) ||
	       !strncmp(base, "localversion", 12) || !strchr(path, '/');
}

/*
 * true when the recorded command of @target (build-relative) names @word
 * as a whole word. An archive's members appear so: after "D/%s ", names
 * relative to D (built-in.a), or whole paths (lib.a, vmlinux.a, vmlinux.o).
 */
static bool command_names(struct quick *q, const char *target, const char *word)
{
	char *path = cmd_file(q->build, target);
	struct strbuf text = STRBUF_INIT, cmd = STRBUF_INIT;
	const char *raw;
	size_t len, wlen = strlen(word);
	bool found = false;

	if (strbuf_read_file(&text, path) == 0 &&
	    (raw = recorded_command(text.buf, target, &len)) && unescape(raw, len, &cmd) == 0) {
		for (const char *p = cmd.buf; (p = strstr(p, word)); p += wlen) {
			char before = p == cmd.buf ? ' ' : p[-1], after = p[wlen];

			if ((before == ' ' || before == '\t') &&
			    (after == ' ' || after == '\t' || after == '\0' || after == ';')) {
				found = true;
				break;
			}
		}
	}
	strbuf_release(&text);
	strbuf_release(&cmd);
	free(path);
	return found;
}

/* true when the recorded command of @target in @text runs @cc */
static bool compiled_with(const char *text, const char *target, const char *cc)
{
	size_t len, cc_len = strlen(cc);
	const char *raw = recorded_command(text, target, &len);

	return raw && len > cc_len && !strncmp(raw, cc, cc_len) && raw[cc_len] == ' ';
}

/*
 * The folder above @dir whose built-in.a has @archive (@dir's own) as a
 * member, or NULL. Not always the parent: kbuild links a folder from any
 * folder above it (the top's built-in.a names arch/x86/built-in.a,
 * drivers/built-in.a names input/serio/built-in.a).
 */
static char *linking_folder(struct quick *q, const char *dir, const char *archive)
{
	size_t cut = strlen(dir);

	for (;;) {
		char *parent, *parent_archive;
		const char *member;
		bool named;

		while (cut > 0 && dir[cut - 1] != '/')
			cut--;
		if (cut == 0) {
			parent = xstrdup(".");
			parent_archive = xstrdup("built-in.a");
			member = archive;
		} else {
			parent = xstrndup(dir, cut - 1);
			parent_archive = xasprintf("%s/built-in.a", parent);
			member = archive + cut;
		}
		named = command_names(q, parent_archive, member);
		free(parent_archive);
		if (named)
			return parent;
		free(parent);
		if (cut == 0)
			return NULL;
		cut--;	/* past the '/' */
	}
}

/*
 * Queue the archives that hold @object, up to vmlinux.a: its folder's
 * built-in.a and each one that links it in turn up to the top's, or its
 * folder's lib.a (which vmlinux.o links itself). false when the object
 * reaches the kernel some other way.
 */
static bool add_archives(struct quick *q, const char *object)
{
	char *dir = xstrndup(object, (size_t)(strrchr(object, '/') - object));
	char *archive = xasprintf("%s/built-in.a", dir);
	char *lib = xasprintf("%s/lib.a", dir);
	bool ok = true;

	if (command_names(q, lib, object)) {
		if (!command_names(q, "vmlinux.o", lib))
			ok = false;
		else
			strlist_add_unique(&q->archives, lib);
		goto out;
	}
	if (!command_names(q, archive, object + strlen(dir) + 1)) {
		ok = false;
		goto out;
	}
	strlist_add_unique(&q->archives, archive);
	while (strcmp(dir, ".") != 0) {
		char *parent = linking_folder(q, dir, archive);

		if (!parent) {
			ok = false;
			goto out;
		}
		free(dir);
		dir = parent;
		free(archive);
		archive = strcmp(dir, ".") ? xasprintf("%s/built-in.a", dir) : xstrdup("built-in.a");
		strlist_add_unique(&q->archives, archive);
	}
	ok = command_names(q, "vmlinux.a", "./built-in.a");
out:
	free(dir);
	free(archive);
	free(lib);
	return ok;
}

/*
 * The targets whose .cmd files name any of @changed, into q->objects;
 * false (with q->why) when one of them is not a compiled archive member.
 */
static bool find_readers(struct quick *q, const struct strlist *changed)
{
	struct strbuf list = STRBUF_INIT, text = STRBUF_INIT;
	const char *src = q->env->src;
	size_t src_len = strlen(src), blen = strlen(q->build);
	bool ok = true;

	if (kernel_cmd_files(q->build, &list) < 0) {
		say_why(q, "the .cmd files of %s cannot be listed", q->build);
		strbuf_release(&list);
		return false;
	}
	for (char *path = list.buf, *next; ok && path && *path; path = next) {
		const char *p, *name;
		size_t len;
		bool reads = false;

		next = strchr(path, '\n');
		if (next)
			*next++ = '\0';
		strbuf_reset(&text);
		if (strbuf_read_file(&text, path) < 0)
			continue;
		for (p = text.buf; !reads && (p = kernel_cmd_path(p, src, src_len, &name, &len));) {
			char *one = xstrndup(name, len);

			reads = bsearch(&one, changed->items, changed->n, sizeof(*changed->items),
					kernel_strcmp_ptr) != NULL;
			free(one);
		}
		if (reads) {
			/* <build>/D/.NAME.cmd names target D/NAME */
			const char *rel = path + blen + 1, *base = strrchr(rel, '/');
			char *target;

			base = base ? base + 1 : rel;
			target = xasprintf("%.*s%.*s", (int)(base - rel), rel,
					   (int)(strlen(base) - 5), base + 1);
			if (strlen(target) < 3 || strcmp(target + strlen(target) - 2, ".o") != 0 ||
			    !strchr(target, '/')) {
				say_why(q, "%s reads a changed file and is not a compiled object", target);
				ok = false;
			} else if (!fixdep_trailer(text.buf, target)) {
				say_why(q, "%s's record is not one quick builds know", target);
				ok = false;
			} else if (!compiled_with(text.buf, target, q->env->cc)) {
				/* make would compile every object again, with this gate's compiler */
				say_why(q, "%s was compiled by another compiler than %s", target,
					q->env->cc);
				ok = false;
			} else if (!add_archives(q, target)) {
				say_why(q, "%s is not linked through the archives", target);
				ok = false;
			} else {
				strlist_append(&q->objects, target);
			}
			free(target);
			if (ok && q->objects.n > QUICK_MAX_OBJECTS) {
				say_why(q, "more than %d objects read the changed files", QUICK_MAX_OBJECTS);
				ok = false;
			}
		}
	}
	strbuf_release(&list);
	strbuf_release(&text);
	return ok;
}

/* false (with q->why) for a changed file whose readers no .cmd file records. */
static bool changes_are_sources(struct quick *q, const struct strlist *changed)
{
	for (size_t i = 0; i < changed->n; i++) {
		const char *path = changed->items[i];

		if (path_is_outside_cmds(path)) {
			say_why(q, "%s is a build rule, script or tool", path);
			return false;
		}
	}
	return true;
}

/* false (with q->why) when a file is gone and objects read the change: make says what. */
static bool missing_changes_unread(struct quick *q, const struct strlist *changed)
{
	for (size_t i = 0; i < changed->n; i++) {
		char *path = xasprintf("%s/%s", q->env->src, changed->items[i]);
		bool gone = access(path, F_OK) != 0;

		free(path);
		if (gone && q->objects.n) {
			say_why(q, "%s was removed", changed->items[i]);
			return false;
		}
	}
	return true;
}

/* Whether kbuild runs scripts/check-local-export after each compile. */
static bool checks_local_export(const struct kernel_env *env)
{
	char *path = xasprintf("%s/scripts/Makefile.build", env->src);
	struct strbuf text = STRBUF_INIT;
	bool yes;

	strbuf_read_file(&text, path);
	yes = strstr(text.buf, "$(call cmd,check_local_export)") != NULL;
	strbuf_release(&text);
	free(path);
	return yes;
}

/*
 * Drop from MAKEFLAGS what belonged to the make that was asked: the
 * capture's --eval, and its jobserver, whose descriptors a later command
 * does not have (or has as something else).
 */
static void strip_make_flags(char *flags)
{
	static const char *const drop[] = { " --eval=", " --jobserver-auth=", " --jobserver-fds=",
					    NULL };

	for (size_t i = 0; drop[i]; i++) {
		char *p = strstr(flags, drop[i]), *end;

		if (!p)
			continue;
		for (end = p + strlen(drop[i]); *end && !(*end == ' ' && end[-1] != '\\'); end++)
			;
		memmove(p, end, strlen(end) + 1);
	}
}

/*
 * kbuild's environment for its commands: what a recipe of the top-level
 * Makefile sees, read once from make and kept in the build directory.
 */
static int load_env(struct quick *q, struct strbuf *err)
{
	char *path = xasprintf("%s/%s", q->build, QUICK_ENV);
	char *tmp = xasprintf("%s.new", path);
	const char *const *fixed;
	size_t n = 0, n_fixed = 0;
	int r = 0;

	if (access(path, R_OK) != 0) {
		char *eval = xasprintf("--eval=bg-kbuild-env: ; @env -0 >%s", tmp);
		const char *targets[] = { "-s", eval, "bg-kbuild-env", NULL };
		char *log = xasprintf("%s/kbuild-env.log", q->env->work);
		struct child_result res;

		r = kernel_make(q->env, q->env->src, q->build, targets, log, 120, NULL, NULL, &res,
				err);
		if (r == 0 && !child_ok(&res)) {
			strbuf_addf(err, "build: reading kbuild's environment failed (see %s)", log);
			r = -EIO;
		}
		if (r == 0 && rename(tmp, path) < 0) {
			r = -errno;
			strbuf_addf(err, "build: cannot write %s: %s", path, strerror(errno));
		}
		free(eval);
		free(log);
		if (r < 0)
			goto out;
	}
	r = strbuf_read_file(&q->envbuf, path);
	if (r < 0) {
		strbuf_addf(err, "build: cannot read %s: %s", path, strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < q->envbuf.len; i++)
		n += q->envbuf.buf[i] == '\0';
	/* what this gate sets wins over what was read: an older gate read it */
	fixed = kernel_build_env();
	while (fixed[n_fixed])
		n_fixed++;
	q->envv = xcalloc(n + n_fixed + 2, sizeof(*q->envv));
	n = 0;
	for (char *e = q->envbuf.buf; e < q->envbuf.buf + q->envbuf.len; e += strlen(e) + 1) {
		bool overridden = !strncmp(e, "CCACHE_DIR=", 11);

		for (size_t i = 0; i < n_fixed && !overridden; i++)
			overridden = !strncmp(e, fixed[i], strcspn(fixed[i], "=") + 1);
		if (!strncmp(e, "MAKEFLAGS=", 10))
			strip_make_flags(e);
		if (strchr(e, '=') && !overridden)
			q->envv[n++] = e;
	}
	for (size_t i = 0; i < n_fixed; i++)
		q->envv[n++] = (char *)fixed[i];
	q->ccache = xasprintf("CCACHE_DIR=%s", q->env->ccache_dir);
	q->envv[n++] = q->ccache;
out:
	free(path);
	free(tmp);
	return r;
}

/* Append @what and @output to the build log. */
static void log_step(struct quick *q, const char *what, const struct strbuf *output)
{
	FILE *f = fopen(q->log, "ae");

	if (!f)
		return;
	fprintf(f, "# quick: %s\n", what);
	fwrite(output->buf, 1, output->len, f);
	fclose(f);
}

/*
 * Run @argv in the build directory with kbuild's environment, its output
 * logged. 1 when it succeeded, 0 when it failed, -errno when it could not
 * run or timed out (@err).
 */
static int run(struct quick *q, const char *const *argv, const char *what, struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .env = (const char *const *)q->envv, .cwd = q->build,
			   .capture = &out, .timeout_sec = q->env->build_timeout };
	struct child_result res;
	int r;

	strbuf_init(&out, 16 * 1024 * 1024);
	r = child_run(&c, &res);
	log_step(q, what, &out);
	strbuf_release(&out);
	if (r < 0) {
		strbuf_addf(err, "build: cannot run %s: %s", what, strerror(-r));
		return r;
	}
	if (res.exec_errno || res.timed_out || res.signal) {
		strbuf_addf(err, "build: %s: ", what);
		child_describe(&c, &res, err);
		return -EIO;
	}
	return child_ok(&res) ? 1 : 0;
}

/* A target's record: its .cmd file and the command in it. */
struct record {
	const char *target;
	char *path;
	struct strbuf text;
	struct strbuf cmd;	/* unescaped, for the shell */
	const char *raw;	/* as recorded, for fixdep */
	size_t raw_len;
};

static void record_release(struct record *rec)
{
	free(rec->path);
	strbuf_release(&rec->text);
	strbuf_release(&rec->cmd);
	memset(rec, 0, sizeof(*rec));
}

static int record_read(struct quick *q, const char *target, struct record *rec,
		       struct strbuf *err)
{
	int r;

	memset(rec, 0, sizeof(*rec));
	rec->target = target;
	rec->path = cmd_file(q->build, target);
	rec->text = (struct strbuf)STRBUF_INIT;
	rec->cmd = (struct strbuf)STRBUF_INIT;
	/* kbuild runs every command under set -e: a compile that fails fails it */
	strbuf_adds(&rec->cmd, "set -e; ");
	r = strbuf_read_file(&rec->text, rec->path);
	if (r < 0) {
		strbuf_addf(err, "build: cannot read %s: %s", rec->path, strerror(-r));
		return r;
	}
	rec->raw = recorded_command(rec->text.buf, target, &rec->raw_len);
	if (!rec->raw || unescape(rec->raw, rec->raw_len, &rec->cmd) < 0) {
		strbuf_addf(err, "build: %s does not hold a command kbuild recorded", rec->path);
		return -EINVAL;
	}
	return 0;
}

/*
 * After @rec's command succeeded, as make does: for a target fixdep
 * records, fixdep writes its .cmd file again from the new dependency
 * file, and what kbuild appended after it is kept. 0, or -errno (@err).
 */
static int record_write(struct quick *q, struct record *rec, struct strbuf *err)
{
	const char *trailer = fixdep_trailer(rec->text.buf, rec->target);
	char *depfile, *tmp, *escaped;
	struct child_result res;
	FILE *f;
	int r;

	if (!trailer)
		return 0;
	depfile = dep_file(rec->target);
	tmp = xasprintf("%s.new", rec->path);
	escaped = xstrndup(rec->raw, rec->raw_len);
	{
		const char *argv[] = { "scripts/basic/fixdep", depfile, rec->target, escaped, NULL };
		struct child c = { .argv = argv, .cwd = q->build, .output_path = tmp,
				   .timeout_sec = 60 };

		r = child_run(&c, &res);
	}
	if (r == 0 && !child_ok(&res))
		r = -EIO;
	f = r == 0 ? fopen(tmp, "ae") : NULL;
	if (f) {
		if (fputs(trailer, f) < 0)
			r = -EIO;
		if (fclose(f) != 0)
			r = -EIO;
	} else if (r == 0) {
		r = -errno;
	}
	if (r == 0 && rename(tmp, rec->path) < 0)
		r = -errno;
	if (r < 0) {
		strbuf_addf(err, "build: fixdep could not write %s again (%s)", rec->path,
			    strerror(-r));
		unlink(tmp);
	} else {
		char *abs_dep = xasprintf("%s/%s", q->build, depfile);

		unlink(abs_dep);
		free(abs_dep);
	}
	free(depfile);
	free(tmp);
	free(escaped);
	return r;
}

/* As make does for kbuild (.DELETE_ON_ERROR): a target whose command failed goes. */
static void delete_target(struct quick *q, const char *target)
{
	char *path = xasprintf("%s/%s", q->build, target);

	unlink(path);
	free(path);
}

/*
 * Make @target again with its recorded command, then its record. 1 made,
 * 0 the command failed (the build fails), -errno (@err).
 */
static int remake(struct quick *q, const char *target, struct strbuf *err)
{
	struct record rec;
	int r = record_read(q, target, &rec, err);

	if (r == 0) {
		const char *argv[] = { "/bin/sh", "-c", rec.cmd.buf, NULL };

		r = run(q, argv, target, err);
		if (r == 0)
			delete_target(q, target);
		if (r > 0 && record_write(q, &rec, err) < 0)
			r = -EIO;
	}
	record_release(&rec);
	return r;
}

/* One compile of compile_objects(). */
struct compile {
	struct record rec;
	const char *argv[4];
	struct child c;
	struct strbuf out;
	bool running;
};

/*
 * What a compile that ended needs: its output logged, its record
 * written, kbuild's check of its exports. 1, 0 (it failed), -errno.
 */
static int compile_done(struct quick *q, struct compile *job, const struct child_result *res,
			struct strbuf *err)
{
	int r;

	log_step(q, job->rec.target, &job->out);
	if (res->exec_errno || res->timed_out || res->signal) {
		strbuf_addf(err, "build: %s: ", job->rec.target);
		child_describe(&job->c, res, err);
		return -EIO;
	}
	if (!child_ok(res)) {
		delete_target(q, job->rec.target);
		return 0;
	}
	r = record_write(q, &job->rec, err);
	if (r < 0)
		return r;
	if (q->local_export) {
		char *check = xasprintf("%s/scripts/check-local-export", q->env->src);
		const char *argv[] = { check, job->rec.target, NULL };

		r = run(q, argv, "check-local-export", err);
		free(check);
		return r;
	}
	return 1;
}

/*
 * Compile q->objects again, as many at once as there are processors, as
 * make -j does. Once one fails no other is started; those running end.
 * 1 all built, 0 one failed, -errno.
 */
static int compile_objects(struct quick *q, struct strbuf *err)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = q->objects.n, next = 0, running = 0;
	unsigned long done = 0;
	struct compile *jobs = xcalloc(n ? n : 1, sizeof(*jobs));
	int result = 1;

	if (cores < 1)
		cores = 1;
	while (next < n || running) {
		while (result > 0 && next < n && running < (size_t)cores) {
			struct compile *job = &jobs[next];
			int r = record_read(q, q->objects.items[next++], &job->rec, err);

			if (r == 0) {
				job->argv[0] = "/bin/sh";
				job->argv[1] = "-c";
				job->argv[2] = job->rec.cmd.buf;
				strbuf_init(&job->out, 16 * 1024 * 1024);
				job->c = (struct child){ .argv = job->argv, .cwd = q->build,
							 .env = (const char *const *)q->envv,
							 .capture = &job->out,
							 .timeout_sec = q->env->build_timeout };
				r = child_start(&job->c);
				if (r < 0)
					strbuf_addf(err, "build: cannot run %s: %s", job->rec.target,
						    strerror(-r));
			}
			if (r < 0)
				result = r;
			else
				job->running = true, running++;
		}
		if (result <= 0 && !running)
			break;
		for (size_t i = 0; i < next; i++) {
			struct child_result res;
			int r;

			if (!jobs[i].running || child_wait(&jobs[i].c, 20, &res) != 1)
				continue;
			jobs[i].running = false;
			running--;
			r = compile_done(q, &jobs[i], &res, err);
			if (r < result)
				result = r;
			progress_update(progress_stderr(), ++done);
		}
	}
	for (size_t i = 0; i < n; i++) {
		record_release(&jobs[i].rec);
		strbuf_release(&jobs[i].out);
	}
	free(jobs);
	return result;
}

/* Compile, archive, link. 1 built, 0 the build failed, -errno. */
static int rebuild(struct quick *q, struct strbuf *err)
{
	int r = compile_objects(q, err);

	/* a quiet tree: nothing that reads the change is in this kernel */
	if (!q->objects.n)
		return r;
	for (size_t i = q->archives.n; r > 0 && i-- > 0;)
		r = remake(q, q->archives.items[i], err);
	if (r > 0)
		r = remake(q, "vmlinux.a", err);
	for (size_t i = 0; r > 0 && link_targets[i]; i++) {
		char *path = cmd_file(q->build, link_targets[i]);
		bool recorded = access(path, F_OK) == 0;

		free(path);
		if (recorded)
			r = remake(q, link_targets[i], err);
	}
	return r;
}

static int depth_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int dx = 0, dy = 0;

	for (; *x; x++)
		dx += *x == '/';
	for (; *y; y++)
		dy += *y == '/';
	return dx != dy ? dx - dy : strcmp(*(char *const *)a, *(char *const *)b);
}

int quick_build(struct kernel_env *env, const struct strlist *changed, bool *ret_built,
		enum build_status *ret_status, struct strbuf *first_error, struct strbuf *err)
{
	const char *off = getenv("BG_QUICK_BUILD");
	struct quick q = { .env = env, .build = env->build, .envbuf = STRBUF_INIT,
			   .why = STRBUF_INIT };
	double start = now_seconds();
	char *vmlinux = xasprintf("%s/vmlinux", env->build);
	int r = 0;

	*ret_built = false;
	q.log = xasprintf("%s/build.log", env->work);
	if (off && !strcmp(off, "0"))
		say_why(&q, "BG_QUICK_BUILD=0");
	else if (!kernel_config_current(env))
		say_why(&q, "the kernel's configuration is to be made");
	else if (access(vmlinux, F_OK) != 0)
		say_why(&q, "%s holds no kernel", env->build);
	if (q.why.len || !changes_are_sources(&q, changed) || !find_readers(&q, changed) ||
	    !missing_changes_unread(&q, changed))
		goto declined;
	/* the archives, deepest first: each is written after its members */
	if (q.archives.n > 1)
		qsort(q.archives.items, q.archives.n, sizeof(*q.archives.items), depth_cmp);
	q.local_export = checks_local_export(env);
	r = load_env(&q, err);
	if (r < 0)
		goto out;
	{
		FILE *f = fopen(q.log, "we");

		if (f)
			fclose(f);
	}
	r = kernel_make_begin(env->build, err);
	if (r < 0)
		goto out;
	/* the same phase as make's build, for the log and the daemon's job page */
	progress_begin(progress_stderr(), "build", "objects", q.objects.n, 0);
	r = rebuild(&q, err);
	progress_end(progress_stderr());
	if (r < 0)
		goto out;	/* the mark stays: the next build removes what this one wrote */
	kernel_make_end(env->build);
	*ret_built = true;
	if (r > 0) {
		*ret_status = BUILD_OK;
	} else {
		/* a full disk is the machine's failure, never the patch's */
		r = kernel_no_space(env, q.log, err);
		if (r < 0)
			goto out;
		*ret_status = BUILD_FAILED;
		kernel_first_error(env->src, q.log, first_error);
	}
	r = 0;
	if (!q.objects.n)
		fprintf(stderr, "# build: quick: no object of this kernel reads the changed "
			"files; nothing to build\n");
	else
		fprintf(stderr, "# build: quick: %zu object%s read%s the changed files; "
			"compiled again and relinked without make in %.1f s%s\n", q.objects.n,
			q.objects.n == 1 ? "" : "s", q.objects.n == 1 ? "s" : "",
			now_seconds() - start,
			*ret_status == BUILD_OK ? "" : " (the build failed)");
	goto out;
declined:
	fprintf(stderr, "# build: make walks the tree: %s\n", q.why.buf);
out:
	free(q.envv);
	free(q.ccache);
	strbuf_release(&q.envbuf);
	strlist_release(&q.objects);
	strlist_release(&q.archives);
	strbuf_release(&q.why);
	free(q.log);
	free(vmlinux);
	return r;
}
