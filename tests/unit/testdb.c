// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/db.h"
#include "testdb.h"

static void remove_file(const char *path, const char *suffix)
{
	char name[160];

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	unlink(name);
}

int testdb_open(struct testdb *t, const char *name)
{
	struct strbuf err = STRBUF_INIT;

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(t->dir)) {
		fprintf(stderr, "testdb: mkdtemp %s: %s\n", t->dir, strerror(errno));
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s/gate.db", t->dir);
	if (db_open(t->path, &t->db, &err) < 0) {
		fprintf(stderr, "testdb: db_open: %s\n", err.buf);
		strbuf_release(&err);
		t->db = NULL;
		testdb_close(t);
		return -1;
	}
	return 0;
}

void testdb_close(struct testdb *t)
{
	db_close(t->db);
	t->db = NULL;
	remove_file(t->path, "");
	remove_file(t->path, "-wal");
	remove_file(t->path, "-shm");
	rmdir(t->dir);
}

int testdb_setup(void **state)
{
	struct testdb *t = malloc(sizeof(*t));

	if (!t || testdb_open(t, program_invocation_short_name) < 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

int testdb_teardown(void **state)
{
	testdb_close(*state);
	free(*state);
	return 0;
}
