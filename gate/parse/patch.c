// SPDX-License-Identifier: GPL-2.0
/*
 * A hand-written patch parser: the input is hostile bytes (it will be
 * fuzzed), so every read is bounded by the length, every count is checked
 * before it is used, and every error names the line it found.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/xalloc.h"
#include "parse/patch.h"

struct span {
	const char *p;
	size_t len;
};

struct parser {
	const char *buf;	/* patch->copy */
	size_t len;
	size_t pos;		/* offset of the current line */
	unsigned lineno;	/* 1-based number of the current line */
	struct patch *patch;
	size_t files_alloc;
	struct strbuf *err;
	unsigned strip;		/* git apply -pN */
};

/* The names a file section states, before they are checked. */
struct section {
	unsigned lineno;
	bool git;
	unsigned strip;			/* the parser's -pN */
	struct strbuf def_name;		/* diff --git, when both sides agree */
	bool have_def;
	struct strbuf minus, plus;	/* "--- ", "+++ " (raw, before -pN) */
	bool have_minus, have_plus, minus_null, plus_null;
	unsigned minus_line, plus_line;
	/* "rename from/to", or "copy from/to" when is_copy */
	struct strbuf rename_from, rename_to;
	bool have_rename_from, have_rename_to, is_copy, is_rename;
	unsigned rename_line;
	bool is_new, is_delete;
	unsigned new_mode;
};

static bool span_starts(struct span l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l.len >= n && !memcmp(l.p, prefix, n);
}

static struct span span_after(struct span l, size_t n)
{
	struct span r = { l.p + n, l.len - n };

	return r;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

void patch_add_escaped(struct strbuf *sb, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '\t': strbuf_adds(sb, "\\t"); break;
		case '\r': strbuf_adds(sb, "\\r"); break;
		case '\n': strbuf_adds(sb, "\\n"); break;
		case '\\': strbuf_adds(sb, "\\\\"); break;
		case '"': strbuf_adds(sb, "\\\""); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				strbuf_addf(sb, "\\%03o", c);
			else
				strbuf_addch(sb, (char)c);
		}
	}
}

/* ---- lines ---- */

/* The current line without its '\n'; false at the end of the input. */
static bool cur_line(const struct parser *ps, struct span *ret)
{
	const char *nl;

	ret->p = ps->buf + ps->len;
	ret->len = 0;
	if (ps->pos >= ps->len)
		return false;
	ret->p = ps->buf + ps->pos;
	nl = memchr(ret->p, '\n', ps->len - ps->pos);
	ret->len = nl ? (size_t)(nl - ret->p) : ps->len - ps->pos;
	return true;
}

static void next_line(struct parser *ps)
{
	struct span l;

	if (!cur_line(ps, &l))
		return;
	ps->pos += l.len;
	if (ps->pos < ps->len)
		ps->pos++;	/* the '\n' */
	ps->lineno++;
}

/* The line @ahead lines after the current one. */
static bool peek_line(const struct parser *ps, unsigned ahead, struct span *ret)
{
	struct parser copy = *ps;

	while (ahead--) {
		if (!cur_line(&copy, ret))
			return false;
		next_line(&copy);
	}
	return cur_line(&copy, ret);
}

/* ---- errors ---- */

static int fail(struct parser *ps, unsigned lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *ps, unsigned lineno, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(ps->err, "line %u: ", lineno);
	va_start(ap, fmt);
	strbuf_vaddf(ps->err, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "line N: <path>: <why>", the path escaped */
static int fail_path(struct parser *ps, unsigned lineno, const char *path, size_t len,
		     const char *why)
{
	strbuf_addf(ps->err, "line %u: ", lineno);
	if (len) {
		patch_add_escaped(ps->err, path, len);
		strbuf_addf(ps->err, ": %s", why);
	} else {
		strbuf_addf(ps->err, "empty path: %s", why);
	}
	return -EINVAL;
}

/* ---- names ---- */

/*
 * Unquote the C-quoted name at @s (s[0] == '"'), as git writes names
 * with unusual bytes. Appends to @out; returns the bytes used (through
 * the closing quote) or 0 when the quoting is malformed.
 */
static size_t unquote(const char *s, size_t len, struct strbuf *out)
{
	size_t i = 1;

	while (i < len) {
		char c = s[i++];

		if (c == '"')
			return i;
		if (c != '\\') {
			strbuf_addch(out, c);
			continue;
		}
		if (i >= len)
			return 0;
		c = s[i++];
		switch (c) {
		case 'a': strbuf_addch(out, '\a'); break;
		case 'b': strbuf_addch(out, '\b'); break;
		case 'f': strbuf_addch(out, '\f'); break;
		case 'n': strbuf_addch(out, '\n'); break;
		case 'r': strbuf_addch(out, '\r'); break;
		case 't': strbuf_addch(out, '\t'); break;
		case 'v': strbuf_addch(out, '\v'); break;
		case '\\': strbuf_addch(out, '\\'); break;
		case '"': strbuf_addch(out, '"'); break;
		default:
			if (c < '0' || c > '3' || len - i < 2 ||
			    s[i] < '0' || s[i] > '7' || s[i + 1] < '0' || s[i + 1] > '7')
				return 0;
			strbuf_addch(out, (char)(((c - '0') << 6) | ((s[i] - '0') << 3) |
						 (s[i + 1] - '0')));
			i += 2;
		}
	}
	return 0;
}

/*
 * The name on a "--- " / "+++ " / "rename from " line: quoted, or up to
 * the first tab (git appends one to names with spaces; diff -u puts the
 * timestamp after one). Returns 0, or -1 when the quoting is malformed.
 */
static int line_name(struct span s, struct strbuf *out)
{
	const char *tab;
	size_t used;

	strbuf_reset(out);
	if (s.len && s.p[0] == '"') {
		used = unquote(s.p, s.len, out);
		if (!used || (used < s.len && !is_space(s.p[used])))
			return -1;
		return 0;
	}
	tab = memchr(s.p, '\t', s.len);
	strbuf_add(out, s.p, tab ? (size_t)(tab - s.p) : s.len);
	return 0;
}

static bool is_dev_null(const struct strbuf *name)
{
	return name->len == 9 && !memcmp(name->buf, "/dev/null", 9);
}

/* git apply -pN: the name without its first @n components, or NULL. */
static const char *strip_components(const char *name, size_t len, unsigned n, size_t *ret_len)
{
	const char *p = name, *slash;

	while (n--) {
		slash = memchr(p, '/', len - (size_t)(p - name));
		if (!slash)
			return NULL;
		p = slash + 1;
	}
	*ret_len = len - (size_t)(p - name);
	return p;
}

/*
 * Why @p is not a path the gate may touch, or NULL when it is fine.
 * @raw: the name as the patch wrote it, before -pN; only the checks that
 * -pN could hide (absolute, "..", control bytes) apply.
 */
static const char *path_problem(const char *p, size_t len, bool raw)
{
	size_t i, start;

	if (!len || p[0] == '/')
		return "leaves the tree";
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c < 0x20 || c == 0x7f)
			return "leaves the tree";
	}
	for (start = 0; start <= len; start = i + 1) {
		const char *comp = p + start;
		size_t n;

		for (i = start; i < len && p[i] != '/'; i++)
			;
		n = i - start;
		if (n == 2 && !memcmp(comp, "..", 2))
			return "leaves the tree";
		if (raw)
			continue;
		if (n == 0 || (n == 1 && comp[0] == '.'))
			return "is not a clean path (empty or \".\" component)";
		if (n == 4 && !strncasecmp(comp, ".git", 4))
			return "writes into .git";
	}
	return NULL;
}

/*
 * Check @name (raw; @strip: the leading components to drop, as -pN) and
 * hand back a copy of the path in @ret. Errors name @lineno.
 */
static int take_path(struct parser *ps, unsigned lineno, const struct strbuf *name,
		     unsigned strip, char **ret)
{
	const char *p = name->buf, *why;
	size_t len = name->len;

	if (strip) {
		p = strip_components(name->buf, name->len, strip, &len);
		why = p ? path_problem(p, len, false) : NULL;
		if (why)
			return fail_path(ps, lineno, p, len, why);
		/* what -pN would hide: "/etc/x", "../x" */
		why = path_problem(name->buf, name->len, true);
		if (why)
			return fail_path(ps, lineno, name->buf, name->len, why);
		if (!p && strip == 1)
			return fail_path(ps, lineno, name->buf, name->len,
					 "no leading directory to strip (expected a/<path>)");
		if (!p) {
			strbuf_addf(ps->err, "line %u: ", lineno);
			patch_add_escaped(ps->err, name->buf, name->len);
			strbuf_addf(ps->err, ": fewer than %u leading directories to strip (-p%u)",
				    strip, strip);
			return -EINVAL;
		}
	} else {
		why = path_problem(p, len, false);
		if (why)
			return fail_path(ps, lineno, p, len, why);
	}
	free(*ret);
	*ret = xstrndup(p, len);
	return 0;
}

/* Two names compare equal after -pN. */
static bool same_after_strip(const char *a, size_t alen, const char *b, size_t blen,
			     unsigned strip)
{
	const char *sa, *sb;
	size_t la = 0, lb = 0;

	sa = strip_components(a, alen, strip, &la);
	sb = strip_components(b, blen, strip, &lb);
	return sa && sb && la == lb && !memcmp(sa, sb, la);
}

/*
 * The path of "diff --git a/X b/X", found only when both sides name the
 * same path after -@strip (as git does; a rename takes its names from
 * rename from/to). Sets @ret to the raw "a/X" name.
 */
static bool git_line_name(struct span rest, unsigned strip, struct strbuf *ret)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	bool found = false;
	size_t i, used;

	strbuf_reset(ret);
	if (rest.len && rest.p[0] == '"') {
		used = unquote(rest.p, rest.len, &a);
		if (!used || used >= rest.len || rest.p[used] != ' ')
			goto out_release_names;
		used++;
		if (used < rest.len && rest.p[used] == '"') {
			size_t u2 = unquote(rest.p + used, rest.len - used, &b);

			if (!u2 || used + u2 != rest.len)
				goto out_release_names;
		} else {
			strbuf_add(&b, rest.p + used, rest.len - used);
		}
		found = same_after_strip(a.buf, a.len, b.buf, b.len, strip);
		goto out_release_names;
	}
	if (rest.len && rest.p[rest.len - 1] == '"') {
		/* a/plain "b/quoted" */
		for (i = 0; i + 1 < rest.len && !found; i++) {
			if (rest.p[i] != ' ' || rest.p[i + 1] != '"')
				continue;
			strbuf_reset(&b);
			used = unquote(rest.p + i + 1, rest.len - i - 1, &b);
			if (used && i + 1 + used == rest.len &&
			    same_after_strip(rest.p, i, b.buf, b.len, strip)) {
				strbuf_add(&a, rest.p, i);
				found = true;
			}
		}
		goto out_release_names;
	}
	for (i = 0; i < rest.len && !found; i++) {
		if (rest.p[i] != ' ')
			continue;
		if (same_after_strip(rest.p, i, rest.p + i + 1, rest.len - i - 1, strip)) {
			strbuf_add(&a, rest.p, i);
			found = true;
		}
	}
out_release_names:
	if (found)
		strbuf_add(ret, a.buf, a.len);
	strbuf_release(&a);
	strbuf_release(&b);
	return found;
}

/* ---- modes ---- */

/* 0 or -EINVAL; @ret is the canonical git mode */
static int parse_mode(struct parser *ps, struct span s, const char *path, size_t plen,
		      unsigned *ret)
{
	unsigned long v = 0;
	size_t i;

	while (s.len && is_space(s.p[s.len - 1]))
		s.len--;
	if (!s.len || s.len > 7)
		goto bad;
	for (i = 0; i < s.len; i++) {
		if (s.p[i] < '0' || s.p[i] > '7')
			goto bad;
		v = v * 8 + (unsigned long)(s.p[i] - '0');
	}
	switch (v & 0170000) {
	case 0100000:
		*ret = (v & 0111) ? 0100755 : 0100644;
		return 0;
	case 0120000:
		*ret = 0120000;
		return 0;
	case 0160000:
		return fail_path(ps, ps->lineno, path, plen, "submodule changes are not supported");
	}
bad:
	strbuf_addf(ps->err, "line %u: ", ps->lineno);
	patch_add_escaped(ps->err, path, plen);
	strbuf_adds(ps->err, ": bad mode \"");
	patch_add_escaped(ps->err, s.p, s.len > 20 ? 20 : s.len);
	strbuf_adds(ps->err, "\"");
	return -EINVAL;
}

/* ---- hunks ---- */

/* 0, -1 malformed, -2 too large for an unsigned */
static int parse_number(const char **s, const char *end, unsigned *ret)
{
	uint64_t v = 0;
	bool big = false;

	if (*s >= end || !is_digit(**s))
		return -1;
	while (*s < end && is_digit(**s)) {
		v = v * 10 + (uint64_t)(**s - '0');
		if (v > UINT_MAX) {
			big = true;
			v = UINT_MAX;
		}
		(*s)++;
	}
	*ret = (unsigned)v;
	return big ? -2 : 0;
}

/* "-l[,s]" or "+l[,s]" */
static int parse_range(const char **s, const char *end, char sign, unsigned *start,
		       unsigned *count)
{
	int r, r2 = 0;

	if (*s >= end || **s != sign)
		return -1;
	(*s)++;
	r = parse_number(s, end, start);
	if (r == -1)
		return -1;
	*count = 1;
	if (*s < end && **s == ',') {
		(*s)++;
		r2 = parse_number(s, end, count);
		if (r2 == -1)
			return -1;
	}
	if (r == 0 && r2 == 0 && (uint64_t)*start + *count > UINT_MAX)
		return -2;
	return r < 0 ? r : r2;
}

static void hunk_name(struct strbuf *sb, const struct patch_hunk *h)
{
	strbuf_addf(sb, "@@ -%u,%u +%u,%u @@", h->old_start, h->old_count, h->new_start,
		    h->new_count);
}

static int fail_hunk(struct parser *ps, const struct patch_hunk *h, const char *path,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* "line H: hunk @@ ... @@ in <path> <what>" */
static int fail_hunk(struct parser *ps, const struct patch_hunk *h, const char *path,
		     const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(ps->err, "line %u: hunk ", h->patch_line);
	hunk_name(ps->err, h);
	strbuf_adds(ps->err, " in ");
	patch_add_escaped(ps->err, path, strlen(path));
	strbuf_addch(ps->err, ' ');
	va_start(ap, fmt);
	strbuf_vaddf(ps->err, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void add_line(struct patch_hunk *h, size_t *alloc, char origin, struct span text)
{
	struct patch_line *l;

	if (h->n_lines == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 16;
		h->lines = xrealloc(h->lines, *alloc * sizeof(*h->lines));
	}
	l = &h->lines[h->n_lines++];
	l->origin = origin;
	l->text = text.p;
	l->len = text.len;
	l->no_eol = false;
}

/*
 * "\ No newline at end of file" may only follow the last line of a side
 * (old: ' ' and '-', new: ' ' and '+') of the file's last hunk.
 */
static bool no_eol_misplaced(const struct patch_hunk *h)
{
	bool old_ended = false, new_ended = false;
	size_t i;

	for (i = 0; i < h->n_lines; i++) {
		const struct patch_line *l = &h->lines[i];
		bool old_side = l->origin != '+', new_side = l->origin != '-';

		if ((old_side && old_ended) || (new_side && new_ended))
			return true;
		if (l->no_eol) {
			old_ended |= old_side;
			new_ended |= new_side;
		}
	}
	return false;
}

static bool hunk_has_no_eol(const struct patch_hunk *h)
{
	size_t i;

	for (i = 0; i < h->n_lines; i++)
		if (h->lines[i].no_eol)
			return true;
	return false;
}

/* The current line is "@@ -"; parse the hunk into @f. */
static int parse_hunk(struct parser *ps, struct patch_file *f, const char *path)
{
	struct patch_hunk *h;
	struct span l;
	const char *s, *end;
	unsigned old_left, new_left;
	size_t alloc = 0;
	int r;

	cur_line(ps, &l);
	if (f->n_hunks && hunk_has_no_eol(&f->hunks[f->n_hunks - 1]))
		return fail(ps, f->hunks[f->n_hunks - 1].patch_line,
			    "\"\\ No newline at end of file\" in a hunk of %s that is not its last",
			    path);
	f->hunks = xrealloc(f->hunks, (f->n_hunks + 1) * sizeof(*f->hunks));
	h = &f->hunks[f->n_hunks++];
	memset(h, 0, sizeof(*h));
	h->patch_line = ps->lineno;

	s = l.p + 3;
	end = l.p + l.len;
	r = parse_range(&s, end, '-', &h->old_start, &h->old_count);
	if (!r) {
		if (s < end && *s == ' ')
			s++;
		else
			r = -1;
	}
	if (!r)
		r = parse_range(&s, end, '+', &h->new_start, &h->new_count);
	if (!r && (end - s < 3 || memcmp(s, " @@", 3)))
		r = -1;
	if (r == -2)
		return fail(ps, ps->lineno, "hunk header in %s: line numbers overflow", path);
	if (r < 0) {
		strbuf_addf(ps->err, "line %u: malformed hunk header in %s: \"", ps->lineno, path);
		patch_add_escaped(ps->err, l.p, l.len > 60 ? 60 : l.len);
		strbuf_adds(ps->err, l.len > 60 ? "...\"" : "\"");
		return -EINVAL;
	}
	if (!h->old_count && !h->new_count)
		return fail_hunk(ps, h, path, "is empty");
	if ((h->old_count && !h->old_start) || (h->new_count && !h->new_start))
		return fail_hunk(ps, h, path, "starts at line 0");
	next_line(ps);

	old_left = h->old_count;
	new_left = h->new_count;
	while (old_left || new_left) {
		char origin;

		if (!cur_line(ps, &l))
			return fail_hunk(ps, h, path,
					 "is truncated: the patch ends at line %u with %u old and %u new lines missing",
					 ps->lineno - 1, old_left, new_left);
		/* an empty line is an empty context line whose space a mailer ate */
		origin = l.len ? l.p[0] : ' ';
		switch (origin) {
		case ' ':
			if (!old_left || !new_left)
				goto mismatch;
			old_left--;
			new_left--;
			break;
		case '-':
			if (!old_left)
				goto mismatch;
			old_left--;
			break;
		case '+':
			if (!new_left)
				goto mismatch;
			new_left--;
			break;
		case '\\':
			if (!h->n_lines || h->lines[h->n_lines - 1].no_eol)
				return fail(ps, ps->lineno, "stray \"\\ No newline\" line in %s", path);
			h->lines[h->n_lines - 1].no_eol = true;
			next_line(ps);
			continue;
		default:
			return fail_hunk(ps, h, path,
					 "is truncated: line %u is no hunk line, with %u old and %u new lines missing",
					 ps->lineno, old_left, new_left);
		}
		add_line(h, &alloc, origin, l.len ? span_after(l, 1) : l);
		next_line(ps);
	}
	if (cur_line(ps, &l) && l.len && l.p[0] == '\\') {
		if (h->lines[h->n_lines - 1].no_eol)
			return fail(ps, ps->lineno, "stray \"\\ No newline\" line in %s", path);
		h->lines[h->n_lines - 1].no_eol = true;
		next_line(ps);
	}
	if (no_eol_misplaced(h))
		return fail_hunk(ps, h, path,
				 "has lines after \"\\ No newline at end of file\"");
	return 0;

mismatch:
	return fail_hunk(ps, h, path,
			 "does not match its header counts: line %u is one '%c' line too many",
			 ps->lineno, l.len ? l.p[0] : ' ');
}

/* ---- file sections ---- */

static void section_init(struct section *sec, const struct parser *ps, bool git)
{
	memset(sec, 0, sizeof(*sec));
	sec->lineno = ps->lineno;
	sec->git = git;
	sec->strip = ps->strip;
	strbuf_init(&sec->def_name, 0);
	strbuf_init(&sec->minus, 0);
	strbuf_init(&sec->plus, 0);
	strbuf_init(&sec->rename_from, 0);
	strbuf_init(&sec->rename_to, 0);
}

static void section_release(struct section *sec)
{
	strbuf_release(&sec->def_name);
	strbuf_release(&sec->minus);
	strbuf_release(&sec->plus);
	strbuf_release(&sec->rename_from);
	strbuf_release(&sec->rename_to);
}

/* The best name the section has so far, for messages. */
static const struct strbuf *section_some_name(const struct section *sec)
{
	if (sec->have_rename_to)
		return &sec->rename_to;
	if (sec->have_plus && !sec->plus_null)
		return &sec->plus;
	if (sec->have_minus && !sec->minus_null)
		return &sec->minus;
	if (sec->have_rename_from)
		return &sec->rename_from;
	return &sec->def_name;
}

/* The best name the section has so far, without a/ b/, for messages. */
static const char *section_display_name(const struct section *sec, size_t *ret_len)
{
	const struct strbuf *name = section_some_name(sec);
	const char *p = NULL;

	if (name != &sec->rename_to && name != &sec->rename_from &&
	    (name != &sec->def_name || sec->have_def))
		p = strip_components(name->buf, name->len, sec->strip, ret_len);
	if (!p) {
		p = name->buf;
		*ret_len = name->len;
	}
	return p;
}

static int fail_binary(struct parser *ps, const struct section *sec)
{
	size_t len;
	const char *p = section_display_name(sec, &len);

	strbuf_addf(ps->err, "line %u: ", ps->lineno);
	patch_add_escaped(ps->err, p, len);
	strbuf_adds(ps->err, ": binary patch: not applied");
	return -EINVAL;
}

static struct patch_file *new_file(struct parser *ps)
{
	struct patch *p = ps->patch;
	struct patch_file *f;

	if (p->n_files == ps->files_alloc) {
		ps->files_alloc = ps->files_alloc ? ps->files_alloc * 2 : 8;
		p->files = xrealloc(p->files, ps->files_alloc * sizeof(*p->files));
	}
	f = &p->files[p->n_files++];
	memset(f, 0, sizeof(*f));
	return f;
}

/* The --- name is a strict prefix of the +++ name, after -pN. */
static bool minus_is_prefix(const struct section *sec)
{
	const char *m, *p;
	size_t ml = 0, pl = 0;

	m = strip_components(sec->minus.buf, sec->minus.len, sec->strip, &ml);
	p = strip_components(sec->plus.buf, sec->plus.len, sec->strip, &pl);
	return m && p && ml < pl && !memcmp(m, p, ml);
}

/* Turn the names a section stated into @f's paths and change. */
static int resolve_names(struct parser *ps, struct section *sec, struct patch_file *f)
{
	const struct strbuf *name;
	/* git apply: rename and copy names have no a/ b/, so one component less */
	unsigned rename_strip = sec->strip ? sec->strip - 1 : 0;
	int r;

	name = section_some_name(sec);
	if (sec->is_new && sec->is_delete)
		return fail_path(ps, sec->lineno, name->buf, name->len,
				 "is both a new and a deleted file");
	if (sec->have_rename_from != sec->have_rename_to)
		return fail(ps, sec->rename_line, "%s from without %s to, or the reverse",
			    sec->is_copy ? "copy" : "rename", sec->is_copy ? "copy" : "rename");
	if (sec->is_copy && sec->is_rename)
		return fail(ps, sec->rename_line, "both a copy and a rename");
	if (sec->have_minus && sec->have_plus && sec->minus_null && sec->plus_null)
		return fail(ps, sec->minus_line, "both sides are /dev/null");

	if (sec->have_rename_from) {
		const char *what = sec->is_copy ? "copy" : "rename";

		if (sec->is_new || sec->is_delete || sec->minus_null || sec->plus_null)
			return fail(ps, sec->rename_line, "a %s that also adds or deletes", what);
		r = take_path(ps, sec->rename_line, &sec->rename_from, rename_strip, &f->old_path);
		if (!r)
			r = take_path(ps, sec->rename_line, &sec->rename_to, rename_strip,
				      &f->new_path);
		if (r)
			return r;
		if (!strcmp(f->old_path, f->new_path))
			return fail_path(ps, sec->rename_line, f->old_path, strlen(f->old_path),
					 sec->is_copy ? "copied to itself" : "renamed to itself");
		f->change = sec->is_copy ? PATCH_COPY : PATCH_RENAME;
	} else {
		bool is_new = sec->is_new || (sec->have_minus && sec->minus_null);
		bool is_delete = sec->is_delete || (sec->have_plus && sec->plus_null);

		if (is_new && is_delete)
			return fail_path(ps, sec->lineno, name->buf, name->len,
					 "is both a new and a deleted file");
		/* the side that names a file, preferring +++ as a new file must */
		if (sec->have_plus && !sec->plus_null && !is_delete) {
			name = &sec->plus;
		} else if (sec->have_minus && !sec->minus_null) {
			name = &sec->minus;
		} else if (sec->have_def) {
			name = &sec->def_name;
		} else {
			strbuf_addf(ps->err, "line %u: cannot tell the path from \"diff --git ",
				    sec->lineno);
			patch_add_escaped(ps->err, sec->def_name.buf, sec->def_name.len);
			strbuf_adds(ps->err, "\"");
			return -EINVAL;
		}
		/* traditional diffs: quilt's "linux.orig/x" vs "linux/x" agree after -p1 */
		if (sec->have_minus && sec->have_plus && !sec->minus_null && !sec->plus_null &&
		    !same_after_strip(sec->minus.buf, sec->minus.len, sec->plus.buf,
				      sec->plus.len, sec->strip)) {
			if (sec->git)
				return fail(ps, sec->minus_line,
					    "--- and +++ name different files without a rename");
			/*
			 * As git apply does for traditional patches: the +++
			 * name, unless the --- one is a prefix of it ("x"
			 * and "x.orig" or "x~").
			 */
			if (minus_is_prefix(sec))
				name = &sec->minus;
		}
		if (sec->git && sec->have_def && name != &sec->def_name &&
		    !same_after_strip(name->buf, name->len, sec->def_name.buf, sec->def_name.len,
				      sec->strip))
			return fail(ps, name == &sec->plus ? sec->plus_line : sec->minus_line,
				    "--- / +++ name a file the diff --git line does not");
		r = take_path(ps, name == &sec->plus ? sec->plus_line :
			      name == &sec->minus ? sec->minus_line : sec->lineno,
			      name, sec->strip, is_new ? &f->new_path : &f->old_path);
		if (r)
			return r;
		if (is_new) {
			f->change = PATCH_ADD;
		} else if (is_delete) {
			f->change = PATCH_DELETE;
		} else {
			f->change = PATCH_MODIFY;
			f->new_path = xstrdup(f->old_path);
		}
	}
	f->new_mode = f->change == PATCH_DELETE ? 0 : sec->new_mode;
	return 0;
}

static int parse_hunks(struct parser *ps, struct patch_file *f)
{
	const char *path = f->new_path ? f->new_path : f->old_path;
	struct span l;
	size_t i;
	int r;

	while (cur_line(ps, &l) && span_starts(l, "@@ -")) {
		r = parse_hunk(ps, f, path);
		if (r)
			return r;
	}
	for (i = 0; i < f->n_hunks; i++) {
		const struct patch_hunk *h = &f->hunks[i];

		if (f->change == PATCH_ADD && (h->old_count || h->old_start))
			return fail_hunk(ps, h, path, "needs old lines in a file the patch adds");
		if (f->change == PATCH_DELETE && (h->new_count || h->new_start))
			return fail_hunk(ps, h, path, "keeps lines in a file the patch deletes");
	}
	return 0;
}

static int git_section(struct parser *ps)
{
	struct section sec;
	struct patch_file *f;
	struct span l, rest;
	bool saw_minus_plus = false;
	int r = 0;

	cur_line(ps, &l);
	section_init(&sec, ps, true);
	rest = span_after(l, strlen("diff --git "));
	sec.have_def = git_line_name(rest, ps->strip, &sec.def_name);
	if (!sec.have_def)
		strbuf_add(&sec.def_name, rest.p, rest.len);	/* for messages */
	next_line(ps);

	while (!r && cur_line(ps, &l)) {
		size_t some_len;
		const char *some = section_display_name(&sec, &some_len);

		if (span_starts(l, "old mode ")) {
			unsigned ignored;

			r = parse_mode(ps, span_after(l, 9), some, some_len, &ignored);
		} else if (span_starts(l, "new mode ")) {
			r = parse_mode(ps, span_after(l, 9), some, some_len, &sec.new_mode);
		} else if (span_starts(l, "deleted file mode ")) {
			unsigned ignored;

			sec.is_delete = true;
			r = parse_mode(ps, span_after(l, 18), some, some_len, &ignored);
		} else if (span_starts(l, "new file mode ")) {
			sec.is_new = true;
			r = parse_mode(ps, span_after(l, 14), some, some_len, &sec.new_mode);
		} else if (span_starts(l, "rename from ") || span_starts(l, "rename old ")) {
			sec.is_rename = true;
			sec.have_rename_from = true;
			sec.rename_line = ps->lineno;
			if (line_name(span_after(l, span_starts(l, "rename from ") ? 12 : 11),
				      &sec.rename_from))
				r = fail(ps, ps->lineno, "malformed quoted name");
		} else if (span_starts(l, "rename to ") || span_starts(l, "rename new ")) {
			sec.is_rename = true;
			sec.have_rename_to = true;
			sec.rename_line = ps->lineno;
			if (line_name(span_after(l, span_starts(l, "rename to ") ? 10 : 11),
				      &sec.rename_to))
				r = fail(ps, ps->lineno, "malformed quoted name");
		} else if (span_starts(l, "copy from ")) {
			sec.is_copy = true;
			sec.have_rename_from = true;
			sec.rename_line = ps->lineno;
			if (line_name(span_after(l, 10), &sec.rename_from))
				r = fail(ps, ps->lineno, "malformed quoted name");
		} else if (span_starts(l, "copy to ")) {
			sec.is_copy = true;
			sec.have_rename_to = true;
			sec.rename_line = ps->lineno;
			if (line_name(span_after(l, 8), &sec.rename_to))
				r = fail(ps, ps->lineno, "malformed quoted name");
		} else if (span_starts(l, "similarity index ") ||
			   span_starts(l, "dissimilarity index ") || span_starts(l, "index ")) {
			/* nothing the apply needs */
		} else if (span_starts(l, "GIT binary patch") || span_starts(l, "Binary files ")) {
			r = fail_binary(ps, &sec);
		} else if (span_starts(l, "--- ")) {
			struct span next;

			if (!peek_line(ps, 1, &next) || !span_starts(next, "+++ ")) {
				r = fail(ps, ps->lineno, "--- line without a +++ line after it");
				break;
			}
			sec.have_minus = sec.have_plus = true;
			sec.minus_line = ps->lineno;
			sec.plus_line = ps->lineno + 1;
			if (line_name(span_after(l, 4), &sec.minus) ||
			    line_name(span_after(next, 4), &sec.plus)) {
				r = fail(ps, ps->lineno, "malformed quoted name");
				break;
			}
			sec.minus_null = is_dev_null(&sec.minus);
			sec.plus_null = is_dev_null(&sec.plus);
			next_line(ps);
			next_line(ps);
			saw_minus_plus = true;
			break;
		} else {
			break;
		}
		if (!r)
			next_line(ps);
	}
	if (r)
		goto out_release_section;

	f = new_file(ps);
	f->patch_line = sec.lineno;
	r = resolve_names(ps, &sec, f);
	if (r)
		goto out_release_section;
	if (saw_minus_plus && !(cur_line(ps, &l) && span_starts(l, "@@ -"))) {
		r = fail(ps, ps->lineno, "%s: --- / +++ lines without a hunk after them",
			 f->new_path ? f->new_path : f->old_path);
		goto out_release_section;
	}
	if (!saw_minus_plus && cur_line(ps, &l) && span_starts(l, "@@ -")) {
		r = fail(ps, ps->lineno, "%s: hunk without --- / +++ lines before it",
			 f->new_path ? f->new_path : f->old_path);
		goto out_release_section;
	}
	r = parse_hunks(ps, f);
out_release_section:
	section_release(&sec);
	return r;
}

/* "--- X", "+++ Y", "@@ -": a diff -u or quilt patch of one file */
static int plain_section(struct parser *ps)
{
	struct section sec;
	struct patch_file *f;
	struct span minus, plus;
	size_t i;
	uint64_t old_lines = 0, new_lines = 0;
	int r;

	cur_line(ps, &minus);
	peek_line(ps, 1, &plus);
	section_init(&sec, ps, false);
	sec.have_minus = sec.have_plus = true;
	sec.minus_line = ps->lineno;
	sec.plus_line = ps->lineno + 1;
	if (line_name(span_after(minus, 4), &sec.minus) ||
	    line_name(span_after(plus, 4), &sec.plus)) {
		r = fail(ps, ps->lineno, "malformed quoted name");
		goto out_release_section;
	}
	sec.minus_null = is_dev_null(&sec.minus);
	sec.plus_null = is_dev_null(&sec.plus);
	next_line(ps);
	next_line(ps);

	f = new_file(ps);
	f->patch_line = sec.lineno;
	r = resolve_names(ps, &sec, f);
	if (!r)
		r = parse_hunks(ps, f);
	if (r || f->change != PATCH_MODIFY)
		goto out_release_section;
	/*
	 * As git apply does for traditional patches: a single hunk that
	 * needs no old lines creates the file, one that leaves no new
	 * lines deletes it.
	 */
	for (i = 0; i < f->n_hunks; i++) {
		old_lines += f->hunks[i].old_count;
		new_lines += f->hunks[i].new_count;
	}
	if (f->n_hunks == 1 && !old_lines && !f->hunks[0].old_start) {
		f->change = PATCH_ADD;
		free(f->old_path);
		f->old_path = NULL;
	} else if (!new_lines && f->n_hunks == 1 && !f->hunks[0].new_start) {
		f->change = PATCH_DELETE;
		free(f->new_path);
		f->new_path = NULL;
	}
out_release_section:
	section_release(&sec);
	return r;
}

/*
 * Where git am ends the message: "diff -", "Index: ", "--- <name>", or a
 * "---" separator followed by nothing but whitespace.
 */
static bool is_patchbreak(struct span l)
{
	size_t i;

	if (span_starts(l, "diff -") || span_starts(l, "Index: "))
		return true;
	if (!span_starts(l, "---"))
		return false;
	if (l.len > 4 && l.p[3] == ' ' && !is_space(l.p[4]))
		return true;
	for (i = 3; i < l.len; i++)
		if (!is_space(l.p[i]))
			return false;
	return true;
}

/* "Binary files a/x and b/x differ" outside a git section */
static int fail_binary_line(struct parser *ps, struct span l)
{
	struct span name = span_after(l, strlen("Binary files "));
	size_t i;

	for (i = 0; i + 5 <= name.len; i++) {
		if (!memcmp(name.p + i, " and ", 5)) {
			name = span_after(name, i + 5);
			break;
		}
	}
	if (name.len >= 7 && !memcmp(name.p + name.len - 7, " differ", 7))
		name.len -= 7;
	strbuf_addf(ps->err, "line %u: ", ps->lineno);
	patch_add_escaped(ps->err, name.p, name.len);
	strbuf_adds(ps->err, ": binary patch: not applied");
	return -EINVAL;
}

static int parse_body(struct parser *ps)
{
	struct span l, next, after;
	int r;

	while (cur_line(ps, &l) && !is_patchbreak(l))
		next_line(ps);

	while (cur_line(ps, &l)) {
		if (span_starts(l, "diff --git ")) {
			if (ps->patch->n_files >= PATCH_MAX_FILES)
				goto too_many;
			r = git_section(ps);
			if (r)
				return r;
			continue;
		}
		if (span_starts(l, "--- ") && peek_line(ps, 1, &next) && span_starts(next, "+++ ") &&
		    peek_line(ps, 2, &after) && span_starts(after, "@@ -")) {
			if (ps->patch->n_files >= PATCH_MAX_FILES)
				goto too_many;
			r = plain_section(ps);
			if (r)
				return r;
			continue;
		}
		if (span_starts(l, "@@ -"))
			return fail(ps, ps->lineno, "hunk header outside a file section");
		if (span_starts(l, "GIT binary patch")) {
			strbuf_addf(ps->err, "line %u: binary patch without a file header: not applied",
				    ps->lineno);
			return -EINVAL;
		}
		if (span_starts(l, "Binary files "))
			return fail_binary_line(ps, l);
		next_line(ps);
	}
	if (!ps->patch->n_files) {
		strbuf_adds(ps->err, "empty patch: no diff in it");
		return -EINVAL;
	}
	return 0;

too_many:
	strbuf_addf(ps->err, "line %u: more than %u files in one patch", ps->lineno,
		    PATCH_MAX_FILES);
	return -E2BIG;
}

int patch_parse(const char *text, size_t len, struct patch *ret, struct strbuf *err)
{
	return patch_parse_strip(text, len, 1, ret, err);
}

int patch_parse_strip(const char *text, size_t len, unsigned strip, struct patch *ret,
		      struct strbuf *err)
{
	struct parser ps;
	const char *nul;

	memset(ret, 0, sizeof(*ret));
	if (strip > PATCH_MAX_STRIP) {
		strbuf_addf(err, "-p%u: cannot strip more than %u leading directories", strip,
			    PATCH_MAX_STRIP);
		return -EINVAL;
	}
	if (len > PATCH_MAX_BYTES) {
		strbuf_addf(err, "patch is %zu bytes, more than the %u MiB limit", len,
			    PATCH_MAX_BYTES >> 20);
		return -E2BIG;
	}
	if (!len) {
		strbuf_adds(err, "empty patch: no diff in it");
		return -EINVAL;
	}
	nul = memchr(text, '\0', len);
	if (nul) {
		const char *p;
		unsigned lineno = 1;

		for (p = text; p < nul; p++)
			lineno += *p == '\n';
		strbuf_addf(err, "line %u: not a text file (NUL byte)", lineno);
		return -EINVAL;
	}
	ret->copy = xmalloc(len + 1);
	memcpy(ret->copy, text, len);
	ret->copy[len] = '\0';

	memset(&ps, 0, sizeof(ps));
	ps.buf = ret->copy;
	ps.len = len;
	ps.lineno = 1;
	ps.patch = ret;
	ps.err = err;
	ps.strip = strip;
	return parse_body(&ps);
}

void patch_release(struct patch *p)
{
	size_t i, j;

	for (i = 0; i < p->n_files; i++) {
		struct patch_file *f = &p->files[i];

		free(f->old_path);
		free(f->new_path);
		for (j = 0; j < f->n_hunks; j++)
			free(f->hunks[j].lines);
		free(f->hunks);
	}
	free(p->files);
	free(p->copy);
	memset(p, 0, sizeof(*p));
}
