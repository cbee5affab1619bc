/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record the probe interpreter writes to its stdout, and its reader.
 *
 * The probe is what every test script names as its interpreter. It writes
 * exactly what the kernel handed it, so the suite can compare argv and envp
 * byte for byte:
 *
 *   "PROBE1\n" argc '\n' argv[0] '\0' ... argv[argc-1] '\0'
 *              envc '\n' envp[0] '\0' ... envp[envc-1] '\0'
 *
 * argc and envc are decimal. Strings cannot contain NUL, so the framing is
 * unambiguous.
 */
#ifndef PROBE_RECORD_H
#define PROBE_RECORD_H

#include <stddef.h>

#define PROBE_MAGIC "PROBE1\n"
#define PROBE_MAX_STRINGS 64
#define PROBE_MAX_BYTES (64 * 1024)

struct probe_record {
	int argc;
	const char *argv[PROBE_MAX_STRINGS];
	int envc;
	const char *envp[PROBE_MAX_STRINGS];
};

/*
 * Parse @len bytes at @buf (which the record's strings then point into;
 * @buf must stay alive and end with a NUL the caller added past @len).
 * Returns 0, or -EBADMSG when the bytes are not a complete record.
 */
int probe_record_parse(char *buf, size_t len, struct probe_record *ret_record);

#endif
