// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <git2.h>

#include "basic/git_error.h"
#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "parse/mail.h"
#include "parse/series.h"
#include "source/queue.h"

#define FETCH_TIMEOUT_SEC 300

/* Where the bytes of the queue come from. */
struct source {
	git_repository *repo;		/* NULL for a directory */
	git_tree *tree;
	char *dir;			/* the series folder on disk, for a directory */
	char *prefix;			/* the series folder inside the tree */
};

/* Read @name (relative to the series folder). -ENOENT, -EISDIR, -ELOOP, -E2BIG. */
static int source_read(struct source *s, const char *name, size_t cap, struct strbuf *out)
{
	if (s->repo) {
		char *path = s->prefix[0] ? xasprintf("%s/%s", s->prefix, name) : xstrdup(name);
		git_tree_entry *entry = NULL;
		git_blob *blob = NULL;
		int r = 0;

		if (git_tree_entry_bypath(&entry, s->tree, path) < 0)
			r = -ENOENT;
		else if (git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
			r = -ELOOP;
		else if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
			r = -EISDIR;
		else if (git_blob_lookup(&blob, s->repo, git_tree_entry_id(entry)) < 0)
			r = -EIO;
		else if ((size_t)git_blob_rawsize(blob) > cap)
			r = -E2BIG;
		else
			r = strbuf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
		git_blob_free(blob);
		git_tree_entry_free(entry);
		free(path);
		return r;
	} else {
		char *path = xasprintf("%s/%s", s->dir, name);
		char real[PATH_MAX], real_dir[PATH_MAX];
		struct stat st;
		int r;

		/* A file reached through a symlink that leaves the queue is not read. */
		if (lstat(path, &st) < 0) {
			r = -errno;
		} else if (!realpath(path, real) || !realpath(s->dir, real_dir)) {
			r = -errno;
		} else if (strncmp(real, real_dir, strlen(real_dir)) != 0 ||
			   real[strlen(real_dir)] != '/') {
			r = -ELOOP;
		} else if (stat(real, &st) < 0) {
			r = -errno;
		} else if (!S_ISREG(st.st_mode)) {
			r = -EISDIR;
		} else if ((size_t)st.st_size > cap) {
			r = -E2BIG;
		} else {
			out->cap = cap;
			r = strbuf_read_file(out, real);
		}
		free(path);
		return r;
	}
}

static bool is_url(const char *s)
{
	return strstr(s, "://") != NULL;
}

/* The last component of @dir, trailing slashes aside (caller frees). */
static char *last_component(const char *dir)
{
	char *copy = xstrdup(dir), *base, *name;

	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = '\0';
	base = strrchr(copy, '/');
	name = xstrdup(base && base[1] ? base + 1 : copy);
	free(copy);
	return name;
}

char *queue_folder(const struct queue_request *req)
{
	const char *series_dir = req->series_dir ? req->series_dir : req->default_series_dir;
	git_repository *repo = NULL;
	char *direct;
	bool plain;

	if (is_url(req->source))
		return xstrdup(series_dir);
	git_libgit2_init();
	plain = git_repository_open_ext(&repo, req->source, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0;
	git_repository_free(repo);
	git_libgit2_shutdown();
	direct = xasprintf("%s/series", req->source);
	plain = plain && !req->series_dir && access(direct, R_OK) == 0;
	free(direct);
	return plain ? last_component(req->source) : xstrdup(series_dir);
}

char *queue_source_key(const char *source)
{
	char *real;

	if (is_url(source))
		return xstrdup(source);
	real = realpath(source, NULL);
	return real ? real : xstrdup(source);
}

/* Where a fetched @url lives in the cache (caller frees). */
static char *fetch_path(const char *url, const char *cache)
{
	char hash[SHA256_HEX_LEN + 1];

	sha256_hex(url, strlen(url), hash);
	hash[16] = '\0';
	return xasprintf("%s/queues/%s.git", cache, hash);
}

/* Clone (bare) or fetch @url into the cache; the repository is returned. */
static int fetch(const char *url, const char *cache, git_repository **ret, struct strbuf *err)
{
	char *path = fetch_path(url, cache);
	git_remote *remote = NULL;
	int r = 0;

	if (git_repository_open_bare(ret, path) == 0) {
		git_fetch_options opts;

		git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
		opts.prune = GIT_FETCH_PRUNE;
		if (git_remote_lookup(&remote, *ret, "origin") < 0 ||
		    git_remote_fetch(remote, NULL, &opts, NULL) < 0) {
			git_error_add(err, url);
			r = -EIO;
		}
	} else {
		git_clone_options opts;
		char *tmp = xasprintf("%s.tmp", path);
		char *parent = xasprintf("%s/queues", cache);
		const char *rm[] = { "rm", "-rf", tmp, NULL };
		struct child c = { .argv = rm, .timeout_sec = 60 };
		struct child_result res;

		git_clone_options_init(&opts, GIT_CLONE_OPTIONS_VERSION);

		mkdir(cache, 0755);
		mkdir(parent, 0755);
		opts.bare = 1;
		/* What a clone killed half-way left behind. */
		if (access(tmp, F_OK) == 0)
			child_run(&c, &res);
		/* A clone that dies half-way must not be mistaken for a clone. */
		if (git_clone(ret, url, tmp, &opts) < 0) {
			git_error_add(err, url);
			r = -EIO;
		} else {
			git_repository_free(*ret);
			*ret = NULL;
			if (rename(tmp, path) < 0 || git_repository_open_bare(ret, path) < 0) {
				strbuf_addf(err, "%s: cannot keep the clone in %s", url, path);
				r = -EIO;
			}
		}
		free(tmp);
		free(parent);
	}
	git_remote_free(remote);
	free(path);
	return r;
}

struct fetch_child {
	const char *url, *cache;
};

/* The fetch child's body: its message, if it fails, on stdout. */
static int fetch_in_child(void *arg)
{
	const struct fetch_child *f = arg;
	struct strbuf why = STRBUF_INIT;
	git_repository *repo = NULL;
	int r = fetch(f->url, f->cache, &repo, &why);

	if (r < 0 && write(STDOUT_FILENO, why.buf, why.len) < 0)
		return 2;
	return r < 0 ? 1 : 0;
}

/*
 * The lock of @url's clone in @cache (a file next to it), taken within
 * @timeout seconds: the daemon's workers may fetch one repository for
 * two queues at once, and git's own ref locks would fail the second.
 * The open descriptor, closed to release it, or -errno with @err.
 */
static int lock_clone(const char *url, const char *cache, int timeout, struct strbuf *err)
{
	char *repo = fetch_path(url, cache), *path = xasprintf("%s.lock", repo);
	char *parent = xasprintf("%s/queues", cache);
	int fd, waited_ms = 0;

	mkdir(cache, 0755);
	mkdir(parent, 0755);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fd = -errno;
		strbuf_addf(err, "%s: cannot open %s: %s", url, path, strerror(errno));
		goto out;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			strbuf_addf(err, "%s: cannot lock %s: %s", url, path, strerror(errno));
			close(fd);
			fd = -EIO;
			goto out;
		}
		if (waited_ms >= timeout * 1000) {
			strbuf_addf(err, "%s: another fetch of it held %s for %d s", url, path, timeout);
			close(fd);
			fd = -ETIMEDOUT;
			goto out;
		}
		usleep(100 * 1000);
		waited_ms += 100;
	}
out:
	free(repo);
	free(path);
	free(parent);
	return fd;
}

/*
 * fetch() in a child process stopped at the deadline: libgit2 1.5 has no
 * network timeout, and a server that accepts and never answers would
 * hold the job, and every queue behind it, forever. BG_FETCH_TIMEOUT
 * (seconds) overrides the default.
 */
static int fetch_bounded(const char *url, const char *cache, git_repository **ret,
			 struct strbuf *err)
{
	const char *env = getenv("BG_FETCH_TIMEOUT");
	int timeout = env && atoi(env) > 0 ? atoi(env) : FETCH_TIMEOUT_SEC;
	const char *argv[] = { "fetch", NULL };
	struct fetch_child f = { .url = url, .cache = cache };
	struct strbuf why = STRBUF_INIT;
	struct child c = { .argv = argv, .fn = fetch_in_child, .fn_arg = &f, .capture = &why,
			   .timeout_sec = timeout };
	struct child_result res;
	char *path;
	int lock_fd, r = 0;

	/* Queues on one repository share its clone: one fetch into it at a time. */
	lock_fd = lock_clone(url, cache, timeout, err);
	if (lock_fd < 0)
		return lock_fd;
	strbuf_init(&why, 4096);
	r = child_run(&c, &res);
	if (r < 0) {
		strbuf_addf(err, "%s: cannot fetch: %s", url, strerror(-r));
	} else if (res.timed_out) {
		strbuf_addf(err, "%s: fetch timed out after %d s (the server did not answer)", url,
			    timeout);
		r = -ETIMEDOUT;
	} else if (!child_ok(&res)) {
		strbuf_addf(err, "%s", why.len ? why.buf : "fetch failed");
		r = -EIO;
	}
	strbuf_release(&why);
	if (r == 0) {
		path = fetch_path(url, cache);
		if (git_repository_open_bare(ret, path) < 0) {
			git_error_add(err, path);
			r = -EIO;
		}
		free(path);
	}
	close(lock_fd);
	return r;
}

static int resolve_tree(git_repository *repo, const char *ref, bool fetched, struct source *s,
			char commit_hex[41], struct strbuf *err)
{
	git_object *obj = NULL;
	git_commit *commit = NULL;
	char *spec;
	int r = 0;

	if (!ref)
		spec = xstrdup("HEAD");
	else
		spec = xstrdup(ref);
	if (git_revparse_single(&obj, repo, spec) < 0 && fetched) {
		/* a branch of the remote, as fetched */
		char *remote_spec = xasprintf("refs/remotes/origin/%s", spec);

		if (git_revparse_single(&obj, repo, remote_spec) < 0)
			obj = NULL;
		free(remote_spec);
	}
	if (!obj || git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT) < 0 ||
	    git_commit_tree(&s->tree, commit) < 0) {
		strbuf_addf(err, "queue: ref '%s' does not name a commit", spec);
		r = -ENOENT;
	} else {
		git_oid_tostr(commit_hex, 41, git_commit_id(commit));
	}
	git_commit_free(commit);
	git_object_free(obj);
	free(spec);
	return r;
}

static const char *read_error_reason(int r)
{
	switch (r) {
	case -ENOENT: return "is named in the series but not in the queue";
	case -ELOOP: return "is a symlink that leaves the queue";
	case -EISDIR: return "is not a regular file";
	case -E2BIG: return "is larger than the 16 MiB a patch may be";
	default: return "cannot be read";
	}
}

/* One patch out of a series file: the file itself, or one message of an mbox. */
struct piece {
	char *name;			/* owned; NULL: the entry's own name */
	char hash[SHA256_HEX_LEN + 1];	/* of the raw bytes */
	char *text;			/* owned, NUL-terminated: what is parsed */
	size_t len;
	char *error;			/* owned: why the mail could not be decoded */
};

/*
 * Cut the bytes of series entry @name into pieces (@raw is consumed): an
 * mbox of several messages gives one piece per patch, "<name>#<n>" from 1,
 * hashed over that message's raw bytes; a MIME or transfer-encoded mail
 * gives its decoded text (hashed over the raw file); anything else, or a
 * mail that does not decode (with the reason in ->error), the raw bytes.
 */
static size_t cut_pieces(const char *name, struct strbuf *raw, struct piece **ret)
{
	struct strbuf why = STRBUF_INIT;
	struct piece *v = NULL;
	size_t n = 1;

	if (mail_is_mbox(raw->buf, raw->len)) {
		struct mailbox box;

		if (mailbox_parse(raw->buf, raw->len, &box, &why) == 0 && box.n) {
			n = box.n;
			v = xcalloc(n, sizeof(*v));
			for (size_t i = 0; i < n; i++) {
				struct mail *m = &box.mails[i];

				v[i].name = xasprintf("%s#%zu", name, i + 1);
				sha256_hex(raw->buf + m->raw_offset, m->raw_len, v[i].hash);
				v[i].text = m->text;
				v[i].len = m->len;
				m->text = NULL;
			}
		} else if (!why.len) {
			strbuf_addf(&why, "mail: the mbox holds no patch (%zu cover letter(s))",
				    box.n_cover_letters);
		}
		mailbox_release(&box);
	} else if (mail_needs_decoding(raw->buf, raw->len)) {
		struct mail m;

		if (mail_parse(raw->buf, raw->len, &m, &why) == 0) {
			v = xcalloc(1, sizeof(*v));
			sha256_hex(raw->buf, raw->len, v->hash);
			v->text = m.text;
			v->len = m.len;
			m.text = NULL;
		}
		mail_release(&m);
	}
	if (!v) {
		v = xcalloc(1, sizeof(*v));
		sha256_hex(raw->buf, raw->len, v->hash);
		v->text = strbuf_detach(raw, &v->len);
		v->error = why.len ? strbuf_detach(&why, NULL) : NULL;
	}
	strbuf_release(raw);
	strbuf_release(&why);
	*ret = v;
	return n;
}

/* A new, empty entry at the end of @snap for series entry @e. */
static struct queue_patch *add_patch(struct queue_snapshot *snap, const struct series_entry *e,
				     const char *name)
{
	size_t n = snap->n;
	struct queue_patch *p;

	/* Room for 1, 2, 4, 8, ...: the array is full when n is 0 or a power of two. */
	if ((n & (n - 1)) == 0) {
		p = xrealloc(snap->patches, (n ? n * 2 : 1) * sizeof(*snap->patches));
		snap->patches = p;
	}
	p = &snap->patches[snap->n++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name ? name : e->name);
	p->series_line = e->line;
	return p;
}

/* Append the entries series entry @e gives: one, or one per patch of an mbox. */
static void load_patch(struct source *s, const char *origin, const struct series_entry *e,
		       struct queue_snapshot *snap)
{
	struct strbuf content = STRBUF_INIT, err = STRBUF_INIT;
	struct queue_patch *p = add_patch(snap, e, NULL);
	struct piece *pieces;
	size_t n_pieces;
	int r;

	if (e->error) {
		p->error = xstrdup(e->error);
		return;
	}
	r = source_read(s, e->name, QUEUE_MAX_PATCH_BYTES, &content);
	if (r < 0) {
		p->error = xasprintf("%s:%u: %s %s", origin, e->line, e->name, read_error_reason(r));
		strbuf_release(&content);
		return;
	}
	n_pieces = cut_pieces(e->name, &content, &pieces);
	for (size_t i = 0; i < n_pieces; i++) {
		struct piece *piece = &pieces[i];

		/* the entry added above takes the first piece */
		p = i ? add_patch(snap, e, piece->name) : &snap->patches[snap->n - 1];
		if (!i && piece->name) {
			free(p->name);
			p->name = xstrdup(piece->name);
		}
		memcpy(p->hash, piece->hash, sizeof(p->hash));
		p->len = piece->len;
		p->content = piece->text;
		patch_header_parse(p->content, p->len, &p->header);
		r = patch_parse_strip(p->content, p->len, e->strip, &p->parsed, &err);
		if (piece->error)
			p->error = xasprintf("%s: %s", p->name, piece->error);
		else if (r < 0)
			p->error = xasprintf("%s: %s", p->name, err.buf);
		strbuf_reset(&err);
		free(piece->name);
		free(piece->error);
	}
	free(pieces);
	strbuf_release(&err);
}

int queue_load(const struct queue_request *req, struct queue_snapshot *ret, struct strbuf *err)
{
	struct source s = { 0 };
	struct strbuf series_text = STRBUF_INIT;
	struct series series = { 0 };
	const char *series_dir = req->series_dir ? req->series_dir : req->default_series_dir;
	char *origin = NULL;
	struct hash_ctx *h;
	struct stat st;
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	git_libgit2_init();
	ret->source = queue_source_key(req->source);
	if (is_url(req->source)) {
		r = fetch_bounded(req->source, req->cache, &s.repo, err);
		if (r < 0)
			goto out;
		r = resolve_tree(s.repo, req->ref, true, &s, ret->commit, err);
	} else if (stat(req->source, &st) < 0) {
		strbuf_addf(err, "queue: %s: %s", req->source, strerror(errno));
		r = -errno;
		goto out;
	} else if (git_repository_open_ext(&s.repo, req->source, GIT_REPOSITORY_OPEN_NO_SEARCH,
					   NULL) == 0) {
		r = resolve_tree(s.repo, req->ref, false, &s, ret->commit, err);
	} else {
		if (req->ref) {
			strbuf_addf(err, "queue: %s is a plain directory: --ref needs a git repository",
				    req->source);
			r = -EINVAL;
			goto out;
		}
		s.repo = NULL;
	}
	if (r < 0)
		goto out;
	if (s.repo) {
		ret->ref = xstrdup(req->ref ? req->ref : "HEAD");
		s.prefix = xstrdup(series_dir);
		ret->queue = xstrdup(series_dir);
	} else {
		char *direct = xasprintf("%s/series", req->source);

		if (req->series_dir || access(direct, R_OK) < 0) {
			s.dir = xasprintf("%s/%s", req->source, series_dir);
			ret->queue = xstrdup(series_dir);
		} else {
			s.dir = xstrdup(req->source);
			ret->queue = last_component(req->source);
		}
		free(direct);
	}
	origin = xasprintf("%s/series", ret->queue);
	r = source_read(&s, "series", QUEUE_MAX_SERIES_BYTES, &series_text);
	if (r < 0) {
		strbuf_addf(err, "queue: no series file: %s %s in %s", origin,
			    r == -ENOENT ? "does not exist" : read_error_reason(r), req->source);
		goto out;
	}
	r = series_parse(series_text.buf, series_text.len, origin, &series, err);
	if (r < 0)
		goto out;
	/* An mbox entry becomes several patches: ret->patches grows as they come. */
	for (size_t i = 0; i < series.n_entries; i++)
		load_patch(&s, origin, &series.entries[i], ret);
	h = hash_begin();
	hash_feed(h, series_text.buf, series_text.len);
	for (size_t i = 0; i < ret->n; i++) {
		hash_feed(h, ret->patches[i].name, strlen(ret->patches[i].name) + 1);
		hash_feed(h, ret->patches[i].hash, strlen(ret->patches[i].hash) + 1);
	}
	hash_finish(h, ret->content_hash);
out:
	series_release(&series);
	strbuf_release(&series_text);
	git_tree_free(s.tree);
	git_repository_free(s.repo);
	free(s.dir);
	free(s.prefix);
	free(origin);
	return r;
}

void queue_snapshot_release(struct queue_snapshot *snapshot)
{
	for (size_t i = 0; i < snapshot->n; i++) {
		struct queue_patch *p = &snapshot->patches[i];

		free(p->name);
		free(p->content);
		free(p->error);
		if (p->content)
			patch_header_release(&p->header);
		if (p->content)
			patch_release(&p->parsed);
	}
	free(snapshot->patches);
	free(snapshot->queue);
	free(snapshot->source);
	free(snapshot->ref);
	memset(snapshot, 0, sizeof(*snapshot));
}
