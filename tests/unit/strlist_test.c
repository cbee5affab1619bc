// SPDX-License-Identifier: GPL-2.0
/* strlist: the one list of strings (case names, paths, a build's inputs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "basic/strlist.h"

/* The list as "a,b,c", so a failing check prints the whole list. */
static const char *joined(const struct strlist *l)
{
	static char buf[4096];
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < l->n && at < sizeof(buf); i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? "," : "", l->items[i]);
	return buf;
}

static void test_append_owns_copies(void **state)
{
	struct strlist l = STRLIST_INIT;
	char name[] = "c1";

	(void)state;
	strlist_append(&l, name);
	name[1] = '2';	/* the list holds its own copy */
	strlist_append(&l, name);
	strlist_appendn(&l, "c345", 2);
	assert_string_equal(joined(&l), "c1,c2,c3");
	assert_int_equal(l.n, 3);
	strlist_release(&l);
	assert_null(l.items);
	assert_int_equal(l.n, 0);
	/* released: reusable, and releasing twice is harmless */
	strlist_append(&l, "again");
	assert_string_equal(joined(&l), "again");
	strlist_release(&l);
	strlist_release(&l);
}

static void test_unique_and_has(void **state)
{
	struct strlist l = STRLIST_INIT;

	(void)state;
	assert_false(strlist_has(&l, "c1"));
	strlist_add_unique(&l, "c1");
	strlist_add_unique(&l, "c2");
	strlist_add_unique(&l, "c1");
	assert_string_equal(joined(&l), "c1,c2");
	assert_true(strlist_has(&l, "c2"));
	assert_false(strlist_has(&l, "c"));
	assert_false(strlist_has(&l, "c22"));
	strlist_release(&l);
}

static void test_sort_unique(void **state)
{
	struct strlist l = STRLIST_INIT;
	static const char *const in[] = { "fs/exec.c", "a.c", "fs/exec.c", "Makefile", "a.c", "z" };

	(void)state;
	strlist_sort_unique(&l);	/* empty: nothing to do */
	assert_int_equal(l.n, 0);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		strlist_append(&l, in[i]);
	strlist_sort_unique(&l);
	assert_string_equal(joined(&l), "Makefile,a.c,fs/exec.c,z");
	strlist_release(&l);
}

static void test_extend(void **state)
{
	struct strlist a = STRLIST_INIT, b = STRLIST_INIT;

	(void)state;
	strlist_append(&a, "x");
	strlist_append(&b, "y");
	strlist_append(&b, "x");
	strlist_extend(&a, &b);
	strlist_extend(&a, &a);	/* from itself: the copies are made before it grows */
	assert_string_equal(joined(&a), "x,y,x,x,y,x");
	assert_string_equal(joined(&b), "y,x");
	strlist_release(&a);
	strlist_release(&b);
}

static void test_split_lines(void **state)
{
	struct strlist l = STRLIST_INIT;

	(void)state;
	strlist_split_lines(&l, "");
	assert_int_equal(l.n, 0);
	strlist_split_lines(&l, "a\n\nb/c\nlast");
	assert_string_equal(joined(&l), "a,b/c,last");
	strlist_split_lines(&l, "\n\nd\n");
	assert_string_equal(joined(&l), "a,b/c,last,d");
	strlist_release(&l);
}

static void test_many(void **state)
{
	struct strlist l = STRLIST_INIT;
	char name[16];

	(void)state;
	for (int i = 0; i < 10000; i++) {
		snprintf(name, sizeof(name), "%05d", 9999 - i);
		strlist_append(&l, name);
	}
	strlist_sort_unique(&l);
	assert_int_equal(l.n, 10000);
	assert_string_equal(l.items[0], "00000");
	assert_string_equal(l.items[9999], "09999");
	strlist_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_owns_copies),
		cmocka_unit_test(test_unique_and_has),
		cmocka_unit_test(test_sort_unique),
		cmocka_unit_test(test_extend),
		cmocka_unit_test(test_split_lines),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests_name("strlist", tests, NULL, NULL);
}
