// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "kunit.h"

#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

/* @line without its "<6>" level and "[    1.234567] " time, if any. */
static const char *strip_prefix(const char *line)
{
	if (line[0] == '<') {
		const char *end = strchr(line, '>');

		if (end && end - line <= 4)
			line = end + 1;
	}
	if (line[0] == '[') {
		const char *end = strchr(line, ']');

		if (end) {
			line = end + 1;
			if (*line == ' ')
				line++;
		}
	}
	return line;
}

static void copy_word(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * A result line of depth one, "    ok 3 name # SKIP why" or "    not ok 3
 * name": 1 with the parts, 0 when @line is not one.
 */
static int case_line(const char *line, bool *ret_ok, const char **ret_name, size_t *ret_name_len,
		     const char **ret_directive)
{
	const char *p;

	if (strncmp(line, "    ", 4) != 0 || line[4] == ' ')
		return 0;
	p = line + 4;
	*ret_ok = strncmp(p, "ok ", 3) == 0;
	if (*ret_ok)
		p += 3;
	else if (strncmp(p, "not ok ", 7) == 0)
		p += 7;
	else
		return 0;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != ' ')
		return 0;
	if (p[0] == '-' && p[1] == ' ')		/* older KTAP: "ok 1 - name" */
		p += 2;
	*ret_name = p;
	*ret_name_len = strcspn(p, " \t");
	*ret_directive = strstr(p, " # ");
	return *ret_name_len > 0;
}

static void take_line(const char *line, struct kunit_log *ret, char *suite, size_t suite_size,
		      char *last_diag, size_t diag_size)
{
	const char *name, *directive;
	size_t name_len;
	bool ok;

	if (strncmp(line, "    # Subtest: ", 15) == 0) {
		copy_word(suite, suite_size, line + 15, strcspn(line + 15, " \t\r\n"));
		ret->suites++;
		ret->unfinished = true;
		last_diag[0] = '\0';
		return;
	}
	if (!suite[0])
		return;
	if (strncmp(line, "ok ", 3) == 0 || strncmp(line, "not ok ", 7) == 0) {
		suite[0] = '\0';	/* the suite's own result */
		ret->unfinished = false;
		return;
	}
	if (strstr(line, "FAILED at ")) {
		const char *text = line + strspn(line, " ");

		copy_word(last_diag, diag_size, text, strlen(text));
		return;
	}
	if (!case_line(line, &ok, &name, &name_len, &directive))
		return;
	if (ret->n == KUNIT_MAX_CASES) {
		ret->truncated = true;
		return;
	}
	{
		struct kunit_case *c = &ret->cases[ret->n++];
		char case_name[KUNIT_NAME_MAX];

		copy_word(case_name, sizeof(case_name), name, name_len);
		snprintf(c->name, sizeof(c->name), "kunit.%.70s.%.80s", suite, case_name);
		c->diag[0] = '\0';
		if (ok && directive && strncmp(directive, " # SKIP", 7) == 0) {
			c->result = KUNIT_SKIP;
			snprintf(c->diag, sizeof(c->diag), "%s", directive + 7 + (directive[7] == ' '));
		} else if (ok) {
			c->result = KUNIT_PASS;
		} else {
			c->result = KUNIT_FAIL;
			snprintf(c->diag, sizeof(c->diag), "%s",
				 last_diag[0] ? last_diag : "the case failed");
		}
		last_diag[0] = '\0';
	}
}

void kunit_log_parse(const char *log, size_t len, struct kunit_log *ret)
{
	char suite[KUNIT_NAME_MAX] = "", last_diag[KUNIT_DIAG_MAX] = "", line[512];
	const char *p = log, *end = log + len;

	ret->n = 0;
	ret->suites = 0;
	ret->truncated = false;
	ret->unfinished = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (n > 0 && (p[n - 1] == '\r'))
			n--;
		copy_word(line, sizeof(line), p, n);
		take_line(strip_prefix(line), ret, suite, sizeof(suite), last_diag,
			  sizeof(last_diag));
		p = nl ? nl + 1 : end;
	}
}

int kunit_read_kernel_log(struct kunit_log *ret)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	char *buf;
	int len;

	ret->n = 0;
	ret->suites = 0;
	if (size <= 0)
		return size < 0 ? -errno : -ENODATA;
	buf = malloc((size_t)size);
	if (!buf)
		return -ENOMEM;
	len = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
	if (len < 0) {
		int e = errno;

		free(buf);
		return -e;
	}
	kunit_log_parse(buf, (size_t)len, ret);
	free(buf);
	return 0;
}
