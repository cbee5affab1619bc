// SPDX-License-Identifier: GPL-2.0
/*
 * webhook_parse() and webhook_signature_ok() on untrusted bytes: anyone who
 * can reach the HTTP port sends these.
 *
 * The input reads like the request itself: header lines, a blank line,
 * then the body.
 *
 *   X-GitHub-Event: push
 *   X-Hub-Signature-256: sha256=...
 *
 *   {"ref": ...}
 *
 * Only the six headers struct webhook_request has are recognised (names in
 * any case, as HTTP has them). An input that does not start with one of
 * them is all body, so a bare {"queue":"stable-6.1"} is a plain webhook.
 *
 * Checked beyond memory safety: what webhook.h promises of an event (no
 * control characters in kept strings, a push always has a repository, a
 * "refs/" ref and a 40-hex lower-case "after"), a zeroed event after a
 * refusal, and that the signature check accepts exactly the right HMAC.
 */
#include <errno.h>
#include <stdint.h>
#include <strings.h>

#include "fuzz_check.h"
#include "parse/webhook.h"

#define SECRET "change-me"

struct header_slot {
	const char *name;
	size_t offset;
};

static const struct header_slot slots[] = {
	{ "X-Hub-Signature-256", offsetof(struct webhook_request, hub_signature_256) },
	{ "X-GitHub-Event", offsetof(struct webhook_request, github_event) },
	{ "X-GitHub-Delivery", offsetof(struct webhook_request, github_delivery) },
	{ "X-Gitlab-Token", offsetof(struct webhook_request, gitlab_token) },
	{ "X-Gitlab-Event", offsetof(struct webhook_request, gitlab_event) },
	{ "X-Gitlab-Event-UUID", offsetof(struct webhook_request, gitlab_delivery) },
};

#define N_SLOTS (sizeof(slots) / sizeof(slots[0]))

static const char **slot_of(struct webhook_request *req, size_t i)
{
	return (const char **)((char *)req + slots[i].offset);
}

/* The slot "Name: value" at @line names, or -1. */
static int header_slot(const char *line, size_t len, size_t *ret_value)
{
	for (size_t i = 0; i < N_SLOTS; i++) {
		size_t n = strlen(slots[i].name);

		if (len > n && line[n] == ':' && !strncasecmp(line, slots[i].name, n)) {
			*ret_value = n + 1;
			while (*ret_value < len && line[*ret_value] == ' ')
				(*ret_value)++;
			return (int)i;
		}
	}
	return -1;
}

static bool has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static void check_event(const struct webhook_event *ev, const struct webhook_request *req)
{
	const char *strings[] = { ev->queue, ev->repository, ev->repository_name, ev->ref,
				  ev->after, ev->delivery, ev->in_reply_to, ev->subject };

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		fuzz_check(!has_control(strings[i]), "field %zu holds a control character", i);
	if (ev->kind == WEBHOOK_PLAIN) {
		size_t len = ev->queue ? strlen(ev->queue) : 0;

		fuzz_check(len >= 1 && len <= WEBHOOK_MAX_QUEUE_NAME, "plain queue of %zu bytes", len);
		fuzz_check(!strchr(ev->queue, '/') && strcmp(ev->queue, ".") &&
			   strcmp(ev->queue, ".."), "plain queue \"%s\"", ev->queue);
		if (ev->in_reply_to) {
			size_t n = strlen(ev->in_reply_to);

			fuzz_check(n >= 3 && n <= WEBHOOK_MAX_MSGID && ev->in_reply_to[0] == '<' &&
				   ev->in_reply_to[n - 1] == '>' && !strchr(ev->in_reply_to, ' '),
				   "in_reply_to \"%s\"", ev->in_reply_to);
		}
		if (ev->subject)
			fuzz_check(ev->subject[0] && strlen(ev->subject) <= WEBHOOK_MAX_SUBJECT,
				   "subject of %zu bytes", strlen(ev->subject));
	} else {
		fuzz_check(!ev->queue, "queue \"%s\" in a %d webhook", ev->queue, (int)ev->kind);
		fuzz_check(!ev->in_reply_to && !ev->subject, "a thread in a %d webhook", (int)ev->kind);
	}
	fuzz_check(ev->kind == (req->github_event ? WEBHOOK_GITHUB :
				req->gitlab_event || req->gitlab_token ? WEBHOOK_GITLAB :
				WEBHOOK_PLAIN), "kind %d", (int)ev->kind);
	if (ev->push) {
		fuzz_check(ev->repository, "a push without a repository");
		fuzz_check(ev->ref && !strncmp(ev->ref, "refs/", 5), "a push with ref \"%s\"",
			   ev->ref ? ev->ref : "(null)");
		fuzz_check(ev->after && strlen(ev->after) == 40 &&
			   strspn(ev->after, "0123456789abcdef") == 40,
			   "a push with after \"%s\"", ev->after ? ev->after : "(null)");
	} else {
		fuzz_check(!ev->ref && !ev->after, "ref or after outside a push");
	}
	if (ev->delivery)
		fuzz_check(ev->delivery[0] && strlen(ev->delivery) <= WEBHOOK_MAX_DELIVERY,
			   "delivery of %zu bytes", strlen(ev->delivery));
}

static void check_signatures(struct webhook_request *req)
{
	struct webhook_request signed_req = *req;
	char hex[65], header[7 + 65], upper[7 + 65];

	(void)webhook_signature_ok(req, SECRET);
	(void)webhook_signature_ok(req, req->gitlab_token ? req->gitlab_token : "");

	/* The right HMAC, in either case, passes; under another secret it fails. */
	webhook_hmac_sha256_hex(SECRET, strlen(SECRET), req->body, req->body_len, hex);
	snprintf(header, sizeof(header), "sha256=%s", hex);
	memcpy(upper, header, sizeof(header));
	for (char *c = upper + 7; *c; c++)
		if (*c >= 'a' && *c <= 'f')
			*c = (char)(*c - 'a' + 'A');
	signed_req.gitlab_token = NULL;
	signed_req.hub_signature_256 = header;
	fuzz_check(webhook_signature_ok(&signed_req, SECRET), "the right signature refused");
	fuzz_check(!webhook_signature_ok(&signed_req, SECRET "x"), "a wrong secret accepted");
	signed_req.hub_signature_256 = upper;
	fuzz_check(webhook_signature_ok(&signed_req, SECRET), "an upper-case signature refused");
	header[sizeof(header) - 2] ^= 1;	/* one digit off */
	signed_req.hub_signature_256 = header;
	fuzz_check(!webhook_signature_ok(&signed_req, SECRET), "a wrong signature accepted");
	signed_req.hub_signature_256 = NULL;
	signed_req.gitlab_token = SECRET;
	fuzz_check(webhook_signature_ok(&signed_req, SECRET), "the right token refused");
	fuzz_check(!webhook_signature_ok(&signed_req, ""), "an empty secret accepted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct webhook_request req = { 0 };
	char *values[N_SLOTS] = { NULL };
	struct strbuf err = STRBUF_INIT;
	struct webhook_event ev;
	char *body;
	int r;

	/* Header lines, up to a blank line or the first line that is none. */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p), value;
		int slot;

		if (len && p[len - 1] == '\r')
			len--;
		if (!len && (p > (const char *)data)) {
			p = nl ? nl + 1 : end;
			break;
		}
		slot = header_slot(p, len, &value);
		if (slot < 0)
			break;
		free(values[slot]);
		/* a header value is a C string: libmicrohttpd stops at a NUL too */
		values[slot] = fuzz_dup(p + value, strnlen(p + value, len - value));
		*slot_of(&req, (size_t)slot) = values[slot];
		p = nl ? nl + 1 : end;
	}
	/* The body in a buffer of its own, so a read past it is caught. */
	body = fuzz_dup(p, (size_t)(end - p));
	req.body = body;
	req.body_len = (size_t)(end - p);

	r = webhook_parse(&req, &ev, &err);
	if (r < 0) {
		fuzz_check(r == -EBADMSG, "r=%d", r);
		fuzz_check(err.len && fuzz_one_line(err.buf), "message \"%s\"", err.buf);
		fuzz_check(!has_control(err.buf), "control character in message \"%s\"", err.buf);
		fuzz_check(!ev.queue && !ev.repository && !ev.repository_name && !ev.ref &&
			   !ev.in_reply_to && !ev.subject &&
			   !ev.after && !ev.delivery && !ev.push && !ev.ping,
			   "a refused event is not zeroed");
	} else {
		fuzz_check(r == 0 && !err.len, "r=%d, message \"%s\"", r, err.buf);
		check_event(&ev, &req);
	}
	webhook_event_release(&ev);

	check_signatures(&req);

	for (size_t i = 0; i < N_SLOTS; i++)
		free(values[i]);
	free(body);
	strbuf_release(&err);
	return 0;
}
