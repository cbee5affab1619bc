// SPDX-License-Identifier: GPL-2.0
/* release_parse(): which kernel the suite runs on, from uname's release. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <cmocka.h>

#include "release.h"

static void expect_release(const char *release, int major, int minor)
{
	int got_major = -1, got_minor = -1;

	assert_int_equal(release_parse(release, &got_major, &got_minor), 0);
	assert_int_equal(got_major, major);
	assert_int_equal(got_minor, minor);
}

static void test_distribution_releases(void **state)
{
	(void)state;
	expect_release("6.1.0", 6, 1);
	expect_release("6.1.192", 6, 1);
	expect_release("6.12.118-amd64", 6, 12);
	expect_release("6.8-rc1", 6, 8);
	expect_release("6.1+", 6, 1);
	expect_release("6.12", 6, 12);
}

static void test_not_a_release(void **state)
{
	int major = 7, minor = 7;

	(void)state;
	assert_int_equal(release_parse("", &major, &minor), -EINVAL);
	assert_int_equal(release_parse("6", &major, &minor), -EINVAL);
	assert_int_equal(release_parse("6.", &major, &minor), -EINVAL);
	assert_int_equal(release_parse("v6.1", &major, &minor), -EINVAL);
	assert_int_equal(release_parse("6.1x", &major, &minor), -EINVAL);
	assert_int_equal(release_parse("99999.1", &major, &minor), -EINVAL);
	/* nothing is written on failure */
	assert_int_equal(major, 7);
	assert_int_equal(minor, 7);
}

static void test_at_least(void **state)
{
	(void)state;
	/* 6.12 is after 6.8, though "12" < "8" as text */
	assert_true(release_at_least(6, 12, 6, 8));
	assert_true(release_at_least(6, 8, 6, 8));
	assert_false(release_at_least(6, 1, 6, 8));
	assert_true(release_at_least(7, 0, 6, 8));
	assert_false(release_at_least(5, 19, 6, 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distribution_releases),
		cmocka_unit_test(test_not_a_release),
		cmocka_unit_test(test_at_least),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
