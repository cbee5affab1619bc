// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's init: runs the shebang suite, reads the KUnit suites the
 * kernel ran at boot (kunit.h), prints both as one KTAP on the console and
 * ends the guest. tinyconfig has no ACPI, so power-off would only halt;
 * the guest reboots instead and QEMU, started with -no-reboot, exits.
 *
 * Outside a guest (not PID 1) it takes a scratch directory as its argument
 * and only runs the suite, which is how it is checked on the host.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases.h"
#include "kunit.h"

#define GUEST_WORKDIR "/cases"

static void attach_console(void)
{
	int fd;

	/* The kernel opens /dev/console for init when the initramfs has it. */
	if (fcntl(STDOUT_FILENO, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

int main(int argc, char **argv)
{
	static struct kunit_case kunit_cases[KUNIT_MAX_CASES];
	struct kunit_log kunit = { 0 };
	struct suite_totals totals;
	int r;
	const char *workdir = GUEST_WORKDIR, *token;
	bool guest = getpid() == 1;

	if (guest) {
		attach_console();
		umask(022);
	} else if (argc == 2) {
		workdir = argv[1];
	} else {
		fprintf(stderr, "usage: %s SCRATCH-DIR (outside a guest)\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mkdir(workdir, 0755) < 0 && guest) {
		printf("# init: cannot create %s\n", workdir);
	}
	/*
	 * The gate passes a per-boot token on the kernel command line (the
	 * kernel hands "bgtoken=..." to init as an environment variable) and
	 * believes only what stands between these two markers.
	 */
	token = getenv("bgtoken");
	if (token)
		printf("# backport-gate begin %s\n", token);
	/* KUnit ran before init: its results are in the kernel's log */
	if (guest) {
		kunit.cases = kunit_cases;
		r = kunit_read_kernel_log(&kunit);
		if (r < 0)
			printf("# init: cannot read the kernel log for KUnit: %s\n", strerror(-r));
	}
	suite_run(shebang_cases, shebang_case_count, guest ? &kunit : NULL, workdir, &totals);
	if (token)
		printf("# backport-gate end %s\n", token);
	if (!guest)
		return totals.fail || totals.error ? 1 : 0;
	sync();
	reboot(RB_AUTOBOOT);
	/* Only reached if reboot failed; a panic also ends the guest. */
	printf("# init: reboot failed\n");
	return 1;
}
