/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve: the daemon. One process holds the HTTP side (libmicrohttpd, its
 * own thread) and the main loop (signals, queue polling, scheduling, the
 * notification outbox); each job runs in a worker child (fork, then exec
 * of `backport-gate job`, which runs job.h's job_execute()), so a crash or
 * hang in a job never takes the HTTP side down, and a kill of the daemon
 * takes its workers with it (PR_SET_PDEATHSIG). Up to [server] workers
 * jobs run at once, never two of one queue (jobs.h); jobs on one kernel
 * tree take turns at its cache lock (source/workspace.h), so the loop starts one
 * whose tree is in use only while another worker stays free for the
 * jobs of other trees.
 *
 * Threads: the main loop, libmicrohttpd's pool and the notifier (which
 * sends the outbox, daemon/outbox.h). Each has its own SQLite connection;
 * in WAL mode reads never wait, and a write waits for another process's
 * lock only as long as its thread may: the main loop 200 ms (the write is
 * tried again on a later turn), a webhook 500 ms (then 503 with
 * Retry-After), the notifier 15 s. Nothing on the main loop waits on the
 * network, a child or a lock for more than that, and the systemd
 * watchdog is pinged at the end of a turn only, every half WatchdogSec.
 * The configuration is read under a read-write lock that no thread
 * holds while it waits for the network or a database lock, so a reload
 * (the main loop, the writer) never waits long.
 *
 * Jobs live in SQLite (record/jobs.h): a job found 'running' at start was interrupted and
 * is queued again; a verdict is recorded, with its outbox rows, in one
 * transaction, so nothing half-done is ever reported or sent.
 */
#ifndef GATE_SERVE_H
#define GATE_SERVE_H

#include "basic/strbuf.h"
#include "parse/config.h"

/*
 * Run the daemon on @cfg (loaded by the caller; server.* and the queues)
 * until SIGTERM or SIGINT; SIGHUP reloads cfg->path, and a reload that
 * fails keeps the running configuration. Tells systemd READY=1 once the
 * listener is bound. Returns 0 after a clean stop, or -errno with @err
 * when it could not start (the database, the listener). *@cfg is the
 * configuration in force at the end: the caller releases it.
 */
int serve_run(struct gate_config *cfg, struct strbuf *err);

#endif
