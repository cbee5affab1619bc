// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/hash.h"
#include "basic/xalloc.h"
#include "exec/step.h"

static const char *string_field(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

int step_spec_read(const char *dir, struct step_spec *s, struct strbuf *err)
{
	char *path = xasprintf("%s/step.json", dir);
	const char *why = NULL;
	json_error_t jerr;
	json_t *format;

	memset(s, 0, sizeof(*s));
	s->root = json_load_file(path, 0, &jerr);
	if (!s->root) {
		strbuf_addf(err, "step: %s: %s (line %d)", path, jerr.text, jerr.line);
		free(path);
		return -EINVAL;
	}
	format = json_object_get(s->root, "format");
	s->tree = string_field(s->root, "tree");
	s->base_tree = string_field(s->root, "base_tree");
	s->config = string_field(s->root, "config");
	s->suite = string_field(s->root, "suite");
	s->expect_tree = string_field(s->root, "expect_tree");
	s->patches = json_object_get(s->root, "patches");
	if (!json_is_integer(format) || json_integer_value(format) != STEP_FORMAT)
		strbuf_addf(err, "step: %s: \"format\" is not %d", path, STEP_FORMAT);
	else if (!s->tree || !s->base_tree || !s->config || !s->suite)
		why = "\"tree\", \"base_tree\", \"config\" and \"suite\" must be strings";
	else if (!json_is_array(s->patches))
		why = "\"patches\" is not a list";
	for (size_t i = 0; !why && i < json_array_size(s->patches); i++) {
		json_t *p = json_array_get(s->patches, i);

		if (!string_field(p, "name") || !string_field(p, "sha256")) {
			strbuf_addf(err, "step: %s: patch %zu has no \"name\" and \"sha256\"", path,
				    i + 1);
			why = "";
		}
	}
	if (why && *why)
		strbuf_addf(err, "step: %s: %s", path, why);
	free(path);
	if (why || !json_is_integer(format) || json_integer_value(format) != STEP_FORMAT) {
		step_spec_release(s);
		return -EINVAL;
	}
	return 0;
}

void step_spec_release(struct step_spec *s)
{
	json_decref(s->root);
	memset(s, 0, sizeof(*s));
}

/* The node's own base, config and suite are the step's, and so are the patches' bytes. */
int step_spec_check(const struct step_spec *s, const struct kernel_env *env,
			struct kernel_tree *tree, const struct queue_snapshot *snap,
			struct strbuf *err)
{
	char base_hex[GIT_OID_HEXSZ + 1];

	if (strcmp(env->config_stamp, s->config) != 0) {
		strbuf_addf(err, "step refused: this node's test kernel config is %.12s, the "
			    "step's %.12s (a different gate version or fragment)", env->config_stamp,
			    s->config);
		return -EINVAL;
	}
	if (strcmp(env->suite_version, s->suite) != 0) {
		strbuf_addf(err, "step refused: this node's suite is %.12s, the step's %.12s",
			    env->suite_version, s->suite);
		return -EINVAL;
	}
	if (snap->n != json_array_size(s->patches)) {
		strbuf_addf(err, "step refused: step.json lists %zu patches, the series %zu",
			    json_array_size(s->patches), snap->n);
		return -EINVAL;
	}
	for (size_t i = 0; i < snap->n; i++) {
		const struct queue_patch *p = &snap->patches[i];
		json_t *want = json_array_get(s->patches, i);

		if (p->error) {
			strbuf_addf(err, "step refused: patch %zu: %s", i + 1, p->error);
			return -EINVAL;
		}
		if (strcmp(p->name, string_field(want, "name")) != 0 ||
		    strcmp(p->hash, string_field(want, "sha256")) != 0) {
			strbuf_addf(err, "step refused: patch %zu is %s with sha256 %.12s, step.json "
				    "says %s with %.12s", i + 1, p->name, p->hash,
				    string_field(want, "name"), string_field(want, "sha256"));
			return -EINVAL;
		}
	}
	if (tree_id_hex(tree, &tree->base, base_hex) < 0) {
		strbuf_addf(err, "step: cannot read the base tree of %s", env->src);
		return -EIO;
	}
	if (strcmp(base_hex, s->base_tree) != 0) {
		strbuf_addf(err, "step refused: this node's base tree is %.12s, the step's %.12s "
			    "(another tarball: %s)", base_hex, s->base_tree, env->tarball);
		return -EINVAL;
	}
	return 0;
}

static int write_result(const char *dir, json_t *result, struct strbuf *err)
{
	char *path = xasprintf("%s/result.json", dir);
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int r = 0;

	if (json_dump_file(result, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
	    rename(tmp, path) < 0) {
		strbuf_addf(err, "step: cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		r = -EIO;
	}
	free(path);
	free(tmp);
	return r;
}

int step_result_write(const char *dir, const char *host, const struct kernel_env *env,
		      const char *tree_hex, const struct applied_patch *applied, size_t n_applied,
		      const char *apply_failed, const char *apply_why,
		      const struct exec_eval *outcome, struct strbuf *err)
{
	json_t *result = json_pack("{s:i, s:s, s:s, s:s}", "format", STEP_FORMAT, "host", host,
				   "config", env->config_stamp, "suite", env->suite_version);
	json_t *list = json_array(), *build = json_null(), *boot = json_null();
	int r;

	for (size_t i = 0; i < n_applied; i++)
		json_array_append_new(list, json_pack("{s:s, s:s, s:i}", "name", applied[i].name,
						      "status",
						      applied[i].status == APPLY_ALREADY ? "already" :
						      applied[i].status == APPLY_OFFSET ? "offset" :
						      "applied", "offset", applied[i].offset));
	json_object_set_new(result, "apply_failed",
			    apply_failed ? json_pack("{s:s, s:s}", "name", apply_failed, "why",
						     apply_why ? apply_why : "does not apply") :
					   json_null());
	json_object_set_new(result, "applied", list);
	json_object_set_new(result, "tree", json_string(tree_hex));
	if (outcome) {
		bool ok = outcome->build.status == BUILD_OK;

		build = json_pack("{s:s, s:b, s:s, s:f}", "status", ok ? "ok" : "failed", "built",
				  outcome->build.built, "first_error", outcome->build.first_error.buf,
				  "seconds", outcome->build.seconds);
		if (ok) {
			json_t *inputs = json_array();

			for (size_t i = 0; i < outcome->inputs.n; i++)
				json_array_append_new(inputs, json_string(outcome->inputs.items[i]));
			json_object_set_new(build, "inputs", inputs);
		}
	}
	if (outcome && outcome->booted) {
		const struct exec_boot *b = &outcome->boot;

		boot = json_pack("{s:s, s:s, s:s, s:s, s:f}", "status", boot_status_name(b->status),
				 "accel", b->accel, "ktap", b->status == BOOT_OK ? b->console.buf : "",
				 "evidence", b->evidence.buf, "seconds", b->seconds);
	}
	json_object_set_new(result, "build", build);
	json_object_set_new(result, "boot", boot);
	r = write_result(dir, result, err);
	json_decref(result);
	return r;
}

/* "0003-name.patch": @name's last component, anything but [A-Za-z0-9._-] as '_' */
static char *step_file_name(size_t i, const char *name)
{
	const char *slash = strrchr(name, '/');
	char *file = xasprintf("%04zu-%s", i + 1, slash ? slash + 1 : name);

	for (char *c = file; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			*c = '_';
	return file;
}

int step_write(const char *dir, const struct kernel_env *env, const char *tree_spec,
	       const char *base_tree, const struct queue_snapshot *snap, const size_t *subset,
	       size_t n, const char *expect_tree, struct strbuf *err)
{
	struct strbuf series = STRBUF_INIT;
	json_t *spec = json_pack("{s:i, s:s, s:s, s:s, s:s}", "format", STEP_FORMAT, "tree",
				 tree_spec, "base_tree", base_tree, "config", env->config_stamp,
				 "suite", env->suite_version);
	json_t *patches = json_array();
	char *path = NULL;
	int r = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		strbuf_addf(err, "step: cannot create %s: %s", dir, strerror(errno));
		r = -errno;
		goto out;
	}
	path = xasprintf("%s/step.json", dir);
	if (access(path, F_OK) == 0) {
		strbuf_addf(err, "step: %s holds a step already", dir);
		r = -EEXIST;
		goto out;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct queue_patch *p = &snap->patches[subset[i]];
		struct strbuf text = STRBUF_INIT;
		char *file = step_file_name(i, p->name), *file_path, hash[SHA256_HEX_LEN + 1];

		if (!p->content) {
			strbuf_addf(err, "step: patch %s was not read: %s", p->name,
				    p->error ? p->error : "no content");
			r = -EINVAL;
			free(file);
			break;
		}
		strbuf_add(&text, p->content, p->len);
		file_path = xasprintf("%s/%s", dir, file);
		r = strbuf_write_file(&text, file_path);
		if (r < 0)
			strbuf_addf(err, "step: cannot write %s: %s", file_path, strerror(-r));
		sha256_hex(p->content, p->len, hash);
		json_array_append_new(patches, json_pack("{s:s, s:s, s:s}", "name", file, "sha256",
							 hash, "queue_name", p->name));
		strbuf_addf(&series, "%s\n", file);
		strbuf_release(&text);
		free(file_path);
		free(file);
	}
	if (r < 0)
		goto out;
	json_object_set(spec, "patches", patches);
	if (expect_tree)
		json_object_set_new(spec, "expect_tree", json_string(expect_tree));
	free(path);
	path = xasprintf("%s/series", dir);
	r = strbuf_write_file(&series, path);
	if (r < 0) {
		strbuf_addf(err, "step: cannot write %s: %s", path, strerror(-r));
		goto out;
	}
	free(path);
	path = xasprintf("%s/step.json", dir);
	if (json_dump_file(spec, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
		strbuf_addf(err, "step: cannot write %s", path);
		r = -EIO;
	}
out:
	json_decref(patches);
	json_decref(spec);
	strbuf_release(&series);
	free(path);
	return r;
}

static bool boot_status_parse(const char *name, enum boot_status *ret)
{
	static const enum boot_status all[] = { BOOT_OK, BOOT_PANIC, BOOT_TIMEOUT,
						BOOT_INCOMPLETE };

	for (size_t i = 0; name && i < sizeof(all) / sizeof(*all); i++)
		if (!strcmp(name, boot_status_name(all[i]))) {
			*ret = all[i];
			return true;
		}
	return false;
}

/* "build" of result.json into @res; false when it is not what step_run() writes. */
static bool result_build(json_t *build, struct step_result *res)
{
	const char *status = string_field(build, "status");
	json_t *inputs = json_object_get(build, "inputs");

	res->has_build = true;
	res->build_ok = status && !strcmp(status, "ok");
	res->built = json_is_true(json_object_get(build, "built"));
	res->first_error = string_field(build, "first_error");
	res->build_seconds = json_number_value(json_object_get(build, "seconds"));
	if (!status || (!res->build_ok && strcmp(status, "failed")) || !res->first_error)
		return false;
	if (!res->build_ok)
		return true;
	if (!json_is_array(inputs) || !json_array_size(inputs))
		return false;
	for (size_t i = 0; i < json_array_size(inputs); i++) {
		const char *path = json_string_value(json_array_get(inputs, i));

		if (!path)
			return false;
		strlist_append(&res->inputs, path);
	}
	return true;
}

static bool result_boot(json_t *boot, struct step_result *res)
{
	res->has_boot = true;
	res->accel = string_field(boot, "accel");
	res->ktap = string_field(boot, "ktap");
	res->evidence = string_field(boot, "evidence");
	res->boot_seconds = json_number_value(json_object_get(boot, "seconds"));
	return boot_status_parse(string_field(boot, "status"), &res->boot_status) && res->accel &&
	       res->ktap && res->evidence;
}

int step_result_read(const char *dir, struct step_result *res, struct strbuf *err)
{
	char *path = xasprintf("%s/result.json", dir);
	json_t *format, *failed, *build, *boot;
	json_error_t jerr;
	const char *why = NULL;

	memset(res, 0, sizeof(*res));
	res->root = json_load_file(path, 0, &jerr);
	if (!res->root) {
		strbuf_addf(err, "step: %s: %s (line %d)", path, jerr.text, jerr.line);
		free(path);
		return -EINVAL;
	}
	format = json_object_get(res->root, "format");
	res->host = string_field(res->root, "host");
	res->tree = string_field(res->root, "tree");
	failed = json_object_get(res->root, "apply_failed");
	build = json_object_get(res->root, "build");
	boot = json_object_get(res->root, "boot");
	if (json_is_object(failed)) {
		res->apply_failed = string_field(failed, "name");
		res->apply_why = string_field(failed, "why");
	}
	if (!json_is_integer(format) || json_integer_value(format) != STEP_FORMAT)
		why = "\"format\" is not the one this gate reads";
	else if (!res->tree || !res->host)
		why = "no \"tree\" or \"host\"";
	else if (json_is_object(failed) && (!res->apply_failed || !res->apply_why))
		why = "\"apply_failed\" has no \"name\" and \"why\"";
	else if (json_is_object(build) && !result_build(build, res))
		why = "\"build\" is not a build's result";
	else if (json_is_object(boot) && !result_boot(boot, res))
		why = "\"boot\" is not a boot's result";
	else if (res->has_boot && !(res->has_build && res->build_ok))
		why = "a boot without a build that succeeded";
	else if (!res->apply_failed && !res->has_build)
		why = "every patch applied, and there is no build";
	if (why) {
		strbuf_addf(err, "step: %s: %s", path, why);
		step_result_release(res);
		free(path);
		return -EINVAL;
	}
	free(path);
	return 0;
}

void step_result_release(struct step_result *res)
{
	strlist_release(&res->inputs);
	json_decref(res->root);
	memset(res, 0, sizeof(*res));
}
