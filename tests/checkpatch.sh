#!/bin/bash
# The kernel patches in patches/ follow the kernel's style: the tree's own
# scripts/checkpatch.pl finds nothing, and they apply with git apply.
#
# One exception, by design: a stable backport's header names its upstream
# commit in full ("commit <40 hex> upstream.", as stable-queue does) and a
# revert says "This reverts commit <40 hex>."; checkpatch wants prose
# references as 'commit <12 hex> ("subject")' and looks commits up in a git
# history the packaged tree does not have. Those two checks are run
# separately and may flag nothing but those header lines.
#
# The bench's culprits (bench/culprits) are not stable backports of an
# upstream commit, so only the first check applies to them; 0002's revert
# names its commit as checkpatch wants.
. "$(dirname "$0")/lib.bash"

scripts=$tmp/linux/scripts
tarball=${BG_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
tar -xJf "$tarball" -C "$tmp" --wildcards --strip-components=1 --one-top-level=linux \
	'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
[ -f "$scripts/checkpatch.pl" ] || fail "checkpatch.pl extracted from $tarball"

cd "$tmp/linux" || exit 1
for dir in "$top"/patches/*/; do
	[ -f "$dir/series" ] || continue
	while IFS= read -r name; do
		case $name in ''|'#'*) continue ;; esac
		patch=$dir$name
		rel=${patch#"$top"/}
		status=0
		report=$(perl scripts/checkpatch.pl --no-tree --ignore GIT_COMMIT_ID,UNKNOWN_COMMIT_ID \
			"$patch" 2>&1) || status=$?
		expect_eq "checkpatch: $rel (errors and warnings)" 0 "$status"
		[ "$status" -eq 0 ] || printf '%s\n' "$report" | head -20 | sed 's/^/# /'
		flagged=$(perl scripts/checkpatch.pl --no-tree --terse --show-types \
			--types GIT_COMMIT_ID,UNKNOWN_COMMIT_ID "$patch" 2>&1 | grep -E '^[^ ]+:[0-9]+:' || true)
		others=
		for n in $(printf '%s\n' "$flagged" | sed -n 's/^[^ ]*:\([0-9]*\): .*/\1/p'); do
			line=$(sed -n "${n}p" "$patch")
			[[ $line =~ ^(commit\ [0-9a-f]{40}\ upstream\.|This\ reverts\ commit\ [0-9a-f]{40}\.)$ ]] ||
				others="$others line $n: $line;"
		done
		expect_eq "checkpatch: $rel commit references are only the stable header" "" "$others"
		expect_contains "checkpatch: $rel names its upstream commit in the stable form" \
			" upstream." "$(grep -E '^commit [0-9a-f]{40} upstream\.$' "$patch")"
	done <"$dir/series"
done

for patch in "$top"/bench/culprits/*.patch; do
	rel=${patch#"$top"/}
	status=0
	report=$(perl scripts/checkpatch.pl --no-tree --ignore UNKNOWN_COMMIT_ID "$patch" 2>&1) ||
		status=$?
	expect_eq "checkpatch: $rel (errors and warnings)" 0 "$status"
	[ "$status" -eq 0 ] || printf '%s\n' "$report" | head -20 | sed 's/^/# /'
done
