// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/sql.h"
#include "basic/xalloc.h"
#include "record/db.h"
#include "record/run.h"

/* @r's message in @err, naming @what; sqlite3_errmsg() says nothing of a bind format's mismatch. */
static int run_error(sqlite3 *db, int r, const char *what, struct strbuf *err)
{
	if (r == -EINVAL) {
		strbuf_addf(err, "database: %s: a statement's parameters do not match its bind format",
			    what);
		return r;
	}
	return db_error(db, what, err);
}

/* The one row of a statement that must give one (an id). 0, or -EIO. */
static int select_id(sqlite3_stmt *st, int64_t *ret_id)
{
	int r = -EIO;

	if (sqlite3_step(st) == SQLITE_ROW) {
		*ret_id = sqlite3_column_int64(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

static int insert_snapshot(sqlite3 *db, const struct run_snapshot *snap, int64_t *ret_id,
			   int64_t *ret_patch_ids)
{
	sqlite3_stmt *st;
	int r;

	r = sql_exec(db, "INSERT OR IGNORE INTO snapshot (queue, source, ref, commit_id, content_hash) "
		     "VALUES (?, ?, ?, ?, ?)", "sssss", snap->queue, snap->source, snap->ref,
		     snap->commit, snap->content_hash);
	if (r == 0)
		r = sql_prepare(db, &st, "SELECT id FROM snapshot WHERE queue = ? AND content_hash = ?",
				"ss", snap->queue, snap->content_hash);
	if (r == 0)
		r = select_id(st, ret_id);
	for (size_t i = 0; r == 0 && i < snap->n; i++) {
		const struct run_patch *p = &snap->patches[i];

		r = sql_exec(db, "INSERT OR IGNORE INTO patch (snapshot_id, position, name, upstream, "
			     "subject, author, content_hash, error, date, message_id) "
			     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "iissssssss",
			     (sqlite3_int64)*ret_id, (sqlite3_int64)i + 1, p->name, p->upstream,
			     p->subject, p->author, p->content_hash, p->error, p->date, p->message_id);
		if (r == 0)
			r = sql_prepare(db, &st, "SELECT id FROM patch WHERE snapshot_id = ? AND position = ?",
					"ii", (sqlite3_int64)*ret_id, (sqlite3_int64)i + 1);
		if (r == 0)
			r = select_id(st, &ret_patch_ids[i]);
	}
	return r;
}

/* This machine's boot: "<boot id>", or "" when the kernel does not say. */
static void boot_id(char out[64])
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_read_file(&sb, "/proc/sys/kernel/random/boot_id");
	strbuf_rtrim(&sb);
	snprintf(out, 64, "%s", sb.buf);
	strbuf_release(&sb);
}

/* true when the process @owner ("<boot id>:<pid>") names is gone for sure. */
static bool owner_gone(const char *owner, const char *this_boot)
{
	const char *colon = strrchr(owner, ':');
	char *end;
	long pid;

	if (!colon || !this_boot[0])
		return false;
	if ((size_t)(colon - owner) != strlen(this_boot) ||
	    strncmp(owner, this_boot, (size_t)(colon - owner)) != 0)
		return true;	/* recorded before the machine's last boot */
	pid = strtol(colon + 1, &end, 10);
	if (*end || pid <= 0)
		return false;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int run_reap(sqlite3 *db, unsigned *ret_reaped, struct strbuf *err)
{
	char this_boot[64], owner[128];
	sqlite3_stmt *st = NULL;
	int64_t *gone = NULL;
	size_t n = 0;
	int r, step;

	*ret_reaped = 0;
	boot_id(this_boot);
	r = sql_prepare(db, &st, "SELECT id, owner FROM run WHERE verdict = 'running' AND "
			"owner IS NOT NULL", "");
	while (r == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		snprintf(owner, sizeof(owner), "%s", (const char *)sqlite3_column_text(st, 1));
		if (owner_gone(owner, this_boot)) {
			gone = xreallocarray(gone, n + 1, sizeof(*gone));
			gone[n++] = sqlite3_column_int64(st, 0);
		}
	}
	if (r == 0 && step != SQLITE_DONE)
		r = -EIO;
	sqlite3_finalize(st);
	for (size_t i = 0; r == 0 && i < n; i++) {
		r = sql_exec(db, "UPDATE run SET verdict = 'error', error = 'interrupted: the process "
			     "recording it is gone (killed, or the machine restarted)', "
			     "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') "
			     "WHERE id = ? AND verdict = 'running'", "i", (sqlite3_int64)gone[i]);
		if (r == 0)
			(*ret_reaped) += (unsigned)sqlite3_changes(db);
	}
	free(gone);
	return r < 0 ? run_error(db, r, "ending interrupted runs", err) : 0;
}

int run_start(sqlite3 *db, const struct run_snapshot *snap, const char *base, const char *suite,
	      int64_t *ret_run, int64_t *ret_patch_ids, struct strbuf *err)
{
	char this_boot[64], *owner;
	int64_t snapshot_id;
	int r;

	*ret_run = 0;
	boot_id(this_boot);
	owner = xasprintf("%s:%ld", this_boot, (long)getpid());
	r = db_begin(db);
	if (r == 0)
		r = insert_snapshot(db, snap, &snapshot_id, ret_patch_ids);
	if (r == 0)
		r = sql_exec(db, "INSERT INTO run (snapshot_id, base, suite, verdict, owner) "
			     "VALUES (?, ?, ?, 'running', ?)", "isss", (sqlite3_int64)snapshot_id, base,
			     suite, owner);
	free(owner);
	if (r == 0) {
		*ret_run = sqlite3_last_insert_rowid(db);
		r = db_commit(db);
	}
	if (r < 0) {
		*ret_run = 0;
		r = run_error(db, r, "recording the snapshot", err);
		db_rollback(db);
	}
	return r;
}

/* @list as the record keeps it: a compact JSON array of strings (caller frees). */
static char *names_json_text(const struct strlist *list)
{
	json_t *a = json_array();
	char *text;

	for (size_t i = 0; list && i < list->n; i++)
		json_array_append_new(a, json_string(list->items[i]));
	text = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	if (!text)
		abort();	/* jansson fails only when out of memory */
	return text;
}

/* Run @run's JSON report @text (NULL: none, nothing written), in its own table (0010). */
static int put_report(sqlite3 *db, int64_t run, const char *text)
{
	if (!text)
		return 0;
	return sql_exec(db, "INSERT OR REPLACE INTO run_report (run_id, report) VALUES (?, ?)", "is",
			(sqlite3_int64)run, text);
}

static int insert_patch_rows(sqlite3 *db, const struct run_verdict *v)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < v->n; i++) {
		const struct run_patch_result *p = &v->patches[i];
		char *regressions = names_json_text(p->regressions);
		char *changes = names_json_text(p->changes);

		r = sql_exec(db, "INSERT OR REPLACE INTO apply_result (run_id, patch_id, status, "
			     "offset_lines, message) VALUES (?, ?, ?, ?, ?)", "iisis",
			     (sqlite3_int64)v->run, (sqlite3_int64)v->patch_ids[i], p->apply_status,
			     (sqlite3_int64)p->offset, p->apply_message);
		if (r == 0)
			r = sql_exec(db, "INSERT OR REPLACE INTO verdict (run_id, patch_id, status, reason, "
				     "regressions, changes, evidence, steps) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				     "iissssss", (sqlite3_int64)v->run, (sqlite3_int64)v->patch_ids[i],
				     p->status, p->reason, regressions, changes, p->evidence, p->steps);
		free(regressions);
		free(changes);
	}
	return r;
}

int run_record_verdict(sqlite3 *db, const struct run_verdict *v, struct strbuf *err)
{
	char *text = json_dumps(v->report, JSON_COMPACT);
	int r;

	if (!text)
		abort();	/* jansson fails only when out of memory */
	r = db_begin(db);
	if (r == 0)
		r = insert_patch_rows(db, v);
	if (r == 0)
		r = run_sequence_set_base(db, v->run, v->base_commit, v->config);
	for (size_t i = 0; r == 0 && i < v->n_sequences; i++)
		r = run_sequence_put(db, v->run, i + 1, &v->sequences[i]);
	if (r == 0)
		r = sql_exec(db, "UPDATE run SET verdict = ?, error = NULL, builds = ?, "
			     "boots = ?, evaluations = ?, seconds = ?, kept_tree = ?, kept_commit = ?, "
			     "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
			     "siiidssi", v->verdict, (sqlite3_int64)v->stats.builds,
			     (sqlite3_int64)v->stats.boots, (sqlite3_int64)v->stats.evaluations,
			     v->stats.seconds, v->kept_tree, v->kept_commit, (sqlite3_int64)v->run);
	if (r == 0 && sqlite3_changes(db) != 1) {
		strbuf_addf(err, "database: recording the verdict: run %lld is not in the record",
			    (long long)v->run);
		db_rollback(db);
		free(text);
		return -ENOENT;
	}
	if (r == 0)
		r = put_report(db, v->run, text);
	if (r == 0)
		r = db_commit(db);
	if (r < 0) {
		r = run_error(db, r, "recording the verdict", err);
		db_rollback(db);
	}
	free(text);
	return r;
}

int run_record_error(sqlite3 *db, int64_t run, const char *error, json_t *report,
		     const struct run_stats *stats, struct strbuf *err)
{
	char *text = report ? json_dumps(report, JSON_COMPACT) : NULL;
	int r = db_begin(db);

	if (r == 0)
		r = sql_exec(db, "UPDATE run SET verdict = 'error', error = ?, builds = ?, "
			     "boots = ?, evaluations = ?, seconds = ?, "
			     "finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
			     "siiidi", error, (sqlite3_int64)stats->builds, (sqlite3_int64)stats->boots,
			     (sqlite3_int64)stats->evaluations, stats->seconds, (sqlite3_int64)run);
	if (r == 0)
		r = put_report(db, run, text);
	if (r == 0)
		r = db_commit(db);
	free(text);
	if (r < 0) {
		r = run_error(db, r, "recording the run's error", err);
		db_rollback(db);
	}
	return r;
}
