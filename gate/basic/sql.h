/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sql: binding parameters to a SQLite statement in one call. Knows no
 * schema (every statement lives in record/ and the callers of these).
 *
 * @fmt has one letter per parameter, in order (?1, ?2, ...):
 *   'i'  a sqlite3_int64 (cast int, unsigned and int64_t arguments)
 *   'd'  a double
 *   's'  a const char *, copied; NULL binds SQL NULL
 *
 *   r = sql_exec(db, "UPDATE job SET error = ? WHERE id = ?", "si", why, job);
 *
 * Nothing here logs: a caller turns a failure into a message with
 * sqlite3_errmsg() (record/db.h: db_error()).
 */
#ifndef GATE_SQL_H
#define GATE_SQL_H

#include <sqlite3.h>
#include <stdarg.h>

/*
 * Prepare @sql and bind @fmt's parameters into *ret_st (the caller steps
 * and finalizes). 0, -EIO, or -EINVAL when @fmt does not have one letter
 * per parameter of @sql (the highest ?NNN for numbered ones). A NULL @fmt
 * binds nothing yet: a statement run once per row of another gets its
 * values from sql_rebind() before each run.
 */
int sql_prepare(sqlite3 *db, sqlite3_stmt **ret_st, const char *sql, const char *fmt, ...);
int sql_vprepare(sqlite3 *db, sqlite3_stmt **ret_st, const char *sql, const char *fmt, va_list ap);
/*
 * Reset @st and bind @fmt's parameters anew, to run a statement prepared
 * once again with other values (one per row of another query, say); the
 * caller still finalizes it. 0, -EINVAL as above, or -EIO.
 */
int sql_rebind(sqlite3_stmt *st, const char *fmt, ...);
/* Run @sql once, to completion (no rows). 0, -EINVAL as above, or -EIO (prepare, bind or step failed). */
int sql_exec(sqlite3 *db, const char *sql, const char *fmt, ...);
/* Step @st once and finalize it: 0 when it completed (SQLITE_DONE), else -EIO. */
int sql_step_done(sqlite3_stmt *st);

#endif
