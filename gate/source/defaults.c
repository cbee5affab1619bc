// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <libgen.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/xalloc.h"
#include "source/defaults.h"

const char *default_cache(void)
{
	static char buf[PATH_MAX];
	const char *xdg = getenv("XDG_CACHE_HOME");

	if (getenv("BG_CACHE"))
		return getenv("BG_CACHE");
	if (xdg && xdg[0]) {
		snprintf(buf, sizeof(buf), "%s/backport-gate", xdg);
		return buf;
	}
	return "/var/cache/backport-gate";
}

#ifndef BG_LIBDIR
#define BG_LIBDIR "/usr/local/lib/backport-gate"
#endif

char *suite_top(void)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (getenv("BG_TOP") && getenv("BG_TOP")[0])
		return xstrdup(getenv("BG_TOP"));
	if (getenv("BG_LIBDIR") && getenv("BG_LIBDIR")[0])
		return xstrdup(getenv("BG_LIBDIR"));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return xstrdup(BG_LIBDIR);
	exe[n] = '\0';
	/* <top>/build/backport-gate, <top>/build/asan/backport-gate, ... */
	for (int up = 0; up < 4; up++) {
		char probe[PATH_MAX + 64];

		dirname(exe);
		snprintf(probe, sizeof(probe), "%s/" SUITE_SOURCE_FRAGMENT, exe);
		if (access(probe, R_OK) == 0)
			return xstrdup(exe);
	}
	return xstrdup(BG_LIBDIR);
}

bool suite_top_is_source(const char *top)
{
	char *probe = xasprintf("%s/" SUITE_SOURCE_FRAGMENT, top);
	bool source = access(probe, R_OK) == 0;

	free(probe);
	return source;
}


