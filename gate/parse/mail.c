// SPDX-License-Identifier: GPL-2.0
/*
 * Mail as `git mailinfo` reads it. The input is hostile bytes with a
 * length: every scan is bounded by the end of its slice, and header
 * values become NUL-terminated strings only after NUL bytes are replaced.
 */
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "parse/lines.h"
#include "parse/mail.h"
#include "parse/patch.h"
#include "parse/patch_header.h"

/* The headers of one block (a mail, or a MIME part) that we read. */
struct headers {
	struct strbuf from, subject, date, message_id, content_type, encoding;
	bool have_from, have_subject, have_date, have_message_id, have_content_type, have_encoding;
};

#define HEADERS_INIT { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, \
		       STRBUF_INIT, false, false, false, false, false, false }

enum transfer { TRANSFER_NONE, TRANSFER_QP, TRANSFER_BASE64 };

/* What the Content-Type of a part says. */
struct content_type {
	struct strbuf type;	/* lower-case "text/plain"; "" when not stated */
	struct strbuf boundary, charset;
};

struct decoder {
	struct strbuf *out;
	bool in_patch;		/* the patch has started: no more charset conversion */
	struct strbuf *err;
};

static bool is_space(char c)
{
	return char_is_blank(c) || c == '\n';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void add_err(struct strbuf *err, const char *what)
{
	if (err)
		strbuf_adds(err, what);
}

/*
 * Length of the name when @l is a "Name: value" header line (name:
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

static bool name_is(struct line l, size_t name_len, const char *name)
{
	return name_len == strlen(name) && text_equal_ci(l.p, name, name_len);
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

static void headers_release(struct headers *h)
{
	strbuf_release(&h->from);
	strbuf_release(&h->subject);
	strbuf_release(&h->date);
	strbuf_release(&h->message_id);
	strbuf_release(&h->content_type);
	strbuf_release(&h->encoding);
}

/* Where the value of the header named @l goes; NULL to skip it. */
static struct strbuf *header_target(struct headers *h, struct line l, size_t name_len,
				    bool in_body)
{
	static const struct {
		const char *name;
		size_t value, have;
		bool in_body;
	} known[] = {
#define KNOWN(n, f, b) { n, offsetof(struct headers, f), offsetof(struct headers, have_##f), b }
		KNOWN("from", from, true),
		KNOWN("subject", subject, true),
		KNOWN("date", date, true),
		KNOWN("message-id", message_id, false),
		KNOWN("content-type", content_type, false),
		KNOWN("content-transfer-encoding", encoding, false),
#undef KNOWN
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		bool *have = (bool *)((char *)h + known[i].have);

		if (!name_is(l, name_len, known[i].name) || (in_body && !known[i].in_body))
			continue;
		if (*have)
			return NULL;
		*have = true;
		return (struct strbuf *)((char *)h + known[i].value);
	}
	return NULL;
}

/* Whether @l is a From:, Subject: or Date: line: an in-body header. */
static bool is_in_body_header(struct line l)
{
	size_t n = header_name_len(l);

	return n && (name_is(l, n, "from") || name_is(l, n, "subject") || name_is(l, n, "date"));
}

/*
 * Read a header block from @r through the blank line that ends it; a
 * line that is not a header (nor a continuation) ends it too and is left
 * unread. In a body (@in_body) only From:, Subject: and Date: are headers.
 * -E2BIG when the block runs past PATCH_HEADER_MAX_BYTES.
 */
static int read_headers(struct line_reader *r, struct headers *h, bool in_body, struct strbuf *err)
{
	const char *start = r->pos;
	struct strbuf *target = NULL;
	bool any = false;
	struct line l;

	for (;;) {
		struct line_reader before = *r;
		size_t name_len;

		if ((size_t)(r->pos - start) > PATCH_HEADER_MAX_BYTES) {
			if (err)
				strbuf_addf(err, "mail: header block is larger than %u bytes",
					    PATCH_HEADER_MAX_BYTES);
			return -E2BIG;
		}
		if (!line_next(r, &l))
			return 0;
		if (line_is_blank(l)) {
			/* In a body, the blank line after in-body headers is theirs. */
			if (in_body && !any)
				*r = before;
			return 0;
		}
		if (char_is_blank(l.p[0])) {
			if (!any) {
				*r = before;
				return 0;
			}
			if (target)
				add_piece(target, l.p, l.len);
			continue;
		}
		name_len = header_name_len(l);
		if (!name_len || (in_body && !is_in_body_header(l))) {
			*r = before;
			return 0;
		}
		any = true;
		target = header_target(h, l, name_len, in_body);
		if (target)
			add_piece(target, l.p + name_len + 1, l.len - name_len - 1);
	}
}

/* True for "From " lines that carry a time and a year: mbox separators. */
static bool is_from_line(struct line l)
{
	const char *colon = NULL;
	size_t i, year = 0, digits = 0;

	if (!line_starts_with(l, "From ") || l.len < 20)
		return false;
	for (i = l.len; i > 5; i--)
		if (l.p[i - 1] == ':') {
			colon = l.p + i - 1;
			break;
		}
	/* "hh:mm:ss": colon is the second ':' */
	if (!colon || colon - l.p < 10 || colon + 3 > l.p + l.len)
		return false;
	if (!is_digit(colon[-1]) || !is_digit(colon[-2]) || colon[-3] != ':' ||
	    !is_digit(colon[-4]) || !is_digit(colon[1]) || !is_digit(colon[2]))
		return false;
	for (i = (size_t)(colon + 3 - l.p); i < l.len && char_is_blank(l.p[i]); i++)
		;
	/* the year may come after a zone: "Tue Feb 12 10:00:00 CET 2019" */
	for (; i < l.len && !is_digit(l.p[i]); i++)
		;
	for (; i < l.len && is_digit(l.p[i]) && digits < 6; i++, digits++)
		year = year * 10 + (size_t)(l.p[i] - '0');
	return digits >= 2 && year > 90;
}

static const char *skip_from_line(const char *raw, size_t len)
{
	struct line_reader r = { raw, raw + len };
	struct line l;

	if (line_next(&r, &l) && line_starts_with(l, "From ") && !header_name_len(l))
		return r.pos;
	return raw;
}

/* --- RFC 2047 and charsets --- */

static bool charset_is_utf8(const char *charset)
{
	static const char *const same[] = { "", "utf-8", "utf8", "us-ascii", "ascii" };

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (strlen(charset) == strlen(same[i]) && text_equal_ci(charset, same[i], strlen(same[i])))
			return true;
	return false;
}

/*
 * Append @len bytes at @in in @charset to @out as UTF-8. A byte that is
 * not valid in @charset becomes U+FFFD. -EINVAL when iconv does not know
 * @charset (nothing is appended then).
 */
static int to_utf8(const char *charset, const char *in, size_t len, struct strbuf *out)
{
	char chunk[4096];
	char *ip = (char *)in;
	size_t left = len;
	iconv_t cd;

	if (charset_is_utf8(charset)) {
		strbuf_add(out, in, len);
		return 0;
	}
	cd = iconv_open("UTF-8", charset);
	if (cd == (iconv_t)-1)
		return -EINVAL;
	while (left) {
		char *op = chunk;
		size_t room = sizeof(chunk);
		size_t r = iconv(cd, &ip, &left, &op, &room);

		strbuf_add(out, chunk, (size_t)(op - chunk));
		if (r != (size_t)-1 || errno == E2BIG)
			continue;
		/* EILSEQ, or EINVAL for a sequence cut at the end */
		strbuf_adds(out, "\xef\xbf\xbd");
		ip++;
		left--;
	}
	iconv_close(cd);
	return 0;
}

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	c = char_to_lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * Quoted-printable (RFC 2045 6.7; with @underscore, RFC 2047 "Q"): "=XX"
 * is a byte, "=" at the end of a line joins it to the next, and
 * malformed escapes are kept as they are, as git does.
 */
static void decode_qp(const char *p, size_t len, bool underscore, struct strbuf *out)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '=') {
			size_t j = i + 1;

			/* a soft line break: "=", blanks, then "\n" or "\r\n" */
			while (j < len && (p[j] == ' ' || p[j] == '\t' || p[j] == '\r'))
				j++;
			if (j == len || p[j] == '\n') {
				i = j;
				continue;
			}
			if (i + 2 < len && hex_value(p[i + 1]) >= 0 && hex_value(p[i + 2]) >= 0) {
				strbuf_addch(out, (char)(hex_value(p[i + 1]) * 16 + hex_value(p[i + 2])));
				i += 2;
				continue;
			}
		}
		strbuf_addch(out, underscore && p[i] == '_' ? ' ' : p[i]);
	}
}

/* Base64; bytes outside the alphabet (line ends, '=' padding) are skipped. */
static void decode_base64(const char *p, size_t len, struct strbuf *out)
{
	unsigned acc = 0, bits = 0;

	for (size_t i = 0; i < len; i++) {
		char c = p[i];
		int v;

		if (c >= 'A' && c <= 'Z')
			v = c - 'A';
		else if (c >= 'a' && c <= 'z')
			v = c - 'a' + 26;
		else if (is_digit(c))
			v = c - '0' + 52;
		else if (c == '+')
			v = 62;
		else if (c == '/')
			v = 63;
		else
			continue;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (char)((acc >> bits) & 0xff));
		}
	}
}

/*
 * Decode the RFC 2047 encoded words in @s into @out. Blanks between two
 * encoded words are dropped (RFC 2047 6.2); a word that does not decode
 * (unknown charset or encoding) is kept as written.
 */
static void decode_words(const char *s, struct strbuf *out)
{
	bool after_word = false;
	const char *p = s;

	while (*p) {
		const char *start = strstr(p, "=?"), *q, *end, *gap;
		struct strbuf charset = STRBUF_INIT, bytes = STRBUF_INIT, text = STRBUF_INIT;
		bool gap_blank = true;
		char enc;
		int r = -EINVAL;

		if (!start) {
			strbuf_adds(out, p);
			return;
		}
		q = strchr(start + 2, '?');
		end = q && q[1] && q[2] == '?' ? strstr(q + 3, "?=") : NULL;
		/* Without a '?' or a "?=" further on, no word can follow: no rescans. */
		if (!q || (q[1] && q[2] == '?' && !end)) {
			strbuf_adds(out, p);
			return;
		}
		if (!end || q == start + 2 || memchr(start + 2, ' ', (size_t)(q - start - 2))) {
			strbuf_add(out, p, (size_t)(start + 2 - p));
			p = start + 2;
			after_word = false;
			continue;
		}
		enc = char_to_lower(q[1]);
		strbuf_add(&charset, start + 2, (size_t)(q - start - 2));
		/* RFC 2231 language suffix: "utf-8*en" */
		if (strchr(charset.buf, '*')) {
			charset.len = (size_t)(strchr(charset.buf, '*') - charset.buf);
			charset.buf[charset.len] = '\0';
		}
		if (enc == 'q')
			decode_qp(q + 3, (size_t)(end - q - 3), true, &bytes);
		else if (enc == 'b')
			decode_base64(q + 3, (size_t)(end - q - 3), &bytes);
		if (enc == 'q' || enc == 'b')
			r = to_utf8(charset.buf, bytes.buf, bytes.len, &text);
		for (gap = p; gap < start; gap++)
			if (!is_space(*gap))
				gap_blank = false;
		if (!(after_word && gap_blank))
			strbuf_add(out, p, (size_t)(start - p));
		if (r < 0) {
			strbuf_add(out, start, (size_t)(end + 2 - start));
			after_word = false;
		} else {
			for (size_t i = 0; i < text.len; i++)
				strbuf_addch(out, text.buf[i] ? text.buf[i] : '?');
			after_word = true;
		}
		p = end + 2;
		strbuf_release(&charset);
		strbuf_release(&bytes);
		strbuf_release(&text);
	}
}

/* --- header values --- */

/* Runs of white space become one space; none at either end. */
static void collapse_spaces(struct strbuf *sb)
{
	size_t out = 0;

	for (size_t i = 0; i < sb->len; i++) {
		if (is_space(sb->buf[i])) {
			if (out && sb->buf[out - 1] != ' ')
				sb->buf[out++] = ' ';
			continue;
		}
		sb->buf[out++] = sb->buf[i];
	}
	if (out && sb->buf[out - 1] == ' ')
		out--;
	sb->len = out;
	if (sb->alloc)
		sb->buf[out] = '\0';
}

static void remove_front(struct strbuf *sb, size_t n)
{
	memmove(sb->buf, sb->buf + n, sb->len - n + 1);
	sb->len -= n;
}

/*
 * git's cleanup_subject() without --keep: drop leading "Re:", "[...]",
 * blanks and ':' for as long as there are any; then one space per run.
 */
static void clean_subject(struct strbuf *s)
{
	while (s->len) {
		char c = s->buf[0];
		const char *close;

		if ((c == 'r' || c == 'R') && s->len > 3 && char_to_lower(s->buf[1]) == 'e' &&
		    s->buf[2] == ':') {
			remove_front(s, 3);
		} else if (c == ' ' || c == '\t' || c == ':') {
			remove_front(s, 1);
		} else if (c == '[' && (close = memchr(s->buf, ']', s->len))) {
			remove_front(s, (size_t)(close - s->buf) + 1);
		} else {
			break;
		}
	}
	collapse_spaces(s);
}

/*
 * RFC 5322 quoting as git's unquote_quoted_pair(): the quotes of a
 * quoted string go, a backslash takes the next byte as it is, comments
 * keep their parentheses.
 */
static void unquote(const char *in, struct strbuf *out)
{
	bool quoted = false;
	int depth = 0;

	for (; *in; in++) {
		char c = *in;

		if ((quoted || depth) && c == '\\' && in[1]) {
			strbuf_addch(out, *++in);
			continue;
		}
		if (!depth && c == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && c == '(')
			depth++;
		else if (!quoted && c == ')' && depth)
			depth--;
		strbuf_addch(out, c);
	}
}

/* git's handle_from() and get_sane_name(), into "Name <addr>". */
static void normalize_author(const char *value, struct strbuf *out)
{
	struct strbuf f = STRBUF_INIT, name = STRBUF_INIT, email = STRBUF_INIT;
	char *at;

	unquote(value, &f);
	at = strchr(f.buf, '@');
	if (at) {
		char *e = at;
		size_t n;

		/* the address is the word around '@', maybe in "<...>" */
		while (e > f.buf) {
			if (is_space(e[-1]))
				break;
			if (e[-1] == '<') {
				e[-1] = ' ';
				break;
			}
			e--;
		}
		n = strcspn(e, " \n\t\r\v\f>");
		strbuf_add(&email, e, n);
		strbuf_add(&name, f.buf, (size_t)(e - f.buf));
		strbuf_adds(&name, e + n + (e[n] ? 1 : 0));
	} else {
		/* "Name <addr>" with no '@' in the address */
		const char *lt = strchr(value, '<'), *gt = lt ? strchr(lt, '>') : NULL;

		if (gt) {
			strbuf_add(&email, lt + 1, (size_t)(gt - lt - 1));
			strbuf_add(&name, value, (size_t)(lt - value));
		}
	}
	collapse_spaces(&name);
	if (name.len >= 2 && name.buf[0] == '(' && name.buf[name.len - 1] == ')') {
		remove_front(&name, 1);
		name.len--;
		name.buf[name.len] = '\0';
	}
	collapse_spaces(&email);
	if (!email.len) {
		/* no address at all: keep what is written */
		strbuf_adds(out, value);
		collapse_spaces(out);
	} else {
		if (name.len < 3 || name.len > 60 || strpbrk(name.buf, "@<>")) {
			strbuf_reset(&name);
			strbuf_add(&name, email.buf, email.len);
		}
		strbuf_addf(out, "%s <%s>", name.buf, email.buf);
	}
	strbuf_release(&f);
	strbuf_release(&name);
	strbuf_release(&email);
}

/* --- MIME --- */

/* The value of parameter @name ("charset", "boundary") of @value, or "". */
static void content_param(const char *value, const char *name, struct strbuf *out)
{
	const char *p = strchr(value, ';');

	while (p) {
		size_t n, name_len;
		bool quoted = false;

		p++;
		while (is_space(*p))
			p++;
		n = strcspn(p, "=;");
		for (name_len = n; name_len && is_space(p[name_len - 1]); name_len--)
			;
		if (p[n] == '=' && name_len == strlen(name) && text_equal_ci(p, name, name_len)) {
			const char *v = p + n + 1;

			while (is_space(*v))
				v++;
			if (*v != '"') {
				strbuf_add(out, v, strcspn(v, "; \t"));
				return;
			}
			for (v++; *v && *v != '"'; v++) {
				if (*v == '\\' && v[1])
					v++;
				strbuf_addch(out, *v);
			}
			return;
		}
		for (; *p; p++) {
			if (*p == '"')
				quoted = !quoted;
			else if (*p == ';' && !quoted)
				break;
		}
		if (!*p)
			return;
	}
}

static void content_type_parse(const char *value, struct content_type *ct)
{
	size_t n;

	while (is_space(*value))
		value++;
	n = strcspn(value, "; \t");
	for (size_t i = 0; i < n; i++)
		strbuf_addch(&ct->type, char_to_lower(value[i]));
	content_param(value, "boundary", &ct->boundary);
	content_param(value, "charset", &ct->charset);
}

static void content_type_release(struct content_type *ct)
{
	strbuf_release(&ct->type);
	strbuf_release(&ct->boundary);
	strbuf_release(&ct->charset);
}

static bool contains_ci(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (size_t len = strlen(s); len >= n; s++, len--)
		if (text_equal_ci(s, word, n))
			return true;
	return false;
}

static enum transfer transfer_of(const struct headers *h)
{
	if (!h->have_encoding)
		return TRANSFER_NONE;
	if (contains_ci(h->encoding.buf, "base64"))
		return TRANSFER_BASE64;
	if (contains_ci(h->encoding.buf, "quoted-printable"))
		return TRANSFER_QP;
	return TRANSFER_NONE;
}

/*
 * git's patchbreak(): "diff -", "Index: ", "--- <name>", or "---" and
 * only blanks (the separator before the diffstat).
 */
static bool is_patch_break(struct line l)
{
	if (line_starts_with(l, "diff -") || line_starts_with(l, "Index: "))
		return true;
	if (!line_starts_with(l, "---"))
		return false;
	if (l.len > 4 && l.p[3] == ' ' && !char_is_blank(l.p[4]))
		return true;
	for (size_t i = 3; i < l.len; i++)
		if (!char_is_blank(l.p[i]))
			return false;
	return true;
}

/* Offset of the first patch break line in @p, or @len. */
static size_t patch_break_offset(const char *p, size_t len)
{
	struct line_reader r = { p, p + len };
	struct line l;

	while (line_next(&r, &l))
		if (is_patch_break(l))
			return (size_t)(l.p - p);
	return len;
}

/*
 * Append a decoded text part: the message in @charset becomes UTF-8, the
 * patch after it keeps its bytes (git mailinfo converts only the message).
 */
static int add_text(struct decoder *d, const char *charset, const char *p, size_t len)
{
	size_t brk = d->in_patch ? 0 : patch_break_offset(p, len);

	if (to_utf8(charset, p, brk, d->out) < 0) {
		if (d->err)
			strbuf_addf(d->err, "mail: cannot convert from charset '%s' to UTF-8", charset);
		return -EINVAL;
	}
	strbuf_add(d->out, p + brk, len - brk);
	if (brk < len)
		d->in_patch = true;
	return 0;
}

static int decode_entity(struct decoder *d, const struct headers *h, const char *body,
			 size_t len, unsigned depth);

/* One part of a multipart body: its own headers, then its body. */
static int decode_part(struct decoder *d, const char *p, size_t len, unsigned depth)
{
	struct headers h = HEADERS_INIT;
	struct line_reader r = { p, p + len };
	int ret;

	ret = read_headers(&r, &h, false, d->err);
	if (ret == 0) {
		if (d->out->len && d->out->buf[d->out->len - 1] != '\n')
			strbuf_addch(d->out, '\n');
		ret = decode_entity(d, &h, r.pos, (size_t)(r.end - r.pos), depth);
	}
	headers_release(&h);
	return ret;
}

/*
 * The parts between "--boundary" lines, up to "--boundary--"; the line
 * end before a boundary line belongs to the boundary (RFC 2046 5.1.1).
 * The preamble and epilogue are dropped.
 */
static int decode_multipart(struct decoder *d, const char *boundary, const char *body,
			    size_t len, unsigned depth)
{
	size_t blen = strlen(boundary);
	struct line_reader r = { body, body + len };
	const char *part = NULL;
	struct line l;
	int ret = 0;

	while (ret == 0 && line_next(&r, &l)) {
		bool closing;

		if (l.len < 2 + blen || memcmp(l.p, "--", 2) || memcmp(l.p + 2, boundary, blen))
			continue;
		closing = l.len >= 4 + blen && !memcmp(l.p + 2 + blen, "--", 2);
		if (part) {
			const char *end = l.p;

			if (end > part && end[-1] == '\n')
				end--;
			if (end > part && end[-1] == '\r')
				end--;
			ret = decode_part(d, part, (size_t)(end - part), depth);
		}
		part = closing ? NULL : r.pos;
		if (closing)
			return ret;
	}
	/* no closing boundary: the last part runs to the end */
	if (ret == 0 && part)
		ret = decode_part(d, part, (size_t)(r.end - part), depth);
	return ret;
}

static int decode_entity(struct decoder *d, const struct headers *h, const char *body,
			 size_t len, unsigned depth)
{
	struct content_type ct = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct strbuf decoded = STRBUF_INIT;
	int ret = 0;

	content_type_parse(h->have_content_type ? h->content_type.buf : "", &ct);
	if (!strncmp(ct.type.buf, "multipart/", 10) && ct.boundary.len) {
		if (depth >= MAIL_MAX_DEPTH) {
			if (d->err)
				strbuf_addf(d->err, "mail: multipart nested deeper than %u",
					    MAIL_MAX_DEPTH);
			ret = -E2BIG;
		} else {
			ret = decode_multipart(d, ct.boundary.buf, body, len, depth + 1);
		}
		goto out;
	}
	/* A part that is not text (a signature, a binary) is not the patch. */
	if (depth && ct.type.len &&
	    (strncmp(ct.type.buf, "text/", 5) || !strcmp(ct.type.buf, "text/html")))
		goto out;
	switch (transfer_of(h)) {
	case TRANSFER_QP:
		decode_qp(body, len, false, &decoded);
		break;
	case TRANSFER_BASE64:
		decode_base64(body, len, &decoded);
		break;
	case TRANSFER_NONE:
		strbuf_add(&decoded, body, len);
		break;
	}
	ret = add_text(d, ct.charset.buf, decoded.buf, decoded.len);
out:
	strbuf_release(&decoded);
	content_type_release(&ct);
	return ret;
}

/* --- messages --- */

static bool body_has_diff(const char *p, size_t len)
{
	struct line_reader r = { p, p + len };
	struct line l;
	bool minus = false;

	while (line_next(&r, &l)) {
		if (line_starts_with(l, "diff -") || (minus && line_starts_with(l, "+++ ")))
			return true;
		minus = line_starts_with(l, "--- ");
	}
	return false;
}

/* A "[...]" group of @subject holding "0/N" (or "00/N", "000/N"). */
static bool is_cover_subject(const char *subject)
{
	for (const char *open = strchr(subject, '['); open; open = strchr(open + 1, '[')) {
		const char *close = strchr(open, ']');

		if (!close)
			return false;
		for (const char *p = open + 1; p < close; p++) {
			const char *q = p;

			if (*p != '0' || (p[-1] != '[' && p[-1] != ' '))
				continue;
			while (q < close && *q == '0')
				q++;
			if (q + 1 < close && *q == '/' && is_digit(q[1]))
				return true;
		}
	}
	return false;
}

/* The message id without its angle brackets, and nothing after it. */
static void clean_message_id(const char *value, struct strbuf *out)
{
	const char *lt = strchr(value, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (gt) {
		strbuf_add(out, lt + 1, (size_t)(gt - lt - 1));
	} else {
		while (is_space(*value))
			value++;
		strbuf_add(out, value, strcspn(value, " \t"));
	}
	collapse_spaces(out);
}

static char *detach_or_null(struct strbuf *sb)
{
	if (!sb->len) {
		strbuf_release(sb);
		return NULL;
	}
	return strbuf_detach(sb, NULL);
}

/* Take @from's value when it has one (in-body headers win). */
static void take_header(struct strbuf *to, bool *have_to, struct strbuf *from, bool have_from)
{
	if (!have_from)
		return;
	strbuf_release(to);
	*to = *from;
	*have_to = true;
	strbuf_init(from, 0);
}

void mail_release(struct mail *m)
{
	if (!m)
		return;
	free(m->subject);
	free(m->author);
	free(m->date);
	free(m->message_id);
	free(m->text);
	memset(m, 0, sizeof(*m));
}

int mail_parse(const char *raw, size_t len, struct mail *ret, struct strbuf *err)
{
	struct headers h = HEADERS_INIT;
	struct headers in_body = HEADERS_INIT;
	struct strbuf body = STRBUF_INIT, text = STRBUF_INIT, value = STRBUF_INIT;
	struct decoder d = { &body, false, err };
	struct line_reader r;
	struct line l;
	int rc;

	if (!ret)
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	if (!raw && len) {
		add_err(err, "mail: no input");
		return -EINVAL;
	}
	if (len > PATCH_MAX_BYTES) {
		if (err)
			strbuf_addf(err, "mail: message is larger than %u bytes", PATCH_MAX_BYTES);
		return -E2BIG;
	}
	r.pos = raw ? skip_from_line(raw, len) : raw;
	r.end = raw + len;
	rc = read_headers(&r, &h, false, err);
	if (rc < 0)
		goto out;
	rc = decode_entity(&d, &h, r.pos, (size_t)(r.end - r.pos), 0);
	if (rc < 0)
		goto out;

	/* In-body headers open the body, after any blank lines. */
	r.pos = body.buf;
	r.end = body.buf + body.len;
	while (line_next(&r, &l)) {
		if (line_is_blank(l))
			continue;
		r.pos = l.p;
		if (is_in_body_header(l))
			read_headers(&r, &in_body, true, NULL);
		break;
	}
	take_header(&h.from, &h.have_from, &in_body.from, in_body.have_from);
	take_header(&h.subject, &h.have_subject, &in_body.subject, in_body.have_subject);
	take_header(&h.date, &h.have_date, &in_body.date, in_body.have_date);

	decode_words(h.subject.buf, &value);
	ret->is_cover_letter = is_cover_subject(value.buf);
	clean_subject(&value);
	ret->subject = detach_or_null(&value);

	strbuf_init(&value, 0);
	if (h.have_from) {
		struct strbuf decoded = STRBUF_INIT;

		decode_words(h.from.buf, &decoded);
		normalize_author(decoded.buf, &value);
		strbuf_release(&decoded);
	}
	ret->author = detach_or_null(&value);

	strbuf_init(&value, 0);
	strbuf_add(&value, h.date.buf, h.date.len);
	collapse_spaces(&value);
	ret->date = detach_or_null(&value);

	strbuf_init(&value, 0);
	clean_message_id(h.message_id.buf, &value);
	ret->message_id = detach_or_null(&value);

	ret->has_diff = body_has_diff(body.buf, body.len);
	ret->is_cover_letter = ret->is_cover_letter && !ret->has_diff;

	if (ret->author)
		strbuf_addf(&text, "From: %s\n", ret->author);
	if (ret->date)
		strbuf_addf(&text, "Date: %s\n", ret->date);
	if (ret->subject)
		strbuf_addf(&text, "Subject: %s\n", ret->subject);
	if (ret->message_id)
		strbuf_addf(&text, "Message-ID: <%s>\n", ret->message_id);
	strbuf_addch(&text, '\n');
	strbuf_add(&text, body.buf, body.len);
	if (text.len > PATCH_MAX_BYTES) {
		if (err)
			strbuf_addf(err, "mail: decoded message is larger than %u bytes",
				    PATCH_MAX_BYTES);
		rc = -E2BIG;
		goto out;
	}
	ret->text = strbuf_detach(&text, &ret->len);
	ret->raw_len = len;
out:
	if (rc < 0)
		mail_release(ret);
	headers_release(&h);
	headers_release(&in_body);
	strbuf_release(&body);
	strbuf_release(&text);
	strbuf_release(&value);
	return rc;
}

/* --- mboxes --- */

/*
 * Offsets of the separator lines: a From line at the top or after a
 * blank line. At most @max are recorded; the count is returned.
 */
static size_t find_separators(const char *raw, size_t len, size_t *offsets, size_t max)
{
	struct line_reader r = { raw, raw + len };
	bool after_blank = true;
	size_t n = 0;
	struct line l;

	while (line_next(&r, &l)) {
		if (after_blank && is_from_line(l)) {
			if (n < max && offsets)
				offsets[n] = (size_t)(l.p - raw);
			n++;
			if (n > max)
				break;
		}
		after_blank = line_is_blank(l);
	}
	return n;
}

bool mail_is_mbox(const char *raw, size_t len)
{
	return raw && find_separators(raw, len, NULL, 1) >= 2;
}

/* mboxrd: "^>+From " lines lose one '>'. */
static void unquote_mboxrd(const char *p, size_t len, struct strbuf *out)
{
	struct line_reader r = { p, p + len };
	struct line l;

	while (line_next(&r, &l)) {
		size_t q = 0;

		while (q < l.len && l.p[q] == '>')
			q++;
		if (q && l.len - q >= 5 && !memcmp(l.p + q, "From ", 5))
			strbuf_add(out, l.p + 1, (size_t)(r.pos - l.p - 1));
		else
			strbuf_add(out, l.p, (size_t)(r.pos - l.p));
	}
}

static bool is_all_blank(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!is_space(p[i]))
			return false;
	return true;
}

void mailbox_release(struct mailbox *box)
{
	if (!box)
		return;
	for (size_t i = 0; i < box->n; i++)
		mail_release(&box->mails[i]);
	free(box->mails);
	memset(box, 0, sizeof(*box));
}

int mailbox_parse(const char *raw, size_t len, struct mailbox *ret, struct strbuf *err)
{
	size_t *starts = NULL, n_sep, n_msg, first = 0;
	int rc = 0;

	if (!ret)
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	if (!raw && len) {
		add_err(err, "mail: no input");
		return -EINVAL;
	}
	if (len > PATCH_MAX_BYTES) {
		if (err)
			strbuf_addf(err, "mail: mbox is larger than %u bytes", PATCH_MAX_BYTES);
		return -E2BIG;
	}
	n_sep = raw ? find_separators(raw, len, NULL, MAIL_MAX_MESSAGES) : 0;
	if (n_sep > MAIL_MAX_MESSAGES) {
		if (err)
			strbuf_addf(err, "mail: mbox holds more than %u messages", MAIL_MAX_MESSAGES);
		return -E2BIG;
	}
	/* one slot more: text before the first separator may be a message */
	starts = xcalloc(n_sep + 2, sizeof(*starts));
	ret->mails = xcalloc(n_sep + 1, sizeof(*ret->mails));
	find_separators(raw, len, starts + 1, n_sep);
	starts[0] = 0;
	if (n_sep && (starts[1] == 0 || is_all_blank(raw, starts[1])))
		first = 1;
	n_msg = n_sep + 1;
	starts[n_msg] = len;
	for (size_t i = first; i < n_msg; i++) {
		size_t off = starts[i], slice = starts[i + 1] - off;
		struct strbuf copy = STRBUF_INIT, why = STRBUF_INIT;
		struct mail *m = &ret->mails[ret->n];
		bool mboxrd = slice >= 14 && !memcmp(raw + off, "From mboxrd@z ", 14);

		if (mboxrd)
			unquote_mboxrd(raw + off, slice, &copy);
		rc = mboxrd ? mail_parse(copy.buf, copy.len, m, &why) :
			      mail_parse(raw + off, slice, m, &why);
		strbuf_release(&copy);
		if (rc < 0) {
			/* "mail: x" -> "mail: message 3: x" */
			if (err)
				strbuf_addf(err, "mail: message %zu: %s", i + 1 - first,
					    why.len > 6 ? why.buf + 6 : why.buf);
			strbuf_release(&why);
			mailbox_release(ret);
			break;
		}
		strbuf_release(&why);
		m->raw_offset = off;
		m->raw_len = slice;
		if (m->is_cover_letter) {
			mail_release(m);
			ret->n_cover_letters++;
			continue;
		}
		ret->n++;
	}
	free(starts);
	return rc;
}

bool mail_has_headers(const char *raw, size_t len)
{
	struct headers h = HEADERS_INIT;
	struct line_reader r;
	struct line l;
	bool yes;

	if (!raw || !len)
		return false;
	r.pos = skip_from_line(raw, len);
	r.end = raw + len;
	{
		struct line_reader peek = r;

		if (!line_next(&peek, &l) || !header_name_len(l))
			return false;
	}
	read_headers(&r, &h, false, NULL);
	yes = h.have_from || h.have_subject || h.have_date || h.have_message_id;
	headers_release(&h);
	return yes;
}

bool mail_needs_decoding(const char *raw, size_t len)
{
	struct headers h = HEADERS_INIT;
	struct content_type ct = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	bool yes;

	if (!mail_has_headers(raw, len))
		return false;
	{
		struct line_reader r = { skip_from_line(raw, len), raw + len };

		read_headers(&r, &h, false, NULL);
	}
	content_type_parse(h.have_content_type ? h.content_type.buf : "", &ct);
	yes = transfer_of(&h) != TRANSFER_NONE || !strncmp(ct.type.buf, "multipart/", 10) ||
	      !charset_is_utf8(ct.charset.buf);
	content_type_release(&ct);
	headers_release(&h);
	return yes;
}
