// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "parse/address.h"

/* @len bytes of @s for a message: control characters shown as '?'. */
static void add_shown(struct strbuf *err, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		strbuf_addch(err, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i]);
}

static int refuse(struct strbuf *err, const char *member, size_t len, const char *why)
{
	strbuf_adds(err, "address \"");
	add_shown(err, member, len);
	strbuf_addf(err, "\": %s", why);
	return -EINVAL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Whether @s (@len bytes) is an addr-spec the envelope can carry. */
static const char *spec_problem(const char *s, size_t len)
{
	const char *at = NULL;

	if (!len)
		return "no address";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c == 0x7f)
			return "the address holds a space or a control character";
		if (strchr("<>,\"():;[]\\", c))
			return "the address holds a character SMTP's envelope cannot carry";
		if (c == '@') {
			if (at)
				return "the address has more than one '@'";
			at = s + i;
		}
	}
	if (!at)
		return "the address has no '@'";
	if (at == s || at == s + len - 1)
		return "the address lacks its local part or its domain";
	return NULL;
}

/*
 * The member at *@p up to its separating comma (or the end): its
 * addr-spec into @spec. Moves *@p past the comma.
 */
static int member(const char **p, struct strbuf *spec, bool *ret_empty, struct strbuf *err)
{
	const char *start = *p, *s = start, *angle = NULL, *angle_end = NULL;
	struct strbuf bare = STRBUF_INIT;
	bool quoted = false, content = false;
	int comment = 0, r = 0;
	const char *why;

	for (; *s; s++) {
		char c = *s;

		if ((quoted || comment) && c == '\\' && s[1]) {
			s++;
			continue;
		}
		if (quoted) {
			quoted = c != '"';
			continue;
		}
		if (comment) {
			comment += c == '(' ? 1 : c == ')' ? -1 : 0;
			continue;
		}
		if (c == ',' && (!angle || angle_end))
			break;
		if (angle && !angle_end) {
			if (c == '>')
				angle_end = s;
			else if (c == '<')
				break;	/* refused below: a '<' inside <...> */
			continue;
		}
		if (c == '(') {
			comment = 1;
		} else if (c == '"') {
			if (angle_end)
				goto after_angle;
			quoted = true;
			content = true;
		} else if (c == '<') {
			if (angle_end)
				goto after_angle;
			angle = s;
			content = true;
		} else if (c == ':' || c == ';') {
			r = refuse(err, start, strcspn(start, ","), "groups are not supported; "
				   "list the addresses");
			goto out;
		} else if (!is_space(c)) {
			if (angle_end)
				goto after_angle;
			content = true;
			if (!angle)
				strbuf_addch(&bare, c);
		} else if (!angle && bare.len && content) {
			strbuf_addch(&bare, ' ');
		}
	}
	*p = *s ? s + 1 : s;
	*ret_empty = !content;
	if (quoted || comment || (angle && !angle_end)) {
		r = refuse(err, start, (size_t)(s - start), quoted ? "an unclosed quote" :
			   comment ? "an unclosed comment" : "an unclosed '<'");
		goto out;
	}
	if (!content)
		goto out;
	if (angle) {
		strbuf_add(spec, angle + 1, (size_t)(angle_end - angle - 1));
	} else {
		strbuf_rtrim(&bare);
		if (strchr(bare.buf, ' ')) {
			r = refuse(err, start, (size_t)(s - start),
				   "a name needs its address in <...>");
			goto out;
		}
		strbuf_add(spec, bare.buf, bare.len);
	}
	why = spec_problem(spec->buf, spec->len);
	if (why)
		r = refuse(err, start, (size_t)(s - start), why);
	goto out;
after_angle:
	r = refuse(err, start, strcspn(start, ","), "text after the <address>");
out:
	strbuf_release(&bare);
	return r;
}

int address_list_parse(const char *text, struct strlist *ret, struct strbuf *err)
{
	struct strlist found = STRLIST_INIT;
	struct strbuf spec = STRBUF_INIT;
	const char *p = text;
	int r = 0;

	while (*p) {
		bool empty;

		strbuf_reset(&spec);
		r = member(&p, &spec, &empty, err);
		if (r < 0)
			break;
		if (!empty)
			strlist_append(&found, spec.buf);
	}
	if (r == 0)
		strlist_extend(ret, &found);
	strlist_release(&found);
	strbuf_release(&spec);
	return r;
}

int address_parse_one(const char *text, struct strbuf *ret, struct strbuf *err)
{
	struct strlist found = STRLIST_INIT;
	int r = address_list_parse(text, &found, err);

	if (r == 0 && found.n != 1) {
		strbuf_adds(err, "address \"");
		add_shown(err, text, strlen(text));
		strbuf_addf(err, "\": %s", found.n ? "one address expected, not a list" :
			    "no address");
		r = -EINVAL;
	}
	if (r == 0)
		strbuf_adds(ret, found.items[0]);
	strlist_release(&found);
	return r;
}
