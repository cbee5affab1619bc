/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export: write a commit of the cache's tree repositories as plain files,
 * so a maintainer can build exactly the tree a run called safe.
 *
 * The commit is looked for in every tree repository of the cache
 * (<cache>/linux-<version>/src, one per packaged tree), read only: no
 * lock is taken, a run may go on beside it. Files are written with their
 * modes (0644, 0755) and symlinks as symlinks into a new folder next to
 * @dir, which is renamed to @dir once complete, so @dir never holds half
 * a tree. @dir must not exist or be an empty folder; anything else is
 * refused and nothing is overwritten.
 */
#ifndef GATE_EXPORT_H
#define GATE_EXPORT_H

#include "basic/strbuf.h"

/*
 * Write commit @commit_hex (40 hex digits) into @dir. Returns 0 and
 * the number of files written in *ret_files; or -EEXIST when @dir is
 * not empty, -ENOENT when no repository under @cache holds the commit,
 * another -errno when a file cannot be written; each with one line in
 * @err naming the path and the cause.
 */
int export_commit(const char *cache, const char *commit_hex, const char *dir,
		  unsigned long *ret_files, struct strbuf *err);

#endif
