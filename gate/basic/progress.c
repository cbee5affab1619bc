// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/progress.h"
#include "basic/xalloc.h"

/* A terminal's line is rewritten at most this often. */
#define TTY_INTERVAL_MS 200

static long clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void progress_init(struct progress *p, FILE *out, bool tty)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->tty = tty;
	p->interval_ms = PROGRESS_INTERVAL_MS;
	p->now_ms = clock_ms;
}

struct progress *progress_stderr(void)
{
	static struct progress p;
	static bool ready;

	if (!ready) {
		const char *v = getenv("BG_PROGRESS");
		bool quiet = v && strcmp(v, "0") == 0;

		const char *every = getenv("BG_PROGRESS_INTERVAL");
		char *end;
		long sec;

		progress_init(&p, quiet ? NULL : stderr, !quiet && isatty(STDERR_FILENO));
		if (every && every[0]) {
			sec = strtol(every, &end, 10);
			if (*end || sec < 1 || sec > 3600)
				fprintf(stderr, "BG_PROGRESS_INTERVAL: '%s' is not a number of seconds "
					"(1 to 3600); using %d\n", every, PROGRESS_INTERVAL_MS / 1000);
			else
				p.interval_ms = sec * 1000;
		}
		ready = true;
	}
	return &p;
}

/* "4 s", "2 min 31 s", "1 h 5 min" */
static void add_duration(struct strbuf *out, long ms)
{
	long s = (ms + 500) / 1000;

	if (s < 60)
		strbuf_addf(out, "%ld s", s);
	else if (s < 3600 && s % 60 == 0)
		strbuf_addf(out, "%ld min", s / 60);
	else if (s < 3600)
		strbuf_addf(out, "%ld min %ld s", s / 60, s % 60);
	else
		strbuf_addf(out, "%ld h %ld min", s / 3600, s % 3600 / 60);
}

/* The estimate, coarser the further away: "~40 s", "~3 min" (rounded up). */
static void add_left(struct strbuf *out, long ms)
{
	long s = (ms + 999) / 1000;

	if (s < 60)
		strbuf_addf(out, ", ~%ld s left", s < 5 ? 5 : (s + 4) / 5 * 5);
	else
		strbuf_addf(out, ", ~%ld min left", (s + 59) / 60);
}

void progress_format(const struct progress *p, long now_ms, struct strbuf *out)
{
	long elapsed = now_ms - p->start_ms;

	if (!p->active) {
		strbuf_addf(out, "%s %lu %s in ", p->phase, p->done, p->unit);
		add_duration(out, elapsed);
		return;
	}
	if (p->total) {
		strbuf_addf(out, "%s %lu/%lu %s", p->phase, p->done, p->total, p->unit);
		if (p->done && p->done < p->total)
			add_left(out, (long)((double)elapsed * (double)(p->total - p->done) / (double)p->done));
		else if (!p->done && p->expected_ms > elapsed)
			add_left(out, p->expected_ms - elapsed);
		return;
	}
	strbuf_addf(out, "%s %lu %s", p->phase, p->done, p->unit);
	if (p->expected_ms > elapsed)
		add_left(out, p->expected_ms - elapsed);
	else {
		strbuf_adds(out, ", ");
		add_duration(out, elapsed);
		strbuf_adds(out, " so far");
	}
}

/* Print (and sink) the line when due; @final always. */
static void emit(struct progress *p, bool final)
{
	long now = p->now_ms();
	bool log_due = final || now - p->last_line_ms >= p->interval_ms;
	bool sink_due = final || now - p->last_sink_ms >= p->interval_ms;
	bool tty_due = final || now - p->last_tty_ms >= TTY_INTERVAL_MS;
	struct strbuf line = STRBUF_INIT;

	if (!(p->out && (p->tty ? tty_due : log_due)) && !(p->sink && sink_due))
		return;
	progress_format(p, now, &line);
	if (p->out && p->tty && tty_due) {
		/* \033[K: a shorter line must not leave the end of a longer one */
		fprintf(p->out, "\r# %s\033[K%s", line.buf, final ? "\n" : "");
		fflush(p->out);
		p->last_tty_ms = now;
	} else if (p->out && !p->tty && log_due) {
		fprintf(p->out, "# %s\n", line.buf);
		fflush(p->out);
		p->last_line_ms = now;
	}
	if (p->sink && sink_due) {
		p->sink(p->sink_arg, line.buf);
		p->last_sink_ms = now;
	}
	strbuf_release(&line);
}

void progress_begin(struct progress *p, const char *phase, const char *unit,
		    unsigned long total, long expected_ms)
{
	if (p->active && p->out && p->tty)
		fputs("\n", p->out);	/* keep what the unfinished phase said */
	snprintf(p->phase, sizeof(p->phase), "%s", phase);
	snprintf(p->unit, sizeof(p->unit), "%s", unit);
	p->done = 0;
	p->total = total;
	p->expected_ms = expected_ms;
	p->start_ms = p->now_ms();
	/* the first line of a log is due one interval in */
	p->last_line_ms = p->last_sink_ms = p->start_ms;
	p->last_tty_ms = p->start_ms - TTY_INTERVAL_MS;
	p->active = true;
}

void progress_update(struct progress *p, unsigned long done)
{
	if (!p->active)
		return;
	p->done = done;
	emit(p, false);
}

void progress_end(struct progress *p)
{
	if (!p->active)
		return;
	p->active = false;
	emit(p, true);
}

int progress_stats_load(const char *path, const char *phase, unsigned long *ret_count,
			long *ret_ms)
{
	FILE *f = fopen(path, "re");
	char name[64];
	unsigned long count;
	long ms;
	int r = -ENOENT;

	if (!f)
		return -ENOENT;
	while (fscanf(f, "%63s %lu %ld", name, &count, &ms) == 3)
		if (strcmp(name, phase) == 0) {
			*ret_count = count;
			*ret_ms = ms;
			r = 0;	/* the last line for @phase wins */
		}
	fclose(f);
	return r;
}

int progress_stats_save(const char *path, const char *phase, unsigned long count, long ms)
{
	struct strbuf old = STRBUF_INIT, text = STRBUF_INIT;
	char *tmp = xasprintf("%s.tmp", path);
	size_t plen = strlen(phase);
	int r;

	strbuf_read_file(&old, path);
	/* every other phase's line as it was */
	for (char *line = old.buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!(strncmp(line, phase, plen) == 0 && line[plen] == ' '))
			strbuf_addf(&text, "%s\n", line);
	}
	strbuf_addf(&text, "%s %lu %ld\n", phase, count, ms);
	r = strbuf_write_file(&text, tmp);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	strbuf_release(&old);
	strbuf_release(&text);
	free(tmp);
	return r;
}

unsigned long file_lines_count(struct file_lines *f, const char *path,
			       bool (*match)(const char *line, size_t len))
{
	char buf[65536];
	unsigned long n = 0;
	ssize_t got;

	if (!f->opened || f->fd < 0) {
		if (!f->opened)
			strbuf_init(&f->partial, 0);
		f->opened = true;
		f->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0)
			return 0;
	}
	while ((got = pread(f->fd, buf, sizeof(buf), f->pos)) > 0) {
		const char *p = buf, *end = buf + got, *nl;

		f->pos += got;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			if (f->partial.len) {
				strbuf_add(&f->partial, p, (size_t)(nl - p));
				n += match(f->partial.buf, f->partial.len);
				strbuf_reset(&f->partial);
			} else {
				n += match(p, (size_t)(nl - p));
			}
			p = nl + 1;
		}
		/* a line longer than a page is not one we count: keep its start only */
		if (p < end && f->partial.len < 4096)
			strbuf_add(&f->partial, p, (size_t)(end - p));
	}
	return n;
}

void file_lines_release(struct file_lines *f)
{
	if (f->opened) {
		if (f->fd >= 0)
			close(f->fd);
		strbuf_release(&f->partial);
	}
	memset(f, 0, sizeof(*f));
}
