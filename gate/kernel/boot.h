/* SPDX-License-Identifier: GPL-2.0 */
/*
 * boot: boot the last build of env->build in QEMU with the shebang suite
 * as its initramfs, and capture the console. KVM is used only once a
 * short probe boot with it finished (the verdict is kept per host boot
 * in <cache>/kvm-<boot id>); otherwise, and when BG_ACCEL=tcg, TCG.
 */
#ifndef GATE_BOOT_H
#define GATE_BOOT_H

#include "basic/strbuf.h"
#include "parse/ktap.h"
#include "source/workspace.h"

/*
 * Boot the last build with the suite. @console receives the console
 * output (capped). Returns 0 with *ret_status (ktap.h), or -errno with a
 * message in @err: QEMU could not start, or the initramfs could not be
 * written in env->work (-ENOSPC when its disk is full; an archive cut
 * short is never booted). @evidence gets the panic line or the console
 * tail when the boot failed.
 */
int kernel_boot(struct kernel_env *env, struct strbuf *console, enum boot_status *ret_status,
		struct strbuf *evidence, struct strbuf *err);

#endif
