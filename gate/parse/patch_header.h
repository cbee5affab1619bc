/* SPDX-License-Identifier: GPL-2.0 */
/*
 * patch_header: what a stable-queue patch says about itself -- its subject,
 * author, and which upstream commit(s) it is a backport of -- read from
 * the mail header and commit message of one patch file (git format-patch
 * output, or a plain diff with a message in front).
 *
 *   struct patch_header header;
 *
 *   patch_header_parse(text, len, &header);
 *   if (header.stable_only)
 *           ... no upstream commit to check against ...
 *   patch_header_release(&header);
 *
 * What is read:
 *   - The header region: everything before the first line that starts with
 *     "diff --git ", "--- " or "Index: ", or is exactly "---" (the
 *     format-patch separator before the diffstat). Only complete lines in
 *     the first PATCH_HEADER_MAX_BYTES are looked at. Lines may end in
 *     "\r\n".
 *   - Mail headers, when the text starts (after an optional mbox
 *     "From <sha> <date>" line) with a header block that names a From:,
 *     Subject:, Date: or Message-ID:, whatever other headers come first
 *     (Return-Path:, Received:, DKIM-Signature: ...). Such a text is read
 *     by mail_parse() (gate/parse/mail.h), as git mailinfo reads it: folded
 *     lines joined, RFC 2047 encoded words decoded, From: normalised to
 *     "Name <addr>", the subject cleaned, a quoted-printable, base64 or
 *     multipart body decoded; the region below is then taken from the
 *     decoded text. As in `git am`, From:/Subject:/Date: lines at the very
 *     top of the message ("in-body headers") override the mail headers.
 *     A mail that mail_parse() refuses (larger than PATCH_MAX_BYTES, a
 *     charset iconv does not know) is read as it is, with only a From:,
 *     Subject: or Date: header accepted as its first line.
 *   - The message: the rest of the region.
 * Anything malformed is simply not matched; nothing is read past @len.
 */
#ifndef GATE_PATCH_HEADER_H
#define GATE_PATCH_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#define PATCH_SHA_MIN		12
#define PATCH_SHA_MAX		40
#define PATCH_HEADER_MAX_BYTES	(64u << 10)

struct patch_header {
	/*
	 * Owned, NULL when none. The Subject: header (in-body Subject:
	 * first) cleaned as git mailinfo does: leading "Re:" and bracket
	 * groups ("[PATCH 6.1 012/345] ") removed; without a Subject: header,
	 * or with nothing left of it, the first non-empty line of the message.
	 */
	char *subject;
	/*
	 * Owned, NULL when none: the From: header (in-body From: first),
	 * e.g. "A <a@b.org>".
	 */
	char *author;
	/* Owned, NULL when none: the Date: header as written, unfolded. */
	char *date;
	/*
	 * Owned, NULL when none: the Message-ID: header without its angle
	 * brackets, e.g. "20240205151112.1234-12-sashal@kernel.org".
	 */
	char *message_id;
	/*
	 * The upstream commit, from the first message line of the form
	 * "commit <sha> upstream." or "[ Upstream commit <sha> ]" (any case,
	 * extra blanks allowed, the '.' optional). "" when none.
	 * Every sha here is 12..40 hex digits, as long as written, lower-case.
	 */
	char upstream[PATCH_SHA_MAX + 1];
	/* From the first "(cherry picked from commit <sha>)"; "" when none. */
	char cherry_picked[PATCH_SHA_MAX + 1];
	/* Owned array: every "Stable-dep-of: <sha> ..." trailer, in order. */
	char (*stable_deps)[PATCH_SHA_MAX + 1];
	size_t n_stable_deps;
	bool is_revert;		/* subject starts with: Revert " */
	bool stable_only;	/* neither upstream nor cherry_picked was found */
};

/*
 * Parse @len bytes at @text (need not be NUL-terminated; may be NULL when
 * @len is 0) into @ret, which is overwritten. Returns 0, or -EINVAL (with
 * @ret empty) when @ret is NULL or @text is NULL with a non-zero @len.
 * Out of memory aborts, as in strbuf. After a return of 0, release @ret
 * with patch_header_release().
 */
int patch_header_parse(const char *text, size_t len, struct patch_header *ret);

/* Free what @header owns and reset it to empty. NULL is a no-op. */
void patch_header_release(struct patch_header *header);

/*
 * True when @sha and @full, each 12..40 hex digits, name the same commit:
 * the shorter is a prefix of the longer, case-insensitively. (@full is
 * usually the full 40-digit sha; both may be abbreviated.) False for NULL
 * or anything that is not 12..40 hex digits.
 */
bool patch_sha_matches(const char *sha, const char *full);

#endif
