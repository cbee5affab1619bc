// SPDX-License-Identifier: GPL-2.0
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/outbox.h"
#include "daemon/smtp.h"
#include "record/outbox.h"

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

/* Mail @e through its relay; 0, or -1 with a message in @why. */
static int mail(const struct outbox_entry *e, const struct report_config *report, char *why,
		size_t why_len)
{
	struct smtp_relay relay = { .url = e->url };
	struct strlist rcpt = STRLIST_INIT;
	struct strbuf err = STRBUF_INIT;
	int r;

	if (report->smtp && !strcmp(report->smtp, e->url)) {
		relay.user = report->user;
		relay.password_file = report->password_file;
		relay.starttls = report->starttls;
	}
	strlist_split_lines(&rcpt, e->rcpt ? e->rcpt : "");
	r = smtp_send(&relay, e->mail_from ? e->mail_from : "", &rcpt, e->body, &err);
	if (r < 0)
		snprintf(why, why_len, "%s", err.buf);
	strlist_release(&rcpt);
	strbuf_release(&err);
	return r < 0 ? -1 : 0;
}

int outbox_deliver(sqlite3 *db, const struct report_config *report, int max)
{
	struct outbox_entry *due;
	size_t n;
	int attempted = 0, failed = 0;

	if (outbox_due(db, (double)time(NULL), max, &due, &n) < 0) {
		fprintf(stderr, "notify: reading the outbox: %s\n", sqlite3_errmsg(db));
		return -EIO;
	}
	for (size_t i = 0; i < n; i++) {
		const struct outbox_entry *e = &due[i];
		int attempts = e->attempts + 1;
		char why[512] = "";
		/* backoff: 2, 4, 8, ... seconds, at most 10 minutes */
		double delay = attempts > 9 ? 600 : (double)(1 << attempts);
		const char *what = e->kind == OUTBOX_MAIL ? "mail" : "notify";
		int ok, r;

		if (e->kind == OUTBOX_MAIL)
			ok = mail(e, report, why, sizeof(why)) == 0;
		else
			ok = post(e->url, e->body, why, sizeof(why)) == 0;
		if (ok)
			r = outbox_mark_sent(db, e->id, attempts);
		else
			r = outbox_mark_failed(db, e->id, attempts, (double)time(NULL) + delay, why);
		if (e->kind == OUTBOX_MAIL)
			fprintf(stderr, "mail run %lld via %s: %s%s%s\n", (long long)e->run, e->url,
				ok ? "sent" : "failed: ", why,
				!ok && attempts >= OUTBOX_MAX_ATTEMPTS ? "; given up" : "");
		else
			fprintf(stderr, "notify %s: %s%s\n", e->url, ok ? "sent" : "failed: ", why);
		if (r < 0) {
			fprintf(stderr, "%s %s: outbox entry %lld: recording attempt %d: %s\n", what,
				e->url, (long long)e->id, attempts, sqlite3_errmsg(db));
			failed = 1;
		}
		attempted++;
	}
	outbox_entries_free(due, n);
	return failed ? -EIO : attempted;
}
