// SPDX-License-Identifier: GPL-2.0
/* suite_top(): where the suite comes from, a source tree or an installed library directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "source/defaults.h"

static void test_environment_first(void **state)
{
	char *top;

	(void)state;
	setenv("BG_LIBDIR", "/opt/bg/lib", 1);
	setenv("BG_TOP", "/src/bg", 1);
	top = suite_top();
	assert_string_equal(top, "/src/bg");	/* BG_TOP names a source tree: it wins */
	free(top);
	unsetenv("BG_TOP");
	top = suite_top();
	assert_string_equal(top, "/opt/bg/lib");
	free(top);
	unsetenv("BG_LIBDIR");
}

static void test_source_tree_of_the_binary(void **state)
{
	char *top;

	(void)state;
	unsetenv("BG_TOP");
	unsetenv("BG_LIBDIR");
	/* this test runs from <top>/build/tests or <top>/build/asan/tests */
	top = suite_top();
	assert_true(suite_top_is_source(top));
	free(top);
	assert_false(suite_top_is_source("/nonexistent"));
	assert_false(suite_top_is_source("/"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_environment_first),
		cmocka_unit_test(test_source_tree_of_the_binary),
	};

	return cmocka_run_group_tests_name("defaults", tests, NULL, NULL);
}
