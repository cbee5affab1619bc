/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve: the daemon. One process holds the HTTP side (libmicrohttpd, its
 * own thread) and the main loop (signals, queue polling, scheduling, the
 * notification outbox); each job runs in a worker child (fork, then exec
 * of `backport-gate job`), so a crash or hang in a job never takes the
 * HTTP side down, and a kill of the daemon takes its worker with it
 * (PR_SET_PDEATHSIG).
 *
 * Jobs live in SQLite: a job found 'running' at start was interrupted and
 * is queued again; a verdict is recorded, with its outbox rows, in one
 * transaction, so nothing half-done is ever reported or sent.
 */
#ifndef GATE_SERVE_H
#define GATE_SERVE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/strbuf.h"
#include "parse/config.h"

/* Queue a job for @queue; a newer job supersedes queued, not started ones. */
int jobs_enqueue(sqlite3 *db, const char *queue, const char *trigger, const char *delivery,
		 int64_t *ret_job, bool *ret_duplicate, struct strbuf *err);

/*
 * Run job @job_id to its end in this process (the worker): read the
 * queue, skip it when that snapshot was already gated, else gate it and
 * record the verdict with its outbox rows. Returns 0, or -errno when the
 * job must be retried (no verdict).
 */
int job_execute(const struct gate_config *cfg, int64_t job_id, struct strbuf *err);

#endif
