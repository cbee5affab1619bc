// SPDX-License-Identifier: GPL-2.0
/*
 * The judge against a fake oracle whose patches have known effects: the
 * verdicts must name every culprit with its reason and evidence, never
 * blame a case already failing on base or a flaky one, pin quirk changes
 * without dropping, and flag Stable-dep-of dependants. With several
 * workers and a prefetch that evaluates sequences together, the same
 * verdicts, evidence and steps in fewer rounds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "verdict/judge.h"

/* Cases of the fake suite; c5 already fails on base, q1 is a quirk. */
static const char *const case_names[] = { "c1", "c2", "c3", "c4", "c5", "q1" };
#define N_CASES 6

struct effect {
	bool build, boot, no_apply;
	const char *breaks;	/* a contract case it makes fail */
	const char *changes;	/* a quirk case it changes */
	const char *flaky;	/* a case that fails on the first boot only */
	size_t needs;		/* patch number (1-based) it applies only after */
	size_t with;		/* patch number whose presence @breaks needs */
};

static bool in_sequence(const size_t *subset, size_t n, size_t number)
{
	for (size_t i = 0; i < n; i++)
		if (subset[i] + 1 == number)
			return true;
	return false;
}

struct fake {
	const struct effect *effects;
	struct judge_eval *evals[1024];
	size_t n_evals;
	unsigned calls, fresh_calls;
	char *seen[256];	/* each distinct sequence evaluated (not fresh) */
	size_t n_seen;
	/* the memo of memo_evaluate() and memo_prefetch() */
	char *memo_sig[1024];
	const struct judge_eval *memo_eval[1024];
	size_t n_memo;
	unsigned workers, rounds;
	/*
	 * fake_cost(): a sequence whose last patch number is in
	 * [costly_from, costly_to) costs COSTLY objects (the tree lies
	 * between two header changes, far from every build), any other a
	 * few; @cost_answer 1 or -EIO: the oracle cannot tell, or fails.
	 * @costly_evals: such sequences evaluated.
	 */
	size_t costly_from, costly_to;
	unsigned costly_objects;	/* 0: COSTLY */
	unsigned other_objects;		/* any other sequence; 0: 2 */
	int cost_answer;
	unsigned cost_calls, costly_evals;
};

#define COSTLY 300

static bool costly(const struct fake *f, const size_t *subset, size_t n)
{
	size_t last = n ? subset[n - 1] + 1 : 0;

	return last >= f->costly_from && last < f->costly_to;
}

static int fake_cost(void *ctx, const size_t *subset, size_t n, unsigned *ret_objects,
		     struct strbuf *err)
{
	struct fake *f = ctx;

	f->cost_calls++;
	if (f->cost_answer < 0)
		strbuf_addf(err, "cost: the slots cannot be read");
	if (f->cost_answer)
		return f->cost_answer;
	if (costly(f, subset, n))
		*ret_objects = f->costly_objects ? f->costly_objects : COSTLY;
	else
		*ret_objects = f->other_objects ? f->other_objects : 2;
	return 0;
}

static void add_case(struct judge_eval *e, const char *name, bool quirk, enum case_status st)
{
	struct case_result *c = &e->ktap.cases[e->ktap.n_cases++];

	c->name = strdup(name);
	c->quirk = quirk;
	c->status = st;
	c->diagnostic = strdup(st == CASE_PASS ? "" : "expected x, got y");
}

static int fake_evaluate(void *ctx, const size_t *subset, size_t n, bool fresh,
			 const struct judge_eval **ret, struct strbuf *err)
{
	struct fake *f = ctx;
	struct judge_eval *e = calloc(1, sizeof(*e));

	(void)err;
	f->calls++;
	f->fresh_calls += fresh;
	f->costly_evals += costly(f, subset, n);
	if (!fresh) {
		char sig[1024] = "";
		bool seen = false;

		for (size_t i = 0; i < n; i++)
			snprintf(sig + strlen(sig), sizeof(sig) - strlen(sig), "%zu,", subset[i]);
		for (size_t i = 0; i < f->n_seen; i++)
			seen |= strcmp(f->seen[i], sig) == 0;
		if (!seen && f->n_seen < 256)
			f->seen[f->n_seen++] = strdup(sig);
	}
	strbuf_init(&e->apply_message, 0);
	strbuf_init(&e->build_error, 0);
	strbuf_init(&e->boot_evidence, 0);
	for (size_t i = 0; i < n; i++) {
		const struct effect *x = &f->effects[subset[i]];

		if ((x->no_apply || (x->needs && !in_sequence(subset, n, x->needs))) &&
		    !e->apply_failed) {
			e->apply_failed = true;
			e->apply_failed_at = subset[i];
			strbuf_addf(&e->apply_message, "fs/x.c: hunk 1 does not match");
		}
		if (x->build && !e->build_failed) {
			e->build_failed = true;
			strbuf_addf(&e->build_error, "fs/x.c:1:1: error: broken by patch %zu", subset[i]);
		}
		e->boot_failed |= x->boot;
	}
	if (e->boot_failed) {
		e->boot_status = BOOT_PANIC;
		strbuf_addf(&e->boot_evidence, "Kernel panic - not syncing: fake");
	}
	if (!e->build_failed && !e->boot_failed && !e->apply_failed) {
		e->ktap.cases = calloc(N_CASES, sizeof(*e->ktap.cases));
		e->ktap.planned = N_CASES;
		e->ktap.complete = true;
		for (size_t c = 0; c < N_CASES; c++) {
			enum case_status st = strcmp(case_names[c], "c5") ? CASE_PASS : CASE_FAIL;
			bool quirk = case_names[c][0] == 'q';

			for (size_t i = 0; i < n; i++) {
				const struct effect *x = &f->effects[subset[i]];

				if (x->breaks && !strcmp(x->breaks, case_names[c]) &&
				    (!x->with || in_sequence(subset, n, x->with)))
					st = CASE_FAIL;
				if (x->changes && !strcmp(x->changes, case_names[c]))
					st = CASE_QUIRK_CHANGED;
				if (x->flaky && !fresh && !strcmp(x->flaky, case_names[c]))
					st = CASE_FAIL;
			}
			add_case(e, case_names[c], quirk, st);
		}
	}
	f->evals[f->n_evals++] = e;
	*ret = e;
	return 0;
}

static void signature(const size_t *subset, size_t n, char *sig, size_t size)
{
	sig[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(sig + strlen(sig), size - strlen(sig), "%zu,", subset[i]);
}

static const struct judge_eval *memo_find(struct fake *f, const char *sig)
{
	for (size_t i = 0; i < f->n_memo; i++)
		if (!strcmp(f->memo_sig[i], sig))
			return f->memo_eval[i];
	return NULL;
}

/* Evaluate once per sequence, and once more fresh; each evaluation is a round. */
static int memo_evaluate(void *ctx, const size_t *subset, size_t n, bool fresh,
			 const struct judge_eval **ret, struct strbuf *err)
{
	struct fake *f = ctx;
	char sig[1024];
	int r;

	signature(subset, n, sig, sizeof(sig));
	if (fresh)
		strcat(sig, "fresh");
	if ((*ret = memo_find(f, sig)))
		return 0;
	f->rounds++;
	r = fake_evaluate(ctx, subset, n, fresh, ret, err);
	f->memo_sig[f->n_memo] = strdup(sig);
	f->memo_eval[f->n_memo++] = *ret;
	return r;
}

/*
 * The oracle's prefetch: when the first is unknown, the unknown ones in
 * one round (a fresh one is known once its second boot is).
 */
static int memo_prefetch(void *ctx, const size_t *const *subsets, const size_t *ns,
			 const bool *fresh, size_t k, struct strbuf *err)
{
	struct fake *f = ctx;
	unsigned done = 0;
	char sig[1024];

	assert_true(k <= f->workers);
	for (size_t i = 0; i < k; i++) {
		const struct judge_eval *e;
		bool first_known;

		signature(subsets[i], ns[i], sig, sizeof(sig));
		first_known = memo_find(f, sig) != NULL;
		if (fresh[i])
			strcat(sig, "fresh");
		if (memo_find(f, sig) || (fresh[i] && !first_known)) {
			if (i == 0)
				return 0;
			continue;
		}
		fake_evaluate(ctx, subsets[i], ns[i], fresh[i], &e, err);
		f->memo_sig[f->n_memo] = strdup(sig);
		f->memo_eval[f->n_memo++] = e;
		done++;
	}
	f->rounds += done > 0;
	return 0;
}

static void fake_release(struct fake *f)
{
	for (size_t i = 0; i < f->n_memo; i++)
		free(f->memo_sig[i]);
	for (size_t i = 0; i < f->n_seen; i++)
		free(f->seen[i]);
	for (size_t i = 0; i < f->n_evals; i++) {
		strbuf_release(&f->evals[i]->apply_message);
		strbuf_release(&f->evals[i]->build_error);
		strbuf_release(&f->evals[i]->boot_evidence);
		ktap_run_release(&f->evals[i]->ktap);
		free(f->evals[i]);
	}
}

struct scenario {
	struct judge_patch patches[32];
	struct effect effects[32];
	size_t n;
	struct fake fake;
	struct judge_result result;
	struct judge_options opts;
	struct strbuf err;
	int r;
};

static void setup_queue(struct scenario *s, size_t n)
{
	static char names[32][32];

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "%04zu.patch", i + 1);
		s->patches[i].name = names[i];
		s->patches[i].upstream = "";
		s->patches[i].exercised = true;
	}
	strbuf_init(&s->err, 0);
}

static void judge(struct scenario *s)
{
	struct judge_oracle oracle = { .evaluate = fake_evaluate, .ctx = &s->fake };

	s->fake.effects = s->effects;
	judge_result_init(&s->result, s->n);
	s->r = judge_run(s->patches, s->n, &s->opts, &oracle, &s->result, &s->err);
}

/* judge() through the memo, with @workers and the prefetch when more than one. */
static void judge_with_workers(struct scenario *s, unsigned workers)
{
	struct judge_oracle oracle = { .evaluate = memo_evaluate,
				       .prefetch = workers > 1 ? memo_prefetch : NULL,
				       .ctx = &s->fake, .workers = workers };

	s->fake.effects = s->effects;
	s->fake.workers = workers;
	judge_result_init(&s->result, s->n);
	s->r = judge_run(s->patches, s->n, &s->opts, &oracle, &s->result, &s->err);
}

/* judge() with the fake's cost (@workers as judge_with_workers()). */
static void judge_with_cost(struct scenario *s, unsigned workers)
{
	struct judge_oracle oracle = { .evaluate = memo_evaluate,
				       .prefetch = workers > 1 ? memo_prefetch : NULL,
				       .cost = fake_cost, .ctx = &s->fake, .workers = workers };

	s->fake.effects = s->effects;
	s->fake.workers = workers;
	judge_result_init(&s->result, s->n);
	s->r = judge_run(s->patches, s->n, &s->opts, &oracle, &s->result, &s->err);
}

static void release(struct scenario *s)
{
	judge_result_release(&s->result);
	fake_release(&s->fake);
	strbuf_release(&s->err);
}

static void drops_are(struct scenario *s, const char *expected)
{
	char got[512] = "";

	for (size_t i = 0; i < s->n; i++)
		if (s->result.verdicts[i].status == PATCH_DROP)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%zu:%s",
				 got[0] ? " " : "", i + 1,
				 drop_reason_name(s->result.verdicts[i].reason));
	assert_string_equal(got, expected);
}

/* Every verdict's status, reason, evidence and steps, as one string. */
static char *verdicts_text(const struct scenario *s)
{
	struct strbuf out = STRBUF_INIT;

	for (size_t i = 0; i < s->n; i++) {
		const struct patch_verdict *v = &s->result.verdicts[i];

		strbuf_addf(&out, "%zu %s %s\n%s%s", i + 1, patch_status_name(v->status),
			    drop_reason_name(v->reason) ? drop_reason_name(v->reason) : "-",
			    v->evidence.buf, v->steps.buf);
	}
	return strbuf_detach(&out, NULL);
}

/*
 * 32 patches, three culprits of different kinds, one flaky case: W = 1, 2,
 * 3 and 4 workers give the same verdicts, evidence and bisection steps,
 * and with 4 the rounds are at most half of those with one.
 */
static void test_workers_same_verdicts_fewer_rounds(void **state)
{
	unsigned rounds[5] = { 0 };
	char *expected = NULL;

	(void)state;
	for (unsigned w = 1; w <= 4; w++) {
		struct scenario s;
		char *got;

		setup_queue(&s, 32);
		s.effects[5].breaks = "c1";
		s.effects[17].build = true;
		s.effects[26].breaks = "c2";
		s.effects[11].flaky = "c3";
		judge_with_workers(&s, w);
		assert_int_equal(s.r, 0);
		drops_are(&s, "6:regression 18:build 27:regression");
		got = verdicts_text(&s);
		if (!expected)
			expected = got;
		else
			assert_string_equal(got, expected);
		if (got != expected)
			free(got);
		rounds[w] = s.fake.rounds;
		release(&s);
	}
	free(expected);
	fprintf(stderr, "# rounds: %u %u %u %u\n", rounds[1], rounds[2], rounds[3], rounds[4]);
	assert_true(rounds[2] < rounds[1]);
	assert_true(rounds[4] * 2 <= rounds[1]);
}

static void test_clean_queue(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 8);
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "");
	assert_true(s.result.confirmed);
	/* base, the set, and the confirmation of the same set (a cache hit for a real oracle) */
	assert_int_equal(s.fake.calls, 4);
	assert_true(strlist_has(&s.result.base_failing, "c5"));
	release(&s);
}

static void test_one_regression(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 16);
	s.effects[10].breaks = "c2";
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "11:regression");
	assert_int_equal(s.result.verdicts[10].regressions.n, 1);
	assert_string_equal(s.result.verdicts[10].regressions.items[0], "c2");
	assert_non_null(strstr(s.result.verdicts[10].evidence.buf, "c2: base pass; with the patch fail"));
	assert_non_null(strstr(s.result.verdicts[10].steps.buf, "clean without it: base + 10 patches up to 0010.patch"));
	assert_true(s.result.confirmed);
	/* bisection steps are not booted twice: only the conviction is */
	assert_int_equal(s.fake.fresh_calls, 1);
	release(&s);
}

static void test_several_culprits_of_every_kind(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 20);
	s.effects[2].breaks = "c1";
	s.effects[7].build = true;
	s.effects[12].boot = true;
	s.effects[17].breaks = "c4";
	s.effects[5].no_apply = true;
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "3:regression 6:apply 8:build 13:boot 18:regression");
	assert_non_null(strstr(s.result.verdicts[7].evidence.buf, "error: broken by patch 7"));
	assert_non_null(strstr(s.result.verdicts[12].evidence.buf, "Kernel panic"));
	assert_true(s.result.confirmed);
	release(&s);
}

/*
 * Three culprits late in the queue: each search after the first starts
 * behind the clean prefix the last one found, so the judge tests fewer
 * sequences than three bisections from the start (19 here without that).
 */
static void test_later_searches_start_after_the_clean_prefix(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 32);
	s.effects[19].breaks = "c1";
	s.effects[25].build = true;
	s.effects[29].breaks = "c3";
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "20:regression 26:build 30:regression");
	assert_true(s.result.confirmed);
	assert_true(s.fake.n_seen <= 16);
	assert_int_equal(s.fake.fresh_calls, 2);
	release(&s);
}

static bool evaluated(const struct scenario *s, const char *sig)
{
	for (size_t i = 0; i < s->fake.n_seen; i++)
		if (strcmp(s->fake.seen[i], sig) == 0)
			return true;
	return false;
}

/*
 * Three culprits breaking three different cases: after the first is
 * convicted of c1 only, c2 and c3 still fail unexplained, so the set
 * minus it is searched without being built first. That set was never
 * built, so the set minus the first two is built before its search.
 */
static void test_unexplained_cases_skip_the_whole_set(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 16);
	s.effects[3].breaks = "c1";
	s.effects[8].breaks = "c2";
	s.effects[13].breaks = "c3";
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "4:regression 9:regression 14:regression");
	assert_true(s.result.confirmed);
	/* the set minus 0004: never evaluated */
	assert_false(evaluated(&s, "0,1,2,4,5,6,7,8,9,10,11,12,13,14,15,"));
	assert_true(evaluated(&s, "0,1,2,4,5,6,7,9,10,11,12,13,14,15,"));
	assert_true(evaluated(&s, "0,1,2,4,5,6,7,9,10,11,12,14,15,"));
	assert_non_null(strstr(s.result.verdicts[8].steps.buf,
			       "base + 15 patches up to 0016.patch: not built, taken as bad "
			       "(still unexplained: c2 c3)"));
	assert_int_equal(s.fake.fresh_calls, 3);
	release(&s);
}

/*
 * Two culprits, and a case only both together fail: 0004 breaks c1,
 * 0009 breaks c2, and 0012 breaks c3 beside 0004. Once 0004 and 0009
 * are dropped, nothing explains c3, yet the set is clean: it is built,
 * not guessed bad from a set that was itself a guess.
 */
static void test_no_guess_from_a_guess(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 16);
	s.effects[3].breaks = "c1";
	s.effects[8].breaks = "c2";
	s.effects[11].breaks = "c3";
	s.effects[11].with = 4;
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "4:regression 9:regression");
	assert_true(s.result.confirmed);
	/* 11 sequences; 14 when the set minus both is guessed bad and searched */
	assert_true(s.fake.n_seen <= 11);
	release(&s);
}

/*
 * 0006 breaks c2 only beside 0003, which breaks c1: once 0003 is
 * dropped, the guess that c2 still fails is wrong. The search finds
 * every prefix clean, the set itself clean, and nothing else is blamed.
 */
static void test_a_wrong_guess_blames_nobody(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 8);
	s.effects[2].breaks = "c1";
	s.effects[5].breaks = "c2";
	s.effects[5].with = 3;
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "3:regression");
	assert_true(s.result.confirmed);
	release(&s);
}

/*
 * The last patch applies only after 0003, which is dropped: the set
 * taken as bad for c2 turns out not to apply, and that patch is dropped
 * as a dependency of the drop, which the evidence names.
 */
static void test_a_set_taken_as_bad_that_does_not_apply(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 8);
	s.effects[2].breaks = "c1";
	s.effects[7].breaks = "c2";
	s.effects[7].needs = 3;
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "3:regression 8:dependency");
	assert_non_null(strstr(s.result.verdicts[7].evidence.buf,
			       "applies on top of the whole queue, not once 0003.patch is dropped: "
			       "fs/x.c: hunk 1 does not match"));
	assert_true(s.result.confirmed);
	release(&s);
}

/*
 * A patch the test kernel compiles that applies only on top of an
 * earlier one it does not (Debian's intel-iommu pair): every sequence
 * the search asks about carries the earlier patch, so nothing is
 * dropped for not applying.
 */
static void test_needs_a_patch_not_exercised(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 2);
	s.patches[0].exercised = false;
	s.effects[1].needs = 1;
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "");
	assert_int_equal(s.result.verdicts[0].status, PATCH_NOT_EXERCISED);
	assert_int_equal(s.result.verdicts[1].status, PATCH_OK);
	assert_true(evaluated(&s, "0,1,"));
	assert_false(evaluated(&s, "1,"));
	release(&s);

	/* the same beside a culprit the search bisects to */
	setup_queue(&s, 12);
	s.patches[1].exercised = false;
	s.patches[6].exercised = false;
	s.effects[4].needs = 2;
	s.effects[9].needs = 7;
	s.effects[7].breaks = "c1";
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "8:regression");
	assert_non_null(strstr(s.result.verdicts[7].steps.buf,
			       "base + 8 patches up to 0008.patch: regression in c1\n"
			       "clean without it: base + 6 patches up to 0006.patch"));
	for (size_t i = 0; i < s.fake.n_seen; i++) {
		bool has5 = strstr(s.fake.seen[i], ",4,") || !strncmp(s.fake.seen[i], "4,", 2);

		if (has5)
			assert_non_null(strstr(s.fake.seen[i], "1,"));
	}
	release(&s);
}

static void test_base_failure_never_blamed(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 4);
	s.effects[1].breaks = "c5";	/* already failing on base */
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "");
	assert_int_equal(s.result.base_failing.n, 1);
	assert_string_equal(s.result.base_failing.items[0], "c5");
	assert_true(s.result.confirmed);
	release(&s);
}

static void test_flaky_not_blamed(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 8);
	s.effects[3].flaky = "c3";
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "");
	assert_true(strlist_has(&s.result.flaky, "c3"));
	assert_true(s.fake.fresh_calls >= 1);
	release(&s);
}

/*
 * The flaky case sends the first search to a prefix that does not
 * reproduce on the conviction's fresh boot; the search starts again
 * without it and finds the real culprit.
 */
static void test_flaky_beside_real_regression(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 8);
	s.effects[1].flaky = "c3";
	s.effects[6].breaks = "c1";
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "7:regression");
	assert_int_equal(s.result.verdicts[6].regressions.n, 1);
	assert_true(strlist_has(&s.result.flaky, "c3"));
	release(&s);
}

static void test_quirk_change_pinned_not_dropped(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 8);
	s.effects[4].changes = "q1";
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "");
	assert_int_equal(s.result.verdicts[4].changes.n, 1);
	assert_string_equal(s.result.verdicts[4].changes.items[0], "q1");
	assert_non_null(strstr(s.result.verdicts[4].evidence.buf, "q1: base pass; with the patch quirk-changed"));
	release(&s);

	setup_queue(&s, 8);
	s.effects[4].changes = "q1";
	s.opts.drop_on_quirk = true;
	judge(&s);
	drops_are(&s, "5:regression");
	release(&s);
}

static void test_dependency_flagged(void **state)
{
	static const char deps[1][41] = { "8099b047ecc4" };
	struct scenario s;

	(void)state;
	setup_queue(&s, 6);
	s.patches[2].upstream = "8099b047ecc431518b9bb6bdbba3549bbecdc343";
	s.effects[2].breaks = "c1";
	s.patches[4].stable_deps = deps;
	s.patches[4].n_stable_deps = 1;
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "3:regression 5:dependency");
	assert_non_null(strstr(s.result.verdicts[4].evidence.buf, "names 0003.patch"));
	release(&s);
}

static void test_not_exercised_costs_nothing(void **state)
{
	struct scenario s;

	(void)state;
	setup_queue(&s, 6);
	for (size_t i = 0; i < 6; i++)
		s.patches[i].exercised = false;
	judge(&s);
	assert_int_equal(s.r, 0);
	drops_are(&s, "");
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(s.result.verdicts[i].status, PATCH_NOT_EXERCISED);
	release(&s);
}

/*
 * Headers change at patches 8 and 20, so every tree whose last patch is
 * 8..19 is far from both builds; the culprit is 22. The plain search's
 * first midpoint (16) is such a tree. With the cost the judge splits
 * past 20 instead, builds none of them, and drops the same patch.
 */
static void setup_headers_8_20(struct scenario *s)
{
	setup_queue(s, 32);
	s->effects[21].breaks = "c1";
	s->fake.costly_from = 8;
	s->fake.costly_to = 20;
}

static void test_split_avoids_costly_trees(void **state)
{
	struct scenario s;

	(void)state;
	setup_headers_8_20(&s);
	judge_with_workers(&s, 1);
	assert_int_equal(s.r, 0);
	drops_are(&s, "22:regression");
	assert_true(s.fake.costly_evals > 0);
	release(&s);

	setup_headers_8_20(&s);
	judge_with_cost(&s, 1);
	assert_int_equal(s.r, 0);
	drops_are(&s, "22:regression");
	assert_true(s.result.confirmed);
	assert_int_equal(s.fake.costly_evals, 0);
	assert_true(s.fake.cost_calls > 0);
	assert_non_null(strstr(s.result.verdicts[21].steps.buf,
			       "clean without it: base + 21 patches up to 0021.patch"));
	release(&s);
}

/* 32 patches; a regression at @c, a build breaker 11 and a boot breaker 23 after it. */
static void setup_three_culprits(struct scenario *s, size_t c)
{
	setup_queue(s, 32);
	s->effects[c].breaks = "c2";
	s->effects[(c + 11) % 32].build = true;
	s->effects[(c + 23) % 32].boot = true;
}

/*
 * Wherever the costly trees lie and wherever the culprits are (one per
 * search, of each kind), the cost changes where ranges are split and
 * never which patches are dropped, with one worker or four.
 */
static void test_split_cost_never_changes_drops(void **state)
{
	static const size_t windows[][2] = { { 0, 0 }, { 1, 31 }, { 4, 12 }, { 10, 30 },
					     { 16, 17 }, { 24, 33 } };
	unsigned chosen_elsewhere = 0;

	(void)state;
	for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		for (size_t c = 0; c < 32; c++) {
			for (unsigned workers = 1; workers <= 4; workers += 3) {
				struct scenario plain, cost;
				char *want, *got;

				setup_three_culprits(&plain, c);
				judge_with_workers(&plain, workers);
				assert_int_equal(plain.r, 0);

				setup_three_culprits(&cost, c);
				cost.fake.costly_from = windows[w][0];
				cost.fake.costly_to = windows[w][1];
				judge_with_cost(&cost, workers);
				assert_int_equal(cost.r, 0);
				assert_true(cost.result.confirmed);

				for (size_t i = 0; i < 32; i++) {
					assert_int_equal(cost.result.verdicts[i].status,
							 plain.result.verdicts[i].status);
					assert_int_equal(cost.result.verdicts[i].reason,
							 plain.result.verdicts[i].reason);
				}
				want = verdicts_text(&plain);
				got = verdicts_text(&cost);
				chosen_elsewhere += strcmp(want, got) != 0;
				free(want);
				free(got);
				release(&plain);
				release(&cost);
			}
		}
	}
	/* the steps differ where the cost moved a split: it did, somewhere */
	assert_true(chosen_elsewhere > 0);
}

/*
 * An oracle that cannot tell the cost, or fails to; a middle that is no
 * header-wide build (60 objects, against 2 elsewhere); a middle whose
 * every alternative is one too (300 around the middle, 150 elsewhere):
 * the plain search, step for step.
 */
static void test_split_without_a_cost_is_the_middle(void **state)
{
	static const int answers[] = { 1, -EIO, 0, 0 };

	(void)state;
	for (size_t a = 0; a < 4; a++) {
		struct scenario plain, cost;
		char *want, *got;

		setup_queue(&plain, 32);
		plain.effects[12].breaks = "c1";
		plain.effects[26].build = true;
		judge_with_workers(&plain, 1);

		setup_queue(&cost, 32);
		cost.effects[12].breaks = "c1";
		cost.effects[26].build = true;
		cost.fake.costly_from = 8;
		cost.fake.costly_to = 20;
		cost.fake.cost_answer = answers[a];
		cost.fake.costly_objects = a == 3 ? COSTLY : JUDGE_STEP_OBJECTS * 6 / 10;
		if (a == 3) {
			cost.fake.costly_from = 12;
			cost.fake.costly_to = 20;
			cost.fake.other_objects = COSTLY / 2;
		}
		judge_with_cost(&cost, 1);
		assert_int_equal(cost.r, 0);
		assert_true(cost.fake.cost_calls > 0);
		want = verdicts_text(&plain);
		got = verdicts_text(&cost);
		assert_string_equal(got, want);
		assert_int_equal(cost.fake.rounds, plain.fake.rounds);
		free(want);
		free(got);
		release(&plain);
		release(&cost);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_queue),
		cmocka_unit_test(test_one_regression),
		cmocka_unit_test(test_several_culprits_of_every_kind),
		cmocka_unit_test(test_later_searches_start_after_the_clean_prefix),
		cmocka_unit_test(test_unexplained_cases_skip_the_whole_set),
		cmocka_unit_test(test_a_wrong_guess_blames_nobody),
		cmocka_unit_test(test_no_guess_from_a_guess),
		cmocka_unit_test(test_a_set_taken_as_bad_that_does_not_apply),
		cmocka_unit_test(test_needs_a_patch_not_exercised),
		cmocka_unit_test(test_base_failure_never_blamed),
		cmocka_unit_test(test_flaky_not_blamed),
		cmocka_unit_test(test_flaky_beside_real_regression),
		cmocka_unit_test(test_quirk_change_pinned_not_dropped),
		cmocka_unit_test(test_dependency_flagged),
		cmocka_unit_test(test_not_exercised_costs_nothing),
		cmocka_unit_test(test_workers_same_verdicts_fewer_rounds),
		cmocka_unit_test(test_split_avoids_costly_trees),
		cmocka_unit_test(test_split_cost_never_changes_drops),
		cmocka_unit_test(test_split_without_a_cost_is_the_middle),
	};

	return cmocka_run_group_tests_name("judge", tests, NULL, NULL);
}
