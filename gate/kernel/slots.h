/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slots: a small pool of kernel build directories over the one source
 * tree, so that bisection steps on both sides of a change to a widely
 * included header each get an incremental build.
 *
 * A slot is a build directory with a stamp, .bg-tree: the git tree ids
 * its objects may have been built from, one per line. A clean slot names
 * one tree (its last build succeeded); a build that started and did not
 * succeed leaves the old and the new ids and a last line "-", since its
 * objects are then a mixture. A slot holding files but no readable stamp
 * is emptied before use. Every build runs in <cache>/linux-<version>/build
 * (env->build); the other slots are parked
 * as build-1, build-2, ... and swapped in by renaming, so the absolute
 * paths a build records stay true.
 *
 * make trusts timestamps, and the source tree is shared, so before
 * building tree T in slot S each file that differs between T and a tree
 * in S's stamp gets the current time, and every other file gets
 * SLOT_OLD_MTIME, older than any object, which undoes what a checkout for
 * another slot wrote: that file's content is what S's objects were built
 * from. Every builder goes through here (executor.h: the gate's runs and
 * `backport-gate boot`, which kernel-tests/run wraps).
 *
 * Setting every file's time is a walk over 78,000 files (about 1.2 s).
 * After it, slots_prepare() touches only what differs from the tree it
 * left, and it keeps that tree, the paths it made new and the identity of
 * git's index in <dir>/SLOT_SRC_TIMES, so the next process (each
 * kernel-tests/run step is one) starts from there instead of walking. The
 * file is removed before the tree changes and written once it is done, so
 * a process killed in between leaves none; a record whose index file is
 * not the one there now (any other checkout writes it anew) or whose tree
 * is not HEAD's is not believed.
 *
 * Choosing: the slot whose stamp is closest to T, by the number of objects
 * the differing files reach (each file weighs the number of the build's
 * .cmd files that name it). When even the closest needs at least
 * BG_SLOT_COPY_OBJECTS (default 100) objects recompiled, its objects are
 * first copied to another slot, which keeps its tree for the next step
 * back: a new slot while there are fewer than BG_BUILD_SLOTS (default 3,
 * at most SLOTS_MAX), else the least recently used one is replaced.
 *
 *   slots_open()          read the stamps
 *   slots_select_built()  swap in a slot holding T, if any
 *   slots_cost()          what building T would recompile, for choosing among trees
 *   slots_prepare()       choose, copy, swap in, check T out, set timestamps
 *                         (every file when there is no record, then only
 *                         what changed)
 *   slots_finish()        record whether the build succeeded
 */
#ifndef GATE_SLOTS_H
#define GATE_SLOTS_H

#include <limits.h>
#include <stdbool.h>
#include <time.h>

#include "basic/strbuf.h"
#include "source/tree.h"
#include "source/workspace.h"

#define SLOTS_MAX 8
#define SLOT_TREES_MAX 8
#define SLOT_OLD_MTIME 946684800	/* 2000-01-01 00:00:00 UTC */
#define SLOT_STAMP ".bg-tree"
#define SLOT_SRC_TIMES ".bg-src-times"	/* in env->dir: the times for the next process */
#define SLOTS_COST_ALL UINT_MAX	/* slots_cost(): no slot has objects, everything is built */

struct build_slot {
	char *path;
	git_oid trees[SLOT_TREES_MAX];
	size_t n_trees;		/* 0: empty, no objects */
	bool dirty;		/* a build started and did not succeed: objects are a mixture */
	time_t used;		/* when it was last chosen (the stamp's mtime) */
};

struct build_slots {
	struct kernel_env *env;
	struct kernel_tree *tree;
	struct build_slot slot[SLOTS_MAX];
	size_t n, max;
	unsigned copy_objects;
	int current;		/* the slot last swapped in; -1 before any */
	git_oid building;	/* the tree slots_prepare() readied */
	/* objects per file, from one build's .cmd files (read once) */
	char **weight_paths;
	unsigned *weights;
	size_t n_weights;
	bool weights_read;
	unsigned copies;	/* slots copied by this struct's slots_prepare() calls */
	/*
	 * What this struct's last slots_prepare() left in the source tree,
	 * when @known: the working tree and index hold tree @head, and every
	 * file has SLOT_OLD_MTIME but those in @fresh. The gate holds the
	 * cache lock for its whole run, so nothing else writes there: the
	 * next checkout and ageing then touch only the paths that differ
	 * from @head and those in @fresh, not all 78,000 files. slots_open()
	 * reads them from SLOT_SRC_TIMES when a process left a record that
	 * still holds; else the first slots_prepare() ages every file.
	 */
	bool known;
	git_oid head;
	struct strlist fresh;
	/*
	 * When the slot the last slots_prepare() swapped in was clean and
	 * held one tree (@changed_known): the paths that differ between that
	 * tree and the one checked out, sorted. quick.h rebuilds from them.
	 */
	bool changed_known;
	struct strlist changed;
};

/*
 * Read the slots under env->dir (env->build must exist) and finish a swap
 * cut short. A slot with files and no valid stamp is emptied. 0, or
 * -errno with a message in @err.
 */
int slots_open(struct build_slots *s, struct kernel_env *env, struct kernel_tree *tree,
	       struct strbuf *err);
void slots_close(struct build_slots *s);

/*
 * true when a clean slot holds exactly the tree @tree_id, now swapped in
 * at env->build: that tree needs no build.
 */
bool slots_select_built(struct build_slots *s, const git_oid *tree_id);

/*
 * About how many objects building @tree_id would compile, as
 * slots_prepare() would choose its slot: 0 when a clean slot holds it,
 * SLOTS_COST_ALL when every slot is empty. Nothing is changed on disk.
 * 0, or -errno with a message in @err.
 */
int slots_cost(struct build_slots *s, const git_oid *tree_id, unsigned *ret_objects,
	       struct strbuf *err);

/*
 * Get env->build ready to build @commit (whose tree is @tree_id): choose
 * the slot, keep a copy of it if needed, swap it in, check @commit out,
 * set the timestamps and stamp the slot as being built. 0, or -errno with
 * a message in @err.
 */
int slots_prepare(struct build_slots *s, const git_oid *commit, const git_oid *tree_id,
		  struct strbuf *err);

/* After the build slots_prepare() readied: @ok records the slot as clean. */
int slots_finish(struct build_slots *s, bool ok, struct strbuf *err);

#endif
