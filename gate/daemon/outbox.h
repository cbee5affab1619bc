/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outbox: notifications that must reach their receivers. A verdict's rows
 * are written with the verdict (record/jobs.h, record/outbox.h); this sends
 * what is due with libcurl (POST of the report JSON, a timeout per attempt), and on a
 * failure schedules the next attempt with exponential backoff. A row is
 * marked sent only after the receiver answered 2xx, so nothing is lost
 * across restarts (a receiver may see a verdict twice if the daemon dies
 * between its 2xx and our commit; the body carries the run id).
 */
#ifndef GATE_OUTBOX_H
#define GATE_OUTBOX_H

#include <sqlite3.h>

#define OUTBOX_TIMEOUT_SEC 10

/*
 * Send at most @max due notifications, each attempt recorded (given up
 * after record/outbox.h's OUTBOX_MAX_ATTEMPTS). Returns how many were
 * sent; logs each attempt and any database error.
 */
int outbox_deliver(sqlite3 *db, int max);

#endif
