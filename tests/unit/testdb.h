/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testdb: a fresh record for one unit test, in its own temporary
 * directory, and its removal. Not a test itself: the Makefile compiles
 * it into every tests/unit/NAME_test.c.
 */
#ifndef GATE_TESTDB_H
#define GATE_TESTDB_H

#include <sqlite3.h>

struct testdb {
	char dir[64];		/* /tmp/NAME.XXXXXX */
	char path[128];		/* @dir/gate.db */
	sqlite3 *db;		/* db_open()ed: the schema is current */
};

/*
 * Make the directory /tmp/@name.XXXXXX and open the record gate.db in it.
 * 0, or -1 after printing why (to stderr); nothing is left behind then.
 */
int testdb_open(struct testdb *t, const char *name);
/* Close the record and remove it (its -wal and -shm too) and the directory. */
void testdb_close(struct testdb *t);

/*
 * For a test whose state is only the record: cmocka's setup allocates a
 * struct testdb into *state, named for the test program; teardown frees it.
 */
int testdb_setup(void **state);
int testdb_teardown(void **state);

#endif
