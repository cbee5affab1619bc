/* SPDX-License-Identifier: GPL-2.0 */
/*
 * series: parse the text of a stable-queue `series` file (the ordered list
 * of patch files in one queue directory, as quilt reads it).
 *
 *   struct series series;
 *   struct strbuf err = STRBUF_INIT;
 *   int r = series_parse(text, len, "queue-6.1/series", &series, &err);
 *
 *   if (r < 0)
 *           ... report err.buf ...
 *   for (size_t i = 0; i < series.n_entries; i++)
 *           if (series.entries[i].error)
 *                   ... report series.entries[i].error, skip it ...
 *   series_release(&series);
 *   strbuf_release(&err);
 *
 * Syntax, one line at a time (lines end in "\n"; a final line without one
 * still counts):
 *   - leading and trailing blanks (space, tab, '\r', '\v', '\f') are trimmed,
 *     so CRLF files read the same as LF ones;
 *   - blank lines and lines whose first non-blank character is '#' are
 *     ignored;
 *   - after a name, everything from the first blank followed by '#' is a
 *     comment ("a.patch  # fixes b" names "a.patch"; "a#b.patch" is a name);
 *   - the first word left is the file name, relative to the queue
 *     directory; it need not end in ".patch";
 *   - the words after it are quilt's patch options. Only the strip level
 *     is taken: "-pN" (N from 0 to SERIES_STRIP_MAX), as in
 *     "foo.patch -p0"; without it the level is 1 (quilt's and git's
 *     default). Any other option (-R, --fuzz=3, ...) makes an error
 *     that names it: the gate would not apply such a patch as quilt does.
 *
 * A name that cannot be used safely is still returned as an entry, with
 * ->error set, so the caller can report every bad line at once; the rest of
 * the series is parsed as usual. A name is unusable when it
 *   - is absolute (starts with '/'),
 *   - has a ".." path component (it would leave the queue directory),
 *   - is longer than SERIES_NAME_MAX bytes,
 *   - is followed by an option other than one "-pN",
 *   - is listed a second time (the later occurrences carry the error; only
 *     names without another error are compared),
 *   - or its line contains a NUL byte: the file is not text. Such a line
 *     becomes an entry with an error even if it looks like a comment.
 * Errors read like
 *   queue-6.1/series:7: "../x.patch" leaves the queue directory
 *   queue-6.1/series:9: "a.patch" is listed twice (first on line 3)
 *   queue-6.1/series:4: "b.patch" has option "-R", which the gate does not support (only -pN)
 * with the name quoted C-style (control bytes escaped, long names cut).
 */
#ifndef GATE_SERIES_H
#define GATE_SERIES_H

#include <stddef.h>

#include "basic/strbuf.h"

#define SERIES_MAX_BYTES	(4u << 20)	/* whole file, 4 MiB */
#define SERIES_MAX_ENTRIES	10000u
#define SERIES_NAME_MAX		255u		/* bytes, like NAME_MAX */
#define SERIES_STRIP_MAX	99u		/* largest N of "-pN" */

struct series_entry {
	/*
	 * Owned. The name as written, trimmed and without its comment. A NUL
	 * byte in it (only ever in an entry with ->error set) is stored as
	 * the two characters "\0" so the string is not cut short.
	 */
	char *name;
	unsigned line;		/* 1-based line number in the file */
	unsigned strip;		/* leading path components to strip: "-pN", default 1 */
	char *error;		/* owned; NULL when the name is usable */
};

struct series {
	struct series_entry *entries;	/* owned, in file order */
	size_t n_entries;
};

/*
 * Parse @len bytes at @text (need not be NUL-terminated; may be NULL when
 * @len is 0). @origin names the file in messages, e.g. "queue-6.1/series";
 * NULL means "series".
 *
 * Returns 0 and fills @ret_series (release it with series_release()), even
 * when some entries carry errors. Returns a negative errno, leaves
 * @ret_series empty and appends a message to @err (when @err is not NULL)
 * when the series as a whole cannot be used:
 *   -E2BIG   more than SERIES_MAX_BYTES bytes or SERIES_MAX_ENTRIES entries
 *   -EINVAL  @text is NULL with a non-zero @len, or @ret_series is NULL
 * Out of memory aborts, as in strbuf.
 */
int series_parse(const char *text, size_t len, const char *origin,
		 struct series *ret_series, struct strbuf *err);

/* Free every entry and the array; @series is left empty. NULL is a no-op. */
void series_release(struct series *series);

#endif
