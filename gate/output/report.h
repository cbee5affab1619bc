/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report: renders a gate report (the JSON object of docs/CONTRACTS.md, as
 * gate_run() builds it and the database keeps it) for a person: the drop
 * list first, each dropped patch with its reason and evidence, then what
 * changed without being dropped, then what was kept, then the cost.
 */
#ifndef GATE_REPORT_H
#define GATE_REPORT_H

#include <jansson.h>

#include "basic/strbuf.h"

void report_render_text(const json_t *report, struct strbuf *out);

#endif
