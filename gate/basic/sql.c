// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "basic/sql.h"

/* Bind @fmt's parameters to @st: 0, -EINVAL (not one letter per parameter), or -EIO. */
static int vbind(sqlite3_stmt *st, const char *fmt, va_list ap)
{
	int rc = SQLITE_OK;

	/* a format that does not match the statement would bind garbage from va_arg() */
	if (sqlite3_bind_parameter_count(st) != (int)strlen(fmt))
		return -EINVAL;
	for (int i = 0; fmt[i] && rc == SQLITE_OK; i++) {
		if (fmt[i] == 'i') {
			rc = sqlite3_bind_int64(st, i + 1, va_arg(ap, sqlite3_int64));
		} else if (fmt[i] == 'd') {
			rc = sqlite3_bind_double(st, i + 1, va_arg(ap, double));
		} else {
			const char *s = va_arg(ap, const char *);

			rc = s ? sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i + 1);
		}
	}
	return rc == SQLITE_OK ? 0 : -EIO;
}

int sql_vprepare(sqlite3 *db, sqlite3_stmt **ret_st, const char *sql, const char *fmt, va_list ap)
{
	sqlite3_stmt *st;
	int r;

	*ret_st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	r = fmt ? vbind(st, fmt, ap) : 0;
	if (r < 0) {
		sqlite3_finalize(st);
		return r;
	}
	*ret_st = st;
	return 0;
}

int sql_prepare(sqlite3 *db, sqlite3_stmt **ret_st, const char *sql, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sql_vprepare(db, ret_st, sql, fmt, ap);
	va_end(ap);
	return r;
}

int sql_rebind(sqlite3_stmt *st, const char *fmt, ...)
{
	va_list ap;
	int r;

	/* what reset returns is the last step's error, which that step's caller has seen */
	sqlite3_reset(st);
	va_start(ap, fmt);
	r = vbind(st, fmt, ap);
	va_end(ap);
	return r;
}

int sql_step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int sql_exec(sqlite3 *db, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sql_vprepare(db, &st, sql, fmt, ap);
	va_end(ap);
	return r < 0 ? r : sql_step_done(st);
}
