// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/sql.h"
#include "basic/xalloc.h"
#include "parse/ktap.h"
#include "pipeline/gate.h"
#include "pipeline/judge.h"
#include "pipeline/executor.h"
#include "record/db.h"
#include "record/sequence.h"

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

/* A sequence the judge asked about, for the record (KCIDB's checkouts). */
struct seq_memo {
	size_t *patches;	/* 0-based series indexes, ascending */
	size_t n;
	char commit[GIT_OID_HEXSZ + 1];	/* "" when a patch did not apply */
	char tree[GIT_OID_HEXSZ + 1];
	long apply_failed;		/* index that did not apply, or -1 */
	char judged_at[32];
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
	struct seq_memo *seqs;		/* every sequence judged, in order */
	size_t n_seqs;
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

/* Note a sequence the first time it is judged. */
static void seq_note(struct gate_ctx *ctx, const size_t *subset, size_t n, const git_oid *commit,
		     const char *tree_hex, long apply_failed)
{
	struct seq_memo *m;
	time_t now = time(NULL);

	for (size_t i = 0; i < ctx->n_seqs; i++)
		if (ctx->seqs[i].n == n && (n == 0 || !memcmp(ctx->seqs[i].patches, subset,
							      n * sizeof(*subset))))
			return;
	ctx->seqs = xrealloc(ctx->seqs, (ctx->n_seqs + 1) * sizeof(*ctx->seqs));
	m = &ctx->seqs[ctx->n_seqs++];
	memset(m, 0, sizeof(*m));
	m->patches = xcalloc(n ? n : 1, sizeof(*subset));
	if (n)
		memcpy(m->patches, subset, n * sizeof(*subset));
	m->n = n;
	m->apply_failed = apply_failed;
	if (commit) {
		git_oid_tostr(m->commit, sizeof(m->commit), commit);
		snprintf(m->tree, sizeof(m->tree), "%s", tree_hex);
	}
	strftime(m->judged_at, sizeof(m->judged_at), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

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
	seq_note(ctx, subset, n, e ? NULL : &commit, tree_hex, e ? (long)e->apply_failed_at : -1);
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

static int record_snapshot(sqlite3 *db, const struct queue_snapshot *snap, sqlite3_int64 *ret_id,
			   sqlite3_int64 *patch_ids)
{
	sqlite3_stmt *st = NULL;
	int r = -EIO;

	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO snapshot (queue, source, ref, commit_id, content_hash) "
			       "VALUES (?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, snap->queue, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, snap->source, -1, SQLITE_STATIC);
	if (snap->ref)
		sqlite3_bind_text(st, 3, snap->ref, -1, SQLITE_STATIC);
	if (snap->commit[0])
		sqlite3_bind_text(st, 4, snap->commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, snap->content_hash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT id FROM snapshot WHERE queue = ? AND content_hash = ?",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, snap->queue, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, snap->content_hash, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		goto out;
	*ret_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	for (size_t i = 0; i < snap->n; i++) {
		const struct queue_patch *p = &snap->patches[i];

		if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO patch (snapshot_id, position, name, upstream, "
				       "subject, author, content_hash, error, date, message_id) "
				       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_int64(st, 1, *ret_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1);
		sqlite3_bind_text(st, 3, p->name, -1, SQLITE_STATIC);
		if (p->content && p->header.upstream[0])
			sqlite3_bind_text(st, 4, p->header.upstream, -1, SQLITE_STATIC);
		if (p->content && p->header.subject)
			sqlite3_bind_text(st, 5, p->header.subject, -1, SQLITE_STATIC);
		if (p->content && p->header.author)
			sqlite3_bind_text(st, 6, p->header.author, -1, SQLITE_STATIC);
		if (p->hash[0])
			sqlite3_bind_text(st, 7, p->hash, -1, SQLITE_STATIC);
		if (p->error)
			sqlite3_bind_text(st, 8, p->error, -1, SQLITE_STATIC);
		if (p->content && p->header.date)
			sqlite3_bind_text(st, 9, p->header.date, -1, SQLITE_STATIC);
		if (p->content && p->header.message_id)
			sqlite3_bind_text(st, 10, p->header.message_id, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		sqlite3_finalize(st);
		st = NULL;
		if (sqlite3_prepare_v2(db, "SELECT id FROM patch WHERE snapshot_id = ? AND position = ?",
				       -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_int64(st, 1, *ret_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1);
		if (sqlite3_step(st) != SQLITE_ROW)
			goto out;
		patch_ids[i] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		st = NULL;
	}
	r = 0;
out:
	sqlite3_finalize(st);
	return r;
}

/* Everything a verdict writes: one transaction, or nothing. */
struct run_record {
	sqlite3_int64 run_id;
	const struct queue_snapshot *snap;
	const sqlite3_int64 *patch_ids;
	const struct apply_outcome *outcomes;
	const struct judge_result *result;
	json_t *report;
	const char *verdict;
	unsigned builds, boots;
	double seconds;
	const char *kept_tree, *kept_commit;
	const struct seq_memo *seqs;
	size_t n_seqs;
	const char *base_commit, *config;
};

static int record_sequences(sqlite3 *db, const struct run_record *rec)
{
	int r = run_sequence_set_base(db, rec->run_id, rec->base_commit, rec->config);

	for (size_t i = 0; r == 0 && i < rec->n_seqs; i++) {
		const struct seq_memo *m = &rec->seqs[i];
		struct run_sequence seq = {
			.patches = m->patches, .n_patches = m->n,
			.commit = m->commit[0] ? m->commit : NULL,
			.tree = m->commit[0] ? m->tree : NULL,
			.apply_failed = m->apply_failed, .judged_at = m->judged_at,
		};

		r = run_sequence_put(db, rec->run_id, i + 1, &seq);
	}
	return r;
}

static int record_rows(sqlite3 *db, const struct run_record *rec)
{
	for (size_t i = 0; i < rec->snap->n; i++) {
		const struct queue_patch *p = &rec->snap->patches[i];
		const struct patch_verdict *v = &rec->result->verdicts[i];
		json_t *o = json_array_get(json_object_get(rec->report, "patches"), i);
		char *regs = json_dumps(json_object_get(o, "regressions"), JSON_COMPACT);
		char *chg = json_dumps(json_object_get(o, "changes"), JSON_COMPACT);
		int r;

		r = sql_exec(db, "INSERT OR REPLACE INTO apply_result (run_id, patch_id, status, "
			      "offset_lines, message) VALUES (?, ?, ?, ?, ?)", "iisis", rec->run_id,
			      rec->patch_ids[i],
			      p->error ? "refused" : apply_status_name(rec->outcomes[i].status),
			      (sqlite3_int64)rec->outcomes[i].offset, rec->outcomes[i].message.buf);
		if (r == 0)
			r = sql_exec(db, "INSERT OR REPLACE INTO verdict (run_id, patch_id, status, reason, "
				      "regressions, changes, evidence, steps) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				      "iissssss", rec->run_id, rec->patch_ids[i], patch_status_name(v->status),
				      v->status == PATCH_DROP ? drop_reason_name(v->reason) : NULL, regs, chg,
				      v->evidence.buf, v->steps.buf);
		free(regs);
		free(chg);
		if (r < 0)
			return r;
	}
	return record_sequences(db, rec);
}

static int record_verdict(sqlite3 *db, const struct run_record *rec, struct strbuf *err)
{
	char *text = json_dumps(rec->report, JSON_COMPACT);
	int r;

	if (!text)
		abort();
	r = db_begin(db);
	if (r == 0)
		r = record_rows(db, rec);
	if (r == 0)
		r = sql_exec(db, "UPDATE run SET verdict = ?, error = NULL, report = ?, builds = ?, "
			      "boots = ?, evaluations = ?, seconds = ?, kept_tree = ?, kept_commit = ?, "
			      "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
			      "ssiiidssi", rec->verdict, text, (sqlite3_int64)rec->builds,
			      (sqlite3_int64)rec->boots, (sqlite3_int64)rec->result->evaluations,
			      rec->seconds, rec->kept_tree, rec->kept_commit, rec->run_id);
	if (r == 0)
		r = db_commit(db);
	if (r < 0) {
		r = db_error(db, "recording the verdict", err);
		db_rollback(db);
	}
	free(text);
	return r;
}

int gate_run(struct kernel_env *env, struct kernel_tree *tree, sqlite3 *db,
	     const struct queue_snapshot *snap, const struct gate_options *opts,
	     json_t **ret_report, struct strbuf *err)
{
	struct gate_ctx ctx = { .env = env, .tree = tree, .db = db, .snap = snap };
	struct judge_patch *jp = xcalloc(snap->n, sizeof(*jp));
	struct apply_outcome *outcomes = xcalloc(snap->n, sizeof(*outcomes));
	sqlite3_int64 *patch_ids = xcalloc(snap->n, sizeof(*patch_ids));
	struct judge_options jopts = { .drop_on_quirk = opts->drop_on_quirk };
	struct judge_oracle oracle = { evaluate, &ctx };
	struct judge_result result;
	const struct judge_eval *base_eval, *queue_eval;
	char base_commit[GIT_OID_HEXSZ + 1] = "", *fragment_name, *compiler = NULL;
	const char *queue_outcome;
	char base_tree[GIT_OID_HEXSZ + 1];
	char kept_tree[GIT_OID_HEXSZ + 1] = "", kept_commit[GIT_OID_HEXSZ + 1] = "";
	struct tree_key key;
	sqlite3_int64 snapshot_id = 0, run_id = 0;
	json_t *report = NULL, *patches_json, *drop_json;
	git_oid head = tree->base;
	const struct strlist *used;
	char *release = base_release(env);
	double start = now_seconds();
	bool any_drop = false;
	int r;

	judge_result_init(&result, snap->n);
	*ret_report = NULL;
	if (record_snapshot(db, snap, &snapshot_id, patch_ids) < 0 ||
	    sql_exec(db, "INSERT INTO run (snapshot_id, base, suite, verdict) VALUES (?, ?, ?, 'running')",
		      "iss", snapshot_id, release, env->suite_version) < 0) {
		r = db_error(db, "recording the snapshot", err);
		goto out;
	}
	run_id = sqlite3_last_insert_rowid(db);
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
	/* the queue as posted: every usable patch; judged first, so a memo hit */
	{
		size_t *usable = xcalloc(snap->n ? snap->n : 1, sizeof(*usable)), n_usable = 0;

		for (size_t i = 0; i < snap->n; i++)
			if (!jp[i].unusable)
				usable[n_usable++] = i;
		r = evaluate(&ctx, usable, n_usable, false, &queue_eval, err);
		free(usable);
		if (r < 0)
			goto out;
	}

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
	git_oid_tostr(base_commit, sizeof(base_commit), &tree->base);
	json_object_set_new(report, "base_commit", json_string(base_commit));
	fragment_name = strrchr(env->fragment, '/');
	fragment_name = xasprintf("tinyconfig+%s", fragment_name ? fragment_name + 1 : env->fragment);
	json_object_set_new(report, "config", json_string(fragment_name));
	free(fragment_name);
	compiler = kernel_compiler(env);
	if (compiler)
		json_object_set_new(report, "compiler", json_string(compiler));
	json_object_set_new(report, "suite", json_string(env->suite_version));
	json_object_set_new(report, "cases", cases_json(queue_eval, &queue_outcome));
	json_object_set_new(report, "queue_outcome", json_string(queue_outcome));
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
		struct run_record rec = {
			.run_id = run_id, .snap = snap, .patch_ids = patch_ids, .outcomes = outcomes,
			.result = &result, .report = report, .verdict = any_drop ? "drop" : "pass",
			.builds = ctx.builds, .boots = ctx.boots, .seconds = now_seconds() - start,
			.kept_tree = kept_tree, .kept_commit = kept_commit,
			.seqs = ctx.seqs, .n_seqs = ctx.n_seqs, .base_commit = base_commit,
			.config = env->config_stamp,
		};

		r = record_verdict(db, &rec, err);
		if (r < 0) {
			json_decref(report);
			report = NULL;
		}
	}
	if (run_id && r < 0) {
		/* no verdict: say why, and record what is known of the run */
		char *text;

		report = json_object();
		json_object_set_new(report, "run", json_integer(run_id));
		json_object_set_new(report, "queue", json_string(snap->queue));
		json_object_set_new(report, "base", json_string(release));
		json_object_set_new(report, "verdict", json_string("error"));
		json_object_set_new(report, "error", json_string(err->buf));
		json_object_set_new(report, "patches", json_array());
		json_object_set_new(report, "drop", json_array());
		text = json_dumps(report, JSON_COMPACT);
		if (sql_exec(db, "UPDATE run SET verdict = 'error', error = ?, report = ?, builds = ?, "
			      "boots = ?, evaluations = ?, seconds = ?, "
			      "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
			      "ssiiidi", err->buf, text, (sqlite3_int64)ctx.builds, (sqlite3_int64)ctx.boots,
			      (sqlite3_int64)result.evaluations, now_seconds() - start, run_id) < 0)
			fprintf(stderr, "backport-gate: run %lld: the error could not be recorded either: %s\n",
				(long long)run_id, sqlite3_errmsg(db));
		free(text);
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
	for (size_t i = 0; i < ctx.n_seqs; i++)
		free(ctx.seqs[i].patches);
	free(ctx.seqs);
	free(compiler);
	executor_close(&ctx.exec);
	judge_result_release(&result);
	free(jp);
	free(outcomes);
	free(patch_ids);
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
