// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/hash.h"
#include "basic/progress.h"
#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "source/defaults.h"
#include "source/target.h"
#include "source/workspace.h"

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
	struct target t = { .tarball = env->tarball, .package = env->package };
	int r = target_check(&t, err);

	if (r < 0)
		return r;
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
	struct progress *progress = progress_stderr();
	int waited = 0;

	if (env->lock_fd < 0)
		env->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (env->lock_fd < 0) {
		strbuf_addf(err, "cache: cannot open %s: %s", path, strerror(errno));
		free(path);
		return -errno;
	}
	while (flock(env->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (waited >= LOCK_WAIT_SEC) {
			progress_end(progress);
			strbuf_addf(err, "cache: %s is held by another run (waited %d s)", path,
				    LOCK_WAIT_SEC);
			free(path);
			return -EBUSY;
		}
		/* said, for a daemon's job (its page) as for a terminal: another run goes first */
		if (!waited) {
			fprintf(stderr, "cache: %s is held by another run; waiting for it (at most %d s)\n",
				path, LOCK_WAIT_SEC);
			progress_begin(progress, "cache held by", "other run", 0, 0);
			progress_update(progress, 1);
		}
		sleep(1);
		progress_update(progress, 1);
		waited++;
	}
	if (waited)
		progress_end(progress);
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

/*
 * make is given the compiler by path, and kbuild compiles an object again
 * when its recorded command differs: a build directory built by one
 * checkout's ccache-cc (or the installed one) would be compiled whole by
 * another's, and its objects name a path that may be gone. So every build
 * runs a copy kept in the cache, named by its content:
 * <dir>/ccache-cc-<first 12 hex of its sha256>. The same wrapper, from
 * wherever it came, is one path; a changed wrapper is another path, and
 * make compiles everything with it, as it must.
 */
static int pin_compiler(struct kernel_env *env, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, have = STRBUF_INIT;
	char hex[SHA256_HEX_LEN + 1];
	char *path, *tmp = NULL;
	int r = strbuf_read_file(&text, env->cc);
	FILE *f;

	if (r < 0) {
		strbuf_addf(err, "compiler: cannot read %s: %s", env->cc, strerror(-r));
		strbuf_release(&text);
		return r;
	}
	sha256_hex(text.buf, text.len, hex);
	path = xasprintf("%s/ccache-cc-%.12s", env->dir, hex);
	r = 0;
	if (strbuf_read_file(&have, path) >= 0 && have.len == text.len &&
	    memcmp(have.buf, text.buf, text.len) == 0 && access(path, X_OK) == 0)
		goto done;
	tmp = xasprintf("%s.%d", path, (int)getpid());
	errno = 0;
	f = fopen(tmp, "we");
	if (f) {
		bool ok = fwrite(text.buf, 1, text.len, f) == text.len;

		ok = fchmod(fileno(f), 0755) == 0 && ok;
		ok = fclose(f) == 0 && ok;
		if (ok && rename(tmp, path) == 0)
			goto done;
	}
	r = -(errno ? errno : EIO);
	strbuf_addf(err, "compiler: cannot write %s: %s", path, strerror(-r));
	unlink(tmp);
	goto out;
done:
	free(env->cc);
	env->cc = path;
	path = NULL;
out:
	free(path);
	free(tmp);
	strbuf_release(&text);
	strbuf_release(&have);
	return r;
}

int kernel_env_init(struct kernel_env *env, const char *top, const char *cache,
		    const struct target *target, struct strbuf *err)
{
	struct target t;
	struct strbuf frag = STRBUF_INIT;
	char stamp[SHA256_HEX_LEN + 1];
	int r;

	memset(env, 0, sizeof(*env));
	env->lock_fd = -1;
	env->top = xstrdup(top);
	if (target)
		target_from_tarball(&t, target->tarball);
	else
		target_default(&t);
	env->tarball = t.tarball;
	env->version = t.version;
	env->package = t.package;
	free(t.series_dir);
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
	env->ccache_dir = xasprintf("%s/ccache", cache);
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
	if (r == 0)
		r = pin_compiler(env, err);
	if (r < 0)
		return r;
	/* an installed suite was built by make install */
	return env->installed ? suite_version(env, err) : build_suite(env, err);
}

void kernel_env_unlock(struct kernel_env *env)
{
	if (env->lock_fd < 0 || env->unlocked)
		return;
	/* closing the descriptor would drop it as well; kept, to take it back */
	flock(env->lock_fd, LOCK_UN);
	env->unlocked = true;
}

int kernel_env_relock(struct kernel_env *env, struct strbuf *err)
{
	int r;

	if (!env->unlocked)
		return 0;
	r = take_lock(env, err);
	if (r < 0)
		return r;
	env->unlocked = false;
	env->lock_epoch++;
	return 0;
}

void kernel_env_release(struct kernel_env *env)
{
	if (env->lock_fd >= 0)
		close(env->lock_fd);
	free(env->top);
	free(env->tarball);
	free(env->version);
	free(env->package);
	free(env->dir);
	free(env->ccache_dir);
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

int kernel_env_naive(struct kernel_env *env, struct strbuf *err)
{
	char *naive = xasprintf("%s/naive", env->dir);
	int r = 0;

	free(env->src);
	free(env->build);
	free(env->work);
	free(env->cc);
	env->src = xasprintf("%s/src", naive);
	env->build = xasprintf("%s/build", naive);
	env->work = xasprintf("%s/run", naive);
	env->cc = xstrdup("gcc");
	env->naive = true;
	for (const char *d[] = { naive, env->build, env->work, NULL }, **p = d; *p && !r; p++) {
		if (mkdir(*p, 0755) < 0 && errno != EEXIST) {
			strbuf_addf(err, "cache: cannot create %s: %s", *p, strerror(errno));
			r = -errno;
		}
	}
	free(naive);
	return r;
}
