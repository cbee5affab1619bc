// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "daemon/mailer.h"
#include "output/format.h"
#include "output/reply.h"
#include "parse/address.h"

/* @a and @b as one address list; NULL when both are empty. */
static char *join(const char *a, const char *b)
{
	if (a && *a && b && *b)
		return xasprintf("%s, %s", a, b);
	if (a && *a)
		return xstrdup(a);
	return b && *b ? xstrdup(b) : NULL;
}

int mailer_build(const struct mailer_request *req, const json_t *report, struct mailer_mail *ret,
		 struct strbuf *err)
{
	const struct report_config *rc = req->report;
	const char *from = req->from ? req->from : rc ? rc->from : NULL;
	const char *cc = req->cc ? req->cc : rc ? rc->cc : NULL;
	struct render_options opts = { 0 };
	struct report_input in = { .report = report };
	struct strlist rcpt = STRLIST_INIT;
	char *to = req->to ? xstrdup(req->to) : join(req->review_list, rc ? rc->to : NULL);
	int r;

	if (!from || !*from) {
		strbuf_adds(err, "mail: no From address ([report] from, or --from)");
		r = -EINVAL;
		goto out;
	}
	if (!to) {
		strbuf_adds(err, "mail: no recipient (the queue's review-list, [report] to, or --to)");
		r = -EINVAL;
		goto out;
	}
	r = address_parse_one(from, &ret->mail_from, err);
	if (r == 0)
		r = address_list_parse(to, &rcpt, err);
	if (r == 0 && cc)
		r = address_list_parse(cc, &rcpt, err);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < rcpt.n; i++)
		strlist_add_unique(&ret->rcpt, rcpt.items[i]);
	opts.from = from;
	opts.to = to;
	opts.cc = cc;
	opts.in_reply_to = req->in_reply_to;
	opts.subject = req->subject;
	r = reply_render(&in, &opts, &ret->message, err);
out:
	strlist_release(&rcpt);
	free(to);
	return r;
}

void mailer_mail_release(struct mailer_mail *m)
{
	strbuf_release(&m->message);
	strbuf_release(&m->mail_from);
	strlist_release(&m->rcpt);
}

char *mailer_rcpt_lines(const struct mailer_mail *m)
{
	struct strbuf lines = STRBUF_INIT;

	for (size_t i = 0; i < m->rcpt.n; i++)
		strbuf_addf(&lines, "%s\n", m->rcpt.items[i]);
	return strbuf_detach(&lines, NULL);
}
