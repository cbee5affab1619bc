// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/clock.h"
#include "basic/xalloc.h"
#include "parse/ktap.h"
#include "record/db.h"
#include "verdict/oracle.h"

static struct judge_eval *eval_new(struct oracle *o)
{
	struct judge_eval *e = xcalloc(1, sizeof(*e));

	strbuf_init(&e->apply_message, 0);
	strbuf_init(&e->build_error, 0);
	strbuf_init(&e->boot_evidence, 0);
	o->all_evals = xrealloc(o->all_evals, (o->n_all + 1) * sizeof(*o->all_evals));
	o->all_evals[o->n_all++] = e;
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

int oracle_apply(struct oracle *o, const git_oid *parent, size_t index,
		 struct apply_memo **ret, struct apply_outcome *outcome_out, struct strbuf *err)
{
	const struct queue_patch *p = &o->snap->patches[index];
	struct apply_outcome outcome;
	struct apply_memo *m;
	char *message;
	int r;

	for (size_t i = 0; i < o->n_applies; i++)
		if (o->applies[i].index == index && git_oid_equal(&o->applies[i].parent, parent)) {
			*ret = &o->applies[i];
			return 0;
		}
	memset(&outcome, 0, sizeof(outcome));
	strbuf_init(&outcome.message, 0);
	message = xasprintf("%s\n\nqueue %s, patch %zu: %s\n",
		     p->header.subject ? p->header.subject : p->name, o->snap->queue, index + 1,
		     p->name);
	o->applies = xrealloc(o->applies, (o->n_applies + 1) * sizeof(*o->applies));
	m = &o->applies[o->n_applies];
	memset(m, 0, sizeof(*m));
	git_oid_cpy(&m->parent, parent);
	m->index = index;
	r = tree_apply(o->tree, parent, &p->parsed, message, &m->commit, &outcome, err);
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
	o->n_applies++;
	*ret = m;
	if (outcome_out)
		*outcome_out = outcome;
	else
		apply_outcome_release(&outcome);
	return 0;
}

static struct judge_eval *memo_find(struct oracle *o, const char *tree)
{
	for (size_t i = o->n_evals; i-- > 0;)
		if (strcmp(o->evals[i].tree, tree) == 0)
			return o->evals[i].eval;
	return NULL;
}

static void memo_put(struct oracle *o, const char *tree, struct judge_eval *e)
{
	o->evals = xrealloc(o->evals, (o->n_evals + 1) * sizeof(*o->evals));
	snprintf(o->evals[o->n_evals].tree, sizeof(o->evals[0].tree), "%s", tree);
	o->evals[o->n_evals].eval = e;
	o->n_evals++;
}

static struct strlist *inputs_memo_put(struct oracle *o, const char *tree,
					struct strlist *set)
{
	struct inputs_memo *m;

	o->inputs = xrealloc(o->inputs, (o->n_inputs + 1) * sizeof(*o->inputs));
	m = xcalloc(1, sizeof(*m));
	o->inputs[o->n_inputs++] = m;
	snprintf(m->tree, sizeof(m->tree), "%s", tree);
	m->set = *set;
	return &m->set;
}

/* @set (sorted, taken over) as what the build of @key read: the memo and the record. */
static int put_inputs(struct oracle *o, const struct tree_key *key, struct strlist *set,
		      struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int r = 0;

	for (size_t i = 0; i < set->n; i++)
		strbuf_addf(&text, "%s\n", set->items[i]);
	inputs_memo_put(o, key->tree, set);
	if (db_build_inputs_put(o->db, key, text.buf) < 0)
		r = db_error(o->db, "recording a build's inputs", err);
	strbuf_release(&text);
	return r;
}

/* The inputs of the built tree @key, or NULL when they are not known. */
static int tree_inputs(struct oracle *o, const struct tree_key *key,
		       const struct strlist **ret, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct strlist set = STRLIST_INIT;
	bool found;
	int r;

	*ret = NULL;
	for (size_t i = 0; i < o->n_inputs; i++)
		if (strcmp(o->inputs[i]->tree, key->tree) == 0) {
			*ret = &o->inputs[i]->set;
			return 0;
		}
	r = db_build_inputs_get(o->db, key, &found, &text);
	if (r < 0) {
		strbuf_release(&text);
		return db_error(o->db, "reading a build's inputs", err);
	}
	if (found) {
		/* sorted paths, one per line: the form the record keeps */
		strlist_split_lines(&set, text.buf);
		*ret = inputs_memo_put(o, key->tree, &set);
	}
	strbuf_release(&text);
	return 0;
}

/*
 * Ask the executor what its build of @t read, and keep it for @key. 1
 * when it has no build of @t at hand.
 */
static int fetch_inputs(struct oracle *o, const struct exec_tree *t, const struct tree_key *key,
			struct strbuf *err)
{
	struct strlist set = STRLIST_INIT;
	int r = executor_inputs(o->exec, t, &set, err);

	if (r == 0 && set.n == 0) {
		strbuf_addf(err, "impact: the build of tree %.12s read no files", t->hex);
		r = -ENOENT;
	}
	if (r != 0) {
		strlist_release(&set);
		return r;
	}
	strlist_sort_unique(&set);
	return put_inputs(o, key, &set, err);
}

/*
 * What a boot showed (@console: the suite's output when BOOT_OK) into @e
 * and the record.
 */
static int record_boot(struct oracle *o, const struct tree_key *key, struct judge_eval *e,
		       const struct exec_boot *b, struct strbuf *err)
{
	struct strbuf ktap_err = STRBUF_INIT;
	struct db_boot record;
	int r = 0;

	o->boots++;
	/* a Slurm run's boots were the nodes': say how they ran */
	if (!o->env->accel[0])
		snprintf(o->env->accel, sizeof(o->env->accel), "%s", b->accel);
	strbuf_adds(&e->boot_evidence, b->evidence.buf);
	e->boot_status = b->status;
	e->boot_failed = b->status != BOOT_OK;
	if (!e->boot_failed && ktap_parse(b->console.buf, b->console.len, &e->ktap, &ktap_err) < 0) {
		e->boot_failed = true;
		e->boot_status = BOOT_INCOMPLETE;
		strbuf_addf(&e->boot_evidence, "%s\n", ktap_err.buf);
	}
	/* what the record keeps of @e: a view, nothing to release */
	record = (struct db_boot){ .failed = e->boot_failed, .status = e->boot_status,
				   .evidence = e->boot_evidence, .ktap = e->ktap };
	if (db_boot_put(o->db, key, &record, b->accel, b->seconds) < 0)
		r = db_error(o->db, "recording a boot", err);
	strbuf_release(&ktap_err);
	return r;
}

/*
 * What the executor found for @t (@ev) into @e and the record: the build
 * (when one ran), what it read (unless known), and with @with_boot the
 * boot. Without it only the build is taken (its inputs were wanted).
 */
static int take_eval(struct oracle *o, const struct exec_tree *t, const struct tree_key *key,
		     struct judge_eval *e, struct exec_eval *ev, bool with_boot,
		     struct strbuf *err)
{
	const struct strlist *known;
	int r;

	if (ev->build.built) {
		o->builds++;
		if (db_build_put(o->db, key, ev->build.status == BUILD_OK,
				 ev->build.status == BUILD_OK ? NULL : ev->build.first_error.buf,
				 ev->build.seconds) < 0)
			return db_error(o->db, "recording a build", err);
	}
	if (ev->build.status != BUILD_OK) {
		e->build_failed = true;
		strbuf_adds(&e->build_error, ev->build.first_error.buf);
		return 0;
	}
	r = tree_inputs(o, key, &known, err);
	if (r == 0 && !known && ev->inputs.n) {
		struct strlist set = ev->inputs;

		ev->inputs = (struct strlist)STRLIST_INIT;
		r = put_inputs(o, key, &set, err);
	} else if (r == 0 && !known) {
		r = fetch_inputs(o, t, key, err);
		if (r > 0) {
			strbuf_addf(err, "impact: the executor has no build of tree %.12s to read",
				    t->hex);
			r = -ENOENT;
		}
	}
	if (r < 0 || !with_boot)
		return r;
	if (!ev->booted) {
		strbuf_addf(err, "executor: tree %.12s built but was not booted", t->hex);
		return -EIO;
	}
	return record_boot(o, key, e, &ev->boot, err);
}

/* Build @t (unless built) and, @with_boot, boot it: one round of the executor's. */
static int run_tree(struct oracle *o, const struct exec_tree *t, const struct tree_key *key,
		    struct judge_eval *e, bool with_boot, struct strbuf *err)
{
	struct exec_eval ev;
	int r;

	exec_eval_init(&ev);
	o->rounds++;
	r = executor_build(o->exec, t, &ev.build, err);
	if (r == 0 && with_boot && ev.build.status == BUILD_OK) {
		/* what it read is taken before the boot: the boot may be elsewhere */
		const struct strlist *known;

		r = tree_inputs(o, key, &known, err);
		if (r == 0 && !known) {
			r = executor_inputs(o->exec, t, &ev.inputs, err);
			if (r > 0)
				r = 0;	/* take_eval() says so */
		}
		if (r == 0) {
			fprintf(stderr, "# booting tree %.12s\n", t->hex);
			r = executor_boot(o->exec, t, &ev.boot, err);
			ev.booted = r == 0;
		}
	}
	if (r == 0) {
		strlist_sort_unique(&ev.inputs);
		r = take_eval(o, t, key, e, &ev, with_boot, err);
	}
	exec_eval_release(&ev);
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

/* Note a sequence the first time it is judged. */
static void seq_note(struct oracle *o, const size_t *subset, size_t n, const git_oid *commit,
		     const char *tree_hex, long apply_failed)
{
	struct seq_memo *m;
	time_t now = time(NULL);
	struct tm tm;

	for (size_t i = 0; i < o->n_seqs; i++)
		if (o->seqs[i].n == n && (n == 0 || !memcmp(o->seqs[i].patches, subset,
							    n * sizeof(*subset))))
			return;
	o->seqs = xreallocarray(o->seqs, o->n_seqs + 1, sizeof(*o->seqs));
	m = &o->seqs[o->n_seqs++];
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
	strftime(m->judged_at, sizeof(m->judged_at), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
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
static void left_out(struct oracle *o, const size_t *subset, size_t at, const char *file,
		     struct strbuf *out)
{
	struct strbuf all = STRBUF_INIT, touching = STRBUF_INIT;
	size_t k = 0;

	for (size_t i = 0; i < subset[at]; i++) {
		if (k < at && subset[k] == i) {
			k++;
			continue;
		}
		if (o->snap->patches[i].error || (o->jp && o->jp[i].unusable))
			continue;
		strbuf_addf(&all, "%s%s", all.len ? ", " : "", o->snap->patches[i].name);
		if (file && patch_touches(&o->snap->patches[i].parsed, file))
			strbuf_addf(&touching, "%s%s", touching.len ? ", " : "",
				    o->snap->patches[i].name);
	}
	if (touching.len)
		strbuf_addf(out, " (it needs %s, which changes %s)", touching.buf, file);
	else if (all.len)
		strbuf_addf(out, " (without %s)", all.buf);
	strbuf_release(&all);
	strbuf_release(&touching);
}

/*
 * Apply base + @subset: @t (its commit and tree; it points at @subset),
 * or *ret_failed (an evaluation saying which patch did not apply).
 */
static int sequence_tree(struct oracle *o, const size_t *subset, size_t n, struct exec_tree *t,
			 struct judge_eval **ret_failed, struct strbuf *err)
{
	git_oid commit = o->tree->base;
	int r;

	*ret_failed = NULL;
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		struct apply_memo *m;
		struct judge_eval *e;

		r = oracle_apply(o, &commit, subset[i], &m, NULL, err);
		if (r < 0)
			return r;
		if (m->failed) {
			e = eval_new(o);
			e->apply_failed = true;
			e->apply_failed_at = subset[i];
			strbuf_addf(&e->apply_message, "%s", m->message ? m->message : "does not apply");
			left_out(o, subset, i, m->file, &e->apply_message);
			*ret_failed = e;
			return 0;
		}
		commit = m->commit;
	}
	return exec_tree_set(o->exec, t, &commit, subset, n, err);
}

/* The record's key of @t under this run's config and suite. */
static struct tree_key key_of(const struct oracle *o, const struct exec_tree *t)
{
	return (struct tree_key){ t->hex, o->env->config_stamp, o->env->suite_version };
}

static int evaluate(void *opaque, const size_t *subset, size_t n, bool fresh,
		    const struct judge_eval **ret, struct strbuf *err);

bool oracle_reads_none(const struct queue_patch *p, const struct strlist *inputs)
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
static int evaluate_same_kernel(struct oracle *o, const size_t *subset, size_t n, bool fresh,
				const struct judge_eval **ret, struct strbuf *err)
{
	struct judge_eval *failed;
	const struct judge_eval *e;
	const struct strlist *inputs;
	struct exec_tree t;
	struct tree_key key;
	size_t m = n;
	int r;

	while (m > 0 && !(o->kernel_reads ? o->kernel_reads[subset[m - 1]]
					   : o->jp[subset[m - 1]].exercised))
		m--;
	if (m == n)
		return 1;
	r = sequence_tree(o, subset, m, &t, &failed, err);
	if (r < 0 || failed)
		return r < 0 ? r : 1;
	r = evaluate(o, subset, m, fresh, &e, err);
	if (r < 0 || e->apply_failed || e->build_failed)
		return r < 0 ? r : 1;
	key = key_of(o, &t);
	r = tree_inputs(o, &key, &inputs, err);
	if (r == 0 && !inputs) {
		/* a build of it the executor holds, made by another run */
		r = fetch_inputs(o, &t, &key, err);
		if (r == 0)
			r = tree_inputs(o, &key, &inputs, err);
	}
	if (r < 0 || !inputs)
		return r < 0 ? r : 1;
	for (size_t i = m; i < n; i++)
		if (!oracle_reads_none(&o->snap->patches[subset[i]], inputs))
			return 1;
	o->same_kernel++;
	*ret = e;
	return 0;
}

/*
 * The compile check of @t, once per tree and run:
 * *ret_failed is the evaluation to answer with when it did not compile,
 * else NULL.
 */
static int compile_checked(struct oracle *o, const struct exec_tree *t,
			   struct judge_eval **ret_failed, struct strbuf *err)
{
	struct strbuf evidence = STRBUF_INIT;
	struct cc_memo *m;
	bool ok;
	int r;

	for (size_t i = 0; i < o->n_cc_memos; i++)
		if (strcmp(o->cc_memos[i].tree, t->hex) == 0) {
			*ret_failed = o->cc_memos[i].failed;
			return 0;
		}
	*ret_failed = NULL;
	r = compile_check_tree(o->cc, &t->commit, &ok, &evidence, err);
	if (r < 0)
		goto out;
	o->cc_memos = xreallocarray(o->cc_memos, o->n_cc_memos + 1, sizeof(*o->cc_memos));
	m = &o->cc_memos[o->n_cc_memos++];
	memcpy(m->tree, t->hex, sizeof(m->tree));
	m->failed = NULL;
	if (!ok) {
		m->failed = eval_new(o);
		m->failed->build_failed = true;
		strbuf_adds(&m->failed->build_error, evidence.buf);
		strbuf_rtrim(&m->failed->build_error);
		*ret_failed = m->failed;
	}
out:
	strbuf_release(&evidence);
	return r;
}

static int evaluate(void *opaque, const size_t *subset, size_t n, bool fresh,
		    const struct judge_eval **ret, struct strbuf *err)
{
	struct oracle *o = opaque;
	struct judge_eval *e;
	struct db_boot recorded = DB_BOOT_INIT;
	struct exec_tree t;
	struct tree_key key;
	bool found, ok;
	int r;

	r = sequence_tree(o, subset, n, &t, &e, err);
	if (r < 0)
		return r;
	seq_note(o, subset, n, e ? NULL : &t.commit, t.hex, e ? (long)e->apply_failed_at : -1);
	if (e) {
		*ret = e;
		return 0;
	}
	if (o->cc && n) {
		r = compile_checked(o, &t, &e, err);
		if (r < 0)
			return r;
		if (e) {
			*ret = e;
			return 0;
		}
	}
	if (o->jp) {
		r = evaluate_same_kernel(o, subset, n, fresh, ret, err);
		if (r <= 0)
			return r;
	}
	if (!fresh && (e = memo_find(o, t.hex))) {
		*ret = e;
		return 0;
	}
	key = key_of(o, &t);
	e = eval_new(o);
	r = db_build_get(o->db, &key, &found, &ok, &e->build_error);
	if (r < 0)
		return db_error(o->db, "reading builds", err);
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
	r = db_boot_get(o->db, &key, fresh ? 2 : 1, &found, &recorded);
	if (r == 0 && found)
		eval_take_boot(e, &recorded);
	db_boot_release(&recorded);
	if (r < 0)
		return db_error(o->db, "reading boots", err);
	if (found)
		goto done;
	strbuf_reset(&e->build_error);
	r = run_tree(o, &t, &key, e, true, err);
	if (r < 0)
		return r;
done:
	memo_put(o, t.hex, e);
	*ret = e;
	return 0;
}

int oracle_kept_sequence(struct oracle *o, const struct judge_result *result,
			 char commit_hex[GIT_OID_HEXSZ + 1], char tree_hex[GIT_OID_HEXSZ + 1],
			 struct strbuf *err)
{
	size_t *kept = xcalloc(o->snap->n ? o->snap->n : 1, sizeof(*kept)), n = 0;
	struct judge_eval *failed;
	struct exec_tree t;
	int r;

	for (size_t i = 0; i < o->snap->n; i++)
		if (!o->jp[i].unusable && result->verdicts[i].status != PATCH_DROP)
			kept[n++] = i;
	r = sequence_tree(o, kept, n, &t, &failed, err);
	if (r == 0 && failed) {
		strbuf_addf(err, "kept tree: %s does not apply on top of the kept patches: %s",
			    o->snap->patches[failed->apply_failed_at].name, failed->apply_message.buf);
		r = -EIO;
	}
	if (r == 0) {
		git_oid_tostr(commit_hex, GIT_OID_HEXSZ + 1, &t.commit);
		memcpy(tree_hex, t.hex, GIT_OID_HEXSZ + 1);
	}
	free(kept);
	return r;
}


int oracle_open(struct oracle *o, struct executor *exec, sqlite3 *db,
		const struct queue_snapshot *snap, struct strbuf *err)
{
	(void)err;
	memset(o, 0, sizeof(*o));
	o->exec = exec;
	o->env = exec->env;
	o->tree = exec->tree;
	o->db = db;
	o->snap = snap;
	return 0;
}

void oracle_close(struct oracle *o)
{
	for (size_t i = 0; i < o->n_inputs; i++) {
		strlist_release(&o->inputs[i]->set);
		free(o->inputs[i]);
	}
	free(o->inputs);
	for (size_t i = 0; i < o->n_applies; i++) {
		free(o->applies[i].message);
		free(o->applies[i].file);
	}
	free(o->applies);
	for (size_t i = 0; i < o->n_all; i++)
		eval_free(o->all_evals[i]);
	free(o->all_evals);
	free(o->evals);
	free(o->cc_memos);
	for (size_t i = 0; i < o->n_seqs; i++)
		free(o->seqs[i].patches);
	free(o->seqs);
	memset(o, 0, sizeof(*o));
}

int oracle_base(struct oracle *o, const struct strlist **ret_used, struct strbuf *err)
{
	const struct judge_eval *base_eval;
	struct judge_eval *failed;
	struct exec_tree t;
	struct tree_key key;
	int r;

	*ret_used = NULL;
	r = evaluate(o, NULL, 0, false, &base_eval, err);
	if (r < 0)
		return r;
	if (base_eval->build_failed) {
		/* the judge's words for it: nothing was read, and no patch is to blame */
		strbuf_addf(err, "base: the unmodified tree does not build: %s",
			    base_eval->build_error.buf);
		return -EIO;
	}
	r = sequence_tree(o, NULL, 0, &t, &failed, err);
	if (r < 0)
		return r;
	key = key_of(o, &t);
	r = tree_inputs(o, &key, ret_used, err);
	if (r == 0 && !*ret_used) {
		/* base came from the record without its inputs: build it once to learn them */
		r = run_tree(o, &t, &key, eval_new(o), false, err);
		if (r == 0)
			r = tree_inputs(o, &key, ret_used, err);
		if (r == 0 && !*ret_used) {
			strbuf_addf(err, "impact: base's build read no files from %s", o->env->src);
			r = -EIO;
		}
	}
	return r;
}

/*
 * No answer for @tree_hex yet: neither in the memo nor in the record.
 * @fresh: its second boot is asked for, and there is none yet after a
 * first that booted (build and boot failures are not booted again).
 */
static int unanswered(struct oracle *o, const char *tree_hex, bool fresh, bool *ret,
		      struct strbuf *err)
{
	struct tree_key key = { tree_hex, o->env->config_stamp, o->env->suite_version };
	struct strbuf ignored = STRBUF_INIT;
	struct db_boot recorded = DB_BOOT_INIT;
	struct judge_eval *first = memo_find(o, tree_hex);
	bool found, ok;
	int r;

	*ret = false;
	if (fresh ? !first || first->build_failed || first->boot_failed : first != NULL)
		return 0;
	r = db_build_get(o->db, &key, &found, &ok, &ignored);
	strbuf_release(&ignored);
	if (r < 0)
		return db_error(o->db, "reading builds", err);
	if (found && !ok)
		return 0;
	r = db_boot_get(o->db, &key, fresh ? 2 : 1, &found, &recorded);
	db_boot_release(&recorded);
	if (r < 0)
		return db_error(o->db, "reading boots", err);
	*ret = !found;
	return 0;
}

/*
 * The judge's prefetch: when @subsets[0] needs a step, it and the other
 * sequences that need one run at once (up to the workers). A first
 * evaluation goes into the memo; a second boot (@fresh) into the record,
 * where evaluate() with @fresh finds it. A sequence ending in patches the
 * test kernel does not read is fetched without them (the same-kernel
 * shortcut asks for that). The compile check is not done here: evaluate()
 * does it before it looks at the memo.
 */
static int prefetch(void *opaque, const size_t *const *subsets, const size_t *ns,
		    const bool *fresh, size_t k, struct strbuf *err)
{
	struct oracle *o = opaque;
	unsigned workers = o->exec->workers;
	struct exec_tree *todo = xcalloc(k ? k : 1, sizeof(*todo));
	bool *todo_fresh = xcalloc(k ? k : 1, sizeof(*todo_fresh));
	struct exec_eval *res = NULL;
	size_t n_todo = 0;
	int r = 0;

	for (size_t i = 0; i < k && n_todo < workers && workers > 1; i++) {
		struct judge_eval *failed;
		size_t n = ns[i];
		bool needed = false, dup = false;

		while (o->jp && n > 0 && !(o->kernel_reads ? o->kernel_reads[subsets[i][n - 1]] :
					   o->jp[subsets[i][n - 1]].exercised))
			n--;
		r = sequence_tree(o, subsets[i], n, &todo[n_todo], &failed, err);
		if (r == 0 && !failed)
			r = unanswered(o, todo[n_todo].hex, fresh[i], &needed, err);
		if (r < 0)
			goto out;
		if (failed || !needed) {
			if (i == 0)
				goto out;	/* what the judge asks next is answered */
			continue;
		}
		for (size_t t = 0; t < n_todo; t++)
			dup |= !strcmp(todo[t].hex, todo[n_todo].hex) && todo_fresh[t] == fresh[i];
		if (dup)
			continue;
		todo_fresh[n_todo++] = fresh[i];
	}
	if (n_todo < 2)
		goto out;	/* one tree: evaluate() runs it when asked */
	res = xcalloc(n_todo, sizeof(*res));
	r = executor_run_batch(o->exec, todo, n_todo, res, err);
	if (r < 0)
		goto out;
	o->rounds++;
	for (size_t t = 0; t < n_todo; t++) {
		struct tree_key key = key_of(o, &todo[t]);
		struct judge_eval *e = eval_new(o);

		if (r == 0)
			r = take_eval(o, &todo[t], &key, e, &res[t], true, err);
		if (r == 0 && !todo_fresh[t])
			memo_put(o, todo[t].hex, e);
		exec_eval_release(&res[t]);
	}
out:
	free(res);
	free(todo);
	free(todo_fresh);
	return r;
}

/*
 * The judge's cost: 0 for a tree with an answer (or whose patches do not
 * apply: no build), else what the executor says building it would
 * compile. Applying is memoised per run, and the judge's candidates are
 * prefixes of a set it has evaluated, but for a set taken as bad without
 * it (judge.h), whose patches the first of them applies.
 */
static int cost(void *opaque, const size_t *subset, size_t n, unsigned *ret_objects,
		struct strbuf *err)
{
	struct oracle *o = opaque;
	struct judge_eval *failed;
	struct exec_tree t;
	bool needed;
	int r;

	r = sequence_tree(o, subset, n, &t, &failed, err);
	if (r < 0)
		return r;
	*ret_objects = 0;
	if (failed)
		return 0;
	r = unanswered(o, t.hex, false, &needed, err);
	if (r < 0 || !needed)
		return r;
	return executor_cost(o->exec, &t, ret_objects, err);
}

struct judge_oracle oracle_judge(struct oracle *o)
{
	return (struct judge_oracle){ .evaluate = evaluate, .prefetch = prefetch, .cost = cost,
				      .ctx = o, .workers = o->exec->workers };
}

int oracle_evaluate(struct oracle *o, const size_t *subset, size_t n,
		    const struct judge_eval **ret, struct strbuf *err)
{
	return evaluate(o, subset, n, false, ret, err);
}
