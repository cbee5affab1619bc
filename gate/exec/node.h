/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node: a cluster node doing the step a coordinator wrote (exec/step.h):
 * the step's tree, checked against this node's own base, config and suite,
 * evaluated with evaluate_tree() through the local executor, the result
 * written back into the step's folder.
 */
#ifndef GATE_NODE_H
#define GATE_NODE_H

#include "basic/strbuf.h"

/*
 * Do the step in @dir with the cache @cache (source/defaults.h; @ccache,
 * when not NULL, the compiler cache its builds use) and write
 * @dir/result.json. 0, or -errno with one line in @err: the step was
 * refused or could not be done, and there is no result.json.
 */
int step_run(const char *dir, const char *cache, const char *ccache, struct strbuf *err);

#endif
