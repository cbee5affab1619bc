/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock: elapsed time for the figures the gate reports (build, boot and
 * check seconds), from CLOCK_MONOTONIC, so a wall-clock step does not
 * bend them.
 */
#ifndef GATE_CLOCK_H
#define GATE_CLOCK_H

/* Seconds on the monotonic clock: only differences mean anything. */
double now_seconds(void);

#endif
