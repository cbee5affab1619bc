// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/xalloc.h"
#include "verdict/judge.h"

const char *patch_status_name(enum patch_status status)
{
	switch (status) {
	case PATCH_OK: return "ok";
	case PATCH_DROP: return "drop";
	case PATCH_NOT_EXERCISED: return "not-exercised";
	}
	return "unknown";
}

const char *drop_reason_name(enum drop_reason reason)
{
	switch (reason) {
	case REASON_NONE: return NULL;
	case REASON_APPLY: return "apply";
	case REASON_BUILD: return "build";
	case REASON_BOOT: return "boot";
	case REASON_REGRESSION: return "regression";
	case REASON_DEPENDENCY: return "dependency";
	}
	return NULL;
}

void judge_result_init(struct judge_result *result, size_t n)
{
	memset(result, 0, sizeof(*result));
	result->verdicts = xcalloc(n ? n : 1, sizeof(*result->verdicts));
	result->n = n;
	for (size_t i = 0; i < n; i++) {
		strbuf_init(&result->verdicts[i].evidence, 0);
		strbuf_init(&result->verdicts[i].steps, 0);
	}
}

void judge_result_release(struct judge_result *result)
{
	for (size_t i = 0; i < result->n; i++) {
		strlist_release(&result->verdicts[i].regressions);
		strlist_release(&result->verdicts[i].changes);
		strbuf_release(&result->verdicts[i].evidence);
		strbuf_release(&result->verdicts[i].steps);
	}
	free(result->verdicts);
	strlist_release(&result->base_failing);
	strlist_release(&result->flaky);
	memset(result, 0, sizeof(*result));
}

/* A sha as written in a trailer names @full when it is a prefix of it. */
static bool sha_names(const char *sha, const char *full)
{
	size_t n = strlen(sha);

	return n >= 12 && n <= strlen(full) && strncasecmp(sha, full, n) == 0;
}

/* A regression already re-checked on a fresh boot: the verdict is kept. */
struct rerun_memo {
	const struct judge_eval *eval;
	struct badness_memo {
		enum drop_reason reason;
		const struct judge_eval *eval;
		struct strlist cases;
	} outcome;
};

struct judge {
	struct rerun_memo *reruns;
	size_t n_reruns;
	const struct judge_patch *patches;
	size_t n;
	const struct judge_options *opts;
	const struct judge_oracle *oracle;
	struct judge_result *result;
	struct strbuf *err;
	const struct judge_eval *base;
	size_t *seq;			/* scratch: the sequence realise() makes */
};

/* Why a sequence is bad; REASON_NONE when it is not. */
struct badness {
	enum drop_reason reason;
	size_t apply_culprit;
	struct strlist cases;
	const struct judge_eval *eval;
};

static bool case_counts(const struct judge *j, const struct case_result *base_case,
			const struct case_result *cand)
{
	if (base_case->status != CASE_PASS)
		return false;	/* failing on base: reported, never blamed */
	if (strlist_has(&j->result->flaky, base_case->name))
		return false;
	if (!cand)
		return true;	/* the case vanished from the output */
	if (cand->status == CASE_FAIL || cand->status == CASE_ERROR)
		return true;
	return cand->status == CASE_QUIRK_CHANGED && j->opts->drop_on_quirk;
}

static void regressed_cases(const struct judge *j, const struct judge_eval *e,
			    struct strlist *out)
{
	for (size_t i = 0; i < j->base->ktap.n_cases; i++) {
		const struct case_result *b = &j->base->ktap.cases[i];

		if (case_counts(j, b, ktap_find(&e->ktap, b->name)))
			strlist_add_unique(out, b->name);
	}
}

static bool is_dropped(const struct judge *j, size_t i)
{
	return j->patches[i].unusable || j->result->verdicts[i].status == PATCH_DROP;
}

/*
 * The sequence the oracle is asked about for @subset (ascending): every
 * kept patch up to its last one, so a search over the exercised patches
 * alone still applies each patch on top of every earlier kept patch, as
 * git am and quilt would. Not-exercised patches cost no build when the
 * oracle sees that the kernel does not read them. Returns its length.
 */
static size_t realise(const struct judge *j, const size_t *subset, size_t n, size_t *ret_seq)
{
	size_t m = 0, k = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i <= subset[n - 1]; i++) {
		if (k < n && subset[k] == i) {
			ret_seq[m++] = i;
			k++;
		} else if (!is_dropped(j, i) && !j->patches[i].exercised) {
			ret_seq[m++] = i;
		}
	}
	return m;
}

static int judge_ask(struct judge *j, const size_t *subset, size_t n, bool fresh,
		     const struct judge_eval **ret)
{
	size_t m = realise(j, subset, n, j->seq);

	return j->oracle->evaluate(j->oracle->ctx, j->seq, m, fresh, ret, j->err);
}

/* What evaluating the first @len patches of @set costs; false when the oracle cannot tell. */
static bool prefix_cost(const struct judge *j, const size_t *set, size_t len, size_t *scratch,
			unsigned *ret)
{
	struct strbuf err = STRBUF_INIT;
	size_t m = realise(j, set, len, scratch);
	int r = j->oracle->cost(j->oracle->ctx, scratch, m, ret, &err);

	if (r < 0)
		fprintf(stderr, "# judge: no cost for a split, splitting in the middle: %s\n",
			err.buf);
	strbuf_release(&err);
	return r == 0;
}

/* 1 - H(f): the steps a split at fraction @f of a range may add, on average. */
static double split_loss(size_t below, size_t len)
{
	double f = (double)below / (double)len;

	return 1.0 + f * log2(f) + (1.0 - f) * log2(1.0 - f);
}

/*
 * Where to split the bisection of @set between a clean prefix of @lo
 * patches and a bad one of @hi (hi - lo > 1): the prefix length to
 * evaluate next. See judge.h.
 */
static size_t split_point(const struct judge *j, const size_t *set, size_t lo, size_t hi)
{
	size_t len = hi - lo, mid = lo + len / 2, best = mid, from, to, *scratch;
	unsigned mid_cost, cost, best_cost;
	double best_score;

	if (!j->oracle->cost || len < 4)
		return mid;
	scratch = xcalloc(j->n, sizeof(*scratch));
	if (!prefix_cost(j, set, mid, scratch, &mid_cost) || mid_cost < JUDGE_STEP_OBJECTS)
		goto out;
	best_cost = mid_cost;
	best_score = (double)mid_cost + JUDGE_STEP_OBJECTS * split_loss(mid - lo, len);
	from = lo + (len + 3) / 4;
	to = hi - (len + 3) / 4;
	for (size_t m = from; m <= to; m++) {
		double score;

		if (m == mid)
			continue;
		if (!prefix_cost(j, set, m, scratch, &cost)) {
			best = mid;
			goto out;
		}
		if (cost >= JUDGE_STEP_OBJECTS)
			continue;	/* one header-wide build for another: no saving to count on */
		score = (double)cost + JUDGE_STEP_OBJECTS * split_loss(m - lo, len);
		if (score < best_score ||
		    (score == best_score && labs((long)m - (long)mid) < labs((long)best - (long)mid))) {
			best = m;
			best_cost = cost;
			best_score = score;
		}
	}
	if (best != mid)
		fprintf(stderr, "# judge: splitting %zu patches after %zu, not %zu: about %u objects "
			"to build, not %u\n", len, best - lo, mid - lo, best_cost, mid_cost);
out:
	free(scratch);
	return best;
}

/*
 * What the judge may ask next, for the oracle's prefetch: realised
 * sequences (as judge_ask() would realise them), most likely first.
 */
#define PREFETCH_MAX 64
struct prefetch {
	size_t *seqs[PREFETCH_MAX];
	size_t ns[PREFETCH_MAX];
	bool fresh[PREFETCH_MAX];
	size_t k, max;
};

static bool prefetch_start(const struct judge *j, struct prefetch *p)
{
	memset(p, 0, sizeof(*p));
	p->max = j->oracle->workers < PREFETCH_MAX ? j->oracle->workers : PREFETCH_MAX;
	return j->oracle->prefetch && p->max > 1;
}

/* The first @len patches of @set; @fresh: a second boot of it. */
static void prefetch_add(const struct judge *j, struct prefetch *p, const size_t *set,
			 size_t len, bool fresh)
{
	if (p->k == p->max)
		return;
	p->seqs[p->k] = xcalloc(j->n ? j->n : 1, sizeof(**p->seqs));
	p->ns[p->k] = realise(j, set, len, p->seqs[p->k]);
	p->fresh[p->k++] = fresh;
}

/*
 * The bisection of @set between a clean prefix of @lo and a bad one of
 * @hi patches: the midpoints it may ask for, breadth first through its
 * decision tree, while there are workers left.
 */
static void prefetch_bisection(const struct judge *j, struct prefetch *p, const size_t *set,
			       size_t lo, size_t hi)
{
	struct { size_t lo, hi; } queue[2 * PREFETCH_MAX + 2];
	size_t head = 0, tail = 0;

	queue[tail].lo = lo;
	queue[tail++].hi = hi;
	while (head < tail && p->k < p->max) {
		size_t a = queue[head].lo, b = queue[head++].hi, mid;

		if (b - a <= 1)
			continue;
		mid = split_point(j, set, a, b);
		prefetch_add(j, p, set, mid, false);
		queue[tail].lo = a;
		queue[tail++].hi = mid;
		queue[tail].lo = mid;
		queue[tail++].hi = b;
	}
}

static int prefetch_finish(struct judge *j, struct prefetch *p)
{
	int r = 0;

	if (p->k)
		r = j->oracle->prefetch(j->oracle->ctx, (const size_t *const *)p->seqs, p->ns,
					p->fresh, p->k, j->err);
	for (size_t i = 0; i < p->k; i++)
		free(p->seqs[i]);
	return r;
}

static void describe_seq(const struct judge *j, const size_t *subset, size_t n, struct strbuf *out)
{
	size_t m = realise(j, subset, n, j->seq);

	if (m == 0)
		strbuf_addf(out, "base");
	else
		strbuf_addf(out, "base + %zu patch%s up to %s", m, m == 1 ? "" : "es",
			    j->patches[j->seq[m - 1]].name);
}

static void remember_rerun(struct judge *j, const struct judge_eval *e, const struct badness *b)
{
	struct rerun_memo *m;

	j->reruns = xrealloc(j->reruns, (j->n_reruns + 1) * sizeof(*j->reruns));
	m = &j->reruns[j->n_reruns++];
	memset(m, 0, sizeof(*m));
	m->eval = e;
	m->outcome.reason = b->reason;
	m->outcome.eval = b->eval;
	for (size_t i = 0; i < b->cases.n; i++)
		strlist_add_unique(&m->outcome.cases, b->cases.items[i]);
}

/*
 * Evaluate a sequence and say why it is bad. A regression counts only
 * after a fresh boot shows it again; with @recheck false (a bisection
 * step or a whole set about to be searched) it is taken as seen, unless
 * it was already re-checked. Only the sequence that convicts a culprit
 * needs the second boot: the search ends on a clean prefix and a bad
 * one, and if the bad one does not reproduce, its cases are flaky and
 * the set is searched again without them.
 */
static int classify(struct judge *j, const size_t *subset, size_t n, bool recheck,
		    struct badness *ret)
{
	const struct judge_eval *e, *again;
	struct strlist confirmed = { 0 };
	int r;

	memset(ret, 0, sizeof(*ret));
	r = judge_ask(j, subset, n, false, &e);
	if (r < 0)
		return r;
	j->result->evaluations++;
	ret->eval = e;
	if (e->apply_failed) {
		ret->reason = REASON_APPLY;
		ret->apply_culprit = e->apply_failed_at;
		return 0;
	}
	if (e->build_failed) {
		ret->reason = REASON_BUILD;
		return 0;
	}
	if (e->boot_failed) {
		ret->reason = REASON_BOOT;
		return 0;
	}
	regressed_cases(j, e, &ret->cases);
	if (!ret->cases.n)
		return 0;
	for (size_t i = 0; i < j->n_reruns; i++) {
		const struct badness_memo *m = &j->reruns[i].outcome;

		if (j->reruns[i].eval != e)
			continue;
		strlist_release(&ret->cases);
		ret->reason = m->reason;
		ret->eval = m->eval;
		for (size_t k = 0; k < m->cases.n; k++)
			if (!strlist_has(&j->result->flaky, m->cases.items[k]))
				strlist_add_unique(&ret->cases, m->cases.items[k]);
		if (ret->reason == REASON_REGRESSION && !ret->cases.n)
			ret->reason = REASON_NONE;
		return 0;
	}
	if (!recheck) {
		ret->reason = REASON_REGRESSION;
		return 0;
	}
	r = judge_ask(j, subset, n, true, &again);
	if (r < 0) {
		strlist_release(&ret->cases);
		return r;
	}
	j->result->reruns++;
	if (again->build_failed || again->boot_failed) {
		ret->reason = again->build_failed ? REASON_BUILD : REASON_BOOT;
		ret->eval = again;
		strlist_release(&ret->cases);
		remember_rerun(j, e, ret);
		return 0;
	}
	for (size_t i = 0; i < ret->cases.n; i++) {
		const struct case_result *b = ktap_find(&j->base->ktap, ret->cases.items[i]);

		if (case_counts(j, b, ktap_find(&again->ktap, b->name)))
			strlist_add_unique(&confirmed, b->name);
		else
			strlist_add_unique(&j->result->flaky, b->name);
	}
	strlist_release(&ret->cases);
	ret->cases = confirmed;
	if (ret->cases.n)
		ret->reason = REASON_REGRESSION;
	remember_rerun(j, e, ret);
	return 0;
}

static void step_line(struct judge *j, struct strbuf *steps, const size_t *subset, size_t n,
		      const struct badness *b)
{
	describe_seq(j, subset, n, steps);
	if (b->reason == REASON_NONE)
		strbuf_addf(steps, ": clean\n");
	else if (b->reason == REASON_REGRESSION) {
		strbuf_addf(steps, ": regression in");
		for (size_t i = 0; i < b->cases.n; i++)
			strbuf_addf(steps, " %s", b->cases.items[i]);
		strbuf_addch(steps, '\n');
	} else {
		strbuf_addf(steps, ": %s failure\n", drop_reason_name(b->reason));
	}
}

/* Base outcome vs candidate outcome, one line per case. */
static void case_evidence(struct judge *j, const struct judge_eval *e,
			  const struct strlist *cases, struct strbuf *out)
{
	for (size_t i = 0; i < cases->n; i++) {
		const struct case_result *b = ktap_find(&j->base->ktap, cases->items[i]);
		const struct case_result *c = ktap_find(&e->ktap, cases->items[i]);

		strbuf_addf(out, "%s: base %s; with the patch %s", cases->items[i],
			    b ? case_status_name(b->status) : "missing",
			    c ? case_status_name(c->status) : "missing");
		if (c && c->diagnostic[0])
			strbuf_addf(out, ": %s", c->diagnostic);
		strbuf_addch(out, '\n');
	}
}

static void drop(struct judge *j, size_t index, enum drop_reason reason)
{
	j->result->verdicts[index].status = PATCH_DROP;
	j->result->verdicts[index].reason = reason;
}

/* Flag every patch whose Stable-dep-of names a dropped patch. */
static void flag_dependants(struct judge *j)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t d = 0; d < j->n; d++) {
			if (!is_dropped(j, d) || !j->patches[d].upstream[0])
				continue;
			for (size_t p = 0; p < j->n; p++) {
				if (is_dropped(j, p))
					continue;
				for (size_t k = 0; k < j->patches[p].n_stable_deps; k++) {
					if (!sha_names(j->patches[p].stable_deps[k], j->patches[d].upstream))
						continue;
					drop(j, p, REASON_DEPENDENCY);
					strbuf_addf(&j->result->verdicts[p].evidence,
						    "Stable-dep-of: %s names %s (upstream %s), which is dropped\n",
						    j->patches[p].stable_deps[k], j->patches[d].name,
						    j->patches[d].upstream);
					changed = true;
					break;
				}
			}
		}
	}
}

static size_t current_set(const struct judge *j, bool everything, size_t *set)
{
	size_t n = 0;

	for (size_t i = 0; i < j->n; i++)
		if (!is_dropped(j, i) && (everything || j->patches[i].exercised))
			set[n++] = i;
	return n;
}

/*
 * Drop the patch that did not apply in @b's sequence. It applied on top
 * of every earlier patch of the queue (those that did not are unusable,
 * never in a sequence), so what it needs is a patch dropped since: it is
 * dropped as a dependency of the drops in front of it, named here; the
 * oracle's message says where it stopped applying. (An oracle whose
 * patch does not apply with nothing dropped gets a plain apply drop.)
 */
static void drop_unapplied(struct judge *j, const struct badness *b)
{
	size_t culprit = b->apply_culprit, n_drops = 0;
	struct strbuf drops = STRBUF_INIT;

	for (size_t i = 0; i < culprit; i++) {
		if (j->patches[i].unusable || j->result->verdicts[i].status != PATCH_DROP)
			continue;
		strbuf_addf(&drops, "%s%s", n_drops ? ", " : "", j->patches[i].name);
		n_drops++;
	}
	if (n_drops) {
		drop(j, culprit, REASON_DEPENDENCY);
		strbuf_addf(&j->result->verdicts[culprit].evidence,
			    "applies on top of the whole queue, not once %s %s dropped: ", drops.buf,
			    n_drops > 1 ? "are" : "is");
	} else {
		drop(j, culprit, REASON_APPLY);
	}
	strbuf_addf(&j->result->verdicts[culprit].evidence, "%s\n", b->eval->apply_message.buf);
	strbuf_release(&drops);
}

/*
 * Find and drop one culprit in the bad sequence @set[0..n), whose prefix
 * of @clean_len patches is known to be clean. @whole says why the whole
 * sequence is bad; its eval is NULL when it was not evaluated but taken
 * as bad (see drop_until_clean()): the search then ends by evaluating it
 * if no shorter prefix is bad. *ret_clean_len: the clean
 * prefix in front of the culprit (0 when none was pinned).
 */
static int pin_culprit(struct judge *j, const size_t *set, size_t n, size_t clean_len,
		       struct badness *whole, size_t *ret_clean_len)
{
	struct strbuf steps = STRBUF_INIT;
	struct badness mid_b, culprit_b;
	struct prefetch ahead;
	size_t lo = clean_len < n ? clean_len : 0, hi = n, culprit;
	int r;

	*ret_clean_len = 0;

	if (whole->reason == REASON_APPLY) {
		drop_unapplied(j, whole);
		return 0;
	}
	if (whole->eval) {
		step_line(j, &steps, set, n, whole);
	} else {
		describe_seq(j, set, n, &steps);
		strbuf_addf(&steps, ": not built, taken as bad (still unexplained:");
		for (size_t i = 0; i < whole->cases.n; i++)
			strbuf_addf(&steps, " %s", whole->cases.items[i]);
		strbuf_addf(&steps, ")\n");
	}
	while (hi - lo > 1) {
		size_t mid = split_point(j, set, lo, hi);

		if (prefetch_start(j, &ahead)) {
			prefetch_bisection(j, &ahead, set, lo, hi);
			r = prefetch_finish(j, &ahead);
			if (r < 0)
				goto out;
		}
		r = classify(j, set, mid, false, &mid_b);
		if (r < 0)
			goto out;
		step_line(j, &steps, set, mid, &mid_b);
		if (mid_b.reason == REASON_APPLY) {
			/* a patch that needs a dropped one to apply */
			r = pin_culprit(j, set, mid, lo, &mid_b, ret_clean_len);
			strlist_release(&mid_b.cases);
			goto out;
		}
		if (mid_b.reason != REASON_NONE)
			hi = mid;
		else
			lo = mid;
		strlist_release(&mid_b.cases);
	}
	culprit = set[hi - 1];
	if (prefetch_start(j, &ahead)) {
		/*
		 * The conviction's second boot, with the next round's likely
		 * start: the set without the culprit and its first midpoints
		 * after the clean prefix in front of it.
		 */
		size_t *next = xcalloc(n, sizeof(*next)), m = 0;

		for (size_t i = 0; i < n; i++)
			if (i != hi - 1)
				next[m++] = set[i];
		prefetch_add(j, &ahead, set, hi, true);
		if (m) {
			prefetch_add(j, &ahead, next, m, false);
			prefetch_bisection(j, &ahead, next, hi - 1 < m ? hi - 1 : 0, m);
		}
		r = prefetch_finish(j, &ahead);
		free(next);
		if (r < 0)
			goto out;
	}
	r = classify(j, set, hi, true, &culprit_b);
	if (r < 0)
		goto out;
	if (culprit_b.reason == REASON_APPLY) {
		/* a whole set taken as bad, where a patch needs a dropped one */
		drop_unapplied(j, &culprit_b);
		goto out;
	}
	if (culprit_b.reason == REASON_NONE) {
		/* bad as a whole, clean at every prefix: only flaky cases were involved,
		 * or the whole was only taken as bad and is clean */
		strlist_release(&culprit_b.cases);
		goto out;
	}
	drop(j, culprit, culprit_b.reason);
	*ret_clean_len = hi - 1;
	{
		struct patch_verdict *v = &j->result->verdicts[culprit];

		switch (culprit_b.reason) {
		case REASON_BUILD:
			strbuf_addf(&v->evidence, "%s\n", culprit_b.eval->build_error.buf);
			break;
		case REASON_BOOT:
			strbuf_addf(&v->evidence, "boot %s\n%s",
				    boot_status_name(culprit_b.eval->boot_status),
				    culprit_b.eval->boot_evidence.buf);
			break;
		case REASON_REGRESSION:
			for (size_t i = 0; i < culprit_b.cases.n; i++)
				strlist_add_unique(&v->regressions, culprit_b.cases.items[i]);
			case_evidence(j, culprit_b.eval, &culprit_b.cases, &v->evidence);
			break;
		default:
			break;
		}
		strbuf_addf(&v->steps, "%s", steps.buf);
		if (hi > 1) {
			strbuf_addf(&v->steps, "clean without it: ");
			describe_seq(j, set, hi - 1, &v->steps);
			strbuf_addch(&v->steps, '\n');
		}
	}
	strlist_release(&culprit_b.cases);
out:
	strbuf_release(&steps);
	return r;
}

/*
 * Drop culprits until the set is clean. Each search starts after the
 * clean prefix the last one found in front of its culprit, while that
 * prefix is still the front of the set (nothing in it was dropped since).
 *
 * A round whose whole set was built and regressed cases, and whose one
 * drop (no dependants) was convicted of only some of them, leaves the
 * others unexplained: the next whole set, the same minus that culprit, is
 * taken as bad for those cases without building it. Its search evaluates
 * it at the end if every shorter prefix is clean, so a wrong guess (the
 * culprit was needed for the others to fail) costs that search. The
 * guess is made only from a set that was built: two culprits together
 * often fail a case neither fails alone, and a guess carried over from a
 * guess would then search a clean set (it did on the bench's n128x3
 * queue). A queue of two or more culprits saves one build and boot.
 */
static int drop_until_clean(struct judge *j, bool everything, size_t *set, bool *ret_clean)
{
	size_t clean_len = 0, clean_before = 0;
	struct strlist unexplained = { 0 };
	int r = 0;

	for (size_t round = 0; round <= j->n + 1; round++) {
		size_t before = 0, after = 0, n = current_set(j, everything, set), lead = 0;
		struct badness whole;

		while (lead < n && set[lead] < clean_before)
			lead++;
		if (lead != clean_len)
			clean_len = 0;
		if (unexplained.n) {
			memset(&whole, 0, sizeof(whole));
			whole.reason = REASON_REGRESSION;
			whole.cases = unexplained;
			memset(&unexplained, 0, sizeof(unexplained));
		} else {
			struct prefetch ahead;

			if (prefetch_start(j, &ahead)) {
				/* the set, and where its search starts if it is bad */
				prefetch_add(j, &ahead, set, n, false);
				prefetch_bisection(j, &ahead, set, clean_len < n ? clean_len : 0, n);
				r = prefetch_finish(j, &ahead);
				if (r < 0)
					goto out;
			}
			r = classify(j, set, n, false, &whole);
			if (r < 0)
				goto out;
		}
		if (whole.reason == REASON_NONE) {
			*ret_clean = true;
			goto out;
		}
		for (size_t i = 0; i < j->n; i++)
			before += is_dropped(j, i);
		r = pin_culprit(j, set, n, clean_len, &whole, &clean_len);
		if (r < 0) {
			strlist_release(&whole.cases);
			goto out;
		}
		/* the clean prefix ends in front of the culprit: set[clean_len] */
		clean_before = clean_len ? set[clean_len] : 0;
		flag_dependants(j);
		for (size_t i = 0; i < j->n; i++)
			after += is_dropped(j, i);
		if (after == before + 1 && whole.eval && whole.reason == REASON_REGRESSION &&
		    j->result->verdicts[set[clean_len]].status == PATCH_DROP &&
		    j->result->verdicts[set[clean_len]].reason == REASON_REGRESSION) {
			const struct strlist *convicted = &j->result->verdicts[set[clean_len]].regressions;

			for (size_t i = 0; i < whole.cases.n; i++)
				if (!strlist_has(convicted, whole.cases.items[i]) &&
				    !strlist_has(&j->result->flaky, whole.cases.items[i]))
					strlist_add_unique(&unexplained, whole.cases.items[i]);
		}
		strlist_release(&whole.cases);
		/* after == before: every candidate was clean on its own (flaky), nothing to blame */
	}
	*ret_clean = false;
out:
	strlist_release(&unexplained);
	return r;
}

/* Pin each quirk case the clean set changes to the patch that changes it. */
static int pin_changes(struct judge *j, const size_t *set, size_t n)
{
	const struct judge_eval *e;
	int r = judge_ask(j, set, n, false, &e);

	if (r < 0)
		return r;
	for (size_t i = 0; i < j->base->ktap.n_cases; i++) {
		const struct case_result *b = &j->base->ktap.cases[i], *c;
		size_t lo = 0, hi = n;

		c = ktap_find(&e->ktap, b->name);
		if (b->status != CASE_PASS || !c || c->status != CASE_QUIRK_CHANGED)
			continue;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			const struct judge_eval *m;
			const struct case_result *mc;

			r = judge_ask(j, set, mid, false, &m);
			if (r < 0)
				return r;
			j->result->evaluations++;
			mc = ktap_find(&m->ktap, b->name);
			if (mc && mc->status == CASE_QUIRK_CHANGED)
				hi = mid;
			else
				lo = mid;
		}
		{
			struct patch_verdict *v = &j->result->verdicts[set[hi - 1]];
			struct strlist one = { 0 };

			strlist_add_unique(&v->changes, b->name);
			strlist_add_unique(&one, b->name);
			strbuf_addf(&v->evidence, "behaviour change (quirk): ");
			case_evidence(j, e, &one, &v->evidence);
			strlist_release(&one);
		}
	}
	return 0;
}

int judge_run(const struct judge_patch *patches, size_t n, const struct judge_options *opts,
	      const struct judge_oracle *oracle, struct judge_result *result, struct strbuf *err)
{
	struct judge j = {
		.patches = patches, .n = n, .opts = opts, .oracle = oracle,
		.result = result, .err = err,
	};
	size_t *set = xcalloc(n, sizeof(*set)), m;
	struct prefetch ahead;
	bool clean = false;
	int r;

	j.seq = xcalloc(n, sizeof(*j.seq));
	for (size_t i = 0; i < n; i++)
		if (!patches[i].unusable && !patches[i].exercised)
			result->verdicts[i].status = PATCH_NOT_EXERCISED;
	if (prefetch_start(&j, &ahead)) {
		/* base, the whole set of suspects, and where its search starts */
		m = current_set(&j, false, set);
		prefetch_add(&j, &ahead, set, 0, false);
		prefetch_add(&j, &ahead, set, m, false);
		prefetch_bisection(&j, &ahead, set, 0, m);
		r = prefetch_finish(&j, &ahead);
		if (r < 0)
			goto out;
	}
	r = oracle->evaluate(oracle->ctx, NULL, 0, false, &j.base, err);
	if (r < 0)
		goto out;
	result->evaluations++;
	if (j.base->apply_failed || j.base->build_failed || j.base->boot_failed) {
		strbuf_addf(err, "base: the unmodified tree %s: %s",
			    j.base->build_failed ? "does not build" : "does not boot",
			    j.base->build_failed ? j.base->build_error.buf : j.base->boot_evidence.buf);
		r = -EIO;
		goto out;
	}
	for (size_t i = 0; i < j.base->ktap.n_cases; i++)
		if (j.base->ktap.cases[i].status != CASE_PASS)
			strlist_add_unique(&result->base_failing, j.base->ktap.cases[i].name);

	/* Suspects first: only the patches the test kernel compiles. */
	r = drop_until_clean(&j, false, set, &clean);
	if (r < 0)
		goto out;
	/* Confirm with everything that is not dropped; if impact analysis
	 * was wrong, every patch becomes a suspect. */
	if (clean) {
		r = drop_until_clean(&j, true, set, &clean);
		if (r < 0)
			goto out;
	}
	result->confirmed = clean;
	if (!clean) {
		strbuf_addf(err, "judge: the set minus every dropped patch is still not clean");
		r = -EAGAIN;
		goto out;
	}
	m = current_set(&j, true, set);
	r = pin_changes(&j, set, m);
	if (r < 0)
		goto out;
out:
	for (size_t i = 0; i < j.n_reruns; i++)
		strlist_release(&j.reruns[i].outcome.cases);
	free(j.reruns);
	free(j.seq);
	free(set);
	return r;
}
