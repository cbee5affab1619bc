/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smtp: hand one message to a mail relay with libcurl's SMTP support.
 * The relay is smtp://HOST[:PORT] (STARTTLS when asked, required then)
 * or smtps://HOST[:PORT] (TLS from the start); AUTH only when a user is
 * given. The message is sent as it is, its "\n" line ends turned into
 * CRLF (libcurl dot-stuffs and ends the DATA).
 *
 * A message counts as delivered only when the relay answered the end of
 * its DATA with 2xx: up to then it has taken no responsibility for it
 * (RFC 5321, 4.1.1.4), so a sender that dies before that answer sends it
 * again without doubling it. The one window left is between the relay's
 * answer and the caller recording it; a message sent twice through it
 * carries the same Message-ID, which list archives and mail clients
 * treat as one message.
 */
#ifndef GATE_SMTP_H
#define GATE_SMTP_H

#include <stdbool.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"

#define SMTP_TIMEOUT_SEC 10

struct smtp_relay {
	const char *url;		/* smtp://HOST:PORT or smtps://HOST:PORT */
	const char *user;		/* NULL: no AUTH */
	const char *password_file;	/* the password, alone on its first line */
	bool starttls;			/* smtp:// only: STARTTLS, refused if the relay lacks it */
};

/*
 * Send @message from @mail_from to every address of @rcpt (bare
 * addr-specs, parse/address.h) through @relay, within SMTP_TIMEOUT_SEC.
 * 0 once the relay accepted it; else -EIO (the relay refused or could
 * not be reached), -EINVAL (a bad relay URL, no recipient) or -errno of
 * reading the password file, with @err naming the relay and what it
 * said ("smtp://127.0.0.1:2525: RCPT TO <a@b>: 550 ...").
 */
int smtp_send(const struct smtp_relay *relay, const char *mail_from, const struct strlist *rcpt,
	      const char *message, struct strbuf *err);

#endif
