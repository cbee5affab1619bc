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
#include "output/page.h"
#include "parse/webhook.h"
#include "record/db.h"
#include "record/history.h"
#include "record/jobs.h"

static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

struct server {
	pthread_rwlock_t lock;		/* guards cfg against a reload */
	struct gate_config cfg;
	sqlite3 *db;			/* FULLMUTEX: shared by the HTTP thread */
	struct MHD_Daemon *httpd;
};

/* Per-request state: the body as it arrives. */
struct request {
	struct strbuf body;
	bool too_big;
};

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type,
			       const char *text, const char *location)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								  MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", type);
	if (location)
		MHD_add_response_header(r, "Location", location);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result respond_json(struct MHD_Connection *c, unsigned status, json_t *value,
				    const char *location)
{
	char *text = json_dumps(value, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	enum MHD_Result ret;

	ret = respond(c, status, "application/json", text ? text : "{}", location);
	free(text);
	json_decref(value);
	return ret;
}

static enum MHD_Result respond_error(struct MHD_Connection *c, unsigned status, const char *message)
{
	json_t *o = json_object();

	json_object_set_new(o, "error", json_string(message));
	return respond_json(c, status, o, NULL);
}

static const struct queue_config *queue_for_event(const struct gate_config *cfg,
						  const struct webhook_event *ev)
{
	if (ev->queue)
		return config_queue(cfg, ev->queue);
	for (size_t i = 0; i < cfg->n_queues; i++) {
		const struct queue_config *q = &cfg->queues[i];
		size_t n = ev->repository_name ? strlen(ev->repository_name) : 0;
		const char *u = q->url;
		size_t ul = strlen(u);

		if (ev->repository && strcmp(ev->repository, u) == 0)
			return q;
		/* ".../owner/name" or ".../owner/name.git" */
		if (n && ul >= 4 && strcmp(u + ul - 4, ".git") == 0)
			ul -= 4;
		if (n && ul > n && strncmp(u + ul - n, ev->repository_name, n) == 0 &&
		    (u[ul - n - 1] == '/' || u[ul - n - 1] == ':'))
			return q;
	}
	return NULL;
}

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
	const struct queue_config *q;
	enum MHD_Result ret;
	int64_t job = 0;
	bool duplicate = false;
	char location[64];

	if (req->too_big)
		return respond_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "body over the configured max-body");
	if (webhook_parse(&wr, &ev, &err) < 0) {
		ret = respond_error(c, MHD_HTTP_BAD_REQUEST, err.buf);
		goto out;
	}
	pthread_rwlock_rdlock(&s->lock);
	q = queue_for_event(&s->cfg, &ev);
	if (!q) {
		pthread_rwlock_unlock(&s->lock);
		ret = respond_error(c, MHD_HTTP_NOT_FOUND, "no configured queue matches this webhook");
		goto out;
	}
	if (!q->secret || !webhook_signature_ok(&wr, q->secret)) {
		pthread_rwlock_unlock(&s->lock);
		ret = respond_error(c, MHD_HTTP_UNAUTHORIZED, "missing or wrong signature");
		goto out;
	}
	/* Only a push (or a plain request) changes a queue; a ping, another
	 * event or a deleted branch is acknowledged and nothing is queued. */
	if (ev.ping || (!ev.queue && !ev.push) ||
	    (ev.after && strspn(ev.after, "0") == strlen(ev.after))) {
		pthread_rwlock_unlock(&s->lock);
		ret = respond(c, MHD_HTTP_OK, "application/json",
			      ev.ping ? "{\"ping\": \"ok\"}\n" : "{\"queued\": false}\n", NULL);
		goto out;
	}
	if (jobs_enqueue(s->db, q->name, "webhook", ev.delivery,
			 &(struct job_thread){ ev.in_reply_to, ev.subject }, &job, &duplicate, &err) < 0) {
		pthread_rwlock_unlock(&s->lock);
		ret = respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, err.buf);
		goto out;
	}
	{
		json_t *o = json_object();

		json_object_set_new(o, "job", json_integer(job));
		json_object_set_new(o, "queue", json_string(q->name));
		json_object_set_new(o, "duplicate", json_boolean(duplicate));
		pthread_rwlock_unlock(&s->lock);
		snprintf(location, sizeof(location), "/api/jobs/%lld", (long long)job);
		fprintf(stderr, "webhook: %s job %lld for %s\n", duplicate ? "already have" : "queued",
			(long long)job, json_string_value(json_object_get(o, "queue")));
		ret = respond_json(c, duplicate ? MHD_HTTP_OK : MHD_HTTP_ACCEPTED, o, location);
	}
out:
	webhook_event_release(&ev);
	strbuf_release(&err);
	return ret;
}

static const char *query(struct MHD_Connection *c, const char *key)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
}

static enum MHD_Result handle_get(struct server *s, struct MHD_Connection *c, const char *url)
{
	struct strbuf err = STRBUF_INIT;
	json_t *v = NULL;
	enum MHD_Result ret;
	unsigned missing = MHD_HTTP_NOT_FOUND;

	if (!strcmp(url, "/")) {
		struct strbuf html = STRBUF_INIT;

		pthread_rwlock_rdlock(&s->lock);
		page_render(s->db, &s->cfg, &html);
		pthread_rwlock_unlock(&s->lock);
		ret = respond(c, MHD_HTTP_OK, "text/html; charset=utf-8", html.buf, NULL);
		strbuf_release(&html);
		return ret;
	}
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
			v = history_runs(s->db, &f, &err);
	} else if (!strncmp(url, "/api/runs/", 10)) {
		char *end;
		long long id = strtoll(url + 10, &end, 10);

		if (!*end && id > 0)
			v = history_run_report(s->db, id, &err);
		else
			strbuf_addf(&err, "'%s' is not a run number", url + 10);
	} else if (!strncmp(url, "/api/jobs/", 10)) {
		char *end;
		long long id = strtoll(url + 10, &end, 10);

		if (!*end && id > 0)
			v = jobs_get_json(s->db, id);
		if (!v)
			strbuf_addf(&err, "no job %s", url + 10);
	} else if (!strncmp(url, "/api/patches/", 13) && url[13]) {
		v = history_patch(s->db, url + 13, &err);
	} else if (!strncmp(url, "/api/cases/", 11) && url[11]) {
		v = history_case(s->db, url + 11, &err);
	} else if (!strcmp(url, "/api/regressions")) {
		const char *open = query(c, "open");

		v = history_regressions(s->db, open && strcmp(open, "0"), &err);
	} else {
		strbuf_addf(&err, "no such resource: %s", url);
	}
	if (v)
		ret = respond_json(c, MHD_HTTP_OK, v, NULL);
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

/* The worker: one job, in a child of its own. */
struct worker {
	struct child child;
	int64_t job;		/* 0: no worker */
	char id[32], exe[4096];
	const char *argv[7];
};

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

/* Log a job state change that did not happen; @r is what the jobs_*() call returned. */
static int job_moved(struct server *s, int64_t job, const char *what, int r)
{
	if (r < 0)
		fprintf(stderr, "job %lld: %s: %s\n", (long long)job, what, jobs_strerror(s->db, r));
	return r;
}

/* How the worker ended decides the job's fate; only a verdict is final. */
static void worker_ended(struct server *s, int64_t job, const struct child_result *res)
{
	if (child_ok(res)) {
		fprintf(stderr, "job %lld: done\n", (long long)job);
		return;
	}
	fprintf(stderr, "job %lld: no verdict (%s %d); %s\n", (long long)job,
		res->signal ? "signal" : "exit status", res->signal ? res->signal : res->exit_code,
		"will retry");
	job_moved(s, job, "queueing it again after its worker failed", jobs_worker_failed(s->db, job));
}

static void poll_queues(struct server *s, time_t now, time_t *next_poll)
{
	for (size_t i = 0; i < s->cfg.n_queues; i++) {
		const struct queue_config *q = &s->cfg.queues[i];
		struct strbuf err = STRBUF_INIT;
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
		if (jobs_enqueue(s->db, q->name, "poll", NULL, NULL, &job, &dup, &err) < 0)
			fprintf(stderr, "poll %s: %s\n", q->name, err.buf);
		strbuf_release(&err);
	}
}

/* systemctl status says what the worker said last (jobs.h: its progress), when that changed. */
static void worker_status(struct server *s, int64_t job, struct strbuf *last)
{
	json_t *o = jobs_get_json(s->db, job);
	const char *progress = json_string_value(json_object_get(o, "progress"));

	if (progress && strcmp(progress, last->buf) != 0) {
		sd_notifyf(0, "STATUS=gating job %lld: %s", (long long)job, progress);
		strbuf_reset(last);
		strbuf_adds(last, progress);
	}
	json_decref(o);
}

static int serve_loop(struct server *s)
{
	time_t next_poll[CONFIG_MAX_QUEUES] = { 0 };
	struct worker worker = { .job = 0 };
	struct child_result res;
	uint64_t watchdog_usec = 0;
	time_t last_ping = 0, last_status = 0;
	struct strbuf status = STRBUF_INIT;

	sd_watchdog_enabled(0, &watchdog_usec);
	while (!stop_requested) {
		time_t now = time(NULL);

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
				fprintf(stderr, "reloaded %s: %zu queues\n", s->cfg.path, s->cfg.n_queues);
			} else {
				fprintf(stderr, "reload refused, keeping the running configuration: %s\n", err.buf);
			}
			strbuf_release(&err);
			sd_notify(0, "READY=1");
		}
		if (worker.job && child_wait(&worker.child, 0, &res) == 1) {
			worker_ended(s, worker.job, &res);
			worker.job = 0;
			sd_notify(0, "STATUS=idle");
		}
		pthread_rwlock_rdlock(&s->lock);
		poll_queues(s, now, next_poll);
		if (!worker.job) {
			int64_t job = 0;
			int r = jobs_next_queued(s->db, &job);

			if (r < 0)
				fprintf(stderr, "looking for a queued job: %s\n", jobs_strerror(s->db, r));
			if (job && job_moved(s, job, "marking it running", jobs_start(s->db, job)) == 0) {
				if (start_worker(s, job, &worker) < 0) {
					job_moved(s, job, "queueing it again", jobs_requeue(s->db, job));
				} else {
					sd_notifyf(0, "STATUS=gating job %lld (building and booting)", (long long)job);
					fprintf(stderr, "job %lld: started worker %d\n", (long long)job,
						(int)worker.child.pid);
				}
			}
		}
		if (worker.job && now - last_status >= 5) {
			worker_status(s, worker.job, &status);
			last_status = now;
		}
		outbox_deliver(s->db, &s->cfg.report, 5);
		pthread_rwlock_unlock(&s->lock);
		if (watchdog_usec && now - last_ping >= (time_t)(watchdog_usec / 2000000)) {
			sd_notify(0, "WATCHDOG=1");
			last_ping = now;
		}
		usleep(200000);
	}
	sd_notify(0, "STOPPING=1");
	strbuf_release(&status);
	if (worker.job) {
		child_kill(&worker.child, &res);
		/* interrupted: it runs again after the restart */
		job_moved(s, worker.job, "queueing it again for after the restart",
			  jobs_interrupted(s->db, worker.job));
	}
	return 0;
}

int serve_run(struct gate_config *cfg, struct strbuf *err)
{
	struct server s;
	struct sigaction sa = { .sa_handler = on_signal };
	int r;

	memset(&s, 0, sizeof(s));
	s.cfg = *cfg;
	pthread_rwlock_init(&s.lock, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	r = db_open(s.cfg.database, &s.db, err);
	if (r < 0)
		goto out;
	/* a job 'running' now was interrupted by a crash or a kill: again */
	r = jobs_recover(s.db);
	if (r < 0) {
		strbuf_addf(err, "%s: queueing again the jobs a crash interrupted: %s", s.cfg.database,
			    jobs_strerror(s.db, r));
		goto out;
	}
	r = start_http(&s, err);
	if (r < 0)
		goto out;
	fprintf(stderr, "backport-gate serve: listening on http://%s:%u/, %zu queues, database %s\n",
		s.cfg.listen_host, s.cfg.listen_port, s.cfg.n_queues, s.cfg.database);
	sd_notify(0, "READY=1\nSTATUS=idle");
	serve_loop(&s);
	r = 0;
out:
	if (s.httpd)
		MHD_stop_daemon(s.httpd);
	db_close(s.db);
	/* a reload may have replaced it: the caller releases the latest */
	*cfg = s.cfg;
	return r;
}
