// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/xalloc.h"
#include "parse/ktap.h"
#include "pipeline/gate.h"
#include "pipeline/judge.h"
#include "pipeline/executor.h"
#include "record/db.h"
#include "record/run.h"

/* What applying patch @index on top of @parent gave; cached per run. */
struct apply_memo {
	git_oid parent;
	size_t index;
	bool failed;
	git_oid commit;
	char *message;
	char *file;		/* the file that did not apply; NULL when none is named */
};

/* The inputs of a built tree, once read from the build or the record. */
struct inputs_memo {
	char tree[GIT_OID_HEXSZ + 1];
	struct strlist set;	/* sorted tree-relative paths: what the build read */
};

/* An evaluated tree, kept for the judge (it holds pointers to these). */
struct eval_memo {
	char tree[GIT_OID_HEXSZ + 1];
	struct judge_eval *eval;
};

struct gate_ctx {
	struct kernel_env *env;
	struct kernel_tree *tree;
	sqlite3 *db;
	const struct queue_snapshot *snap;
	struct apply_memo *applies;
	size_t n_applies;
	struct eval_memo *evals;
	size_t n_evals;
	struct judge_eval **all_evals;	/* every eval made, freed at the end */
	size_t n_all;
	struct inputs_memo **inputs;	/* each allocated once: tree_inputs() hands out pointers */
	size_t n_inputs;
	const struct judge_patch *jp;	/* set once impact is known */
	struct executor exec;		/* where trees are built and booted */
	unsigned builds, boots;
	unsigned same_kernel;		/* sequences answered by an equal kernel */
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct judge_eval *eval_new(struct gate_ctx *ctx)
{
	struct judge_eval *e = xcalloc(1, sizeof(*e));

	strbuf_init(&e->apply_message, 0);
	strbuf_init(&e->build_error, 0);
	strbuf_init(&e->boot_evidence, 0);
	ctx->all_evals = xrealloc(ctx->all_evals, (ctx->n_all + 1) * sizeof(*ctx->all_evals));
	ctx->all_evals[ctx->n_all++] = e;
	return e;
}

static void eval_free(struct judge_eval *e)
{
	strbuf_release(&e->apply_message);
	strbuf_release(&e->build_error);
	strbuf_release(&e->boot_evidence);
	ktap_run_release(&e->ktap);
	free(e);
}

/* Apply patch @index on @parent, once per run. */
static int apply_one(struct gate_ctx *ctx, const git_oid *parent, size_t index,
		     struct apply_memo **ret, struct apply_outcome *outcome_out, struct strbuf *err)
{
	const struct queue_patch *p = &ctx->snap->patches[index];
	struct apply_outcome outcome;
	struct apply_memo *m;
	char *message;
	int r;

	for (size_t i = 0; i < ctx->n_applies; i++)
		if (ctx->applies[i].index == index && git_oid_equal(&ctx->applies[i].parent, parent)) {
			*ret = &ctx->applies[i];
			return 0;
		}
	memset(&outcome, 0, sizeof(outcome));
	strbuf_init(&outcome.message, 0);
	message = xasprintf("%s\n\nqueue %s, patch %zu: %s\n",
		     p->header.subject ? p->header.subject : p->name, ctx->snap->queue, index + 1,
		     p->name);
	ctx->applies = xrealloc(ctx->applies, (ctx->n_applies + 1) * sizeof(*ctx->applies));
	m = &ctx->applies[ctx->n_applies];
	memset(m, 0, sizeof(*m));
	git_oid_cpy(&m->parent, parent);
	m->index = index;
	r = tree_apply(ctx->tree, parent, &p->parsed, message, &m->commit, &outcome, err);
	free(message);
	if (r < 0) {
		apply_outcome_release(&outcome);
		return r;
	}
	if (outcome.status == APPLY_FAILED) {
		m->failed = true;
		m->message = xstrdup(outcome.message.buf);
		m->file = outcome.file ? xstrdup(outcome.file) : NULL;
	}
	ctx->n_applies++;
	*ret = m;
	if (outcome_out)
		*outcome_out = outcome;
	else
		apply_outcome_release(&outcome);
	return 0;
}

static struct judge_eval *memo_find(struct gate_ctx *ctx, const char *tree)
{
	for (size_t i = ctx->n_evals; i-- > 0;)
		if (strcmp(ctx->evals[i].tree, tree) == 0)
			return ctx->evals[i].eval;
	return NULL;
}

static void memo_put(struct gate_ctx *ctx, const char *tree, struct judge_eval *e)
{
	ctx->evals = xrealloc(ctx->evals, (ctx->n_evals + 1) * sizeof(*ctx->evals));
	snprintf(ctx->evals[ctx->n_evals].tree, sizeof(ctx->evals[0].tree), "%s", tree);
	ctx->evals[ctx->n_evals].eval = e;
	ctx->n_evals++;
}

static struct strlist *inputs_memo_put(struct gate_ctx *ctx, const char *tree,
					struct strlist *set)
{
	struct inputs_memo *m;

	ctx->inputs = xrealloc(ctx->inputs, (ctx->n_inputs + 1) * sizeof(*ctx->inputs));
	m = xcalloc(1, sizeof(*m));
	ctx->inputs[ctx->n_inputs++] = m;
	snprintf(m->tree, sizeof(m->tree), "%s", tree);
	m->set = *set;
	return &m->set;
}

/* Read what the build in the build directory (of @key) read, and record it. */
static int record_inputs(struct gate_ctx *ctx, const struct tree_key *key, struct strbuf *err)
{
	struct strlist set = STRLIST_INIT;
	struct strbuf text = STRBUF_INIT;
	int r = kernel_used_files(ctx->env, &set);

	if (r < 0 || set.n == 0) {
		strlist_release(&set);
		strbuf_addf(err, "impact: cannot read the build's dependency files in %s",
			    ctx->env->build);
		return r < 0 ? r : -ENOENT;
	}
	for (size_t i = 0; i < set.n; i++)
		strbuf_addf(&text, "%s\n", set.items[i]);
	inputs_memo_put(ctx, key->tree, &set);
	r = db_build_inputs_put(ctx->db, key, text.buf);
	strbuf_release(&text);
	return r < 0 ? db_error(ctx->db, "recording a build's inputs", err) : 0;
}

/* The inputs of the built tree @key, or NULL when they are not known. */
static int tree_inputs(struct gate_ctx *ctx, const struct tree_key *key,
		       const struct strlist **ret, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct strlist set = STRLIST_INIT;
	bool found;
	int r;

	*ret = NULL;
	for (size_t i = 0; i < ctx->n_inputs; i++)
		if (strcmp(ctx->inputs[i]->tree, key->tree) == 0) {
			*ret = &ctx->inputs[i]->set;
			return 0;
		}
	r = db_build_inputs_get(ctx->db, key, &found, &text);
	if (r < 0) {
		strbuf_release(&text);
		return db_error(ctx->db, "reading a build's inputs", err);
	}
	if (found) {
		/* sorted paths, one per line: the form the record keeps */
		strlist_split_lines(&set, text.buf);
		*ret = inputs_memo_put(ctx, key->tree, &set);
	}
	strbuf_release(&text);
	return 0;
}

/* Check out and build @commit unless the build directory already holds it. */
static int ensure_built(struct gate_ctx *ctx, const git_oid *commit, const char *tree_hex,
			const struct tree_key *key, bool *ret_ok, struct strbuf *first_error,
			struct strbuf *err)
{
	enum build_status status;
	git_oid tree_id;
	double start;
	bool built;
	int r;

	if (git_oid_fromstr(&tree_id, tree_hex) < 0) {
		strbuf_addf(err, "build: '%s' is not a tree id", tree_hex);
		return -EINVAL;
	}
	start = now_seconds();
	r = executor_build(&ctx->exec, commit, &tree_id, &built, &status, first_error, err);
	if (built)
		ctx->builds++;
	if (r < 0)
		return r;
	*ret_ok = status == BUILD_OK;
	if (!built) {
		const struct strlist *known;

		/* built before, perhaps by another run or `backport-gate boot` */
		r = tree_inputs(ctx, key, &known, err);
		if (r == 0 && !known)
			r = record_inputs(ctx, key, err);
		return r;
	}
	if (db_build_put(ctx->db, key, *ret_ok, *ret_ok ? NULL : first_error->buf,
			 now_seconds() - start) < 0)
		return db_error(ctx->db, "recording a build", err);
	return *ret_ok ? record_inputs(ctx, key, err) : 0;
}

static int boot(struct gate_ctx *ctx, const struct tree_key *key, struct judge_eval *e,
		struct strbuf *err)
{
	struct strbuf console = STRBUF_INIT, ktap_err = STRBUF_INIT;
	enum boot_status status;
	struct db_boot record;
	double start = now_seconds();
	int r;

	fprintf(stderr, "# booting tree %.12s\n", key->tree);
	r = executor_boot(&ctx->exec, &console, &status, &e->boot_evidence, err);
	ctx->boots++;
	if (r < 0)
		goto out;
	e->boot_status = status;
	e->boot_failed = status != BOOT_OK;
	if (!e->boot_failed && ktap_parse(console.buf, console.len, &e->ktap, &ktap_err) < 0) {
		e->boot_failed = true;
		e->boot_status = BOOT_INCOMPLETE;
		strbuf_addf(&e->boot_evidence, "%s\n", ktap_err.buf);
	}
	/* what the record keeps of @e: a view, nothing to release */
	record = (struct db_boot){ .failed = e->boot_failed, .status = e->boot_status,
				   .evidence = e->boot_evidence, .ktap = e->ktap };
	if (db_boot_put(ctx->db, key, &record, ctx->env->accel, now_seconds() - start) < 0)
		r = db_error(ctx->db, "recording a boot", err);
out:
	strbuf_release(&console);
	strbuf_release(&ktap_err);
	return r;
}

/* A recorded boot into @e, which takes over its evidence and results. */
static void eval_take_boot(struct judge_eval *e, struct db_boot *boot)
{
	struct strbuf evidence = e->boot_evidence;
	struct ktap_run ktap = e->ktap;

	e->boot_failed = boot->failed;
	e->boot_status = boot->status;
	e->boot_evidence = boot->evidence;
	e->ktap = boot->ktap;
	/* @e's empty ones, for the caller's db_boot_release() */
	boot->evidence = evidence;
	boot->ktap = ktap;
}

static bool patch_touches(const struct patch *p, const char *path)
{
	for (size_t f = 0; f < p->n_files; f++)
		if ((p->files[f].old_path && strcmp(p->files[f].old_path, path) == 0) ||
		    (p->files[f].new_path && strcmp(p->files[f].new_path, path) == 0))
			return true;
	return false;
}

/*
 * Patch @subset[@at] (@subset ascending, as every sequence is) applied on
 * top of every earlier usable patch of the
 * queue, not on @subset[0..@at): say which of the patches left out of
 * the sequence change @file (all of them when none does or no file is
 * named), so a drop names the patch it needed.
 */
static void left_out(struct gate_ctx *ctx, const size_t *subset, size_t at, const char *file,
		     struct strbuf *out)
{
	struct strbuf all = STRBUF_INIT, touching = STRBUF_INIT;
	size_t k = 0;

	for (size_t i = 0; i < subset[at]; i++) {
		if (k < at && subset[k] == i) {
			k++;
			continue;
		}
		if (ctx->snap->patches[i].error || (ctx->jp && ctx->jp[i].unusable))
			continue;
		strbuf_addf(&all, "%s%s", all.len ? ", " : "", ctx->snap->patches[i].name);
		if (file && patch_touches(&ctx->snap->patches[i].parsed, file))
			strbuf_addf(&touching, "%s%s", touching.len ? ", " : "",
				    ctx->snap->patches[i].name);
	}
	if (touching.len)
		strbuf_addf(out, " (it needs %s, which changes %s)", touching.buf, file);
	else if (all.len)
		strbuf_addf(out, " (without %s)", all.buf);
	strbuf_release(&all);
	strbuf_release(&touching);
}

/*
 * Apply base + @subset: *ret_commit and @tree_hex, or *ret_failed (an
 * evaluation saying which patch did not apply).
 */
static int sequence_tree(struct gate_ctx *ctx, const size_t *subset, size_t n, git_oid *ret_commit,
			 char *tree_hex, struct judge_eval **ret_failed, struct strbuf *err)
{
	git_oid commit = ctx->tree->base;
	int r;

	*ret_failed = NULL;
	for (size_t i = 0; i < n; i++) {
		struct apply_memo *m;
		struct judge_eval *e;

		r = apply_one(ctx, &commit, subset[i], &m, NULL, err);
		if (r < 0)
			return r;
		if (m->failed) {
			e = eval_new(ctx);
			e->apply_failed = true;
			e->apply_failed_at = subset[i];
			strbuf_addf(&e->apply_message, "%s", m->message ? m->message : "does not apply");
			left_out(ctx, subset, i, m->file, &e->apply_message);
			*ret_failed = e;
			return 0;
		}
		commit = m->commit;
	}
	r = tree_id_hex(ctx->tree, &commit, tree_hex);
	if (r < 0) {
		strbuf_addf(err, "tree: cannot read the tree of a commit");
		return r;
	}
	*ret_commit = commit;
	return 0;
}

static int evaluate(void *opaque, const size_t *subset, size_t n, bool fresh,
		    const struct judge_eval **ret, struct strbuf *err);

static bool patch_reads_none(const struct queue_patch *p, const struct strlist *inputs)
{
	for (size_t f = 0; f < p->parsed.n_files; f++) {
		const struct patch_file *pf = &p->parsed.files[f];

		if (pf->old_path && kernel_path_exercised(inputs, pf->old_path))
			return false;
		if (pf->new_path && kernel_path_exercised(inputs, pf->new_path))
			return false;
	}
	return true;
}

/*
 * @subset without the not-exercised patches at its end (a prefix of it,
 * so every patch in it applies exactly as in @subset) makes a kernel;
 * when that build read none of the files those trailing patches touch,
 * the whole subset makes the same kernel, and its result is the answer.
 * 0 when answered, 1 when it cannot tell (build the subset itself), or
 * -errno.
 */
static int evaluate_same_kernel(struct gate_ctx *ctx, const size_t *subset, size_t n, bool fresh,
				const struct judge_eval **ret, struct strbuf *err)
{
	char tree_hex[GIT_OID_HEXSZ + 1];
	struct judge_eval *failed;
	const struct judge_eval *e;
	const struct strlist *inputs;
	struct tree_key key;
	git_oid commit, tree_id;
	size_t m = n;
	int r;

	while (m > 0 && !ctx->jp[subset[m - 1]].exercised)
		m--;
	if (m == n)
		return 1;
	r = sequence_tree(ctx, subset, m, &commit, tree_hex, &failed, err);
	if (r < 0 || failed)
		return r < 0 ? r : 1;
	r = evaluate(ctx, subset, m, fresh, &e, err);
	if (r < 0 || e->apply_failed || e->build_failed)
		return r < 0 ? r : 1;
	key.tree = tree_hex;
	key.config = ctx->env->config_stamp;
	key.suite = ctx->env->suite_version;
	r = tree_inputs(ctx, &key, &inputs, err);
	if (r == 0 && !inputs && git_oid_fromstr(&tree_id, tree_hex) == 0 &&
	    slots_select_built(&ctx->exec.slots, &tree_id)) {
		r = record_inputs(ctx, &key, err);
		if (r == 0)
			r = tree_inputs(ctx, &key, &inputs, err);
	}
	if (r < 0 || !inputs)
		return r < 0 ? r : 1;
	for (size_t i = m; i < n; i++)
		if (!patch_reads_none(&ctx->snap->patches[subset[i]], inputs))
			return 1;
	ctx->same_kernel++;
	*ret = e;
	return 0;
}

static int evaluate(void *opaque, const size_t *subset, size_t n, bool fresh,
		    const struct judge_eval **ret, struct strbuf *err)
{
	struct gate_ctx *ctx = opaque;
	char tree_hex[GIT_OID_HEXSZ + 1];
	struct judge_eval *e;
	struct db_boot recorded = DB_BOOT_INIT;
	struct tree_key key;
	git_oid commit;
	bool found, ok;
	int r;

	r = sequence_tree(ctx, subset, n, &commit, tree_hex, &e, err);
	if (r < 0)
		return r;
	if (e) {
		*ret = e;
		return 0;
	}
	if (ctx->jp) {
		r = evaluate_same_kernel(ctx, subset, n, fresh, ret, err);
		if (r <= 0)
			return r;
	}
	if (!fresh && (e = memo_find(ctx, tree_hex))) {
		*ret = e;
		return 0;
	}
	key.tree = tree_hex;
	key.config = ctx->env->config_stamp;
	key.suite = ctx->env->suite_version;
	e = eval_new(ctx);
	r = db_build_get(ctx->db, &key, &found, &ok, &e->build_error);
	if (r < 0)
		return db_error(ctx->db, "reading builds", err);
	if (found && !ok) {
		e->build_failed = true;
		goto done;
	}
	/*
	 * A boot implies its build, which this database may not have timed:
	 * a kernel found already built in a slot (by another database's run,
	 * or kernel-tests/run) is booted and recorded without a build row.
	 * A fresh boot is the tree's second; a re-gate reuses it too.
	 */
	r = db_boot_get(ctx->db, &key, fresh ? 2 : 1, &found, &recorded);
	if (r == 0 && found)
		eval_take_boot(e, &recorded);
	db_boot_release(&recorded);
	if (r < 0)
		return db_error(ctx->db, "reading boots", err);
	if (found)
		goto done;
	strbuf_reset(&e->build_error);
	r = ensure_built(ctx, &commit, tree_hex, &key, &ok, &e->build_error, err);
	if (r < 0)
		return r;
	if (!ok) {
		e->build_failed = true;
		goto done;
	}
	r = boot(ctx, &key, e, err);
	if (r < 0)
		return r;
done:
	memo_put(ctx, tree_hex, e);
	*ret = e;
	return 0;
}

/*
 * Base plus every patch the verdict keeps, in series order: the commit
 * and tree a maintainer can build. The judge confirmed exactly this
 * sequence, so its applies are memo hits.
 */
static int kept_sequence(struct gate_ctx *ctx, const struct judge_result *result,
			 char commit_hex[GIT_OID_HEXSZ + 1], char tree_hex[GIT_OID_HEXSZ + 1],
			 struct strbuf *err)
{
	size_t *kept = xcalloc(ctx->snap->n, sizeof(*kept)), n = 0;
	struct judge_eval *failed;
	git_oid commit;
	int r;

	for (size_t i = 0; i < ctx->snap->n; i++)
		if (!ctx->jp[i].unusable && result->verdicts[i].status != PATCH_DROP)
			kept[n++] = i;
	r = sequence_tree(ctx, kept, n, &commit, tree_hex, &failed, err);
	if (r == 0 && failed) {
		strbuf_addf(err, "kept tree: %s does not apply on top of the kept patches: %s",
			    ctx->snap->patches[failed->apply_failed_at].name, failed->apply_message.buf);
		r = -EIO;
	}
	if (r == 0)
		git_oid_tostr(commit_hex, GIT_OID_HEXSZ + 1, &commit);
	free(kept);
	return r;
}

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

int gate_run(struct kernel_env *env, struct kernel_tree *tree, sqlite3 *db,
	     const struct queue_snapshot *snap, const struct gate_options *opts,
	     json_t **ret_report, struct strbuf *err)
{
	struct gate_ctx ctx = { .env = env, .tree = tree, .db = db, .snap = snap };
	struct judge_patch *jp = xcalloc(snap->n, sizeof(*jp));
	struct apply_outcome *outcomes = xcalloc(snap->n, sizeof(*outcomes));
	int64_t *patch_ids = xcalloc(snap->n, sizeof(*patch_ids));
	struct run_patch *snap_rows = xcalloc(snap->n, sizeof(*snap_rows));
	struct judge_options jopts = { .drop_on_quirk = opts->drop_on_quirk };
	struct judge_oracle oracle = { evaluate, &ctx };
	struct judge_result result;
	const struct judge_eval *base_eval;
	char base_tree[GIT_OID_HEXSZ + 1];
	char kept_tree[GIT_OID_HEXSZ + 1] = "", kept_commit[GIT_OID_HEXSZ + 1] = "";
	struct tree_key key;
	struct run_snapshot snap_view;
	int64_t run_id = 0;
	json_t *report = NULL, *patches_json, *drop_json;
	git_oid head = tree->base;
	const struct strlist *used;
	char *release = base_release(env);
	double start = now_seconds();
	bool any_drop = false;
	int r;

	judge_result_init(&result, snap->n);
	*ret_report = NULL;
	snapshot_view(snap, snap_rows, &snap_view);
	r = run_start(db, &snap_view, release, env->suite_version, &run_id, patch_ids, err);
	if (r < 0)
		goto out;
	r = executor_open(&ctx.exec, env, tree, err);
	if (r < 0)
		goto out;

	/* Apply the queue once, in order; what does not apply is left out. */
	for (size_t i = 0; i < snap->n; i++) {
		const struct queue_patch *p = &snap->patches[i];
		struct apply_memo *m;

		jp[i].name = p->name;
		jp[i].upstream = p->content ? p->header.upstream : "";
		jp[i].stable_deps = p->content ? (const char (*)[41])p->header.stable_deps : NULL;
		jp[i].n_stable_deps = p->content ? p->header.n_stable_deps : 0;
		strbuf_init(&outcomes[i].message, 0);
		if (p->error) {
			jp[i].unusable = true;
			result.verdicts[i].status = PATCH_DROP;
			result.verdicts[i].reason = REASON_APPLY;
			strbuf_addf(&result.verdicts[i].evidence, "%s\n", p->error);
			outcomes[i].status = APPLY_FAILED;
			strbuf_addf(&outcomes[i].message, "refused: %s", p->error);
			continue;
		}
		strbuf_release(&outcomes[i].message);
		r = apply_one(&ctx, &head, i, &m, &outcomes[i], err);
		if (r < 0)
			goto out;
		if (m->failed) {
			jp[i].unusable = true;
			result.verdicts[i].status = PATCH_DROP;
			result.verdicts[i].reason = REASON_APPLY;
			strbuf_addf(&result.verdicts[i].evidence, "%s\n", m->message);
			continue;
		}
		head = m->commit;
	}

	/* Build base first: its dependency files say what the kernel compiles. */
	r = evaluate(&ctx, NULL, 0, false, &base_eval, err);
	if (r < 0)
		goto out;
	key.tree = base_tree;
	key.config = env->config_stamp;
	key.suite = env->suite_version;
	tree_id_hex(tree, &tree->base, base_tree);
	r = tree_inputs(&ctx, &key, &used, err);
	if (r == 0 && !used) {
		/* base came from the record without its inputs: build it once to learn them */
		struct strbuf fe = STRBUF_INIT;
		bool ok;

		r = ensure_built(&ctx, &tree->base, base_tree, &key, &ok, &fe, err);
		strbuf_release(&fe);
		if (r == 0)
			r = tree_inputs(&ctx, &key, &used, err);
		if (r == 0 && !used) {
			strbuf_addf(err, "impact: base's build read no files from %s", env->src);
			r = -EIO;
		}
	}
	if (r < 0)
		goto out;
	/*
	 * A patch is exercised when it touches a file base's build read (or
	 * a build rule); a new file can only matter through one of those.
	 */
	for (size_t i = 0; i < snap->n; i++)
		if (!jp[i].unusable)
			jp[i].exercised = outcomes[i].status != APPLY_ALREADY &&
					  !patch_reads_none(&snap->patches[i], used);
	ctx.jp = jp;

	r = judge_run(jp, snap->n, &jopts, &oracle, &result, err);
	if (r < 0)
		goto out;
	r = kept_sequence(&ctx, &result, kept_commit, kept_tree, err);
	if (r < 0)
		goto out;

	report = json_object();
	patches_json = json_array();
	drop_json = json_array();
	for (size_t i = 0; i < snap->n; i++) {
		const struct queue_patch *p = &snap->patches[i];
		const struct patch_verdict *v = &result.verdicts[i];
		const char *reason = drop_reason_name(v->reason);
		json_t *o = json_object(), *apply = json_object();

		json_object_set_new(o, "name", json_string(p->name));
		json_object_set_new(o, "upstream", p->content && p->header.upstream[0]
				    ? json_string(p->header.upstream) : json_null());
		json_object_set_new(o, "subject", p->content && p->header.subject
				    ? json_string(p->header.subject) : json_null());
		json_object_set_new(o, "author", p->content && p->header.author
				    ? json_string(p->header.author) : json_null());
		json_object_set_new(o, "date", p->content && p->header.date
				    ? json_string(p->header.date) : json_null());
		json_object_set_new(o, "message_id", p->content && p->header.message_id
				    ? json_string(p->header.message_id) : json_null());
		json_object_set_new(o, "status", json_string(patch_status_name(v->status)));
		json_object_set_new(o, "reason", v->status == PATCH_DROP && reason
				    ? json_string(reason) : json_null());
		json_object_set_new(o, "regressions", names_json(&v->regressions));
		json_object_set_new(o, "changes", names_json(&v->changes));
		json_object_set_new(apply, "status", json_string(p->error ? "refused"
						: apply_status_name(outcomes[i].status)));
		json_object_set_new(apply, "offset", json_integer(outcomes[i].offset));
		json_object_set_new(apply, "message", json_string(outcomes[i].message.buf));
		json_object_set_new(o, "apply", apply);
		json_object_set_new(o, "evidence", json_string(v->evidence.buf));
		json_object_set_new(o, "steps", json_string(v->steps.buf));
		json_array_append_new(patches_json, o);
		if (v->status == PATCH_DROP) {
			json_array_append_new(drop_json, json_string(p->name));
			any_drop = true;
		}
	}
	json_object_set_new(report, "run", json_integer(run_id));
	json_object_set_new(report, "queue", json_string(snap->queue));
	json_object_set_new(report, "base", json_string(release));
	json_object_set_new(report, "verdict", json_string(any_drop ? "drop" : "pass"));
	json_object_set_new(report, "source", json_string(snap->source));
	json_object_set_new(report, "ref", snap->ref ? json_string(snap->ref) : json_null());
	json_object_set_new(report, "commit", snap->commit[0] ? json_string(snap->commit) : json_null());
	json_object_set_new(report, "snapshot", json_string(snap->content_hash));
	json_object_set_new(report, "kept_tree", json_string(kept_tree));
	json_object_set_new(report, "kept_commit", json_string(kept_commit));
	json_object_set_new(report, "patches", patches_json);
	json_object_set_new(report, "drop", drop_json);
	json_object_set_new(report, "base_failing", names_json(&result.base_failing));
	json_object_set_new(report, "flaky", names_json(&result.flaky));
	{
		json_t *stats = json_object();

		json_object_set_new(stats, "builds", json_integer(ctx.builds));
		json_object_set_new(stats, "boots", json_integer(ctx.boots));
		json_object_set_new(stats, "evaluations", json_integer(result.evaluations));
		json_object_set_new(stats, "reruns", json_integer(result.reruns));
		json_object_set_new(stats, "same_kernel", json_integer(ctx.same_kernel));
		json_object_set_new(stats, "seconds", json_real(now_seconds() - start));
		json_object_set_new(stats, "accel", json_string(env->accel[0] ? env->accel : "none"));
		json_object_set_new(report, "stats", stats);
	}
	r = 0;
out:
	if (run_id && r == 0) {
		struct run_patch_result *rows = patch_results(snap, outcomes, &result);
		struct run_verdict v = {
			.run = run_id, .patch_ids = patch_ids, .patches = rows, .n = snap->n,
			.verdict = any_drop ? "drop" : "pass", .report = report,
			.stats = { ctx.builds, ctx.boots, result.evaluations, now_seconds() - start },
			.kept_tree = kept_tree, .kept_commit = kept_commit,
		};

		r = run_record_verdict(db, &v, err);
		free(rows);
		if (r < 0) {
			json_decref(report);
			report = NULL;
		}
	}
	if (run_id && r < 0) {
		/* no verdict: say why, and record what is known of the run */
		struct run_stats stats = { ctx.builds, ctx.boots, result.evaluations,
					   now_seconds() - start };
		struct strbuf also = STRBUF_INIT;

		report = json_object();
		json_object_set_new(report, "run", json_integer(run_id));
		json_object_set_new(report, "queue", json_string(snap->queue));
		json_object_set_new(report, "base", json_string(release));
		json_object_set_new(report, "verdict", json_string("error"));
		json_object_set_new(report, "error", json_string(err->buf));
		json_object_set_new(report, "patches", json_array());
		json_object_set_new(report, "drop", json_array());
		if (run_record_error(db, run_id, err->buf, report, &stats, &also) < 0)
			fprintf(stderr, "backport-gate: run %lld: the error could not be recorded either: %s\n",
				(long long)run_id, also.buf);
		strbuf_release(&also);
	}
	*ret_report = report;
	for (size_t i = 0; i < snap->n; i++)
		apply_outcome_release(&outcomes[i]);
	for (size_t i = 0; i < ctx.n_inputs; i++) {
		strlist_release(&ctx.inputs[i]->set);
		free(ctx.inputs[i]);
	}
	free(ctx.inputs);
	for (size_t i = 0; i < ctx.n_applies; i++) {
		free(ctx.applies[i].message);
		free(ctx.applies[i].file);
	}
	free(ctx.applies);
	for (size_t i = 0; i < ctx.n_all; i++)
		eval_free(ctx.all_evals[i]);
	free(ctx.all_evals);
	free(ctx.evals);
	executor_close(&ctx.exec);
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
	r = kernel_env_init(&env, top, cache, err);
	if (r == 0)
		r = tree_open(&tree, &env, err);
	if (r == 0)
		r = gate_run(&env, &tree, db, snap, opts, ret_report, err);
	if (tree.repo)
		tree_close(&tree);
	kernel_env_release(&env);
	return r;
}
