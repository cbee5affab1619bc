/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runcmd: the one way the gate starts a child (make, QEMU, tar, rm, the
 * fetch child, the daemon's worker), after git's run-command.h.
 *
 * Describe the child in a struct child, child_start() it, then either
 * child_finish() it (wait until it ends or its deadline passes) or
 * child_wait() on it with a bound of your own (0: just look), as often as
 * you like; child_kill() stops it at once. Start and finish are separate
 * calls, so several children can run at once; child_run() is start plus
 * finish.
 *
 * Every child runs in its own process group, and the whole group dies
 * with the gate, kill -9 included: a program runs under a guardian (the
 * forked child, c->pid, the group's leader) that kills the group when
 * PR_SET_PDEATHSIG says the gate died, so make's sub-makes and compilers
 * go too; the guardian exits as the program did. Its deadline is timeout_sec after the start: once
 * a wait sees it pass, the group gets SIGTERM and, 5 s later, SIGKILL.
 * An exec failure comes back through a CLOEXEC pipe, with its errno. A
 * child that ended is always reaped by the call that saw it end, so no
 * zombie is left once each started child was finished, killed, or waited
 * on until child_wait() said it ended.
 */
#ifndef GATE_RUNCMD_H
#define GATE_RUNCMD_H

#include <stdbool.h>
#include <sys/types.h>

#include "basic/strbuf.h"

struct child_result {
	int exit_code;		/* valid when neither signal nor timed_out */
	int signal;		/* signal that ended it, 0 if it exited */
	bool timed_out;		/* its deadline passed; it was stopped */
	bool capture_full;	/* stopped by stop_when_full */
	bool killed;		/* stopped by child_kill() */
	int exec_errno;		/* non-zero: the program could not be started */
};

struct child {
	/* ---- the description, set by the caller ---- */
	const char *const *argv;	/* argv[0] is looked up in our PATH, not @env's */
	const char *const *env;		/* extra "NAME=value" entries, or NULL */
	const char *cwd;		/* NULL: inherit */
	/*
	 * Instead of exec'ing argv: run @fn(@fn_arg) in the forked child and
	 * exit with what it returns (0 to 125). For work that must be
	 * bounded by a kill (libgit2 has no network timeout); never from a
	 * process with threads. argv[0] still names the child in messages.
	 */
	int (*fn)(void *fn_arg);
	void *fn_arg;
	/*
	 * Where stdout and stderr go, together: the caller's own
	 * (@keep_output), a file (created or truncated), or @capture (kept
	 * up to its cap; the rest is read and dropped), else /dev/null.
	 * @capture is filled only while the caller waits on the child: its
	 * pipe holds 64 KiB, then the child blocks on writing.
	 */
	bool keep_output;
	const char *output_path;
	struct strbuf *capture;
	/* End the child (as a timeout does) once @capture refuses more. */
	bool stop_when_full;
	/* Its deadline from the start: > 0 for child_run() and child_finish();
	 * 0 means none, for a child that is only ever waited on with a bound. */
	int timeout_sec;

	/* ---- set by runcmd ---- */
	pid_t pid;			/* also its process group; 0 once reaped */
	int capture_fd;			/* read end of the capture pipe, or -1 */
	long deadline_ms;		/* CLOCK_MONOTONIC ms, 0: none */
	struct child_result result;
};

/*
 * Start @c. Returns 0 when the program runs (c->pid is set), or a
 * negative errno when it could not be started: a pipe, the output file or
 * fork failed, or exec failed (then c->result.exec_errno holds exec's
 * errno and the child is already reaped). Nothing is left to finish after
 * a failed start.
 */
int child_start(struct child *c);

/*
 * Wait at most @wait_ms (0: do not block; < 0: no bound of its own) for @c
 * to end, reading its capture meanwhile. When its deadline passes or the
 * capture is full (with stop_when_full) it is stopped: SIGTERM to its
 * group, SIGKILL 5 s later. Returns 1 when it has ended (it is reaped and
 * @ret says how; the rest of its group is killed), 0 when it still runs.
 * A wait with @wait_ms < 0 on a child without a deadline blocks until it
 * ends.
 */
int child_wait(struct child *c, int wait_ms, struct child_result *ret);

/* Wait until @c ends or its deadline passes (then stop it); @ret says how. */
void child_finish(struct child *c, struct child_result *ret);

/* Stop @c now (SIGTERM to its group, SIGKILL 5 s later) and reap it. */
void child_kill(struct child *c, struct child_result *ret);

/*
 * Run @c to completion: child_start() then child_finish(). Returns 0 when
 * the child was started or exec failed (look at @ret for how it ended),
 * or a negative errno when it could not be started at all.
 */
int child_run(struct child *c, struct child_result *ret);

/*
 * child_run() that calls @tick(@tick_arg) every @tick_ms while @c runs,
 * and once after it ended: for a caller that reports on a long child
 * (progress.h). The same deadline, results and return value.
 */
int child_run_ticking(struct child *c, int tick_ms, void (*tick)(void *tick_arg), void *tick_arg,
		      struct child_result *ret);

/* true when @r is a clean exit with status 0 */
bool child_ok(const struct child_result *r);

/* One line for a message: "exited with 2", "killed by signal 9", "timed out after 30 s" */
void child_describe(const struct child *c, const struct child_result *r, struct strbuf *out);

#endif
