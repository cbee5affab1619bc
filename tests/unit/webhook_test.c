// SPDX-License-Identifier: GPL-2.0
/*
 * Webhook signing and parsing: GitHub's documented HMAC vector, every way a
 * signature can be wrong, GitLab's token, real (trimmed) GitHub and GitLab
 * push bodies, and hostile bodies, each refused with a one-line message.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parse/webhook.h"

/* GitHub's "Validating webhook deliveries" example. */
static const char gh_secret[] = "It's a Secret to Everybody";
static const char gh_body[] = "Hello, World!";
static const char gh_hex[] = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
static const char gh_header[] =
	"sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

/* A GitHub push delivery, trimmed to the fields around what we read. */
static const char github_push[] =
	"{\n"
	"  \"ref\": \"refs/heads/master\",\n"
	"  \"before\": \"6113728f27ae82c7b1a177c8d03f9e96e0adf246\",\n"
	"  \"after\": \"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\",\n"
	"  \"repository\": {\n"
	"    \"id\": 186853002,\n"
	"    \"name\": \"stable-queue\",\n"
	"    \"full_name\": \"gregkh/stable-queue\",\n"
	"    \"private\": false,\n"
	"    \"owner\": {\"name\": \"gregkh\", \"login\": \"gregkh\"},\n"
	"    \"html_url\": \"https://github.com/gregkh/stable-queue\",\n"
	"    \"url\": \"https://github.com/gregkh/stable-queue\",\n"
	"    \"git_url\": \"git://github.com/gregkh/stable-queue.git\",\n"
	"    \"ssh_url\": \"git@github.com:gregkh/stable-queue.git\",\n"
	"    \"clone_url\": \"https://github.com/gregkh/stable-queue.git\",\n"
	"    \"default_branch\": \"master\"\n"
	"  },\n"
	"  \"pusher\": {\"name\": \"gregkh\", \"email\": \"greg@kroah.com\"},\n"
	"  \"created\": false, \"deleted\": false, \"forced\": false,\n"
	"  \"compare\": \"https://github.com/gregkh/stable-queue/compare/6113728f27ae...0d1a26e67d8f\",\n"
	"  \"commits\": [{\n"
	"    \"id\": \"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\",\n"
	"    \"message\": \"6.1-stable patches\\n\\nadded patches:\\n\\texec-load_script.patch\",\n"
	"    \"timestamp\": \"2019-02-12T10:11:12+01:00\",\n"
	"    \"added\": [\"queue-6.1/exec-load_script.patch\"], \"removed\": [],\n"
	"    \"modified\": [\"queue-6.1/series\"]\n"
	"  }],\n"
	"  \"head_commit\": {\"id\": \"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\"}\n"
	"}\n";

/* A GitLab "Push Hook" delivery, trimmed likewise. */
static const char gitlab_push[] =
	"{\n"
	"  \"object_kind\": \"push\",\n"
	"  \"event_name\": \"push\",\n"
	"  \"before\": \"95790bf891e76fee5e1747ab589903a6a1f80f22\",\n"
	"  \"after\": \"DA1560886D4F094C3E6C9EF40349F7D38B5D27D7\",\n"
	"  \"ref\": \"refs/heads/linux-6.1.y\",\n"
	"  \"checkout_sha\": \"da1560886d4f094c3e6c9ef40349f7d38b5d27d7\",\n"
	"  \"user_username\": \"jsmith\",\n"
	"  \"project_id\": 15,\n"
	"  \"project\": {\n"
	"    \"id\": 15,\n"
	"    \"name\": \"Stable Queue\",\n"
	"    \"web_url\": \"https://gitlab.example.com/kernel/stable-queue\",\n"
	"    \"git_ssh_url\": \"git@gitlab.example.com:kernel/stable-queue.git\",\n"
	"    \"git_http_url\": \"https://gitlab.example.com/kernel/stable-queue.git\",\n"
	"    \"namespace\": \"kernel\",\n"
	"    \"path_with_namespace\": \"kernel/stable-queue\",\n"
	"    \"default_branch\": \"master\"\n"
	"  },\n"
	"  \"commits\": [{\"id\": \"da1560886d4f094c3e6c9ef40349f7d38b5d27d7\",\n"
	"    \"message\": \"queue-6.1: add exec fix\", \"added\": [\"queue-6.1/series\"]}],\n"
	"  \"total_commits_count\": 1,\n"
	"  \"repository\": {\n"
	"    \"name\": \"Stable Queue\",\n"
	"    \"url\": \"git@gitlab.example.com:kernel/stable-queue.git\",\n"
	"    \"homepage\": \"https://gitlab.example.com/kernel/stable-queue\",\n"
	"    \"git_http_url\": \"https://gitlab.example.com/kernel/mirror.git\",\n"
	"    \"git_ssh_url\": \"git@gitlab.example.com:kernel/stable-queue.git\"\n"
	"  }\n"
	"}\n";

static struct webhook_request body_request(const char *body)
{
	struct webhook_request req = { .body = body, .body_len = strlen(body) };

	return req;
}

static struct webhook_request github_request(const char *event, const char *body)
{
	struct webhook_request req = body_request(body);

	req.github_event = event;
	req.github_delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958";
	return req;
}

static struct webhook_request gitlab_request(const char *event, const char *body)
{
	struct webhook_request req = body_request(body);

	req.gitlab_event = event;
	req.gitlab_token = "change-me";
	req.gitlab_delivery = "5e1a0e8a-3c43-4f6d-9c54-5f2a6c1c0a11";
	return req;
}

/* Parse must fail with -EBADMSG and one line that mentions @needle. */
static void assert_refused(const struct webhook_request *req, const char *needle)
{
	struct strbuf err = STRBUF_INIT;
	struct webhook_event ev;
	int r;

	memset(&ev, 0xa5, sizeof(ev));	/* parse must zero it, even on failure */
	r = webhook_parse(req, &ev, &err);
	if (r != -EBADMSG || !strstr(err.buf, needle) || strchr(err.buf, '\n') ||
	    strncmp(err.buf, "webhook: ", 9) != 0)
		fail_msg("expected -EBADMSG (%d) and one line with \"%s\", got %d \"%s\"",
			 -EBADMSG, needle, r, err.buf);
	assert_null(ev.queue);
	assert_null(ev.repository);
	assert_null(ev.repository_name);
	assert_null(ev.ref);
	assert_null(ev.after);
	assert_null(ev.delivery);
	webhook_event_release(&ev);
	strbuf_release(&err);
}

static void parse_ok(const struct webhook_request *req, struct webhook_event *ev)
{
	struct strbuf err = STRBUF_INIT;
	int r = webhook_parse(req, ev, &err);

	if (r != 0)
		fail_msg("expected 0, got %d \"%s\"", r, err.buf);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

/* ---- HMAC and signatures ---- */

static void test_github_vector(void **state)
{
	char hex[65];

	(void)state;
	webhook_hmac_sha256_hex(gh_secret, strlen(gh_secret), gh_body, strlen(gh_body), hex);
	assert_string_equal(hex, gh_hex);
}

static void test_hmac_rfc4231_and_empty(void **state)
{
	char hex[65];

	(void)state;
	/* RFC 4231 test case 2. */
	webhook_hmac_sha256_hex("Jefe", 4, "what do ya want for nothing?", 28, hex);
	assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* Empty key and data: must not be mistaken for "no key". */
	webhook_hmac_sha256_hex(NULL, 0, NULL, 0, hex);
	assert_string_equal(hex, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

static void test_signature_accepted(void **state)
{
	struct webhook_request req = body_request(gh_body);

	(void)state;
	req.hub_signature_256 = gh_header;
	assert_true(webhook_signature_ok(&req, gh_secret));
}

static void test_signature_upper_case_accepted(void **state)
{
	struct webhook_request req = body_request(gh_body);
	char header[sizeof(gh_header)];

	(void)state;
	memcpy(header, gh_header, sizeof(header));
	for (char *p = header + 7; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	req.hub_signature_256 = header;
	assert_true(webhook_signature_ok(&req, gh_secret));
}

static void test_signature_wrong_secret(void **state)
{
	struct webhook_request req = body_request(gh_body);

	(void)state;
	req.hub_signature_256 = gh_header;
	assert_false(webhook_signature_ok(&req, "It's a Secret to Everybody!"));
	assert_false(webhook_signature_ok(&req, "it's a secret to everybody"));
}

static void test_signature_wrong_body(void **state)
{
	struct webhook_request req = body_request("Hello, World");

	(void)state;
	req.hub_signature_256 = gh_header;
	assert_false(webhook_signature_ok(&req, gh_secret));
}

static void test_signature_every_flipped_digit(void **state)
{
	struct webhook_request req = body_request(gh_body);
	char header[sizeof(gh_header)];

	(void)state;
	for (size_t i = 7; i < sizeof(gh_header) - 1; i++) {
		memcpy(header, gh_header, sizeof(header));
		header[i] = header[i] == '0' ? '1' : '0';
		req.hub_signature_256 = header;
		if (webhook_signature_ok(&req, gh_secret))
			fail_msg("signature with digit %zu flipped accepted: %s", i - 7, header);
	}
}

static void test_signature_truncated_or_extended(void **state)
{
	struct webhook_request req = body_request(gh_body);
	char header[sizeof(gh_header) + 2];

	(void)state;
	for (size_t len = 0; len < sizeof(gh_header) - 1; len++) {
		memcpy(header, gh_header, len);
		header[len] = '\0';
		req.hub_signature_256 = header;
		if (webhook_signature_ok(&req, gh_secret))
			fail_msg("signature cut to %zu bytes accepted: \"%s\"", len, header);
	}
	snprintf(header, sizeof(header), "%s0", gh_header);
	req.hub_signature_256 = header;
	assert_false(webhook_signature_ok(&req, gh_secret));
	snprintf(header, sizeof(header), "%s ", gh_header);
	assert_false(webhook_signature_ok(&req, gh_secret));
}

static void test_signature_missing_or_malformed(void **state)
{
	struct webhook_request req = body_request(gh_body);

	(void)state;
	assert_false(webhook_signature_ok(&req, gh_secret));
	req.hub_signature_256 = "";
	assert_false(webhook_signature_ok(&req, gh_secret));
	req.hub_signature_256 = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
	assert_false(webhook_signature_ok(&req, gh_secret));
	req.hub_signature_256 = "SHA256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
	assert_false(webhook_signature_ok(&req, gh_secret));
	req.hub_signature_256 = " sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
	assert_false(webhook_signature_ok(&req, gh_secret));
	req.hub_signature_256 = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1g";
	assert_false(webhook_signature_ok(&req, gh_secret));
	assert_false(webhook_signature_ok(NULL, gh_secret));
}

static void test_signature_sha1_prefix_refused(void **state)
{
	struct webhook_request req = body_request(gh_body);

	(void)state;
	/* The right digest under the wrong algorithm's name, and a real SHA-1. */
	req.hub_signature_256 = "sha1=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
	assert_false(webhook_signature_ok(&req, gh_secret));
	req.hub_signature_256 = "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59";
	assert_false(webhook_signature_ok(&req, gh_secret));
}

static void test_signature_empty_secret(void **state)
{
	struct webhook_request req = body_request(gh_body);
	char hex[65], header[72];

	(void)state;
	/* A correct HMAC under the empty key still is no signature. */
	webhook_hmac_sha256_hex("", 0, gh_body, strlen(gh_body), hex);
	snprintf(header, sizeof(header), "sha256=%s", hex);
	req.hub_signature_256 = header;
	assert_false(webhook_signature_ok(&req, ""));
	assert_false(webhook_signature_ok(&req, NULL));
	req.hub_signature_256 = NULL;
	req.gitlab_token = "";
	assert_false(webhook_signature_ok(&req, ""));
}

static void test_gitlab_token(void **state)
{
	struct webhook_request req = body_request(gitlab_push);

	(void)state;
	req.gitlab_event = "Push Hook";
	req.gitlab_token = "change-me";
	assert_true(webhook_signature_ok(&req, "change-me"));
	assert_false(webhook_signature_ok(&req, "change-me "));
	assert_false(webhook_signature_ok(&req, "change-mf"));
	assert_false(webhook_signature_ok(&req, "change"));
	assert_false(webhook_signature_ok(&req, "Change-me"));
	req.gitlab_token = "";
	assert_false(webhook_signature_ok(&req, "change-me"));
	req.gitlab_token = NULL;
	assert_false(webhook_signature_ok(&req, "change-me"));
}

static void test_either_header_suffices(void **state)
{
	struct webhook_request req = body_request(gh_body);

	(void)state;
	req.hub_signature_256 = "sha256=0000000000000000000000000000000000000000000000000000000000000000";
	req.gitlab_token = gh_secret;
	assert_true(webhook_signature_ok(&req, gh_secret));
	req.gitlab_token = "wrong";
	assert_false(webhook_signature_ok(&req, gh_secret));
	req.hub_signature_256 = gh_header;
	assert_true(webhook_signature_ok(&req, gh_secret));
}

/* ---- parsing ---- */

static void test_github_push(void **state)
{
	struct webhook_request req = github_request("push", github_push);
	struct webhook_event ev;

	(void)state;
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_GITHUB);
	assert_true(ev.push);
	assert_false(ev.ping);
	assert_null(ev.queue);
	assert_string_equal(ev.repository, "https://github.com/gregkh/stable-queue.git");
	assert_string_equal(ev.repository_name, "gregkh/stable-queue");
	assert_string_equal(ev.ref, "refs/heads/master");
	assert_string_equal(ev.after, "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c");
	assert_string_equal(ev.delivery, "72d3162e-cc78-11e3-81ab-4c9367dc0958");
	webhook_event_release(&ev);
	assert_null(ev.repository);
	webhook_event_release(&ev);	/* twice is harmless */
}

static void test_github_push_url_fallbacks(void **state)
{
	struct webhook_request req;
	struct webhook_event ev;

	(void)state;
	req = github_request("push",
		"{\"ref\":\"refs/heads/master\",\"after\":\"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\","
		"\"repository\":{\"clone_url\":null,\"html_url\":\"https://github.com/a/b\","
		"\"url\":\"https://api.github.com/repos/a/b\"}}");
	parse_ok(&req, &ev);
	assert_string_equal(ev.repository, "https://github.com/a/b");
	assert_null(ev.repository_name);
	webhook_event_release(&ev);

	req = github_request("push",
		"{\"ref\":\"refs/heads/master\",\"after\":\"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\","
		"\"repository\":{\"clone_url\":\"\",\"url\":\"https://github.com/a/b\","
		"\"full_name\":\"a/b\"}}");
	parse_ok(&req, &ev);
	assert_string_equal(ev.repository, "https://github.com/a/b");
	assert_string_equal(ev.repository_name, "a/b");
	webhook_event_release(&ev);
}

static void test_github_push_refused(void **state)
{
	struct webhook_request req;

	(void)state;
	req = github_request("push", "{\"ref\":\"refs/heads/master\","
			     "\"after\":\"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\"}");
	assert_refused(&req, "without a \"repository\"");
	req = github_request("push", "{\"repository\":\"a/b\"}");
	assert_refused(&req, "without a \"repository\"");
	req = github_request("push", "{\"repository\":{\"full_name\":\"a/b\"}}");
	assert_refused(&req, "no clone_url, html_url or url");
	req = github_request("push", "{\"repository\":{\"clone_url\":\"https://x/a.git\"},"
			     "\"after\":\"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\"}");
	assert_refused(&req, "\"ref\"");
	req = github_request("push", "{\"repository\":{\"clone_url\":\"https://x/a.git\"},"
			     "\"ref\":\"master\","
			     "\"after\":\"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\"}");
	assert_refused(&req, "\"ref\"");
	req = github_request("push", "{\"repository\":{\"clone_url\":\"https://x/a.git\"},"
			     "\"ref\":\"refs/heads/master\",\"after\":\"0d1a26e6\"}");
	assert_refused(&req, "40-hex \"after\"");
	req = github_request("push", "{\"repository\":{\"clone_url\":\"https://x/a.git\"},"
			     "\"ref\":\"refs/heads/master\","
			     "\"after\":\"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fdzz\"}");
	assert_refused(&req, "40-hex \"after\"");
	/* A newline smuggled into a value we would log. */
	req = github_request("push", "{\"repository\":{\"clone_url\":\"https://x/a.git\\nFAKE\"},"
			     "\"ref\":\"refs/heads/master\","
			     "\"after\":\"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c\"}");
	assert_refused(&req, "repository.clone_url holds control characters: 'https://x/a.git?FAKE'");
}

static void test_github_ping(void **state)
{
	struct webhook_request req = github_request("ping",
		"{\"zen\":\"Design for failure.\",\"hook_id\":30,"
		"\"hook\":{\"type\":\"Repository\",\"events\":[\"push\"]},"
		"\"repository\":{\"full_name\":\"gregkh/stable-queue\","
		"\"clone_url\":\"https://github.com/gregkh/stable-queue.git\"}}");
	struct webhook_event ev;

	(void)state;
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_GITHUB);
	assert_true(ev.ping);
	assert_false(ev.push);
	assert_null(ev.ref);
	assert_null(ev.after);
	assert_null(ev.queue);
	assert_string_equal(ev.repository, "https://github.com/gregkh/stable-queue.git");
	assert_string_equal(ev.repository_name, "gregkh/stable-queue");
	webhook_event_release(&ev);

	/* An organisation hook's ping names no repository: still valid. */
	req = github_request("ping", "{\"zen\":\"Keep it logically awesome.\",\"hook_id\":31}");
	parse_ok(&req, &ev);
	assert_true(ev.ping);
	assert_null(ev.repository);
	webhook_event_release(&ev);
}

static void test_github_other_event(void **state)
{
	struct webhook_request req = github_request("issues", "{\"action\":\"opened\"}");
	struct webhook_event ev;

	(void)state;
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_GITHUB);
	assert_false(ev.push);
	assert_false(ev.ping);
	assert_null(ev.ref);
	webhook_event_release(&ev);
}

static void test_gitlab_push(void **state)
{
	struct webhook_request req = gitlab_request("Push Hook", gitlab_push);
	struct webhook_event ev;

	(void)state;
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_GITLAB);
	assert_true(ev.push);
	assert_false(ev.ping);
	assert_null(ev.queue);
	assert_string_equal(ev.repository, "https://gitlab.example.com/kernel/stable-queue.git");
	assert_string_equal(ev.repository_name, "kernel/stable-queue");
	assert_string_equal(ev.ref, "refs/heads/linux-6.1.y");
	assert_string_equal(ev.after, "da1560886d4f094c3e6c9ef40349f7d38b5d27d7");
	assert_string_equal(ev.delivery, "5e1a0e8a-3c43-4f6d-9c54-5f2a6c1c0a11");
	webhook_event_release(&ev);

	/* Token only, no event header: the body's object_kind says push. */
	req.gitlab_event = NULL;
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_GITLAB);
	assert_true(ev.push);
	webhook_event_release(&ev);
}

static void test_gitlab_push_url_fallbacks(void **state)
{
	struct webhook_request req;
	struct webhook_event ev;

	(void)state;
	req = gitlab_request("Push Hook",
		"{\"ref\":\"refs/heads/master\",\"after\":\"da1560886d4f094c3e6c9ef40349f7d38b5d27d7\","
		"\"project\":{\"web_url\":\"https://gl/a/b\",\"path_with_namespace\":\"a/b\"},"
		"\"repository\":{\"git_http_url\":\"https://gl/a/b.git\"}}");
	parse_ok(&req, &ev);
	assert_string_equal(ev.repository, "https://gl/a/b.git");
	assert_string_equal(ev.repository_name, "a/b");
	webhook_event_release(&ev);

	req = gitlab_request("Push Hook",
		"{\"ref\":\"refs/heads/master\",\"after\":\"da1560886d4f094c3e6c9ef40349f7d38b5d27d7\","
		"\"project\":{\"web_url\":\"https://gl/a/b\"}}");
	parse_ok(&req, &ev);
	assert_string_equal(ev.repository, "https://gl/a/b");
	webhook_event_release(&ev);

	req = gitlab_request("Push Hook",
		"{\"ref\":\"refs/heads/master\",\"after\":\"da1560886d4f094c3e6c9ef40349f7d38b5d27d7\"}");
	assert_refused(&req, "GitLab push without a repository");
}

static void test_gitlab_other_event(void **state)
{
	struct webhook_request req = gitlab_request("Merge Request Hook",
		"{\"object_kind\":\"merge_request\",\"project\":{\"path_with_namespace\":\"a/b\"}}");
	struct webhook_event ev;

	(void)state;
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_GITLAB);
	assert_false(ev.push);
	assert_null(ev.ref);
	assert_null(ev.repository);
	assert_string_equal(ev.repository_name, "a/b");
	webhook_event_release(&ev);
}

static void test_plain_queue(void **state)
{
	struct webhook_request req = body_request("{\"queue\": \"stable-6.1\"}");
	struct webhook_event ev;

	(void)state;
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_PLAIN);
	assert_string_equal(ev.queue, "stable-6.1");
	assert_null(ev.repository);
	assert_null(ev.repository_name);
	assert_null(ev.ref);
	assert_null(ev.after);
	assert_null(ev.delivery);
	assert_false(ev.push);
	assert_false(ev.ping);
	webhook_event_release(&ev);

	/* Longest name allowed; a delivery id is kept when sent. */
	{
		char body[200], name[WEBHOOK_MAX_QUEUE_NAME + 1];

		memset(name, 'q', WEBHOOK_MAX_QUEUE_NAME);
		name[WEBHOOK_MAX_QUEUE_NAME] = '\0';
		snprintf(body, sizeof(body), "{\"queue\":\"%s\"}", name);
		req = body_request(body);
		req.github_delivery = "d-1";
		parse_ok(&req, &ev);
		assert_string_equal(ev.queue, name);
		assert_string_equal(ev.delivery, "d-1");
		webhook_event_release(&ev);
	}
}

static void test_plain_queue_refused(void **state)
{
	struct webhook_request req;
	char body[300], name[WEBHOOK_MAX_QUEUE_NAME + 2];

	(void)state;
	req = body_request("{\"queue\":\"stable/6.1\"}");
	assert_refused(&req, "without '/': 'stable/6.1'");
	req = body_request("{\"queue\":\"../etc\"}");
	assert_refused(&req, "without '/'");
	req = body_request("{\"queue\":\"..\"}");
	assert_refused(&req, "\"..\"");
	req = body_request("{\"queue\":\"\"}");
	assert_refused(&req, "0 bytes long");
	req = body_request("{\"queue\":\"a\\tb\"}");
	assert_refused(&req, "printable ASCII");
	req = body_request("{\"queue\":\"st\\u00e4ble\"}");
	assert_refused(&req, "printable ASCII");
	req = body_request("{\"queue\":42}");
	assert_refused(&req, "without a string \"queue\"");
	req = body_request("{\"queue\":null}");
	assert_refused(&req, "without a string \"queue\"");
	req = body_request("{\"name\":\"stable-6.1\"}");
	assert_refused(&req, "without a string \"queue\"");
	req = body_request("{}");
	assert_refused(&req, "without a string \"queue\"");
	memset(name, 'q', WEBHOOK_MAX_QUEUE_NAME + 1);
	name[WEBHOOK_MAX_QUEUE_NAME + 1] = '\0';
	snprintf(body, sizeof(body), "{\"queue\":\"%s\"}", name);
	req = body_request(body);
	assert_refused(&req, "129 bytes long");
}

/* A plain body may name the stable review thread its run's reply answers. */
static void test_plain_thread(void **state)
{
	struct webhook_request req = body_request(
		"{\"queue\": \"stable-6.1\", \"in_reply_to\": \"<20261205.rc1@kernel.org>\", "
		"\"subject\": \"[PATCH 6.1 000/123] 6.1.193-rc1 review \u00e4\"}");
	struct webhook_event ev;

	(void)state;
	parse_ok(&req, &ev);
	assert_string_equal(ev.in_reply_to, "<20261205.rc1@kernel.org>");
	assert_string_equal(ev.subject, "[PATCH 6.1 000/123] 6.1.193-rc1 review \xc3\xa4");
	webhook_event_release(&ev);
	assert_null(ev.in_reply_to);

	req = body_request("{\"queue\": \"q\"}");
	parse_ok(&req, &ev);
	assert_null(ev.in_reply_to);
	assert_null(ev.subject);
	webhook_event_release(&ev);

	req = body_request("{\"queue\": \"q\", \"in_reply_to\": \"20261205@kernel.org\"}");
	assert_refused(&req, "\"in_reply_to\" must be a Message-ID");
	req = body_request("{\"queue\": \"q\", \"in_reply_to\": \"<a b@c>\"}");
	assert_refused(&req, "without spaces");
	req = body_request("{\"queue\": \"q\", \"in_reply_to\": 7}");
	assert_refused(&req, "\"in_reply_to\" must be a Message-ID");
	req = body_request("{\"queue\": \"q\", \"subject\": \"a\\r\\nBcc: x@y\"}");
	assert_refused(&req, "\"subject\" holds a control character");
	req = body_request("{\"queue\": \"q\", \"subject\": \"\"}");
	assert_refused(&req, "\"subject\" must be a string of 1..500 bytes");
}

static void test_bad_bodies(void **state)
{
	struct webhook_request req;

	(void)state;
	req = body_request("queue=stable-6.1");
	assert_refused(&req, "not JSON");
	req = body_request("[\"stable-6.1\"]");
	assert_refused(&req, "not an object");
	req = body_request("\"stable-6.1\"");
	assert_refused(&req, "not JSON");
	req = body_request("{\"queue\":\"stable-6.1\"} trailing");
	assert_refused(&req, "not JSON");
	req = body_request("{\"queue\":\"stable-6.1\",\"queue\":\"stable-5.15\"}");
	assert_refused(&req, "duplicate");
	req = body_request("{\"queue\":\"a\\u0000b\"}");
	assert_refused(&req, "not JSON");
	req = body_request("");
	assert_refused(&req, "empty body");
	req = (struct webhook_request){ .body = NULL, .body_len = 0 };
	assert_refused(&req, "empty body");
	/* A raw newline in the offending text stays out of the message. */
	req = body_request("{\"queue\n\n\": }");
	assert_refused(&req, "not JSON");
	req = github_request("push", "[]");
	assert_refused(&req, "not an object");
}

static void test_body_with_nul(void **state)
{
	static const char body[] = "{\"queue\":\"stable-6.1\"}\0{\"queue\":\"x\"}";
	struct webhook_request req = { .body = body, .body_len = sizeof(body) - 1 };

	(void)state;
	assert_refused(&req, "NUL byte at offset 22");
}

static void test_huge_body(void **state)
{
	static const char json[] = "{\"queue\":\"stable-6.1\"}";
	char *body = malloc(WEBHOOK_MAX_BODY + 1);
	struct webhook_request req = { .body = body };
	struct webhook_event ev;

	(void)state;
	assert_non_null(body);
	/* Exactly at the limit: fine (JSON allows the trailing spaces). */
	memset(body, ' ', WEBHOOK_MAX_BODY + 1);
	memcpy(body, json, sizeof(json) - 1);
	req.body_len = WEBHOOK_MAX_BODY;
	parse_ok(&req, &ev);
	assert_string_equal(ev.queue, "stable-6.1");
	webhook_event_release(&ev);
	/* One byte over: refused before any parsing. */
	req.body_len = WEBHOOK_MAX_BODY + 1;
	assert_refused(&req, "1048577 bytes, over the limit of 1048576");
	/* Deep nesting within the limit fails cleanly too. */
	memset(body, '[', WEBHOOK_MAX_BODY);
	req.body_len = WEBHOOK_MAX_BODY;
	assert_refused(&req, "not JSON");
	free(body);
}

static void test_bad_delivery_header(void **state)
{
	struct webhook_request req = github_request("push", github_push);
	char long_id[WEBHOOK_MAX_DELIVERY + 2];

	(void)state;
	req.github_delivery = "abc\r\nX-Injected: 1";
	assert_refused(&req, "X-GitHub-Delivery is not");
	memset(long_id, 'a', sizeof(long_id) - 1);
	long_id[sizeof(long_id) - 1] = '\0';
	req.github_delivery = long_id;
	assert_refused(&req, "X-GitHub-Delivery is not");
}

static void test_kind_from_headers(void **state)
{
	struct webhook_request req = body_request("{\"queue\":\"stable-6.1\"}");
	struct webhook_event ev;

	(void)state;
	/* A GitLab token alone makes it GitLab, even with a plain body. */
	req.gitlab_token = "change-me";
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_GITLAB);
	assert_null(ev.queue);
	webhook_event_release(&ev);
	/* X-GitHub-Event wins over GitLab's headers. */
	req.github_event = "ping";
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_GITHUB);
	assert_true(ev.ping);
	webhook_event_release(&ev);
	/* A plain body with a GitHub signature only is still plain. */
	req = body_request("{\"queue\":\"stable-6.1\"}");
	req.hub_signature_256 = gh_header;
	parse_ok(&req, &ev);
	assert_int_equal(ev.kind, WEBHOOK_PLAIN);
	assert_string_equal(ev.queue, "stable-6.1");
	webhook_event_release(&ev);
}

/*
 * Every prefix of a push body, in a buffer exactly its size (no NUL after
 * it, so a read past the end shows under valgrind), parses or fails with a
 * message; only the whole body (and the one without its final newline)
 * parses.
 */
static void every_prefix(struct webhook_request base, const char *body)
{
	size_t len = strlen(body), parsed = 0;

	for (size_t n = 0; n <= len; n++) {
		struct strbuf err = STRBUF_INIT;
		struct webhook_request req = base;
		struct webhook_event ev;
		char *copy = malloc(n ? n : 1);
		int r;

		assert_non_null(copy);
		memcpy(copy, body, n);
		req.body = copy;
		req.body_len = n;
		r = webhook_parse(&req, &ev, &err);
		if (r == 0) {
			parsed++;
			if (!ev.repository || !ev.ref || !ev.after)
				fail_msg("prefix of %zu bytes parsed without its push fields", n);
		} else if (r != -EBADMSG || err.len == 0 || strchr(err.buf, '\n')) {
			fail_msg("prefix of %zu bytes: expected -EBADMSG (%d) with one line, got %d \"%s\"",
				 n, -EBADMSG, r, err.buf);
		}
		webhook_event_release(&ev);
		strbuf_release(&err);
		free(copy);
	}
	assert_int_equal(parsed, 2);
}

static void test_every_prefix_github(void **state)
{
	(void)state;
	every_prefix(github_request("push", ""), github_push);
}

static void test_every_prefix_gitlab(void **state)
{
	(void)state;
	every_prefix(gitlab_request("Push Hook", ""), gitlab_push);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github_vector),
		cmocka_unit_test(test_hmac_rfc4231_and_empty),
		cmocka_unit_test(test_signature_accepted),
		cmocka_unit_test(test_signature_upper_case_accepted),
		cmocka_unit_test(test_signature_wrong_secret),
		cmocka_unit_test(test_signature_wrong_body),
		cmocka_unit_test(test_signature_every_flipped_digit),
		cmocka_unit_test(test_signature_truncated_or_extended),
		cmocka_unit_test(test_signature_missing_or_malformed),
		cmocka_unit_test(test_signature_sha1_prefix_refused),
		cmocka_unit_test(test_signature_empty_secret),
		cmocka_unit_test(test_gitlab_token),
		cmocka_unit_test(test_either_header_suffices),
		cmocka_unit_test(test_github_push),
		cmocka_unit_test(test_github_push_url_fallbacks),
		cmocka_unit_test(test_github_push_refused),
		cmocka_unit_test(test_github_ping),
		cmocka_unit_test(test_github_other_event),
		cmocka_unit_test(test_gitlab_push),
		cmocka_unit_test(test_gitlab_push_url_fallbacks),
		cmocka_unit_test(test_gitlab_other_event),
		cmocka_unit_test(test_plain_queue),
		cmocka_unit_test(test_plain_queue_refused),
		cmocka_unit_test(test_plain_thread),
		cmocka_unit_test(test_bad_bodies),
		cmocka_unit_test(test_body_with_nul),
		cmocka_unit_test(test_huge_body),
		cmocka_unit_test(test_bad_delivery_header),
		cmocka_unit_test(test_kind_from_headers),
		cmocka_unit_test(test_every_prefix_github),
		cmocka_unit_test(test_every_prefix_gitlab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
