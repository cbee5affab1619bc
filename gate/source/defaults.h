/* SPDX-License-Identifier: GPL-2.0 */
/*
 * defaults: where the gate looks when nobody says: the cache directory,
 * the repository holding the suite and its config fragment (the kernel
 * tree and its stable-queue folder: target.h). The commands and the
 * daemon's worker start from these.
 */
#ifndef GATE_DEFAULTS_H
#define GATE_DEFAULTS_H

#include <stdbool.h>

/* $BG_CACHE, else $XDG_CACHE_HOME/backport-gate, else /var/cache/backport-gate. */
const char *default_cache(void);
/*
 * Where the suite comes from, one of two layouts:
 *  - a source tree (the repository the binary was built in): the suite is
 *    built there with make, then build/shebang-init, build/shebang-probe,
 *    kernel-tests/config/shebang.config, kernel-tests/ccache-cc;
 *  - an installed library directory (make install): shebang-init,
 *    shebang-probe, config/shebang.config, ccache-cc, nothing to build.
 * $BG_TOP (a source tree), else $BG_LIBDIR (either layout), else the source
 * tree found by walking up from /proc/self/exe to
 * kernel-tests/config/shebang.config, else BG_LIBDIR as compiled in
 * ($(PREFIX)/lib/backport-gate). The caller frees it.
 */
char *suite_top(void);
/* true when @top is a source tree (the first layout above). */
bool suite_top_is_source(const char *top);

#define SUITE_SOURCE_FRAGMENT "kernel-tests/config/shebang.config"

#endif
