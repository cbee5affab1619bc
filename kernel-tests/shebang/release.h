/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's version, for the few cases whose right answer
 * changed upstream between the branches the gate judges (a quirk present
 * in one release and gone in a later one).
 */
#ifndef RELEASE_H
#define RELEASE_H

/*
 * Read MAJOR.MINOR from the start of a uname release ("6.12.118-amd64",
 * "6.1.0", "6.8-rc1"). Returns 0, or -EINVAL when @release does not start
 * with two dot-separated numbers.
 */
int release_parse(const char *release, int *ret_major, int *ret_minor);

/* Whether MAJOR.MINOR is @major.@minor or later. */
static inline int release_at_least(int major, int minor, int want_major, int want_minor)
{
	return major > want_major || (major == want_major && minor >= want_minor);
}

#endif
