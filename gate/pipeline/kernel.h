/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel: the packaged kernel's cache layout, and building and booting
 * whatever is checked out in the tree. Shares its cache with
 * kernel-tests/run: <cache>/linux-<version>/{src,build,run,lock}.
 * Every build runs in env->build (<...>/build); slots.h swaps the build
 * directory that suits the tree into it first.
 *
 *   kernel_env_init()   paths, and the packages the job needs
 *   kernel_build()      tinyconfig + fragment (when it changed), bzImage
 *   kernel_boot()       initramfs with the suite, QEMU, console captured
 *   kernel_used_files() every tree file the last build read
 */
#ifndef GATE_KERNEL_H
#define GATE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "parse/ktap.h"

struct kernel_env {
	char *top;		/* where the suite comes from (defaults.h: suite_top()) */
	bool installed;		/* @top is an installed library directory, not a source tree */
	char *tarball;		/* /usr/src/linux-source-6.1.tar.xz */
	char *version;		/* "6.1" */
	char *dir;		/* <cache>/linux-<version> */
	char *src, *build, *work;
	char *fragment;
	char *config_stamp;	/* sha256 of the fragment */
	char *suite_init, *suite_probe;
	char *cc;		/* ccache-cc, the compiler make is given */
	char *suite_version;	/* sha256 of the two suite binaries */
	char accel[8];		/* "kvm" once a probe showed it works, else "tcg" */
	char boot_token[33];	/* the current boot's marker token (hex) */
	int build_timeout, boot_timeout;
	int lock_fd;
};

/*
 * Check the packages the gate needs (a missing one is named with the
 * apt-get line that installs it), build the suite, set up paths under
 * @cache and take the cache lock. 0 or -errno with a message in @err.
 */
int kernel_env_init(struct kernel_env *env, const char *top, const char *cache,
		    struct strbuf *err);
void kernel_env_release(struct kernel_env *env);

enum build_status {
	BUILD_OK,
	BUILD_FAILED,		/* the tree does not compile: @first_error says where */
};

/*
 * Build bzImage from what is checked out in env->src. Returns 0 with
 * *ret_status set, or -errno for an infrastructure failure (message in
 * @err): make missing, disk full, a timeout.
 */
int kernel_build(struct kernel_env *env, enum build_status *ret_status,
		 struct strbuf *first_error, struct strbuf *err);

/*
 * Boot the last build with the suite. @console receives the console
 * output (capped). Returns 0 with *ret_status (ktap.h), or -errno (QEMU
 * could not start) with a message in @err. @evidence gets the panic line or the
 * console tail when the boot failed.
 */
int kernel_boot(struct kernel_env *env, struct strbuf *console, enum boot_status *ret_status,
		struct strbuf *evidence, struct strbuf *err);

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

/* true when a change to @path can change the test kernel. */
/* @used: sorted, as kernel_used_files() gives it. */
bool kernel_path_exercised(const struct strlist *used, const char *path);

#endif
