#!/bin/bash
# The compile check under a distribution's own config (run --config-check),
# as a user sees it: patches/queues/config-check holds a harmless change
# to a file only distribution configs build, a header change that breaks
# a file another patch touched, and a call to a function 6.1 lacks inside
# #ifdef CONFIG_SECURITY, which Debian's amd64 config enables and the
# gate's tinyconfig does not. With the check, the last two are dropped
# for "build" with the compiler's line; without it, all three are kept.
# Names that are no config, or a package that is not installed, exit 2
# with one line saying what to do. Uses the shared cache: the first run
# on a machine prepares Debian's config (about a minute) and builds base.
. "$(dirname "$0")/lib.bash"
gate=${BG_GATE:-$top/build/backport-gate}
queue=$top/patches/queues/config-check
header=isofs-let-isofs_name_translate-keep-the-case.patch
call=exec-binfmt_script-let-lsms-check-the-interpreter.patch
comment=isofs-namei-capitalise-a-comment.patch
kvm=kvm-pfncache-say-file-not-module.patch

# run ARGS...: sets status, err; the JSON report in $tmp/report.json.
run() {
	status=0
	rm -f "$tmp/report.json"
	"$gate" run --db "$tmp/gate.db" --json "$tmp/report.json" "$@" >"$tmp/out" 2>"$tmp/err" ||
		status=$?
	err=$(cat "$tmp/err")
}
field() { jq -r "$1" "$tmp/report.json" 2>/dev/null; }
patch() { field ".patches[] | select(.name == \"$1\") | $2"; }

run --queue "$queue" --config-check no-such-config
expect_eq "unknown config name: exit status 2" 2 "$status"
expect_eq "unknown config name: says what a config is" \
	"backport-gate run: config-check: unknown configuration 'no-such-config': a file path, none, or one of Debian's: amd64, cloud-amd64, rt-amd64" \
	"$err"

run --queue "$queue" --config-check "$tmp/no/such.config"
expect_eq "config file that is not there: exit status 2" 2 "$status"
expect_eq "config file that is not there: names it" \
	"backport-gate run: config-check: cannot read $tmp/no/such.config: No such file or directory" "$err"

# A tree whose linux-config package is not installed: a tarball named
# linux-source-9.8 (the tree is only read once the config is found).
cp /usr/src/linux-source-6.1.tar.xz "$tmp/linux-source-9.8.tar.xz" 2>/dev/null ||
	ln -s /usr/src/linux-source-6.1.tar.xz "$tmp/linux-source-9.8.tar.xz"
run --queue "$queue" --series queue-6.1 --tree "$tmp/linux-source-9.8.tar.xz" --config-check amd64
expect_eq "config package not installed: exit status 2" 2 "$status"
expect_eq "config package not installed: names the package to install" \
	"backport-gate run: config-check: /usr/src/linux-config-9.8/config.amd64_none_amd64.xz: No such file or directory; it comes with package linux-config-9.8 (apt-get install linux-config-9.8)" \
	"$err"

ln -s /usr/src/linux-source-6.1.tar.xz "$tmp/linux_6.1.1.orig.tar.xz"
run --queue "$queue" --series queue-6.1 --tree "$tmp/linux_6.1.1.orig.tar.xz" --config-check amd64
expect_eq "config name on an orig tarball: exit status 2" 2 "$status"
expect_contains "config name on an orig tarball: says to give the path" \
	"is no linux-source-X.Y; give the config file's path" "$err"

# With the check: the header patch and the call are dropped for build.
start=$(date +%s)
run --queue "$queue" --config-check amd64
took=$(($(date +%s) - start))
expect_eq "with --config-check amd64: exit status 1 (drop)" 1 "$status"
expect_eq "with --config-check amd64: the header change and the call are dropped" \
	"$header $call" "$(field '.drop | join(" ")')"
expect_eq "with --config-check amd64: both for build" "build build" \
	"$(field '[.patches[] | select(.status == "drop") | .reason] | join(" ")')"
expect_eq "with --config-check amd64: the harmless changes are kept" "ok ok" \
	"$(patch "$comment" .status) $(patch "$kvm" .status)"
expect_eq "an object kbuild reaches through '..': found and compiled" "virt/kvm/pfncache.o" \
	"$(patch "$kvm" '.compile_check.configs[0].objects | join(" ")')"
expect_contains "the call: the evidence names the config" "config amd64 (" "$(patch "$call" .evidence)"
expect_contains "the call: the evidence quotes the compiler at its line" \
	"fs/binfmt_script.c:" "$(patch "$call" .evidence)"
expect_contains "the call: the missing function is named" \
	"security_bprm_check_interp" "$(patch "$call" .evidence)"
expect_contains "the call: the compiler's own words" "error: implicit declaration of function" \
	"$(patch "$call" .evidence)"
expect_contains "the header change: pinned with an error in a file it does not touch" \
	"fs/isofs/" "$(patch "$header" .evidence)"
expect_contains "the header change: the compiler's error" "error: " "$(patch "$header" .evidence)"
expect_eq "the harmless change: its object, as the config builds it" "fs/isofs/namei.o" \
	"$(patch "$comment" '.compile_check.configs[0].objects | join(" ")')"
expect_eq "the header change: the objects that include it" \
	"fs/isofs/compress.o fs/isofs/dir.o fs/isofs/export.o fs/isofs/inode.o fs/isofs/joliet.o fs/isofs/namei.o fs/isofs/rock.o fs/isofs/util.o" \
	"$(patch "$header" '.compile_check.configs[0].objects | join(" ")')"
expect_eq "the report names the configs checked" amd64 "$(field '.config_checks | join(" ")')"
checks=$(field .stats.compile_checks)
if [ "${checks:-0}" -ge 2 ]; then
	pass "stats.compile_checks counts the trees checked ($checks)"
else
	fail "stats.compile_checks: expected at least 2, got '$checks'"
fi
expect_contains "the text report says the check ran" "config check: amd64" "$(cat "$tmp/out")"
echo "# with --config-check amd64: $took s, $(field .stats.compile_objects) objects compiled, set-up $(field .stats.compile_setup_seconds) s"

# Without it (none), the same queue passes: tinyconfig builds no isofs.
run --queue "$queue" --config-check amd64 --config-check none
expect_eq "--config-check none: exit status 0" 0 "$status"
expect_eq "--config-check none: nothing dropped" "" "$(field '.drop | join(" ")')"
expect_eq "--config-check none: isofs and kvm are not exercised, the call is ok" \
	"not-exercised not-exercised ok not-exercised" "$(field '[.patches[].status] | join(" ")')"
expect_eq "--config-check none: no compile check in the report" null "$(field .config_checks)"

# A queue that touches nothing a config builds compiles nothing.
mkdir -p "$tmp/docs/queue-6.1"
cp "$top/patches/queues/broken/queue-6.1/docs-binfmt-misc-replace-aka.patch" "$tmp/docs/queue-6.1/"
echo docs-binfmt-misc-replace-aka.patch >"$tmp/docs/queue-6.1/series"
run --queue "$tmp/docs" --config-check amd64
expect_eq "documentation only: exit status 0" 0 "$status"
expect_eq "documentation only: no object compiled" 0 "$(field .stats.compile_objects)"
