#!/bin/bash
# backport-gate run on the bundled sample queues, in QEMU, as a maintainer
# runs it: the 2019 change is dropped citing test.pl; with its revert
# nothing is; a patch that does not apply and one that breaks the build
# are each dropped with their reason; a second run of the same snapshot
# builds and boots nothing, nor does a queue of patches the kernel never
# reads, nor a second run on a new database whose kernel another run
# built; git repositories (path and file:// URL, with
# --ref) read the same queue; bad series entries are refused by name.
# The compile check is off here (--config-check none): these are the
# booted suite's verdicts; tests/config-check.sh gates the demo queue with
# the default check and finds the same drop.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queues=$top/patches/queues
db=$tmp/gate.db
culprit=exec-load_script-don-t-blindly-truncate-shebang-string.patch


gate_run --queue "$queues/shebang-2019"
expect_eq "2019 queue: exit status 1 (drop)" 1 "$status"
expect_eq "2019 queue: exactly the 2019 change is dropped" "$culprit" "$(jqr '.drop | join(" ")')"
expect_eq "2019 queue: reason regression" regression \
	"$(jqr ".patches[] | select(.name == \"$culprit\") | .reason")"
expect_eq "2019 queue: it regressed test.pl among others" true \
	"$(jqr ".patches[] | select(.name == \"$culprit\") | .regressions | index(\"test.pl\") != null")"
expect_eq "2019 queue: the upstream commit is named" 8099b047ecc431518b9bb6bdbba3549bbecdc343 \
	"$(jqr ".patches[] | select(.name == \"$culprit\") | .upstream")"
expect_eq "2019 queue: verdict and base in the JSON" "drop 6.1.192 queue-6.1" \
	"$(jqr '"\(.verdict) \(.base) \(.queue)"')"
expect_eq "2019 queue: uncompiled patches are not exercised" \
	"docs-binfmt-misc-replace-aka.patch e1000-fix-kernel-doc-of-e1000_get_hw_dev.patch" \
	"$(jqr '[.patches[] | select(.status == "not-exercised") | .name] | sort | join(" ")')"
expect_eq "2019 queue: the offset patch is reported as such" "offset 3" \
	"$(jqr '.patches[] | select(.name == "fork-fix-a-comment-about-entry.S.patch") | "\(.apply.status) \(.apply.offset)"')"
expect_contains "2019 queue: the report puts the drop list first" \
	"DROP 1 of 6 patches

Drop:
  $culprit  [regression]" "$out"
expect_contains "2019 queue: evidence shows base vs candidate" \
	"test.pl: base pass; with the patch fail: expected argv[1]=" "$out"
expect_contains "2019 queue: the bisection steps are shown" "clean without it:" "$out"
builds=$(jqr .stats.builds)
run=$(jqr .run)

gate_run --queue "$queues/shebang-2019"
expect_eq "same snapshot again: same verdict" "$culprit" "$(jqr '.drop | join(" ")')"
expect_eq "same snapshot again: no build, no boot" "0 0" "$(jqr '"\(.stats.builds) \(.stats.boots)"')"

status=0
report=$("$gate" report "$run" --db "$db") || status=$?
expect_eq "report RUN: exit status of the recorded verdict" 1 "$status"
expect_contains "report RUN: prints the recorded report" "backport-gate run $run: queue-6.1 on 6.1.192: DROP 1 of 6" "$report"
expect_eq "report RUN --json: the recorded JSON" "$culprit" \
	"$("$gate" report "$run" --json --db "$db" | jq -r '.drop | join(" ")')"

# The record, from the shell.
hist=$("$gate" history --db "$db" --patch 8099b047ecc4)
expect_contains "history --patch SHA: the drop, its reason and cases" \
	"drop    regression  test.pl, exact-trunc-whitespace, exact-trunc-arg, nixos-2019" "$hist"
expect_eq "history --case test.pl --json: regressed by the 2019 change" "regressed $culprit" \
	"$("$gate" history --db "$db" --case test.pl --json | jq -r '.runs[0] | "\(.outcome) \(.patches | join(" "))"')"
expect_eq "history --open --json: the open regression" "$culprit" \
	"$("$gate" history --db "$db" --open --json | jq -r '[.queues[].open[].patch] | join(" ")')"
status=0
"$gate" history --db "$tmp/no-such.db" --open >/dev/null 2>"$tmp/herr" || status=$?
expect_eq "history on a missing database: exit status 2" 2 "$status"
expect_contains "history on a missing database: names it" "$tmp/no-such.db" "$(cat "$tmp/herr")"

gate_run --queue "$queues/shebang-2019-reverted"
expect_eq "with the revert: exit status 0" 0 "$status"
expect_eq "with the revert: nothing dropped" "pass 0" "$(jqr '"\(.verdict) \(.drop | length)"')"

gate_run --queue "$queues/broken"
expect_eq "broken queue: exit status 1" 1 "$status"
expect_eq "broken queue: each dropped with its reason" \
	"binfmt_script-reword-the-hashbang-comment.patch:apply binfmt_script-initialise-retval.patch:build" \
	"$(jqr '[.patches[] | select(.status == "drop") | "\(.name):\(.reason)"] | join(" ")')"
expect_contains "broken queue: the hunk that does not apply is named" \
	"fs/binfmt_script.c: hunk 1 (patch line 10) does not match" "$out"
expect_contains "broken queue: the first compiler error is cited" \
	"fs/binfmt_script.c:38:22: error: ‘no_such_symbol’ undeclared" "$out"

# Every kind of verdict in one queue: a boot breaker, the 2019 regression,
# a fix that changes three quirks of 6.1 (reported, kept), and a patch whose
# Stable-dep-of names the dropped change.
gate_run --queue "$top/tests/data/queues/mixed"
expect_eq "mixed queue: exit status 1" 1 "$status"
expect_eq "mixed queue: drops with their reasons" \
	"binfmt_script-panic-fixture.patch:boot $culprit:regression docs-binfmt-misc-mention-the-shebang-limit.patch:dependency" \
	"$(jqr '[.patches[] | select(.status == "drop") | "\(.name):\(.reason)"] | join(" ")')"
expect_eq "mixed queue: the quirk fix is kept" ok \
	"$(jqr '.patches[] | select(.name == "binfmt_script-trim-blanks-before-the-nul-padding.patch") | .status')"
expect_eq "mixed queue: the quirk fix's behaviour changes are pinned to it" \
	"empty quirk-arg-blank-no-newline quirk-blank-no-newline" \
	"$(jqr '.patches[] | select(.name == "binfmt_script-trim-blanks-before-the-nul-padding.patch") | .changes | sort | join(" ")')"
expect_contains "mixed queue: the panic is the boot evidence" \
	"Kernel panic - not syncing: backport-gate fixture: load_script" "$out"
expect_contains "mixed queue: the dependency names the dropped patch" \
	"Stable-dep-of: 8099b047ecc4 names $culprit" "$out"
expect_contains "mixed queue: the behaviour changes are reported" \
	"Behaviour changes (quirks of the base, reported, not dropped):" "$out"

# The same queues as a git repository in stable-queue layout.
repo=$tmp/stable-queue
mkdir -p "$repo"
git -C "$repo" init -q -b master
cp -r "$queues/shebang-2019/queue-6.1" "$repo/"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m "queue-6.1: 2019"
git -C "$repo" checkout -q -b with-revert
cp -r "$queues/shebang-2019-reverted/queue-6.1" "$repo/"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m "queue-6.1: add the revert"
git -C "$repo" checkout -q master
echo "not part of the queue" >"$repo/queue-6.1/untracked.patch"

gate_run --queue "$repo"
expect_eq "git repository (HEAD): the 2019 change dropped" "$culprit" "$(jqr '.drop | join(" ")')"
expect_eq "git repository: the commit is recorded" "$(git -C "$repo" rev-parse HEAD)" "$(jqr .commit)"
gate_run --queue "$repo" --ref with-revert
expect_eq "git repository --ref with-revert: nothing dropped" "0 pass" "$(jqr '"\(.drop | length) \(.verdict)"')"
gate_run --queue "file://$repo" --ref with-revert
expect_eq "file:// URL --ref: nothing dropped" "0 pass" "$(jqr '"\(.drop | length) \(.verdict)"')"
gate_run --queue "$repo" --ref no-such-branch
expect_eq "unknown --ref: exit status 2" 2 "$status"
expect_eq "unknown --ref: says which" "backport-gate run: queue: ref 'no-such-branch' does not name a commit" "$err"

# Bad series entries are refused by name and line; the rest is judged.
bad=$tmp/bad/queue-6.1
mkdir -p "$bad"
cp "$queues/shebang-2019/queue-6.1/exec-fix-the-binfmt-rewrite-limit-comment.patch" "$bad/"
printf 'binary\0data\n' >"$bad/blob.patch"
: >"$bad/empty.patch"
printf '%s\n' exec-fix-the-binfmt-rewrite-limit-comment.patch ../../etc/passwd \
	/etc/shadow missing.patch blob.patch empty.patch >"$bad/series"
gate_run --queue "$tmp/bad"
expect_eq "bad entries: exit status 1 (they are dropped)" 1 "$status"
expect_eq "bad entries: the good patch is still judged" ok \
	"$(jqr '.patches[0].status')"
expect_eq "bad entries: each refused with reason apply" "apply apply apply apply apply" \
	"$(jqr '[.patches[1:][] | .reason] | join(" ")')"
expect_contains "bad entries: .. named with its line" 'queue-6.1/series:2: "../../etc/passwd"' "$out"
expect_contains "bad entries: absolute path named with its line" 'queue-6.1/series:3: "/etc/shadow"' "$out"
expect_contains "bad entries: missing file named with its line" \
	"queue-6.1/series:4: missing.patch is named in the series but not in the queue" "$out"
expect_contains "bad entries: not a text file" "blob.patch: line 1: not a text file" "$out"
expect_contains "bad entries: empty patch" "empty.patch: empty patch" "$out"

gate_run --queue "$tmp/nowhere"
expect_eq "no such queue: exit status 2" 2 "$status"
expect_contains "no such queue: names it" "$tmp/nowhere: No such file or directory" "$err"

status=0
BG_TARBALL=/nonexistent/linux-source-6.1.tar.xz "$gate" run --db "$db" --queue "$queues/shebang-2019" \
	>"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "no tarball: exit status 2" 2 "$status"
expect_eq "no tarball: names the package" \
	"backport-gate run: package missing: linux-source-6.1 (no /nonexistent/linux-source-6.1.tar.xz; apt-get install linux-source-6.1)" \
	"$(cat "$tmp/err")"

# Patches that touch nothing the test kernel reads make base's kernel:
# confirmed from the record of what base's build read, nothing built.
gate_run --queue "$top/tests/data/queues/uncompiled"
expect_eq "uncompiled queue: exit status 0 (keep all)" 0 "$status"
expect_eq "uncompiled queue: both not exercised" "not-exercised not-exercised" \
	"$(jqr '[.patches[].status] | join(" ")')"
expect_eq "uncompiled queue: no build, no boot" "0 0" "$(jqr '"\(.stats.builds) \(.stats.boots)"')"
expect_eq "uncompiled queue: answered by base's kernel" true "$(jqr '.stats.same_kernel >= 1')"

# A new database on the same cache, with base's kernel already built by
# kernel-tests/run: it is booted without a build of this database's own,
# and the next run on that database reuses that boot.
status=0
"$top/kernel-tests/run" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "kernel-tests/run builds and boots base" 0 "$status"
main_db=$db
db=$tmp/other.db
gate_run --queue "$top/tests/data/queues/uncompiled"
expect_eq "new database: base already built, booted once" "0 0 1" \
	"$status $(jqr '"\(.stats.builds) \(.stats.boots)"')"
gate_run --queue "$top/tests/data/queues/uncompiled"
expect_eq "new database, again: that boot is reused, no build, no boot" "0 0 0" \
	"$status $(jqr '"\(.stats.builds) \(.stats.boots)"')"
db=$main_db

# ...but not when a kept patch makes the kernel read what the other changes.
gate_run --queue "$top/tests/data/queues/same-kernel"
expect_eq "header compiled only after an earlier patch: exit status 1" 1 "$status"
expect_eq "header compiled only after an earlier patch: it is dropped" \
	"glob-declare-glob_match_flags.patch build" "$(jqr '.patches[] | select(.status == "drop") | "\(.name) \(.reason)"')"
expect_contains "header compiled only after an earlier patch: the compiler error is quoted" \
	"unknown type name" "$(jqr '.patches[1].evidence')"

# Apply outcomes are decided on base plus every earlier kept patch, as
# git am and quilt see them (issue 17): a patch the test kernel compiles
# (a Kconfig change) that applies only on top of an earlier patch it
# does not compile is kept, not dropped for not applying.
gate_run --queue "$top/tests/data/queues/needs-earlier"
expect_eq "needs an earlier not-exercised patch: exit status 0" 0 "$status"
expect_eq "needs an earlier not-exercised patch: statuses" "not-exercised ok" \
	"$(jqr '[.patches[].status] | join(" ")')"
expect_eq "needs an earlier not-exercised patch: both applied" "applied applied" \
	"$(jqr '[.patches[].apply.status] | join(" ")')"
kept=$(jqr .kept_tree)
kept_commit=$(jqr .kept_commit)
needs_run=$(jqr .run)

# The kept tree is base plus every kept patch: git apply of both patches
# on an export of base gives the same tree as the export of the run.
expect_eq "kept tree: a tree id and a commit id" "40 40" "${#kept} ${#kept_commit}"
status=0
"$gate" export --db "$db" "$needs_run" "$tmp/kept" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "export RUN DIR: exit status 0" 0 "$status"
expect_contains "export RUN DIR: says what it wrote" "kept tree $kept" "$(cat "$tmp/out")"
expect_eq "export RUN DIR: the kept patch is in the files" 1 \
	"$(grep -c 'maps them again' "$tmp/kept/drivers/iommu/intel/Kconfig")"
expect_eq "export RUN DIR: executable bits kept" yes \
	"$([ -x "$tmp/kept/scripts/checkpatch.pl" ] && echo yes || echo no)"
exported_tree=$(cd "$tmp/kept" && git init -q . && git add -A -f . && git write-tree)
expect_eq "export RUN DIR: the files make exactly the kept tree" "$kept" "$exported_tree"
status=0
"$gate" export --db "$db" "$needs_run" "$tmp/kept" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "export into a folder that is not empty: exit status 2" 2 "$status"
expect_contains "export into a folder that is not empty: refused, named" \
	"$tmp/kept is not empty" "$(cat "$tmp/err")"
expect_eq "export into a folder that is not empty: nothing overwritten" 1 \
	"$(grep -c 'maps them again' "$tmp/kept/drivers/iommu/intel/Kconfig")"
history_runs=$("$gate" history --db "$db" --runs --json)
expect_eq "history --runs: the kept tree of the run" "$kept" \
	"$(jq -r ".runs[] | select(.run == $needs_run) | .kept_tree" <<<"$history_runs")"
expect_contains "report RUN: the kept tree" "Kept tree: $kept" \
	"$("$gate" report --db "$db" "$needs_run")"

# A patch that applies only on top of a dropped one is dropped as its
# dependency, naming it (not as "does not apply").
cache=${XDG_CACHE_HOME:+$XDG_CACHE_HOME/backport-gate}
cache=${cache:-/var/cache/backport-gate}
gate_run --queue "$top/tests/data/queues/needs-dropped"
expect_eq "needs a dropped patch: exit status 1" 1 "$status"
expect_eq "needs a dropped patch: reasons" \
	"$culprit regression exec-load_script-say-why-a-long-line-is-refused.patch dependency" \
	"$(jqr '[.patches[] | select(.status == "drop") | "\(.name) \(.reason)"] | join(" ")')"
expect_contains "needs a dropped patch: the drop it needs is named" \
	"applies on top of the whole queue, not once $culprit is dropped" "$(jqr '.patches[1].evidence')"
expect_contains "needs a dropped patch: and the file it needs it for" \
	"(it needs $culprit, which changes fs/binfmt_script.c)" "$(jqr '.patches[1].evidence')"
expect_eq "needs a dropped patch: the kept tree is base's" "$(jqr .kept_tree)" \
	"$(git -C "$cache/linux-6.1/src" rev-parse 'base^{tree}' 2>/dev/null)"

# Patches as they come from the list, read as git am reads them: a raw
# mail (transport headers first), an mbox of three behind a cover letter,
# a quoted-printable mail. Each is named by its Subject, not its first line.
gate_run --queue "$top/tests/data/queues/mail"
expect_eq "mail queue: exit status 0" 0 "$status"
expect_eq "mail queue: one entry per patch, the mbox by file and index" \
	"binfmts-say-what-struct-linux_binprm-holds.eml comment-fixes.mbox#1 comment-fixes.mbox#2 comment-fixes.mbox#3 docs-binfmt-misc-replace-aka.eml" \
	"$(jqr '[.patches[].name] | join(" ")')"
expect_eq "mail queue: subjects from Subject:, cleaned" \
	"binfmts: say what struct linux_binprm holds|exec: fix the binfmt rewrite limit in a comment|e1000: reword the kernel-doc of e1000_get_hw_dev()|fork: do not point at entry.S in the header comment|docs: binfmt-misc: replace ‘aka’ in the introduction" \
	"$(jqr '[.patches[].subject] | join("|")')"
expect_eq "mail queue: the raw mail's author, date and message-id" \
	"Jane Doe <jane@example.org>|Mon, 2 Dec 2024 10:00:00 +0100|20241202090000.4242-1-jane@example.org" \
	"$(jqr '.patches[0] | "\(.author)|\(.date)|\(.message_id)"')"
expect_eq "mail queue: the quoted-printable mail's author, decoded" \
	"Ilpo Järvinen <ilpo.jarvinen@linux.intel.com>" "$(jqr '.patches[4].author')"
expect_contains "mail queue: history names the patch by its subject" \
	"binfmts: say what struct linux_binprm holds" \
	"$("$gate" history --db "$db" --patch binfmts-say-what-struct-linux_binprm-holds.eml --json)"
