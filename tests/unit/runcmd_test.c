// SPDX-License-Identifier: GPL-2.0
/*
 * runcmd on real children (sh, sleep, head): how a child ended, its
 * deadline and its process group, exec failure, several children at once,
 * the capture and its cap. Every test ends with no child left, not even a
 * zombie.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "basic/runcmd.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* No child of ours is left, running or zombie. */
static void assert_no_children(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* @pid is gone (its parent, not us, may take a moment to reap it). */
static void assert_gone(pid_t pid)
{
	long until = now_ms() + 3000;

	while (kill(pid, 0) == 0 && now_ms() < until)
		usleep(20000);
	if (kill(pid, 0) == 0)
		fail_msg("expected pid %d gone, it still runs", (int)pid);
}

static void assert_described(const struct child *c, const struct child_result *r,
			     const char *expected)
{
	struct strbuf line = STRBUF_INIT;

	child_describe(c, r, &line);
	if (strcmp(line.buf, expected))
		fail_msg("expected \"%s\", got \"%s\"", expected, line.buf);
	strbuf_release(&line);
}

static void test_exit_code(void **state)
{
	const char *argv[] = { "sh", "-c", "exit 3", NULL };
	struct child c = { .argv = argv, .timeout_sec = 10 };
	struct child_result r;

	(void)state;
	assert_int_equal(child_run(&c, &r), 0);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(r.signal, 0);
	assert_false(r.timed_out);
	assert_false(child_ok(&r));
	assert_described(&c, &r, "sh exited with status 3");
	assert_no_children();
}

static void test_killed_by_signal(void **state)
{
	const char *argv[] = { "sh", "-c", "kill -9 $$", NULL };
	struct child c = { .argv = argv, .timeout_sec = 10 };
	struct child_result r;

	(void)state;
	assert_int_equal(child_run(&c, &r), 0);
	assert_int_equal(r.signal, SIGKILL);
	assert_false(r.timed_out);
	assert_false(child_ok(&r));
	assert_described(&c, &r, "sh was killed by signal 9");
	assert_no_children();
}

/* The deadline ends the child and its grandchild: SIGTERM to the group. */
static void test_timeout_kills_the_group(void **state)
{
	const char *argv[] = { "sh", "-c", "sleep 100 & echo $!; wait", NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .capture = &out, .timeout_sec = 1 };
	struct child_result r;
	long start = now_ms(), took;

	(void)state;
	assert_int_equal(child_run(&c, &r), 0);
	took = now_ms() - start;
	assert_true(r.timed_out);
	assert_false(child_ok(&r));
	if (took < 1000 || took > 4000)
		fail_msg("expected the stop within 1 to 4 s (SIGTERM), took %ld ms", took);
	assert_true(atoi(out.buf) > 0);
	assert_gone((pid_t)atoi(out.buf));
	assert_described(&c, &r, "sh timed out after 1 s");
	strbuf_release(&out);
	assert_no_children();
}

/*
 * The gate killed -9: its child's own children (make's sub-makes) go too,
 * not only the child PR_SET_PDEATHSIG reaches. A forked "gate" starts
 * sh, which starts a sleep in the background and waits; the "gate" is
 * killed; the sleep is gone.
 */
static void test_parent_killed_kills_the_group(void **state)
{
	int p[2];
	pid_t gate, grandchild = 0;
	char buf[32] = "";
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(p), 0);
	gate = fork();
	assert_true(gate >= 0);
	if (gate == 0) {
		char cmd[64];
		const char *argv[] = { "sh", "-c", cmd, NULL };
		struct child c = { .argv = argv, .keep_output = true };

		close(p[0]);
		snprintf(cmd, sizeof(cmd), "sleep 100 & echo $! >&%d; wait", p[1]);
		if (child_start(&c) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	if (n > 0)
		grandchild = (pid_t)atoi(buf);
	kill(gate, SIGKILL);
	waitpid(gate, NULL, 0);
	if (grandchild <= 0)
		fail_msg("expected the sleep's pid from the child, got '%s'", buf);
	assert_gone(grandchild);
}

/* A child that ignores SIGTERM gets SIGKILL 5 s later. */
struct ticks {
	int n;
};

static void count_tick(void *arg)
{
	((struct ticks *)arg)->n++;
}

/* child_run_ticking(): ticks while the child runs and once after, the same results and deadline. */
static void test_ticking(void **state)
{
	const char *ok_argv[] = { "sh", "-c", "sleep 0.5; exit 3", NULL };
	const char *slow_argv[] = { "sleep", "100", NULL };
	struct child ok = { .argv = ok_argv, .timeout_sec = 30 };
	struct child slow = { .argv = slow_argv, .timeout_sec = 1 };
	struct ticks t = { 0 };
	struct child_result r;

	(void)state;
	assert_int_equal(child_run_ticking(&ok, 50, count_tick, &t, &r), 0);
	assert_int_equal(r.exit_code, 3);
	assert_false(r.timed_out);
	/* half a second in 50 ms ticks: several, the last after it ended */
	if (t.n < 2)
		fail_msg("expected ticks while the child ran and after, got %d", t.n);
	t.n = 0;
	assert_int_equal(child_run_ticking(&slow, 100, count_tick, &t, &r), 0);
	assert_true(r.timed_out);
	assert_described(&slow, &r, "sleep timed out after 1 s");
	assert_true(t.n >= 2);
	assert_no_children();
}

static void test_sigkill_after_the_grace(void **state)
{
	const char *argv[] = { "sh", "-c", "trap '' TERM; while :; do sleep 0.1; done", NULL };
	struct child c = { .argv = argv, .timeout_sec = 1 };
	struct child_result r;
	long start = now_ms(), took;

	(void)state;
	assert_int_equal(child_run(&c, &r), 0);
	took = now_ms() - start;
	assert_true(r.timed_out);
	assert_int_equal(r.signal, SIGKILL);
	if (took < 5900 || took > 8000)
		fail_msg("expected SIGKILL about 6 s after the start, took %ld ms", took);
	assert_no_children();
}

static void test_exec_failure(void **state)
{
	const char *argv[] = { "/nonexistent/backport-gate-test", NULL };
	struct child c = { .argv = argv, .timeout_sec = 10 };
	struct child_result r;

	(void)state;
	assert_int_equal(child_start(&c), -ENOENT);
	assert_int_equal(c.result.exec_errno, ENOENT);
	assert_int_equal(c.pid, 0);
	assert_no_children();

	assert_int_equal(child_run(&c, &r), 0);
	assert_int_equal(r.exec_errno, ENOENT);
	assert_false(child_ok(&r));
	assert_described(&c, &r,
			 "/nonexistent/backport-gate-test could not be started: No such file or directory");
	assert_no_children();

	/* a cwd that does not exist is reported the same way */
	argv[0] = "true";
	c.cwd = "/nonexistent";
	assert_int_equal(child_start(&c), -ENOENT);
	assert_int_equal(c.result.exec_errno, ENOENT);
	assert_no_children();
}

/* Two children at once, finished in either order. */
static void run_two(bool slow_first)
{
	const char *slow_argv[] = { "sh", "-c", "sleep 0.3; exit 4", NULL };
	const char *fast_argv[] = { "sh", "-c", "exit 5", NULL };
	struct child slow = { .argv = slow_argv, .timeout_sec = 10 };
	struct child fast = { .argv = fast_argv, .timeout_sec = 10 };
	struct child_result rs, rf;

	assert_int_equal(child_start(&slow), 0);
	assert_int_equal(child_start(&fast), 0);
	assert_true(slow.pid > 0 && fast.pid > 0 && slow.pid != fast.pid);
	/* a look that does not wait: the slow one still runs */
	assert_int_equal(child_wait(&slow, 0, &rs), 0);
	if (slow_first) {
		child_finish(&slow, &rs);
		child_finish(&fast, &rf);
	} else {
		assert_int_equal(child_wait(&fast, 5000, &rf), 1);
		assert_int_equal(child_wait(&slow, 0, &rs), 0);
		child_finish(&slow, &rs);
	}
	assert_int_equal(rs.exit_code, 4);
	assert_int_equal(rf.exit_code, 5);
	/* an ended child stays ended */
	assert_int_equal(child_wait(&slow, 0, &rs), 1);
	assert_int_equal(rs.exit_code, 4);
	assert_no_children();
}

static void test_two_at_once_slow_first(void **state)
{
	(void)state;
	run_two(true);
}

static void test_two_at_once_fast_first(void **state)
{
	(void)state;
	run_two(false);
}

/* The capture keeps what fits its cap; the rest is read and dropped. */
static void test_capture_cap(void **state)
{
	const char *argv[] = { "sh", "-c", "echo hello; sleep 0.2; head -c 100000 /dev/zero", NULL };
	struct strbuf out;
	struct child c = { .argv = argv, .capture = &out, .timeout_sec = 10 };
	struct child_result r;

	(void)state;
	strbuf_init(&out, 100);
	assert_int_equal(child_run(&c, &r), 0);
	assert_true(child_ok(&r));
	assert_string_equal(out.buf, "hello\n");
	strbuf_release(&out);
	assert_no_children();

	/* with stop_when_full, a full capture stops the child */
	strbuf_init(&out, 100);
	c.stop_when_full = true;
	assert_int_equal(child_run(&c, &r), 0);
	assert_true(r.capture_full);
	assert_false(r.timed_out);
	assert_false(child_ok(&r));
	assert_string_equal(out.buf, "hello\n");
	assert_described(&c, &r, "sh was stopped: its output passed 100 bytes");
	strbuf_release(&out);
	assert_no_children();
}

/* Extra environment replaces a variable of ours; cwd is honoured. */
static void test_env_and_cwd(void **state)
{
	const char *argv[] = { "sh", "-c", "echo \"$BG_RUNCMD_TEST $PWD\"; env | grep -c ^BG_RUNCMD_TEST=",
			       NULL };
	const char *env[] = { "BG_RUNCMD_TEST=new", NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .env = env, .cwd = "/", .capture = &out, .timeout_sec = 10 };
	struct child_result r;

	(void)state;
	setenv("BG_RUNCMD_TEST", "old", 1);
	assert_int_equal(child_run(&c, &r), 0);
	assert_true(child_ok(&r));
	assert_string_equal(out.buf, "new /\n1\n");
	unsetenv("BG_RUNCMD_TEST");
	strbuf_release(&out);
	assert_no_children();
}

static int write_and_return(void *arg)
{
	const char *text = arg;

	if (write(STDOUT_FILENO, text, strlen(text)) < 0)
		return 1;
	return 7;
}

/* A function child: its output captured, its return the exit code. */
static void test_function_child(void **state)
{
	const char *argv[] = { "fetch", NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .fn = write_and_return, .fn_arg = "from the child",
			   .capture = &out, .timeout_sec = 10 };
	struct child_result r;

	(void)state;
	assert_int_equal(child_run(&c, &r), 0);
	assert_int_equal(r.exit_code, 7);
	assert_string_equal(out.buf, "from the child");
	strbuf_release(&out);
	assert_no_children();
}

/* child_kill stops a child without a deadline at once. */
static void test_kill(void **state)
{
	const char *argv[] = { "sleep", "100", NULL };
	struct child c = { .argv = argv };
	struct child_result r;
	long start = now_ms();

	(void)state;
	assert_int_equal(child_start(&c), 0);
	assert_int_equal(child_wait(&c, 100, &r), 0);
	child_kill(&c, &r);
	assert_true(r.killed);
	assert_int_equal(r.signal, SIGTERM);
	assert_true(now_ms() - start < 3000);
	assert_false(child_ok(&r));
	assert_described(&c, &r, "sleep was stopped");
	assert_no_children();

	/* child_run needs a deadline */
	assert_int_equal(child_run(&c, &r), -EINVAL);
	assert_no_children();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_killed_by_signal),
		cmocka_unit_test(test_timeout_kills_the_group),
		cmocka_unit_test(test_parent_killed_kills_the_group),
		cmocka_unit_test(test_ticking),
		cmocka_unit_test(test_sigkill_after_the_grace),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_two_at_once_slow_first),
		cmocka_unit_test(test_two_at_once_fast_first),
		cmocka_unit_test(test_capture_cap),
		cmocka_unit_test(test_env_and_cwd),
		cmocka_unit_test(test_function_child),
		cmocka_unit_test(test_kill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
