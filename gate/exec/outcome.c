// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "exec/outcome.h"

void exec_build_init(struct exec_build *b)
{
	memset(b, 0, sizeof(*b));
	strbuf_init(&b->first_error, 0);
}

void exec_build_release(struct exec_build *b)
{
	strbuf_release(&b->first_error);
}

void exec_boot_init(struct exec_boot *b)
{
	memset(b, 0, sizeof(*b));
	strbuf_init(&b->console, 0);
	strbuf_init(&b->evidence, 0);
}

void exec_boot_release(struct exec_boot *b)
{
	strbuf_release(&b->console);
	strbuf_release(&b->evidence);
}

void exec_eval_init(struct exec_eval *e)
{
	memset(e, 0, sizeof(*e));
	exec_build_init(&e->build);
	exec_boot_init(&e->boot);
}

void exec_eval_release(struct exec_eval *e)
{
	exec_build_release(&e->build);
	strlist_release(&e->inputs);
	exec_boot_release(&e->boot);
}
