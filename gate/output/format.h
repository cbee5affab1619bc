/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format: the ways a recorded run is rendered, as one ops table
 * (`backport-gate report RUN --format NAME`): "text" for a person
 * (report.h), "json" (the report itself, docs/CONTRACTS.md), "reply"
 * (an RFC 5322 answer on the stable review thread, reply.h) and "kcidb"
 * (KernelCI's I/O JSON, kcidb.h). A sender (SMTP, a webhook) picks a
 * format the same way and gets the bytes to send.
 */
#ifndef GATE_FORMAT_H
#define GATE_FORMAT_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "basic/strbuf.h"

/* What a format renders. */
struct report_input {
	const json_t *report;		/* the run's JSON report (gate_run()) */
	const json_t *sequences;	/* record/sequence.h's run_sequences_json();
					 * only read by formats with needs_sequences */
};

/* Choices of the formats that have any; NULL or 0 means the default. */
struct render_options {
	const char *from;	/* reply: From: and the Tested-by: identity */
	const char *to, *cc;	/* reply: address lists, as written */
	const char *in_reply_to;	/* reply: the review thread's Message-ID */
	const char *subject;	/* reply: the review thread's subject */
	const char *message_id;	/* reply: our own Message-ID (tests); else generated */
	time_t date;		/* reply: Date: (tests); else now */
	const char *origin;	/* kcidb: the origin of every object */
};

struct report_format {
	const char *name;
	bool needs_sequences;
	/* Append the rendering to @out: 0, or -errno with one message in @err. */
	int (*render)(const struct report_input *in, const struct render_options *opts,
		      struct strbuf *out, struct strbuf *err);
};

/* The format called @name, or NULL. */
const struct report_format *report_format_find(const char *name);

/* The names, for a usage line: "text|json|reply|kcidb". */
const char *report_format_names(void);

#endif
