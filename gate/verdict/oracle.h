/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oracle: what the judge asks ("base plus these patches: does it apply,
 * build, boot, and what does the suite say?"), answered for one run of
 * one queue snapshot, with every memo that keeps the answers cheap:
 *
 *  - an apply memo: patch i on top of commit C is applied once per run;
 *    a sequence is base plus its patches in order, so whether a patch
 *    applies, and where, is what `git am` would see on that sequence;
 *  - an evaluation memo per git tree, and the record (a build or boot
 *    recorded for the same tree, config and suite is not redone);
 *  - the same-kernel shortcut: a sequence ending in not-exercised
 *    patches that touch none of the files the build without them read
 *    makes the same kernel, and gets that answer without a build (the
 *    sequence without them is a prefix, so no apply result changes);
 *  - what each build read (its .cmd files), recorded per tree;
 *  - with a compile check (compile_check.h), each tree is compiled under
 *    the distribution configs once per run, before its test kernel: a
 *    tree that does not compile there is answered as a build failure
 *    whose error names the config. The same-kernel shortcut then looks
 *    only at what the test kernel reads (@kernel_reads).
 *
 * Builds and boots go through the executor's operations (exec/executor.h),
 * whichever backend it is; every result goes into the record
 * (record/db.h). With an executor that takes several trees at once
 * (workers > 1), the judge's prefetch (judge.h) has the trees it will
 * ask for next evaluated together; they go into the evaluation memo,
 * behind the compile check as any answer.
 */
#ifndef GATE_ORACLE_H
#define GATE_ORACLE_H

#include <sqlite3.h>
#include <stdbool.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "exec/executor.h"
#include "kernel/compile_check.h"
#include "source/queue.h"
#include "source/tree.h"
#include "source/workspace.h"
#include "verdict/judge.h"

/* What applying patch @index on top of @parent gave; cached per run. */
struct apply_memo {
	git_oid parent;
	size_t index;
	bool failed;
	git_oid commit;
	char *message;
	char *file;		/* the file that did not apply; NULL when none is named */
};

/* The inputs of a built tree, once read from the build or the record. */
struct inputs_memo {
	char tree[GIT_OID_HEXSZ + 1];
	struct strlist set;	/* sorted tree-relative paths: what the build read */
};

/* A sequence the judge asked about, for the record (KCIDB's checkouts). */
struct seq_memo {
	size_t *patches;	/* 0-based series indexes, ascending */
	size_t n;
	char commit[GIT_OID_HEXSZ + 1];	/* "" when a patch did not apply */
	char tree[GIT_OID_HEXSZ + 1];
	long apply_failed;		/* index that did not apply, or -1 */
	char judged_at[32];		/* ISO 8601 UTC */
};

/* A compile check of a tree: @failed is the judge's answer when it did not compile. */
struct cc_memo {
	char tree[GIT_OID_HEXSZ + 1];
	struct judge_eval *failed;	/* NULL: it compiled */
};

/* An evaluated tree, kept for the judge (it holds pointers to these). */
struct eval_memo {
	char tree[GIT_OID_HEXSZ + 1];
	struct judge_eval *eval;
};

/*
 * One run's oracle. The memos are its own; a caller reads the counters
 * and sets @jp, nothing else.
 */
struct oracle {
	struct kernel_env *env;
	struct kernel_tree *tree;
	sqlite3 *db;
	const struct queue_snapshot *snap;
	struct apply_memo *applies;
	size_t n_applies;
	struct eval_memo *evals;
	size_t n_evals;
	struct judge_eval **all_evals;	/* every eval made, freed at the end */
	size_t n_all;
	struct inputs_memo **inputs;	/* each allocated once: pointers to them are handed out */
	size_t n_inputs;
	const struct judge_patch *jp;	/* the caller sets it once impact is known */
	/*
	 * With @cc: per patch, whether it touches what the test kernel reads
	 * (jp's exercised also counts what the compile check compiles).
	 */
	const bool *kernel_reads;
	struct compile_check *cc;	/* NULL: no compile check */
	struct cc_memo *cc_memos;
	size_t n_cc_memos;
	struct executor *exec;		/* where trees are built and booted: the caller's */
	unsigned builds, boots;
	/*
	 * Waits for builds and boots: each local evaluation is one, and so
	 * is each batch of steps run at once (oracle_judge()'s prefetch).
	 */
	unsigned rounds;
	unsigned same_kernel;		/* sequences answered by an equal kernel */
	struct seq_memo *seqs;		/* every sequence judged, in the order first asked */
	size_t n_seqs;
};


/*
 * Ready to answer for @snap, building and booting through @exec (open,
 * and the caller's to close after oracle_close()): its env and tree are
 * the oracle's. 0, or -errno with a message in @err.
 */
int oracle_open(struct oracle *o, struct executor *exec, sqlite3 *db,
		const struct queue_snapshot *snap, struct strbuf *err);
void oracle_close(struct oracle *o);

/*
 * Apply patch @index on top of commit @parent, once per run: *ret is the
 * memo (->failed, ->message, ->file; ->commit when it applied). The first
 * time, @outcome_out (unless NULL) gets the applier's outcome, which the
 * caller then releases. 0, or -errno (repository trouble, @err).
 */
int oracle_apply(struct oracle *o, const git_oid *parent, size_t index,
		 struct apply_memo **ret, struct apply_outcome *outcome_out, struct strbuf *err);

/*
 * Evaluate base, and set *ret_used to the files its build read (sorted;
 * the oracle owns them), building base once more when the record has
 * its result but not its inputs. 0, or -errno with a message in @err.
 */
int oracle_base(struct oracle *o, const struct strlist **ret_used, struct strbuf *err);

/* true when no file @p touches is read by a build that read @inputs. */
bool oracle_reads_none(const struct queue_patch *p, const struct strlist *inputs);

/* The judge's view of @o (judge.h): evaluate a sequence. */
struct judge_oracle oracle_judge(struct oracle *o);

/* Evaluate base plus @subset (ascending), as the judge would ask it. */
int oracle_evaluate(struct oracle *o, const size_t *subset, size_t n,
		    const struct judge_eval **ret, struct strbuf *err);

/*
 * Base plus every patch @result keeps, in series order: the commit and
 * tree a maintainer can build. The judge confirmed exactly this sequence,
 * so its applies are memo hits. 0, or -errno with a message in @err.
 */
int oracle_kept_sequence(struct oracle *o, const struct judge_result *result,
			 char commit_hex[GIT_OID_HEXSZ + 1], char tree_hex[GIT_OID_HEXSZ + 1],
			 struct strbuf *err);

#endif
