// SPDX-License-Identifier: GPL-2.0
/* patch_apply(): git apply's offsets without its fuzz, all or nothing, on a memory store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parse/patch.h"
#include "source/apply.h"

/* ---- an in-memory store ---- */

#define MAX_FILES 16

struct mem_file {
	char *path;		/* NULL: free slot */
	struct strbuf content;
	unsigned mode;
};

struct mem_store {
	struct mem_file files[MAX_FILES];
	unsigned writes, removes;
	const char *fail_read;	/* reading this path fails with -EIO */
};

static struct mem_file *store_find(struct mem_store *s, const char *path)
{
	size_t i;

	for (i = 0; i < MAX_FILES; i++)
		if (s->files[i].path && !strcmp(s->files[i].path, path))
			return &s->files[i];
	return NULL;
}

static void store_put(struct mem_store *s, const char *path, const char *content, size_t len,
		      unsigned mode)
{
	struct mem_file *f = store_find(s, path);
	size_t i;

	for (i = 0; !f && i < MAX_FILES; i++) {
		if (!s->files[i].path) {
			f = &s->files[i];
			f->path = strdup(path);
			strbuf_init(&f->content, 0);
		}
	}
	assert_non_null(f);
	strbuf_reset(&f->content);
	strbuf_add(&f->content, content, len);
	f->mode = mode;
}

#define STORE_PUT(s, path, text) store_put((s), (path), (text), strlen(text), 0100644)

static void store_release(struct mem_store *s)
{
	size_t i;

	for (i = 0; i < MAX_FILES; i++) {
		free(s->files[i].path);
		if (s->files[i].path)
			strbuf_release(&s->files[i].content);
		s->files[i].path = NULL;
	}
}

static int mem_read(void *ctx, const char *path, struct strbuf *ret_content, unsigned *ret_mode)
{
	struct mem_store *s = ctx;
	struct mem_file *f;

	if (s->fail_read && !strcmp(s->fail_read, path))
		return -EIO;
	f = store_find(s, path);
	if (!f)
		return -ENOENT;
	strbuf_add(ret_content, f->content.buf, f->content.len);
	*ret_mode = f->mode;
	return 0;
}

static int mem_write(void *ctx, const char *path, const char *content, size_t len, unsigned mode)
{
	struct mem_store *s = ctx;

	s->writes++;
	store_put(s, path, content, len, mode);
	return 0;
}

static int mem_remove(void *ctx, const char *path)
{
	struct mem_store *s = ctx;
	struct mem_file *f = store_find(s, path);

	if (!f)
		return -ENOENT;
	s->removes++;
	free(f->path);
	f->path = NULL;
	strbuf_release(&f->content);
	return 0;
}

static const struct apply_store_ops mem_ops = {
	.read = mem_read,
	.write = mem_write,
	.remove = mem_remove,
};

/* The content of @path, which must exist. */
static const char *content_of(struct mem_store *s, const char *path)
{
	struct mem_file *f = store_find(s, path);

	if (!f)
		fail_msg("expected %s in the store, it is not there", path);
	return f->content.buf;
}

static void assert_content(struct mem_store *s, const char *path, const char *want)
{
	const char *got = content_of(s, path);

	if (strcmp(got, want))
		fail_msg("%s: expected content\n---\n%s---\ngot\n---\n%s---", path, want, got);
}

/* Parse @text (it must parse) and apply it to @s. */
static int apply_text(const char *text, struct mem_store *s, struct apply_outcome *o)
{
	struct strbuf err = STRBUF_INIT;
	struct patch p;
	int r = patch_parse(text, strlen(text), &p, &err);

	if (r)
		fail_msg("patch_parse: %d: %s", r, err.buf);
	r = patch_apply(&p, &mem_ops, s, o);
	patch_release(&p);
	strbuf_release(&err);
	return r;
}

static const char *status_name(enum apply_status st)
{
	switch (st) {
	case APPLY_CLEAN: return "APPLY_CLEAN";
	case APPLY_OFFSET: return "APPLY_OFFSET";
	case APPLY_ALREADY: return "APPLY_ALREADY";
	case APPLY_FAILED: return "APPLY_FAILED";
	}
	return "?";
}

static void assert_status(const struct apply_outcome *o, enum apply_status want)
{
	if (o->status != want)
		fail_msg("expected %s, got %s (message \"%s\")", status_name(want),
			 status_name(o->status), o->message.buf);
}

static void assert_message_has(const struct apply_outcome *o, const char *want)
{
	if (!strstr(o->message.buf, want))
		fail_msg("expected a message containing \"%s\", got \"%s\"", want, o->message.buf);
}

/* "line <from>\n" ... "line <to>\n" */
static void add_numbered(struct strbuf *sb, unsigned from, unsigned to)
{
	unsigned i;

	for (i = from; i <= to; i++)
		strbuf_addf(sb, "line %u\n", i);
}

/* ---- the real patch: fs/binfmt_script.c, hunk at line 58 ---- */

static const char shebang_patch[] =
	"From 183d4f096465e5f835c45b908b2ef905dc1f15f9 Mon Sep 17 00:00:00 2001\n"
	"From: Oleg Nesterov <oleg@redhat.com>\n"
	"Subject: [PATCH 1/2] exec: load_script: don't blindly truncate shebang string\n"
	"\n"
	"commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n"
	"\n"
	"Signed-off-by: Oleg Nesterov <oleg@redhat.com>\n"
	"---\n"
	" fs/binfmt_script.c | 6 ++++++\n"
	" 1 file changed, 6 insertions(+)\n"
	"\n"
	"diff --git a/fs/binfmt_script.c b/fs/binfmt_script.c\n"
	"index 1b6625e..a1622ed 100644\n"
	"--- a/fs/binfmt_script.c\n"
	"+++ b/fs/binfmt_script.c\n"
	"@@ -58,6 +58,12 @@ static int load_script(struct linux_binprm *bprm)\n"
	" \tbuf_end = bprm->buf + sizeof(bprm->buf) - 1;\n"
	" \ti_end = strnchr(bprm->buf, sizeof(bprm->buf), '\\n');\n"
	" \tif (!i_end) {\n"
	"+\t\t/*\n"
	"+\t\t * Neither a newline nor a NUL in the buffer: the line does\n"
	"+\t\t * not fit, so do not run whatever a truncated line names.\n"
	"+\t\t */\n"
	"+\t\tif (!memchr(bprm->buf, '\\0', sizeof(bprm->buf)))\n"
	"+\t\t\treturn -ENOEXEC;\n"
	" \t\ti_end = next_non_spacetab(bprm->buf + 2, buf_end);\n"
	" \t\tif (!i_end)\n"
	" \t\t\treturn -ENOEXEC; /* Entire buf is spaces/tabs */\n"
	"-- \n"
	"2.39.5\n";

static const char shebang_before[] =
	"\tbuf_end = bprm->buf + sizeof(bprm->buf) - 1;\n"
	"\ti_end = strnchr(bprm->buf, sizeof(bprm->buf), '\\n');\n"
	"\tif (!i_end) {\n";
static const char shebang_added[] =
	"\t\t/*\n"
	"\t\t * Neither a newline nor a NUL in the buffer: the line does\n"
	"\t\t * not fit, so do not run whatever a truncated line names.\n"
	"\t\t */\n"
	"\t\tif (!memchr(bprm->buf, '\\0', sizeof(bprm->buf)))\n"
	"\t\t\treturn -ENOEXEC;\n";
static const char shebang_after[] =
	"\t\ti_end = next_non_spacetab(bprm->buf + 2, buf_end);\n"
	"\t\tif (!i_end)\n"
	"\t\t\treturn -ENOEXEC; /* Entire buf is spaces/tabs */\n";

/*
 * A binfmt_script.c whose hunk lines start at line 58 + @shift (@shift
 * filler lines added at the top, or removed when negative); @patched:
 * with the patch already in.
 */
static void binfmt_script(struct strbuf *sb, int shift, bool patched)
{
	strbuf_reset(sb);
	add_numbered(sb, shift < 0 ? (unsigned)(1 - shift) : 1, 57);
	if (shift > 0)
		add_numbered(sb, 1001, 1000 + (unsigned)shift);
	strbuf_adds(sb, shebang_before);
	if (patched)
		strbuf_adds(sb, shebang_added);
	strbuf_adds(sb, shebang_after);
	add_numbered(sb, 64, 90);
}

static void test_clean(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;
	struct strbuf file = STRBUF_INIT, want = STRBUF_INIT;

	(void)state;
	binfmt_script(&file, 0, false);
	binfmt_script(&want, 0, true);
	store_put(&s, "fs/binfmt_script.c", file.buf, file.len, 0100644);
	assert_int_equal(apply_text(shebang_patch, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_int_equal(o.offset, 0);
	assert_null(o.file);
	assert_content(&s, "fs/binfmt_script.c", want.buf);
	assert_int_equal(s.writes, 1);
	assert_int_equal(store_find(&s, "fs/binfmt_script.c")->mode, 0100644);
	apply_outcome_release(&o);
	strbuf_release(&file);
	strbuf_release(&want);
	store_release(&s);
}

static void check_offset(int shift)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;
	struct strbuf file = STRBUF_INIT, want = STRBUF_INIT;

	binfmt_script(&file, shift, false);
	binfmt_script(&want, shift, true);
	store_put(&s, "fs/binfmt_script.c", file.buf, file.len, 0100755);
	assert_int_equal(apply_text(shebang_patch, &s, &o), 0);
	assert_status(&o, APPLY_OFFSET);
	assert_int_equal(o.offset, abs(shift));
	assert_content(&s, "fs/binfmt_script.c", want.buf);
	/* the mode the store had is kept */
	assert_int_equal(store_find(&s, "fs/binfmt_script.c")->mode, 0100755);
	apply_outcome_release(&o);
	strbuf_release(&file);
	strbuf_release(&want);
	store_release(&s);
}

/* 3 lines added above: the hunk is found 3 lines below its stated line */
static void test_offset_below(void **state)
{
	(void)state;
	check_offset(3);
	check_offset(1);
	check_offset(30);
}

/* 3 lines gone above: found 3 lines above */
static void test_offset_above(void **state)
{
	(void)state;
	check_offset(-3);
	check_offset(-57);
}

/* ---- two hunks on a numbered file ---- */

static const char two_hunks[] =
	"diff --git a/lib/n.c b/lib/n.c\n"
	"--- a/lib/n.c\n"
	"+++ b/lib/n.c\n"
	"@@ -10,6 +10,7 @@ f()\n"
	" line 10\n"
	" line 11\n"
	" line 12\n"
	"+added A\n"
	" line 13\n"
	" line 14\n"
	" line 15\n"
	"@@ -50,7 +51,7 @@ g()\n"			/* patch line 12 */
	" line 50\n"
	" line 51\n"
	" line 52\n"
	"-line 53\n"
	"+changed 53\n"
	" line 54\n"
	" line 55\n"
	" line 56\n";

/*
 * Lines 1..100, @top extra lines above line 10 and @middle extra lines
 * between the hunks; @patched: with two_hunks applied.
 */
static void numbered_file(struct strbuf *sb, unsigned top, unsigned middle, bool patched)
{
	strbuf_reset(sb);
	add_numbered(sb, 1, 5);
	add_numbered(sb, 2001, 2000 + top);
	add_numbered(sb, 6, 12);
	if (patched)
		strbuf_adds(sb, "added A\n");
	add_numbered(sb, 13, 30);
	add_numbered(sb, 3001, 3000 + middle);
	add_numbered(sb, 31, 52);
	strbuf_adds(sb, patched ? "changed 53\n" : "line 53\n");
	add_numbered(sb, 54, 100);
}

static void test_two_hunks_follow_the_offset(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;
	struct strbuf file = STRBUF_INIT, want = STRBUF_INIT;

	(void)state;
	/* both hunks 3 lines down */
	numbered_file(&file, 3, 0, false);
	numbered_file(&want, 3, 0, true);
	STORE_PUT(&s, "lib/n.c", file.buf);
	assert_int_equal(apply_text(two_hunks, &s, &o), 0);
	assert_status(&o, APPLY_OFFSET);
	assert_int_equal(o.offset, 3);
	assert_content(&s, "lib/n.c", want.buf);
	apply_outcome_release(&o);

	/* the first 3 down, the second 3 + 2 down: the largest is reported */
	numbered_file(&file, 3, 2, false);
	numbered_file(&want, 3, 2, true);
	STORE_PUT(&s, "lib/n.c", file.buf);
	assert_int_equal(apply_text(two_hunks, &s, &o), 0);
	assert_status(&o, APPLY_OFFSET);
	assert_int_equal(o.offset, 5);
	assert_content(&s, "lib/n.c", want.buf);
	apply_outcome_release(&o);

	/* no offset at all */
	numbered_file(&file, 0, 0, false);
	numbered_file(&want, 0, 0, true);
	STORE_PUT(&s, "lib/n.c", file.buf);
	assert_int_equal(apply_text(two_hunks, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "lib/n.c", want.buf);
	apply_outcome_release(&o);

	strbuf_release(&file);
	strbuf_release(&want);
	store_release(&s);
}

static void test_context_mismatch_names_file_and_hunk(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;
	struct strbuf file = STRBUF_INIT;
	char *p;

	(void)state;
	numbered_file(&file, 0, 0, false);
	p = strstr(file.buf, "line 55\n");
	p[5] = '6';	/* "line 65": hunk 2's context no longer matches */
	STORE_PUT(&s, "lib/n.c", file.buf);
	assert_int_equal(apply_text(two_hunks, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.file, "lib/n.c");
	assert_int_equal(o.hunk, 2);
	assert_string_equal(o.message.buf,
			    "lib/n.c: hunk 2 (patch line 12) does not match at line 50 nor anywhere "
			    "after line 15, where hunk 1 ends; at line 55 the file has \"line 65\" "
			    "where the patch expects \"line 55\"");
	/* hunk 1 did apply in memory, but nothing is written */
	assert_int_equal(s.writes, 0);
	assert_content(&s, "lib/n.c", file.buf);
	apply_outcome_release(&o);

	/* whitespace counts: no fuzz */
	strbuf_reset(&file);
	add_numbered(&file, 1, 10);
	strbuf_adds(&file, "line 11 \n");
	add_numbered(&file, 12, 100);
	STORE_PUT(&s, "lib/n.c", file.buf);
	assert_int_equal(apply_text(two_hunks, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_int_equal(o.hunk, 1);
	assert_message_has(&o, "at line 11 the file has \"line 11 \" where the patch expects \"line 11\"");
	apply_outcome_release(&o);

	strbuf_release(&file);
	store_release(&s);
}

/* The search goes +1, -1, +2, -2, ...: at equal distance the later line wins. */
static void test_nearest_match_first(void **state)
{
	static const char patch[] =
		"--- a/f\n+++ b/f\n@@ -20,3 +20,4 @@\n ctx 1\n ctx 2\n+new\n ctx 3\n";
	static const char block[] = "ctx 1\nctx 2\nctx 3\n";
	struct mem_store s = { 0 };
	struct apply_outcome o;
	struct strbuf file = STRBUF_INIT;
	const char *got, *first;

	(void)state;
	/* the block at lines 18 and 22 (stated 20): +2 is tried before -2 */
	add_numbered(&file, 1, 17);
	strbuf_adds(&file, block);	/* 18..20 */
	strbuf_adds(&file, "x\n");	/* 21 */
	strbuf_adds(&file, block);	/* 22..24 */
	add_numbered(&file, 25, 40);
	STORE_PUT(&s, "f", file.buf);
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_OFFSET);
	assert_int_equal(o.offset, 2);
	got = content_of(&s, "f");
	first = strstr(got, block);
	assert_non_null(first);		/* the first block is untouched */
	assert_non_null(strstr(first + 1, "ctx 1\nctx 2\nnew\nctx 3\n"));
	apply_outcome_release(&o);

	/* the block at lines 17 and 22: -3 is farther than +2 */
	strbuf_reset(&file);
	add_numbered(&file, 1, 16);
	strbuf_adds(&file, block);	/* 17..19 */
	add_numbered(&file, 20, 21);
	strbuf_adds(&file, block);	/* 22..24 */
	add_numbered(&file, 25, 40);
	STORE_PUT(&s, "f", file.buf);
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_int_equal(o.offset, 2);
	apply_outcome_release(&o);

	/* the block at lines 18 and 23: -2 is nearer than +3 */
	strbuf_reset(&file);
	add_numbered(&file, 1, 17);
	strbuf_adds(&file, block);	/* 18..20 */
	add_numbered(&file, 21, 22);
	strbuf_adds(&file, block);	/* 23..25 */
	add_numbered(&file, 26, 40);
	STORE_PUT(&s, "f", file.buf);
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_int_equal(o.offset, 2);
	got = content_of(&s, "f");
	first = strstr(got, "ctx 1\nctx 2\nnew\nctx 3\n");
	assert_non_null(first);
	assert_true(first < strstr(got, block));	/* the earlier block took it */
	apply_outcome_release(&o);

	strbuf_release(&file);
	store_release(&s);
}

/* A hunk is never matched before the end of the previous one's match. */
static void test_hunks_stay_in_order(void **state)
{
	static const char patch[] =
		"--- a/f\n+++ b/f\n"
		"@@ -10,3 +10,4 @@\n a 1\n a 2\n+new a\n a 3\n"
		"@@ -30,3 +31,4 @@\n b 1\n b 2\n+new b\n b 3\n";
	struct mem_store s = { 0 };
	struct apply_outcome o;
	struct strbuf file = STRBUF_INIT;

	(void)state;
	/* b's block only above a's block */
	add_numbered(&file, 1, 4);
	strbuf_adds(&file, "b 1\nb 2\nb 3\n");
	add_numbered(&file, 8, 40);
	strbuf_adds(&file, "a 1\na 2\na 3\n");
	add_numbered(&file, 44, 60);
	STORE_PUT(&s, "f", file.buf);
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_int_equal(o.hunk, 2);
	assert_message_has(&o, "f: hunk 2 (patch line 8) does not match at line 58 nor anywhere after line 43, where hunk 1 ends; "
			   "at line 58 the file has \"line 58\" where the patch expects \"b 1\"");
	assert_int_equal(s.writes, 0);
	apply_outcome_release(&o);
	strbuf_release(&file);
	store_release(&s);
}

static void test_already_applied(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;
	struct strbuf file = STRBUF_INIT, want = STRBUF_INIT;

	(void)state;
	binfmt_script(&file, 0, false);
	binfmt_script(&want, 0, true);
	store_put(&s, "fs/binfmt_script.c", file.buf, file.len, 0100644);
	assert_int_equal(apply_text(shebang_patch, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	apply_outcome_release(&o);
	assert_int_equal(s.writes, 1);

	assert_int_equal(apply_text(shebang_patch, &s, &o), 0);
	assert_status(&o, APPLY_ALREADY);
	assert_null(o.file);
	assert_message_has(&o, "already applied");
	assert_int_equal(s.writes, 1);
	assert_int_equal(s.removes, 0);
	assert_content(&s, "fs/binfmt_script.c", want.buf);
	apply_outcome_release(&o);

	/* already in, at an offset */
	binfmt_script(&file, 7, true);
	store_put(&s, "fs/binfmt_script.c", file.buf, file.len, 0100644);
	assert_int_equal(apply_text(shebang_patch, &s, &o), 0);
	assert_status(&o, APPLY_ALREADY);
	assert_int_equal(s.writes, 1);
	apply_outcome_release(&o);

	strbuf_release(&file);
	strbuf_release(&want);
	store_release(&s);
}

static const char add_patch[] =
	"diff --git a/scripts/new.sh b/scripts/new.sh\n"
	"new file mode 100755\n"
	"index 0000000..3333333\n"
	"--- /dev/null\n"
	"+++ b/scripts/new.sh\n"
	"@@ -0,0 +1,2 @@\n"
	"+#!/bin/sh\n"
	"+echo hi\n";

static void test_add(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	assert_int_equal(apply_text(add_patch, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "scripts/new.sh", "#!/bin/sh\necho hi\n");
	assert_int_equal(store_find(&s, "scripts/new.sh")->mode, 0100755);
	apply_outcome_release(&o);

	/* again: the file is there with that content */
	assert_int_equal(apply_text(add_patch, &s, &o), 0);
	assert_status(&o, APPLY_ALREADY);
	assert_int_equal(s.writes, 1);
	apply_outcome_release(&o);

	/* a different file is in the way */
	STORE_PUT(&s, "scripts/new.sh", "other\n");
	assert_int_equal(apply_text(add_patch, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.file, "scripts/new.sh");
	assert_int_equal(o.hunk, 0);
	assert_string_equal(o.message.buf, "scripts/new.sh: already exists, but the patch adds it");
	apply_outcome_release(&o);
	store_release(&s);

	/* an empty file, no mode stated: 0100644 */
	assert_int_equal(apply_text("--- /dev/null\n+++ b/x/y.h\n@@ -0,0 +1 @@\n+int y;\n", &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "x/y.h", "int y;\n");
	assert_int_equal(store_find(&s, "x/y.h")->mode, 0100644);
	apply_outcome_release(&o);
	assert_int_equal(apply_text("diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n",
				    &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "empty", "");
	apply_outcome_release(&o);
	store_release(&s);
}

static const char delete_patch[] =
	"diff --git a/old/gone.c b/old/gone.c\n"
	"deleted file mode 100644\n"
	"index 4444444..0000000\n"
	"--- a/old/gone.c\n"
	"+++ /dev/null\n"
	"@@ -1,2 +0,0 @@\n"
	"-int x;\n"
	"-int y;\n";

static void test_delete(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	STORE_PUT(&s, "old/gone.c", "int x;\nint y;\n");
	STORE_PUT(&s, "old/stays.c", "int z;\n");
	assert_int_equal(apply_text(delete_patch, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_null(store_find(&s, "old/gone.c"));
	assert_non_null(store_find(&s, "old/stays.c"));
	assert_int_equal(s.removes, 1);
	apply_outcome_release(&o);

	/* again: gone already */
	assert_int_equal(apply_text(delete_patch, &s, &o), 0);
	assert_status(&o, APPLY_ALREADY);
	apply_outcome_release(&o);

	/* the whole content must match */
	STORE_PUT(&s, "old/gone.c", "int x;\nint y;\nint w;\n");
	assert_int_equal(apply_text(delete_patch, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.file, "old/gone.c");
	assert_int_equal(o.hunk, 1);
	assert_string_equal(o.message.buf,
			    "old/gone.c: hunk 1 (patch line 6) does not match the whole file, as a hunk "
			    "stated at line 0 or 1 with no context after its changes must; the file has "
			    "3 lines, the hunk 2");
	assert_int_equal(s.removes, 1);
	apply_outcome_release(&o);

	/* an empty file deleted: it must be empty */
	STORE_PUT(&s, "e", "x\n");
	assert_int_equal(apply_text("diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n",
				    &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.message.buf, "e: the patch deletes it, but 1 of its lines would remain");
	apply_outcome_release(&o);
	STORE_PUT(&s, "e", "");
	assert_int_equal(apply_text("diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n",
				    &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_null(store_find(&s, "e"));
	apply_outcome_release(&o);
	store_release(&s);
	memset(&s, 0, sizeof(s));

	/* a file that is not there */
	STORE_PUT(&s, "unrelated", "x\n");
	assert_int_equal(apply_text("--- a/nothere.c\n+++ b/nothere.c\n@@ -1 +1 @@\n-a\n+b\n", &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.file, "nothere.c");
	assert_string_equal(o.message.buf, "nothere.c: does not exist, but the patch modifies it");
	apply_outcome_release(&o);
	/* deleting what is not there: its reverse (adding it) applies */
	assert_int_equal(apply_text(delete_patch, &s, &o), 0);
	assert_status(&o, APPLY_ALREADY);
	assert_message_has(&o, "(old/gone.c: does not exist, but the patch deletes it)");
	assert_int_equal(s.writes, 0);
	apply_outcome_release(&o);
	store_release(&s);
}

static void test_rename(void **state)
{
	static const char patch[] =
		"diff --git a/drivers/a.c b/drivers/b.c\n"
		"similarity index 90%\n"
		"rename from drivers/a.c\n"
		"rename to drivers/b.c\n"
		"index 5555555..6666666 100755\n"
		"--- a/drivers/a.c\n"
		"+++ b/drivers/b.c\n"
		"@@ -2,3 +2,3 @@\n"
		" a\n"
		"-b\n"
		"+B\n"
		" c\n"
		"diff --git a/doc/x.txt b/doc/y.txt\n"
		"similarity index 100%\n"
		"rename from doc/x.txt\n"
		"rename to doc/y.txt\n";
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	store_put(&s, "drivers/a.c", "0\na\nb\nc\nd\n", 10, 0100755);
	STORE_PUT(&s, "doc/x.txt", "text\n");
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_null(store_find(&s, "drivers/a.c"));
	assert_content(&s, "drivers/b.c", "0\na\nB\nc\nd\n");
	assert_int_equal(store_find(&s, "drivers/b.c")->mode, 0100755);
	assert_null(store_find(&s, "doc/x.txt"));
	assert_content(&s, "doc/y.txt", "text\n");
	assert_int_equal(s.removes, 2);
	assert_int_equal(s.writes, 2);
	apply_outcome_release(&o);

	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_ALREADY);
	apply_outcome_release(&o);

	/* the target is in the way */
	STORE_PUT(&s, "drivers/a.c", "0\na\nb\nc\nd\n");
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.file, "drivers/b.c");
	assert_string_equal(o.message.buf,
			    "drivers/b.c: already exists, but the patch renames drivers/a.c to it");
	apply_outcome_release(&o);
	store_release(&s);
}

static void test_copy(void **state)
{
	static const char patch[] =
		"diff --git a/drivers/a.c b/drivers/b.c\n"
		"similarity index 90%\n"
		"copy from drivers/a.c\n"
		"copy to drivers/b.c\n"
		"index 5555555..6666666 100755\n"
		"--- a/drivers/a.c\n"
		"+++ b/drivers/b.c\n"
		"@@ -2,3 +2,3 @@\n"
		" a\n"
		"-b\n"
		"+B\n"
		" c\n"
		"diff --git a/doc/x.txt b/doc/y.txt\n"
		"similarity index 100%\n"
		"copy from doc/x.txt\n"
		"copy to doc/y.txt\n";
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	/* one line more at the top than the patch expects: an offset */
	store_put(&s, "drivers/a.c", "-1\n0\na\nb\nc\nd\n", 13, 0100755);
	STORE_PUT(&s, "doc/x.txt", "text\n");
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_OFFSET);
	assert_int_equal(o.offset, 1);
	/* the originals stay as they were */
	assert_content(&s, "drivers/a.c", "-1\n0\na\nb\nc\nd\n");
	assert_content(&s, "drivers/b.c", "-1\n0\na\nB\nc\nd\n");
	assert_int_equal(store_find(&s, "drivers/b.c")->mode, 0100755);
	assert_content(&s, "doc/x.txt", "text\n");
	assert_content(&s, "doc/y.txt", "text\n");
	assert_int_equal(s.removes, 0);
	assert_int_equal(s.writes, 2);
	apply_outcome_release(&o);

	/* again: the copies are there, with the change: already in */
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_ALREADY);
	assert_int_equal(s.writes, 2);
	apply_outcome_release(&o);

	/* the copy is in the way, and it is not the patch's result */
	STORE_PUT(&s, "drivers/b.c", "other\n");
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.file, "drivers/b.c");
	assert_string_equal(o.message.buf,
			    "drivers/b.c: already exists, but the patch copies drivers/a.c to it");
	apply_outcome_release(&o);

	/* nothing to copy from */
	store_release(&s);
	STORE_PUT(&s, "doc/x.txt", "text\n");
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.message.buf,
			    "drivers/a.c: does not exist, but the patch copies it to drivers/b.c");
	assert_null(store_find(&s, "doc/y.txt"));	/* all or nothing */
	apply_outcome_release(&o);
	store_release(&s);
}

/* "new mode" together with hunks, and a rename that changes the mode */
static void test_mode_change_with_content(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	STORE_PUT(&s, "tools/run", "#!/bin/sh\necho a\n");
	store_put(&s, "tools/a.sh", "x\n", 2, 0100755);
	assert_int_equal(apply_text("diff --git a/tools/run b/tools/run\n"
				    "old mode 100644\n"
				    "new mode 100755\n"
				    "index 1111111..2222222\n"
				    "--- a/tools/run\n"
				    "+++ b/tools/run\n"
				    "@@ -1,2 +1,2 @@\n"
				    " #!/bin/sh\n"
				    "-echo a\n"
				    "+echo b\n"
				    "diff --git a/tools/a.sh b/tools/b.sh\n"
				    "old mode 100755\n"
				    "new mode 100644\n"
				    "similarity index 100%\n"
				    "rename from tools/a.sh\n"
				    "rename to tools/b.sh\n", &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_int_equal(store_find(&s, "tools/run")->mode, 0100755);
	assert_content(&s, "tools/run", "#!/bin/sh\necho b\n");
	assert_null(store_find(&s, "tools/a.sh"));
	assert_int_equal(store_find(&s, "tools/b.sh")->mode, 0100644);
	apply_outcome_release(&o);
	store_release(&s);
}

/* A series line's -p0 and -p2 reach the same files as -p1 does. */
static void test_strip_levels(void **state)
{
	static const char p0[] = "--- fs/exec.c\n+++ fs/exec.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
	static const char p2[] =
		"Index: linux/src/fs/exec.c\n"
		"===================================================================\n"
		"--- linux.orig/src/fs/exec.c\n+++ linux/src/fs/exec.c\n@@ -1,2 +1,2 @@\n a\n-c\n+d\n";
	struct strbuf err = STRBUF_INIT;
	struct mem_store s = { 0 };
	struct apply_outcome o;
	struct patch p;

	(void)state;
	STORE_PUT(&s, "fs/exec.c", "a\nb\n");
	assert_int_equal(patch_parse_strip(p0, strlen(p0), 0, &p, &err), 0);
	assert_int_equal(patch_apply(&p, &mem_ops, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "fs/exec.c", "a\nc\n");
	patch_release(&p);
	apply_outcome_release(&o);

	assert_int_equal(patch_parse_strip(p2, strlen(p2), 2, &p, &err), 0);
	assert_int_equal(patch_apply(&p, &mem_ops, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "fs/exec.c", "a\nd\n");
	patch_release(&p);
	apply_outcome_release(&o);
	assert_string_equal(err.buf, "");
	strbuf_release(&err);
	store_release(&s);
}

static void test_mode_change(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	STORE_PUT(&s, "tools/run", "#!/bin/sh\n");
	assert_int_equal(apply_text("diff --git a/tools/run b/tools/run\nold mode 100644\nnew mode 100755\n",
				    &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_int_equal(store_find(&s, "tools/run")->mode, 0100755);
	assert_content(&s, "tools/run", "#!/bin/sh\n");
	apply_outcome_release(&o);
	store_release(&s);
}

static void test_no_newline_at_eof(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	/* both sides without one */
	STORE_PUT(&s, "f", "a\nb\nc");
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n b\n-c\n"
				    "\\ No newline at end of file\n+C\n\\ No newline at end of file\n",
				    &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "f", "a\nb\nC");
	apply_outcome_release(&o);

	/* the patch adds one */
	STORE_PUT(&s, "f", "a\nb\nc");
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n"
				    "\\ No newline at end of file\n+c\n", &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "f", "a\nb\nc\n");
	apply_outcome_release(&o);

	/* the patch takes it away */
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n+c\n"
				    "\\ No newline at end of file\n", &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "f", "a\nb\nc");
	apply_outcome_release(&o);

	/* the patch expects none, the file has one */
	STORE_PUT(&s, "f", "a\nb\nc\n");
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n"
				    "\\ No newline at end of file\n+d\n", &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_message_has(&o, "line 3 has a newline at its end where the patch says it has none");
	apply_outcome_release(&o);

	/* a hunk away from the end leaves a missing newline alone */
	STORE_PUT(&s, "f", "a\nb\nc\nd\ne\nf\ng");
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n", &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "f", "A\nb\nc\nd\ne\nf\ng");
	apply_outcome_release(&o);
	store_release(&s);
}

/* git apply's match_beginning / match_end: no offset for those hunks. */
static void test_start_and_end_anchors(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	/* appending at the end: the context must be the last lines */
	STORE_PUT(&s, "f", "1\n2\n3\n4\n5\n");
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -3,3 +3,4 @@\n 3\n 4\n 5\n+6\n", &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "f", "1\n2\n3\n4\n5\n6\n");
	apply_outcome_release(&o);

	STORE_PUT(&s, "f", "1\n2\n3\n4\n5\nmore\n");
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -3,3 +3,4 @@\n 3\n 4\n 5\n+6\n", &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_message_has(&o, "does not match at the end of the file (line 4), where a hunk with no context after its changes must");
	apply_outcome_release(&o);

	/* a hunk stated at line 1 must match the top */
	STORE_PUT(&s, "f", "new top\n1\n2\n3\n4\n");
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-1\n+one\n 2\n 3\n", &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_message_has(&o, "f: hunk 1 (patch line 3) does not match at the top of the file");
	assert_message_has(&o, "at line 1 the file has \"new top\" where the patch expects \"1\"");
	apply_outcome_release(&o);
	store_release(&s);
}

static void test_all_or_nothing(void **state)
{
	static const char patch[] =
		"diff --git a/first.c b/first.c\n"
		"--- a/first.c\n+++ b/first.c\n"
		"@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
		"diff --git a/new.c b/new.c\n"
		"new file mode 100644\n"
		"--- /dev/null\n+++ b/new.c\n"
		"@@ -0,0 +1 @@\n+new\n"
		"diff --git a/second.c b/second.c\n"
		"--- a/second.c\n+++ b/second.c\n"
		"@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n";
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	STORE_PUT(&s, "first.c", "a\nb\nc\n");
	STORE_PUT(&s, "second.c", "x\nnot y\nz\n");
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.file, "second.c");
	assert_int_equal(o.hunk, 1);
	assert_content(&s, "first.c", "a\nb\nc\n");
	assert_null(store_find(&s, "new.c"));
	assert_int_equal(s.writes, 0);
	assert_int_equal(s.removes, 0);
	apply_outcome_release(&o);

	/* fixed: all three land */
	STORE_PUT(&s, "second.c", "x\ny\nz\n");
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "first.c", "a\nB\nc\n");
	assert_content(&s, "new.c", "new\n");
	assert_content(&s, "second.c", "x\nY\nz\n");
	assert_int_equal(s.writes, 3);
	apply_outcome_release(&o);

	/* partly in (first.c done, the rest not): neither way applies */
	store_release(&s);
	memset(&s, 0, sizeof(s));
	STORE_PUT(&s, "first.c", "a\nB\nc\n");
	STORE_PUT(&s, "second.c", "x\ny\nz\n");
	assert_int_equal(apply_text(patch, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.file, "first.c");
	assert_int_equal(s.writes, 0);
	apply_outcome_release(&o);
	store_release(&s);
}

/* Two sections on one path: the second sees the first's result. */
static void test_sections_on_one_path(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	STORE_PUT(&s, "f", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
	assert_int_equal(apply_text("--- a/f\n+++ b/f\n@@ -2,3 +2,4 @@\n 2\n+2.5\n 3\n 4\n"
				    "--- a/f\n+++ b/f\n@@ -2,4 +2,4 @@\n 2\n-2.5\n+two and a half\n 3\n 4\n",
				    &s, &o), 0);
	assert_status(&o, APPLY_CLEAN);
	assert_content(&s, "f", "1\n2\ntwo and a half\n3\n4\n5\n6\n7\n8\n9\n");
	assert_int_equal(s.writes, 1);
	apply_outcome_release(&o);
	store_release(&s);
}

static void test_store_errors(void **state)
{
	struct mem_store s = { 0 };
	struct apply_outcome o;

	(void)state;
	STORE_PUT(&s, "lib/n.c", "x\n");
	s.fail_read = "lib/n.c";
	assert_int_equal(apply_text(two_hunks, &s, &o), -EIO);
	assert_string_equal(o.message.buf, "lib/n.c: cannot read it: Input/output error");
	apply_outcome_release(&o);
	store_release(&s);
}

/* Nothing is written beyond a symlink, and a new link must stay in the tree. */
static void test_symlinks(void **state)
{
	static const char through[] =
		"diff --git a/scripts/dt/x.h b/scripts/dt/x.h\nnew file mode 100644\n"
		"--- /dev/null\n+++ b/scripts/dt/x.h\n@@ -0,0 +1 @@\n+x\n";
	static const char *const out_of_tree[] = { "/etc", "../../etc", "a/../../..", "./../.." };
	static const char *const in_tree[] = { "../include", "a/../b", "../fs/./x", "." };
	struct mem_store s = { 0 };
	struct apply_outcome o;
	size_t i;

	(void)state;
	store_put(&s, "scripts/dt", "../include/dt", 13, 0120000);
	assert_int_equal(apply_text(through, &s, &o), 0);
	assert_status(&o, APPLY_FAILED);
	assert_string_equal(o.message.buf,
			    "scripts/dt/x.h: beyond a symbolic link: scripts/dt is a symlink");
	assert_int_equal(s.writes, 0);
	apply_outcome_release(&o);
	for (i = 0; i < sizeof(out_of_tree) / sizeof(*out_of_tree); i++) {
		struct strbuf patch = STRBUF_INIT;

		strbuf_addf(&patch, "diff --git a/fs/l b/fs/l\nnew file mode 120000\n--- /dev/null\n"
			    "+++ b/fs/l\n@@ -0,0 +1 @@\n+%s\n\\ No newline at end of file\n",
			    out_of_tree[i]);
		assert_int_equal(apply_text(patch.buf, &s, &o), 0);
		assert_status(&o, APPLY_FAILED);
		assert_message_has(&o, "which leaves the tree");
		apply_outcome_release(&o);
		strbuf_reset(&patch);
		strbuf_addf(&patch, "diff --git a/fs/in%zu b/fs/in%zu\nnew file mode 120000\n"
			    "--- /dev/null\n+++ b/fs/in%zu\n@@ -0,0 +1 @@\n+%s\n"
			    "\\ No newline at end of file\n", i, i, i, in_tree[i]);
		assert_int_equal(apply_text(patch.buf, &s, &o), 0);
		assert_status(&o, APPLY_CLEAN);
		apply_outcome_release(&o);
		strbuf_release(&patch);
	}
	assert_int_equal(s.writes, 4);
	store_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_offset_below),
		cmocka_unit_test(test_offset_above),
		cmocka_unit_test(test_two_hunks_follow_the_offset),
		cmocka_unit_test(test_context_mismatch_names_file_and_hunk),
		cmocka_unit_test(test_nearest_match_first),
		cmocka_unit_test(test_hunks_stay_in_order),
		cmocka_unit_test(test_already_applied),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_delete),
		cmocka_unit_test(test_rename),
		cmocka_unit_test(test_mode_change),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_mode_change_with_content),
		cmocka_unit_test(test_strip_levels),
		cmocka_unit_test(test_no_newline_at_eof),
		cmocka_unit_test(test_start_and_end_anchors),
		cmocka_unit_test(test_all_or_nothing),
		cmocka_unit_test(test_sections_on_one_path),
		cmocka_unit_test(test_store_errors),
		cmocka_unit_test(test_symlinks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
