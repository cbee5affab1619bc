// SPDX-License-Identifier: GPL-2.0
/*
 * patch_header_parse() on untrusted bytes: the header of a queued patch is
 * written by its author. Every sha it reports must be 12..40 lower-case hex
 * (the gate compares them with patch_sha_matches()), and the strings must
 * be C strings that end where they say.
 */
#include <stdint.h>

#include "fuzz_check.h"
#include "parse/patch_header.h"

static void check_sha(const char *what, const char *sha, bool may_be_empty)
{
	size_t len = strlen(sha);

	if (!len && may_be_empty)
		return;
	fuzz_check(len >= PATCH_SHA_MIN && len <= PATCH_SHA_MAX, "%s \"%s\" is %zu digits", what,
		   sha, len);
	fuzz_check(strspn(sha, "0123456789abcdef") == len, "%s \"%s\" is not lower-case hex",
		   what, sha);
	fuzz_check(patch_sha_matches(sha, sha), "%s \"%s\" does not match itself", what, sha);
}

/* patch_sha_matches() is symmetric and never reads past a NUL. */
static void check_matches(const char *a, const char *b)
{
	bool ab = patch_sha_matches(a, b), ba = patch_sha_matches(b, a);

	fuzz_check(ab == ba, "patch_sha_matches(\"%s\", \"%s\") = %d but reversed %d", a, b, ab,
		   ba);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patch_header h;
	int r = patch_header_parse((const char *)data, size, &h);

	fuzz_check(r == 0, "r=%d for %zu bytes", r, size);
	check_sha("upstream", h.upstream, true);
	check_sha("cherry_picked", h.cherry_picked, true);
	for (size_t i = 0; i < h.n_stable_deps; i++)
		check_sha("Stable-dep-of", h.stable_deps[i], false);
	fuzz_check(h.stable_only == (!h.upstream[0] && !h.cherry_picked[0]),
		   "stable_only=%d with upstream \"%s\", cherry-picked \"%s\"", h.stable_only,
		   h.upstream, h.cherry_picked);
	if (h.subject) {
		fuzz_check(h.subject[0], "an empty subject instead of NULL");
		fuzz_check(!strchr(h.subject, '\n'), "a subject of two lines: %s", h.subject);
	}
	if (h.author)
		fuzz_check(!strchr(h.author, '\n'), "an author of two lines: %s", h.author);
	fuzz_check(h.is_revert == (h.subject && !strncmp(h.subject, "Revert \"", 8)),
		   "is_revert=%d for subject \"%s\"", h.is_revert, h.subject ? h.subject : "(null)");
	if (h.upstream[0] && h.cherry_picked[0])
		check_matches(h.upstream, h.cherry_picked);

	/* The first two lines of the input as arbitrary strings. */
	{
		char *copy = fuzz_dup(data, size > 256 ? 256 : size);
		char *second = strchr(copy, '\n');

		if (second)
			*second++ = '\0';
		check_matches(copy, second ? second : h.upstream);
		free(copy);
	}

	patch_header_release(&h);
	fuzz_check(!h.subject && !h.author && !h.stable_deps && !h.n_stable_deps,
		   "release left something behind");
	return 0;
}
