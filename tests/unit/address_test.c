// SPDX-License-Identifier: GPL-2.0
/* address: an address list as a person writes it, to an SMTP envelope. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parse/address.h"

/* The addresses of @text as "a|b|c", or "error: MESSAGE". */
static const char *parsed(const char *text)
{
	static char buf[4096];
	struct strlist l = STRLIST_INIT;
	struct strbuf err = STRBUF_INIT;
	size_t at = 0;

	buf[0] = '\0';
	if (address_list_parse(text, &l, &err) < 0) {
		snprintf(buf, sizeof(buf), "error: %s", err.buf);
		assert_int_equal(l.n, 0);	/* nothing appended on a failure */
	}
	for (size_t i = 0; i < l.n && at < sizeof(buf); i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? "|" : "", l.items[i]);
	strlist_release(&l);
	strbuf_release(&err);
	return buf;
}

static void test_the_forms_people_write(void **state)
{
	(void)state;
	assert_string_equal(parsed("stable@vger.kernel.org"), "stable@vger.kernel.org");
	assert_string_equal(parsed("Greg Kroah-Hartman <gregkh@linuxfoundation.org>"),
			    "gregkh@linuxfoundation.org");
	assert_string_equal(parsed("  a@b.org ,Name <c@d.org>,, e@f.org (the admin)  "),
			    "a@b.org|c@d.org|e@f.org");
	/* a comma, an escaped quote and angle brackets inside the quoted name */
	assert_string_equal(parsed("\"Doe, Jane \\\"JD\\\" <x>\" <jane@example.org>, x@y.z"),
			    "jane@example.org|x@y.z");
	assert_string_equal(parsed("<bare@angle.org> (comment, with comma)"), "bare@angle.org");
	assert_string_equal(parsed(""), "");
	assert_string_equal(parsed(" , "), "");
}

static void test_what_the_envelope_cannot_carry(void **state)
{
	(void)state;
	assert_string_equal(parsed("a@b, stable"), "error: address \" stable\": the address has no '@'");
	assert_string_equal(parsed("Greg gregkh@linuxfoundation.org"),
			    "error: address \"Greg gregkh@linuxfoundation.org\": a name needs its "
			    "address in <...>");
	assert_string_equal(parsed("Name <a@b"), "error: address \"Name <a@b\": an unclosed '<'");
	assert_string_equal(parsed("\"Name <a@b>"), "error: address \"\"Name <a@b>\": an unclosed quote");
	assert_string_equal(parsed("a@b (note"), "error: address \"a@b (note\": an unclosed comment");
	assert_string_equal(parsed("<a@b> trailing"),
			    "error: address \"<a@b> trailing\": text after the <address>");
	assert_string_equal(parsed("undisclosed-recipients:;"),
			    "error: address \"undisclosed-recipients:;\": groups are not supported; "
			    "list the addresses");
	assert_string_equal(parsed("<a@b@c>"), "error: address \"<a@b@c>\": the address has more "
			    "than one '@'");
	assert_string_equal(parsed("<@b>"), "error: address \"<@b>\": the address lacks its local "
			    "part or its domain");
	assert_string_equal(parsed("<a b@c>"), "error: address \"<a b@c>\": the address holds a "
			    "space or a control character");
	assert_string_equal(parsed("<a\r\nRCPT TO:<x@y>@c>"),
			    "error: address \"<a??RCPT TO:\": an unclosed '<'");
	assert_string_equal(parsed("<>"), "error: address \"<>\": no address");
}

static void test_exactly_one(void **state)
{
	struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	assert_int_equal(address_parse_one("backport-gate <gate@lab.example.org>", &got, &err), 0);
	assert_string_equal(got.buf, "gate@lab.example.org");
	strbuf_reset(&got);
	assert_int_equal(address_parse_one("a@b, c@d", &got, &err), -EINVAL);
	assert_string_equal(err.buf, "address \"a@b, c@d\": one address expected, not a list");
	assert_string_equal(got.buf, "");
	strbuf_reset(&err);
	assert_int_equal(address_parse_one(" ", &got, &err), -EINVAL);
	assert_string_equal(err.buf, "address \" \": no address");
	strbuf_release(&got);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_forms_people_write),
		cmocka_unit_test(test_what_the_envelope_cannot_carry),
		cmocka_unit_test(test_exactly_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
