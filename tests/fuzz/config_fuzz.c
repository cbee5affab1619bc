// SPDX-License-Identifier: GPL-2.0
/*
 * config_load() on untrusted bytes. config_load() reads a file, so each
 * input is written to one temporary file (made once per process, under
 * /tmp, rewritten for every input, removed at exit but not after a crash).
 *
 * The loader is called as the daemon's reload does (serve.c, SIGHUP): the
 * result is released only when the load succeeded, and a refused load must
 * leave nothing behind to release.
 *
 * Checked beyond memory safety: a loaded configuration has every default
 * filled in, every value within the bounds config.h and the sample give,
 * and every queue has a url and can be found by its name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include <git2.h>

#include "fuzz_check.h"
#include "parse/config.h"

static char path[] = "/tmp/backport-gate-config-fuzz.XXXXXX";
static int fd = -1;

static void remove_file(void)
{
	if (fd >= 0)
		unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		abort();
	}
	atexit(remove_file);
	/* libgit2's global state, once, so no input looks like it leaked it */
	git_libgit2_init();
	return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
	size_t done = 0;

	if (ftruncate(fd, 0) < 0)
		abort();
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			abort();
		done += (size_t)n;
	}
}

static void check_config(const struct gate_config *cfg)
{
	fuzz_check(cfg->path && !strcmp(cfg->path, path), "path \"%s\"",
		   cfg->path ? cfg->path : "(null)");
	fuzz_check(cfg->listen_host && cfg->listen_port, "listen %s:%u",
		   cfg->listen_host ? cfg->listen_host : "(null)", cfg->listen_port);
	fuzz_check(cfg->database && cfg->cache, "no database or cache");
	fuzz_check(cfg->max_body >= 1024 && cfg->max_body <= 64u << 20, "max-body %zu",
		   cfg->max_body);
	fuzz_check(cfg->n_queues <= CONFIG_MAX_QUEUES, "%zu queues", cfg->n_queues);
	for (size_t i = 0; i < cfg->n_queues; i++) {
		const struct queue_config *q = &cfg->queues[i];

		fuzz_check(q->name && q->url, "queue %zu without a name or url", i);
		fuzz_check(config_queue(cfg, q->name) == q, "config_queue(\"%s\") misses it",
			   q->name);
		fuzz_check(q->poll >= 0 && q->poll <= 7 * 24 * 3600, "queue %s: poll %d", q->name,
			   q->poll);
		fuzz_check(!q->secret || q->secret[0], "queue %s: empty secret", q->name);
		fuzz_check(!q->series || (q->series[0] != '/' && !strstr(q->series, "..")),
			   "queue %s: series \"%s\"", q->name, q->series);
		fuzz_check(q->n_notify <= CONFIG_MAX_NOTIFY, "queue %s: %zu notify URLs", q->name,
			   q->n_notify);
		for (size_t k = 0; k < q->n_notify; k++)
			fuzz_check(!strncmp(q->notify[k], "http://", 7) ||
				   !strncmp(q->notify[k], "https://", 8),
				   "queue %s: notify \"%s\"", q->name, q->notify[k]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gate_config cfg;
	struct strbuf err = STRBUF_INIT;
	int r;

	write_input(data, size);
	r = config_load(path, &cfg, &err);
	if (r < 0) {
		fuzz_check(err.len, "r=%d with no message", r);
		fuzz_check(!cfg.path && !cfg.n_queues && !cfg.listen_host && !cfg.database &&
			   !cfg.cache, "a refused load left things to free");
	} else {
		fuzz_check(r == 0 && !err.len, "r=%d, message \"%s\"", r, err.buf);
		check_config(&cfg);
		config_release(&cfg);
	}
	strbuf_release(&err);
	return 0;
}
