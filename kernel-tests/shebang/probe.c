// SPDX-License-Identifier: GPL-2.0
/*
 * The probe interpreter: every script in the suite names it (under many
 * paths) as its interpreter. It writes the argv and envp the kernel built
 * for it to stdout in the format of probe_record.h, and exits 0.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "probe_record.h"

static int write_all(const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDOUT_FILENO, buf, len);

		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_strings(char **strings, int count)
{
	char head[32];
	int n = snprintf(head, sizeof(head), "%d\n", count);

	if (write_all(head, (size_t)n) < 0)
		return -1;
	for (int i = 0; i < count; i++)
		if (write_all(strings[i], strlen(strings[i]) + 1) < 0)
			return -1;
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	int envc = 0;

	while (envp[envc])
		envc++;
	if (argc > PROBE_MAX_STRINGS || envc > PROBE_MAX_STRINGS)
		return 3;
	if (write_all(PROBE_MAGIC, strlen(PROBE_MAGIC)) < 0 ||
	    write_strings(argv, argc) < 0 || write_strings(envp, envc) < 0)
		return 2;
	return 0;
}
