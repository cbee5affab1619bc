// SPDX-License-Identifier: GPL-2.0
/*
 * patch_parse() then patch_apply() on untrusted bytes, against an
 * in-memory tree.
 *
 * The input is the patch, optionally followed by file contents:
 *
 *   <patch> [ '\0' <content of file 1> [ '\0' <content of file 2> ... ] ]
 *
 * (a patch holding a NUL byte is refused anyway, so NUL is free to
 * separate). Content k is what the tree holds at the path the patch's k-th
 * file section reads; the content "EIO" makes reading that path fail.
 * A section with no content given gets one made from its own hunks: filler
 * lines up to each hunk's stated line, then the hunk's old lines, so a
 * plain patch from the corpus applies and the fuzzer explores offsets and
 * mismatches from there.
 *
 * Checked beyond memory safety: a parsed patch has the shape patch.h
 * promises (paths inside the tree, hunk lines that add up to the header's
 * counts), and patch_apply() is all or nothing: nothing is written or
 * removed unless the outcome is CLEAN or OFFSET.
 */
#include <errno.h>
#include <stdint.h>
#include <strings.h>

#include "fuzz_check.h"
#include "parse/patch.h"
#include "source/apply.h"

#define FILLER_BUDGET 16384	/* filler lines made per input, over all files */

struct mem_file {
	char *path;
	struct strbuf content;
	unsigned mode;
	bool fail_read;
};

struct mem_store {
	struct mem_file *files;
	size_t n, alloc;
	unsigned writes, removes, failed_reads;
	size_t filler_left;
};

static struct mem_file *store_find(struct mem_store *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	return NULL;
}

/* The file at @path, created empty when missing. */
static struct mem_file *store_get(struct mem_store *s, const char *path)
{
	struct mem_file *f = store_find(s, path);

	if (f)
		return f;
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 16;
		s->files = realloc(s->files, s->alloc * sizeof(*s->files));
		if (!s->files)
			abort();
	}
	f = &s->files[s->n++];
	memset(f, 0, sizeof(*f));
	f->path = fuzz_dup(path, strlen(path));
	strbuf_init(&f->content, 0);
	f->mode = 0100644;
	return f;
}

static void store_release(struct mem_store *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->files[i].path);
		strbuf_release(&s->files[i].content);
	}
	free(s->files);
	memset(s, 0, sizeof(*s));
}

static int mem_read(void *ctx, const char *path, struct strbuf *ret_content, unsigned *ret_mode)
{
	struct mem_store *s = ctx;
	struct mem_file *f = store_find(s, path);

	if (!f)
		return -ENOENT;
	if (f->fail_read) {
		s->failed_reads++;
		return -EIO;
	}
	strbuf_add(ret_content, f->content.buf, f->content.len);
	*ret_mode = f->mode;
	return 0;
}

static int mem_write(void *ctx, const char *path, const char *content, size_t len, unsigned mode)
{
	struct mem_store *s = ctx;
	struct mem_file *f = store_get(s, path);

	fuzz_check(mode == 0100644 || mode == 0100755 || mode == 0120000,
		   "write %s with mode %o", path, mode);
	s->writes++;
	strbuf_reset(&f->content);
	strbuf_add(&f->content, content, len);
	f->mode = mode;
	f->fail_read = false;
	return 0;
}

static int mem_remove(void *ctx, const char *path)
{
	struct mem_store *s = ctx;
	struct mem_file *f = store_find(s, path);

	fuzz_check(f, "remove %s, which does not exist", path);
	s->removes++;
	free(f->path);
	strbuf_release(&f->content);
	*f = s->files[--s->n];
	return 0;
}

static const struct apply_store_ops mem_ops = {
	.read = mem_read,
	.write = mem_write,
	.remove = mem_remove,
};

/* Old content that @f's hunks apply to at their stated lines. */
static void make_preimage(struct mem_store *s, const struct patch_file *f, struct strbuf *out)
{
	size_t lines = 0;
	bool ended = false;

	for (size_t k = 0; k < f->n_hunks && !ended; k++) {
		const struct patch_hunk *h = &f->hunks[k];
		size_t target = h->old_count ? h->old_start - 1 : h->old_start;

		for (; lines < target && s->filler_left; lines++, s->filler_left--)
			strbuf_addf(out, "filler line %zu\n", lines + 1);
		for (size_t i = 0; i < h->n_lines; i++) {
			const struct patch_line *l = &h->lines[i];

			if (l->origin == '+')
				continue;
			strbuf_add(out, l->text, l->len);
			if (l->no_eol) {
				ended = true;
				break;
			}
			strbuf_addch(out, '\n');
			lines++;
		}
	}
	/* a hunk without context after its changes must match at the end */
	if (!ended && f->n_hunks) {
		const struct patch_hunk *last = &f->hunks[f->n_hunks - 1];

		if (last->n_lines && last->lines[last->n_lines - 1].origin == ' ')
			strbuf_adds(out, "filler after\nthe last hunk\n");
	}
}

static bool path_ok(const char *p)
{
	size_t len = strlen(p);

	if (!len || p[0] == '/' || p[len - 1] == '/' || strstr(p, "//"))
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return false;
	for (const char *c = p; c; c = strchr(c, '/')) {
		if (*c == '/')
			c++;
		if (!strncmp(c, "../", 3) || !strcmp(c, "..") || !strncmp(c, "./", 2) ||
		    !strcmp(c, ".") || !strncasecmp(c, ".git/", 5) || !strcasecmp(c, ".git"))
			return false;
	}
	return true;
}

static void check_parsed(const struct patch *p, size_t len)
{
	fuzz_check(p->n_files >= 1, "a parsed patch without files");
	for (size_t i = 0; i < p->n_files; i++) {
		const struct patch_file *f = &p->files[i];

		switch (f->change) {
		case PATCH_ADD:
			fuzz_check(!f->old_path && f->new_path, "file %zu: add with paths %p %p",
				   i, (void *)f->old_path, (void *)f->new_path);
			break;
		case PATCH_DELETE:
			fuzz_check(f->old_path && !f->new_path, "file %zu: delete with paths %p %p",
				   i, (void *)f->old_path, (void *)f->new_path);
			break;
		case PATCH_MODIFY:
			fuzz_check(f->old_path && f->new_path && !strcmp(f->old_path, f->new_path),
				   "file %zu: modify with two paths", i);
			break;
		case PATCH_RENAME:
		case PATCH_COPY:
			fuzz_check(f->old_path && f->new_path && strcmp(f->old_path, f->new_path),
				   "file %zu: rename or copy without two paths", i);
			break;
		default:
			fuzz_check(false, "file %zu: change %d", i, (int)f->change);
		}
		fuzz_check(!f->old_path || path_ok(f->old_path), "file %zu: old path \"%s\"", i,
			   f->old_path);
		fuzz_check(!f->new_path || path_ok(f->new_path), "file %zu: new path \"%s\"", i,
			   f->new_path);
		fuzz_check(f->new_mode == 0 || f->new_mode == 0100644 || f->new_mode == 0100755 ||
			   f->new_mode == 0120000, "file %zu: mode %o", i, f->new_mode);
		for (size_t k = 0; k < f->n_hunks; k++) {
			const struct patch_hunk *h = &f->hunks[k];
			size_t old_lines = 0, new_lines = 0;

			for (size_t j = 0; j < h->n_lines; j++) {
				const struct patch_line *l = &h->lines[j];

				fuzz_check(l->origin == ' ' || l->origin == '-' || l->origin == '+',
					   "hunk line origin %d", l->origin);
				fuzz_check(l->text >= p->copy && l->text + l->len <= p->copy + len,
					   "hunk line outside the copy of the patch");
				fuzz_check(!memchr(l->text, '\n', l->len), "a hunk line with a newline");
				old_lines += l->origin != '+';
				new_lines += l->origin != '-';
			}
			fuzz_check(old_lines == h->old_count && new_lines == h->new_count,
				   "hunk at patch line %u: %zu old, %zu new lines for -%u,%u +%u,%u",
				   h->patch_line, old_lines, new_lines, h->old_start, h->old_count,
				   h->new_start, h->new_count);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(text, '\0', size);
	size_t patch_len = nul ? (size_t)(nul - text) : size;
	char *patch_text = fuzz_dup(text, patch_len);
	struct strbuf err = STRBUF_INIT;
	struct mem_store store = { .filler_left = FILLER_BUDGET };
	struct apply_outcome outcome;
	struct patch p;
	const char *part = nul ? nul + 1 : NULL, *end = text + size;
	int r;

	r = patch_parse(patch_text, patch_len, &p, &err);
	if (r) {
		fuzz_check(r == -EINVAL || r == -E2BIG, "patch_parse returned %d", r);
		fuzz_check(err.len && fuzz_one_line(err.buf), "message \"%s\"", err.buf);
		goto out_release;
	}
	fuzz_check(!err.len, "r=0 with a message: %s", err.buf);
	check_parsed(&p, patch_len);

	for (size_t i = 0; i < p.n_files; i++) {
		const struct patch_file *f = &p.files[i];
		const char *path = f->old_path ? f->old_path : f->new_path;
		struct mem_file *m;

		if (part) {
			const char *stop = memchr(part, '\0', (size_t)(end - part));
			size_t n = (size_t)((stop ? stop : end) - part);

			m = store_get(&store, path);
			strbuf_reset(&m->content);
			if (n == 3 && !memcmp(part, "EIO", 3))
				m->fail_read = true;
			else
				strbuf_add(&m->content, part, n);
			part = stop ? stop + 1 : NULL;
		} else if (f->old_path && !store_find(&store, path)) {
			m = store_get(&store, path);
			make_preimage(&store, f, &m->content);
		}
	}

	r = patch_apply(&p, &mem_ops, &store, &outcome);
	fuzz_check(fuzz_one_line(outcome.message.buf), "message \"%s\"", outcome.message.buf);
	if (r < 0) {
		fuzz_check(store.failed_reads, "r=%d without a store failure", r);
		fuzz_check(outcome.message.len, "r=%d with no message", r);
	} else {
		fuzz_check(r == 0, "patch_apply returned %d", r);
		switch (outcome.status) {
		case APPLY_CLEAN:
			fuzz_check(outcome.offset == 0, "CLEAN with offset %d", outcome.offset);
			break;
		case APPLY_OFFSET:
			fuzz_check(outcome.offset > 0, "OFFSET with offset %d", outcome.offset);
			break;
		case APPLY_ALREADY:
			fuzz_check(!outcome.file, "ALREADY naming %s", outcome.file);
			break;
		case APPLY_FAILED:
			fuzz_check(outcome.file && outcome.message.len,
				   "FAILED without a file or message");
			break;
		default:
			fuzz_check(false, "status %d", (int)outcome.status);
		}
	}
	if (r < 0 || outcome.status == APPLY_ALREADY || outcome.status == APPLY_FAILED)
		fuzz_check(!store.writes && !store.removes,
			   "not applied (r=%d, status %d) but %u writes, %u removes", r,
			   (int)outcome.status, store.writes, store.removes);
	apply_outcome_release(&outcome);

out_release:
	patch_release(&p);
	store_release(&store);
	strbuf_release(&err);
	free(patch_text);
	return 0;
}
