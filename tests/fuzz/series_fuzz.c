// SPDX-License-Identifier: GPL-2.0
/*
 * series_parse() on untrusted bytes: a queue's series file comes from
 * whoever pushes to the queue. Besides memory safety, every entry it calls
 * usable must be a name the gate can open under the queue directory.
 */
#include <stdint.h>

#include "fuzz_check.h"
#include "parse/series.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void check_usable(const struct series_entry *e)
{
	size_t len = strlen(e->name);

	fuzz_check(len > 0 && len <= SERIES_NAME_MAX, "line %u: usable name of %zu bytes", e->line,
		   len);
	fuzz_check(e->name[0] != '/', "line %u: usable absolute name \"%s\"", e->line, e->name);
	fuzz_check(e->name[0] != '#', "line %u: a comment taken for a name: \"%s\"", e->line,
		   e->name);
	for (size_t i = 0; i < len; i++)
		fuzz_check(!blank(e->name[i]), "line %u: usable name with a blank: \"%s\"", e->line,
			   e->name);
	for (const char *c = e->name; (c = strstr(c, "..")); c++) {
		bool starts = c == e->name || c[-1] == '/';
		bool ends = c[2] == '\0' || c[2] == '/';

		fuzz_check(!(starts && ends), "line %u: usable name with \"..\": \"%s\"", e->line,
			   e->name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct series series;
	struct strbuf err = STRBUF_INIT;
	int r = series_parse((const char *)data, size, "queue-6.1/series", &series, &err);

	if (r < 0) {
		fuzz_check(series.n_entries == 0 && !series.entries,
			   "r=%d but %zu entries returned", r, series.n_entries);
		fuzz_check(err.len > 0, "r=%d with no message", r);
	} else {
		fuzz_check(r == 0, "r=%d", r);
		fuzz_check(err.len == 0, "r=0 with a message: %s", err.buf);
		for (size_t i = 0; i < series.n_entries; i++) {
			const struct series_entry *e = &series.entries[i];

			fuzz_check(e->name, "entry %zu has no name", i);
			fuzz_check(e->line >= 1 && (i == 0 || e->line > series.entries[i - 1].line),
				   "entry %zu on line %u after line %u", i, e->line,
				   i ? series.entries[i - 1].line : 0);
			if (e->error) {
				fuzz_check(fuzz_one_line(e->error), "a message of two lines: %s",
					   e->error);
				continue;
			}
			check_usable(e);
			/* quadratic, so only for short series: no usable name twice */
			for (size_t k = 0; k < i && series.n_entries <= 256; k++)
				fuzz_check(series.entries[k].error ||
					   strcmp(series.entries[k].name, e->name),
					   "\"%s\" usable on lines %u and %u", e->name,
					   series.entries[k].line, e->line);
		}
	}
	series_release(&series);
	strbuf_release(&err);
	return 0;
}
