/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config: the daemon's configuration, in git-config syntax, read with
 * libgit2's config API (DESIGN.md, "Contracts"). A sample with every key
 * is systemd/backport-gate.conf.
 *
 *   [server]  listen, database, cache, max-body, drop-on-quirk
 *   [queue "NAME"]  url, ref, series, poll, secret, notify (repeatable)
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
};

struct gate_config {
	char *path;
	char *listen_host;	/* default 127.0.0.1 */
	unsigned short listen_port;	/* default 8080 */
	char *database;		/* default <cache>/gate.db */
	char *cache;		/* default /var/cache/backport-gate */
	size_t max_body;	/* default 1 MiB */
	bool drop_on_quirk;
	struct queue_config queues[CONFIG_MAX_QUEUES];
	size_t n_queues;
};

/*
 * Read and check @path. 0, or -EINVAL (-ENOENT for a missing file) with
 * "FILE:LINE: KEY: why" in @err; a refused load leaves @ret empty.
 */
int config_load(const char *path, struct gate_config *ret, struct strbuf *err);
void config_release(struct gate_config *cfg);

const struct queue_config *config_queue(const struct gate_config *cfg, const char *name);

#endif
