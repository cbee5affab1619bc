// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "basic/xalloc.h"
#include "output/reply.h"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static bool has(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s;
}

static bool in_names(const json_t *a, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
			return true;
	return false;
}

/*
 * The next word of @p: up to a space, but a double-quoted part (with
 * backslash escapes) is part of its word, spaces and all, so a quoted
 * argv is never split when @quotes.
 */
static size_t word_len(const char *p, bool quotes)
{
	bool quoted = false;
	size_t n = 0;

	for (; p[n]; n++) {
		if (quotes && p[n] == '\\' && quoted && p[n + 1]) {
			n++;
			continue;
		}
		if (quotes && p[n] == '"')
			quoted = !quoted;
		else if (p[n] == ' ' && !quoted)
			break;
	}
	return n;
}

/*
 * @text (one line, no newline) wrapped at spaces to REPLY_WIDTH columns:
 * the first line starts with @lead, the others with @pad. A word that does
 * not fit even alone keeps its own line.
 */
static void wrap(struct strbuf *out, const char *lead, const char *pad, const char *text,
		 size_t len, bool quotes)
{
	char *line = xasprintf("%.*s", (int)len, text);
	const char *p = line;
	size_t col = strlen(lead), start = out->len;
	bool first_word = true;

	strbuf_addf(out, "%s", lead);
	while (*p) {
		size_t n;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n = word_len(p, quotes);
		if (!first_word && col + 1 + n > REPLY_WIDTH) {
			strbuf_addf(out, "\n%s", pad);
			col = strlen(pad);
			first_word = true;
		}
		if (!first_word) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_addf(out, "%.*s", (int)n, p);
		col += n;
		p += n;
		first_word = false;
	}
	/* no trailing blanks: a lead alone ("  ") ends with none */
	while (out->len > start && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
	strbuf_addch(out, '\n');
	free(line);
}

/* Every line of @text wrapped as wrap() does, with @pad before each. */
static void wrap_lines(struct strbuf *out, const char *lead, const char *pad, const char *text,
		       bool quotes)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n)
			wrap(out, lead, pad, p, n, quotes);
		p += n + (nl ? 1 : 0);
	}
}

static void wrapf(struct strbuf *out, const char *lead, const char *pad, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void wrapf(struct strbuf *out, const char *lead, const char *pad, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	wrap(out, lead, pad, line.buf, line.len, false);
	strbuf_release(&line);
}

static void names_line(struct strbuf *out, const char *lead, const char *pad, const json_t *a)
{
	struct strbuf line = STRBUF_INIT;
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		strbuf_addf(&line, "%s%s", i ? ", " : "", json_string_value(v) ? json_string_value(v) : "");
	wrap(out, lead, pad, line.buf, line.len, false);
	strbuf_release(&line);
}

static bool ascii_only(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

static void base64(struct strbuf *out, const unsigned char *in, size_t n)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);

		strbuf_addch(out, digits[v >> 18 & 63]);
		strbuf_addch(out, digits[v >> 12 & 63]);
		strbuf_addch(out, i + 1 < n ? digits[v >> 6 & 63] : '=');
		strbuf_addch(out, i + 2 < n ? digits[v & 63] : '=');
	}
}

/*
 * A header value as RFC 2047 encoded words (UTF-8, base64), separated by
 * spaces so the folding can break between them; a word carries at most
 * 30 bytes, never splitting a UTF-8 sequence (RFC 2047 section 5).
 */
static void encode_words(struct strbuf *out, const char *value)
{
	const unsigned char *p = (const unsigned char *)value;
	size_t left = strlen(value);

	while (left) {
		size_t n = left < 30 ? left : 30;

		while (n < left && (p[n] & 0xc0) == 0x80)
			n--;
		strbuf_addf(out, "%s=?UTF-8?B?", out->len ? " " : "");
		base64(out, p, n);
		strbuf_addf(out, "?=");
		p += n;
		left -= n;
	}
}

/* "Name: value", folded at spaces to REPLY_WIDTH columns (RFC 5322 2.2.3). */
static void header(struct strbuf *out, const char *name, const char *value)
{
	struct strbuf encoded = STRBUF_INIT;
	const char *p;
	size_t col;

	if (!ascii_only(value)) {
		encode_words(&encoded, value);
		value = encoded.buf;
	}
	strbuf_addf(out, "%s:", name);
	col = strlen(name) + 1;
	p = value;
	while (*p) {
		size_t spaces = 0, n;

		while (p[spaces] == ' ')
			spaces++;
		n = strcspn(p + spaces, " ");
		if (col > strlen(name) + 1 && col + (spaces ? spaces : 1) + n > REPLY_WIDTH) {
			strbuf_addf(out, "%s", "\n");
			col = 0;
		}
		/* a folded line starts with the space it was folded at */
		strbuf_addf(out, "%*s%.*s", (int)(spaces ? spaces : 1), "", (int)n, p + spaces);
		col += (spaces ? spaces : 1) + n;
		p += spaces + n;
	}
	strbuf_addch(out, '\n');
	strbuf_release(&encoded);
}

static int check_option(const char *name, const char *value, struct strbuf *err)
{
	if (value && strpbrk(value, "\r\n")) {
		strbuf_addf(err, "reply: --%s holds a line break", name);
		return -EINVAL;
	}
	return 0;
}

/* The domain of the address in @from ("Name <a@b>" or "a@b"), or NULL. */
static char *from_domain(const char *from)
{
	const char *at = strrchr(from, '@'), *end;

	if (!at || !at[1])
		return NULL;
	end = at + 1 + strcspn(at + 1, "> \t");
	return end > at + 1 ? xasprintf("%.*s", (int)(end - at - 1), at + 1) : NULL;
}

static void tested_section(struct strbuf *out, const json_t *report)
{
	const json_t *stats = json_object_get(report, "stats");

	strbuf_addf(out, "%s", "Tested:\n");
	wrapf(out, "  queue:       ", "               ", "%s (%zu patches)", str(report, "queue"),
	      json_array_size(json_object_get(report, "patches")));
	if (has(report, "source"))
		wrapf(out, "  source:      ", "               ", "%s", str(report, "source"));
	if (has(report, "ref"))
		wrapf(out, "  ref:         ", "               ", "%s", str(report, "ref"));
	if (has(report, "commit"))
		wrapf(out, "  queue commit: ", "                ", "%s", str(report, "commit"));
	if (has(report, "snapshot"))
		wrapf(out, "  snapshot:    ", "               ", "%.16s", str(report, "snapshot"));
	if (has(report, "base_commit"))
		wrapf(out, "  base:        ", "               ", "%s, commit %s", str(report, "base"),
		      str(report, "base_commit"));
	else
		wrapf(out, "  base:        ", "               ", "%s", str(report, "base"));
	if (has(report, "kept_tree"))
		wrapf(out, "  kept tree:   ", "               ", "%s", str(report, "kept_tree"));
	if (has(report, "kept_commit"))
		wrapf(out, "  kept commit: ", "               ", "%s", str(report, "kept_commit"));
	if (has(report, "config"))
		wrapf(out, "  config:      ", "               ", "%s, x86_64", str(report, "config"));
	if (has(report, "compiler"))
		wrapf(out, "  compiler:    ", "               ", "%s", str(report, "compiler"));
	if (has(report, "suite"))
		wrapf(out, "  suite:       ", "               ", "shebang %.12s", str(report, "suite"));
	if (has(stats, "accel") && strcmp(str(stats, "accel"), "none") != 0)
		wrapf(out, "  qemu:        ", "               ", "x86_64, accelerator %s",
		      str(stats, "accel"));
	else if (stats)
		wrapf(out, "  qemu:        ", "               ",
		      "not started: every result came from earlier boots of the same trees");
	if (stats)
		wrapf(out, "  cost:        ", "               ",
		      "%lld kernel builds, %lld boots, %lld sequences judged, %.0f s",
		      (long long)json_integer_value(json_object_get(stats, "builds")),
		      (long long)json_integer_value(json_object_get(stats, "boots")),
		      (long long)json_integer_value(json_object_get(stats, "evaluations")),
		      json_number_value(json_object_get(stats, "seconds")));
}

static void regressions_section(struct strbuf *out, const json_t *report)
{
	const json_t *patches = json_object_get(report, "patches");
	bool any = false;
	size_t i;
	json_t *p;

	wrapf(out, "", "  ", "Regressions (compared to %s):", str(report, "base"));
	json_array_foreach(patches, i, p) {
		const json_t *regs = json_object_get(p, "regressions");

		if (strcmp(str(p, "status"), "drop") != 0)
			continue;
		any = true;
		strbuf_addch(out, '\n');
		wrapf(out, "* ", "  ", "%s", str(p, "name"));
		if (has(p, "subject"))
			wrapf(out, "  subject:  ", "            ", "%s", str(p, "subject"));
		if (has(p, "upstream"))
			wrapf(out, "  upstream: ", "            ", "%s", str(p, "upstream"));
		if (has(p, "author"))
			wrapf(out, "  author:   ", "            ", "%s", str(p, "author"));
		wrapf(out, "  reason:   ", "            ", "%s", str(p, "reason"));
		if (json_array_size(regs))
			names_line(out, "  cases:    ", "            ", regs);
		if (has(p, "evidence")) {
			strbuf_addf(out, "%s", "  evidence:\n");
			wrap_lines(out, "    ", "      ", str(p, "evidence"), true);
		}
		if (has(p, "steps")) {
			strbuf_addf(out, "%s", "  bisection:\n");
			wrap_lines(out, "    ", "      ", str(p, "steps"), false);
		}
	}
	if (!any)
		strbuf_addf(out, "%s", "  none\n");
}

/* Cases failing on base that pass on the queue: fixed by it. */
static void fixes_section(struct strbuf *out, const json_t *report)
{
	const json_t *patches = json_object_get(report, "patches");
	const json_t *base_failing = json_object_get(report, "base_failing");
	const json_t *cases = json_object_get(report, "cases");
	struct strbuf fixed = STRBUF_INIT;
	bool any = false;
	size_t i;
	json_t *p;

	wrapf(out, "", "  ", "Fixes and behaviour changes (compared to %s):", str(report, "base"));
	json_array_foreach(cases, i, p)
		if (in_names(base_failing, str(p, "name")) && strcmp(str(p, "status"), "pass") == 0)
			strbuf_addf(&fixed, "%s%s", fixed.len ? ", " : "", str(p, "name"));
	if (fixed.len) {
		any = true;
		strbuf_addch(out, '\n');
		wrapf(out, "* ", "  ", "fixed (failing on base, passing with the queue): %s", fixed.buf);
	}
	json_array_foreach(patches, i, p) {
		const json_t *changes = json_object_get(p, "changes");

		/* a dropped patch's changes do not ship */
		if (!json_array_size(changes) || strcmp(str(p, "status"), "drop") == 0)
			continue;
		any = true;
		strbuf_addch(out, '\n');
		wrapf(out, "* ", "  ", "%s", str(p, "name"));
		if (has(p, "subject"))
			wrapf(out, "  subject:  ", "            ", "%s", str(p, "subject"));
		names_line(out, "  changes:  ", "            ", changes);
		if (has(p, "evidence")) {
			strbuf_addf(out, "%s", "  evidence:\n");
			wrap_lines(out, "    ", "      ", str(p, "evidence"), true);
		}
	}
	if (json_array_size(json_object_get(report, "flaky"))) {
		any = true;
		strbuf_addch(out, '\n');
		names_line(out, "* flaky (a fresh boot did not reproduce them; not blamed): ", "  ",
			   json_object_get(report, "flaky"));
	}
	if (!any)
		strbuf_addf(out, "%s", "  none\n");
	strbuf_release(&fixed);
}

static void summary_section(struct strbuf *out, const json_t *report)
{
	const json_t *cases = json_object_get(report, "cases");
	const json_t *base_failing = json_object_get(report, "base_failing");
	const json_t *flaky = json_object_get(report, "flaky");
	const char *outcome = str(report, "queue_outcome");
	size_t total = 0, pass = 0, fail = 0, skip = 0, i;
	json_t *c;

	strbuf_addf(out, "%s", "Test result summary (the queue as posted, every patch that applies):\n");
	if (!json_is_array(cases)) {
		strbuf_addf(out, "%s", "  not in this report (recorded before reports held cases)\n");
		return;
	}
	if (*outcome && strcmp(outcome, "booted") != 0) {
		wrapf(out, "  ", "  ", "not booted: that kernel failed at %s (see above)", outcome);
		return;
	}
	json_array_foreach(cases, i, c) {
		const char *status = str(c, "status");
		const char *name = str(c, "name");

		total++;
		if (!strcmp(status, "pass") || !strcmp(status, "quirk-changed"))
			pass++;
		else if (in_names(base_failing, name) || in_names(flaky, name))
			skip++;
		else
			fail++;
	}
	strbuf_addf(out, "total: %zu, pass: %zu, fail: %zu, skip: %zu\n", total, pass, fail, skip);
}

int reply_render(const struct report_input *in, const struct render_options *opts,
		 struct strbuf *out, struct strbuf *err)
{
	const json_t *report = in->report;
	const json_t *patches = json_object_get(report, "patches");
	const char *verdict = str(report, "verdict");
	size_t n_drop = json_array_size(json_object_get(report, "drop")), i;
	char host[256] = "localhost", date[64], *from_default = NULL, *domain = NULL;
	char *own_id = NULL, *subject = NULL;
	const char *from = opts->from;
	bool error = strcmp(verdict, "error") == 0;
	time_t when = opts->date ? opts->date : time(NULL);
	struct tm tm;
	json_t *p;
	int r = 0;

	if (!json_is_object(report) || !json_is_array(patches)) {
		strbuf_addf(err, "reply: the report is not a gate report (no \"patches\")");
		return -EINVAL;
	}
	r = check_option("from", opts->from, err);
	if (r == 0)
		r = check_option("to", opts->to, err);
	if (r == 0)
		r = check_option("cc", opts->cc, err);
	if (r == 0)
		r = check_option("in-reply-to", opts->in_reply_to, err);
	if (r == 0)
		r = check_option("subject", opts->subject, err);
	if (r == 0)
		r = check_option("message-id", opts->message_id, err);
	if (r < 0)
		return r;

	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (!from || !*from) {
		from_default = xasprintf("backport-gate <backport-gate@%s>", host);
		from = from_default;
	}
	domain = from_domain(from);
	if (opts->message_id && *opts->message_id) {
		own_id = opts->message_id[0] == '<' ? xstrdup(opts->message_id)
						    : xasprintf("<%s>", opts->message_id);
	} else {
		unsigned long long random = 0;

		if (getrandom(&random, sizeof(random), 0) != sizeof(random))
			random = (unsigned long long)when ^ ((unsigned long long)getpid() << 32);
		own_id = xasprintf("<backport-gate.run-%lld.%016llx@%s>",
				   (long long)json_integer_value(json_object_get(report, "run")),
				   random, domain ? domain : host);
	}
	if (opts->subject && *opts->subject)
		subject = strncasecmp(opts->subject, "Re:", 3) == 0 ? xstrdup(opts->subject)
			  : xasprintf("Re: %s", opts->subject);
	else if (error)
		subject = xasprintf("[backport-gate] %s on %s: no verdict", str(report, "queue"),
				    str(report, "base"));
	else if (n_drop)
		subject = xasprintf("[backport-gate] %s on %s: %zu to drop", str(report, "queue"),
				    str(report, "base"), n_drop);
	else
		subject = xasprintf("[backport-gate] %s on %s: nothing to drop", str(report, "queue"),
				    str(report, "base"));
	gmtime_r(&when, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);

	header(out, "From", from);
	if (opts->to && *opts->to)
		header(out, "To", opts->to);
	if (opts->cc && *opts->cc)
		header(out, "Cc", opts->cc);
	header(out, "Subject", subject);
	header(out, "Date", date);
	header(out, "Message-ID", own_id);
	if (opts->in_reply_to && *opts->in_reply_to) {
		char *id = opts->in_reply_to[0] == '<' ? xstrdup(opts->in_reply_to)
						       : xasprintf("<%s>", opts->in_reply_to);

		header(out, "In-Reply-To", id);
		header(out, "References", id);
		free(id);
	}
	header(out, "MIME-Version", "1.0");
	header(out, "Content-Type", "text/plain; charset=utf-8");
	header(out, "Content-Transfer-Encoding", "8bit");
	strbuf_addch(out, '\n');

	if (error) {
		wrapf(out, "", "", "backport-gate run %lld gated %s on %s and reached no verdict:",
		      (long long)json_integer_value(json_object_get(report, "run")),
		      str(report, "queue"), str(report, "base"));
		strbuf_addch(out, '\n');
		wrap_lines(out, "  ", "  ", str(report, "error"), false);
		strbuf_addch(out, '\n');
		wrapf(out, "", "", "Nothing is known about the queue from this run: no Tested-by, "
		      "no drop.");
		goto signature;
	}
	if (n_drop)
		wrapf(out, "", "", "backport-gate run %lld gated %s on %s: %zu of %zu patches "
		      "should be dropped; the rest passed the shebang suite in QEMU.",
		      (long long)json_integer_value(json_object_get(report, "run")),
		      str(report, "queue"), str(report, "base"), n_drop, json_array_size(patches));
	else
		wrapf(out, "", "", "backport-gate run %lld gated %s on %s: no regressions, "
		      "nothing to drop (%zu patches).",
		      (long long)json_integer_value(json_object_get(report, "run")),
		      str(report, "queue"), str(report, "base"), json_array_size(patches));
	strbuf_addch(out, '\n');
	tested_section(out, report);
	strbuf_addch(out, '\n');
	regressions_section(out, report);
	strbuf_addch(out, '\n');
	fixes_section(out, report);
	strbuf_addch(out, '\n');
	summary_section(out, report);
	strbuf_addch(out, '\n');
	if (!n_drop) {
		strbuf_addf(out, "Tested-by: %s\n", from);
	} else {
		json_array_foreach(patches, i, p) {
			if (strcmp(str(p, "status"), "drop") != 0)
				continue;
			if (has(p, "subject"))
				strbuf_addf(out, "Please drop: %s (\"%s\")\n", str(p, "name"),
					    str(p, "subject"));
			else
				strbuf_addf(out, "Please drop: %s\n", str(p, "name"));
		}
	}
signature:
	strbuf_addf(out, "\n-- \nbackport-gate report %lld (--format text|json|kcidb)\n",
		    (long long)json_integer_value(json_object_get(report, "run")));
	free(from_default);
	free(domain);
	free(own_id);
	free(subject);
	return 0;
}
