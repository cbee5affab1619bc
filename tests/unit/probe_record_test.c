// SPDX-License-Identifier: GPL-2.0
/* probe_record_parse(): the suite believes only well-formed probe records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "probe_record.h"

static int parse(const char *bytes, size_t len, struct probe_record *rec)
{
	static char buf[PROBE_MAX_BYTES + 1];

	memcpy(buf, bytes, len);
	buf[len] = '\0';
	return probe_record_parse(buf, len, rec);
}

#define RECORD(s) s, sizeof(s) - 1

static void test_argv_and_envp(void **state)
{
	struct probe_record rec;

	(void)state;
	assert_int_equal(parse(RECORD("PROBE1\n3\n/probe\0-a -b\0./script\0" "1\nA=1\0"), &rec), 0);
	assert_int_equal(rec.argc, 3);
	assert_string_equal(rec.argv[0], "/probe");
	assert_string_equal(rec.argv[1], "-a -b");
	assert_string_equal(rec.argv[2], "./script");
	assert_int_equal(rec.envc, 1);
	assert_string_equal(rec.envp[0], "A=1");
}

static void test_empty_strings_kept(void **state)
{
	struct probe_record rec;

	(void)state;
	assert_int_equal(parse(RECORD("PROBE1\n3\n/probe\0\0./s\0" "0\n"), &rec), 0);
	assert_int_equal(rec.argc, 3);
	assert_string_equal(rec.argv[1], "");
	assert_int_equal(rec.envc, 0);
}

static void test_rejects_truncated(void **state)
{
	static const char whole[] = "PROBE1\n2\n/probe\0./s\0" "1\nA=1\0";
	struct probe_record rec;

	(void)state;
	/* Every proper prefix of a record is incomplete. */
	for (size_t len = 0; len < sizeof(whole) - 1; len++)
		assert_int_equal(parse(whole, len, &rec), -EBADMSG);
}

static void test_rejects_garbage(void **state)
{
	struct probe_record rec;

	(void)state;
	assert_int_equal(parse(RECORD("hello\n"), &rec), -EBADMSG);
	assert_int_equal(parse(RECORD("PROBE1\nx\n"), &rec), -EBADMSG);
	/* trailing bytes after the environment */
	assert_int_equal(parse(RECORD("PROBE1\n0\n0\nextra"), &rec), -EBADMSG);
	/* more strings than the record can hold */
	assert_int_equal(parse(RECORD("PROBE1\n65\n"), &rec), -EBADMSG);
	assert_int_equal(parse(RECORD("PROBE1\n99999999999999999999\n"), &rec), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_and_envp),
		cmocka_unit_test(test_empty_strings_kept),
		cmocka_unit_test(test_rejects_truncated),
		cmocka_unit_test(test_rejects_garbage),
	};

	return cmocka_run_group_tests_name("probe_record", tests, NULL, NULL);
}
