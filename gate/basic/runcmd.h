/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runcmd: the one way the gate starts a child (make, QEMU, tar). The child
 * is described in a struct, runs in its own process group, is bounded by
 * a timeout (SIGTERM to the group, then SIGKILL five seconds later), and
 * an exec failure comes back through a CLOEXEC pipe. No zombie is left.
 */
#ifndef GATE_RUNCMD_H
#define GATE_RUNCMD_H

#include <stdbool.h>

#include "basic/strbuf.h"

struct child {
	const char *const *argv;	/* argv[0] is looked up in PATH */
	const char *const *env;		/* extra "NAME=value" entries, or NULL */
	const char *cwd;		/* NULL: inherit */
	/*
	 * Where stdout and stderr go, together: a file (created or
	 * truncated), or @capture (kept up to its cap; the rest is read
	 * and dropped), or /dev/null when both are NULL.
	 */
	const char *output_path;
	struct strbuf *capture;
	/* End the child (as a timeout does) once @capture refuses more. */
	bool stop_when_full;
	int timeout_sec;		/* required, > 0 */
};

struct child_result {
	int exit_code;		/* valid when neither signal nor timed_out */
	int signal;		/* signal that ended it, 0 if it exited */
	bool timed_out;
	bool capture_full;	/* stopped by stop_when_full */
	int exec_errno;		/* non-zero: the program could not be started */
};

/*
 * Run @c to completion. Returns 0 when the child ran (look at @ret for how
 * it ended) or a negative errno when it could not be started.
 */
int child_run(const struct child *c, struct child_result *ret);

/* true when @r is a clean exit with status 0 */
bool child_ok(const struct child_result *r);

/* One line for a message: "exited with 2", "killed by signal 9", "timed out after 30 s" */
void child_describe(const struct child *c, const struct child_result *r, struct strbuf *out);

#endif
