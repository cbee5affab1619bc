// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/clock.h"
#include "basic/xalloc.h"
#include "parse/ktap.h"
#include "record/run.h"
#include "verdict/gate.h"
#include "verdict/judge.h"
#include "verdict/oracle.h"

static const char *apply_status_name(enum apply_status s)
{
	switch (s) {
	case APPLY_CLEAN: return "applied";
	case APPLY_OFFSET: return "offset";
	case APPLY_ALREADY: return "already";
	case APPLY_FAILED: return "failed";
	}
	return "failed";
}

static json_t *names_json(const struct strlist *list)
{
	json_t *a = json_array();

	for (size_t i = 0; i < list->n; i++)
		json_array_append_new(a, json_string(list->items[i]));
	return a;
}

/*
 * The suite's cases in @e, as {"name", "kind", "status"} (ktap.h's
 * names); *ret_outcome says whether it booted ("booted") or what stopped
 * it ("apply", "build", "boot").
 */
static json_t *cases_json(const struct judge_eval *e, const char **ret_outcome)
{
	json_t *a = json_array();

	*ret_outcome = e->apply_failed ? "apply" : e->build_failed ? "build"
		       : e->boot_failed ? "boot" : "booted";
	if (e->apply_failed || e->build_failed || e->boot_failed)
		return a;
	for (size_t i = 0; i < e->ktap.n_cases; i++) {
		const struct case_result *c = &e->ktap.cases[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "name", c->name,
						   "kind", c->quirk ? "quirk" : "contract",
						   "status", case_status_name(c->status)));
	}
	return a;
}

/*
 * The compiler the kernels were built with, as the build wrote it into
 * include/generated/compile.h (LINUX_COMPILER); NULL when unknown.
 */
static char *kernel_compiler(const struct kernel_env *env)
{
	static const char key[] = "#define LINUX_COMPILER";
	struct strbuf text = STRBUF_INIT;
	char *path = xasprintf("%s/include/generated/compile.h", env->build), *out = NULL;
	char *at, *open, *close;

	if (strbuf_read_file(&text, path) >= 0 && (at = strstr(text.buf, key)) &&
	    (open = strchr(at, '"')) && (close = strchr(open + 1, '"')) &&
	    !memchr(open, '\n', (size_t)(close - open)))
		out = xasprintf("%.*s", (int)(close - open - 1), open + 1);
	free(path);
	strbuf_release(&text);
	return out;
}

/*
 * The queue as posted: every usable patch. The judge asked it first, so
 * this is a memo hit; its cases go into the report.
 */
static int queue_as_posted(struct oracle *o, const struct judge_patch *jp,
			   const struct judge_eval **ret, struct strbuf *err)
{
	size_t *usable = xcalloc(o->snap->n ? o->snap->n : 1, sizeof(*usable)), n = 0;
	int r;

	for (size_t i = 0; i < o->snap->n; i++)
		if (!jp[i].unusable)
			usable[n++] = i;
	r = oracle_evaluate(o, usable, n, ret, err);
	free(usable);
	return r;
}

/* The base release, e.g. 6.1.192, from the tree's Makefile. */
static char *base_release(const struct kernel_env *env)
{
	struct strbuf mk = STRBUF_INIT;
	char *path, *out;
	const char *keys[] = { "VERSION = ", "PATCHLEVEL = ", "SUBLEVEL = " };
	char parts[3][16] = { "", "", "" };

	path = xasprintf("%s/Makefile", env->src);
	strbuf_read_file(&mk, path);
	for (int k = 0; k < 3; k++) {
		char *at = strstr(mk.buf, keys[k]);

		if (at && (at == mk.buf || at[-1] == '\n'))
			sscanf(at + strlen(keys[k]), "%15[0-9]", parts[k]);
	}
	if (parts[0][0] && parts[1][0])
		out = parts[2][0] ? xasprintf("%s.%s.%s", parts[0], parts[1], parts[2])
				  : xasprintf("%s.%s", parts[0], parts[1]);
	else
		out = xstrdup(env->version);
	free(path);
	strbuf_release(&mk);
	return out;
}

/* What the record keeps of @snap's entries: views into it, @patches the caller's (@snap->n). */
static void snapshot_view(const struct queue_snapshot *snap, struct run_patch *patches,
			  struct run_snapshot *ret)
{
	for (size_t i = 0; i < snap->n; i++) {
		const struct queue_patch *p = &snap->patches[i];
		const struct patch_header *h = p->content ? &p->header : NULL;

		patches[i] = (struct run_patch){
			.name = p->name,
			.upstream = h && h->upstream[0] ? h->upstream : NULL,
			.subject = h ? h->subject : NULL,
			.author = h ? h->author : NULL,
			.date = h ? h->date : NULL,
			.message_id = h ? h->message_id : NULL,
			.content_hash = p->hash[0] ? p->hash : NULL,
			.error = p->error,
		};
	}
	*ret = (struct run_snapshot){
		.queue = snap->queue, .source = snap->source, .ref = snap->ref,
		.commit = snap->commit[0] ? snap->commit : NULL, .content_hash = snap->content_hash,
		.patches = patches, .n = snap->n,
	};
}

/* The rows a verdict writes per patch: views into @snap, @outcomes and @result. */
static struct run_patch_result *patch_results(const struct queue_snapshot *snap,
					      const struct apply_outcome *outcomes,
					      const struct judge_result *result)
{
	struct run_patch_result *rows = xcalloc(snap->n, sizeof(*rows));

	for (size_t i = 0; i < snap->n; i++) {
		const struct patch_verdict *v = &result->verdicts[i];

		rows[i] = (struct run_patch_result){
			.apply_status = snap->patches[i].error ? "refused"
					: apply_status_name(outcomes[i].status),
			.offset = outcomes[i].offset,
			.apply_message = outcomes[i].message.buf,
			.status = patch_status_name(v->status),
			.reason = v->status == PATCH_DROP ? drop_reason_name(v->reason) : NULL,
			.regressions = &v->regressions,
			.changes = &v->changes,
			.evidence = v->evidence.buf,
			.steps = v->steps.buf,
		};
	}
	return rows;
}

/*
 * Stage 1: apply the queue once, in order, each patch on top of every
 * earlier one that applied; what cannot be used or does not apply is
 * dropped with reason apply, and left out of every sequence.
 */
static int apply_queue(struct oracle *o, struct judge_patch *jp, struct apply_outcome *outcomes,
		       struct judge_result *result, struct strbuf *err)
{
	const struct queue_snapshot *snap = o->snap;
	git_oid head = o->tree->base;

	for (size_t i = 0; i < snap->n; i++) {
		const struct queue_patch *p = &snap->patches[i];
		struct patch_verdict *v = &result->verdicts[i];
		struct apply_memo *m;
		int r;

		jp[i].name = p->name;
		jp[i].upstream = p->content ? p->header.upstream : "";
		jp[i].stable_deps = p->content ? (const char (*)[41])p->header.stable_deps : NULL;
		jp[i].n_stable_deps = p->content ? p->header.n_stable_deps : 0;
		strbuf_init(&outcomes[i].message, 0);
		if (p->error) {
			jp[i].unusable = true;
			v->status = PATCH_DROP;
			v->reason = REASON_APPLY;
			strbuf_addf(&v->evidence, "%s\n", p->error);
			outcomes[i].status = APPLY_FAILED;
			strbuf_addf(&outcomes[i].message, "refused: %s", p->error);
			continue;
		}
		strbuf_release(&outcomes[i].message);
		r = oracle_apply(o, &head, i, &m, &outcomes[i], err);
		if (r < 0)
			return r;
		if (m->failed) {
			jp[i].unusable = true;
			v->status = PATCH_DROP;
			v->reason = REASON_APPLY;
			strbuf_addf(&v->evidence, "%s\n", m->message);
			continue;
		}
		head = m->commit;
	}
	return 0;
}

/* The files @p touches, old and new names. */
static void patch_paths(const struct queue_patch *p, struct strlist *out)
{
	for (size_t f = 0; f < p->parsed.n_files; f++) {
		const struct patch_file *pf = &p->parsed.files[f];

		if (pf->old_path)
			strlist_add_unique(out, pf->old_path);
		if (pf->new_path)
			strlist_add_unique(out, pf->new_path);
	}
}

/* What the compile check compiles for @plan: the report's "compile_check" of a patch. */
static json_t *plan_json(const struct compile_check *cc, const struct cc_plan *plan)
{
	json_t *obj = json_object(), *configs = json_array(), *skipped = json_array();

	for (size_t i = 0; i < cc->n; i++) {
		json_t *c = json_object(), *objects = json_array(), *added = json_array();

		for (size_t j = 0; j < plan->objects[i].n; j++)
			json_array_append_new(objects, json_string(plan->objects[i].items[j]));
		for (size_t j = 0; j < plan->added[i].n; j++)
			json_array_append_new(added, json_string(plan->added[i].items[j]));
		json_object_set_new(c, "name", json_string(cc->configs[i].name));
		json_object_set_new(c, "objects", objects);
		json_object_set_new(c, "added", added);
		json_object_set_new(c, "cut", json_boolean(plan->cut[i]));
		json_array_append_new(configs, c);
	}
	for (size_t j = 0; j < plan->skipped.n; j++)
		json_array_append_new(skipped, json_string(plan->skipped.items[j]));
	json_object_set_new(obj, "configs", configs);
	json_object_set_new(obj, "skipped", skipped);
	return obj;
}

/*
 * Stage 2, impact: base is built first, and its dependency files say what
 * the test kernel compiles. A patch is exercised when it touches a file
 * base's build read (or a build rule); a new file can only matter through
 * one of those. With a compile check, a patch is exercised too when it
 * touches an object a configuration builds (@ret_plans gets, per patch,
 * what the check compiles for it). An already applied patch changes
 * nothing.
 */
static int mark_exercised(struct oracle *o, struct judge_patch *jp, bool *kernel_reads,
			  const struct apply_outcome *outcomes, json_t **ret_plans,
			  struct strbuf *err)
{
	const struct strlist *used;
	int r = oracle_base(o, &used, err);

	if (r < 0)
		return r;
	for (size_t i = 0; i < o->snap->n && r == 0; i++) {
		struct strlist paths = STRLIST_INIT;
		struct cc_plan plan;
		bool compiled = false;

		if (jp[i].unusable)
			continue;
		kernel_reads[i] = outcomes[i].status != APPLY_ALREADY &&
				  !oracle_reads_none(&o->snap->patches[i], used);
		jp[i].exercised = kernel_reads[i];
		if (!o->cc || outcomes[i].status == APPLY_ALREADY)
			continue;
		patch_paths(&o->snap->patches[i], &paths);
		r = compile_check_plan(o->cc, &paths, &plan, err);
		strlist_release(&paths);
		if (r < 0)
			break;
		for (size_t c = 0; c < o->cc->n; c++)
			compiled |= plan.objects[c].n > 0 || plan.added[c].n > 0;
		jp[i].exercised |= compiled;
		ret_plans[i] = plan_json(o->cc, &plan);
		cc_plan_release(&plan);
	}
	o->jp = jp;
	o->kernel_reads = o->cc ? kernel_reads : NULL;
	return r;
}

/* The report of a verdict: the JSON object of docs/CONTRACTS.md. */
/*
 * The Slurm executor's steps: per step the tree, its Slurm job (the
 * attempt whose result was read) and every attempt.
 */
static json_t *steps_json(const struct executor *x)
{
	json_t *steps = json_array();

	for (size_t i = 0; i < x->n_steps; i++) {
		const struct executor_step *s = &x->steps[i];
		const struct slurm_outcome *out = &s->slurm;
		json_t *attempts = json_array();

		for (size_t k = 0; k < out->n; k++) {
			const struct slurm_attempt *a = &out->attempts[k];

			json_array_append_new(attempts,
					      json_pack("{s:s, s:s, s:s, s:s, s:f}", "slurm_job", a->job,
							"state", a->state, "node", a->node, "why",
							a->why, "queued_seconds", a->queued));
		}
		json_array_append_new(steps,
				      json_pack("{s:s, s:i, s:s?, s:s, s:o, s:f}", "tree", s->tree,
						"patches", (json_int_t)s->patches, "slurm_job",
						out->n ? out->attempts[out->n - 1].job : NULL,
						"host", s->host, "attempts", attempts, "seconds",
						out->seconds));
	}
	return steps;
}

static json_t *verdict_report(const struct oracle *o, int64_t run_id, const char *release,
			      const struct apply_outcome *outcomes,
			      const struct judge_result *result, const char *kept_commit,
			      const char *kept_tree, const struct judge_eval *queue_eval,
			      json_t *const *plans, double seconds)
{
	const struct queue_snapshot *snap = o->snap;
	json_t *report = json_object(), *patches_json = json_array(), *drop_json = json_array();
	json_t *stats = json_object();
	char base_commit[GIT_OID_HEXSZ + 1], *config, *compiler = kernel_compiler(o->env);
	const char *fragment = strrchr(o->env->fragment, '/'), *queue_outcome;

	for (size_t i = 0; i < snap->n; i++) {
		const struct queue_patch *p = &snap->patches[i];
		const struct patch_verdict *v = &result->verdicts[i];
		const char *reason = drop_reason_name(v->reason);
		json_t *obj = json_object(), *apply = json_object();

		json_object_set_new(obj, "name", json_string(p->name));
		json_object_set_new(obj, "upstream", p->content && p->header.upstream[0]
				    ? json_string(p->header.upstream) : json_null());
		json_object_set_new(obj, "subject", p->content && p->header.subject
				    ? json_string(p->header.subject) : json_null());
		json_object_set_new(obj, "author", p->content && p->header.author
				    ? json_string(p->header.author) : json_null());
		json_object_set_new(obj, "date", p->content && p->header.date
				    ? json_string(p->header.date) : json_null());
		json_object_set_new(obj, "message_id", p->content && p->header.message_id
				    ? json_string(p->header.message_id) : json_null());
		json_object_set_new(obj, "status", json_string(patch_status_name(v->status)));
		json_object_set_new(obj, "reason", v->status == PATCH_DROP && reason
				    ? json_string(reason) : json_null());
		json_object_set_new(obj, "regressions", names_json(&v->regressions));
		json_object_set_new(obj, "changes", names_json(&v->changes));
		json_object_set_new(apply, "status", json_string(p->error ? "refused"
						: apply_status_name(outcomes[i].status)));
		json_object_set_new(apply, "offset", json_integer(outcomes[i].offset));
		json_object_set_new(apply, "message", json_string(outcomes[i].message.buf));
		json_object_set_new(obj, "apply", apply);
		json_object_set_new(obj, "evidence", json_string(v->evidence.buf));
		json_object_set_new(obj, "steps", json_string(v->steps.buf));
		if (o->cc)
			json_object_set(obj, "compile_check", plans[i] ? plans[i] : json_null());
		json_array_append_new(patches_json, obj);
		if (v->status == PATCH_DROP)
			json_array_append_new(drop_json, json_string(p->name));
	}
	json_object_set_new(report, "run", json_integer(run_id));
	json_object_set_new(report, "queue", json_string(snap->queue));
	json_object_set_new(report, "base", json_string(release));
	json_object_set_new(report, "verdict",
			    json_string(json_array_size(drop_json) ? "drop" : "pass"));
	json_object_set_new(report, "source", json_string(snap->source));
	json_object_set_new(report, "ref", snap->ref ? json_string(snap->ref) : json_null());
	json_object_set_new(report, "commit", snap->commit[0] ? json_string(snap->commit) : json_null());
	json_object_set_new(report, "snapshot", json_string(snap->content_hash));
	json_object_set_new(report, "kept_tree", json_string(kept_tree));
	json_object_set_new(report, "kept_commit", json_string(kept_commit));
	json_object_set_new(report, "patches", patches_json);
	json_object_set_new(report, "drop", drop_json);
	git_oid_tostr(base_commit, sizeof(base_commit), &o->tree->base);
	json_object_set_new(report, "base_commit", json_string(base_commit));
	config = xasprintf("tinyconfig+%s", fragment ? fragment + 1 : o->env->fragment);
	json_object_set_new(report, "config", json_string(config));
	free(config);
	if (compiler)
		json_object_set_new(report, "compiler", json_string(compiler));
	free(compiler);
	json_object_set_new(report, "suite", json_string(o->env->suite_version));
	json_object_set_new(report, "cases", cases_json(queue_eval, &queue_outcome));
	json_object_set_new(report, "queue_outcome", json_string(queue_outcome));
	json_object_set_new(report, "base_failing", names_json(&result->base_failing));
	json_object_set_new(report, "flaky", names_json(&result->flaky));
	json_object_set_new(stats, "builds", json_integer(o->builds));
	json_object_set_new(stats, "boots", json_integer(o->boots));
	json_object_set_new(stats, "evaluations", json_integer(result->evaluations));
	json_object_set_new(stats, "reruns", json_integer(result->reruns));
	json_object_set_new(stats, "same_kernel", json_integer(o->same_kernel));
	if (o->cc) {
		json_t *names = json_array();

		for (size_t i = 0; i < o->cc->n; i++)
			json_array_append_new(names, json_string(o->cc->configs[i].name));
		json_object_set_new(report, "config_checks", names);
		json_object_set_new(stats, "compile_checks", json_integer(o->cc->checks));
		json_object_set_new(stats, "compile_recalled", json_integer(o->cc->recalled));
		json_object_set_new(stats, "compile_objects", json_integer(o->cc->objects_compiled));
		json_object_set_new(stats, "compile_setup_seconds",
				    json_real(o->cc->setup_seconds));
		/* set-up happens while planning as well as while checking a tree */
		json_object_set_new(stats, "compile_seconds",
				    json_real(o->cc->check_seconds + o->cc->setup_seconds));
	}
	json_object_set_new(stats, "rounds", json_integer(o->rounds));
	json_object_set_new(stats, "executor", json_string(o->exec->ops->name));
	json_object_set_new(stats, "workers", json_integer(o->exec->workers));
	if (o->exec->ops->has_steps)
		json_object_set_new(report, "steps", steps_json(o->exec));
	json_object_set_new(stats, "seconds", json_real(seconds));
	json_object_set_new(stats, "accel", json_string(o->env->accel[0] ? o->env->accel : "none"));
	json_object_set_new(report, "stats", stats);
	return report;
}

/* No verdict: the report that says why, recorded with what is known of the run. */
static json_t *record_error(const struct oracle *o, const struct executor *x, sqlite3 *db,
			    const struct queue_snapshot *snap, int64_t run_id, const char *release,
			    const struct judge_result *result, double seconds,
			    const struct strbuf *err)
{
	struct run_stats stats = { o->builds, o->boots, result->evaluations, seconds };
	struct strbuf also = STRBUF_INIT;
	json_t *report = json_object();

	json_object_set_new(report, "run", json_integer(run_id));
	json_object_set_new(report, "queue", json_string(snap->queue));
	json_object_set_new(report, "base", json_string(release));
	json_object_set_new(report, "verdict", json_string("error"));
	json_object_set_new(report, "error", json_string(err->buf));
	json_object_set_new(report, "patches", json_array());
	json_object_set_new(report, "drop", json_array());
	if (x->ops && x->ops->has_steps)
		json_object_set_new(report, "steps", steps_json(x));
	if (run_record_error(db, run_id, err->buf, report, &stats, &also) < 0)
		fprintf(stderr, "backport-gate: run %lld: the error could not be recorded either: %s\n",
			(long long)run_id, also.buf);
	strbuf_release(&also);
	return report;
}

int gate_run(struct kernel_env *env, struct kernel_tree *tree, sqlite3 *db,
	     const struct queue_snapshot *snap, const struct gate_options *opts,
	     json_t **ret_report, struct strbuf *err)
{
	struct judge_patch *jp = xcalloc(snap->n, sizeof(*jp));
	bool *kernel_reads = xcalloc(snap->n ? snap->n : 1, sizeof(*kernel_reads));
	json_t **plans = xcalloc(snap->n ? snap->n : 1, sizeof(*plans));
	struct compile_check cc = { 0 };
	struct apply_outcome *outcomes = xcalloc(snap->n, sizeof(*outcomes));
	int64_t *patch_ids = xcalloc(snap->n, sizeof(*patch_ids));
	struct run_patch *snap_rows = xcalloc(snap->n, sizeof(*snap_rows));
	struct judge_options jopts = { .drop_on_quirk = opts->drop_on_quirk };
	char kept_tree[GIT_OID_HEXSZ + 1] = "", kept_commit[GIT_OID_HEXSZ + 1] = "";
	char *release = base_release(env);
	struct judge_oracle judge_oracle;
	const struct judge_eval *queue_eval;
	struct run_sequence *seqs = NULL;
	char base_commit[GIT_OID_HEXSZ + 1];
	struct run_snapshot snap_view;
	struct judge_result result;
	struct oracle o = { 0 };
	struct executor exec = { 0 };
	double start = now_seconds();
	json_t *report = NULL;
	int64_t run_id = 0;
	unsigned reaped;
	int r;

	judge_result_init(&result, snap->n);
	*ret_report = NULL;
	snapshot_view(snap, snap_rows, &snap_view);
	r = run_reap(db, &reaped, err);
	if (r == 0 && reaped)
		fprintf(stderr, "# %u earlier run%s left 'running' by a process that is gone: "
			"recorded as interrupted\n", reaped, reaped == 1 ? "" : "s");
	if (r == 0)
		r = run_start(db, &snap_view, release, env->suite_version, &run_id, patch_ids, err);
	if (r == 0)
		r = executor_open(&exec, env, tree, snap, opts->slurm, err);
	if (r == 0)
		r = oracle_open(&o, &exec, db, snap, err);
	if (r == 0 && opts->n_configs) {
		r = compile_check_open(&cc, env, tree, opts->config_paths, opts->config_names,
				       opts->n_configs, err);
		if (r == 0 && opts->config_check_max)
			cc.max_objects = opts->config_check_max;
		if (r == 0)
			o.cc = &cc;
	}
	if (r == 0)
		r = apply_queue(&o, jp, outcomes, &result, err);
	if (r == 0)
		r = mark_exercised(&o, jp, kernel_reads, outcomes, plans, err);
	if (r == 0) {
		judge_oracle = oracle_judge(&o);
		r = judge_run(jp, snap->n, &jopts, &judge_oracle, &result, err);
	}
	if (r == 0)
		r = oracle_kept_sequence(&o, &result, kept_commit, kept_tree, err);
	if (r == 0)
		r = queue_as_posted(&o, jp, &queue_eval, err);
	if (r == 0) {
		struct run_patch_result *rows = patch_results(snap, outcomes, &result);
		struct run_verdict v = {
			.run = run_id, .patch_ids = patch_ids, .patches = rows, .n = snap->n,
			.stats = { o.builds, o.boots, result.evaluations, now_seconds() - start },
			.kept_tree = kept_tree, .kept_commit = kept_commit,
			.base_commit = base_commit, .config = env->config_stamp,
			.n_sequences = o.n_seqs,
		};

		git_oid_tostr(base_commit, sizeof(base_commit), &tree->base);
		seqs = xcalloc(o.n_seqs ? o.n_seqs : 1, sizeof(*seqs));
		for (size_t i = 0; i < o.n_seqs; i++) {
			const struct seq_memo *m = &o.seqs[i];

			seqs[i] = (struct run_sequence){
				.patches = m->patches, .n_patches = m->n,
				.commit = m->commit[0] ? m->commit : NULL,
				.tree = m->commit[0] ? m->tree : NULL,
				.apply_failed = m->apply_failed, .judged_at = m->judged_at,
			};
		}
		v.sequences = seqs;
		report = verdict_report(&o, run_id, release, outcomes, &result, kept_commit,
					kept_tree, queue_eval, plans, now_seconds() - start);
		v.report = report;
		v.verdict = json_string_value(json_object_get(report, "verdict"));
		r = run_record_verdict(db, &v, err);
		free(rows);
		if (r < 0) {
			json_decref(report);
			report = NULL;
		}
	}
	if (run_id && r < 0)
		report = record_error(&o, &exec, db, snap, run_id, release, &result,
				      now_seconds() - start, err);
	*ret_report = report;
	for (size_t i = 0; i < snap->n; i++)
		apply_outcome_release(&outcomes[i]);
	free(seqs);
	oracle_close(&o);
	executor_close(&exec);
	compile_check_close(&cc);
	for (size_t i = 0; i < snap->n; i++)
		json_decref(plans[i]);
	free(plans);
	free(kernel_reads);
	judge_result_release(&result);
	free(jp);
	free(outcomes);
	free(patch_ids);
	free(snap_rows);
	free(release);
	return r;
}

int gate_snapshot(const char *top, const char *cache, sqlite3 *db,
		  const struct queue_snapshot *snap, const struct gate_options *opts,
		  json_t **ret_report, struct strbuf *err)
{
	struct kernel_env env;
	struct kernel_tree tree = { 0 };
	int r;

	*ret_report = NULL;
	r = kernel_env_init(&env, top, cache, opts->target, err);
	if (r == 0)
		r = tree_open(&tree, &env, err);
	if (r == 0)
		r = gate_run(&env, &tree, db, snap, opts, ret_report, err);
	if (tree.repo)
		tree_close(&tree);
	kernel_env_release(&env);
	return r;
}
