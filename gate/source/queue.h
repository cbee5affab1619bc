/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue: reads one stable candidate queue into a snapshot.
 *
 * The source is a git repository in stable-queue layout (a local path, or
 * a file://, http:// or https:// URL fetched into the cache), read
 * straight from the ref's tree with libgit2 without a checkout; or a plain
 * directory holding a `series` file (directly, or in the series folder).
 *
 * Every entry of the series becomes a queue_patch, in order. One that
 * cannot be used (a bad name, a missing or non-text file, an empty or
 * binary patch, a path outside the tree) keeps an error that names the
 * file and line; the rest of the queue is still read.
 *
 * Patches saved from a mailing list are read as `git am` reads them
 * (gate/parse/mail.h): a quoted-printable, base64, multipart or non-UTF-8 mail
 * is decoded first; an mbox of several messages (git format-patch
 * --stdout, b4 am, a lore mboxrd) becomes one queue_patch per patch, in
 * order, named "<file>#<n>" (n from 1; cover letters skipped), each with
 * the entry's series_line.
 */
#ifndef GATE_QUEUE_H
#define GATE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/hash.h"
#include "basic/strbuf.h"
#include "parse/patch.h"
#include "parse/patch_header.h"

#define QUEUE_MAX_PATCH_BYTES (16u << 20)
#define QUEUE_MAX_SERIES_BYTES (4u << 20)

struct queue_patch {
	char *name;			/* as written in series; "<file>#<n>" out of an mbox */
	unsigned series_line;
	/*
	 * Owned, NUL-terminated; NULL if unread: what was parsed, the file's
	 * bytes or, for a decoded mail or an mbox patch, the text mail_parse()
	 * gives (clean From:/Date:/Subject:/Message-ID: lines, decoded body).
	 */
	char *content;
	size_t len;
	/*
	 * Of the raw bytes read (not of a decoded text): the file's, or for
	 * an mbox patch its message's, from its "From " line; "" if unread.
	 */
	char hash[SHA256_HEX_LEN + 1];
	char *error;			/* why it cannot be used; NULL when it can */
	struct patch_header header;
	struct patch parsed;
};

struct queue_snapshot {
	char *queue;			/* the series folder, e.g. queue-6.1 */
	char *source;
	char *ref;			/* NULL for a plain directory */
	char commit[41];		/* "" for a plain directory */
	struct queue_patch *patches;
	size_t n;
	char content_hash[SHA256_HEX_LEN + 1];	/* series + every patch */
};

struct queue_request {
	const char *source;		/* path or URL */
	const char *ref;		/* NULL: HEAD (or the remote's default) */
	const char *series_dir;		/* NULL: @default_series_dir */
	const char *default_series_dir;	/* e.g. queue-6.1 */
	const char *cache;		/* where fetched repositories live */
};

/*
 * What the record keeps as the source of a snapshot read from @source
 * (queue_snapshot.source): a URL as it is given, a local path made
 * absolute without symlinks (as given when it cannot be resolved), so
 * that the command line and the daemon name one queue alike. The caller
 * frees it.
 */
char *queue_source_key(const char *source);

/*
 * The series folder a snapshot of @req is recorded under
 * (queue_snapshot.queue), as queue_load() names it, without reading the
 * queue: @req's series folder for a repository or a folder holding it,
 * the folder's own name for a plain folder with a series file. The
 * caller frees it.
 */
char *queue_folder(const struct queue_request *req);

/*
 * Load the snapshot. Returns 0 (entries may carry errors), or -errno with
 * one line in @err when the queue as a whole cannot be read (no such
 * source, no series file, the ref does not exist, a fetch failed).
 */
int queue_load(const struct queue_request *req, struct queue_snapshot *ret, struct strbuf *err);
void queue_snapshot_release(struct queue_snapshot *snapshot);

#endif
