/* SPDX-License-Identifier: GPL-2.0 */
/*
 * apply: apply a parsed patch the way `git apply` does: a hunk that does
 * not match at its stated line is searched for at an offset, nearest
 * first; there is no fuzz (every context line must match exactly,
 * whitespace included).
 *
 * libgit2's git_apply matches a hunk only at the line its header names,
 * and stable patches made against a neighbouring release are routinely
 * a few lines off, so this module does the search itself and reaches
 * files only through the callbacks below (a libgit2 tree, or memory).
 *
 * Rules, as git apply has them:
 *  - All or nothing: the new content of every file is computed first;
 *    nothing is written unless every file of the patch applies.
 *  - The hunks of a file apply in order. Hunk k is tried first at its
 *    stated line shifted by the offset hunk k-1 landed at, then at
 *    +1, -1, +2, -2, ... lines from there over the whole file, never
 *    before the end of the lines hunk k-1 matched.
 *  - A hunk stated at line 0 or 1 must match at the start of the file,
 *    and a hunk with no context after its last change must match at its
 *    end (git's match_beginning / match_end), so an append at the end of
 *    a file never lands in the middle of it.
 *  - "\ No newline at end of file" is part of the match: a line without
 *    a newline only matches the last line of a file that has none.
 *  - Adding a file that exists, or modifying, deleting or renaming one
 *    that does not, fails. Deleting needs the hunks to remove every
 *    line. Added files get the stated mode (default 0100644); others
 *    keep the mode the store reports unless the patch states one
 *    ("new mode": a mode change with or without hunks).
 *  - A copy (PATCH_COPY) writes its new path from the old one's content
 *    with the hunks applied and leaves the old path as it is; the new
 *    path must not exist. A rename also removes the old path.
 *  - Several sections of one patch may touch one path: each sees the
 *    result of the ones before it.
 *  - When the patch does not apply but its reverse does (offsets
 *    allowed, nothing written), it is APPLY_ALREADY.
 */
#ifndef GATE_APPLY_H
#define GATE_APPLY_H

#include "basic/strbuf.h"
#include "parse/patch.h"

struct apply_store_ops {
	/*
	 * Append the content of @path to @ret_content and set @ret_mode
	 * (0100644, 0100755, 0120000; 0 is taken as 0100644). Returns 0,
	 * -ENOENT when @path does not exist, another negative errno when it
	 * cannot be read.
	 */
	int (*read)(void *ctx, const char *path, struct strbuf *ret_content, unsigned *ret_mode);
	/* Create or replace @path. 0 or a negative errno. */
	int (*write)(void *ctx, const char *path, const char *content, size_t len, unsigned mode);
	/* Remove @path, which exists. 0 or a negative errno. */
	int (*remove)(void *ctx, const char *path);
};

enum apply_status {
	APPLY_CLEAN,	/* every hunk at its stated line */
	APPLY_OFFSET,	/* applied, some hunk at an offset; max |offset| in .offset */
	APPLY_ALREADY,	/* does not apply, but its reverse applies: already in the tree */
	APPLY_FAILED,	/* does not apply: .file and .hunk say where, .message says why */
};

struct apply_outcome {
	enum apply_status status;
	int offset;		/* largest |offset| in lines, for APPLY_OFFSET */
	char *file;		/* owned; the file that failed, for APPLY_FAILED */
	unsigned hunk;		/* 1-based hunk within that file; 0: the file as a whole */
	/*
	 * FAILED: one line, e.g. "fs/exec.c: hunk 2 (patch line 57) does not
	 * match at line 1815 nor anywhere after line 1790; at line 1815 the
	 * file has "..." where the patch expects "..."".
	 * ALREADY: why the forward direction failed, for the record.
	 * On a negative return: what could not be read or written.
	 */
	struct strbuf message;
};

/*
 * Apply @p through @ops/@ctx. Writes (then removes) happen only when the
 * whole patch applies; removes go first so a file may become a directory.
 *
 * Returns 0 whenever an outcome was determined (APPLY_FAILED too), or a
 * negative errno when the store failed (-EIO from a read, say); a store
 * failure while writing can leave the writes done so far.
 * @ret is initialized here in every case; release it with
 * apply_outcome_release().
 */
int patch_apply(const struct patch *p, const struct apply_store_ops *ops, void *ctx,
		struct apply_outcome *ret);

void apply_outcome_release(struct apply_outcome *o);

#endif
