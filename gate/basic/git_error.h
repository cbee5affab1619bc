/* SPDX-License-Identifier: GPL-2.0 */
/*
 * git_error: libgit2's last error as a message, the one way the gate
 * words it: "WHAT: libgit2's message", or "WHAT: unknown libgit2 error"
 * when libgit2 left none.
 */
#ifndef GATE_GIT_ERROR_H
#define GATE_GIT_ERROR_H

#include "basic/strbuf.h"

/* libgit2's last error message, or "unknown libgit2 error"; valid until the next libgit2 call. */
const char *git_error_message(void);
/* Append "@what: <libgit2's last error>" to @err. */
void git_error_add(struct strbuf *err, const char *what);

#endif
