// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe_record.h"

/* Read "<decimal>\n" at *pos; advance past it. */
static int parse_count(char *buf, size_t len, size_t *pos, int *ret_count)
{
	size_t i = *pos;
	long value = 0;

	if (i >= len || buf[i] < '0' || buf[i] > '9')
		return -EBADMSG;
	while (i < len && buf[i] >= '0' && buf[i] <= '9') {
		value = value * 10 + (buf[i] - '0');
		if (value > PROBE_MAX_STRINGS)
			return -EBADMSG;
		i++;
	}
	if (i >= len || buf[i] != '\n')
		return -EBADMSG;
	*pos = i + 1;
	*ret_count = (int)value;
	return 0;
}

static int parse_strings(char *buf, size_t len, size_t *pos, int count,
			 const char **ret_strings)
{
	size_t i = *pos;

	for (int n = 0; n < count; n++) {
		char *nul = memchr(buf + i, '\0', len - i);

		if (!nul)
			return -EBADMSG;
		ret_strings[n] = buf + i;
		i = (size_t)(nul - buf) + 1;
	}
	*pos = i;
	return 0;
}

int probe_record_parse(char *buf, size_t len, struct probe_record *ret_record)
{
	size_t magic_len = strlen(PROBE_MAGIC);
	size_t pos = magic_len;
	int r;

	memset(ret_record, 0, sizeof(*ret_record));
	if (len < magic_len || memcmp(buf, PROBE_MAGIC, magic_len) != 0)
		return -EBADMSG;
	r = parse_count(buf, len, &pos, &ret_record->argc);
	if (r < 0)
		return r;
	r = parse_strings(buf, len, &pos, ret_record->argc, ret_record->argv);
	if (r < 0)
		return r;
	r = parse_count(buf, len, &pos, &ret_record->envc);
	if (r < 0)
		return r;
	r = parse_strings(buf, len, &pos, ret_record->envc, ret_record->envp);
	if (r < 0)
		return r;
	return pos == len ? 0 : -EBADMSG;
}
