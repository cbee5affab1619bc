// SPDX-License-Identifier: GPL-2.0
/*
 * config_load(): a good file loads with its defaults; a refused one is
 * reported and leaves nothing behind. The daemon's reload (serve.c, SIGHUP)
 * keeps its running configuration when the new file is refused and never
 * releases the refused one, so anything left in it leaked on every bad
 * reload (found by tests/fuzz/config_fuzz.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "parse/config.h"

static char path[] = "/tmp/backport-gate-config-test.XXXXXX";

static void write_config(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Everything config_release() would free is gone: the caller owns nothing. */
static void assert_empty(const struct gate_config *cfg)
{
	assert_null(cfg->path);
	assert_null(cfg->listen_host);
	assert_null(cfg->database);
	assert_null(cfg->cache);
	assert_int_equal(cfg->n_queues, 0);
	assert_null(cfg->queues[0].name);
	assert_null(cfg->queues[0].url);
}

static void test_good_file_loads(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;

	(void)state;
	write_config("[server]\n\tlisten = 127.0.0.1:9090\n"
		     "[queue \"stable-6.1\"]\n\turl = /srv/stable-queue\n\tsecret = s\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_string_equal(err.buf, "");
	assert_string_equal(cfg.listen_host, "127.0.0.1");
	assert_int_equal(cfg.listen_port, 9090);
	assert_string_equal(cfg.cache, "/var/cache/backport-gate");
	assert_string_equal(cfg.database, "/var/cache/backport-gate/gate.db");
	assert_int_equal(cfg.n_queues, 1);
	assert_string_equal(config_queue(&cfg, "stable-6.1")->url, "/srv/stable-queue");
	assert_int_equal(cfg.retry_max, 6 * 3600);
	assert_int_equal(cfg.workers, config_default_workers());
	config_release(&cfg);
	strbuf_release(&err);
}

/* [server] workers: 1 to CONFIG_SERVER_WORKERS_MAX; the default one per two CPUs, at least one. */
static void test_server_workers(void **state)
{
	static const char *const bad[] = { "0", "17", "-1", "two", "", "4x" };
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;
	char text[256], want[256];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	assert_int_equal(config_default_workers(), cpus >= 4 ? cpus / 2 > 16 ? 16 : cpus / 2 : 1);
	write_config("[server]\n\tcache = /var/cache/x\n\tworkers = 16\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_int_equal(cfg.workers, 16);
	config_release(&cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[server]\n\tcache = /var/cache/x\n\tworkers = %s\n", bad[i]);
		write_config(text);
		strbuf_reset(&err);
		assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
		snprintf(want, sizeof(want), "%s:3: server.workers: '%s' is not a number of workers "
			 "(1 to 16)", path, bad[i]);
		if (strcmp(err.buf, want) != 0)
			fail_msg("workers = %s: expected \"%s\", got \"%s\"", bad[i], want, err.buf);
		assert_empty(&cfg);
	}
	strbuf_release(&err);
}

/* retry-max: seconds, or a number with s, m, h or d; anything else named with its line. */
static void test_retry_max(void **state)
{
	static const struct { const char *value; long long want; } good[] = {
		{ "90", 90 }, { "45s", 45 }, { "10m", 600 }, { "6h", 21600 }, { "2d", 172800 },
		{ "366d", 366LL * 86400 },
	};
	static const char *const bad[] = {
		"", "0", "-5", "6 h", "6hours", "h", "1.5h", "6H", "367d", "99999999999999999999", "6w",
	};
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;
	char text[256], want[256];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text), "[server]\n\tcache = /var/cache/x\n\tretry-max = %s\n",
			 good[i].value);
		write_config(text);
		if (config_load(path, &cfg, &err) != 0)
			fail_msg("retry-max = %s: expected it to load, got \"%s\"", good[i].value, err.buf);
		if (cfg.retry_max != good[i].want)
			fail_msg("retry-max = %s: expected %lld s, got %lld", good[i].value, good[i].want,
				 cfg.retry_max);
		config_release(&cfg);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[server]\n\tcache = /var/cache/x\n\tretry-max = %s\n",
			 bad[i]);
		write_config(text);
		strbuf_reset(&err);
		assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
		snprintf(want, sizeof(want), "%s:3: server.retry-max: '%s' is not a duration between 1s "
			 "and 366d (seconds, or a number with s, m, h or d)", path, bad[i]);
		if (strcmp(err.buf, want) != 0)
			fail_msg("retry-max = %s: expected \"%s\", got \"%s\"", bad[i], want, err.buf);
		assert_empty(&cfg);
	}
	strbuf_release(&err);
}

/* A queue and strings were already allocated when the bad key was read. */
static void test_bad_key_leaves_nothing(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;

	(void)state;
	write_config("[server]\n\tcache = /var/cache/x\n"
		     "[queue \"stable-6.1\"]\n\turl = /srv/stable-queue\n\tcolour = blue\n");
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.buf, ":5: queue.stable-6.1.colour: unknown key"));
	assert_empty(&cfg);
	strbuf_release(&err);
}

static void test_queue_without_url_leaves_nothing(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;

	(void)state;
	write_config("[queue \"stable-6.1\"]\n\tpoll = 60\n");
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.buf, ":2: queue.stable-6.1: has no url"));
	assert_empty(&cfg);
	strbuf_release(&err);
}

/* One repository, a queue per branch: each names its tree. */
static void test_tree_per_queue(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;

	(void)state;
	write_config("[queue \"stable-6.1\"]\n\turl = /srv/stable-queue\n"
		     "[queue \"stable-6.12\"]\n\turl = /srv/stable-queue\n"
		     "\ttree = linux-source-6.12\n\tseries = queue-6.12\n"
		     "[queue \"local\"]\n\turl = /srv/q\n\ttree = /srv/linux-source-6.6.tar.xz\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_null(config_queue(&cfg, "stable-6.1")->tree);
	assert_string_equal(config_queue(&cfg, "stable-6.12")->tree, "linux-source-6.12");
	assert_string_equal(config_queue(&cfg, "local")->tree, "/srv/linux-source-6.6.tar.xz");
	config_release(&cfg);

	write_config("[queue \"stable-6.12\"]\n\turl = /srv/stable-queue\n\ttree = linux-6.12\n");
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.buf, ":3: queue.stable-6.12.tree: 'linux-6.12' is neither a "
				    "source package (linux-source-X.Y) nor a tarball's absolute path"));
	assert_empty(&cfg);
	strbuf_release(&err);
}

static void test_report_section(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;

	(void)state;
	write_config("[report]\n\tsmtp = smtps://mail.example.org:465\n"
		     "\tfrom = backport-gate <gate@example.org>\n"
		     "\tto = a@example.org\n\tto = B <b@example.org>\n\tcc = \\\"L, T\\\" <l@x.org>\n"
		     "\tuser = gate\n\tpassword-file = /etc/backport-gate/smtp-password\n"
		     "[queue \"stable-6.1\"]\n\turl = /srv/q\n"
		     "\treview-list = stable@vger.kernel.org\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_string_equal(err.buf, "");
	assert_string_equal(cfg.report.smtp, "smtps://mail.example.org:465");
	assert_string_equal(cfg.report.from, "backport-gate <gate@example.org>");
	/* repeated keys join into one list; git-config unescapes the quotes */
	assert_string_equal(cfg.report.to, "a@example.org, B <b@example.org>");
	assert_string_equal(cfg.report.cc, "\"L, T\" <l@x.org>");
	assert_string_equal(cfg.report.user, "gate");
	assert_string_equal(cfg.report.password_file, "/etc/backport-gate/smtp-password");
	assert_false(cfg.report.starttls);
	assert_string_equal(config_queue(&cfg, "stable-6.1")->review_list, "stable@vger.kernel.org");
	config_release(&cfg);
	assert_null(cfg.report.smtp);

	/* each refusal names the line and leaves nothing behind */
	write_config("[report]\n\tsmtp = smtps://m:465\n\tstarttls = true\n");
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.buf, ":3: report.starttls: smtps:// is TLS from the start"));
	assert_empty(&cfg);
	assert_null(cfg.report.smtp);
	strbuf_reset(&err);
	write_config("[report]\n\tfrom = a@b, c@d\n");
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.buf, ":2: report.from: address \"a@b, c@d\": one address "
				    "expected, not a list"));
	assert_null(cfg.report.from);
	strbuf_reset(&err);
	write_config("[report]\n\tsmtp = smtp://m:25\n\tfrom = a@b\n\tpassword-file = pw\n");
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.buf, ":4: report.password-file: 'pw' is not an absolute path"));
	strbuf_reset(&err);
	write_config("[queue \"q\"]\n\turl = /srv/q\n\treview-list = list@x.org\n");
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.buf, ":3: queue.q.review-list: replies need [report] smtp and from"));
	assert_empty(&cfg);
	strbuf_release(&err);
}

static void test_executor_section(void **state)
{
	static const struct { const char *text, *error; } bad[] = {
		{ "[executor]\n\tkind = cloud\n", ":2: executor.kind: 'cloud' is neither local nor slurm" },
		{ "[executor]\n\tkind = slurm\n\tretries = 10\n",
		  ":3: executor.retries: '10' is not a number from 0 to 9" },
		{ "[executor]\n\tworkers = 0\n", ":2: executor.workers: '0' is not a number from 1 to 64" },
		{ "[executor]\n\tcpus = two\n", ":2: executor.cpus: 'two' is not a number from 1 to 1024" },
		{ "[executor]\n\tmemory = 2GB\n", ":2: executor.memory: '2GB' is not a size" },
		{ "[executor]\n\ttime-limit = soon\n", ":2: executor.time-limit: 'soon' is not a duration" },
		{ "[executor]\n\tnode-cache = cache\n",
		  ":2: executor.node-cache: 'cache' is not an absolute path" },
		{ "[executor]\n\tpartition = a,b\n", ":2: executor.partition: 'a,b' is not a partition" },
		{ "[executor]\n\tnodes = 4\n", ":2: executor.nodes: unknown key" },
	};
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;

	(void)state;
	/* without the section: local */
	write_config("[server]\n\tcache = /var/cache/x\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_false(cfg.executor.slurm);
	config_release(&cfg);

	write_config("[executor]\n\tkind = slurm\n\tpartition = gate\n\ttime-limit = 90s\n"
		     "\tmemory = 2G\n\tcpus = 4\n\tretries = 0\n\tworkers = 8\n"
		     "\tprogram = /usr/bin/backport-gate\n\tnode-cache = /var/cache/bg\n"
		     "\tccache = /shared/ccache\n\tspool = /shared/steps\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_string_equal(err.buf, "");
	assert_true(cfg.executor.slurm);
	assert_string_equal(cfg.executor.partition, "gate");
	assert_int_equal(cfg.executor.time_limit, 2);	/* minutes, rounded up */
	assert_string_equal(cfg.executor.memory, "2G");
	assert_int_equal(cfg.executor.cpus, 4);
	assert_true(cfg.executor.retries_set);
	assert_int_equal(cfg.executor.retries, 0);
	assert_int_equal(cfg.executor.workers, 8);
	assert_string_equal(cfg.executor.program, "/usr/bin/backport-gate");
	assert_string_equal(cfg.executor.node_cache, "/var/cache/bg");
	assert_string_equal(cfg.executor.ccache, "/shared/ccache");
	assert_string_equal(cfg.executor.spool, "/shared/steps");
	config_release(&cfg);
	assert_null(cfg.executor.partition);

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		strbuf_reset(&err);
		write_config(bad[i].text);
		assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
		if (!strstr(err.buf, bad[i].error))
			fail_msg("%s: got '%s'", bad[i].error, err.buf);
		assert_null(cfg.executor.node_cache);
	}
	strbuf_release(&err);
}

static void test_unparsable_or_missing_file_leaves_nothing(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;

	(void)state;
	write_config("[server\n\tlisten = 127.0.0.1:9090\n");
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.buf, path));
	assert_empty(&cfg);
	strbuf_reset(&err);

	assert_int_equal(config_load("/nonexistent/backport-gate.conf", &cfg, &err), -ENOENT);
	assert_string_equal(err.buf, "/nonexistent/backport-gate.conf: No such file or directory");
	assert_empty(&cfg);
	strbuf_release(&err);
}

/*
 * config-check is repeatable; none clears those before it; a queue without
 * the key gets the default; a relative path is refused.
 */
static void test_config_check_per_queue(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg;

	(void)state;
	write_config("[queue \"a\"]\n\turl = /srv/q\n\tconfig-check = amd64\n"
		     "\tconfig-check = /etc/kernel/my.config\n"
		     "[queue \"b\"]\n\turl = /srv/q\n\tconfig-check = rt-amd64\n"
		     "\tconfig-check = none\n\tconfig-check = cloud-amd64\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_int_equal(cfg.queues[0].n_config_checks, 2);
	assert_string_equal(cfg.queues[0].config_checks[0], "amd64");
	assert_string_equal(cfg.queues[0].config_checks[1], "/etc/kernel/my.config");
	assert_int_equal(cfg.queues[1].n_config_checks, 1);
	assert_string_equal(cfg.queues[1].config_checks[0], "cloud-amd64");
	assert_true(cfg.queues[0].config_check_named && cfg.queues[1].config_check_named);
	config_release(&cfg);

	/* no key: the default (amd64 when installed); "none" alone: no check */
	write_config("[queue \"a\"]\n\turl = /srv/q\n"
		     "[queue \"b\"]\n\turl = /srv/q\n\tconfig-check = none\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_false(cfg.queues[0].config_check_named);
	assert_true(cfg.queues[1].config_check_named);
	assert_int_equal(cfg.queues[1].n_config_checks, 0);
	assert_int_equal(cfg.queues[0].config_check_max, 0);
	config_release(&cfg);

	/* config-check-max: the bound per header, a whole number from 1 to the limit */
	write_config("[queue \"a\"]\n\turl = /srv/q\n\tconfig-check-max = 3\n");
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_int_equal(cfg.queues[0].config_check_max, 3);
	config_release(&cfg);
	write_config("[queue \"a\"]\n\turl = /srv/q\n\tconfig-check-max = 0\n");
	assert_int_equal(config_load(path, &cfg, &err) < 0, 1);
	assert_non_null(strstr(err.buf, ":3: queue.a.config-check-max: '0' is not a number from 1 "
				       "to 100000"));
	assert_empty(&cfg);
	strbuf_reset(&err);

	write_config("[queue \"a\"]\n\turl = /srv/q\n\tconfig-check = configs/my.config\n");
	assert_int_equal(config_load(path, &cfg, &err) < 0, 1);
	assert_non_null(strstr(err.buf, ":3: queue.a.config-check: 'configs/my.config' is a "
				       "relative path; give an absolute one"));
	assert_empty(&cfg);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_file_loads),
		cmocka_unit_test(test_retry_max),
		cmocka_unit_test(test_server_workers),
		cmocka_unit_test(test_bad_key_leaves_nothing),
		cmocka_unit_test(test_tree_per_queue),
		cmocka_unit_test(test_queue_without_url_leaves_nothing),
		cmocka_unit_test(test_report_section),
		cmocka_unit_test(test_config_check_per_queue),
		cmocka_unit_test(test_executor_section),
		cmocka_unit_test(test_unparsable_or_missing_file_leaves_nothing),
	};
	int fd = mkstemp(path), failed;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	close(fd);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return failed;
}
