// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "output/format.h"
#include "output/kcidb.h"
#include "output/reply.h"
#include "output/report.h"

static int render_text(const struct report_input *in, const struct render_options *opts,
		       struct strbuf *out, struct strbuf *err)
{
	(void)opts;
	(void)err;
	report_render_text(in->report, out);
	return 0;
}

static int render_json(const struct report_input *in, const struct render_options *opts,
		       struct strbuf *out, struct strbuf *err)
{
	char *s = json_dumps(in->report, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	(void)opts;
	(void)err;
	if (!s)
		abort();
	strbuf_addf(out, "%s\n", s);
	free(s);
	return 0;
}

static const struct report_format formats[] = {
	{ "text", false, render_text },
	{ "json", false, render_json },
	{ "reply", false, reply_render },
	{ "kcidb", true, kcidb_render },
};

const struct report_format *report_format_find(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const char *report_format_names(void)
{
	return "text|json|reply|kcidb";
}
