// SPDX-License-Identifier: GPL-2.0
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/sql.h"
#include "basic/xalloc.h"
#include "daemon/outbox.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static size_t discard(char *data, size_t size, size_t n, void *user)
{
	(void)data;
	(void)user;
	return size * n;
}

/* POST @body to @url; 0 on a 2xx answer, else a message in @why. */
static int post(const char *url, const char *body, char *why, size_t why_len)
{
	CURL *curl = curl_easy_init();
	struct curl_slist *headers = NULL;
	long code = 0;
	CURLcode rc;

	if (!curl) {
		snprintf(why, why_len, "curl_easy_init failed");
		return -1;
	}
	headers = curl_slist_append(headers, "Content-Type: application/json");
	headers = curl_slist_append(headers, "User-Agent: backport-gate");
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)OUTBOX_TIMEOUT_SEC);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	if (rc != CURLE_OK) {
		snprintf(why, why_len, "%s", curl_easy_strerror(rc));
		return -1;
	}
	if (code < 200 || code > 299) {
		snprintf(why, why_len, "HTTP %ld", code);
		return -1;
	}
	return 0;
}

int outbox_deliver(sqlite3 *db, int max)
{
	sqlite3_stmt *st;
	int sent = 0, rc;

	if (sql_prepare(db, &st, "SELECT id, url, body, attempts FROM outbox WHERE state = 'pending' "
			"AND next_attempt <= ? ORDER BY id LIMIT ?", "di", (double)time(NULL),
			(sqlite3_int64)max) < 0) {
		fprintf(stderr, "notify: reading the outbox: %s\n", sqlite3_errmsg(db));
		return 0;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(st, 0);
		int attempts = sqlite3_column_int(st, 3) + 1;
		char *url = xstrdup((const char *)sqlite3_column_text(st, 1));
		char *body = xstrdup((const char *)sqlite3_column_text(st, 2));
		char why[256] = "";
		/* backoff: 2, 4, 8, ... seconds, at most 10 minutes */
		double delay = attempts > 9 ? 600 : (double)(1 << attempts);
		int ok, r;

		ok = post(url, body, why, sizeof(why)) == 0;
		if (ok)
			r = sql_exec(db, "UPDATE outbox SET state = 'sent', attempts = ?, "
				     "sent_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
				     "ii", (sqlite3_int64)attempts, id);
		else
			r = sql_exec(db, "UPDATE outbox SET state = CASE WHEN ?1 >= "
				     STRINGIFY(OUTBOX_MAX_ATTEMPTS) " THEN 'failed' ELSE 'pending' END, "
				     "attempts = ?1, next_attempt = ?3, last_error = ?4 WHERE id = ?2",
				     "iids", (sqlite3_int64)attempts, id, (double)time(NULL) + delay, why);
		fprintf(stderr, "notify %s: %s%s\n", url, ok ? "sent" : "failed: ", why);
		if (r < 0)
			fprintf(stderr, "notify %s: outbox entry %lld: recording attempt %d: %s\n", url,
				(long long)id, attempts, sqlite3_errmsg(db));
		sent += ok;
		free(url);
		free(body);
	}
	if (rc != SQLITE_DONE)
		fprintf(stderr, "notify: reading the outbox: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return sent;
}
