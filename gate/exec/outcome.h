/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outcome: what applying, building and booting one tree gave, whoever did it (the
 * executor's backends, exec/executor.h; a node's step, exec/step.h).
 * Plain data: the init functions make them empty, the release functions
 * free what they hold.
 */
#ifndef GATE_OUTCOME_H
#define GATE_OUTCOME_H

#include <stdbool.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "kernel/boot.h"
#include "kernel/build.h"
#include "source/apply.h"

/* How one patch applied (never APPLY_FAILED: a patch that did not apply is named apart). */
struct applied_patch {
	const char *name;		/* the series' name, owned by the snapshot */
	enum apply_status status;
	int offset;
};

/* What a build did. */
struct exec_build {
	bool built;			/* false: a build of the tree existed (nothing compiled) */
	enum build_status status;
	struct strbuf first_error;	/* the compiler's first error, when it failed */
	double seconds;
};

/* What a boot saw. */
struct exec_boot {
	enum boot_status status;
	struct strbuf console;		/* the suite's KTAP when BOOT_OK */
	struct strbuf evidence;		/* panic line, console tail */
	char accel[8];			/* how the guest ran: "kvm", "tcg" */
	double seconds;
};

/* A tree's whole evaluation: its build, and its boot when it built. */
struct exec_eval {
	struct exec_build build;
	struct strlist inputs;		/* when it built: what the build read */
	bool booted;			/* false: no boot (the build failed) */
	struct exec_boot boot;
};

void exec_build_init(struct exec_build *b);
void exec_build_release(struct exec_build *b);
void exec_boot_init(struct exec_boot *b);
void exec_boot_release(struct exec_boot *b);
void exec_eval_init(struct exec_eval *e);
void exec_eval_release(struct exec_eval *e);

#endif
