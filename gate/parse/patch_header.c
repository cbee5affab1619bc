// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strbuf.h"
#include "basic/xalloc.h"
#include "parse/lines.h"
#include "parse/mail.h"
#include "parse/patch_header.h"

/* Where a matcher is inside one line. */
struct cursor {
	const char *p, *end;
};

/* The header fields we keep, as found in one block of headers. */
struct fields {
	struct strbuf from, subject;
	bool have_from, have_subject;
};

enum field {
	FIELD_OTHER,
	FIELD_FROM,
	FIELD_SUBJECT,
	FIELD_DATE,
};

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/*
 * End of the header region: the first line that starts the diff (or the
 * "---" before the diffstat), within the complete lines of the first
 * PATCH_HEADER_MAX_BYTES. A line cut by the cap is dropped rather than
 * matched half-read (a cut sha would still look like a sha).
 */
static const char *region_end(const char *text, size_t len)
{
	struct line_reader r = { text, text + len };
	struct line l;

	if (len > PATCH_HEADER_MAX_BYTES) {
		const char *p = text + PATCH_HEADER_MAX_BYTES;

		while (p > text && p[-1] != '\n')
			p--;
		r.end = p;
	}
	for (;;) {
		const char *start = r.pos;

		if (!line_next(&r, &l))
			return r.end;
		if (line_starts_with(l, "diff --git ") || line_starts_with(l, "--- ") ||
		    line_starts_with(l, "Index: ") || (l.len == 3 && !memcmp(l.p, "---", 3)))
			return start;
	}
}

/*
 * Length of the field name when @l is a "Name: value" header line (name:
 * printable ASCII but ':' and space, as RFC 5322 says), else 0.
 */
static size_t header_name_len(struct line l)
{
	size_t i;

	for (i = 0; i < l.len && l.p[i] != ':'; i++)
		if (l.p[i] <= ' ' || l.p[i] > '~')
			return 0;
	return i < l.len && i > 0 ? i : 0;
}

static enum field header_field(struct line l, size_t name_len)
{
	if (name_len == 4 && text_equal_ci(l.p, "from", 4))
		return FIELD_FROM;
	if (name_len == 7 && text_equal_ci(l.p, "subject", 7))
		return FIELD_SUBJECT;
	if (name_len == 4 && text_equal_ci(l.p, "date", 4))
		return FIELD_DATE;
	return FIELD_OTHER;
}

/*
 * Append one piece of a (possibly folded) value, trimmed, joined to what
 * is there with one space. A NUL byte becomes '?' so the C string that
 * comes out is not silently cut short.
 */
static void add_piece(struct strbuf *sb, const char *p, size_t len)
{
	while (len && char_is_blank(*p)) {
		p++;
		len--;
	}
	while (len && char_is_blank(p[len - 1]))
		len--;
	if (!len)
		return;
	if (sb->len)
		strbuf_addch(sb, ' ');
	for (size_t i = 0; i < len; i++)
		strbuf_addch(sb, p[i] ? p[i] : '?');
}

/*
 * Read a block of header lines (and their folded continuations) from @r,
 * through the blank line that ends it. A line that is not a header ends
 * the block too and is left unread, for the message. In the message body
 * (@in_body) only From:, Subject: and Date: count as headers, as in
 * `git mailinfo`. The first From: and Subject: of the block are kept.
 */
static void read_headers(struct line_reader *r, struct fields *f, bool in_body)
{
	struct strbuf *target = NULL;
	struct line l;

	for (;;) {
		struct line_reader before = *r;
		size_t name_len;
		enum field field;

		if (!line_next(r, &l) || line_is_blank(l))
			return;
		if (char_is_blank(l.p[0])) {
			if (target)
				add_piece(target, l.p, l.len);
			continue;
		}
		name_len = header_name_len(l);
		field = name_len ? header_field(l, name_len) : FIELD_OTHER;
		if (!name_len || (in_body && field == FIELD_OTHER)) {
			*r = before;
			return;
		}
		target = NULL;
		if (field == FIELD_FROM && !f->have_from) {
			f->have_from = true;
			target = &f->from;
		} else if (field == FIELD_SUBJECT && !f->have_subject) {
			f->have_subject = true;
			target = &f->subject;
		}
		if (target)
			add_piece(target, l.p + name_len + 1, l.len - name_len - 1);
	}
}

/* Whether @l opens a block of headers: From:, Subject: or Date:. */
static bool starts_headers(struct line l)
{
	size_t name_len = header_name_len(l);

	return name_len && header_field(l, name_len) != FIELD_OTHER;
}

static void fields_release(struct fields *f)
{
	strbuf_release(&f->from);
	strbuf_release(&f->subject);
}

/* In-body headers win over mail headers, field by field. */
static void fields_override(struct fields *f, struct fields *in_body)
{
	if (in_body->have_from) {
		strbuf_release(&f->from);
		f->from = in_body->from;
		f->have_from = true;
		strbuf_init(&in_body->from, 0);
	}
	if (in_body->have_subject) {
		strbuf_release(&f->subject);
		f->subject = in_body->subject;
		f->have_subject = true;
		strbuf_init(&in_body->subject, 0);
	}
}

static void skip_blanks(struct cursor *c)
{
	while (c->p < c->end && char_is_blank(*c->p))
		c->p++;
}

/* Skip at least one blank. */
static bool eat_blanks(struct cursor *c)
{
	const char *start = c->p;

	skip_blanks(c);
	return c->p > start;
}

static bool eat_ci(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || !text_equal_ci(c->p, word, n))
		return false;
	c->p += n;
	return true;
}

/* A whole run of 12..40 hex digits, copied lower-case to @ret. */
static bool eat_sha(struct cursor *c, char ret[PATCH_SHA_MAX + 1])
{
	size_t n = 0;

	while (c->p + n < c->end && is_hex(c->p[n]))
		n++;
	if (n < PATCH_SHA_MIN || n > PATCH_SHA_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		ret[i] = char_to_lower(c->p[i]);
	ret[n] = '\0';
	c->p += n;
	return true;
}

static bool at_end(struct cursor *c)
{
	skip_blanks(c);
	return c->p == c->end;
}

/* "commit <sha> upstream." (the '.' optional) */
static bool match_commit_upstream(struct line l, char ret[PATCH_SHA_MAX + 1])
{
	struct cursor c = { l.p, l.p + l.len };

	skip_blanks(&c);
	if (!eat_ci(&c, "commit") || !eat_blanks(&c) || !eat_sha(&c, ret) ||
	    !eat_blanks(&c) || !eat_ci(&c, "upstream"))
		return false;
	if (c.p < c.end && *c.p == '.')
		c.p++;
	return at_end(&c);
}

/* "[ Upstream commit <sha> ]" */
static bool match_upstream_commit(struct line l, char ret[PATCH_SHA_MAX + 1])
{
	struct cursor c = { l.p, l.p + l.len };

	skip_blanks(&c);
	if (!eat_ci(&c, "["))
		return false;
	skip_blanks(&c);
	if (!eat_ci(&c, "upstream") || !eat_blanks(&c) || !eat_ci(&c, "commit") ||
	    !eat_blanks(&c) || !eat_sha(&c, ret))
		return false;
	skip_blanks(&c);
	return eat_ci(&c, "]") && at_end(&c);
}

/* "(cherry picked from commit <sha>)" */
static bool match_cherry_picked(struct line l, char ret[PATCH_SHA_MAX + 1])
{
	struct cursor c = { l.p, l.p + l.len };

	skip_blanks(&c);
	if (!eat_ci(&c, "(") || !eat_ci(&c, "cherry") || !eat_blanks(&c) ||
	    !eat_ci(&c, "picked") || !eat_blanks(&c) || !eat_ci(&c, "from") ||
	    !eat_blanks(&c) || !eat_ci(&c, "commit") || !eat_blanks(&c) ||
	    !eat_sha(&c, ret))
		return false;
	skip_blanks(&c);
	return eat_ci(&c, ")") && at_end(&c);
}

/* "Stable-dep-of: <sha> ("subject")"; what follows the sha is not checked. */
static bool match_stable_dep(struct line l, char ret[PATCH_SHA_MAX + 1])
{
	struct cursor c = { l.p, l.p + l.len };

	skip_blanks(&c);
	if (!eat_ci(&c, "stable-dep-of:"))
		return false;
	skip_blanks(&c);
	return eat_sha(&c, ret) && (c.p == c.end || char_is_blank(*c.p));
}

static void add_stable_dep(struct patch_header *h, const char *sha)
{
	size_t n = h->n_stable_deps;

	/* Room for 1, 2, 4, 8, ...: the array is full when n is 0 or a power of two. */
	if ((n & (n - 1)) == 0) {
		void *p = xrealloc(h->stable_deps, (n ? n * 2 : 1) * sizeof(*h->stable_deps));

		h->stable_deps = p;
	}
	memcpy(h->stable_deps[n], sha, PATCH_SHA_MAX + 1);
	h->n_stable_deps++;
}

/* "[PATCH 6.1 012/345] [media] foo: bar" -> "foo: bar" */
static const char *strip_bracket_prefix(const char *s)
{
	for (;;) {
		const char *close;

		while (char_is_blank(*s))
			s++;
		if (*s != '[')
			return s;
		close = strchr(s, ']');
		if (!close)
			return s;
		s = close + 1;
	}
}

/* Move @s into *@to, replacing what was there. */
static void take(char **to, char **s)
{
	free(*to);
	*to = *s;
	*s = NULL;
}

int patch_header_parse(const char *text, size_t len, struct patch_header *ret)
{
	struct fields mail = { STRBUF_INIT, STRBUF_INIT, false, false };
	struct fields in_body = { STRBUF_INIT, STRBUF_INIT, false, false };
	struct strbuf first_line = STRBUF_INIT;
	struct mail decoded;
	bool is_mail = false;
	struct line_reader r;
	struct line l;

	if (!ret)
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	if (!text && len)
		return -EINVAL;
	if (!len) {
		ret->stable_only = true;
		return 0;
	}

	/*
	 * A mail (transport headers first, MIME, encoded words) is read as
	 * git mailinfo reads it; its decoded text, which starts with clean
	 * From:/Date:/Subject:/Message-ID: lines, is what the rest looks at.
	 * When that fails (too big, an unknown charset), the raw text is.
	 */
	if (mail_has_headers(text, len) && mail_parse(text, len, &decoded, NULL) == 0) {
		is_mail = true;
		text = decoded.text;
		len = decoded.len;
	}

	r.pos = text;
	r.end = region_end(text, len);

	/*
	 * Mail headers: at once, or after an mbox "From <sha> <date>" line --
	 * which is only taken for one when a header follows it, so that a
	 * plain message starting "From now on, ..." keeps its first line.
	 */
	{
		struct line_reader peek = r;
		struct line next;

		if (line_next(&peek, &l)) {
			if (starts_headers(l)) {
				read_headers(&r, &mail, false);
			} else if (line_starts_with(l, "From ") && line_next(&peek, &next) &&
				   header_name_len(next)) {
				r.pos = next.p;
				read_headers(&r, &mail, false);
			}
		}
	}

	/* In-body headers open the message, after any blank lines. */
	while (line_next(&r, &l)) {
		if (line_is_blank(l))
			continue;
		r.pos = l.p;
		if (starts_headers(l))
			read_headers(&r, &in_body, true);
		break;
	}
	fields_override(&mail, &in_body);

	/* The message. */
	while (line_next(&r, &l)) {
		char sha[PATCH_SHA_MAX + 1];

		if (!first_line.len)
			add_piece(&first_line, l.p, l.len);
		if (!ret->upstream[0] && (match_commit_upstream(l, sha) ||
					  match_upstream_commit(l, sha)))
			memcpy(ret->upstream, sha, sizeof(sha));
		else if (!ret->cherry_picked[0] && match_cherry_picked(l, sha))
			memcpy(ret->cherry_picked, sha, sizeof(sha));
		else if (match_stable_dep(l, sha))
			add_stable_dep(ret, sha);
	}

	if (mail.have_subject) {
		const char *subject = strip_bracket_prefix(mail.subject.buf);

		if (*subject)
			ret->subject = xstrdup(subject);
	}
	if (!ret->subject && first_line.len)
		ret->subject = strbuf_detach(&first_line, NULL);
	if (mail.from.len)
		ret->author = strbuf_detach(&mail.from, NULL);
	if (is_mail) {
		if (decoded.subject)
			take(&ret->subject, &decoded.subject);
		take(&ret->author, &decoded.author);
		take(&ret->date, &decoded.date);
		take(&ret->message_id, &decoded.message_id);
		mail_release(&decoded);
	}
	ret->is_revert = ret->subject && !strncmp(ret->subject, "Revert \"", 8);
	ret->stable_only = !ret->upstream[0] && !ret->cherry_picked[0];

	strbuf_release(&first_line);
	fields_release(&mail);
	fields_release(&in_body);
	return 0;
}

void patch_header_release(struct patch_header *header)
{
	if (!header)
		return;
	free(header->subject);
	free(header->author);
	free(header->date);
	free(header->message_id);
	free(header->stable_deps);
	memset(header, 0, sizeof(*header));
}

/* Length of @s when it is all hex digits, else 0. */
static size_t hex_len(const char *s)
{
	size_t n = 0;

	while (is_hex(s[n]))
		n++;
	return s[n] ? 0 : n;
}

bool patch_sha_matches(const char *sha, const char *full)
{
	size_t a, b;

	if (!sha || !full)
		return false;
	a = hex_len(sha);
	b = hex_len(full);
	if (a < PATCH_SHA_MIN || a > PATCH_SHA_MAX ||
	    b < PATCH_SHA_MIN || b > PATCH_SHA_MAX)
		return false;
	return text_equal_ci(sha, full, a < b ? a : b);
}
