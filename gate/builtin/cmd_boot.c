// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/clock.h"
#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "parse/ktap.h"
#include "source/defaults.h"
#include "exec/executor.h"
#include "source/queue.h"

/*
 * backport-gate boot [--patches DIR] [--upto N] [--tree PACKAGE|TARBALL]
 *                    [--cache DIR] [--naive] [--name NAME]
 *
 * One evaluation by hand, with the gate's own steps: base plus the series
 * in DIR (or its first N patches) applied as the gate applies it, built
 * by the local executor and booted with the suite. The suite's KTAP goes
 * to stdout; progress lines ("# ...") to stderr.
 *
 * Exit 0: every case passed (a changed quirk is reported, not failed).
 * Exit 1: at least one case failed.
 * Exit 2: no result; one line on stderr, "NAME: cause", says why.
 *
 * --tree: the packaged tree (target.h: linux-source-6.12, or a tarball's
 * path); the default one otherwise.
 * --naive: the naive strategy (executor.h), for bench/naive-gate.
 * --name: what error lines start with (kernel-tests/run, which wraps this
 * command, passes its own name); "backport-gate boot" by default.
 */

struct boot_args {
	const char *patches, *upto, *cache, *tree;
	bool naive;
};

static const char *prog = "backport-gate boot";

static int say_no_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int say_no_result(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_NO_VERDICT;
}

static int usage(void)
{
	fprintf(stderr, "usage: %s [--patches DIR] [--upto N] [--tree PACKAGE|TARBALL] [--cache DIR] "
		"[--naive]\n", prog);
	return EXIT_NO_VERDICT;
}

/* Apply the series onto base; *ret_commit is the last commit. */
static int apply_series(struct kernel_tree *tree, const struct queue_snapshot *snap, size_t upto,
			git_oid *ret_commit)
{
	struct strbuf err = STRBUF_INIT;
	git_oid commit = tree->base;
	int status = 0;

	for (size_t i = 0; i < upto && !status; i++) {
		const struct queue_patch *p = &snap->patches[i];
		struct apply_outcome outcome = { 0 };
		char *message;
		git_oid next;
		int r;

		if (p->error) {
			status = say_no_result("patches: %s", p->error);
			break;
		}
		strbuf_init(&outcome.message, 0);
		message = xasprintf("%s\n\nboot, patch %zu: %s\n",
				    p->header.subject ? p->header.subject : p->name, i + 1, p->name);
		r = tree_apply(tree, &commit, &p->parsed, message, &next, &outcome, &err);
		free(message);
		if (r < 0)
			status = say_no_result("tree: %s", err.buf);
		else if (outcome.status == APPLY_FAILED)
			status = say_no_result("patch does not apply: %s: %s", p->name,
					       outcome.file ? outcome.file : outcome.message.buf);
		else if (outcome.status == APPLY_ALREADY)
			fprintf(stderr, "# already applied %s\n", p->name);
		else
			fprintf(stderr, "# applied %s\n", p->name);
		if (!status)
			commit = next;
		apply_outcome_release(&outcome);
	}
	strbuf_release(&err);
	*ret_commit = commit;
	return status;
}

/* The suite's KTAP, from its version line to its totals line, on stdout. */
static void print_ktap(const struct strbuf *block)
{
	const char *start = strstr(block->buf, "KTAP version 1");
	const char *end = block->buf + block->len, *totals;

	if (!start)
		return;
	totals = strstr(start, "\n# Totals:");
	if (totals && strchr(totals + 1, '\n'))
		end = strchr(totals + 1, '\n') + 1;
	/* the serial console ends its lines with \r\n */
	for (const char *p = start; p < end; p++)
		if (*p != '\r')
			putchar(*p);
	fflush(stdout);
}

/* What a boot without a result says, the console tail after it. */
static int boot_failed(const struct kernel_env *env, enum boot_status status,
		       const struct strbuf *evidence)
{
	const char *tail = evidence->buf;

	switch (status) {
	case BOOT_PANIC: {
		const char *nl = strchr(evidence->buf, '\n');
		int len = nl ? (int)(nl - evidence->buf) : (int)evidence->len;

		say_no_result("guest panic: %.*s", len, evidence->buf);
		tail = nl ? nl + 1 : "";
		break;
	}
	case BOOT_TIMEOUT:
		say_no_result("guest timeout: no result within %d s (%s)", env->boot_timeout,
			      env->accel);
		break;
	default:
		say_no_result("guest ended without a complete result");
		break;
	}
	fprintf(stderr, "# console tail:\n");
	for (const char *line = tail; *line;) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);

		fprintf(stderr, "#   %.*s\n", len, line);
		line += len + (nl ? 1 : 0);
	}
	return EXIT_NO_VERDICT;
}

static int verdict(const struct strbuf *ktap_block)
{
	struct strbuf err = STRBUF_INIT;
	struct ktap_run run;
	int status = EXIT_PASS;

	if (ktap_parse(ktap_block->buf, ktap_block->len, &run, &err) < 0 || !run.complete) {
		status = say_no_result("incomplete KTAP: plan %zu, %zu results%s%s", run.planned,
				       run.n_cases, err.len ? ": " : "", err.buf);
		goto out;
	}
	for (size_t i = 0; i < run.n_cases; i++)
		if (run.cases[i].status == CASE_FAIL || run.cases[i].status == CASE_ERROR)
			status = EXIT_DROP;
out:
	ktap_run_release(&run);
	strbuf_release(&err);
	return status;
}

static int boot(const struct boot_args *a)
{
	struct queue_request req = { .source = a->patches, .series_dir = ".",
				     .default_series_dir = ".", .cache = a->cache };
	struct strbuf err = STRBUF_INIT, first_error = STRBUF_INIT, console = STRBUF_INIT,
		      evidence = STRBUF_INIT;
	struct queue_snapshot snap = { 0 };
	struct kernel_env env;
	struct target target = { 0 };
	struct kernel_tree tree = { 0 };
	struct executor x = { 0 };
	enum build_status build_status;
	enum boot_status boot_status;
	char *top = suite_top(), tree_hex[GIT_OID_HEXSZ + 1];
	size_t upto = 0;
	git_oid commit, tree_id;
	bool built;
	double start;
	int status = EXIT_NO_VERDICT;

	if (a->upto) {
		char *end;

		upto = strtoul(a->upto, &end, 10);
		if (!*a->upto || *end || a->upto[0] == '-') {
			say_no_result("--upto: '%s' is not a number", a->upto);
			goto out_top;
		}
		if (!a->patches) {
			say_no_result("--upto needs --patches");
			goto out_top;
		}
	}
	if (target_resolve(&target, a->tree, NULL, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_top;
	}
	if (kernel_env_init(&env, top, a->cache, &target, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_env;
	}
	if (a->patches) {
		if (queue_load(&req, &snap, &err) < 0) {
			say_no_result("patches: %s", err.buf);
			goto out_env;
		}
		if (!a->upto)
			upto = snap.n;
		else if (upto > snap.n) {
			say_no_result("--upto %zu: the series has only %zu patches", upto, snap.n);
			goto out_env;
		}
	}
	if (tree_open(&tree, &env, &err) < 0) {
		say_no_result("tree: %s", err.buf);
		goto out_env;
	}
	status = apply_series(&tree, &snap, upto, &commit);
	if (status)
		goto out_tree;
	status = EXIT_NO_VERDICT;
	if (tree_id_hex(&tree, &commit, tree_hex) < 0 || git_oid_fromstr(&tree_id, tree_hex) < 0) {
		say_no_result("tree: cannot read the tree of the last commit");
		goto out_tree;
	}
	if (a->naive && kernel_env_naive(&env, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_tree;
	}
	if (executor_open(&x, &env, &tree, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_tree;
	}
	start = now_seconds();
	if (executor_build(&x, &commit, &tree_id, &built, &build_status, &first_error, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_exec;
	}
	if (build_status != BUILD_OK) {
		say_no_result("build error: %s", first_error.buf);
		goto out_exec;
	}
	if (built)
		fprintf(stderr, "# built in %.0f s\n", now_seconds() - start);
	else
		fprintf(stderr, "# tree %.12s is already built in %s\n", tree_hex, env.build);
	start = now_seconds();
	if (executor_boot(&x, &console, &boot_status, &evidence, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_exec;
	}
	fprintf(stderr, "# booted with %s: %.0f ms to verdict\n", env.accel, (now_seconds() - start) * 1000);
	if (boot_status != BOOT_OK) {
		status = boot_failed(&env, boot_status, &evidence);
		goto out_exec;
	}
	print_ktap(&console);
	status = verdict(&console);
out_exec:
	executor_close(&x);
out_tree:
	tree_close(&tree);
out_env:
	kernel_env_release(&env);
	queue_snapshot_release(&snap);
out_top:
	target_release(&target);
	strbuf_release(&err);
	strbuf_release(&first_error);
	strbuf_release(&console);
	strbuf_release(&evidence);
	free(top);
	return status;
}

int cmd_boot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "patches", required_argument, NULL, 'p' },
		{ "upto", required_argument, NULL, 'u' },
		{ "cache", required_argument, NULL, 'c' },
		{ "tree", required_argument, NULL, 't' },
		{ "naive", no_argument, NULL, 'n' },
		{ "name", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct boot_args a = { .cache = default_cache() };
	int c;

	/* the name first, so that every line says it */
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--name"))
			prog = argv[i + 1];
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': a.patches = optarg; break;
		case 'u': a.upto = optarg; break;
		case 'c': a.cache = optarg; break;
		case 't': a.tree = optarg; break;
		case 'n': a.naive = true; break;
		case 'N': break;
		default: return usage();
		}
	}
	if (optind != argc) {
		say_no_result("unknown argument '%s'", argv[optind]);
		return usage();
	}
	return boot(&a);
}
