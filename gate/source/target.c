// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/xalloc.h"
#include "source/target.h"

void target_from_tarball(struct target *t, const char *tarball)
{
	const char *base = strrchr(tarball, '/');
	const char *suffix;

	base = base ? base + 1 : tarball;
	if (strncmp(base, "linux-source-", 13) == 0)
		base += 13;
	suffix = strstr(base, ".tar");
	t->tarball = xstrdup(tarball);
	t->version = xstrndup(base, suffix ? (size_t)(suffix - base) : strlen(base));
	t->package = xasprintf("linux-source-%s", t->version);
	t->series_dir = xasprintf("queue-%s", t->version);
}

void target_default(struct target *t)
{
	const char *tarball = getenv("BG_TARBALL");

	target_from_tarball(t, tarball && *tarball ? tarball : TARGET_DEFAULT_TARBALL);
}

int target_resolve(struct target *t, const char *tree, const char *series_dir,
		   struct strbuf *err)
{
	const char *env = getenv("BG_TARBALL");
	char *path;

	memset(t, 0, sizeof(*t));
	if (tree && (strchr(tree, '/') || strstr(tree, ".tar"))) {
		target_from_tarball(t, tree);
		return 0;
	}
	if (tree) {
		if (strncmp(tree, "linux-source-", 13) != 0 || !tree[13] ||
		    strspn(tree + 13, "0123456789.") != strlen(tree + 13)) {
			strbuf_addf(err, "tree '%s': not a kernel source package "
				    "(linux-source-X.Y) nor a tarball's path", tree);
			return -EINVAL;
		}
		path = xasprintf("/usr/src/%s.tar.xz", tree);
		target_from_tarball(t, path);
		free(path);
		return 0;
	}
	if (env && *env) {
		target_from_tarball(t, env);
		return 0;
	}
	if (series_dir && strncmp(series_dir, "queue-", 6) == 0 && series_dir[6] &&
	    strspn(series_dir + 6, "0123456789.") == strlen(series_dir + 6)) {
		path = xasprintf("/usr/src/linux-source-%s.tar.xz", series_dir + 6);
		target_from_tarball(t, path);
		free(path);
		return 0;
	}
	target_from_tarball(t, TARGET_DEFAULT_TARBALL);
	return 0;
}

int target_check(const struct target *t, struct strbuf *err)
{
	if (access(t->tarball, R_OK) == 0)
		return 0;
	strbuf_addf(err, "package missing: %s (no %s; apt-get install %s)", t->package, t->tarball,
		    t->package);
	return -ENOENT;
}

void target_release(struct target *t)
{
	free(t->tarball);
	free(t->version);
	free(t->package);
	free(t->series_dir);
	memset(t, 0, sizeof(*t));
}
