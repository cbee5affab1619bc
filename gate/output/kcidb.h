/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcidb: a run as KernelCI's KCIDB I/O JSON, schema v5.3 (kernelci's
 * kcidb-io, kcidb_io/schema/v05_03.py): {"version": {"major": 5,
 * "minor": 3}, "checkouts", "builds", "tests"}. No property is null and
 * none is outside the schema; gate-specific facts go under "misc".
 *
 * From in->report (gate_run()'s JSON) and in->sequences (record/
 * sequence.h's run_sequences_json() of the same run):
 *
 *   checkout  one per judged sequence (base plus a subset of the queue):
 *             id "<origin>:run<RUN>.seq<N>", origin, tree_name
 *             "linux-source-<X.Y>" (the Debian package the base comes
 *             from), git_commit_hash (the base commit in the cache's tree
 *             repository), patchset_hash (sha256 over the newline-
 *             terminated sha256 of each patch file, in order; "" for
 *             base alone), patchset_files (file:// URLs, only when the
 *             queue was read from a directory named by an absolute path:
 *             the source when it is named as the queue, else its queue
 *             folder; the mail "FILE#2" of an mbox points at FILE),
 *             start_time (when
 *             first judged), valid (false when a patch did not apply, with
 *             the applier's message as log_excerpt), comment.
 *   build     one per sequence whose kernel was built (a build recorded
 *             for its tree, or a boot of it): id "<checkout id>.build",
 *             checkout_id, origin, architecture "x86_64", config_name,
 *             compiler (when the report names it), start_time and
 *             duration (when this database timed the build), status
 *             PASS or FAIL (with the first error as log_excerpt).
 *   test      per boot of that build, one for the suite ("shebang", its
 *             duration the boot's; FAIL when the kernel panicked, ERROR
 *             when it timed out or its results were incomplete, else
 *             FAIL or PASS by its cases) and one per case
 *             ("shebang.<case>", the case name with every character
 *             outside [A-Za-z0-9_] turned into '_', the real name in
 *             misc.case; pass PASS, fail FAIL, error ERROR, a changed
 *             quirk DONE: it ran and reported a behaviour, not a fault).
 *             ids "<build id minus .build>.boot<ATTEMPT>[.<case>]",
 *             build_id, origin, start_time, environment {comment: QEMU
 *             and its accelerator}. The suite does not time single
 *             cases: a case has no duration.
 *
 * @opts->origin (default "backport_gate") must match KCIDB's origin
 * pattern ^[a-z0-9_]+$. Returns 0, or -EINVAL with @err for a bad origin,
 * a report without a run, or missing sequences.
 */
#ifndef GATE_KCIDB_H
#define GATE_KCIDB_H

#include "output/format.h"

#define KCIDB_ORIGIN_DEFAULT "backport_gate"
#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3
#define KCIDB_LOG_EXCERPT_MAX 16384

int kcidb_render(const struct report_input *in, const struct render_options *opts,
		 struct strbuf *out, struct strbuf *err);

/* KCIDB's patchset_hash of the patch files whose sha256s are @hashes. */
void kcidb_patchset_hash(const char *const *hashes, size_t n, char out[65]);

#endif
