/* SPDX-License-Identifier: GPL-2.0 */
/* The shebang regression suite's cases, in the order they run. */
#ifndef CASES_H
#define CASES_H

#include <stddef.h>

#include "harness.h"

extern const struct shebang_case shebang_cases[];
extern const size_t shebang_case_count;

#endif
