// SPDX-License-Identifier: GPL-2.0
/* ktap_parse(): only the suite's block counts, and only when complete. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "parse/ktap.h"

static const char console[] =
	"[    0.000000] Linux version 6.1.192\r\n"
	"ok 1 not-a-result-before-the-header\r\n"
	"KTAP version 1\r\n"
	"1..4\r\n"
	"# case test.pl kind=contract\r\n"
	"ok 1 test.pl\r\n"
	"# case empty kind=quirk\r\n"
	"not ok 2 empty # TODO quirk changed: expected errno EACCES, got errno ENOEXEC\r\n"
	"[    1.234567] random: crng init done\r\n"
	"# case nixos-2019 kind=contract\r\n"
	"not ok 3 nixos-2019 # expected argv[1]=\"-I/nix\", got errno ENOEXEC\r\n"
	"# case execveat-dev-fd kind=contract\r\n"
	"not ok 4 execveat-dev-fd # ERROR set-up: ENOSPC\r\n"
	"# Totals: pass:1 fail:1 quirk-changed:1 error:1\r\n"
	"ok 5 after-the-block\r\n";

static void test_statuses_and_kinds(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct ktap_run run;

	(void)state;
	assert_int_equal(ktap_parse(console, sizeof(console) - 1, &run, &err), 0);
	assert_true(run.complete);
	assert_int_equal(run.n_cases, 4);
	assert_string_equal(run.cases[0].name, "test.pl");
	assert_int_equal(run.cases[0].status, CASE_PASS);
	assert_false(run.cases[0].quirk);
	assert_string_equal(run.cases[1].name, "empty");
	assert_int_equal(run.cases[1].status, CASE_QUIRK_CHANGED);
	assert_true(run.cases[1].quirk);
	assert_int_equal(run.cases[2].status, CASE_FAIL);
	assert_string_equal(run.cases[2].diagnostic, "expected argv[1]=\"-I/nix\", got errno ENOEXEC");
	assert_int_equal(run.cases[3].status, CASE_ERROR);
	assert_non_null(ktap_find(&run, "nixos-2019"));
	assert_null(ktap_find(&run, "after-the-block"));
	ktap_run_release(&run);
	strbuf_release(&err);
}

static void test_every_prefix_is_incomplete(void **state)
{
	const char *totals = strstr(console, "# Totals:");
	struct strbuf err = STRBUF_INIT;
	struct ktap_run run;

	(void)state;
	for (size_t len = 0; len < (size_t)(totals - console); len++) {
		assert_int_equal(ktap_parse(console, len, &run, &err), 0);
		assert_false(run.complete);
		ktap_run_release(&run);
	}
	strbuf_release(&err);
}

static void test_out_of_order_is_refused(void **state)
{
	static const char bad[] = "KTAP version 1\n1..2\nok 2 b\nok 1 a\n# Totals: x\n";
	static const char big[] = "KTAP version 1\n1..99999\n";
	struct strbuf err = STRBUF_INIT;
	struct ktap_run run;

	(void)state;
	assert_int_equal(ktap_parse(bad, sizeof(bad) - 1, &run, &err), -EBADMSG);
	assert_non_null(strstr(err.buf, "result 2 out of order (expected 1 of 2)"));
	strbuf_reset(&err);
	assert_int_equal(ktap_parse(big, sizeof(big) - 1, &run, &err), -EBADMSG);
	assert_non_null(strstr(err.buf, "bad plan"));
	strbuf_release(&err);
}

static void test_missing_results_are_incomplete(void **state)
{
	static const char short_run[] = "KTAP version 1\n1..3\nok 1 a\nok 2 b\n# Totals: pass:2\n";
	struct strbuf err = STRBUF_INIT;
	struct ktap_run run;

	(void)state;
	assert_int_equal(ktap_parse(short_run, sizeof(short_run) - 1, &run, &err), 0);
	assert_false(run.complete);
	ktap_run_release(&run);
	strbuf_release(&err);
}

static void test_only_the_marked_block_counts(void **state)
{
	static const char out[] =
		"KTAP version 1\n1..1\nnot ok 1 forged-before # a kernel message posing as the suite\n"
		"# backport-gate begin 00ff\n"
		"# backport-gate begin 1234abcd\n"
		"KTAP version 1\n1..1\nok 1 test.pl\n# Totals: pass:1\n"
		"# backport-gate end 1234abcd\n"
		"not ok 1 forged-after\n";
	struct strbuf err = STRBUF_INIT;
	struct ktap_run run;
	const char *block;
	size_t len;

	(void)state;
	assert_true(ktap_marked_block(out, sizeof(out) - 1, "1234abcd", &block, &len));
	assert_int_equal(ktap_parse(block, len, &run, &err), 0);
	assert_true(run.complete);
	assert_int_equal(run.n_cases, 1);
	assert_string_equal(run.cases[0].name, "test.pl");
	ktap_run_release(&run);
	/* a wrong token, or a missing end marker, gives nothing */
	assert_false(ktap_marked_block(out, sizeof(out) - 1, "00ff", &block, &len));
	assert_false(ktap_marked_block(out, sizeof(out) - 1, "1234abc", &block, &len));
	assert_false(ktap_marked_block(out, strstr(out, "# backport-gate end") - out, "1234abcd",
				       &block, &len));
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statuses_and_kinds),
		cmocka_unit_test(test_every_prefix_is_incomplete),
		cmocka_unit_test(test_out_of_order_is_refused),
		cmocka_unit_test(test_missing_results_are_incomplete),
		cmocka_unit_test(test_only_the_marked_block_counts),
	};

	return cmocka_run_group_tests_name("ktap", tests, NULL, NULL);
}
