/* SPDX-License-Identifier: GPL-2.0 */
/*
 * defaults: where the gate looks when nobody says: the cache directory,
 * the repository holding the suite and its config fragment, and the
 * stable-queue folder of the packaged kernel tree. The commands and the
 * daemon's worker start from these.
 */
#ifndef GATE_DEFAULTS_H
#define GATE_DEFAULTS_H

/* $BG_CACHE, else $XDG_CACHE_HOME/backport-gate, else /var/cache/backport-gate. */
const char *default_cache(void);
/*
 * $BG_TOP, else the repository the binary was built in (found by walking
 * up from /proc/self/exe to kernel-tests/config/shebang.config), else ".".
 * The caller frees it.
 */
char *repository_top(void);
/* queue-<major>.<minor> of the packaged tree, e.g. queue-6.1 (caller frees) */
char *default_series_dir(void);

#endif
