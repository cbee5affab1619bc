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
/* How often a wait looks at a child that writes nothing it reads. */
#define WAIT_STEP_MS 20

extern char **environ;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The guardian's parent (the gate) died: nothing of the program's group may run on. */
static void guardian_parent_died(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
	_exit(128 + SIGKILL);
}

/*
 * PR_SET_PDEATHSIG reaches one process, not the program's own children
 * (make's sub-makes and compilers run on for minutes once the top make is
 * killed, writing into a build directory the next run has taken over).
 * So the forked child stays as a guardian of its process group: it forks
 * the program, which returns here to exec, and waits for it; when the
 * gate dies first, it kills the whole group. Its exit is the program's:
 * the same code, or the same signal raised again.
 */
static void guard_group(pid_t parent, int err_pipe)
{
	struct sigaction sa = { .sa_handler = guardian_parent_died };
	pid_t pid;
	int status, sig;

	sigaction(SIGUSR1, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	if (getppid() != parent)
		_exit(127);	/* the parent died before the line above */
	pid = fork();
	if (pid < 0) {
		int e = errno;

		if (write(err_pipe, &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	if (pid == 0) {
		signal(SIGUSR1, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		return;		/* the program: on to exec */
	}
	close(err_pipe);	/* EOF once the program's exec closes its copy */
	/* the group's SIGTERM (a deadline) is for the program; its end is ours */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	prctl(PR_SET_PDEATHSIG, 0);
	signal(sig, SIG_DFL);
	kill(getpid(), sig);
	_exit(128 + sig);
}

/*
 * The child's side, between fork and exec: async-signal-safe calls only,
 * since the daemon forks with the HTTP threads running (a lock another
 * thread held at the fork would never be released here).
 */
static void child_setup(const struct child *c, char *const *envp, pid_t parent, int out_fd,
			int err_pipe)
{
	sigset_t none;
	int e;

	setpgid(0, 0);
	/* A job killed with -9 must not leave make or QEMU running on. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);	/* the parent died before the line above */
	/* The daemon may block or catch signals; a child starts with a clean slate. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGCHLD, SIG_DFL);
	if (!c->fn)
		guard_group(parent, err_pipe);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (c->cwd && chdir(c->cwd) < 0)
		goto fail;
	if (out_fd >= 0 &&
	    (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(out_fd, STDERR_FILENO) < 0))
		goto fail;
	{
		int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null_fd >= 0)
			dup2(null_fd, STDIN_FILENO);
	}
	if (c->fn) {
		close(err_pipe);	/* EOF: "started" */
		_exit(c->fn(c->fn_arg));
	}
	execvpe(c->argv[0], (char *const *)c->argv, envp);
fail:
	e = errno;
	if (write(err_pipe, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

/* The environment with @extra set ("NAME=value" replaces NAME), built
 * before the fork so the child allocates nothing. */
static char **make_env(const char *const *extra)
{
	size_t n_env = 0, n_extra = 0, n = 0;
	char **envp;

	while (environ[n_env])
		n_env++;
	while (extra[n_extra])
		n_extra++;
	envp = calloc(n_env + n_extra + 1, sizeof(*envp));
	if (!envp)
		abort();
	for (size_t i = 0; i < n_env; i++) {
		bool replaced = false;

		for (size_t j = 0; j < n_extra && !replaced; j++) {
			const char *eq = strchr(extra[j], '=');
			size_t len = eq ? (size_t)(eq - extra[j]) : strlen(extra[j]);

			replaced = !strncmp(environ[i], extra[j], len) && environ[i][len] == '=';
		}
		if (!replaced)
			envp[n++] = environ[i];
	}
	for (size_t j = 0; j < n_extra; j++)
		envp[n++] = (char *)extra[j];
	return envp;
}

static int open_output(const struct child *c, int *ret_fd, int *ret_read_end)
{
	int p[2];

	*ret_fd = -1;
	*ret_read_end = -1;
	if (c->keep_output)
		return 0;
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

int child_start(struct child *c)
{
	int out_fd = -1, read_end = -1, err_pipe[2], e = 0, r;
	char **envp = NULL;
	pid_t parent = getpid();
	ssize_t n;

	memset(&c->result, 0, sizeof(c->result));
	c->pid = 0;
	c->capture_fd = -1;
	c->deadline_ms = 0;
	if (c->timeout_sec < 0 || !c->argv || !c->argv[0])
		return -EINVAL;
	r = open_output(c, &out_fd, &read_end);
	if (r < 0)
		return r;
	if (pipe2(err_pipe, O_CLOEXEC) < 0) {
		r = -errno;
		goto out_close_output;
	}
	if (c->env && !c->fn)
		envp = make_env(c->env);
	c->pid = fork();
	if (c->pid < 0) {
		r = -errno;
		c->pid = 0;
		close(err_pipe[0]);
		close(err_pipe[1]);
		goto out_close_output;
	}
	if (c->pid == 0)
		child_setup(c, envp ? envp : environ, parent, out_fd, err_pipe[1]);
	free(envp);
	/* Also here, so a kill of the group cannot race the child's setpgid. */
	setpgid(c->pid, c->pid);
	if (out_fd >= 0)
		close(out_fd);
	close(err_pipe[1]);
	if (c->timeout_sec > 0)
		c->deadline_ms = now_ms() + c->timeout_sec * 1000L;
	c->capture_fd = read_end;

	/* EOF once exec succeeded (the pipe is CLOEXEC), an errno if it failed. */
	do {
		n = read(err_pipe[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(err_pipe[0]);
	if (n == sizeof(e)) {
		struct child_result ignored;

		c->deadline_ms = 0;
		child_finish(c, &ignored);	/* it _exits at once: reap it */
		c->result.exec_errno = e;
		return -e;
	}
	return 0;

out_close_output:
	if (out_fd >= 0)
		close(out_fd);
	if (read_end >= 0)
		close(read_end);
	return r;
}

/* Read what the capture pipe holds, waiting at most @wait_ms for it.
 * Returns false once stop_when_full found the capture full. */
static bool drain(struct child *c, int wait_ms)
{
	struct pollfd pfd = { .fd = c->capture_fd, .events = POLLIN };
	char chunk[8192];
	ssize_t n;

	if (poll(&pfd, 1, wait_ms) <= 0)
		return true;
	n = read(c->capture_fd, chunk, sizeof(chunk));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		close(c->capture_fd);
		c->capture_fd = -1;
		return true;
	}
	/* Past the cap the rest is dropped: the child must not block. */
	return !(strbuf_add(c->capture, chunk, (size_t)n) < 0 && c->stop_when_full);
}

/* Reap @c if it ended; true when it did (or is not ours to wait for). */
static bool reap(struct child *c, int flags)
{
	int status = 0;
	pid_t r;

	do {
		r = waitpid(c->pid, &status, flags);
	} while (r < 0 && errno == EINTR);
	if (r == 0)
		return false;
	if (r == c->pid) {
		if (WIFSIGNALED(status))
			c->result.signal = WTERMSIG(status);
		else if (WIFEXITED(status))
			c->result.exit_code = WEXITSTATUS(status);
	}
	return true;
}

/* The child has been reaped: end its group and read the capture to EOF. */
static void ended(struct child *c)
{
	long until = now_ms() + 1000;

	/* Whatever else is left in the group goes too. */
	kill(-c->pid, SIGKILL);
	c->pid = 0;
	while (c->capture_fd >= 0) {
		long left = until - now_ms();

		if (left <= 0)
			break;	/* a writer that left the group: stop listening */
		if (!drain(c, (int)left) && !c->result.timed_out && !c->result.killed)
			c->result.capture_full = true;
	}
	if (c->capture_fd >= 0) {
		close(c->capture_fd);
		c->capture_fd = -1;
	}
}

/* SIGTERM to the group, SIGKILL after the grace period; reaped after. */
static void stop(struct child *c)
{
	long until = now_ms() + KILL_GRACE_MS;

	/* What it writes from now on is not kept: a write fails with EPIPE. */
	if (c->capture_fd >= 0) {
		close(c->capture_fd);
		c->capture_fd = -1;
	}
	kill(-c->pid, SIGTERM);
	while (!reap(c, WNOHANG)) {
		if (now_ms() >= until) {
			kill(-c->pid, SIGKILL);
			reap(c, 0);
			break;
		}
		usleep(WAIT_STEP_MS * 1000);
	}
	ended(c);
}

int child_wait(struct child *c, int wait_ms, struct child_result *ret)
{
	long until = wait_ms >= 0 ? now_ms() + wait_ms : -1;

	while (c->pid) {
		long now = now_ms(), step = WAIT_STEP_MS;

		if (reap(c, WNOHANG)) {
			ended(c);
			break;
		}
		if (c->deadline_ms && now >= c->deadline_ms) {
			c->result.timed_out = true;
			stop(c);
			break;
		}
		if (until >= 0 && now >= until) {
			*ret = c->result;
			return 0;
		}
		if (until >= 0 && until - now < step)
			step = until - now;
		if (c->deadline_ms && c->deadline_ms - now < step)
			step = c->deadline_ms - now;
		if (c->capture_fd < 0) {
			usleep((useconds_t)step * 1000);
		} else if (!drain(c, (int)step)) {
			c->result.capture_full = true;
			stop(c);
			break;
		}
	}
	*ret = c->result;
	return 1;
}

void child_finish(struct child *c, struct child_result *ret)
{
	child_wait(c, -1, ret);
}

void child_kill(struct child *c, struct child_result *ret)
{
	if (c->pid) {
		c->result.killed = true;
		stop(c);
	}
	*ret = c->result;
}

/*
 * The start of child_run() and child_run_ticking(): 1 when @c runs; else
 * what they return, with *@ret set (0 for a program that could not be
 * executed, whose exec_errno says why).
 */
static int child_run_begin(struct child *c, struct child_result *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	if (c->timeout_sec <= 0)
		return -EINVAL;
	r = child_start(c);
	if (r < 0) {
		*ret = c->result;
		return c->result.exec_errno ? 0 : r;
	}
	return 1;
}

int child_run(struct child *c, struct child_result *ret)
{
	int r = child_run_begin(c, ret);

	if (r <= 0)
		return r;
	child_finish(c, ret);
	return 0;
}

int child_run_ticking(struct child *c, int tick_ms, void (*tick)(void *tick_arg), void *tick_arg,
		      struct child_result *ret)
{
	int r = child_run_begin(c, ret);

	if (r <= 0)
		return r;
	while (child_wait(c, tick_ms, ret) == 0)
		tick(tick_arg);
	tick(tick_arg);
	return 0;
}

bool child_ok(const struct child_result *r)
{
	return !r->exec_errno && !r->timed_out && !r->capture_full && !r->killed && !r->signal &&
	       r->exit_code == 0;
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
	else if (r->killed)
		strbuf_addf(out, "was stopped");
	else if (r->signal)
		strbuf_addf(out, "was killed by signal %d", r->signal);
	else
		strbuf_addf(out, "exited with status %d", r->exit_code);
}
