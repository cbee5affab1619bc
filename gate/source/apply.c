// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "source/apply.h"

#define DEFAULT_MODE 0100644

/* One line of a file: @len counts the '\n', which only the last line may lack. */
struct line_ref {
	const char *p;
	size_t len;
};

/* What the patch has made of one path so far. */
struct entry {
	char *path;
	bool in_store;		/* the path existed before the patch */
	bool exists;		/* ... and after the sections applied so far */
	bool dirty;		/* to write (exists) or remove (!exists) at the end */
	unsigned mode;
	struct strbuf content;
};

struct workspace {
	const struct apply_store_ops *ops;
	void *ctx;
	struct entry *v;
	size_t n, alloc;
};

/* A file section seen in one direction: reversed, + and - trade places. */
struct file_view {
	const struct patch_file *f;
	bool reverse;
	enum patch_change change;
	const char *src;	/* path read; NULL when adding */
	const char *dst;	/* path written; NULL when deleting */
};

static void view_init(struct file_view *v, const struct patch_file *f, bool reverse)
{
	v->f = f;
	v->reverse = reverse;
	v->change = f->change;
	v->src = reverse ? f->new_path : f->old_path;
	v->dst = reverse ? f->old_path : f->new_path;
	if (reverse && f->change == PATCH_ADD)
		v->change = PATCH_DELETE;
	else if (reverse && f->change == PATCH_DELETE)
		v->change = PATCH_ADD;
}

static bool in_pre(char origin, bool reverse)
{
	return origin == ' ' || origin == (reverse ? '+' : '-');
}

static bool in_post(char origin, bool reverse)
{
	return origin == ' ' || origin == (reverse ? '-' : '+');
}

/* ---- outcome ---- */

static int failf(struct apply_outcome *o, const char *file, unsigned hunk, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Record a failure to apply; returns 1, which callers pass up. */
static int failf(struct apply_outcome *o, const char *file, unsigned hunk, const char *fmt, ...)
{
	va_list ap;

	o->status = APPLY_FAILED;
	free(o->file);
	o->file = xstrdup(file);
	o->hunk = hunk;
	strbuf_reset(&o->message);
	va_start(ap, fmt);
	strbuf_vaddf(&o->message, fmt, ap);
	va_end(ap);
	return 1;
}

static int store_error(struct apply_outcome *o, const char *path, const char *what, int r)
{
	strbuf_reset(&o->message);
	strbuf_addf(&o->message, "%s: cannot %s it: %s", path, what, strerror(-r));
	return r;
}

static void outcome_init(struct apply_outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->status = APPLY_FAILED;
	strbuf_init(&o->message, 0);
}

void apply_outcome_release(struct apply_outcome *o)
{
	free(o->file);
	o->file = NULL;
	strbuf_release(&o->message);
}

/* ---- workspace ---- */

static void ws_init(struct workspace *ws, const struct apply_store_ops *ops, void *ctx)
{
	memset(ws, 0, sizeof(*ws));
	ws->ops = ops;
	ws->ctx = ctx;
}

static void ws_release(struct workspace *ws)
{
	size_t i;

	for (i = 0; i < ws->n; i++) {
		free(ws->v[i].path);
		strbuf_release(&ws->v[i].content);
	}
	free(ws->v);
	memset(ws, 0, sizeof(*ws));
}

/*
 * The entry for @path, read from the store on first use. Returns 0 with
 * its index in @ret_index, or a negative errno (message in @o).
 */
static int ws_get(struct workspace *ws, const char *path, size_t *ret_index,
		  struct apply_outcome *o)
{
	struct entry *e;
	size_t i;
	int r;

	for (i = 0; i < ws->n; i++) {
		if (!strcmp(ws->v[i].path, path)) {
			*ret_index = i;
			return 0;
		}
	}
	if (ws->n == ws->alloc) {
		ws->alloc = ws->alloc ? ws->alloc * 2 : 8;
		ws->v = xrealloc(ws->v, ws->alloc * sizeof(*ws->v));
	}
	e = &ws->v[ws->n];
	memset(e, 0, sizeof(*e));
	strbuf_init(&e->content, 0);
	r = ws->ops->read(ws->ctx, path, &e->content, &e->mode);
	if (r < 0 && r != -ENOENT) {
		strbuf_release(&e->content);
		return store_error(o, path, "read", r);
	}
	e->path = xstrdup(path);
	e->in_store = e->exists = r != -ENOENT;
	if (!e->exists)
		strbuf_reset(&e->content);
	if (!e->mode)
		e->mode = DEFAULT_MODE;
	*ret_index = ws->n++;
	return 0;
}

/* Write what changed: removes first, so a file may give way to a directory. */
static int ws_flush(struct workspace *ws, struct apply_outcome *o)
{
	size_t i;
	int r;

	for (i = 0; i < ws->n; i++) {
		struct entry *e = &ws->v[i];

		if (!e->dirty || e->exists || !e->in_store)
			continue;
		r = ws->ops->remove(ws->ctx, e->path);
		if (r < 0)
			return store_error(o, e->path, "remove", r);
	}
	for (i = 0; i < ws->n; i++) {
		struct entry *e = &ws->v[i];

		if (!e->dirty || !e->exists)
			continue;
		r = ws->ops->write(ws->ctx, e->path, e->content.buf, e->content.len, e->mode);
		if (r < 0)
			return store_error(o, e->path, "write", r);
	}
	return 0;
}

/* ---- symlinks ---- */

#define LINK_MODE 0120000

/*
 * Whether a symlink at @path to @target resolves outside the tree, read
 * as the path says (lexically): absolute, or more ".." than directories.
 */
static bool link_leaves_tree(const char *path, const char *target, size_t len)
{
	long depth = 0;
	size_t i, start;

	if (!len || target[0] == '/' || memchr(target, '\0', len))
		return true;
	for (i = 0; path[i]; i++)
		depth += path[i] == '/';
	for (start = 0; start <= len; start = i + 1) {
		for (i = start; i < len && target[i] != '/'; i++)
			;
		if (i - start == 2 && !memcmp(target + start, "..", 2)) {
			if (--depth < 0)
				return true;
		} else if (i - start && !(i - start == 1 && target[start] == '.')) {
			depth++;
		}
	}
	return false;
}

/* true when @prefix is a symlink, as the patch leaves it so far */
static bool is_link(struct workspace *ws, const char *prefix)
{
	struct strbuf content = STRBUF_INIT;
	unsigned mode = 0;
	bool link;
	size_t i;

	for (i = 0; i < ws->n; i++)
		if (!strcmp(ws->v[i].path, prefix))
			return ws->v[i].exists && (ws->v[i].mode & 0170000) == LINK_MODE;
	link = ws->ops->read(ws->ctx, prefix, &content, &mode) == 0 &&
	       (mode & 0170000) == LINK_MODE;
	strbuf_release(&content);
	return link;
}

/*
 * As git apply: nothing is read or written beyond a symlink, and a link
 * the patch makes must stay in the tree. Checking out either would let a
 * queue reach files outside the kernel tree. 0, or 1 with @o filled.
 */
static int check_links(struct workspace *ws, struct apply_outcome *o)
{
	size_t i;

	for (i = 0; i < ws->n; i++) {
		struct entry *e = &ws->v[i];
		char *slash;

		for (slash = strchr(e->path, '/'); slash; slash = strchr(slash + 1, '/')) {
			char *prefix = xstrndup(e->path, (size_t)(slash - e->path));
			int r = 0;

			if (is_link(ws, prefix))
				r = failf(o, e->path, 0, "%s: beyond a symbolic link: %s is a symlink",
					  e->path, prefix);
			free(prefix);
			if (r)
				return r;
		}
		if (e->dirty && e->exists && (e->mode & 0170000) == LINK_MODE &&
		    link_leaves_tree(e->path, e->content.buf, e->content.len)) {
			/* the target is the patch's: escaped, so it cannot forge a line */
			struct strbuf target = STRBUF_INIT;
			int r;

			patch_add_escaped(&target, e->content.buf, e->content.len);
			r = failf(o, e->path, 0, "%s: a symlink to '%s', which leaves the tree",
				  e->path, target.buf);
			strbuf_release(&target);
			return r;
		}
	}
	return 0;
}

/* ---- matching ---- */

static size_t split_lines(const char *buf, size_t len, struct line_ref **ret)
{
	struct line_ref *v;
	const char *p = buf, *end = buf + len, *nl;
	size_t n = 0;

	for (p = buf; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
		n++;
	if (p < end)
		n++;
	v = xmalloc(n * sizeof(*v));
	n = 0;
	for (p = buf; p < end; p += v[n++].len) {
		nl = memchr(p, '\n', (size_t)(end - p));
		v[n].p = p;
		v[n].len = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
	}
	*ret = v;
	return n;
}

/* Byte for byte, the newline (or its absence) included. */
static bool line_matches(const struct line_ref *fl, const struct patch_line *pl)
{
	if (fl->len != pl->len + !pl->no_eol)
		return false;
	if (!pl->no_eol && fl->p[pl->len] != '\n')
		return false;
	return !memcmp(fl->p, pl->text, pl->len);
}

struct hunk_lines {
	const struct patch_line **pre, **post;
	size_t n_pre, n_post;
	size_t trailing;	/* context lines after the last change */
};

static void hunk_lines_init(struct hunk_lines *hl, const struct patch_hunk *h, bool reverse)
{
	size_t i;

	hl->pre = xmalloc(h->n_lines * sizeof(*hl->pre));
	hl->post = xmalloc(h->n_lines * sizeof(*hl->post));
	hl->n_pre = hl->n_post = hl->trailing = 0;
	for (i = 0; i < h->n_lines; i++) {
		const struct patch_line *l = &h->lines[i];

		if (in_pre(l->origin, reverse))
			hl->pre[hl->n_pre++] = l;
		if (in_post(l->origin, reverse))
			hl->post[hl->n_post++] = l;
		hl->trailing = l->origin == ' ' ? hl->trailing + 1 : 0;
	}
}

static void hunk_lines_release(struct hunk_lines *hl)
{
	free(hl->pre);
	free(hl->post);
}

static bool matches_at(const struct line_ref *lines, size_t n, const struct hunk_lines *hl,
		       size_t pos)
{
	size_t i;

	if (pos > n || n - pos < hl->n_pre)
		return false;
	for (i = 0; i < hl->n_pre; i++)
		if (!line_matches(&lines[pos + i], hl->pre[i]))
			return false;
	return true;
}

/*
 * Where the preimage matches: at @expected, then nearest first outward
 * (+1, -1, +2, ...), never before @min_pos. -1 when nowhere.
 */
static long long find_match(const struct line_ref *lines, size_t n, const struct hunk_lines *hl,
			    long long expected, size_t min_pos, bool match_beginning,
			    bool match_end)
{
	long long last, d;

	if (n < hl->n_pre || n - hl->n_pre < min_pos)
		return -1;
	last = (long long)(n - hl->n_pre);
	if (match_beginning || match_end) {
		long long only = match_beginning ? 0 : last;

		if (only < (long long)min_pos || (match_end && only != last))
			return -1;
		return matches_at(lines, n, hl, (size_t)only) ? only : -1;
	}
	/* from beyond an end, the nearest lines are the same as from that end */
	if (expected > last)
		expected = last;
	if (expected < (long long)min_pos)
		expected = (long long)min_pos;
	for (d = 0;; d++) {
		bool in_range = false;

		if (expected + d <= last) {
			in_range = true;
			if (matches_at(lines, n, hl, (size_t)(expected + d)))
				return expected + d;
		}
		if (d && expected - d >= (long long)min_pos) {
			in_range = true;
			if (matches_at(lines, n, hl, (size_t)(expected - d)))
				return expected - d;
		}
		if (!in_range)
			return -1;
	}
}

/* A line for a message: escaped, without its newline, cut at 60 bytes. */
static void add_shown(struct strbuf *sb, const char *p, size_t len)
{
	bool cut = len > 60;

	strbuf_addch(sb, '"');
	patch_add_escaped(sb, p, cut ? 60 : len);
	strbuf_adds(sb, cut ? "...\"" : "\"");
}

/* Why the preimage does not match at @pos: the first line that differs. */
static void explain_mismatch(struct strbuf *sb, const struct line_ref *lines, size_t n,
			     const struct hunk_lines *hl, size_t pos)
{
	size_t i;

	for (i = 0; i < hl->n_pre; i++) {
		const struct patch_line *pl = hl->pre[i];
		const struct line_ref *fl;
		size_t flen;
		bool fl_eol;

		if (pos + i >= n) {
			strbuf_addf(sb, "; the file ends after line %zu where the patch expects ", n);
			add_shown(sb, pl->text, pl->len);
			return;
		}
		if (line_matches(&lines[pos + i], pl))
			continue;
		fl = &lines[pos + i];
		fl_eol = fl->len && fl->p[fl->len - 1] == '\n';
		flen = fl->len - fl_eol;
		if (flen == pl->len && !memcmp(fl->p, pl->text, flen)) {
			strbuf_addf(sb, "; line %zu %s a newline at its end where the patch says it %s",
				    pos + i + 1, fl_eol ? "has" : "lacks",
				    fl_eol ? "has none" : "has one");
			return;
		}
		strbuf_addf(sb, "; at line %zu the file has ", pos + i + 1);
		add_shown(sb, fl->p, flen);
		strbuf_adds(sb, " where the patch expects ");
		add_shown(sb, pl->text, pl->len);
		return;
	}
}

static int fail_hunk(struct apply_outcome *o, const char *path, unsigned k,
		     const struct patch_hunk *h, const struct line_ref *lines, size_t n,
		     const struct hunk_lines *hl, long long tried, size_t min_pos,
		     bool match_beginning, bool match_end)
{
	struct strbuf why = STRBUF_INIT;
	size_t last = n >= hl->n_pre ? n - hl->n_pre : 0, pos;

	/* report the first place find_match() tried */
	if (tried > (long long)last)
		tried = (long long)last;
	if (tried < (long long)min_pos)
		tried = (long long)min_pos;
	if (match_beginning)
		tried = 0;
	else if (match_end)
		tried = (long long)last;
	pos = (size_t)tried;

	if (match_beginning && match_end)
		strbuf_adds(&why, "does not match the whole file, as a hunk stated at line 0 or 1 with no context after its changes must");
	else if (match_beginning)
		strbuf_adds(&why, "does not match at the top of the file, where a hunk stated at line 0 or 1 must");
	else if (match_end)
		strbuf_addf(&why, "does not match at the end of the file (line %zu), where a hunk with no context after its changes must",
			    pos + 1);
	else if (min_pos)
		strbuf_addf(&why, "does not match at line %zu nor anywhere after line %zu, where hunk %u ends",
			    pos + 1, min_pos, k - 1);
	else
		strbuf_addf(&why, "does not match at line %zu nor anywhere else in the file",
			    pos + 1);
	if (matches_at(lines, n, hl, pos))
		strbuf_addf(&why, "; the file has %zu lines, the hunk %zu", n, hl->n_pre);
	else
		explain_mismatch(&why, lines, n, hl, pos);
	failf(o, path, k, "%s: hunk %u (patch line %u) %s", path, k, h->patch_line, why.buf);
	strbuf_release(&why);
	return 1;
}

/*
 * Apply the hunks of @v to @old into @out. Returns 0, or 1 with the
 * failure in @o. @max_offset grows to the largest |offset| used.
 */
static int apply_hunks(const struct file_view *v, const char *path, const struct strbuf *old,
		       struct strbuf *out, long long *max_offset, struct apply_outcome *o)
{
	const struct patch_file *f = v->f;
	struct line_ref *lines;
	size_t n, cursor = 0, k, i;
	long long carry = 0;
	int r = 0;

	n = split_lines(old->buf, old->len, &lines);
	for (k = 0; k < f->n_hunks; k++) {
		const struct patch_hunk *h = &f->hunks[k];
		unsigned start = v->reverse ? h->new_start : h->old_start;
		unsigned count = v->reverse ? h->new_count : h->old_count;
		struct hunk_lines hl;
		long long base, expected, found, offset;
		bool match_beginning, match_end;

		hunk_lines_init(&hl, h, v->reverse);
		/* with no old lines, the start is the line to insert after */
		base = count ? (long long)start - 1 : (long long)start;
		expected = base + carry;
		/* git apply's match_beginning / match_end */
		match_beginning = start <= 1;
		match_end = hl.trailing == 0;
		found = find_match(lines, n, &hl, expected, cursor, match_beginning, match_end);
		if (found < 0) {
			r = fail_hunk(o, path, (unsigned)k + 1, h, lines, n, &hl, expected, cursor,
				      match_beginning, match_end);
			hunk_lines_release(&hl);
			break;
		}
		offset = found - base;
		carry = offset;
		if (offset < 0)
			offset = -offset;
		if (offset > *max_offset)
			*max_offset = offset;

		if ((size_t)found > cursor)
			strbuf_add(out, lines[cursor].p,
				   (size_t)(lines[found - 1].p + lines[found - 1].len - lines[cursor].p));
		for (i = 0; i < hl.n_post; i++) {
			strbuf_add(out, hl.post[i]->text, hl.post[i]->len);
			if (!hl.post[i]->no_eol)
				strbuf_addch(out, '\n');
		}
		cursor = (size_t)found + hl.n_pre;
		hunk_lines_release(&hl);
	}
	if (!r && cursor < n)
		strbuf_add(out, lines[cursor].p, (size_t)(old->buf + old->len - lines[cursor].p));
	free(lines);
	return r;
}

static size_t count_lines(const struct strbuf *sb)
{
	struct line_ref *lines;
	size_t n = split_lines(sb->buf, sb->len, &lines);

	free(lines);
	return n;
}

/*
 * A copy: forward, @v->dst gets @v->src's content with the hunks applied
 * and @v->src stays; reversed (view_init swaps the names), the copy
 * @v->src must exist and take the hunks backwards, and goes, while the
 * original @v->dst must be there. 0, 1 (failure in @o), or -errno.
 */
static int apply_copy(struct workspace *ws, const struct file_view *v, long long *max_offset,
		      struct apply_outcome *o)
{
	const char *original = v->reverse ? v->dst : v->src;
	const char *copy = v->reverse ? v->src : v->dst;
	struct strbuf out = STRBUF_INIT;
	size_t oi, ci;
	struct entry *src, *dst;
	int r;

	r = ws_get(ws, original, &oi, o);
	if (r < 0)
		return r;
	r = ws_get(ws, copy, &ci, o);
	if (r < 0)
		return r;
	if (!ws->v[oi].exists)
		return failf(o, original, 0, "%s: does not exist, but the patch copies it to %s",
			     original, copy);
	if (!v->reverse && ws->v[ci].exists)
		return failf(o, copy, 0, "%s: already exists, but the patch copies %s to it",
			     copy, original);
	if (v->reverse && !ws->v[ci].exists)
		return failf(o, copy, 0, "%s: does not exist, but the patch made it as a copy of %s",
			     copy, original);
	src = &ws->v[v->reverse ? ci : oi];
	r = apply_hunks(v, src->path, &src->content, &out, max_offset, o);
	if (r)
		goto out_release_buffer;
	dst = &ws->v[ci];
	if (v->reverse) {
		dst->exists = false;
		strbuf_reset(&dst->content);
	} else {
		dst->mode = v->f->new_mode ? v->f->new_mode : src->mode;
		dst->exists = true;
		strbuf_release(&dst->content);
		dst->content = out;
		strbuf_init(&out, 0);
	}
	dst->dirty = true;
out_release_buffer:
	strbuf_release(&out);
	return r;
}

/*
 * Apply one file section into @ws. Returns 0, 1 when it does not apply
 * (failure in @o), or a negative errno from the store.
 */
static int apply_file(struct workspace *ws, const struct file_view *v, long long *max_offset,
		      struct apply_outcome *o)
{
	struct strbuf out = STRBUF_INIT, empty = STRBUF_INIT;
	size_t si = 0, di = 0;
	struct entry *src, *dst;
	unsigned mode;
	int r;

	switch (v->change) {
	case PATCH_COPY:
		return apply_copy(ws, v, max_offset, o);

	case PATCH_ADD:
		r = ws_get(ws, v->dst, &di, o);
		if (r < 0)
			return r;
		if (ws->v[di].exists)
			return failf(o, v->dst, 0, "%s: already exists, but the patch adds it", v->dst);
		r = apply_hunks(v, v->dst, &empty, &out, max_offset, o);
		if (r)
			goto out_release_buffer;
		dst = &ws->v[di];
		mode = v->f->new_mode && !v->reverse ? v->f->new_mode : DEFAULT_MODE;
		break;

	case PATCH_DELETE:
		r = ws_get(ws, v->src, &si, o);
		if (r < 0)
			return r;
		src = &ws->v[si];
		if (!src->exists)
			return failf(o, v->src, 0, "%s: does not exist, but the patch deletes it",
				     v->src);
		r = apply_hunks(v, v->src, &src->content, &out, max_offset, o);
		if (r)
			goto out_release_buffer;
		if (out.len) {
			r = failf(o, v->src, 0,
				  "%s: the patch deletes it, but %zu of its lines would remain",
				  v->src, count_lines(&out));
			goto out_release_buffer;
		}
		src->exists = false;
		src->dirty = true;
		strbuf_reset(&src->content);
		goto out_release_buffer;

	case PATCH_MODIFY:
	case PATCH_RENAME:
		r = ws_get(ws, v->src, &si, o);
		if (r < 0)
			return r;
		if (!ws->v[si].exists) {
			if (v->change == PATCH_RENAME)
				return failf(o, v->src, 0,
					     "%s: does not exist, but the patch renames it to %s",
					     v->src, v->dst);
			return failf(o, v->src, 0, "%s: does not exist, but the patch modifies it",
				     v->src);
		}
		if (v->change == PATCH_RENAME) {
			r = ws_get(ws, v->dst, &di, o);
			if (r < 0)
				return r;
			if (ws->v[di].exists)
				return failf(o, v->dst, 0,
					     "%s: already exists, but the patch renames %s to it",
					     v->dst, v->src);
		} else {
			di = si;
		}
		src = &ws->v[si];
		r = apply_hunks(v, v->src, &src->content, &out, max_offset, o);
		if (r)
			goto out_release_buffer;
		mode = v->f->new_mode && !v->reverse ? v->f->new_mode : src->mode;
		if (si != di) {
			src->exists = false;
			src->dirty = true;
			strbuf_reset(&src->content);
		}
		dst = &ws->v[di];
		break;

	default:
		return failf(o, v->src ? v->src : "?", 0, "unknown change %d", (int)v->change);
	}

	strbuf_release(&dst->content);
	dst->content = out;
	strbuf_init(&out, 0);
	dst->mode = mode;
	dst->exists = true;
	dst->dirty = true;
out_release_buffer:
	strbuf_release(&out);
	return r;
}

/* Every file of @p in one direction. 0, 1 (does not apply), or -errno. */
static int apply_all(const struct patch *p, bool reverse, struct workspace *ws,
		     long long *max_offset, struct apply_outcome *o)
{
	struct file_view v;
	size_t i;
	int r;

	for (i = 0; i < p->n_files; i++) {
		view_init(&v, &p->files[i], reverse);
		r = apply_file(ws, &v, max_offset, o);
		if (r)
			return r;
	}
	return 0;
}

int patch_apply(const struct patch *p, const struct apply_store_ops *ops, void *ctx,
		struct apply_outcome *ret)
{
	struct workspace ws;
	struct apply_outcome reverse;
	long long max_offset = 0, reverse_offset = 0;
	int r;

	outcome_init(ret);
	ws_init(&ws, ops, ctx);
	r = apply_all(p, false, &ws, &max_offset, ret);
	if (r < 0)
		goto out_release_workspace;
	if (!r && check_links(&ws, ret)) {
		r = 0;	/* refused: its reverse is not asked */
		goto out_release_workspace;
	}
	if (!r) {
		r = ws_flush(&ws, ret);
		if (r < 0)
			goto out_release_workspace;
		ret->status = max_offset ? APPLY_OFFSET : APPLY_CLEAN;
		ret->offset = max_offset > INT_MAX ? INT_MAX : (int)max_offset;
		goto out_release_workspace;
	}

	/* It does not apply; if its reverse does, it is already in. */
	ws_release(&ws);
	ws_init(&ws, ops, ctx);
	outcome_init(&reverse);
	r = apply_all(p, true, &ws, &reverse_offset, &reverse);
	if (r < 0) {
		strbuf_reset(&ret->message);
		strbuf_add(&ret->message, reverse.message.buf, reverse.message.len);
	} else if (!r) {
		struct strbuf why = STRBUF_INIT;

		strbuf_addf(&why, "already applied: the patch does not apply but its reverse does (%s)",
			    ret->message.buf);
		strbuf_release(&ret->message);
		ret->message = why;
		ret->status = APPLY_ALREADY;
		free(ret->file);
		ret->file = NULL;
		ret->hunk = 0;
	} else {
		r = 0;	/* the forward failure stands */
	}
	apply_outcome_release(&reverse);
out_release_workspace:
	ws_release(&ws);
	return r;
}
