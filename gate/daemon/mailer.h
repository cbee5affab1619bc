/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mailer: a run's reply on the stable review thread, made ready to mail:
 * the message (output/reply.h) and its SMTP envelope, from the
 * configuration's [report] section and the queue's review-list
 * (parse/config.h). The daemon puts it in the outbox with the verdict
 * (daemon/job.h); `backport-gate report RUN --send` hands it to the
 * relay at once (daemon/smtp.h).
 *
 *   From:   @from, else [report] from
 *   To:     @to, else the queue's review-list and [report] to
 *   Cc:     @cc, else [report] cc
 *   envelope: MAIL FROM the From address, RCPT TO every To and Cc
 *   address (each once)
 *   In-Reply-To/References and "Re: <subject>": the thread, when known
 */
#ifndef GATE_MAILER_H
#define GATE_MAILER_H

#include <jansson.h>

#include "basic/strbuf.h"
#include "basic/strlist.h"
#include "parse/config.h"

/* What a reply answers and to whom; NULL members take the defaults above. */
struct mailer_request {
	const struct report_config *report;
	const char *review_list;	/* the queue's, or NULL */
	const char *from, *to, *cc;	/* overrides (report --send) */
	const char *in_reply_to;	/* the review message's Message-ID */
	const char *subject;		/* its subject */
};

struct mailer_mail {
	struct strbuf message;	/* the whole RFC 5322 message */
	struct strbuf mail_from; /* the envelope sender, a bare address */
	struct strlist rcpt;	/* the envelope recipients, bare addresses */
};

#define MAILER_MAIL_INIT { STRBUF_INIT, STRBUF_INIT, STRLIST_INIT }

/*
 * Render @report's reply for @req into @ret (initialised with
 * MAILER_MAIL_INIT). 0, or -EINVAL with @err: no From, no recipient, an
 * address that does not parse, or what reply_render() refuses.
 */
int mailer_build(const struct mailer_request *req, const json_t *report, struct mailer_mail *ret,
		 struct strbuf *err);
void mailer_mail_release(struct mailer_mail *m);

/* @m's recipients one per line, as the outbox keeps them (free() it). */
char *mailer_rcpt_lines(const struct mailer_mail *m);

#endif
