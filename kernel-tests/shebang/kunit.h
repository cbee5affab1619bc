/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kunit: the KUnit suites the test kernel ran at boot, read back by the
 * guest's init from the kernel's log buffer (klogctl), so that their
 * cases join the suite's own KTAP as "kunit.<suite>.<case>" and the gate
 * judges them like any other case. The kernel's command line has
 * "quiet", so KUnit's lines are in the log but not on the console.
 *
 * Only a suite's cases count (the lines one level in: "    ok 3 name");
 * a parameterised case is one result, as KUnit sums its parameters.
 */
#ifndef KUNIT_H
#define KUNIT_H

#include <stdbool.h>
#include <stddef.h>

#define KUNIT_MAX_CASES 512
#define KUNIT_NAME_MAX 160
#define KUNIT_DIAG_MAX 200

enum kunit_result { KUNIT_PASS, KUNIT_FAIL, KUNIT_SKIP };

struct kunit_case {
	char name[KUNIT_NAME_MAX];	/* "kunit.<suite>.<case>" */
	enum kunit_result result;
	char diag[KUNIT_DIAG_MAX];	/* a failure's "EXPECTATION FAILED at ..." or a skip's reason */
};

struct kunit_log {
	struct kunit_case *cases;	/* in the order the kernel ran them */
	size_t n;
	size_t suites;			/* suites whose "# Subtest:" line was seen */
	bool truncated;			/* more than KUNIT_MAX_CASES: the rest are not read */
	bool unfinished;		/* a suite began but its result line is missing */
};

/*
 * Read KUnit's results out of @len bytes of kernel log (as klogctl's
 * SYSLOG_ACTION_READ_ALL gives it: "<6>" level prefixes, optional
 * "[    1.234]" times, other messages between). @ret->cases must hold
 * KUNIT_MAX_CASES.
 */
void kunit_log_parse(const char *log, size_t len, struct kunit_log *ret);

/* The kernel's whole log buffer, read with klogctl(), into @ret (KUNIT_MAX_CASES cases). */
int kunit_read_kernel_log(struct kunit_log *ret);

#endif
