// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/clock.h"
#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "exec/evaluate.h"
#include "parse/ktap.h"
#include "source/defaults.h"
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
	struct evaluate_options opts = { .label = "boot", .say = true };
	struct strbuf err = STRBUF_INIT;
	struct queue_snapshot snap = { 0 };
	struct tree_evaluation ev = { 0 };
	struct kernel_env env;
	struct target target = { 0 };
	struct kernel_tree tree = { 0 };
	struct executor x = { 0 };
	const struct exec_eval *out = &ev.outcome;
	char *top = suite_top();
	size_t upto = 0;
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
	if (a->naive && kernel_env_naive(&env, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_tree;
	}
	if (executor_open(&x, &env, &tree, &snap, NULL, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_tree;
	}
	if (evaluate_tree(&x, &snap, upto, &opts, &ev, &err) < 0) {
		say_no_result("%s", err.buf);
		goto out_exec;
	}
	if (ev.apply_failed) {
		say_no_result("patch does not apply: %s: %s", ev.apply_failed,
			      ev.apply_file ? ev.apply_file : ev.apply_why);
		goto out_exec;
	}
	if (out->build.status != BUILD_OK) {
		say_no_result("build error: %s", out->build.first_error.buf);
		goto out_exec;
	}
	if (out->boot.status != BOOT_OK) {
		status = boot_failed(&env, out->boot.status, &out->boot.evidence);
		goto out_exec;
	}
	print_ktap(&out->boot.console);
	status = verdict(&out->boot.console);
out_exec:
	tree_evaluation_release(&ev);
	executor_close(&x);
out_tree:
	tree_close(&tree);
out_env:
	kernel_env_release(&env);
	queue_snapshot_release(&snap);
out_top:
	target_release(&target);
	strbuf_release(&err);
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
