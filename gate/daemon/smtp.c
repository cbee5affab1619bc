// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <string.h>

#include "daemon/smtp.h"

#define SMTP_REPLY_MAX 256

struct upload {
	const char *p;
	size_t left;
};

static size_t read_message(char *buf, size_t size, size_t n, void *user)
{
	struct upload *u = user;
	size_t len = size * n < u->left ? size * n : u->left;

	memcpy(buf, u->p, len);
	u->p += len;
	u->left -= len;
	return len;
}

/*
 * Keeps the relay's first refusal, a 4xx or 5xx reply line (libcurl
 * passes SMTP replies to the debug callback as headers in).
 */
static int first_refusal(CURL *curl, curl_infotype type, char *data, size_t size, void *user)
{
	char *line = user;
	size_t n = size;

	(void)curl;
	if (type != CURLINFO_HEADER_IN || line[0] || !size || (data[0] != '4' && data[0] != '5'))
		return 0;
	while (n && (data[n - 1] == '\n' || data[n - 1] == '\r'))
		n--;
	if (n > SMTP_REPLY_MAX - 1)
		n = SMTP_REPLY_MAX - 1;
	for (size_t i = 0; i < n; i++)
		line[i] = (unsigned char)data[i] < 0x20 || data[i] == 0x7f ? '?' : data[i];
	line[n] = '\0';
	return 0;
}

/* @text with every line ending in CRLF (a lone "\n" or "\r\n" alike). */
static void crlf(const char *text, struct strbuf *out)
{
	for (const char *p = text; *p; p++) {
		if (*p == '\n' && (p == text || p[-1] != '\r'))
			strbuf_addch(out, '\r');
		strbuf_addch(out, *p);
	}
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_adds(out, "\r\n");
}

static int read_password(const char *path, struct strbuf *ret, struct strbuf *err)
{
	int r = strbuf_read_file(ret, path);

	if (r < 0) {
		strbuf_addf(err, "password-file %s: %s", path, strerror(-r));
		return r;
	}
	ret->len = strcspn(ret->buf, "\r\n");
	ret->buf[ret->len] = '\0';
	return 0;
}

int smtp_send(const struct smtp_relay *relay, const char *mail_from, const struct strlist *rcpt,
	      const char *message, struct strbuf *err)
{
	char errbuf[CURL_ERROR_SIZE] = "", addr[512], reply[SMTP_REPLY_MAX] = "";
	struct strbuf data = STRBUF_INIT, password = STRBUF_INIT;
	struct curl_slist *to = NULL;
	struct upload up;
	CURLcode rc;
	CURL *curl;
	int r = 0;

	if (strncmp(relay->url, "smtp://", 7) && strncmp(relay->url, "smtps://", 8)) {
		strbuf_addf(err, "%s: not an smtp:// or smtps:// URL", relay->url);
		return -EINVAL;
	}
	if (!rcpt->n) {
		strbuf_addf(err, "%s: no recipient", relay->url);
		return -EINVAL;
	}
	if (relay->user && relay->password_file) {
		r = read_password(relay->password_file, &password, err);
		if (r < 0)
			return r;
	}
	curl = curl_easy_init();
	if (!curl) {
		strbuf_addf(err, "%s: curl_easy_init failed", relay->url);
		strbuf_release(&password);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rcpt->n; i++) {
		snprintf(addr, sizeof(addr), "<%s>", rcpt->items[i]);
		to = curl_slist_append(to, addr);
	}
	crlf(message, &data);
	up.p = data.buf;
	up.left = data.len;
	snprintf(addr, sizeof(addr), "<%s>", mail_from);
	curl_easy_setopt(curl, CURLOPT_URL, relay->url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, addr);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, to);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_message);
	curl_easy_setopt(curl, CURLOPT_READDATA, &up);
	curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)data.len);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)SMTP_TIMEOUT_SEC);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, first_refusal);
	curl_easy_setopt(curl, CURLOPT_DEBUGDATA, reply);
	curl_easy_setopt(curl, CURLOPT_VERBOSE, 1L);
	if (relay->starttls)
		curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (relay->user) {
		curl_easy_setopt(curl, CURLOPT_USERNAME, relay->user);
		curl_easy_setopt(curl, CURLOPT_PASSWORD, password.buf ? password.buf : "");
	}
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		strbuf_addf(err, "%s: %s", relay->url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		if (reply[0])
			strbuf_addf(err, "; the relay said \"%s\"", reply);
		r = -EIO;
	}
	curl_slist_free_all(to);
	curl_easy_cleanup(curl);
	strbuf_release(&data);
	strbuf_release(&password);
	return r;
}
