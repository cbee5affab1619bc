// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "output/report.h"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* Indent every line of @text by @pad. */
static void indented(struct strbuf *out, const char *pad, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		strbuf_addf(out, "%s%.*s\n", pad, (int)n, p);
		p += n + (nl ? 1 : 0);
	}
}

static void name_array(struct strbuf *out, const json_t *a)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		strbuf_addf(out, "%s%s", i ? ", " : "", json_string_value(v));
}

void report_render_text(const json_t *report, struct strbuf *out)
{
	const json_t *patches = json_object_get(report, "patches");
	const json_t *stats = json_object_get(report, "stats");
	const char *verdict = str(report, "verdict");
	size_t i, n_drop = json_array_size(json_object_get(report, "drop"));
	size_t n_ok = 0, n_quiet = 0, n_changes = 0;
	json_t *p;

	strbuf_addf(out, "backport-gate run %lld: %s on %s: ",
		    (long long)json_integer_value(json_object_get(report, "run")),
		    str(report, "queue"), str(report, "base"));
	if (strcmp(verdict, "error") == 0) {
		strbuf_addf(out, "NO VERDICT\n  %s\n", str(report, "error"));
		return;
	}
	if (n_drop)
		strbuf_addf(out, "DROP %zu of %zu patches\n", n_drop, json_array_size(patches));
	else
		strbuf_addf(out, "PASS, nothing to drop (%zu patches)\n", json_array_size(patches));
	if (json_array_size(json_object_get(report, "config_checks"))) {
		strbuf_addf(out, "  config check: ");
		name_array(out, json_object_get(report, "config_checks"));
		strbuf_addf(out, " (the objects each patch touches, compiled as those configs build them)\n");
	}

	if (n_drop) {
		strbuf_addf(out, "\nDrop:\n");
		json_array_foreach(patches, i, p) {
			const json_t *regs = json_object_get(p, "regressions");

			if (strcmp(str(p, "status"), "drop") != 0)
				continue;
			strbuf_addf(out, "  %s  [%s]\n", str(p, "name"), str(p, "reason"));
			if (json_is_string(json_object_get(p, "subject")))
				strbuf_addf(out, "      \"%s\"\n", str(p, "subject"));
			if (json_is_string(json_object_get(p, "author")))
				strbuf_addf(out, "      from %s%s%s\n", str(p, "author"),
					    json_is_string(json_object_get(p, "date")) ? ", " : "",
					    json_is_string(json_object_get(p, "date")) ? str(p, "date") : "");
			if (json_is_string(json_object_get(p, "message_id")))
				strbuf_addf(out, "      message-id <%s>\n", str(p, "message_id"));
			if (json_is_string(json_object_get(p, "upstream")))
				strbuf_addf(out, "      upstream %s\n", str(p, "upstream"));
			if (json_array_size(regs)) {
				strbuf_addf(out, "      regressed: ");
				name_array(out, regs);
				strbuf_addch(out, '\n');
			}
			indented(out, "      ", str(p, "evidence"));
			if (str(p, "steps")[0]) {
				strbuf_addf(out, "      bisection:\n");
				indented(out, "        ", str(p, "steps"));
			}
		}
	}
	json_array_foreach(patches, i, p) {
		if (json_array_size(json_object_get(p, "changes")))
			n_changes++;
		if (strcmp(str(p, "status"), "ok") == 0)
			n_ok++;
		else if (strcmp(str(p, "status"), "not-exercised") == 0)
			n_quiet++;
	}
	if (n_changes) {
		strbuf_addf(out, "\nBehaviour changes (quirks of the base, reported, not dropped):\n");
		json_array_foreach(patches, i, p) {
			if (!json_array_size(json_object_get(p, "changes")) ||
			    strcmp(str(p, "status"), "drop") == 0)
				continue;
			strbuf_addf(out, "  %s changes ", str(p, "name"));
			name_array(out, json_object_get(p, "changes"));
			strbuf_addch(out, '\n');
			indented(out, "      ", str(p, "evidence"));
		}
	}
	strbuf_addf(out, "\nKept: %zu ok, %zu not exercised by the test kernel\n", n_ok, n_quiet);
	json_array_foreach(patches, i, p) {
		const json_t *apply = json_object_get(p, "apply");

		if (strcmp(str(p, "status"), "drop") == 0)
			continue;
		strbuf_addf(out, "  %-60s %s", str(p, "name"), str(p, "status"));
		if (strcmp(str(apply, "status"), "offset") == 0)
			strbuf_addf(out, " (applied at an offset of %lld lines)",
				    (long long)json_integer_value(json_object_get(apply, "offset")));
		else if (strcmp(str(apply, "status"), "already") == 0)
			strbuf_addf(out, " (already applied)");
		strbuf_addch(out, '\n');
	}
	if (json_array_size(json_object_get(report, "base_failing"))) {
		strbuf_addf(out, "\nFailing on base already (never blamed): ");
		name_array(out, json_object_get(report, "base_failing"));
		strbuf_addch(out, '\n');
	}
	if (json_array_size(json_object_get(report, "flaky"))) {
		strbuf_addf(out, "\nFlaky (a fresh boot did not reproduce them; not blamed): ");
		name_array(out, json_object_get(report, "flaky"));
		strbuf_addch(out, '\n');
	}
	if (json_string_value(json_object_get(report, "kept_tree")))
		strbuf_addf(out, "\nKept tree: %s (commit %s; backport-gate export %lld DIR writes it)\n",
			    str(report, "kept_tree"), str(report, "kept_commit"),
			    (long long)json_integer_value(json_object_get(report, "run")));
	if (stats)
		strbuf_addf(out, "\nCost: %lld kernel builds, %lld boots (%s), %lld sequences judged, %.1f s\n",
			    (long long)json_integer_value(json_object_get(stats, "builds")),
			    (long long)json_integer_value(json_object_get(stats, "boots")),
			    str(stats, "accel"),
			    (long long)json_integer_value(json_object_get(stats, "evaluations")),
			    json_real_value(json_object_get(stats, "seconds")));
	if (stats && json_object_get(stats, "compile_checks"))
		strbuf_addf(out, "      compile check: %lld trees compiled (%lld known from earlier runs), "
			    "%lld objects, %.1f s preparing configs, %.1f s in all\n",
			    (long long)json_integer_value(json_object_get(stats, "compile_checks")),
			    (long long)json_integer_value(json_object_get(stats, "compile_recalled")),
			    (long long)json_integer_value(json_object_get(stats, "compile_objects")),
			    json_real_value(json_object_get(stats, "compile_setup_seconds")),
			    json_real_value(json_object_get(stats, "compile_seconds")));
	if (stats && json_object_get(stats, "executor") &&
	    strcmp(str(stats, "executor"), "slurm") == 0)
		strbuf_addf(out, "      on Slurm: %zu steps, %lld at once at most, %lld rounds\n",
			    json_array_size(json_object_get(report, "steps")),
			    (long long)json_integer_value(json_object_get(stats, "workers")),
			    (long long)json_integer_value(json_object_get(stats, "rounds")));
}
