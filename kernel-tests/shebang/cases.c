// SPDX-License-Identifier: GPL-2.0
/*
 * Every case states what unmodified linux-source-6.1 does; the kernel's
 * load_script() (fs/binfmt_script.c) and exec_binprm() (fs/exec.c) are the
 * code under test. BINPRM_BUF_SIZE is 256: the kernel sees at most the
 * first 256 bytes of a script, and with no newline in them it keeps the
 * first 255 as the line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"

/* ---- the 27 cases of tools/testing/selftests/exec/binfmt_script.py ---- */

#define SELFTEST_SIZE 256	/* BINPRM_BUF_SIZE, as the selftest names it */
#define SELFTEST_NAME_MAX 255	/* getconf NAME_MAX on the guest's rootfs */

/*
 * One line built the way the selftest's test() builds it: "#!", @leading,
 * a path of @size bytes in all (@root, filler, @target) plus @arg, then
 * @newline. Unset strings take the selftest's defaults. Where the probe is
 * expected to run, it gets argv = { interpreter path, @expect_arg if not
 * NULL, script path }.
 */
struct selftest_line {
	const char *script;	/* file name suffix: binfmt_script-<script> */
	int size;
	const char *leading, *root, *target, *fill, *arg, *newline;
	int expect_errno;
	const char *expect_arg;
};

static const char *or_default(const char *s, const char *def)
{
	return s ? s : def;
}

static int prepare_selftest(struct case_run *run, const void *data)
{
	const struct selftest_line *t = data;
	const char *leading = or_default(t->leading, ""), *root = or_default(t->root, "./");
	const char *target = or_default(t->target, "/perl"), *fill = or_default(t->fill, "A");
	const char *arg = or_default(t->arg, ""), *newline = or_default(t->newline, "\n");
	char middle[1024] = "", dirpath[1024], binary[1024], line[2048];
	const char *script, *interp;
	int remaining, r;
	size_t m = 0;

	remaining = t->size - 2 - (int)(strlen(leading) + strlen(root) +
					 strlen(target) + strlen(arg));
	/* No path component may exceed NAME_MAX: split the filler with '/'. */
	while (remaining >= SELFTEST_NAME_MAX) {
		for (int i = 0; i < SELFTEST_NAME_MAX - 1; i++)
			middle[m++] = fill[0];
		middle[m++] = '/';
		remaining -= SELFTEST_NAME_MAX;
	}
	for (int i = 0; i < remaining && fill[0]; i++)
		middle[m++] = fill[0];
	middle[m] = '\0';

	snprintf(dirpath, sizeof(dirpath), "%s%s", root, middle);
	snprintf(binary, sizeof(binary), "%s%s", dirpath, target);
	if (target[0]) {
		r = install_probe(binary);
		if (r < 0)
			return r;
	}
	snprintf(line, sizeof(line), "#!%s%s%s%s%s", leading, binary, arg, newline,
		 newline[0] ? "echo this is not really perl\n" : "");
	script = run_printf(run, "./binfmt_script-%s", t->script);
	r = write_script(script, line, 0755);
	if (r < 0)
		return r;

	run_exec(run, script, NULL);
	interp = run_printf(run, "%s", binary);
	if (t->expect_errno)
		expect_errno(run, t->expect_errno);
	else if (t->expect_arg)
		expect_argv(run, interp, t->expect_arg, script, NULL);
	else
		expect_argv(run, interp, script, NULL);
	return 0;
}

#define NIX_ARGS \
	" -I/nix/store/x6yyav38jgr924nkna62q3pkp0dgmzlx-perl5.28.1-File-Slurp-9999.25/lib/perl5/site_perl" \
	" -I/nix/store/ha8v67sl8dac92r9z07vzr4gv1y9nwqz-perl5.28.1-Net-DBus-1.1.0/lib/perl5/site_perl" \
	" -I/nix/store/dcrkvnjmwh69ljsvpbdjjdnqgwx90a9d-perl5.28.1-XML-Parser-2.44/lib/perl5/site_perl" \
	" -I/nix/store/rmji88k2zz7h4zg97385bygcydrf2q8h-perl5.28.1-XML-Twig-3.52/lib/perl5/site_perl"

/*
 * What 6.1 passes for the NixOS arguments: the line is cut after its 255th
 * byte, which happens to fall at the end of the second -I argument.
 */
#define NIX_ARGS_TRUNCATED \
	"-I/nix/store/x6yyav38jgr924nkna62q3pkp0dgmzlx-perl5.28.1-File-Slurp-9999.25/lib/perl5/site_perl" \
	" -I/nix/store/ha8v67sl8dac92r9z07vzr4gv1y9nwqz-perl5.28.1-Net-DBus-1.1.0/lib/perl5/site_perl"

/* Failures: no interpreter can be trusted from these lines. */
static const struct selftest_line st_too_big = {
	.script = "too-big", .size = SELFTEST_SIZE + 80, .expect_errno = ENOEXEC };
static const struct selftest_line st_exact = {
	.script = "exact", .size = SELFTEST_SIZE, .expect_errno = ENOEXEC };
static const struct selftest_line st_exact_space = {
	.script = "exact-space", .size = SELFTEST_SIZE, .leading = " ", .expect_errno = ENOEXEC };
static const struct selftest_line st_whitespace_too_big = {
	.script = "whitespace-too-big", .size = SELFTEST_SIZE + 71, .root = "", .fill = " ", .target = "",
	.expect_errno = ENOEXEC };
static const struct selftest_line st_truncated = {
	.script = "truncated", .size = SELFTEST_SIZE + 17, .leading = "                   ",
	.expect_errno = ENOEXEC };
/*
 * "#!" and nothing else, not even a newline: the NUL padding after it is
 * taken as an empty interpreter name, which resolves to the working
 * directory, and exec of a directory is EACCES (measured on 6.1), rather
 * than the ENOEXEC of "#!\n". Same root cause as the trailing-blank quirks
 * below; a fix may turn it into ENOEXEC.
 */
static const struct selftest_line st_empty = {
	.script = "empty", .size = 2, .root = "", .fill = "", .target = "", .newline = "",
	.expect_errno = EACCES };
static const struct selftest_line st_spaces = {
	.script = "spaces", .size = SELFTEST_SIZE - 1, .root = "", .fill = " ", .target = "", .newline = "",
	.expect_errno = ENOEXEC };
static const struct selftest_line st_newline_prefix = {
	.script = "newline-prefix", .size = SELFTEST_SIZE - 1, .leading = "\n", .root = "", .fill = " ",
	.target = "", .expect_errno = ENOEXEC };

/* Successes: the interpreter path is complete, arguments may be cut. */
static const struct selftest_line st_test_pl = {
	.script = "test.pl", .size = 439, .leading = " ",
	.root = "./nix/store/bwav8kz8b3y471wjsybgzw84mrh4js9-perl-5.28.1/bin",
	.arg = NIX_ARGS, .expect_arg = NIX_ARGS_TRUNCATED };
static const struct selftest_line st_one_under = { .script = "one-under", .size = SELFTEST_SIZE - 1 };
static const struct selftest_line st_two_under = { .script = "two-under", .size = SELFTEST_SIZE - 2 };
/* The blank after the path is the buffer's last byte: no argument. */
static const struct selftest_line st_exact_trunc_whitespace = {
	.script = "exact-trunc-whitespace", .size = SELFTEST_SIZE, .arg = " " };
/* Only the argument's first byte fits, and it falls outside the line. */
static const struct selftest_line st_exact_trunc_arg = {
	.script = "exact-trunc-arg", .size = SELFTEST_SIZE, .arg = " f" };
static const struct selftest_line st_one_under_full_arg = {
	.script = "one-under-full-arg", .size = SELFTEST_SIZE - 1, .arg = " f", .expect_arg = "f" };
static const struct selftest_line st_one_under_no_nl = {
	.script = "one-under-no-nl", .size = SELFTEST_SIZE - 1, .newline = "" };
static const struct selftest_line st_half_under_no_nl = {
	.script = "half-under-no-nl", .size = SELFTEST_SIZE / 2, .newline = "" };
static const struct selftest_line st_one_under_trunc_arg = {
	.script = "one-under-trunc-arg", .size = SELFTEST_SIZE - 1, .arg = " " };
static const struct selftest_line st_one_under_leading = {
	.script = "one-under-leading", .size = SELFTEST_SIZE - 1, .leading = " " };
static const struct selftest_line st_one_under_leading_trunc_arg = {
	.script = "one-under-leading-trunc-arg", .size = SELFTEST_SIZE - 1, .leading = " ", .arg = " " };
static const struct selftest_line st_two_under_no_nl = {
	.script = "two-under-no-nl", .size = SELFTEST_SIZE - 2, .newline = "" };
static const struct selftest_line st_two_under_trunc_arg = {
	.script = "two-under-trunc-arg", .size = SELFTEST_SIZE - 2, .arg = " " };
static const struct selftest_line st_two_under_leading = {
	.script = "two-under-leading", .size = SELFTEST_SIZE - 2, .leading = " " };
static const struct selftest_line st_two_under_leading_trunc_arg = {
	.script = "two-under-leading-trunc-arg", .size = SELFTEST_SIZE - 2, .leading = " ", .arg = " " };
/*
 * The selftest repeats three names for its half-buffer variants; KTAP needs
 * unique names, so those three carry an "@half" suffix here.
 */
static const struct selftest_line st_half_no_nl = {
	.script = "two-under-no-nl@half", .size = SELFTEST_SIZE / 2, .newline = "" };
static const struct selftest_line st_half_trunc_arg = {
	.script = "two-under-trunc-arg@half", .size = SELFTEST_SIZE / 2, .arg = " " };
static const struct selftest_line st_half_leading = {
	.script = "two-under-leading@half", .size = SELFTEST_SIZE / 2, .leading = " " };
static const struct selftest_line st_half_lead_trunc_arg = {
	.script = "two-under-lead-trunc-arg", .size = SELFTEST_SIZE / 2, .leading = " ", .arg = " " };

/* ---- one script file, one expected outcome ---- */

/*
 * The script "./script" holds @text (mode 0755); @install, when set, is a
 * path where the probe is placed first. The probe is expected to run with
 * { @interp, @arg if not NULL, "./script" }, or execve to fail with
 * @expect_errno.
 */
struct line_case {
	const char *text;
	const char *install;
	int expect_errno;
	const char *interp;
	const char *arg;
};

static int prepare_line(struct case_run *run, const void *data)
{
	const struct line_case *l = data;
	int r;

	if (l->install) {
		r = install_probe(l->install);
		if (r < 0 && r != -EEXIST)
			return r;
	}
	r = write_script("script", l->text, 0755);
	if (r < 0)
		return r;
	run_exec(run, "./script", NULL);
	if (l->expect_errno)
		expect_errno(run, l->expect_errno);
	else if (l->arg)
		expect_argv(run, l->interp, l->arg, "./script", NULL);
	else
		expect_argv(run, l->interp, "./script", NULL);
	return 0;
}

#define NIX_PERL "/nix/store/mbwav8kz8b3y471wjsybgzw84mrh4js9-perl-5.28.1/bin/perl"

/* The line from the 2019 NixOS report: 439 bytes, all on one line. */
static const struct line_case nixos_2019 = {
	"#! " NIX_PERL NIX_ARGS "\nprint \"hello\\n\";\n", NIX_PERL, 0,
	NIX_PERL, NIX_ARGS_TRUNCATED };

/* Everything after the interpreter is one argument, blanks inside kept. */
static const struct line_case arg_single = {
	"#!/probe -a -b\n", NULL, 0, "/probe", "-a -b" };
static const struct line_case arg_inner_blanks = {
	"#!/probe  -a \t -b\n", NULL, 0, "/probe", "-a \t -b" };
static const struct line_case leading_blanks = {
	"#! \t /probe -a\n", NULL, 0, "/probe", "-a" };
static const struct line_case trailing_blanks = {
	"#!/probe -a \t \n", NULL, 0, "/probe", "-a" };
static const struct line_case tab_separator = {
	"#!/probe\t-a\n", NULL, 0, "/probe", "-a" };
static const struct line_case plain_newline = {
	"#!/probe\n", NULL, 0, "/probe", NULL };
static const struct line_case plain_no_newline = {
	"#!/probe", NULL, 0, "/probe", NULL };
static const struct line_case blank_then_newline = {
	"#!/probe \n", NULL, 0, "/probe", NULL };

/*
 * Quirks (DESIGN.md, "Regression, or a fix that changes a quirk?"): with
 * no newline, the NUL padding stops the trimming of trailing blanks.
 */
static const struct line_case quirk_blank_no_newline = {
	"#!/probe ", NULL, 0, "/probe", "" };
static const struct line_case quirk_arg_blank_no_newline = {
	"#!/probe -a ", NULL, 0, "/probe", "-a " };

/* Errors. */
static const struct line_case hashbang_newline = {
	"#!\n", NULL, ENOEXEC, NULL, NULL };
static const struct line_case blanks_only = {
	"#!  \t  \n", NULL, ENOEXEC, NULL, NULL };
static const struct line_case interp_missing = {
	"#!/no/such/interpreter\n", NULL, ENOENT, NULL, NULL };
static const struct line_case interp_directory = {
	"#!/\n", NULL, EACCES, NULL, NULL };
/* The '\r' of a DOS line is part of the interpreter's name. */
static const struct line_case dos_line = {
	"#!/probe\r\n", NULL, ENOENT, NULL, NULL };

/* ---- the pre-5.0 128-byte buffer boundary ---- */

/*
 * "#!/probe " and a filler argument, @data bytes in all before the
 * newline. 6.1 passes the whole filler; a kernel whose buffer shrank back
 * to 128 bytes would cut it.
 */
static int prepare_boundary(struct case_run *run, const void *data)
{
	const int *length = data;
	const char *prefix = "#!/probe ";
	char filler[256], text[300];
	size_t n = (size_t)*length - strlen(prefix);
	int r;

	for (size_t i = 0; i < n; i++)
		filler[i] = (char)('a' + i % 26);
	filler[n] = '\0';
	snprintf(text, sizeof(text), "%s%s\n", prefix, filler);
	r = write_script("script", text, 0755);
	if (r < 0)
		return r;
	run_exec(run, "./script", NULL);
	expect_argv(run, "/probe", run_printf(run, "%s", filler), "./script", NULL);
	return 0;
}

static const int line_127 = 127, line_128 = 128, line_129 = 129;

/* ---- argv and envp passed on ---- */

static int prepare_argv0_replaced(struct case_run *run, const void *data)
{
	int r = write_script("script", "#!/probe\n", 0755);

	(void)data;
	run_exec(run, "./script", "x", NULL);
	run->argv[0] = "not-the-script";
	expect_argv(run, "/probe", "./script", "x", NULL);
	return r;
}

static int prepare_more_args(struct case_run *run, const void *data)
{
	int r = write_script("script", "#!/probe -a\n", 0755);

	(void)data;
	run_exec(run, "./script", "one", "two words", "", " \t", NULL);
	expect_argv(run, "/probe", "-a", "./script", "one", "two words", "", " \t", NULL);
	return r;
}

static int prepare_environment(struct case_run *run, const void *data)
{
	static const char *const envp[] = {
		"PATH=/nix/bin:/bin", "EMPTY=", "SPACES=a b\tc", "NOEQUALS", NULL,
	};
	int r = write_script("script", "#!/probe\n", 0755);

	(void)data;
	memcpy(run->envp, envp, sizeof(envp));
	run_exec(run, "./script", NULL);
	expect_argv(run, "/probe", "./script", NULL);
	return r;
}

static int prepare_empty_environment(struct case_run *run, const void *data)
{
	int r = write_script("script", "#!/probe\n", 0755);

	(void)data;
	run->envp[0] = NULL;
	run_exec(run, "./script", NULL);
	expect_argv(run, "/probe", "./script", NULL);
	return r;
}

/* ---- permissions ---- */

static int prepare_interp_not_executable(struct case_run *run, const void *data)
{
	int r = write_script("interp", "not a program\n", 0644);

	(void)data;
	if (r == 0)
		r = write_script("script", "#!./interp\n", 0755);
	run_exec(run, "./script", NULL);
	expect_errno(run, EACCES);
	return r;
}

static int prepare_script_not_executable(struct case_run *run, const void *data)
{
	int r = write_script("script", "#!/probe\n", 0644);

	(void)data;
	run_exec(run, "./script", NULL);
	expect_errno(run, EACCES);
	return r;
}

/* ---- arguments that do not fit ---- */

/* A script whose arguments do not fit is refused before it is read. */
static int prepare_argv_too_long(struct case_run *run, const void *data)
{
	int r = write_script("script", "#!/probe\n", 0755);

	(void)data;
	run_exec(run, "./script", NULL);
	run->argv_too_long = true;
	expect_errno(run, E2BIG);
	return r;
}

/*
 * A script that may not be executed, with arguments that do not fit: which
 * error wins changed upstream in 6.8 ("execve: open the executable file
 * before doing anything else"). Before, execve counted the arguments and
 * only then opened the file: E2BIG, as on 6.1. Since, it opens the file
 * first: EACCES, as on 6.12. Both are right for their release, so the case
 * asks the running kernel; a backport that moves 6.1 to the new order is a
 * changed quirk, reported, not a regression.
 */
static int prepare_not_executable_argv_too_long(struct case_run *run, const void *data)
{
	int r = write_script("script", "#!/probe\n", 0644);

	(void)data;
	run_exec(run, "./script", NULL);
	run->argv_too_long = true;
	if (since_kernel(run, 6, 8, "execve opens the file before it counts the arguments"))
		expect_errno(run, EACCES);
	else
		expect_errno(run, E2BIG);
	return r;
}

/* ---- nesting: a script as the interpreter of a script ---- */

/*
 * exec_binprm() allows the handler to be searched six times (depth 0..5):
 * five scripts in a chain and the probe at the end. @data is the number
 * of scripts; level1 names level2 as interpreter, the last names /probe.
 */
static int prepare_nested(struct case_run *run, const void *data)
{
	int levels = *(const int *)data;
	char path[64], text[64];
	int r;

	for (int i = 1; i <= levels; i++) {
		snprintf(path, sizeof(path), "level%d", i);
		if (i == levels)
			snprintf(text, sizeof(text), "#!/probe\n");
		else
			snprintf(text, sizeof(text), "#!./level%d\n", i + 1);
		r = write_script(path, text, 0755);
		if (r < 0)
			return r;
	}
	run_exec(run, "./level1", "x", NULL);
	if (levels > 5) {
		expect_errno(run, ELOOP);
		return 0;
	}
	/* Each level puts its interpreter in front and its own path after it. */
	run->expect_argv[0] = "/probe";
	for (int i = levels, n = 1; i >= 1; i--, n++)
		run->expect_argv[n] = run_printf(run, "./level%d", i);
	run->expect_argv[levels + 1] = "x";
	run->expect_argv[levels + 2] = NULL;
	return 0;
}

static const int nest_2 = 2, nest_5 = 5, nest_6 = 6;

/* ---- relative interpreter paths ---- */

/* Resolved against the working directory of the exec, not the script's. */
static int prepare_relative_interp(struct case_run *run, const void *data)
{
	int r = install_probe("bin/probe");

	(void)data;
	if (r == 0)
		r = write_script("script", "#!bin/probe -r\n", 0755);
	run_exec(run, "./script", NULL);
	expect_argv(run, "bin/probe", "-r", "./script", NULL);
	return r;
}

static int prepare_relative_interp_elsewhere(struct case_run *run, const void *data)
{
	int r = install_probe("dir/bin/probe");

	(void)data;
	if (r == 0)
		r = write_script("dir/script", "#!bin/probe\n", 0755);
	/* From here, bin/probe does not exist; next to the script it would. */
	run_exec(run, "./dir/script", NULL);
	expect_errno(run, ENOENT);
	return r;
}

/* ---- execveat(AT_EMPTY_PATH), what fexecve() does ---- */

/*
 * With O_CLOEXEC the interpreter could never open /dev/fd/N, so 6.1
 * refuses (BINPRM_FLAGS_PATH_INACCESSIBLE); without it the script path
 * the interpreter gets is "/dev/fd/N".
 */
static int prepare_execveat(struct case_run *run, const void *data)
{
	bool cloexec = *(const bool *)data;
	int r = write_script("script", "#!/probe\n", 0755);

	if (r < 0)
		return r;
	run->exec_fd = open("script", O_RDONLY | (cloexec ? O_CLOEXEC : 0));
	if (run->exec_fd < 0)
		return -errno;
	run->argv[0] = "script-by-fd";
	run->argv[1] = NULL;
	if (cloexec)
		expect_errno(run, ENOENT);
	else
		expect_argv(run, "/probe", run_printf(run, "/dev/fd/%d", run->exec_fd), NULL);
	return 0;
}

static const bool with_cloexec = true, without_cloexec = false;

#define SELFTEST(t) { t.script, CASE_CONTRACT, prepare_selftest, &t }
#define LINE(name, kind, l) { name, kind, prepare_line, &l }

const struct shebang_case shebang_cases[] = {
	SELFTEST(st_too_big),
	SELFTEST(st_exact),
	SELFTEST(st_exact_space),
	SELFTEST(st_whitespace_too_big),
	SELFTEST(st_truncated),
	{ "empty", CASE_QUIRK, prepare_selftest, &st_empty },
	SELFTEST(st_spaces),
	SELFTEST(st_newline_prefix),
	SELFTEST(st_test_pl),
	SELFTEST(st_one_under),
	SELFTEST(st_two_under),
	SELFTEST(st_exact_trunc_whitespace),
	SELFTEST(st_exact_trunc_arg),
	SELFTEST(st_one_under_full_arg),
	SELFTEST(st_one_under_no_nl),
	SELFTEST(st_half_under_no_nl),
	SELFTEST(st_one_under_trunc_arg),
	SELFTEST(st_one_under_leading),
	SELFTEST(st_one_under_leading_trunc_arg),
	SELFTEST(st_two_under_no_nl),
	SELFTEST(st_two_under_trunc_arg),
	SELFTEST(st_two_under_leading),
	SELFTEST(st_two_under_leading_trunc_arg),
	SELFTEST(st_half_no_nl),
	SELFTEST(st_half_trunc_arg),
	SELFTEST(st_half_leading),
	SELFTEST(st_half_lead_trunc_arg),

	LINE("nixos-2019", CASE_CONTRACT, nixos_2019),

	LINE("argv-one-argument", CASE_CONTRACT, arg_single),
	LINE("argv-inner-blanks-kept", CASE_CONTRACT, arg_inner_blanks),
	LINE("argv-leading-blanks", CASE_CONTRACT, leading_blanks),
	LINE("argv-trailing-blanks", CASE_CONTRACT, trailing_blanks),
	LINE("argv-tab-separator", CASE_CONTRACT, tab_separator),
	LINE("argv-plain", CASE_CONTRACT, plain_newline),
	LINE("argv-plain-no-newline", CASE_CONTRACT, plain_no_newline),
	LINE("argv-blank-then-newline", CASE_CONTRACT, blank_then_newline),
	{ "argv-script-replaces-argv0", CASE_CONTRACT, prepare_argv0_replaced, NULL },
	{ "argv-more-arguments", CASE_CONTRACT, prepare_more_args, NULL },
	{ "envp-passed-on", CASE_CONTRACT, prepare_environment, NULL },
	{ "envp-empty", CASE_CONTRACT, prepare_empty_environment, NULL },

	LINE("quirk-blank-no-newline", CASE_QUIRK, quirk_blank_no_newline),
	LINE("quirk-arg-blank-no-newline", CASE_QUIRK, quirk_arg_blank_no_newline),

	LINE("error-hashbang-only", CASE_CONTRACT, hashbang_newline),
	LINE("error-blanks-only", CASE_CONTRACT, blanks_only),
	LINE("error-interp-missing", CASE_CONTRACT, interp_missing),
	LINE("error-interp-directory", CASE_CONTRACT, interp_directory),
	{ "error-interp-not-executable", CASE_CONTRACT, prepare_interp_not_executable, NULL },
	{ "error-script-not-executable", CASE_CONTRACT, prepare_script_not_executable, NULL },
	LINE("error-dos-line", CASE_CONTRACT, dos_line),
	{ "error-argv-too-long", CASE_CONTRACT, prepare_argv_too_long, NULL },
	{ "quirk-not-executable-argv-too-long", CASE_QUIRK,
	  prepare_not_executable_argv_too_long, NULL },

	{ "nested-2", CASE_CONTRACT, prepare_nested, &nest_2 },
	{ "nested-5-limit", CASE_CONTRACT, prepare_nested, &nest_5 },
	{ "nested-6-eloop", CASE_CONTRACT, prepare_nested, &nest_6 },
	{ "relative-interp-cwd", CASE_CONTRACT, prepare_relative_interp, NULL },
	{ "relative-interp-not-script-dir", CASE_CONTRACT,
	  prepare_relative_interp_elsewhere, NULL },

	{ "execveat-cloexec", CASE_CONTRACT, prepare_execveat, &with_cloexec },
	{ "execveat-dev-fd", CASE_CONTRACT, prepare_execveat, &without_cloexec },

	{ "buf128-line-127", CASE_CONTRACT, prepare_boundary, &line_127 },
	{ "buf128-line-128", CASE_CONTRACT, prepare_boundary, &line_128 },
	{ "buf128-line-129", CASE_CONTRACT, prepare_boundary, &line_129 },
};

const size_t shebang_case_count = sizeof(shebang_cases) / sizeof(shebang_cases[0]);
