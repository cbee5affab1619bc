/* SPDX-License-Identifier: GPL-2.0 */
/*
 * patch: parse one patch file into files and hunks.
 *
 * The input is what a stable queue holds: a git format-patch mail
 * (headers, message, "---", diffstat, "diff --git" sections, "-- "
 * signature) or a plain diff -u / quilt patch ("--- a/X", "+++ b/X").
 * It is untrusted bytes with a length: no NUL terminator is needed, and
 * a NUL byte anywhere makes it "not a text file".
 *
 * What is read, following git am + git apply:
 *  - Everything before the first line that starts a patch ("diff -",
 *    "Index: ", "--- <name>", or a "---" separator) is the message and
 *    is ignored, so a commit message may quote hunk headers.
 *  - After that, lines that are no part of a file section (diffstat,
 *    signature) are skipped, but a "@@ -" hunk header outside a file
 *    section is an error.
 *  - A hunk ends when its header's line counts are used up, so the mail
 *    signature "-- " is never taken for a removed line.
 *  - Paths lose their first component (git apply -p1: "a/", "b/", or a
 *    quilt "linux.orig/"), or as many as patch_parse_strip() is told
 *    (-p0 keeps them whole); "rename from/to" and "copy from/to" names,
 *    which have no such prefix, lose one component less. C-quoted names
 *    ("a/x\ty") are unquoted.
 *  - Without "diff --git" (diff -u, quilt's "Index: x" and "====" lines
 *    before "--- "): "--- /dev/null" adds a file, "+++ /dev/null" deletes
 *    one, and so does a single hunk that needs no old lines (adds) or
 *    leaves none (deletes), as git apply has it. When the --- and +++
 *    names differ after -pN, the +++ one is the file, unless the ---
 *    one is a prefix of it ("x" and "x.orig").
 *  - git's extended headers: "old mode"/"new mode", "new file mode",
 *    "deleted file mode", "rename from/to" and "copy from/to" (with or
 *    without hunks after them), "similarity index", "index".
 *  - Binary patches ("GIT binary patch", "Binary files ... differ") are
 *    refused, naming the file: "line 40: fw/x.bin: binary patch: not
 *    applied".
 *  - An empty line inside a hunk is an empty context line (mailers strip
 *    the trailing space), as git apply takes it.
 *
 * Limits: input of at most PATCH_MAX_BYTES, at most PATCH_MAX_FILES file
 * sections, line numbers and counts that fit in an unsigned with
 * start + count not overflowing.
 */
#ifndef GATE_PATCH_H
#define GATE_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"

#define PATCH_MAX_BYTES (16u << 20)
#define PATCH_MAX_FILES 10000
#define PATCH_MAX_STRIP 99	/* largest N of -pN, as series.h's SERIES_STRIP_MAX */

struct patch_line {
	char origin;		/* ' ' context, '-' removed, '+' added */
	const char *text;	/* points into patch->copy; no newline */
	size_t len;
	bool no_eol;		/* followed by "\ No newline at end of file" */
};

struct patch_hunk {
	/*
	 * As in "@@ -old_start,old_count +new_start,new_count @@"; a count
	 * left out is 1. With a count of 0 the start is the line after
	 * which the lines go (0: at the top).
	 */
	unsigned old_start, old_count, new_start, new_count;
	unsigned patch_line;	/* 1-based line of the @@ header in the patch */
	struct patch_line *lines;
	size_t n_lines;
};

/* PATCH_COPY: new_path gets old_path's content (hunks applied); old_path stays. */
enum patch_change { PATCH_MODIFY, PATCH_ADD, PATCH_DELETE, PATCH_RENAME, PATCH_COPY };

struct patch_file {
	/* without a/ b/; for ADD old_path is NULL, for DELETE new_path is NULL */
	char *old_path, *new_path;
	enum patch_change change;
	unsigned new_mode;	/* 0 when not stated, else 0100644, 0100755 or 0120000 */
	unsigned patch_line;	/* 1-based line where the file's section starts */
	struct patch_hunk *hunks;
	size_t n_hunks;
};

struct patch {
	struct patch_file *files;
	size_t n_files;
	char *copy;		/* owned copy of the input the lines point into */
};

/*
 * Parse @len bytes at @text into @ret, which the caller then releases
 * with patch_release() (also after a failure; @ret is always set).
 *
 * Returns 0; -EINVAL for a patch that is malformed or that the gate
 * refuses (binary, a path outside the tree, a truncated hunk, a
 * submodule change), with one line appended to @err that names the patch
 * line and the path, e.g.
 *   "line 36: hunk @@ -58,6 +58,12 @@ in fs/binfmt_script.c is truncated: ..."
 *   "line 33: ../etc/passwd: leaves the tree"
 *   "empty patch: no diff in it"
 * or -E2BIG past one of the limits above (also with a message).
 * Every valid patch has at least one file; a file may have no hunks (a
 * mode change, a pure rename or copy, an empty file added or deleted).
 * Paths are stripped as git apply -p1 does.
 */
int patch_parse(const char *text, size_t len, struct patch *ret, struct strbuf *err);

/*
 * patch_parse() with @strip leading path components dropped from the
 * names (git apply -p@strip; a series line's "-pN", series.h). A name
 * with fewer components is refused: "line 3: x/y: fewer than 2 leading
 * directories to strip (-p2)". @strip above PATCH_MAX_STRIP: -EINVAL.
 */
int patch_parse_strip(const char *text, size_t len, unsigned strip, struct patch *ret,
		      struct strbuf *err);

void patch_release(struct patch *p);

/*
 * Append @len bytes at @s to @sb for a message: printable ASCII as is,
 * other bytes C-escaped ("\t", "\r", "\033"), so a hostile path or line
 * cannot forge lines in a log.
 */
void patch_add_escaped(struct strbuf *sb, const char *s, size_t len);

#endif
