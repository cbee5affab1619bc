// SPDX-License-Identifier: GPL-2.0
/* target: what follows from a kernel source tarball's name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "pipeline/defaults.h"
#include "pipeline/target.h"

static void check(const char *tarball, const char *version, const char *package,
		  const char *series_dir)
{
	struct target t;

	target_from_tarball(&t, tarball);
	assert_string_equal(t.tarball, tarball);
	assert_string_equal(t.version, version);
	assert_string_equal(t.package, package);
	assert_string_equal(t.series_dir, series_dir);
	target_release(&t);
}

static void test_debian_tarballs(void **state)
{
	(void)state;
	check("/usr/src/linux-source-6.1.tar.xz", "6.1", "linux-source-6.1", "queue-6.1");
	check("/usr/src/linux-source-6.12.tar.xz", "6.12", "linux-source-6.12", "queue-6.12");
	check("linux-source-5.10.tar.bz2", "5.10", "linux-source-5.10", "queue-5.10");
}

static void test_other_names(void **state)
{
	(void)state;
	/* a folder or file named by its version alone */
	check("/x/6.1", "6.1", "linux-source-6.1", "queue-6.1");
}

static void test_default_and_environment(void **state)
{
	struct target t;
	char *dir;

	(void)state;
	unsetenv("BG_TARBALL");
	target_default(&t);
	assert_string_equal(t.tarball, TARGET_DEFAULT_TARBALL);
	assert_string_equal(t.series_dir, "queue-6.1");
	target_release(&t);
	dir = default_series_dir();
	assert_string_equal(dir, "queue-6.1");
	free(dir);

	setenv("BG_TARBALL", "/usr/src/linux-source-6.12.tar.xz", 1);
	target_default(&t);
	assert_string_equal(t.version, "6.12");
	target_release(&t);
	dir = default_series_dir();
	assert_string_equal(dir, "queue-6.12");
	free(dir);

	/* empty is unset */
	setenv("BG_TARBALL", "", 1);
	target_default(&t);
	assert_string_equal(t.tarball, TARGET_DEFAULT_TARBALL);
	target_release(&t);
	unsetenv("BG_TARBALL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_tarballs),
		cmocka_unit_test(test_other_names),
		cmocka_unit_test(test_default_and_environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
