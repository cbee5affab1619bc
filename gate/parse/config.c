// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <stdarg.h>
#include <git2.h>

#include "basic/git_error.h"
#include "basic/xalloc.h"
#include "parse/address.h"
#include "parse/config.h"

/*
 * libgit2 does not say where a key was set: find the line ourselves, the
 * last one in the file that sets @key inside @section [@subsection].
 */
static unsigned key_line(const char *path, const char *section, const char *subsection,
			 const char *key)
{
	struct strbuf text = STRBUF_INIT;
	unsigned line = 0, found = 0;
	bool in_section = false;

	strbuf_init(&text, 1 << 20);
	if (strbuf_read_file(&text, path) < 0) {
		strbuf_release(&text);
		return 0;
	}
	for (char *p = text.buf, *next; p && *p; p = next) {
		char *s = p;

		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		line++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '[') {
			char want[256];

			if (subsection)
				snprintf(want, sizeof(want), "[%s \"%s\"]", section, subsection);
			else
				snprintf(want, sizeof(want), "[%s]", section);
			in_section = strncasecmp(s, want, strlen(want)) == 0;
			continue;
		}
		if (in_section && strncasecmp(s, key, strlen(key)) == 0) {
			char c = s[strlen(key)];

			if (c == ' ' || c == '\t' || c == '=' || c == '\0')
				found = line;
		}
	}
	strbuf_release(&text);
	return found;
}

struct loader {
	const char *path;
	struct gate_config *cfg;
	struct strbuf *err;
	int r;
};

static void fail(struct loader *l, const char *section, const char *subsection, const char *key,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void fail(struct loader *l, const char *section, const char *subsection, const char *key,
		 const char *fmt, ...)
{
	va_list ap;

	if (l->r < 0)
		return;	/* one error at a time, the first */
	strbuf_addf(l->err, "%s:%u: %s.%s%s%s: ", l->path, key_line(l->path, section, subsection, key),
		    section, subsection ? subsection : "", subsection ? "." : "", key);
	va_start(ap, fmt);
	strbuf_vaddf(l->err, fmt, ap);
	va_end(ap);
	l->r = -EINVAL;
}

static bool parse_size(const char *v, long long min, long long max, long long *ret)
{
	int64_t n;

	if (git_config_parse_int64(&n, v) < 0 || n < min || n > max)
		return false;
	*ret = n;
	return true;
}

/* A whole number from @min to @max. */
static bool parse_count(const char *v, unsigned min, unsigned max, unsigned *ret)
{
	unsigned long n;
	char *end;

	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < min || n > max)
		return false;
	*ret = (unsigned)n;
	return true;
}

int config_parse_check_max(const char *v, unsigned *ret)
{
	return parse_count(v, 1, CONFIG_CHECK_MAX_LIMIT, ret) ? 0 : -EINVAL;
}

int config_parse_workers(const char *v, unsigned *ret)
{
	return parse_count(v, 1, CONFIG_EXECUTOR_WORKERS_MAX, ret) ? 0 : -EINVAL;
}

unsigned config_default_workers(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long w = cpus / 2;

	if (w < 1)
		return 1;
	return w > CONFIG_SERVER_WORKERS_MAX ? CONFIG_SERVER_WORKERS_MAX : (unsigned)w;
}

/*
 * A duration: whole seconds, or a number with s, m, h or d. At least one
 * second and at most a year: a ceiling past that is a typo.
 */
static bool parse_duration(const char *v, long long *ret)
{
	static const struct { char suffix; long long seconds; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	long long unit = 1, n;
	char *end;

	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno)
		return false;
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (*end == units[i].suffix)
				break;
		if (i == sizeof(units) / sizeof(units[0]) || end[1])
			return false;
		unit = units[i].seconds;
	}
	if (n < 1 || n > 366LL * 86400 / unit)
		return false;
	*ret = n * unit;
	return true;
}

static struct queue_config *queue_for(struct loader *l, const char *name)
{
	struct queue_config *q;

	for (size_t i = 0; i < l->cfg->n_queues; i++)
		if (strcmp(l->cfg->queues[i].name, name) == 0)
			return &l->cfg->queues[i];
	if (l->cfg->n_queues == CONFIG_MAX_QUEUES)
		return NULL;
	q = &l->cfg->queues[l->cfg->n_queues++];
	q->name = xstrdup(name);
	q->poll = 300;
	return q;
}

static void set_string(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup(value);
}

static void server_key(struct loader *l, const char *key, const char *value)
{
	struct gate_config *c = l->cfg;
	long long n;

	if (!strcmp(key, "listen")) {
		const char *colon = strrchr(value, ':');
		char *end;
		long port;

		if (!colon || colon == value) {
			fail(l, "server", NULL, key, "'%s' is not HOST:PORT", value);
			return;
		}
		port = strtol(colon + 1, &end, 10);
		if (*end || port < 1 || port > 65535) {
			fail(l, "server", NULL, key, "'%s' has no valid port", value);
			return;
		}
		free(c->listen_host);
		c->listen_host = xstrndup(value, (size_t)(colon - value));
		c->listen_port = (unsigned short)port;
	} else if (!strcmp(key, "database")) {
		set_string(&c->database, value);
	} else if (!strcmp(key, "cache")) {
		set_string(&c->cache, value);
	} else if (!strcmp(key, "max-body")) {
		if (!parse_size(value, 1024, 64 << 20, &n))
			fail(l, "server", NULL, key, "'%s' is not a size between 1k and 64m", value);
		else
			c->max_body = (size_t)n;
	} else if (!strcmp(key, "retry-max")) {
		if (!parse_duration(value, &n))
			fail(l, "server", NULL, key, "'%s' is not a duration between 1s and 366d "
			     "(seconds, or a number with s, m, h or d)", value);
		else
			c->retry_max = n;
	} else if (!strcmp(key, "workers")) {
		unsigned w;

		if (!parse_count(value, 1, CONFIG_SERVER_WORKERS_MAX, &w))
			fail(l, "server", NULL, key, "'%s' is not a number of workers (1 to %d)", value,
			     CONFIG_SERVER_WORKERS_MAX);
		else
			c->workers = w;
	} else if (!strcmp(key, "drop-on-quirk")) {
		int b;

		if (git_config_parse_bool(&b, value) < 0)
			fail(l, "server", NULL, key, "'%s' is not a boolean", value);
		else
			c->drop_on_quirk = b;
	} else {
		fail(l, "server", NULL, key, "unknown key");
	}
}

/* Whether @value is an address list (@one: exactly one address); else fails @l. */
static bool check_addresses(struct loader *l, const char *section, const char *sub,
			    const char *key, const char *value, bool one)
{
	struct strlist list = STRLIST_INIT;
	struct strbuf why = STRBUF_INIT;
	int r = one ? address_parse_one(value, &why, &why) : address_list_parse(value, &list, &why);

	if (r == 0 && !one && !list.n) {
		strbuf_adds(&why, "no address");
		r = -EINVAL;
	}
	if (r < 0)
		fail(l, section, sub, key, "%s", why.buf);
	strlist_release(&list);
	strbuf_release(&why);
	return r == 0;
}

/* Append the list @value to *@slot, ", "-joined. */
static void join_list(char **slot, const char *value)
{
	char *joined = *slot ? xasprintf("%s, %s", *slot, value) : xstrdup(value);

	free(*slot);
	*slot = joined;
}

static void report_key(struct loader *l, const char *key, const char *value)
{
	struct report_config *c = &l->cfg->report;

	if (!strcmp(key, "smtp")) {
		if (strncmp(value, "smtp://", 7) && strncmp(value, "smtps://", 8))
			fail(l, "report", NULL, key, "'%s' is not an smtp:// or smtps:// URL", value);
		else if (!value[strncmp(value, "smtp://", 7) ? 8 : 7])
			fail(l, "report", NULL, key, "'%s' names no host", value);
		else
			set_string(&c->smtp, value);
	} else if (!strcmp(key, "from")) {
		struct strbuf spec = STRBUF_INIT, why = STRBUF_INIT;

		if (address_parse_one(value, &spec, &why) < 0)
			fail(l, "report", NULL, key, "%s", why.buf);
		else
			set_string(&c->from, value);
		strbuf_release(&spec);
		strbuf_release(&why);
	} else if (!strcmp(key, "to") || !strcmp(key, "cc")) {
		if (check_addresses(l, "report", NULL, key, value, false))
			join_list(!strcmp(key, "to") ? &c->to : &c->cc, value);
	} else if (!strcmp(key, "user")) {
		if (!value[0])
			fail(l, "report", NULL, key, "is empty");
		else
			set_string(&c->user, value);
	} else if (!strcmp(key, "password-file")) {
		if (value[0] != '/')
			fail(l, "report", NULL, key, "'%s' is not an absolute path", value);
		else
			set_string(&c->password_file, value);
	} else if (!strcmp(key, "starttls")) {
		int b;

		if (git_config_parse_bool(&b, value) < 0)
			fail(l, "report", NULL, key, "'%s' is not a boolean", value);
		else
			c->starttls = b;
	} else {
		fail(l, "report", NULL, key, "unknown key");
	}
}

/* What [report] and the queues' review-list need of each other. */
static int check_report(const char *path, struct gate_config *cfg, struct strbuf *err)
{
	const struct report_config *c = &cfg->report;

	if (!c->user != !c->password_file) {
		strbuf_addf(err, "%s:%u: report: user and password-file go together", path,
			    key_line(path, "report", NULL, c->user ? "user" : "password-file"));
		return -EINVAL;
	}
	if (c->starttls && c->smtp && !strncmp(c->smtp, "smtps://", 8)) {
		strbuf_addf(err, "%s:%u: report.starttls: smtps:// is TLS from the start; "
			    "starttls is for smtp://", path, key_line(path, "report", NULL, "starttls"));
		return -EINVAL;
	}
	for (size_t i = 0; i < cfg->n_queues; i++) {
		const struct queue_config *q = &cfg->queues[i];

		if (q->review_list && (!c->smtp || !c->from)) {
			strbuf_addf(err, "%s:%u: queue.%s.review-list: replies need [report] "
				    "smtp and from", path,
				    key_line(path, "queue", q->name, "review-list"), q->name);
			return -EINVAL;
		}
	}
	return 0;
}

static void queue_key(struct loader *l, const char *name, const char *key, const char *value)
{
	struct queue_config *q = queue_for(l, name);
	long long n;

	if (!q) {
		fail(l, "queue", name, key, "more than %d queues", CONFIG_MAX_QUEUES);
		return;
	}
	if (!strcmp(key, "url")) {
		set_string(&q->url, value);
	} else if (!strcmp(key, "ref")) {
		set_string(&q->ref, value);
	} else if (!strcmp(key, "series")) {
		if (strstr(value, "..") || value[0] == '/')
			fail(l, "queue", name, key, "'%s' leaves the repository", value);
		else
			set_string(&q->series, value);
	} else if (!strcmp(key, "tree")) {
		/* the two forms source/target.h's target_resolve() takes */
		bool package = !strncmp(value, "linux-source-", 13) && value[13] &&
			       strspn(value + 13, "0123456789.") == strlen(value + 13);

		if (!package && value[0] != '/')
			fail(l, "queue", name, key, "'%s' is neither a source package "
			     "(linux-source-X.Y) nor a tarball's absolute path", value);
		else
			set_string(&q->tree, value);
	} else if (!strcmp(key, "poll")) {
		if (!parse_size(value, 0, 7 * 24 * 3600, &n))
			fail(l, "queue", name, key, "'%s' is not a number of seconds (0 to 604800)", value);
		else
			q->poll = (int)n;
	} else if (!strcmp(key, "secret")) {
		if (!value[0])
			fail(l, "queue", name, key, "is empty");
		else
			set_string(&q->secret, value);
	} else if (!strcmp(key, "review-list")) {
		if (check_addresses(l, "queue", name, key, value, false))
			set_string(&q->review_list, value);
	} else if (!strcmp(key, "notify")) {
		if (strncmp(value, "http://", 7) && strncmp(value, "https://", 8))
			fail(l, "queue", name, key, "'%s' is not an http(s) URL", value);
		else if (q->n_notify == CONFIG_MAX_NOTIFY)
			fail(l, "queue", name, key, "more than %d URLs", CONFIG_MAX_NOTIFY);
		else
			q->notify[q->n_notify++] = xstrdup(value);
	} else if (!strcmp(key, "config-check-max")) {
		if (config_parse_check_max(value, &q->config_check_max) < 0)
			fail(l, "queue", name, key, "'%s' is not a number from 1 to %d", value,
			     CONFIG_CHECK_MAX_LIMIT);
	} else if (!strcmp(key, "config-check")) {
		q->config_check_named = true;
		if (!strcmp(value, "none")) {
			for (size_t k = 0; k < q->n_config_checks; k++)
				free(q->config_checks[k]);
			q->n_config_checks = 0;
		} else if (strchr(value, '/') && value[0] != '/') {
			fail(l, "queue", name, key, "'%s' is a relative path; give an absolute one",
			     value);
		} else if (!value[0]) {
			fail(l, "queue", name, key, "is empty");
		} else if (q->n_config_checks == CONFIG_MAX_CHECKS) {
			fail(l, "queue", name, key, "more than %d configurations", CONFIG_MAX_CHECKS);
		} else {
			q->config_checks[q->n_config_checks++] = xstrdup(value);
		}
	} else {
		fail(l, "queue", name, key, "unknown key");
	}
}

static void executor_key(struct loader *l, const char *key, const char *value)
{
	struct executor_config *x = &l->cfg->executor;
	static const char *const paths[] = { "program", "node-cache", "ccache", "spool" };
	char **path_slots[] = { &x->program, &x->node_cache, &x->ccache, &x->spool };
	long long seconds;

	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++)
		if (!strcmp(key, paths[i])) {
			if (value[0] != '/')
				fail(l, "executor", NULL, key, "'%s' is not an absolute path", value);
			else
				set_string(path_slots[i], value);
			return;
		}
	if (!strcmp(key, "kind")) {
		if (strcmp(value, "local") && strcmp(value, "slurm"))
			fail(l, "executor", NULL, key, "'%s' is neither local nor slurm", value);
		else
			x->slurm = !strcmp(value, "slurm");
	} else if (!strcmp(key, "partition")) {
		if (!value[0] || strpbrk(value, " \t,"))
			fail(l, "executor", NULL, key, "'%s' is not a partition name", value);
		else
			set_string(&x->partition, value);
	} else if (!strcmp(key, "memory")) {
		size_t digits = strspn(value, "0123456789");

		if (!digits || (value[digits] && (!strchr("KMGT", value[digits]) ||
						  value[digits + 1])))
			fail(l, "executor", NULL, key, "'%s' is not a size for Slurm's --mem (a "
			     "number of megabytes, or one with K, M, G or T)", value);
		else
			set_string(&x->memory, value);
	} else if (!strcmp(key, "time-limit")) {
		if (!parse_duration(value, &seconds))
			fail(l, "executor", NULL, key, "'%s' is not a duration between 1s and 366d "
			     "(seconds, or a number with s, m, h or d)", value);
		else
			x->time_limit = (unsigned)((seconds + 59) / 60);
	} else if (!strcmp(key, "cpus")) {
		if (!parse_count(value, 1, 1024, &x->cpus))
			fail(l, "executor", NULL, key, "'%s' is not a number from 1 to 1024", value);
	} else if (!strcmp(key, "workers")) {
		if (config_parse_workers(value, &x->workers) < 0)
			fail(l, "executor", NULL, key, "'%s' is not a number from 1 to %d", value,
			     CONFIG_EXECUTOR_WORKERS_MAX);
	} else if (!strcmp(key, "retries")) {
		if (!parse_count(value, 0, CONFIG_EXECUTOR_RETRIES_MAX, &x->retries))
			fail(l, "executor", NULL, key, "'%s' is not a number from 0 to %d", value,
			     CONFIG_EXECUTOR_RETRIES_MAX);
		else
			x->retries_set = true;
	} else {
		fail(l, "executor", NULL, key, "unknown key");
	}
}

static int each_entry(const git_config_entry *e, void *payload)
{
	struct loader *l = payload;
	const char *name = e->name, *first_dot = strchr(name, '.'), *last_dot = strrchr(name, '.');
	char section[64], sub[256];

	if (!first_dot || first_dot - name >= (long)sizeof(section))
		return 0;
	snprintf(section, sizeof(section), "%.*s", (int)(first_dot - name), name);
	if (!strcmp(section, "server") && first_dot == last_dot) {
		server_key(l, last_dot + 1, e->value ? e->value : "");
	} else if (!strcmp(section, "report") && first_dot == last_dot) {
		report_key(l, last_dot + 1, e->value ? e->value : "");
	} else if (!strcmp(section, "executor") && first_dot == last_dot) {
		executor_key(l, last_dot + 1, e->value ? e->value : "");
	} else if (!strcmp(section, "queue") && first_dot != last_dot &&
		   last_dot - first_dot - 1 < (long)sizeof(sub)) {
		snprintf(sub, sizeof(sub), "%.*s", (int)(last_dot - first_dot - 1), first_dot + 1);
		queue_key(l, sub, last_dot + 1, e->value ? e->value : "");
	} else {
		strbuf_addf(l->err, "%s:%u: %s: unknown section or key", l->path, 0, name);
		if (l->r == 0)
			l->r = -EINVAL;
	}
	return 0;
}

int config_load(const char *path, struct gate_config *ret, struct strbuf *err)
{
	struct loader l = { .path = path, .cfg = ret, .err = err };
	git_config *cfg = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	git_libgit2_init();
	ret->path = xstrdup(path);
	if (access(path, R_OK) < 0) {
		r = -errno;
		strbuf_addf(err, "%s: %s", path, strerror(-r));
		goto out_release;
	}
	if (git_config_new(&cfg) < 0 ||
	    git_config_add_file_ondisk(cfg, path, GIT_CONFIG_LEVEL_APP, NULL, 0) < 0) {
		/* libgit2's parse errors carry "(in FILE:LINE, column N)" */
		git_error_add(err, path);
		git_config_free(cfg);
		r = -EINVAL;
		goto out_release;
	}
	git_config_foreach(cfg, each_entry, &l);
	git_config_free(cfg);
	r = l.r;
	if (r < 0)
		goto out_release;
	if (!ret->listen_host) {
		ret->listen_host = xstrdup("127.0.0.1");
		ret->listen_port = 8080;
	}
	if (!ret->cache)
		ret->cache = xstrdup("/var/cache/backport-gate");
	if (!ret->database)
		ret->database = xasprintf("%s/gate.db", ret->cache);
	if (!ret->max_body)
		ret->max_body = 1 << 20;
	if (!ret->retry_max)
		ret->retry_max = CONFIG_RETRY_MAX_DEFAULT;
	if (!ret->workers)
		ret->workers = config_default_workers();
	for (size_t i = 0; i < ret->n_queues; i++)
		if (!ret->queues[i].url) {
			strbuf_addf(err, "%s:%u: queue.%s: has no url", path,
				    key_line(path, "queue", ret->queues[i].name, "poll"), ret->queues[i].name);
			r = -EINVAL;
			goto out_release;
		}
	r = check_report(path, ret, err);
	if (r < 0)
		goto out_release;
	return 0;

	/*
	 * A refused file leaves @ret empty, so a caller that keeps its running
	 * configuration on failure (serve.c's reload) has nothing to free.
	 */
out_release:
	config_release(ret);
	return r;
}

void config_release(struct gate_config *cfg)
{
	for (size_t i = 0; i < cfg->n_queues; i++) {
		struct queue_config *q = &cfg->queues[i];

		free(q->name);
		free(q->url);
		free(q->ref);
		free(q->series);
		free(q->tree);
		free(q->secret);
		for (size_t k = 0; k < q->n_notify; k++)
			free(q->notify[k]);
		for (size_t k = 0; k < q->n_config_checks; k++)
			free(q->config_checks[k]);
		free(q->review_list);
	}
	free(cfg->report.smtp);
	free(cfg->report.from);
	free(cfg->report.to);
	free(cfg->report.cc);
	free(cfg->report.user);
	free(cfg->report.password_file);
	free(cfg->executor.partition);
	free(cfg->executor.memory);
	free(cfg->executor.program);
	free(cfg->executor.node_cache);
	free(cfg->executor.ccache);
	free(cfg->executor.spool);
	free(cfg->path);
	free(cfg->listen_host);
	free(cfg->database);
	free(cfg->cache);
	memset(cfg, 0, sizeof(*cfg));
}

const struct queue_config *config_queue(const struct gate_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_queues; i++)
		if (strcmp(cfg->queues[i].name, name) == 0)
			return &cfg->queues[i];
	return NULL;
}
