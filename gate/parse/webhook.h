/* SPDX-License-Identifier: GPL-2.0 */
/*
 * webhook: what a `POST /webhook` says and whether it is signed. Pure
 * functions over the request's headers and raw body: no I/O, no HTTP.
 *
 * The kind of a request is decided by its headers alone:
 *   X-GitHub-Event present                      -> WEBHOOK_GITHUB
 *   else X-Gitlab-Event or X-Gitlab-Token       -> WEBHOOK_GITLAB
 *   else                                        -> WEBHOOK_PLAIN
 *
 * Signing (docs/CONTRACTS.md, "Webhooks"): a queue's `secret`
 * signs its webhooks either as GitHub does,
 *   X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>
 * or as GitLab does, X-Gitlab-Token: <secret>.
 *
 * The HTTP layer typically parses first (to learn which queue or
 * repository the request is for, hence which secret applies), then checks
 * the signature with that secret before acting on anything it parsed.
 */
#ifndef GATE_WEBHOOK_H
#define GATE_WEBHOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"

#define WEBHOOK_MAX_BODY (1024 * 1024)
#define WEBHOOK_MAX_QUEUE_NAME 128
#define WEBHOOK_MAX_DELIVERY 128
#define WEBHOOK_MAX_MSGID 250
#define WEBHOOK_MAX_SUBJECT 500

/*
 * The headers of the request that matter, as received (NULL when absent).
 * Nothing here is owned; webhook_parse() copies what it keeps.
 */
struct webhook_request {
	const char *hub_signature_256;	/* X-Hub-Signature-256: "sha256=<64 hex>" */
	const char *github_event;	/* X-GitHub-Event, e.g. "push", "ping" */
	const char *github_delivery;	/* X-GitHub-Delivery: a unique id */
	const char *gitlab_token;	/* X-Gitlab-Token: the secret itself */
	const char *gitlab_event;	/* X-Gitlab-Event, e.g. "Push Hook" */
	const char *gitlab_delivery;	/* X-Gitlab-Event-UUID */
	const char *body;		/* raw bytes, not NUL-terminated necessarily */
	size_t body_len;
};

enum webhook_kind { WEBHOOK_GITHUB, WEBHOOK_GITLAB, WEBHOOK_PLAIN };

/*
 * What the body says. Every string is owned (free with
 * webhook_event_release()) and is NULL when the body does not say it.
 * Strings taken from the body never hold control characters, so they are
 * safe to put in a one-line log message.
 */
struct webhook_event {
	enum webhook_kind kind;
	/* PLAIN only: the queue named by {"queue": NAME}. */
	char *queue;
	/*
	 * GITHUB/GITLAB: the repository's URL. GitHub: repository.clone_url,
	 * else repository.html_url, else repository.url. GitLab:
	 * project.git_http_url, else repository.git_http_url, else
	 * project.web_url. Always set for a push; for other events (a ping)
	 * set when the body names one, so the caller can pick the secret.
	 */
	char *repository;
	/* "owner/name": repository.full_name (GitHub),
	 * project.path_with_namespace (GitLab); set whenever the body has it. */
	char *repository_name;
	char *ref;		/* a push: "refs/heads/master"; else NULL */
	/* a push: the pushed commit, 40 lower-case hex (all zeros when the
	 * push deleted the ref); else NULL */
	char *after;
	/* X-GitHub-Delivery (GITHUB), X-Gitlab-Event-UUID (GITLAB), either
	 * (PLAIN, GitHub's first); NULL when absent or empty. */
	char *delivery;
	/*
	 * PLAIN only, both optional: the stable review thread the run's reply
	 * answers. "in_reply_to": its Message-ID, "<...>" of 3..WEBHOOK_MAX_MSGID
	 * printable ASCII characters without spaces; "subject": its subject,
	 * 1..WEBHOOK_MAX_SUBJECT bytes of UTF-8 without control characters.
	 */
	char *in_reply_to;
	char *subject;
	bool push;		/* GitHub "push"; GitLab "Push Hook"/"Tag Push Hook" */
	bool ping;		/* a GitHub "ping" event: valid, but nothing to queue */
};

/*
 * Parse @req's body (a JSON object) according to its headers into @ret.
 * Returns 0, or -EBADMSG with a one-line reason ("webhook: ...") appended
 * to @err; then @ret is zeroed (webhook_event_release() is still safe).
 *
 * Refused: a body over WEBHOOK_MAX_BODY bytes, empty, holding a NUL byte,
 * not JSON, JSON that is not an object, or with a duplicated key; a push
 * without a repository URL, without a "ref" starting "refs/" or without a
 * 40-hex "after"; a plain body without a string "queue" of 1..128 printable ASCII
 * characters other than '/' (and not "." or ".."), or with an
 * "in_reply_to" or "subject" that is not what is said above; a delivery header over
 * WEBHOOK_MAX_DELIVERY bytes or with non-printable characters; a string we
 * keep that holds control characters.
 *
 * The signature is NOT checked here: see webhook_signature_ok().
 */
int webhook_parse(const struct webhook_request *req, struct webhook_event *ret,
		  struct strbuf *err);

/* Free what @ev owns and zero it; safe on a zeroed or released event. */
void webhook_event_release(struct webhook_event *ev);

/*
 * true when @req is signed with @secret: X-Hub-Signature-256 is "sha256="
 * followed by exactly 64 hex digits (either case) of HMAC-SHA256(secret,
 * raw body), or X-Gitlab-Token equals @secret. Either header suffices.
 * Compared in constant time (CRYPTO_memcmp over equal-length digests, so
 * neither where a mismatch is nor the secret's length leaks). A missing
 * header, a NULL or empty @secret, or a malformed header is false.
 */
bool webhook_signature_ok(const struct webhook_request *req, const char *secret);

/* Lower-case hex HMAC-SHA256 of @data under @key into @out (65 bytes, NUL-terminated). */
void webhook_hmac_sha256_hex(const char *key, size_t key_len, const char *data, size_t len,
			     char out[65]);

#endif
