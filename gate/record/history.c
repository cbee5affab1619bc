// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "basic/sql.h"
#include "basic/xalloc.h"
#include "record/db.h"
#include "record/history.h"

/* Out of memory is fatal everywhere in the gate; these keep call sites short. */
static void obj_set(json_t *obj, const char *key, json_t *value)
{
	if (!value || json_object_set_new(obj, key, value) < 0)
		abort();
}

static void arr_add(json_t *arr, json_t *value)
{
	if (!value || json_array_append_new(arr, value) < 0)
		abort();
}

static json_t *new_object(void)
{
	json_t *o = json_object();

	if (!o)
		abort();
	return o;
}

static json_t *new_array(void)
{
	json_t *a = json_array();

	if (!a)
		abort();
	return a;
}

/*
 * A text column as a JSON string, or null. Evidence comes from kernel
 * consoles and may hold bytes that are not UTF-8, which jansson refuses:
 * those become '?' rather than costing the whole answer.
 */
static json_t *text_json(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	size_t n = (size_t)sqlite3_column_bytes(st, col);
	char *copy;
	json_t *j;

	if (!s)
		return json_null();
	j = json_stringn((const char *)s, n);
	if (j)
		return j;
	copy = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		copy[i] = s[i] < 0x80 ? (char)s[i] : '?';
	copy[n] = '\0';
	j = json_stringn(copy, n);
	free(copy);
	return j;
}

static json_t *int_json(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	return json_integer(sqlite3_column_int64(st, col));
}

static json_t *real_json(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	return json_real(sqlite3_column_double(st, col));
}

static const char *column_string(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? (const char *)s : "";
}

/* verdict.regressions / verdict.changes: a JSON array of case names. */
static int names_json(sqlite3_stmt *st, int col, const char *field, int64_t run, const char *patch,
		      json_t **ret, struct strbuf *err)
{
	const char *text = (const char *)sqlite3_column_text(st, col);
	json_error_t je;
	json_t *a = json_loads(text ? text : "[]", 0, &je);

	if (!a || !json_is_array(a)) {
		strbuf_addf(err, "history: run %lld, patch %s: the recorded %s is not a JSON array",
			    (long long)run, patch, field);
		json_decref(a);
		return -EIO;
	}
	*ret = a;
	return 0;
}

/* sql_prepare() with @fmt and its values, a failure as a message naming @what. */
static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **ret_st, const char *what,
		   struct strbuf *err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sql_vprepare(db, ret_st, sql, fmt, ap);
	va_end(ap);
	return r < 0 ? db_error(db, what, err) : 0;
}

static bool is_verdict(const char *s)
{
	static const char *const verdicts[] = { "pass", "drop", "error", "running" };

	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++)
		if (!strcmp(s, verdicts[i]))
			return true;
	return false;
}

/*
 * @since in the record's own form, so that comparing strings compares
 * times: SQLite parses the ISO variants (space or T, optional seconds,
 * Z or an offset) and returns NULL for what it cannot read. Its parser
 * also takes "now" and Julian day numbers; we want a date, so the input
 * must start with YYYY-MM-DD.
 */
static int normalize_since(sqlite3 *db, const char *since, char *ret, size_t size, struct strbuf *err)
{
	static const char shape[] = "dddd-dd-dd";
	sqlite3_stmt *st;
	const char *s;
	int r = 0;

	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)since[i]) : since[i] != shape[i])
			goto bad;
	r = prepare(db, "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', ?)", &st, "reading a date", err, "s", since);
	if (r < 0)
		return r;
	if (sqlite3_step(st) != SQLITE_ROW) {
		r = db_error(db, "reading a date", err);
	} else if (!(s = (const char *)sqlite3_column_text(st, 0)) || strlen(s) >= size) {
		r = -EINVAL;
	} else {
		strcpy(ret, s);
	}
	sqlite3_finalize(st);
	if (r != -EINVAL)
		return r;
bad:
	strbuf_addf(err, "since: '%s' is not a date (YYYY-MM-DD, optionally THH:MM[:SS] and Z or +HH:MM)",
		    since);
	return -EINVAL;
}

/*
 * The stable branch of a base release, as SQL over column @col: its
 * MAJOR.MINOR (6.1.192 -> 6.1, 6.12.118 -> 6.12); a base without a
 * second dot (6.12) is its own branch.
 */
#define BRANCH_OF(col) \
	"(CASE WHEN instr(substr(" col ", instr(" col ", '.') + 1), '.') > 0" \
	" THEN substr(" col ", 1, instr(" col ", '.') + instr(substr(" col ", instr(" col ", '.') + 1), '.') - 1)" \
	" ELSE " col " END)"

/* Branches in release order, as SQL terms for an ORDER BY: 6.1 < 6.6 < 6.12. */
#define BRANCH_ORDER(branch) \
	"CAST(" branch " AS INTEGER), CAST(substr(" branch ", instr(" branch ", '.') + 1) AS INTEGER), " branch

/*
 * The latest finished run of each queue on each branch, as the FROM and
 * the rest of a SELECT over its columns queue, branch, id, base, verdict,
 * started_at and finished_at (the table is called latest), by queue and
 * then branch in release order.
 */
#define LATEST_PER_QUEUE_AND_BRANCH \
	" FROM (SELECT queue, id, base, verdict, started_at, finished_at, branch," \
	" row_number() OVER (PARTITION BY queue, branch ORDER BY started_at DESC, id DESC) AS nth" \
	" FROM (" LATEST_PER_QUEUE_AND_BASE ")) latest" \
	" WHERE nth = 1 ORDER BY queue, " BRANCH_ORDER("branch")

/*
 * The latest finished run of each queue on each base release, first: a
 * base has one branch, and there are far fewer bases than runs, so the
 * branch is worked out and the window sorted over these rows only (the
 * front page's table at 10,000 runs: 74 ms in one window, 32 ms so). The
 * bare columns are those of the row with the greatest started_at, then
 * id, as the window orders them.
 */
#define LATEST_PER_QUEUE_AND_BASE \
	"SELECT s.queue AS queue, r.id AS id, r.base AS base, r.verdict AS verdict," \
	" r.started_at AS started_at, r.finished_at AS finished_at, " BRANCH_OF("r.base") " AS branch," \
	" max(r.started_at || printf('%020d', r.id))" \
	" FROM run r JOIN snapshot s ON s.id = r.snapshot_id WHERE r.verdict IN ('pass', 'drop')" \
	" GROUP BY s.queue, r.base"

#define RUNS_FROM_WHERE \
	" FROM run r JOIN snapshot s ON s.id = r.snapshot_id" \
	" WHERE (?1 IS NULL OR s.queue = ?1) AND (?2 IS NULL OR r.verdict = ?2)" \
	" AND (?3 IS NULL OR r.started_at >= ?3)" \
	" AND (?4 IS NULL OR r.base = ?4 OR r.base LIKE ?4 || '.%')" \
	" AND (?5 = 0 OR r.id = ?5)"

/*
 * RUNS_FROM_WHERE's parameters ?1 to ?5: a text filter left out is NULL,
 * which sql.h's 's' binds as SQL NULL; no run is 0.
 */
#define RUNS_FILTER_FMT "ssssi"

/* A branch is MAJOR.MINOR: digits, one dot, digits. */
static bool is_branch(const char *b)
{
	size_t major = strspn(b, "0123456789");

	return major > 0 && b[major] == '.' && b[major + 1] &&
	       strspn(b + major + 1, "0123456789") == strlen(b + major + 1);
}

/* The names of the patches run @run dropped, in series order. */
static int run_drops(sqlite3 *db, sqlite3_stmt *st, int64_t run, json_t **ret, struct strbuf *err)
{
	json_t *names = new_array();
	int rc;

	if (sql_rebind(st, "i", (sqlite3_int64)run) < 0) {
		json_decref(names);
		return db_error(db, "reading a run's drops", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		arr_add(names, text_json(st, 0));
	if (rc != SQLITE_DONE) {
		json_decref(names);
		return db_error(db, "reading a run's drops", err);
	}
	*ret = names;
	return 0;
}

static int parse_count(const char *name, const char *value, int64_t *ret, struct strbuf *err)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(value, &end, 10);
	if (errno || end == value || *end || n < 0) {
		strbuf_addf(err, "%s: '%s' is not a count", name, value);
		return -EINVAL;
	}
	*ret = n;
	return 0;
}

int history_parse_limit(const char *name, const char *value, int64_t *ret, struct strbuf *err)
{
	int r = parse_count(name, value, ret, err);

	if (r == 0 && *ret == 0) {
		strbuf_addf(err, "%s: 0 runs is no answer (1 to %d)", name, HISTORY_LIMIT_MAX);
		r = -EINVAL;
	}
	return r;
}

int history_parse_offset(const char *name, const char *value, int64_t *ret, struct strbuf *err)
{
	return parse_count(name, value, ret, err);
}

json_t *history_runs(sqlite3 *db, const struct history_filter *f, struct strbuf *err)
{
	static const struct history_filter no_filter;
	sqlite3_stmt *count = NULL, *list = NULL, *drops = NULL;
	json_t *out = NULL, *runs;
	char since[32];
	int64_t limit, total;
	int r = -EINVAL, rc;

	if (!f)
		f = &no_filter;
	if (f->verdict && !is_verdict(f->verdict)) {
		strbuf_addf(err, "verdict: '%s' is not one of pass, drop, error, running", f->verdict);
		goto out;
	}
	if (f->branch && !is_branch(f->branch)) {
		strbuf_addf(err, "branch: '%s' is not a stable branch (MAJOR.MINOR, such as 6.1 or 6.12)",
			    f->branch);
		goto out;
	}
	if (f->limit < 0 || f->offset < 0) {
		strbuf_addf(err, "%s: %lld is negative", f->limit < 0 ? "limit" : "offset",
			    (long long)(f->limit < 0 ? f->limit : f->offset));
		goto out;
	}
	limit = f->limit == 0 ? HISTORY_LIMIT_DEFAULT : f->limit > HISTORY_LIMIT_MAX ? HISTORY_LIMIT_MAX
										 : f->limit;
	if (f->since) {
		r = normalize_since(db, f->since, since, sizeof(since), err);
		if (r < 0)
			goto out;
	}
	r = prepare(db, "SELECT count(*)" RUNS_FROM_WHERE, &count, "counting runs", err, RUNS_FILTER_FMT,
		    f->queue, f->verdict, f->since ? since : NULL, f->branch, (sqlite3_int64)f->run);
	if (r < 0)
		goto out;
	if (sqlite3_step(count) != SQLITE_ROW) {
		r = db_error(db, "counting runs", err);
		goto out;
	}
	total = sqlite3_column_int64(count, 0);

	r = prepare(db, "SELECT r.id, s.queue, s.source, s.ref, s.commit_id, r.base, r.verdict, r.started_at,"
		    " r.finished_at, r.seconds, r.builds, r.boots, r.error, r.kept_tree, r.kept_commit, "
		    BRANCH_OF("r.base") RUNS_FROM_WHERE
		    " ORDER BY r.started_at DESC, r.id DESC LIMIT ?6 OFFSET ?7", &list, "reading runs", err,
		    RUNS_FILTER_FMT "ii", f->queue, f->verdict, f->since ? since : NULL, f->branch,
		    (sqlite3_int64)f->run, (sqlite3_int64)limit, (sqlite3_int64)f->offset);
	if (r < 0)
		goto out;
	/* run once per run listed, by run_drops() */
	r = prepare(db, "SELECT p.name FROM verdict v JOIN patch p ON p.id = v.patch_id"
		    " WHERE v.run_id = ? AND v.status = 'drop' ORDER BY p.position",
		    &drops, "reading a run's drops", err, NULL);
	if (r < 0)
		goto out;

	out = new_object();
	runs = new_array();
	obj_set(out, "runs", runs);
	while ((rc = sqlite3_step(list)) == SQLITE_ROW) {
		json_t *run = new_object(), *names = NULL;

		arr_add(runs, run);
		obj_set(run, "run", int_json(list, 0));
		obj_set(run, "queue", text_json(list, 1));
		obj_set(run, "source", text_json(list, 2));
		obj_set(run, "ref", text_json(list, 3));
		obj_set(run, "commit", text_json(list, 4));
		obj_set(run, "base", text_json(list, 5));
		obj_set(run, "branch", text_json(list, 15));
		obj_set(run, "verdict", text_json(list, 6));
		obj_set(run, "started_at", text_json(list, 7));
		obj_set(run, "finished_at", text_json(list, 8));
		obj_set(run, "seconds", real_json(list, 9));
		obj_set(run, "builds", int_json(list, 10));
		obj_set(run, "boots", int_json(list, 11));
		obj_set(run, "error", text_json(list, 12));
		obj_set(run, "kept_tree", text_json(list, 13));
		obj_set(run, "kept_commit", text_json(list, 14));
		r = run_drops(db, drops, sqlite3_column_int64(list, 0), &names, err);
		if (r < 0)
			goto out;
		obj_set(run, "drop", names);
	}
	if (rc != SQLITE_DONE) {
		r = db_error(db, "reading runs", err);
		goto out;
	}
	obj_set(out, "total", json_integer(total));
	obj_set(out, "limit", json_integer(limit));
	obj_set(out, "offset", json_integer(f->offset));
	r = 0;
out:
	sqlite3_finalize(count);
	sqlite3_finalize(list);
	sqlite3_finalize(drops);
	if (r < 0) {
		json_decref(out);
		errno = -r;
		return NULL;
	}
	return out;
}

json_t *history_run_report(sqlite3 *db, int64_t run, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	json_t *report = NULL;
	json_error_t je;
	int r, rc;

	r = prepare(db, "SELECT rr.report, r.verdict FROM run r LEFT JOIN run_report rr ON rr.run_id = r.id"
		    " WHERE r.id = ?", &st, "reading runs", err, "i", (sqlite3_int64)run);
	if (r < 0)
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		strbuf_addf(err, "no run %lld", (long long)run);
		r = -ENOENT;
	} else if (rc != SQLITE_ROW) {
		r = db_error(db, "reading runs", err);
	} else if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		strbuf_addf(err, "run %lld has no report yet (its verdict is %s)", (long long)run,
			    column_string(st, 1));
		r = -EAGAIN;
	} else if (!(report = json_loads(column_string(st, 0), 0, &je))) {
		strbuf_addf(err, "run %lld: the recorded report is not JSON: %s (line %d)", (long long)run,
			    je.text, je.line);
		r = -EIO;
	}
out:
	sqlite3_finalize(st);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	return report;
}

json_t *history_latest_unjobbed(sqlite3 *db, const char *source, const char *queue,
				const char *branch, const char *after, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int64_t run = 0;
	int r, rc;

	/* newest first by run_finished, stopping at the first match (+: not by the snapshot's index) */
	r = prepare(db, "SELECT r.id FROM run r JOIN snapshot s ON s.id = r.snapshot_id"
		    " WHERE +s.source = ?1 AND +s.queue = ?2 AND r.verdict IN ('pass', 'drop')"
		    " AND (r.base = ?3 OR r.base LIKE ?3 || '.%')"
		    " AND (?4 IS NULL OR r.finished_at > ?4)"
		    " AND NOT EXISTS (SELECT 1 FROM job j WHERE j.run_id = r.id)"
		    " ORDER BY r.finished_at DESC, r.id DESC LIMIT 1", &st, "reading runs", err, "ssss",
		    source, queue, branch, after);
	if (r < 0)
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		run = sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		r = -ENOENT;
	else
		r = db_error(db, "reading runs", err);
out:
	sqlite3_finalize(st);
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	return history_run_report(db, run, err);
}

/* An upstream sha, or a prefix of one long enough to mean one commit. */
static bool is_sha_prefix(const char *key)
{
	size_t n = strlen(key);

	if (n < 12 || n > 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)key[i]))
			return false;
	return true;
}

#define PATCH_VERDICTS_SELECT \
	"SELECT r.id, s.queue, r.started_at, p.name, p.upstream, p.subject, v.status, v.reason," \
	" v.regressions, v.changes, v.evidence, p.author, p.date, p.message_id, r.base, " \
	BRANCH_OF("r.base") ", r.finished_at" \
	" FROM verdict v JOIN patch p ON p.id = v.patch_id JOIN run r ON r.id = v.run_id" \
	" JOIN snapshot s ON s.id = r.snapshot_id"
#define PATCH_VERDICTS_ORDER " ORDER BY r.started_at DESC, r.id DESC, p.position"

/* MAJOR.MINOR of @branch as numbers; anything else sorts after every branch. */
static void branch_numbers(const char *branch, unsigned long *ret_major, unsigned long *ret_minor)
{
	char *end;

	*ret_major = strtoul(branch, &end, 10);
	*ret_minor = *end == '.' ? strtoul(end + 1, NULL, 10) : 0;
	if (end == branch) {
		*ret_major = (unsigned long)-1;
		*ret_minor = (unsigned long)-1;
	}
}

static int compare_branches(const void *a, const void *b)
{
	const char *x = json_string_value(json_object_get(*(json_t *const *)a, "branch"));
	const char *y = json_string_value(json_object_get(*(json_t *const *)b, "branch"));
	unsigned long x_major, x_minor, y_major, y_minor;

	branch_numbers(x ? x : "", &x_major, &x_minor);
	branch_numbers(y ? y : "", &y_major, &y_minor);
	if (x_major != y_major)
		return x_major < y_major ? -1 : 1;
	if (x_minor != y_minor)
		return x_minor < y_minor ? -1 : 1;
	return strcmp(x ? x : "", y ? y : "");
}

/*
 * history_patch()'s "branches": the first (newest) verdict of @verdicts
 * on each branch, in release order.
 */
static json_t *latest_per_branch(const json_t *verdicts)
{
	size_t n = json_array_size(verdicts), n_latest = 0, i;
	json_t **latest = xcalloc(n ? n : 1, sizeof(*latest)), *seen = new_object(), *out = new_array();
	json_t *v;

	json_array_foreach(verdicts, i, v) {
		const char *branch = json_string_value(json_object_get(v, "branch"));
		json_t *entry;

		if (!branch || json_object_get(seen, branch))
			continue;
		obj_set(seen, branch, json_true());
		entry = new_object();
		obj_set(entry, "branch", json_copy(json_object_get(v, "branch")));
		obj_set(entry, "base", json_copy(json_object_get(v, "base")));
		obj_set(entry, "run", json_copy(json_object_get(v, "run")));
		obj_set(entry, "queue", json_copy(json_object_get(v, "queue")));
		obj_set(entry, "name", json_copy(json_object_get(v, "name")));
		obj_set(entry, "status", json_copy(json_object_get(v, "status")));
		obj_set(entry, "reason", json_copy(json_object_get(v, "reason")));
		obj_set(entry, "started_at", json_copy(json_object_get(v, "started_at")));
		obj_set(entry, "finished_at", json_copy(json_object_get(v, "finished_at")));
		latest[n_latest++] = entry;
	}
	qsort(latest, n_latest, sizeof(*latest), compare_branches);
	for (i = 0; i < n_latest; i++)
		arr_add(out, latest[i]);
	free(latest);
	json_decref(seen);
	return out;
}

json_t *history_patch(sqlite3 *db, const char *key, struct strbuf *err)
{
	static const char by_upstream[] = PATCH_VERDICTS_SELECT
		" WHERE substr(lower(p.upstream), 1, length(?1)) = lower(?1)" PATCH_VERDICTS_ORDER;
	static const char by_name[] = PATCH_VERDICTS_SELECT " WHERE p.name = ?1" PATCH_VERDICTS_ORDER;
	sqlite3_stmt *st = NULL;
	json_t *out = NULL, *verdicts, *key_json = NULL;
	bool sha;
	int r, rc;

	if (!key || !key[0]) {
		strbuf_addf(err, "patch: the key is empty (give an upstream sha or a patch file name)");
		r = -EINVAL;
		goto out;
	}
	key_json = json_string(key);
	if (!key_json) {
		strbuf_addf(err, "patch: the key is not UTF-8 text");
		r = -EINVAL;
		goto out;
	}
	sha = is_sha_prefix(key);
	r = prepare(db, sha ? by_upstream : by_name, &st, "reading verdicts", err, "s", key);
	if (r < 0)
		goto out;

	out = new_object();
	verdicts = new_array();
	obj_set(out, "key", key_json);
	key_json = NULL;
	obj_set(out, "match", json_string(sha ? "upstream" : "name"));
	obj_set(out, "verdicts", verdicts);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(st, 0);
		const char *name = column_string(st, 3);
		json_t *v = new_object(), *names = NULL;

		arr_add(verdicts, v);
		obj_set(v, "run", json_integer(run));
		obj_set(v, "queue", text_json(st, 1));
		obj_set(v, "started_at", text_json(st, 2));
		obj_set(v, "name", text_json(st, 3));
		obj_set(v, "upstream", text_json(st, 4));
		obj_set(v, "subject", text_json(st, 5));
		obj_set(v, "status", text_json(st, 6));
		obj_set(v, "reason", text_json(st, 7));
		r = names_json(st, 8, "regressions", run, name, &names, err);
		if (r < 0)
			goto out;
		obj_set(v, "regressions", names);
		r = names_json(st, 9, "changes", run, name, &names, err);
		if (r < 0)
			goto out;
		obj_set(v, "changes", names);
		obj_set(v, "evidence", text_json(st, 10));
		obj_set(v, "author", text_json(st, 11));
		obj_set(v, "date", text_json(st, 12));
		obj_set(v, "message_id", text_json(st, 13));
		obj_set(v, "base", text_json(st, 14));
		obj_set(v, "branch", text_json(st, 15));
		obj_set(v, "finished_at", text_json(st, 16));
	}
	if (rc != SQLITE_DONE)
		r = db_error(db, "reading verdicts", err);
	else
		obj_set(out, "branches", latest_per_branch(verdicts));
out:
	sqlite3_finalize(st);
	json_decref(key_json);
	if (r < 0) {
		json_decref(out);
		errno = -r;
		return NULL;
	}
	return out;
}

/*
 * What the record knows of case @name: the kind its latest recorded boot
 * gave it (NULL when no boot ran it), and whether any verdict names it.
 */
static int case_known(sqlite3 *db, const char *name, json_t **ret_kind, bool *ret_known,
		      struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	int r, rc;

	*ret_kind = NULL;
	*ret_known = false;
	r = prepare(db, "SELECT kind FROM case_result WHERE name = ? ORDER BY boot_id DESC LIMIT 1",
		    &st, "reading case results", err, "s", name);
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		r = db_error(db, "reading case results", err);
		goto out;
	}
	*ret_kind = rc == SQLITE_ROW ? text_json(st, 0) : json_null();
	*ret_known = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	st = NULL;
	if (*ret_known)
		goto out;
	r = prepare(db, "SELECT 1 FROM verdict v, json_each(v.regressions) j WHERE j.value = ?1"
		    " UNION ALL SELECT 1 FROM verdict v, json_each(v.changes) j WHERE j.value = ?1 LIMIT 1",
		    &st, "reading verdicts", err, "s", name);
	if (r < 0)
		goto out;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		r = db_error(db, "reading verdicts", err);
	*ret_known = rc == SQLITE_ROW;
out:
	sqlite3_finalize(st);
	if (r < 0) {
		json_decref(*ret_kind);
		*ret_kind = NULL;
	}
	return r;
}

/* One finished run's outcome for case @name into @entry. */
static int case_outcome(sqlite3 *db, sqlite3_stmt *st, int64_t run, const char *name, json_t *entry,
			struct strbuf *err)
{
	json_t *regressed = new_array(), *changed = new_array();
	int rc;

	if (sql_rebind(st, "is", (sqlite3_int64)run, name) < 0) {
		json_decref(regressed);
		json_decref(changed);
		return db_error(db, "reading verdicts", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		arr_add(strcmp(column_string(st, 1), "regressed") ? changed : regressed, text_json(st, 0));
	if (rc != SQLITE_DONE) {
		json_decref(regressed);
		json_decref(changed);
		return db_error(db, "reading verdicts", err);
	}
	/* a case is a contract or a quirk, so at most one list is filled; a regression says more */
	if (json_array_size(regressed) || !json_array_size(changed)) {
		obj_set(entry, "outcome", json_string(json_array_size(regressed) ? "regressed" : "pass"));
		obj_set(entry, "patches", regressed);
		json_decref(changed);
	} else {
		obj_set(entry, "outcome", json_string("changed"));
		obj_set(entry, "patches", changed);
		json_decref(regressed);
	}
	return 0;
}

/*
 * The status case ?1 had in the boot (its first attempt) of the tree of
 * run r's sequence chosen by @seq_where, with the run's config and suite:
 * the base is the sequence of no patch, the candidate the run's largest.
 */
#define CASE_STATUS_IN(seq_where) \
	"(SELECT cr.status FROM boot b JOIN case_result cr ON cr.boot_id = b.id AND cr.name = ?1" \
	" WHERE b.tree = (SELECT q.tree FROM run_sequence q WHERE q.run_id = r.id " seq_where " LIMIT 1)" \
	" AND b.config = r.config AND b.suite = r.suite ORDER BY b.attempt LIMIT 1)"

json_t *history_case(sqlite3 *db, const char *name, int64_t limit, int64_t offset, struct strbuf *err)
{
	return history_case_in(db, name, NULL, limit, offset, err);
}

json_t *history_case_in(sqlite3 *db, const char *name, const char *queue, int64_t limit,
			int64_t offset, struct strbuf *err)
{
	sqlite3_stmt *runs_st = NULL, *mentions = NULL, *count = NULL;
	json_t *out = NULL, *runs, *kind = NULL, *name_json = NULL;
	int64_t total = 0;
	bool known;
	int r = -EINVAL, rc;

	if (limit < 0 || offset < 0) {
		strbuf_addf(err, "%s: %lld is negative", limit < 0 ? "limit" : "offset",
			    (long long)(limit < 0 ? limit : offset));
		goto out;
	}
	if (limit > HISTORY_LIMIT_MAX)
		limit = HISTORY_LIMIT_MAX;
	if (!name || !name[0] || !(name_json = json_string(name))) {
		strbuf_addf(err, "case: the name is %s", name && name[0] ? "not UTF-8 text" : "empty");
		goto out;
	}
	r = case_known(db, name, &kind, &known, err);
	if (r < 0) {
		json_decref(name_json);
		goto out;
	}
	out = new_object();
	runs = new_array();
	obj_set(out, "case", name_json);
	obj_set(out, "kind", kind);
	obj_set(out, "runs", runs);
	if (!known)
		goto set_total;

	r = prepare(db, "SELECT count(*) FROM run r JOIN snapshot s ON s.id = r.snapshot_id"
		    " WHERE r.verdict IN ('pass', 'drop') AND (?1 IS NULL OR s.queue = ?1)", &count,
		    "counting runs", err, "s", queue);
	if (r < 0)
		goto out;
	if (sqlite3_step(count) != SQLITE_ROW) {
		r = db_error(db, "counting runs", err);
		goto out;
	}
	total = sqlite3_column_int64(count, 0);
	/* a limit of 0 is every run: LIMIT -1 */
	r = prepare(db, "SELECT r.id, s.queue, r.started_at, "
		    CASE_STATUS_IN("AND q.patches = '[]'") ", "
		    CASE_STATUS_IN("ORDER BY json_array_length(q.patches) DESC, q.position")
		    " FROM run r JOIN snapshot s ON s.id = r.snapshot_id"
		    " WHERE r.verdict IN ('pass', 'drop') AND (?4 IS NULL OR s.queue = ?4)"
		    " ORDER BY r.started_at DESC, r.id DESC LIMIT ?2 OFFSET ?3",
		    &runs_st, "reading runs", err, "siis", name, (sqlite3_int64)(limit ? limit : -1),
		    (sqlite3_int64)offset, queue);
	if (r < 0)
		goto out;
	r = prepare(db, "SELECT p.name, 'regressed', p.position FROM verdict v JOIN patch p ON p.id = v.patch_id,"
		    " json_each(v.regressions) j WHERE v.run_id = ?1 AND j.value = ?2"
		    " UNION ALL SELECT p.name, 'changed', p.position FROM verdict v JOIN patch p ON p.id = v.patch_id,"
		    " json_each(v.changes) j WHERE v.run_id = ?1 AND j.value = ?2 ORDER BY 3",
		    &mentions, "reading verdicts", err, NULL);	/* per run, by case_outcome() */
	if (r < 0)
		goto out;
	while ((rc = sqlite3_step(runs_st)) == SQLITE_ROW) {
		json_t *entry = new_object();

		arr_add(runs, entry);
		obj_set(entry, "run", int_json(runs_st, 0));
		obj_set(entry, "queue", text_json(runs_st, 1));
		obj_set(entry, "started_at", text_json(runs_st, 2));
		obj_set(entry, "base", text_json(runs_st, 3));
		obj_set(entry, "candidate", text_json(runs_st, 4));
		r = case_outcome(db, mentions, sqlite3_column_int64(runs_st, 0), name, entry, err);
		if (r < 0)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		r = db_error(db, "reading runs", err);
		goto out;
	}
set_total:
	obj_set(out, "total", json_integer(total));
out:
	sqlite3_finalize(count);
	sqlite3_finalize(runs_st);
	sqlite3_finalize(mentions);
	if (r < 0) {
		json_decref(out);
		errno = -r;
		return NULL;
	}
	return out;
}

/* The patches run @run left open into @open, with @st (history_regressions()'s second statement). */
static int run_open(sqlite3 *db, sqlite3_stmt *st, int64_t run, json_t *open, struct strbuf *err)
{
	int r, rc;

	if (sql_rebind(st, "i", (sqlite3_int64)run) < 0)
		return db_error(db, "reading verdicts", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *entry = new_object(), *cases = NULL;

		arr_add(open, entry);
		obj_set(entry, "patch", text_json(st, 0));
		obj_set(entry, "upstream", text_json(st, 1));
		r = names_json(st, 2, "regressions", run, column_string(st, 0), &cases, err);
		if (r < 0)
			return r;
		obj_set(entry, "cases", cases);
		obj_set(entry, "reason", text_json(st, 3));
	}
	return rc == SQLITE_DONE ? 0 : db_error(db, "reading verdicts", err);
}

json_t *history_regressions(sqlite3 *db, bool open_only, struct strbuf *err)
{
	sqlite3_stmt *latest = NULL, *open_st = NULL;
	json_t *out = NULL, *queues;
	int r, rc;

	r = prepare(db, "SELECT queue, id, started_at, verdict, branch, base" LATEST_PER_QUEUE_AND_BRANCH,
		    &latest, "reading runs", err, "");
	if (r < 0)
		goto out;
	r = prepare(db, "SELECT p.name, p.upstream, v.regressions, v.reason FROM verdict v"
		    " JOIN patch p ON p.id = v.patch_id WHERE v.run_id = ? AND v.status = 'drop'"
		    " AND v.reason IN ('regression', 'build', 'boot') ORDER BY p.position",
		    &open_st, "reading verdicts", err, NULL);	/* per queue, by run_open() */
	if (r < 0)
		goto out;

	out = new_object();
	queues = new_array();
	obj_set(out, "queues", queues);
	while ((rc = sqlite3_step(latest)) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(latest, 1);
		json_t *queue = new_object(), *open = new_array();

		obj_set(queue, "queue", text_json(latest, 0));
		obj_set(queue, "branch", text_json(latest, 4));
		obj_set(queue, "base", text_json(latest, 5));
		obj_set(queue, "run", json_integer(run));
		obj_set(queue, "started_at", text_json(latest, 2));
		obj_set(queue, "verdict", text_json(latest, 3));
		obj_set(queue, "open", open);
		r = run_open(db, open_st, run, open, err);
		if (r == 0 && (!open_only || json_array_size(open)))
			arr_add(queues, queue);
		else
			json_decref(queue);
		if (r < 0)
			goto out;
	}
	if (rc != SQLITE_DONE)
		r = db_error(db, "reading runs", err);
out:
	sqlite3_finalize(latest);
	sqlite3_finalize(open_st);
	if (r < 0) {
		json_decref(out);
		errno = -r;
		return NULL;
	}
	return out;
}

json_t *history_branches(sqlite3 *db, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;
	json_t *out = NULL, *branches;
	int r, rc;

	r = prepare(db, "SELECT queue, branch, id, base, verdict, started_at, finished_at,"
		    " (SELECT count(*) FROM verdict v WHERE v.run_id = latest.id AND v.status = 'drop')"
		    LATEST_PER_QUEUE_AND_BRANCH, &st, "reading runs", err, "");
	if (r < 0)
		goto out;
	out = new_object();
	branches = new_array();
	obj_set(out, "branches", branches);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *entry = new_object();

		arr_add(branches, entry);
		obj_set(entry, "queue", text_json(st, 0));
		obj_set(entry, "branch", text_json(st, 1));
		obj_set(entry, "run", int_json(st, 2));
		obj_set(entry, "base", text_json(st, 3));
		obj_set(entry, "verdict", text_json(st, 4));
		obj_set(entry, "started_at", text_json(st, 5));
		obj_set(entry, "finished_at", text_json(st, 6));
		obj_set(entry, "drops", int_json(st, 7));
	}
	if (rc != SQLITE_DONE)
		r = db_error(db, "reading runs", err);
out:
	sqlite3_finalize(st);
	if (r < 0) {
		json_decref(out);
		errno = -r;
		return NULL;
	}
	return out;
}

/* A word of 7 to 40 hex digits: what people paste of an upstream sha. */
static bool is_short_sha(const char *s, size_t n)
{
	if (n < 7 || n > 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

#define SEARCH_FIRST_WORDS 4

json_t *history_search(sqlite3 *db, const char *words, struct strbuf *err)
{
	/*
	 * instr() rather than LIKE: a word is matched as written, so '%' and
	 * '_' in it need no escaping. The words come as one JSON array; the
	 * first SEARCH_FIRST_WORDS are also bound one each (NULL when there
	 * are fewer), and tested before it: most patches fail on those, and
	 * json_each() for every patch was the search's cost (10,000 runs:
	 * 118 ms, against 49 ms so).
	 */
#define SEARCH_WORD(n) \
	"(?" #n " IS NULL OR instr(lower(coalesce(p.subject, '')), lower(?" #n ")) > 0) AND "
	static const char sql[] =
		"SELECT p.name, p.upstream, max(p.subject), max(p.author), count(DISTINCT v.run_id),"
		" max(v.run_id) FROM patch p JOIN verdict v ON v.patch_id = p.id JOIN run r ON r.id = v.run_id"
		" WHERE (" SEARCH_WORD(4) SEARCH_WORD(5) SEARCH_WORD(6) SEARCH_WORD(7)
		" NOT EXISTS (SELECT 1 FROM json_each(?1) w"
		"  WHERE instr(lower(coalesce(p.subject, '')), lower(w.value)) = 0))"
		" OR (?2 IS NOT NULL AND substr(lower(p.upstream), 1, length(?2)) = lower(?2))"
		" GROUP BY p.name, p.upstream ORDER BY max(r.started_at) DESC, max(r.id) DESC LIMIT ?3";
#undef SEARCH_WORD
	const char *first[SEARCH_FIRST_WORDS] = { NULL };
	json_t *list = new_array(), *out = NULL, *patches, *query;
	sqlite3_stmt *st = NULL;
	char *array = NULL, *sha = NULL;
	size_t n_words = 0, n = 0;
	bool unmatchable = false;
	int r = -EINVAL, rc;

	for (const char *at = words ? words : ""; *at;) {
		size_t len;
		json_t *word;

		at += strspn(at, " \t\r\n");
		len = strcspn(at, " \t\r\n");
		if (!len)
			break;
		/* not UTF-8: it cannot be in a stored subject, which is */
		word = json_stringn(at, len);
		if (!word)
			unmatchable = true;
		else
			arr_add(list, word);
		if (is_short_sha(at, len) && !n_words)
			sha = xstrndup(at, len);
		n_words++;
		at += len;
	}
	if (!n_words) {
		strbuf_addf(err, "search: no word to look for (give words of a subject or an upstream sha)");
		goto out;
	}
	if (n_words > 1) {
		free(sha);
		sha = NULL;
	}
	if (unmatchable) {
		/* an empty answer, without asking: "[]" would match every subject */
		r = 0;
		out = new_object();
		obj_set(out, "query", json_string(""));
		obj_set(out, "patches", new_array());
		obj_set(out, "more", json_false());
		goto out;
	}
	array = json_dumps(list, JSON_COMPACT);
	if (!array)
		abort();
	for (size_t i = 0; i < SEARCH_FIRST_WORDS && i < json_array_size(list); i++)
		first[i] = json_string_value(json_array_get(list, i));
	r = prepare(db, sql, &st, "searching patches", err, "ssissss", array, sha,
		    (sqlite3_int64)HISTORY_SEARCH_MAX + 1, first[0], first[1], first[2], first[3]);
	if (r < 0)
		goto out;
	out = new_object();
	patches = new_array();
	query = json_string(words);
	obj_set(out, "query", query ? query : json_string(""));
	obj_set(out, "patches", patches);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *p;

		if (++n > HISTORY_SEARCH_MAX)
			break;
		p = new_object();
		arr_add(patches, p);
		obj_set(p, "name", text_json(st, 0));
		obj_set(p, "upstream", text_json(st, 1));
		obj_set(p, "subject", text_json(st, 2));
		obj_set(p, "author", text_json(st, 3));
		obj_set(p, "runs", int_json(st, 4));
		obj_set(p, "last_run", int_json(st, 5));
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = db_error(db, "searching patches", err);
	obj_set(out, "more", json_boolean(n > HISTORY_SEARCH_MAX));
out:
	sqlite3_finalize(st);
	json_decref(list);
	free(array);
	free(sha);
	if (r < 0) {
		json_decref(out);
		errno = -r;
		return NULL;
	}
	return out;
}
