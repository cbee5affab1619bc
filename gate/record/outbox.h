/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outbox: the rows of notifications still to send (db.h's schema), every
 * statement on the outbox table. A verdict's rows are added with it, in
 * its transaction (jobs_record_done()); daemon/outbox.h sends what is due
 * and records each attempt here. A row is pending until an attempt
 * succeeds (sent) or the OUTBOX_MAX_ATTEMPTS-th fails (failed).
 *
 * Every function returns 0 or a negative errno: -EIO for a database error
 * (sqlite3_errmsg() says which). Nothing here logs: the caller does,
 * naming the receiver.
 */
#ifndef GATE_RECORD_OUTBOX_H
#define GATE_RECORD_OUTBOX_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Attempts before a notification is given up (state 'failed'). */
#define OUTBOX_MAX_ATTEMPTS 12

/*
 * Queue a notification of run @run: POST @body to @url. A second one of
 * the same run to the same receiver is ignored. Call it inside the
 * caller's transaction.
 */
int outbox_add(sqlite3 *db, int64_t run, const char *url, const char *body);

/*
 * Queue the mail @message of run @run through the relay @url, from
 * @mail_from to @rcpt (bare addresses, one per line). Like outbox_add():
 * once per run and relay, inside the caller's transaction.
 */
int outbox_add_mail(sqlite3 *db, int64_t run, const char *url, const char *mail_from,
		    const char *rcpt, const char *message);

enum outbox_kind { OUTBOX_WEBHOOK, OUTBOX_MAIL };

/* A notification due to be sent. */
struct outbox_entry {
	int64_t id;
	int64_t run;
	enum outbox_kind kind;
	char *url;		/* the receiver, or the mail relay */
	char *body;		/* the JSON to POST, or the whole message */
	char *mail_from;	/* OUTBOX_MAIL: the envelope, else NULL */
	char *rcpt;		/* OUTBOX_MAIL: one address per line */
	int attempts;		/* made so far */
};

/*
 * The pending notifications whose next attempt is due at @now (seconds
 * since the epoch), oldest first, at most @max, into a new array
 * *ret_entries of *ret_n (free it with outbox_entries_free(); NULL when
 * none are due). On a failure nothing is returned.
 */
int outbox_due(sqlite3 *db, double now, int max, struct outbox_entry **ret_entries, size_t *ret_n);
void outbox_entries_free(struct outbox_entry *entries, size_t n);

/* Attempt @attempts (counting from 1) of notification @id succeeded: sent. */
int outbox_mark_sent(sqlite3 *db, int64_t id, int attempts);
/*
 * Attempt @attempts of @id failed with @error: tried again from
 * @next_attempt (seconds since the epoch), or failed for good after
 * OUTBOX_MAX_ATTEMPTS.
 */
int outbox_mark_failed(sqlite3 *db, int64_t id, int attempts, double next_attempt, const char *error);

#endif
