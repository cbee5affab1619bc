// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/sql.h"
#include "basic/xalloc.h"
#include "record/db.h"
#include "record/sequence.h"

int run_sequence_put(sqlite3 *db, int64_t run_id, size_t position,
		     const struct run_sequence *seq)
{
	struct strbuf patches = STRBUF_INIT;
	int r;

	strbuf_addch(&patches, '[');
	for (size_t i = 0; i < seq->n_patches; i++)
		strbuf_addf(&patches, "%s%zu", i ? "," : "", seq->patches[i] + 1);
	strbuf_addch(&patches, ']');
	/* apply_failed: a 1-based position, NULL (0 here) when every patch applied */
	r = sql_exec(db, "INSERT OR REPLACE INTO run_sequence (run_id, position, patches, "
		     "commit_id, tree, apply_failed, judged_at) VALUES (?, ?, ?, ?, ?, NULLIF(?, 0), ?)",
		     "iisssis", run_id, (sqlite3_int64)position, patches.buf, seq->commit, seq->tree,
		     (sqlite3_int64)(seq->apply_failed + 1), seq->judged_at);
	strbuf_release(&patches);
	return r;
}

int run_sequence_set_base(sqlite3 *db, int64_t run_id, const char *base_commit,
			  const char *config)
{
	return sql_exec(db, "UPDATE run SET base_commit = ?, config = ? WHERE id = ?", "ssi",
			base_commit, config, run_id);
}

/* Out of memory is fatal everywhere in the gate. */
static void obj_set(json_t *obj, const char *key, json_t *value)
{
	if (!value || json_object_set_new(obj, key, value) < 0)
		abort();
}

/* A text column, set only when the record has one (KCIDB takes no null). */
static void set_text(json_t *obj, const char *key, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	size_t n = (size_t)sqlite3_column_bytes(st, col);
	json_t *j;
	char *copy;

	if (!s)
		return;
	j = json_stringn((const char *)s, n);
	if (!j) {
		/* console bytes that are not UTF-8: '?' rather than no answer */
		copy = xmalloc(n + 1);
		for (size_t i = 0; i < n; i++)
			copy[i] = s[i] < 0x80 ? (char)s[i] : '?';
		copy[n] = '\0';
		j = json_stringn(copy, n);
		free(copy);
	}
	obj_set(obj, key, j);
}

static void set_real(json_t *obj, const char *key, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) != SQLITE_NULL)
		obj_set(obj, key, json_real(sqlite3_column_double(st, col)));
}

/* What sequences share, from the run row. */
struct run_row {
	int64_t id;
	char *config, *suite, *finished_at;
};

static int read_run(sqlite3 *db, int64_t run, json_t *out, struct run_row *row, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int r, rc;

	r = sql_prepare(db, &st, "SELECT r.started_at, r.finished_at, r.base_commit, r.config, "
			"r.suite, s.source, r.verdict FROM run r JOIN snapshot s ON s.id = r.snapshot_id "
			"WHERE r.id = ?", "i", run);
	if (r < 0)
		return db_error(db, "reading runs", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		strbuf_addf(err, "no run %lld", (long long)run);
		r = -ENOENT;
	} else if (rc != SQLITE_ROW) {
		r = db_error(db, "reading runs", err);
	} else if (strcmp((const char *)sqlite3_column_text(st, 6), "running") == 0) {
		strbuf_addf(err, "run %lld is still running", (long long)run);
		r = -EAGAIN;
	} else {
		obj_set(out, "run", json_integer(run));
		set_text(out, "started_at", st, 0);
		set_text(out, "finished_at", st, 1);
		set_text(out, "base_commit", st, 2);
		set_text(out, "config", st, 3);
		set_text(out, "suite", st, 4);
		set_text(out, "source", st, 5);
		row->id = run;
		row->config = sqlite3_column_text(st, 3) ? xstrdup((const char *)sqlite3_column_text(st, 3)) : NULL;
		row->suite = xstrdup((const char *)sqlite3_column_text(st, 4));
		row->finished_at = sqlite3_column_text(st, 1)
				   ? xstrdup((const char *)sqlite3_column_text(st, 1)) : NULL;
	}
	sqlite3_finalize(st);
	return r;
}

/* The patches of a sequence, from its JSON array of series positions. */
static int sequence_patches(sqlite3 *db, int64_t run, const char *positions, json_t **ret,
			    struct strbuf *err)
{
	json_t *list = json_loads(positions, 0, NULL), *out, *v;
	sqlite3_stmt *st = NULL;
	size_t i;
	int r = 0;

	if (!json_is_array(list)) {
		json_decref(list);
		strbuf_addf(err, "run %lld: a recorded sequence is not a JSON array", (long long)run);
		return -EIO;
	}
	out = json_array();
	r = sql_prepare(db, &st, "SELECT p.name, p.content_hash FROM patch p JOIN run r "
			"ON r.snapshot_id = p.snapshot_id WHERE r.id = ? AND p.position = ?", "ii",
			run, (sqlite3_int64)0);
	if (r < 0) {
		r = db_error(db, "reading patches", err);
		goto out;
	}
	json_array_foreach(list, i, v) {
		json_t *p = json_object();

		if (sql_rebind(st, "ii", run, (sqlite3_int64)json_integer_value(v)) < 0 ||
		    sqlite3_step(st) != SQLITE_ROW) {
			json_decref(p);
			strbuf_addf(err, "run %lld: sequence names patch %lld, which the record lacks",
				    (long long)run, (long long)json_integer_value(v));
			r = -EIO;
			goto out;
		}
		obj_set(p, "position", json_integer(json_integer_value(v)));
		set_text(p, "name", st, 0);
		set_text(p, "content_hash", st, 1);
		json_array_append_new(out, p);
	}
out:
	sqlite3_finalize(st);
	json_decref(list);
	if (r < 0)
		json_decref(out);
	else
		*ret = out;
	return r;
}

static int sequence_build(sqlite3 *db, const struct run_row *run, const char *tree, json_t *seq,
			  struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int r, rc;

	r = sql_prepare(db, &st, "SELECT status, first_error, seconds, created_at FROM build "
			"WHERE tree = ? AND config = ?", "ss", tree, run->config);
	if (r < 0)
		return db_error(db, "reading builds", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		json_t *b = json_object();

		set_text(b, "status", st, 0);
		set_text(b, "first_error", st, 1);
		set_real(b, "seconds", st, 2);
		set_text(b, "created_at", st, 3);
		obj_set(seq, "build", b);
	} else if (rc != SQLITE_DONE) {
		r = db_error(db, "reading builds", err);
	}
	sqlite3_finalize(st);
	return r;
}

static int boot_cases(sqlite3 *db, sqlite3_int64 boot_id, json_t *boot, struct strbuf *err)
{
	json_t *cases = json_array();
	sqlite3_stmt *st = NULL;
	int r, rc;

	/* KTAP order is plan order; rowid keeps the order they were recorded in */
	r = sql_prepare(db, &st, "SELECT name, kind, status, diagnostic FROM case_result "
			"WHERE boot_id = ? ORDER BY rowid", "i", boot_id);
	if (r < 0) {
		json_decref(cases);
		return db_error(db, "reading case results", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *c = json_object();

		set_text(c, "name", st, 0);
		set_text(c, "kind", st, 1);
		set_text(c, "status", st, 2);
		set_text(c, "diagnostic", st, 3);
		json_array_append_new(cases, c);
	}
	if (rc != SQLITE_DONE)
		r = db_error(db, "reading case results", err);
	sqlite3_finalize(st);
	obj_set(boot, "cases", cases);
	return r;
}

static int sequence_boots(sqlite3 *db, const struct run_row *run, const char *tree, json_t *seq,
			  struct strbuf *err)
{
	json_t *boots = json_array();
	sqlite3_stmt *st = NULL;
	int r, rc;

	r = sql_prepare(db, &st, "SELECT id, attempt, status, accel, seconds, created_at, evidence "
			"FROM boot WHERE tree = ? AND config = ? AND suite = ? "
			"AND (?4 IS NULL OR created_at <= ?4) ORDER BY attempt",
			"ssss", tree, run->config, run->suite, run->finished_at);
	if (r < 0) {
		json_decref(boots);
		return db_error(db, "reading boots", err);
	}
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *b = json_object();

		obj_set(b, "attempt", json_integer(sqlite3_column_int64(st, 1)));
		set_text(b, "status", st, 2);
		set_text(b, "accel", st, 3);
		set_real(b, "seconds", st, 4);
		set_text(b, "created_at", st, 5);
		set_text(b, "evidence", st, 6);
		r = boot_cases(db, sqlite3_column_int64(st, 0), b, err);
		json_array_append_new(boots, b);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_error(db, "reading boots", err);
	sqlite3_finalize(st);
	obj_set(seq, "boots", boots);
	return r;
}

json_t *run_sequences_json(sqlite3 *db, int64_t run, struct strbuf *err)
{
	struct run_row row = { 0 };
	json_t *out = json_object(), *list = json_array();
	sqlite3_stmt *st = NULL;
	int r, rc = SQLITE_DONE;

	r = read_run(db, run, out, &row, err);
	if (r < 0)
		goto out;
	r = sql_prepare(db, &st, "SELECT position, patches, commit_id, tree, apply_failed, judged_at "
			"FROM run_sequence WHERE run_id = ? ORDER BY position", "i", run);
	if (r < 0) {
		r = db_error(db, "reading sequences", err);
		goto out;
	}
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *tree = (const char *)sqlite3_column_text(st, 3);
		json_t *seq = json_object(), *patches = NULL;

		json_array_append_new(list, seq);
		obj_set(seq, "position", json_integer(sqlite3_column_int64(st, 0)));
		r = sequence_patches(db, run, (const char *)sqlite3_column_text(st, 1), &patches, err);
		if (r < 0)
			break;
		obj_set(seq, "patches", patches);
		set_text(seq, "commit", st, 2);
		set_text(seq, "tree", st, 3);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			obj_set(seq, "apply_failed", json_integer(sqlite3_column_int64(st, 4)));
		set_text(seq, "judged_at", st, 5);
		if (tree && row.config) {
			r = sequence_build(db, &row, tree, seq, err);
			if (r == 0)
				r = sequence_boots(db, &row, tree, seq, err);
		}
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_error(db, "reading sequences", err);
out:
	sqlite3_finalize(st);
	obj_set(out, "sequences", list);
	free(row.config);
	free(row.suite);
	free(row.finished_at);
	if (r < 0) {
		json_decref(out);
		errno = -r;
		return NULL;
	}
	return out;
}
