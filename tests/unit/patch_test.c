// SPDX-License-Identifier: GPL-2.0
/* patch_parse(): files and hunks out of queue patches, precise errors for the rest. */
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

/* Modelled on patches/6.1/0001-*.patch: mail, message, diffstat, signature. */
static const char format_patch[] =
	"From 183d4f096465e5f835c45b908b2ef905dc1f15f9 Mon Sep 17 00:00:00 2001\n"
	"From: Oleg Nesterov <oleg@redhat.com>\n"
	"Date: Thu, 3 Jan 2019 15:28:07 -0800\n"
	"Subject: [PATCH 1/2] exec: load_script: don't blindly truncate shebang string\n"
	"\n"
	"commit 8099b047ecc431518b9bb6bdbba3549bbecdc343 upstream.\n"
	"\n"
	"load_script() simply truncates bprm->buf and this is very wrong if the\n"
	"length of shebang string exceeds BINPRM_BUF_SIZE-2.\n"
	"\n"
	"A message may quote a hunk header: @@ -1,2 +1,2 @@\n"
	"@@ -3,4 +3,4 @@ even at the start of a line.\n"
	"\n"
	"Signed-off-by: Oleg Nesterov <oleg@redhat.com>\n"
	"Signed-off-by: backport-gate maintainers <backport-gate@example.org>\n"
	"---\n"
	" fs/binfmt_script.c | 6 ++++++\n"
	" 1 file changed, 6 insertions(+)\n"
	"\n"
	"diff --git a/fs/binfmt_script.c b/fs/binfmt_script.c\n"	/* line 20 */
	"index 1b6625e..a1622ed 100644\n"
	"--- a/fs/binfmt_script.c\n"
	"+++ b/fs/binfmt_script.c\n"
	"@@ -58,6 +58,12 @@ static int load_script(struct linux_binprm *bprm)\n"	/* line 24 */
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
	"2.39.5\n"
	"\n";

/* Every kind of file section git writes. */
static const char multi_patch[] =
	"Subject: [PATCH] many kinds\n"
	"\n"
	"---\n"
	"diff --git a/Makefile b/Makefile\n"			/* 4 */
	"index 1111111..2222222 100644\n"
	"--- a/Makefile\n"
	"+++ b/Makefile\n"
	"@@ -1,3 +1,3 @@\n"					/* 8 */
	" VERSION = 6\n"
	"-PATCHLEVEL = 0\n"
	"+PATCHLEVEL = 1\n"
	" SUBLEVEL = 0\n"
	"@@ -10 +10,2 @@ NAME = x\n"				/* 13 */
	" end\n"
	"+more\n"
	"diff --git a/scripts/new.sh b/scripts/new.sh\n"	/* 16 */
	"new file mode 100755\n"
	"index 0000000..3333333\n"
	"--- /dev/null\n"
	"+++ b/scripts/new.sh\n"
	"@@ -0,0 +1,2 @@\n"
	"+#!/bin/sh\n"
	"+echo hi\n"
	"diff --git a/old/gone.c b/old/gone.c\n"		/* 24 */
	"deleted file mode 100644\n"
	"index 4444444..0000000\n"
	"--- a/old/gone.c\n"
	"+++ /dev/null\n"
	"@@ -1,2 +0,0 @@\n"
	"-int x;\n"
	"-int y;\n"
	"\\ No newline at end of file\n"
	"diff --git a/drivers/a.c b/drivers/b.c\n"		/* 33 */
	"similarity index 90%\n"
	"rename from drivers/a.c\n"
	"rename to drivers/b.c\n"
	"index 5555555..6666666 100644\n"
	"--- a/drivers/a.c\n"
	"+++ b/drivers/b.c\n"
	"@@ -2,3 +2,3 @@\n"
	" a\n"
	"-b\n"
	"+B\n"
	" c\n"
	"diff --git a/doc/x.txt b/doc/y.txt\n"			/* 45 */
	"similarity index 100%\n"
	"rename from doc/x.txt\n"
	"rename to doc/y.txt\n"
	"diff --git a/tools/run b/tools/run\n"			/* 49 */
	"old mode 100644\n"
	"new mode 100755\n"
	"diff --git a/empty b/empty\n"				/* 52 */
	"new file mode 100644\n"
	"index 0000000..e69de29\n"
	"-- \n"
	"2.39.5\n";

static void check_invariants(const struct patch *p, size_t input_len);

static int parse(const char *text, size_t len, struct patch *p, struct strbuf *err)
{
	/* an exact-size copy, so valgrind sees any read past the end */
	char *buf = malloc(len ? len : 1);
	int r;

	assert_non_null(buf);
	memcpy(buf, text, len);
	r = patch_parse(buf, len, p, err);
	free(buf);
	return r;
}

#define PARSE(s, p, err) parse((s), strlen(s), (p), (err))

/* The patch parses; show why when it does not. */
static void parse_ok(const char *text, struct patch *p)
{
	struct strbuf err = STRBUF_INIT;
	int r = PARSE(text, p, &err);

	if (r)
		fail_msg("patch_parse: %d: %s", r, err.buf);
	check_invariants(p, strlen(text));
	strbuf_release(&err);
}

/* The patch is refused with @want_r and a message containing @want. */
static void parse_fails(const char *text, size_t len, int want_r, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct patch p;
	int r = parse(text, len, &p, &err);

	if (r != want_r)
		fail_msg("patch_parse returned %d, expected %d (message \"%s\")", r, want_r,
			 err.buf);
	if (!strstr(err.buf, want))
		fail_msg("expected a message containing \"%s\", got \"%s\"", want, err.buf);
	patch_release(&p);
	strbuf_release(&err);
}

#define PARSE_FAILS(s, want) parse_fails((s), strlen(s), -EINVAL, (want))

/* What every parsed patch must hold, whatever the input was. */
static void check_invariants(const struct patch *p, size_t input_len)
{
	size_t i, j, k;

	assert_true(p->n_files > 0);
	for (i = 0; i < p->n_files; i++) {
		const struct patch_file *f = &p->files[i];

		assert_true(f->change == PATCH_ADD || f->old_path);
		assert_true(f->change == PATCH_DELETE || f->new_path);
		assert_true(f->change != PATCH_ADD || !f->old_path);
		assert_true(f->change != PATCH_DELETE || !f->new_path);
		for (j = 0; j < f->n_hunks; j++) {
			const struct patch_hunk *h = &f->hunks[j];
			unsigned old = 0, new = 0;

			for (k = 0; k < h->n_lines; k++) {
				const struct patch_line *l = &h->lines[k];

				assert_true(l->text >= p->copy);
				assert_true(l->text + l->len <= p->copy + input_len);
				assert_null(memchr(l->text, '\n', l->len));
				old += l->origin != '+';
				new += l->origin != '-';
			}
			assert_int_equal(old, h->old_count);
			assert_int_equal(new, h->new_count);
		}
	}
}

static void assert_line(const struct patch_line *l, char origin, const char *text)
{
	if (l->origin != origin || l->len != strlen(text) || memcmp(l->text, text, l->len))
		fail_msg("expected line '%c' \"%s\", got '%c' \"%.*s\"", origin, text, l->origin,
			 (int)l->len, l->text);
}

static void test_format_patch(void **state)
{
	struct patch p;
	const struct patch_hunk *h;
	const struct patch_file *f;

	(void)state;
	parse_ok(format_patch, &p);
	assert_int_equal(p.n_files, 1);
	f = &p.files[0];
	assert_int_equal(f->change, PATCH_MODIFY);
	assert_string_equal(f->old_path, "fs/binfmt_script.c");
	assert_string_equal(f->new_path, "fs/binfmt_script.c");
	assert_int_equal(f->new_mode, 0);
	assert_int_equal(f->patch_line, 20);
	assert_int_equal(f->n_hunks, 1);
	h = &f->hunks[0];
	assert_int_equal(h->old_start, 58);
	assert_int_equal(h->old_count, 6);
	assert_int_equal(h->new_start, 58);
	assert_int_equal(h->new_count, 12);
	assert_int_equal(h->patch_line, 24);
	/* the "-- " signature is not a removed line */
	assert_int_equal(h->n_lines, 12);
	assert_line(&h->lines[0], ' ', "\tbuf_end = bprm->buf + sizeof(bprm->buf) - 1;");
	assert_line(&h->lines[3], '+', "\t\t/*");
	assert_line(&h->lines[8], '+', "\t\t\treturn -ENOEXEC;");
	assert_line(&h->lines[11], ' ', "\t\t\treturn -ENOEXEC; /* Entire buf is spaces/tabs */");
	assert_false(h->lines[11].no_eol);
	check_invariants(&p, strlen(format_patch));
	patch_release(&p);
}

static void test_every_kind_of_section(void **state)
{
	struct patch p;
	const struct patch_file *f;

	(void)state;
	parse_ok(multi_patch, &p);
	check_invariants(&p, strlen(multi_patch));
	assert_int_equal(p.n_files, 7);

	f = &p.files[0];
	assert_int_equal(f->change, PATCH_MODIFY);
	assert_string_equal(f->new_path, "Makefile");
	assert_int_equal(f->n_hunks, 2);
	assert_int_equal(f->hunks[0].patch_line, 8);
	/* "@@ -10 +10,2 @@": a count left out is 1 */
	assert_int_equal(f->hunks[1].old_start, 10);
	assert_int_equal(f->hunks[1].old_count, 1);
	assert_int_equal(f->hunks[1].new_count, 2);
	assert_int_equal(f->hunks[1].patch_line, 13);

	f = &p.files[1];
	assert_int_equal(f->change, PATCH_ADD);
	assert_null(f->old_path);
	assert_string_equal(f->new_path, "scripts/new.sh");
	assert_int_equal(f->new_mode, 0100755);
	assert_int_equal(f->n_hunks, 1);
	assert_int_equal(f->hunks[0].n_lines, 2);

	f = &p.files[2];
	assert_int_equal(f->change, PATCH_DELETE);
	assert_string_equal(f->old_path, "old/gone.c");
	assert_null(f->new_path);
	assert_int_equal(f->new_mode, 0);
	assert_false(f->hunks[0].lines[0].no_eol);
	assert_true(f->hunks[0].lines[1].no_eol);

	f = &p.files[3];
	assert_int_equal(f->change, PATCH_RENAME);
	assert_string_equal(f->old_path, "drivers/a.c");
	assert_string_equal(f->new_path, "drivers/b.c");
	assert_int_equal(f->n_hunks, 1);
	assert_int_equal(f->patch_line, 33);

	f = &p.files[4];
	assert_int_equal(f->change, PATCH_RENAME);
	assert_string_equal(f->old_path, "doc/x.txt");
	assert_string_equal(f->new_path, "doc/y.txt");
	assert_int_equal(f->n_hunks, 0);

	f = &p.files[5];
	assert_int_equal(f->change, PATCH_MODIFY);
	assert_string_equal(f->old_path, "tools/run");
	assert_int_equal(f->new_mode, 0100755);
	assert_int_equal(f->n_hunks, 0);

	/* an empty new file has no hunks; the signature after it is no header */
	f = &p.files[6];
	assert_int_equal(f->change, PATCH_ADD);
	assert_string_equal(f->new_path, "empty");
	assert_int_equal(f->new_mode, 0100644);
	assert_int_equal(f->n_hunks, 0);
	patch_release(&p);
}

static void test_empty_new_file(void **state)
{
	struct patch p;

	(void)state;
	parse_ok("diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n", &p);
	assert_int_equal(p.n_files, 1);
	assert_int_equal(p.files[0].change, PATCH_ADD);
	assert_string_equal(p.files[0].new_path, "empty");
	assert_int_equal(p.files[0].new_mode, 0100644);
	assert_int_equal(p.files[0].n_hunks, 0);
	patch_release(&p);
}

static void test_plain_and_quilt(void **state)
{
	struct patch p;

	(void)state;
	/* quilt: any first component goes, timestamps after a tab */
	parse_ok("Index: linux/fs/exec.c\n"
		 "===================================================================\n"
		 "--- linux.orig/fs/exec.c\t2024-01-01 00:00:00.000000000 +0000\n"
		 "+++ linux/fs/exec.c\t2024-01-02 00:00:00.000000000 +0000\n"
		 "@@ -1,2 +1,2 @@\n"
		 "-a\n"
		 "+b\n"
		 " c\n"
		 "--- a/fs/new.c\n"
		 "+++ b/fs/new.c\n"
		 "@@ -0,0 +1 @@\n"
		 "+new\n"
		 "--- a/fs/old.c\n"
		 "+++ /dev/null\n"
		 "@@ -1 +0,0 @@\n"
		 "-old\n"
		 "--- /dev/null\n"
		 "+++ b/fs/added.c\n"
		 "@@ -0,0 +1 @@\n"
		 "+x\n", &p);
	assert_int_equal(p.n_files, 4);
	assert_int_equal(p.files[0].change, PATCH_MODIFY);
	assert_string_equal(p.files[0].old_path, "fs/exec.c");
	assert_string_equal(p.files[0].new_path, "fs/exec.c");
	/* a single hunk needing no old lines creates the file, as git apply has it */
	assert_int_equal(p.files[1].change, PATCH_ADD);
	assert_string_equal(p.files[1].new_path, "fs/new.c");
	assert_int_equal(p.files[2].change, PATCH_DELETE);
	assert_string_equal(p.files[2].old_path, "fs/old.c");
	assert_int_equal(p.files[3].change, PATCH_ADD);
	assert_null(p.files[3].old_path);
	assert_string_equal(p.files[3].new_path, "fs/added.c");
	patch_release(&p);
}

static void test_no_newline_markers(void **state)
{
	struct patch p;
	const struct patch_hunk *h;

	(void)state;
	parse_ok("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", &p);
	h = &p.files[0].hunks[0];
	assert_int_equal(h->n_lines, 3);
	assert_false(h->lines[0].no_eol);
	assert_true(h->lines[1].no_eol);
	assert_false(h->lines[2].no_eol);
	patch_release(&p);

	parse_ok("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n\\ Kein Zeilenumbruch am Dateiende.\n", &p);
	h = &p.files[0].hunks[0];
	assert_false(h->lines[0].no_eol);
	assert_true(h->lines[1].no_eol);
	patch_release(&p);

	/* context at the end of both sides */
	parse_ok("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n z\n\\ No newline at end of file\n", &p);
	assert_true(p.files[0].hunks[0].lines[2].no_eol);
	patch_release(&p);
}

static void test_empty_line_is_context(void **state)
{
	struct patch p;
	const struct patch_hunk *h;

	(void)state;
	parse_ok("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n", &p);
	h = &p.files[0].hunks[0];
	assert_int_equal(h->n_lines, 4);
	assert_line(&h->lines[1], ' ', "");
	patch_release(&p);
}

static void test_quoted_names(void **state)
{
	struct patch p;

	(void)state;
	parse_ok("diff --git \"a/dir/caf\\303\\251 x\" \"b/dir/caf\\303\\251 x\"\n"
		 "--- \"a/dir/caf\\303\\251 x\"\n"
		 "+++ \"b/dir/caf\\303\\251 x\"\n"
		 "@@ -1 +1 @@\n-a\n+b\n", &p);
	assert_string_equal(p.files[0].new_path, "dir/caf\303\251 x");
	patch_release(&p);

	/* names with spaces: git ends them with a tab */
	parse_ok("diff --git a/with space b/with space\n"
		 "--- a/with space\t\n+++ b/with space\t\n@@ -1 +1 @@\n-a\n+b\n", &p);
	assert_string_equal(p.files[0].new_path, "with space");
	patch_release(&p);
}

static void test_empty_patch(void **state)
{
	(void)state;
	parse_fails("", 0, -EINVAL, "empty patch: no diff in it");
	PARSE_FAILS("Subject: nothing\n\njust words\n", "empty patch: no diff in it");
	PARSE_FAILS("Subject: x\n---\n fs/x.c | 1 +\n-- \n2.39.5\n", "empty patch: no diff in it");
	/* ---/+++ with no hunk header after them is not a diff */
	PARSE_FAILS("--- a/x\n+++ b/x\nhello\n", "empty patch: no diff in it");
}

static void test_binary(void **state)
{
	(void)state;
	PARSE_FAILS("---\n"
		    "diff --git a/fw/blob.bin b/fw/blob.bin\n"
		    "index 1111111..2222222 100644\n"
		    "GIT binary patch\n"
		    "literal 4\n"
		    "LcmZQzKn4H;00;m8\n",
		    "line 4: fw/blob.bin: binary patch: not applied");
	PARSE_FAILS("diff --git a/fw/blob.bin b/fw/blob.bin\n"
		    "index 1111111..2222222 100644\n"
		    "Binary files a/fw/blob.bin and b/fw/blob.bin differ\n",
		    "line 3: fw/blob.bin: binary patch: not applied");
	PARSE_FAILS("diff -ur a/x b/x\nBinary files a/img.png and b/img.png differ\n",
		    "line 2: b/img.png: binary patch: not applied");
	/* a delta, as git diff --binary writes it, with its reverse */
	PARSE_FAILS("diff --git a/drivers/x/fw.bin b/drivers/x/fw.bin\n"
		    "index 4f1a2c3d4e5f60718293a4b5c6d7e8f901234567..0123456789abcdef0123456789abcdef01234567 100644\n"
		    "GIT binary patch\n"
		    "delta 12\n"
		    "TcmZo<m*8lNYiDL+WME)m1P%Z}\n"
		    "\n"
		    "delta 12\n"
		    "TcmZo<m*8lNYiDL+WME)m1P%Z}\n"
		    "\n",
		    "line 3: drivers/x/fw.bin: binary patch: not applied");
	PARSE_FAILS("---\nGIT binary patch\nliteral 0\n",
		    "line 2: binary patch without a file header: not applied");
}

static void test_paths_outside_the_tree(void **state)
{
	(void)state;
	PARSE_FAILS("diff --git a/../etc/passwd b/../etc/passwd\n"
		    "--- a/../etc/passwd\n"
		    "+++ b/../etc/passwd\n"
		    "@@ -1 +1 @@\n-a\n+b\n",
		    "line 3: ../etc/passwd: leaves the tree");
	PARSE_FAILS("--- a/fs/../../x\n+++ b/fs/../../x\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: fs/../../x: leaves the tree");
	/* -p1 would make "/etc/passwd" relative; the gate refuses it instead */
	PARSE_FAILS("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: /etc/passwd: leaves the tree");
	PARSE_FAILS("diff --git a//etc/passwd b//etc/passwd\n"
		    "--- a//etc/passwd\n+++ b//etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 3: /etc/passwd: leaves the tree");
	PARSE_FAILS("diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to ../y\n",
		    "line 4: ../y: leaves the tree");
	PARSE_FAILS("diff --git a/x b/y\nrename from /x\nrename to y\n",
		    "line 3: /x: leaves the tree");
	PARSE_FAILS("--- a/\n+++ b/\n@@ -1 +1 @@\n-a\n+b\n", "line 2: empty path: leaves the tree");
	PARSE_FAILS("--- \"a/x\\ty\"\n+++ \"b/x\\ty\"\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: x\\ty: leaves the tree");
	PARSE_FAILS("--- \"a/x\\000y\"\n+++ \"b/x\\000y\"\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: x\\000y: leaves the tree");
	PARSE_FAILS("--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: .git/hooks/pre-commit: writes into .git");
	PARSE_FAILS("--- a/x//y\n+++ b/x//y\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: x//y: is not a clean path");
	PARSE_FAILS("--- Makefile\n+++ Makefile\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: Makefile: no leading directory to strip");
}

static void test_truncated_and_miscounted_hunks(void **state)
{
	size_t cut;

	(void)state;
	/* cut off after the third added line: the patch ends inside the hunk */
	cut = (size_t)(strstr(format_patch, "+\t\t */\n") - format_patch);
	parse_fails(format_patch, cut, -EINVAL,
		    "line 24: hunk @@ -58,6 +58,12 @@ in fs/binfmt_script.c is truncated: "
		    "the patch ends at line 30 with 3 old and 6 new lines missing");
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\nnot a hunk line\n",
		    "line 3: hunk @@ -1,3 +1,3 @@ in f is truncated: line 7 is no hunk line");
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n+c\n+d\n-b\n",
		    "line 3: hunk @@ -1,2 +1,2 @@ in f does not match its header counts: "
		    "line 6 is one '+' line too many");
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n a\n\\ No newline at end of file\n"
		    "@@ -5 +5 @@\n-x\n+y\n",
		    "line 3: \"\\ No newline at end of file\" in a hunk of f that is not its last");
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n-b\n+c\n+d\n",
		    "has lines after \"\\ No newline at end of file\"");
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n\\ No newline at end of file\n-a\n+b\n",
		    "line 4: stray \"\\ No newline\" line in f");
}

static void test_hunk_headers(void **state)
{
	(void)state;
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -4294967295,2 +1,1 @@\n-a\n-b\n+c\n",
		    "line 3: hunk header in f: line numbers overflow");
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -99999999999999999999999,1 +1,1 @@\n-a\n+c\n",
		    "line 3: hunk header in f: line numbers overflow");
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -1,1 +1,4294967295 @@\n-a\n+c\n",
		    "line numbers overflow");
	PARSE_FAILS("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+c\n@@ -x,1 +1,1 @@\n",
		    "line 6: malformed hunk header in f: \"@@ -x,1 +1,1 @@\"");
	PARSE_FAILS("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,0 +1,0 @@\n",
		    "line 4: hunk @@ -1,0 +1,0 @@ in f is empty");
	PARSE_FAILS("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -0,1 +1,1 @@\n-a\n+b\n",
		    "line 4: hunk @@ -0,1 +1,1 @@ in f starts at line 0");
	PARSE_FAILS("---\nsome words\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 3: hunk header outside a file section");
	PARSE_FAILS("diff --git a/f b/f\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: f: hunk without --- / +++ lines before it");
	PARSE_FAILS("diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/f\n"
		    "@@ -1 +1 @@\n-a\n+b\n",
		    "line 5: hunk @@ -1,1 +1,1 @@ in f needs old lines in a file the patch adds");
	PARSE_FAILS("diff --git a/f b/f\nnew mode 100664x\n", "line 2: f: bad mode \"100664x\"");
	PARSE_FAILS("diff --git a/sub b/sub\nnew file mode 160000\n",
		    "line 2: sub: submodule changes are not supported");
	PARSE_FAILS("diff --git a/x b/y\nsimilarity index 100%\ncopy from x\n",
		    "line 3: copy from without copy to, or the reverse");
	PARSE_FAILS("diff --git a/x b/y\ncopy from x\nrename to y\n", "both a copy and a rename");
	PARSE_FAILS("diff --git a/x b/x\ncopy from x\ncopy to x\n", "line 3: x: copied to itself");
	PARSE_FAILS("diff --git a/x b/y\nnew file mode 100644\ncopy from x\ncopy to y\n",
		    "line 4: a copy that also adds or deletes");
	PARSE_FAILS("diff --git a/x b/x\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: --- and +++ name different files without a rename");
}

static int parse_strip(const char *text, unsigned strip, struct patch *p, struct strbuf *err)
{
	size_t len = strlen(text);
	char *buf = malloc(len ? len : 1);
	int r;

	assert_non_null(buf);
	memcpy(buf, text, len);
	r = patch_parse_strip(buf, len, strip, p, err);
	free(buf);
	return r;
}

static void parse_strip_ok(const char *text, unsigned strip, struct patch *p)
{
	struct strbuf err = STRBUF_INIT;
	int r = parse_strip(text, strip, p, &err);

	if (r)
		fail_msg("patch_parse_strip -p%u: %d: %s", strip, r, err.buf);
	check_invariants(p, strlen(text));
	strbuf_release(&err);
}

static void parse_strip_fails(const char *text, unsigned strip, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct patch p;
	int r = parse_strip(text, strip, &p, &err);

	if (r != -EINVAL || !strstr(err.buf, want))
		fail_msg("-p%u: expected -EINVAL and a message containing \"%s\", got %d \"%s\"",
			 strip, want, r, err.buf);
	patch_release(&p);
	strbuf_release(&err);
}

static void test_strip_levels(void **state)
{
	static const char plain[] = "--- fs/exec.c\n+++ fs/exec.c\n@@ -1 +1 @@\n-a\n+b\n";
	static const char deep[] =
		"--- linux-6.1.orig/src/fs/exec.c\n+++ linux-6.1/src/fs/exec.c\n@@ -1 +1 @@\n-a\n+b\n";
	static const char git[] =
		"diff --git a/x/drivers/a.c b/x/drivers/b.c\n"
		"similarity index 90%\n"
		"rename from x/drivers/a.c\n"
		"rename to x/drivers/b.c\n"
		"--- a/x/drivers/a.c\n"
		"+++ b/x/drivers/b.c\n"
		"@@ -1 +1 @@\n-a\n+b\n"
		"diff --git a/x/Makefile b/x/Makefile\n"
		"--- a/x/Makefile\n"
		"+++ b/x/Makefile\n"
		"@@ -1 +1 @@\n-a\n+b\n";
	struct patch p;

	(void)state;
	/* -p0: names as written, which -p1 refuses */
	parse_strip_ok(plain, 0, &p);
	assert_string_equal(p.files[0].old_path, "fs/exec.c");
	patch_release(&p);
	PARSE_FAILS("--- Makefile\n+++ Makefile\n@@ -1 +1 @@\n-a\n+b\n",
		    "line 2: Makefile: no leading directory to strip");
	parse_strip_ok("--- Makefile\n+++ Makefile\n@@ -1 +1 @@\n-a\n+b\n", 0, &p);
	assert_string_equal(p.files[0].old_path, "Makefile");
	patch_release(&p);
	/* -p0 and /dev/null: a plain diff that adds a file */
	parse_strip_ok("--- /dev/null\n+++ scripts/new.sh\n@@ -0,0 +1 @@\n+x\n", 0, &p);
	assert_int_equal(p.files[0].change, PATCH_ADD);
	assert_string_equal(p.files[0].new_path, "scripts/new.sh");
	patch_release(&p);

	/* -p2 */
	parse_strip_ok(deep, 2, &p);
	assert_string_equal(p.files[0].old_path, "fs/exec.c");
	patch_release(&p);
	parse_strip_fails(plain, 2, "line 2: fs/exec.c: fewer than 2 leading directories to strip (-p2)");

	/* git: rename names have no a/ b/, so they lose one component less */
	parse_strip_ok(git, 2, &p);
	assert_int_equal(p.n_files, 2);
	assert_int_equal(p.files[0].change, PATCH_RENAME);
	assert_string_equal(p.files[0].old_path, "drivers/a.c");
	assert_string_equal(p.files[0].new_path, "drivers/b.c");
	assert_int_equal(p.files[1].change, PATCH_MODIFY);
	assert_string_equal(p.files[1].old_path, "Makefile");
	patch_release(&p);

	/* -p0 still refuses what leaves the tree */
	parse_strip_fails("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", 0,
			  "line 2: /etc/passwd: leaves the tree");
	parse_strip_fails("--- ../x\n+++ ../x\n@@ -1 +1 @@\n-a\n+b\n", 0,
			  "line 2: ../x: leaves the tree");
	parse_strip_fails("--- a/../../x\n+++ a/../../x\n@@ -1 +1 @@\n-a\n+b\n", 2,
			  "leaves the tree");
	parse_strip_fails(plain, PATCH_MAX_STRIP + 1,
			  "-p100: cannot strip more than 99 leading directories");
}

static void test_copies(void **state)
{
	struct patch p;
	const struct patch_file *f;

	(void)state;
	parse_ok("diff --git a/drivers/a.c b/drivers/c.c\n"
		 "similarity index 100%\n"
		 "copy from drivers/a.c\n"
		 "copy to drivers/c.c\n"
		 "diff --git a/lib/x.c b/lib/y.c\n"			/* 5 */
		 "similarity index 80%\n"
		 "copy from lib/x.c\n"
		 "copy to lib/y.c\n"
		 "index 5555555..6666666 100644\n"
		 "--- a/lib/x.c\n"
		 "+++ b/lib/y.c\n"
		 "@@ -1,2 +1,2 @@\n"
		 " a\n"
		 "-b\n"
		 "+B\n"
		 "diff --git \"a/q/caf\\303\\251\" \"b/q/caf\\303\\251 2\"\n"	/* 16 */
		 "similarity index 100%\n"
		 "copy from \"q/caf\\303\\251\"\n"
		 "copy to \"q/caf\\303\\251 2\"\n", &p);
	assert_int_equal(p.n_files, 3);
	f = &p.files[0];
	assert_int_equal(f->change, PATCH_COPY);
	assert_string_equal(f->old_path, "drivers/a.c");
	assert_string_equal(f->new_path, "drivers/c.c");
	assert_int_equal(f->n_hunks, 0);
	f = &p.files[1];
	assert_int_equal(f->change, PATCH_COPY);
	assert_string_equal(f->old_path, "lib/x.c");
	assert_string_equal(f->new_path, "lib/y.c");
	assert_int_equal(f->patch_line, 5);
	assert_int_equal(f->n_hunks, 1);
	assert_line(&f->hunks[0].lines[2], '+', "B");
	f = &p.files[2];
	assert_int_equal(f->change, PATCH_COPY);
	assert_string_equal(f->new_path, "q/caf\303\251 2");
	patch_release(&p);
}

static void test_mode_changes(void **state)
{
	struct patch p;
	const struct patch_file *f;

	(void)state;
	parse_ok("diff --git a/tools/run b/tools/run\n"
		 "old mode 100644\n"
		 "new mode 100755\n"
		 "index 1111111..2222222\n"
		 "--- a/tools/run\n"
		 "+++ b/tools/run\n"
		 "@@ -1 +1 @@\n-a\n+b\n"
		 "diff --git a/tools/link b/tools/link\n"
		 "new file mode 120000\n"
		 "--- /dev/null\n"
		 "+++ b/tools/link\n"
		 "@@ -0,0 +1 @@\n+run\n\\ No newline at end of file\n"
		 "diff --git a/tools/old b/tools/old\n"
		 "deleted file mode 100755\n"
		 "--- a/tools/old\n"
		 "+++ /dev/null\n"
		 "@@ -1 +0,0 @@\n-x\n"
		 "diff --git a/a.sh b/b.sh\n"
		 "old mode 100755\n"
		 "new mode 100644\n"
		 "similarity index 100%\n"
		 "rename from a.sh\n"
		 "rename to b.sh\n", &p);
	assert_int_equal(p.n_files, 4);
	f = &p.files[0];
	assert_int_equal(f->change, PATCH_MODIFY);
	assert_int_equal(f->new_mode, 0100755);
	assert_int_equal(f->n_hunks, 1);
	f = &p.files[1];
	assert_int_equal(f->change, PATCH_ADD);
	assert_int_equal(f->new_mode, 0120000);
	assert_true(f->hunks[0].lines[0].no_eol);
	f = &p.files[2];
	assert_int_equal(f->change, PATCH_DELETE);
	assert_int_equal(f->new_mode, 0);
	f = &p.files[3];
	assert_int_equal(f->change, PATCH_RENAME);
	assert_int_equal(f->new_mode, 0100644);
	patch_release(&p);
}

/* diffs without "diff --git": diff -urN, quilt's Index: lines, /dev/null */
static void test_traditional_diffs(void **state)
{
	struct patch p;

	(void)state;
	parse_ok("From: someone\n"
		 "Subject: a DEP-3 header\n"
		 "Forwarded: not-needed\n"
		 "\n"
		 "Index: linux/fs/a.c\n"
		 "===================================================================\n"
		 "--- linux.orig/fs/a.c\n"
		 "+++ linux/fs/a.c\n"
		 "@@ -1 +1 @@\n-a\n+b\n"
		 "diff -urN a/fs/new.c b/fs/new.c\n"
		 "--- /dev/null\t1970-01-01 00:00:00.000000000 +0000\n"
		 "+++ b/fs/new.c\t2024-01-01 00:00:00.000000000 +0000\n"
		 "@@ -0,0 +1,2 @@\n+x\n+y\n"
		 "Index: linux/fs/gone.c\n"
		 "===================================================================\n"
		 "--- linux.orig/fs/gone.c\n"
		 "+++ /dev/null\n"
		 "@@ -1,2 +0,0 @@\n-x\n-y\n"
		 /* names that differ after -p1: git takes +++ unless --- is a prefix of it */
		 "--- a/x.c\n+++ b/yy.c\n@@ -1 +1 @@\n-a\n+b\n"
		 "--- a/z.c\n+++ b/z.c.new\n@@ -1 +1 @@\n-a\n+b\n", &p);
	assert_int_equal(p.n_files, 5);
	assert_int_equal(p.files[0].change, PATCH_MODIFY);
	assert_string_equal(p.files[0].old_path, "fs/a.c");
	assert_int_equal(p.files[1].change, PATCH_ADD);
	assert_string_equal(p.files[1].new_path, "fs/new.c");
	assert_int_equal(p.files[2].change, PATCH_DELETE);
	assert_string_equal(p.files[2].old_path, "fs/gone.c");
	assert_string_equal(p.files[3].old_path, "yy.c");
	assert_string_equal(p.files[4].old_path, "z.c");
	patch_release(&p);
}

static void test_not_a_text_file(void **state)
{
	static const char nul[] = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\0b\n+c\n";

	(void)state;
	parse_fails(nul, sizeof(nul) - 1, -EINVAL, "line 4: not a text file (NUL byte)");
}

static void test_limits(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	struct patch p;
	char *big;
	unsigned i;
	int r;

	(void)state;
	big = malloc(PATCH_MAX_BYTES + 1);
	assert_non_null(big);
	memset(big, 'a', PATCH_MAX_BYTES + 1);
	r = patch_parse(big, PATCH_MAX_BYTES + 1, &p, &err);
	assert_int_equal(r, -E2BIG);
	assert_string_equal(err.buf, "patch is 16777217 bytes, more than the 16 MiB limit");
	patch_release(&p);
	free(big);

	for (i = 0; i < PATCH_MAX_FILES; i++)
		strbuf_addf(&text, "diff --git a/f%u b/f%u\nnew file mode 100644\n", i, i);
	strbuf_reset(&err);
	r = patch_parse(text.buf, text.len, &p, &err);
	if (r)
		fail_msg("10000 files: %d %s", r, err.buf);
	assert_int_equal(p.n_files, PATCH_MAX_FILES);
	patch_release(&p);

	strbuf_addf(&text, "diff --git a/one-more b/one-more\nnew file mode 100644\n");
	strbuf_reset(&err);
	r = patch_parse(text.buf, text.len, &p, &err);
	assert_int_equal(r, -E2BIG);
	assert_string_equal(err.buf, "line 20001: more than 10000 files in one patch");
	patch_release(&p);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* Every prefix parses or fails cleanly: no crash, no read past the end. */
static void check_every_prefix(const char *text)
{
	size_t len = strlen(text), n;

	for (n = 0; n <= len; n++) {
		struct strbuf err = STRBUF_INIT;
		struct patch p;
		int r = parse(text, n, &p, &err);

		if (r == 0) {
			check_invariants(&p, n);
		} else {
			if (r != -EINVAL)
				fail_msg("prefix of %zu bytes: returned %d (%s)", n, r, err.buf);
			if (!err.len || strchr(err.buf, '\n'))
				fail_msg("prefix of %zu bytes: bad message \"%s\"", n, err.buf);
		}
		patch_release(&p);
		strbuf_release(&err);
	}
}

static void test_every_prefix(void **state)
{
	(void)state;
	check_every_prefix(format_patch);
	check_every_prefix(multi_patch);
}

/* Every single-byte change to a valid patch: parses or fails cleanly. */
static void test_byte_mutations(void **state)
{
	static const char subst[] = "\n -+@\\\"/0,9\t";
	size_t len = strlen(multi_patch), i, j;
	char *buf = malloc(len);

	(void)state;
	assert_non_null(buf);
	for (i = 0; i < len; i++) {
		for (j = 0; j < sizeof(subst) - 1; j++) {
			struct strbuf err = STRBUF_INIT;
			struct patch p;
			int r;

			memcpy(buf, multi_patch, len);
			buf[i] = subst[j];
			r = patch_parse(buf, len, &p, &err);
			if (r == 0)
				check_invariants(&p, len);
			else if (r != -EINVAL || !err.len)
				fail_msg("byte %zu -> '%c': returned %d (%s)", i, subst[j], r, err.buf);
			patch_release(&p);
			strbuf_release(&err);
		}
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_patch),
		cmocka_unit_test(test_every_kind_of_section),
		cmocka_unit_test(test_empty_new_file),
		cmocka_unit_test(test_plain_and_quilt),
		cmocka_unit_test(test_no_newline_markers),
		cmocka_unit_test(test_empty_line_is_context),
		cmocka_unit_test(test_quoted_names),
		cmocka_unit_test(test_empty_patch),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_paths_outside_the_tree),
		cmocka_unit_test(test_truncated_and_miscounted_hunks),
		cmocka_unit_test(test_hunk_headers),
		cmocka_unit_test(test_strip_levels),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_mode_changes),
		cmocka_unit_test(test_traditional_diffs),
		cmocka_unit_test(test_not_a_text_file),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_byte_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
