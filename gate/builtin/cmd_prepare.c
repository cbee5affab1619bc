// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin/commands.h"
#include "source/defaults.h"
#include "source/tree.h"
#include "source/workspace.h"

/*
 * backport-gate prepare [--cache DIR]: extract the packaged tree into the
 * cache and import it as the base commit, if that was not done yet. The
 * gate and `boot` do this on their own; this is for a cache made ready
 * ahead of the first run (a machine's provisioning, a CI image).
 */
int cmd_prepare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cache = default_cache();
	struct strbuf err = STRBUF_INIT;
	struct kernel_env env;
	struct kernel_tree tree;
	char *top = suite_top();
	int c, r, status = EXIT_NO_VERDICT;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 'c') {
			fprintf(stderr, "usage: backport-gate prepare [--cache DIR]\n");
			free(top);
			return EXIT_NO_VERDICT;
		}
		cache = optarg;
	}
	r = kernel_env_init(&env, top, cache, NULL, &err);
	if (r == 0) {
		r = tree_open(&tree, &env, &err);
		if (r == 0) {
			tree_close(&tree);
			status = 0;
		}
	}
	if (r < 0)
		fprintf(stderr, "backport-gate prepare: %s\n", err.buf);
	kernel_env_release(&env);
	strbuf_release(&err);
	free(top);
	return status;
}
