/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mail: turn one RFC 5322 message, or an mbox of several, into what
 * `git mailinfo` would give: author, subject, date, message id, and the
 * decoded text that patch_parse() and patch_header_parse() read.
 *
 *   struct mail m;
 *
 *   if (mail_parse(raw, len, &m, &err) < 0)
 *           ... err names what failed ...
 *   patch_parse(m.text, m.len, &parsed, &err);
 *   mail_release(&m);
 *
 * What is read (git mailinfo is the reference; differences are noted):
 *   - An optional mbox "From " line, then the header block up to the first
 *     blank line: any headers in any order (Return-Path, Received, DKIM,
 *     ARC-*, X-* ...), names case-insensitive, folded lines joined. The
 *     first From:, Subject:, Date: and Message-ID: count.
 *   - RFC 2047 encoded words (=?charset?q?...?=, =?charset?b?...?=) in
 *     From: and Subject: are decoded and converted to UTF-8 with iconv(3).
 *   - From: is normalised as git does: "Name <addr>", quotes and extra
 *     blanks dropped; a name shorter than 3 or longer than 60 bytes, or
 *     holding '@', '<' or '>', is replaced by the address. A From: with
 *     no address at all is kept as written.
 *   - Subject: is cleaned as git's cleanup_subject(): leading "Re:",
 *     "[...]" groups, blanks and ':' are removed, repeatedly; runs of
 *     blanks become one space.
 *   - The body: Content-Transfer-Encoding quoted-printable and base64 are
 *     decoded. A text part in another charset than UTF-8 or US-ASCII is
 *     converted to UTF-8 up to the line where the patch starts (as git
 *     does: the diff keeps the bytes of the files it changes).
 *     multipart: every text part but text/html (text/plain,
 *     text/x-patch, text/x-diff, ...) is kept, in order, joined into one
 *     text; other parts (signatures, binaries) and the preamble are
 *     dropped. Nesting is followed MAIL_MAX_DEPTH deep.
 *   - In-body headers: From:, Subject: and Date: lines opening the body
 *     (after blank lines) override the mail's, as `git am` takes them.
 *   - Reply text, quoted lines and a "-- " signature stay in the text;
 *     patch_parse() ignores what comes before the diff and after a hunk.
 *   - Lines may end in "\r\n". A NUL byte in a header value becomes '?'.
 * Not done: scissors lines ("-- >8 --"), format=flowed, RFC 2231
 * parameter continuations.
 *
 * Limits: at most PATCH_MAX_BYTES of input and of decoded text; a header
 * block (mail or MIME part) of at most PATCH_HEADER_MAX_BYTES; at most
 * MAIL_MAX_MESSAGES messages in an mbox. Nothing is read past @len; the
 * input need not be NUL-terminated.
 */
#ifndef GATE_MAIL_H
#define GATE_MAIL_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"

#define MAIL_MAX_DEPTH		8
#define MAIL_MAX_MESSAGES	10000

struct mail {
	/* Each owned, NUL-terminated, NULL when the mail has none. */
	char *subject;		/* cleaned, e.g. "mm: fix foo"; never "" */
	char *author;		/* "Name <addr>" */
	char *date;		/* as written, unfolded, e.g. "Wed, 24 Jul 2024 16:07:38 +0200" */
	char *message_id;	/* without the angle brackets: "2024...@gregkh" */
	/*
	 * Owned, NUL-terminated, never NULL after success: the cleaned
	 * "From:", "Date:", "Subject:" and "Message-ID: <id>" lines (those
	 * the mail has), a blank line, then the decoded body. This is what
	 * patch_parse() and patch_header_parse() are given.
	 */
	char *text;
	size_t len;
	/* Where this message's raw bytes are in the input (an mbox slice). */
	size_t raw_offset, raw_len;
	bool has_diff;		/* the body holds a "diff -" or "---"/"+++" pair */
	bool is_cover_letter;	/* no diff, and a "[... 0/N]" subject */
};

struct mailbox {
	struct mail *mails;	/* owned, in order; cover letters left out */
	size_t n;
	size_t n_cover_letters;	/* how many were skipped */
};

/*
 * Parse the one message in @len bytes at @raw into @ret (overwritten).
 * Returns 0; -EINVAL for NULL arguments or a body in a charset iconv does
 * not know; -E2BIG past a limit. On failure @ret is empty and, when @err
 * is not NULL, one line naming what failed is appended to it, e.g.
 * "mail: header block is larger than 65536 bytes". Release @ret with
 * mail_release() (also harmless after a failure).
 */
int mail_parse(const char *raw, size_t len, struct mail *ret, struct strbuf *err);
void mail_release(struct mail *m);

/*
 * Split an mbox (git format-patch --stdout, b4 am, an mboxrd from
 * public-inbox) into messages and parse each. A message starts at a line
 * "From <anything> <date with hh:mm:ss and a year>" at the top or after
 * a blank line. Under public-inbox's "From mboxrd@z " separator, body
 * lines ">From ", ">>From ", ... lose one '>'. Cover letters are left out.
 * Text with no separator line is one message. Returns 0, or the first
 * error of mail_parse() (the message prefixed: "mail: message 3: ..."),
 * -E2BIG past MAIL_MAX_MESSAGES. Release with mailbox_release().
 */
int mailbox_parse(const char *raw, size_t len, struct mailbox *ret, struct strbuf *err);
void mailbox_release(struct mailbox *box);

/* True when @raw holds two or more mbox separator lines (see above). */
bool mail_is_mbox(const char *raw, size_t len);

/*
 * True when @raw opens with a mail header block (after an optional mbox
 * "From " line) that names a From:, Subject:, Date: or Message-ID:.
 */
bool mail_has_headers(const char *raw, size_t len);

/*
 * True when the mail's bytes are not what patch_parse() should read as
 * they are: a quoted-printable or base64 body, a multipart body, or a
 * text charset other than UTF-8 / US-ASCII.
 */
bool mail_needs_decoding(const char *raw, size_t len);

#endif
