// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/hash.h"
#include "basic/xalloc.h"
#include "output/kcidb.h"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Out of memory is fatal everywhere in the gate. */
static void set(json_t *o, const char *key, json_t *value)
{
	if (!value || json_object_set_new(o, key, value) < 0)
		abort();
}

static void set_str(json_t *o, const char *key, const char *value)
{
	set(o, key, json_string(value));
}

/* A log excerpt within the schema's maxLength, cut at a UTF-8 boundary. */
static void set_excerpt(json_t *o, const char *text)
{
	size_t n = strlen(text);

	if (!n)
		return;
	if (n > KCIDB_LOG_EXCERPT_MAX) {
		n = KCIDB_LOG_EXCERPT_MAX;
		while (n && ((unsigned char)text[n] & 0xc0) == 0x80)
			n--;
	}
	set(o, "log_excerpt", json_stringn(text, n));
}

static bool is_hex(const char *s, size_t len)
{
	if (strlen(s) != len)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s >= 'a' && *s <= 'f'))
			return false;
	return true;
}

void kcidb_patchset_hash(const char *const *hashes, size_t n, char out[65])
{
	struct hash_ctx *h;

	if (!n) {
		out[0] = '\0';
		return;
	}
	h = hash_begin();
	for (size_t i = 0; i < n; i++) {
		hash_feed(h, hashes[i], strlen(hashes[i]));
		hash_feed(h, "\n", 1);
	}
	hash_finish(h, out);
}

/*
 * The record's "2024-12-05T12:28:00Z", @back seconds earlier, in the same
 * form (RFC 3339, as the schema's date-time format wants); NULL when
 * @iso is not in that form.
 */
static json_t *time_json(const char *iso, double back)
{
	struct tm tm = { 0 };
	char out[32];
	const char *end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
	time_t t;

	if (!end || *end)
		return NULL;
	t = timegm(&tm) - (time_t)(back + 0.5);
	gmtime_r(&t, &tm);
	strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(out);
}

static void set_time(json_t *o, const char *key, const char *iso, double back)
{
	json_t *t = iso && *iso ? time_json(iso, back) : NULL;

	if (t)
		set(o, key, t);
}

/* file:// + @path, percent-encoding what a URI path may not hold. */
static char *file_url(const char *dir, const char *name)
{
	struct strbuf url = STRBUF_INIT;
	char *path = xasprintf("%s/%s", dir, name), *hash = strrchr(path, '#');
	const char *p;

	if (hash && strchr(hash, '/') == NULL)
		*hash = '\0';	/* "FILE#2": the second mail of mbox FILE */
	strbuf_addf(&url, "file://");
	for (p = path; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || strchr("/-._~", c))
			strbuf_addch(&url, (char)c);
		else
			strbuf_addf(&url, "%%%02X", c);
	}
	free(path);
	return strbuf_detach(&url, NULL);
}

/* KCIDB's test path element for @name: [A-Za-z0-9_] only. */
static char *path_element(const char *name)
{
	char *s = xstrdup(name);

	for (char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	return s;
}

/* The report's patch object at 1-based series @position. */
static const json_t *report_patch(const json_t *report, json_int_t position)
{
	return json_array_get(json_object_get(report, "patches"), (size_t)(position - 1));
}

static json_t *checkout_json(const json_t *report, const json_t *seqs, const json_t *seq,
			     const char *id, const char *origin)
{
	const json_t *patches = json_object_get(seq, "patches");
	const char *base = str(report, "base"), *source = str(seqs, "source");
	json_t *c = json_object(), *files = json_array(), *names = json_array(), *misc = json_object();
	const char **hashes = xcalloc(json_array_size(patches) + 1, sizeof(*hashes));
	bool local = source[0] == '/' && !json_is_string(json_object_get(report, "ref"));
	char patchset[65], *tree_name, *dot, *dir;
	size_t i, n = 0;
	json_t *p;

	set_str(c, "id", id);
	set_str(c, "origin", origin);
	/* "6.1.192" -> linux-source-6.1: the Debian package base is extracted from */
	tree_name = xasprintf("linux-source-%s", base);
	dot = strchr(tree_name + strlen("linux-source-"), '.');
	if (dot && (dot = strchr(dot + 1, '.')))
		*dot = '\0';
	set_str(c, "tree_name", tree_name);
	free(tree_name);
	if (is_hex(str(seqs, "base_commit"), 40))
		set_str(c, "git_commit_hash", str(seqs, "base_commit"));
	/*
	 * The series folder, as queue.c finds it in a directory: the source
	 * itself when it is named as the queue (it held the series), else
	 * the queue's folder in it.
	 */
	{
		const char *last = strrchr(source, '/');

		dir = last && strcmp(last + 1, str(report, "queue")) == 0
		      ? xstrdup(source) : xasprintf("%s/%s", source, str(report, "queue"));
	}
	json_array_foreach(patches, i, p) {
		const char *name = str(p, "name"), *slash = strrchr(name, '/');

		json_array_append_new(names, json_string(name));
		if (is_hex(str(p, "content_hash"), 64))
			hashes[n++] = str(p, "content_hash");
		if (local) {
			char *url = file_url(dir, name);

			json_array_append_new(files, json_pack("{s:s, s:s}", "name",
							       slash ? slash + 1 : name, "url", url));
			free(url);
		}
	}
	/* a patch without a hash (never the case for an applied one) leaves it unknown */
	if (n == json_array_size(patches)) {
		kcidb_patchset_hash(hashes, n, patchset);
		set_str(c, "patchset_hash", patchset);
	}
	if (json_array_size(files))
		set(c, "patchset_files", files);
	else
		json_decref(files);
	set_time(c, "start_time", str(seq, "judged_at"), 0);
	set(c, "valid", json_boolean(!json_is_integer(json_object_get(seq, "apply_failed"))));
	if (json_is_integer(json_object_get(seq, "apply_failed"))) {
		const json_t *bad = report_patch(report,
						 json_integer_value(json_object_get(seq, "apply_failed")));
		char *excerpt = xasprintf("%s: %s\n", str(bad, "name"),
					  str(json_object_get(bad, "apply"), "message"));

		set_excerpt(c, excerpt);
		free(excerpt);
	}
	{
		char *comment = xasprintf("%s on %s: base + %zu patches", str(report, "queue"), base,
					  json_array_size(patches));

		set_str(c, "comment", comment);
		free(comment);
	}
	set(misc, "run", json_integer(json_integer_value(json_object_get(report, "run"))));
	set_str(misc, "queue", str(report, "queue"));
	set(misc, "patches", names);
	if (json_is_string(json_object_get(seq, "commit")))
		set_str(misc, "commit", str(seq, "commit"));
	set(c, "misc", misc);
	free(hashes);
	free(dir);
	return c;
}

static json_t *build_json(const json_t *report, const json_t *seq, const char *id,
			  const char *checkout_id, const char *origin)
{
	const json_t *build = json_object_get(seq, "build");
	json_t *b = json_object();

	set_str(b, "id", id);
	set_str(b, "checkout_id", checkout_id);
	set_str(b, "origin", origin);
	set_str(b, "architecture", "x86_64");
	if (*str(report, "config"))
		set_str(b, "config_name", str(report, "config"));
	if (*str(report, "compiler"))
		set_str(b, "compiler", str(report, "compiler"));
	if (build) {
		double seconds = json_number_value(json_object_get(build, "seconds"));

		set_time(b, "start_time", str(build, "created_at"), seconds);
		if (json_is_number(json_object_get(build, "seconds")))
			set(b, "duration", json_real(seconds));
		set_str(b, "status", strcmp(str(build, "status"), "ok") == 0 ? "PASS" : "FAIL");
		set_excerpt(b, str(build, "first_error"));
	} else {
		/* built under another database: it booted, so it built */
		set_str(b, "status", "PASS");
	}
	set(b, "misc", json_pack("{s:s}", "tree", str(seq, "tree")));
	return b;
}

static const char *case_status(const char *status)
{
	if (!strcmp(status, "pass"))
		return "PASS";
	if (!strcmp(status, "fail"))
		return "FAIL";
	if (!strcmp(status, "quirk-changed"))
		return "DONE";
	return "ERROR";
}

static json_t *environment(const json_t *boot)
{
	const char *accel = str(boot, "accel");
	char *comment = xasprintf("QEMU x86_64%s%s%s, the shebang suite as init", *accel ? " (" : "",
				  accel, *accel ? ")" : "");
	json_t *e = json_pack("{s:s}", "comment", comment);

	if (*accel)
		set(e, "misc", json_pack("{s:s, s:s}", "machine", "qemu-system-x86_64", "accel", accel));
	free(comment);
	return e;
}

static void boot_tests(const json_t *report, const json_t *boot, const char *run_id,
		       const char *build_id, const char *origin, json_t *tests)
{
	const json_t *cases = json_object_get(boot, "cases");
	const char *boot_status = str(boot, "status");
	double seconds = json_number_value(json_object_get(boot, "seconds"));
	long long attempt = json_integer_value(json_object_get(boot, "attempt"));
	char *suite_id = xasprintf("%s.boot%lld", run_id, attempt);
	json_t *t = json_object(), *c;
	bool failed = false;
	size_t i;

	json_array_foreach(cases, i, c)
		if (!strcmp(str(c, "status"), "fail") || !strcmp(str(c, "status"), "error"))
			failed = true;
	set_str(t, "id", suite_id);
	set_str(t, "build_id", build_id);
	set_str(t, "origin", origin);
	set_str(t, "path", "shebang");
	set_str(t, "status", !strcmp(boot_status, "ok") ? (failed ? "FAIL" : "PASS")
			     : !strcmp(boot_status, "panic") ? "FAIL" : "ERROR");
	set_time(t, "start_time", str(boot, "created_at"), seconds);
	if (json_is_number(json_object_get(boot, "seconds")))
		set(t, "duration", json_real(seconds));
	set(t, "environment", environment(boot));
	if (strcmp(boot_status, "ok") != 0)
		set_excerpt(t, str(boot, "evidence"));
	set(t, "misc", json_pack("{s:I, s:s, s:s}", "attempt", (json_int_t)attempt, "boot", boot_status,
				 "suite", str(report, "suite")));
	json_array_append_new(tests, t);

	json_array_foreach(cases, i, c) {
		char *element = path_element(str(c, "name"));
		char *id = xasprintf("%s.%s", suite_id, element);
		char *path = xasprintf("shebang.%s", element);

		t = json_object();
		set_str(t, "id", id);
		set_str(t, "build_id", build_id);
		set_str(t, "origin", origin);
		set_str(t, "path", path);
		set_str(t, "status", case_status(str(c, "status")));
		set_time(t, "start_time", str(boot, "created_at"), seconds);
		set(t, "environment", environment(boot));
		if (strcmp(str(c, "status"), "pass") != 0)
			set_excerpt(t, str(c, "diagnostic"));
		set(t, "misc", json_pack("{s:s, s:s, s:I}", "case", str(c, "name"), "kind",
					 str(c, "kind"), "attempt", (json_int_t)attempt));
		json_array_append_new(tests, t);
		free(element);
		free(id);
		free(path);
	}
	free(suite_id);
}

int kcidb_render(const struct report_input *in, const struct render_options *opts,
		 struct strbuf *out, struct strbuf *err)
{
	const char *origin = opts->origin && *opts->origin ? opts->origin : KCIDB_ORIGIN_DEFAULT;
	const json_t *seqs = in->sequences, *report = in->report, *seq;
	json_t *doc, *checkouts, *builds, *tests;
	json_int_t run = json_integer_value(json_object_get(report, "run"));
	char *text;
	size_t i;

	if (strspn(origin, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(origin)) {
		strbuf_addf(err, "kcidb: origin '%s' is not KCIDB's [a-z0-9_]+", origin);
		return -EINVAL;
	}
	if (run <= 0 || !json_is_array(json_object_get(seqs, "sequences"))) {
		strbuf_addf(err, "kcidb: needs a report with a run and that run's sequences");
		return -EINVAL;
	}
	checkouts = json_array();
	builds = json_array();
	tests = json_array();
	json_array_foreach(json_object_get(seqs, "sequences"), i, seq) {
		const json_t *boots = json_object_get(seq, "boots"), *boot;
		long long pos = json_integer_value(json_object_get(seq, "position"));
		char *run_id = xasprintf("%s:run%lld.seq%lld", origin, (long long)run, pos);
		char *build_id = xasprintf("%s.build", run_id);
		size_t k;

		json_array_append_new(checkouts, checkout_json(report, seqs, seq, run_id, origin));
		if (json_object_get(seq, "build") || json_array_size(boots)) {
			json_array_append_new(builds, build_json(report, seq, build_id, run_id, origin));
			json_array_foreach(boots, k, boot)
				boot_tests(report, boot, run_id, build_id, origin, tests);
		}
		free(run_id);
		free(build_id);
	}
	doc = json_pack("{s:{s:i, s:i}, s:o, s:o, s:o}", "version", "major", KCIDB_MAJOR, "minor",
			KCIDB_MINOR, "checkouts", checkouts, "builds", builds, "tests", tests);
	text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text)
		abort();
	strbuf_addf(out, "%s\n", text);
	free(text);
	json_decref(doc);
	return 0;
}
