// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "basic/hash.h"
#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "parse/ktap.h"
#include "pipeline/defaults.h"
#include "pipeline/kernel.h"

#define CONSOLE_CAP (1024 * 1024)
#define KVM_PROBE_TIMEOUT 10
#define LOCK_WAIT_SEC 3600

static bool have_command(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool found = false;

	if (!path)
		path = "/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *candidate = xasprintf("%s/%s", dir, name);

		found = access(candidate, X_OK) == 0;
		free(candidate);
	}
	free(copy);
	return found;
}

struct requirement {
	const char *what;	/* a command, or an absolute path */
	const char *package;
};

static int check_packages(const struct kernel_env *env, struct strbuf *err)
{
	static const struct requirement reqs[] = {
		{ "qemu-system-x86_64", "qemu-system-x86" }, { "make", "make" },
		{ "gcc", "gcc" }, { "flex", "flex" }, { "bison", "bison" }, { "bc", "bc" },
		{ "perl", "perl" }, { "xz", "xz-utils" }, { "tar", "tar" }, { "ccache", "ccache" },
		{ "/usr/include/gelf.h", "libelf-dev" },
		{ "/usr/include/openssl/ssl.h", "libssl-dev" },
		{ "/usr/lib/x86_64-linux-gnu/libc.a", "libc6-dev" },
	};

	if (access(env->tarball, R_OK) < 0) {
		strbuf_addf(err, "package missing: linux-source-%s (no %s; apt-get install linux-source-%s)",
			    env->version, env->tarball, env->version);
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		bool ok = reqs[i].what[0] == '/' ? access(reqs[i].what, R_OK) == 0
						 : have_command(reqs[i].what);

		if (!ok) {
			strbuf_addf(err, "package missing: %s (no %s%s%s; apt-get install %s)",
				    reqs[i].package, reqs[i].what[0] == '/' ? "" : "'",
				    reqs[i].what, reqs[i].what[0] == '/' ? "" : "'", reqs[i].package);
			return -ENOENT;
		}
	}
	return 0;
}

static int take_lock(struct kernel_env *env, struct strbuf *err)
{
	char *path = xasprintf("%s/lock", env->dir);
	int waited = 0;

	env->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (env->lock_fd < 0) {
		strbuf_addf(err, "cache: cannot open %s: %s", path, strerror(errno));
		free(path);
		return -errno;
	}
	while (flock(env->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (waited++ >= LOCK_WAIT_SEC) {
			strbuf_addf(err, "cache: %s is held by another run (waited %d s)", path,
				    LOCK_WAIT_SEC);
			free(path);
			return -EBUSY;
		}
		sleep(1);
	}
	free(path);
	return 0;
}

static int suite_version(struct kernel_env *env, struct strbuf *err);

static int build_suite(struct kernel_env *env, struct strbuf *err)
{
	const char *argv[] = { "make", "-s", "-C", env->top, "suite", NULL };
	struct child c = { .argv = argv, .timeout_sec = 300 };
	struct strbuf out = STRBUF_INIT;
	struct child_result res;
	int r;

	strbuf_init(&out, 64 * 1024);
	c.capture = &out;
	r = child_run(&c, &res);
	if (r < 0 || !child_ok(&res)) {
		strbuf_addf(err, "suite: building the shebang suite failed: ");
		if (r < 0)
			strbuf_addf(err, "%s", strerror(-r));
		else
			child_describe(&c, &res, err);
		strbuf_release(&out);
		return r < 0 ? r : -EIO;
	}
	strbuf_release(&out);
	return suite_version(env, err);
}

/* The suite's version: a hash of its two binaries. */
static int suite_version(struct kernel_env *env, struct strbuf *err)
{
	char h1[SHA256_HEX_LEN + 1], h2[SHA256_HEX_LEN + 1], both[2 * SHA256_HEX_LEN + 1];

	if (sha256_file_hex(env->suite_init, h1) < 0 || sha256_file_hex(env->suite_probe, h2) < 0) {
		strbuf_addf(err, "suite: %s or %s missing after the build", env->suite_init,
			    env->suite_probe);
		return -ENOENT;
	}
	snprintf(both, sizeof(both), "%s%s", h1, h2);
	sha256_hex(both, strlen(both), h1);
	env->suite_version = xstrdup(h1);
	return 0;
}

int kernel_env_init(struct kernel_env *env, const char *top, const char *cache,
		    struct strbuf *err)
{
	const char *tarball = getenv("BG_TARBALL");
	const char *base;
	char *version;
	struct strbuf frag = STRBUF_INIT;
	char stamp[SHA256_HEX_LEN + 1];
	int r;

	memset(env, 0, sizeof(*env));
	env->lock_fd = -1;
	env->top = xstrdup(top);
	env->tarball = xstrdup(tarball ? tarball : "/usr/src/linux-source-6.1.tar.xz");
	base = strrchr(env->tarball, '/');
	base = base ? base + 1 : env->tarball;
	version = xstrdup(strncmp(base, "linux-source-", 13) == 0 ? base + 13 : base);
	if (strstr(version, ".tar"))
		*strstr(version, ".tar") = '\0';
	env->version = version;
	env->build_timeout = getenv("BG_BUILD_TIMEOUT") ? atoi(getenv("BG_BUILD_TIMEOUT")) : 1800;
	env->boot_timeout = getenv("BG_BOOT_TIMEOUT") ? atoi(getenv("BG_BOOT_TIMEOUT")) : 120;
	if (env->build_timeout <= 0)
		env->build_timeout = 1800;
	if (env->boot_timeout <= 0)
		env->boot_timeout = 120;

	r = check_packages(env, err);
	if (r < 0)
		return r;
	env->dir = xasprintf("%s/linux-%s", cache, env->version);
	env->src = xasprintf("%s/src", env->dir);
	env->build = xasprintf("%s/build", env->dir);
	env->work = xasprintf("%s/gate", env->dir);
	env->installed = !suite_top_is_source(top);
	if (env->installed) {
		env->fragment = xasprintf("%s/config/shebang.config", top);
		env->suite_init = xasprintf("%s/shebang-init", top);
		env->suite_probe = xasprintf("%s/shebang-probe", top);
		env->cc = xasprintf("%s/ccache-cc", top);
	} else {
		env->fragment = xasprintf("%s/" SUITE_SOURCE_FRAGMENT, top);
		env->suite_init = xasprintf("%s/build/shebang-init", top);
		env->suite_probe = xasprintf("%s/build/shebang-probe", top);
		env->cc = xasprintf("%s/kernel-tests/ccache-cc", top);
	}
	for (const char *d[] = { cache, env->dir, env->build, env->work, NULL }, **p = d; *p; p++) {
		if (mkdir(*p, 0755) < 0 && errno != EEXIST) {
			strbuf_addf(err, "cache: cannot create %s: %s", *p, strerror(errno));
			return -errno;
		}
	}
	r = strbuf_read_file(&frag, env->fragment);
	if (r < 0) {
		strbuf_addf(err, "config: cannot read %s: %s", env->fragment, strerror(-r));
		strbuf_release(&frag);
		return r;
	}
	sha256_hex(frag.buf, frag.len, stamp);
	strbuf_release(&frag);
	env->config_stamp = xstrdup(stamp);
	r = take_lock(env, err);
	if (r < 0)
		return r;
	/* an installed suite was built by make install */
	return env->installed ? suite_version(env, err) : build_suite(env, err);
}

void kernel_env_release(struct kernel_env *env)
{
	if (env->lock_fd >= 0)
		close(env->lock_fd);
	free(env->top);
	free(env->tarball);
	free(env->version);
	free(env->dir);
	free(env->src);
	free(env->build);
	free(env->work);
	free(env->fragment);
	free(env->cc);
	free(env->config_stamp);
	free(env->suite_init);
	free(env->suite_probe);
	free(env->suite_version);
	memset(env, 0, sizeof(*env));
	env->lock_fd = -1;
}

/*
 * The fixed build metadata that makes identical sources hit ccache. make
 * compiles with kernel-tests/ccache-cc (ccache in depend mode where that
 * is safe), as kernel-tests/run does, so the two share results.
 */
static const char *const kbuild_env[] = {
	"KBUILD_BUILD_TIMESTAMP=2019-02-18 00:00:00 UTC",
	"KBUILD_BUILD_USER=backport-gate",
	"KBUILD_BUILD_HOST=backport-gate",
	NULL,
};

static int run_make(struct kernel_env *env, const char *const *targets, const char *log,
		    struct child_result *res, struct strbuf *err)
{
	char *src_arg = xasprintf("%s", env->src), *o_arg = xasprintf("O=%s", env->build);
	char *jobs = xasprintf("-j%ld", sysconf(_SC_NPROCESSORS_ONLN));
	char *ccache_dir = xasprintf("CCACHE_DIR=%s/../ccache", env->dir);
	char *cc = xasprintf("CC=%s", env->cc);
	const char *argv[16] = { "make", "-C", src_arg, o_arg, jobs, cc };
	const char *envv[8];
	struct child c = { .argv = argv, .env = envv, .output_path = log,
			   .timeout_sec = env->build_timeout };
	size_t n = 6, e = 0;
	int r;

	for (size_t i = 0; targets[i] && n < 15; i++)
		argv[n++] = targets[i];
	argv[n] = NULL;
	for (size_t i = 0; kbuild_env[i]; i++)
		envv[e++] = kbuild_env[i];
	envv[e++] = ccache_dir;
	envv[e] = NULL;
	r = child_run(&c, res);
	if (r < 0)
		strbuf_addf(err, "build: cannot start make: %s", strerror(-r));
	else if (res->exec_errno || res->timed_out || res->signal) {
		child_describe(&c, res, err);
		r = -EIO;
	}
	free(src_arg);
	free(o_arg);
	free(jobs);
	free(ccache_dir);
	free(cc);
	return r;
}

static int configure(struct kernel_env *env, struct strbuf *err)
{
	char *stamp_path = xasprintf("%s/.bg-config", env->build);
	char *config = xasprintf("%s/.config", env->build);
	char *log = xasprintf("%s/config.log", env->work);
	struct strbuf stamp = STRBUF_INIT, cfg = STRBUF_INIT, frag = STRBUF_INIT;
	struct child_result res;
	int r = 0;

	strbuf_read_file(&stamp, stamp_path);
	strbuf_rtrim(&stamp);
	if (access(config, R_OK) == 0 && strcmp(stamp.buf, env->config_stamp) == 0)
		goto out;

	{
		const char *t1[] = { "-s", "tinyconfig", NULL };
		char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", env->src);
		const char *margv[] = { merge, "-m", "-O", env->build, config, env->fragment, NULL };
		struct child mc = { .argv = margv, .output_path = log, .timeout_sec = 300 };
		const char *t2[] = { "-s", "olddefconfig", NULL };

		r = run_make(env, t1, log, &res, err);
		if (r == 0 && !child_ok(&res)) {
			strbuf_addf(err, "config: make tinyconfig failed (see %s)", log);
			r = -EIO;
		}
		if (r == 0) {
			r = child_run(&mc, &res);
			if (r < 0 || !child_ok(&res)) {
				strbuf_addf(err, "config: merge_config.sh failed (see %s)", log);
				r = -EIO;
			}
		}
		free(merge);
		if (r == 0)
			r = run_make(env, t2, log, &res, err);
		if (r == 0 && !child_ok(&res)) {
			strbuf_addf(err, "config: make olddefconfig failed (see %s)", log);
			r = -EIO;
		}
	}
	if (r < 0)
		goto out;
	/* Every "=y" of the fragment must have taken. */
	strbuf_read_file(&frag, env->fragment);
	strbuf_read_file(&cfg, config);
	for (char *line = frag.buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "CONFIG_", 7) == 0 && strstr(line, "=y")) {
			char *needle = xasprintf("\n%s\n", line);

			if (!strstr(cfg.buf, needle)) {
				strbuf_addf(err, "config: %s from %s did not take", line, env->fragment);
				r = -EINVAL;
			}
			free(needle);
			if (r < 0)
				goto out;
		}
	}
	{
		FILE *f = fopen(stamp_path, "we");

		if (!f || fprintf(f, "%s\n", env->config_stamp) < 0 || fclose(f) != 0) {
			strbuf_addf(err, "config: cannot write %s", stamp_path);
			r = -EIO;
		}
	}
out:
	strbuf_release(&stamp);
	strbuf_release(&cfg);
	strbuf_release(&frag);
	free(stamp_path);
	free(config);
	free(log);
	return r;
}

/* The first line of the build log that says what broke, tree prefix removed. */
static void first_build_error(const struct kernel_env *env, const char *log, struct strbuf *out)
{
	static const char *const patterns[] = {
		": error: ", ": fatal error: ", "undefined reference", "ld: ", "Error ", NULL,
	};
	struct strbuf sb = STRBUF_INIT;

	strbuf_init(&sb, 64 * 1024 * 1024);
	strbuf_read_file(&sb, log);
	for (size_t p = 0; patterns[p]; p++) {
		char *hit = strstr(sb.buf, patterns[p]);
		char *start, *end;
		size_t prefix = strlen(env->src);

		if (!hit)
			continue;
		start = hit;
		while (start > sb.buf && start[-1] != '\n')
			start--;
		end = strchr(hit, '\n');
		if (!end)
			end = sb.buf + sb.len;
		if ((size_t)(end - start) > prefix && strncmp(start, env->src, prefix) == 0 &&
		    start[prefix] == '/')
			start += prefix + 1;
		strbuf_add(out, start, (size_t)(end - start));
		break;
	}
	if (!out->len)
		strbuf_addf(out, "make failed (see %s)", log);
	strbuf_release(&sb);
}

/*
 * A full disk is the machine's fault, not the patch's: -ENOSPC when @log
 * says so, else 0. make leaves objects half-written by then, which the
 * next build would trust, so the build directory is emptied (ccache
 * makes the full rebuild cheap).
 */
static int no_space(struct kernel_env *env, const char *log, struct strbuf *err)
{
	const char *argv[] = { "find", env->build, "-mindepth", "1", "-delete", NULL };
	struct child c = { .argv = argv, .timeout_sec = 300 };
	struct strbuf text = STRBUF_INIT;
	struct child_result res;
	bool full;

	strbuf_init(&text, 64 * 1024 * 1024);
	strbuf_read_file(&text, log);
	full = strstr(text.buf, "No space left on device") != NULL;
	strbuf_release(&text);
	if (!full)
		return 0;
	strbuf_reset(err);
	strbuf_addf(err, "build: no space left on device in %s (see %s); the build directory "
		    "was emptied for the next build", env->build, log);
	child_run(&c, &res);
	return -ENOSPC;
}

int kernel_build(struct kernel_env *env, enum build_status *ret_status,
		 struct strbuf *first_error, struct strbuf *err)
{
	const char *targets[] = { "bzImage", NULL };
	char *log = xasprintf("%s/build.log", env->work);
	struct child_result res;
	int r;

	r = configure(env, err);
	if (r < 0) {
		char *config_log = xasprintf("%s/config.log", env->work);

		if (no_space(env, config_log, err) < 0)
			r = -ENOSPC;
		free(config_log);
		goto out;
	}
	r = run_make(env, targets, log, &res, err);
	if (r < 0)
		goto out;
	if (child_ok(&res)) {
		*ret_status = BUILD_OK;
	} else {
		r = no_space(env, log, err);
		if (r == 0) {
			*ret_status = BUILD_FAILED;
			first_build_error(env, log, first_error);
		}
	}
out:
	free(log);
	return r;
}

static int write_initramfs(struct kernel_env *env, const char *cpio, struct strbuf *err)
{
	char *list = xasprintf("%s/initramfs.list", env->work);
	char *gen = xasprintf("%s/usr/gen_init_cpio", env->build);
	const char *argv[] = { gen, list, NULL };
	struct child c = { .argv = argv, .output_path = cpio, .timeout_sec = 60 };
	struct child_result res;
	FILE *f = fopen(list, "we");
	int r = 0;

	if (!f) {
		strbuf_addf(err, "initramfs: cannot write %s: %s", list, strerror(errno));
		r = -errno;
		goto out;
	}
	fprintf(f, "dir /dev 0755 0 0\nnod /dev/console 0600 0 0 c 5 1\n"
		   "file /init %s 0755 0 0\nfile /probe %s 0755 0 0\n",
		env->suite_init, env->suite_probe);
	fclose(f);
	/* gen_init_cpio writes the archive to stdout; stderr would corrupt it. */
	r = child_run(&c, &res);
	if (r < 0 || !child_ok(&res)) {
		strbuf_addf(err, "initramfs: %s failed", gen);
		r = -EIO;
	}
out:
	free(list);
	free(gen);
	return r;
}

static int qemu(struct kernel_env *env, const char *accel, int timeout, const char *cpio,
		struct strbuf *console, struct child_result *res)
{
	char *kernel = xasprintf("%s/arch/x86/boot/bzImage", env->build);
	char *append = xasprintf("console=ttyS0 panic=-1 quiet bgtoken=%s", env->boot_token);
	const char *argv[] = {
		"qemu-system-x86_64", "-accel", accel, "-m", "256", "-smp", "1",
		"-nodefaults", "-display", "none", "-no-reboot", "-monitor", "none",
		"-serial", "stdio", "-kernel", kernel, "-initrd", cpio,
		"-append", append, NULL,
	};
	/* A guest that floods the console has said all we will read: stop it. */
	struct child c = { .argv = argv, .capture = console, .stop_when_full = true,
			   .timeout_sec = timeout };
	int r;

	strbuf_reset(console);
	r = child_run(&c, res);
	free(kernel);
	free(append);
	return r;
}

static bool console_complete(const struct kernel_env *env, const struct strbuf *console)
{
	struct ktap_run run;
	struct strbuf err = STRBUF_INIT;
	bool complete = false;
	const char *block;
	size_t len;

	if (!ktap_marked_block(console->buf, console->len, env->boot_token, &block, &len))
		return false;
	if (ktap_parse(block, len, &run, &err) == 0)
		complete = run.complete;
	ktap_run_release(&run);
	strbuf_release(&err);
	return complete;
}

/* Use KVM only once a short boot with it has finished: see DESIGN.md. */
static void choose_accel(struct kernel_env *env, const char *cpio, struct strbuf *console,
			 bool *ret_booted)
{
	const char *forced = getenv("BG_ACCEL");
	struct strbuf state = STRBUF_INIT, boot_id = STRBUF_INIT;
	struct child_result res;
	char *state_path;

	*ret_booted = false;
	snprintf(env->accel, sizeof(env->accel), "tcg");
	if (forced && (strcmp(forced, "tcg") == 0 || strcmp(forced, "kvm") == 0)) {
		snprintf(env->accel, sizeof(env->accel), "%s", forced);
		return;
	}
	if (access("/dev/kvm", R_OK | W_OK) < 0)
		return;
	strbuf_read_file(&boot_id, "/proc/sys/kernel/random/boot_id");
	strbuf_rtrim(&boot_id);
	state_path = xasprintf("%s/../kvm-%s", env->dir, boot_id.buf);
	strbuf_read_file(&state, state_path);
	strbuf_rtrim(&state);
	if (strcmp(state.buf, "good") == 0) {
		snprintf(env->accel, sizeof(env->accel), "kvm");
	} else if (strcmp(state.buf, "bad") != 0) {
		FILE *f;
		bool good = qemu(env, "kvm", KVM_PROBE_TIMEOUT, cpio, console, &res) == 0 &&
			    console_complete(env, console);

		f = fopen(state_path, "we");
		if (f) {
			fprintf(f, "%s\n", good ? "good" : "bad");
			fclose(f);
		}
		if (good) {
			snprintf(env->accel, sizeof(env->accel), "kvm");
			*ret_booted = true;
		}
	}
	free(state_path);
	strbuf_release(&state);
	strbuf_release(&boot_id);
}

/* A fresh random token for each boot: the guest's output is believed only
 * between markers that carry it (ktap_marked_block()). */
static void new_boot_token(struct kernel_env *env)
{
	unsigned char bytes[16];

	if (RAND_bytes(bytes, sizeof(bytes)) != 1)
		abort();
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(env->boot_token + 2 * i, 3, "%02x", bytes[i]);
}

static void console_tail(const struct strbuf *console, struct strbuf *out)
{
	size_t lines = 0, i = console->len;

	while (i > 0 && lines < 15) {
		i--;
		if (console->buf[i] == '\n' && i + 1 < console->len)
			lines++;
	}
	for (; i < console->len; i++)
		if (console->buf[i] != '\r')
			strbuf_addch(out, console->buf[i]);
}

int kernel_boot(struct kernel_env *env, struct strbuf *console, enum boot_status *ret_status,
		struct strbuf *evidence, struct strbuf *err)
{
	char *cpio = xasprintf("%s/initramfs.cpio", env->work);
	struct child_result res = { 0 };
	time_t started = time(NULL);
	bool booted;
	char *panic;
	int r;

	console->cap = CONSOLE_CAP;
	new_boot_token(env);
	r = write_initramfs(env, cpio, err);
	if (r < 0)
		goto out;
	choose_accel(env, cpio, console, &booted);
	if (!booted) {
		r = qemu(env, env->accel, env->boot_timeout, cpio, console, &res);
		if (r < 0 || res.exec_errno) {
			strbuf_addf(err, "boot: cannot start qemu-system-x86_64: %s",
				    strerror(r < 0 ? -r : res.exec_errno));
			r = r < 0 ? r : -res.exec_errno;
			goto out;
		}
	}
	panic = strstr(console->buf, "Kernel panic");
	if (console_complete(env, console)) {
		const char *block;
		size_t len;
		struct strbuf only = STRBUF_INIT;

		/* hand back only what the suite printed between the markers */
		ktap_marked_block(console->buf, console->len, env->boot_token, &block, &len);
		strbuf_add(&only, block, len);
		strbuf_release(console);
		*console = only;
		*ret_status = BOOT_OK;
	} else if (panic) {
		char *end = strchr(panic, '\n');

		*ret_status = BOOT_PANIC;
		strbuf_add(evidence, panic, end ? (size_t)(end - panic) : strlen(panic));
		strbuf_rtrim(evidence);
		strbuf_addch(evidence, '\n');
		console_tail(console, evidence);
	} else {
		*ret_status = res.timed_out ? BOOT_TIMEOUT : BOOT_INCOMPLETE;
		if (res.capture_full)
			strbuf_addf(evidence, "console flood: the guest printed over %d KiB without a "
				    "result; stopped after %ld s\n", CONSOLE_CAP / 1024,
				    (long)(time(NULL) - started));
		console_tail(console, evidence);
	}
out:
	free(cpio);
	return r;
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The paths named by a build's .cmd files, each counted once per file: an
 * open-addressing hash table. A build's 1,500 .cmd files name about
 * 400,000 paths but only a few thousand distinct ones, so counting here
 * beats collecting and sorting them all (which took 0.18 s of CPU a
 * build; this, find included, 0.1 s of wall time).
 */
struct path_count {
	char *path;
	unsigned count;
	unsigned last;		/* the .cmd file that counted it last */
};

struct path_counts {
	struct path_count *slot;
	size_t cap, n;		/* cap: a power of two */
};

static size_t path_hash(const char *p, size_t len)
{
	size_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

static void path_counts_grow(struct path_counts *pc)
{
	struct path_counts bigger = { .cap = pc->cap ? pc->cap * 2 : 4096, .n = pc->n };

	bigger.slot = xcalloc(bigger.cap, sizeof(*bigger.slot));
	for (size_t i = 0; i < pc->cap; i++) {
		size_t j;

		if (!pc->slot[i].path)
			continue;
		j = path_hash(pc->slot[i].path, strlen(pc->slot[i].path)) & (bigger.cap - 1);
		while (bigger.slot[j].path)
			j = (j + 1) & (bigger.cap - 1);
		bigger.slot[j] = pc->slot[i];
	}
	free(pc->slot);
	*pc = bigger;
}

static int path_count_cmp(const void *a, const void *b)
{
	return strcmp(((const struct path_count *)a)->path, ((const struct path_count *)b)->path);
}

/* Count @p (@len bytes) once for .cmd file number @file. */
static void path_counts_add(struct path_counts *pc, const char *p, size_t len, unsigned file)
{
	size_t j;

	if (2 * (pc->n + 1) > pc->cap)
		path_counts_grow(pc);
	j = path_hash(p, len) & (pc->cap - 1);
	for (; pc->slot[j].path; j = (j + 1) & (pc->cap - 1)) {
		struct path_count *e = &pc->slot[j];

		if (strncmp(e->path, p, len) == 0 && e->path[len] == '\0') {
			if (e->last != file) {
				e->count++;
				e->last = file;
			}
			return;
		}
	}
	pc->slot[j].path = xstrndup(p, len);
	pc->slot[j].count = 1;
	pc->slot[j].last = file;
	pc->n++;
}

int kernel_used_counts(struct kernel_env *env, const char *build, char ***ret_files,
		       unsigned **ret_counts, size_t *ret_n)
{
	const char *argv[] = { "find", build, "-name", "*.cmd", "-type", "f", NULL };
	struct child c = { .argv = argv, .timeout_sec = 120 };
	struct strbuf list = STRBUF_INIT, cmd = STRBUF_INIT;
	struct path_counts pc = { 0 };
	struct child_result res;
	size_t prefix = strlen(env->src), n = 0;
	unsigned file = 0;
	char **files;
	unsigned *counts;
	int r;

	strbuf_init(&list, 64 * 1024 * 1024);
	c.capture = &list;
	r = child_run(&c, &res);
	if (r < 0 || !child_ok(&res)) {
		strbuf_release(&list);
		return r < 0 ? r : -EIO;
	}
	for (char *path = list.buf, *next; path && *path; path = next) {
		next = strchr(path, '\n');
		if (next)
			*next++ = '\0';
		strbuf_reset(&cmd);
		if (strbuf_read_file(&cmd, path) < 0)
			continue;
		file++;
		for (char *p = strstr(cmd.buf, env->src); p; p = strstr(p + 1, env->src)) {
			char *q;

			if (p[prefix] != '/')
				continue;
			q = p + prefix + 1;
			p = q;
			while (*p && *p != ' ' && *p != '\n' && *p != '\t' && *p != ')' && *p != ',')
				p++;
			path_counts_add(&pc, q, (size_t)(p - q), file);
			p--;
		}
	}
	strbuf_release(&list);
	strbuf_release(&cmd);
	/* pack the table, sort by path */
	for (size_t i = 0; i < pc.cap; i++)
		if (pc.slot[i].path)
			pc.slot[n++] = pc.slot[i];
	if (n > 1)
		qsort(pc.slot, n, sizeof(*pc.slot), path_count_cmp);
	files = xcalloc(n, sizeof(*files));
	counts = xcalloc(n, sizeof(*counts));
	for (size_t i = 0; i < n; i++) {
		files[i] = pc.slot[i].path;
		counts[i] = pc.slot[i].count;
	}
	free(pc.slot);
	*ret_files = files;
	*ret_n = n;
	if (ret_counts)
		*ret_counts = counts;
	else
		free(counts);
	return 0;
}

int kernel_used_files(struct kernel_env *env, struct strlist *ret_files)
{
	char **files;
	size_t n;
	int r = kernel_used_counts(env, env->build, &files, NULL, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		strlist_append(ret_files, files[i]);
		free(files[i]);
	}
	free(files);
	return 0;
}

bool kernel_path_is_rule(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, "Kconfig", 7) == 0 || strncmp(base, "Makefile", 8) == 0 ||
	       strncmp(base, "Kbuild", 6) == 0;
}

bool kernel_path_exercised(const struct strlist *used, const char *path)
{
	/* Build rules and configuration reach everything: always exercised. */
	if (kernel_path_is_rule(path))
		return true;
	return bsearch(&path, used->items, used->n, sizeof(*used->items), strcmp_ptr) != NULL;
}
