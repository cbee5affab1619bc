/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workspace: the packaged kernel's cache layout and what a job needs
 * before it builds or boots anything: the packages, the suite, the paths
 * and the cache lock. <cache>/linux-<version>/{src,build,gate,lock}, the
 * compiler make is given (ccache-cc-<hash>: kernel_env_init()), and
 * naive/ for the naive strategy. Every build runs in env->build
 * (<...>/build); slots.h swaps the build directory that suits the tree
 * into it first. Building is build.h, booting boot.h.
 *
 *   kernel_env_init()   paths, packages, suite, lock
 *   kernel_env_unlock() give the lock up while nothing in the cache is used
 *   kernel_env_relock() take it back
 *   kernel_env_naive()  the naive strategy's own folders and compiler
 */
#ifndef GATE_WORKSPACE_H
#define GATE_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "source/target.h"

struct kernel_env {
	char *top;		/* where the suite comes from (defaults.h: suite_top()) */
	bool installed;		/* @top is an installed library directory, not a source tree */
	char *tarball;		/* /usr/src/linux-source-6.1.tar.xz */
	char *version;		/* "6.1" (target.h: both from $BG_TARBALL or the default) */
	char *package;		/* "linux-source-6.1" */
	char *dir;		/* <cache>/linux-<version> */
	char *ccache_dir;	/* CCACHE_DIR of every build: <cache>/ccache */
	char *src, *build, *work;
	char *fragment;
	char *config_stamp;	/* sha256 of the fragment */
	char *suite_init, *suite_probe;
	char *cc;		/* the compiler make is given: ccache-cc as kept in @dir
				 * (kernel_env_init()), gcc when naive */
	bool naive;		/* kernel_env_naive(): own folders, plain gcc */
	char *suite_version;	/* sha256 of the two suite binaries */
	char accel[8];		/* "kvm" once a probe showed it works, else "tcg" */
	char boot_token[33];	/* the current boot's marker token (hex) */
	int build_timeout, boot_timeout;
	int lock_fd;
	bool unlocked;		/* kernel_env_unlock() gave the lock up */
	unsigned lock_epoch;	/* times the lock was taken back: what was known of the cache may be stale */
};

/*
 * For the tree of @target (NULL: target_default()): check the packages
 * the gate needs (a missing one, the tree's own included, is named with
 * the apt-get line that installs it), build the suite, set up paths
 * under @cache and take the cache lock. 0 or -errno with a message in
 * @err.
 */
int kernel_env_init(struct kernel_env *env, const char *top, const char *cache,
		    const struct target *target, struct strbuf *err);
void kernel_env_release(struct kernel_env *env);

/*
 * The Slurm executor's coordinator waits for its steps without using the
 * cache: it gives the lock up for that time, so another run of the same
 * tree (another queue of the branch) can apply its patches and submit its
 * own steps meanwhile. kernel_env_relock() waits for the lock as
 * kernel_env_init() does and counts @lock_epoch up: whoever remembers
 * what the cache's folders held (compile_check.h) looks again. 0, or
 * -errno with a message in @err.
 */
void kernel_env_unlock(struct kernel_env *env);
int kernel_env_relock(struct kernel_env *env, struct strbuf *err);

/*
 * Switch @env to the naive strategy (bench/naive-gate): its own source
 * tree, build and work folders under <dir>/naive, plain gcc without
 * ccache; the folders are created (the source tree is tree.h's
 * tree_open_shared()). The cache lock stays the one kernel_env_init()
 * took. 0, or -errno with a message in @err.
 */
int kernel_env_naive(struct kernel_env *env, struct strbuf *err);

#endif
