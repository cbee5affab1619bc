// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/sql.h"
#include "basic/xalloc.h"
#include "record/db.h"

int db_error(sqlite3 *db, const char *what, struct strbuf *err)
{
	if (err)
		strbuf_addf(err, "database: %s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

static int exec(sqlite3 *db, const char *sql, const char *what, struct strbuf *err)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (err)
			strbuf_addf(err, "database: %s: %s", what, msg ? msg : "error");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

static int user_version(sqlite3 *db, int *ret)
{
	sqlite3_stmt *st;
	int r = -EIO;

	if (sql_prepare(db, &st, "PRAGMA user_version", "") < 0)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*ret = sqlite3_column_int(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

int db_open(const char *path, sqlite3 **ret_db, struct strbuf *err)
{
	return db_open_timeout(path, DB_BUSY_TIMEOUT_MS, ret_db, err);
}

bool db_busy(sqlite3 *db)
{
	int rc = sqlite3_errcode(db);

	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

bool db_full(sqlite3 *db)
{
	return sqlite3_errcode(db) == SQLITE_FULL;
}

int db_open_timeout(const char *path, int busy_timeout_ms, sqlite3 **ret_db, struct strbuf *err)
{
	sqlite3 *db = NULL;
	int version = 0, r;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		strbuf_addf(err, "database: cannot open %s: %s", path,
			    db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	sqlite3_busy_timeout(db, busy_timeout_ms);
	r = exec(db, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;",
		 path, err);
	if (r == 0)
		r = user_version(db, &version) < 0 ? db_error(db, path, err) : 0;
	if (r == 0 && version > (int)db_migration_count) {
		strbuf_addf(err, "database: %s has schema version %d, newer than this gate knows (%zu)",
			    path, version, db_migration_count);
		r = -EPROTO;
	}
	for (size_t i = (size_t)version; r == 0 && i < db_migration_count; i++) {
		char pragma[64];

		r = exec(db, "BEGIN IMMEDIATE", path, err);
		if (r == 0)
			r = exec(db, db_migrations[i].sql, db_migrations[i].name, err);
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%zu", i + 1);
		if (r == 0)
			r = exec(db, pragma, db_migrations[i].name, err);
		if (r == 0)
			r = exec(db, "COMMIT", db_migrations[i].name, err);
		else
			exec(db, "ROLLBACK", path, NULL);
	}
	if (r < 0) {
		sqlite3_close(db);
		return r;
	}
	*ret_db = db;
	return 0;
}

int db_open_readonly(const char *path, sqlite3 **ret_db, struct strbuf *err)
{
	sqlite3 *db = NULL;
	struct stat sb;
	int r = -EIO, version;

	if (stat(path, &sb) < 0) {
		r = -errno;
		strbuf_addf(err, "no database at %s: %s", path, strerror(errno));
		return r;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		strbuf_addf(err, "cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	sqlite3_busy_timeout(db, DB_BUSY_TIMEOUT_MS);
	if (user_version(db, &version) < 0) {
		strbuf_addf(err, "cannot read %s: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (version == 0) {
		strbuf_addf(err, "%s is not a backport-gate database (it has no schema)", path);
		r = -EINVAL;
		goto out;
	}
	if (version > (int)db_migration_count) {
		strbuf_addf(err, "%s has schema version %d, newer than this gate knows (%zu)", path, version,
			    db_migration_count);
		r = -EPROTO;
		goto out;
	}
	/* an older schema is fine: what history.h's questions read is all in 0001-initial.sql */
	*ret_db = db;
	db = NULL;
	r = 0;
out:
	sqlite3_close(db);
	return r;
}

void db_close(sqlite3 *db)
{
	sqlite3_close(db);
}

int db_begin(sqlite3 *db)
{
	return exec(db, "BEGIN IMMEDIATE", "begin", NULL);
}

int db_commit(sqlite3 *db)
{
	return exec(db, "COMMIT", "commit", NULL);
}

int db_rollback(sqlite3 *db)
{
	return sqlite3_get_autocommit(db) ? 0 : exec(db, "ROLLBACK", "rollback", NULL);
}

static const char *column_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? (const char *)s : "";
}

int db_build_get(sqlite3 *db, const struct tree_key *key, bool *ret_found, bool *ret_ok,
		 struct strbuf *first_error)
{
	sqlite3_stmt *st;
	int rc;

	*ret_found = false;
	if (sql_prepare(db, &st, "SELECT status, first_error FROM build WHERE tree = ? AND config = ?",
			"ss", key->tree, key->config) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret_found = true;
		*ret_ok = strcmp(column_text(st, 0), "ok") == 0;
		strbuf_adds(first_error, column_text(st, 1));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int db_build_put(sqlite3 *db, const struct tree_key *key, bool ok, const char *first_error,
		 double seconds)
{
	return sql_exec(db, "INSERT OR REPLACE INTO build (tree, config, status, first_error, seconds) "
			"VALUES (?, ?, ?, ?, ?)", "ssssd", key->tree, key->config, ok ? "ok" : "failed",
			first_error, seconds);
}

int db_build_inputs_get(sqlite3 *db, const struct tree_key *key, bool *ret_found,
			struct strbuf *inputs)
{
	sqlite3_stmt *st;
	int rc;

	*ret_found = false;
	if (sql_prepare(db, &st, "SELECT inputs FROM build WHERE tree = ? AND config = ? "
			"AND status = 'ok' AND inputs IS NOT NULL", "ss", key->tree, key->config) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret_found = true;
		strbuf_adds(inputs, column_text(st, 0));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int db_build_inputs_put(sqlite3 *db, const struct tree_key *key, const char *inputs)
{
	return sql_exec(db, "UPDATE build SET inputs = ? WHERE tree = ? AND config = ?", "sss", inputs,
			key->tree, key->config);
}

static int status_from_name(const char *name, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

static int load_cases(sqlite3 *db, sqlite3_int64 boot_id, struct ktap_run *ktap)
{
	static const char *const statuses[] = { "pass", "fail", "quirk-changed", "error" };
	sqlite3_stmt *st;
	size_t n = 0;
	int rc;

	if (sql_prepare(db, &st, "SELECT name, kind, status, diagnostic FROM case_result "
			"WHERE boot_id = ? ORDER BY rowid", "i", boot_id) < 0)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct case_result *c;
		int s = status_from_name(column_text(st, 2), statuses, 4);

		ktap->cases = xrealloc(ktap->cases, (n + 1) * sizeof(*ktap->cases));
		c = &ktap->cases[n++];
		c->name = xstrdup(column_text(st, 0));
		c->quirk = strcmp(column_text(st, 1), "quirk") == 0;
		c->status = s < 0 ? CASE_ERROR : (enum case_status)s;
		c->diagnostic = xstrdup(column_text(st, 3));
	}
	ktap->n_cases = n;
	ktap->planned = n;
	ktap->complete = true;
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

void db_boot_release(struct db_boot *boot)
{
	strbuf_release(&boot->evidence);
	ktap_run_release(&boot->ktap);
}

int db_boot_get(sqlite3 *db, const struct tree_key *key, int attempt, bool *ret_found,
		struct db_boot *boot)
{
	static const char *const statuses[] = { "ok", "panic", "timeout", "incomplete" };
	sqlite3_stmt *st;
	sqlite3_int64 boot_id = 0;
	int rc, r = 0;

	*ret_found = false;
	if (sql_prepare(db, &st, "SELECT id, status, evidence FROM boot WHERE tree = ? AND config = ? "
			"AND suite = ? AND attempt = ?", "sssi", key->tree, key->config, key->suite,
			(sqlite3_int64)attempt) < 0)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int s = status_from_name(column_text(st, 1), statuses, 4);

		*ret_found = true;
		boot_id = sqlite3_column_int64(st, 0);
		boot->status = s < 0 ? BOOT_INCOMPLETE : (enum boot_status)s;
		boot->failed = boot->status != BOOT_OK;
		strbuf_adds(&boot->evidence, column_text(st, 2));
	} else if (rc != SQLITE_DONE) {
		r = -EIO;
	}
	sqlite3_finalize(st);
	if (r == 0 && *ret_found && !boot->failed)
		r = load_cases(db, boot_id, &boot->ktap);
	return r;
}

int db_boot_put(sqlite3 *db, const struct tree_key *key, const struct db_boot *boot,
		const char *accel, double seconds)
{
	sqlite3_int64 boot_id;
	int r;

	if (db_begin(db) < 0)
		return -EIO;
	r = sql_exec(db, "INSERT INTO boot (tree, config, suite, attempt, status, evidence, accel, seconds) "
		     "VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM boot "
		     "WHERE tree = ?1 AND config = ?2 AND suite = ?3), ?4, ?5, ?6, ?7)", "ssssssd",
		     key->tree, key->config, key->suite,
		     boot_status_name(boot->failed ? boot->status : BOOT_OK), boot->evidence.buf, accel,
		     seconds);
	boot_id = sqlite3_last_insert_rowid(db);
	for (size_t i = 0; r == 0 && i < boot->ktap.n_cases; i++) {
		const struct case_result *c = &boot->ktap.cases[i];

		r = sql_exec(db, "INSERT INTO case_result (boot_id, name, kind, status, diagnostic) "
			     "VALUES (?, ?, ?, ?, ?)", "issss", boot_id, c->name,
			     c->quirk ? "quirk" : "contract", case_status_name(c->status), c->diagnostic);
	}
	if (r == 0)
		r = db_commit(db);
	else
		exec(db, "ROLLBACK", "boot", NULL);
	return r;
}
