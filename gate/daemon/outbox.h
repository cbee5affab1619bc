/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outbox: notifications that must reach their receivers. A verdict's rows
 * are written with the verdict (record/jobs.h, record/outbox.h); this sends
 * what is due with libcurl: a webhook is a POST of the report JSON, a
 * mail (the reply on the review thread) goes to its relay through
 * daemon/smtp.h, each attempt with a timeout. On a failure the next
 * attempt is scheduled with exponential backoff. A row is marked sent
 * only after the receiver answered 2xx (the relay: the end of DATA), so
 * nothing is lost across restarts (a receiver may see a verdict twice if
 * the daemon dies between that answer and our commit; the webhook body
 * carries the run id, the mail its Message-ID, and the same when the
 * database stays locked by another process past the caller's busy
 * timeout between that answer and our commit: the row stays pending).
 *
 * The daemon calls this from a thread of its own (serve.h, the notifier)
 * with a connection of its own: a receiver that never answers holds that
 * thread for OUTBOX_TIMEOUT_SEC per attempt, never the main loop.
 */
#ifndef GATE_OUTBOX_H
#define GATE_OUTBOX_H

#include <sqlite3.h>

#include "parse/config.h"

#define OUTBOX_TIMEOUT_SEC 10

/*
 * Send at most @max due notifications, each attempt recorded (given up
 * after record/outbox.h's OUTBOX_MAX_ATTEMPTS). A mail goes through the
 * relay its row names, with @report's user, password-file and starttls
 * when that is @report's relay. Returns how many were attempted (sent or
 * not; 0 when none was due), or -EIO when the outbox could not be read
 * or an attempt could not be recorded; logs each attempt and any
 * database error.
 */
int outbox_deliver(sqlite3 *db, const struct report_config *report, int max);

#endif
