// SPDX-License-Identifier: GPL-2.0
/* backport-gate: a regression gate for stable kernel backports. */
#include <stdio.h>
#include <string.h>

#include "builtin/commands.h"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "run", cmd_run, "gate one queue once: apply, build, boot, judge, report" },
	{ "report", cmd_report, "print a recorded run's report" },
	{ "serve", cmd_serve, "the daemon: watch queues, CI webhook, history API and page" },
	{ "job", cmd_job, "run one queued job (the daemon's worker)" },
	{ "boot", cmd_boot, "build and boot base plus a series with the suite, print its KTAP" },
	{ "step", cmd_step, "one unit of work from a folder: apply, build, boot; write result.json" },
	{ "prepare", cmd_prepare, "extract and import the packaged kernel tree into the cache" },
	{ "history", cmd_history, "ask the record: a patch's verdicts, a case's runs, open regressions" },
	{ "export", cmd_export, "write the tree a run keeps (base plus every kept patch) into a folder" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: backport-gate COMMAND [ARGS]\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_NO_VERDICT;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "backport-gate: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_NO_VERDICT;
}
