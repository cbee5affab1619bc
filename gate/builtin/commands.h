/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of backport-gate; each returns the process exit status. */
#ifndef GATE_COMMANDS_H
#define GATE_COMMANDS_H

/* Exit statuses: docs/CONTRACTS.md. */
#define EXIT_PASS 0
#define EXIT_DROP 1
#define EXIT_NO_VERDICT 2

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_prepare(int argc, char **argv);
int cmd_boot(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_step(int argc, char **argv);

#endif
