#!/bin/bash
# Build slots (gate/kernel/slots.h) with real kernels: with two slots and a copy
# for any change, a bisection moves between them and still drops exactly
# the 2019 change; both slots end clean; kernel-tests/run, which shares
# the first slot and the tree, builds right after them (the series fails,
# base passes) from the source times they left, and the gate after it; a
# hand edit through git makes the next build set every time again; a slot with a bad stamp is emptied
# and a swap cut short is finished, both without changing the verdict.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queues=$top/patches/queues
culprit=exec-load_script-don-t-blindly-truncate-shebang-string.patch
if [ -n "${XDG_CACHE_HOME:-}" ]; then
	kdir=$XDG_CACHE_HOME/backport-gate/linux-6.1
else
	kdir=/var/cache/backport-gate/linux-6.1
fi

# slot_run QUEUE: a fresh database, two slots, a copy for any change
slot_run() {
	status=0
	rm -f "$tmp/gate.db" "$tmp/report.json"
	BG_BUILD_SLOTS=2 BG_SLOT_COPY_OBJECTS=1 "$gate" run --config-check none --db "$tmp/gate.db" \
		--json "$tmp/report.json" --queue "$queues/$1" >"$tmp/out" 2>"$tmp/err" || status=$?
	err=$(cat "$tmp/err")
	drop=$(jq -r '.drop | join(" ")' "$tmp/report.json" 2>/dev/null)
}
# clean_stamp DIR: the one tree id of a clean slot, or what is wrong
clean_stamp() {
	if [ "$(wc -l <"$1/.bg-tree" 2>/dev/null)" = 1 ] && grep -qE '^[0-9a-f]{40}$' "$1/.bg-tree"; then
		cat "$1/.bg-tree"
	else
		echo "not clean: $(tr '\n' ' ' <"$1/.bg-tree" 2>/dev/null)"
	fi
}

slot_run shebang-2019
expect_eq "two slots: exit status 1 (drop)" 1 "$status"
expect_eq "two slots: exactly the 2019 change is dropped" "$culprit" "$drop"
expect_contains "two slots: a slot's objects were kept in a copy" "keeping a copy of $kdir/build's objects in $kdir/build-1" "$err"
t0=$(clean_stamp "$kdir/build")
t1=$(clean_stamp "$kdir/build-1")
expect_eq "two slots: build is stamped clean" 40 "${#t0}"
expect_eq "two slots: build-1 is stamped clean" 40 "${#t1}"
if [ "$t0" != "$t1" ]; then
	pass "two slots: they hold different trees"
else
	fail "two slots: both hold $t0"
fi

# kernel-tests/run after the gate: the times the gate left say nothing
# about what build holds; its stamp does.
run_suite --patches "$queues/shebang-2019/queue-6.1"
expect_eq "kernel-tests/run after the gate: the series fails the suite" 1 "$status"
expect_contains "kernel-tests/run after the gate: test.pl among the failures" test.pl "$(failed_cases)"
t_run=$(clean_stamp "$kdir/build")
expect_eq "kernel-tests/run stamps what it built" 40 "${#t_run}"
run_suite
expect_eq "kernel-tests/run after the series: base passes" 0 "$status"

# The source times the last process left (slots.h: SLOT_SRC_TIMES): the
# next kernel-tests/run starts from them instead of setting all 78,000.
# own_series NAME: a series of one patch that adds a comment no run has
# had to fs/binfmt_script.c of base, so its tree is new to every slot.
base_commit=$(git -C "$kdir/src" rev-list --max-parents=0 HEAD)
own_series() {
	local d=$tmp/own-$1
	mkdir -p "$d/a/fs" "$d/b/fs" "$d/series"
	git -C "$kdir/src" show "$base_commit:fs/binfmt_script.c" >"$d/a/fs/binfmt_script.c"
	{ cat "$d/a/fs/binfmt_script.c"; echo "/* slots.sh $1 $(date +%s%N) */"; } >"$d/b/fs/binfmt_script.c"
	(cd "$d" && diff -u a/fs/binfmt_script.c b/fs/binfmt_script.c) >"$d/series/comment.patch"
	echo comment.patch >"$d/series/series"
	echo "$d/series"
}
expect_eq "source times: kept for the next process" tree "$(head -c 4 "$kdir/.bg-src-times")"
run_suite --patches "$(own_series kept)"
expect_eq "source times: a new tree from the kept times: built, every case passes" "0 yes" \
	"$status $(grep -q '^# building tree' "$tmp/err" && echo yes || echo no)"
expect_eq "source times: no walk over every file" "" "$(grep 'no record of the times' "$tmp/err")"
# A hand edit through git writes the index anew: the record is not
# believed, the whole tree is checked out and every time set again.
echo '#error edited by hand' >>"$kdir/src/fs/exec.c"
git -C "$kdir/src" add -f fs/exec.c
run_suite --patches "$(own_series edited)"
expect_eq "source times: after a hand edit a new tree still passes" 0 "$status"
expect_contains "source times: after a hand edit every file's time is set" \
	"no record of the times in $kdir/src" "$err"
expect_eq "source times: the hand edit is undone" "" "$(git -C "$kdir/src" status --porcelain)"

slot_run shebang-2019-reverted
expect_eq "gate after kernel-tests/run: the reverted queue drops nothing" "0 " "$status $drop"

echo 0123456789012345678901234567890123456789 >"$kdir/build-1/.bg-tree"
slot_run shebang-2019
expect_contains "bad stamp: the slot is emptied" "build slot $kdir/build-1 has no valid .bg-tree: emptying it" "$err"
expect_eq "bad stamp: the verdict stands" "1 $culprit" "$status $drop"

mv "$kdir/build-1" "$kdir/build.swap"
slot_run shebang-2019
expect_eq "swap cut short: finished, nothing left at build.swap" "no" \
	"$([ -e "$kdir/build.swap" ] && echo yes || echo no)"
expect_eq "swap cut short: build-1 is back" "yes" "$([ -d "$kdir/build-1" ] && echo yes || echo no)"
expect_eq "swap cut short: the verdict stands" "1 $culprit" "$status $drop"
