/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reply: a run's report as an answer on the stable review thread, the way
 * test labs answer there: an RFC 5322 message, plain text, that a sender
 * hands to SMTP as it is (or a person pipes to sendmail).
 *
 * Headers, in this order: From, To, Cc (only when given), Subject, Date
 * (RFC 5322, UTC), Message-ID, In-Reply-To and References (both only
 * with an in_reply_to), MIME-Version 1.0, Content-Type text/plain;
 * charset=utf-8, Content-Transfer-Encoding 8bit. Lines end in "\n",
 * as sendmail takes them (an SMTP sender turns them into CRLF and
 * dot-stuffs). Header values with bytes outside ASCII are RFC 2047
 * encoded (UTF-8, base64); every header is folded at whitespace to at
 * most 72 columns.
 *
 *   From:     opts->from, else "backport-gate <backport-gate@HOSTNAME>";
 *             the same identity signs the Tested-by: trailer.
 *   Subject:  "Re: <opts->subject>" when the thread's subject is known
 *             (no second "Re:" when it has one), else
 *             "[backport-gate] <queue> on <base>: N to drop", with
 *             "nothing to drop" for none and "no verdict" for an error
 *             report.
 *   Message-ID: opts->message_id, else
 *             <backport-gate.run-RUN.RANDOM@DOMAIN>, RANDOM 16 hex
 *             digits from getrandom(), DOMAIN the From address's domain
 *             (else the host name).
 *
 * Body, lines of at most 72 columns, wrapped at spaces:
 *   - one line saying what was gated and the verdict;
 *   - "Tested:": queue and its source, ref and commit, snapshot hash,
 *     base release and commit, the kept tree and commit, kernel config,
 *     compiler, suite version, QEMU accelerator, cost; whatever the report
 *     holds, nothing it does not;
 *   - "Regressions (compared to <base>):" per dropped patch its file
 *     name, subject, upstream sha, reason, the cases, the evidence (one
 *     line per case: the argv expected and what came) and the bisection
 *     steps; "none" when nothing is dropped;
 *   - "Fixes and behaviour changes (compared to <base>):" cases failing
 *     on base that pass with the queue, and the quirk cases kept patches
 *     changed, with their evidence; flaky cases;
 *   - "Test result summary": over the suite's cases on the queue as
 *     posted (every patch that applies; report key "cases"):
 *       total  cases run,
 *       pass   passed, or a quirk case changed (listed above, not a
 *              failure),
 *       fail   failed or could not run, and passed on base,
 *       skip   failed on base already, or flaky: not judged;
 *     as "total: N, pass: N, fail: N, skip: N"; when that kernel did not
 *     build or boot, a line saying so instead;
 *   - the trailer: "Tested-by: <From>" only when nothing is dropped (and
 *     there is a verdict); otherwise no Tested-by and, per dropped patch,
 *     in series order, one line "Please drop: <file> (\"<subject>\")".
 *
 * Two kinds of lines may pass 72 columns, never anything else: an
 * evidence line, where a quoted argv longer than the line is kept whole
 * (it is never broken inside quotes), and a "Please drop:" line, which is
 * a trailer that scripts grep, kept whole like a kernel Fixes: tag. A
 * single word longer than the line (a path) stands alone on its line.
 *
 * Returns 0, or -EINVAL with @err when an option holds a CR or LF (a
 * header would be injected) or the report is not a gate report object.
 */
#ifndef GATE_REPLY_H
#define GATE_REPLY_H

#include "output/format.h"

#define REPLY_WIDTH 72

int reply_render(const struct report_input *in, const struct render_options *opts,
		 struct strbuf *out, struct strbuf *err);

#endif
