// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "basic/runcmd.h"
#include "basic/xalloc.h"
#include "kernel/boot.h"
#include "parse/ktap.h"

#define CONSOLE_CAP (1024 * 1024)
#define KVM_PROBE_TIMEOUT 10
/* less free space than this where a write failed: the disk is full */
#define BOOT_ROOM_MIN (4ULL * 1024 * 1024)

/*
 * A write that failed in env->work: -ENOSPC when its filesystem is full
 * (the machine's fault: the daemon retries), else -EIO. @what says what
 * went wrong.
 */
static int work_write_failed(struct kernel_env *env, const char *what, struct strbuf *err)
{
	struct statvfs st;

	if (statvfs(env->work, &st) == 0 && (unsigned long long)st.f_bavail * st.f_frsize <
	    BOOT_ROOM_MIN) {
		strbuf_addf(err, "initramfs: no space left on device in %s: %s", env->work, what);
		return -ENOSPC;
	}
	strbuf_addf(err, "initramfs: %s", what);
	return -EIO;
}

/*
 * gen_init_cpio does not check its writes: an archive cut short (a full
 * disk) would boot a guest without its suite, and read as the kernel's
 * failure. A whole one ends with the "TRAILER!!!" entry, padded to 512
 * bytes.
 */
static bool cpio_whole(const char *path, off_t *ret_size)
{
	char tail[1024];
	ssize_t n = 0;
	off_t size;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*ret_size = 0;
	if (fd < 0)
		return false;
	size = lseek(fd, 0, SEEK_END);
	if (size > 0) {
		*ret_size = size;
		n = pread(fd, tail, size < (off_t)sizeof(tail) ? (size_t)size : sizeof(tail),
			  size < (off_t)sizeof(tail) ? 0 : size - (off_t)sizeof(tail));
	}
	close(fd);
	return n > 0 && size % 512 == 0 && memmem(tail, (size_t)n, "TRAILER!!!", 10);
}

static int write_initramfs(struct kernel_env *env, const char *cpio, struct strbuf *err)
{
	char *list = xasprintf("%s/initramfs.list", env->work);
	char *gen = xasprintf("%s/usr/gen_init_cpio", env->build);
	const char *argv[] = { gen, list, NULL };
	struct child c = { .argv = argv, .output_path = cpio, .timeout_sec = 60 };
	struct child_result res;
	FILE *f = fopen(list, "we");
	char *what = NULL;
	off_t size;
	int r = 0;

	if (!f) {
		strbuf_addf(err, "initramfs: cannot write %s: %s", list, strerror(errno));
		r = -errno;
		goto out;
	}
	fprintf(f, "dir /dev 0755 0 0\nnod /dev/console 0600 0 0 c 5 1\n"
		   "file /init %s 0755 0 0\nfile /probe %s 0755 0 0\n",
		env->suite_init, env->suite_probe);
	if (ferror(f) | (fclose(f) != 0)) {
		what = xasprintf("cannot write %s: %s", list, strerror(errno));
		r = work_write_failed(env, what, err);
		goto out;
	}
	/* gen_init_cpio writes the archive to stdout; stderr would corrupt it. */
	r = child_run(&c, &res);
	if (r < 0 || !child_ok(&res)) {
		what = xasprintf("%s failed, writing %s", gen, cpio);
		r = work_write_failed(env, what, err);
	} else if (!cpio_whole(cpio, &size)) {
		what = xasprintf("%s is cut short (%lld bytes, no TRAILER!!! entry at its end)", cpio,
				 (long long)size);
		r = work_write_failed(env, what, err);
	}
out:
	free(what);
	free(list);
	free(gen);
	return r;
}

static int qemu(struct kernel_env *env, const char *accel, int timeout, const char *cpio,
		struct strbuf *console, struct child_result *res)
{
	/* vmlinux through its PVH entry: no decompressor, no boot image to link */
	char *kernel = xasprintf("%s/vmlinux", env->build);
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

/* Use KVM only once a short boot with it has finished: docs/CONTRACTS.md, "KVM". */
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
