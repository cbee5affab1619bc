/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap: reads the shebang suite's KTAP out of a guest's console output.
 *
 * Only the block from "KTAP version 1" to "# Totals:" counts; kernel
 * messages and anything else on the console are ignored. A result is
 * believed only when it matches the plan (numbered 1..N in order), and a
 * last line without its newline (the guest died mid-line) is not read.
 *
 * It also names how a boot ended (enum boot_status), so the judge and the
 * record can speak of boots without knowing the kernel that made them.
 */
#ifndef GATE_KTAP_H
#define GATE_KTAP_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"

#define KTAP_MAX_CASES 1024
#define KTAP_MAX_NAME 200

enum case_status {
	CASE_PASS,
	CASE_FAIL,		/* a contract case did not hold */
	CASE_QUIRK_CHANGED,	/* a quirk case behaves differently */
	CASE_ERROR,		/* the case could not run (set-up, timeout) */
};

struct case_result {
	char *name;		/* owned */
	bool quirk;		/* the suite marks it a quirk */
	enum case_status status;
	char *diagnostic;	/* owned; "" for a pass */
};

struct ktap_run {
	struct case_result *cases;	/* owned, in plan order */
	size_t n_cases;
	size_t planned;
	bool complete;			/* plan seen, every result, totals line */
};

/*
 * Parse @len bytes of console output. Returns 0 (look at ->complete) or a
 * negative errno with a message in @err for output that breaks the rules
 * (results out of order, a plan past KTAP_MAX_CASES).
 */
int ktap_parse(const char *console, size_t len, struct ktap_run *ret, struct strbuf *err);
void ktap_run_release(struct ktap_run *run);

/* The result named @name, or NULL. */
const struct case_result *ktap_find(const struct ktap_run *run, const char *name);

const char *case_status_name(enum case_status status);

/*
 * How a boot of the test kernel ended, as its console shows it. A boot
 * that reached the suite's complete KTAP is BOOT_OK; one whose console
 * holds no complete, well-formed result is BOOT_INCOMPLETE.
 */
enum boot_status {
	BOOT_OK,		/* the suite's KTAP is complete */
	BOOT_PANIC,
	BOOT_TIMEOUT,
	BOOT_INCOMPLETE,	/* the guest ended without a complete result */
};

const char *boot_status_name(enum boot_status status);

/*
 * The part of @console between "# backport-gate begin TOKEN" and
 * "# backport-gate end TOKEN" lines (the markers the suite prints around
 * its KTAP when booted with bgtoken=TOKEN). Returns true and sets
 * @ret_start/@ret_len when both markers with this token are there.
 */
bool ktap_marked_block(const char *console, size_t len, const char *token,
		       const char **ret_start, size_t *ret_len);

#endif
