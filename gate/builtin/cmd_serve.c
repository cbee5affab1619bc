// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "builtin/commands.h"
#include "daemon/serve.h"
#include "parse/config.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: backport-gate serve [--config FILE] [--check]\n");
}

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "/etc/backport-gate/gate.conf";
	struct strbuf err = STRBUF_INIT;
	struct gate_config cfg = { 0 };
	bool check = false;
	int c, status = EXIT_NO_VERDICT;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'c')
			path = optarg;
		else if (c == 'k')
			check = true;
		else {
			usage(stderr);
			return EXIT_NO_VERDICT;
		}
	}
	if (config_load(path, &cfg, &err) < 0) {
		fprintf(stderr, "backport-gate serve: %s\n", err.buf);
		goto out;
	}
	if (check) {
		printf("%s: ok, %zu queue%s, listen %s:%u, database %s, %u worker%s\n", path,
		       cfg.n_queues, cfg.n_queues == 1 ? "" : "s", cfg.listen_host, cfg.listen_port,
		       cfg.database, cfg.workers, cfg.workers == 1 ? "" : "s");
		status = 0;
		goto out;
	}
	if (serve_run(&cfg, &err) < 0) {
		fprintf(stderr, "backport-gate serve: %s\n", err.buf);
		goto out;
	}
	status = 0;
out:
	config_release(&cfg);
	strbuf_release(&err);
	return status;
}
