/* SPDX-License-Identifier: GPL-2.0 */
/*
 * address: the addresses of an RFC 5322 address list as a person writes
 * it in a configuration or on a command line, for an SMTP envelope:
 *
 *   Greg Kroah-Hartman <gregkh@linuxfoundation.org>, stable@vger.kernel.org,
 *   "Doe, Jane" <jane@example.org>, root@localhost (the admin)
 *
 * Each member is "display name <addr-spec>" (the name may be quoted, with
 * commas and backslash escapes inside the quotes) or a bare addr-spec,
 * optionally followed by a (comment). Members are separated by commas;
 * empty members are skipped. Groups ("undisclosed-recipients:;") and
 * source routes are refused.
 *
 * An addr-spec is kept as written between the angle brackets (or trimmed
 * when bare), and must be LOCAL@DOMAIN with non-empty parts, no spaces,
 * no control characters and no '<', '>', ',', '"', '(' or ')': it goes
 * into SMTP's MAIL FROM and RCPT TO, where anything else would break the
 * command line.
 *
 * Pure: no I/O. Every function returns 0 or -EINVAL with one message in
 * @err naming the member that is wrong and why; on a failure nothing is
 * appended to @ret.
 */
#ifndef GATE_ADDRESS_H
#define GATE_ADDRESS_H

#include "basic/strbuf.h"
#include "basic/strlist.h"

/* Append every addr-spec of the list @text to @ret, in order. */
int address_list_parse(const char *text, struct strlist *ret, struct strbuf *err);

/* The one addr-spec of @text (a list of exactly one member) into @ret. */
int address_parse_one(const char *text, struct strbuf *ret, struct strbuf *err);

#endif
