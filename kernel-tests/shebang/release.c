// SPDX-License-Identifier: GPL-2.0
#include <errno.h>

#include "release.h"

/* A decimal number of at most 4 digits at *@s; advances *@s past it. */
static int read_number(const char **s, int *ret)
{
	int n = 0, digits = 0;

	while (**s >= '0' && **s <= '9') {
		if (++digits > 4)
			return -EINVAL;
		n = n * 10 + (**s - '0');
		(*s)++;
	}
	if (!digits)
		return -EINVAL;
	*ret = n;
	return 0;
}

int release_parse(const char *release, int *ret_major, int *ret_minor)
{
	const char *s = release;
	int major, minor;

	if (read_number(&s, &major) < 0 || *s != '.')
		return -EINVAL;
	s++;
	if (read_number(&s, &minor) < 0)
		return -EINVAL;
	/* 6.12.118, 6.8-rc1, 6.1+: the minor ends at a separator or the end */
	if (*s != '\0' && *s != '.' && *s != '-' && *s != '+' && *s != '_')
		return -EINVAL;
	*ret_major = major;
	*ret_minor = minor;
	return 0;
}
