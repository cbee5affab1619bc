// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "basic/xalloc.h"
#include "parse/webhook.h"

#define HMAC_SHA256_LEN 32
#define COMMIT_HEX_LEN 40
#define QUOTED_MAX 64	/* bytes of an offending value shown in a message */

static const char hex_digits[] = "0123456789abcdef";

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if (is_control((unsigned char)*s))
			return true;
	return false;
}

/*
 * Append at most @max bytes of @s for a one-line message, control bytes as
 * '?' and "..." when cut: body text must not break a log line.
 */
static void add_clean(struct strbuf *err, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++)
		strbuf_addch(err, is_control((unsigned char)s[i]) ? '?' : s[i]);
	if (s[i])
		strbuf_adds(err, "...");
}

static void add_quoted(struct strbuf *err, const char *s)
{
	strbuf_addch(err, '\'');
	add_clean(err, s, QUOTED_MAX);
	strbuf_addch(err, '\'');
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly 2 * @len hex digits (either case) at @hex into @out. */
static bool hex_decode(const char *hex, unsigned char *out, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		int hi = hex_value(hex[2 * i]), lo;

		if (hi < 0)
			return false;
		lo = hex_value(hex[2 * i + 1]);
		if (lo < 0)
			return false;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return hex[2 * len] == '\0';
}

static void hmac_sha256(const char *key, size_t key_len, const char *data, size_t len,
			unsigned char out[HMAC_SHA256_LEN])
{
	size_t out_len = 0;

	/* OpenSSL reads a NULL key as "no key given" and then fails. */
	if (!key)
		key = "";
	if (!data)
		data = "";
	if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, key_len,
		       (const unsigned char *)data, len, out, HMAC_SHA256_LEN, &out_len) ||
	    out_len != HMAC_SHA256_LEN)
		abort();	/* only out of memory gets here, as in hash.c */
}

void webhook_hmac_sha256_hex(const char *key, size_t key_len, const char *data, size_t len,
			     char out[65])
{
	unsigned char mac[HMAC_SHA256_LEN];

	hmac_sha256(key, key_len, data, len, mac);
	for (size_t i = 0; i < HMAC_SHA256_LEN; i++) {
		out[2 * i] = hex_digits[mac[i] >> 4];
		out[2 * i + 1] = hex_digits[mac[i] & 15];
	}
	out[2 * HMAC_SHA256_LEN] = '\0';
}

static bool hub_signature_ok(const char *header, const char *secret, const char *body,
			     size_t body_len)
{
	static const char prefix[] = "sha256=";
	unsigned char claimed[HMAC_SHA256_LEN], expected[HMAC_SHA256_LEN];

	if (strncmp(header, prefix, sizeof(prefix) - 1) != 0)
		return false;
	/* The claim is the requester's own input: parsing it need not be constant time. */
	if (!hex_decode(header + sizeof(prefix) - 1, claimed, sizeof(claimed)))
		return false;
	hmac_sha256(secret, strlen(secret), body, body_len, expected);
	return CRYPTO_memcmp(claimed, expected, sizeof(expected)) == 0;
}

static void sha256(const char *s, unsigned char out[HMAC_SHA256_LEN])
{
	unsigned int n = 0;

	if (!EVP_Digest(s, strlen(s), out, &n, EVP_sha256(), NULL) || n != HMAC_SHA256_LEN)
		abort();
}

/*
 * Compare digests rather than the strings: equal-length buffers whatever
 * the token's length, so the time taken says nothing about the secret.
 */
static bool token_ok(const char *token, const char *secret)
{
	unsigned char a[HMAC_SHA256_LEN], b[HMAC_SHA256_LEN];

	sha256(token, a);
	sha256(secret, b);
	return CRYPTO_memcmp(a, b, sizeof(a)) == 0;
}

bool webhook_signature_ok(const struct webhook_request *req, const char *secret)
{
	bool ok = false;

	if (!req || !secret || !*secret)
		return false;
	if (req->hub_signature_256 &&
	    hub_signature_ok(req->hub_signature_256, secret, req->body, req->body_len))
		ok = true;
	if (req->gitlab_token && token_ok(req->gitlab_token, secret))
		ok = true;
	return ok;
}

void webhook_event_release(struct webhook_event *ev)
{
	free(ev->queue);
	free(ev->repository);
	free(ev->repository_name);
	free(ev->ref);
	free(ev->after);
	free(ev->delivery);
	free(ev->in_reply_to);
	free(ev->subject);
	memset(ev, 0, sizeof(*ev));
}

static enum webhook_kind kind_of(const struct webhook_request *req)
{
	if (req->github_event)
		return WEBHOOK_GITHUB;
	if (req->gitlab_event || req->gitlab_token)
		return WEBHOOK_GITLAB;
	return WEBHOOK_PLAIN;
}

static int take_delivery(const struct webhook_request *req, struct webhook_event *ev,
			 struct strbuf *err)
{
	const char *value = NULL, *header = NULL;

	if (ev->kind != WEBHOOK_GITLAB && req->github_delivery && *req->github_delivery) {
		value = req->github_delivery;
		header = "X-GitHub-Delivery";
	} else if (ev->kind != WEBHOOK_GITHUB && req->gitlab_delivery && *req->gitlab_delivery) {
		value = req->gitlab_delivery;
		header = "X-Gitlab-Event-UUID";
	}
	if (!value)
		return 0;
	for (size_t i = 0; value[i]; i++) {
		if (i >= WEBHOOK_MAX_DELIVERY || (unsigned char)value[i] < 0x20 ||
		    (unsigned char)value[i] > 0x7e) {
			strbuf_addf(err, "webhook: %s is not 1..%d printable ASCII characters",
				    header, WEBHOOK_MAX_DELIVERY);
			return -EBADMSG;
		}
	}
	ev->delivery = xstrdup(value);
	return 0;
}

/*
 * @obj.@key into *@ret when it is a non-empty string. Absent, null, another
 * type or "" leaves *@ret NULL and returns 0 (the caller decides whether it
 * was required); a string with control characters is refused.
 */
static int take_string(json_t *obj, const char *key, const char *what, char **ret,
		       struct strbuf *err)
{
	json_t *value = json_object_get(obj, key);
	const char *s;

	*ret = NULL;
	if (!json_is_string(value))
		return 0;
	s = json_string_value(value);
	if (!*s)
		return 0;
	/* Jansson refuses \u0000 unless asked, so strlen is the whole string. */
	if (has_control(s)) {
		strbuf_addf(err, "webhook: %s.%s holds control characters: ", what, key);
		add_quoted(err, s);
		return -EBADMSG;
	}
	*ret = xstrdup(s);
	return 0;
}

/* One place a URL may be: @obj.@key, named @what in messages. */
struct url_source {
	json_t *obj;
	const char *what;
	const char *key;
};

/* The first of @sources that is a non-empty string, by take_string()'s rules. */
static int take_first_string(const struct url_source *sources, size_t n, char **ret,
			     struct strbuf *err)
{
	for (size_t i = 0; i < n; i++) {
		int r;

		if (!json_is_object(sources[i].obj))
			continue;
		r = take_string(sources[i].obj, sources[i].key, sources[i].what, ret, err);
		if (r < 0 || *ret)
			return r;
	}
	return 0;
}

/* A push's "ref" and "after", both required. */
static int take_ref_and_after(json_t *root, const char *kind, struct webhook_event *ev,
			      struct strbuf *err)
{
	int r = take_string(root, "ref", "body", &ev->ref, err);

	if (r < 0)
		return r;
	if (!ev->ref || strncmp(ev->ref, "refs/", 5) != 0) {
		strbuf_addf(err, "webhook: %s push without a \"ref\" starting \"refs/\"", kind);
		return -EBADMSG;
	}
	r = take_string(root, "after", "body", &ev->after, err);
	if (r < 0)
		return r;
	if (!ev->after || strlen(ev->after) != COMMIT_HEX_LEN ||
	    strspn(ev->after, "0123456789abcdefABCDEF") != COMMIT_HEX_LEN) {
		strbuf_addf(err, "webhook: %s push without a 40-hex \"after\" commit", kind);
		return -EBADMSG;
	}
	for (char *p = ev->after; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	return 0;
}

static int parse_github(const struct webhook_request *req, json_t *root,
			struct webhook_event *ev, struct strbuf *err)
{
	json_t *repository = json_object_get(root, "repository");
	const struct url_source urls[] = {
		{ repository, "repository", "clone_url" },
		{ repository, "repository", "html_url" },
		{ repository, "repository", "url" },
	};
	int r;

	ev->push = strcmp(req->github_event, "push") == 0;
	ev->ping = strcmp(req->github_event, "ping") == 0;
	if (json_is_object(repository)) {
		r = take_first_string(urls, sizeof(urls) / sizeof(urls[0]), &ev->repository, err);
		if (r < 0)
			return r;
		r = take_string(repository, "full_name", "repository", &ev->repository_name, err);
		if (r < 0)
			return r;
	}
	if (!ev->push)
		return 0;
	if (!json_is_object(repository)) {
		strbuf_adds(err, "webhook: GitHub push without a \"repository\" object");
		return -EBADMSG;
	}
	if (!ev->repository) {
		strbuf_adds(err, "webhook: GitHub push: repository has no clone_url, html_url or url");
		return -EBADMSG;
	}
	return take_ref_and_after(root, "GitHub", ev, err);
}

static bool gitlab_is_push(const struct webhook_request *req, json_t *root)
{
	const char *kind;

	/* The header is GitLab's own statement; the body's object_kind is the
	 * fallback for a request that carries only the token. */
	if (req->gitlab_event)
		return strcmp(req->gitlab_event, "Push Hook") == 0 ||
		       strcmp(req->gitlab_event, "Tag Push Hook") == 0;
	kind = json_string_value(json_object_get(root, "object_kind"));
	return kind && (strcmp(kind, "push") == 0 || strcmp(kind, "tag_push") == 0);
}

static int parse_gitlab(const struct webhook_request *req, json_t *root,
			struct webhook_event *ev, struct strbuf *err)
{
	json_t *project = json_object_get(root, "project");
	json_t *repository = json_object_get(root, "repository");
	const struct url_source urls[] = {
		{ project, "project", "git_http_url" },
		{ repository, "repository", "git_http_url" },
		{ project, "project", "web_url" },
	};
	int r;

	ev->push = gitlab_is_push(req, root);
	r = take_first_string(urls, sizeof(urls) / sizeof(urls[0]), &ev->repository, err);
	if (r < 0)
		return r;
	if (json_is_object(project)) {
		r = take_string(project, "path_with_namespace", "project",
				&ev->repository_name, err);
		if (r < 0)
			return r;
	}
	if (!ev->push)
		return 0;
	if (!ev->repository) {
		strbuf_adds(err, "webhook: GitLab push without a repository: no project.git_http_url, "
			    "repository.git_http_url or project.web_url");
		return -EBADMSG;
	}
	return take_ref_and_after(root, "GitLab", ev, err);
}

/* The review thread of a plain body: "in_reply_to" and "subject", both optional. */
static int parse_thread(json_t *root, struct webhook_event *ev, struct strbuf *err)
{
	json_t *msgid = json_object_get(root, "in_reply_to"), *subject = json_object_get(root, "subject");
	const char *s;
	size_t len;
	bool ok;

	if (msgid) {
		s = json_string_value(msgid);
		len = s ? strlen(s) : 0;
		ok = s && len >= 3 && len <= WEBHOOK_MAX_MSGID && s[0] == '<' && s[len - 1] == '>';

		for (size_t i = 0; ok && i < len; i++)
			ok = s[i] > 0x20 && s[i] < 0x7f;
		if (!ok) {
			strbuf_addf(err, "webhook: \"in_reply_to\" must be a Message-ID, "
				    "\"<...>\" of 3..%d printable ASCII characters without spaces",
				    WEBHOOK_MAX_MSGID);
			return -EBADMSG;
		}
		ev->in_reply_to = xstrdup(s);
	}
	if (subject) {
		s = json_string_value(subject);
		len = s ? strlen(s) : 0;
		if (!s || len < 1 || len > WEBHOOK_MAX_SUBJECT) {
			strbuf_addf(err, "webhook: \"subject\" must be a string of 1..%d bytes",
				    WEBHOOK_MAX_SUBJECT);
			return -EBADMSG;
		}
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
				strbuf_adds(err, "webhook: \"subject\" holds a control character");
				return -EBADMSG;
			}
		ev->subject = xstrdup(s);
	}
	return 0;
}

static int parse_plain(json_t *root, struct webhook_event *ev, struct strbuf *err)
{
	json_t *queue = json_object_get(root, "queue");
	const char *name;
	size_t len;

	if (!json_is_string(queue)) {
		strbuf_adds(err, "webhook: plain body without a string \"queue\"");
		return -EBADMSG;
	}
	name = json_string_value(queue);
	len = strlen(name);
	if (len < 1 || len > WEBHOOK_MAX_QUEUE_NAME) {
		strbuf_addf(err, "webhook: \"queue\" is %zu bytes long, not 1..%d", len,
			    WEBHOOK_MAX_QUEUE_NAME);
		return -EBADMSG;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c > 0x7e || c == '/') {
			strbuf_adds(err, "webhook: \"queue\" must be printable ASCII without '/': ");
			add_quoted(err, name);
			return -EBADMSG;
		}
	}
	/* The name may end up as a path component under the cache. */
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		strbuf_adds(err, "webhook: \"queue\" cannot be \".\" or \"..\"");
		return -EBADMSG;
	}
	ev->queue = xstrdup(name);
	return parse_thread(root, ev, err);
}

int webhook_parse(const struct webhook_request *req, struct webhook_event *ret,
		  struct strbuf *err)
{
	struct webhook_event ev = { .kind = kind_of(req) };
	json_error_t json_err;
	json_t *root = NULL;
	const char *nul;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (req->body_len > WEBHOOK_MAX_BODY) {
		strbuf_addf(err, "webhook: body is %zu bytes, over the limit of %d", req->body_len,
			    WEBHOOK_MAX_BODY);
		return -EBADMSG;
	}
	if (!req->body || req->body_len == 0) {
		strbuf_adds(err, "webhook: empty body, expected a JSON object");
		return -EBADMSG;
	}
	nul = memchr(req->body, '\0', req->body_len);
	if (nul) {
		strbuf_addf(err, "webhook: body holds a NUL byte at offset %zu",
			    (size_t)(nul - req->body));
		return -EBADMSG;
	}
	r = take_delivery(req, &ev, err);
	if (r < 0)
		goto out_release;

	/* Duplicate keys would let two readers of one body see different values. */
	root = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &json_err);
	if (!root) {
		strbuf_addf(err, "webhook: body is not JSON: line %d column %d: ", json_err.line,
			    json_err.column);
		add_clean(err, json_err.text, sizeof(json_err.text));
		r = -EBADMSG;
		goto out_release;
	}
	if (!json_is_object(root)) {
		strbuf_adds(err, "webhook: body is JSON but not an object");
		r = -EBADMSG;
		goto out_release;
	}

	switch (ev.kind) {
	case WEBHOOK_GITHUB:
		r = parse_github(req, root, &ev, err);
		break;
	case WEBHOOK_GITLAB:
		r = parse_gitlab(req, root, &ev, err);
		break;
	case WEBHOOK_PLAIN:
		r = parse_plain(root, &ev, err);
		break;
	}
	if (r < 0)
		goto out_release;
	json_decref(root);
	*ret = ev;
	return 0;

out_release:
	json_decref(root);
	webhook_event_release(&ev);
	return r;
}
