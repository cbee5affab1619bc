// SPDX-License-Identifier: GPL-2.0
/*
 * kunit_log_parse(): KUnit's results read out of a kernel log as klogctl
 * gives it. The log below has the shape the 6.1 kernel writes
 * (lib/kunit/test.c: "    # Subtest:", four-space case lines, the
 * suite's own result unindented, parameterised cases one level deeper),
 * with level prefixes, a time stamp and unrelated messages between.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kunit.h"

static const char sample[] =
	"<5>Linux version 6.1.0 (root@localhost)\n"
	"<6>KTAP version 1\n"
	"<6>1..3\n"
	"<6>    KTAP version 1\n"
	"<6>    # Subtest: list-kernel-test\n"
	"<6>    1..3\n"
	"<6>    ok 1 list_test_list_init\n"
	"<3>    # list_test_list_add: EXPECTATION FAILED at lib/list-test.c:81\n"
	"<3>    Expected list.next == &b, but\n"
	"<6>    not ok 2 list_test_list_add\n"
	"<6>[    1.234567] random: crng init done\n"
	"<6>    ok 3 list_test_skipped # SKIP not on this machine\n"
	"<6>not ok 1 list-kernel-test\n"
	"<6>    KTAP version 1\n"
	"<6>    # Subtest: time_test_cases\n"
	"<6>    1..1\n"
	"<6>        KTAP version 1\n"
	"<6>        # Subtest: time64_to_tm_test_date_range\n"
	"<6>        ok 1 year 1970\n"
	"<6>        ok 2 year 1971\n"
	"<6>    ok 1 time64_to_tm_test_date_range\n"
	"<6>ok 2 time_test_cases\n"
	"<6>    KTAP version 1\n"
	"<6>    # Subtest: sysctl_test\n"
	"<6>    1..2\n"
	"<6>    ok 1 - sysctl_test_api_dointvec_null_tbl_data\n";

static void test_cases_of_each_suite(void **state)
{
	static struct kunit_case cases[KUNIT_MAX_CASES];
	struct kunit_log log = { .cases = cases };

	(void)state;
	kunit_log_parse(sample, sizeof(sample) - 1, &log);
	assert_int_equal(log.suites, 3);
	assert_int_equal(log.n, 5);
	assert_string_equal(cases[0].name, "kunit.list-kernel-test.list_test_list_init");
	assert_int_equal(cases[0].result, KUNIT_PASS);
	assert_string_equal(cases[1].name, "kunit.list-kernel-test.list_test_list_add");
	assert_int_equal(cases[1].result, KUNIT_FAIL);
	assert_string_equal(cases[1].diag,
			    "# list_test_list_add: EXPECTATION FAILED at lib/list-test.c:81");
	assert_int_equal(cases[2].result, KUNIT_SKIP);
	assert_string_equal(cases[2].diag, "not on this machine");
	/* a parameterised case is one result; its parameters are not cases */
	assert_string_equal(cases[3].name, "kunit.time_test_cases.time64_to_tm_test_date_range");
	assert_int_equal(cases[3].result, KUNIT_PASS);
	/* the older "ok 1 - name" form */
	assert_string_equal(cases[4].name,
			    "kunit.sysctl_test.sysctl_test_api_dointvec_null_tbl_data");
	/* sysctl_test has no result line: the guest died or the log was cut */
	assert_true(log.unfinished);
	assert_false(log.truncated);
}

static void test_no_kunit(void **state)
{
	static struct kunit_case cases[KUNIT_MAX_CASES];
	static const char plain[] = "<5>Linux version 6.1.0\n<6>Run /init as init process\n"
				    "    ok 1 not_in_a_suite\n";
	struct kunit_log log = { .cases = cases };

	(void)state;
	kunit_log_parse(plain, sizeof(plain) - 1, &log);
	assert_int_equal(log.suites, 0);
	assert_int_equal(log.n, 0);
	assert_false(log.unfinished);
}

static void test_too_many_cases(void **state)
{
	static struct kunit_case cases[KUNIT_MAX_CASES];
	static char big[64 * (KUNIT_MAX_CASES + 10) + 100];
	struct kunit_log log = { .cases = cases };
	size_t len;

	(void)state;
	len = (size_t)snprintf(big, sizeof(big), "    # Subtest: many\n");
	for (int i = 1; i <= KUNIT_MAX_CASES + 5; i++)
		len += (size_t)snprintf(big + len, sizeof(big) - len, "    ok %d case_%d\n", i, i);
	len += (size_t)snprintf(big + len, sizeof(big) - len, "ok 1 many\n");
	kunit_log_parse(big, len, &log);
	assert_int_equal(log.n, KUNIT_MAX_CASES);
	assert_true(log.truncated);
	assert_false(log.unfinished);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases_of_each_suite),
		cmocka_unit_test(test_no_kunit),
		cmocka_unit_test(test_too_many_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
