// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin/commands.h"
#include "daemon/job.h"
#include "parse/config.h"

/* backport-gate job --config FILE --job ID: the worker's side of a job. */
int cmd_job(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "job", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	long long job = 0;
	struct gate_config cfg;
	struct strbuf err = STRBUF_INIT;
	int c, r;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'c')
			path = optarg;
		else if (c == 'j')
			job = atoll(optarg);
		else
			break;
	}
	if (!path || job <= 0) {
		fprintf(stderr, "usage: backport-gate job --config FILE --job ID (started by serve)\n");
		return EXIT_NO_VERDICT;
	}
	r = config_load(path, &cfg, &err);
	if (r == 0)
		r = job_execute(&cfg, job, &err);
	if (r < 0)
		fprintf(stderr, "job %lld: %s\n", job, err.buf);
	config_release(&cfg);
	strbuf_release(&err);
	return r < 0 ? EXIT_NO_VERDICT : 0;
}
