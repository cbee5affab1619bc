// SPDX-License-Identifier: GPL-2.0
/*
 * probe_record_parse() on untrusted bytes: the record is what the probe
 * interpreter wrote, and the probe runs with whatever argv and envp the
 * kernel under test built (that is the point of the suite).
 *
 * As the harness does, the bytes are given in a buffer with a NUL after
 * them. Checked beyond memory safety: every string of an accepted record
 * lies inside the buffer, and writing the record out again and reading
 * that gives the same record.
 */
#include <errno.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "probe_record.h"

static void check_strings(const char *buf, size_t len, int n, const char *const *strings,
			  const char *what)
{
	fuzz_check(n >= 0 && n <= PROBE_MAX_STRINGS, "%s count %d", what, n);
	for (int i = 0; i < n; i++) {
		const char *s = strings[i];

		fuzz_check(s >= buf && s < buf + len && s + strlen(s) < buf + len,
			   "%s[%d] is not inside the record", what, i);
	}
}

/* Append "<n>\n" and @n strings with their NULs at @out; returns the end. */
static char *add_strings(char *out, int n, const char *const *strings)
{
	out += sprintf(out, "%d\n", n);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(strings[i]) + 1;

		memcpy(out, strings[i], len);
		out += len;
	}
	return out;
}

/* @rec as the probe writes it, in a buffer with a NUL after it. */
static char *serialize(const struct probe_record *rec, size_t *ret_len)
{
	size_t room = strlen(PROBE_MAGIC) + 2 * 16 + 1;
	char *out, *end;

	for (int i = 0; i < rec->argc; i++)
		room += strlen(rec->argv[i]) + 1;
	for (int i = 0; i < rec->envc; i++)
		room += strlen(rec->envp[i]) + 1;
	out = malloc(room);
	if (!out)
		abort();
	end = out + sprintf(out, "%s", PROBE_MAGIC);
	end = add_strings(end, rec->argc, rec->argv);
	end = add_strings(end, rec->envc, rec->envp);
	*end = '\0';
	*ret_len = (size_t)(end - out);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_dup(data, size);
	struct probe_record rec, again;
	int r = probe_record_parse(buf, size, &rec);

	if (r < 0) {
		fuzz_check(r == -EBADMSG, "r=%d", r);
	} else {
		char *copy;
		size_t copy_len;

		fuzz_check(r == 0, "r=%d", r);
		check_strings(buf, size, rec.argc, rec.argv, "argv");
		check_strings(buf, size, rec.envc, rec.envp, "envp");
		copy = serialize(&rec, &copy_len);
		r = probe_record_parse(copy, copy_len, &again);
		fuzz_check(r == 0, "its own record written out is refused: %d", r);
		fuzz_check(again.argc == rec.argc && again.envc == rec.envc,
			   "argc %d envc %d, then %d %d", rec.argc, rec.envc, again.argc, again.envc);
		for (int i = 0; i < rec.argc; i++)
			fuzz_check(!strcmp(again.argv[i], rec.argv[i]), "argv[%d] \"%s\" became \"%s\"",
				   i, rec.argv[i], again.argv[i]);
		for (int i = 0; i < rec.envc; i++)
			fuzz_check(!strcmp(again.envp[i], rec.envp[i]), "envp[%d] \"%s\" became \"%s\"",
				   i, rec.envp[i], again.envp[i]);
		free(copy);
	}
	free(buf);
	return 0;
}
