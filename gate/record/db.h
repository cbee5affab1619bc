/* SPDX-License-Identifier: GPL-2.0 */
/*
 * db: the gate's SQLite record (schema: db/migrations, embedded at build
 * time and applied in order; user_version is the number applied). WAL, a
 * busy timeout, foreign keys on.
 *
 * A connection belongs to one thread: the daemon opens one per thread
 * (its main loop, each HTTP thread, the notifier), each with a busy
 * timeout as long as that thread may wait on another process's lock. In
 * WAL mode a reader is never blocked by a writer (even one that holds
 * BEGIN EXCLUSIVE); only a write waits, up to the busy timeout, and then
 * fails with SQLITE_BUSY (db_busy()).
 *
 * Builds and boots are stored per (git tree, config, suite): any run that
 * reaches a tree already tested reuses the result instead of building.
 */
#ifndef GATE_DB_H
#define GATE_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/strbuf.h"
#include "parse/ktap.h"

struct db_migration {
	const char *name;
	const char *sql;
};
extern const struct db_migration db_migrations[];
extern const size_t db_migration_count;

/* A write waits this long for another connection's lock, unless told otherwise. */
#define DB_BUSY_TIMEOUT_MS 30000

/* Open (creating) @path and bring its schema up to date. 0 or -errno, @err. */
int db_open(const char *path, sqlite3 **ret_db, struct strbuf *err);
/*
 * db_open(), the connection's writes waiting at most @busy_timeout_ms
 * for a lock (the schema update, when one is needed, waits the same).
 */
int db_open_timeout(const char *path, int busy_timeout_ms, sqlite3 **ret_db, struct strbuf *err);
/*
 * Open @path read-only, for asking the record: no database is created
 * where a path was mistyped, and none is migrated (a daemon may own it;
 * an older schema answers history.h's questions). 0, or with a message
 * in @err: -ENOENT (or another -errno of stat()) when there is no file,
 * -EINVAL when it has no schema, -EPROTO when its schema is newer than
 * db_migrations, -EIO when SQLite cannot open or read it.
 */
int db_open_readonly(const char *path, sqlite3 **ret_db, struct strbuf *err);
/* Close a database either open gave; NULL is a no-op. */
void db_close(sqlite3 *db);

/* The key of a tested tree. */
struct tree_key {
	const char *tree;	/* 40 hex */
	const char *config;	/* sha256 of the config fragment */
	const char *suite;	/* sha256 of the suite binaries */
};

/*
 * A recorded build for @key: *ret_found false when there is none; else
 * *ret_ok and the first error (when it failed) in @first_error.
 */
int db_build_get(sqlite3 *db, const struct tree_key *key, bool *ret_found, bool *ret_ok,
		 struct strbuf *first_error);
int db_build_put(sqlite3 *db, const struct tree_key *key, bool ok, const char *first_error,
		 double seconds);

/*
 * The files the recorded build of @key read (tree-relative paths, one per
 * line, sorted). *ret_found false when the build or its inputs are not
 * recorded.
 */
int db_build_inputs_get(sqlite3 *db, const struct tree_key *key, bool *ret_found,
			struct strbuf *inputs);
int db_build_inputs_put(sqlite3 *db, const struct tree_key *key, const char *inputs);

/* A recorded boot: how it ended and, when it booted, the suite's results. */
struct db_boot {
	bool failed;
	enum boot_status status;	/* BOOT_OK unless @failed */
	struct strbuf evidence;		/* panic line, console tail */
	struct ktap_run ktap;		/* when it booted */
};

#define DB_BOOT_INIT { .evidence = STRBUF_INIT }
void db_boot_release(struct db_boot *boot);

/*
 * Boot number @attempt (1: the first; 2: the fresh boot that re-checked a
 * regression) of @key into @boot (appended to its evidence and cases).
 * *ret_found false when there is none.
 */
int db_boot_get(sqlite3 *db, const struct tree_key *key, int attempt, bool *ret_found,
		struct db_boot *boot);
/* Record @boot as the next attempt for @key. */
int db_boot_put(sqlite3 *db, const struct tree_key *key, const struct db_boot *boot,
		const char *accel, double seconds);

/*
 * Begin/commit a transaction around a batch of writes; roll back one
 * that failed (a no-op when none is open).
 */
int db_begin(sqlite3 *db);
int db_commit(sqlite3 *db);
int db_rollback(sqlite3 *db);

/*
 * Did the last call on @db fail because another connection held the lock
 * past the busy timeout (SQLITE_BUSY, SQLITE_LOCKED)?
 */
bool db_busy(sqlite3 *db);

/* Did the last call on @db fail because the database's disk is full (SQLITE_FULL)? */
bool db_full(sqlite3 *db);

/* Turn the last SQLite error into a message. */
int db_error(sqlite3 *db, const char *what, struct strbuf *err);

#endif
