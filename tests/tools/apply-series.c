// SPDX-License-Identifier: GPL-2.0
/*
 * apply-series TREE SERIES: apply a quilt series to the directory TREE with
 * the gate's own parser and applier (series_parse(), patch_parse_strip(),
 * patch_apply()), for tests/real-series.sh to compare with git apply.
 *
 * Patch files are named relative to the folder of SERIES; each is applied
 * to TREE in series order, whatever happened to the ones before. One line
 * per patch on stdout:
 *   <name> applied|offset|already|failed <largest |offset| in lines>
 * why a patch failed on stderr, and at the end a summary line on stderr:
 *   apply-series: 162 patches: 150 applied, 12 offset, 0 already, 0 failed; ...
 * Exit 0 when every patch applied (cleanly or at an offset), 1 when some
 * did not, 2 when the tool could not do its job (unreadable series, I/O).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "basic/strbuf.h"
#include "parse/patch.h"
#include "parse/series.h"
#include "source/apply.h"

struct dir_store {
	const char *root;
	struct strbuf path;	/* scratch: root/relative */
};

static const char *full_path(struct dir_store *s, const char *path)
{
	strbuf_reset(&s->path);
	strbuf_addf(&s->path, "%s/%s", s->root, path);
	return s->path.buf;
}

static int read_fd(int fd, struct strbuf *out)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		strbuf_add(out, buf, (size_t)n);
	}
	return 0;
}

static int dir_read(void *ctx, const char *path, struct strbuf *ret_content, unsigned *ret_mode)
{
	struct dir_store *s = ctx;
	const char *full = full_path(s, path);
	struct stat st;
	int fd, r;

	if (lstat(full, &st) < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(full, target, sizeof(target));

		if (n < 0)
			return -errno;
		strbuf_add(ret_content, target, (size_t)n);
		*ret_mode = 0120000;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -ENOENT : -EINVAL;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_fd(fd, ret_content);
	close(fd);
	*ret_mode = (st.st_mode & 0111) ? 0100755 : 0100644;
	return r;
}

/* mkdir -p of the folders above @full */
static int make_parents(char *full)
{
	char *slash;

	for (slash = strchr(full + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(full, 0755) < 0 && errno != EEXIST) {
			int r = -errno;

			*slash = '/';
			return r;
		}
		*slash = '/';
	}
	return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int dir_write(void *ctx, const char *path, const char *content, size_t len, unsigned mode)
{
	struct dir_store *s = ctx;
	char *full = strdup(full_path(s, path));
	int fd, r;

	if (!full)
		abort();
	r = make_parents(full);
	if (r < 0)
		goto out_free_path;
	if (unlink(full) < 0 && errno != ENOENT) {
		r = -errno;
		goto out_free_path;
	}
	if ((mode & 0170000) == 0120000) {
		char *target = strndup(content, len);

		if (!target)
			abort();
		r = symlink(target, full) < 0 ? -errno : 0;
		free(target);
		goto out_free_path;
	}
	fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode == 0100755 ? 0755 : 0644);
	if (fd < 0) {
		r = -errno;
		goto out_free_path;
	}
	r = write_all(fd, content, len);
	if (close(fd) < 0 && !r)
		r = -errno;
out_free_path:
	free(full);
	return r;
}

/* As git apply: a folder left empty by a removal goes too. */
static int dir_remove(void *ctx, const char *path)
{
	struct dir_store *s = ctx;
	char *full = strdup(full_path(s, path)), *slash;
	size_t root_len = strlen(s->root);
	int r = 0;

	if (!full)
		abort();
	if (unlink(full) < 0)
		r = -errno;
	while (!r && (slash = strrchr(full, '/')) && (size_t)(slash - full) > root_len) {
		*slash = '\0';
		if (rmdir(full) < 0)
			break;
	}
	free(full);
	return r;
}

static const struct apply_store_ops dir_ops = {
	.read = dir_read,
	.write = dir_write,
	.remove = dir_remove,
};

static int read_file(const char *path, struct strbuf *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = read_fd(fd, out);
	close(fd);
	return r;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *status_word(enum apply_status st)
{
	switch (st) {
	case APPLY_CLEAN: return "applied";
	case APPLY_OFFSET: return "offset";
	case APPLY_ALREADY: return "already";
	case APPLY_FAILED: return "failed";
	}
	return "?";
}

int main(int argc, char **argv)
{
	struct dir_store store = { NULL, STRBUF_INIT };
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, path = STRBUF_INIT;
	struct series series = { NULL, 0 };
	unsigned counts[4] = { 0 };
	double parse_time = 0, apply_time = 0, total, t;
	char *series_dir, *slash;
	int r, status = 0;
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: apply-series TREE SERIES\n");
		return 2;
	}
	store.root = argv[1];
	series_dir = strdup(argv[2]);
	if (!series_dir)
		abort();
	slash = strrchr(series_dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(series_dir, ".");

	r = read_file(argv[2], &text);
	if (r < 0) {
		fprintf(stderr, "apply-series: %s: %s\n", argv[2], strerror(-r));
		status = 2;
		goto out_release;
	}
	r = series_parse(text.buf, text.len, argv[2], &series, &err);
	if (r < 0) {
		fprintf(stderr, "apply-series: %s\n", err.buf);
		status = 2;
		goto out_release;
	}
	for (i = 0; i < series.n_entries; i++) {
		const struct series_entry *e = &series.entries[i];
		struct apply_outcome outcome;
		struct patch patch;

		if (e->error) {
			fprintf(stderr, "apply-series: %s\n", e->error);
			printf("%s failed 0\n", e->name);
			counts[APPLY_FAILED]++;
			status = 1;
			continue;
		}
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", series_dir, e->name);
		strbuf_reset(&text);
		r = read_file(path.buf, &text);
		if (r < 0) {
			fprintf(stderr, "apply-series: %s: %s\n", path.buf, strerror(-r));
			status = 2;
			goto out_release;
		}
		strbuf_reset(&err);
		t = now();
		r = patch_parse_strip(text.buf, text.len, e->strip, &patch, &err);
		parse_time += now() - t;
		if (r < 0) {
			fprintf(stderr, "apply-series: %s: %s\n", e->name, err.buf);
			printf("%s failed 0\n", e->name);
			counts[APPLY_FAILED]++;
			status = 1;
			patch_release(&patch);
			continue;
		}
		t = now();
		r = patch_apply(&patch, &dir_ops, &store, &outcome);
		apply_time += now() - t;
		patch_release(&patch);
		if (r < 0) {
			fprintf(stderr, "apply-series: %s: %s\n", e->name, outcome.message.buf);
			apply_outcome_release(&outcome);
			status = 2;
			goto out_release;
		}
		if (outcome.status == APPLY_FAILED || outcome.status == APPLY_ALREADY) {
			fprintf(stderr, "apply-series: %s: %s\n", e->name, outcome.message.buf);
			status = 1;
		}
		printf("%s %s %d\n", e->name, status_word(outcome.status),
		       outcome.status == APPLY_OFFSET ? outcome.offset : 0);
		counts[outcome.status]++;
		apply_outcome_release(&outcome);
	}
	fflush(stdout);
	total = parse_time + apply_time;
	fprintf(stderr,
		"apply-series: %zu patches: %u applied, %u offset, %u already, %u failed; "
		"parse %.3f s, apply %.3f s, %.0f patches/s\n",
		series.n_entries, counts[APPLY_CLEAN], counts[APPLY_OFFSET], counts[APPLY_ALREADY],
		counts[APPLY_FAILED], parse_time, apply_time,
		total > 0 ? (double)series.n_entries / total : 0);
out_release:
	series_release(&series);
	strbuf_release(&text);
	strbuf_release(&err);
	strbuf_release(&path);
	strbuf_release(&store.path);
	free(series_dir);
	return status;
}
