// SPDX-License-Identifier: GPL-2.0
/*
 * mail_parse() and mailbox_parse() on untrusted bytes: a mail or an mbox
 * saved from a list is written by anyone. Whatever they return must hold
 * together: one-line strings where a header is one line, a decoded text
 * of the length it says, raw slices inside the input and in order.
 */
#include <stdint.h>

#include "fuzz_check.h"
#include "parse/mail.h"

static void check_one_line(const char *what, const char *s)
{
	if (s)
		fuzz_check(!strchr(s, '\n'), "%s of two lines: %s", what, s);
}

static void check_mail(const struct mail *m, size_t size)
{
	check_one_line("subject", m->subject);
	check_one_line("author", m->author);
	check_one_line("date", m->date);
	check_one_line("message-id", m->message_id);
	fuzz_check(m->text != NULL, "a parsed mail without text");
	fuzz_check(strlen(m->text) <= m->len, "text of %zu bytes says %zu", strlen(m->text), m->len);
	fuzz_check(m->raw_offset <= size && m->raw_len <= size - m->raw_offset,
		   "raw slice %zu+%zu outside %zu bytes", m->raw_offset, m->raw_len, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct mailbox box;
	struct mail m;

	if (mail_parse((const char *)data, size, &m, &err) == 0) {
		check_mail(&m, size);
		mail_release(&m);
	} else {
		fuzz_check(err.len > 0, "mail_parse failed without a message");
	}
	strbuf_reset(&err);
	if (mailbox_parse((const char *)data, size, &box, &err) == 0) {
		size_t end = 0;

		for (size_t i = 0; i < box.n; i++) {
			check_mail(&box.mails[i], size);
			fuzz_check(box.mails[i].raw_offset >= end, "message %zu starts at %zu, before %zu",
				   i + 1, box.mails[i].raw_offset, end);
			end = box.mails[i].raw_offset + box.mails[i].raw_len;
			fuzz_check(!box.mails[i].is_cover_letter, "a cover letter among the patches");
		}
		mailbox_release(&box);
	} else {
		fuzz_check(err.len > 0, "mailbox_parse failed without a message");
	}
	strbuf_release(&err);
	return 0;
}
