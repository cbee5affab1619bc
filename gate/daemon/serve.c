// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "daemon/outbox.h"
#include "daemon/serve.h"
#include "output/format.h"
#include "output/page.h"
#include "parse/webhook.h"
#include "record/db.h"
#include "record/history.h"
#include "record/jobs.h"
#include "record/sequence.h"
#include "source/target.h"

static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

/*
 * How long each thread's connection waits for another process's write
 * lock (db.h: readers never wait in WAL mode). The main loop must turn
 * several times a second, so its writes give up quickly and are tried
 * again on a later turn; a webhook answers 503 with Retry-After after
 * half a second rather than keep its sender waiting (and a pool thread
 * serves other requests too: a GET behind it waits as long); the notifier
 * may wait longer, so that an attempt that reached its receiver is
 * recorded (not sent twice), yet little enough that a stop joins it
 * within systemd's TimeoutStopSec=30 (one delivery, OUTBOX_TIMEOUT_SEC,
 * plus one wait).
 */
#define LOOP_BUSY_MS 200
#define HTTP_BUSY_MS 500
#define NOTIFIER_BUSY_MS 15000
/* What a webhook refused for a locked database tells its sender. */
#define RETRY_AFTER_SEC "10"
/* The notifier looks at the outbox this often when not woken. */
#define NOTIFIER_PERIOD_SEC 1
/* Notifications sent per look, the stop request checked between each. */
#define NOTIFIER_BATCH 5

/* The thread that sends the outbox (outbox.h), off the main loop. */
struct notifier {
	pthread_t thread;
	bool started;
	pthread_mutex_t mutex;
	pthread_cond_t wake;		/* on CLOCK_MONOTONIC */
	bool stop, woken;		/* under mutex */
	sqlite3 *db;			/* its own connection */
};

struct server {
	pthread_rwlock_t lock;		/* guards cfg against a reload */
	struct gate_config cfg;
	char *database;			/* cfg.database at the start: what every connection opens */
	sqlite3 *db;			/* the main loop's: no other thread uses it */
	pthread_key_t http_db;		/* each HTTP thread's own connection, opened lazily */
	bool http_db_key;
	struct MHD_Daemon *httpd;
	struct notifier notifier;
	time_t busy_since;		/* main loop: its writes fail (db_later()) since then */
};

/* Per-request state: the body as it arrives. */
struct request {
	struct strbuf body;
	bool too_big;
};

/* @header: NULL, or one more header, @value its value. */
static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type,
			       const char *text, const char *header, const char *value)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								  MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", type);
	if (header && value)
		MHD_add_response_header(r, header, value);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result respond_json(struct MHD_Connection *c, unsigned status, json_t *value,
				    const char *header, const char *header_value)
{
	char *text = json_dumps(value, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	enum MHD_Result ret;

	ret = respond(c, status, "application/json", text ? text : "{}", header, header_value);
	free(text);
	json_decref(value);
	return ret;
}

static enum MHD_Result respond_error(struct MHD_Connection *c, unsigned status, const char *message)
{
	json_t *o = json_object();

	json_object_set_new(o, "error", json_string(message));
	return respond_json(c, status, o, NULL, NULL);
}

/* 503: try again later (the database is locked, or cannot be opened). */
static enum MHD_Result respond_unavailable(struct MHD_Connection *c, const char *message)
{
	json_t *o = json_object();

	json_object_set_new(o, "error", json_string(message));
	return respond_json(c, MHD_HTTP_SERVICE_UNAVAILABLE, o, "Retry-After", RETRY_AFTER_SEC);
}

static void http_db_close(void *db)
{
	db_close(db);
}

/*
 * This HTTP thread's connection, opened on its first request and closed
 * when libmicrohttpd ends the thread (the key's destructor): SQLite
 * connections are not shared between threads, so a request never waits
 * behind another thread's statement, and in WAL mode a read never waits
 * for a lock. NULL, said in the log, when the database cannot be opened.
 */
static sqlite3 *http_db(struct server *s)
{
	sqlite3 *db = pthread_getspecific(s->http_db);
	struct strbuf err = STRBUF_INIT;

	if (db)
		return db;
	if (db_open_timeout(s->database, HTTP_BUSY_MS, &db, &err) < 0) {
		fprintf(stderr, "http: opening the database for a request: %s\n", err.buf);
		strbuf_release(&err);
		return NULL;
	}
	pthread_setspecific(s->http_db, db);
	return db;
}

/* Whether the webhook @ev is about @q: named by it, or its repository. */
static bool event_is_for(const struct queue_config *q, const struct webhook_event *ev)
{
	size_t n = ev->repository_name ? strlen(ev->repository_name) : 0;
	const char *u = q->url;
	size_t ul = strlen(u);

	if (ev->queue)
		return strcmp(ev->queue, q->name) == 0;
	if (ev->repository && strcmp(ev->repository, u) == 0)
		return true;
	/* ".../owner/name" or ".../owner/name.git" */
	if (n && ul >= 4 && strcmp(u + ul - 4, ".git") == 0)
		ul -= 4;
	return n && ul > n && strncmp(u + ul - n, ev->repository_name, n) == 0 &&
	       (u[ul - n - 1] == '/' || u[ul - n - 1] == ':');
}

/* A job the webhook queued (or found queued for its delivery before). */
struct webhook_job {
	char *queue;
	int64_t job;
	bool duplicate;
};

/*
 * The answer to a webhook that queued @n jobs: 202 when one is new, else
 * 200 (a redelivery). "job", "queue" and "duplicate" are the first job's,
 * as when a repository had one queue; "jobs" lists them all.
 */
static enum MHD_Result respond_queued(struct MHD_Connection *c, const struct webhook_job *jobs,
				      size_t n)
{
	json_t *o = json_object(), *list = json_array();
	char location[64];
	bool any_new = false;

	for (size_t i = 0; i < n; i++) {
		json_array_append_new(list, json_pack("{s:I, s:s, s:b}", "job", (json_int_t)jobs[i].job,
						      "queue", jobs[i].queue,
						      "duplicate", jobs[i].duplicate));
		fprintf(stderr, "webhook: %s job %lld for %s\n",
			jobs[i].duplicate ? "already have" : "queued", (long long)jobs[i].job,
			jobs[i].queue);
		any_new |= !jobs[i].duplicate;
	}
	json_object_set_new(o, "job", json_integer(jobs[0].job));
	json_object_set_new(o, "queue", json_string(jobs[0].queue));
	json_object_set_new(o, "duplicate", json_boolean(jobs[0].duplicate));
	json_object_set_new(o, "jobs", list);
	snprintf(location, sizeof(location), "/api/jobs/%lld", (long long)jobs[0].job);
	return respond_json(c, any_new ? MHD_HTTP_ACCEPTED : MHD_HTTP_OK, o, "Location", location);
}

/*
 * A push queues a job for every configured queue on its repository whose
 * secret signs it: one repository's queue-6.1 and queue-6.12 are two
 * [queue] sections with one url, and one push gates both branches.
 */
static enum MHD_Result handle_webhook(struct server *s, struct MHD_Connection *c,
				      struct request *req)
{
	struct webhook_request wr = {
		.hub_signature_256 = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Hub-Signature-256"),
		.github_event = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-GitHub-Event"),
		.github_delivery = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-GitHub-Delivery"),
		.gitlab_token = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Gitlab-Token"),
		.gitlab_event = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Gitlab-Event"),
		.gitlab_delivery = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Gitlab-Event-UUID"),
		.body = req->body.buf,
		.body_len = req->body.len,
	};
	struct webhook_event ev = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct webhook_job jobs[CONFIG_MAX_QUEUES];
	size_t n_jobs = 0, n_matched = 0;
	enum MHD_Result ret;
	sqlite3 *db;

	if (req->too_big)
		return respond_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "body over the configured max-body");
	if (webhook_parse(&wr, &ev, &err) < 0) {
		ret = respond_error(c, MHD_HTTP_BAD_REQUEST, err.buf);
		goto out;
	}
	pthread_rwlock_rdlock(&s->lock);
	for (size_t i = 0; i < s->cfg.n_queues; i++) {
		const struct queue_config *q = &s->cfg.queues[i];

		if (!event_is_for(q, &ev))
			continue;
		n_matched++;
		if (q->secret && webhook_signature_ok(&wr, q->secret))
			jobs[n_jobs++] = (struct webhook_job){ .queue = xstrdup(q->name) };
	}
	pthread_rwlock_unlock(&s->lock);
	if (!n_matched) {
		ret = respond_error(c, MHD_HTTP_NOT_FOUND, "no configured queue matches this webhook");
		goto out;
	}
	if (!n_jobs) {
		ret = respond_error(c, MHD_HTTP_UNAUTHORIZED, "missing or wrong signature");
		goto out;
	}
	/* Only a push (or a plain request) changes a queue; a ping, another
	 * event or a deleted branch is acknowledged and nothing is queued. */
	if (ev.ping || (!ev.queue && !ev.push) ||
	    (ev.after && strspn(ev.after, "0") == strlen(ev.after))) {
		ret = respond(c, MHD_HTTP_OK, "application/json",
			      ev.ping ? "{\"ping\": \"ok\"}\n" : "{\"queued\": false}\n", NULL, NULL);
		goto out;
	}
	/* The writes may wait for a lock: not with the configuration held (a reload waits for it). */
	db = http_db(s);
	if (!db) {
		ret = respond_unavailable(c, "the database cannot be opened; try again later");
		goto out;
	}
	for (size_t i = 0; i < n_jobs; i++) {
		const char *queue = jobs[i].queue;

		if (jobs_enqueue(db, queue, "webhook", ev.delivery,
				 &(struct job_thread){ ev.in_reply_to, ev.subject }, &jobs[i].job,
				 &jobs[i].duplicate, &err) == 0)
			continue;
		/*
		 * Locked by another process past HTTP_BUSY_MS: 503 with
		 * Retry-After, which GitHub and GitLab redeliver, rather than
		 * hold the sender until its own timeout. The jobs queued
		 * before this one stay; the redelivery finds them by its
		 * delivery id and queues only the rest.
		 */
		if (db_busy(db)) {
			fprintf(stderr, "webhook: queue %s: the database is locked; answered 503\n", queue);
			ret = respond_unavailable(c, "the database is locked; try again later");
		} else if (db_full(db)) {
			fprintf(stderr, "webhook: queue %s: the database's disk is full; answered 503\n",
				queue);
			ret = respond_unavailable(c, "the database's disk is full; try again later");
		} else {
			ret = respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, err.buf);
		}
		goto out;
	}
	ret = respond_queued(c, jobs, n_jobs);
out:
	for (size_t i = 0; i < n_jobs; i++)
		free(jobs[i].queue);
	webhook_event_release(&ev);
	strbuf_release(&err);
	return ret;
}

static const char *query(struct MHD_Connection *c, const char *key)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
}

/* The status of a page from its renderer's answer (page.h): 0, or a negative errno. */
static unsigned page_status(int r)
{
	switch (r) {
	case 0:
	case -EAGAIN:	/* the page says the run is still running */
		return MHD_HTTP_OK;
	case -ENOENT:
		return MHD_HTTP_NOT_FOUND;
	case -EINVAL:
		return MHD_HTTP_BAD_REQUEST;
	default:
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
}

/*
 * GET /runs/ID, /patches/KEY, /search?q=, /queues/NAME, /cases/NAME and
 * /regressions: the history pages, read without the configuration.
 */
static enum MHD_Result handle_page(struct MHD_Connection *c, sqlite3 *db, const char *url)
{
	struct strbuf html = STRBUF_INIT, location = STRBUF_INIT;
	enum MHD_Result ret;
	int r;

	if (!strncmp(url, "/runs/", 6)) {
		char *end;
		long long id = strtoll(url + 6, &end, 10);

		if (url[6] >= '0' && url[6] <= '9' && !*end && id > 0) {
			r = page_render_run(db, id, &html);
		} else {
			struct strbuf message = STRBUF_INIT;

			r = -ENOENT;
			strbuf_addf(&message, "'%s' is not a run number.", url + 6);
			page_render_message(&html, "No such run", message.buf);
			strbuf_release(&message);
		}
	} else if (!strncmp(url, "/patches/", 9)) {
		r = page_render_patch(db, url + 9, &html);
	} else if (!strncmp(url, "/queues/", 8)) {
		r = page_render_queue(db, url + 8, query(c, "branch"), query(c, "page"), &html);
	} else if (!strncmp(url, "/cases/", 7)) {
		r = page_render_case(db, url + 7, query(c, "queue"), query(c, "page"), &html);
	} else if (!strcmp(url, "/regressions")) {
		r = page_render_regressions(db, &html);
	} else {
		r = page_render_search(db, query(c, "q"), &html, &location);
	}
	if (location.len)
		ret = respond(c, MHD_HTTP_FOUND, "text/html; charset=utf-8", "", "Location", location.buf);
	else
		ret = respond(c, page_status(r), "text/html; charset=utf-8", html.buf, NULL, NULL);
	strbuf_release(&html);
	strbuf_release(&location);
	return ret;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* @a and @b (address lists, either NULL) as one; NULL when both are empty. */
static char *join_lists(const char *a, const char *b)
{
	if (a && *a && b && *b)
		return xasprintf("%s, %s", a, b);
	return dup_or_null(a && *a ? a : b && *b ? b : NULL);
}

/*
 * GET /api/runs/ID/reply and /api/runs/ID/kcidb: run @run as the review
 * thread's answer (output/reply.h: From, To and Cc from [report] and the
 * review-list of the job's queue, In-Reply-To and Subject from the
 * webhook that queued the job) and as a KCIDB submission
 * (output/kcidb.h): what `backport-gate report ID --format NAME` prints.
 */
static enum MHD_Result handle_rendering(struct server *s, struct MHD_Connection *c, sqlite3 *db,
					int64_t run, const char *name)
{
	const struct report_format *format = report_format_find(name);
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct render_options opts = { 0 };
	struct report_input in = { 0 };
	json_t *report, *sequences = NULL;
	char *in_reply_to = NULL, *subject = NULL, *queue = NULL, *from = NULL, *to = NULL, *cc = NULL;
	unsigned status = MHD_HTTP_OK;
	int64_t job = 0;
	enum MHD_Result ret;

	report = history_run_report(db, run, &err);
	if (!report) {
		status = errno == ENOENT || errno == EAGAIN ? MHD_HTTP_NOT_FOUND :
			 MHD_HTTP_INTERNAL_SERVER_ERROR;
		goto out;
	}
	if (format->needs_sequences && !(sequences = run_sequences_json(db, run, &err))) {
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		goto out;
	}
	if (!strcmp(name, "reply")) {
		const struct queue_config *q;
		struct strbuf ignored = STRBUF_INIT;

		if (jobs_for_run(db, run, &job) == 0 && job) {
			jobs_get_thread(db, job, &in_reply_to, &subject);
			jobs_get_queue(db, job, &queue, &ignored);
		}
		strbuf_release(&ignored);
		pthread_rwlock_rdlock(&s->lock);
		q = queue ? config_queue(&s->cfg, queue) : NULL;
		from = dup_or_null(s->cfg.report.from);
		to = join_lists(q ? q->review_list : NULL, s->cfg.report.to);
		cc = dup_or_null(s->cfg.report.cc);
		pthread_rwlock_unlock(&s->lock);
		opts = (struct render_options){ .from = from, .to = to, .cc = cc,
						.in_reply_to = in_reply_to, .subject = subject };
	}
	in.report = report;
	in.sequences = sequences;
	if (format->render(&in, &opts, &text, &err) < 0)
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
out:
	if (status == MHD_HTTP_OK)
		ret = respond(c, status, !strcmp(name, "kcidb") ? "application/json" :
			      "text/plain; charset=utf-8", text.buf, NULL, NULL);
	else
		ret = respond_error(c, status, err.buf);
	json_decref(report);
	json_decref(sequences);
	free(in_reply_to);
	free(subject);
	free(queue);
	free(from);
	free(to);
	free(cc);
	strbuf_release(&err);
	strbuf_release(&text);
	return ret;
}

static enum MHD_Result handle_get(struct server *s, struct MHD_Connection *c, const char *url)
{
	struct strbuf err = STRBUF_INIT;
	json_t *v = NULL;
	enum MHD_Result ret;
	unsigned missing = MHD_HTTP_NOT_FOUND;
	sqlite3 *db = http_db(s);

	if (!db)
		return respond_unavailable(c, "the database cannot be opened; try again later");
	if (!strcmp(url, "/")) {
		struct strbuf html = STRBUF_INIT;

		/* reads only: they never wait for a lock, so the configuration is held briefly */
		pthread_rwlock_rdlock(&s->lock);
		page_render(db, &s->cfg, &html);
		pthread_rwlock_unlock(&s->lock);
		ret = respond(c, MHD_HTTP_OK, "text/html; charset=utf-8", html.buf, NULL, NULL);
		strbuf_release(&html);
		return ret;
	}
	if (!strncmp(url, "/runs/", 6) || !strncmp(url, "/patches/", 9) || !strcmp(url, "/search") ||
	    !strncmp(url, "/queues/", 8) || !strncmp(url, "/cases/", 7) || !strcmp(url, "/regressions"))
		return handle_page(c, db, url);
	if (!strcmp(url, "/api/runs")) {
		struct history_filter f = { 0 };
		const char *limit = query(c, "limit"), *offset = query(c, "offset");

		f.queue = query(c, "queue");
		f.verdict = query(c, "verdict");
		f.since = query(c, "since");
		f.branch = query(c, "branch");
		missing = MHD_HTTP_BAD_REQUEST;
		if ((!limit || history_parse_limit("limit", limit, &f.limit, &err) == 0) &&
		    (!offset || history_parse_offset("offset", offset, &f.offset, &err) == 0))
			v = history_runs(db, &f, &err);
	} else if (!strncmp(url, "/api/runs/", 10)) {
		char *end;
		long long id = strtoll(url + 10, &end, 10);

		if (!*end && id > 0)
			v = history_run_report(db, id, &err);
		else if (id > 0 && (!strcmp(end, "/reply") || !strcmp(end, "/kcidb")))
			return handle_rendering(s, c, db, id, end + 1);
		else
			strbuf_addf(&err, "'%s' is not a run number", url + 10);
	} else if (!strncmp(url, "/api/jobs/", 10)) {
		char *end;
		long long id = strtoll(url + 10, &end, 10);

		if (!*end && id > 0)
			v = jobs_get_json(db, id);
		if (!v)
			strbuf_addf(&err, "no job %s", url + 10);
	} else if (!strncmp(url, "/api/patches/", 13) && url[13]) {
		v = history_patch(db, url + 13, &err);
	} else if (!strncmp(url, "/api/cases/", 11) && url[11]) {
		const char *limit = query(c, "limit"), *offset = query(c, "offset");
		int64_t n = 0, skip = 0;	/* no limit given: every run, as before pages existed */

		if ((limit && history_parse_limit("limit", limit, &n, &err) < 0) ||
		    (offset && history_parse_offset("offset", offset, &skip, &err) < 0))
			missing = MHD_HTTP_BAD_REQUEST;
		else
			v = history_case_in(db, url + 11, query(c, "queue"), n, skip, &err);
	} else if (!strcmp(url, "/api/regressions")) {
		const char *open = query(c, "open");

		v = history_regressions(db, open && strcmp(open, "0"), &err);
	} else {
		strbuf_addf(&err, "no such resource: %s", url);
	}
	if (v)
		ret = respond_json(c, MHD_HTTP_OK, v, NULL, NULL);
	else
		ret = respond_error(c, missing, err.buf);
	strbuf_release(&err);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct server *s = cls;
	struct request *req = *con_cls;

	(void)version;
	if (!strcmp(method, "GET"))
		return handle_get(s, c, url);
	if (strcmp(method, "POST") || strcmp(url, "/webhook"))
		return respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET, and POST /webhook");
	if (!req) {
		req = xcalloc(1, sizeof(*req));
		pthread_rwlock_rdlock(&s->lock);
		strbuf_init(&req->body, s->cfg.max_body);
		pthread_rwlock_unlock(&s->lock);
		*con_cls = req;
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* Past the cap the rest is read and dropped: the answer is 413. */
		if (strbuf_add(&req->body, upload_data, *upload_data_size) < 0)
			req->too_big = true;
		*upload_data_size = 0;
		return MHD_YES;
	}
	return handle_webhook(s, c, req);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct request *req = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (req) {
		strbuf_release(&req->body);
		free(req);
		*con_cls = NULL;
	}
}

static int start_http(struct server *s, struct strbuf *err)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(s->cfg.listen_port) };

	if (inet_pton(AF_INET, s->cfg.listen_host, &addr.sin_addr) != 1) {
		strbuf_addf(err, "%s: server.listen: '%s' is not an IPv4 address", s->cfg.path,
			    s->cfg.listen_host);
		return -EINVAL;
	}
	s->httpd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
				    s->cfg.listen_port, NULL, NULL, on_request, s,
				    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
				    MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
				    MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)4,
				    MHD_OPTION_END);
	if (!s->httpd) {
		strbuf_addf(err, "cannot listen on %s:%u: %s", s->cfg.listen_host, s->cfg.listen_port,
			    strerror(errno ? errno : EADDRINUSE));
		return -EADDRINUSE;
	}
	return 0;
}

/*
 * A worker: one job, in a child of its own. Up to [server] workers of them
 * run at once, each a job of another queue (jobs.h: jobs_next_queued()).
 */
struct worker {
	struct child child;
	int64_t job;		/* 0: idle */
	char *tree;		/* the tarball its queue gates against (NULL: unknown) */
	char id[32], exe[4096];
	const char *argv[7];
};

/*
 * The tarball @q gates against, as its job resolves it (target.h); NULL
 * when the queue's tree is not valid (its job says why). Jobs on one tree
 * share its cache, whose lock serializes their builds (source/workspace.h).
 */
static char *queue_tree(const struct queue_config *q)
{
	struct target t = { 0 };
	struct strbuf err = STRBUF_INIT;
	char *tarball = NULL;

	if (target_resolve(&t, q->tree, q->series, &err) == 0) {
		tarball = t.tarball;
		t.tarball = NULL;
	}
	target_release(&t);
	strbuf_release(&err);
	return tarball;
}

/*
 * The worker execs a fresh `backport-gate job` at once: after fork() in a
 * process with threads (the HTTP side) only async-signal-safe calls are
 * allowed, and a lock held by another thread at the fork (SQLite's,
 * malloc's) would never be released in the child. It logs to our stderr
 * and has no deadline: the loop looks at it on every turn.
 */
static int start_worker(struct server *s, int64_t job, struct worker *w)
{
	ssize_t n = readlink("/proc/self/exe", w->exe, sizeof(w->exe) - 1);
	int r;

	if (n <= 0)
		return -errno;
	w->exe[n] = '\0';
	snprintf(w->id, sizeof(w->id), "%lld", (long long)job);
	w->argv[0] = w->exe;
	w->argv[1] = "job";
	w->argv[2] = "--config";
	w->argv[3] = s->cfg.path;
	w->argv[4] = "--job";
	w->argv[5] = w->id;
	w->argv[6] = NULL;
	w->child = (struct child){ .argv = w->argv, .keep_output = true };
	r = child_start(&w->child);
	if (r < 0) {
		fprintf(stderr, "job %lld: cannot start the worker %s: %s\n", (long long)job, w->exe,
			strerror(-r));
		return r;
	}
	w->job = job;
	return 0;
}

/* The worker is idle again. */
static void worker_clear(struct worker *w)
{
	w->job = 0;
	free(w->tree);
	w->tree = NULL;
}

/*
 * A write that failed on @db and may go through on a later turn: another
 * process held the lock past LOOP_BUSY_MS, or the database's disk is full
 * (SQLite has rolled the write back; it is made whole once there is room).
 */
static bool db_later(sqlite3 *db)
{
	return db_busy(db) || db_full(db);
}

/*
 * The result @r of a main-loop write, @what naming it ("job 7: marking it
 * running"). A write that may go through later (db_later()) is tried
 * again on a later turn: that is said once, when the episode begins, and
 * its end once too (the loop turns five times a second); any other
 * failure is said every time. Returns @r.
 */
static int loop_wrote(struct server *s, const char *what, int r)
{
	if (r == 0 && s->busy_since) {
		fprintf(stderr, "database %s: writable again after %lld s\n", s->database,
			(long long)(time(NULL) - s->busy_since));
		s->busy_since = 0;
	} else if (r == -EIO && db_later(s->db)) {
		if (!s->busy_since) {
			s->busy_since = time(NULL);
			fprintf(stderr, "database %s: %s: %s: %s; trying again on later turns\n",
				s->database, db_full(s->db) ? "its disk is full" :
				"locked by another process", what, sqlite3_errmsg(s->db));
		}
	} else if (r < 0) {
		fprintf(stderr, "%s: %s\n", what, jobs_strerror(s->db, r));
	}
	return r;
}

/* A job state change @r of job @job (jobs_*()); logged when it failed, as loop_wrote() says. */
static int job_moved(struct server *s, int64_t job, const char *what, int r)
{
	char where[128];

	snprintf(where, sizeof(where), "job %lld: %s", (long long)job, what);
	return loop_wrote(s, where, r);
}

/*
 * A job state change the database refused for a lock or a full disk,
 * made on a later turn: until then no other job starts (the refused one
 * may be left 'running' without a worker). One per worker, and one for a
 * worker that could not start (serve_loop()).
 */
struct pending_move {
	int64_t job;			/* 0: none */
	int (*move)(struct server *s, int64_t job, const char *why);
	const char *what;
	char why[256];			/* the job's error, when its worker could not record one */
};

/* The moves that wait before the next try (record/jobs.h), as of now. */
static int requeue_job(struct server *s, int64_t job, const char *why)
{
	(void)why;
	return jobs_requeue(s->db, job, time(NULL));
}

/* s->cfg without the lock: only this thread, the loop's, replaces it. */
static int retry_job(struct server *s, int64_t job, const char *why)
{
	return jobs_worker_failed(s->db, job, s->cfg.retry_max, time(NULL), why);
}

/*
 * Make the move @move of @job now, or keep it in @pending when it may go
 * through later (db_later()). A full disk kept the worker from recording
 * why it has no verdict too: the job says that instead.
 */
static void move_job(struct server *s, struct pending_move *pending, int64_t job,
		     int (*move)(struct server *s, int64_t job, const char *why), const char *what)
{
	bool again = pending->job == job;
	int r = job_moved(s, job, what, move(s, job, again && pending->why[0] ? pending->why : NULL));

	if (r == -EIO && db_later(s->db)) {
		if (!again || (!pending->why[0] && db_full(s->db))) {
			*pending = (struct pending_move){ job, move, what, "" };
			if (db_full(s->db))
				snprintf(pending->why, sizeof(pending->why),
					 "the database's disk was full when the attempt ended (%s)",
					 sqlite3_errmsg(s->db));
		}
	} else {
		pending->job = 0;
	}
}

/* The moves still waiting in @p[0..@n) tried again; true when none waits any more. */
static bool moves_retried(struct server *s, struct pending_move *p, size_t n)
{
	bool none = true;

	for (size_t i = 0; i < n; i++) {
		if (p[i].job)
			move_job(s, &p[i], p[i].job, p[i].move, p[i].what);
		none &= !p[i].job;
	}
	return none;
}

/* How the worker ended decides the job's fate; only a verdict is final. */
static void worker_ended(struct server *s, int64_t job, const struct child_result *res,
			 struct pending_move *pending)
{
	if (child_ok(res)) {
		fprintf(stderr, "job %lld: done\n", (long long)job);
		return;
	}
	fprintf(stderr, "job %lld: no verdict (%s %d); %s\n", (long long)job,
		res->signal ? "signal" : "exit status", res->signal ? res->signal : res->exit_code,
		"will retry until retry-max");
	move_job(s, pending, job, retry_job, "queueing it again after its worker failed");
}

static void poll_queues(struct server *s, time_t now, time_t *next_poll)
{
	for (size_t i = 0; i < s->cfg.n_queues; i++) {
		const struct queue_config *q = &s->cfg.queues[i];
		struct strbuf err = STRBUF_INIT;
		char what[128];
		int64_t job;
		bool dup, pending;
		int r;

		if (q->poll <= 0 || now < next_poll[i])
			continue;
		next_poll[i] = now + q->poll;
		/* One fetch is enough: the job reads the queue when it runs, and
		 * an unchanged snapshot ends at once without a new run. */
		r = jobs_queue_pending(s->db, q->name, &pending);
		if (r < 0)
			fprintf(stderr, "poll %s: looking for its pending jobs: %s\n", q->name,
				jobs_strerror(s->db, r));
		if (r < 0 || pending)
			continue;
		snprintf(what, sizeof(what), "poll %s: queueing a job", q->name);
		r = loop_wrote(s, what, jobs_enqueue(s->db, q->name, "poll", NULL, NULL, &job, &dup, &err));
		strbuf_release(&err);
		if (r == -EIO && db_later(s->db)) {
			/* locked or full: this poll on the next turn, the others' after it */
			next_poll[i] = now;
			break;
		}
	}
}

/*
 * systemctl status says what each running job's worker said last (jobs.h:
 * its progress), when that changed.
 */
static void workers_status(struct server *s, const struct worker *w, size_t n, struct strbuf *last)
{
	struct strbuf now = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		json_t *o;
		const char *progress;

		if (!w[i].job)
			continue;
		o = jobs_get_json(s->db, w[i].job);
		progress = json_string_value(json_object_get(o, "progress"));
		strbuf_addf(&now, "%sjob %lld: %s", now.len ? "; " : "gating ", (long long)w[i].job,
			    progress ? progress : "building and booting");
		json_decref(o);
	}
	if (strcmp(now.buf, last->buf) != 0) {
		sd_notifyf(0, "STATUS=%s", now.len ? now.buf : "idle");
		strbuf_reset(last);
		strbuf_adds(last, now.buf);
	}
	strbuf_release(&now);
}

static char *strdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void report_copy(struct report_config *to, const struct report_config *from)
{
	*to = (struct report_config){
		.smtp = strdup_or_null(from->smtp),
		.from = strdup_or_null(from->from),
		.to = strdup_or_null(from->to),
		.cc = strdup_or_null(from->cc),
		.user = strdup_or_null(from->user),
		.password_file = strdup_or_null(from->password_file),
		.starttls = from->starttls,
	};
}

static void report_release(struct report_config *report)
{
	free(report->smtp);
	free(report->from);
	free(report->to);
	free(report->cc);
	free(report->user);
	free(report->password_file);
}

static bool notifier_stopping(struct notifier *n)
{
	bool stop;

	pthread_mutex_lock(&n->mutex);
	stop = n->stop;
	pthread_mutex_unlock(&n->mutex);
	return stop;
}

/*
 * The notifier: sends what the outbox has due, then sleeps until woken
 * (a worker ended: its verdict may have added rows) or for
 * NOTIFIER_PERIOD_SEC. A receiver that never answers holds this thread
 * for OUTBOX_TIMEOUT_SEC, never the main loop.
 */
static void *notifier_main(void *arg)
{
	struct server *s = arg;
	struct notifier *n = &s->notifier;

	pthread_mutex_lock(&n->mutex);
	while (!n->stop) {
		struct report_config report;
		struct timespec deadline;

		n->woken = false;
		pthread_mutex_unlock(&n->mutex);
		/*
		 * A copy of [report], taken with the read lock held only for
		 * the copy: a delivery takes up to OUTBOX_TIMEOUT_SEC, and a
		 * reload (the main loop, a writer) waiting behind a reader
		 * that long would stop the loop and its watchdog pings. A
		 * reload during the delivery applies from the next one.
		 */
		pthread_rwlock_rdlock(&s->lock);
		report_copy(&report, &s->cfg.report);
		pthread_rwlock_unlock(&s->lock);
		/* one at a time, so that a stop waits for one delivery at most */
		for (int i = 0; i < NOTIFIER_BATCH && !notifier_stopping(n); i++)
			if (outbox_deliver(n->db, &report, 1) <= 0)
				break;
		report_release(&report);
		pthread_mutex_lock(&n->mutex);
		if (n->stop || n->woken)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += NOTIFIER_PERIOD_SEC;
		while (!n->stop && !n->woken &&
		       pthread_cond_timedwait(&n->wake, &n->mutex, &deadline) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&n->mutex);
	return NULL;
}

static void notifier_wake(struct notifier *n)
{
	pthread_mutex_lock(&n->mutex);
	n->woken = true;
	pthread_cond_signal(&n->wake);
	pthread_mutex_unlock(&n->mutex);
}

/* The notifier thread, with its own connection. 0, or -errno with @err. */
static int notifier_start(struct server *s, struct strbuf *err)
{
	struct notifier *n = &s->notifier;
	pthread_condattr_t attr;
	int r;

	r = db_open_timeout(s->database, NOTIFIER_BUSY_MS, &n->db, err);
	if (r < 0)
		return r;
	pthread_mutex_init(&n->mutex, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&n->wake, &attr);
	pthread_condattr_destroy(&attr);
	r = pthread_create(&n->thread, NULL, notifier_main, s);
	if (r) {
		strbuf_addf(err, "cannot start the notifier thread: %s", strerror(r));
		return -r;
	}
	n->started = true;
	return 0;
}

/*
 * Stop the notifier and wait for it: at most one delivery in flight
 * (OUTBOX_TIMEOUT_SEC) and the recording of its attempt (NOTIFIER_BUSY_MS).
 */
static void notifier_stop(struct server *s)
{
	struct notifier *n = &s->notifier;

	if (n->started) {
		pthread_mutex_lock(&n->mutex);
		n->stop = true;
		pthread_cond_signal(&n->wake);
		pthread_mutex_unlock(&n->mutex);
		pthread_join(n->thread, NULL);
		pthread_cond_destroy(&n->wake);
		pthread_mutex_destroy(&n->mutex);
		n->started = false;
	}
	db_close(n->db);
	n->db = NULL;
}

static uint64_t monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The tree job @job's queue gates against (queue_tree()); NULL when not known. */
static char *job_tree(struct server *s, int64_t job)
{
	struct strbuf err = STRBUF_INIT;
	const struct queue_config *q;
	char *queue = NULL, *tree = NULL;

	if (jobs_get_queue(s->db, job, &queue, &err) == 0 && queue &&
	    (q = config_queue(&s->cfg, queue)))
		tree = queue_tree(q);
	free(queue);
	strbuf_release(&err);
	return tree;
}

struct busy_trees {
	struct server *s;
	const struct worker *w;
	size_t n;
};

/*
 * jobs_next_queued()'s skip: @queue gates against a tree a running job
 * holds. Never with the Slurm executor: a job holds its tree's cache lock
 * only between its steps (kernel_env_unlock()), so jobs on one tree take
 * turns at applying and submitting, while their steps run on the cluster
 * together.
 */
static bool tree_busy(void *arg, const char *queue)
{
	const struct busy_trees *b = arg;
	const struct queue_config *q = config_queue(&b->s->cfg, queue);
	char *tree = q && !b->s->cfg.executor.slurm ? queue_tree(q) : NULL;
	bool busy = false;

	for (size_t i = 0; tree && !busy && i < b->n; i++)
		busy = b->w[i].job && b->w[i].tree && strcmp(b->w[i].tree, tree) == 0;
	free(tree);
	return busy;
}

/*
 * Start queued jobs while fewer than [server] workers run. A job whose
 * tree another job holds would wait for that tree's cache lock with a
 * worker of its own (its fetch at least goes ahead), so one starts only
 * while a second worker stays free for jobs on other trees.
 */
static void start_jobs(struct server *s, struct worker *w, size_t n, time_t now,
		       struct pending_move *pending)
{
	struct busy_trees busy = { s, w, n };

	for (;;) {
		size_t running = 0, idle = n;
		int64_t job = 0;
		int r;

		for (size_t i = 0; i < n; i++) {
			if (w[i].job)
				running++;
			else if (idle == n)
				idle = i;
		}
		if (running >= s->cfg.workers || idle == n)
			return;
		r = jobs_next_queued(s->db, now, tree_busy, &busy, &job);
		if (r == 0 && !job && s->cfg.workers - running >= 2)
			r = jobs_next_queued(s->db, now, NULL, NULL, &job);
		if (r < 0)
			fprintf(stderr, "looking for a queued job: %s\n", jobs_strerror(s->db, r));
		/* locked: it stays queued, and is started on a later turn */
		if (r < 0 || !job || job_moved(s, job, "marking it running", jobs_start(s->db, job)) < 0)
			return;
		if (start_worker(s, job, &w[idle]) < 0) {
			move_job(s, pending, job, requeue_job, "queueing it again");
			return;
		}
		w[idle].tree = job_tree(s, job);
		fprintf(stderr, "job %lld: started worker %d (%zu of %u running)\n", (long long)job,
			(int)w[idle].child.pid, running + 1, s->cfg.workers);
	}
}

/*
 * The main loop. Every step of a turn is bounded well under a second: a
 * child is looked at without waiting, a write waits LOOP_BUSY_MS at most
 * for a lock (and is tried again on a later turn), and nothing here
 * touches the network (the notifier thread does). The watchdog is pinged
 * at the end of a turn, and only there: a loop that stops turning stops
 * the pings, and systemd restarts the daemon.
 */
static int serve_loop(struct server *s)
{
	time_t next_poll[CONFIG_MAX_QUEUES] = { 0 };
	struct worker workers[CONFIG_SERVER_WORKERS_MAX] = { 0 };
	const size_t n_workers = CONFIG_SERVER_WORKERS_MAX;
	/* one per worker, the last for a worker that could not start */
	struct pending_move pending[CONFIG_SERVER_WORKERS_MAX + 1] = { 0 };
	struct child_result res;
	uint64_t watchdog_usec = 0, last_ping = 0;
	time_t last_status = 0;
	struct strbuf status = STRBUF_INIT;

	sd_watchdog_enabled(0, &watchdog_usec);
	while (!stop_requested) {
		time_t now = time(NULL);
		bool ended = false, moved;

		if (reload_requested) {
			struct gate_config fresh;
			struct strbuf err = STRBUF_INIT;

			reload_requested = 0;
			sd_notify(0, "RELOADING=1");
			if (config_load(s->cfg.path, &fresh, &err) == 0) {
				pthread_rwlock_wrlock(&s->lock);
				config_release(&s->cfg);
				s->cfg = fresh;
				pthread_rwlock_unlock(&s->lock);
				memset(next_poll, 0, sizeof(next_poll));
				fprintf(stderr, "reloaded %s: %zu queues, %u workers\n", s->cfg.path,
					s->cfg.n_queues, s->cfg.workers);
			} else {
				fprintf(stderr, "reload refused, keeping the running configuration: %s\n", err.buf);
			}
			strbuf_release(&err);
			sd_notify(0, "READY=1");
		}
		moved = moves_retried(s, pending, n_workers + 1);
		for (size_t i = 0; i < n_workers; i++) {
			if (!workers[i].job || child_wait(&workers[i].child, 0, &res) != 1)
				continue;
			worker_ended(s, workers[i].job, &res, &pending[i]);
			moved &= !pending[i].job;
			worker_clear(&workers[i]);
			ended = true;
		}
		/* its verdict came with its notifications */
		if (ended)
			notifier_wake(&s->notifier);
		pthread_rwlock_rdlock(&s->lock);
		poll_queues(s, now, next_poll);
		if (moved)
			start_jobs(s, workers, n_workers, now, &pending[n_workers]);
		if (ended || now - last_status >= 5) {
			workers_status(s, workers, n_workers, &status);
			last_status = now;
		}
		pthread_rwlock_unlock(&s->lock);
		if (watchdog_usec && monotonic_usec() - last_ping >= watchdog_usec / 2) {
			sd_notify(0, "WATCHDOG=1");
			last_ping = monotonic_usec();
		}
		usleep(200000);
	}
	sd_notify(0, "STOPPING=1");
	strbuf_release(&status);
	for (size_t i = 0; i < n_workers; i++) {
		if (!workers[i].job)
			continue;
		child_kill(&workers[i].child, &res);
		/* interrupted: it runs again after the restart (jobs_recover() if this fails) */
		job_moved(s, workers[i].job, "queueing it again for after the restart",
			  jobs_interrupted(s->db, workers[i].job));
		worker_clear(&workers[i]);
	}
	for (size_t i = 0; i <= n_workers; i++)
		if (pending[i].job)
			job_moved(s, pending[i].job, pending[i].what,
				  pending[i].move(s, pending[i].job, pending[i].why[0] ? pending[i].why : NULL));
	return 0;
}

int serve_run(struct gate_config *cfg, struct strbuf *err)
{
	struct server s;
	struct sigaction sa = { .sa_handler = on_signal };
	pthread_rwlockattr_t attr;
	int r;

	memset(&s, 0, sizeof(s));
	s.cfg = *cfg;
	s.database = xstrdup(cfg->database);
	/*
	 * A reload (the main loop's write lock) must not wait behind a
	 * stream of readers (HTTP threads): a waiting writer goes first.
	 * No thread takes the read lock twice, so this cannot deadlock.
	 */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&s.lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* the schema brought up to date here, waiting as long as that takes */
	r = db_open(s.database, &s.db, err);
	if (r < 0)
		goto out;
	/* a job 'running' now was interrupted by a crash or a kill: again */
	r = jobs_recover(s.db);
	if (r < 0) {
		strbuf_addf(err, "%s: queueing again the jobs a crash interrupted: %s", s.database,
			    jobs_strerror(s.db, r));
		goto out;
	}
	/* from now on the main loop's writes wait a moment only */
	sqlite3_busy_timeout(s.db, LOOP_BUSY_MS);
	r = pthread_key_create(&s.http_db, http_db_close);
	if (r) {
		strbuf_addf(err, "cannot make the HTTP threads' database key: %s", strerror(r));
		r = -r;
		goto out;
	}
	s.http_db_key = true;
	r = notifier_start(&s, err);
	if (r < 0)
		goto out;
	r = start_http(&s, err);
	if (r < 0)
		goto out;
	fprintf(stderr, "backport-gate serve: listening on http://%s:%u/, %zu queues, database %s\n",
		s.cfg.listen_host, s.cfg.listen_port, s.cfg.n_queues, s.database);
	sd_notify(0, "READY=1\nSTATUS=idle");
	serve_loop(&s);
	r = 0;
out:
	/* the HTTP threads end here, each closing its connection */
	if (s.httpd)
		MHD_stop_daemon(s.httpd);
	notifier_stop(&s);
	if (s.http_db_key)
		pthread_key_delete(s.http_db);
	db_close(s.db);
	free(s.database);
	pthread_rwlock_destroy(&s.lock);
	/* a reload may have replaced it: the caller releases the latest */
	*cfg = s.cfg;
	return r;
}
