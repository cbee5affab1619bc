/* SPDX-License-Identifier: GPL-2.0 */
/*
 * quick: rebuild the test kernel after a change to a few source files
 * without make's walk over the whole tree (about 2 s of a 3.5 s step on
 * this machine), by running again the commands kbuild recorded.
 *
 * A build directory whose last make succeeded holds, per target, a .cmd
 * file: the command that made it and every file it read. When the files
 * that differ from what the directory was built from are read only by
 * compiled objects that are members of the kernel's archives, what make
 * would do is exactly: compile those objects again with their recorded
 * commands (fixdep writing their .cmd files anew), run the checks kbuild
 * runs after a compile, write the archives above them again, and relink
 * vmlinux with the recorded link commands, in kbuild's environment (read
 * once per build directory from make itself, kept in .bg-kbuild-env).
 *
 * Anything else is left to make, and said: a build rule, Kconfig file,
 * script or tool changed; a changed file is read by a generated file, a
 * linker script or an object linked some other way; a file an object
 * read was removed; more than QUICK_MAX_OBJECTS objects read the change;
 * the directory was not built cleanly from a known tree. Files no kernel
 * build reads (MAINTAINERS and git's files, tools/perf, tools/testing)
 * send nothing to make. BG_QUICK_BUILD=0 turns it off. tests/quick.sh checks that make, run after it, finds
 * nothing to do and that the kernel is the one make builds.
 *
 *   quick_build()   rebuild env->build for the files in @changed, or say why not
 */
#ifndef GATE_QUICK_H
#define GATE_QUICK_H

#include <stdbool.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "kernel/build.h"
#include "source/workspace.h"

#define QUICK_MAX_OBJECTS 24
#define QUICK_ENV ".bg-kbuild-env"

/*
 * env->build was built cleanly from a tree that differs from what is now
 * checked out in env->src by the tree paths in @changed (sorted). Either
 * rebuild it without make (*@ret_built true, *@ret_status and
 * @first_error as kernel_build() gives them), or leave everything as it
 * is (*@ret_built false) and say on stderr why make must do it. 0, or
 * -errno with @err for an infrastructure failure (a disk error, a
 * timeout).
 */
int quick_build(struct kernel_env *env, const struct strlist *changed, bool *ret_built,
		enum build_status *ret_status, struct strbuf *first_error, struct strbuf *err);

#endif
