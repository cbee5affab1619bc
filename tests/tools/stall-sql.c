// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD library for tests/faults.sh, so a kill -9 can land at an
 * exact statement of the real gate: when a statement that starts with
 * $BG_STALL_SQL is prepared, it creates the file $BG_STALL_MARK and
 * sleeps until killed (only that thread: the process's others go on),
 * or, with $BG_STALL_UNTIL set, until the file that names exists, and
 * then goes on (tests/faults.sh fills a disk meanwhile). With
 * $BG_STALL_ARM set, only once the file it names exists (tests/loop.sh
 * lets the daemon's main loop turn first). Unset, it passes every call
 * through.
 *
 *   gcc -shared -fPIC -o stall-sql.so tests/tools/stall-sql.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **ret_st,
		       const char **ret_tail)
{
	static int (*real)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
	const char *prefix = getenv("BG_STALL_SQL"), *mark = getenv("BG_STALL_MARK");
	const char *arm = getenv("BG_STALL_ARM"), *until = getenv("BG_STALL_UNTIL");

	if (!real)
		real = (int (*)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **))
			dlsym(RTLD_NEXT, "sqlite3_prepare_v2");
	if (prefix && mark && !strncmp(sql, prefix, strlen(prefix)) &&
	    (!arm || access(arm, F_OK) == 0)) {
		int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
		while (!until)
			pause();
		while (access(until, F_OK) != 0)
			usleep(100000);
	}
	return real(db, sql, n, ret_st, ret_tail);
}
