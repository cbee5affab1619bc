// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/sql.h"
#include "basic/xalloc.h"
#include "record/outbox.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

int outbox_add(sqlite3 *db, int64_t run, const char *url, const char *body)
{
	return sql_exec(db, "INSERT OR IGNORE INTO outbox (run_id, url, body, state) "
			"VALUES (?, ?, ?, 'pending')", "iss", (sqlite3_int64)run, url, body);
}

int outbox_add_mail(sqlite3 *db, int64_t run, const char *url, const char *mail_from,
		    const char *rcpt, const char *message)
{
	return sql_exec(db, "INSERT OR IGNORE INTO outbox (run_id, url, body, state, kind, "
			"mail_from, rcpt) VALUES (?, ?, ?, 'pending', 'mail', ?, ?)", "issss",
			(sqlite3_int64)run, url, message, mail_from, rcpt);
}

static char *column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

int outbox_due(sqlite3 *db, double now, int max, struct outbox_entry **ret_entries, size_t *ret_n)
{
	struct outbox_entry *entries = NULL;
	sqlite3_stmt *st;
	size_t n = 0;
	int rc;

	*ret_entries = NULL;
	*ret_n = 0;
	if (sql_prepare(db, &st, "SELECT id, url, body, attempts, run_id, kind, mail_from, rcpt "
			"FROM outbox WHERE state = 'pending' "
			"AND next_attempt <= ? ORDER BY id LIMIT ?", "di", now, (sqlite3_int64)max) < 0)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct outbox_entry *e;

		entries = xrealloc(entries, (n + 1) * sizeof(*entries));
		e = &entries[n++];
		e->id = sqlite3_column_int64(st, 0);
		e->url = xstrdup((const char *)sqlite3_column_text(st, 1));
		e->body = xstrdup((const char *)sqlite3_column_text(st, 2));
		e->attempts = sqlite3_column_int(st, 3);
		e->run = sqlite3_column_int64(st, 4);
		e->kind = strcmp((const char *)sqlite3_column_text(st, 5), "mail") ? OUTBOX_WEBHOOK
										: OUTBOX_MAIL;
		e->mail_from = column_dup(st, 6);
		e->rcpt = column_dup(st, 7);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		outbox_entries_free(entries, n);
		return -EIO;
	}
	*ret_entries = entries;
	*ret_n = n;
	return 0;
}

void outbox_entries_free(struct outbox_entry *entries, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(entries[i].url);
		free(entries[i].body);
		free(entries[i].mail_from);
		free(entries[i].rcpt);
	}
	free(entries);
}

int outbox_mark_sent(sqlite3 *db, int64_t id, int attempts)
{
	return sql_exec(db, "UPDATE outbox SET state = 'sent', attempts = ?, "
			"sent_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
			"ii", (sqlite3_int64)attempts, (sqlite3_int64)id);
}

int outbox_mark_failed(sqlite3 *db, int64_t id, int attempts, double next_attempt, const char *error)
{
	return sql_exec(db, "UPDATE outbox SET state = CASE WHEN ?1 >= "
			STRINGIFY(OUTBOX_MAX_ATTEMPTS) " THEN 'failed' ELSE 'pending' END, "
			"attempts = ?1, next_attempt = ?3, last_error = ?4 WHERE id = ?2",
			"iids", (sqlite3_int64)attempts, (sqlite3_int64)id, next_attempt, error);
}
