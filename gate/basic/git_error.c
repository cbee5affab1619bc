// SPDX-License-Identifier: GPL-2.0
#include <git2.h>

#include "basic/git_error.h"

const char *git_error_message(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

void git_error_add(struct strbuf *err, const char *what)
{
	strbuf_addf(err, "%s: %s", what, git_error_message());
}
