// SPDX-License-Identifier: GPL-2.0
#include <time.h>

#include "basic/clock.h"

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
