/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job: one queued job, run to its end in the worker process that the
 * daemon (serve.h) starts as `backport-gate job`: read the queue, skip it
 * when that snapshot was already gated, else gate it and record the
 * verdict with its outbox rows (record/jobs.h).
 */
#ifndef GATE_JOB_H
#define GATE_JOB_H

#include <stdint.h>

#include "basic/strbuf.h"
#include "parse/config.h"

/*
 * Run job @job_id of @cfg's database in this process. Returns 0, or
 * -errno with @err when the job must be retried (no verdict); the reason
 * is then also the job's recorded error.
 */
int job_execute(const struct gate_config *cfg, int64_t job_id, struct strbuf *err);

#endif
