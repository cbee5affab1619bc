// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "parse/series.h"

/* Names longer than this are cut in messages; the entry keeps all of it. */
#define QUOTE_MAX 80

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void add_quoted(struct strbuf *sb, const char *s, size_t len)
{
	size_t shown = len > QUOTE_MAX ? QUOTE_MAX : len;

	strbuf_addch(sb, '"');
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c == '\0')
			strbuf_adds(sb, "\\0");
		else if (c == '\t')
			strbuf_adds(sb, "\\t");
		else if (c == '\r')
			strbuf_adds(sb, "\\r");
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, (char)c);	/* UTF-8 passes through */
	}
	strbuf_addch(sb, '"');
	if (shown < len)
		strbuf_adds(sb, "...");
}

/* "origin:line: "name" " -- the start of every per-entry message. */
static void add_where(struct strbuf *sb, const char *origin, unsigned line,
		      const char *name, size_t len)
{
	strbuf_addf(sb, "%s:%u: ", origin, line);
	add_quoted(sb, name, len);
	strbuf_addch(sb, ' ');
}

static bool has_dotdot_component(const char *name, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && name[i] != '/')
			continue;
		if (i - start == 2 && name[start] == '.' && name[start + 1] == '.')
			return true;
		start = i + 1;
	}
	return false;
}

/* Append why @name cannot be used to @msg and return true, or return false. */
static bool add_name_problem(struct strbuf *msg, const char *name, size_t len)
{
	if (memchr(name, '\0', len)) {
		strbuf_adds(msg, "contains a NUL byte (is this a text file?)");
	} else if (len > SERIES_NAME_MAX) {
		strbuf_addf(msg, "is %zu bytes long, more than %u", len, SERIES_NAME_MAX);
	} else if (name[0] == '/') {
		strbuf_adds(msg, "is an absolute path");
	} else if (has_dotdot_component(name, len)) {
		strbuf_adds(msg, "leaves the queue directory");
	} else {
		return false;	/* a blank ends the name: the caller splits there */
	}
	return true;
}

/* A C string copy of @name; a NUL byte becomes the two characters "\0". */
static char *copy_name(const char *name, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0;

	while (i < len) {
		const char *nul = memchr(name + i, '\0', len - i);
		size_t run = nul ? (size_t)(nul - (name + i)) : len - i;

		strbuf_add(&sb, name + i, run);
		i += run;
		if (i < len) {
			strbuf_adds(&sb, "\\0");
			i++;
		}
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * Take quilt's options after a name (@opts, trimmed; may be empty) into
 * @entry->strip. Returns true with the reason in @msg for one the gate
 * cannot honour.
 */
static bool add_option_problem(struct strbuf *msg, const char *opts, size_t len,
			       struct series_entry *entry)
{
	const char *p = opts, *end = opts + len;
	bool have_strip = false;

	while (p < end) {
		const char *word = p;
		size_t n, i;
		unsigned v = 0;

		while (p < end && !is_blank(*p))
			p++;
		n = (size_t)(p - word);
		while (p < end && is_blank(*p))
			p++;
		/* "-pN": N at most two digits, so no overflow */
		if (n >= 3 && n <= 4 && word[0] == '-' && word[1] == 'p') {
			for (i = 2; i < n && word[i] >= '0' && word[i] <= '9'; i++)
				v = v * 10 + (unsigned)(word[i] - '0');
			if (i == n && v <= SERIES_STRIP_MAX) {
				if (have_strip) {
					strbuf_adds(msg, "has more than one -p option");
					return true;
				}
				have_strip = true;
				entry->strip = v;
				continue;
			}
		}
		strbuf_adds(msg, "has option ");
		add_quoted(msg, word, n);
		strbuf_adds(msg, ", which the gate does not support (only -pN)");
		return true;
	}
	return false;
}

static void add_entry(struct series *series, size_t *alloc, const char *name,
		      size_t len, const char *opts, size_t opts_len, unsigned line,
		      const char *origin)
{
	struct series_entry *entry;
	struct strbuf msg = STRBUF_INIT;

	if (series->n_entries == *alloc) {
		size_t want = *alloc ? *alloc * 2 : 64;
		struct series_entry *p;

		p = xrealloc(series->entries, want * sizeof(*p));
		series->entries = p;
		*alloc = want;
	}
	entry = &series->entries[series->n_entries++];
	entry->name = copy_name(name, len);
	entry->line = line;
	entry->strip = 1;
	entry->error = NULL;

	add_where(&msg, origin, line, name, len);
	if (add_name_problem(&msg, name, len) ||
	    add_option_problem(&msg, opts, opts_len, entry))
		entry->error = strbuf_detach(&msg, NULL);
	strbuf_release(&msg);
}

struct name_ref {
	const char *name;
	size_t index;		/* into series->entries, also file order */
};

static int compare_name_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Sort the usable names (with their file position as tie-break) so that
 * equal names sit together, first occurrence first: O(n log n) where the
 * obvious pairwise check would be 50M comparisons at the entry cap.
 */
static void mark_duplicates(struct series *series, const char *origin)
{
	struct name_ref *refs;
	size_t n = 0, first = 0;

	if (series->n_entries < 2)
		return;
	refs = xmalloc(series->n_entries * sizeof(*refs));
	for (size_t i = 0; i < series->n_entries; i++) {
		if (series->entries[i].error)
			continue;
		refs[n].name = series->entries[i].name;
		refs[n].index = i;
		n++;
	}
	qsort(refs, n, sizeof(*refs), compare_name_ref);
	for (size_t i = 1; i < n; i++) {
		struct series_entry *entry = &series->entries[refs[i].index];
		struct strbuf msg = STRBUF_INIT;

		if (strcmp(refs[i].name, refs[first].name)) {
			first = i;
			continue;
		}
		add_where(&msg, origin, entry->line, entry->name, strlen(entry->name));
		strbuf_addf(&msg, "is listed twice (first on line %u)",
			    series->entries[refs[first].index].line);
		entry->error = strbuf_detach(&msg, NULL);
	}
	free(refs);
}

int series_parse(const char *text, size_t len, const char *origin,
		 struct series *ret_series, struct strbuf *err)
{
	struct series series = { NULL, 0 };
	const char *p, *end;
	size_t alloc = 0;
	unsigned line = 0;

	if (!origin)
		origin = "series";
	if (ret_series) {
		ret_series->entries = NULL;
		ret_series->n_entries = 0;
	}
	if (!ret_series || (!text && len)) {
		if (err)
			strbuf_addf(err, "%s: no series text to parse", origin);
		return -EINVAL;
	}
	if (len > SERIES_MAX_BYTES) {
		if (err)
			strbuf_addf(err, "%s: %zu bytes, more than the %u-byte limit for a series file",
				    origin, len, SERIES_MAX_BYTES);
		return -E2BIG;
	}

	p = len ? text : NULL;
	end = len ? text + len : NULL;	/* NULL + 0 would be undefined */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *start = p, *stop = nl ? nl : end, *opts, *name_stop;
		bool binary = memchr(start, '\0', (size_t)(stop - start)) != NULL;

		p = nl ? nl + 1 : end;
		line++;
		while (start < stop && is_blank(*start))
			start++;
		if (start == stop || (*start == '#' && !binary))
			continue;
		/* A NUL anywhere makes the whole line suspect, comment or not. */
		if (!binary) {
			for (const char *c = start + 1; c < stop; c++) {
				if (*c == '#' && is_blank(c[-1])) {
					stop = c;
					break;
				}
			}
		}
		while (stop > start && is_blank(stop[-1]))
			stop--;
		/* the name is the first word, quilt's options follow it */
		opts = stop;
		if (!binary) {
			for (const char *c = start; c < stop; c++) {
				if (is_blank(*c)) {
					opts = c;
					break;
				}
			}
		}
		name_stop = opts;
		while (opts < stop && is_blank(*opts))
			opts++;

		if (series.n_entries == SERIES_MAX_ENTRIES) {
			if (err)
				strbuf_addf(err, "%s:%u: more than %u entries in one series",
					    origin, line, SERIES_MAX_ENTRIES);
			series_release(&series);
			return -E2BIG;
		}
		add_entry(&series, &alloc, start, (size_t)(name_stop - start), opts,
			  (size_t)(stop - opts), line, origin);
	}

	mark_duplicates(&series, origin);
	*ret_series = series;
	return 0;
}

void series_release(struct series *series)
{
	if (!series)
		return;
	for (size_t i = 0; i < series->n_entries; i++) {
		free(series->entries[i].name);
		free(series->entries[i].error);
	}
	free(series->entries);
	series->entries = NULL;
	series->n_entries = 0;
}
