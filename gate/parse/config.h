/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config: the daemon's configuration, in git-config syntax, read with
 * libgit2's config API (docs/CONTRACTS.md). A sample with every key
 * is systemd/backport-gate.conf.
 *
 *   [server]  listen, database, cache, max-body, drop-on-quirk,
 *             retry-max (a duration: seconds, or a number with s, m, h
 *             or d; how long after its first failed attempt a job
 *             without a verdict is still retried, record/jobs.h),
 *             workers (jobs of different queues at once, 1 to
 *             CONFIG_SERVER_WORKERS_MAX; default one per two online
 *             CPUs, at least one)
 *   [queue "NAME"]  url, ref, series, tree, poll, secret, notify (repeatable),
 *                   review-list (an address list: the queue's runs are
 *                   answered by mail, To: this list and [report] to),
 *                   config-check (repeatable: a config NAME or an absolute
 *                   PATH, as run --config-check takes; "none" clears the
 *                   ones before it)
 *   [report]  smtp (smtp://HOST:PORT or smtps://), from, to and cc
 *             (address lists; repeatable, joined), user, password-file,
 *             starttls (smtp:// only)
 *   [executor]  kind (local, the default, or slurm), and for slurm
 *               (exec/slurm.h): partition, time-limit (a duration,
 *               rounded up to minutes), memory (Slurm's --mem: a number
 *               with K, M, G or T), cpus, retries (0 to 9), workers
 *               (steps submitted at once, 1 to 64), and absolute
 *               paths: program (the gate on the nodes), node-cache,
 *               ccache, spool
 *
 * Addresses are checked with parse/address.h. A queue with a review-list
 * needs [report]'s smtp and from; user and password-file go together.
 *
 * Every problem is reported as "FILE:LINE: KEY: why" (the line where the
 * key is set, or where the file stopped parsing).
 */
#ifndef GATE_CONFIG_H
#define GATE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"

#define CONFIG_MAX_QUEUES 64
#define CONFIG_MAX_NOTIFY 8
#define CONFIG_MAX_CHECKS 8
/* [server] retry-max when not set: 6 h. */
#define CONFIG_RETRY_MAX_DEFAULT (6 * 3600)

struct queue_config {
	char *name;
	char *url;		/* path or URL of the stable-queue repository */
	char *ref;		/* NULL: HEAD / the remote's default */
	char *series;		/* NULL: queue-<version> of the tree */
	char *tree;		/* linux-source-X.Y or a tarball; NULL: the series folder's */
	int poll;		/* seconds between fetches; 0: only on webhook */
	char *secret;		/* webhook secret; NULL: webhooks refused */
	char *notify[CONFIG_MAX_NOTIFY];
	size_t n_notify;
	char *review_list;	/* NULL: no reply by mail */
	char *config_checks[CONFIG_MAX_CHECKS];	/* compile_check.h: NAME or PATH */
	size_t n_config_checks;
	bool config_check_named;	/* the key was given (else amd64 if installed) */
	unsigned config_check_max;	/* config-check-max; 0: the default (200) */
};

/* How replies are mailed (daemon/smtp.h); all NULL without [report]. */
struct report_config {
	char *smtp;		/* smtp://HOST:PORT or smtps://HOST:PORT */
	char *from;		/* From: and the envelope sender */
	char *to, *cc;		/* address lists, ", "-joined, or NULL */
	char *user;		/* NULL: no AUTH */
	char *password_file;
	bool starttls;
};

/*
 * [executor]: where trees are built and booted (exec/executor.h;
 * exec/slurm.h's slurm_options_from_config() makes its options).
 */
#define CONFIG_EXECUTOR_RETRIES_MAX 9
#define CONFIG_EXECUTOR_WORKERS_MAX 64
#define CONFIG_SERVER_WORKERS_MAX 16
struct executor_config {
	bool slurm;		/* kind = slurm */
	char *partition, *memory;
	unsigned time_limit;	/* minutes; 0: the default */
	unsigned cpus;		/* 0: the default */
	unsigned retries;
	bool retries_set;
	unsigned workers;	/* steps at once; 0: one */
	char *program, *node_cache, *ccache, *spool;	/* NULL: the defaults */
};

struct gate_config {
	char *path;
	char *listen_host;	/* default 127.0.0.1 */
	unsigned short listen_port;	/* default 8080 */
	char *database;		/* default <cache>/gate.db */
	char *cache;		/* default /var/cache/backport-gate */
	size_t max_body;	/* default 1 MiB */
	bool drop_on_quirk;
	long long retry_max;	/* seconds; default CONFIG_RETRY_MAX_DEFAULT */
	unsigned workers;	/* jobs at once; default config_default_workers() */
	struct queue_config queues[CONFIG_MAX_QUEUES];
	size_t n_queues;
	struct report_config report;
	struct executor_config executor;
};

/*
 * Read and check @path. 0, or -EINVAL (-ENOENT for a missing file) with
 * "FILE:LINE: KEY: why" in @err; a refused load leaves @ret empty.
 */
int config_load(const char *path, struct gate_config *ret, struct strbuf *err);
void config_release(struct gate_config *cfg);

const struct queue_config *config_queue(const struct gate_config *cfg, const char *name);

/*
 * A compile check's bound of objects per changed header, as
 * `config-check-max` and `run --config-check-max` take it: a whole number
 * from 1 to CONFIG_CHECK_MAX_LIMIT. 0 with *ret, or -EINVAL.
 */
#define CONFIG_CHECK_MAX_LIMIT 100000
int config_parse_check_max(const char *v, unsigned *ret);

/* [executor] workers, as `run --workers` takes it: 1 to CONFIG_EXECUTOR_WORKERS_MAX. */
int config_parse_workers(const char *v, unsigned *ret);

/* [server] workers when not set: one per two online CPUs, at least one, at most the limit. */
unsigned config_default_workers(void);

#endif
