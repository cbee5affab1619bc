// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "pipeline/target.h"

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

void target_release(struct target *t)
{
	free(t->tarball);
	free(t->version);
	free(t->package);
	free(t->series_dir);
	memset(t, 0, sizeof(*t));
}
