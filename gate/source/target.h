/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target: one packaged kernel tree the gate can gate against, named by
 * its source tarball: /usr/src/linux-source-X.Y.tar.xz, which Debian's
 * linux-source-X.Y package installs. Everything else follows from it:
 * the version X.Y, the package that provides it, the cache folder
 * (<cache>/linux-X.Y) and the stable-queue folder (queue-X.Y). This is
 * the one place that knows the default tree and how these are derived.
 */
#ifndef GATE_TARGET_H
#define GATE_TARGET_H

#include "basic/strbuf.h"

/* The packaged tree gated by default. */
#define TARGET_DEFAULT_TARBALL "/usr/src/linux-source-6.1.tar.xz"

struct target {
	char *tarball;		/* /usr/src/linux-source-6.1.tar.xz */
	char *version;		/* 6.1 */
	char *package;		/* linux-source-6.1 */
	char *series_dir;	/* queue-6.1 */
};

/*
 * The target of @tarball: the version is its file name without the
 * "linux-source-" prefix and the ".tar*" suffix.
 */
void target_from_tarball(struct target *t, const char *tarball);
/* $BG_TARBALL's target, else TARGET_DEFAULT_TARBALL's. */
void target_default(struct target *t);
/*
 * The target a run gates against, the first of:
 *  - @tree: a source package ("linux-source-6.12": its tarball under
 *    /usr/src) or a tarball's path (anything with a '/' or ".tar");
 *  - $BG_TARBALL;
 *  - the tree @series_dir names: queue-X.Y is linux-source-X.Y;
 *  - TARGET_DEFAULT_TARBALL.
 * Whether the tarball is there is not checked here (kernel_env_init()
 * names the package to install). 0, or -EINVAL with a message in @err
 * for a @tree that is neither a package nor a path.
 */
int target_resolve(struct target *t, const char *tree, const char *series_dir,
		   struct strbuf *err);
void target_release(struct target *t);
/*
 * 0 when @t's tarball can be read, else -ENOENT with "package missing:
 * PACKAGE (no TARBALL; apt-get install PACKAGE)" in @err.
 */
int target_check(const struct target *t, struct strbuf *err);

#endif
