// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "exec/slurm.h"

/* Each of Slurm's commands gets this long to answer. */
#define SLURM_COMMAND_TIMEOUT 60
/* How long the controller may not answer before the wait gives up. */
#define SLURM_UNREACHABLE_MAX 300
/* Past the job's own time limit, how long before the coordinator cancels it. */
#define SLURM_GRACE 300

_Static_assert(CONFIG_EXECUTOR_RETRIES_MAX < SLURM_ATTEMPTS_MAX,
	       "[executor] retries must fit the attempts kept");
_Static_assert(CONFIG_EXECUTOR_WORKERS_MAX <= SLURM_WORKERS_MAX,
	       "[executor] workers must fit what the executor runs at once");

void slurm_options_from_config(const struct executor_config *c, struct slurm_options *ret)
{
	*ret = (struct slurm_options){
		.partition = c->partition, .time_limit = c->time_limit, .memory = c->memory,
		.cpus = c->cpus, .retries = c->retries, .retries_set = c->retries_set,
		.program = c->program, .node_cache = c->node_cache, .ccache = c->ccache,
		.spool = c->spool, .workers = c->workers,
	};
}

/* The signal that asked the gate to stop while steps ran, or 0. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

unsigned slurm_retries(const struct slurm_options *opts)
{
	unsigned n = opts->retries_set ? opts->retries : SLURM_RETRIES_DEFAULT;

	return n < SLURM_ATTEMPTS_MAX ? n : SLURM_ATTEMPTS_MAX - 1;
}

/* Run a Slurm command, its output in @out; 0, or -errno / -EIO with @err. */
static int slurm_command(const char *const *argv, struct strbuf *out, struct strbuf *err)
{
	struct child c = { .argv = argv, .capture = out, .timeout_sec = SLURM_COMMAND_TIMEOUT };
	struct child_result res;
	int r;

	strbuf_reset(out);
	r = child_run(&c, &res);
	if (r == 0 && res.exec_errno)
		r = -res.exec_errno;
	if (r < 0) {
		strbuf_addf(err, "slurm: cannot run %s: %s%s", argv[0], strerror(-r),
			    r == -ENOENT ? " (apt-get install slurm-client)" : "");
		return r;
	}
	if (!child_ok(&res)) {
		strbuf_addf(err, "slurm: ");
		child_describe(&c, &res, err);
		strbuf_rtrim(out);
		if (out->len)
			strbuf_addf(err, ": %s", out->buf);
		return -EIO;
	}
	return 0;
}

/* sh's single quotes around @s */
static void add_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++)
		if (*s == '\'')
			strbuf_adds(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	strbuf_addch(sb, '\'');
}

/* @dir/job.sh: what the node runs. */
static int write_job_script(const struct slurm_options *opts, const char *dir, char **ret_path,
			    struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char self[4096], *path = xasprintf("%s/job.sh", dir);
	const char *program = opts->program;
	ssize_t len;
	int r;

	if (!program) {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len < 0) {
			r = -errno;
			strbuf_addf(err, "slurm: cannot read /proc/self/exe: %s", strerror(-r));
			free(path);
			return r;
		}
		self[len] = '\0';
		/* rebuilt since it started: the path holds the new binary */
		if (len > 10 && !strcmp(self + len - 10, " (deleted)"))
			self[len - 10] = '\0';
		program = self;
	}
	strbuf_adds(&text, "#!/bin/sh\n# a backport-gate step, submitted as a Slurm job\nexec ");
	add_quoted(&text, program);
	strbuf_adds(&text, " step");
	if (opts->node_cache) {
		strbuf_adds(&text, " --cache ");
		add_quoted(&text, opts->node_cache);
	}
	if (opts->ccache) {
		strbuf_adds(&text, " --ccache ");
		add_quoted(&text, opts->ccache);
	}
	strbuf_addch(&text, ' ');
	add_quoted(&text, dir);
	strbuf_addch(&text, '\n');
	r = strbuf_write_file(&text, path);
	strbuf_release(&text);
	if (r < 0) {
		strbuf_addf(err, "slurm: cannot write %s: %s", path, strerror(-r));
		free(path);
		return r;
	}
	*ret_path = path;
	return 0;
}

static int submit(const struct slurm_options *opts, const char *dir, const char *script,
		  const char *exclude, char job[24], struct strbuf *err)
{
	char *output = xasprintf("--output=%s/slurm-%%j.out", dir);
	char *chdir_arg = xasprintf("--chdir=%s", dir);
	char *time_arg = xasprintf("--time=%u", opts->time_limit ? opts->time_limit :
				   SLURM_TIME_LIMIT_DEFAULT);
	char *cpus = xasprintf("--cpus-per-task=%u", opts->cpus ? opts->cpus : SLURM_CPUS_DEFAULT);
	char *partition = opts->partition ? xasprintf("--partition=%s", opts->partition) : NULL;
	char *mem = opts->memory ? xasprintf("--mem=%s", opts->memory) : NULL;
	char *excl = exclude && *exclude ? xasprintf("--exclude=%s", exclude) : NULL;
	const char *argv[16];
	struct strbuf out = STRBUF_INIT;
	size_t n = 0, len;
	int r;

	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = "--no-requeue";
	argv[n++] = "--export=ALL";
	argv[n++] = "--job-name=backport-gate-step";
	argv[n++] = output;
	argv[n++] = chdir_arg;
	argv[n++] = time_arg;
	argv[n++] = cpus;
	if (partition)
		argv[n++] = partition;
	if (mem)
		argv[n++] = mem;
	if (excl)
		argv[n++] = excl;
	argv[n++] = script;
	argv[n] = NULL;
	r = slurm_command(argv, &out, err);
	if (r == 0) {
		/* "ID" or "ID;CLUSTER" */
		len = strspn(out.buf, "0123456789");
		if (len == 0 || len >= 24) {
			strbuf_addf(err, "slurm: sbatch answered '%s', not a job id", out.buf);
			r = -EIO;
		} else {
			memcpy(job, out.buf, len);
			job[len] = '\0';
		}
	}
	strbuf_release(&out);
	free(output);
	free(chdir_arg);
	free(time_arg);
	free(cpus);
	free(partition);
	free(mem);
	free(excl);
	return r;
}

/* The value of KEY= in scontrol's one-line record, into @buf ("" when absent). */
static void field(const char *record, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key), len;
	const char *p = record;

	buf[0] = '\0';
	while ((p = strstr(p, key))) {
		if ((p == record || p[-1] == ' ') && p[klen] == '=') {
			p += klen + 1;
			len = strcspn(p, " \n");
			if (len >= size)
				len = size - 1;
			memcpy(buf, p, len);
			buf[len] = '\0';
			return;
		}
		p += klen;
	}
}

static time_t slurm_time(const char *s)
{
	struct tm tm = { 0 };
	const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);

	if (!end || *end)
		return (time_t)-1;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

static bool state_is_final(const char *state)
{
	static const char *const running[] = {
		"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_HOLD",
		"REQUEUE_FED", "RESIZING", "SUSPENDED", "STAGE_OUT", "SIGNALING", "STOPPED",
		"RESV_DEL_HOLD", "SPECIAL_EXIT",
	};

	for (size_t i = 0; i < sizeof(running) / sizeof(*running); i++)
		if (!strcmp(state, running[i]))
			return false;
	return state[0] != '\0';
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop_signal)
		;
}

static bool have_result(const char *dir)
{
	char *path = xasprintf("%s/result.json", dir);
	bool ok = access(path, F_OK) == 0;

	free(path);
	return ok;
}

static void cancel(const char *job)
{
	const char *argv[] = { "scancel", job, NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	slurm_command(argv, &out, &err);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* One step folder on its way through Slurm. */
struct run {
	const char *dir;
	struct slurm_outcome *out;
	struct strbuf *err;
	int r;
	bool active;
	char *script;
	struct strbuf exclude;		/* nodes where the step itself failed */
	struct strbuf tried;		/* the failed attempts, for the message */
	double submitted, running_since, said, unreachable;
};

/* The step's own last line of output, as why its attempt failed. */
static void last_output_line(const char *dir, const char *job, char *buf, size_t size)
{
	char *path = xasprintf("%s/slurm-%s.out", dir, job);
	struct strbuf text = STRBUF_INIT;
	char *line;

	if (strbuf_read_file(&text, path) >= 0) {
		strbuf_rtrim(&text);
		line = strrchr(text.buf, '\n');
		line = line ? line + 1 : text.buf;
		if (*line)
			snprintf(buf, size, "%s", line);
	}
	strbuf_release(&text);
	free(path);
}

/* Add @node to the comma-separated @exclude, once. */
static void exclude_add(struct strbuf *exclude, const char *node)
{
	struct strbuf have = STRBUF_INIT, probe = STRBUF_INIT;

	strbuf_addf(&have, ",%s,", exclude->buf);
	strbuf_addf(&probe, ",%s,", node);
	if (*node && !strstr(have.buf, probe.buf))
		strbuf_addf(exclude, "%s%s", exclude->len ? "," : "", node);
	strbuf_release(&have);
	strbuf_release(&probe);
}

/* Submit @run's next attempt; on failure it is done, with the error. */
static void run_submit(const struct slurm_options *opts, struct run *run)
{
	struct slurm_attempt *a = &run->out->attempts[run->out->n];
	char *result = xasprintf("%s/result.json", run->dir);
	int r;

	unlink(result);		/* an earlier attempt's is never read */
	free(result);
	r = submit(opts, run->dir, run->script, run->exclude.buf, a->job, run->err);
	if (r == -EIO && run->exclude.len) {
		/* no node is left without the excluded ones: try them again */
		strbuf_reset(run->err);
		strbuf_reset(&run->exclude);
		r = submit(opts, run->dir, run->script, NULL, a->job, run->err);
	}
	if (r < 0) {
		run->r = r;
		run->active = false;
		return;
	}
	run->out->n++;
	run->submitted = now_seconds();
	run->running_since = 0;
	run->said = run->submitted;
	run->unreachable = 0;
}

/*
 * Look at @run's job once: 1 when it ended (its attempt says how and
 * where), 0 while it runs, -EIO when the controller stopped answering.
 */
static int run_poll(const struct slurm_options *opts, struct run *run)
{
	struct slurm_attempt *a = &run->out->attempts[run->out->n - 1];
	const char *argv[] = { "scontrol", "--oneliner", "show", "job", a->job, NULL };
	unsigned limit = (opts->time_limit ? opts->time_limit : SLURM_TIME_LIMIT_DEFAULT) * 60 +
			 SLURM_GRACE;
	struct strbuf out = STRBUF_INIT, cerr = STRBUF_INIT;
	char state[24], submit_t[32], start_t[32], reason[128];
	double now = now_seconds();
	int r = 0;

	if (slurm_command(argv, &out, &cerr) < 0) {
		if (strstr(out.buf, "Invalid job id")) {
			/* forgotten (MinJobAge): its result tells how it ended */
			snprintf(a->state, sizeof(a->state), "%s",
				 have_result(run->dir) ? "COMPLETED" : "LOST");
			r = 1;
		} else {
			if (!run->unreachable)
				run->unreachable = now;
			if (now - run->unreachable > SLURM_UNREACHABLE_MAX) {
				strbuf_addf(run->err, "slurm: job %s: the controller did not answer "
					    "for %d s: %s", a->job, SLURM_UNREACHABLE_MAX, cerr.buf);
				r = -EIO;
			}
		}
		goto out;
	}
	run->unreachable = 0;
	field(out.buf, "JobState", state, sizeof(state));
	field(out.buf, "BatchHost", a->node, sizeof(a->node));
	if (!a->node[0] || !strcmp(a->node, "(null)"))
		field(out.buf, "NodeList", a->node, sizeof(a->node));
	if (!strcmp(a->node, "(null)"))
		a->node[0] = '\0';
	field(out.buf, "Reason", reason, sizeof(reason));
	if (state_is_final(state)) {
		snprintf(a->state, sizeof(a->state), "%s", state);
		field(out.buf, "SubmitTime", submit_t, sizeof(submit_t));
		field(out.buf, "StartTime", start_t, sizeof(start_t));
		if (slurm_time(start_t) != (time_t)-1 && slurm_time(submit_t) != (time_t)-1)
			a->queued = difftime(slurm_time(start_t), slurm_time(submit_t));
		if (strcmp(state, "COMPLETED") && reason[0] && strcmp(reason, "None"))
			snprintf(a->why, sizeof(a->why), "%s", reason);
		r = 1;
		goto out;
	}
	if (!strcmp(state, "RUNNING") && !run->running_since)
		run->running_since = now;
	if (run->running_since && now - run->running_since > limit) {
		cancel(a->job);
		snprintf(a->state, sizeof(a->state), "TIMEOUT");
		snprintf(a->why, sizeof(a->why), "still running %u s after it started", limit);
		r = 1;
		goto out;
	}
	if (now - run->said >= 60) {
		fprintf(stderr, "# slurm job %s: %s%s%s for %.0f s\n", a->job, state,
			reason[0] && strcmp(reason, "None") ? ", " : "",
			strcmp(reason, "None") ? reason : "", now - run->submitted);
		run->said = now;
	}
out:
	strbuf_release(&out);
	strbuf_release(&cerr);
	return r;
}

/* @run's attempt ended: done with its result, or submitted again, or failed for good. */
static void run_ended(const struct slurm_options *opts, struct run *run)
{
	struct slurm_attempt *a = &run->out->attempts[run->out->n - 1];
	unsigned attempts = slurm_retries(opts) + 1;
	char *result;

	if (!strcmp(a->state, "COMPLETED") && have_result(run->dir)) {
		run->active = false;
		return;
	}
	if (!strcmp(a->state, "COMPLETED"))
		snprintf(a->state, sizeof(a->state), "NO_RESULT");
	/* the step's own words, unless Slurm ended it (its output stops mid-way then) */
	if (!strcmp(a->state, "NO_RESULT") || !strcmp(a->state, "FAILED"))
		last_output_line(run->dir, a->job, a->why, sizeof(a->why));
	if (strcmp(a->state, "NODE_FAIL") && strcmp(a->state, "LOST"))
		exclude_add(&run->exclude, a->node);
	result = xasprintf("%s/result.json", run->dir);
	unlink(result);		/* never read an attempt that failed */
	free(result);
	strbuf_addf(&run->tried, "%sjob %s %s%s%s%s%s", run->tried.len ? "; " : "", a->job,
		    a->state, a->node[0] ? " on " : "", a->node, a->why[0] ? ": " : "", a->why);
	fprintf(stderr, "# slurm job %s for %s: %s%s\n", a->job, run->dir, a->state,
		run->out->n < attempts ? ", submitting again" : "");
	if (run->out->n < attempts) {
		run_submit(opts, run);
		return;
	}
	strbuf_addf(run->err, "slurm: the step in %s failed %zu time%s: %s", run->dir, run->out->n,
		    run->out->n == 1 ? "" : "s", run->tried.buf);
	run->r = -EIO;
	run->active = false;
}

/* Every job still running is cancelled: the gate was asked to stop. */
static void cancel_all(struct run *runs, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		struct run *run = &runs[i];
		struct slurm_attempt *a;

		if (!run->active)
			continue;
		a = &run->out->attempts[run->out->n - 1];
		cancel(a->job);
		snprintf(a->state, sizeof(a->state), "CANCELLED");
		snprintf(a->why, sizeof(a->why), "the gate got signal %d", (int)stop_signal);
		strbuf_addf(run->err, "slurm: stopped by signal %d (%s): job %s cancelled",
			    (int)stop_signal, strsignal(stop_signal), a->job);
		run->r = -EINTR;
		run->active = false;
	}
}

void slurm_run_steps(const struct slurm_options *opts, const char *const *dirs, size_t k,
		     struct slurm_outcome *outs, int *results, struct strbuf *errs)
{
	static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction on = { .sa_handler = on_stop }, old[3];
	struct run *runs = xcalloc(k ? k : 1, sizeof(*runs));
	double start = now_seconds();
	size_t active = 0;

	/* asked to stop, the gate cancels its jobs first (a signal it ignores stays ignored) */
	stop_signal = 0;
	sigemptyset(&on.sa_mask);
	for (size_t i = 0; i < 3; i++) {
		sigaction(stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &on, NULL);
	}

	for (size_t i = 0; i < k; i++) {
		struct run *run = &runs[i];

		memset(&outs[i], 0, sizeof(outs[i]));
		*run = (struct run){ .dir = dirs[i], .out = &outs[i], .err = &errs[i],
				     .active = true };
		strbuf_init(&run->exclude, 0);
		strbuf_init(&run->tried, 0);
		run->r = write_job_script(opts, run->dir, &run->script, run->err);
		if (run->r < 0)
			run->active = false;
		else
			run_submit(opts, run);
	}
	for (;;) {
		double now = now_seconds();

		active = 0;
		for (size_t i = 0; i < k; i++)
			active += runs[i].active;
		if (!active)
			break;
		if (stop_signal) {
			cancel_all(runs, k);
			continue;
		}
		/* often at first: most steps are short, and the wait is overhead */
		sleep_ms(now - start < 5 ? 100 : now - start < 60 ? 250 : 1000);
		for (size_t i = 0; i < k; i++) {
			struct run *run = &runs[i];
			int r;

			if (!run->active)
				continue;
			r = run_poll(opts, run);
			if (r < 0) {
				run->r = r;
				run->active = false;
			} else if (r == 1) {
				run_ended(opts, run);
				if (!run->active)
					run->out->seconds = now_seconds() - start;
			}
		}
	}
	for (size_t i = 0; i < 3; i++)
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &old[i], NULL);
	for (size_t i = 0; i < k; i++) {
		results[i] = runs[i].r;
		strbuf_release(&runs[i].exclude);
		strbuf_release(&runs[i].tried);
		free(runs[i].script);
	}
	free(runs);
}

int slurm_run_step(const struct slurm_options *opts, const char *dir,
		   struct slurm_outcome *out, struct strbuf *err)
{
	int r;

	slurm_run_steps(opts, &dir, 1, out, &r, err);
	return r;
}
