// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/runcmd.h"

#define KILL_GRACE_MS 5000

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void child_setup(const struct child *c, int out_fd, int err_pipe)
{
	int e;

	setpgid(0, 0);
	/* A job killed with -9 must not leave make or QEMU running on. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The daemon may block signals; a child starts with a clean slate. */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (c->cwd && chdir(c->cwd) < 0)
		goto fail;
	if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(out_fd, STDERR_FILENO) < 0)
		goto fail;
	{
		int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null_fd >= 0)
			dup2(null_fd, STDIN_FILENO);
	}
	for (size_t i = 0; c->env && c->env[i]; i++)
		putenv((char *)c->env[i]);
	execvp(c->argv[0], (char *const *)c->argv);
fail:
	e = errno;
	if (write(err_pipe, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

static int open_output(const struct child *c, int *ret_fd, int *ret_read_end)
{
	int p[2];

	*ret_read_end = -1;
	if (c->capture) {
		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		*ret_fd = p[1];
		*ret_read_end = p[0];
		return 0;
	}
	*ret_fd = open(c->output_path ? c->output_path : "/dev/null",
		       O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return *ret_fd < 0 ? -errno : 0;
}

enum drain_end { DRAIN_EOF, DRAIN_DEADLINE, DRAIN_FULL };

/* Drain the capture pipe until EOF or the deadline; keeps what fits. */
static enum drain_end drain(const struct child *c, int fd, long deadline)
{
	char chunk[8192];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return DRAIN_DEADLINE;
		if (poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) <= 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return DRAIN_EOF;
		/* Past the cap the rest is dropped: the child must not block. */
		if (strbuf_add(c->capture, chunk, (size_t)n) < 0 && c->stop_when_full)
			return DRAIN_FULL;
	}
}

/* Wait for @pid until @deadline; true when it was reaped. */
static bool wait_until(pid_t pid, int *status, long deadline)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return true;
		if (r < 0 && errno != EINTR)
			return true;
		if (now_ms() >= deadline)
			return false;
		usleep(20000);
	}
}

int child_run(const struct child *c, struct child_result *ret)
{
	int out_fd = -1, read_end = -1, err_pipe[2], status = 0, e = 0, r;
	long deadline;
	pid_t pid;
	ssize_t n;

	memset(ret, 0, sizeof(*ret));
	if (c->timeout_sec <= 0)
		return -EINVAL;
	r = open_output(c, &out_fd, &read_end);
	if (r < 0)
		return r;
	if (pipe2(err_pipe, O_CLOEXEC) < 0) {
		r = -errno;
		close(out_fd);
		if (read_end >= 0)
			close(read_end);
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(out_fd);
		if (read_end >= 0)
			close(read_end);
		close(err_pipe[0]);
		close(err_pipe[1]);
		return r;
	}
	if (pid == 0)
		child_setup(c, out_fd, err_pipe[1]);
	/* Also here, so a kill of the group cannot race the child's setpgid. */
	setpgid(pid, pid);
	close(out_fd);
	close(err_pipe[1]);
	deadline = now_ms() + c->timeout_sec * 1000L;

	do {
		n = read(err_pipe[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(err_pipe[0]);
	if (n == sizeof(e))
		ret->exec_errno = e;

	if (read_end >= 0) {
		switch (drain(c, read_end, deadline)) {
		case DRAIN_EOF: break;
		case DRAIN_DEADLINE: ret->timed_out = true; break;
		case DRAIN_FULL: ret->capture_full = true; break;
		}
		close(read_end);
	}
	if (!ret->timed_out && !ret->capture_full && !wait_until(pid, &status, deadline))
		ret->timed_out = true;
	if (ret->timed_out || ret->capture_full) {
		kill(-pid, SIGTERM);
		if (!wait_until(pid, &status, now_ms() + KILL_GRACE_MS)) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
		}
	}
	/* Whatever else is left in the group goes too. */
	kill(-pid, SIGKILL);
	if (WIFSIGNALED(status))
		ret->signal = WTERMSIG(status);
	else if (WIFEXITED(status))
		ret->exit_code = WEXITSTATUS(status);
	return 0;
}

bool child_ok(const struct child_result *r)
{
	return !r->exec_errno && !r->timed_out && !r->capture_full && !r->signal && r->exit_code == 0;
}

void child_describe(const struct child *c, const struct child_result *r, struct strbuf *out)
{
	strbuf_addf(out, "%s ", c->argv[0]);
	if (r->exec_errno)
		strbuf_addf(out, "could not be started: %s", strerror(r->exec_errno));
	else if (r->timed_out)
		strbuf_addf(out, "timed out after %d s", c->timeout_sec);
	else if (r->capture_full)
		strbuf_addf(out, "was stopped: its output passed %zu bytes", c->capture->cap);
	else if (r->signal)
		strbuf_addf(out, "was killed by signal %d", r->signal);
	else
		strbuf_addf(out, "exited with status %d", r->exit_code);
}
