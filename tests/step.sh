#!/bin/bash
# backport-gate step (exec/step.h), black-box: one unit of work in a
# folder, the way a cluster node runs it. `step --write` writes the step
# for base plus a prefix of a sample queue; `step DIR` applies, builds and
# boots it and writes result.json: the 2019 change fails test.pl, its
# revert passes, a patch that does not apply and one that breaks the
# build are results too. A step whose patch bytes, base tree or config
# are not the node's is refused (exit 2, nothing built), and so is a
# folder that is no step. Uses the shared cache (base is built by
# gate.sh first on a fresh machine; each step here builds incrementally).
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queues=$top/patches/queues
culprit=exec-load_script-don-t-blindly-truncate-shebang-string.patch
cache=${XDG_CACHE_HOME:+$XDG_CACHE_HOME/backport-gate}
cache=${cache:-/var/cache/backport-gate}

# step ARGS...: sets status and err
step() {
	status=0
	"$gate" step "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	err=$(tail -n 1 "$tmp/err")
}
res() { jq -r "$2" "$1/result.json" 2>/dev/null; }

# The coordinator's side: base plus the first four patches (the 2019 change last).
step --write "$tmp/s4" --queue "$queues/shebang-2019" --upto 4
expect_eq "step --write: exit 0" 0 "$status"
expect_eq "step --write: the patches in order, named by position, with the queue's names" \
	"0004-$culprit $culprit" \
	"$(jq -r '.patches[3] | "\(.name) \(.queue_name)"' "$tmp/s4/step.json")"
expect_eq "step --write: the series lists the four" 4 "$(grep -c . "$tmp/s4/series")"
expect_eq "step --write: each patch's sha256 is its file's" \
	"$(sha256sum "$tmp/s4/0004-$culprit" | cut -d' ' -f1)" \
	"$(jq -r '.patches[3].sha256' "$tmp/s4/step.json")"
expect_eq "step --write: the base is named by its git tree" \
	"$(git -C "$cache/linux-6.1/src" rev-parse 'base^{tree}')" \
	"$(jq -r .base_tree "$tmp/s4/step.json")"
expect_eq "step --write: the tree is the package" linux-source-6.1 "$(jq -r .tree "$tmp/s4/step.json")"
cp -r "$tmp/s4" "$tmp/s4-copy"

# A node does it, though a run stopped mid-checkout left the tree's index locked.
touch "$cache/linux-6.1/src/.git/index.lock"
step "$tmp/s4"
expect_eq "step: exit 0, a result" 0 "$status"
expect_contains "a stale index.lock (the cache lock is ours): removed, and said" \
	"# tree: removed $cache/linux-6.1/src/.git/index.lock, left by a run that was stopped" \
	"$(cat "$tmp/err")"
expect_eq "step: applied the four" "applied applied applied applied" \
	"$(res "$tmp/s4" '[.applied[].status] | join(" ")')"
expect_eq "step: built and booted" "ok ok" "$(res "$tmp/s4" '"\(.build.status) \(.boot.status)"')"
expect_contains "step: the 2019 change fails test.pl in the KTAP" "not ok" \
	"$(res "$tmp/s4" .boot.ktap | grep 'test.pl')"
expect_eq "step: the candidate's git tree" yes \
	"$([[ $(res "$tmp/s4" .tree) =~ ^[0-9a-f]{40}$ ]] && echo yes || echo no)"
expect_eq "step: the node's config and suite are the step's" \
	"$(jq -r '"\(.config) \(.suite)"' "$tmp/s4/step.json")" "$(res "$tmp/s4" '"\(.config) \(.suite)"')"

# The same step on another folder: the build directory already holds it.
step "$tmp/s4-copy"
expect_eq "the same step again: same tree, nothing built" "$(res "$tmp/s4" .tree) false" \
	"$(res "$tmp/s4-copy" '"\(.tree) \(.build.built)"')"

# The revert on top: every case passes.
step --write "$tmp/s5" --queue "$queues/shebang-2019-reverted" --upto 5
step "$tmp/s5"
expect_eq "with the revert: built, booted, no case fails" "0 ok ok 0" \
	"$status $(res "$tmp/s5" '"\(.build.status) \(.boot.status)"') $(res "$tmp/s5" .boot.ktap | grep -c '^not ok')"

# A patch that does not apply is a result: no build.
step --write "$tmp/apply" --queue "$queues/broken" --upto 3
step "$tmp/apply"
expect_eq "a patch that does not apply: a result naming it, no build nor boot" \
	"0 0003-binfmt_script-reword-the-hashbang-comment.patch null null" \
	"$status $(res "$tmp/apply" '"\(.apply_failed.name) \(.build) \(.boot)"')"

# Any ordered list is a step: the broken queue without the patch that
# does not apply, up to the one that breaks the build.
step --write "$tmp/build" --queue "$queues/broken" --upto 5
rm "$tmp/build/0003-binfmt_script-reword-the-hashbang-comment.patch"
sed -i '3d' "$tmp/build/series"
jq 'del(.patches[2])' "$tmp/build/step.json" >"$tmp/build/step.json.new" &&
	mv "$tmp/build/step.json.new" "$tmp/build/step.json"
step "$tmp/build"
expect_eq "a patch that breaks the build: a result, build failed, no boot" "0 failed null" \
	"$status $(res "$tmp/build" '"\(.build.status) \(.boot)"')"
expect_contains "a patch that breaks the build: the compiler's first error" "fs/binfmt_script.c:" \
	"$(res "$tmp/build" .build.first_error)"

# Refused: nothing is built and there is no result.json.
cp -r "$tmp/s4-copy" "$tmp/tampered"
rm -f "$tmp/tampered/result.json"
echo " " >>"$tmp/tampered/0002-e1000-fix-kernel-doc-of-e1000_get_hw_dev.patch"
step "$tmp/tampered"
expect_eq "a patch whose bytes changed: refused, exit 2" 2 "$status"
expect_contains "a patch whose bytes changed: says which" \
	"step refused: patch 2 is 0002-e1000-fix-kernel-doc-of-e1000_get_hw_dev.patch with sha256" "$err"
expect_eq "refused: no result.json" no "$([ -e "$tmp/tampered/result.json" ] && echo yes || echo no)"

refuse() { # name jq-filter expected-message
	rm -rf "$tmp/refused"
	cp -r "$tmp/s4-copy" "$tmp/refused"
	rm -f "$tmp/refused/result.json"
	jq "$2" "$tmp/s4-copy/step.json" >"$tmp/refused/step.json"
	step "$tmp/refused"
	expect_eq "$1: refused, exit 2, no result" "2 no" \
		"$status $([ -e "$tmp/refused/result.json" ] && echo yes || echo no)"
	expect_contains "$1: says why" "$3" "$err"
}
refuse "another base tree" '.base_tree = "0000000000000000000000000000000000000000"' \
	"step refused: this node's base tree is"
refuse "another config" '.config = "ffff"' "step refused: this node's test kernel config is"
refuse "another suite" '.suite = "ffff"' "step refused: this node's suite is"
refuse "an expected tree that base plus the patches is not" \
	'.expect_tree = "1111111111111111111111111111111111111111"' \
	"the step expects 111111111111"
refuse "a format this gate does not know" '.format = 2' "\"format\" is not 1"

step "$tmp/no-such-step"
expect_eq "a folder that is no step: exit 2" 2 "$status"
expect_contains "a folder that is no step: names step.json" "$tmp/no-such-step/step.json" "$err"
step
expect_eq "no folder: exit 2 with usage" "2 backport-gate step: the step's folder is required" \
	"$status $(head -n 1 "$tmp/err")"
step --write "$tmp/nowhere"
expect_eq "--write without --queue: exit 2" "2 backport-gate step: --write needs --queue" \
	"$status $(head -n 1 "$tmp/err")"
step --write "$tmp/s4" --queue "$queues/shebang-2019"
expect_eq "--write into a folder that holds a step: refused" \
	"2 backport-gate step: $tmp/s4: step: $tmp/s4 holds a step already" "$status $err"

# The whole 2019 queue: the last patch applies 3 lines off, as gate.sh sees it.
step --write "$tmp/s6" --queue "$queues/shebang-2019"
step "$tmp/s6"
expect_eq "the whole 2019 queue: the fork patch at an offset of 3 lines" "0 offset 3" \
	"$status $(res "$tmp/s6" '.applied[5] | "\(.status) \(.offset)"')"
expect_eq "a built tree: the files its build read, for impact analysis" "yes yes" \
	"$(res "$tmp/s6" '[(.build.inputs | index("fs/binfmt_script.c") != null), (.build.inputs | length > 100)] | map(if . then "yes" else "no" end) | join(" ")')"
