// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "exec/node.h"
#include "exec/step.h"
#include "source/defaults.h"
#include "source/target.h"
#include "source/tree.h"

/*
 * backport-gate step DIR [--cache DIR] [--ccache DIR]
 * backport-gate step --write DIR --queue SRC [--series D] [--ref REF] [--upto N]
 *                    [--tree PACKAGE|TARBALL] [--cache DIR]
 *
 * The first form does the step a coordinator wrote into DIR
 * (exec/step.h: step.json, series and the patches) on this node:
 * apply, build, boot with the suite, and write DIR/result.json. Exit 0
 * when result.json is written, whatever the tree did. --ccache names the
 * compiler cache its builds use (default <cache>/ccache): one that
 * several nodes share, on a cluster.
 *
 * The second form is a coordinator's side by hand: it writes into DIR
 * the step for base plus the queue's first N patches (all by default),
 * with this node's base, config and suite.
 *
 * Exit 2 with one line on stderr when the step was refused or could not
 * be done or written.
 */
static void usage(FILE *f)
{
	fprintf(f, "usage: backport-gate step DIR [--cache DIR] [--ccache DIR]\n"
		   "       backport-gate step --write DIR --queue SRC [--series D] [--ref REF]\n"
		   "                          [--upto N] [--tree PACKAGE|TARBALL] [--cache DIR]\n");
}

struct write_args {
	const char *dir, *cache, *tree, *upto, *ccache;
	struct queue_request req;
};

static int write_step(struct write_args *a, struct strbuf *err)
{
	struct queue_snapshot snap = { 0 };
	struct target target = { 0 };
	struct kernel_env env;
	struct kernel_tree tree = { 0 };
	char *top = suite_top(), base_hex[GIT_OID_HEXSZ + 1];
	bool env_open = false, tree_ok = false;
	size_t upto = 0, *subset = NULL;
	int r;

	r = target_resolve(&target, a->tree, a->req.series_dir, err);
	if (r == 0)
		r = target_check(&target, err);
	if (r == 0) {
		a->req.default_series_dir = target.series_dir;
		r = queue_load(&a->req, &snap, err);
	}
	if (r == 0) {
		char *end = NULL;

		upto = a->upto ? strtoul(a->upto, &end, 10) : snap.n;
		if (a->upto && (!*a->upto || *end || a->upto[0] == '-' || upto > snap.n)) {
			strbuf_addf(err, "--upto '%s': not a number from 0 to %zu, the series' "
				    "length", a->upto, snap.n);
			r = -EINVAL;
		}
	}
	for (size_t i = 0; r == 0 && i < upto; i++)
		if (snap.patches[i].error) {
			strbuf_addf(err, "patch %s: %s", snap.patches[i].name, snap.patches[i].error);
			r = -EINVAL;
		}
	if (r == 0 && (r = kernel_env_init(&env, top, a->cache, &target, err)) == 0)
		env_open = true;
	if (r == 0 && (r = tree_open(&tree, &env, err)) == 0)
		tree_ok = true;
	if (r == 0 && tree_id_hex(&tree, &tree.base, base_hex) < 0) {
		strbuf_addf(err, "cannot read the base tree of %s", env.src);
		r = -EIO;
	}
	if (r == 0) {
		subset = xcalloc(upto + 1, sizeof(*subset));
		for (size_t i = 0; i < upto; i++)
			subset[i] = i;
		r = step_write(a->dir, &env, a->tree ? a->tree : target.package, base_hex, &snap,
			       subset, upto, NULL, err);
	}
	if (r == 0)
		fprintf(stderr, "# step for base %.12s plus %zu patch%s written to %s\n", base_hex,
			upto, upto == 1 ? "" : "es", a->dir);
	free(subset);
	if (tree_ok)
		tree_close(&tree);
	if (env_open)
		kernel_env_release(&env);
	queue_snapshot_release(&snap);
	target_release(&target);
	free(top);
	return r;
}

int cmd_step(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "ccache", required_argument, NULL, 'C' },
		{ "write", required_argument, NULL, 'w' },
		{ "queue", required_argument, NULL, 'q' },
		{ "series", required_argument, NULL, 's' },
		{ "ref", required_argument, NULL, 'r' },
		{ "upto", required_argument, NULL, 'u' },
		{ "tree", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf err = STRBUF_INIT;
	struct write_args w = { .cache = default_cache() };
	const char *what;
	int c, r, status = EXIT_PASS;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': w.cache = optarg; break;
		case 'C': w.ccache = optarg; break;
		case 'w': w.dir = optarg; break;
		case 'q': w.req.source = optarg; break;
		case 's': w.req.series_dir = optarg; break;
		case 'r': w.req.ref = optarg; break;
		case 'u': w.upto = optarg; break;
		case 't': w.tree = optarg; break;
		case 'h': usage(stdout); return EXIT_PASS;
		default: usage(stderr); return EXIT_NO_VERDICT;
		}
	}
	w.req.cache = w.cache;
	if ((w.dir ? (optind != argc || !w.req.source) :
		     (optind != argc - 1 || w.req.source || w.upto || w.tree)) ||
	    (w.dir && w.ccache)) {
		fprintf(stderr, "backport-gate step: %s\n",
			w.dir && !w.req.source ? "--write needs --queue" :
			!w.dir && optind == argc ? "the step's folder is required" :
			!w.dir && optind == argc - 1 ? "--queue, --upto and --tree go with --write" :
			w.dir && w.ccache ? "--ccache goes with a step to do, not --write" :
			"unexpected argument");
		usage(stderr);
		return EXIT_NO_VERDICT;
	}
	what = w.dir ? w.dir : argv[optind];
	r = w.dir ? write_step(&w, &err) : step_run(what, w.cache, w.ccache, &err);
	if (r < 0) {
		fprintf(stderr, "backport-gate step: %s: %s\n", what, err.buf);
		status = EXIT_NO_VERDICT;
	}
	strbuf_release(&err);
	return status;
}
