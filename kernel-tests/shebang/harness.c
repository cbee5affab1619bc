// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "probe_record.h"
#include "release.h"

/* A case whose child has not finished by then is a failure, not a hang. */
#define CASE_TIMEOUT_MS 5000

/* The running kernel, read once by suite_run(). */
static struct {
	char name[65];
	int major, minor;
	bool known;
} running;

/* The environment every case passes unless it sets its own. */
static const char *const default_envp[] = {
	"HOME=/", "SHEBANG_SUITE=1", "LANG=C", NULL,
};

const char *run_printf(struct case_run *run, const char *fmt, ...)
{
	size_t room = sizeof(run->strings) - run->strings_used;
	char *out = run->strings + run->strings_used;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		/* A case that outgrows its storage is a bug in the suite. */
		fprintf(stderr, "shebang: run_printf: string storage exhausted\n");
		abort();
	}
	run->strings_used += (size_t)n + 1;
	return out;
}

static void collect_args(const char **dst, const char *first, va_list ap)
{
	size_t n = 0;

	for (const char *s = first; s; s = va_arg(ap, const char *)) {
		if (n + 1 >= CASE_MAX_ARGS)
			abort();
		dst[n++] = s;
	}
	dst[n] = NULL;
}

void run_exec(struct case_run *run, const char *path, ...)
{
	va_list ap;

	run->path = path;
	run->argv[0] = path;
	va_start(ap, path);
	collect_args(run->argv + 1, va_arg(ap, const char *), ap);
	va_end(ap);
}

void expect_argv(struct case_run *run, ...)
{
	va_list ap;

	run->expect_errno = 0;
	va_start(ap, run);
	collect_args(run->expect_argv, va_arg(ap, const char *), ap);
	va_end(ap);
}

void expect_errno(struct case_run *run, int err)
{
	run->expect_errno = err;
	run->expect_argv[0] = NULL;
}

bool since_kernel(struct case_run *run, int major, int minor, const char *change)
{
	bool since;

	if (!running.known) {
		run->version_unknown = true;
		return false;
	}
	since = release_at_least(running.major, running.minor, major, minor);
	run->version_note = run_printf(run, "%s is %s %d.%d, where %s: expecting %s",
				       running.name, since ? "at or after" : "before",
				       major, minor, change,
				       since ? "the new result" : "the old result");
	return since;
}

int make_parents(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	const char *p = data;
	int fd, r;

	r = make_parents(path);
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		p += n;
		len -= (size_t)n;
	}
	/* open() honours the umask; the case's mode is the point of the case. */
	if (fchmod(fd, mode) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return close(fd) < 0 ? -errno : 0;
}

int write_script(const char *path, const char *text, mode_t mode)
{
	return write_file(path, text, strlen(text), mode);
}

int install_probe(const char *path)
{
	int r = make_parents(path);

	if (r < 0)
		return r;
	return link(PROBE_PATH, path) < 0 ? -errno : 0;
}

/* What actually happened when the case's exec ran. */
struct observed {
	int exec_errno;			/* 0 when the probe ran */
	int status;			/* wait status of the child */
	bool timed_out;
	bool malformed;			/* the probe ran but its record is bad */
	struct probe_record record;
	char buf[PROBE_MAX_BYTES + 1];
	size_t len;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Wait until @fd is readable or the deadline passes. */
static bool wait_readable(int fd, long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	long left;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return false;
		if (poll(&pfd, 1, (int)left) > 0)
			return true;
	}
}

/* The case's argv and ARGV_FILLER_ARGS one-byte arguments after it. */
static const char *const *long_argv(const char *const *argv)
{
	static const char *v[CASE_MAX_ARGS + ARGV_FILLER_ARGS + 1];
	size_t n = 0;

	while (argv[n]) {
		v[n] = argv[n];
		n++;
	}
	for (size_t i = 0; i < ARGV_FILLER_ARGS; i++)
		v[n++] = "x";
	v[n] = NULL;
	return v;
}

static void child_exec(const struct case_run *run, int out_fd, int err_fd)
{
	const char *const *argv = run->argv;
	int e;

	if (dup2(out_fd, STDOUT_FILENO) < 0)
		goto report;
	if (run->argv_too_long) {
		struct rlimit lim = { ARGV_STACK_LIMIT, ARGV_STACK_LIMIT };

		if (setrlimit(RLIMIT_STACK, &lim) < 0)
			goto report;
		argv = long_argv(run->argv);
	}
	if (run->path)
		execve(run->path, (char *const *)argv, (char *const *)run->envp);
	else
		syscall(SYS_execveat, run->exec_fd, "", argv, run->envp, AT_EMPTY_PATH);
report:
	e = errno;
	if (write(err_fd, &e, sizeof(e)) != sizeof(e))
		_exit(126);
	_exit(127);
}

/* Read the child's exec result and probe record, bounded in time. */
static void collect(int out_fd, int err_fd, long deadline, struct observed *obs)
{
	int e;
	ssize_t n;

	if (!wait_readable(err_fd, deadline)) {
		obs->timed_out = true;
		return;
	}
	n = read(err_fd, &e, sizeof(e));
	if (n == sizeof(e)) {
		obs->exec_errno = e;
		return;
	}
	for (;;) {
		if (!wait_readable(out_fd, deadline)) {
			obs->timed_out = true;
			return;
		}
		n = read(out_fd, obs->buf + obs->len, PROBE_MAX_BYTES - obs->len);
		if (n <= 0)
			break;
		obs->len += (size_t)n;
		if (obs->len == PROBE_MAX_BYTES)
			break;
	}
	obs->buf[obs->len] = '\0';
	if (probe_record_parse(obs->buf, obs->len, &obs->record) < 0)
		obs->malformed = true;
}

static int execute(const struct case_run *run, struct observed *obs)
{
	int out[2], err[2];
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return -errno;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(out[0]);
		close(out[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (pid == 0)
		child_exec(run, out[1], err[1]);
	close(out[1]);
	close(err[1]);
	collect(out[0], err[0], now_ms() + CASE_TIMEOUT_MS, obs);
	if (obs->timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &obs->status, 0) < 0 && errno == EINTR)
		;
	close(out[0]);
	close(err[0]);
	if (!obs->timed_out && !obs->exec_errno && !obs->malformed &&
	    !(WIFEXITED(obs->status) && WEXITSTATUS(obs->status) == 0))
		obs->malformed = true;
	return 0;
}

/* Append @s to @out quoted, escaped, and shortened when long. */
static void quote(char *out, size_t size, const char *s)
{
	size_t len = strlen(s), o = strlen(out);
	char tmp[8];

	if (o + 1 >= size)
		return;
	out[o++] = '"';
	for (size_t i = 0; i < len && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (len > 72 && i == 32) {
			/* keep lines readable: head ... tail (length) */
			memcpy(out + o, "...", 3);
			o += 3;
			i = len - 25;
			continue;
		}
		if (c == '\t')
			snprintf(tmp, sizeof(tmp), "\\t");
		else if (c == '\r')
			snprintf(tmp, sizeof(tmp), "\\r");
		else if (c == '\n')
			snprintf(tmp, sizeof(tmp), "\\n");
		else if (c == '"' || c == '\\')
			snprintf(tmp, sizeof(tmp), "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		else
			snprintf(tmp, sizeof(tmp), "%c", c);
		memcpy(out + o, tmp, strlen(tmp));
		o += strlen(tmp);
	}
	out[o++] = '"';
	out[o] = '\0';
	if (len > 72)
		snprintf(out + o, size - o, " (%zu bytes)", len);
}

static void appendf(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void appendf(char *out, size_t size, const char *fmt, ...)
{
	size_t o = strlen(out);
	va_list ap;

	if (o >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(out + o, size - o, fmt, ap);
	va_end(ap);
}

static size_t count_strings(const char *const *v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

static const char *errno_name(int e)
{
	const char *name = strerrorname_np(e);

	return name ? name : "unknown";
}

/* The expectation in a few words, for when the other side is an errno. */
static void describe_expected(const struct case_run *run, char *out, size_t size)
{
	size_t argc = count_strings(run->expect_argv);
	size_t i = argc > 1 ? 1 : 0;

	if (run->expect_errno) {
		appendf(out, size, "expected errno %s", errno_name(run->expect_errno));
		return;
	}
	appendf(out, size, "expected argv[%zu]=", i);
	quote(out, size, run->expect_argv[i]);
}

/* First difference between two string vectors, or false when equal. */
static bool diff_vectors(const char *what, const char *const *want, size_t nwant,
			 const char *const *got, size_t ngot, char *out, size_t size)
{
	for (size_t i = 0; i < nwant || i < ngot; i++) {
		if (i < nwant && i < ngot && strcmp(want[i], got[i]) == 0)
			continue;
		if (i >= nwant) {
			appendf(out, size, "expected %zu %s entries, got %zu (extra %s[%zu]=",
				nwant, what, ngot, what, i);
			quote(out, size, got[i]);
			appendf(out, size, ")");
		} else if (i >= ngot) {
			appendf(out, size, "expected %s[%zu]=", what, i);
			quote(out, size, want[i]);
			appendf(out, size, ", got only %zu entries", ngot);
		} else {
			appendf(out, size, "expected %s[%zu]=", what, i);
			quote(out, size, want[i]);
			appendf(out, size, ", got ");
			quote(out, size, got[i]);
		}
		return true;
	}
	return false;
}

/* Compare; on mismatch write "expected ..., got ..." to @out and return false. */
static bool judge(const struct case_run *run, const struct observed *obs,
		  char *out, size_t size)
{
	const char *const *want_env = run->expect_envp_set ? run->expect_envp : run->envp;

	out[0] = '\0';
	if (obs->malformed) {
		describe_expected(run, out, size);
		appendf(out, size, ", got a probe that exited with status 0x%x and %zu bytes of bad record",
			(unsigned int)obs->status, obs->len);
		return false;
	}
	if (run->expect_errno || obs->exec_errno) {
		if (run->expect_errno == obs->exec_errno)
			return true;
		describe_expected(run, out, size);
		if (obs->exec_errno) {
			appendf(out, size, ", got errno %s", errno_name(obs->exec_errno));
		} else {
			appendf(out, size, ", got the probe running with argv[%d]=",
				obs->record.argc > 1 ? 1 : 0);
			quote(out, size, obs->record.argv[obs->record.argc > 1 ? 1 : 0]);
			appendf(out, size, " (argc %d)", obs->record.argc);
		}
		return false;
	}
	if (diff_vectors("argv", run->expect_argv, count_strings(run->expect_argv),
			 obs->record.argv, (size_t)obs->record.argc, out, size))
		return false;
	if (diff_vectors("envp", want_env, count_strings(want_env),
			 obs->record.envp, (size_t)obs->record.envc, out, size))
		return false;
	return true;
}

static void run_one(const struct shebang_case *c, int number, const char *workdir,
		    struct suite_totals *totals)
{
	static struct observed obs;
	struct case_run run;
	char dir[256], diag[1024];
	int r;

	memset(&run, 0, sizeof(run));
	memset(&obs, 0, sizeof(obs));
	run.exec_fd = -1;
	memcpy(run.envp, default_envp, sizeof(default_envp));

	printf("# case %s kind=%s\n", c->name, c->kind == CASE_QUIRK ? "quirk" : "contract");
	snprintf(dir, sizeof(dir), "%s/%d", workdir, number);
	if (mkdir(dir, 0755) < 0 || chdir(dir) < 0) {
		printf("not ok %d %s # ERROR set-up: %s: %s\n", number, c->name, dir,
		       errno_name(errno));
		totals->error++;
		return;
	}
	r = c->prepare(&run, c->data);
	if (run.version_note)
		printf("# version %s: %s\n", c->name, run.version_note);
	if (r == 0 && !run.version_unknown)
		r = execute(&run, &obs);
	if (run.exec_fd >= 0)
		close(run.exec_fd);
	if (chdir("/") < 0)
		r = -errno;
	if (r == 0 && run.version_unknown) {
		printf("not ok %d %s # ERROR set-up: kernel release \"%s\" is not MAJOR.MINOR\n",
		       number, c->name, running.name);
		totals->error++;
	} else if (r < 0) {
		printf("not ok %d %s # ERROR set-up: %s\n", number, c->name, errno_name(-r));
		totals->error++;
	} else if (obs.timed_out) {
		printf("not ok %d %s # TIMEOUT no result within %d ms\n", number, c->name,
		       CASE_TIMEOUT_MS);
		totals->fail++;
	} else if (judge(&run, &obs, diag, sizeof(diag))) {
		printf("ok %d %s\n", number, c->name);
		totals->pass++;
	} else if (c->kind == CASE_QUIRK) {
		printf("not ok %d %s # TODO quirk changed: %s\n", number, c->name, diag);
		totals->quirk_changed++;
	} else {
		printf("not ok %d %s # %s\n", number, c->name, diag);
		totals->fail++;
	}
}

/* KUnit's cases, numbered after the suite's own. */
static void kunit_report(const struct kunit_log *kunit, size_t first, struct suite_totals *totals)
{
	for (size_t i = 0; i < kunit->n; i++) {
		const struct kunit_case *c = &kunit->cases[i];
		size_t number = first + i;

		printf("# case %s kind=contract\n", c->name);
		if (c->result == KUNIT_PASS) {
			printf("ok %zu %s\n", number, c->name);
			totals->pass++;
		} else if (c->result == KUNIT_SKIP) {
			printf("ok %zu %s # SKIP %s\n", number, c->name, c->diag);
			totals->pass++;
		} else {
			printf("not ok %zu %s # %s\n", number, c->name, c->diag);
			totals->fail++;
		}
	}
}

void suite_run(const struct shebang_case *cases, size_t n, const struct kunit_log *kunit,
	       const char *workdir, struct suite_totals *ret_totals)
{
	size_t k = kunit ? kunit->n : 0;
	struct utsname u;

	memset(ret_totals, 0, sizeof(*ret_totals));
	if (uname(&u) == 0) {
		snprintf(running.name, sizeof(running.name), "%s", u.release);
		running.known = release_parse(u.release, &running.major, &running.minor) == 0;
	}
	printf("KTAP version 1\n");
	printf("1..%zu\n", n + k);
	if (kunit && kunit->suites)
		printf("# kunit: %zu suites, %zu cases ran at boot%s%s\n", kunit->suites, k,
		       kunit->truncated ? "; more were not read" : "",
		       kunit->unfinished ? "; the last suite did not finish" : "");
	for (size_t i = 0; i < n; i++)
		run_one(&cases[i], (int)i + 1, workdir, ret_totals);
	if (kunit)
		kunit_report(kunit, n + 1, ret_totals);
	printf("# Totals: pass:%d fail:%d quirk-changed:%d error:%d\n",
	       ret_totals->pass, ret_totals->fail, ret_totals->quirk_changed,
	       ret_totals->error);
	fflush(stdout);
}
