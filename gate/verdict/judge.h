/* SPDX-License-Identifier: GPL-2.0 */
/*
 * judge: decides which patches of a queue to drop, and proves it.
 *
 * It knows nothing of kernels: an oracle evaluates "base plus these
 * patches, in this order" (apply, build, boot, run the suite) and the
 * judge compares with base, bisects to every culprit, re-runs the
 * regression that convicts a culprit on a fresh boot before blaming
 * anyone (bisection steps are not re-run), pins quirk changes, flags
 * Stable-dep-of dependants, and confirms the verdict by evaluating the
 * whole set minus the drops (the oracle may answer that from the build
 * of the exercised patches alone, when it shows the others are not read).
 *
 * Algorithm: S = exercised patches minus drops. While S is bad (build or
 * boot fails, or a contract case that passes on base fails), binary-search
 * the shortest bad prefix of S; its last patch is a culprit, dropped with
 * the reason of that prefix. The oracle is never asked about a prefix of
 * S as it stands: it gets every kept patch up to the prefix's last one,
 * not-exercised ones included, so each patch applies on top of every
 * earlier kept patch, as git am and quilt apply a series. A patch that
 * then does not apply needs a patch dropped before it: it is dropped with
 * reason dependency, naming the drops. Each culprit costs about log2(|S|)
 * evaluations; prefixes seen before are the oracle's cache hits. When S
 * was evaluated and regressed cases its culprit does not account for, the
 * next S is taken as bad without evaluating it (evaluated last, if its
 * search needs it).
 *
 * Where a range is split: in the middle, unless the oracle's cost says
 * the middle is a header-wide build (at least JUDGE_STEP_OBJECTS objects)
 * and a split in the middle half is not one (a range whose middle falls
 * between changes to widely included headers, while trees past the last
 * of them are a few objects from the whole set's build). A split at
 * fraction f of the range may add 1 - H(f) steps on average; each is
 * priced at JUDGE_STEP_OBJECTS objects. Other savings are not taken: the
 * objects a step skips are mostly compiled by a later step anyway, while
 * the steps an off-centre split adds are not, and the cost of a tree
 * several headers away is overstated (an object reading two of them is
 * counted twice). The search still
 * ends on a clean prefix followed by a bad one, and when a prefix is bad
 * exactly when it
 * holds the culprit (one culprit per search, as the naive gate assumes),
 * that is the same culprit wherever the range was split.
 *
 * With W workers (judge_oracle.workers), what the search may ask next is
 * prefetched, W sequences at a time: base with the first S; each S with
 * the first midpoints of its search; at each bisection step the next
 * levels of the binary search's decision tree, breadth first (with
 * W = 3 one round settles two levels: a 4-ary search); and a culprit's
 * second boot with the next S (S minus the culprit) and its midpoints.
 * The oracle evaluates those it has no answer for at once. The search
 * itself, and so its result, is the one-worker search.
 */
#ifndef GATE_JUDGE_H
#define GATE_JUDGE_H

#define JUDGE_STEP_OBJECTS 100	/* one more bisection step, as objects to compile */

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "parse/ktap.h"

/* One patch as the judge sees it. */
struct judge_patch {
	const char *name;
	const char *upstream;		/* "" when none */
	const char (*stable_deps)[41];	/* Stable-dep-of shas */
	size_t n_stable_deps;
	bool exercised;			/* touches something the test kernel compiles */
	bool unusable;			/* refused before judging (bad name, does not apply) */
};

/* What the oracle found for one sequence of patches. */
struct judge_eval {
	bool apply_failed;		/* a patch did not apply in this sequence */
	size_t apply_failed_at;		/* its index in the queue */
	struct strbuf apply_message;
	bool build_failed;
	struct strbuf build_error;	/* the first compiler error */
	bool boot_failed;
	enum boot_status boot_status;
	struct strbuf boot_evidence;	/* panic line, console tail */
	struct ktap_run ktap;		/* when it booted */
};

struct judge_oracle {
	/*
	 * Evaluate base + patches[subset[0]], ..., patches[subset[n-1]].
	 * With @fresh, boot again even when a result for that tree is known.
	 * The result stays owned by the oracle and valid until the judge
	 * returns. 0, or -errno (infrastructure: no verdict) with @err.
	 */
	int (*evaluate)(void *ctx, const size_t *subset, size_t n, bool fresh,
			const struct judge_eval **ret, struct strbuf *err);
	/*
	 * Optional, with @workers > 1: the judge is about to ask for
	 * @subsets[0] and may then ask for the others (most likely first;
	 * @fresh[i]: the second boot of a sequence, as evaluate() with
	 * @fresh). The oracle may evaluate several of them at once, so that
	 * later evaluate() calls find their answers; what the judge then
	 * asks, and so every verdict, is the same as without it. 0, or
	 * -errno (infrastructure: no verdict) with @err.
	 */
	int (*prefetch)(void *ctx, const size_t *const *subsets, const size_t *ns,
			const bool *fresh, size_t k, struct strbuf *err);
	/*
	 * Optional: about what evaluating base + @subset would cost, in
	 * objects to compile (0 when its answer is known or built). The
	 * judge asks it only to choose where to split a bisection range.
	 * 0 with *ret_objects, 1 when the oracle cannot tell, -errno with
	 * @err (the judge then splits in the middle).
	 */
	int (*cost)(void *ctx, const size_t *subset, size_t n, unsigned *ret_objects,
		    struct strbuf *err);
	void *ctx;
	unsigned workers;		/* evaluations the oracle can run at once */
};

enum patch_status { PATCH_OK, PATCH_DROP, PATCH_NOT_EXERCISED };
enum drop_reason {
	REASON_NONE, REASON_APPLY, REASON_BUILD, REASON_BOOT, REASON_REGRESSION,
	REASON_DEPENDENCY,
};

struct patch_verdict {
	enum patch_status status;
	enum drop_reason reason;
	struct strlist regressions;	/* contract cases this patch broke */
	struct strlist changes;	/* quirk cases whose behaviour it changed */
	struct strbuf evidence;		/* for a person: what was seen, base vs candidate */
	struct strbuf steps;		/* the evaluations that pinned it */
};

struct judge_options {
	bool drop_on_quirk;		/* a quirk change is a reason to drop */
};

struct judge_result {
	struct patch_verdict *verdicts;	/* one per patch, queue order */
	size_t n;
	struct strlist base_failing;	/* cases failing on base: never blamed */
	struct strlist flaky;		/* regressions a fresh boot did not reproduce */
	unsigned evaluations;		/* oracle calls that were not reruns */
	unsigned reruns;
	bool confirmed;			/* the set minus drops came out clean */
};

/*
 * Judge @n patches. Patches already marked unusable keep the reason the
 * caller sets in result->verdicts[i] beforehand (judge_result_init()).
 * Returns 0, or -errno when the oracle could not evaluate (no verdict).
 */
void judge_result_init(struct judge_result *result, size_t n);
int judge_run(const struct judge_patch *patches, size_t n, const struct judge_options *opts,
	      const struct judge_oracle *oracle, struct judge_result *result, struct strbuf *err);
void judge_result_release(struct judge_result *result);

const char *patch_status_name(enum patch_status status);
const char *drop_reason_name(enum drop_reason reason);	/* NULL for REASON_NONE */

#endif
