// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/xalloc.h"
#include "builtin/commands.h"
#include "record/db.h"
#include "record/history.h"
#include "source/defaults.h"

/*
 * backport-gate history: ask the record. Each question is one history_*()
 * call; --json prints its answer as is, otherwise a table for people.
 */

enum question { ASK_NOTHING, ASK_RUNS, ASK_PATCH, ASK_CASE, ASK_OPEN };

static const char usage_text[] =
	"usage: backport-gate history [--db FILE] [--json] QUESTION\n"
	"\n"
	"  --patch KEY    every verdict a patch got, and its latest on each\n"
	"                 branch: KEY is an upstream sha (12 to 40 hex digits,\n"
	"                 a prefix) or a patch file name\n"
	"  --case NAME    one suite case across the finished runs\n"
	"  --open         what each queue's latest finished run on each branch\n"
	"                 left open\n"
	"  --runs         the runs, newest first; with\n"
	"                 [--verdict pass|drop|error|running] [--since DATE]\n"
	"                 [--branch 6.1|6.12|...]\n"
	"                 [--limit N (50, at most 500)] [--offset N]\n"
	"  --queue NAME   --runs of one queue (takes the same options)\n"
	"\n"
	"  --db FILE      the record (default: <cache>/gate.db)\n"
	"  --json         print the JSON answer the HTTP API gives\n";

/* A table for people: cells in rows, every column as wide as its widest cell. */
struct table {
	size_t n_cols, n_cells, alloc;
	char **cells;
};

static void table_init(struct table *t, size_t n_cols)
{
	memset(t, 0, sizeof(*t));
	t->n_cols = n_cols;
}

/* A cell; NULL or "" shows as "-". */
static void table_add(struct table *t, const char *cell)
{
	if (t->n_cells == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 64;
		t->cells = xrealloc(t->cells, t->alloc * sizeof(*t->cells));
	}
	t->cells[t->n_cells] = xstrdup(cell && cell[0] ? cell : "-");
	t->n_cells++;
}

/* Columns are measured in characters, not bytes: subjects may be UTF-8. */
static size_t display_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void table_print(const struct table *t, FILE *f)
{
	size_t *width = xcalloc(t->n_cols, sizeof(*width));

	for (size_t i = 0; i < t->n_cells; i++) {
		size_t w = display_width(t->cells[i]);

		if (w > width[i % t->n_cols])
			width[i % t->n_cols] = w;
	}
	for (size_t i = 0; i < t->n_cells; i++) {
		size_t col = i % t->n_cols;

		fputs(t->cells[i], f);
		if (col == t->n_cols - 1)
			fputc('\n', f);
		else
			fprintf(f, "%*s", (int)(width[col] - display_width(t->cells[i]) + 2), "");
	}
	free(width);
}

static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->n_cells; i++)
		free(t->cells[i]);
	free(t->cells);
	table_init(t, t->n_cols);
}

static const char *get_string(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static long long get_int(const json_t *obj, const char *key)
{
	return json_integer_value(json_object_get(obj, key));
}

/* "2026-12-03T07:06:08Z" as "2026-12-03 07:06:08". */
static const char *people_time(const char *iso, char *buf, size_t size)
{
	char *z;

	if (!iso)
		return NULL;
	snprintf(buf, size, "%s", iso);
	if (strlen(buf) > 10 && buf[10] == 'T')
		buf[10] = ' ';
	z = strchr(buf, 'Z');
	if (z && !z[1])
		*z = '\0';
	return buf;
}

static void join_names(const json_t *names, const char *prefix, struct strbuf *out)
{
	size_t i;
	json_t *name;

	json_array_foreach(names, i, name) {
		if (i == 0 && out->len)
			strbuf_adds(out, "; ");
		if (i == 0)
			strbuf_adds(out, prefix);
		else
			strbuf_adds(out, ", ");
		strbuf_adds(out, json_string_value(name) ? json_string_value(name) : "?");
	}
}

/* The first line of @s, for a table cell. */
static void first_line(const char *s, struct strbuf *out)
{
	size_t n = s ? strcspn(s, "\n") : 0;

	strbuf_add(out, s ? s : "", n);
}

static void print_runs(const json_t *answer, const char *queue)
{
	const json_t *runs = json_object_get(answer, "runs");
	long long total = get_int(answer, "total"), offset = get_int(answer, "offset");
	struct table t;
	size_t i;
	json_t *run;

	if (json_array_size(runs) == 0) {
		if (total)
			printf("no runs past the first %lld (there are %lld)\n", offset, total);
		else if (queue)
			printf("no runs of %s match\n", queue);
		else
			printf("no runs match\n");
		return;
	}
	table_init(&t, 11);
	for (const char *const *h = (const char *const[]){ "RUN", "STARTED", "QUEUE", "SOURCE", "BASE",
			"VERDICT", "BUILDS", "BOOTS", "SECONDS", "KEPT TREE", "DROP / ERROR", NULL };
	     *h; h++)
		table_add(&t, *h);
	json_array_foreach(runs, i, run) {
		struct strbuf cell = STRBUF_INIT;
		char when[32];
		const json_t *seconds = json_object_get(run, "seconds");

		strbuf_addf(&cell, "%lld", get_int(run, "run"));
		table_add(&t, cell.buf);
		table_add(&t, people_time(get_string(run, "started_at"), when, sizeof(when)));
		table_add(&t, get_string(run, "queue"));
		table_add(&t, get_string(run, "source"));
		table_add(&t, get_string(run, "base"));
		table_add(&t, get_string(run, "verdict"));
		strbuf_reset(&cell);
		strbuf_addf(&cell, "%lld", get_int(run, "builds"));
		table_add(&t, cell.buf);
		strbuf_reset(&cell);
		strbuf_addf(&cell, "%lld", get_int(run, "boots"));
		table_add(&t, cell.buf);
		strbuf_reset(&cell);
		if (json_is_number(seconds))
			strbuf_addf(&cell, "%.1f", json_number_value(seconds));
		table_add(&t, cell.buf);
		strbuf_reset(&cell);
		if (get_string(run, "kept_tree"))
			strbuf_addf(&cell, "%.12s", get_string(run, "kept_tree"));
		table_add(&t, cell.buf);
		strbuf_reset(&cell);
		if (get_string(run, "error")) {
			strbuf_adds(&cell, "error: ");
			first_line(get_string(run, "error"), &cell);
		} else {
			join_names(json_object_get(run, "drop"), "", &cell);
		}
		table_add(&t, cell.buf);
		strbuf_release(&cell);
	}
	table_print(&t, stdout);
	table_release(&t);
	if (offset || (long long)json_array_size(runs) < total)
		printf("runs %lld-%lld of %lld, newest first (--offset, --limit for others)\n", offset + 1,
		       offset + (long long)json_array_size(runs), total);
}

/*
 * "judged on 6.1: drop (regression) in run 12; on 6.12: ok in run 14":
 * the newest verdict on each branch, from the answer's "branches".
 */
static void print_branches(const json_t *branches)
{
	size_t i;
	json_t *b;

	json_array_foreach(branches, i, b) {
		const char *reason = get_string(b, "reason");

		printf("%s %s: %s", i ? "; on" : "judged on", get_string(b, "branch"), get_string(b, "status"));
		if (reason)
			printf(" (%s)", reason);
		printf(" in run %lld", get_int(b, "run"));
	}
	if (i)
		putchar('\n');
}

static void print_patch(const json_t *answer)
{
	const json_t *verdicts = json_object_get(answer, "verdicts");
	const char *key = get_string(answer, "key");
	struct table t;
	size_t i;
	json_t *v;

	if (json_array_size(verdicts) == 0) {
		printf("no verdict for %s in the record%s\n", key,
		       strcmp(get_string(answer, "match"), "name") || strspn(key, "0123456789abcdefABCDEF") < strlen(key)
		       ? "" : " (read as a file name: an upstream sha needs 12 to 40 hex digits)");
		return;
	}
	v = json_array_get(verdicts, 0);
	printf("%s: %s\n", key, get_string(v, "subject") ? get_string(v, "subject") : "(no subject)");
	print_branches(json_object_get(answer, "branches"));
	table_init(&t, 9);
	for (const char *const *h = (const char *const[]){ "RUN", "DATE", "QUEUE", "BRANCH", "BASE", "PATCH",
			"STATUS", "REASON", "CASES", NULL }; *h; h++)
		table_add(&t, *h);
	json_array_foreach(verdicts, i, v) {
		struct strbuf cell = STRBUF_INIT;
		char when[32];

		strbuf_addf(&cell, "%lld", get_int(v, "run"));
		table_add(&t, cell.buf);
		table_add(&t, people_time(get_string(v, "started_at"), when, sizeof(when)));
		table_add(&t, get_string(v, "queue"));
		table_add(&t, get_string(v, "branch"));
		table_add(&t, get_string(v, "base"));
		table_add(&t, get_string(v, "name"));
		table_add(&t, get_string(v, "status"));
		table_add(&t, get_string(v, "reason"));
		strbuf_reset(&cell);
		join_names(json_object_get(v, "regressions"), "", &cell);
		join_names(json_object_get(v, "changes"), "changed: ", &cell);
		table_add(&t, cell.buf);
		strbuf_release(&cell);
	}
	table_print(&t, stdout);
	table_release(&t);
}

static void print_case(const json_t *answer)
{
	const json_t *runs = json_object_get(answer, "runs");
	const char *name = get_string(answer, "case"), *kind = get_string(answer, "kind");
	size_t i, regressed = 0, changed = 0;
	struct table t;
	json_t *run;

	if (json_array_size(runs) == 0) {
		if (kind)
			printf("%s (%s): no finished run yet\n", name, kind);
		else
			printf("no case named %s in the record: no boot ran it and no verdict names it\n", name);
		return;
	}
	table_init(&t, 5);
	for (const char *const *h = (const char *const[]){ "RUN", "DATE", "QUEUE", "OUTCOME", "PATCHES",
			NULL }; *h; h++)
		table_add(&t, *h);
	json_array_foreach(runs, i, run) {
		struct strbuf cell = STRBUF_INIT;
		const char *outcome = get_string(run, "outcome");
		char when[32];

		regressed += !strcmp(outcome, "regressed");
		changed += !strcmp(outcome, "changed");
		strbuf_addf(&cell, "%lld", get_int(run, "run"));
		table_add(&t, cell.buf);
		table_add(&t, people_time(get_string(run, "started_at"), when, sizeof(when)));
		table_add(&t, get_string(run, "queue"));
		table_add(&t, outcome);
		strbuf_reset(&cell);
		join_names(json_object_get(run, "patches"), "", &cell);
		table_add(&t, cell.buf);
		strbuf_release(&cell);
	}
	printf("%s (%s): ", name, kind ? kind : "kind not recorded");
	if (regressed || !kind || strcmp(kind, "quirk"))
		printf("regressed in %zu%s", regressed, changed ? ", " : "");
	if (changed || (kind && !strcmp(kind, "quirk")))
		printf("changed in %zu", changed);
	printf(" of %zu finished runs\n", json_array_size(runs));
	table_print(&t, stdout);
	table_release(&t);
}

static void print_open(const json_t *answer)
{
	const json_t *queues = json_object_get(answer, "queues");
	struct table t;
	size_t i, j;
	json_t *queue, *patch;

	if (json_array_size(queues) == 0) {
		printf("nothing open: no queue's latest finished run on any branch dropped a patch for a "
		       "regression, a build or a boot failure\n");
		return;
	}
	table_init(&t, 8);
	for (const char *const *h = (const char *const[]){ "QUEUE", "BRANCH", "RUN", "DATE", "PATCH",
			"UPSTREAM", "REASON", "CASES", NULL }; *h; h++)
		table_add(&t, *h);
	json_array_foreach(queues, i, queue) {
		json_array_foreach(json_object_get(queue, "open"), j, patch) {
			struct strbuf cell = STRBUF_INIT;
			const char *upstream = get_string(patch, "upstream");
			char when[32];

			table_add(&t, get_string(queue, "queue"));
			table_add(&t, get_string(queue, "branch"));
			strbuf_addf(&cell, "%lld", get_int(queue, "run"));
			table_add(&t, cell.buf);
			table_add(&t, people_time(get_string(queue, "started_at"), when, sizeof(when)));
			table_add(&t, get_string(patch, "patch"));
			strbuf_reset(&cell);
			if (upstream)
				strbuf_addf(&cell, "%.12s", upstream);
			table_add(&t, cell.buf);
			table_add(&t, get_string(patch, "reason"));
			strbuf_reset(&cell);
			join_names(json_object_get(patch, "cases"), "", &cell);
			table_add(&t, cell.buf);
			strbuf_release(&cell);
		}
	}
	table_print(&t, stdout);
	table_release(&t);
}

static int ask(enum question *q, enum question want, const char *option, struct strbuf *err)
{
	static const char *const names[] = {
		[ASK_RUNS] = "--runs/--queue", [ASK_PATCH] = "--patch", [ASK_CASE] = "--case",
		[ASK_OPEN] = "--open",
	};

	if (*q != ASK_NOTHING && *q != want) {
		strbuf_addf(err, "%s and %s ask different questions: give one", names[*q], option);
		return -EINVAL;
	}
	*q = want;
	return 0;
}

int cmd_history(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "patch", required_argument, NULL, 'p' },
		{ "case", required_argument, NULL, 'c' },
		{ "queue", required_argument, NULL, 'q' },
		{ "open", no_argument, NULL, 'o' },
		{ "runs", no_argument, NULL, 'r' },
		{ "verdict", required_argument, NULL, 'v' },
		{ "since", required_argument, NULL, 's' },
		{ "branch", required_argument, NULL, 'b' },
		{ "limit", required_argument, NULL, 'l' },
		{ "offset", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct history_filter filter = { 0 };
	struct strbuf err = STRBUF_INIT;
	enum question q = ASK_NOTHING;
	const char *db_path = NULL, *key = NULL, *runs_option = NULL;
	char *db_default = NULL;
	bool as_json = false;
	sqlite3 *db = NULL;
	json_t *answer = NULL;
	int c, r = 0, status = EXIT_NO_VERDICT;

	opterr = 0;	/* our own one-line messages */
	while (r == 0 && (c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db_path = optarg; break;
		case 'j': as_json = true; break;
		case 'p':
			r = ask(&q, ASK_PATCH, "--patch", &err);
			key = optarg;
			break;
		case 'c':
			r = ask(&q, ASK_CASE, "--case", &err);
			key = optarg;
			break;
		case 'q':
			r = ask(&q, ASK_RUNS, "--queue", &err);
			filter.queue = optarg;
			break;
		case 'o': r = ask(&q, ASK_OPEN, "--open", &err); break;
		case 'r': r = ask(&q, ASK_RUNS, "--runs", &err); break;
		case 'v':
			filter.verdict = optarg;
			runs_option = "--verdict";
			break;
		case 's':
			filter.since = optarg;
			runs_option = "--since";
			break;
		case 'b':
			filter.branch = optarg;
			runs_option = "--branch";
			break;
		case 'l':
			r = history_parse_limit("--limit", optarg, &filter.limit, &err);
			runs_option = "--limit";
			break;
		case 'O':
			r = history_parse_offset("--offset", optarg, &filter.offset, &err);
			runs_option = "--offset";
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case ':':
			strbuf_addf(&err, "%s needs a value (see --help)", argv[optind - 1]);
			r = -EINVAL;
			break;
		default:
			strbuf_addf(&err, "unknown option '%s' (see --help)", argv[optind - 1]);
			r = -EINVAL;
			break;
		}
	}
	if (r < 0)
		goto fail;
	if (optind < argc) {
		strbuf_addf(&err, "unexpected argument '%s' (see --help)", argv[optind]);
		goto fail;
	}
	if (q == ASK_NOTHING) {
		strbuf_addf(&err, "no question: give --patch, --case, --queue, --open or --runs (see --help)");
		goto fail;
	}
	if (runs_option && q != ASK_RUNS) {
		strbuf_addf(&err, "%s goes with --runs or --queue", runs_option);
		goto fail;
	}
	if (!db_path) {
		db_default = xasprintf("%s/gate.db", default_cache());
		db_path = db_default;
	}
	if (db_open_readonly(db_path, &db, &err) < 0)
		goto fail;

	switch (q) {
	case ASK_RUNS: answer = history_runs(db, &filter, &err); break;
	case ASK_PATCH: answer = history_patch(db, key, &err); break;
	case ASK_CASE: answer = history_case(db, key, 0, 0, &err); break;
	case ASK_OPEN: answer = history_regressions(db, true, &err); break;
	case ASK_NOTHING: break;
	}
	if (!answer)
		goto fail;
	if (as_json) {
		char *text = json_dumps(answer, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		if (!text)
			abort();
		puts(text);
		free(text);
	} else if (q == ASK_RUNS) {
		print_runs(answer, filter.queue);
	} else if (q == ASK_PATCH) {
		print_patch(answer);
	} else if (q == ASK_CASE) {
		print_case(answer);
	} else {
		print_open(answer);
	}
	status = 0;
	goto out;
fail:
	fprintf(stderr, "backport-gate history: %s\n", err.buf);
out:
	json_decref(answer);
	db_close(db);
	strbuf_release(&err);
	free(db_default);
	return status;
}
