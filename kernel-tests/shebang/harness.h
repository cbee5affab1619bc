/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suite's harness: a case prepares files and states what an unmodified
 * packaged kernel (linux-source-6.1, linux-source-6.12) does with them (the
 * probe runs with exactly this argv and envp, or execve fails with this
 * errno); the harness executes it in a child, compares, and prints one KTAP
 * result line. Where the right answer changed upstream between those
 * releases, the case asks since_kernel() and the harness says which answer
 * it expects on the running kernel, and why, in a "# version" line.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include "kunit.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The probe interpreter's path inside the guest. */
#define PROBE_PATH "/probe"

#define CASE_MAX_ARGS 16

/*
 * argv_too_long: that many one-byte arguments follow the case's own, and
 * the child lowers RLIMIT_STACK to ARGV_STACK_LIMIT first, so the kernel
 * allows the arguments max(ARGV_STACK_LIMIT / 4, ARG_MAX = 128 KiB) of
 * room: their 40,000 pointers alone take 312 KiB, and execve fails with
 * E2BIG once it counts them.
 */
#define ARGV_FILLER_ARGS 40000
#define ARGV_STACK_LIMIT (256 * 1024)

enum case_kind {
	/* Scripts in the wild depend on it: a change is a regression. */
	CASE_CONTRACT,
	/* 6.1 does it and a fix may change it: a change is reported, not failed. */
	CASE_QUIRK,
};

/* One execution and its expected outcome, filled in by a case's prepare(). */
struct case_run {
	const char *path;		/* execve() path, or NULL to use exec_fd */
	int exec_fd;			/* execveat(exec_fd, "", AT_EMPTY_PATH) */
	const char *argv[CASE_MAX_ARGS];
	const char *envp[CASE_MAX_ARGS];
	bool argv_too_long;		/* see ARGV_FILLER_ARGS */

	int expect_errno;		/* 0: the probe runs */
	const char *expect_argv[CASE_MAX_ARGS];
	/* envp the probe must see; when unset, exactly envp[] above */
	const char *expect_envp[CASE_MAX_ARGS];
	bool expect_envp_set;

	/* set by since_kernel(): what the "# version" line says */
	const char *version_note;
	bool version_unknown;		/* the running release could not be read */

	char strings[4096];		/* storage for run_printf() */
	size_t strings_used;
};

struct shebang_case {
	const char *name;
	enum case_kind kind;
	/*
	 * Create the files the case needs (the working directory is a fresh,
	 * empty directory) and fill in @run. Returns 0 or a negative errno
	 * when the set-up itself failed. @data is the case's own data.
	 */
	int (*prepare)(struct case_run *run, const void *data);
	const void *data;
};

/* Format into @run's storage; the string lives as long as @run. */
const char *run_printf(struct case_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Execute @path with argv = { path, then the NULL-terminated extra args }. */
void run_exec(struct case_run *run, const char *path, ...);

/* Expect the probe to run with exactly the NULL-terminated argv given. */
void expect_argv(struct case_run *run, ...);

/* Expect execve() to fail with @err. */
void expect_errno(struct case_run *run, int err);

/*
 * Whether the running kernel is @major.@minor or later, where upstream
 * changed what the case checks; @change says what changed, in a few words.
 * The harness prints it with the running release and the side the case
 * expects. An unreadable release makes the case an ERROR.
 */
bool since_kernel(struct case_run *run, int major, int minor, const char *change);

/* mkdir -p of every directory above @path. Returns 0 or -errno. */
int make_parents(const char *path);

/* Write @len bytes to @path (created with @mode, parents made). 0 or -errno. */
int write_file(const char *path, const void *data, size_t len, mode_t mode);

/* write_file() of a NUL-terminated string. */
int write_script(const char *path, const char *text, mode_t mode);

/* Make the probe available as @path (hard link, parents made). 0 or -errno. */
int install_probe(const char *path);

struct suite_totals {
	int pass;
	int fail;
	int quirk_changed;
	int error;
};

/*
 * Run @n cases, each in its own fresh directory under @workdir, printing
 * the KTAP stream (header, one line per case, totals) to stdout. The
 * KUnit cases of @kunit (NULL: none) follow, numbered after them.
 */
void suite_run(const struct shebang_case *cases, size_t n, const struct kunit_log *kunit,
	       const char *workdir, struct suite_totals *ret_totals);

#endif
