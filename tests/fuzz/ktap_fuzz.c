// SPDX-License-Identifier: GPL-2.0
/*
 * ktap_marked_block() and ktap_parse() on untrusted bytes: a guest's console
 * is whatever the kernel under test (and anything it runs) printed. As the
 * gate does (kernel.c), the block between the markers with the boot's token
 * is cut out and parsed; the whole console is parsed too.
 *
 * Checked beyond memory safety: the marked block lies inside the console
 * right after a begin marker line; results fit the plan, a complete run has
 * every result, a quirk change comes from a quirk, and a last line without
 * its newline is never read (the guest died mid-line), so cutting the
 * input after its last newline changes nothing.
 */
#include <errno.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "parse/ktap.h"

static void check_run(const struct ktap_run *run)
{
	fuzz_check(run->planned <= KTAP_MAX_CASES, "planned %zu", run->planned);
	fuzz_check(run->n_cases <= run->planned, "%zu results for a plan of %zu", run->n_cases,
		   run->planned);
	fuzz_check(!run->complete || run->n_cases == run->planned,
		   "complete with %zu of %zu results", run->n_cases, run->planned);
	for (size_t i = 0; i < run->n_cases; i++) {
		const struct case_result *c = &run->cases[i];
		const struct case_result *found;

		fuzz_check(c->name && strlen(c->name) <= KTAP_MAX_NAME, "case %zu name", i);
		fuzz_check(c->diagnostic, "case %zu has no diagnostic", i);
		fuzz_check(c->status != CASE_QUIRK_CHANGED || c->quirk,
			   "case %zu: a quirk change from a contract case", i);
		fuzz_check(strcmp(case_status_name(c->status), "unknown"), "case %zu: status %d",
			   i, (int)c->status);
		found = ktap_find(run, c->name);
		fuzz_check(found && found <= c && !strcmp(found->name, c->name),
			   "ktap_find(\"%s\") does not find case %zu", c->name, i);
	}
}

static bool same_run(const struct ktap_run *a, const struct ktap_run *b)
{
	if (a->n_cases != b->n_cases || a->planned != b->planned || a->complete != b->complete)
		return false;
	for (size_t i = 0; i < a->n_cases; i++)
		if (strcmp(a->cases[i].name, b->cases[i].name) ||
		    strcmp(a->cases[i].diagnostic, b->cases[i].diagnostic) ||
		    a->cases[i].status != b->cases[i].status || a->cases[i].quirk != b->cases[i].quirk)
			return false;
	return true;
}

#define TOKEN "0123456789abcdef0123456789abcdef"
#define BEGIN "# backport-gate begin " TOKEN

/* What the gate believes: the block between this boot's markers. */
static void check_marked_block(const char *console, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct ktap_run run;
	const char *block;
	size_t len, begin_len = strlen(BEGIN);
	char *copy;

	if (!ktap_marked_block(console, size, TOKEN, &block, &len))
		return;
	fuzz_check(block >= console + begin_len + 1 && block <= console + size &&
		   len <= (size_t)(console + size - block),
		   "block at %td, %zu bytes, in %zu bytes", block - console, len, size);
	fuzz_check(block[-1] == '\n', "the block does not start a line");
	{
		const char *line = block - 1;

		while (line > console && line[-1] != '\n')
			line--;
		fuzz_check(!strncmp(line, BEGIN, begin_len),
			   "the line before the block is not the begin marker");
	}
	/* in a buffer of its own, so reading past the block is caught */
	copy = fuzz_dup(block, len);
	if (ktap_parse(copy, len, &run, &err) == 0)
		check_run(&run);
	ktap_run_release(&run);
	strbuf_release(&err);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *console = (const char *)data;
	struct strbuf err = STRBUF_INIT, cut_err = STRBUF_INIT;
	struct ktap_run run, cut_run;
	size_t cut = size;
	int r, cut_r;

	r = ktap_parse(console, size, &run, &err);
	if (r < 0) {
		fuzz_check(r == -EBADMSG, "r=%d", r);
		/* the console's bytes may be quoted in it, but never a newline */
		fuzz_check(err.len && !strchr(err.buf, '\n'), "message \"%s\"", err.buf);
		fuzz_check(!run.cases && !run.n_cases && !run.complete, "a refused run is not empty");
	} else {
		fuzz_check(r == 0 && !err.len, "r=%d, message \"%s\"", r, err.buf);
		check_run(&run);
	}

	/* Without the unterminated last line: the same answer. */
	while (cut && console[cut - 1] != '\n')
		cut--;
	if (cut != size) {
		char *copy = fuzz_dup(console, cut);

		cut_r = ktap_parse(copy, cut, &cut_run, &cut_err);
		fuzz_check(cut_r == r, "r=%d, but %d without the last %zu bytes", r, cut_r,
			   size - cut);
		fuzz_check(!strcmp(err.buf, cut_err.buf), "message \"%s\", but \"%s\" when cut",
			   err.buf, cut_err.buf);
		fuzz_check(same_run(&run, &cut_run), "another run without the last %zu bytes",
			   size - cut);
		ktap_run_release(&cut_run);
		free(copy);
	}

	ktap_run_release(&run);
	strbuf_release(&err);
	strbuf_release(&cut_err);
	check_marked_block(console, size);
	return 0;
}
