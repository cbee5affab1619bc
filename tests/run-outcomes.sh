#!/bin/bash
# kernel-tests/run's other outcomes, as a user sees them: a fix to a quirk
# is reported but passes; each way of not being able to run exits 2 with
# one line naming the cause.
. "$(dirname "$0")/lib.bash"
fixtures=$top/tests/data/patches

run_suite --patches "$fixtures/quirk-fix"
expect_eq "quirk fix: exit status 0 (a behaviour change is not a failure)" 0 "$status"
expect_eq "quirk fix: no contract case fails" "" "$(failed_cases)"
expect_eq "quirk fix: the three quirk cases say they changed" \
	"empty quirk-arg-blank-no-newline quirk-blank-no-newline" \
	"$(printf '%s\n' "$out" | grep ' # TODO quirk changed' | awk '{print $4}' | sort | tr '\n' ' ' | sed 's/ $//')"
expect_contains "quirk fix: expected and observed are shown" \
	'quirk-arg-blank-no-newline # TODO quirk changed: expected argv[1]="-a ", got "-a"' "$out"

run_suite --patches "$fixtures/no-apply"
expect_eq "patch does not apply: exit status" 2 "$status"
expect_eq "patch does not apply: names the patch and the file" \
	"kernel-tests/run: patch does not apply: 0001-no-apply.patch: fs/binfmt_script.c" "$err"

run_suite --patches "$fixtures/missing-file"
expect_eq "series names a missing file: exit status" 2 "$status"
expect_contains "series names a missing file: names it" \
	"0001-absent.patch is named in the series but not in the queue" "$err"

run_suite --patches "$fixtures/build-error"
expect_eq "build error: exit status" 2 "$status"
expect_contains "build error: the first compiler error" \
	"build error: fs/binfmt_script.c:" "$err"
expect_contains "build error: names the symbol" "no_such_symbol" "$err"

run_suite --patches "$fixtures/panic"
expect_eq "guest panic: exit status" 2 "$status"
expect_contains "guest panic: the panic line" \
	"guest panic: Kernel panic - not syncing: backport-gate fixture: load_script" "$err"
expect_contains "guest panic: the console tail follows" "# console tail:" "$err"

status=0
BG_BOOT_TIMEOUT=20 BG_ACCEL=tcg "$run" --patches "$fixtures/hang" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "guest hang: exit status" 2 "$status"
expect_contains "guest hang: timeout named" "guest timeout: no result within 20 s (tcg)" \
	"$(cat "$tmp/err")"

status=0
BG_TARBALL=/nonexistent/linux-source-6.1.tar.xz "$run" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "no tarball: exit status" 2 "$status"
expect_eq "no tarball: names the package" \
	"kernel-tests/run: package missing: linux-source-6.1 (no /nonexistent/linux-source-6.1.tar.xz; apt-get install linux-source-6.1)" \
	"$(cat "$tmp/err")"

# Every command but QEMU on PATH.
mkdir -p "$tmp/bin"
for f in /usr/local/bin/* /usr/bin/* /bin/* /usr/sbin/* /sbin/*; do
	case ${f##*/} in qemu-system-*) continue ;; esac
	[ -e "$tmp/bin/${f##*/}" ] || ln -s "$f" "$tmp/bin/${f##*/}"
done
status=0
PATH=$tmp/bin "$run" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_eq "no qemu: exit status" 2 "$status"
expect_eq "no qemu: names the package" \
	"kernel-tests/run: package missing: qemu-system-x86 (no 'qemu-system-x86_64'; apt-get install qemu-system-x86)" \
	"$(cat "$tmp/err")"

run_suite --upto 1
expect_eq "--upto without --patches: exit status" 2 "$status"
expect_eq "--upto without --patches: says so" "kernel-tests/run: --upto needs --patches" "$err"

run_suite --patches "$top/patches/6.1" --upto 5
expect_eq "--upto past the series: exit status" 2 "$status"
expect_contains "--upto past the series: says so" "--upto 5: the series has only 2 patches" "$err"

# --naive, up to the build (the whole build is bench/naive-gate's): its own
# source tree gets the patched file, its own build directory the config,
# its repository reads the base import's objects; a build past
# BG_BUILD_TIMEOUT is named, with exit status 2.
kdir=${XDG_CACHE_HOME:+$XDG_CACHE_HOME/backport-gate}
kdir=${BG_CACHE:-${kdir:-/var/cache/backport-gate}}/linux-6.1
status=0
BG_BUILD_TIMEOUT=20 "$run" --naive --patches "$top/patches/6.1" --upto 1 >"$tmp/out" 2>"$tmp/err" ||
	status=$?
expect_eq "naive: a build past its timeout: exit status" 2 "$status"
expect_contains "naive: the timeout is named" "make timed out after 20 s" "$(cat "$tmp/err")"
expect_contains "naive: make clean first, in its own build directory" \
	"# naive: make clean in $kdir/naive/build" "$(cat "$tmp/err")"
expect_contains "naive: its source tree holds the patch" \
	"if (!memchr(bprm->buf, '\0', sizeof(bprm->buf)))" "$(cat "$kdir/naive/src/fs/binfmt_script.c")"
expect_eq "naive: its build directory was configured" yes \
	"$(grep -q '^CONFIG_BINFMT_SCRIPT=y' "$kdir/naive/build/.config" && echo yes)"
# (its objects are the base import's, not a copy: a few MiB, not 200)
expect_eq "naive: its repository shares the base import's objects" yes \
	"$([ "$(du -sm "$kdir/naive/src/.git/objects" | cut -f1)" -lt 20 ] &&
		git -C "$kdir/naive/src" cat-file -e "$(git -C "$kdir/src" rev-parse base)^{commit}" &&
		echo yes)"
