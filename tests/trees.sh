#!/bin/bash
# Which packaged tree a run gates against, as a user names it: --tree
# linux-source-X.Y or a tarball's path, else the one the series folder
# names (queue-X.Y), else 6.1; a tree that is not installed, or a name
# that is no tree, is refused with exit status 2 and one line that says
# what to do, before anything is extracted or built. Also boot --tree and
# kernel-tests/run --tree. No kernel is built here: make branch-6.12
# gates on 6.12 for real.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queue=$top/patches/queues/shebang-2019
unset BG_TARBALL

# run ARGS...: sets status, err.
run() {
	status=0
	"$gate" run --config-check none --db "$tmp/gate.db" --cache "$tmp/cache" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	err=$(cat "$tmp/err")
}

run --queue "$queue" --tree linux-source-9.9
expect_eq "--tree of a package not installed: exit status 2" 2 "$status"
expect_eq "--tree of a package not installed: names the package to install" \
	"backport-gate run: package missing: linux-source-9.9 (no /usr/src/linux-source-9.9.tar.xz; apt-get install linux-source-9.9)" \
	"$err"

run --queue "$queue" --tree linux-9.9
expect_eq "--tree that is no tree: exit status 2" 2 "$status"
expect_eq "--tree that is no tree: says what a tree is" \
	"backport-gate run: tree 'linux-9.9': not a kernel source package (linux-source-X.Y) nor a tarball's path" \
	"$err"

run --queue "$queue" --tree "$tmp/linux-source-7.0.tar.xz"
expect_eq "--tree of a tarball that is not there: exit status 2" 2 "$status"
expect_contains "--tree of a tarball that is not there: names it" \
	"(no $tmp/linux-source-7.0.tar.xz; apt-get install linux-source-7.0)" "$err"

# The tree follows the series folder: a queue-9.9 folder is gated on 9.9.
mkdir -p "$tmp/q/queue-9.9"
cp "$queue/queue-6.1/"*.patch "$queue/queue-6.1/series" "$tmp/q/queue-9.9/"
run --queue "$tmp/q" --series queue-9.9
expect_eq "series queue-9.9: exit status 2" 2 "$status"
expect_contains "series queue-9.9: the tree is linux-source-9.9" \
	"package missing: linux-source-9.9 (no /usr/src/linux-source-9.9.tar.xz" "$err"

# And the folder follows the tree: with a tree whose tarball is there
# (a copy of 6.1's under another name), --tree reads queue-9.9; the tree
# is checked first, so the queue's error shows only once it is there.
ln -s /usr/src/linux-source-6.1.tar.xz "$tmp/linux-source-9.9.tar.xz"
rm -rf "$tmp/q/queue-9.9"
run --queue "$tmp/q" --tree "$tmp/linux-source-9.9.tar.xz"
expect_eq "--tree 9.9 without a queue-9.9 folder: names the folder" \
	"backport-gate run: queue: no series file: queue-9.9/series does not exist in $tmp/q" "$err"

# nothing was extracted for trees that do not exist
expect_eq "no cache folder made for a missing tree" "" "$(ls "$tmp/cache" 2>/dev/null | grep -v gate.db)"

status=0
"$gate" boot --tree linux-source-9.9 --cache "$tmp/cache" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "boot --tree of a package not installed: exit status 2" 2 "$status"
expect_eq "boot --tree of a package not installed: one line naming it" \
	"backport-gate boot: package missing: linux-source-9.9 (no /usr/src/linux-source-9.9.tar.xz; apt-get install linux-source-9.9)" \
	"$(cat "$tmp/err")"
status=0
"$run" --tree linux-source-9.9 --cache "$tmp/cache" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "kernel-tests/run --tree: the same, under its own name" \
	"2 kernel-tests/run: package missing: linux-source-9.9 (no /usr/src/linux-source-9.9.tar.xz; apt-get install linux-source-9.9)" \
	"$status $(cat "$tmp/err")"
