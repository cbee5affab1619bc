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
void target_release(struct target *t);

#endif
