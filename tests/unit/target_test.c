// SPDX-License-Identifier: GPL-2.0
/* target: what follows from a kernel source tarball's name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "basic/strbuf.h"
#include "source/target.h"

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

	(void)state;
	unsetenv("BG_TARBALL");
	target_default(&t);
	assert_string_equal(t.tarball, TARGET_DEFAULT_TARBALL);
	assert_string_equal(t.series_dir, "queue-6.1");
	target_release(&t);

	setenv("BG_TARBALL", "/usr/src/linux-source-6.12.tar.xz", 1);
	target_default(&t);
	assert_string_equal(t.version, "6.12");
	target_release(&t);

	/* empty is unset */
	setenv("BG_TARBALL", "", 1);
	target_default(&t);
	assert_string_equal(t.tarball, TARGET_DEFAULT_TARBALL);
	target_release(&t);
	unsetenv("BG_TARBALL");
}

static void resolve(const char *tree, const char *series, const char *tarball,
		    const char *series_dir)
{
	struct strbuf err = STRBUF_INIT;
	struct target t;

	assert_int_equal(target_resolve(&t, tree, series, &err), 0);
	assert_string_equal(t.tarball, tarball);
	assert_string_equal(t.series_dir, series_dir);
	assert_int_equal(err.len, 0);
	target_release(&t);
	strbuf_release(&err);
}

static void test_resolve(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct target t;

	(void)state;
	unsetenv("BG_TARBALL");
	/* nothing said: the default tree, and its folder */
	resolve(NULL, NULL, TARGET_DEFAULT_TARBALL, "queue-6.1");
	/* the tree follows the series folder ... */
	resolve(NULL, "queue-6.12", "/usr/src/linux-source-6.12.tar.xz", "queue-6.12");
	/* ... unless it is not a queue-X.Y folder */
	resolve(NULL, ".", TARGET_DEFAULT_TARBALL, "queue-6.1");
	resolve(NULL, "queue-6.1-rc", TARGET_DEFAULT_TARBALL, "queue-6.1");
	/* and the folder follows a named tree: a package, or a tarball */
	resolve("linux-source-6.12", NULL, "/usr/src/linux-source-6.12.tar.xz", "queue-6.12");
	resolve("/srv/trees/linux-source-6.6.tar.xz", "queue-6.1",
		"/srv/trees/linux-source-6.6.tar.xz", "queue-6.6");
	/* a named tree wins over the environment, the environment over the folder */
	setenv("BG_TARBALL", "/tmp/linux-source-5.15.tar.xz", 1);
	resolve("linux-source-6.12", NULL, "/usr/src/linux-source-6.12.tar.xz", "queue-6.12");
	resolve(NULL, "queue-6.12", "/tmp/linux-source-5.15.tar.xz", "queue-5.15");
	unsetenv("BG_TARBALL");

	/* what is neither a package nor a path is refused, and named */
	assert_int_equal(target_resolve(&t, "linux-6.12", NULL, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "tree 'linux-6.12': not a kernel source package"));
	strbuf_reset(&err);
	assert_int_equal(target_resolve(&t, "linux-source-", NULL, &err), -EINVAL);
	strbuf_reset(&err);
	assert_int_equal(target_resolve(&t, "linux-source-6.12; rm", NULL, &err), -EINVAL);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_tarballs),
		cmocka_unit_test(test_other_names),
		cmocka_unit_test(test_default_and_environment),
		cmocka_unit_test(test_resolve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
