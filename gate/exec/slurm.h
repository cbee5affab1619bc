/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slurm: runs a step folder (step.h) as a Slurm batch job and says how it
 * ended, through Slurm's own commands (sbatch to submit, scontrol to
 * track, scancel to stop), each run with a timeout. Nothing here knows
 * what a step computes: the oracle (oracle.h) writes the folder before
 * and reads result.json after.
 *
 * A job runs "PROGRAM step [--cache NODE_CACHE] DIR" on a node, with its
 * output in DIR/slurm-JOBID.out, --no-requeue (Slurm would otherwise run
 * a job lost with its node again under the same id, racing the retry
 * made here), and the partition, time limit, memory and CPU count of
 * the options. A job that ends COMPLETED with a result.json is done. A
 * job that Slurm ends otherwise (FAILED, CANCELLED, TIMEOUT, NODE_FAIL,
 * OUT_OF_MEMORY, ...), or that completed without a result, or that
 * Slurm forgot before it was seen to end, is an attempt that failed: it
 * is submitted again, up to @retries more times, away from nodes where
 * the step itself failed (a lost node is left out by Slurm while it is
 * down). Its result.json, if any, is never read. Every attempt is kept
 * in the outcome, with its job id, how it ended and on which node.
 *
 * A SIGINT, SIGTERM or SIGHUP while jobs run cancels them (scancel), and
 * the steps end with -EINTR: the gate stops without a verdict and leaves
 * nothing running on the cluster.
 *
 *   slurm_options_from_config()  the options of a config's [executor]
 *   slurm_run_step()             submit, wait, retry; 0 once a result.json is there
 *   slurm_run_steps()            the same for several step folders at once
 */
#ifndef GATE_SLURM_H
#define GATE_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "basic/strbuf.h"
#include "parse/config.h"

/* Defaults of the options left 0 / NULL. */
#define SLURM_TIME_LIMIT_DEFAULT 60	/* minutes */
#define SLURM_CPUS_DEFAULT 2
#define SLURM_RETRIES_DEFAULT 2
#define SLURM_ATTEMPTS_MAX 10		/* retries + 1, at most */
#define SLURM_WORKERS_MAX 64

struct slurm_options {
	const char *partition;	/* --partition; NULL: the cluster's default */
	unsigned time_limit;	/* --time, minutes; 0: SLURM_TIME_LIMIT_DEFAULT */
	const char *memory;	/* --mem ("4G"); NULL: not asked for */
	unsigned cpus;		/* --cpus-per-task; 0: SLURM_CPUS_DEFAULT */
	unsigned retries;	/* attempts after the first; the default when !retries_set */
	bool retries_set;
	const char *program;	/* the gate on the nodes; NULL: this process's binary */
	const char *node_cache;	/* the step's --cache on nodes; NULL: the node's default */
	const char *ccache;	/* CCACHE_DIR for the nodes' builds; NULL: the node cache's own */
	const char *spool;	/* a folder the nodes see, for step folders; NULL: in the cache */
	unsigned workers;	/* steps that may run at once; 0 or 1: one at a time */
};

struct slurm_attempt {
	char job[24];		/* Slurm's job id */
	char state[24];		/* COMPLETED, NODE_FAIL, ..., LOST (forgotten), NO_RESULT */
	char node[64];		/* where it ran; "" when it never started */
	char why[256];		/* for a failed attempt: the step's last line or Slurm's reason */
	double queued;		/* seconds from submit to start, as Slurm says */
};

struct slurm_outcome {
	struct slurm_attempt attempts[SLURM_ATTEMPTS_MAX];
	size_t n;
	double seconds;		/* from the first submit to the result */
};

/* The options of @c, which stays owned by the config and must outlive @ret. */
void slurm_options_from_config(const struct executor_config *c, struct slurm_options *ret);

/*
 * Run the step in @dir (a folder every node sees) as a job, retried as
 * above. 0 when the last attempt left @dir/result.json; -EIO when every
 * attempt failed, -EINTR when a signal stopped it (its job cancelled),
 * -ENOENT when Slurm's commands are missing, other -errno when a command
 * failed: @err says which and why, and @out lists the attempts either way.
 */
int slurm_run_step(const struct slurm_options *opts, const char *dir,
		   struct slurm_outcome *out, struct strbuf *err);

/*
 * slurm_run_step() for @k step folders at once: they are all submitted,
 * then followed together, each retried on its own. @results[i] and
 * @errs[i] are step i's return and message, as slurm_run_step() gives.
 */
void slurm_run_steps(const struct slurm_options *opts, const char *const *dirs, size_t k,
		     struct slurm_outcome *outs, int *results, struct strbuf *errs);

/* The options' effective values, for messages and reports. */
unsigned slurm_retries(const struct slurm_options *opts);

#endif
