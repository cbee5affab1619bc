/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build: configure and build the test kernel from what is checked out in
 * env->src, into env->build, and read back what the build used.
 *
 *   kernel_build()       tinyconfig + fragment (when it changed), vmlinux
 *   kernel_clean()       make clean (the naive strategy, before each build),
 *                        or empty the folder when make cannot clean the tree
 *   kernel_used_files()  every tree file the last build read
 *   kernel_used_counts() the same, with how many objects read each
 *   kernel_make()        make as every kernel build here runs it
 */
#ifndef GATE_BUILD_H
#define GATE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/runcmd.h"
#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "source/workspace.h"

enum build_status {
	BUILD_OK,
	BUILD_FAILED,		/* the tree does not compile: @first_error says where */
};

/*
 * Build vmlinux (booted through its PVH entry) from what is checked out
 * in env->src. Returns 0 with
 * *ret_status set, or -errno for an infrastructure failure (message in
 * @err): make missing, disk full, a timeout.
 */
int kernel_build(struct kernel_env *env, enum build_status *ret_status,
		 struct strbuf *first_error, struct strbuf *err);

/*
 * make -C @src O=@build @targets (NULL-terminated) as every kernel build
 * here runs it: -j<cores>, env->cc with the shared ccache, fixed build
 * metadata; output to @log, stopped after @timeout_sec. @tick (unless
 * NULL) is called about once a second while it runs. 0 with @res (the
 * caller reads whether make succeeded), or -errno with @err when make
 * could not start, timed out or was killed. A make that did not end by
 * itself (stopped here, or killed with the gate) may leave files cut
 * short: the next kernel_make() in @build first removes every file it
 * wrote, and says so on stderr.
 */
int kernel_make(struct kernel_env *env, const char *src, const char *build,
		const char *const *targets, const char *log, int timeout_sec,
		void (*tick)(void *tick_arg), void *tick_arg,
		struct child_result *res, struct strbuf *err);

/*
 * What kernel_make() does before and after make, for a build that runs
 * kbuild's commands itself (quick.h): undo what an interrupted one left
 * and mark @build (0, or -errno with @err); remove the mark once it
 * ended by itself.
 */
int kernel_make_begin(const char *build, struct strbuf *err);
void kernel_make_end(const char *build);

/* The fixed build metadata every kernel make here runs with ("NAME=value", NULL-ended). */
const char *const *kernel_build_env(void);

/* true when env->build's .config was made from the current fragment */
bool kernel_config_current(const struct kernel_env *env);

/*
 * The .cmd files of @build, one path a line, into @list (initialised
 * here). 0, or -errno.
 */
int kernel_cmd_files(const char *build, struct strbuf *list);

/*
 * The next tree file a .cmd file's text names at or after @pos (an
 * absolute path under @src, @src_len long): *@ret_path and *@ret_len say
 * it, relative to @src; returns where to look on from, or NULL.
 */
const char *kernel_cmd_path(const char *pos, const char *src, size_t src_len,
			    const char **ret_path, size_t *ret_len);

/* strcmp() for qsort() and bsearch() over arrays of strings */
int kernel_strcmp_ptr(const void *a, const void *b);

/*
 * The first line of make's @log that says what broke, with the @src
 * prefix taken off its path; "make failed (see LOG)" when none does.
 */
void kernel_first_error(const char *src, const char *log, struct strbuf *out);

/*
 * A build whose @log says the disk was full failed for the machine, not
 * the patch: -ENOSPC with @err, and env->build emptied (what was written
 * may be cut short); else 0.
 */
int kernel_no_space(struct kernel_env *env, const char *log, struct strbuf *err);

/*
 * make clean in env->build; when make fails (a folder a Makefile names is
 * missing from the tree), env->build is emptied instead, and said. 0, or
 * -errno with a message in @err.
 */
int kernel_clean(struct kernel_env *env, struct strbuf *err);

/*
 * Append to @ret_files the tree-relative paths of every file the last
 * build read (sources, headers, linker scripts), from the build's .cmd
 * files, sorted.
 */
int kernel_used_files(struct kernel_env *env, struct strlist *ret_files);

/*
 * The same for the build directory @build, with @ret_counts[i] (unless
 * NULL): how many of its .cmd files (one per object or generated file)
 * name @ret_files[i], a rough count of what a change to it recompiles.
 * The caller frees @ret_counts too.
 */
int kernel_used_counts(struct kernel_env *env, const char *build, char ***ret_files,
		       unsigned **ret_counts, size_t *ret_n);

/* true for a build rule or configuration file (Kconfig*, Makefile*, Kbuild*). */
bool kernel_path_is_rule(const char *path);

/*
 * true when a change to @path can change the test kernel. @used: sorted,
 * as kernel_used_files() gives it.
 */
bool kernel_path_exercised(const struct strlist *used, const char *path);

#endif
