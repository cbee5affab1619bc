/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress: what a long phase is doing and how far it is, for people
 * waiting on it. It knows phases, counts and clocks, nothing of what is
 * counted.
 *
 * A phase is begun with a name, a unit, the expected total (0: unknown)
 * and the expected duration (0: unknown), updated with how many are done,
 * and ended. Its line reads
 *
 *   # build 812/1290 objects, ~1 min left
 *   # extract 31200 files, 4 s so far            (total unknown)
 *   # build 1290 objects in 2 min 31 s           (the final line)
 *
 * The time left is the rate so far applied to what remains, or, before
 * anything is done, the expected duration less the time spent.
 *
 * Where it goes: on a terminal (@tty) one line rewritten in place with \r
 * (at most every 200 ms), ended with a newline by the final one;
 * otherwise (a log, the journal) a line when @interval_ms passed since the
 * phase began or since the last line, and the final line, so a phase
 * shorter than @interval_ms prints only its final line. @out NULL prints
 * nothing. @sink, when set, is handed the same lines as a log gets (the
 * daemon's worker records them for /api/jobs/ID); it is called whether or
 * not @out is set.
 *
 * One phase at a time: begin ends a phase still running (without its
 * final line).
 */
#ifndef GATE_PROGRESS_H
#define GATE_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "basic/strbuf.h"

/* A log gets at most one line this often, and so does a sink. */
#define PROGRESS_INTERVAL_MS 5000

struct progress {
	/* ---- where lines go, set by progress_init() or the caller ---- */
	FILE *out;			/* NULL: no lines */
	bool tty;			/* one line rewritten with \r */
	long interval_ms;		/* not a tty: at most one line this often */
	long (*now_ms)(void);		/* a monotonic clock in ms; tests inject theirs */
	void (*sink)(void *sink_arg, const char *line);	/* line without "# " or newline */
	void *sink_arg;

	/* ---- the running phase, set by progress_begin() ---- */
	bool active;
	char phase[32], unit[16];
	unsigned long done, total;	/* total 0: unknown */
	long start_ms, expected_ms;	/* expected_ms 0: unknown */
	long last_line_ms, last_sink_ms, last_tty_ms;
};

/* Lines to @out (NULL: none), rewritten in place when @tty; the real clock. */
void progress_init(struct progress *p, FILE *out, bool tty);

/*
 * The process's reporter, on stderr, set up on its first use: on a
 * terminal when isatty(2), silent when $BG_PROGRESS is "0" (for tests that
 * compare stderr), a line every $BG_PROGRESS_INTERVAL seconds (1 to 3600;
 * default 5) to a log and to a sink. One per process because a process runs one long phase
 * at a time and every stage of it reports to the same place.
 */
struct progress *progress_stderr(void);

void progress_begin(struct progress *p, const char *phase, const char *unit,
		    unsigned long total, long expected_ms);
/* @done so far; prints a line when it is due. */
void progress_update(struct progress *p, unsigned long done);
/* The final line, with the count and the time taken; the phase is over. */
void progress_end(struct progress *p);

/* The line of @p at @now_ms, without "# " and newline, appended to @out. */
void progress_format(const struct progress *p, long now_ms, struct strbuf *out);

/*
 * What a phase cost last time, kept in a small file of "phase count ms"
 * lines (written to a temporary file and renamed). load: 0 with both
 * set, or -ENOENT when @path has no line for @phase (a missing file
 * included). save: 0 or -errno.
 */
int progress_stats_load(const char *path, const char *phase, unsigned long *ret_count,
			long *ret_ms);
int progress_stats_save(const char *path, const char *phase, unsigned long count, long ms);

/*
 * Counting the lines a child writes to a file while it runs: each call
 * reads what was appended since the last one and returns how many of its
 * complete lines @match accepts (a partial last line waits for the next
 * call). Start with a zeroed struct; release closes the file. A file not
 * there yet counts 0.
 */
struct file_lines {
	bool opened;
	int fd;				/* valid once @opened */
	off_t pos;
	struct strbuf partial;
};

unsigned long file_lines_count(struct file_lines *f, const char *path,
			       bool (*match)(const char *line, size_t len));
void file_lines_release(struct file_lines *f);

#endif
