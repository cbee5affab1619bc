// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "parse/ktap.h"

const char *case_status_name(enum case_status status)
{
	switch (status) {
	case CASE_PASS: return "pass";
	case CASE_FAIL: return "fail";
	case CASE_QUIRK_CHANGED: return "quirk-changed";
	case CASE_ERROR: return "error";
	}
	return "unknown";
}

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

/* Parse a decimal at *s (advancing it); false when none or too large. */
static bool parse_number(const char **s, const char *end, size_t *ret)
{
	size_t v = 0;
	const char *p = *s;

	if (p >= end || *p < '0' || *p > '9')
		return false;
	while (p < end && *p >= '0' && *p <= '9') {
		v = v * 10 + (size_t)(*p - '0');
		if (v > 1000000)
			return false;
		p++;
	}
	*s = p;
	*ret = v;
	return true;
}

/* "ok N name [# directive...]" or "not ok N name ..." */
static int parse_result(struct ktap_run *run, const char *line, size_t len,
			const char *pending_kind, struct strbuf *err)
{
	const char *end = line + len, *p = line, *name, *hash;
	struct case_result *c;
	bool ok = starts_with(line, len, "ok ");
	size_t number;

	p += ok ? 3 : 7;
	if (!parse_number(&p, end, &number) || p >= end || *p != ' ')
		return 0;	/* not a result line after all */
	p++;
	if (number != run->n_cases + 1 || number > run->planned) {
		strbuf_addf(err, "ktap: result %zu out of order (expected %zu of %zu)",
			    number, run->n_cases + 1, run->planned);
		return -EBADMSG;
	}
	name = p;
	hash = memmem(p, (size_t)(end - p), " # ", 3);
	if (!hash)
		hash = end;
	if (hash == name || hash - name > KTAP_MAX_NAME) {
		strbuf_addf(err, "ktap: result %zu has no usable name", number);
		return -EBADMSG;
	}
	c = &run->cases[run->n_cases++];
	c->name = xstrndup(name, (size_t)(hash - name));
	c->quirk = pending_kind && strcmp(pending_kind, "quirk") == 0;
	c->diagnostic = xstrndup(hash < end ? hash + 3 : end,
				  hash < end ? (size_t)(end - hash - 3) : 0);
	if (ok)
		c->status = CASE_PASS;
	else if (starts_with(c->diagnostic, strlen(c->diagnostic), "TODO quirk changed"))
		c->status = CASE_QUIRK_CHANGED;
	else if (starts_with(c->diagnostic, strlen(c->diagnostic), "ERROR"))
		c->status = CASE_ERROR;
	else
		c->status = CASE_FAIL;
	/* a quirk change can only come from a case the suite marks a quirk */
	if (c->status == CASE_QUIRK_CHANGED)
		c->quirk = true;
	return 0;
}

int ktap_parse(const char *console, size_t len, struct ktap_run *ret, struct strbuf *err)
{
	const char *p = console, *end = console + len;
	char kind[16] = "";
	bool in_block = false, kind_set = false;
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line = p;
		size_t n;

		/* a last line without its newline was cut off: not believed */
		if (!nl)
			break;
		n = (size_t)(nl - p);
		p = nl + 1;
		while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
			n--;
		if (!in_block) {
			if (n == 14 && memcmp(line, "KTAP version 1", 14) == 0) {
				/* a restarted guest starts over */
				ktap_run_release(ret);
				in_block = true;
			}
			continue;
		}
		if (starts_with(line, n, "1..") && !ret->cases) {
			const char *q = line + 3;
			size_t planned;

			if (!parse_number(&q, line + n, &planned) || q != line + n ||
			    planned > KTAP_MAX_CASES) {
				strbuf_addf(err, "ktap: bad plan \"%.*s\"", (int)(n > 40 ? 40 : n), line);
				r = -EBADMSG;
				break;
			}
			ret->planned = planned;
			ret->cases = xcalloc(planned ? planned : 1, sizeof(*ret->cases));
		} else if (starts_with(line, n, "# case ")) {
			const char *k = memmem(line, n, " kind=", 6);

			kind_set = false;
			if (k) {
				size_t klen = (size_t)(line + n - (k + 6));

				if (klen < sizeof(kind)) {
					memcpy(kind, k + 6, klen);
					kind[klen] = '\0';
					kind_set = true;
				}
			}
		} else if ((starts_with(line, n, "ok ") || starts_with(line, n, "not ok ")) &&
			   ret->cases) {
			r = parse_result(ret, line, n, kind_set ? kind : NULL, err);
			kind_set = false;
			if (r < 0)
				break;
		} else if (starts_with(line, n, "# Totals:")) {
			ret->complete = ret->cases && ret->n_cases == ret->planned;
			in_block = false;
		}
	}
	if (r < 0) {
		ktap_run_release(ret);
		return r;
	}
	return 0;
}

void ktap_run_release(struct ktap_run *run)
{
	for (size_t i = 0; i < run->n_cases; i++) {
		free(run->cases[i].name);
		free(run->cases[i].diagnostic);
	}
	free(run->cases);
	memset(run, 0, sizeof(*run));
}

const struct case_result *ktap_find(const struct ktap_run *run, const char *name)
{
	for (size_t i = 0; i < run->n_cases; i++)
		if (strcmp(run->cases[i].name, name) == 0)
			return &run->cases[i];
	return NULL;
}

/* Find a whole line equal to @line in @hay; returns its start or NULL. */
static const char *find_line(const char *hay, size_t len, const char *line)
{
	size_t n = strlen(line);
	const char *p = hay, *end = hay + len;

	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), line, n);
		const char *after;

		if (!hit)
			return NULL;
		after = hit + n;
		if ((hit == hay || hit[-1] == '\n') &&
		    (after == end || *after == '\n' || (*after == '\r' && (after + 1 == end || after[1] == '\n'))))
			return hit;
		p = hit + 1;
	}
	return NULL;
}

bool ktap_marked_block(const char *console, size_t len, const char *token,
		       const char **ret_start, size_t *ret_len)
{
	char begin[128], end_marker[128];
	const char *b, *e, *start;

	if (snprintf(begin, sizeof(begin), "# backport-gate begin %s", token) >= (int)sizeof(begin) ||
	    snprintf(end_marker, sizeof(end_marker), "# backport-gate end %s", token) >= (int)sizeof(end_marker))
		return false;
	b = find_line(console, len, begin);
	if (!b)
		return false;
	start = memchr(b, '\n', (size_t)(console + len - b));
	if (!start)
		return false;
	start++;
	e = find_line(start, (size_t)(console + len - start), end_marker);
	if (!e)
		return false;
	*ret_start = start;
	*ret_len = (size_t)(e - start);
	return true;
}

const char *boot_status_name(enum boot_status status)
{
	switch (status) {
	case BOOT_OK: return "ok";
	case BOOT_PANIC: return "panic";
	case BOOT_TIMEOUT: return "timeout";
	case BOOT_INCOMPLETE: return "incomplete";
	}
	return "unknown";
}
