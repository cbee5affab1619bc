// SPDX-License-Identifier: GPL-2.0
/*
 * queue_load() on queues made in a temporary directory: a plain folder
 * (series in the series folder or directly in the source) and a git
 * repository read from its commit, not its work tree. The series' comments
 * and blank lines, an entry that cannot be used (its error names the
 * series line and the file, the rest is still read), each patch's subject
 * and upstream sha, an empty series, the snapshot's hashes, and the errors
 * for a queue that cannot be read at all. (List mails and mboxes:
 * queue_mail_test.c.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "basic/hash.h"
#include "basic/runcmd.h"
#include "basic/strbuf.h"
#include "source/queue.h"

#define SHA_A "0123456789abcdef0123456789abcdef01234567"
#define SHA_B "89abcdef0123456789abcdef0123456789abcdef"

struct fixture {
	char dir[64];
	char src[96];		/* dir/src: the queue's source */
	struct queue_request req;
	struct queue_snapshot snap;
	struct strbuf err;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/queue_test.XXXXXX");
	if (!mkdtemp(f->dir)) {
		perror("mkdtemp");
		free(f);
		return -1;
	}
	snprintf(f->src, sizeof(f->src), "%s/src", f->dir);
	if (mkdir(f->src, 0755) < 0) {
		perror(f->src);
		return -1;
	}
	f->req.source = f->src;
	f->req.default_series_dir = "queue-6.1";
	f->req.cache = f->dir;
	strbuf_init(&f->err, 0);
	*state = f;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	queue_snapshot_release(&f->snap);
	strbuf_release(&f->err);
	nftw(f->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static const char *or_null(const char *s)
{
	return s ? s : "(null)";
}

/* Write @len bytes to @rel under the source, making its folders. */
static void put_bytes(struct fixture *f, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->src, rel);
	for (char *slash = strchr(path + strlen(f->src) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	fp = fopen(path, "wb");
	if (!fp)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static void put(struct fixture *f, const char *rel, const char *text)
{
	put_bytes(f, rel, text, strlen(text));
}

/*
 * A patch as git format-patch writes it, adding one line to @file;
 * @upstream_line is the first message line ("" for none).
 */
static char *patch_text(const char *subject, const char *upstream_line, const char *file)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb,
		    "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
		    "From: Jane Doe <jane@example.org>\n"
		    "Date: Mon, 2 Dec 2024 10:00:00 +0100\n"
		    "Subject: [PATCH 6.1 01/02] %s\n"
		    "\n"
		    "%s%s"
		    "Why it is needed.\n"
		    "\n"
		    "Signed-off-by: Jane Doe <jane@example.org>\n"
		    "---\n"
		    " %s | 1 +\n"
		    " 1 file changed, 1 insertion(+)\n"
		    "\n"
		    "diff --git a/%s b/%s\n"
		    "index 1111111..2222222 100644\n"
		    "--- a/%s\n"
		    "+++ b/%s\n"
		    "@@ -1,2 +1,3 @@\n"
		    " one\n"
		    "+two\n"
		    " three\n"
		    "-- \n"
		    "2.39.2\n",
		    subject, upstream_line, upstream_line[0] ? "\n" : "", file, file, file, file, file);
	return strbuf_detach(&sb, NULL);
}

static void put_patch(struct fixture *f, const char *rel, const char *subject,
		      const char *upstream_line, const char *file)
{
	char *text = patch_text(subject, upstream_line, file);

	put(f, rel, text);
	free(text);
}

static int load(struct fixture *f)
{
	queue_snapshot_release(&f->snap);
	strbuf_reset(&f->err);
	return queue_load(&f->req, &f->snap, &f->err);
}

static void load_ok(struct fixture *f)
{
	int r = load(f);

	if (r != 0)
		fail_msg("queue_load returned %d: %s", r, f->err.buf);
}

static void assert_usable(const struct queue_patch *p)
{
	if (p->error)
		fail_msg("%s: unexpected error: %s", p->name, p->error);
	assert_non_null(p->content);
}

static void test_series_comments_and_blank_lines(void **state)
{
	struct fixture *f = *state;
	char *a_text = patch_text("exec: say what the limit is", "commit " SHA_A " upstream.",
				  "fs/exec.c");
	char hash[SHA256_HEX_LEN + 1];

	put(f, "queue-6.1/series",
	    "# queue for 6.1.193\n"
	    "\n"
	    "exec-say-what-the-limit-is.patch\n"
	    "   \t\n"
	    "  # a.patch: commented out, not an entry\n"
	    "fork-fix-a-comment.patch   # needed by nothing\n"
	    "\n");
	put(f, "queue-6.1/exec-say-what-the-limit-is.patch", a_text);
	put_patch(f, "queue-6.1/fork-fix-a-comment.patch", "fork: fix a comment",
		  "[ Upstream commit " SHA_B " ]", "kernel/fork.c");
	/* in the folder but not in the series: not read */
	put_patch(f, "queue-6.1/a.patch", "unlisted", "", "fs/unlisted.c");
	load_ok(f);

	assert_string_equal(or_null(f->snap.queue), "queue-6.1");
	assert_string_equal(or_null(f->snap.source), f->src);
	assert_null(f->snap.ref);
	assert_string_equal(f->snap.commit, "");
	assert_int_equal(f->snap.n, 2);
	assert_string_equal(f->snap.patches[0].name, "exec-say-what-the-limit-is.patch");
	assert_int_equal(f->snap.patches[0].series_line, 3);
	assert_string_equal(f->snap.patches[1].name, "fork-fix-a-comment.patch");
	assert_int_equal(f->snap.patches[1].series_line, 6);
	for (size_t i = 0; i < 2; i++)
		assert_usable(&f->snap.patches[i]);

	/* the file's bytes, and their hash */
	assert_int_equal(f->snap.patches[0].len, strlen(a_text));
	assert_string_equal(f->snap.patches[0].content, a_text);
	sha256_hex(a_text, strlen(a_text), hash);
	assert_string_equal(f->snap.patches[0].hash, hash);
	/* parsed: the one file each touches */
	assert_int_equal(f->snap.patches[0].parsed.n_files, 1);
	assert_string_equal(or_null(f->snap.patches[0].parsed.files[0].new_path), "fs/exec.c");
	assert_string_equal(or_null(f->snap.patches[1].parsed.files[0].new_path), "kernel/fork.c");
	assert_int_equal(strlen(f->snap.content_hash), SHA256_HEX_LEN);
	free(a_text);
}

/* Subject, author and upstream commit of each patch, as patch_header.h reads them. */
static void test_patch_headers(void **state)
{
	struct fixture *f = *state;
	const struct queue_patch *p;

	put(f, "queue-6.1/series", "upstream.patch\nbracketed.patch\nstable-only.patch\nrevert.patch\n");
	put_patch(f, "queue-6.1/upstream.patch", "exec: say what the limit is",
		  "commit " SHA_A " upstream.", "fs/exec.c");
	put_patch(f, "queue-6.1/bracketed.patch", "fork: fix a comment",
		  "[ Upstream commit 89ABCDEF0123 ]", "kernel/fork.c");
	put_patch(f, "queue-6.1/stable-only.patch", "exec: a fix only 6.1 needs", "", "fs/exec.c");
	put_patch(f, "queue-6.1/revert.patch", "Revert \"exec: say what the limit is\"",
		  "This reverts commit " SHA_A ".", "fs/exec.c");
	load_ok(f);
	assert_int_equal(f->snap.n, 4);
	for (size_t i = 0; i < f->snap.n; i++)
		assert_usable(&f->snap.patches[i]);

	p = &f->snap.patches[0];
	assert_string_equal(or_null(p->header.subject), "exec: say what the limit is");
	assert_string_equal(or_null(p->header.author), "Jane Doe <jane@example.org>");
	assert_string_equal(p->header.upstream, SHA_A);
	assert_false(p->header.stable_only);
	assert_false(p->header.is_revert);

	/* abbreviated and upper-case as written: kept as long as written, lower-cased */
	p = &f->snap.patches[1];
	assert_string_equal(or_null(p->header.subject), "fork: fix a comment");
	assert_string_equal(p->header.upstream, "89abcdef0123");
	assert_false(p->header.stable_only);

	p = &f->snap.patches[2];
	assert_string_equal(or_null(p->header.subject), "exec: a fix only 6.1 needs");
	assert_string_equal(p->header.upstream, "");
	assert_true(p->header.stable_only);

	p = &f->snap.patches[3];
	assert_string_equal(or_null(p->header.subject), "Revert \"exec: say what the limit is\"");
	assert_true(p->header.is_revert);
	assert_string_equal(p->header.upstream, "");
}

/* A missing file is an error on its entry, naming the series line and the file; the rest is read. */
static void test_missing_file(void **state)
{
	struct fixture *f = *state;

	put(f, "queue-6.1/series", "a.patch\nnot-there.patch\nb.patch\n");
	put_patch(f, "queue-6.1/a.patch", "a", "", "fs/a.c");
	put_patch(f, "queue-6.1/b.patch", "b", "", "fs/b.c");
	load_ok(f);
	assert_int_equal(f->snap.n, 3);
	assert_usable(&f->snap.patches[0]);
	assert_usable(&f->snap.patches[2]);
	assert_string_equal(f->snap.patches[1].name, "not-there.patch");
	assert_int_equal(f->snap.patches[1].series_line, 2);
	assert_null(f->snap.patches[1].content);
	assert_string_equal(f->snap.patches[1].hash, "");
	assert_string_equal(or_null(f->snap.patches[1].error),
			    "queue-6.1/series:2: not-there.patch is named in the series but not in the queue");
	assert_string_equal(or_null(f->snap.patches[2].header.subject), "b");
}

/*
 * Every other entry that cannot be used: each keeps an error naming the
 * file, and the usable entries around them are read.
 */
static void test_unusable_entries(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX], target[PATH_MAX];
	static const char binary[] = "diff --git a/x b/x\n\0\1\2";

	put(f, "queue-6.1/series",
	    "ok.patch\n"
	    "a-folder\n"
	    "outside.patch\n"
	    "inside.patch\n"
	    "../escape.patch\n"
	    "empty.patch\n"
	    "binary.patch\n"
	    "sibling.patch\n"
	    "last.patch\n");
	put_patch(f, "queue-6.1/ok.patch", "ok", "", "fs/ok.c");
	put_patch(f, "queue-6.1/last.patch", "last", "", "fs/last.c");
	put(f, "queue-6.1/a-folder/x", "x");
	/* a symlink that leaves the queue, and one that stays in it */
	put_patch(f, "secret.patch", "secret", "", "fs/secret.c");
	snprintf(path, sizeof(path), "%s/queue-6.1/outside.patch", f->src);
	snprintf(target, sizeof(target), "%s/secret.patch", f->src);
	assert_int_equal(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/queue-6.1/inside.patch", f->src);
	assert_int_equal(symlink("ok.patch", path), 0);
	/* a folder whose name starts with the queue's is still outside it */
	put_patch(f, "queue-6.1.orig/secret.patch", "secret", "", "fs/secret.c");
	snprintf(path, sizeof(path), "%s/queue-6.1/sibling.patch", f->src);
	assert_int_equal(symlink("../queue-6.1.orig/secret.patch", path), 0);
	put_patch(f, "escape.patch", "escape", "", "fs/escape.c");
	put(f, "queue-6.1/empty.patch", "");
	put_bytes(f, "queue-6.1/binary.patch", binary, sizeof(binary) - 1);
	load_ok(f);

	assert_int_equal(f->snap.n, 9);
	assert_usable(&f->snap.patches[0]);
	assert_string_equal(or_null(f->snap.patches[1].error),
			    "queue-6.1/series:2: a-folder is not a regular file");
	assert_string_equal(or_null(f->snap.patches[2].error),
			    "queue-6.1/series:3: outside.patch is a symlink that leaves the queue");
	assert_null(f->snap.patches[2].content);
	/* a symlink within the queue is read like the file it names */
	assert_usable(&f->snap.patches[3]);
	assert_string_equal(or_null(f->snap.patches[3].header.subject), "ok");
	assert_string_equal(f->snap.patches[3].hash, f->snap.patches[0].hash);
	assert_string_equal(or_null(f->snap.patches[4].error),
			    "queue-6.1/series:5: \"../escape.patch\" leaves the queue directory");
	assert_null(f->snap.patches[4].content);
	/* empty and binary: read, then refused by the patch parser, named */
	assert_non_null(f->snap.patches[5].content);
	assert_string_equal(or_null(f->snap.patches[5].error),
			    "empty.patch: empty patch: no diff in it");
	assert_string_equal(or_null(f->snap.patches[6].error),
			    "binary.patch: line 2: not a text file (NUL byte)");
	assert_string_equal(or_null(f->snap.patches[7].error),
			    "queue-6.1/series:8: sibling.patch is a symlink that leaves the queue");
	assert_usable(&f->snap.patches[8]);
	assert_string_equal(or_null(f->snap.patches[8].header.subject), "last");
}

static void test_empty_series(void **state)
{
	struct fixture *f = *state;
	char first_hash[SHA256_HEX_LEN + 1];

	put(f, "queue-6.1/series", "");
	load_ok(f);
	assert_int_equal(f->snap.n, 0);
	assert_string_equal(or_null(f->snap.queue), "queue-6.1");
	assert_int_equal(strlen(f->snap.content_hash), SHA256_HEX_LEN);
	strcpy(first_hash, f->snap.content_hash);

	/* only comments and blank lines: empty too, but another series text */
	put(f, "queue-6.1/series", "# nothing queued yet\n\n");
	load_ok(f);
	assert_int_equal(f->snap.n, 0);
	assert_string_not_equal(f->snap.content_hash, first_hash);
}

/* The series in the source itself, or in a series folder named in the request. */
static void test_series_location(void **state)
{
	struct fixture *f = *state;
	char source[PATH_MAX], want[PATH_MAX + 128];

	put(f, "series", "top.patch\n");
	put_patch(f, "top.patch", "top", "", "fs/top.c");
	put(f, "queue-5.15/series", "old.patch\n");
	put_patch(f, "queue-5.15/old.patch", "old", "", "fs/old.c");

	/* series directly in the source: the queue is named after the folder */
	snprintf(source, sizeof(source), "%s//", f->src);
	f->req.source = source;
	load_ok(f);
	assert_string_equal(or_null(f->snap.queue), "src");
	assert_int_equal(f->snap.n, 1);
	assert_string_equal(or_null(f->snap.patches[0].header.subject), "top");

	/* a series folder asked for by name wins over a series in the source */
	f->req.series_dir = "queue-5.15";
	load_ok(f);
	assert_string_equal(or_null(f->snap.queue), "queue-5.15");
	assert_int_equal(f->snap.n, 1);
	assert_string_equal(or_null(f->snap.patches[0].header.subject), "old");

	/* a series folder that is not there */
	f->req.series_dir = "queue-4.19";
	assert_int_equal(load(f), -ENOENT);
	snprintf(want, sizeof(want), "queue: no series file: queue-4.19/series does not exist in %s",
		 source);
	assert_string_equal(f->err.buf, want);
}

static void test_queue_unreadable(void **state)
{
	struct fixture *f = *state;
	char want[PATH_MAX + 128], source[PATH_MAX];

	/* a source folder without any series */
	assert_int_equal(load(f), -ENOENT);
	snprintf(want, sizeof(want), "queue: no series file: queue-6.1/series does not exist in %s",
		 f->src);
	assert_string_equal(f->err.buf, want);
	assert_int_equal(f->snap.n, 0);

	/* a series that is a folder */
	put(f, "queue-6.1/series/x", "x");
	assert_int_equal(load(f), -EISDIR);
	snprintf(want, sizeof(want), "queue: no series file: queue-6.1/series is not a regular file in %s",
		 f->src);
	assert_string_equal(f->err.buf, want);

	/* no such source */
	snprintf(source, sizeof(source), "%s/not-there", f->dir);
	f->req.source = source;
	assert_int_equal(load(f), -ENOENT);
	snprintf(want, sizeof(want), "queue: %s: No such file or directory", source);
	assert_string_equal(f->err.buf, want);

	/* a ref needs a git repository */
	f->req.source = f->src;
	f->req.ref = "main";
	assert_int_equal(load(f), -EINVAL);
	snprintf(want, sizeof(want), "queue: %s is a plain directory: --ref needs a git repository",
		 f->src);
	assert_string_equal(f->err.buf, want);
}

/* The snapshot's hash follows the series and every patch; each patch's hash its own bytes. */
static void test_content_hash(void **state)
{
	struct fixture *f = *state;
	char first[SHA256_HEX_LEN + 1], a_hash[SHA256_HEX_LEN + 1], b_hash[SHA256_HEX_LEN + 1];

	put(f, "queue-6.1/series", "a.patch\nb.patch\n");
	put_patch(f, "queue-6.1/a.patch", "a", "", "fs/a.c");
	put_patch(f, "queue-6.1/b.patch", "b", "", "fs/b.c");
	load_ok(f);
	strcpy(first, f->snap.content_hash);
	strcpy(a_hash, f->snap.patches[0].hash);
	strcpy(b_hash, f->snap.patches[1].hash);
	assert_string_not_equal(a_hash, b_hash);

	/* read again unchanged: the same snapshot */
	load_ok(f);
	assert_string_equal(f->snap.content_hash, first);

	/* one patch changes: its hash and the snapshot's, not the other's */
	put_patch(f, "queue-6.1/b.patch", "b, reworded", "", "fs/b.c");
	load_ok(f);
	assert_string_equal(f->snap.patches[0].hash, a_hash);
	assert_string_not_equal(f->snap.patches[1].hash, b_hash);
	assert_string_not_equal(f->snap.content_hash, first);

	/* the same patches in another order: another snapshot */
	put_patch(f, "queue-6.1/b.patch", "b", "", "fs/b.c");
	put(f, "queue-6.1/series", "b.patch\na.patch\n");
	load_ok(f);
	assert_string_equal(f->snap.patches[0].hash, b_hash);
	assert_string_not_equal(f->snap.content_hash, first);
}

/* Run git in @cwd, its output into @out when not NULL. */
static void git(const char *cwd, struct strbuf *out, const char *const *args)
{
	const char *argv[16] = { "git", "-c", "user.name=Queue Test", "-c",
				 "user.email=queue-test@example.org", "-c", "commit.gpgsign=false" };
	static const char *const env[] = { "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
					    NULL };
	struct child c = { .argv = argv, .env = env, .cwd = cwd, .capture = out, .timeout_sec = 60 };
	struct child_result res;
	size_t n = 7;

	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(child_run(&c, &res), 0);
	if (!child_ok(&res))
		fail_msg("git %s failed in %s", args[0], cwd);
}

#define GIT(f, ...) git((f)->src, NULL, (const char *const[]){ __VA_ARGS__, NULL })

static void head_commit(struct fixture *f, char ret[41])
{
	struct strbuf out = STRBUF_INIT;

	git(f->src, &out, (const char *const[]){ "rev-parse", "HEAD", NULL });
	strbuf_rtrim(&out);
	assert_int_equal(out.len, 40);
	memcpy(ret, out.buf, 41);
	strbuf_release(&out);
}

/* A git source is read from the ref's commit, not from the work tree. */
static void test_git_source(void **state)
{
	struct fixture *f = *state;
	char first[41], second[41];
	char want[PATH_MAX + 128];

	GIT(f, "init", "-q");
	put(f, "queue-6.1/series", "# committed\na.patch\n");
	put_patch(f, "queue-6.1/a.patch", "a, as committed", "commit " SHA_A " upstream.", "fs/a.c");
	GIT(f, "add", "-A");
	GIT(f, "commit", "-q", "-m", "queue a");
	head_commit(f, first);
	GIT(f, "branch", "first");

	put(f, "queue-6.1/series", "a.patch\nb.patch\ngone.patch\n");
	put_patch(f, "queue-6.1/b.patch", "b", "", "fs/b.c");
	GIT(f, "add", "-A");
	GIT(f, "commit", "-q", "-m", "queue b");
	head_commit(f, second);
	/* the work tree differs from every commit: none of this is read */
	put_patch(f, "queue-6.1/a.patch", "a, uncommitted", "", "fs/a.c");
	put_patch(f, "queue-6.1/gone.patch", "untracked", "", "fs/gone.c");

	load_ok(f);
	assert_string_equal(or_null(f->snap.ref), "HEAD");
	assert_string_equal(f->snap.commit, second);
	assert_string_equal(or_null(f->snap.queue), "queue-6.1");
	assert_int_equal(f->snap.n, 3);
	assert_usable(&f->snap.patches[0]);
	assert_string_equal(or_null(f->snap.patches[0].header.subject), "a, as committed");
	assert_string_equal(f->snap.patches[0].header.upstream, SHA_A);
	assert_usable(&f->snap.patches[1]);
	assert_string_equal(or_null(f->snap.patches[1].parsed.files[0].new_path), "fs/b.c");
	/* in the work tree but not in the commit: missing, named as for a folder */
	assert_string_equal(or_null(f->snap.patches[2].error),
			    "queue-6.1/series:3: gone.patch is named in the series but not in the queue");

	/* an older ref: the queue as it was then */
	f->req.ref = "first";
	load_ok(f);
	assert_string_equal(or_null(f->snap.ref), "first");
	assert_string_equal(f->snap.commit, first);
	assert_int_equal(f->snap.n, 1);
	assert_int_equal(f->snap.patches[0].series_line, 2);
	assert_string_equal(or_null(f->snap.patches[0].header.subject), "a, as committed");

	f->req.ref = first;
	load_ok(f);
	assert_string_equal(f->snap.commit, first);

	/* a ref that names nothing */
	f->req.ref = "no-such-branch";
	assert_int_equal(load(f), -ENOENT);
	assert_string_equal(f->err.buf, "queue: ref 'no-such-branch' does not name a commit");

	/* a series folder the commit does not have */
	f->req.ref = NULL;
	f->req.series_dir = "queue-5.15";
	assert_int_equal(load(f), -ENOENT);
	snprintf(want, sizeof(want), "queue: no series file: queue-5.15/series does not exist in %s",
		 f->src);
	assert_string_equal(f->err.buf, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_series_comments_and_blank_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_patch_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unusable_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_series, setup, teardown),
		cmocka_unit_test_setup_teardown(test_series_location, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_content_hash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_git_source, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
